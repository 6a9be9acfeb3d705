/* hunt.c — NaN/divergence hunts, producers and the reference diff (see hunt.h). */
#include "hunt.h"
#include "actions.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "live.h"
#include "route_actions.h"
#include "runner_client.h"
#include "value_grid.h"

#define DEFAULT_TOL 1e-4

static int beyond(double x, double r, double tol)
{
    if (isnan(x) || isnan(r))
        return !(isnan(x) && isnan(r));
    if (isinf(x) || isinf(r))
        return x != r;
    return fabs(x - r) > tol + tol * fabs(r);
}

void tensor_compare(const tensor_rec *t, const tensor_rec *r, double tol, tensor_diff *d)
{
    memset(d, 0, sizeof *d);
    d->first_diff = -1;
    if (t->ndim != r->ndim)
        d->shape_differs = 1;
    for (int i = 0; i < t->ndim && !d->shape_differs; i++)
        d->shape_differs = t->shape[i] != r->shape[i];
    if (t->nvalues && r->nvalues) {
        d->by_values = 1;
        size_t n = t->nvalues < r->nvalues ? t->nvalues : r->nvalues;
        d->compared = n;
        d->sampled = !(t->values_complete && r->values_complete) || t->nvalues != r->nvalues;
        for (size_t i = 0; i < n; i++) {
            double x = t->values[i], y = r->values[i];
            if (isfinite(x) && isfinite(y)) {
                double ad = fabs(x - y);
                if (ad > d->max_abs) d->max_abs = ad;
                double rel = y != 0 ? ad / fabs(y) : (ad ? INFINITY : 0);
                if (rel > d->max_rel) d->max_rel = rel;
            }
            if (beyond(x, y, tol)) {
                if (d->first_diff < 0)
                    d->first_diff = (int64_t)i;
                d->differing++;
            }
        }
        return;
    }
    if (!t->has_stats || !r->has_stats)
        return;
    /* statistics only: min, max, mean and the non-finite counts */
    const double a3[3] = {t->stats.min, t->stats.max, t->stats.mean};
    const double b3[3] = {r->stats.min, r->stats.max, r->stats.mean};
    for (int i = 0; i < 3; i++) {
        if (isfinite(a3[i]) && isfinite(b3[i])) {
            double ad = fabs(a3[i] - b3[i]);
            if (ad > d->max_abs) d->max_abs = ad;
            double rel = b3[i] != 0 ? ad / fabs(b3[i]) : (ad ? INFINITY : 0);
            if (rel > d->max_rel) d->max_rel = rel;
        }
        d->differing += beyond(a3[i], b3[i], tol);
    }
    d->differing += t->stats.nan != r->stats.nan;
    d->differing += t->stats.posinf + t->stats.neginf != r->stats.posinf + r->stats.neginf;
    d->compared = 5;
}

const tensor_rec *session_find_tensor(const session *s, int64_t k, const char *name, tensor_phase ph)
{
    if (!s || k < 0 || (size_t)k >= s->nkernels || !name)
        return NULL;
    const kernel_event *ke = &s->kernels[k]->u.kernel;
    for (size_t i = 0; i < ke->ntensors; i++)
        if (ke->tensors[i].phase == ph && ke->tensors[i].name && !strcmp(ke->tensors[i].name, name))
            return &ke->tensors[i];
    return NULL;
}

int64_t tensor_first_nonfinite(const tensor_rec *t)
{
    for (size_t i = 0; i < t->nvalues; i++)
        if (!isfinite(t->values[i]))
            return (int64_t)i;
    return -1;
}

void fmt_index(strbuf *sb, const tensor_rec *t, int64_t flat)
{
    if (t->ndim <= 0 || !t->shape) {
        strbuf_addf(sb, "[%lld]", (long long)flat);
        return;
    }
    int64_t idx[TENSOR_MAX_DIMS];
    int64_t rem = flat;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = rem % n;
        rem /= n;
    }
    fmt_shape(sb, t->ndim, idx);
}

/* An after-tensor the kernel wrote: no before-tensor of that name, or one
 * whose values (statistics) changed. Inputs it only read are not its output. */
static int written(const kernel_event *ke, const tensor_rec *t)
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

/* Asks `test` about each tensor a kernel wrote (after phase), in run order;
 * the first it accepts (returns 1, having filled what it found into h) is
 * the hit. Only written tensors count: a bad value a kernel merely read
 * came from earlier. */
