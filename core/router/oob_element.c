/* oob_element.c — see oob_element.h. Bounded text scans of one kernel's
 * body; no expression is evaluated beyond the bound's own arithmetic. */
#define _GNU_SOURCE
#include "oob_element.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "package_sources.h"
#include "triton_trace.h"
#include "wrapper_scan.h"
#include "compat.h"

#define BACK_WINDOW (256u << 10)   /* how far above the assert the kernel's definition may start */
#define MAX_CHAIN 64               /* tmp definitions followed from tmpN back to its load */
#define MAX_ARGS 512

static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* The word w at p (not inside a longer identifier). */
static int word_at(const char *start, const char *p, const char *w, size_t n)
{
    return !strncmp(p, w, n) && !is_ident((unsigned char)p[n]) && (p == start || !is_ident((unsigned char)p[-1]));
}

static const char *find_word(const char *s, const char *end, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; p + n <= end; p++)
        if (*p == *w && word_at(s, p, w, n))
            return p;
    return NULL;
}

/* The expression assigned to tmp last before `at` in [lo, at): Triton
 * `tmpK = expr` (one line) or C++ `auto tmpK = expr;` (to the ';' outside
 * brackets: vectorized kernels assign lambdas over several lines). Copied
 * into buf (NUL-ended, cut at cap). */
