/* nan_element.c — NaN/Inf down to the element (see nan_element.h). */
#include "nan_element.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "numfmt.h"
#include "stack_trace.h"
#include "tensor_diff.h"
#include "compat.h"

/* Ops that turn finite values into NaN/Inf, and the words that name them in
 * Python code ("/" and "**" for the operators). Norms are left out: they add
 * an epsilon before their rsqrt. */
static const struct { const char *op, *words[3]; } nan_ops[] = {
    {"log", {"log"}}, {"log2", {"log2"}}, {"log10", {"log10"}}, {"log1p", {"log1p"}},
    {"sqrt", {"sqrt"}}, {"rsqrt", {"rsqrt"}}, {"div", {"div", "/"}}, {"true_divide", {"true_divide", "/"}},
    {"reciprocal", {"reciprocal"}}, {"pow", {"pow", "**"}}, {"exp", {"exp"}}, {"exp2", {"exp2"}},
    {"expm1", {"expm1"}}, {"acos", {"acos", "arccos"}}, {"asin", {"asin", "arcsin"}}, {"atanh", {"atanh"}},
    {"acosh", {"acosh"}}, {"tan", {"tan"}}, {"fmod", {"fmod", "%"}}, {"remainder", {"remainder", "%"}},
    {"xlogy", {"xlogy"}}, {"lgamma", {"lgamma"}}, {"digamma", {"digamma"}}, {"erfinv", {"erfinv"}},
    {"logit", {"logit"}}, {"logsumexp", {"logsumexp"}}, {"softmax", {"softmax"}}, {"log_softmax", {"log_softmax"}},
};
#define NOPS (sizeof nan_ops / sizeof *nan_ops)

static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* ---- the element ------------------------------------------------------- */

/* Flat index in t of the output's multi-index idx (nd dims), lining dims up
 * from the right; -1 when t's shape does not broadcast to it. *bc says
 * whether any dim was broadcast. */
static int64_t match_index(const tensor_rec *t, const int64_t *oshape, int nd, const int64_t *idx, int *bc)
{
    *bc = 0;
    if (t->ndim > nd) {   /* extra leading dims only when they are 1 */
        for (int d = 0; d < t->ndim - nd; d++)
            if (t->shape[d] != 1)
                return -1;
    }
    int64_t flat = 0;
    for (int d = 0; d < t->ndim; d++) {
        int od = nd - t->ndim + d;
        int64_t i = 0;
        if (od >= 0) {
            if (t->shape[d] == oshape[od])
                i = idx[od];
            else if (t->shape[d] == 1)
                *bc |= oshape[od] != 1;
            else
                return -1;
        }
        flat = flat * (t->shape[d] > 0 ? t->shape[d] : 1) + i;
    }
    if (t->ndim < nd)
        *bc = 1;
    return flat;
}

static void fill_inputs(const session *s, nan_element *ne)
{
    const kernel_event *k = ne->k;
    const tensor_rec *o = ne->tensor;
    int64_t idx[TENSOR_MAX_DIMS];
    int have_idx = ne->flat >= 0 && tensor_unflatten(o, ne->flat, idx) == 0;
    for (size_t i = 0; i < k->ntensors && ne->ninputs < NAN_ELEMENT_MAX_INPUTS; i++) {
        const tensor_rec *t = &k->tensors[i];
        if (t->phase != PHASE_BEFORE)
            continue;
        nan_input *in = &ne->inputs[ne->ninputs++];
        memset(in, 0, sizeof *in);
        in->t = t;
        in->flat = -1;
        if (tensor_uninitialised(s, k, t)) {
            in->match = NI_NOT_READ;
            continue;
        }
        int bc = 0;
        int64_t f = have_idx ? match_index(t, o->shape, o->ndim, idx, &bc) : -1;
        in->match = !have_idx || f < 0 ? NI_SHAPE : bc ? NI_BROADCAST : NI_SAME;
        if (f < 0)
            continue;
        in->flat = f;
        if ((size_t)f < t->nvalues && t->values && dtype_lanes(t->dtype) == 1) {
            in->have_value = 1;
            in->value = t->values[f];
        }
    }
}