typedef int (*hunt_test)(const tensor_rec *t, size_t kernel, const void *ctx, hunt_hit *h);

static int hunt_scan(const session *s, hunt_test test, const void *ctx, hunt_hit *h)
{
    for (size_t k = 0; k < s->nkernels; k++) {
        const kernel_event *ke = &s->kernels[k]->u.kernel;
        for (size_t i = 0; i < ke->ntensors; i++) {
            const tensor_rec *t = &ke->tensors[i];
            if (t->phase != PHASE_AFTER || !written(ke, t))
                continue;
            if (!test(t, k, ctx, h))
                continue;
            h->kernel = (int64_t)k;
            h->kernel_name = ke->name;
            h->tensor = t;
            return 1;
        }
    }
    return 0;
}

static void hunt_reset(hunt_hit *h)
{
    memset(h, 0, sizeof *h);
    h->kernel = -1;
    h->first_bad = -1;
}

static int nan_test(const tensor_rec *t, size_t kernel, const void *ctx, hunt_hit *h)
{
    (void)kernel;
    (void)ctx;
    int64_t fb = tensor_first_nonfinite(t);
    if (fb < 0 && !bad_stats(t))
        return 0;
    h->first_bad = fb;
    return 1;
}

int hunt_nan(const session *s, hunt_hit *h)
{
    hunt_reset(h);
    return hunt_scan(s, nan_test, NULL, h);
}

static int diverge_test(const tensor_rec *t, size_t kernel, const void *ctx, hunt_hit *h)
{
    const tensor_rec *r = session_find_tensor(ctx, (int64_t)kernel, t->name, PHASE_AFTER);
    if (!r)
        return 0;
    tensor_diff d;
    tensor_compare(t, r, h->tol, &d);
    if (!d.differing && !d.shape_differs)
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

static int same_data(const tensor_rec *x, const tensor_rec *y)
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
            if (o->phase == PHASE_AFTER && written(ke, o) && same_data(o, t)) {
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
        strbuf_addf(out, " min %s max %s nan %llu inf %llu", mn, mx, (unsigned long long)t->stats.nan,
                    (unsigned long long)(t->stats.posinf + t->stats.neginf));
    }
}

void hunt_report(const session *s, const hunt_hit *h, strbuf *out)
{
    const tensor_rec *t = h->tensor;
    if (h->is_diverge) {
        char ma[24], mr[24], tl[24];
        fmt_double(ma, sizeof ma, h->diff.max_abs);
        fmt_double(mr, sizeof mr, h->diff.max_rel);
        fmt_double(tl, sizeof tl, h->tol);
        strbuf_addf(out, "hunt-diverge: kernel #%lld %s is the first whose output differs from the reference "
                         "beyond %s\n", (long long)h->kernel, h->kernel_name, tl);
        strbuf_addf(out, "  tensor: %s (after) ", t->name);
        tensor_summary(out, t);
        strbuf_addf(out, "\n  %s: max abs error %s, max rel error %s, %zu of %zu %s beyond the tolerance%s%s\n",
                    h->diff.by_values ? "values" : "statistics only (no values on both sides)", ma, mr,
                    h->diff.differing, h->diff.compared, h->diff.by_values ? "values" : "statistics",
                    h->diff.sampled ? " (sampled values)" : "", h->diff.shape_differs ? "; the shapes differ" : "");
    } else {
        strbuf_addf(out, "hunt-nan: kernel #%lld %s is the first whose output holds NaN/Inf\n", (long long)h->kernel,
                    h->kernel_name);
        strbuf_addf(out, "  tensor: %s (after) ", t->name);
        tensor_summary(out, t);
        strbuf_addch(out, '\n');
    }
    strbuf_addstr(out, "  first bad index: ");
    if (h->first_bad >= 0) {
        fmt_index(out, t, h->first_bad);
        strbuf_addf(out, " (flat %lld)%s\n", (long long)h->first_bad,
                    t->values_complete ? "" : " among the recorded values");
    } else {
        strbuf_addstr(out, h->is_diverge && !h->diff.by_values ? "unknown (statistics only)\n"
                                                               : "unknown (no values recorded for this tensor)\n");
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
        tensor_summary(out, in);
        int bad = bad_stats(in) || tensor_first_nonfinite(in) >= 0;
        const char *as = NULL;
        int64_t p = hunt_producer_of(s, h->kernel, in, &as);
        if (p >= 0 && strcmp(as, in->name))
            strbuf_addf(out, "%s; produced by #%lld %s as %s (buffer reused)\n", bad ? " BAD" : "", (long long)p,
                        s->kernels[p]->u.kernel.name, as);
        else if (p >= 0)
            strbuf_addf(out, "%s; produced by #%lld %s\n", bad ? " BAD" : "", (long long)p,
                        s->kernels[p]->u.kernel.name);
        else
            strbuf_addf(out, "%s; no earlier kernel wrote it (a model input or weight)\n", bad ? " BAD" : "");
    }
    if (!any)
        strbuf_addstr(out, "    (no before-tensors recorded)\n");
}

