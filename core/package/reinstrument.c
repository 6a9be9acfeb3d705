/* reinstrument.c — rebuild an instrumented copy of a package's model .so.
 * See reinstrument.h for the approach and the error convention. */
#define _GNU_SOURCE 1   /* memmem */
#include "reinstrument.h"
#include "compat.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_IMPL_START "void AOTInductorModel::run_impl("
#define RUN_IMPL_END "} // AOTInductorModel::run_impl"
#define MAX_ARGS 4096
#define ALIGN_BYTES 64   /* torch/_inductor/codecache.py ALIGN_BYTES */
#define MMAP_ALIGN 16384 /* model_base.h: weights_offset aligned to 16K */

/* ---------- small text helpers ---------- */

static int is_ident(int c) { return isalnum((unsigned char)c) || c == '_'; }

/* Splits the top-level, comma-separated arguments of the call whose '(' is
 * at open; fills starts/lens (at most max). Returns the count, or -1 when
 * the parentheses never close inside [open, end). String and char literals
 * are skipped so a ',' or ')' inside them does not count. */
static int split_args(const char *open, const char *end, const char **starts, size_t *lens, int max)
{
    int depth = 0, n = 0;
    const char *p = open, *arg = open + 1;
    for (; p < end; p++) {
        char c = *p;
        if (c == '"' || c == '\'') {
            for (p++; p < end && *p != c; p++)
                if (*p == '\\' && p + 1 < end) p++;
            if (p >= end) return -1;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                const char *a = arg, *b = p;
                while (a < b && isspace((unsigned char)*a)) a++;
                while (b > a && isspace((unsigned char)b[-1])) b--;
                if (b > a && n < max) { starts[n] = a; lens[n] = (size_t)(b - a); n++; }
                return n;
            }
        } else if (c == ',' && depth == 1) {
            const char *a = arg, *b = p;
            while (a < b && isspace((unsigned char)*a)) a++;
            while (b > a && isspace((unsigned char)b[-1])) b--;
            if (n < max) { starts[n] = a; lens[n] = (size_t)(b - a); n++; }
            arg = p + 1;
        }
    }
    return -1;
}

/* 1 when s[0..n) is one C identifier. */
static int plain_ident(const char *s, size_t n)
{
    if (n == 0 || isdigit((unsigned char)s[0])) return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_ident(s[i])) return 0;
    return 1;
}

/* The printer keeps, for cpp and extern kernels, only arguments named
 * buf* / arg* (debug_utils.py set_printer_args); inside a subgraph the same
 * buffers carry its prefix: true_graph_0_buf0, while_loop_body_graph_0_arg1_1. */
static int printer_name(const char *s, size_t n)
{
    for (size_t i = 0; i + 7 < n; i++) {   /* skip "<...>_graph_<N>_" prefixes */
        if (!skip_prefix_mem(s + i, n - i, "_graph_", NULL, NULL)) continue;
        size_t j = i + 7;
        while (j < n && isdigit((unsigned char)s[j])) j++;
        if (j > i + 7 && j < n && s[j] == '_') { s += j + 1; n -= j + 1; i = (size_t)-1; }
    }
    return (n > 3 && (starts_with(s, "buf") || starts_with(s, "arg")));
}

typedef struct { const char *s; size_t n; } span;

/* ---------- Triton call wrappers: which parameters are tensors ---------- */

/* In AOT mode every call_triton_<k> is defined in the wrapper as
 *   static __attribute__((noinline)) void call_triton_<k>(
 *       const in_ptr0_type_& in_ptr0, ..., int64_t xnumel, int32_t device_idx_, ...
 * and tensor parameters are exactly the templated `<name>_type_&` ones
 * (cpp_wrapper_gpu.py _get_cpp_param_type). Fills is_tensor[i]; returns the
 * parameter count, or -1 when the definition is not in the file. */
static int triton_tensor_params(const char *src, size_t len, const char *fn, size_t fnlen,
                                unsigned char *is_tensor, int max)
{
    const char *end = src + len;
    char pat[512];
    if (fnlen + 40 > sizeof pat) return -1;
    snprintf(pat, sizeof pat, "void %.*s(", (int)fnlen, fn);
    const char *d = memmem(src, len, pat, strlen(pat));
    if (!d) return -1;
    const char *open = d + strlen(pat) - 1;
    const char *st[MAX_ARGS]; size_t ln[MAX_ARGS];
    int n = split_args(open, end, st, ln, max < MAX_ARGS ? max : MAX_ARGS);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        span a = {st[i], ln[i]};
        int tensor = 0;
        const char *q = memmem(a.s, a.n, "_type_&", 7);
        if (q && !(a.n >= 13 && memmem(a.s, a.n, "kernels_type_", 13))) tensor = 1;
        is_tensor[i] = (unsigned char)tensor;
    }
    return n;
}

/* ---------- the instrumentation pass ---------- */

typedef enum { L_NONE = 0, L_CPP, L_EXTERN, L_TRITON, L_PROXY } launch_kind;

/* Classifies the statement that starts at p (first non-blank of a line).
 * Sets name/open (the '(' of the launch call). */
static launch_kind classify(const char *p, const char *end, span *name, const char **open)
{
    const char *q = p;
    launch_kind k = L_NONE;
    if (starts_with(p, "AOTI_TORCH_ERROR_CODE_CHECK(")) {
        q = p + strlen("AOTI_TORCH_ERROR_CODE_CHECK(");
        while (q < end && *q == ' ') q++;
        /* Extern fallback ops are device shims aoti_torch_<dev>_<op>; allocation
         * and view helpers (aoti_torch_empty_strided, aoti_torch__reinterpret_tensor)
         * carry no device and are not launches. */
        static const char *devs[] = {"aoti_torch_cpu_", "aoti_torch_cuda_", "aoti_torch_xpu_",
                                     "aoti_torch_mps_", NULL};
        for (int i = 0; devs[i]; i++)
            if (starts_with(q, devs[i])) k = L_EXTERN;
        if (starts_with(q, "aoti_torch_proxy_executor_call_function(")) k = L_PROXY;
        if (!k) return L_NONE;
    } else if (starts_with(p, "cpp_")) {
        k = L_CPP;
    } else if (starts_with(p, "call_triton_")) {
        k = L_TRITON;
    } else {
        return L_NONE;
    }
    const char *e = q;
    while (e < end && is_ident(*e)) e++;
    if (e >= end || *e != '(') return L_NONE;
    name->s = q; name->n = (size_t)(e - q);
    *open = e;
    return k;
}

static void emit_hook(strbuf *out, const char *indent, size_t indent_len, span arg,
                      const char *phase, const char *branch, span kernel)
{
    span nm = arg;   /* an output handle `buf6_handle` is the tensor buf6 */
    if (nm.n > 7 && !memcmp(nm.s + nm.n - 7, "_handle", 7)) nm.n -= 7;
    strbuf_add(out, indent, indent_len);
    strbuf_addf(out, "aoti_torch_save_tensor_handle(%.*s, \"%.*s\", \"%s%s%s\", \"%.*s\");\n",
                (int)arg.n, arg.s, (int)nm.n, nm.s, phase, *branch ? ":" : "", branch, (int)kernel.n, kernel.s);
}

/* An extern call's tensor argument: a plain buffer `buf4`, a view of one
 * (`wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, ...))`:
 * its base buffer, whose storage the view reads or writes), or an output
 * handle the call creates (`&buf6_handle`: after the call only, *out_only).
 * 0 when the argument is none of these. */
