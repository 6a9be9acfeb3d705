/* launch_roles.c — written-only tensors of each launch (see launch_roles.h). */
#define _GNU_SOURCE
#include "launch_roles.h"
#include <ctype.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"

#define MAX_PARAMS   512        /* parameters read of one declaration */
#define MAX_DECL     (64u << 10) /* bytes of one parameter list */
#define MAX_STMT     (64u << 10) /* bytes of one call statement */

static int is_ident(int c) { return isalnum(c) || c == '_'; }

typedef struct {
    const char *name;           /* "cpp_fused_x_0", "call_triton_x_0" (arena) */
    size_t n;
    const char **params;        /* parameter names in order (arena) */
} decl;

typedef struct {
    wrapper_scan *ws;
    decl *decls;
    size_t ndecls, cap;
    struct hsearch_data seen;   /* names any call statement so far passes */
    int seen_made;              /* hcreate_r succeeded */
    int seen_ok;                /* the table exists and has room */
} roles;

/* The arguments of the call whose '(' is at p, split at top-level commas;
 * spans into the text. Returns how many (0 when unbalanced within end). */
static size_t split_args(const char *p, const char *end, const char **a, size_t *alen, size_t max)
{
    if (p >= end || *p != '(')
        return 0;
    int depth = 0;
    size_t n = 0;
    const char *start = p + 1;
    for (const char *q = p; q < end; q++) {
        char c = *q;
        if (c == '"') {   /* a string literal: skip to its end */
            for (q++; q < end && *q != '"'; q++)
                if (*q == '\\')
                    q++;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                if (n < max && q > start) {
                    a[n] = start;
                    alen[n++] = (size_t)(q - start);
                }
                return n;
            }
        } else if (c == ',' && depth == 1 && n < max) {
            a[n] = start;
            alen[n++] = (size_t)(q - start);
            start = q + 1;
        } else if (c == ';' && depth <= 1) {
            break;
        }
    }
    return 0;
}

/* The last identifier of a parameter ("const float* in_ptr0" -> in_ptr0). */
static const char *param_name(arena *ar, const char *p, size_t n)
{
    const char *e = p + n;
    const char *eq = memchr(p, '=', n);   /* a default value */
    if (eq)
        e = eq;
    while (e > p && !is_ident((unsigned char)e[-1]))
        e--;
    const char *b = e;
    while (b > p && is_ident((unsigned char)b[-1]))
        b--;
    return b < e ? arena_strndup(ar, b, (size_t)(e - b)) : "";
}

static int decl_cmp(const void *x, const void *y)
{
    return strcmp(((const decl *)x)->name, ((const decl *)y)->name);
}

/* Every `void cpp_fused_*(...)` and `void call_triton_*(...)` with typed parameters. */
static void find_decls(roles *r, const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; (p = memmem(p, (size_t)(end - p), "void", 4)); p += 4) {
        if (p > text && is_ident((unsigned char)p[-1]))
            continue;
        const char *q = p + 4;
        if (q >= end || !isspace((unsigned char)*q))
            continue;
        while (q < end && isspace((unsigned char)*q))
            q++;
        size_t rest = (size_t)(end - q);
        if (!skip_prefix_mem(q, rest, "cpp_fused_", NULL, NULL) && !skip_prefix_mem(q, rest, "call_triton_", NULL, NULL))
            continue;
        const char *nb = q;
        while (q < end && is_ident((unsigned char)*q))
            q++;
        if (q >= end || *q != '(')
            continue;
        const char *a[MAX_PARAMS];
        size_t al[MAX_PARAMS];
        const char *lim = (size_t)(end - q) > MAX_DECL ? q + MAX_DECL : end;
        size_t n = split_args(q, lim, a, al, MAX_PARAMS);
        /* typed parameters: `const float* in_ptr0`, `const CUdeviceptr in_ptr0`,
         * torch 2.11's `const in_ptr0_type_& in_ptr0`; a call passes none */
        if (!n || (!memchr(a[0], '*', al[0]) && !memchr(a[0], '&', al[0]) && !memmem(a[0], al[0], "CUdeviceptr", 11)))
            continue;
        ALLOC_GROW(r->decls, r->ndecls + 1, r->cap);
        decl *d = &r->decls[r->ndecls++];
        d->name = arena_strndup(&r->ws->arena, nb, (size_t)(q - nb));
        d->n = n;
        d->params = arena_alloc(&r->ws->arena, n * sizeof *d->params);
        for (size_t i = 0; i < n; i++)
            d->params[i] = param_name(&r->ws->arena, a[i], al[i]);
    }
    if (r->ndecls)   /* no declarations: decls is NULL, which qsort may not take */
        qsort(r->decls, r->ndecls, sizeof *r->decls, decl_cmp);
}

