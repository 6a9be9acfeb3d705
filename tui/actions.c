/* actions.c — the action table, key bindings and dispatch (see actions.h). */
#include "actions.h"
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hunt.h"
#include "keymap.h"
#include "live.h"
#include "pane_inspector.h"
#include "pane_kernels.h"
#include "pane_router.h"
#include "ranks.h"
#include "router.h"
#include "pane_util.h"
#include "route_actions.h"
#include "source_actions.h"
#include "textview.h"
#include "timeview.h"
#include "view.h"
#include "ytree.h"
static void actions_keys_text(size_t ai, strbuf *out);   /* defined below */

/* ---- movement over the focused pane ---------------------------------- */

static pane *cur(app *a) { return &a->panes[a->focus]; }
static int64_t nrows(app *a) { return cur(a)->ops->rows(a, cur(a)); }

/* Asks pane p to handle req: its AF_* flags, 0 for the default. */
static int ask(app *a, pane *p, pane_request req)
{
    return p->ops->request ? p->ops->request(a, p, req, NULL) : 0;
}

static int move_by(app *a, int64_t d)
{
    if (a->over) {   /* the view over the panes scrolls */
        a->over->scroll_by(a, d);
        return AF_HANDLED;
    }
    pane *p = cur(a);
    char by[32];
    snprintf(by, sizeof by, "%lld", (long long)d);
    if (!(p->ops->request && p->ops->request(a, p, PREQ_MOVE_BY, by)))
        pane_goto(p, p->cursor + d, nrows(a));
    ask(a, p, PREQ_MOVED);
    return AF_HANDLED;
}

static int page(app *a) { int pg = cur(a)->page; return pg > 1 ? pg - 1 : 1; }
static int a_down(app *a, const char *arg) { return move_by(a, arg && *arg ? atoll(arg) : 1); }
static int a_up(app *a, const char *arg) { return move_by(a, -(arg && *arg ? atoll(arg) : 1)); }
static int a_pgdn(app *a, const char *arg) { return move_by(a, page(a)); }
static int a_pgup(app *a, const char *arg) { return move_by(a, -page(a)); }
static int a_top(app *a, const char *arg)
{
    return move_by(a, a->over ? -a->over->top(a) : -cur(a)->cursor);
}
static int a_bottom(app *a, const char *arg)
{
    return move_by(a, a->over ? 1 << 30 : nrows(a) - 1 - cur(a)->cursor);
}

static int focus(app *a, int p)
{
    a->focus = ((p % PANE__COUNT) + PANE__COUNT) % PANE__COUNT;
    view_close_all(a);
    return AF_HANDLED;
}
static int a_next_pane(app *a, const char *arg) { return focus(a, a->focus + 1); }
static int a_prev_pane(app *a, const char *arg) { return focus(a, a->focus - 1); }
/* pane-NAME: one focus action per row of pane_list.h */
#define PANE_FOCUS_FN(id, ops, name, key, what) \
    static int a_focus_##id(app *a, const char *arg) { return focus(a, id); }
AOTIDBG_PANES(PANE_FOCUS_FN)
#undef PANE_FOCUS_FN

/* Left/right: the focused pane's own meaning (the router's next step, the
 * inspector's view), else the previous/next pane. */
static int a_left(app *a, const char *arg)
{
    int r = a->over && !a->over->sides_to_panes ? 0 : ask(a, cur(a), PREQ_LEFT);
    return r ? r : a_prev_pane(a, arg);
}
static int a_right(app *a, const char *arg)
{
    int r = a->over && !a->over->sides_to_panes ? 0 : ask(a, cur(a), PREQ_RIGHT);
    return r ? r : a_next_pane(a, arg);
}

/* ---- search ----------------------------------------------------------- */

/* The pane a search started from the focused one goes to (pane_ops.search_in). */
static int search_target(app *a)
{
    int t = app_pane_index(a, cur(a)->ops->search_in);
    return t >= 0 ? t : a->focus;
}