static int extern_tensor(span a, span *id, int *out_only)
{
    static const char *const wraps[] = {"wrap_with_raii_handle_if_needed(", "reinterpret_tensor_wrapper(",
                                        "RAIIAtenTensorHandle(", NULL};
    *out_only = 0;
    while (a.n && (*a.s == ' ')) { a.s++; a.n--; }
    if (a.n && *a.s == '&') { a.s++; a.n--; *out_only = 1; }
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; wraps[i]; i++) {
            size_t wl = strlen(wraps[i]);
            if (a.n > wl && skip_prefix_mem(a.s, a.n, wraps[i], NULL, NULL)) { a.s += wl; a.n -= wl; again = 1; }
        }
    }
    size_t k = 0;
    while (k < a.n && is_ident(a.s[k])) k++;
    span b = {a.s, k};
    if (!k || (k < a.n && !*out_only && a.s[k] != ',' && a.s[k] != ')' && a.s[k] != ' ')) return 0;
    if (*out_only && !(k > 7 && !memcmp(b.s + k - 7, "_handle", 7) && k == a.n)) return 0;
    if (!printer_name(b.s, *out_only ? k - 7 : k)) return 0;
    *id = b;
    return 1;
}

/* ---------- where a line sits: subgraphs and the printer's own hooks ---------- */

#define MAX_NEST 32

/* Subgraphs are emitted inline in run_impl, each opened by a comment
 *     // subgraph: true_graph_0
 * inside the block of its if / else / while (a while_loop's cond and body
 * graphs share one block, one after the other). A subgraph lasts until the
 * block it was opened in closes. */
typedef struct {
    int depth;                       /* brace depth at the current point */
    int n;
    struct { int depth; char name[128]; } sg[MAX_NEST];
    char branch[MAX_NEST * 130];     /* "outer/inner", "" in the main graph */
    char printed[512];               /* kernel named by the printer's last before_launch, "" none */
} where;

static void where_branch(where *w)
{
    w->branch[0] = 0;
    for (int i = 0; i < w->n; i++) {
        size_t l = strlen(w->branch);
        snprintf(w->branch + l, sizeof w->branch - l, "%s%s", i ? "/" : "", w->sg[i].name);
    }
}