/* The first bad element of t: the kept values' first non-finite, else the
 * statistics' position; its value when it can be known. */
static void first_bad(nan_element *ne)
{
    const tensor_rec *t = ne->tensor;
    ne->flat = tensor_first_nonfinite(t);
    if (ne->flat >= 0) {   /* complex: the part that is not finite */
        int lanes = dtype_lanes(t->dtype);
        const double *v = t->values + ne->flat * lanes;
        ne->have_value = 1;
        ne->value = lanes == 2 && isfinite(v[0]) ? v[1] : v[0];
        return;
    }
    if (t->has_stats && t->stats.has_at && t->stats.at.nonfinite >= 0)
        ne->flat = t->stats.at.nonfinite;
    if (ne->flat >= 0 && (size_t)ne->flat < tensor_values_elems(t) && dtype_lanes(t->dtype) == 1) {
        ne->have_value = 1;
        ne->value = t->values[ne->flat];
    } else if (t->has_stats) {   /* one kind of non-finite value only: that is it */
        const tensor_stats *st = &t->stats;
        int kinds = (st->nan > 0) + (st->posinf > 0) + (st->neginf > 0);
        if (kinds == 1) {
            ne->have_value = 1;
            ne->value = st->nan ? NAN : st->posinf ? INFINITY : -INFINITY;
        }
    }
}

static void from_hit(const session *s, const hunt_hit *h, nan_element *ne)
{
    memset(ne, 0, sizeof *ne);
    ne->kernel = h->kernel;
    ne->k = &s->kernels[h->kernel]->u.kernel;
    ne->tensor = h->tensor;
    first_bad(ne);
    fill_inputs(s, ne);
}

static int nan_element_find(const session *s, nan_element *ne)
{
    hunt_hit h;
    memset(ne, 0, sizeof *ne);
    ne->kernel = ne->flat = -1;
    if (!hunt_nan(s, &h))
        return 0;
    from_hit(s, &h, ne);
    return 1;
}

int nan_element_at_kernel(const session *s, size_t k, nan_element *ne)
{
    memset(ne, 0, sizeof *ne);
    ne->kernel = ne->flat = -1;
    if (k >= s->nkernels)
        return 0;
    const kernel_event *ke = &s->kernels[k]->u.kernel;
    for (size_t i = 0; i < ke->ntensors; i++) {
        const tensor_rec *t = &ke->tensors[i];
        if (t->phase != PHASE_AFTER || !hunt_written(ke, t))
            continue;
        if (tensor_first_nonfinite(t) < 0 && !(t->has_stats && (t->stats.nan || t->stats.posinf || t->stats.neginf)))
            continue;
        hunt_hit h = {.kernel = (int64_t)k, .kernel_name = ke->name, .tensor = t, .first_bad = -1};
        from_hit(s, &h, ne);
        return 1;
    }
    return 0;
}

/* ---- text ----------------------------------------------------------------- */

static void nan_element_at(const nan_element *ne, strbuf *out)
{
    if (ne->flat < 0)
        strbuf_addch(out, '?');
    else
        fmt_index(out, ne->tensor, ne->flat);
}

static void put_value(strbuf *out, double v)
{
    char b[32];
    fmt_double(b, sizeof b, v);
    strbuf_addstr(out, b);
}

static void nan_element_value(const nan_element *ne, strbuf *out)
{
    if (ne->have_value)
        put_value(out, ne->value);
    else
        strbuf_addstr(out, "nan or inf");
}

static void nan_input_text(const nan_element *ne, const nan_input *in, strbuf *out)
{
    const tensor_rec *t = in->t;
    switch (in->match) {
    case NI_NOT_READ:
        strbuf_addf(out, "%s: not an input (uninitialised: the kernel writes it first)", t->name);
        return;
    case NI_SHAPE:
        strbuf_addf(out, "%s ", t->name);
        fmt_shape(out, t->ndim, t->shape);
        if (ne->flat < 0) {
            strbuf_addstr(out, ": the bad element's position is unknown");
        } else {
            strbuf_addstr(out, ": its shape does not line up with ");
            fmt_shape(out, ne->tensor->ndim, ne->tensor->shape);
        }
        return;
    default:
        break;
    }
    strbuf_addstr(out, t->name);
    fmt_index(out, t, in->flat);
    if (in->have_value) {
        strbuf_addstr(out, " = ");
        put_value(out, in->value);
    }
    if (in->match == NI_BROADCAST)
        strbuf_addstr(out, " (broadcast)");
    if (!in->have_value)
        strbuf_addstr(out, ": value not kept");
}

