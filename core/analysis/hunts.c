/* hunts.c — the NaN and divergence hunts and the producer walk (see hunts.h). */
#include "hunts.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "numfmt.h"
#include "stack_trace.h"
#include "tensor_diff.h"

int hunt_written(const kernel_event *ke, const tensor_rec *t)
{
    for (size_t i = 0; i < ke->ntensors; i++) {
        const tensor_rec *b = &ke->tensors[i];
        if (b->phase != PHASE_BEFORE || strcmp(b->name, t->name))
            continue;
        tensor_diff d;
        tensor_compare(t, b, 0, &d);
        return d.differing || d.shape_differs || !d.compared;
    }
    return 1;
}

static int bad_stats(const tensor_rec *t)
{
    return t->has_stats && (t->stats.nan || t->stats.posinf || t->stats.neginf);
}

/* -Inf alone in a tensor is what an attention mask writes (an additive -inf
 * mask, masked_fill): no anomaly for the hunt. */
static int mask_only(const tensor_rec *t)
{
    return t->has_stats && !t->stats.nan && !t->stats.posinf && t->stats.neginf;
}

/* Asks `test` about each tensor a kernel wrote (after phase), in run order;
 * the first it accepts (returns 1, having filled what it found into h) is
 * the hit. Only written tensors count: a bad value a kernel merely read
 * came from earlier. */
typedef int (*hunt_test)(const tensor_rec *t, const kernel_event *ke, size_t kernel, const void *ctx, hunt_hit *h);

/* The first tensor of ke that test accepts, into h; 0 when none. */
static int hunt_kernel(const kernel_event *ke, size_t k, hunt_test test, const void *ctx, hunt_hit *h)
{
    for (size_t i = 0; i < ke->ntensors; i++) {
        const tensor_rec *t = &ke->tensors[i];
        if (t->phase != PHASE_AFTER || !hunt_written(ke, t))
            continue;
        if (!test(t, ke, k, ctx, h))
            continue;
        h->kernel = (int64_t)k;
        h->kernel_name = ke->name;
        h->tensor = t;
        return 1;
    }
    return 0;
}

static int hunt_scan(const session *s, hunt_test test, const void *ctx, hunt_hit *h)
{
    for (size_t k = 0; k < s->nkernels; k++)
        if (hunt_kernel(&s->kernels[k]->u.kernel, k, test, ctx, h))
            return 1;
    return 0;
}

static void hunt_reset(hunt_hit *h)
{
    memset(h, 0, sizeof *h);
    h->kernel = -1;
    h->first_bad = -1;
}

static int nan_test(const tensor_rec *t, const kernel_event *ke, size_t kernel, const void *ctx, hunt_hit *h)
{
    (void)kernel, (void)ctx;
    if (mask_only(t) || tensor_inf_is_eagers(ke, t))   /* a mask's, or eager's too */
        return 0;
    int64_t fb = tensor_first_nonfinite(t);
    if (fb < 0 && !bad_stats(t))
        return 0;
    if (fb < 0 && t->stats.has_at)   /* values not kept: the statistics saw every element */
        fb = t->stats.at.nonfinite;
    h->first_bad = fb;
    return 1;
}

int hunt_nan(const session *s, hunt_hit *h)
{
    hunt_reset(h);
    return hunt_scan(s, nan_test, NULL, h);
}

int hunt_nan_kernel(const kernel_event *ke, size_t k, hunt_hit *h)
{
    hunt_reset(h);
    for (size_t i = 0; i < ke->ntensors; i++) {   /* most kernels hold no NaN/Inf: spare them hunt_written's compare */
        const tensor_rec *t = &ke->tensors[i];
        if (t->phase == PHASE_AFTER && (bad_stats(t) || tensor_first_nonfinite(t) >= 0))
            return hunt_kernel(ke, k, nan_test, NULL, h);
    }
    return 0;
}

static int diverge_test(const tensor_rec *t, const kernel_event *ke, size_t kernel, const void *ctx, hunt_hit *h)
{
    (void)ke;
    const tensor_rec *r = session_find_tensor(ctx, (int64_t)kernel, t->name, PHASE_AFTER);
    if (!r)
        return 0;
    tensor_diff d;
    tensor_compare(t, r, h->tol, &d);
    if (!d.differing && !d.shape_differs && !d.complex_differs)
        return 0;
    h->diff = d;
    h->first_bad = d.first_diff;
    return 1;
}

int hunt_diverge(const session *s, const session *ref, double tol, hunt_hit *h)
{
    hunt_reset(h);
    h->is_diverge = 1;
    h->tol = tol;
    return hunt_scan(s, diverge_test, ref, h);
}

