/* triton_trace.c — see triton_trace.h. Plain bounded text scanning: no regex,
 * no C++ parsing beyond balanced parentheses and top-level commas. */
#define _GNU_SOURCE
#include "triton_trace.h"
#include "compat.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "package_sources.h"

#define BACK_WINDOW   (256u << 10)   /* how far back a kernel definition may start */
#define NODES_WINDOW  4096           /* how far above a call its Source Nodes comment may be */
#define MAX_PARAMS    512

static int is_ident(int c) { return isalnum(c) || c == '_'; }

static const char *find_bounded(const char *hay, const char *end, const char *needle)
{
    if (hay >= end)
        return NULL;
    return memmem(hay, (size_t)(end - hay), needle, strlen(needle));
}

/* Last occurrence of needle in [start, end). */
static const char *rfind(const char *start, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    if ((size_t)(end - start) < n)
        return NULL;
    for (const char *p = end - n; p >= start; p--)
        if (*p == *needle && !memcmp(p, needle, n))
            return p;
    return NULL;
}

static size_t line_of(const char *text, const char *p)
{
    size_t line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    return line;
}

/* Given p at '(' returns the matching ')' or NULL (bounded by end). */
static const char *match_paren(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0)
            return p;
    }
    return NULL;
}

/* Splits the text between parens at top-level commas into trimmed pieces. */
static size_t split_args(arena *a, const char *open, const char *close, const char **out, size_t max)
{
    size_t n = 0;
    int depth = 0;
    const char *start = open + 1;
    for (const char *p = open + 1; p <= close && n < max; p++) {
        if (p < close && (*p == '(' || *p == '[' || *p == '{' || *p == '<'))
            depth++;
        else if (p < close && (*p == ')' || *p == ']' || *p == '}' || *p == '>'))
            depth--;
        else if (p == close || (*p == ',' && depth <= 0)) {
            const char *s = start, *e = p;
            while (s < e && isspace((unsigned char)*s))
                s++;
            while (e > s && isspace((unsigned char)e[-1]))
                e--;
            if (e > s || p != close)
                out[n++] = arena_strndup(a, s, (size_t)(e - s));
            start = p + 1;
        }
    }
    return n;
}

/* "const int64_t ks1" -> "ks1"; "XBLOCK : tl.constexpr" -> "XBLOCK"; "ks0=None" -> "ks0" */
static const char *param_name(arena *a, const char *decl)
{
    const char *colon = strchr(decl, ':'), *eq = strchr(decl, '=');
    size_t n = strlen(decl);
    if (colon && !strstr(decl, "::"))
        n = (size_t)(colon - decl);
    if (eq && (size_t)(eq - decl) < n)
        n = (size_t)(eq - decl);
    while (n && !is_ident((unsigned char)decl[n - 1]))
        n--;
    size_t s = n;
    while (s && is_ident((unsigned char)decl[s - 1]))
        s--;
    return arena_strndup(a, decl + s, n - s);
}

/* The kernel definition enclosing position `at`: the nearest preceding
 * `def NAME(` (Triton) or `void NAME(` (C++) at most BACK_WINDOW back. */
static const char *enclosing_kernel(const char *text, const char *at, const char **name_end, const char **open)
{
    const char *lo = at - text > (long)BACK_WINDOW ? at - BACK_WINDOW : text;
    const char *best = NULL;
    const char *keys[] = {"def ", "void "};
    for (size_t k = 0; k < 2; k++) {
        const char *end = at;
        for (;;) {
            const char *p = rfind(lo, end, keys[k]);
            if (!p)
                break;
            const char *q = p + strlen(keys[k]);
            while (q < at && *q == ' ')
                q++;
            const char *ns = q;
            while (q < at && is_ident((unsigned char)*q))
                q++;
            if (q > ns && q < at && *q == '(' && (p == text || !is_ident((unsigned char)p[-1]))) {
                if (!best || ns > best) {
                    best = ns;
                    *name_end = q;
                    *open = q;
                }
                break;
            }
            end = p;
        }
    }
    return best;
}