static const decl *decl_of(const roles *r, const char *name)
{
    decl key = {.name = name};
    return r->ndecls ? bsearch(&key, r->decls, r->ndecls, sizeof *r->decls, decl_cmp) : NULL;
}

/* The tensor an argument passes whole: X of `(T*)(X.data_ptr())` or a plain
 * identifier; "" for anything else (views, sizes, expressions). */
/* [*a, *e) without the white space at either end. */
static void trim(const char **a, const char **e)
{
    while (*a < *e && isspace((unsigned char)**a))
        (*a)++;
    while (*e > *a && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

static void arg_tensor(const char *a, size_t n, char *out, size_t cap)
{
    out[0] = 0;
    const char *e = a + n;
    trim(&a, &e);
    if (memmem(a, (size_t)(e - a), "reinterpret_tensor", 18))
        return;
    const char *d = memmem(a, (size_t)(e - a), ".data_ptr(", 10);
    const char *b;
    if (d) {
        e = d;
        for (b = e; b > a && is_ident((unsigned char)b[-1]); b--)
            ;
    } else {
        for (const char *q = a; q < e; q++)
            if (!is_ident((unsigned char)*q))
                return;
        b = a;
    }
    if (e > b && (size_t)(e - b) < cap && !isdigit((unsigned char)*b)) {
        memcpy(out, b, (size_t)(e - b));
        out[e - b] = 0;
    }
}

/* X of an argument `&X_handle` (an output handle an extern op fills), else "". */
static void handle_arg(const char *a, size_t n, char *out, size_t cap)
{
    out[0] = 0;
    const char *e = a + n;
    trim(&a, &e);
    if (a >= e || *a != '&' || (size_t)(e - a) < 9 || memcmp(e - 7, "_handle", 7))
        return;
    const char *b = a + 1, *x = e - 7;
    for (const char *q = b; q < x; q++)
        if (!is_ident((unsigned char)*q))
            return;
    if (x > b && (size_t)(x - b) < cap && !isdigit((unsigned char)*b)) {
        memcpy(out, b, (size_t)(x - b));
        out[x - b] = 0;
    }
}

/* How a name was seen before: 0 never, SEEN_MOVED its storage only (`auto
 * X = std::move(Y)` with Y seen), SEEN_CALL passed to a call statement. */
enum { SEEN_MOVED = 1, SEEN_CALL = 2 };

static int seen(roles *r, const char *name)
{
    if (!r->seen_ok)
        return SEEN_CALL;   /* no table: every name counts as seen (nothing is marked fresh) */
    ENTRY e = {.key = (char *)name}, *hit = NULL;
    return hsearch_r(e, FIND, &hit, &r->seen) && hit ? (int)(intptr_t)hit->data : 0;
}

static void see(roles *r, const char *name, int how)
{
    if (!r->seen_ok || seen(r, name) >= how)
        return;
    ENTRY e = {.key = (char *)name}, *hit = NULL;
    if (hsearch_r(e, FIND, &hit, &r->seen) && hit) {
        hit->data = (void *)(intptr_t)how;
        return;
    }
    e.key = arena_strdup(&r->ws->arena, name);
    e.data = (void *)(intptr_t)how;
    if (!hsearch_r(e, ENTER, &hit, &r->seen))
        r->seen_ok = 0;   /* full: stop marking rather than guess */
}

/* A model input or a weight: initialised by the user, whatever a launch does. */
static int user_tensor(const wrapper_scan *ws, const char *name)
{
    for (size_t i = 0; i < ws->ninputs; i++)
        if (ws->inputs[i].name && !strcmp(ws->inputs[i].name, name))
            return 1;
    for (size_t i = 0; i < ws->nconstants; i++)
        if (ws->constants[i].name && !strcmp(ws->constants[i].name, name))
            return 1;
    return 0;
}

/* The launch of k at this statement: the arguments it writes whose values
 * before are no input: written-only ones (out_ptrN, an _out op's out) under a
 * name no call passed before, and read-written ones (in_out_ptrN: the kernel
 * writes them before it reads) whose storage nothing touched before. */
static void classify(roles *r, ws_kernel *k, const char *callee, const char **a, const size_t *al, size_t n)
{
    const decl *d = decl_of(r, callee);
    int ext_out = !d && starts_with(callee, "aoti_torch_") && ends_with(callee, "_out");
    const char *found[64], *made[64];
    size_t nf = 0, nm = 0;
    char t[256];
    for (size_t i = 0; i < n && nm < 64; i++) {   /* the buffers it makes, whatever their role */
        arg_tensor(a[i], al[i], t, sizeof t);
        if (!t[0])   /* an extern op's output handle: `&buf19_handle` makes buf19 */
            handle_arg(a[i], al[i], t, sizeof t);
        if (!t[0] || !strcmp(t, "nullptr") || seen(r, t) == SEEN_CALL || user_tensor(r->ws, t))
            continue;
        int dup = 0;
        for (size_t j = 0; j < nm && !dup; j++)
            dup = !strcmp(made[j], t);
        if (!dup)
            made[nm++] = arena_strdup(&r->ws->arena, t);
    }
    if (nm) {
        k->defines = arena_alloc(&r->ws->arena, nm * sizeof *k->defines);
        memcpy(k->defines, made, nm * sizeof *made);
        k->ndefines = nm;
    }
    for (size_t i = 0; i < n && nf < 64; i++) {
        int out = d ? i < d->n && starts_with(d->params[i], "out_ptr") : ext_out && i == 0;
        int inout = d && i < d->n && starts_with(d->params[i], "in_out_ptr");
        if (!out && !inout)
            continue;
        arg_tensor(a[i], al[i], t, sizeof t);
        int was = t[0] ? seen(r, t) : SEEN_CALL;
        if (was == SEEN_CALL || (inout && was) || user_tensor(r->ws, t))
            continue;
        found[nf++] = arena_strdup(&r->ws->arena, t);
    }
    if (!nf)
        return;
    k->fresh = arena_alloc(&r->ws->arena, nf * sizeof *k->fresh);
    memcpy(k->fresh, found, nf * sizeof *found);
    k->nfresh = nf;
}

/* The callee of a call statement at t (after AOTI_TORCH_ERROR_CODE_CHECK( ), into buf; 0 none. */
static size_t callee_of(const char *t, const char *end, char *buf, size_t cap, const char **paren)
{
    while (t < end && isspace((unsigned char)*t))
        t++;
    skip_prefix_mem(t, (size_t)(end - t), "AOTI_TORCH_ERROR_CODE_CHECK(", &t, NULL);
    size_t k = 0;
    while (t + k < end && is_ident((unsigned char)t[k]) && k + 1 < cap) {
        buf[k] = t[k];
        k++;
    }
    buf[k] = 0;
    if (!k || t + k >= end || t[k] != '(')
        return 0;
    if (!starts_with(buf, "cpp_fused_") && !starts_with(buf, "call_triton_") && !starts_with(buf, "aoti_torch_"))
        return 0;
    if (!strcmp(buf, "aoti_torch_save_tensor_handle") || !strcmp(buf, "aoti_torch_print_tensor_handle"))
        return 0;   /* the printer's own calls pass every argument before the launch */
    *paren = t + k;
    return k;
}

/* `auto X = <expression>;`: X takes over the storage of the names in it
 * (AOTI's reuse: `auto buf3 = std::move(buf2);`, a view of buf1 through
 * reinterpret_tensor_wrapper): seen before when one of them was. */
static void moved(roles *r, const char *p, const char *eol)
{
    while (p < eol && isspace((unsigned char)*p))
        p++;
    if (!skip_prefix_mem(p, (size_t)(eol - p), "auto ", &p, NULL))
        return;
    char x[256], y[256];
    size_t n = 0;
    while (p < eol && is_ident((unsigned char)*p) && n + 1 < sizeof x)
        x[n++] = *p++;
    x[n] = 0;
    while (p < eol && *p == ' ')
        p++;
    if (!n || p >= eol || *p != '=')
        return;
    const char *semi = memchr(p, ';', (size_t)(eol - p));
    const char *e = semi ? semi : eol;
    for (const char *q = p + 1; q < e;) {
        if (!is_ident((unsigned char)*q) || isdigit((unsigned char)*q)) {
            q++;
            continue;
        }
        const char *b = q;
        while (q < e && is_ident((unsigned char)*q))
            q++;
        if ((size_t)(q - b) < sizeof y) {
            memcpy(y, b, (size_t)(q - b));
            y[q - b] = 0;
            if (seen(r, y)) {
                see(r, x, SEEN_MOVED);
                return;
            }
        }
    }
}

static int launches(const ws_kernel *k, const char *callee)
{
    return !strcmp(callee, k->name) || (starts_with(callee, "call_") && !strcmp(callee + 5, k->name));
}

void launch_roles_scan(wrapper_scan *ws, const char *text, size_t len)
{
    if (!ws->nkernels || !text)
        return;
    roles r = {.ws = ws};
    find_decls(&r, text, len);
    size_t nel = 64 * ws->nkernels + 1024;
    memset(&r.seen, 0, sizeof r.seen);
    r.seen_made = r.seen_ok = hcreate_r(nel < (1u << 24) ? nel : (1u << 24), &r.seen) != 0;
    const char *end = text + len, *p = text;
    size_t ki = 0;
    int line = 0;
    char callee[512], t[256];
    const char *a[MAX_PARAMS];
    size_t al[MAX_PARAMS];
    while (p < end && ki < ws->nkernels) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        line++;
        const char *paren;
        /* a launch whose statement never showed: the next one's line is passed */
        while (ki + 1 < ws->nkernels && ws->kernels[ki + 1].line && line > ws->kernels[ki + 1].line)
            ki++;
        moved(&r, p, eol);
        if (callee_of(p, eol, callee, sizeof callee, &paren)) {
            const char *lim = (size_t)(end - paren) > MAX_STMT ? paren + MAX_STMT : end;
            size_t n = split_args(paren, lim, a, al, MAX_PARAMS);
            ws_kernel *k = &ws->kernels[ki];
            int launch = line >= k->line && launches(k, callee);
            if (launch) {
                classify(&r, k, callee, a, al, n);
                ki++;
            }
            for (size_t i = 0; i < n; i++) {
                arg_tensor(a[i], al[i], t, sizeof t);
                if (!t[0] && launch)   /* a launch's output handle (an allocation's handle makes no values) */
                    handle_arg(a[i], al[i], t, sizeof t);
                if (t[0])
                    see(&r, t, SEEN_CALL);
                else   /* a view or expression: every name in it counts as touched */
                    for (const char *q = a[i], *qe = a[i] + al[i]; q < qe;) {
                        if (!is_ident((unsigned char)*q) || (q > a[i] && is_ident((unsigned char)q[-1]))) {
                            q++;
                            continue;
                        }
                        const char *b = q;
                        while (q < qe && is_ident((unsigned char)*q))
                            q++;
                        if ((size_t)(q - b) < sizeof t && !isdigit((unsigned char)*b)) {
                            memcpy(t, b, (size_t)(q - b));
                            t[q - b] = 0;
                            see(&r, t, SEEN_CALL);
                        }
                    }
            }
        }
        p = nl ? nl + 1 : end;
    }
    if (r.seen_made)
        hdestroy_r(&r.seen);
    free(r.decls);
}
