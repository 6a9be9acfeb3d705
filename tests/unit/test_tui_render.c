/* test_tui_render.c — what the rendered screen holds, by content: the
 * too-small screen, the panes' text for a session, narration waiting for an
 * action. Whole screens for given keys are scenario files in tests/screens/. */
#include <stdlib.h>
#include "actions.h"
#include "app.h"
#include "panes.h"
#include "render.h"
#include "check.h"
#include "test_tui_fixture.h"

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

static void test_too_small(void)
{
    session *s = fx_session(0);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    strbuf out = render(&a, 30, 8);
    CHECK_CONTAINS(out.buf, "terminal too small");
    CHECK_CONTAINS(out.buf, "40x10");
    CHECK_CONTAINS(out.buf, "q quits");
    strbuf_release(&out);
    CHECK(actions_token(&a, "q") & AF_QUIT);
    CHECK(a.quit);
    app_release(&a);
}

/* The panes show what the session holds: kernel names, the NaN mark computed
 * from the values, the route, the checklist rows. */
static void test_content(void)
{
    session *s = fx_session(0);
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    CHECK(a.focus == PANE_ROUTER);   /* a session with errors opens on the router */
    actions_token(&a, "pane-kernels");
    actions_token(&a, "next-anomaly");
    CHECK(a.panes[PANE_KERNELS].cursor == 2);
    strbuf out = render(&a, 120, 40);
    CHECK_CONTAINS(out.buf, "cpp_fused_log_1");
    CHECK_CONTAINS(out.buf, "NaN");             /* log(<0) = nan, counted from the values */
    CHECK_CONTAINS(out.buf, "nan    ");
    CHECK_CONTAINS(out.buf, "nan-inf");
    CHECK_CONTAINS(out.buf, "WARN NaN asserts compiled in");
    CHECK(strstr(out.buf, "non-contiguous") == NULL);
    strbuf_release(&out);
    /* the router's next steps for the selected error (core/router/router.h, routes.yaml) */
    actions_token(&a, "pane-router");
    actions_token(&a, "zoom");
    out = render(&a, 100, 40);
    CHECK_CONTAINS(out.buf, "route: nan-inf - ");
    CHECK_CONTAINS(out.buf, "1. ");
    actions_token(&a, "zoom");
    actions_token(&a, "pane-kernels");
    strbuf_release(&out);
    /* search: incremental over names, n wraps */
    CHECK(!(actions_token(&a, "search:addmm") & AF_FAILED));
    CHECK(a.panes[PANE_KERNELS].cursor == 1);
    CHECK(actions_token(&a, "search:nope") & AF_FAILED);
    /* the value grid scrolls, and clamps to the tensor's 4x6 extent */
    actions_token(&a, "goto:2");
    actions_token(&a, "values-right:2");
    actions_token(&a, "values-down:99");
    out = render(&a, 120, 40);
    CHECK_CONTAINS(out.buf, "rows 3-3 of 4, cols 2-5 of 6");
    strbuf_release(&out);
    app_release(&a);
}

/* A tutorial step that asks for an action waits for it, then advances. */
static void test_narration_waits(void)
{
    session *s = fx_session(0);
    app a;
    app_init(&a, s, MODE_TUTORIAL);
    a.owns_session = 1;
    a.narration_on = 1;
    narration_start(&a);
    CHECK(a.focus == PANE_ROUTER);
    actions_token(&a, "next-step");
    CHECK(a.step == 1);
    CHECK_STR(a.narration_waiting, "step");
    actions_token(&a, "next-step");   /* refuses: waits for step */
    CHECK(a.step == 1);
    CHECK_CONTAINS(a.message.buf, "waits for you");
    actions_token(&a, "s");
    CHECK(a.step == 2);
    CHECK(a.focus == PANE_INSPECTOR);
    CHECK(a.panes[PANE_KERNELS].cursor == 2);
    app_release(&a);
}

int main(void)
{
    setenv("AOTIDBG_DATA_DIR", AOTIDBG_SOURCE_DIR, 1);
    actions_bind_defaults();
    RUN(test_too_small);
    RUN(test_content);
    RUN(test_narration_waits);
    return CHECK_DONE();
}
