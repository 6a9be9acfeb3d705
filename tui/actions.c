/* actions.c — the action table, key bindings and dispatch (see actions.h). */
#include "actions.h"
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hunt.h"
#include "live.h"
#include "route_actions.h"
#include "router.h"
#include "value_grid.h"
#include "ytree.h"

/* ---- movement over the focused pane ---------------------------------- */

static pane *cur(app *a) { return &a->panes[a->focus]; }
static int64_t nrows(app *a) { return cur(a)->ops->rows(a); }

static int move_by(app *a, int64_t d)
{
    if (a->view_on && !a->help) {   /* the text view scrolls */
        a->view_top += d;
        if (a->view_top < 0)
            a->view_top = 0;
        return AF_HANDLED | AF_REDRAW;
    }
    if (a->help) {
        a->help_top += d;
        if (a->help_top < 0)
            a->help_top = 0;
        return AF_HANDLED | AF_REDRAW;
    }
    pane *p = cur(a);
    int64_t n = nrows(a);
    if (a->focus == PANE_KERNELS)
        a->follow = 0;
    if (a->focus == PANE_INSPECTOR) {
        /* inspector rows are tensors; the kernel list keeps its own cursor */
    }
    pane_goto(p, p->cursor + d, n);
    if (a->focus == PANE_ROUTER)
        a->route_act = 0;   /* another error: its first next step */
    if (a->focus == PANE_KERNELS)
        a->insp_tensor = 0, a->panes[PANE_INSPECTOR].cursor = 0, a->panes[PANE_INSPECTOR].top = 0;
    if (a->focus == PANE_KERNELS || a->focus == PANE_INSPECTOR)
        value_grid_reset(a);   /* another tensor: its grid starts at [0, 0], default view */
    return AF_HANDLED | AF_REDRAW;
}

static int page(app *a) { int pg = cur(a)->page; return pg > 1 ? pg - 1 : 1; }
static int a_down(app *a, const char *arg) { return move_by(a, arg && *arg ? atoll(arg) : 1); }
static int a_up(app *a, const char *arg) { return move_by(a, -(arg && *arg ? atoll(arg) : 1)); }
static int a_pgdn(app *a, const char *arg) { return move_by(a, page(a)); }
static int a_pgup(app *a, const char *arg) { return move_by(a, -page(a)); }
static int a_top(app *a, const char *arg)
{
    if (a->view_on && !a->help) return move_by(a, -a->view_top);
    return move_by(a, -(cur(a)->cursor + (a->help ? a->help_top : 0)));
}
static int a_bottom(app *a, const char *arg)
{
    if (a->view_on && !a->help) return move_by(a, textview_lines(a));
    if (a->help) return move_by(a, 1 << 20);
    return move_by(a, nrows(a) - 1 - cur(a)->cursor);
}

static int focus(app *a, int p)
{
    a->focus = ((p % PANE__COUNT) + PANE__COUNT) % PANE__COUNT;
    a->help = 0;
    a->view_on = 0;
    return AF_HANDLED | AF_REDRAW;
}
static int a_next_pane(app *a, const char *arg) { return focus(a, a->focus + 1); }
static int a_prev_pane(app *a, const char *arg) { return focus(a, a->focus - 1); }
static int a_pane1(app *a, const char *arg) { return focus(a, PANE_ROUTER); }
static int a_pane2(app *a, const char *arg) { return focus(a, PANE_CHECKLIST); }
static int a_pane3(app *a, const char *arg) { return focus(a, PANE_KERNELS); }
static int a_pane4(app *a, const char *arg) { return focus(a, PANE_INSPECTOR); }

/* In the router, left/right choose among the selected error's next steps. */
static int route_pick(app *a, int d)
{
    if (a->focus != PANE_ROUTER || a->help || a->view_on)
        return 0;
    const route_result *rr = pane_router_selected(a);
    if (!rr || rr->nactions < 2)
        return 0;
    a->route_act = (int)((a->route_act + d + (int)rr->nactions) % (int)rr->nactions);
    app_message(a, 0, "next step %d: %s (x or Enter runs it)", a->route_act + 1, rr->actions[a->route_act].name);
    return AF_HANDLED | AF_REDRAW;
}