/* A read input holding NaN/Inf anywhere (its statistics cover every
 * element); NULL when none. */
static const nan_input *bad_input(const nan_element *ne)
{
    for (size_t i = 0; i < ne->ninputs; i++) {
        const nan_input *in = &ne->inputs[i];
        const tensor_stats *st = &in->t->stats;
        if (in->match == NI_NOT_READ)
            continue;
        if ((in->have_value && !isfinite(in->value)) ||
            (in->t->has_stats && (st->nan || st->posinf || st->neginf)))
            return in;
    }
    return NULL;
}

static void nan_element_from(const session *s, const nan_element *ne, strbuf *out)
{
    const nan_input *in = bad_input(ne);
    if (in) {   /* it came in: where the input holds it, and who wrote that input */
        const tensor_rec *t = in->t;
        strbuf_addf(out, "input %s already holds NaN/Inf", t->name);
        int64_t at = tensor_first_nonfinite(t);
        if (at < 0 && t->has_stats && t->stats.has_at)
            at = t->stats.at.nonfinite;
        if (at >= 0) {
            strbuf_addstr(out, " from ");
            fmt_index(out, t, at);
        }
        const char *as = NULL;
        int64_t p = hunt_producer_of(s, ne->kernel, t, &as);
        if (p >= 0)
            strbuf_addf(out, " (written by #%lld %s)", (long long)s->kernels[p]->u.kernel.index,
                        s->kernels[p]->u.kernel.name);
        else
            strbuf_addstr(out, " (a model input or weight: no kernel before wrote it)");
        strbuf_addstr(out, ": it came in");
        return;
    }
    size_t read = 0, known = 0;
    for (size_t i = 0; i < ne->ninputs; i++)
        if (ne->inputs[i].match != NI_NOT_READ) {
            read++;
            known += ne->inputs[i].t->has_stats;
        }
    if (read && known == read)
        strbuf_addstr(out, "computed here: every input it reads is finite");
}

/* ---- the ops that compute it ------------------------------------------------ */

/* 1 when code names word: an identifier not inside a longer one, or an operator. */
static int code_names(const char *code, int len, const char *word)
{
    size_t n = strlen(word);
    int op = !is_ident((unsigned char)word[0]);
    for (int i = 0; i + (int)n <= len; i++) {
        if (memcmp(code + i, word, n))
            continue;
        if (op) {
            if (n == 1 && word[0] == '/' && i + 1 < len && code[i + 1] == '/')
                return 0;   /* // is floor division */
            return 1;
        }
        if ((i == 0 || !is_ident((unsigned char)code[i - 1])) &&
            (i + (int)n == len || !is_ident((unsigned char)code[i + n])))
            return 1;
    }
    return 0;
}

/* A graph node or ATen name as an op: "aten.log" -> "log", "sub_3" -> "sub",
 * "log.default" -> "log". */
static void op_name(const char *v, char *out, size_t cap)
{
    const char *p = v;
    skip_prefix(v, "aten.", &p);
    size_t n = strcspn(p, ".");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
    size_t e = n;
    while (e > 0 && isdigit((unsigned char)out[e - 1]))
        e--;
    if (e > 0 && e < n && out[e - 1] == '_')
        out[e - 1] = 0;
}

static int call_has_op(const kernel_call *c, const char *kernel_name, const char *op)
{
    char nm[128];
    const char *const *lists[] = {c ? c->aten : NULL, c ? c->post_grad : NULL, c ? c->pre_grad : NULL,
                                  c ? c->nodes : NULL};
    size_t counts[] = {c ? c->naten : 0, c ? c->npost : 0, c ? c->npre : 0, c ? c->nnodes : 0};
    for (int l = 0; l < 4; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            op_name(lists[l][i], nm, sizeof nm);
            if (!strcmp(nm, op))
                return 1;
        }
    /* a fused kernel's name lists its ops: cpp_fused_add_log_relu_0 */
    if (kernel_name && (starts_with(kernel_name, "cpp_fused_") || starts_with(kernel_name, "triton_"))) {
        size_t n = strlen(op);
        for (const char *p = strstr(kernel_name, op); p; p = strstr(p + 1, op))
            if (p > kernel_name && p[-1] == '_' && p[n] == '_')
                return 1;
    }
    return 0;
}

