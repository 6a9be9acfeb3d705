/* wrapper_scan.c — reads the generated wrapper.cpp line by line (see wrapper_scan.h).
 * Patterns follow torch/_inductor/codegen/cpp_wrapper_cpu.py, cpp_wrapper_gpu.py
 * and debug_utils.py; each matcher is small and forgiving about spacing. */
#define _GNU_SOURCE
#include "wrapper_scan.h"
#include "launch_roles.h"
#include "pytree.h"
#include "compat.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_COPY 65536   /* provenance comments of big fused kernels run long */

static void *xgrow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = xrealloc(p, nc * elem);
    *cap = nc;
    return q;
}

static const char *ws_device_type_name(arena *a, long v)
{
    switch (v) {
    case 0: return "cpu";
    case 1: return "cuda";
    case 6: return "hip";
    case 12: return "xpu";
    case 13: return "mps";
    case 14: return "meta";
    default: return arena_printf(a, "device-type-%ld", v);
    }
}

/* Parses a decimal integer (optional sign, optional L suffix) at *p; advances.
 * Returns 0 on success. */
static int parse_int(const char **p, int64_t *out)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    while (*end == 'L' || *end == 'l' || *end == 'U' || *end == 'u')
        end++;
    *out = v;
    *p = end;
    return 0;
}

/* Reads an identifier at p into buf (cap n); returns its length (0: none). */
static size_t ident(const char *p, char *buf, size_t n)
{
    size_t k = 0;
    while ((isalnum((unsigned char)p[k]) || p[k] == '_') && k + 1 < n) {
        buf[k] = p[k];
        k++;
    }
    buf[k] = 0;
    return k;
}

/* Reads a "..." literal starting at p (which points at the quote). */
static int quoted(const char *p, char *buf, size_t n)
{
    if (*p != '"')
        return -1;
    p++;
    size_t k = 0;
    while (*p && *p != '"') {
        if (k + 1 >= n)
            return -1;
        buf[k++] = *p++;
    }
    if (*p != '"')
        return -1;
    buf[k] = 0;
    return 0;
}

static void init_input(ws_input *in)
{
    memset(in, 0, sizeof *in);
    in->ndim = -1;
    for (int d = 0; d < TENSOR_MAX_DIMS; d++)
        in->dims[d] = in->dim_min[d] = in->dim_max[d] = in->strides[d] = WS_UNKNOWN;
}

/* Input i, growing the array; NULL when i is out of range. */
static ws_input *input_at(wrapper_scan *ws, int64_t i)
{
    if (i < 0 || i >= WS_MAX_INPUTS)
        return NULL;
    if ((size_t)i >= ws->ninputs) {
        ws_input *n = xrealloc(ws->inputs, (size_t)(i + 1) * sizeof *n);
        for (size_t k = ws->ninputs; k <= (size_t)i; k++)
            init_input(&n[k]);
        ws->inputs = n;
        ws->ninputs = (size_t)i + 1;
    }
    return &ws->inputs[i];
}

static ws_input *input_by_name(wrapper_scan *ws, const char *name)
{
    for (size_t i = 0; i < ws->ninputs; i++)
        if (ws->inputs[i].name && !strcmp(ws->inputs[i].name, name))
            return &ws->inputs[i];
    return NULL;
}

static void note_dim(ws_input *in, int64_t d)
{
    if (d >= 0 && d < TENSOR_MAX_DIMS && in->ndim < d + 1)
        in->ndim = (int)d + 1;
}

/* The current check_input_N being read, or -1. */
typedef struct {
    int64_t cur_input;
    char cur_kernel[512];     /* open launch: saw before_launch, no after_launch yet */
    int in_run_impl;
    int in_model_base;        /* lines left to look for include_weights */
    int printer_seen;
    /* provenance comments seen since the last launch, for the next one */
    const char *pend_nodes, *pend_handle;
} scan_state;

/* A launch at line: it takes the provenance comments seen since the last one. */
static void start_call(wrapper_scan *ws, scan_state *st, ws_kernel *k, const char *name, int line)
{
    memset(k, 0, sizeof *k);
    k->name = arena_strdup(&ws->arena, name);
    k->line = line;
    k->source_nodes = st->pend_nodes;
    k->handle = st->pend_handle;
    st->pend_nodes = st->pend_handle = NULL;
}