/* ---- app glue --------------------------------------------------------- */

static void select_hit(app *a, const hunt_hit *h)
{
    a->focus = PANE_INSPECTOR;
    a->follow = 0;
    pane_goto(&a->panes[PANE_KERNELS], h->kernel, (int64_t)a->s->nkernels);
    a->insp_view = INSP_ALL;
    const kernel_event *ke = &a->s->kernels[h->kernel]->u.kernel;
    int64_t row = h->tensor - ke->tensors;
    a->panes[PANE_INSPECTOR].cursor = row;
    a->panes[PANE_INSPECTOR].top = 0;
    value_grid_goto_flat(a, h->tensor, h->first_bad);   /* the grid's cursor on the first bad value */
}

static int finish_hunt(app *a, int kind, double tol)
{
    hunt_hit h;
    int found = kind == 1 ? hunt_nan(a->s, &h) : hunt_diverge(a->s, a->ref, tol, &h);
    if (!found) {
        if (kind == 1)
            app_message(a, 0, "hunt-nan: no kernel output holds NaN or Inf in this run (%zu kernels)",
                        a->s->nkernels);
        else
            app_message(a, 0, "hunt-diverge: every after-tensor matches the reference within %g (%zu kernels)", tol,
                        a->s->nkernels);
        return AF_HANDLED | AF_REDRAW;
    }
    select_hit(a, &h);
    strbuf rep = STRBUF_INIT;
    hunt_report(a->s, &h, &rep);
    textview_open(a, kind == 1 ? "hunt-nan report" : "hunt-diverge report", rep.buf, 0);
    strbuf idx = STRBUF_INIT;
    if (h.first_bad >= 0)
        fmt_index(&idx, h.tensor, h.first_bad);
    else
        strbuf_addstr(&idx, "?");
    app_message(a, 0, "%s: kernel #%lld %s, tensor %s, first bad index %s (q closes the report)",
                kind == 1 ? "hunt-nan" : "hunt-diverge", (long long)h.kernel, h.kernel_name, h.tensor->name,
                idx.buf);
    strbuf_release(&idx);
    strbuf_release(&rep);
    return AF_HANDLED | AF_REDRAW;
}

/* Continues the stopped runner for the pending hunt. */
static int hunt_launch(app *a)
{
    runner_client_set_breaks(a->rc, BREAK_ON_ERROR | (a->hunt_pending == 1 ? BREAK_ON_NAN : 0));
    if (runner_client_continue(a->rc) < 0)
        return -1;
    a->hunt_launched = 1;
    return 0;
}

/* Live: let the run go on to the end (stopping at NaN for hunt-nan), then
 * hunt over what was recorded. */
static int live_hunt(app *a, int kind)
{
    if (!a->rc) {
        if (a->gated) {
            app_message(a, 1, "the run did not start: a checklist row FAILs (pane 2); --force runs anyway");
            return AF_FAILED | AF_REDRAW;
        }
        return finish_hunt(a, kind, a->hunt_tol);
    }
    runner_state st = runner_client_state(a->rc);
    if (st == RUNNER_FINISHED || st == RUNNER_DEAD)
        return finish_hunt(a, kind, a->hunt_tol);
    if (kind == 1 && app_next_anomaly(a, -1) >= 0)
        return finish_hunt(a, kind, a->hunt_tol);   /* already recorded */
    a->hunt_pending = kind;
    a->hunt_launched = 0;
    if (st == RUNNER_STOPPED && hunt_launch(a) < 0) {
        a->hunt_pending = 0;
        app_message(a, 1, "hunt: the runner is not stopped at a kernel (r restarts)");
        return AF_FAILED | AF_REDRAW;
    }   /* still loading: live_pump launches it at the first stop */
    a->follow = 1;
    app_message(a, 0, "%s: running%s...", kind == 1 ? "hunt-nan" : "hunt-diverge",
                kind == 1 ? " to the first NaN/Inf" : " to the end");
    return AF_HANDLED | AF_REDRAW;
}

