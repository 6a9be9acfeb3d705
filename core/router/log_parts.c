/* log_parts.c — see log_parts.h. Classifying is prefix and substring tests
 * (no regex): the router runs it on every line of a 100 MB log. */
#define _GNU_SOURCE
#include "log_parts.h"
#include "compat.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define LP_NAME(e, s, sev) s,
#define LP_SEV(e, s, sev) sev,
static const char *const part_names[] = {LOG_PART_KINDS(LP_NAME)};
static const int part_sev[] = {LOG_PART_KINDS(LP_SEV)};

const char *log_part_name(log_part_kind k) { return k < LOG_PART_NKINDS ? part_names[k] : "text"; }
int log_part_severity(log_part_kind k) { return k < LOG_PART_NKINDS ? part_sev[k] : 0; }

static int has(const char *s, size_t n, const char *needle)
{
    return memmem(s, n, needle, strlen(needle)) != NULL;
}

static int starts(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && !memcmp(s, p, k);
}

static int is_ident(unsigned char c) { return isalnum(c) || c == '_'; }

/* `pkg.mod.SomeError: msg`, `SomeError` alone, `SomeError[...]:`: the length
 * of the dotted type name when the line is one, with *warning set for a
 * `...Warning` class; 0 when not. */
static size_t exception_type(const char *s, size_t n, int *warning)
{
    size_t i = 0, seg = 0;
    *warning = 0;
    while (i < n) {
        if (!(isalpha((unsigned char)s[i]) || s[i] == '_'))
            return 0;
        seg = i;
        while (i < n && is_ident((unsigned char)s[i]))
            i++;
        if (i < n && s[i] == '.' && i + 1 < n && (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_')) {
            i++;
            continue;
        }
        break;
    }
    if (!i || i > 160)
        return 0;
    static const char *const ends[] = {"Error", "Exception", "Exit", "Interrupt", "Failure", "Fault", "Failed"};
    size_t segn = i - seg;
    int ok = 0;
    for (size_t k = 0; !ok && k < sizeof ends / sizeof *ends; k++) {
        size_t e = strlen(ends[k]);
        ok = segn >= e && !memcmp(s + i - e, ends[k], e);
    }
    if (!ok && segn >= 7 && !memcmp(s + i - 7, "Warning", 7))
        ok = *warning = 1;
    /* any class a module qualifies (`torch._dynamo.exc.Unsupported: ...`), when a message follows */
    if (!ok && seg > 0 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ')
        ok = 1;
    if (!ok || !isupper((unsigned char)s[seg]))
        return 0;
    size_t j = i;
    if (j < n && s[j] == '[') {                 /* `ExceptionGroup[...]`-style annotations */
        const char *close = memchr(s + j, ']', n - j);
        if (!close)
            return 0;
        j = (size_t)(close - s) + 1;
    }
    if (j == n || (s[j] == ':' && (j + 1 == n || s[j + 1] == ' ')))
        return i;
    return 0;
}

int log_line_level(const char *raw, size_t n)
{
    const char *p = raw, *end = raw + n;
    for (int k = 0; k < 3 && p < end; k++) {      /* `[rank0]:`, `rank0:` before it */
        while (p < end && *p == ' ')
            p++;
        const char *q = p;
        if (q < end && *q == '[')
            q++;
        if (end - q > 4 && !memcmp(q, "rank", 4)) {
            q += 4;
            while (q < end && isdigit((unsigned char)*q))
                q++;
            if (q < end && *q == ']')
                q++;
            if (q < end && *q == ':')
                q++;
            p = q;
            continue;
        }
        break;
    }
    int br = p < end && *p == '[';
    if (br)
        p++;
    if (p >= end || !strchr("IWEF", *p) || !*p)
        return 0;
    char c = *p++;
    if (p < end && isdigit((unsigned char)*p)) {  /* `W1130 12:00:00.1 ...` */
        size_t d = 0;
        while (p < end && isdigit((unsigned char)*p))
            p++, d++;
        return d >= 3 && d <= 4 && p < end && *p == ' ' ? c : 0;
    }
    /* `[W socket.cpp:12]`, `[E ProcessGroupNCCL.cpp:1234]` */
    if (br && p < end && *p == ' ') {
        const char *close = memchr(p, ']', (size_t)(end - p) < 200 ? (size_t)(end - p) : 200);
        return close && close > p + 1 && isdigit((unsigned char)close[-1]) ? c : 0;
    }
    return 0;
}

/* Python logging's and launchers' level words: `WARNING 03-27 ...`, `[WARNING]`, `WARNING:root:`, `warn:` */
static int level_word(const char *s, size_t n)
{
    const char *p = s;
    size_t m = n;
    if (m && *p == '[')
        p++, m--;
    static const struct { const char *w; int sev; } words[] = {
        {"WARNING", 1}, {"WARN", 1}, {"Warning:", 1}, {"warning:", 1}, {"ERROR", 2}, {"CRITICAL", 2}, {"FATAL", 2},
    };
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        size_t l = strlen(words[k].w);
        if (m >= l && !memcmp(p, words[k].w, l) && (m == l || !isalpha((unsigned char)p[l])))
            return words[k].sev;
    }
    return 0;
}

log_part_kind log_line_part(const char *line, size_t n, int level)
{
    while (n && (*line == ' ' || *line == '\t'))
        line++, n--;
    if (!n)
        return LOG_PART_NONE;
    if (level == 'W' || level == 'I')
        return level == 'W' ? LOG_PART_LOG_WARNING : LOG_PART_NONE;
    int w = 0;
    int lw = level_word(line, n);
    if (lw == 1 && !starts(line, n, "warning: "))
        return LOG_PART_LOG_WARNING;
    if (starts(line, n, "Traceback (most recent call last)"))
        return LOG_PART_TRACEBACK;
    if (starts(line, n, "File \"") && has(line, n, "\", line "))
        return LOG_PART_FRAME;
    if (starts(line, n, "During handling of the above exception") ||
        starts(line, n, "The above exception was the direct cause"))
        return LOG_PART_CHAIN;
    if (starts(line, n, "terminate called") || starts(line, n, "what():") || starts(line, n, "what()"))
        return LOG_PART_CPP_WHAT;
    if (exception_type(line, n, &w))
        return w ? LOG_PART_LOG_WARNING : LOG_PART_EXCEPTION;
    if (has(line, n, "Assertion `") || has(line, n, "Assertion '") || has(line, n, "Assertion failed") ||
        has(line, n, "assertion failed") || starts(line, n, "LLVM ERROR:") || has(line, n, "Check failed") ||
        (has(line, n, "Assertion") && has(line, n, " failed")))
        return LOG_PART_ASSERTION;
    if (has(line, n, "c10::Error") || starts(line, n, "Exception raised from "))
        return LOG_PART_C10_ERROR;
    if (has(line, n, ": error:") || has(line, n, ": fatal error:") || starts(line, n, "error:") ||
        starts(line, n, "fatal error:") || has(line, n, ": error C") || has(line, n, ": fatal error C") ||
        has(line, n, " error LNK"))
        return LOG_PART_COMPILER_ERROR;
    if (has(line, n, ": warning:") || starts(line, n, "warning:") || has(line, n, ": warning C"))
        return LOG_PART_COMPILER_WARNING;
    if (has(line, n, "memory summary") || has(line, n, "cudaMalloc retries") || has(line, n, "CUDA OOMs:") ||
        (line[0] == '|' && (has(line, n, "Allocated memory") || has(line, n, "Reserved memory") ||
                            has(line, n, "GPU reserved memory") || has(line, n, "Non-releasable memory"))))
        return LOG_PART_MEMORY_SUMMARY;
    if (level == 'E' || level == 'F' || lw == 2)
        return LOG_PART_LOG_ERROR;
    return LOG_PART_NONE;
}

/* ---- whole text ------------------------------------------------------------ */

static char *dup_cut(const char *s, size_t n)
{
    if (n > LOG_PART_TEXT_CAP)
        n = LOG_PART_TEXT_CAP;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80 && n < LOG_PART_TEXT_CAP)
        n--;
    char *o = xmalloc(n + 1);
    memcpy(o, s, n);
    o[n] = 0;
    return o;
}

