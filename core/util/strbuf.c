#include "strbuf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char strbuf_empty[1];

void strbuf_init(strbuf *sb, size_t hint)
{
    sb->alloc = sb->len = 0;
    sb->buf = strbuf_empty;
    if (hint)
        strbuf_grow(sb, hint);
}

void strbuf_release(strbuf *sb)
{
    if (sb->alloc)
        free(sb->buf);
    strbuf_init(sb, 0);
}

char *strbuf_detach(strbuf *sb, size_t *len)
{
    if (!sb->alloc)
        strbuf_grow(sb, 0);
    char *r = sb->buf;
    if (len)
        *len = sb->len;
    strbuf_init(sb, 0);
    return r;
}

void strbuf_grow(strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need < sb->len) {
        fputs("aotidbg: strbuf size overflow\n", stderr);
        abort();
    }
    if (sb->alloc >= need)
        return;
    size_t cap = sb->alloc ? sb->alloc : 64;
    while (cap < need)
        cap = cap * 3 / 2 + 16;
    char *p = realloc(sb->alloc ? sb->buf : NULL, cap);
    if (!p) {
        fprintf(stderr, "aotidbg: out of memory (%zu bytes)\n", cap);
        abort();
    }
    if (!sb->alloc)
        p[0] = 0;
    sb->buf = p;
    sb->alloc = cap;
}

void strbuf_reset(strbuf *sb) { strbuf_setlen(sb, 0); }

void strbuf_setlen(strbuf *sb, size_t len)
{
    if (!sb->alloc)
        return;
    sb->len = len;
    sb->buf[len] = 0;
}

void strbuf_add(strbuf *sb, const void *data, size_t n)
{
    strbuf_grow(sb, n);
    if (n)   /* an empty strbuf's NULL data adds nothing (memcpy must not see NULL) */
        memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}

void strbuf_addstr(strbuf *sb, const char *s) { strbuf_add(sb, s, strlen(s)); }

void strbuf_addch(strbuf *sb, int c)
{
    strbuf_grow(sb, 1);
    sb->buf[sb->len++] = (char)c;
    sb->buf[sb->len] = 0;
}

void strbuf_vaddf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    strbuf_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_add_yaml_quoted(strbuf *sb, const char *s)
{
    strbuf_addch(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': strbuf_addstr(sb, "\\\""); break;
        case '\\': strbuf_addstr(sb, "\\\\"); break;
        case '\n': strbuf_addstr(sb, "\\n"); break;
        case '\t': strbuf_addstr(sb, "\\t"); break;
        case '\r': strbuf_addstr(sb, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                strbuf_addf(sb, "\\x%02x", *p);
            else
                strbuf_addch(sb, *p);
        }
    }
    strbuf_addch(sb, '"');
}

int strbuf_read_file(strbuf *sb, const char *path, size_t max, strbuf *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        strbuf_addf(err, "%s: a folder, not a file", path);
        fclose(f);
        return -1;
    }
    char tmp[65536];
    size_t n, start = sb->len;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (sb->len - start + n > max) {
            strbuf_addf(err, "%s: larger than the %zu-byte limit", path, max);
            fclose(f);
            return -1;
        }
        strbuf_add(sb, tmp, n);
    }
    int bad = ferror(f), e = errno;
    fclose(f);
    if (bad) {
        strbuf_addf(err, "%s: read error: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

void strbuf_add_shell_word(strbuf *sb, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%") == strlen(s)) {
        strbuf_addstr(sb, s);
        return;
    }
    strbuf_addch(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_addstr(sb, "'\\''");
        else
            strbuf_addch(sb, *s);
    }
    strbuf_addch(sb, '\'');
}