int hunt_eager(const session *s, hunt_hit *h)
{
    hunt_reset(h);
    h->is_diverge = 1;
    for (size_t k = 0; k < s->nkernels; k++) {
        const kernel_event *ke = &s->kernels[k]->u.kernel;
        for (size_t j = 0; j < ke->neager; j++) {
            const eager_check *c = &ke->eager[j];
            const tensor_rec *t = c->verdict == EAGER_DIFFERS && c->tensor
                                  ? session_find_tensor(s, (int64_t)k, c->tensor, PHASE_AFTER) : NULL;
            if (!t)
                continue;
            h->kernel = (int64_t)k;
            h->kernel_name = ke->name;
            h->tensor = t;
            h->eager = c;
            h->first_bad = c->first;
            h->tol = c->atol;
            h->diff.by_values = 1;
            h->diff.compared = (size_t)c->compared;
            h->diff.differing = (size_t)c->differing;
            h->diff.max_abs = c->max_abs;
            h->diff.max_rel = c->max_rel;
            h->diff.first_diff = c->first;
            return 1;
        }
    }
    return 0;
}

int64_t hunt_producer(const session *s, int64_t kernel, const char *name)
{
    if (!name)
        return -1;
    if (kernel > (int64_t)s->nkernels)
        kernel = (int64_t)s->nkernels;
    for (int64_t k = kernel - 1; k >= 0; k--)
        if (session_find_tensor(s, k, name, PHASE_AFTER))
            return k;
    return -1;
}

int hunt_same_data(const tensor_rec *x, const tensor_rec *y)
{
    if (!x->has_stats || !y->has_stats || x->ndim != y->ndim || !x->dtype || !y->dtype || strcmp(x->dtype, y->dtype))
        return 0;
    for (int i = 0; i < x->ndim; i++)
        if (x->shape[i] != y->shape[i])
            return 0;
    const tensor_stats *a = &x->stats, *b = &y->stats;
    if (a->numel != b->numel || a->nan != b->nan || a->zeros != b->zeros || a->finite != b->finite)
        return 0;
    if (!a->finite)
        return 0;   /* all non-finite: too little to tell buffers apart */
    return a->min == b->min && a->max == b->max && a->mean == b->mean && a->std == b->std;
}

int64_t hunt_producer_of(const session *s, int64_t kernel, const tensor_rec *t, const char **as_name)
{
    *as_name = t->name;
    int64_t p = hunt_producer(s, kernel, t->name);
    if (p >= 0)
        return p;
    /* AOTI reuses buffers under new names ("auto buf2 = std::move(buf1);"):
     * the last earlier kernel that wrote a tensor with the same data */
    if (kernel > (int64_t)s->nkernels)
        kernel = (int64_t)s->nkernels;
    for (int64_t k = kernel - 1; k >= 0; k--) {
        const kernel_event *ke = &s->kernels[k]->u.kernel;
        for (size_t i = 0; i < ke->ntensors; i++) {
            const tensor_rec *o = &ke->tensors[i];
            if (o->phase == PHASE_AFTER && hunt_written(ke, o) && hunt_same_data(o, t)) {
                *as_name = o->name;
                return k;
            }
        }
    }
    return -1;
}

static void tensor_summary(strbuf *out, const tensor_rec *t)
{
    fmt_shape(out, t->ndim, t->shape);
    strbuf_addf(out, " %s", t->dtype ? t->dtype : "?");
    if (t->has_stats) {
        char mn[24], mx[24];
        fmt_double(mn, sizeof mn, t->stats.min);
        fmt_double(mx, sizeof mx, t->stats.max);
        strbuf_addf(out, "%s min %s max %s nan %llu inf %llu", dtype_lanes(t->dtype) == 2 ? " |z|" : "", mn, mx,
                    (unsigned long long)t->stats.nan,
                    (unsigned long long)(t->stats.posinf + t->stats.neginf));
    }
}

/* The index a kernel is shown by (#N): its place in the run, not in s->kernels
 * (a folded session's kernels skip the folded launches). */
static long long shown(const session *s, int64_t k) { return (long long)s->kernels[k]->u.kernel.index; }