/* The user's frame of the first stack trace of c whose code names the op. */
static int op_site(const kernel_call *c, size_t op, st_frame *site)
{
    st_frame fr[128];
    for (size_t i = 0; c && i < c->nstack; i++) {
        size_t nf = stack_trace_frames(c->stack[i], fr, sizeof fr / sizeof *fr);
        for (size_t f = nf; f-- > 0;)
            for (int w = 0; w < 3 && nan_ops[op].words[w]; w++)
                if (fr[f].code_len && code_names(fr[f].code, fr[f].code_len, nan_ops[op].words[w])) {
                    /* the user's own line: this frame when it is theirs, else the trace's */
                    int u = fr[f].in_torch ? stack_trace_user(fr, nf) : (int)f;
                    *site = fr[u < 0 ? (int)f : u];
                    return 1;
                }
    }
    return 0;
}

int nan_element_op_site(const kernel_call *c, const char *kernel_name, st_frame *site)
{
    for (size_t i = 0; i < NOPS; i++)
        if (call_has_op(c, kernel_name, nan_ops[i].op) && op_site(c, i, site))
            return 1;
    return 0;
}

static size_t nan_element_ops(const kernel_call *c, const char *kernel_name, void (*add)(void *ctx, const char *text),
                       void *ctx)
{
    size_t found[NOPS], n = 0, with_line = 0;
    st_frame sites[NOPS];
    int has[NOPS];
    for (size_t i = 0; i < NOPS; i++) {
        if (!call_has_op(c, kernel_name, nan_ops[i].op))
            continue;
        has[n] = op_site(c, i, &sites[n]);
        with_line += has[n];
        found[n++] = i;
    }
    strbuf sb = STRBUF_INIT;
    size_t out = 0;
    for (int pass = 1; pass >= 0; pass--)
        for (size_t j = 0; j < n; j++) {
            if (has[j] != pass || (!pass && with_line))
                continue;
            strbuf_reset(&sb);
            strbuf_addstr(&sb, nan_ops[found[j]].op);
            if (has[j]) {
                int bl;
                const char *b = st_frame_base(&sites[j], &bl);
                strbuf_addf(&sb, " at %.*s:%lld", bl, b, (long long)sites[j].line);
                if (sites[j].code_len)
                    strbuf_addf(&sb, ": %.*s", sites[j].code_len, sites[j].code);
            }
            add(ctx, sb.buf);
            out++;
        }
    strbuf_release(&sb);
    return out;
}

/* ---- as an event and as fields --------------------------------------------- */

typedef struct { arena *a; size_t n, cap; const char **v; } str_list;

static void list_add(void *ctx, const char *text)
{
    str_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        const char **nv = arena_alloc(l->a, cap * sizeof *nv);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof *nv);
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = arena_strdup(l->a, text);
}

void nan_event_fill(arena *a, const session *s, const nan_element *ne, nan_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->kernel_index = ne->k ? ne->k->index : ne->kernel;
    ev->tensor = arena_strdup(a, ne->tensor->name);
    strbuf sb = STRBUF_INIT;
    if (ne->flat >= 0) {
        nan_element_at(ne, &sb);
        ev->at = arena_strdup(a, sb.buf);
    }
    if (ne->have_value) {
        strbuf_reset(&sb);
        nan_element_value(ne, &sb);
        ev->value = arena_strdup(a, sb.buf);
    }
    strbuf_reset(&sb);
    nan_element_from(s, ne, &sb);
    if (sb.len)
        ev->from = arena_strdup(a, sb.buf);
    str_list in = {a, 0, 0, NULL}, ops = {a, 0, 0, NULL};
    for (size_t i = 0; i < ne->ninputs; i++) {
        strbuf_reset(&sb);
        nan_input_text(ne, &ne->inputs[i], &sb);
        list_add(&in, sb.buf);
    }
    strbuf_release(&sb);
    ev->inputs = in.v;
    ev->ninputs = in.n;
    nan_element_ops(ne->k ? session_kernel_call(s, ne->k) : NULL, ne->k ? ne->k->name : NULL, list_add, &ops);
    ev->ops = ops.v;
    ev->nops = ops.n;
}