/* Finds the next row of pane p (from cursor, in direction dir) whose text
 * holds the pattern. The kernel list compares names directly: no formatting,
 * so a million rows scan in milliseconds. */
static int64_t find_row(app *a, int p, int dir, int include_cursor)
{
    pane *pn = &a->panes[p];
    int64_t n = pn->ops->rows(a, pn);
    if (n <= 0 || !a->search[0])
        return -1;
    int64_t start = pn->cursor + (include_cursor ? 0 : dir);
    if (pn->ops->find)
        return pn->ops->find(a, pn, a->search, ((start % n) + n) % n, dir);
    strbuf buf = STRBUF_INIT;
    int64_t found = -1;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = ((start + dir * k) % n + n) % n;
        strbuf_reset(&buf);
        const char *t = pn->ops->row_text(a, pn, r, &buf);
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
    if (a->over && a->over->find)
        return a->over->find(a, dir, include_cursor);
    int p = a->search_pane >= 0 ? a->search_pane : a->focus;
    int64_t r = find_row(a, p, dir, include_cursor);
    if (r < 0) {
        app_message(a, 1, "not found: %s", a->search);
        return AF_HANDLED | AF_FAILED;
    }
    a->focus = p;
    pane_goto(&a->panes[p], r, a->panes[p].ops->rows(a, &a->panes[p]));
    ask(a, &a->panes[p], PREQ_MOVED);
    app_message(a, 0, "/%s: row %lld", a->search, (long long)r);
    return AF_HANDLED;
}

static int a_search(app *a, const char *arg)
{
    if (!arg) {   /* interactive: open the prompt */
        a->prompt = '/';
        strbuf_reset(&a->input);
        return AF_HANDLED;
    }
    snprintf(a->search, sizeof a->search, "%s", arg);
    a->search_pane = search_target(a);
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
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    const kernel_event *ke = app_selected_kernel(a);
    if (ke)
        app_message(a, 0, "kernel %lld: %s (%s)", (long long)ke->index, ke->name, kernel_status_name(ke->status));
    return AF_HANDLED;
}

static int a_step(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_step(a) == 0 ? AF_HANDLED : AF_FAILED;
    int64_t c = a->panes[PANE_KERNELS].cursor;
    if (c + 1 >= kcount(a)) {
        app_message(a, 0, "at the last kernel");
        return AF_HANDLED;
    }
    return replay_goto(a, c + 1);
}

static int a_continue(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_continue(a) == 0 ? AF_HANDLED : AF_FAILED;
    int64_t n = kcount(a), cur = a->panes[PANE_KERNELS].cursor;
    int64_t next = app_next_anomaly(a, cur);
    for (int64_t k = cur + 1; k < n && (next < 0 || k < next); k++)
        if (app_breaks_at(a, &a->s->kernels[k]->u.kernel)) {
            next = k;
            break;
        }
    if (next >= 0 && next < n)
        return replay_goto(a, next);
    return n ? replay_goto(a, n - 1) : AF_FAILED;
}

static int a_restart(app *a, const char *arg)
{
    if (a->mode == MODE_LIVE)
        return live_restart(a) == 0 ? AF_HANDLED : AF_FAILED;
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
    return AF_HANDLED;
}

/* The package's launch of kernel N in wrapper.cpp order (the launch list is
 * known before the run), or NULL. */
static const kernel_call *launch_at(app *a, int64_t n)
{
    return n >= 0 && (uint64_t)n < a->s->prov.ncalls ? &a->s->prov.calls[n] : NULL;
}

/* Is name a kernel the run recorded, or one the launch list has? */
static int kernel_known(app *a, const char *name)
{
    for (size_t i = 0; i < a->s->prov.ncalls; i++)
        if (a->s->prov.calls[i].kernel && !strcmp(a->s->prov.calls[i].kernel, name))
            return 1;
    for (size_t i = 0; i < a->s->nkernels; i++)
        if (!strcmp(a->s->kernels[i]->u.kernel.name, name))
            return 1;
    return 0;
}

