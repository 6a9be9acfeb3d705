/* index_bounds.c — see index_bounds.h. */
#define _GNU_SOURCE
#include "index_bounds.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "oob_element.h"

#define MSG "index out of bounds: 0 <= "
#define MAX_CHECKS 4096      /* checks looked at in one text */
#define NAME_WINDOW (256u << 10)

static int ident_char(int c) { return isalnum(c) || c == '_'; }

/* The kernel whose definition is the last one before at: `extern "C" ... void NAME(`
 * (C++) or a line `def NAME(` (Triton). NAME into out; -1 when none is near. */
static int kernel_before(const char *text, const char *at, char *out, size_t cap)
{
    const char *lo = at - text > (long)NAME_WINDOW ? at - NAME_WINDOW : text;
    for (size_t off = (size_t)(at - lo) + 1; off-- > 0;) {
        const char *p = lo + off;
        if (p != text && p[-1] != '\n')
            continue;
        const char *q = p, *name = NULL;
        while (*q == ' ' || *q == '\t')
            q++;
        if (starts_with(q, "def ")) {
            name = q + 4;
        } else if (starts_with(q, "extern \"C\"")) {
            const char *v = strstr(q, "void"), *eol = strchr(q, '\n');
            if (v && (!eol || v < eol))
                for (name = v + 4; *name == ' '; name++)
                    ;
        }
        if (!name)
            continue;
        const char *e = name;
        while (ident_char((unsigned char)*e))
            e++;
        if (e == name || *e != '(' || (size_t)(e - name) >= cap)
            return -1;
        memcpy(out, name, (size_t)(e - name));
        out[e - name] = 0;
        return 0;
    }
    return -1;
}

/* A literal bound ("100", "100L"): its value; -1 for a symbol or an expression. */
static int literal(const char *b, int64_t *v)
{
    char *e;
    long long x = strtoll(b, &e, 10);
    if (e == b || x <= 0)
        return -1;
    while (*e == 'L' || *e == 'l' || *e == 'U' || *e == 'u')
        e++;
    if (*e)
        return -1;
    *v = x;
    return 0;
}

static void scan_text(const char *text, size_t len, const char *wrapper, size_t wlen, const char *kernels,
                      size_t klen, const wrapper_scan *ws, index_bound *best, int *have)
{
    const char *end = text + len;
    int seen = 0;
    for (const char *p = text; seen < MAX_CHECKS && (p = memmem(p, (size_t)(end - p), MSG, strlen(MSG))); p++) {
        seen++;
        /* "0 <= TMP < BOUND" up to the closing quote */
        const char *t = p + strlen(MSG), *lt = t, *q;
        while (ident_char((unsigned char)*lt))
            lt++;
        if (lt == t || strncmp(lt, " < ", 3))
            continue;
        for (q = lt + 3; q < end && *q != '"' && *q != '\n' && q - lt < 64; q++)
            ;
        if (q >= end || *q != '"')
            continue;
        char tmp[32], bound[64], kernel[128];
        int64_t hi = 0;
        if (lt - t >= (long)sizeof tmp || q - (lt + 3) >= (long)sizeof bound)
            continue;
        snprintf(tmp, sizeof tmp, "%.*s", (int)(lt - t), t);
        snprintf(bound, sizeof bound, "%.*s", (int)(q - (lt + 3)), lt + 3);
        int lit = literal(bound, &hi) == 0;
        if (kernel_before(text, p, kernel, sizeof kernel) < 0)
            continue;
        oob_index_source src;
        const char *why;
        if (oob_element_index_source(wrapper, wlen, kernels, klen, kernel, tmp, bound, &src, &why) < 0 ||
            !src.plain || (!lit && !src.bound_arg[0]))
            continue;
        for (size_t i = 0; i < ws->ninputs; i++) {
            if (!ws->inputs[i].name || strcmp(ws->inputs[i].name, src.tensor) ||
                (have[i] && (!lit || (best[i].high && best[i].high <= hi))))
                continue;
            have[i] = 1;
            best[i].input = i;
            best[i].high = lit ? hi : 0;
            snprintf(best[i].sym, sizeof best[i].sym, "%s", lit ? "" : src.bound_arg);
            snprintf(best[i].kernel, sizeof best[i].kernel, "%s", kernel);
            snprintf(best[i].check, sizeof best[i].check, "0 <= %s < %s", tmp, bound);
        }
    }
}

int index_bounds_scan(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const wrapper_scan *ws,
                      index_bound **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!ws->ninputs || !wrapper)
        return 0;
    index_bound *best = xcalloc(ws->ninputs, sizeof *best);
    int *have = xcalloc(ws->ninputs, sizeof *have);
    if (kernels)
        scan_text(kernels, klen, wrapper, wlen, kernels, klen, ws, best, have);
    scan_text(wrapper, wlen, wrapper, wlen, kernels, klen, ws, best, have);
    size_t k = 0;
    for (size_t i = 0; i < ws->ninputs; i++)
        if (have[i])
            best[k++] = best[i];
    free(have);
    if (!k) {
        free(best);
        return 0;
    }
    *out = best;
    *n = k;
    return 0;
}