static int a_left(app *a, const char *arg)
{
    int r = route_pick(a, -1);
    if (r)
        return r;
    if (a->focus == PANE_INSPECTOR && !a->help) {
        a->insp_view = (a->insp_view + INSP__COUNT - 1) % INSP__COUNT;
        return AF_HANDLED | AF_REDRAW;
    }
    return a_prev_pane(a, arg);
}
static int a_right(app *a, const char *arg)
{
    int r = route_pick(a, 1);
    if (r)
        return r;
    if (a->focus == PANE_INSPECTOR && !a->help) {
        a->insp_view = (a->insp_view + 1) % INSP__COUNT;
        return AF_HANDLED | AF_REDRAW;
    }
    return a_next_pane(a, arg);
}

/* Value grid scrolling: the cursor moves along with the view; the
 * inspector clamps both to the slice's extent (tui/value_grid.c). */
static int vscroll(app *a, int64_t dr, int64_t dc)
{
    a->vrow += dr;
    a->vcol += dc;
    a->grid_crow += dr;
    a->grid_ccol += dc;
    if (a->vrow < 0) a->vrow = 0;
    if (a->vcol < 0) a->vcol = 0;
    if (a->grid_crow < 0) a->grid_crow = 0;
    if (a->grid_ccol < 0) a->grid_ccol = 0;
    return AF_HANDLED | AF_REDRAW;
}
static int a_vdown(app *a, const char *arg) { return vscroll(a, arg && *arg ? atoll(arg) : 1, 0); }
static int a_vup(app *a, const char *arg) { return vscroll(a, -(arg && *arg ? atoll(arg) : 1), 0); }
static int a_vright(app *a, const char *arg) { return vscroll(a, 0, arg && *arg ? atoll(arg) : 1); }
static int a_vleft(app *a, const char *arg) { return vscroll(a, 0, -(arg && *arg ? atoll(arg) : 1)); }

static int a_view(app *a, const char *arg)
{
    static const char *const names[INSP__COUNT] = {"all", "before", "after", "diff"};
    if (arg && *arg) {
        for (int i = 0; i < INSP__COUNT; i++)
            if (!strcmp(arg, names[i])) {
                a->insp_view = i;
                return AF_HANDLED | AF_REDRAW;
            }
        app_message(a, 1, "view: expected all, before, after or diff");
        return AF_FAILED;
    }
    a->insp_view = (a->insp_view + 1) % INSP__COUNT;
    return AF_HANDLED | AF_REDRAW;
}

/* ---- search ----------------------------------------------------------- */

/* Finds the next row of pane p (from cursor, in direction dir) whose text
 * holds the pattern. The kernel list compares names directly: no formatting,
 * so a million rows scan in milliseconds. */
static int64_t find_row(app *a, int p, int dir, int include_cursor)
{
    pane *pn = &a->panes[p];
    int64_t n = pn->ops->rows(a);
    if (n <= 0 || !a->search[0])
        return -1;
    strbuf buf = STRBUF_INIT;
    int64_t start = pn->cursor + (include_cursor ? 0 : dir);
    int64_t found = -1;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = ((start + dir * k) % n + n) % n;
        const char *t;
        if (p == PANE_KERNELS)
            t = a->s->kernels[r]->u.kernel.name;
        else {
            strbuf_reset(&buf);
            t = pn->ops->row_text(a, r, &buf);
        }
        if (t && strstr(t, a->search)) {
            found = r;
            break;
        }
    }
    strbuf_release(&buf);
    return found;
}

static int search_go(app *a, int dir, int include_cursor)
{
    if (!a->search[0]) {
        app_message(a, 1, "no search pattern: press / first");
        return AF_FAILED;
    }
    if (a->view_on && !a->help) {
        int64_t line = textview_find(a, a->search, dir, include_cursor);
        if (line < 0) {
            app_message(a, 1, "not found: %s", a->search);
            return AF_HANDLED | AF_REDRAW | AF_FAILED;
        }
        a->view_hit = line;
        a->view_top = line > 2 ? line - 2 : 0;
        app_message(a, 0, "/%s: line %lld", a->search, (long long)line + 1);
        return AF_HANDLED | AF_REDRAW;
    }
    int p = a->search_pane >= 0 ? a->search_pane : a->focus;
    int64_t r = find_row(a, p, dir, include_cursor);
    if (r < 0) {
        app_message(a, 1, "not found: %s", a->search);
        return AF_HANDLED | AF_REDRAW | AF_FAILED;
    }
    a->focus = p;
    if (p == PANE_KERNELS)
        a->follow = 0;
    pane_goto(&a->panes[p], r, a->panes[p].ops->rows(a));
    app_message(a, 0, "/%s: row %lld", a->search, (long long)r);
    return AF_HANDLED | AF_REDRAW;
}

