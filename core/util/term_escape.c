/* term_escape.c — escaping untrusted text for a terminal (term_escape.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fdio.h"
#include "term_escape.h"

int utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned c = p[0];
    int len;
    uint32_t min, v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2, min = 0x80, v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, min = 0x800, v = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, min = 0x10000, v = c & 0x07;
    } else {
        return 0;
    }
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

size_t term_escape(strbuf *out, const char *s, size_t n, int final)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, plain = 0;   /* s[plain..i) is kept as it is, added in one go */
    while (i < n) {
        uint32_t cp = 0;
        int k = utf8_next(p + i, n - i, &cp);
        if (k < 0 && !final)
            break;
        int bad = k <= 0;
        if (!bad && !(cp < 0x20 && cp != '\n' && cp != '\t') && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0)) {
            i += (size_t)k;
            continue;
        }
        strbuf_add(out, s + plain, i - plain);
        if (bad)
            strbuf_addf(out, "\\x%02x", p[i]);
        else if (cp == '\r')
            strbuf_addstr(out, "\\r");
        else if (cp < 0x80)
            strbuf_addf(out, "\\x%02x", (unsigned)cp);
        else
            strbuf_addf(out, "\\u%04X", (unsigned)cp);
        i += bad ? 1 : (size_t)k;
        plain = i;
    }
    strbuf_add(out, s + plain, i - plain);
    return i;
}

/* ---- the guarded streams ----------------------------------------------------- */

typedef struct {
    int fd;
    char held[4];   /* the start of a UTF-8 sequence a write cut */
    size_t nheld;
} guard;

static ssize_t guard_write(void *cookie, const char *buf, size_t n)
{
    guard *g = cookie;
    strbuf in = STRBUF_INIT, out = STRBUF_INIT;
    strbuf_add(&in, g->held, g->nheld);
    strbuf_add(&in, buf, n);
    size_t used = term_escape(&out, in.buf, in.len, 0);
    g->nheld = in.len - used;   /* at most 3: a sequence is at most 4 bytes */
    memcpy(g->held, in.buf + used, g->nheld);
    int rc = fd_write_all(g->fd, out.buf, out.len);
    strbuf_release(&in);
    strbuf_release(&out);
    return rc < 0 ? -1 : (ssize_t)n;
}

static int guard_close(void *cookie)
{
    guard *g = cookie;
    if (g->nheld) {
        strbuf out = STRBUF_INIT;
        term_escape(&out, g->held, g->nheld, 1);
        fd_write_all(g->fd, out.buf, out.len);
        strbuf_release(&out);
    }
    free(g);
    return 0;
}

/* The guards of stdout and stderr: they live as long as the process (LeakSanitizer sees them
 * held here; glibc's cookie streams are never closed at exit). */
static guard *kept[2];

static FILE *guarded(FILE *old, int fd, int mode)
{
    guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->fd = fd;
    cookie_io_functions_t io = {NULL, guard_write, NULL, guard_close};
    FILE *f = fopencookie(g, "w", io);
    if (!f) {
        free(g);
        return NULL;
    }
    fflush(old);
    setvbuf(f, NULL, mode, BUFSIZ);
    kept[fd == STDERR_FILENO] = g;
    return f;
}

int term_guard_stderr(void)
{
    static int done;
    if (done)
        return 0;
    FILE *e = guarded(stderr, STDERR_FILENO, _IOLBF);
    if (!e)
        return -1;
    stderr = e;   /* glibc: stderr is a plain variable */
    done = 1;
    return 0;
}

int term_guard_stdio(void)
{
    static int done;
    if (done)
        return 0;
    FILE *o = guarded(stdout, STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
    if (!o)
        return -1;
    if (term_guard_stderr() < 0) {
        fclose(o);
        return -1;
    }
    stdout = o;   /* glibc: stdout is a plain variable */
    done = 1;
    return 0;
}