/* break N|NAME: before kernel N, or before each launch of NAME, whether it
 * ran yet or not (the launch list says what will). */
static int break_at(app *a, const char *arg)
{
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (!*end && v >= 0) {
        int off = a->brk.kernel == v;
        a->brk.kernel = off ? -1 : v;
        const kernel_call *c = launch_at(a, v);
        if (off)
            app_message(a, 0, "breakpoint before kernel %lld cleared", v);
        else
            app_message(a, 0, "break before kernel %lld%s%s%s", v, c && c->kernel ? " (" : "",
                        c && c->kernel ? c->kernel : "", c && c->kernel ? " in the launch list)" : "");
        return AF_HANDLED;
    }
    if (!strcmp(a->brk.name, arg)) {
        a->brk.name[0] = 0;
        app_message(a, 0, "breakpoint on %s cleared", arg);
        return AF_HANDLED;
    }
    if (!kernel_known(a, arg)) {
        app_message(a, 1, "break: no kernel named %s: neither recorded nor in the package's launch list (%zu "
                    "launches)", arg, a->s->prov.ncalls);
        return AF_FAILED;
    }
    snprintf(a->brk.name, sizeof a->brk.name, "%s", arg);
    app_message(a, 0, "break before each launch of %s", a->brk.name);
    return AF_HANDLED;
}

static int a_break(app *a, const char *arg)
{
    if (arg && *arg)
        return break_at(a, arg);
    const kernel_event *k = app_selected_kernel(a);
    if (!k) {
        app_message(a, 1, "no kernel selected");
        return AF_FAILED;
    }
    if (a->brk.kernel == k->index) {
        a->brk.kernel = -1;
        app_message(a, 0, "breakpoint cleared");
    } else {
        a->brk.kernel = k->index;
        app_message(a, 0, "break before kernel %lld (%s)", (long long)k->index, k->name);
    }
    return AF_HANDLED;
}

/* run-to's kernel when the session has recorded it: N, or the next kernel
 * named NAME after the selected one; -1 when not (yet) recorded. */
static int64_t recorded_target(app *a, const char *arg)
{
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (!*end) {   /* kernel index N (a folded loop leaves gaps: not the list position) */
        int64_t lo = 0, hi = kcount(a);
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (a->s->kernels[mid]->u.kernel.index < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < kcount(a) && a->s->kernels[lo]->u.kernel.index == v)
            return lo;
        return v >= 0 && v < kcount(a) && !session_folded_launches(a->s, NULL) ? v : -1;
    }
    for (int64_t k = a->panes[PANE_KERNELS].cursor + 1; k < kcount(a); k++)
        if (!strcmp(a->s->kernels[k]->u.kernel.name, arg))
            return k;
    return -1;
}

static int a_run_to(app *a, const char *arg)
{
    if (!arg || !*arg) {
        app_message(a, 1, "run-to: give a kernel index or name, e.g. :run-to 12");
        return AF_FAILED;
    }
    int64_t k = recorded_target(a, arg);
    if (k >= 0)   /* live too: what ran is selected, as in replay */
        return replay_goto(a, k);
    char *e;
    long long idx = strtoll(arg, &e, 10);
    if (!*e && kernels_goto_folded(a, idx))   /* a launch counted in a folded loop: its fold's line */
        return AF_HANDLED;
    if (a->mode == MODE_LIVE)
        return live_run_to(a, arg) == 0 ? AF_HANDLED : AF_FAILED;
    char *end;
    long long v = strtoll(arg, &end, 10);
    if (!*end)
        app_message(a, 1, "run-to: no kernel %lld (the session has %lld)", v, (long long)kcount(a));
    else
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
    return AF_HANDLED;
}