/* A call (not a definition or declaration) of `name(` in text; returns the '('. */
static const char *find_call(const char *text, const char *end, const char *name, const char **name_start)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = find_bounded(p, end, name)); p += n) {
        if (p > text && is_ident((unsigned char)p[-1]))
            continue;
        const char *q = p + n;
        if (q >= end || *q != '(')
            continue;
        /* preceding token on the line must not be a type (definition / declaration) */
        const char *b = p;
        while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        const char *w = b;
        while (w > text && is_ident((unsigned char)w[-1]))
            w--;
        if (mem_is(w, (size_t)(b - w), "void") || mem_is(w, (size_t)(b - w), "def"))
            continue;
        if (b > text && (b[-1] == '*' || b[-1] == '"' || b[-1] == '\''))
            continue;   /* a string mention such as "before_launch", "<kernel>" */
        *name_start = p;
        return q;
    }
    return NULL;
}

static int parse_int(const char *s, const char *end, int *out)
{
    long v = 0;
    const char *p = s;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    while (p < end && isdigit((unsigned char)*p) && v < 1000000)
        v = v * 10 + (*p++ - '0');
    *out = (int)v;
    return 0;
}

/* `sNNN = argK_size[d]` (with int64_t or auto before it) -> input var and dim */
static int size_var_source(const char *w, const char *end, const char *var, arena *a, const char **input, int *dim)
{
    char needle[160];
    snprintf(needle, sizeof needle, " %s = ", var);
    for (const char *p = w; (p = find_bounded(p, end, needle)); p++) {
        const char *q = p + strlen(needle);
        const char *s = q;
        while (q < end && is_ident((unsigned char)*q))
            q++;
        if (q - s > 5 && mem_ends_with(s, (size_t)(q - s), "_size") && q < end && *q == '[') {
            if (parse_int(q + 1, end, dim))
                continue;
            *input = arena_strndup(a, s, (size_t)(q - 5 - s));
            return 0;
        }
    }
    return -1;
}

static int input_index_of(const char *w, const char *end, const char *input)
{
    char needle[200];
    snprintf(needle, sizeof needle, ".name = \"%s\";", input);
    const char *p = find_bounded(w, end, needle);
    if (!p)
        return -1;
    const char *lb = rfind(p - 40 > w ? p - 40 : w, p, "inputs_info_[");
    int idx;
    if (!lb || parse_int(lb + strlen("inputs_info_["), p, &idx))
        return -1;
    return idx;
}

/* First identifier in expr that is not a number or a C++/Python keyword-ish cast. */
static const char *first_symbol(arena *a, const char *expr)
{
    for (const char *p = expr; *p; p++) {
        if ((isalpha((unsigned char)*p) || *p == '_') && (p == expr || !is_ident((unsigned char)p[-1]))) {
            const char *s = p;
            while (is_ident((unsigned char)*p))
                p++;
            size_t n = (size_t)(p - s);
            if (mem_is(s, n, "int64_t") || mem_is(s, n, "static_cast") || mem_is(s, n, "long"))
                continue;
            return arena_strndup(a, s, n);
        }
    }
    return NULL;
}