static void add_kernel(wrapper_scan *ws, scan_state *st, const char *name, int line)
{
    if (ws->nkernels >= WS_MAX_KERNELS)
        return;
    ws->kernels = xgrow(ws->kernels, &ws->cap_kernels, ws->nkernels, sizeof *ws->kernels);
    start_call(ws, st, &ws->kernels[ws->nkernels++], name, line);
}

/* The weights a call site passes: identifiers of the statement that name a
 * constant, as its original_fqn when known. */
static void note_params(wrapper_scan *ws, ws_kernel *k, const char *stmt)
{
    const char *found[64];
    size_t n = 0;
    for (const char *p = stmt; *p && n < 64;) {
        if (!(isalpha((unsigned char)*p) || *p == '_')) {
            p++;
            continue;
        }
        const char *b = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t len = (size_t)(p - b);
        for (size_t i = 0; i < ws->nconstants; i++) {
            const ws_constant *c = &ws->constants[i];
            if (c->name && strlen(c->name) == len && !memcmp(c->name, b, len)) {
                const char *v = c->fqn ? c->fqn : c->name;
                int dup = 0;
                for (size_t j = 0; j < n && !dup; j++)
                    dup = found[j] == v;
                if (!dup)
                    found[n++] = v;
                break;
            }
        }
    }
    if (!n)
        return;
    const char **all = arena_alloc(&ws->arena, (k->nparams + n) * sizeof *all);
    if (k->nparams)
        memcpy(all, k->params, k->nparams * sizeof *all);
    memcpy(all + k->nparams, found, n * sizeof *all);
    k->params = all;
    k->nparams += n;
}

/* "<name>_size[D]" or "<name>_stride[D]" right at p: fills name and D. */
static int size_ref(const char *p, const char *kind, char *name, size_t n, int64_t *d)
{
    char id[256];
    size_t k = ident(p, id, sizeof id);
    size_t kl = strlen(kind);
    if (k <= kl || strcmp(id + k - kl, kind) || p[k] != '[')
        return -1;
    id[k - kl] = 0;
    const char *q = p + k + 1;
    if (parse_int(&q, d) < 0 || *q != ']')
        return -1;
    snprintf(name, n, "%s", id);
    return 0;
}

static void printer_event(wrapper_scan *ws, scan_state *st, int level, int before, const char *kernel, int line)
{
    if (level > ws->printer_level)
        ws->printer_level = level;
    if (!before) {
        st->cur_kernel[0] = 0;
        return;
    }
    if (strcmp(st->cur_kernel, kernel)) {
        snprintf(st->cur_kernel, sizeof st->cur_kernel, "%s", kernel);
        add_kernel(ws, st, kernel, line);
    }
    if (level < 3 && ws->nkernels)   /* levels 1 and 2 hand the runner a tensor each */
        ws->kernels[ws->nkernels - 1].nbefore++;
}

/* Where AOTInductorModelBase(...) is called: its last argument says whether
 * the weights are in the .so (include_weights). */
static void scan_model_base(wrapper_scan *ws, scan_state *st, const char *t)
{
    if (st->in_model_base > 0) {
        st->in_model_base--;
        if (starts_with(t, "true)"))
            ws->include_weights = 1, st->in_model_base = 0;
        else if (starts_with(t, "false)"))
            ws->include_weights = 0, st->in_model_base = 0;
    }
    if (strstr(t, ": AOTInductorModelBase(") || starts_with(t, "AOTInductorModelBase("))
        st->in_model_base = 10;
}

/* inputs_info_[N].name = "argX_1"; (rest: after the prefix) */
static void on_input_info(wrapper_scan *ws, scan_state *st, const char *rest, int line)
{
    (void)st;
    const char *p = rest;
    int64_t v;
    char name[256];
    if (parse_int(&p, &v) == 0 && skip_prefix(p, "].name = ", &p) && quoted(p, name, sizeof name) == 0) {
        ws_input *in = input_at(ws, v);
        if (in) {
            in->name = arena_strdup(&ws->arena, name);
            if (!in->line)
                in->line = line;
        }
    }
    return;
}

