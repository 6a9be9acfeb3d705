/* test_tui_hunt.c — hunts, producers, the reference diff, the run mode on
 * screen, the router's actions and the action list, on the fixture session
 * (values computed by real arithmetic in test_tui_fixture.h). Expectations
 * are computed here from the tensors' values, not written in. */
#include <math.h>
#include <stdlib.h>
#include "protocol.h"
#include "actions.h"
#include "app.h"
#include "check.h"
#include "hunt.h"
#include "hunts.h"
#include "pane_inspector.h"
#include "pane_router.h"
#include "panes.h"
#include "render.h"
#include "route_actions.h"
#include "textview.h"
#include "router.h"
#include "test_tui_fixture.h"
#include "tui.h"

static strbuf render(app *a, int w, int h)
{
    grid g;
    grid_init(&g, w, h, 1);
    app_render(a, &g);
    strbuf out = STRBUF_INIT;
    grid_dump(&g, &out);
    grid_free(&g);
    return out;
}

static void test_hunt_nan(void)
{
    session *s = fx_session(4);
    /* expected: the first kernel whose after values are non-finite, and the
     * first index there, by scanning the values directly */
    int64_t want_k = -1, want_i = -1;
    for (size_t k = 0; k < s->nkernels && want_k < 0; k++) {
        const kernel_event *ke = &s->kernels[k]->u.kernel;
        for (size_t t = 0; t < ke->ntensors && want_k < 0; t++)
            if (ke->tensors[t].phase == PHASE_AFTER)
                for (size_t i = 0; i < ke->tensors[t].nvalues; i++)
                    if (!isfinite(ke->tensors[t].values[i])) {
                        want_k = (int64_t)k;
                        want_i = (int64_t)i;
                        break;
                    }
    }
    CHECK(want_k == 2);   /* the log kernel: relu's zeros, shifted, go negative */
    hunt_hit h;
    CHECK(hunt_nan(s, &h) == 1);
    CHECK(h.kernel == want_k);
    CHECK_STR(h.kernel_name, "cpp_fused_log_1");
    CHECK(h.first_bad == want_i);
    strbuf rep = STRBUF_INIT;
    hunt_report(s, &h, &rep);
    CHECK_CONTAINS(rep.buf, "kernel #2 cpp_fused_log_1");
    CHECK_CONTAINS(rep.buf, "produced by #1 aoti_torch_cpu_addmm_out");
    strbuf idx = STRBUF_INIT;
    fmt_index(&idx, h.tensor, want_i);
    char line[64];
    snprintf(line, sizeof line, "first bad index: %s", idx.buf);
    CHECK_CONTAINS(rep.buf, line);
    CHECK(hunt_producer(s, 2, "buf0") == 1);
    CHECK(hunt_producer(s, 0, "buf0") == -1);
    strbuf_release(&idx);
    strbuf_release(&rep);
    session_free(s);
}

/* With --eager: an after-tensor whose only non-finite values are +-Inf that
 * the eager program computes too (a check of it found it close) is the
 * model's, no anomaly; NaN, or an Inf eager does not have, still is. */
static void test_hunt_nan_skips_eagers_infinities(void)
{
    session *s = fx_session(0);
    kernel_event *k = &s->kernels[2]->u.kernel;
    tensor_rec *t = NULL;
    for (size_t i = 0; i < k->ntensors; i++)
        if (k->tensors[i].phase == PHASE_AFTER)
            t = &k->tensors[i];
    CHECK(t && t->nvalues > 1);
    for (size_t i = 0; i < t->nvalues; i++)
        t->values[i] = i == 1 ? INFINITY : 1.0;
    fx_stats(t);
    eager_check c = {.node = "log", .tensor = t->name, .verdict = EAGER_CLOSE, .first = -1, .max_at = -1};
    k->eager = &c;
    k->neager = 1;
    int eagers = 0;
    CHECK(kernel_nonfinite_own(k, &eagers) == 0 && eagers == NONFIN_POSINF);
    hunt_hit h;
    CHECK(hunt_nan(s, &h) == 0);   /* nothing else in the fixture is non-finite */
    c.verdict = EAGER_DIFFERS;     /* eager has a finite value there: the Inf is the package's */
    CHECK(kernel_nonfinite_own(k, &eagers) == NONFIN_POSINF && eagers == 0);
    CHECK(hunt_nan(s, &h) == 1 && h.kernel == 2 && h.first_bad == 1);
    c.verdict = EAGER_CLOSE;
    t->values[0] = NAN;            /* a NaN always counts */
    fx_stats(t);
    CHECK(kernel_nonfinite_own(k, NULL) == (NONFIN_NAN | NONFIN_POSINF));
    CHECK(hunt_nan(s, &h) == 1 && h.kernel == 2 && h.first_bad == 0);
    k->eager = NULL;
    k->neager = 0;
    session_free(s);
}

