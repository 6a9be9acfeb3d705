/* hunt.c — the hunts in the UI (see hunt.h): run them (live: let the run go
 * to the end or the first NaN first), select the hit in the kernel list and
 * the inspector, show the report in the text view. The analysis itself is
 * core/analysis/hunts.h. */
#include "hunt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hunts.h"
#include "nan_element.h"
#include "pane_inspector.h"
#include "protocol.h"
#include "live.h"
#include "run_service.h"
#include "textview.h"
#include "view.h"

#define DEFAULT_TOL 1e-4

static void select_hit(app *a, const hunt_hit *h)
{
    a->focus = PANE_INSPECTOR;
    a->follow = 0;
    pane_goto(&a->panes[PANE_KERNELS], h->kernel, (int64_t)a->s->nkernels);
    const kernel_event *ke = &a->s->kernels[h->kernel]->u.kernel;
    inspector_show(a, h->tensor - ke->tensors, h->tensor, h->first_bad);   /* the grid on the first bad value */
}

/* The hunts a live run waits for (live_run.hunt_pending, live.h). */
enum { HUNT_NAN = 1, HUNT_REF = 2, HUNT_EAGER = 3 };

static int finish_hunt(app *a, int kind, double tol)
{
    hunt_hit h;
    int found = kind == HUNT_NAN ? hunt_nan(a->s, &h) : kind == HUNT_EAGER ? hunt_eager(a->s, &h)
                                                                           : hunt_diverge(a->s, a->ref, tol, &h);
    if (!found) {
        if (kind == HUNT_NAN)
            app_message(a, 0, "hunt-nan: no kernel output holds NaN or Inf in this run (%zu kernels)",
                        a->s->nkernels);
        else if (kind == HUNT_EAGER)
            app_message(a, 0, "hunt-diverge: no kernel output departs from the eager program (%zu kernels)",
                        a->s->nkernels);
        else
            app_message(a, 0, "hunt-diverge: every after-tensor matches the reference within %g (%zu kernels)", tol,
                        a->s->nkernels);
        return AF_HANDLED;
    }
    select_hit(a, &h);
    strbuf rep = STRBUF_INIT;
    hunt_report(a->s, &h, &rep);
    if (kind == HUNT_NAN) {   /* the element, the inputs at it and the ops that can make it */
        arena ar = ARENA_INIT;
        nan_event tmp;
        const nan_event *ev = nan_event_of(a->s, &ar, &tmp);
        if (ev && ev->kernel_index == a->s->kernels[h.kernel]->u.kernel.index)
            nan_event_report(a->s, ev, &rep);
        arena_release(&ar);
    }
    textview_open(a, kind == HUNT_NAN ? "hunt-nan report" : "hunt-diverge report", rep.buf, 0);
    strbuf idx = STRBUF_INIT;
    if (h.first_bad >= 0)
        fmt_index(&idx, h.tensor, h.first_bad);
    else
        strbuf_addstr(&idx, "?");
    app_message(a, 0, "%s: kernel #%lld %s, tensor %s, first bad index %s (q closes the report)",
                kind == HUNT_NAN ? "hunt-nan" : "hunt-diverge", (long long)h.kernel, h.kernel_name, h.tensor->name,
                idx.buf);
    strbuf_release(&idx);
    strbuf_release(&rep);
    return AF_HANDLED;
}

/* Continues the stopped runner for the pending hunt. */
static int hunt_launch(app *a)
{
    live_run *L = a->live;
    if (run_service_continue(L->rs, BREAK_ON_ERROR | (L->hunt_pending == HUNT_NAN     ? BREAK_ON_NAN | BREAK_ON_INF
                                                      : L->hunt_pending == HUNT_EAGER ? BREAK_ON_DIVERGE
                                                                                      : 0)) < 0)
        return -1;
    L->hunt_launched = 1;
    return 0;
}

/* Live: let the run go on to the end (stopping at NaN for hunt-nan), then
 * hunt over what was recorded. */