static int a_search(app *a, const char *arg)
{
    if (!arg) {   /* interactive: open the prompt */
        a->prompt = '/';
        strbuf_reset(&a->input);
        return AF_HANDLED | AF_REDRAW;
    }
    snprintf(a->search, sizeof a->search, "%s", arg);
    a->search_pane = a->focus == PANE_INSPECTOR ? PANE_KERNELS : a->focus;
    return search_go(a, 1, 1);
}
static int a_search_next(app *a, const char *arg)
{
    if (!a->search[0] && a->narration_on) {   /* tutorials: n also turns the page */
        int i = actions_find("next-step");
        return actions_run(a, i, NULL);
    }
    return search_go(a, 1, 0);
}
static int a_search_prev(app *a, const char *arg) { return search_go(a, -1, 0); }

/* ---- run control: live drives the runner, replay walks the recording -- */

static int64_t kcount(app *a) { return (int64_t)a->s->nkernels; }

static int replay_goto(app *a, int64_t k)
{
    if (kcount(a) == 0) {
        app_message(a, 1, "the session has no kernels");
        return AF_FAILED;
    }
    a->follow = 1;
    pane_goto(&a->panes[PANE_KERNELS], k, kcount(a));
    a->insp_tensor = 0;
    a->panes[PANE_INSPECTOR].cursor = a->panes[PANE_INSPECTOR].top = 0;
    value_grid_reset(a);
    const kernel_event *ke = app_selected_kernel(a);
    if (ke)
        app_message(a, 0, "kernel %lld: %s (%s)", (long long)ke->index, ke->name, kernel_status_name(ke->status));
    return AF_HANDLED | AF_REDRAW;
}

static int a_step(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_step(a) == 0 ? AF_HANDLED | AF_REDRAW : AF_FAILED | AF_REDRAW;
    int64_t c = a->panes[PANE_KERNELS].cursor;
    if (c + 1 >= kcount(a)) {
        app_message(a, 0, "at the last kernel");
        return AF_HANDLED | AF_REDRAW;
    }
    return replay_goto(a, c + 1);
}

static int a_continue(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_continue(a) == 0 ? AF_HANDLED | AF_REDRAW : AF_FAILED | AF_REDRAW;
    int64_t n = kcount(a), cur = a->panes[PANE_KERNELS].cursor;
    int64_t next = app_next_anomaly(a, cur);
    if (a->break_kernel > cur && (next < 0 || a->break_kernel < next))
        next = a->break_kernel;
    if (next >= 0 && next < n)
        return replay_goto(a, next);
    return n ? replay_goto(a, n - 1) : AF_FAILED;
}

static int a_restart(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_restart(a) == 0 ? AF_HANDLED | AF_REDRAW : AF_FAILED | AF_REDRAW;
    return replay_goto(a, 0);
}

static int a_next_anomaly(app *a, const char *arg)
{
    int64_t k = app_next_anomaly(a, a->panes[PANE_KERNELS].cursor);
    if (k >= 0) {
        a->focus = PANE_KERNELS;
        return replay_goto(a, k);
    }
    app_message(a, 0, "no anomaly after this kernel");
    return AF_HANDLED | AF_REDRAW;
}

static int a_break(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    if (!k) {
        app_message(a, 1, "no kernel selected");
        return AF_FAILED;
    }
    if (a->break_kernel == k->index) {
        a->break_kernel = -1;
        app_message(a, 0, "breakpoint cleared");
    } else {
        a->break_kernel = k->index;
        app_message(a, 0, "break before kernel %lld (%s)", (long long)k->index, k->name);
    }
    return AF_HANDLED | AF_REDRAW;
}

static int a_run_to(app *a, const char *arg)
{
    if (!arg || !*arg) {
        app_message(a, 1, "run-to: give a kernel index or name, e.g. :run-to 12");
        return AF_FAILED;
    }
    if (a->mode == MODE_LIVE)
        return live_run_to(a, arg) == 0 ? AF_HANDLED | AF_REDRAW : AF_FAILED | AF_REDRAW;
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (!*end) {
        if (v < 0 || v >= kcount(a)) {
            app_message(a, 1, "run-to: no kernel %lld (the session has %lld)", v, (long long)kcount(a));
            return AF_FAILED;
        }
        return replay_goto(a, v);
    }
    for (int64_t k = a->panes[PANE_KERNELS].cursor + 1; k < kcount(a); k++)
        if (!strcmp(a->s->kernels[k]->u.kernel.name, arg))
            return replay_goto(a, k);
    app_message(a, 1, "run-to: no kernel named %s after this one", arg);
    return AF_FAILED;
}