void hunt_report(const session *s, const hunt_hit *h, strbuf *out)
{
    const tensor_rec *t = h->tensor;
    if (h->eager) {
        const eager_check *c = h->eager;
        char ma[24], mr[24], at[24], rt[24], g[24], w[24];
        fmt_double(ma, sizeof ma, c->max_abs);
        fmt_double(mr, sizeof mr, c->max_rel);
        fmt_double(at, sizeof at, c->atol);
        fmt_double(rt, sizeof rt, c->rtol);
        fmt_double(g, sizeof g, c->got);
        fmt_double(w, sizeof w, c->want);
        strbuf_addf(out, "hunt-diverge: kernel #%lld %s is the first whose output departs from the eager program\n"
                         "  (%s)\n", shown(s, h->kernel), h->kernel_name, s->eager.program ? s->eager.program : "?");
        strbuf_addf(out, "  node %s, held in %s (after) ", c->node, t->name);
        tensor_summary(out, t);
        strbuf_addf(out, "\n  %llu of %llu elements beyond |got - want| <= %s + %s * |want|; max abs error %s, max "
                         "rel error %s\n", (unsigned long long)c->differing, (unsigned long long)c->compared, at, rt,
                    ma, mr);
        const kernel_call *call = session_kernel_call(s, &s->kernels[h->kernel]->u.kernel);
        if (call) {
            strbuf where = STRBUF_INIT;
            kernel_call_where(call, &where, 200);
            if (where.len)
                strbuf_addf(out, "  from %s\n", where.buf);
            strbuf_release(&where);
        }
        strbuf_addstr(out, "  first departing element: ");
        if (h->first_bad >= 0) {
            fmt_index(out, t, h->first_bad);
            strbuf_addf(out, " (flat %lld): package %s, eager %s\n", (long long)h->first_bad, g, w);
        } else {
            strbuf_addstr(out, "unknown\n");
        }
        strbuf_addstr(out, "  every kernel before it matches eager: the cause is in this kernel or what it reads "
                           "that eager does not (weights, constants)\n");
    } else if (h->is_diverge) {
        char ma[24], mr[24], tl[24];
        fmt_double(ma, sizeof ma, h->diff.max_abs);
        fmt_double(mr, sizeof mr, h->diff.max_rel);
        fmt_double(tl, sizeof tl, h->tol);
        strbuf_addf(out, "hunt-diverge: kernel #%lld %s is the first whose output differs from the reference "
                         "beyond %s\n", shown(s, h->kernel), h->kernel_name, tl);
        strbuf_addf(out, "  tensor: %s (after) ", t->name);
        tensor_summary(out, t);
        strbuf_addf(out, "\n  %s: max abs error %s, max rel error %s, %zu of %zu %s beyond the tolerance%s%s\n",
                    h->diff.by_values ? "values" : "statistics only (no values on both sides)", ma, mr,
                    h->diff.differing, h->diff.compared, h->diff.by_values ? "values" : "statistics",
                    h->diff.sampled ? " (sampled values)" : "", h->diff.shape_differs ? "; the shapes differ"
                    : h->diff.complex_differs ? "; one run has it complex, the other not" : "");
    } else {
        strbuf_addf(out, "hunt-nan: kernel #%lld %s is the first whose output holds NaN/Inf\n", shown(s, h->kernel),
                    h->kernel_name);
        strbuf_addf(out, "  tensor: %s (after) ", t->name);
        tensor_summary(out, t);
        strbuf_addch(out, '\n');
    }
    if (!h->eager) {   /* (an eager hit said it above, with both values) */
        strbuf_addstr(out, "  first bad index: ");
        if (h->first_bad >= 0) {
            fmt_index(out, t, h->first_bad);
            strbuf_addf(out, " (flat %lld)%s\n", (long long)h->first_bad,
                        t->values_complete || h->is_diverge || tensor_first_nonfinite(t) < 0
                            ? ""
                            : " among the recorded values");
        } else {
            strbuf_addstr(out, h->is_diverge && !h->diff.by_values ? "unknown (statistics only)\n"
                                                                   : "unknown (no values recorded for this tensor)\n");
        }
    }
    const kernel_event *ke = &s->kernels[h->kernel]->u.kernel;
    strbuf_addstr(out, "  inputs of this kernel (select one in the inspector, then `producer` walks back):\n");
    int any = 0;
    for (size_t i = 0; i < ke->ntensors; i++) {
        const tensor_rec *in = &ke->tensors[i];
        if (in->phase != PHASE_BEFORE)
            continue;
        any = 1;
        strbuf_addf(out, "    %-10s ", in->name);
        if (tensor_uninitialised(s, ke, in)) {   /* leftover bytes: no input */
            fmt_shape(out, in->ndim, in->shape);
            strbuf_addstr(out, " not an input: uninitialised (the kernel writes it before it reads it)\n");
            continue;
        }
        tensor_summary(out, in);
        int bad = bad_stats(in) || tensor_first_nonfinite(in) >= 0;
        const char *as = NULL;
        int64_t p = hunt_producer_of(s, h->kernel, in, &as);
        if (p >= 0 && strcmp(as, in->name))
            strbuf_addf(out, "%s; produced by #%lld %s as %s (buffer reused)\n", bad ? " BAD" : "", shown(s, p),
                        s->kernels[p]->u.kernel.name, as);
        else if (p >= 0)
            strbuf_addf(out, "%s; produced by #%lld %s\n", bad ? " BAD" : "", shown(s, p),
                        s->kernels[p]->u.kernel.name);
        else
            strbuf_addf(out, "%s; no earlier kernel wrote it (a model input or weight)\n", bad ? " BAD" : "");
    }
    if (!any)
        strbuf_addstr(out, "    (no before-tensors recorded)\n");
}