static void test_compare_and_diverge(void)
{
    session *s = fx_session(0), *ref = fx_session(0);
    /* one value of kernel 1's output moves by 0.5 */
    tensor_rec *t = &s->kernels[1]->u.kernel.tensors[1];
    t->values[9] += 0.5;
    fx_stats(t);
    tensor_diff d;
    tensor_compare(t, &ref->kernels[1]->u.kernel.tensors[1], 1e-6, &d);
    CHECK(d.by_values && d.first_diff == 9 && d.differing == 1);
    CHECK(fabs(d.max_abs - 0.5) < 1e-12);
    tensor_compare(t, &ref->kernels[1]->u.kernel.tensors[1], 10, &d);
    CHECK(d.differing == 0);
    strbuf ix = STRBUF_INIT;
    fmt_index(&ix, t, 9);                 /* 4x6: flat 9 is row 1, column 3 */
    CHECK_STR(ix.buf, "[1, 3]");
    strbuf_release(&ix);
    hunt_hit h;
    CHECK(hunt_diverge(s, ref, 1e-6, &h) == 1);
    CHECK(h.kernel == 1 && h.first_bad == 9);
    /* the same run against itself: nothing diverges (NaN == NaN) */
    CHECK(hunt_diverge(ref, ref, 0, &h) == 0);
    /* statistics only: still found, and said so */
    for (size_t k = 0; k < s->nkernels; k++)
        for (size_t i = 0; i < s->kernels[k]->u.kernel.ntensors; i++)
            s->kernels[k]->u.kernel.tensors[i].nvalues = 0;
    CHECK(hunt_diverge(s, ref, 1e-6, &h) == 1);
    CHECK(h.kernel == 1 && !h.diff.by_values && h.first_bad == -1);
    strbuf rep = STRBUF_INIT;
    hunt_report(s, &h, &rep);
    CHECK_CONTAINS(rep.buf, "statistics only");
    strbuf_release(&rep);
    session_free(s);
    session_free(ref);
}

static void test_app_hunts_and_reference(void)
{
    session *s = fx_session(0);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    a.router_off = 1;
    CHECK(!(actions_token(&a, "hunt-nan") & AF_FAILED));
    CHECK(a.panes[PANE_KERNELS].cursor == 2 && textview_is_open(&a));
    CHECK_CONTAINS(a.message.buf, "hunt-nan: kernel #2 cpp_fused_log_1, tensor buf0");
    strbuf scr = render(&a, 100, 30);
    CHECK_CONTAINS(scr.buf, "hunt-nan report");
    strbuf_release(&scr);
    actions_token(&a, "q");               /* closes the report, not the app */
    CHECK(!textview_is_open(&a) && !a.quit);
    CHECK(!(actions_token(&a, "producer") & AF_FAILED));
    CHECK(a.panes[PANE_KERNELS].cursor == 1);
    CHECK_CONTAINS(a.message.buf, "produced by kernel #1 aoti_torch_cpu_addmm_out");
    /* hunt-diverge needs a reference */
    CHECK(actions_token(&a, "hunt-diverge") & AF_FAILED);
    a.ref = fx_session(0);
    tensor_rec *t = &s->kernels[0]->u.kernel.tensors[1];
    t->values[13] = t->values[13] * 2 + 1;
    CHECK(!(actions_token(&a, "hunt-diverge:1e-9") & AF_FAILED));
    CHECK(a.panes[PANE_KERNELS].cursor == 0);
    actions_token(&a, "q");
    scr = render(&a, 120, 40);            /* the inspector's line against the reference */
    CHECK_CONTAINS(scr.buf, "vs ref: first diff at [2, 1] (1/24 differ)");   /* flat 13 of 4x6 */
    strbuf_release(&scr);
    app_release(&a);
}