static int a_goto(app *a, const char *arg)
{
    a->focus = PANE_KERNELS;
    return a_run_to(a, arg);
}

static int a_follow(app *a, const char *arg)
{
    a->follow = !a->follow;
    app_message(a, 0, "follow the running kernel: %s", a->follow ? "on" : "off");
    return AF_HANDLED | AF_REDRAW;
}

/* ---- screen ----------------------------------------------------------- */

static int a_zoom(app *a, const char *arg) { a->zoom = !a->zoom; return AF_HANDLED | AF_REDRAW; }
static int a_help(app *a, const char *arg) { a->help = !a->help; a->help_top = 0; return AF_HANDLED | AF_REDRAW; }
static int a_redraw(app *a, const char *arg) { return AF_HANDLED | AF_REDRAW; }
static int a_command(app *a, const char *arg)
{
    if (arg && *arg)
        return actions_command(a, arg);
    a->prompt = ':';
    strbuf_reset(&a->input);
    return AF_HANDLED | AF_REDRAW;
}
static int a_quit(app *a, const char *arg)
{
    if (a->help) {   /* q leaves help first, like less */
        a->help = 0;
        return AF_HANDLED | AF_REDRAW;
    }
    if (a->view_on) {   /* then the text view */
        a->view_on = 0;
        return AF_HANDLED | AF_REDRAW;
    }
    a->quit = 1;
    return AF_HANDLED | AF_QUIT;
}
static int a_theme(app *a, const char *arg)
{
    strbuf err = STRBUF_INIT;
    if (theme_find_and_load(&a->th, arg, &err) < 0)
        app_message(a, 1, "%s", err.buf);
    else
        app_message(a, 0, "theme %s", a->th.name);
    strbuf_release(&err);
    return AF_HANDLED | AF_REDRAW;
}

/* ---- narration -------------------------------------------------------- */

static void narration_enter(app *a)
{
    a->narration_waiting = NULL;
    if (a->step >= a->s->nnarration)
        return;
    const narration_step *st = &a->s->narration[a->step];
    if (st->pane) {
        static const char *const names[PANE__COUNT] = {"router", "checklist", "kernels", "inspector"};
        for (int i = 0; i < PANE__COUNT; i++)
            if (!strcmp(st->pane, names[i]))
                a->focus = i;
    }
    if (st->event_index >= 0 && (size_t)st->event_index < a->s->nevents) {
        const event *e = a->s->events[st->event_index];
        if (e->kind == EV_KERNEL)
            pane_goto(&a->panes[PANE_KERNELS], e->u.kernel.index, kcount(a));
        else if (e->kind == EV_ERROR) {
            int64_t row = 0;   /* router rows are the error events in order */
            for (int64_t i = 0; i < st->event_index; i++)
                row += a->s->events[i]->kind == EV_ERROR;
            a->panes[PANE_ROUTER].cursor = row;
        }
    }
    if (st->action && *st->action)
        a->narration_waiting = st->action;
}

void narration_start(app *a)
{
    a->step = 0;
    narration_enter(a);
}

static int a_next_step(app *a, const char *arg)
{
    if ((!a->narration_on || !a->s->nnarration) && a->focus == PANE_ROUTER && !a->help && !a->view_on &&
        pane_router_selected(a) && pane_router_selected(a)->nactions)
        return ra_route_action(a, NULL);   /* Enter in the router runs the selected next step */
    if (!a->narration_on || !a->s->nnarration) {
        app_message(a, 0, "no walkthrough is open");
        return AF_HANDLED | AF_REDRAW;
    }
    if (a->narration_waiting) {
        int i = actions_find(a->narration_waiting);
        char keys[64] = "";
        if (i >= 0) {
            strbuf kb = STRBUF_INIT;
            actions_keys_text((size_t)i, &kb);
            snprintf(keys, sizeof keys, " (key %s)", kb.buf);
            strbuf_release(&kb);
        }
        app_message(a, 0, "this step waits for you: do '%s'%s", a->narration_waiting, keys);
        return AF_HANDLED | AF_REDRAW;
    }
    if (a->step + 1 >= a->s->nnarration) {
        app_message(a, 0, "end of the walkthrough: q quits, or keep exploring");
        return AF_HANDLED | AF_REDRAW;
    }
    a->step++;
    narration_enter(a);
    return AF_HANDLED | AF_REDRAW;
}