/* outputs_info_[N]... */
static void on_output_info(wrapper_scan *ws, scan_state *st, const char *rest, int line)
{
    (void)st;
    (void)line;
    const char *p = rest;
    int64_t v;
    if (parse_int(&p, &v) == 0 && v >= 0 && v < WS_MAX_INPUTS && (size_t)v + 1 > ws->noutputs)
        ws->noutputs = (size_t)v + 1;
    return;
}

/* constants_info_[N].name / .original_fqn / .dtype / .device_type / .data_size
 * / .from_folded / .shape / .stride = ...; */
static void on_constant_info(wrapper_scan *ws, scan_state *st, const char *rest, int line)
{
    (void)st;
    (void)line;
    const char *p = rest;
    int64_t v, d;
    char name[256], buf[1024];
    if (parse_int(&p, &v) < 0 || v < 0 || v >= 1000000)
        return;
    while (ws->nconstants <= (size_t)v) {
        ws->constants = xgrow(ws->constants, &ws->cap_constants, ws->nconstants, sizeof *ws->constants);
        ws_constant *nc = &ws->constants[ws->nconstants++];
        memset(nc, 0, sizeof *nc);
        nc->data_size = -1;
        nc->ndim = -1;
    }
    ws_constant *c = &ws->constants[v];
    const char *q = NULL;
    int is_name = skip_prefix(p, "].name = ", &q);
    if (is_name || skip_prefix(p, "].original_fqn = ", &q)) {
        if (quoted(q, buf, sizeof buf) < 0)
            return;
        if (is_name)
            c->name = arena_strdup(&ws->arena, buf);
        else
            c->fqn = arena_strdup(&ws->arena, buf);
    } else if (skip_prefix(p, "].dtype = ", &q)) {
        /* cached_torch_dtype_float32 (newer) or static_cast<int32_t>(aoti_torch_dtype_float32()) */
        const char *dt = strstr(q, "dtype_");
        if (dt && skip_prefix(dt, "dtype_", &dt) && ident(dt, name, sizeof name))
            c->dtype = arena_strdup(&ws->arena, name);
    } else if (skip_prefix(p, "].device_type = ", &q)) {
        const char *dv = strstr(q, "device_type_");
        if (dv && skip_prefix(dv, "device_type_", &dv) && ident(dv, name, sizeof name))
            c->device = arena_strdup(&ws->arena, name);
    } else if (skip_prefix(p, "].data_size = ", &q)) {
        if (parse_int(&q, &d) == 0 && d >= 0)
            c->data_size = d;
    } else if (skip_prefix(p, "].from_folded = ", &q)) {
        c->from_folded = starts_with(q, "true");
    } else if (skip_prefix(p, "].shape = {", &q) || skip_prefix(p, "].stride = {", &q)) {
        int is_shape = p[2] == 's' && p[3] == 'h';
        int n = 0;
        int64_t *dst = is_shape ? c->shape : c->stride;
        while (*q && *q != '}' && n < TENSOR_MAX_DIMS) {
            while (*q == ' ' || *q == ',') q++;
            if (*q == '}' || parse_int(&q, &d) < 0)
                break;
            dst[n++] = d;
        }
        if (is_shape)
            c->ndim = n;
    }
    return;
}

/* Provenance comments belong to the next launch. */
static void on_source_nodes(wrapper_scan *ws, scan_state *st, const char *rest, int line)
{
    (void)line;
    st->pend_nodes = arena_strdup(&ws->arena, rest);
}

static void on_debug_handles(wrapper_scan *ws, scan_state *st, const char *rest, int line)
{
    (void)line;
    st->pend_handle = arena_strdup(&ws->arena, rest);
}

/* Lines known by how they start (after the indent): the handler gets the
 * rest. run_impl_only: inside run_impl only. A matched line is done. */