/* Braces of a chunk of code (string and char literals and // comments skipped). */
static void where_code(where *w, const char *p, const char *end)
{
    for (; p < end; p++) {
        char c = *p;
        if (c == '"' || c == '\'') {
            for (p++; p < end && *p != c; p++)
                if (*p == '\\' && p + 1 < end) p++;
            continue;
        }
        if (c == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        if (c == '{') w->depth++;
        else if (c == '}') {
            w->depth--;
            int popped = 0;
            while (w->n && w->sg[w->n - 1].depth > w->depth) { w->n--; popped = 1; }
            if (popped) where_branch(w);
        }
    }
}

/* A line that is only a comment or a printer call (t: first non-blank). */
static void where_line(where *w, const char *t, const char *eol)
{
    if (starts_with(t, "// subgraph: ")) {
        const char *nm = t + 13, *e = nm;
        while (e < eol && is_ident(*e)) e++;
        if (e == nm) return;
        if (w->n && w->sg[w->n - 1].depth == w->depth) w->n--;   /* while_loop: cond, then body */
        if (w->n < MAX_NEST) {
            w->sg[w->n].depth = w->depth;
            snprintf(w->sg[w->n].name, sizeof w->sg[w->n].name, "%.*s", (int)(e - nm), nm);
            w->n++;
        }
        where_branch(w);
        return;
    }
    /* the printer's before-launch call, at any level:
     *   aoti_torch_save_tensor_handle(buf0, "buf0", "before_launch", "<k>");
     *   aoti_torch_print_tensor_handle(buf0, "before_launch - <k> - buf0");
     *   printf("[ before_launch: <k> ]\n");                                   */
    const char *b = memmem(t, (size_t)(eol - t), "before_launch", 13);
    if (!b) return;
    const char *k = NULL, *ke = NULL;
    if (b[13] == '"' && b[14] == ',') {
        k = memchr(b + 15, '"', (size_t)(eol - b - 15));
        if (k) { k++; ke = memchr(k, '"', (size_t)(eol - k)); }
    } else if (skip_prefix(b + 13, " - ", &k)) {
        ke = memmem(k, (size_t)(eol - k), " - ", 3);
    } else if (skip_prefix(b + 13, ": ", &k)) {
        ke = memmem(k, (size_t)(eol - k), " ]", 2);
    }
    if (k && ke && ke > k && (size_t)(ke - k) < sizeof w->printed)
        snprintf(w->printed, sizeof w->printed, "%.*s", (int)(ke - k), k);
}

/* The n-th op of the proxy executor's node list, or a stand-in name. */
static span proxy_name(const reinstrument_opts *o, const char *open, const char *lim, char *buf, size_t bufsz)
{
    /* aoti_torch_proxy_executor_call_function(proxy_executor, <index>, ... */
    const char *c = memchr(open, ',', (size_t)(lim - open));
    long idx = -1;
    if (c) {
        char *e;
        idx = strtol(c + 1, &e, 10);
        if (e == c + 1) idx = -1;
    }
    if (o && o->proxy_ops && idx >= 0 && (size_t)idx < o->nproxy_ops && o->proxy_ops[idx] && *o->proxy_ops[idx])
        snprintf(buf, bufsz, "%s", o->proxy_ops[idx]);
    else
        snprintf(buf, bufsz, "proxy_executor_call_%ld", idx);
    span sp = {buf, strlen(buf)};
    return sp;
}

/* The tensor arguments of a proxy call: the std::array<AtenTensorHandle, N>{a, b}. */
static int proxy_tensors(const char *open, const char *lim, span *args, int max)
{
    const char *a = memmem(open, (size_t)(lim - open), "std::array<AtenTensorHandle", 27);
    const char *br = a ? memchr(a, '{', (size_t)(lim - a)) : NULL;
    if (!br) return 0;
    const char *st[MAX_ARGS]; size_t ln[MAX_ARGS];
    int n = split_args(br, lim, st, ln, max < MAX_ARGS ? max : MAX_ARGS);
    int na = 0;
    for (int i = 0; i < n; i++)
        if (plain_ident(st[i], ln[i])) { args[na].s = st[i]; args[na].n = ln[i]; na++; }
    return na;
}

int reinstrument_find_cmd(const char *src, size_t len, const char *which, strbuf *cmd, strbuf *err)
{
    char pat[64];
    snprintf(pat, sizeof pat, "// %s\n// ", which);
    const char *hit = NULL, *p = src, *end = src + len;
    size_t pl = strlen(pat);
    while (p < end) {   /* the last occurrence: the trailer AOTI appended */
        const char *h = memmem(p, (size_t)(end - p), pat, pl);
        if (!h) break;
        hit = h; p = h + 1;
    }
    if (!hit) {
        strbuf_addf(err, "no \"// %s\" trailer: this source was not written by AOTInductor's "
                    "package compiler (torch >= 2.6 appends it)", which);
        return -1;
    }
    const char *s = hit + pl, *e = memchr(s, '\n', (size_t)(end - s));
    if (!e) e = end;
    if ((size_t)(e - s) > REINSTRUMENT_MAX_CMD) {
        strbuf_addf(err, "the %s line is %zu bytes (cap %u)", which, (size_t)(e - s), REINSTRUMENT_MAX_CMD);
        return -1;
    }
    strbuf_reset(cmd);
    strbuf_add(cmd, s, (size_t)(e - s));
    return 0;
}

void reinstrument_hidden_why(const reinstrument_stats *st, strbuf *out)
{
    strbuf_addf(out, "%zu inside torch.cond/while_loop subgraphs, %zu proxy-executor calls, %zu main-graph "
                "calls whose arguments the printer does not print (views, output handles)", st->subgraph, st->proxy,
                st->main_graph);
}

int reinstrument_source(const char *src, size_t len, const reinstrument_opts *o, strbuf *out,
                        reinstrument_stats *st, strbuf *err)
{
    reinstrument_stats local = {0};
    const char *end = src + len;
    const char *ri = memmem(src, len, RUN_IMPL_START, strlen(RUN_IMPL_START));
    if (!ri) {
        strbuf_addstr(err, "wrapper.cpp has no \"" RUN_IMPL_START "\": not an AOTI wrapper "
                      "this version of aotidbg understands");
        return -1;
    }
    const char *re = memmem(ri, (size_t)(end - ri), RUN_IMPL_END, strlen(RUN_IMPL_END));
    if (!re) {
        strbuf_addstr(err, "wrapper.cpp: run_impl has no closing \"" RUN_IMPL_END "\" (truncated file?)");
        return -1;
    }
    strbuf scratch = STRBUF_INIT;
    if (!out) out = &scratch;   /* counting only: the text is built and dropped */
    strbuf_grow(out, len + len / 4);
    strbuf_add(out, src, (size_t)(ri - src));
    where w;
    memset(&w, 0, sizeof w);
    const char *p = ri;
    while (p < re) {
        const char *eol = memchr(p, '\n', (size_t)(re - p));
        const char *line_end = eol ? eol + 1 : re;
        const char *q = p;
        while (q < line_end && (*q == ' ' || *q == '\t')) q++;
        span name; const char *open = NULL;
        launch_kind k = classify(q, re, &name, &open);
        if (!k) {
            where_line(&w, q, line_end);
            where_code(&w, q, line_end);
            strbuf_add(out, p, (size_t)(line_end - p));
            p = line_end;
            continue;
        }
        /* The statement may span lines: it ends at the ';' after the call closes. */
        const char *st_[MAX_ARGS]; size_t ln_[MAX_ARGS];
        const char *lim = re - open > REINSTRUMENT_MAX_STATEMENT ? open + REINSTRUMENT_MAX_STATEMENT : re;
        int n = split_args(open, lim, st_, ln_, MAX_ARGS);
        if (n < 0) {
            size_t lineno = 1;
            for (const char *c = src; c < p; c++) lineno += *c == '\n';
            strbuf_addf(err, "wrapper.cpp:%zu: the call to %.*s never closes (or is over %u bytes)",
                        lineno, (int)name.n, name.s, REINSTRUMENT_MAX_STATEMENT);
            strbuf_release(&scratch);
            return -1;
        }
        const char *close = open;
        /* find the statement's ';' after the matching ')' */
        {
            int depth = 0;
            const char *c = open;
            for (; c < lim; c++) {
                if (*c == '"' || *c == '\'') { char qc = *c; for (c++; c < lim && *c != qc; c++) if (*c == '\\') c++; continue; }
                if (*c == '(') depth++;
                else if (*c == ')' && --depth == 0) break;
            }
            close = c;
        }
        const char *semi = close;
        while (semi < lim && *semi != ';') semi++;
        const char *stmt_end = memchr(semi, '\n', (size_t)(re - semi));
        stmt_end = stmt_end ? stmt_end + 1 : re;

        char pname[256];
        span kernel = name;
        if (k == L_TRITON) { kernel.s += 5; kernel.n -= 5; }   /* printer names drop "call_" */
        if (k == L_PROXY) kernel = proxy_name(o, open, close, pname, sizeof pname);
        /* the printer's before-hooks just before it: the printer covers it (under a name of its own at
         * times: at::_ops::<op>::call for aoti_torch_cpu_<op>); leave it alone */
        int printed = w.printed[0] != 0;
        char printed_as[sizeof w.printed];   /* the printer's name for it (at::_ops::<op>::call at times) */
        memcpy(printed_as, w.printed, sizeof printed_as);
        w.printed[0] = 0;
        where_code(&w, q, stmt_end);
        if (o && o->each_launch) o->each_launch(kernel.s, kernel.n, w.branch, printed, o->ctx);
        if (printed) {
            local.printer++;
            strbuf_add(out, p, (size_t)(stmt_end - p));
            /* the printer saves an extern call's arguments, never the output handles the call makes */
            int made = 0;
            for (int i = 0; k == L_EXTERN && i < n; i++) {
                span a = {st_[i], ln_[i]}, id;
                int out_only;
                if (extern_tensor(a, &id, &out_only) && out_only) {
                    span as = {printed_as, strlen(printed_as)};
                    emit_hook(out, p, (size_t)(q - p), id, "after_launch", w.branch, as);
                    local.hooks++;
                    made++;
                }
            }
            /* nor the constants a C++ kernel writes (a key/value cache updated in place) */
            for (int i = 0; k == L_CPP && i < n; i++) {
                span a = {st_[i], ln_[i]};
                const char *dp = memmem(a.s, a.n, ".data_ptr()", 11), *b = dp;
                while (b && b > a.s && is_ident(b[-1])) b--;
                span id = {b, dp ? (size_t)(dp - b) : 0};
                if (dp && id.n && !memmem(a.s, a.n, "const ", 6) && !printer_name(id.s, id.n)) {
                    span as = {printed_as, strlen(printed_as)};
                    emit_hook(out, p, (size_t)(q - p), id, "after_launch", w.branch, as);
                    local.hooks++;
                    made++;
                }
            }
            local.outputs += made > 0;
            p = stmt_end;
            continue;
        }
        span args[MAX_ARGS]; int na = 0;
        unsigned char after_only[MAX_ARGS] = {0};
        unsigned char tensor_param[MAX_ARGS];
        int np = k == L_TRITON ? triton_tensor_params(src, len, name.s, name.n, tensor_param, MAX_ARGS) : -1;
        if (k == L_PROXY) na = proxy_tensors(open, close, args, MAX_ARGS);
        for (int i = 0; k != L_PROXY && i < n; i++) {
            span a = {st_[i], ln_[i]};
            if (k == L_CPP) {
                /* (float*)(buf2.data_ptr()) -> buf2 */
                const char *dp = memmem(a.s, a.n, ".data_ptr()", 11);
                if (!dp) continue;
                const char *b = dp;
                while (b > a.s && is_ident(b[-1])) b--;
                span id = {b, (size_t)(dp - b)};
                if (printer_name(id.s, id.n)) args[na++] = id;
            } else if (k == L_EXTERN) {
                span id; int out_only;
                if (!extern_tensor(a, &id, &out_only)) continue;
                int dup = 0;   /* q, k and v: three views of one buffer are one tensor */
                for (int j = 0; j < na; j++) dup |= args[j].n == id.n && !memcmp(args[j].s, id.s, id.n);
                if (!dup) { after_only[na] = (unsigned char)out_only; args[na++] = id; }
            } else {
                int tensor = np >= 0 ? (i < np && tensor_param[i]) : printer_name(a.s, a.n);
                if (tensor && plain_ident(a.s, a.n)) args[na++] = a;
            }
        }
        size_t indent_len = (size_t)(q - p);
        for (int i = 0; i < na; i++)
            if (!after_only[i]) emit_hook(out, p, indent_len, args[i], "before_launch", w.branch, kernel);
        strbuf_add(out, p, (size_t)(stmt_end - p));
        for (int i = 0; i < na; i++) emit_hook(out, p, indent_len, args[i], "after_launch", w.branch, kernel);
        local.launches++;
        for (int i = 0; i < na; i++) local.hooks += after_only[i] ? 1 : 2;
        if (w.n) local.subgraph++;
        else if (k != L_PROXY) local.main_graph++;
        if (k == L_CPP) local.cpp++;
        else if (k == L_EXTERN) local.extern_ops++;
        else if (k == L_PROXY) local.proxy++;
        else local.triton++;
        p = stmt_end;
    }
    strbuf_add(out, re, (size_t)(end - re));
    strbuf_release(&scratch);
    if (st) *st = local;
    return 0;
}

/* ---------- constants blob ---------- */

/* A small ELF64 reader on <elf.h> (glibc), not libelf: the GPU boxes that
 * build the runner alone lack libelf. Every offset and size is checked
 * against the file before it is read. */
#define ELF_MAX_TABLE (256U << 20)

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Reads [off, off+n) of a file of size fsize into a malloc'd buffer (+1 NUL). */
static char *read_range(int fd, uint64_t fsize, uint64_t off, uint64_t n)
{
    if (n > ELF_MAX_TABLE || off > fsize || n > fsize - off) return NULL;
    char *b = xmalloc((size_t)n + 1);
    if (!b) return NULL;
    if (pread_all(fd, b, (size_t)n, off)) { free(b); return NULL; }
    b[n] = 0;
    return b;
}

int reinstrument_read_consts(const char *so_path, strbuf *blob, const char **section,
                             size_t *mmap_tail, strbuf *err)
{
    int rc = -1;
    Elf64_Shdr *sh = NULL;
    char *shstr = NULL;
    *mmap_tail = 0;
    *section = ".lrodata";
    int fd = open(so_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { strbuf_addf(err, "%s: %s", so_path, strerror(errno)); return -1; }
    struct stat sb;
    Elf64_Ehdr eh;
    if (fstat(fd, &sb) != 0 || pread_all(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        strbuf_addf(err, "%s: not an ELF file this machine can read (64-bit little-endian expected)", so_path);
        goto out;
    }
    uint64_t fsize = (uint64_t)sb.st_size;
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum) {
        strbuf_addf(err, "%s: malformed ELF section table", so_path);
        goto out;
    }
    sh = (Elf64_Shdr *)read_range(fd, fsize, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr));
    if (!sh) { strbuf_addf(err, "%s: ELF section table runs past the end of the file", so_path); goto out; }
    uint64_t start = 0, stop = 0;
    int have_start = 0, have_stop = 0;
    /* .dynsym first (survives strip), then .symtab */
    for (int pass = 0; pass < 2 && !(have_start && have_stop); pass++) {
        for (unsigned i = 0; i < eh.e_shnum && !(have_start && have_stop); i++) {
            if (sh[i].sh_type != (pass == 0 ? SHT_DYNSYM : SHT_SYMTAB)) continue;
            if (sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh.e_shnum) continue;
            Elf64_Sym *sym = (Elf64_Sym *)read_range(fd, fsize, sh[i].sh_offset, sh[i].sh_size);
            const Elf64_Shdr *ss = &sh[sh[i].sh_link];
            char *str = read_range(fd, fsize, ss->sh_offset, ss->sh_size);
            if (sym && str) {
                size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
                for (size_t k = 0; k < nsym; k++) {
                    if (sym[k].st_name >= ss->sh_size) continue;
                    const char *nm = str + sym[k].st_name;   /* NUL-bounded: read_range adds one */
                    if (!strcmp(nm, "_binary_constants_bin_start")) { start = sym[k].st_value; have_start = 1; }
                    else if (!strcmp(nm, "_binary_constants_bin_end")) { stop = sym[k].st_value; have_stop = 1; }
                }
            }
            free(sym);
            free(str);
        }
    }
    if (!have_start || !have_stop || stop < start) {
        strbuf_addf(err, "%s: no _binary_constants_bin_start/_end symbols: cannot recover the "
                    "model's weights (not an AOTI model .so, or one built with external weights)", so_path);
        goto out;
    }
    const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
    shstr = read_range(fd, fsize, ns->sh_offset, ns->sh_size);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        const Elf64_Shdr *h = &sh[i];
        if (!(h->sh_flags & SHF_ALLOC)) continue;
        if (start < h->sh_addr || start > h->sh_addr + h->sh_size || stop > h->sh_addr + h->sh_size) continue;
        if (start == h->sh_addr + h->sh_size && stop != start) continue;
        const char *nm = shstr && h->sh_name < ns->sh_size ? shstr + h->sh_name : "";
        if (start == stop && strcmp(nm, ".lrodata") && strcmp(nm, ".ldata")) continue;
        *section = !strcmp(nm, ".ldata") ? ".ldata" : ".lrodata";
        size_t n = (size_t)(stop - start);
        strbuf_grow(blob, n);
        if (h->sh_type == SHT_NOBITS) {
            memset(blob->buf + blob->len, 0, n);
        } else {
            uint64_t off = h->sh_offset + (start - h->sh_addr);
            if (off > fsize || n > fsize - off || pread_all(fd, blob->buf + blob->len, n, off)) {
                strbuf_addf(err, "%s: the constants run past the end of the file (truncated .so?)", so_path);
                goto out;
            }
        }
        strbuf_setlen(blob, blob->len + n);
        rc = 0;
        break;
    }
    if (rc != 0) {
        strbuf_addf(err, "%s: the constants symbols are in no section of the file", so_path);
        goto out;
    }
    if (blob->len == 16) {
        /* mmap'd weights: the blob is {u64 size incl. magic, u64 magic} and
         * the weights + magic sit at the end of the .so file (codecache.py). */
        uint64_t wsize, magic, tailmagic;
        memcpy(&wsize, blob->buf, 8);
        memcpy(&magic, blob->buf + 8, 8);
        if (wsize >= 8 && wsize < fsize && pread_all(fd, &tailmagic, 8, fsize - 8) == 0 && tailmagic == magic)
            *mmap_tail = (size_t)wsize;
    }
out:
    free(sh);
    free(shstr);
    close(fd);
    return rc;
}