static int a_prev_step(app *a, const char *arg)
{
    if (!a->narration_on || a->step == 0)
        return AF_HANDLED;
    a->step--;
    narration_enter(a);
    return AF_HANDLED | AF_REDRAW;
}

/* ---- inspector: a .npy file as the selected tensor's reference --------- */

static int a_ref_npy(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    const tensor_rec *t = pane_inspector_selected(a);
    if (!k || !t) {
        app_message(a, 1, "ref-npy: select a tensor in the inspector (4) first");
        return AF_HANDLED | AF_REDRAW | AF_FAILED;
    }
    if (!arg || !*arg) {
        int had = inspector_npy_clear(a, k->index, t->name, t->phase);
        app_message(a, 0, "ref-npy: %s %s at kernel #%lld %s", phase_name(t->phase), t->name, (long long)k->index,
                    had ? "has no .npy reference now" : "had no .npy reference; ref-npy PATH attaches one");
        return AF_HANDLED | AF_REDRAW;
    }
    strbuf err = STRBUF_INIT;
    if (inspector_npy_attach(a, k->index, t->name, t->phase, arg, &err) < 0) {
        app_message(a, 1, "ref-npy: %s", err.buf);
        strbuf_release(&err);
        return AF_HANDLED | AF_REDRAW | AF_FAILED;
    }
    strbuf_release(&err);
    app_message(a, 0, "ref-npy: %s is the reference of %s %s at kernel #%lld", arg, phase_name(t->phase), t->name,
                (long long)k->index);
    return AF_HANDLED | AF_REDRAW;
}

/* ---- the table -------------------------------------------------------- */

static const action table[] = {
    {"down", "j Down", "[N]", "move down one row (the inspector: next tensor)", a_down},
    {"up", "k Up", "[N]", "move up one row", a_up},
    {"left", "h Left", "", "previous pane; inspector: previous view; router: previous next-step action", a_left},
    {"right", "l Right", "", "next pane; inspector: next view; router: next next-step action", a_right},
    {"page-down", "PgDn C-f", "", "move down one page", a_pgdn},
    {"page-up", "PgUp C-b", "", "move up one page", a_pgup},
    {"top", "g Home", "", "first row", a_top},
    {"bottom", "G End", "", "last row", a_bottom},
    {"next-pane", "Tab", "", "focus the next pane", a_next_pane},
    {"prev-pane", "S-Tab", "", "focus the previous pane", a_prev_pane},
    {"pane-router", "1", "", "focus the error router", a_pane1},
    {"pane-checklist", "2", "", "focus the device/shape checklist", a_pane2},
    {"pane-kernels", "3", "", "focus the kernel list", a_pane3},
    {"pane-inspector", "4", "", "focus the tensor inspector", a_pane4},
    {"search", "/", "TEXT", "search the focused pane (kernel names in the kernel list)", a_search},
    {"search-next", "n", "", "next match (in a walkthrough with no search: next step)", a_search_next},
    {"search-prev", "N", "", "previous match", a_search_prev},
    {"step", "s", "", "run to the next kernel (replay: select the next kernel)", a_step},
    {"continue", "c", "", "run to the end or the next break/anomaly", a_continue},
    {"restart", "r", "", "re-execute from the start in a fresh runner (replay: first kernel)", a_restart},
    {"break", "b", "", "toggle a breakpoint before the selected kernel", a_break},
    {"run-to", "", "N|NAME", "run to kernel N or the next kernel named NAME", a_run_to},
    {"goto", "", "N|NAME", "select kernel N (or named NAME) in the kernel list", a_goto},
    {"next-anomaly", "a", "", "select the next kernel with NaN/Inf or an error", a_next_anomaly},
    {"follow", "f", "", "toggle following the running kernel", a_follow},
    {"view", "v", "[all|before|after|diff]", "inspector: cycle tensors shown (all, before, after, diff)", a_view},
    {"values-down", "J", "[N]", "inspector: scroll the value grid down", a_vdown},
    {"values-up", "K", "[N]", "inspector: scroll the value grid up", a_vup},
    {"values-right", "L", "[N]", "inspector: scroll the value grid right", a_vright},
    {"values-left", "H", "[N]", "inspector: scroll the value grid left", a_vleft},
    {"grid-cursor-down", "]", "[N]", "inspector: move the value grid's cursor down (scrolls to keep it shown)", vg_action_cdown},
    {"grid-cursor-up", "[", "[N]", "inspector: move the value grid's cursor up", vg_action_cup},
    {"grid-cursor-right", ">", "[N]", "inspector: move the value grid's cursor right", vg_action_cright},
    {"grid-cursor-left", "<", "[N]", "inspector: move the value grid's cursor left", vg_action_cleft},
    {"grid-axes", "", "[ROW COL]", "inspector: show the values over dims ROW x COL (no args: the last two dims)", vg_action_axes},
    {"grid-fix", "", "DIM IDX", "inspector: hold dim DIM (not a grid axis) at index IDX", vg_action_fix},
    {"grid-goto", "", "I,J,K", "inspector: put the value grid's cursor on the element [I, J, K]", vg_action_goto},
    {"zoom", "z", "", "zoom the focused pane full screen and back", a_zoom},
    {"route-action", "x", "[N]", "router: run the selected error's next step N (default the first; also Enter)", ra_route_action},
    {"run-checklist", "C", "", "focus the checklist on its first FAIL row (replay: run it when the package is here)", ra_run_checklist},
    {"rerun-blocking", "R", "", "live: rerun from kernel 0 with blocking launches (CUDA_LAUNCH_BLOCKING=1)", ra_rerun_blocking},
    {"rebuild-printer", "P", "[LEVEL]", "say how to rebuild the package with the printer at LEVEL (1-3)", ra_rebuild_printer},
    {"jump-kernel", "e", "[N|NAME]", "select the error's kernel (or kernel N / NAME) in the kernel list", ra_jump_kernel},
    {"open-source", "S", "[KERNEL]", "show the kernel's generated source: its body (kernel.cpp or wrapper.cpp), the failing line for an error", ra_open_source},
    {"break-nan", "!", "", "toggle breaking at the first kernel whose output holds NaN/Inf", ra_break_nan},
    {"hunt-nan", "F", "", "find the first kernel whose output holds NaN/Inf (live: run to it); report its inputs", hunt_action_nan},
    {"hunt-diverge", "D", "[TOL]", "find the first kernel whose output differs from --reference beyond TOL", hunt_action_diverge},
    {"producer", "p", "", "inspector: select the kernel that produced the selected tensor", hunt_action_producer},
    {"ref-npy", "", "[PATH]", "inspector: diff the selected tensor against a .npy file (no PATH: detach it)", a_ref_npy},
    {"next-step", "Enter Space", "", "walkthrough: next narration step", a_next_step},
    {"prev-step", "Backspace", "", "walkthrough: previous narration step", a_prev_step},
    {"help", "? F1", "", "this help (generated from the action table)", a_help},
    {"command", ":", "ACTION [ARG]", "command line: run any action by name", a_command},
    {"theme", "", "NAME", "switch theme (dark, light, high-contrast, mono, or a file)", a_theme},
    {"redraw", "C-l", "", "redraw the screen", a_redraw},
    {"quit", "q", "", "quit (closes help first)", a_quit},
};
#define NACTIONS (sizeof table / sizeof table[0])