static const struct {
    const char *prefix;
    int run_impl_only;
    void (*fn)(wrapper_scan *ws, scan_state *st, const char *rest, int line);
} line_prefixes[] = {
    {"inputs_info_[", 0, on_input_info},
    {"outputs_info_[", 0, on_output_info},
    {"constants_info_[", 0, on_constant_info},
    {"// Topologically Sorted Source Nodes: ", 1, on_source_nodes},
    {"// [Provenance debug handles] ", 1, on_debug_handles},
};

/* AOTI_NOINLINE static void check_input_N( : 1 when the line is one. */
static int scan_check_decl(wrapper_scan *ws, scan_state *st, const char *t, int line)
{
    const char *p = strstr(t, "static void check_input_");
    int64_t v;
    if (!p || !skip_prefix(p, "static void check_input_", &p))
        return 0;
    if (parse_int(&p, &v) == 0 && *p == '(') {
        ws_input *in = input_at(ws, v);
        st->cur_input = in ? v : -1;
        if (in) {
            in->line = line;
            ws->has_input_checks = 1;
        }
    }
    return 1;
}

/* Inside check_input_N: the input's name, dtype, device, sizes and strides;
 * 1 when the line is done. */
static int scan_input_check(wrapper_scan *ws, scan_state *st, const char *l, const char *t, int line)
{
    const char *p;
    char name[256];
    int64_t v, d;
    ws_input *in = &ws->inputs[st->cur_input];
    const char *cn;
    if (skip_prefix(t, "ConstantHandle ", &cn) && strstr(t, "(input_handles[")) {
        if (ident(cn, name, sizeof name) && !in->name)
            in->name = arena_strdup(&ws->arena, name);
    }
    /* <n>_expected_dtype = aoti_torch_dtype_float32(); */
    if ((p = strstr(t, "_expected_dtype = aoti_torch_dtype_")) != NULL) {
        if (ident(p + strlen("_expected_dtype = aoti_torch_dtype_"), name, sizeof name)) {
            in->dtype = arena_strdup(&ws->arena, name);
            in->dtype_line = line;
        }
        return 1;
    }
    if ((p = strstr(t, "_expected_device_type = ")) != NULL) {
        p += strlen("_expected_device_type = ");
        if (parse_int(&p, &v) == 0) {
            in->device = ws_device_type_name(&ws->arena, (long)v);
            in->device_line = line;
        }
        return 1;
    }
    if (skip_prefix(t, "if (", &p)) {
        const char *cond = p;
        /* if (N != x_size[D]) / if (N != x_stride[D]) */
        if (parse_int(&p, &v) == 0 && skip_prefix(p, " != ", &p)) {
            if (size_ref(p, "_size", name, sizeof name, &d) == 0 && d >= 0 && d < TENSOR_MAX_DIMS) {
                in->dims[d] = v;
                if (!in->dim_line[d])
                    in->dim_line[d] = line;
                note_dim(in, d);
            } else if (size_ref(p, "_stride", name, sizeof name, &d) == 0 && d >= 0 && d < TENSOR_MAX_DIMS) {
                in->strides[d] = v;
                if (!in->stride_line)
                    in->stride_line = line;
                note_dim(in, d);
            }
            return 1;
        }
        /* if (x_size[D] < N) / if (x_size[D] > N) */
        p = cond;
        if (size_ref(p, "_size", name, sizeof name, &d) == 0 && d >= 0 && d < TENSOR_MAX_DIMS) {
            p = strchr(p, ']') + 1;
            while (*p == ' ')
                p++;
            char op = *p;
            p++;
            if ((op == '<' || op == '>') && parse_int(&p, &v) == 0) {
                if (!in->dim_line[d])
                    in->dim_line[d] = line;
                if (op == '<')
                    in->dim_min[d] = v;
                else
                    in->dim_max[d] = v;
                note_dim(in, d);
            }
        }
        return 1;
    }
    if (l[0] == '}')
        st->cur_input = -1;   /* the function's closing brace (column 0) ends the check */
    return 0;
}