/* ---------- files and processes ---------- */

static int write_file(const char *path, const char *data, size_t n, strbuf *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) { strbuf_addf(err, "%s: %s", path, strerror(errno)); return -1; }
    if (n && fwrite(data, 1, n, f) != n) { fclose(f); strbuf_addf(err, "%s: write failed", path); return -1; }
    if (fclose(f) != 0) { strbuf_addf(err, "%s: %s", path, strerror(errno)); return -1; }
    return 0;
}

static int mkdir_p(const char *path, strbuf *err)
{
    char tmp[PATH_MAX];
    if (strlen(path) >= sizeof tmp) { strbuf_addf(err, "path too long: %s", path); return -1; }
    strcpy(tmp, path);
    for (char *s = tmp + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) { strbuf_addf(err, "mkdir %s: %s", tmp, strerror(errno)); return -1; }
        *s = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) { strbuf_addf(err, "mkdir %s: %s", tmp, strerror(errno)); return -1; }
    return 0;
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat sb;
            if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) rm_rf(sub);
            else unlink(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static char *reinstrument_cache_root(strbuf *err)
{
    strbuf sb = STRBUF_INIT;
    const char *v = getenv("AOTIDBG_CACHE_DIR");
    if (v && *v == '/') { strbuf_addstr(&sb, v); return strbuf_detach(&sb, NULL); }
    v = getenv("XDG_CACHE_HOME");
    if (v && *v == '/') { strbuf_addf(&sb, "%s/aotidbg/reinstrument", v); return strbuf_detach(&sb, NULL); }
    v = getenv("HOME");
    if (v && *v == '/') { strbuf_addf(&sb, "%s/.cache/aotidbg/reinstrument", v); return strbuf_detach(&sb, NULL); }
    strbuf_addstr(err, "no cache folder: set AOTIDBG_CACHE_DIR, XDG_CACHE_HOME or HOME to an absolute path");
    return NULL;
}

/* The program exists on PATH (or is an executable absolute path). */
static int find_program(const char *prog, char *out, size_t outsz)
{
    if (strchr(prog, '/')) {
        if (access(prog, X_OK) != 0) return -1;
        snprintf(out, outsz, "%s", prog);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        if (n && n + strlen(prog) + 2 < outsz) {
            snprintf(out, outsz, "%.*s/%s", (int)n, path, prog);
            if (access(out, X_OK) == 0) return 0;
        }
        path += n + (c ? 1 : 0);
    }
    return -1;
}

/* 1 when root looks like a torch install with the AOTI headers. */
static int torch_ok(const char *root)
{
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/include/torch/csrc/inductor/aoti_runtime/model.h", root);
    return root[0] && access(probe, R_OK) == 0;
}

/* Local torch: $TORCH_DIR, else hint (the torch of this package's last
 * build; "" none), else the torch of python3, found without importing it
 * (an import takes seconds; a cache hit must not). Static storage. */
static const char *torch_root(const char *hint)
{
    static char root[PATH_MAX];
    static int done;
    if (done) return root[0] ? root : NULL;
    done = 1;
    const char *v = getenv("TORCH_DIR");
    if (v && *v) {
        snprintf(root, sizeof root, "%s", v);
    } else if (hint && torch_ok(hint)) {
        snprintf(root, sizeof root, "%s", hint);
    } else {
        FILE *p = popen("python3 -c 'import importlib.util as u; "
                        "print(u.find_spec(\"torch\").submodule_search_locations[0])' 2>/dev/null", "r");
        if (p) {
            if (!fgets(root, sizeof root, p)) root[0] = 0;
            pclose(p);
            root[strcspn(root, "\n")] = 0;
        }
    }
    if (!torch_ok(root)) root[0] = 0;
    return root[0] ? root : NULL;
}

const char *reinstrument_torch_root(void) { return torch_root(NULL); }

static void torch_version(const char *root, char *out, size_t outsz)
{
    snprintf(out, outsz, "unknown");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/version.py", root);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!starts_with(line, "__version__")) continue;
        char *a = strchr(line, '\''), *b = a ? strchr(a + 1, '\'') : NULL;
        if (a && b) snprintf(out, outsz, "%.*s", (int)(b - a - 1), a + 1);
        break;
    }
    fclose(f);
}