static void add_joined(void (*add)(void *, const char *, const char *), void *ctx, const char *key, size_t n,
                       const char *const *v)
{
    if (!n)
        return;
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, "%s%s", i ? "; " : "", v[i]);
    add(ctx, key, sb.buf);
    strbuf_release(&sb);
}

void nan_event_fields(const session *s, const nan_event *ev, void (*add)(void *ctx, const char *k, const char *v),
                      void *ctx)
{
    const event *ke = session_kernel_event(s, ev->kernel_index);
    char buf[64];
    if (ke)
        add(ctx, "kernel", ke->u.kernel.name);
    snprintf(buf, sizeof buf, "%lld", (long long)ev->kernel_index);
    add(ctx, "kernel_index", buf);
    add(ctx, "bad_tensor", ev->tensor);
    add(ctx, "bad_at", ev->at ? ev->at : "?");
    add(ctx, "bad_value", ev->value ? ev->value : "nan or inf");
    const tensor_rec *t = NULL;
    for (size_t i = 0; ke && i < ke->u.kernel.ntensors && !t; i++)
        if (ke->u.kernel.tensors[i].phase == PHASE_AFTER && !strcmp(ke->u.kernel.tensors[i].name, ev->tensor))
            t = &ke->u.kernel.tensors[i];
    if (t && t->has_stats) {
        const tensor_stats *st = &t->stats;
        strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%llu of %llu (nan %llu, +inf %llu, -inf %llu)",
                    (unsigned long long)(st->nan + st->posinf + st->neginf), (unsigned long long)st->numel,
                    (unsigned long long)st->nan, (unsigned long long)st->posinf, (unsigned long long)st->neginf);
        add(ctx, "bad_count", sb.buf);
        strbuf_release(&sb);
    }
    if (ev->from)
        add(ctx, "nan_from", ev->from);
    add_joined(add, ctx, "inputs_at", ev->ninputs, ev->inputs);
    add_joined(add, ctx, "suspect_ops", ev->nops, ev->ops);
}

const nan_event *session_nan_event(const session *s)
{
    for (size_t i = 0; i < s->nevents; i++)
        if (s->events[i]->kind == EV_NAN)
            return &s->events[i]->u.nan;
    return NULL;
}

const nan_event *nan_event_of(const session *s, arena *a, nan_event *tmp)
{
    const nan_event *ev = session_nan_event(s);
    nan_element ne;
    if (ev)
        return ev;
    if (!nan_element_find(s, &ne))
        return NULL;
    nan_event_fill(a, s, &ne, tmp);
    return tmp;
}

void nan_event_report(const session *s, const nan_event *ev, strbuf *out)
{
    const event *ke = session_kernel_event(s, ev->kernel_index);
    strbuf_addf(out, "  first bad element: %s%s = %s\n", ev->tensor, ev->at ? ev->at : "[?]",
                ev->value ? ev->value : "nan or inf");
    if (ev->from)
        strbuf_addf(out, "  where it comes from: %s\n", ev->from);
    if (ev->ninputs)
        strbuf_addf(out, "  the kernel's inputs at %s:\n", ev->at ? ev->at : "that element");
    for (size_t i = 0; i < ev->ninputs; i++)
        strbuf_addf(out, "    %s\n", ev->inputs[i]);
    if (ev->nops)
        strbuf_addstr(out, "  its ops that can make NaN/Inf, and the lines computing them:\n");
    for (size_t i = 0; i < ev->nops; i++)
        strbuf_addf(out, "    %s\n", ev->ops[i]);
    if (!ev->nops && ke)
        strbuf_addf(out, "  none of %s's ops makes NaN/Inf from finite values by itself\n", ke->u.kernel.name);
}