/* int64_t s77 = arg4_1_size[0]; */
static void scan_size_symbol(wrapper_scan *ws, const char *t)
{
    const char *p;
    char name[256];
    int64_t d;
    const char *at;
    if (!skip_prefix(t, "int64_t ", &at) || *at != 's' || !(p = strstr(t, " = ")) || !skip_prefix(p, " = ", &p))
        return;
    char sym[64];
    if (ident(at, sym, sizeof sym) && size_ref(p, "_size", name, sizeof name, &d) == 0 && d >= 0 &&
        d < TENSOR_MAX_DIMS) {
        ws_input *in = input_by_name(ws, name);
        if (in) {
            in->dim_sym[d] = arena_strdup(&ws->arena, sym);
            note_dim(in, d);
        }
    }
}

/* assert_size_stride(arg4_1, {s77, 8L}, {8L, 1L}, "input"): 1 when the line is one. */
static int scan_assert_size_stride(wrapper_scan *ws, const char *t)
{
    const char *p = strstr(t, "assert_size_stride(");
    char name[256];
    if (!p || !skip_prefix(p, "assert_size_stride(", &p))
        return 0;
    size_t k = ident(p, name, sizeof name);
    ws_input *in = k ? input_by_name(ws, name) : NULL;
    if (in) {
        p += k;
        for (int which = 0; which < 2; which++) {
            p = strchr(p, '{');
            if (!p)
                return 1;
            p++;
            int n = 0;
            while (*p && *p != '}') {
                while (*p == ' ' || *p == ',')
                    p++;
                if (*p == '}' || !*p)
                    break;
                int64_t x;
                const char *q = p;
                int lit = parse_int(&q, &x) == 0 && (*q == ',' || *q == '}' || *q == ' ');
                if (n < TENSOR_MAX_DIMS) {
                    if (which == 0 && lit && in->dims[n] == WS_UNKNOWN && in->dim_min[n] == WS_UNKNOWN)
                        in->dims[n] = x;
                    if (which == 1 && lit && in->strides[n] == WS_UNKNOWN)
                        in->strides[n] = x;
                }
                n++;
                while (*p && *p != ',' && *p != '}')
                    p++;
            }
            if (which == 0 && n <= TENSOR_MAX_DIMS && in->ndim < n)
                in->ndim = n;
        }
    }
    return 1;
}

/* The intermediate-value printer's calls, levels 1 to 3: 1 when the line is one. */
static int scan_printer(wrapper_scan *ws, scan_state *st, const char *t, int line)
{
    const char *p;
    char buf[1024];
    if ((p = strstr(t, "aoti_torch_save_tensor_handle(")) != NULL) {
        /* ..., "arg", "before_launch", "kernel"); */
        const char *b = strstr(p, "\"before_launch\"");
        const char *a = strstr(p, "\"after_launch\"");
        const char *k = NULL;
        if (!(b && skip_prefix(b, "\"before_launch\"", &k)) && !(a && skip_prefix(a, "\"after_launch\"", &k)))
            return 1;
        while (*k == ',' || *k == ' ')
            k++;
        if (quoted(k, buf, sizeof buf) == 0)
            printer_event(ws, st, 1, b != NULL, buf, line);
        return 1;
    }
    /* level 2: aoti_torch_print_tensor_handle(x, "before_launch - K - x"); */
    if ((p = strstr(t, "aoti_torch_print_tensor_handle(")) != NULL) {
        if (ws->printer_level < 2)
            ws->printer_level = 2;
        const char *q = strchr(p, '"');
        if (q && quoted(q, buf, sizeof buf) == 0) {
            const char *kc;
            int before = skip_prefix(buf, "before_launch - ", &kc);
            if (before || skip_prefix(buf, "after_launch - ", &kc)) {
                char *kn = buf + (kc - buf);
                char *dash = strstr(kn, " - ");
                if (dash)
                    *dash = 0;
                printer_event(ws, st, 2, before, kn, line);
            }
        }
        return 1;
    }
    /* level 3: printf("[ before_launch: K ]\n"); */
    if ((p = strstr(t, "printf(\"[ ")) != NULL && skip_prefix(p, "printf(\"[ ", &p)) {
        int before = skip_prefix(p, "before_launch: ", &p);
        if (before || skip_prefix(p, "after_launch: ", &p)) {
            size_t k = 0;
            while (p[k] && p[k] != ' ' && p[k] != '"' && k + 1 < sizeof buf) {
                buf[k] = p[k];
                k++;
            }
            buf[k] = 0;
            printer_event(ws, st, 3, before, buf, line);
        }
        return 1;
    }
    return 0;
}