typedef struct { char *argv[MAX_ARGS + 1]; int argc; } cmdline;

static void cmd_free(cmdline *c)
{
    for (int i = 0; i < c->argc; i++) free(c->argv[i]);
    c->argc = 0;
}

static void cmd_push(cmdline *c, const char *s, size_t n)
{
    if (c->argc >= MAX_ARGS) return;
    char *a = xmalloc(n + 1);
    memcpy(a, s, n); a[n] = 0;
    c->argv[c->argc++] = a;
    c->argv[c->argc] = NULL;
}

static void cmd_text(const cmdline *c, strbuf *out)
{
    for (int i = 0; i < c->argc; i++) strbuf_addf(out, "%s%s", i ? " " : "", c->argv[i]);
}

/* Spawns argv with stdout+stderr to log; returns the pid or -1. */
static pid_t spawn(cmdline *c, const char *log, const char *cwd, strbuf *err)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) { strbuf_addf(err, "%s: %s", log, strerror(errno)); return -1; }
    pid_t pid = fork();
    if (pid < 0) { close(fd); strbuf_addf(err, "fork: %s", strerror(errno)); return -1; }
    if (pid == 0) {
        dup2(fd, 1); dup2(fd, 2);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        if (cwd && chdir(cwd) != 0) _exit(127);
        execv(c->argv[0], c->argv);
        dprintf(2, "cannot run %s: %s\n", c->argv[0], strerror(errno));
        _exit(127);
    }
    close(fd);
    return pid;
}

static void log_tail(const char *log, strbuf *err, size_t max_lines)
{
    strbuf sb = STRBUF_INIT, e2 = STRBUF_INIT;
    if (strbuf_read_file(&sb, log, 16U << 20, &e2) == 0 && sb.len) {
        size_t lines = 0; const char *s = sb.buf + sb.len;
        while (s > sb.buf && lines <= max_lines) { s--; if (*s == '\n') lines++; }
        if (*s == '\n') s++;
        strbuf_addf(err, "\n--- %s (tail) ---\n%s", log, s);
    }
    strbuf_release(&sb); strbuf_release(&e2);
}

static int wait_ok(pid_t pid, const char *what, const cmdline *c, const char *log,
                   const char *hint, strbuf *err)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) { strbuf_addf(err, "waitpid: %s", strerror(errno)); return -1; }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    strbuf_addf(err, "%s failed (%s %d): ", what, WIFEXITED(st) ? "exit" : "signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    cmd_text(c, err);
    if (hint && *hint) strbuf_addf(err, "\n%s", hint);
    log_tail(log, err, 20);
    return -1;
}

/* ---------- command rewriting ---------- */

typedef struct {
    const char *cache;          /* build folder */
    const char *wrapper_src;    /* our instrumented copy */
    const char *kernel_src;     /* the package's kernel.cpp; may be NULL */
    const char *torch;          /* local torch root */
    const char *compiler;       /* resolved absolute path (set by the first command) */
    char orig_torch[PATH_MAX];  /* torch include folder named by the command */
} rewrite_ctx;

static const char *allowed_compilers[] = {"g++", "c++", "gcc", "cc", "clang++", "clang", NULL};

static int compiler_allowed(const char *tok)
{
    const char *b = strrchr(tok, '/');
    b = b ? b + 1 : tok;
    for (int i = 0; allowed_compilers[i]; i++) {
        size_t n = strlen(allowed_compilers[i]);
        /* g++, g++-13, x86_64-linux-gnu-g++-13 */
        const char *h = strstr(b, allowed_compilers[i]);
        if (h && (h[n] == 0 || h[n] == '-') && (h == b || h[-1] == '-')) return 1;
    }
    return 0;
}