/* ---- screen ----------------------------------------------------------- */

static int a_zoom(app *a, const char *arg) { a->zoom = !a->zoom; return AF_HANDLED; }
static int a_help(app *a, const char *arg)
{
    if (a->over == &help_view)
        view_close(a);
    else
        view_open(a, &help_view);
    a->help_top = 0;
    return AF_HANDLED;
}
static int a_redraw(app *a, const char *arg) { return AF_HANDLED | AF_REPAINT; }
/* The messages log (app.h): the message line's history, with what the run,
 * the eager reference and libraries wrote to stderr while the screen was up. */
static int a_messages(app *a, const char *arg)
{
    int64_t lines = 0;   /* opened at its end: the drawing keeps the last page in view */
    for (size_t i = 0; i < a->messages.len; i++)
        lines += a->messages.buf[i] == '\n';
    textview_open(a, "messages (newest last)", a->messages.len ? a->messages.buf : "(no messages yet)\n",
                  lines);
    return AF_HANDLED;
}
static int a_command(app *a, const char *arg)
{
    if (arg && *arg)
        return actions_command(a, arg);
    a->prompt = ':';
    strbuf_reset(&a->input);
    return AF_HANDLED;
}
static int a_quit(app *a, const char *arg)
{
    if (a->over) {   /* q closes help first, like less, then the text view */
        view_close(a);
        return AF_HANDLED;
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
    return AF_HANDLED;
}

/* ---- narration -------------------------------------------------------- */

static void narration_enter(app *a)
{
    a->narration_waiting = NULL;
    if (a->step >= a->s->nnarration)
        return;
    const narration_step *st = &a->s->narration[a->step];
    int pi = app_pane_index(a, st->pane);
    if (pi >= 0)
        a->focus = pi;
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
    if (a->over && a->over->enter)   /* a view's own Enter (the time view selects its kernel) */
        return a->over->enter(a);
    if ((!a->narration_on || !a->s->nnarration) && !a->over) {
        int r = ask(a, cur(a), PREQ_ENTER);   /* the router runs its selected next step */
        if (r)
            return r;
    }
    if (!a->narration_on || !a->s->nnarration) {
        app_message(a, 0, "no walkthrough is open");
        return AF_HANDLED;
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
        return AF_HANDLED;
    }
    if (a->step + 1 >= a->s->nnarration) {
        app_message(a, 0, "end of the walkthrough: q quits, or keep exploring");
        return AF_HANDLED;
    }
    a->step++;
    narration_enter(a);
    return AF_HANDLED;
}

static int a_prev_step(app *a, const char *arg)
{
    if (!a->narration_on || a->step == 0)
        return AF_HANDLED;
    a->step--;
    narration_enter(a);
    return AF_HANDLED;
}

/* ---- the router's next steps ------------------------------------------ */

/* Runs the selected error's next step N (default the selected one). */
static int a_route_action(app *a, const char *arg)
{
    const route_result *rr = pane_router_selected(a);
    if (!rr || !rr->nactions) {
        app_message(a, 1, "no next-step action: select an error in the router (1) that has some");
        return AF_FAILED;
    }
    int i = pane_router_act(a);
    if (arg && *arg) {
        char *end;
        long v = strtol(arg, &end, 10);
        if (*end || v < 1 || (size_t)v > rr->nactions) {
            app_message(a, 1, "route-action: give 1..%zu", rr->nactions);
            return AF_FAILED;
        }
        i = (int)v - 1;
    }
    pane_router_set_act(a, i);
    const route_action *ra = &rr->actions[i];
    int ai = actions_find(ra->name);
    if (ai < 0) {
        app_message(a, 1, "route-action: '%s' is not an action of this version", ra->name);
        return AF_FAILED;
    }
    char lv[16] = "";
    if (ra->level)
        snprintf(lv, sizeof lv, "%d", ra->level);
    return actions_run(a, ai, ra->level ? lv : ra->value ? ra->value : "");
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
#define PANE_FOCUS_ROW(id, ops, name, key, what) {"pane-" name, key, "", "focus " what, a_focus_##id},
    AOTIDBG_PANES(PANE_FOCUS_ROW)
#undef PANE_FOCUS_ROW
    {"search", "/", "TEXT", "search the focused pane (kernel names in the kernel list)", a_search},
    {"search-next", "n", "", "next match (in a walkthrough with no search: next step)", a_search_next},
    {"search-prev", "N", "", "previous match", a_search_prev},
    {"step", "s", "", "run to the next kernel (replay: select the next kernel)", a_step},
    {"continue", "c", "", "run to the end or the next break/anomaly", a_continue},
    {"restart", "r", "", "re-execute from the start in a fresh runner (replay: first kernel)", a_restart},
    {"break", "b", "[N|NAME]", "toggle a breakpoint before the selected kernel, or before kernel N or each launch "
     "of NAME (also one that has not run yet)", a_break},
    {"run-to", "", "N|NAME", "run to kernel N or the next kernel named NAME", a_run_to},
    {"goto", "", "N|NAME", "select kernel N (or named NAME) in the kernel list", a_goto},
    {"next-anomaly", "a", "", "select the next kernel with NaN/Inf or an error", a_next_anomaly},
    {"follow", "f", "", "toggle following the running kernel", a_follow},
    {"view", "v", "[all|before|after|diff]", "inspector: cycle tensors shown (all, before, after, diff)", inspector_action_view},
    {"values-down", "J", "[N]", "inspector: scroll the value grid down", inspector_action_vdown},
    {"values-up", "K", "[N]", "inspector: scroll the value grid up", inspector_action_vup},
    {"values-right", "L", "[N]", "inspector: scroll the value grid right", inspector_action_vright},
    {"values-left", "H", "[N]", "inspector: scroll the value grid left", inspector_action_vleft},
    {"grid-cursor-down", "]", "[N]", "inspector: move the value grid's cursor down (scrolls to keep it shown)", inspector_action_cdown},
    {"grid-cursor-up", "[", "[N]", "inspector: move the value grid's cursor up", inspector_action_cup},
    {"grid-cursor-right", ">", "[N]", "inspector: move the value grid's cursor right", inspector_action_cright},
    {"grid-cursor-left", "<", "[N]", "inspector: move the value grid's cursor left", inspector_action_cleft},
    {"grid-axes", "", "[ROW COL]", "inspector: show the values over dims ROW x COL (no args: the last two dims)", inspector_action_axes},
    {"grid-fix", "", "DIM IDX", "inspector: hold dim DIM (not a grid axis) at index IDX", inspector_action_fix},
    {"grid-goto", "", "I,J,K", "inspector: put the value grid's cursor on the element [I, J, K]", inspector_action_goto},
    {"rank", "", "K", "--ranks: show rank K in the kernel list and the inspector (the ranks strip shows them all)", ranks_action_show},
    {"rank-next", "}", "", "--ranks: show the next rank", ranks_action_next},
    {"rank-prev", "{", "", "--ranks: show the previous rank", ranks_action_prev},
    {"zoom", "z", "", "zoom the focused pane full screen and back", a_zoom},
    {"route-action", "x", "[N]", "router: run the selected error's next step N (default the first; also Enter)", a_route_action},
    {"run-checklist", "C", "", "focus the checklist on its first FAIL row (replay: run it when the package is here)", ra_run_checklist},
    {"rerun-blocking", "R", "", "live: rerun from kernel 0 with blocking launches (CUDA_LAUNCH_BLOCKING=1)", ra_rerun_blocking},
    {"repro", "", "[DIR]", "make the selected kernel's launch a standalone folder (live: runs the package again to it, as aotidbg repro, while the UI goes on; Esc or ^C cancels; replay: says that command)", ra_repro},
    {"rebuild-printer", "P", "[LEVEL]", "say how to rebuild the package with the printer at LEVEL (1-3)", ra_rebuild_printer},
    {"goto-element", "i", "", "router: select the kernel and put the inspector's cursor on the element the error names (the out-of-range index, the first NaN/Inf)", ra_goto_element},
    {"jump-kernel", "e", "[N|NAME]", "select the error's kernel (or kernel N / NAME) in the kernel list", ra_jump_kernel},
    {"kernel-times", "T", "", "kernels sorted by device time: share, bytes read/written, GB/s against the "
     "device's peak, as bars (Enter selects the kernel; T or q closes)", timeview_action},
    {"open-source", "S", "[KERNEL]", "show the kernel's generated source: its body (kernel.cpp or wrapper.cpp), the failing line for an error", ra_open_source},
    {"list-source", "u", "[N]", "show the user's source file at the selected kernel's line N (default 1)", sa_list_source},
    {"edit-source", "E", "[N]", "open $VISUAL/$EDITOR at the selected kernel's source line (or the line list-source shows)", sa_edit_source},
    {"fold", "o", "", "kernel list: fold or unfold the selected kernel's group (a layer or source line), or open a folded loop's line", kernels_action_fold},
    {"fold-all", "O", "", "kernel list: fold every group, or unfold them all when all are folded", kernels_action_fold_all},
    {"group-by", "", "layer|line|none", "kernel list: group kernels by model layer (their weights), source line, or not", kernels_action_group_by},
    {"break-nan", "!", "", "toggle breaking at the first kernel whose output holds NaN (not a mask's -Inf)", ra_break_nan},
    {"hunt-nan", "F", "", "find the first kernel whose output holds NaN/Inf (live: run to it); report its inputs", hunt_action_nan},
    {"hunt-diverge", "D", "[TOL|eager]", "find the first kernel whose output differs from --reference beyond TOL, or departs from --eager", hunt_action_diverge},
    {"producer", "p", "", "inspector: select the kernel that produced the selected tensor", hunt_action_producer},
    {"save-npy", "w", "[PATH]", "inspector: write the selected tensor's kept values to PATH (default kN_NAME_PHASE.npy)", inspector_action_save_npy},
    {"ref-npy", "", "[PATH]", "inspector: diff the selected tensor against a .npy file (no PATH: detach it)", inspector_action_ref_npy},
    {"ref-eager", "", "", "inspector: diff the selected tensor against its node's eager value (--eager)", inspector_action_ref_eager},
    {"next-step", "Enter Space", "", "walkthrough: next narration step", a_next_step},
    {"prev-step", "Backspace", "", "walkthrough: previous narration step", a_prev_step},
    {"help", "? F1", "", "this help (generated from the action table)", a_help},
    {"command", ":", "ACTION [ARG]", "command line: run any action by name", a_command},
    {"theme", "", "NAME", "switch theme (dark, light, high-contrast, mono, or a file)", a_theme},
    {"redraw", "C-l", "", "redraw the screen", a_redraw},
    {"messages", "M", "", "the messages so far, newest last: the message line's, and what the run, the eager "
     "reference or a library wrote to stderr while the screen was up", a_messages},
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

void actions_bind_defaults(void)
{
    keymap_clear();
    for (size_t i = 0; i < NACTIONS; i++)
        keymap_bind_names(table[i].name, table[i].keys);
}

int actions_for_key(int code) { return actions_find(keymap_action(code)); }

static void actions_keys_text(size_t ai, strbuf *out)
{
    if (ai < NACTIONS)
        keymap_keys_text(table[ai].name, out);
}

int actions_load_keys(const char *path, strbuf *err)
{
    static const ylimits lim = {16, 4096, 4096, "a keys.yaml mapping", "keys.yaml"};
    arena ar = ARENA_INIT;
    ynode *root;
    int rc = -1;
    if (ytree_load(&ar, path, 256u * 1024, &lim, &root, err) < 0)
        goto out;
    const ynode *keys = ytree_get(root, "keys");
    if (!root || root->type != Y_MAP || !keys || keys->type != Y_MAP) {
        const ynode *at = keys ? keys : root;
        strbuf_addf(err, "%s:%zu:%zu: expected a mapping 'keys:' of action: key or [keys]", path, at ? at->line : 1,
                    at ? at->col : 1);
        goto out;
    }
    keymap_saved saved;
    keymap_save(&saved);
    for (size_t i = 0; i + 1 < keys->n; i += 2) {
        const ynode *kn = keys->items[i], *v = keys->items[i + 1];
        int ai = actions_find(kn->value);
        if (ai < 0) {
            strbuf_addf(err, "%s:%zu:%zu: unknown action '%s' (see the ? help for names)", path, kn->line, kn->col,
                        kn->value);
            goto restore;
        }
        keymap_unbind(table[ai].name);   /* the new keys replace the action's defaults */
        size_t n = v->type == Y_SEQ ? v->n : 1;
        for (size_t j = 0; j < n; j++) {
            const ynode *kv = v->type == Y_SEQ ? v->items[j] : v;
            int code = kv->type == Y_SCALAR ? key_from_name(kv->value) : -1;
            if (code < 0 || code >= KEYMAP_MAX_KEYCODE) {
                strbuf_addf(err, "%s:%zu:%zu: unknown key '%s' (a character, Up, PgDn, Home, Tab, S-Tab, Enter, F1-F12, C-a..C-z)",
                            path, kv->line, kv->col, kv->type == Y_SCALAR ? kv->value : "?");
                goto restore;
            }
            keymap_bind(code, table[ai].name);
        }
    }
    rc = 0;
    goto out;
restore:
    keymap_restore(&saved);
out:
    arena_release(&ar);
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
    for (int hops = 0; (r & AF_CHAIN) && hops < 8; hops++) {   /* an action that runs another */
        const char *next = a->chain_action;
        char next_arg[sizeof a->chain_arg];
        snprintf(next_arg, sizeof next_arg, "%s", a->chain_arg);
        a->chain_action = NULL;
        int j = actions_find(next);
        r = (r & ~AF_CHAIN) | (j < 0 ? AF_FAILED : 0);
        if (j >= 0)
            r = actions_run(a, j, next_arg);
    }
    r &= ~AF_CHAIN;
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
        return AF_FAILED;
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
    return AF_FAILED;
}

/* The prompt line editor: printable text, Backspace, Enter runs, Esc cancels.
 * The search prompt is incremental: every keystroke re-searches. */
static int prompt_key(app *a, int code)
{
    if (code == 27 || code == 7) {
        a->prompt = 0;
        return AF_HANDLED;
    }
    if (code == '\n' || code == '\r' || code == KEY_ENTER) {
        int kind = a->prompt;
        a->prompt = 0;
        char line[256];
        snprintf(line, sizeof line, "%s", a->input.buf);
        if (kind == ':')
            return actions_command(a, line);
        if (!line[0])
            return AF_HANDLED;
        return actions_run(a, actions_find("search"), line);
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
    if (a->prompt == '/' && a->input.len && a->over && a->over->find) {   /* the open view searches itself */
        snprintf(a->search, sizeof a->search, "%s", a->input.buf);
        a->over->find(a, 1, 1);
    } else if (a->prompt == '/' && a->input.len) {
        snprintf(a->search, sizeof a->search, "%s", a->input.buf);
        a->search_pane = search_target(a);
        int64_t r = find_row(a, a->search_pane, 1, 1);
        pane *sp = &a->panes[a->search_pane];
        if (r >= 0) {
            pane_goto(sp, r, sp->ops->rows(a, sp));
            ask(a, sp, PREQ_MOVED);
        }
    }
    return AF_HANDLED;
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