static int live_hunt(app *a, int kind, double tol)
{
    live_run *L = a->live;
    if (!L || !run_service_has_runner(L->rs)) {
        if (L && L->gated) {
            app_message(a, 1, "the run did not start: a checklist row FAILs (pane 2); --force runs anyway");
            return AF_FAILED;
        }
        return finish_hunt(a, kind, tol);
    }
    runner_state st = run_service_state(L->rs);
    if (st == RUNNER_FINISHED || st == RUNNER_DEAD)
        return finish_hunt(a, kind, tol);
    hunt_hit seen;
    if ((kind == HUNT_NAN && app_next_anomaly(a, -1) >= 0) || (kind == HUNT_EAGER && hunt_eager(a->s, &seen)))
        return finish_hunt(a, kind, tol);   /* already recorded */
    if (L->nranks) {   /* one rank run on alone would wait in its next collective for the others */
        app_message(a, 1, "%s: with --ranks it reports over what is recorded: c runs every rank (! or --break-on "
                    "nan stops them at the first NaN), then hunt again", kind == HUNT_NAN ? "hunt-nan" : "hunt-diverge");
        return AF_FAILED;
    }
    L->hunt_pending = kind;
    L->hunt_launched = 0;
    L->hunt_tol = tol;
    if (st == RUNNER_STOPPED && hunt_launch(a) < 0) {
        L->hunt_pending = 0;
        app_message(a, 1, "hunt: the runner is not stopped at a kernel (r restarts)");
        return AF_FAILED;
    }   /* still loading: live_react launches it at the first stop */
    a->follow = 1;
    app_message(a, 0, "%s: running%s...", kind == HUNT_NAN ? "hunt-nan" : "hunt-diverge",
                kind == HUNT_NAN     ? " to the first NaN/Inf"
                : kind == HUNT_EAGER ? " to the first kernel that departs from eager"
                                     : " to the end");
    return AF_HANDLED;
}

void hunt_live_settled(app *a)
{
    live_run *L = a->live;
    if (!L)
        return;
    if (L->hunt_pending && !L->hunt_launched && run_service_state(L->rs) == RUNNER_STOPPED) {
        if (hunt_launch(a) < 0) {
            L->hunt_pending = 0;
            app_message(a, 1, "hunt: the runner did not continue (r restarts)");
        }
        return;
    }
    int kind = L->hunt_pending;
    L->hunt_pending = 0;
    if (kind)
        finish_hunt(a, kind, L->hunt_tol);
}

int hunt_action_nan(app *a, const char *arg)
{
    (void)arg;
    if (a->mode == MODE_LIVE)
        return live_hunt(a, HUNT_NAN, 0);
    return finish_hunt(a, HUNT_NAN, 0);
}

int hunt_action_diverge(app *a, const char *arg)
{
    /* against the eager program: the run's own checks (--eager), unless a
     * --reference session is given (`hunt-diverge eager` picks eager then too) */
    if (a->s->eager.present && (!a->ref || (arg && !strcmp(arg, "eager")))) {
        if (a->mode == MODE_LIVE)
            return live_hunt(a, HUNT_EAGER, 0);
        return finish_hunt(a, HUNT_EAGER, 0);
    }
    if (!a->ref) {
        app_message(a, 1, "hunt-diverge needs a reference: --reference S.yaml (another session of the model) or, "
                          "live, --eager PROGRAM.pt2 (its exported program)");
        return AF_FAILED;
    }
    double tol = DEFAULT_TOL;
    if (arg && *arg) {
        char *end;
        tol = strtod(arg, &end);
        if (*end || !(tol >= 0) || !isfinite(tol)) {
            app_message(a, 1, "hunt-diverge: TOL is a number >= 0, e.g. 1e-4");
            return AF_FAILED;
        }
    }
    if (a->mode == MODE_LIVE)
        return live_hunt(a, HUNT_REF, tol);
    return finish_hunt(a, HUNT_REF, tol);
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
        return AF_FAILED;
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
        return AF_HANDLED;
    }
    char nm[128], orig[128];
    snprintf(nm, sizeof nm, "%s", as);
    snprintf(orig, sizeof orig, "%s", t->name);
    a->follow = 0;
    view_close_all(a);
    pane_goto(&a->panes[PANE_KERNELS], p, (int64_t)a->s->nkernels);
    const kernel_event *pk = &a->s->kernels[p]->u.kernel;
    int64_t row = 0;
    for (size_t i = 0; i < pk->ntensors; i++)
        if (pk->tensors[i].phase == PHASE_AFTER && !strcmp(pk->tensors[i].name, nm)) {
            row = (int64_t)i;
            break;
        }
    inspector_show(a, row, NULL, -1);
    a->focus = PANE_INSPECTOR;
    if (strcmp(nm, orig))
        app_message(a, 0, "%s was produced by kernel #%lld %s as %s (buffer reused)", orig, (long long)p, pk->name, nm);
    else
        app_message(a, 0, "%s was produced by kernel #%lld %s", orig, (long long)p, pk->name);
    return AF_HANDLED;
}
