/* stack_trace.c — Python traceback text as frames (see stack_trace.h). */
#define _GNU_SOURCE
#include "stack_trace.h"
#include "compat.h"
#include <string.h>

#define ST_MAX_SPAN 4096   /* a path, function or code line longer than this is cut */

static int span_len(size_t n) { return n > ST_MAX_SPAN ? ST_MAX_SPAN : (int)n; }

/* torch's own code: the installed package (site-/dist-packages/torch/) or a
 * source tree's library folders. A user file under a folder named torch
 * (~/torch/model.py) stays the user's. */
static int torch_path(const char *p, int n)
{
    static const char *const marks[] = {"-packages/torch/", "/torch/nn/", "/torch/_", "/torch/fx/",
                                        "/torch/autograd/", "/torch/utils/", "/torch/functional.py",
                                        "/torch/overrides.py", "/torch/export/", "/torch/ao/", NULL};
    for (int i = 0; marks[i]; i++)
        if (memmem(p, (size_t)n, marks[i], strlen(marks[i])))
            return 1;
    /* the standard library: the interpreter's lib/pythonX.Y outside its site-packages */
    return (memmem(p, (size_t)n, "/lib/python3", 12) && !memmem(p, (size_t)n, "-packages/", 10)) ||
           memmem(p, (size_t)n, "<frozen ", 8);
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* One `File "x", line N, in f` line at p (blanks skipped); 0 when it is not one. */
static int frame_line(const char *p, const char *eol, st_frame *f)
{
    memset(f, 0, sizeof *f);
    p = skip_blank(p, eol);
    if (eol - p < 7 || memcmp(p, "File \"", 6))
        return 0;
    p += 6;
    const char *q = memchr(p, '"', (size_t)(eol - p));
    if (!q)
        return 0;
    f->file = p;
    f->file_len = span_len((size_t)(q - p));
    p = q + 1;
    if (skip_prefix_mem(p, (size_t)(eol - p), ", line ", &p, NULL)) {
        int64_t v = 0;
        while (p < eol && *p >= '0' && *p <= '9' && v < 1000000000)
            v = v * 10 + (*p++ - '0');
        f->line = v;
    }
    if (skip_prefix_mem(p, (size_t)(eol - p), ", in ", &p, NULL)) {
        f->func = p;
        f->func_len = span_len((size_t)(eol - p));
        while (f->func_len && (f->func[f->func_len - 1] == ' ' || f->func[f->func_len - 1] == '\r'))
            f->func_len--;
    }
    f->in_torch = torch_path(f->file, f->file_len);
    return 1;
}

size_t stack_trace_frames(const char *text, st_frame *out, size_t max)
{
    size_t n = 0;
    if (!text)
        return 0;
    const char *p = text, *end = text + strlen(text);
    st_frame f;
    while (p < end && max) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (frame_line(p, eol, &f)) {
            /* the code line follows unless the next line is another frame */
            const char *c = eol < end ? eol + 1 : end;
            const char *ceol = memchr(c, '\n', (size_t)(end - c));
            if (!ceol)
                ceol = end;
            st_frame probe;
            if (c < end && !frame_line(c, ceol, &probe)) {
                const char *s = skip_blank(c, ceol), *e = ceol;
                while (e > s && (e[-1] == ' ' || e[-1] == '\r'))
                    e--;
                f.code = s;
                f.code_len = span_len((size_t)(e - s));
                eol = ceol;
            }
            if (n == max) {   /* keep the innermost max frames: the user's line is near the end */
                memmove(out, out + 1, (max - 1) * sizeof *out);
                n--;
            }
            out[n++] = f;
        }
        p = eol < end ? eol + 1 : end;
    }
    return n;
}

int stack_trace_user(const st_frame *f, size_t n)
{
    if (!n)
        return -1;
    for (size_t i = n; i-- > 0;)
        if (!f[i].in_torch)
            return (int)i;
    return (int)n - 1;
}

const char *st_frame_base(const st_frame *f, int *len)
{
    int i = f->file_len;
    while (i > 0 && f->file[i - 1] != '/' && f->file[i - 1] != '\\')
        i--;
    *len = f->file_len - i;
    return f->file + i;
}

size_t kernel_call_sites(const kernel_call *c, st_frame *out, size_t max)
{
    size_t n = 0;
    st_frame fr[128];
    for (size_t i = 0; c && i < c->nstack && n < max; i++) {
        size_t nf = stack_trace_frames(c->stack[i], fr, sizeof fr / sizeof *fr);
        int u = stack_trace_user(fr, nf);
        if (u < 0)
            continue;
        int dup = 0;
        for (size_t j = 0; j < n && !dup; j++)
            dup = out[j].line == fr[u].line && out[j].file_len == fr[u].file_len &&
                  !memcmp(out[j].file, fr[u].file, (size_t)fr[u].file_len);
        if (!dup)
            out[n++] = fr[u];
    }
    return n;
}

const char *const *kernel_call_nodes(const kernel_call *c, size_t *n, const char **which)
{
    *n = 0;
    *which = NULL;
    if (!c)
        return NULL;
    if (c->nnodes) {
        *n = c->nnodes;
        *which = "nodes";
        return c->nodes;
    }
    if (c->npre) {
        *n = c->npre;
        *which = "pre-grad nodes";
        return c->pre_grad;
    }
    if (c->npost) {
        *n = c->npost;
        *which = "post-grad nodes";
        return c->post_grad;
    }
    return NULL;
}

void kernel_call_where(const kernel_call *c, strbuf *out, size_t max)
{
    size_t start = out->len;
    st_frame f[16];
    size_t n = kernel_call_sites(c, f, 16);
    if (n) {
        int bl;
        const char *b = st_frame_base(&f[0], &bl);
        strbuf_addf(out, "%.*s:%lld", bl, b, (long long)f[0].line);
        if (n > 1)
            strbuf_addf(out, " +%zu", n - 1);
    } else {
        size_t nn;
        const char *which;
        const char *const *v = kernel_call_nodes(c, &nn, &which);
        for (size_t i = 0; i < nn && out->len - start < max; i++)
            strbuf_addf(out, "%s%s", i ? ", " : "[", v[i]);
        if (nn)
            strbuf_addch(out, ']');
    }
    if (out->len - start > max)
        strbuf_setlen(out, start + max);
}

size_t kernel_param_layer(const char *p, char *buf, size_t n, int *numbered)
{
    if (numbered)
        *numbered = 0;
    if (!n)
        return 0;
    buf[0] = 0;
    if (!p)
        return 0;
    const char *end = strrchr(p, '.');   /* the module path: drop the weight's own name */
    if (!end)
        end = p + strlen(p);
    const char *cut = NULL;
    for (const char *q = p; q < end && !cut;) {
        const char *dot = memchr(q, '.', (size_t)(end - q));
        const char *e = dot ? dot : end;
        int numeric = e > q;
        for (const char *d = q; d < e; d++)
            numeric &= *d >= '0' && *d <= '9';
        if (numeric)
            cut = e;
        q = dot ? dot + 1 : end;
    }
    if (cut && numbered)
        *numbered = 1;
    if (!cut) {
        cut = memchr(p, '.', (size_t)(end - p));
        if (!cut)
            cut = end;
    }
    size_t len = (size_t)(cut - p);
    if (len >= n)
        len = n - 1;
    memcpy(buf, p, len);
    buf[len] = 0;
    return len;
}

size_t kernel_call_layer(const kernel_call *c, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    if (!c || !c->nparams)
        return 0;
    return kernel_param_layer(c->params[0], buf, n, NULL);
}