/* kernels_.k = loadKernel("/path/x.cubin", "mangled", 0, cubin_dir_...): 1 when the line is one. */
static int scan_load_kernel(wrapper_scan *ws, const char *t, int line)
{
    const char *p = strstr(t, "loadKernel(");
    char name[256], buf[1024];
    if (!p || !skip_prefix(p, "loadKernel(", &p))
        return 0;
    while (*p == ' ')
        p++;
    if (*p == '"') {
        if (quoted(p, buf, sizeof buf) == 0) {
            const char *base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
            for (size_t i = 0; i < ws->ncubins; i++)
                if (!strcmp(ws->cubins[i].file, base))
                    return 1;
            ws->cubins = xgrow(ws->cubins, &ws->cap_cubins, ws->ncubins, sizeof *ws->cubins);
            ws_cubin *c = &ws->cubins[ws->ncubins++];
            c->file = arena_strdup(&ws->arena, base);
            c->line = line;
            c->kernel = NULL;
            const char *q = strchr(p + 1 + strlen(buf) + 1, '"');
            if (q && quoted(q, name, sizeof name) == 0)
                c->kernel = arena_strdup(&ws->arena, name);
        }
    } else if (starts_with(p, "__")) {
        ws->nembedded_kernels++;
    }
    return 1;
}

/* Call sites: the kernel list when there is no printer; with one, the
 * launch it instruments gets the call's weights, and a call it does not
 * instrument takes its comments with it. */
static void scan_call_site(wrapper_scan *ws, scan_state *st, const char *t, int line)
{
    char buf[1024];
    const char *c = t;
    skip_prefix(t, "AOTI_TORCH_ERROR_CODE_CHECK(", &c);
    if (starts_with(c, "aoti_torch_proxy_executor_call_function(")) {
        if (!st->cur_kernel[0])
            st->pend_nodes = st->pend_handle = NULL;
        return;
    }
    if (starts_with(c, "call_triton_") || starts_with(c, "cpp_fused_") ||
        starts_with(c, "aoti_torch_cpu_") || starts_with(c, "aoti_torch_cuda_")) {
        size_t k = ident(c, buf, sizeof buf);
        if (!k || c[k] != '(')
            return;
        if (!st->printer_seen) {
            const char *kn = buf;
            skip_prefix(buf, "call_", &kn);
            ws->kernels_source = "call-sites";
            add_kernel(ws, st, kn, line);
            if (ws->nkernels)
                note_params(ws, &ws->kernels[ws->nkernels - 1], c + k);
        } else if (st->cur_kernel[0] && ws->nkernels) {
            note_params(ws, &ws->kernels[ws->nkernels - 1], c + k);
        } else if (ws->nunprinted < WS_MAX_KERNELS) {
            const char *kn = buf;
            skip_prefix(buf, "call_", &kn);
            ws->unprinted = xgrow(ws->unprinted, &ws->cap_unprinted, ws->nunprinted, sizeof *ws->unprinted);
            ws_kernel *u = &ws->unprinted[ws->nunprinted++];
            start_call(ws, st, u, kn, line);
            u->after = ws->nkernels;
            note_params(ws, u, c + k);
        }
    }
}