/* Rewrites one AOTI command (compile or link) into argv for this machine. */
static int rewrite_cmd(const char *cmd, rewrite_ctx *rc, cmdline *out, strbuf *err)
{
    const char *p = cmd;
    int first = 1;
    cmd_free(out);
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        size_t n = (size_t)(p - s);
        char tok[PATH_MAX * 2];
        if (n >= sizeof tok) { strbuf_addf(err, "command token over %zu bytes", sizeof tok); return -1; }
        memcpy(tok, s, n); tok[n] = 0;
        if (strchr(tok, '"') || strchr(tok, '\'') || strchr(tok, '`') || strchr(tok, '$')) {
            strbuf_addf(err, "refusing command token with quotes or shell syntax: %s", tok);
            return -1;
        }
        if (first) {
            first = 0;
            if (!compiler_allowed(tok)) {
                strbuf_addf(err, "refusing to run \"%s\": expected a C++ compiler (g++, clang++)", tok);
                return -1;
            }
            if (!rc->compiler) {
                static char resolved[PATH_MAX];
                const char *over = getenv("AOTIDBG_CXX");
                if (find_program(over && *over ? over : tok, resolved, sizeof resolved) != 0) {
                    strbuf_addf(err, "the package was compiled with \"%s\", which is not installed here: "
                                "install it (Debian: apt-get install g++) or set AOTIDBG_CXX to a compatible "
                                "C++ compiler", over && *over ? over : tok);
                    return -1;
                }
                rc->compiler = resolved;
            }
            cmd_push(out, rc->compiler, strlen(rc->compiler));
            continue;
        }
        /* flags that would run other programs or write other files */
        static const char *bad[] = {"-fplugin", "-wrapper", "-B", "-specs", "--specs", "-M", "@",
                                    "-save-temps", "-fdump", "-Wl,--plugin", "-Xlinker", NULL};
        for (int i = 0; bad[i]; i++)
            if (starts_with(tok, bad[i])) {
                strbuf_addf(err, "refusing command flag %s (it could run or write something else)", tok);
                return -1;
            }
        if (!strcmp(tok, "-include")) {
            /* AOTI's precompiled header: a speed-up only (the wrapper includes
             * what it needs itself). Kept when this machine has it (same cache,
             * gcc checks the .gch and falls back to the text), else dropped. */
            while (*p == ' ' || *p == '\t') p++;
            const char *h = p;
            while (*p && *p != ' ' && *p != '\t') p++;
            char hdr[PATH_MAX];
            size_t hn = (size_t)(p - h);
            if (hn && hn < sizeof hdr && h[0] == '/') {
                memcpy(hdr, h, hn); hdr[hn] = 0;
                char gch[PATH_MAX + 8];
                snprintf(gch, sizeof gch, "%s.gch", hdr);
                if (access(hdr, R_OK) == 0 && access(gch, R_OK) == 0 && !strchr(hdr, '"')) {
                    cmd_push(out, "-include", 8);
                    cmd_push(out, hdr, hn);
                }
            }
            continue;
        }
        if (starts_with(tok, "-I") || starts_with(tok, "-L")) {
            const char *dir = tok + 2;
            const char *t = strstr(dir, "/torch/include");
            const char *l = strstr(dir, "/torch/lib");
            char buf[PATH_MAX * 2];
            if (t) {
                if (!rc->orig_torch[0]) snprintf(rc->orig_torch, sizeof rc->orig_torch, "%.*s", (int)(t - dir + 6), dir);
                snprintf(buf, sizeof buf, "%.2s%s/include%s", tok, rc->torch, t + strlen("/torch/include"));
                cmd_push(out, buf, strlen(buf));
            } else if (l && (l[10] == 0 || l[10] == '/')) {
                snprintf(buf, sizeof buf, "%.2s%s/lib%s", tok, rc->torch, l + strlen("/torch/lib"));
                cmd_push(out, buf, strlen(buf));
            } else if (access(dir, R_OK) == 0) {
                cmd_push(out, tok, n);   /* e.g. the CUDA toolkit here */
            }   /* else: the build machine's Python include/lib: not needed in AOT mode */
            continue;
        }
        if (tok[0] == '/') {
            const char *b = strrchr(tok, '/') + 1;
            char buf[PATH_MAX * 2];
            if (ends_with(b, ".wrapper.cpp")) {
                cmd_push(out, rc->wrapper_src, strlen(rc->wrapper_src));
            } else if (ends_with(b, ".kernel.cpp")) {
                if (!rc->kernel_src) { strbuf_addf(err, "the command compiles %s, which the package does not carry", b); return -1; }
                cmd_push(out, rc->kernel_src, strlen(rc->kernel_src));
            } else if (ends_with(b, ".kernel.o") && !rc->kernel_src) {
                strbuf_addf(err, "the link command needs %s, but the package carries no *.kernel.cpp "
                            "to build it from (an incomplete package?)", b);
                return -1;
            } else if (ends_with(b, ".wrapper.o") || ends_with(b, ".kernel.o") || ends_with(b, ".weights.o") ||
                       ends_with(b, ".wrapper.so")) {
                snprintf(buf, sizeof buf, "%s/%s", rc->cache, b);
                cmd_push(out, buf, strlen(buf));
            } else if (ends_with(b, ".o") || ends_with(b, ".a") || ends_with(b, ".cubin") || ends_with(b, ".so")) {
                strbuf_addf(err, "the link command needs %s, which the package does not carry (kernels "
                            "embedded as objects, e.g. embed_kernel_binary or CUTLASS kernels): "
                            "re-instrumentation cannot rebuild this package; rebuild it from the exported "
                            "program with core/prepare/aotidbg_prepare.py --printer 1", tok);
                return -1;
            } else if (access(tok, R_OK) == 0) {
                cmd_push(out, tok, n);
            } else {
                strbuf_addf(err, "the command names %s, which does not exist here", tok);
                return -1;
            }
            continue;
        }
        cmd_push(out, tok, n);
    }
    if (first) { strbuf_addstr(err, "empty command"); return -1; }
    return 0;
}

/* ---------- the build ---------- */

static int is_hex_sha(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n])) return 0;
    return n >= 8 && n <= 128;
}

/* Finds the one file in dir ending with suffix; malloc'd path or NULL. */
static char *find_one(const char *dir, const char *suffix, int *count)
{
    DIR *d = opendir(dir);
    char *hit = NULL;
    *count = 0;
    if (!d) return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, suffix)) continue;
        (*count)++;
        if (!hit) {
            strbuf sb = STRBUF_INIT;
            strbuf_addf(&sb, "%s/%s", dir, e->d_name);
            hit = strbuf_detach(&sb, NULL);
        }
    }
    closedir(d);
    return hit;
}

static void progress(reinstrument_progress_fn fn, void *ctx, const char *stage, double f)
{
    if (fn) fn(stage, f, ctx);
}

/* The proxy executor's node list (<so stem>.json): node index -> its op. */
typedef struct { char **ops; size_t n; } proxy_ops;

static void read_proxy_ops(const char *so, proxy_ops *po)
{
    memset(po, 0, sizeof *po);
    strbuf path = STRBUF_INIT, text = STRBUF_INIT, e = STRBUF_INIT;
    strbuf_addf(&path, "%.*s.json", (int)(strlen(so) - 3), so);
    cJSON *j = NULL;
    if (access(path.buf, R_OK) == 0 && strbuf_read_file(&text, path.buf, REINSTRUMENT_MAX_SOURCE, &e) == 0)
        j = cJSON_ParseWithLength(text.buf, text.len);
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
    int n = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    if (n > 0 && n < 1000000) {
        po->ops = xcalloc((size_t)n, sizeof *po->ops);
        for (int i = 0; po->ops && i < n; i++) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "node"), "target");
            po->ops[i] = cJSON_IsString(t) ? xstrdup(t->valuestring) : NULL;
        }
        if (po->ops) po->n = (size_t)n;
    }
    cJSON_Delete(j);
    strbuf_release(&path); strbuf_release(&text); strbuf_release(&e);
}

static void proxy_ops_free(proxy_ops *po)
{
    for (size_t i = 0; i < po->n; i++) free(po->ops[i]);
    free(po->ops);
    memset(po, 0, sizeof *po);
}

static int append_mmap_tail(const char *orig_so, const char *new_so, size_t tail, strbuf *err)
{
    int rc = -1;
    int in = open(orig_so, O_RDONLY | O_CLOEXEC), out = open(new_so, O_WRONLY | O_APPEND | O_CLOEXEC);
    struct stat a, b;
    if (in < 0 || out < 0 || fstat(in, &a) || fstat(out, &b)) { strbuf_addf(err, "mmap weights: %s", strerror(errno)); goto done; }
    size_t pad = MMAP_ALIGN - (size_t)b.st_size % MMAP_ALIGN;   /* as codecache.py: always pads */
    char spaces[4096];
    memset(spaces, ' ', sizeof spaces);
    while (pad) { size_t k = pad < sizeof spaces ? pad : sizeof spaces; if (write(out, spaces, k) != (ssize_t)k) goto ioerr; pad -= k; }
    off_t off = a.st_size - (off_t)tail;
    char buf[1 << 16];
    while (off < a.st_size) {
        ssize_t r = pread(in, buf, sizeof buf, off);
        if (r <= 0 || write(out, buf, (size_t)r) != r) goto ioerr;
        off += r;
    }
    rc = 0;
    goto done;
ioerr:
    strbuf_addf(err, "mmap weights: copying %zu bytes from %s failed", tail, orig_so);
done:
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return rc;
}

/* One build's state, from the package's sources to the cached .so. */
typedef struct {
    const char *model_dir, *sha256;
    reinstrument_progress_fn pfn;
    void *pctx;
    char *wrapper, *kernel, *so, *root;   /* the package's sources and .so; the cache root */
    const char *troot, *so_base;
    char tver[64];
    strbuf src, inst, kcmd_s, wcmd_s, lcmd_s, ksrc, blob, path, stamp, e2, dir, tmpdir;
    cmdline wc, kc, lc, ac;               /* compile the wrapper, the kernels; link; assemble weights */
    reinstrument_stats st;
    rewrite_ctx rx;
} rebuild;

