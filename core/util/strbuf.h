/* strbuf.h — growable NUL-terminated byte buffer (after git's strbuf).
 *
 * Contract: a strbuf is initialised with STRBUF_INIT or strbuf_init() and
 * released with strbuf_release(); after release it is empty and reusable.
 * buf is never NULL and always NUL-terminated; len excludes the NUL.
 * strbuf_detach() hands the malloc'd buffer to the caller (caller frees).
 * Allocation failure aborts: callers cap untrusted sizes before appending.
 *
 * Errors across core/ are reported as an int return (0 ok, -1 failed) with
 * the human-readable message appended to a caller-supplied `strbuf *err`. */
#ifndef AOTIDBG_STRBUF_H
#define AOTIDBG_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    size_t alloc, len;
    char *buf;
} strbuf;

extern char strbuf_empty[];
#define STRBUF_INIT {0, 0, strbuf_empty}

void strbuf_init(strbuf *sb, size_t hint);
void strbuf_release(strbuf *sb);
char *strbuf_detach(strbuf *sb, size_t *len);
void strbuf_grow(strbuf *sb, size_t extra);
void strbuf_reset(strbuf *sb);
void strbuf_setlen(strbuf *sb, size_t len);
void strbuf_add(strbuf *sb, const void *data, size_t n);
void strbuf_addstr(strbuf *sb, const char *s);
void strbuf_addch(strbuf *sb, int c);
void strbuf_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(strbuf *sb, const char *fmt, va_list ap);
/* Appends s with YAML double-quoted escaping, quotes included. */
void strbuf_add_yaml_quoted(strbuf *sb, const char *s);
/* s as one word for a POSIX shell: as it is when it holds only letters,
 * digits and -_./:=@,+%, else in single quotes. */
void strbuf_add_shell_word(strbuf *sb, const char *s);
/* Reads a whole file, at most max bytes; -1 and a message in err on failure or if larger. */
int strbuf_read_file(strbuf *sb, const char *path, size_t max, strbuf *err);

#endif
