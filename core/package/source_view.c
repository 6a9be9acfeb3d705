/* source_view.c — a kernel's body in generated sources, a user file's lines
 * (see source_view.h). */
#define _GNU_SOURCE
#include "source_view.h"
#include "compat.h"
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int is_ident(int c) { return isalnum(c) || c == '_'; }

static int64_t line_of(const char *text, const char *p)
{
    int64_t line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    return line;
}

/* `name` at p as a whole identifier (text starts at text, ends at end). */
static int whole_word(const char *text, const char *end, const char *p, size_t n)
{
    return (p == text || !is_ident((unsigned char)p[-1])) && (p + n >= end || !is_ident((unsigned char)p[n]));
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The '}' closing the '{' at p (string and char literals skipped), or the
 * last byte before end when it never closes. */
static const char *match_brace(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; p < end && *p != q; p++)
                if (*p == '\\' && p + 1 < end)
                    p++;
            if (p >= end)
                break;
            continue;
        }
        if (*p == '{')
            depth++;
        else if (*p == '}' && --depth == 0)
            return p;
    }
    return end - 1;
}

/* A C++ definition `void name(...) {`: sets [*first, *last] to it, returns 1. */
static int cpp_body(const char *text, size_t len, const char *name, const char **first, const char **last)
{
    const char *end = text + len;
    size_t n = strlen(name);
    for (const char *p = text; (p = memmem(p, (size_t)(end - p), name, n)); p += n) {
        if (!whole_word(text, end, p, n))
            continue;
        const char *q = skip_space(p + n, end);
        const char *b = p;
        while (b > text && isspace((unsigned char)b[-1]))
            b--;
        if (q >= end || *q != '(' || b - text < 4 || !mem_ends_with(text, (size_t)(b - text), "void") ||
            (b - 4 > text && is_ident((unsigned char)b[-5])))
            continue;
        int depth = 0;
        const char *c = q;
        for (; c < end; c++) {
            if (*c == '(')
                depth++;
            else if (*c == ')' && --depth == 0)
                break;
        }
        const char *o = c < end ? skip_space(c + 1, end) : end;
        if (o < end && *o == '{') {   /* a forward declaration ends in ';' */
            *first = b - 4;
            *last = match_brace(o, end);
            return 1;
        }
    }
    return 0;
}

/* Columns of blanks at the start of the line [s, e). */
static size_t indent_of(const char *s, const char *e)
{
    size_t n = 0;
    while (s + n < e && (s[n] == ' ' || s[n] == '\t'))
        n++;
    return n;
}

/* A Triton kernel's embedded `def name(`, at any indent (AOTI puts the
 * source, indented, in a comment inside call_triton_<name>): to the next
 * line indented no deeper than the def (the source's closing quotes, the
 * comment's end, or top-level code). */
static int py_body(const char *text, size_t len, const char *name, const char **first, const char **last)
{
    const char *end = text + len;
    size_t n = strlen(name);
    for (const char *p = text; (p = memmem(p, (size_t)(end - p), name, n)); p += n) {
        if (p - text < 4 || !mem_ends_with(text, (size_t)(p - text), "def ") || p + n >= end || p[n] != '(')
            continue;
        const char *ls = p - 4;   /* the def's line: only blanks before it */
        while (ls > text && (ls[-1] == ' ' || ls[-1] == '\t'))
            ls--;
        if (ls > text && ls[-1] != '\n')
            continue;
        size_t ind = (size_t)(p - 4 - ls);
        const char *l = memchr(p, '\n', (size_t)(end - p));
        const char *lastc = l ? l - 1 : end - 1;
        while (l && l + 1 < end) {
            const char *s = l + 1, *e = memchr(s, '\n', (size_t)(end - s));
            if (!e)
                e = end;
            size_t k = indent_of(s, e);
            if (s + k < e && k <= ind)   /* a line no deeper than the def: the body ended */
                break;
            if (s + k < e)
                lastc = e - 1;
            l = e < end ? e : NULL;
        }
        *first = ls;
        *last = lastc;
        return 1;
    }
    return 0;
}

/* Start of 1-based line `line`, or NULL past the end. */
static const char *line_start(const char *text, size_t len, int64_t line)
{
    const char *p = text, *end = text + len;
    for (int64_t i = 1; i < line && p; i++) {
        p = memchr(p, '\n', (size_t)(end - p));
        p = p ? p + 1 : NULL;
    }
    return p && p < end ? p : NULL;
}

/* The first whole-word `name(` from `from` (a launch), or NULL; at most
 * `window` bytes on when window > 0. */