/* Step 1: the package's wrapper source, its .so and its kernel source (if any). */
static int find_sources(rebuild *b, strbuf *err)
{
    int count;
    if (!b->sha256 || !is_hex_sha(b->sha256)) {
        strbuf_addstr(err, "reinstrument: the package hash must be hex (the cache key)");
        return -1;
    }
    b->wrapper = find_one(b->model_dir, ".wrapper.cpp", &count);
    if (!b->wrapper || count != 1) {
        strbuf_addf(err, "%s: %s *.wrapper.cpp: re-instrumentation needs the wrapper source the package carries",
                    b->model_dir, count ? "more than one" : "no");
        return -1;
    }
    b->so = find_one(b->model_dir, ".wrapper.so", &count);
    if (!b->so || count != 1) {
        strbuf_addf(err, "%s: %s *.wrapper.so", b->model_dir, count ? "more than one" : "no");
        return -1;
    }
    b->kernel = find_one(b->model_dir, ".kernel.cpp", &count);
    if (count > 1) {
        strbuf_addf(err, "%s: more than one *.kernel.cpp", b->model_dir);
        return -1;
    }
    return 0;
}

/* Step 2: the torch to build against and the stamp naming it. Returns 1 on a cache hit (the
 * stamp matches and the .so is there: *out_so_path set), 0 to build, -1 on error. */
static int find_torch(rebuild *b, char **out_so_path, strbuf *err)
{
    b->root = reinstrument_cache_root(err);
    if (!b->root) return -1;
    strbuf_addf(&b->dir, "%s/%s", b->root, b->sha256);
    /* The torch of the last build of this package is the first candidate: a
     * cache hit then needs no python3 start (which alone can take a second). */
    char torch_hint[PATH_MAX] = "";
    strbuf old = STRBUF_INIT;
    strbuf_addf(&b->path, "%s/stamp", b->dir.buf);
    int had = strbuf_read_file(&old, b->path.buf, 1 << 16, &b->e2) == 0;
    const char *t = had ? strstr(old.buf, "\ntorch_dir ") : NULL;
    if (t) snprintf(torch_hint, sizeof torch_hint, "%.*s", (int)strcspn(t + 11, "\n"), t + 11);
    b->troot = torch_root(torch_hint);
    if (!b->troot) {
        strbuf_release(&old);
        strbuf_addstr(err, "torch headers not found here: re-instrumentation compiles the package's wrapper "
                      "against torch's C++ headers (include/torch/csrc/inductor/aoti_runtime/model.h). "
                      "Install the torch the package was built with for python3, or set TORCH_DIR to a "
                      "torch install holding include/ and lib/");
        return -1;
    }
    torch_version(b->troot, b->tver, sizeof b->tver);
    b->so_base = strrchr(b->so, '/') + 1;
    strbuf_addf(&b->stamp, "aotidbg-reinstrument %d\ntorch %s\ntorch_dir %s\n", REINSTRUMENT_VERSION, b->tver,
                b->troot);
    int ok = had && !strcmp(old.buf, b->stamp.buf);
    strbuf_release(&old);
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/%s", b->dir.buf, b->so_base);
    if (ok && access(b->path.buf, R_OK) == 0) {
        progress(b->pfn, b->pctx, "cached", 1.0);
        *out_so_path = strbuf_detach(&b->path, NULL);
        return 1;
    }
    return 0;
}

/* Step 3: the instrumented wrapper source in the build folder, and the package's compile and
 * link commands rewritten for it. */
static int instrument(rebuild *b, strbuf *err)
{
    progress(b->pfn, b->pctx, "instrument", 0.0);
    if (strbuf_read_file(&b->src, b->wrapper, REINSTRUMENT_MAX_SOURCE, err)) return -1;
    proxy_ops pops;
    read_proxy_ops(b->so, &pops);
    reinstrument_opts ro = {(const char *const *)pops.ops, pops.n};
    int bad_src = reinstrument_source(b->src.buf, b->src.len, &ro, &b->inst, &b->st, err);
    proxy_ops_free(&pops);
    if (bad_src) { strbuf_addf(err, " (%s)", b->wrapper); return -1; }
    if (b->st.launches == 0 && b->st.outputs == 0) {
        if (b->st.printer)
            strbuf_addf(err, "%s: the printer already hooks every kernel launch (%zu): nothing to add; run the "
                        "package as it is", b->wrapper, b->st.printer);
        else
            strbuf_addf(err, "%s: found no kernel launch in run_impl (cpp_*, call_triton_*, aoti_torch_<device>_*, "
                        "proxy-executor calls): nothing to instrument", b->wrapper);
        return -1;
    }
    if (reinstrument_find_cmd(b->src.buf, b->src.len, "Compile cmd", &b->wcmd_s, err) ||
        reinstrument_find_cmd(b->src.buf, b->src.len, "Link cmd", &b->lcmd_s, err)) {
        strbuf_addf(err, " (%s)", b->wrapper);
        return -1;
    }
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/%s", b->tmpdir.buf, strrchr(b->wrapper, '/') + 1);
    char *wsrc = strbuf_detach(&b->path, NULL);
    int wfail = write_file(wsrc, b->inst.buf, b->inst.len, err);
    if (b->kernel && (strbuf_read_file(&b->ksrc, b->kernel, REINSTRUMENT_MAX_SOURCE, err) ||
                      reinstrument_find_cmd(b->ksrc.buf, b->ksrc.len, "Compile cmd", &b->kcmd_s, err))) {
        strbuf_addf(err, " (%s)", b->kernel);
        free(wsrc);
        return -1;
    }
    b->rx = (rewrite_ctx){.cache = b->tmpdir.buf, .wrapper_src = wsrc, .kernel_src = b->kernel, .torch = b->troot};
    int bad = wfail || rewrite_cmd(b->wcmd_s.buf, &b->rx, &b->wc, err) ||
              (b->kernel && rewrite_cmd(b->kcmd_s.buf, &b->rx, &b->kc, err)) ||
              rewrite_cmd(b->lcmd_s.buf, &b->rx, &b->lc, err);
    if (bad) strbuf_addf(err, " (%s)", b->wrapper);
    free(wsrc);
    b->rx.wrapper_src = NULL;
    return bad ? -1 : 0;
}

/* Step 4: the weights, the blob from the shipped .so, assembled back into the object the link
 * command names. */
static int weights_object(rebuild *b, size_t *mmap_tail, strbuf *err)
{
    progress(b->pfn, b->pctx, "weights", 0.05);
    const char *section;
    if (reinstrument_read_consts(b->so, &b->blob, &section, mmap_tail, err)) return -1;
    const char *weights_o = NULL;
    for (int i = 1; i < b->lc.argc; i++)
        if (ends_with(b->lc.argv[i], ".weights.o")) weights_o = b->lc.argv[i];
    if (!weights_o) { strbuf_addf(err, "%s: the link command names no *.weights.o", b->wrapper); return -1; }
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/consts.bin", b->tmpdir.buf);
    if (write_file(b->path.buf, b->blob.buf, b->blob.len, err)) return -1;
    strbuf s = STRBUF_INIT;
    strbuf_addf(&s, "\t.section\t%s, \"%s\"\n\t.balign %d\n\t.globl\t_binary_constants_bin_start\n"
                "_binary_constants_bin_start:\n\t.incbin \"%s\"\n%s\t.globl\t_binary_constants_bin_end\n"
                "_binary_constants_bin_end:\n\t.section\t.note.GNU-stack,\"\",@progbits\n",
                section, strcmp(section, ".ldata") ? "a" : "aw", ALIGN_BYTES, b->path.buf,
                b->blob.len ? "" : "\t.space 1\n");
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/weights.S", b->tmpdir.buf);
    int f = write_file(b->path.buf, s.buf, s.len, err);
    strbuf_release(&s);
    if (f) return -1;
    const char *av[] = {b->rx.compiler, "-c", b->path.buf, "-o", weights_o};
    for (size_t i = 0; i < sizeof av / sizeof *av; i++) cmd_push(&b->ac, av[i], strlen(av[i]));
    return 0;
}