int triton_trace_resolve(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const char *tmp,
                         const char *bound, const char *kernel_hint, arena *a, triton_trace *out, strbuf *err)
{
    memset(out, 0, sizeof *out);
    out->param_pos = out->input_index = out->dim = -1;
    if (!tmp || !bound || !*tmp || !*bound) {
        strbuf_addstr(err, "the error text has no `0 <= tmpN < ksM` condition to look for");
        return -1;
    }
    char msg[600];
    snprintf(msg, sizeof msg, "index out of bounds: 0 <= %s < %s\"", tmp, bound);
    const char *wend = wrapper + wlen, *kend = kernels ? kernels + klen : NULL;
    /* search the wrapper (Triton sources) then kernel.cpp (C++ kernels) */
    const char *texts[2] = {wrapper, kernels}, *ends[2] = {wend, kend};
    const char *hit = NULL, *hit_text = NULL;
    int hinted = 0;
    for (int t = 0; t < 2; t++) {
        if (!texts[t])
            continue;
        for (const char *p = texts[t]; (p = find_bounded(p, ends[t], msg)); p++) {
            out->ncandidates++;
            if (hinted)
                continue;
            const char *ne, *op, *nm = kernel_hint ? enclosing_kernel(texts[t], p, &ne, &op) : NULL;
            if (nm && strlen(kernel_hint) == (size_t)(ne - nm) && !memcmp(nm, kernel_hint, (size_t)(ne - nm)))
                hinted = 1;
            if (!hit || hinted) {
                hit = p;
                hit_text = texts[t];
            }
        }
    }
    if (!hit) {
        strbuf_addf(err, "no kernel in the package checks `0 <= %s < %s`: is this the package that failed?", tmp,
                    bound);
        return -1;
    }
    const char *name_end, *open;
    const char *name = enclosing_kernel(hit_text, hit, &name_end, &open);
    if (!name) {
        strbuf_addstr(err, "found the condition but not the kernel definition around it");
        return -1;
    }
    out->kernel = arena_strndup(a, name, (size_t)(name_end - name));
    const char *tend = hit_text == wrapper ? wend : kend;
    const char *close = match_paren(open, tend);
    const char *sym = first_symbol(a, bound);
    const char *params[MAX_PARAMS];
    size_t np = close ? split_args(a, open, close, params, MAX_PARAMS) : 0;
    if (sym) {
        for (size_t i = 0; i < np; i++)
            if (!strcmp(param_name(a, params[i]), sym)) {
                out->param = sym;
                out->param_pos = (int)i;
                break;
            }
    }
    /* the call site, in the wrapper */
    /* `call_triton_poi_fused_x_0(...)` for kernel triton_poi_fused_x_0; the kernel itself on CPU */
    const char *names[3] = {arena_printf(a, "call_%s", out->kernel), arena_printf(a, "call_triton_%s", out->kernel),
                            out->kernel};
    const char *call_name = NULL, *copen = NULL, *cs = NULL;
    for (int i = 0; i < 3 && !copen; i++) {
        call_name = names[i];
        copen = find_call(wrapper, wend, call_name, &cs);
    }
    if (!copen) {
        strbuf_addf(err, "kernel %s found, but no call to it in wrapper.cpp", out->kernel);
        return -1;
    }
    out->call = call_name;
    out->call_line = line_of(wrapper, cs);
    const char *lo = cs - wrapper > NODES_WINDOW ? cs - NODES_WINDOW : wrapper;
    const char *nodes = rfind(lo, cs, "Topologically Sorted Source Nodes: ");
    if (nodes) {
        /* only if no other kernel call sits between the comment and this call */
        const char *s = nodes + strlen("Topologically Sorted Source Nodes: ");
        const char *eol = memchr(s, '\n', (size_t)(cs - s));
        if (eol && !memchr(eol + 1, ';', (size_t)(cs - eol - 1)))
            out->source_nodes = arena_strndup(a, s, (size_t)(eol - s));
    }
    if (!sym)
        return 0;   /* a literal bound: no input dimension behind it (oob_element.h says whose size it is) */
    if (out->param_pos < 0) {
        strbuf_addf(err, "%s is not a parameter of kernel %s", sym, out->kernel);
        return -1;
    }
    const char *cclose = match_paren(copen, wend);
    const char *args[MAX_PARAMS];
    size_t na = cclose ? split_args(a, copen, cclose, args, MAX_PARAMS) : 0;
    if ((size_t)out->param_pos >= na) {
        strbuf_addf(err, "the call to %s at wrapper.cpp:%zu has fewer arguments than the kernel", call_name,
                    out->call_line);
        return -1;
    }
    out->arg = args[out->param_pos];
    /* argK_size[d] given directly, or a size variable defined from it */
    const char *sz = strstr(out->arg, "_size[");
    if (sz) {
        const char *s = sz;
        while (s > out->arg && is_ident((unsigned char)s[-1]))
            s--;
        out->input = arena_strndup(a, s, (size_t)(sz - s));
        if (parse_int(sz + 6, sz + strlen(sz), &out->dim))
            out->dim = -1;
    } else {
        out->size_var = first_symbol(a, out->arg);
        if (!out->size_var || size_var_source(wrapper, wend, out->size_var, a, &out->input, &out->dim)) {
            strbuf_addf(err, "argument `%s` of %s is not an input size in wrapper.cpp", out->arg, call_name);
            return -1;
        }
    }
    out->input_index = input_index_of(wrapper, wend, out->input);
    if (out->input_index < 0) {
        strbuf_addf(err, "input %s is not in inputs_info_ in wrapper.cpp", out->input);
        return -1;
    }
    return 0;
}