void hunt_live_settled(app *a)
{
    if (a->hunt_pending && !a->hunt_launched && a->rc && runner_client_state(a->rc) == RUNNER_STOPPED) {
        if (hunt_launch(a) < 0) {
            a->hunt_pending = 0;
            app_message(a, 1, "hunt: the runner did not continue (r restarts)");
        }
        return;
    }
    int kind = a->hunt_pending;
    a->hunt_pending = 0;
    if (kind)
        finish_hunt(a, kind, a->hunt_tol);
}

int hunt_action_nan(app *a, const char *arg)
{
    (void)arg;
    if (a->mode == MODE_LIVE)
        return live_hunt(a, 1);
    return finish_hunt(a, 1, 0);
}

int hunt_action_diverge(app *a, const char *arg)
{
    if (!a->ref) {
        app_message(a, 1, "hunt-diverge needs a reference session: start with --reference S.yaml");
        return AF_FAILED | AF_REDRAW;
    }
    double tol = DEFAULT_TOL;
    if (arg && *arg) {
        char *end;
        tol = strtod(arg, &end);
        if (*end || !(tol >= 0) || !isfinite(tol)) {
            app_message(a, 1, "hunt-diverge: TOL is a number >= 0, e.g. 1e-4");
            return AF_FAILED | AF_REDRAW;
        }
    }
    a->hunt_tol = tol;
    if (a->mode == MODE_LIVE)
        return live_hunt(a, 2);
    return finish_hunt(a, 2, tol);
}

int hunt_action_producer(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    const tensor_rec *t = NULL;
    if (k && arg && *arg) {   /* by name: the kernel's before-tensor of that name */
        t = session_find_tensor(a->s, k->index, arg, PHASE_BEFORE);
        if (!t)
            t = session_find_tensor(a->s, k->index, arg, PHASE_AFTER);
    } else {
        t = pane_inspector_selected(a);
    }
    if (!k || !t) {
        app_message(a, 1, "producer: select a tensor of this kernel in the inspector (4) first");
        return AF_FAILED | AF_REDRAW;
    }
    if (t->phase == PHASE_AFTER) {   /* what the kernel read under that name */
        const tensor_rec *b = session_find_tensor(a->s, k->index, t->name, PHASE_BEFORE);
        if (b)
            t = b;
    }
    const char *as = NULL;
    int64_t p = hunt_producer_of(a->s, k->index, t, &as);
    if (p < 0) {
        app_message(a, 0, "producer: no kernel before #%lld wrote %s (a model input or weight)", (long long)k->index,
                    t->name);
        return AF_HANDLED | AF_REDRAW;
    }
    char nm[128], orig[128];
    snprintf(nm, sizeof nm, "%s", as);
    snprintf(orig, sizeof orig, "%s", t->name);
    a->follow = 0;
    a->view_on = 0;
    pane_goto(&a->panes[PANE_KERNELS], p, (int64_t)a->s->nkernels);
    const kernel_event *pk = &a->s->kernels[p]->u.kernel;
    a->insp_view = INSP_ALL;
    a->panes[PANE_INSPECTOR].cursor = 0;
    for (size_t i = 0; i < pk->ntensors; i++)
        if (pk->tensors[i].phase == PHASE_AFTER && !strcmp(pk->tensors[i].name, nm)) {
            a->panes[PANE_INSPECTOR].cursor = (int64_t)i;
            break;
        }
    a->panes[PANE_INSPECTOR].top = 0;
    value_grid_reset(a);
    a->focus = PANE_INSPECTOR;
    if (strcmp(nm, orig))
        app_message(a, 0, "%s was produced by kernel #%lld %s as %s (buffer reused)", orig, (long long)p, pk->name, nm);
    else
        app_message(a, 0, "%s was produced by kernel #%lld %s", orig, (long long)p, pk->name);
    return AF_HANDLED | AF_REDRAW;
}