size_t actions_count(void) { return NACTIONS; }
const action *actions_get(size_t i) { return i < NACTIONS ? &table[i] : NULL; }

int actions_find(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < NACTIONS; i++)
        if (!strcmp(table[i].name, name))
            return (int)i;
    return -1;
}

/* ---- keys ------------------------------------------------------------- */

static const struct { const char *name; int code; } named_keys[] = {
    {"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT}, {"Right", KEY_RIGHT},
    {"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE}, {"Home", KEY_HOME}, {"End", KEY_END},
    {"Tab", '\t'}, {"S-Tab", KEY_BTAB}, {"Enter", '\n'}, {"Space", ' '}, {"Esc", 27},
    {"Backspace", KEY_BACKSPACE}, {"Delete", KEY_DC}, {"Insert", KEY_IC},
};

int key_from_name(const char *name)
{
    if (!name || !*name)
        return -1;
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
        if (!strcmp(named_keys[i].name, name))
            return named_keys[i].code;
    if (name[0] == 'F' && name[1]) {
        char *end;
        long v = strtol(name + 1, &end, 10);
        if (!*end && v >= 1 && v <= 12)
            return KEY_F((int)v);
    }
    if (name[0] == 'C' && name[1] == '-' && name[2] && !name[3] && isalpha((unsigned char)name[2]))
        return tolower((unsigned char)name[2]) - 'a' + 1;
    if (!name[1] && isgraph((unsigned char)name[0]))
        return (unsigned char)name[0];
    return -1;
}

const char *keyname_of(int code, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
        if (named_keys[i].code == code) {
            snprintf(buf, n, "%s", named_keys[i].name);
            return buf;
        }
    if (code >= KEY_F(1) && code <= KEY_F(12))
        snprintf(buf, n, "F%d", code - KEY_F(0));
    else if (code >= 1 && code <= 26)
        snprintf(buf, n, "C-%c", 'a' + code - 1);
    else if (code > 32 && code < 127)
        snprintf(buf, n, "%c", code);
    else
        snprintf(buf, n, "#%d", code);
    return buf;
}

static short bindings[ACTION_MAX_KEYCODE];   /* key code -> action index + 1 */

static int bind_list(size_t ai, const char *keys)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", keys);
    for (char *save = NULL, *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int k = key_from_name(t);
        if (k < 0 || k >= ACTION_MAX_KEYCODE)
            return -1;
        bindings[k] = (short)(ai + 1);
    }
    return 0;
}

void actions_bind_defaults(void)
{
    memset(bindings, 0, sizeof bindings);
    for (size_t i = 0; i < NACTIONS; i++)
        bind_list(i, table[i].keys);
    bindings['\r'] = bindings['\n'];
    bindings[KEY_ENTER] = bindings['\n'];
    bindings[127] = bindings[KEY_BACKSPACE];
    bindings[8] = bindings[KEY_BACKSPACE];
}

int actions_for_key(int code)
{
    if (code < 0 || code >= ACTION_MAX_KEYCODE)
        return -1;
    return bindings[code] - 1;
}

void actions_keys_text(size_t ai, strbuf *out)
{
    char nb[32];
    int first = 1;
    for (int k = 0; k < ACTION_MAX_KEYCODE; k++) {
        if (bindings[k] != (short)(ai + 1))
            continue;
        if (k == '\r' || k == KEY_ENTER || k == 127 || k == 8)
            continue;   /* aliases of Enter and Backspace */
        if (!first)
            strbuf_addch(out, ' ');
        strbuf_addstr(out, keyname_of(k, nb, sizeof nb));
        first = 0;
    }
}

int actions_load_keys(const char *path, strbuf *err)
{
    ynode *root = ytree_load(path, err);
    if (!root)
        return -1;
    int rc = -1;
    const ynode *keys = ytree_get(root, "keys");
    if (root->type != YT_MAP || !keys || keys->type != YT_MAP) {
        const ynode *at = keys ? keys : root;
        strbuf_addf(err, "%s:%d:%d: expected a mapping 'keys:' of action: key or [keys]", path, at->line, at->col);
        goto out;
    }
    short saved[ACTION_MAX_KEYCODE];
    memcpy(saved, bindings, sizeof saved);
    for (size_t i = 0; i < keys->n; i++) {
        const ynode *kn = keys->keys[i], *v = keys->items[i];
        int ai = actions_find(kn->str);
        if (ai < 0) {
            strbuf_addf(err, "%s:%d:%d: unknown action '%s' (see the ? help for names)", path, kn->line, kn->col, kn->str);
            goto restore;
        }
        /* the new keys replace the action's defaults */
        for (int k = 0; k < ACTION_MAX_KEYCODE; k++)
            if (bindings[k] == ai + 1)
                bindings[k] = 0;
        size_t n = v->type == YT_SEQ ? v->n : 1;
        for (size_t j = 0; j < n; j++) {
            const ynode *kv = v->type == YT_SEQ ? v->items[j] : v;
            int code = kv->type == YT_SCALAR ? key_from_name(kv->str) : -1;
            if (code < 0 || code >= ACTION_MAX_KEYCODE) {
                strbuf_addf(err, "%s:%d:%d: unknown key '%s' (a character, Up, PgDn, Home, Tab, S-Tab, Enter, F1-F12, C-a..C-z)",
                            path, kv->line, kv->col, kv->type == YT_SCALAR ? kv->str : "?");
                goto restore;
            }
            bindings[code] = (short)(ai + 1);
            if (code == '\n')
                bindings['\r'] = bindings[KEY_ENTER] = (short)(ai + 1);
        }
    }
    rc = 0;
    goto out;
restore:
    memcpy(bindings, saved, sizeof saved);
out:
    ytree_free(root);
    return rc;
}

int actions_load_user_keys(strbuf *err)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char path[4096];
    if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/aotidbg/keys.yaml", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.config/aotidbg/keys.yaml", home);
    else
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    fclose(f);
    return actions_load_keys(path, err);
}