static int def_of(const char *lo, const char *at, const char *tmp, char *buf, size_t cap)
{
    size_t n = strlen(tmp);
    for (const char *p = at - n; p >= lo; p--) {
        if (*p != *tmp || !word_at(lo, p, tmp, n))
            continue;
        const char *q = p + n;
        while (*q == ' ')
            q++;
        if (*q != '=' || q[1] == '=')
            continue;
        const char *b = p;   /* only "auto " or indentation before it on its line */
        while (b > lo && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        int cpp = b - lo >= 4 && starts_with(b - 4, "auto");
        if (cpp)
            for (b -= 4; b > lo && (b[-1] == ' ' || b[-1] == '\t'); b--)
                ;
        if (b > lo && b[-1] != '\n')
            continue;
        q++;
        const char *e = q;
        int depth = 0;
        for (; e < at; e++) {
            if (*e == '(' || *e == '[' || *e == '{')
                depth++;
            else if (*e == ')' || *e == ']' || *e == '}')
                depth--;
            else if (depth <= 0 && (*e == ';' || (!cpp && *e == '\n')))
                break;
        }
        size_t len = (size_t)(e - q) < cap - 1 ? (size_t)(e - q) : cap - 1;
        memcpy(buf, q, len);
        buf[len] = 0;
        return 0;
    }
    return -1;
}

/* The first in_ptrN / in_out_ptrN / out_ptrN identifier in s, into out. */
static int pointer_in(const char *s, char *out, size_t cap)
{
    for (const char *p = s; *p; p++) {
        if (p != s && is_ident((unsigned char)p[-1]))
            continue;
        const char *q = p;
        if (starts_with(q, "in_out_ptr"))
            q += 10;
        else if (starts_with(q, "in_ptr") || starts_with(q, "out_ptr"))
            q += *q == 'i' ? 6 : 7;
        else
            continue;
        if (!isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            q++;
        if (is_ident((unsigned char)*q) || (size_t)(q - p) >= cap)
            continue;
        memcpy(out, p, (size_t)(q - p));
        out[q - p] = 0;
        return 0;
    }
    return -1;
}

/* The tensor a launch argument names: X of `(T*)(X.data_ptr())`, or a plain identifier. */
static int arg_tensor(const char *arg, char *out, size_t cap)
{
    const char *d = strstr(arg, ".data_ptr(");
    const char *e = d ? d : arg + strlen(arg), *s = e;
    while (s > arg && is_ident((unsigned char)s[-1]))
        s--;
    if (!d) {
        while (*arg == ' ')
            arg++;
        s = arg;
        for (e = s; is_ident((unsigned char)*e); e++)
            ;
        if (*e)
            return -1;   /* an expression, not a tensor */
    }
    if (e == s || (size_t)(e - s) >= cap || isdigit((unsigned char)*s))
        return -1;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = 0;
    return 0;
}

/* ---- the bound's value: integers, + - *, parentheses, one symbol ---------- */

typedef struct { const char *p; const char *sym; int64_t symval; int bad; } calc;

static int64_t c_expr(calc *c);
static void c_space(calc *c) { while (*c->p == ' ') c->p++; }

static int64_t c_atom(calc *c)
{
    c_space(c);
    if (*c->p == '(') {
        c->p++;
        int64_t v = c_expr(c);
        c_space(c);
        if (*c->p != ')')
            c->bad = 1;
        else
            c->p++;
        return v;
    }
    if (*c->p == '-') {
        c->p++;
        return -c_atom(c);
    }
    if (isdigit((unsigned char)*c->p)) {
        char *e;
        int64_t v = strtoll(c->p, &e, 10);
        c->p = e;
        while (*c->p == 'L' || *c->p == 'l' || *c->p == 'U' || *c->p == 'u')
            c->p++;
        return v;
    }
    const char *s = c->p;
    while (is_ident((unsigned char)*c->p))
        c->p++;
    if (c->p == s || !c->sym || strlen(c->sym) != (size_t)(c->p - s) || strncmp(s, c->sym, (size_t)(c->p - s)))
        c->bad = 1;
    return c->symval;
}

static int64_t c_term(calc *c)
{
    int64_t v = c_atom(c);
    for (c_space(c); *c->p == '*'; c_space(c)) {
        c->p++;
        v *= c_atom(c);
    }
    return v;
}

static int64_t c_expr(calc *c)
{
    int64_t v = c_term(c);
    for (c_space(c); *c->p == '+' || *c->p == '-'; c_space(c)) {
        int plus = *c->p++ == '+';
        int64_t t = c_term(c);
        v = plus ? v + t : v - t;
    }
    return v;
}

/* The bound's value: a literal ("100", "100L") or an expression of one
 * symbol whose runtime value the trace found (dim_value). */
static int bound_value(const route_result *r, int64_t *out)
{
    const char *b = route_result_field(r, "bound"), *dv = route_result_field(r, "dim_value");
    const char *sym = route_result_field(r, "kernel_param");
    if (!b)
        return -1;
    calc c = {b, sym, 0, 0};
    if (sym) {
        char *e;
        if (!dv || !*dv)
            return -1;
        c.symval = strtoll(dv, &e, 10);
        if (*e)
            return -1;
    }
    int64_t v = c_expr(&c);
    c_space(&c);
    if (c.bad || *c.p)
        return -1;
    *out = v;
    return 0;
}

/* ---- the session side ------------------------------------------------------ */

static const kernel_event *failing_kernel(const session *s, int64_t ki, const char *name)
{
    const event *e = ki >= 0 ? session_kernel_event(s, ki) : NULL;
    if (e)
        return &e->u.kernel;
    for (size_t i = s->nkernels; name && i-- > 0;)
        if (!strcmp(s->kernels[i]->u.kernel.name, name))
            return &s->kernels[i]->u.kernel;
    return NULL;
}

static const tensor_rec *before_tensor(const kernel_event *k, const char *name)
{
    for (size_t i = 0; i < k->ntensors; i++)
        if (k->tensors[i].phase == PHASE_BEFORE && !strcmp(k->tensors[i].name, name))
            return &k->tensors[i];
    return NULL;
}

static void set_index(route_result *r, const tensor_rec *t, int64_t flat, double v)
{
    int64_t idx[TENSOR_MAX_DIMS];
    strbuf sb = STRBUF_INIT;
    if (tensor_unflatten(t, flat, idx) == 0) {
        strbuf_addch(&sb, '[');
        for (int d = 0; d < t->ndim; d++)
            strbuf_addf(&sb, "%s%" PRId64, d ? ", " : "", idx[d]);
        strbuf_addch(&sb, ']');
        route_result_set_field(r, "index_at", sb.buf);
    }
    strbuf_reset(&sb);
    strbuf_addf(&sb, "%.17g", v);
    route_result_set_field(r, "index_value", sb.buf);
    strbuf_release(&sb);
}

static void shape_text(strbuf *sb, const tensor_rec *t)
{
    strbuf_addch(sb, '[');
    for (int d = 0; d < t->ndim; d++)
        strbuf_addf(sb, "%s%" PRId64, d ? ", " : "", t->shape[d]);
    strbuf_addch(sb, ']');
}

/* Finds the element outside [lo, hi) in t; 0 when found (fields set). */
static int find_element(route_result *r, const tensor_rec *t, int64_t lo, int64_t hi)
{
    if (t->values_complete && t->nvalues) {
        for (size_t i = 0; i < t->nvalues; i++) {
            double v = t->values[i];
            if (!(v >= (double)lo && v < (double)hi)) {
                set_index(r, t, (int64_t)i, v);
                return 0;
            }
        }
        route_result_set_field(r, "element_error", "every value of the index tensor is inside the valid range "
                               "(the index is computed from it before the check)");
        return -1;
    }
    if (t->has_stats && t->stats.has_at && t->stats.finite) {
        char note[200];
        int low = t->stats.min < (double)lo;
        if (low || t->stats.max >= (double)hi) {
            set_index(r, t, low ? t->stats.at.min : t->stats.at.max, low ? t->stats.min : t->stats.max);
            snprintf(note, sizeof note, "the %s value, from the statistics (%zu of %" PRIu64
                     " values kept: an earlier element may be outside too)", low ? "smallest" : "largest",
                     t->nvalues, t->stats.numel);
            route_result_set_field(r, "index_note", note);
            return 0;
        }
    }
    route_result_set_field(r, "element_error", "the session holds neither the index tensor's values nor "
                           "its statistics' positions (rerun with --values N, or a newer runner)");
    return -1;
}

/* The shape wrapper.cpp gives constant name (`constants_info_[i].shape = {100, 16};`). */
static int constant_shape(const char *w, size_t wlen, const char *name, int64_t *shape, int *ndim)
{
    char needle[200];
    snprintf(needle, sizeof needle, ".name = \"%s\";", name);
    const char *end = w + wlen, *p = memmem(w, wlen, needle, strlen(needle));
    const char *lb = p ? memmem(p > w + 40 ? p - 40 : w, (size_t)(p - (p > w + 40 ? p - 40 : w)), "constants_info_[", 16)
                       : NULL;
    if (!lb)
        return -1;
    char key[64];
    const char *rb = memchr(lb, ']', (size_t)(p - lb));
    if (!rb || rb - lb > 40)
        return -1;
    snprintf(key, sizeof key, "%.*s.shape = {", (int)(rb + 1 - lb), lb);
    const char *sp = memmem(p, (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096, key, strlen(key));
    if (!sp)
        return -1;
    *ndim = 0;
    for (const char *q = sp + strlen(key); q < end && *q != '}' && *ndim < TENSOR_MAX_DIMS;) {
        char *e;
        long long v = strtoll(q, &e, 10);
        if (e == q)
            return -1;
        shape[(*ndim)++] = v;
        for (q = e; q < end && (*q == ',' || *q == ' ' || *q == 'L'); q++)
            ;
    }
    return 0;
}

/* A model input's index and the user's name for it (the pytree spec in
 * wrapper.cpp, pytree.h): index_input, and index_user unless the name only
 * says the position (args[0]: the user passed it positionally). */
static void set_user_name(route_result *r, const wrapper_scan *ws, const char *tname)
{
    for (size_t i = 0; i < ws->ninputs; i++) {
        if (!ws->inputs[i].name || strcmp(ws->inputs[i].name, tname))
            continue;
        char idx[32];
        snprintf(idx, sizeof idx, "%zu", i);
        route_result_set_field(r, "index_input", idx);
        const char *u = ws->inputs[i].user_name;
        if (u && *u && !starts_with(u, "args["))
            route_result_set_field(r, "index_user", u);
        return;
    }
}

/* 1 when name is one of the package's constants (constants_info_). */
static int is_constant(const wrapper_scan *ws, const char *name)
{
    for (size_t i = 0; i < ws->nconstants; i++)
        if (ws->constants[i].name && !strcmp(ws->constants[i].name, name))
            return 1;
    return 0;
}

/* A weight's name in the model (constants_info_'s original_fqn: "items.weight"), else its own. */
static const char *weight_name(const wrapper_scan *ws, const char *name)
{
    for (size_t i = 0; i < ws->nconstants; i++)
        if (ws->constants[i].name && !strcmp(ws->constants[i].name, name) && ws->constants[i].fqn)
            return ws->constants[i].fqn;
    return name;
}

/* ---- the kernel's source ------------------------------------------------------ */

/* The assert's message inside kernel's definition: the hit and the definition's start. */
static const char *find_assert(const char *text, size_t len, const char *kernel, const char *tmp, const char *bound,
                               const char **def)
{
    char msg[600], name[300];
    snprintf(msg, sizeof msg, "index out of bounds: 0 <= %s < %s\"", tmp, bound);
    snprintf(name, sizeof name, "%s(", kernel);
    const char *end = text + len;
    for (const char *p = text; (p = memmem(p, (size_t)(end - p), msg, strlen(msg))); p++) {
        const char *lo = p - text > (long)BACK_WINDOW ? p - BACK_WINDOW : text;
        const char *d = NULL;
        for (const char *q = lo; (q = memmem(q, (size_t)(p - q), name, strlen(name))); q++)
            if (q == text || !is_ident((unsigned char)q[-1]))
                d = q;
        if (d) {
            *def = d;
            return p;
        }
    }
    return NULL;
}

/* An index assert's chain: from the asserted tmp back to its load, then
 * through the launch's arguments to the tensor it reads. */
typedef struct {
    const char *def, *hit, *tend;   /* the kernel's definition, the assert, the end of its text */
    char names[MAX_CHAIN][32];      /* the chain's tmps, the asserted one first */
    int n;
    char ptr[32], load_tmp[32];     /* the pointer loaded, and the tmp the load defines */
    int wrap;                       /* negative indices wrapped first */
    const char *params[MAX_ARGS], *args[MAX_ARGS];
    size_t np, na;
    char tname[128];                /* the launch's argument at the pointer */
} idx_chain;

/* Fills c; NULL, or where the chain broke. Strings of params/args live in a. */
static const char *trace_chain(idx_chain *c, const char *wrapper, size_t wlen, const char *kernels, size_t klen,
                               const char *kernel, const char *tmp, const char *bound, arena *a)
{
    memset(c, 0, sizeof *c);
    c->hit = kernels ? find_assert(kernels, klen, kernel, tmp, bound, &c->def) : NULL;
    c->tend = kernels + klen;
    if (!c->hit) {
        c->hit = find_assert(wrapper, wlen, kernel, tmp, bound, &c->def);
        c->tend = wrapper + wlen;
    }
    if (!c->hit)
        return "the kernel's source with the assert is not in the package";
    /* tmpN back to its load */
    char expr[1024];
    c->n = 1;
    snprintf(c->names[0], sizeof c->names[0], "%s", tmp);
    for (int i = 0; i < c->n && !c->ptr[0]; i++) {
        if (def_of(c->def, c->hit, c->names[i], expr, sizeof expr))
            continue;
        if (!pointer_in(expr, c->ptr, sizeof c->ptr)) {
            snprintf(c->load_tmp, sizeof c->load_tmp, "%.31s", c->names[i]);
            break;
        }
        for (const char *p = expr; *p && c->n < MAX_CHAIN; p++) {
            if (!starts_with(p, "tmp") || (p != expr && is_ident((unsigned char)p[-1])))
                continue;
            const char *q = p + 3;
            while (isdigit((unsigned char)*q))
                q++;
            if (q == p + 3 || is_ident((unsigned char)*q) || q - p >= 32)
                continue;
            char t[32];
            memcpy(t, p, (size_t)(q - p));
            t[q - p] = 0;
            int seen = 0;
            for (int k = 0; k < c->n; k++)
                seen |= !strcmp(c->names[k], t);
            if (!seen)
                snprintf(c->names[c->n++], sizeof c->names[0], "%s", t);
        }
    }
    if (!c->ptr[0])
        return "no load found behind the asserted index in the kernel's source";
    /* a wrap of negative indices: `load_tmp < 0` among the chain's definitions */
    char neg[48];
    snprintf(neg, sizeof neg, "%s < 0", c->load_tmp);
    for (int i = 0; i < c->n && !c->wrap; i++)
        if (!def_of(c->def, c->hit, c->names[i], expr, sizeof expr) && strstr(expr, neg))
            c->wrap = 1;
    /* the pointer's position in the signature, then the launch's argument */
    c->np = triton_trace_params(c->def + strlen(kernel), c->tend, a, c->params, MAX_ARGS);
    size_t call_line = 0;
    int pos = -1;
    for (size_t i = 0; i < c->np && pos < 0; i++)
        if (!strcmp(c->params[i], c->ptr))
            pos = (int)i;
    if (pos < 0 || triton_trace_call_args(wrapper, wlen, kernel, a, c->args, MAX_ARGS, &c->na, &call_line) ||
        (size_t)pos >= c->na)
        return "the load's pointer could not be matched to the kernel's launch in wrapper.cpp";
    if (arg_tensor(c->args[pos], c->tname, sizeof c->tname))
        return "the load's pointer is not a tensor at the launch";
    return NULL;
}

/* 1 when every step of the chain past the load only copies, casts or wraps
 * negative indices (`x < 0 ? x + bound : x`): the value checked is the value
 * loaded. Any other arithmetic (an offset, a product) and it is not. */
static int chain_is_plain(const idx_chain *c)
{
    char expr[1024];
    for (int i = 0; i < c->n; i++) {
        if (!strcmp(c->names[i], c->load_tmp) || def_of(c->def, c->hit, c->names[i], expr, sizeof expr))
            continue;
        for (const char *p = expr; *p; p++) {
            if (*p == '-' && p[1] == '>')
                return 0;
            if (strchr("-*/%^|&", *p) || (*p == '+' && !c->wrap) || (*p == '<' && p[1] == '<') ||
                (*p == '>' && p[1] == '>'))
                return 0;
        }
    }
    return 1;
}

int oob_element_index_source(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const char *kernel,
                             const char *tmp, const char *bound, oob_index_source *out, const char **why)
{
    memset(out, 0, sizeof *out);
    arena a = ARENA_INIT;
    idx_chain *c = xmalloc(sizeof *c);
    *why = trace_chain(c, wrapper, wlen, kernels, klen, kernel, tmp, bound, &a);
    if (!*why) {
        snprintf(out->tensor, sizeof out->tensor, "%s", c->tname);
        snprintf(out->ptr, sizeof out->ptr, "%s", c->ptr);
        out->wrap = c->wrap;
        out->plain = chain_is_plain(c);
        for (size_t i = 0; i < c->np && i < c->na; i++) {
            char name[64];
            if (!strcmp(c->params[i], bound) && !arg_tensor(c->args[i], name, sizeof name))
                snprintf(out->bound_arg, sizeof out->bound_arg, "%s", name);
        }
    }
    free(c);
    arena_release(&a);
    return *why ? -1 : 0;
}

int oob_element_apply(route_result *r, const char *wrapper, size_t wlen, const char *kernels, size_t klen,
                      const session *s, int64_t kernel_index)
{
    if (!route_is_index_oob(r->route) || !s)
        return 0;
    const char *kernel = route_result_field(r, "kernel"), *tmp = route_result_field(r, "tmp");
    const char *bound = route_result_field(r, "bound");
    if (!kernel || !tmp || !bound)
        return 0;
    arena a = ARENA_INIT;
    wrapper_scan ws;   /* the user's names: inputs (pytree spec) and weights */
    strbuf werr = STRBUF_INIT;
    memset(&ws, 0, sizeof ws);
    idx_chain *c = xmalloc(sizeof *c);
    char expr[1024];
    const char *err = trace_chain(c, wrapper, wlen, kernels, klen, kernel, tmp, bound, &a);
    if (c->ptr[0])
        route_result_set_field(r, "load_ptr", c->ptr);
    if (err)
        goto out;
    const char *hit = c->hit, *tend = c->tend, *const *params = (const char *const *)c->params;
    const char *const *args = (const char *const *)c->args;
    size_t np = c->np, na = c->na;
    int n = c->n, wrap = c->wrap;
    char (*names)[32] = c->names;
    const char *tname = c->tname;
    route_result_set_field(r, "index_tensor", tname);
    if (!wrapper_scan_text(&ws, wrapper, wlen, &werr))
        set_user_name(r, &ws, tname);
    int64_t hi;
    if (bound_value(r, &hi)) {
        err = "the bound's value is not known (a symbolic bound needs the run's inputs)";
        goto out;
    }
    char buf[160];
    int64_t lo = wrap ? -hi : 0;
    snprintf(buf, sizeof buf, "%" PRId64, hi);
    route_result_set_field(r, "bound_value", buf);
    snprintf(buf, sizeof buf, "[%" PRId64 ", %" PRId64 ")", lo, hi);
    route_result_set_field(r, "valid_range", buf);
    const kernel_event *k = failing_kernel(s, kernel_index, kernel);
    const tensor_rec *t = k ? before_tensor(k, tname) : NULL;
    if (!t) {
        err = "the session has no before-tensor of that name at the failing kernel";
        goto out;
    }
    find_element(r, t, lo, hi);
    /* what the bound is: the tensor the index reads or writes, a dim of that size */
    const char *ii = route_result_field(r, "input"), *dim = route_result_field(r, "dim");
    strbuf of = STRBUF_INIT;
    if (ii && dim && route_result_field(r, "kernel_param")) {
        strbuf_addf(&of, "dim %s of input %s", dim, ii);
        const char *sh = route_result_field(r, "input_shape");
        if (sh)
            strbuf_addf(&of, " %s", sh);
    } else {
        char uptr[32] = "";
        for (const char *p = hit; p < tend && !uptr[0];) {   /* a later line with a chain tmp and a pointer */
            const char *eol = memchr(p, '\n', (size_t)(tend - p));
            eol = eol ? eol : tend;
            if (eol - p > 0 && (size_t)(eol - p) < sizeof expr) {
                memcpy(expr, p, (size_t)(eol - p));
                expr[eol - p] = 0;
                for (int i = 0; i < n && !uptr[0]; i++)
                    if (find_word(expr, expr + strlen(expr), names[i]))
                        pointer_in(expr, uptr, sizeof uptr);
                if (starts_with(expr, "def ") || strstr(expr, "extern \"C\""))
                    break;   /* the next kernel */
            }
            p = eol + 1;
        }
        int upos = -1;
        for (size_t i = 0; uptr[0] && i < np && upos < 0; i++)
            if (!strcmp(params[i], uptr))
                upos = (int)i;
        char uname[128];
        int have = upos >= 0 && (size_t)upos < na && !arg_tensor(args[upos], uname, sizeof uname);
        const tensor_rec *u = have ? before_tensor(k, uname) : NULL;
        tensor_rec w;
        int64_t wshape[TENSOR_MAX_DIMS];
        if (have && !u && !constant_shape(wrapper, wlen, uname, wshape, &w.ndim)) {
            w.name = uname;   /* a weight: the printer does not save constants; wrapper.cpp has its shape */
            w.shape = wshape;
            u = &w;
        }
        for (int d = 0; u && d < u->ndim; d++)
            if (u->shape[d] == hi) {
                /* a weight whether the printer saved it (CUDA) or wrapper.cpp gave its shape */
                int weight = u == &w || is_constant(&ws, u->name);
                strbuf_addf(&of, "dim %d of %s%s ", d, weight ? "the weight " : "",
                            weight ? weight_name(&ws, u->name) : u->name);
                shape_text(&of, u);
                strbuf_addstr(&of, starts_with(params[upos], "out") ? " (written at the index)"
                                                                    : " (read at the index)");
                break;
            }
    }
    if (of.len)
        route_result_set_field(r, "bound_of", of.buf);
    strbuf_release(&of);
out:
    if (err)
        route_result_set_field(r, "element_error", err);
    free(c);
    arena_release(&a);
    wrapper_scan_free(&ws);
    strbuf_release(&werr);
    return 0;
}

int oob_element_apply_package(route_result *r, const char *pkg, const session *s, int64_t kernel_index,
                              strbuf *err)
{
    if (!route_is_index_oob(r->route) || !s)
        return 0;
    package_sources ps = PACKAGE_SOURCES_INIT;
    if (package_sources_read(pkg, NULL, TRITON_TRACE_MAX_SOURCE, &ps, err)) {
        package_sources_release(&ps);
        return -1;
    }
    oob_element_apply(r, ps.wrapper.buf, ps.wrapper.len, ps.kernel.len ? ps.kernel.buf : NULL, ps.kernel.len, s,
                      kernel_index);
    package_sources_release(&ps);
    return 0;
}