static void scan_line(wrapper_scan *ws, scan_state *st, const char *l, int line)
{
    const char *t = l, *rest;
    while (*t == ' ' || *t == '\t')
        t++;
    scan_model_base(ws, st, t);
    for (size_t i = 0; i < sizeof line_prefixes / sizeof *line_prefixes; i++)
        if ((!line_prefixes[i].run_impl_only || st->in_run_impl) && skip_prefix(t, line_prefixes[i].prefix, &rest)) {
            line_prefixes[i].fn(ws, st, rest, line);
            return;
        }
    if (scan_check_decl(ws, st, t, line))
        return;
    if (st->cur_input >= 0 && st->cur_input < (int64_t)ws->ninputs && scan_input_check(ws, st, l, t, line))
        return;
    if (strstr(t, "::run_impl(")) {
        st->in_run_impl = 1;
        st->cur_input = -1;
        return;
    }
    if (starts_with(t, "} // AOTInductorModel::run_impl")) {
        st->in_run_impl = 0;
        return;
    }
    scan_size_symbol(ws, t);
    if (scan_assert_size_stride(ws, t) || scan_printer(ws, st, t, line))
        return;
    if (strstr(t, "aoti_torch_check_inf_and_nan(")) {
        if (!ws->nan_asserts)
            ws->nan_assert_line = line;
        ws->nan_asserts = 1;
    }
    if (strstr(t, "aoti_torch_proxy_executor_call_function("))
        ws->nproxy_calls++;
    if (scan_load_kernel(ws, t, line) || !st->in_run_impl)
        return;
    scan_call_site(ws, st, t, line);
}

/* The raw-string literal after `marker` (in_spec_ = R"(...)";), or NULL. */
static const char *raw_literal(const char *text, size_t len, const char *marker, size_t *n)
{
    const char *m = memmem(text, len, marker, strlen(marker));
    if (!m) return NULL;
    const char *s = m + strlen(marker), *end = text + len;
    const char *e = memmem(s, (size_t)(end - s), ")\";", 3);
    if (!e) return NULL;
    *n = (size_t)(e - s);
    return s;
}

/* The user's names for the inputs and outputs (pytree.h); silent when absent. */
static void scan_specs(wrapper_scan *ws, const char *text, size_t len)
{
    size_t n = 0, cnt = 0;
    const char **names;
    strbuf err = STRBUF_INIT;
    const char *in = raw_literal(text, len, "in_spec_ = R\"(", &n);
    if (in && pytree_leaf_names(&ws->arena, in, n, PYTREE_INPUTS, &names, &cnt, &err) == 0 && cnt == ws->ninputs)
        for (size_t i = 0; i < cnt; i++) ws->inputs[i].user_name = names[i];
    const char *out = raw_literal(text, len, "out_spec_ = R\"(", &n);
    if (out && pytree_leaf_names(&ws->arena, out, n, PYTREE_OUTPUTS, &names, &cnt, &err) == 0 &&
        cnt == ws->noutputs && cnt && names[0])
        ws->output_names = names;
    strbuf_release(&err);
}

int wrapper_scan_text(wrapper_scan *ws, const char *text, size_t len, strbuf *err)
{
    memset(ws, 0, sizeof *ws);
    ws->include_weights = -1;
    if (len > WS_MAX_BYTES) {
        strbuf_addf(err, "wrapper.cpp is %zu bytes, over the %u-byte limit", len, WS_MAX_BYTES);
        return -1;
    }
    /* A printer anywhere means call sites are not the kernel list. */
    int has_printer = memmem(text, len, "before_launch", 13) != NULL;
    scan_state st = {.cur_input = -1, .printer_seen = has_printer};
    char *l = xmalloc(LINE_MAX_COPY);
    size_t pos = 0;
    int line = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        line++;
        size_t c = n < LINE_MAX_COPY - 1 ? n : LINE_MAX_COPY - 1;
        memcpy(l, text + pos, c);
        l[c] = 0;
        if (c && l[c - 1] == '\r')
            l[c - 1] = 0;
        if (memchr(l, 0, c) == NULL)   /* NUL bytes: not C++ text; skip the line */
            scan_line(ws, &st, l, line);
        pos += n + (nl ? 1 : 0);
    }
    free(l);
    ws->nlines = (size_t)line;
    scan_specs(ws, text, len);
    launch_roles_scan(ws, text, len);
    if (has_printer)
        ws->kernels_source = "printer";
    else if (!ws->kernels_source)
        ws->kernels_source = "call-sites";
    return 0;
}

void wrapper_scan_free(wrapper_scan *ws)
{
    if (!ws)
        return;
    free(ws->inputs);
    free(ws->kernels);
    free(ws->unprinted);
    free(ws->cubins);
    free(ws->constants);
    arena_release(&ws->arena);
    memset(ws, 0, sizeof *ws);
}