/* ---- dispatch --------------------------------------------------------- */

int actions_run(app *a, int i, const char *arg)
{
    if (i < 0 || (size_t)i >= NACTIONS)
        return AF_FAILED;
    strbuf_reset(&a->message);
    a->message_error = 0;
    int waiting = a->narration_waiting && !strcmp(a->narration_waiting, table[i].name);
    int r = table[i].fn(a, arg);
    app_clamp(a);
    if (waiting && !(r & AF_FAILED) && a->narration_waiting) {
        /* the learner did what the step asked: on to the next one */
        a->narration_waiting = NULL;
        if (a->step + 1 < a->s->nnarration) {
            a->step++;
            narration_enter(a);
        }
    }
    return r;
}

int actions_command(app *a, const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    if (!*line || *line == '#')
        return AF_HANDLED;
    char name[64];
    size_t n = strcspn(line, " \t");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, line, n);
    name[n] = 0;
    const char *arg = line + strcspn(line, " \t");
    while (isspace((unsigned char)*arg))
        arg++;
    char argbuf[256];
    snprintf(argbuf, sizeof argbuf, "%s", arg);
    size_t al = strlen(argbuf);
    while (al && isspace((unsigned char)argbuf[al - 1]))
        argbuf[--al] = 0;
    int i = actions_find(name);
    if (i < 0) {
        app_message(a, 1, "unknown action '%s' (? lists them)", name);
        return AF_FAILED | AF_REDRAW;
    }
    /* a command always carries its argument, even empty: never opens a prompt */
    return actions_run(a, i, argbuf);
}