static log_part *add_part(log_parts *p, log_part_kind k, size_t line, const char *text, size_t n)
{
    if (p->n >= LOG_PARTS_MAX) {
        p->dropped++;
        return NULL;
    }
    if (!p->parts) {
        p->parts = xcalloc(LOG_PARTS_MAX, sizeof *p->parts);
    }
    log_part *q = &p->parts[p->n++];
    memset(q, 0, sizeof *q);
    q->kind = k;
    q->line = q->last_line = line;
    q->text = dup_cut(text, n);
    return q;
}

void log_parts_parse(const char *text, size_t len, log_parts *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    log_part *tb = NULL;        /* the traceback being read */
    log_part *mem = NULL;       /* the memory summary being read */
    int chain_next = 0;
    char buf[LOG_PART_LINE_CAP + 1];
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        lineno++;
        size_t m = n < LOG_PART_LINE_CAP ? n : LOG_PART_LINE_CAP;
        size_t o = 0;
        for (size_t i = 0; i < m; i++)              /* control bytes (ANSI, \r) as spaces */
            buf[o++] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? ' ' : p[i];
        while (o && buf[o - 1] == ' ')
            o--;
        buf[o] = 0;
        p = nl ? nl + 1 : end;
        int level = log_line_level(buf, o);
        const char *s = buf;
        size_t sn = o;
        if (level) {                                 /* past the glog prefix's `]` */
            const char *close = memchr(buf, ']', o);
            if (close) {
                sn = o - (size_t)(close + 1 - buf);
                s = close + 1;
            }
        }
        while (sn && *s == ' ')
            s++, sn--;
        log_part_kind k = log_line_part(s, sn, level);
        if (mem && (k == LOG_PART_MEMORY_SUMMARY || (sn && s[0] == '|'))) {
            mem->last_line = lineno;
            continue;
        }
        mem = NULL;
        switch (k) {
        case LOG_PART_TRACEBACK:
            tb = add_part(out, LOG_PART_TRACEBACK, lineno, s, sn);
            if (tb)
                tb->chained = chain_next;
            chain_next = 0;
            break;
        case LOG_PART_FRAME:
            if (tb)
                tb->last_line = lineno;
            break;
        case LOG_PART_CHAIN:
            chain_next = starts(s, sn, "The above") ? 2 : 1;
            add_part(out, k, lineno, s, sn);
            tb = NULL;
            break;
        case LOG_PART_EXCEPTION: {
            int w;
            size_t tn = exception_type(s, sn, &w);
            const char *msg = s;
            if (tb && tb->kind == LOG_PART_TRACEBACK) {
                tb->kind = LOG_PART_EXCEPTION;
                tb->last_line = lineno;
                free(tb->text);
                tb->text = dup_cut(msg, sn);
                tb->type = dup_cut(s, tn);
                tb = NULL;
            } else {
                log_part *q = add_part(out, k, lineno, s, sn);
                if (q) {
                    q->type = dup_cut(s, tn);
                    q->chained = chain_next;
                }
                chain_next = 0;
            }
            break;
        }
        case LOG_PART_NONE:
            if (tb && sn && tb->last_line + 1 == lineno)
                tb->last_line = lineno;              /* a frame's source line */
            break;
        case LOG_PART_MEMORY_SUMMARY:
            mem = add_part(out, k, lineno, s, sn);
            break;
        default:
            add_part(out, k, lineno, s, sn);
            break;
        }
    }
}

const log_part *log_parts_decisive(const log_parts *p)
{
    const log_part *warn = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const log_part *q = &p->parts[i];
        int sev = log_part_severity(q->kind);
        if (sev == LOG_SEV_ERROR)
            return q;          /* the first error: a chained traceback after it wraps or follows it */
        if (sev == LOG_SEV_WARNING && !warn)
            warn = q;
    }
    return warn;
}

void log_parts_free(log_parts *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->parts[i].type);
        free(p->parts[i].text);
    }
    free(p->parts);
    memset(p, 0, sizeof *p);
}