size_t triton_trace_params(const char *open, const char *end, arena *a, const char **out, size_t max)
{
    const char *close = open < end && *open == '(' ? match_paren(open, end) : NULL;
    size_t n = close ? split_args(a, open, close, out, max) : 0;
    for (size_t i = 0; i < n; i++)
        out[i] = param_name(a, out[i]);
    return n;
}

int triton_trace_call_args(const char *wrapper, size_t wlen, const char *kernel, arena *a, const char **args,
                           size_t max, size_t *nargs, size_t *line)
{
    const char *wend = wrapper + wlen;
    const char *names[3] = {arena_printf(a, "call_%s", kernel), arena_printf(a, "call_triton_%s", kernel), kernel};
    for (int i = 0; i < 3; i++) {
        const char *cs, *copen = find_call(wrapper, wend, names[i], &cs), *cclose;
        if (!copen || !(cclose = match_paren(copen, wend)))
            continue;
        *nargs = split_args(a, copen, cclose, args, max);
        *line = line_of(wrapper, cs);
        return 0;
    }
    return -1;
}

int triton_trace_apply(route_result *r, const char *wrapper, size_t wlen, const char *kernels, size_t klen,
                       strbuf *err)
{
    if (!route_is_index_oob(r->route))
        return 0;
    arena a = ARENA_INIT;
    triton_trace t;
    int rc = triton_trace_resolve(wrapper, wlen, kernels, klen, route_result_field(r, "tmp"),
                                  route_result_field(r, "bound"), route_result_field(r, "kernel"), &a, &t, err);
    char num[32];
    if (t.kernel) {
        const char *old = route_result_field(r, "kernel");
        if (old && strcmp(old, t.kernel))
            route_result_set_field(r, "kernel_file", old);
        route_result_set_field(r, "kernel", t.kernel);
        if (t.ncandidates > 1) {
            snprintf(num, sizeof num, "%zu", t.ncandidates);
            route_result_set_field(r, "kernel_candidates", num);
        }
    }
    if (t.param)
        route_result_set_field(r, "kernel_param", t.param);
    if (t.call_line) {
        snprintf(num, sizeof num, "%zu", t.call_line);
        route_result_set_field(r, "call_line", num);
    }
    if (t.arg)
        route_result_set_field(r, "call_arg", t.arg);
    if (t.size_var)
        route_result_set_field(r, "size_var", t.size_var);
    if (t.input)
        route_result_set_field(r, "input", t.input);
    if (t.input_index >= 0) {
        snprintf(num, sizeof num, "%d", t.input_index);
        route_result_set_field(r, "input_index", num);
    }
    if (t.dim >= 0) {
        snprintf(num, sizeof num, "%d", t.dim);
        route_result_set_field(r, "dim", num);
    }
    if (t.source_nodes)
        route_result_set_field(r, "source_nodes", t.source_nodes);
    if (rc) {
        /* the route stands; say why the package could not sharpen it */
        route_result_set_field(r, "trace_error", err->buf);
        strbuf_reset(err);
    }
    for (size_t i = 0; i < r->nactions; i++)
        if (r->actions[i].field)
            r->actions[i].value = route_result_field(r, r->actions[i].field);
    arena_release(&a);
    return 0;
}

int triton_trace_apply_package(route_result *r, const char *pkg, strbuf *err)
{
    if (!route_is_index_oob(r->route))
        return 0;
    package_sources src = PACKAGE_SOURCES_INIT;
    int rc = -1;
    if (package_sources_read(pkg, NULL, TRITON_TRACE_MAX_SOURCE, &src, err) == 0)
        rc = triton_trace_apply(r, src.wrapper.buf, src.wrapper.len, src.kernel.len ? src.kernel.buf : NULL,
                                src.kernel.len, err);
    package_sources_release(&src);
    return rc;
}