int actions_token(app *a, const char *tok)
{
    const char *colon = strchr(tok, ':');
    if (colon && colon != tok) {
        char name[64];
        size_t n = (size_t)(colon - tok);
        if (n < sizeof name) {
            memcpy(name, tok, n);
            name[n] = 0;
            int i = actions_find(name);
            if (i >= 0)
                return actions_run(a, i, colon + 1);
        }
    }
    int i = actions_find(tok);
    if (i >= 0)
        return actions_run(a, i, "");
    int k = key_from_name(tok);
    if (k >= 0 && (i = actions_for_key(k)) >= 0)
        return actions_run(a, i, "");
    app_message(a, 1, "unknown action or key '%s'", tok);
    return AF_FAILED | AF_REDRAW;
}

/* The prompt line editor: printable text, Backspace, Enter runs, Esc cancels.
 * The search prompt is incremental: every keystroke re-searches. */
static int prompt_key(app *a, int code)
{
    if (code == 27 || code == 7) {
        a->prompt = 0;
        return AF_HANDLED | AF_REDRAW;
    }
    if (code == '\n' || code == '\r' || code == KEY_ENTER) {
        int kind = a->prompt;
        a->prompt = 0;
        char line[256];
        snprintf(line, sizeof line, "%s", a->input.buf);
        if (kind == ':')
            return actions_command(a, line) | AF_REDRAW;
        if (!line[0])
            return AF_HANDLED | AF_REDRAW;
        return actions_run(a, actions_find("search"), line) | AF_REDRAW;
    }
    if (code == KEY_BACKSPACE || code == 127 || code == 8) {
        if (a->input.len) {
            size_t l = a->input.len;
            do l--; while (l && ((unsigned char)a->input.buf[l] & 0xc0) == 0x80);
            strbuf_setlen(&a->input, l);
        } else {
            a->prompt = 0;
        }
    } else if (code >= 32 && code < 256 && code != 127 && a->input.len < 200) {
        strbuf_addch(&a->input, code);
    } else {
        return AF_HANDLED;
    }
    if (a->prompt == '/' && a->input.len) {
        snprintf(a->search, sizeof a->search, "%s", a->input.buf);
        a->search_pane = a->focus == PANE_INSPECTOR ? PANE_KERNELS : a->focus;
        int64_t r = find_row(a, a->search_pane, 1, 1);
        if (r >= 0)
            pane_goto(&a->panes[a->search_pane], r, a->panes[a->search_pane].ops->rows(a));
    }
    return AF_HANDLED | AF_REDRAW;
}

int actions_key(app *a, int code)
{
    if (a->prompt)
        return prompt_key(a, code);
    int i = actions_for_key(code);
    if (i < 0)
        return 0;
    return actions_run(a, i, NULL);
}

void actions_help_text(strbuf *out)
{
    for (size_t i = 0; i < NACTIONS; i++) {
        strbuf keys = STRBUF_INIT;
        actions_keys_text(i, &keys);
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", table[i].name, table[i].args[0] ? " " : "", table[i].args);
        strbuf_addf(out, "%-12s %-22s %s\n", keys.len ? keys.buf : "(:cmd)", left, table[i].help);
        strbuf_release(&keys);
    }
}