static const char *launch(const char *text, size_t len, const char *from, size_t window, const char *name)
{
    const char *end = text + len;
    if (window && (size_t)(end - from) > window)
        end = from + window;
    size_t n = strlen(name);
    for (const char *p = from; p && (p = memmem(p, (size_t)(end - p), name, n)); p += n)
        if (whole_word(text, end, p, n) && p + n < end && p[n] == '(')
            return p;
    return NULL;
}

static const char *mention(const char *text, size_t len, const char *name)
{
    const char *end = text + len;
    size_t n = strlen(name);
    for (const char *p = text; p && (p = memmem(p, (size_t)(end - p), name, n)); p += n)
        if (whole_word(text, end, p, n))
            return p;
    return NULL;
}

int kernel_source_find(const char *wrapper, size_t wlen, const char *kernel, size_t klen, const char *name,
                       int64_t launch_line, const char *fail, int64_t fail_line, source_spot *out)
{
    memset(out, 0, sizeof *out);
    if (!name || !*name)
        return -1;
    const char *texts[2] = {wrapper, kernel};
    size_t lens[2] = {wrapper ? wlen : 0, kernel ? klen : 0};
    const char *first, *last;
    /* bodies: C++ in kernel.cpp first (wrapper.cpp holds only its declaration), Triton in wrapper.cpp */
    static const source_part order[2] = {SRC_KERNEL, SRC_WRAPPER};
    for (int k = 0; k < 2; k++) {
        source_part part = order[k];
        const char *t = texts[part];
        if (!t || !(cpp_body(t, lens[part], name, &first, &last) || py_body(t, lens[part], name, &first, &last)))
            continue;
        out->part = part;
        out->line = out->body_first = line_of(t, first);
        out->body_last = out->body_first + line_of(first, last) - 1;
        out->what = "body";
        const char *f = fail && *fail ? memmem(first, (size_t)(last - first + 1), fail, strlen(fail)) : NULL;
        if (f) {
            out->line = out->body_first + line_of(first, f) - 1;
            out->what = "failing line";
        } else if (fail_line >= out->body_first && fail_line <= out->body_last) {
            out->line = fail_line;
            out->what = "failing line";
        }
        return 0;
    }
    const char *p, *from;
    if (launch_line > 0 && wrapper && (from = line_start(wrapper, wlen, launch_line))) {
        /* the provenance's line is the launch's first printer call: the call itself follows */
        p = launch(wrapper, wlen, from, 64u << 10, name);
        out->part = SRC_WRAPPER;
        out->line = p ? line_of(wrapper, p) : launch_line;
        out->what = "launch";
        return 0;
    }
    const char *ri = wrapper ? memmem(wrapper, wlen, "::run_impl(", 11) : NULL;
    if (wrapper && (p = launch(wrapper, wlen, ri ? ri : wrapper, 0, name))) {
        out->part = SRC_WRAPPER;
        out->line = line_of(wrapper, p);
        out->what = "launch";
        return 0;
    }
    for (int part = 0; part < 2; part++)
        if (texts[part] && (p = mention(texts[part], lens[part], name))) {
            out->part = (source_part)part;
            out->line = line_of(texts[part], p);
            out->what = "mention";
            return 0;
        }
    return -1;
}

int source_excerpt(const char *path, int64_t line, int ctx, strbuf *out, strbuf *err)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        strbuf_addf(err, "%s: not a regular file", path);
        return -1;
    }
    strbuf text = STRBUF_INIT;
    if (strbuf_read_file(&text, path, SOURCE_EXCERPT_MAX_BYTES, err) < 0) {
        strbuf_release(&text);
        return -1;
    }
    int64_t lo = line - ctx < 1 ? 1 : line - ctx, hi = line + ctx, n = 1;
    const char *p = text.buf, *end = text.buf + text.len;
    int found = 0;
    while (p < end && n <= hi) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (n >= lo) {
            strbuf_addf(out, "%c %5lld  ", n == line ? '>' : ' ', (long long)n);
            for (const char *c = p; c < e; c++)
                strbuf_addch(out, *c == '\t' ? ' ' : (unsigned char)*c < 32 || *c == 127 ? '?' : *c);
            strbuf_addch(out, '\n');
            found |= n == line;
        }
        n++;
        p = e + 1;
    }
    strbuf_release(&text);
    if (!found) {
        strbuf_addf(err, "%s: has no line %lld (changed since the package was built?)", path, (long long)line);
        return -1;
    }
    return 0;
}