/* Step 5: the wrapper, the kernels and the weights compiled in parallel (2 cores on CI), then
 * linked; the shipped .so's mmap'ed weights appended when it had them. */
static int compile_and_link(rebuild *b, size_t mmap_tail, strbuf *err)
{
    progress(b->pfn, b->pctx, "compile", 0.1);
    const char *tmp = b->tmpdir.buf;
    char wlog[PATH_MAX], klog[PATH_MAX], alog[PATH_MAX], llog[PATH_MAX];
    snprintf(wlog, sizeof wlog, "%s/compile_wrapper.log", tmp);
    snprintf(klog, sizeof klog, "%s/compile_kernel.log", tmp);
    snprintf(alog, sizeof alog, "%s/weights.log", tmp);
    snprintf(llog, sizeof llog, "%s/link.log", tmp);
    char hint[PATH_MAX * 3];
    snprintf(hint, sizeof hint, "The package was compiled against the torch headers in %s; here it is torch %s "
             "in %s. If those versions differ the generated code may use functions this torch lacks: "
             "install the torch the package was built with (or set TORCH_DIR to it).",
             b->rx.orig_torch[0] ? b->rx.orig_torch : "(unknown)", b->tver, b->troot);
    pid_t pw = spawn(&b->wc, wlog, tmp, err);
    pid_t pk = b->kernel ? spawn(&b->kc, klog, tmp, err) : 0;
    pid_t pa = spawn(&b->ac, alog, tmp, err);
    int bad = 0;
    if (pw < 0 || pk < 0 || pa < 0) bad = 1;
    if (pw > 0 && wait_ok(pw, "compiling the instrumented wrapper", &b->wc, wlog, hint, err)) bad = 1;
    progress(b->pfn, b->pctx, "compile", 0.75);
    if (pk > 0 && wait_ok(pk, "compiling the package's kernels", &b->kc, klog, hint, err)) bad = 1;
    if (pa > 0 && wait_ok(pa, "assembling the weights object", &b->ac, alog, NULL, err)) bad = 1;
    if (bad) return -1;

    progress(b->pfn, b->pctx, "link", 0.85);
    pid_t pl = spawn(&b->lc, llog, tmp, err);
    if (pl < 0 || wait_ok(pl, "linking the instrumented model", &b->lc, llog, hint, err)) return -1;
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/%s", tmp, b->so_base);
    if (access(b->path.buf, R_OK) != 0) { strbuf_addf(err, "the link command did not write %s", b->path.buf); return -1; }
    if (mmap_tail && append_mmap_tail(b->so, b->path.buf, mmap_tail, err)) return -1;
    return 0;
}

/* Step 6: what goes beside the .so: the proxy executor's json, the stamp, a summary; the objects
 * go. */
static int write_beside(rebuild *b, strbuf *err)
{
    /* torch's runner builds the proxy executor from <so stem>.json beside the .so */
    strbuf js = STRBUF_INIT, jd = STRBUF_INIT, body = STRBUF_INIT;
    strbuf_addf(&js, "%.*s.json", (int)(strlen(b->so) - 3), b->so);
    strbuf_addf(&jd, "%s/%.*s.json", b->tmpdir.buf, (int)(strlen(b->so_base) - 3), b->so_base);
    int bad = access(js.buf, R_OK) == 0 && (strbuf_read_file(&body, js.buf, REINSTRUMENT_MAX_SOURCE, err) ||
                                             write_file(jd.buf, body.buf, body.len, err));
    strbuf_release(&js); strbuf_release(&jd); strbuf_release(&body);
    if (bad) return -1;
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/stamp", b->tmpdir.buf);
    if (write_file(b->path.buf, b->stamp.buf, b->stamp.len, err)) return -1;
    /* a summary for humans and for the front end's notes */
    strbuf s = STRBUF_INIT;
    strbuf_addf(&s, "model_dir %s\nlaunches %zu\nhooks %zu\ncpp %zu\nextern %zu\ntriton %zu\n", b->model_dir,
                b->st.launches, b->st.hooks, b->st.cpp, b->st.extern_ops, b->st.triton);
    strbuf_reset(&b->path);
    strbuf_addf(&b->path, "%s/summary.txt", b->tmpdir.buf);
    write_file(b->path.buf, s.buf, s.len, &b->e2);
    strbuf_release(&s);
    /* the objects are not needed any more */
    for (int i = 1; i < b->lc.argc; i++)
        if (ends_with(b->lc.argv[i], ".o") && starts_with(b->lc.argv[i], b->tmpdir.buf)) unlink(b->lc.argv[i]);
    return 0;
}

static void rebuild_release(rebuild *b)
{
    cmd_free(&b->wc); cmd_free(&b->kc); cmd_free(&b->lc); cmd_free(&b->ac);
    free(b->wrapper); free(b->kernel); free(b->so); free(b->root);
    strbuf *bufs[] = {&b->src, &b->inst, &b->kcmd_s, &b->wcmd_s, &b->lcmd_s, &b->ksrc,
                      &b->blob, &b->path, &b->stamp, &b->e2, &b->dir, &b->tmpdir};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) strbuf_release(bufs[i]);
}

int reinstrument_build(const char *model_dir, const char *sha256, reinstrument_progress_fn pfn,
                       void *pctx, char **out_so_path, strbuf *err)
{
    int rc = -1;
    rebuild b = {.model_dir = model_dir, .sha256 = sha256, .pfn = pfn, .pctx = pctx};
    strbuf *bufs[] = {&b.src, &b.inst, &b.kcmd_s, &b.wcmd_s, &b.lcmd_s, &b.ksrc,
                      &b.blob, &b.path, &b.stamp, &b.e2, &b.dir, &b.tmpdir};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) strbuf_init(bufs[i], 0);
    *out_so_path = NULL;
    size_t mmap_tail = 0;
    int found = find_sources(&b, err) ? -1 : find_torch(&b, out_so_path, err);
    if (found != 0) {
        rc = found > 0 ? 0 : -1;
        goto out;
    }
    /* build in a private folder, renamed into place at the end */
    if (mkdir_p(b.root, err)) goto out;
    strbuf_addf(&b.tmpdir, "%s/%s.tmp.%ld", b.root, sha256, (long)getpid());
    rm_rf(b.tmpdir.buf);
    if (mkdir(b.tmpdir.buf, 0755) != 0) { strbuf_addf(err, "mkdir %s: %s", b.tmpdir.buf, strerror(errno)); goto out; }
    if (instrument(&b, err) || weights_object(&b, &mmap_tail, err) || compile_and_link(&b, mmap_tail, err) ||
        write_beside(&b, err))
        goto out;
    rm_rf(b.dir.buf);
    if (rename(b.tmpdir.buf, b.dir.buf) != 0) { strbuf_addf(err, "rename %s: %s", b.dir.buf, strerror(errno)); goto out; }
    strbuf_reset(&b.path);
    strbuf_addf(&b.path, "%s/%s", b.dir.buf, b.so_base);
    progress(pfn, pctx, "done", 1.0);
    *out_so_path = strbuf_detach(&b.path, NULL);
    rc = 0;
out:
    if (rc != 0 && b.tmpdir.len) {
        /* keep the logs of a failed build for the user, under <sha>.failed */
        strbuf f = STRBUF_INIT;
        strbuf_addf(&f, "%s/%s.failed", b.root, sha256);
        rm_rf(f.buf);
        if (rename(b.tmpdir.buf, f.buf) != 0) rm_rf(b.tmpdir.buf);
        else strbuf_addf(err, "\n(build folder kept in %s)", f.buf);
        strbuf_release(&f);
    }
    rebuild_release(&b);
    return rc;
}
