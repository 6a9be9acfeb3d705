/* pane_checklist.c — the device/shape checklist rows of the session
 * (s->checks): status, what was checked, expected vs got; evidence and fix
 * for the selected row. */
#include <stdio.h>
#include <string.h>
#include "pane_checklist.h"
#include "pane_util.h"

static int64_t c_rows(app *a, pane *p)
{
    (void)p;
    return (int64_t)a->s->nchecks;
}

static int status_el(check_status st)
{
    switch (st) {
    case CHECK_PASS: return EL_OK;
    case CHECK_WARN: return EL_WARN;
    case CHECK_FAIL: return EL_ERROR;
    default: return EL_DIM;
    }
}

static void c_render(app *a, pane *p, grid *g, int focused)
{
    int64_t n = c_rows(a, p);
    int fails = 0;
    for (size_t i = 0; i < a->s->nchecks; i++)
        fails += a->s->checks[i].status == CHECK_FAIL;
    char title[256], ended[192];
    const runner_exit_event *ex = session_runner_exit(a->s);
    const char *exit_line = ex && strcmp(ex->how, "killed") ? pane_exit_what(a->s, ended, sizeof ended) : NULL;
    snprintf(title, sizeof title, "checklist (%lld, %d failed)%s%s%s", (long long)n, fails,
             exit_line ? " - " : "", exit_line ? exit_line : "", exit_line ? ", check these first" : "");
    rect in = pane_frame(g, p, focused, title);
    if (!n) {
        pane_empty(g, in, "no checks recorded (aotidbg check PKG runs them)");
        return;
    }
    int detail = in.h >= 8 ? 3 : 0;
    int list_h = in.h - detail;
    pane_scroll_into_view(p, list_h);
    for (int i = 0; i < list_h && p->top + i < n; i++) {
        const check_row *c = &a->s->checks[p->top + i];
        int sel = p->top + i == p->cursor;
        int y = in.y + i;
        if (sel)
            grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
        int x = grid_printf(g, in.x, y, in.w, sel ? EL_SELECTED : status_el(c->status), "%-4s ",
                            check_status_name(c->status));
        char rest[512];
        if (c->expected || c->got)
            snprintf(rest, sizeof rest, "%s: want %s, got %s", c->subject, c->expected ? c->expected : "-",
                     c->got ? c->got : "-");
        else
            snprintf(rest, sizeof rest, "%s", c->subject);
        grid_put(g, in.x + x, y, in.w - x, sel ? EL_SELECTED : EL_NORMAL, rest);
    }
    if (detail && p->cursor < n) {
        const check_row *c = &a->s->checks[p->cursor];
        int y = in.y + list_h;
        grid_hline(g, in.x, y, in.w, EL_BORDER);
        grid_printf(g, in.x, y + 1, in.w, EL_DIM, "%s  (%s)", c->id, c->source ? c->source : "no source");
        if (c->fix)
            grid_printf(g, in.x, y + 2, in.w, EL_WARN, "fix: %s", c->fix);
    }
}

static const char *c_row_text(app *a, pane *p, int64_t row, strbuf *buf)
{
    (void)p;
    if (row < 0 || (size_t)row >= a->s->nchecks)
        return NULL;
    const check_row *c = &a->s->checks[row];
    strbuf_addf(buf, "%s %s %s", check_status_name(c->status), c->id, c->subject);
    return buf->buf;
}

const pane_ops pane_checklist_ops = {
    .name = "checklist",
    .rows = c_rows,
    .render = c_render,
    .row_text = c_row_text,
};