static void test_mode_shown(void)
{
    session *s = fx_session(0);
    s->mode = "interpose";
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    a.router_off = 1;
    strbuf scr = render(&a, 120, 40);
    CHECK_CONTAINS(scr.buf, "kernels (3) [interpose: no tensor values]");
    CHECK_CONTAINS(scr.buf, "| interpose: no tensor values |");
    strbuf_release(&scr);
    s->mode = "reinstrument";
    scr = render(&a, 120, 40);
    CHECK_CONTAINS(scr.buf, "[reinstrument: rebuilt copy]");
    strbuf_release(&scr);
    app_release(&a);
}

static void test_router_actions(void)
{
    session *s = fx_session(0);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    CHECK(a.focus == PANE_ROUTER);
    strbuf scr = render(&a, 120, 40);
    CHECK_CONTAINS(scr.buf, "actions (x runs >):");
    CHECK_CONTAINS(scr.buf, "break-nan [!]");
    strbuf_release(&scr);
    /* right picks the next step; x runs the picked one */
    const struct route_result *rr = pane_router_selected(&a);
    CHECK(rr != NULL);
    if (rr && rr->nactions >= 2) {
        actions_token(&a, "right");
        CHECK(pane_router_act(&a) == 1 && a.focus == PANE_ROUTER);
        char want[80];
        snprintf(want, sizeof want, "next step 2: %s", rr->actions[1].name);
        CHECK_CONTAINS(a.message.buf, want);
        actions_token(&a, "left");
        CHECK(pane_router_act(&a) == 0);
    }
    CHECK(!(actions_token(&a, "jump-kernel") & AF_FAILED));   /* the error's kernel */
    CHECK(a.focus == PANE_KERNELS && a.panes[PANE_KERNELS].cursor == 2);
    actions_token(&a, "break-nan");
    CHECK(a.brk.nan == BREAK_ON_NAN);   /* NaN only */
    actions_token(&a, "run-checklist");
    CHECK(a.focus == PANE_CHECKLIST);
    CHECK_CONTAINS(a.message.buf, "2 rows, 0 FAIL, 1 WARN");
    /* the text view: search and scroll */
    textview_open(&a, "t", "alpha\nbeta\ngamma beta\n", 0);
    CHECK(textview_lines(&a) == 3);
    actions_token(&a, "search:beta");
    CHECK(a.view_hit == 1);
    actions_token(&a, "search-next");
    CHECK(a.view_hit == 2);
    /* untrusted source text: escape sequences are drawn as '?', never sent */
    textview_open(&a, "t", "x\x1b[2Jy\x07z\n", 0);
    strbuf scr2 = render(&a, 80, 24);
    CHECK_CONTAINS(scr2.buf, "x?[2Jy?z");
    CHECK(!strchr(scr2.buf, 0x1b));
    strbuf_release(&scr2);
    app_release(&a);
}

static void test_print_actions(void)
{
    FILE *f = tmpfile();
    CHECK(tui_print_actions(f) == 0);
    rewind(f);
    char line[512];
    size_t n = 0;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        CHECK(t1 && t2);
        found |= !strncmp(line, "hunt-nan\tF\t", 11);
    }
    fclose(f);
    CHECK(n == actions_count());
    CHECK(found);
}

int main(void)
{
    setenv("AOTIDBG_DATA_DIR", AOTIDBG_SOURCE_DIR, 1);
    actions_bind_defaults();
    RUN(test_hunt_nan);
    RUN(test_hunt_nan_skips_eagers_infinities);
    RUN(test_compare_and_diverge);
    RUN(test_app_hunts_and_reference);
    RUN(test_mode_shown);
    RUN(test_router_actions);
    RUN(test_print_actions);
    return CHECK_DONE();
}
