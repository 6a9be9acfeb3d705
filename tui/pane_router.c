/* pane_router.c — the session's error events: route id, the fields pulled out
 * of the text (kernel, tmpN, ksM, input index, expected/got), the kernel it
 * is attributed to, the router's title and next steps, and the text itself.
 * The selected error's text goes through core/router/router.h once (cached), which
 * also routes errors recorded without a route. */
#include <stdio.h>
#include <string.h>
#include "pane_router.h"
#include "compat.h"
#include <stdlib.h>
#include "keymap.h"
#include "pane_util.h"
#include "nan_element.h"
#include "route_event.h"
#include "router.h"
#include "router_session.h"

/* The router's own state (its pane's priv): the routing of the error shown,
 * computed when it is first shown (with the process's rules,
 * router_rules_shared), and why there are none when they failed to load. */
typedef struct {
    int rules_failed;
    char rules_err[256];
    const error_event *ev;
    int valid;
    route_result res;
    int act;                       /* selected next-step action (0-based) */
    /* the runner's death as a row after the error events (it may have left
     * none: a segfault says nothing), routed with the whole session */
    const runner_exit_event *exit_seen;
    error_event death;
    strbuf death_text;
    /* the run's nan event, shown as one more row after the errors: an
     * error_event of its own making (text, route nan-inf, fields) */
    const nan_event *nan;          /* the event nan_row was made from; NULL none */
    error_event nan_row;
    arena nan_arena;               /* nan_row's strings */
} router_pane;

static router_pane *st(const app *a) { return a->panes[PANE_ROUTER].priv; }

static void *r_init(app *a)
{
    (void)a;
    router_pane *r = xcalloc(1, sizeof *r);
    strbuf_init(&r->death_text, 0);
    return r;
}

static void r_release(void *priv)
{
    router_pane *r = priv;
    if (!r)
        return;
    if (r->valid)
        route_result_release(&r->res);
    strbuf_release(&r->death_text);
    arena_release(&r->nan_arena);
    free(r);
}

typedef struct { arena *a; size_t n, cap; kv_pair *kv; } kv_list;

static void kv_add(void *ctx, const char *k, const char *v)
{
    kv_list *l = ctx;
    if (!strcmp(k, "kernel") || !strcmp(k, "kernel_index"))
        return;   /* the row's kernel line says it */
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        kv_pair *nk = arena_alloc(l->a, cap * sizeof *nk);
        if (l->n)
            memcpy(nk, l->kv, l->n * sizeof *nk);
        l->kv = nk;
        l->cap = cap;
    }
    l->kv[l->n].key = arena_strdup(l->a, k);
    l->kv[l->n++].value = arena_strdup(l->a, v);
}

/* The run's nan event as a router row: made once per event (a restart makes
 * a new one); NULL when the session has none. */
static const error_event *nan_row(app *a)
{
    router_pane *rc = st(a);
    const nan_event *ev = app_nan_event(a);   /* indexed: not a pass over every event each frame */
    if (ev == rc->nan)
        return ev ? &rc->nan_row : NULL;
    arena_release(&rc->nan_arena);
    memset(&rc->nan_row, 0, sizeof rc->nan_row);
    rc->nan = ev;
    if (!ev)
        return NULL;
    const event *ke = session_kernel_event(a->s, ev->kernel_index);
    /* the words router_session.c gives this fact: routes.yaml routes them nan-inf */
    rc->nan_row.text = arena_printf(&rc->nan_arena, "aotidbg kernel: #%lld %s (%s) wrote NaN/Inf: %s%s = %s",
                                    (long long)ev->kernel_index, ke ? ke->u.kernel.name : "?",
                                    ke ? kernel_type_name(ke->u.kernel.type) : "?", ev->tensor, ev->at ? ev->at : "",
                                    ev->value ? ev->value : "nan or inf");
    rc->nan_row.route = "nan-inf";
    rc->nan_row.kernel_index = ev->kernel_index;
    kv_list l = {&rc->nan_arena, 0, 0, NULL};
    nan_event_fields(a->s, ev, kv_add, &l);
    rc->nan_row.fields = l.kv;
    rc->nan_row.nfields = l.n;
    return &rc->nan_row;
}

static const route_result *routed(app *a, const error_event *e)
{
    router_pane *rc = st(a);
    if (a->router_off)
        return NULL;
    strbuf err = STRBUF_INIT;
    const router_rules *rules = router_rules_shared(&err);
    if (!rules && !rc->rules_failed) {
        rc->rules_failed = 1;
        snprintf(rc->rules_err, sizeof rc->rules_err, "%s", err.buf);
    }
    strbuf_release(&err);
    if (!rules)
        return NULL;
    if (rc->valid && rc->ev == e)
        return &rc->res;
    if (rc->valid)
        route_result_release(&rc->res);
    memset(&rc->res, 0, sizeof rc->res);
    /* the one routing entry point: the death routes the whole session (signal, stderr, logs) */
    router_route_event(rules, a->s, e == &rc->death ? NULL : e, NULL, &rc->res);
    rc->ev = e;
    rc->valid = 1;
    return &rc->res;
}

/* The row for a runner that died (not one the front end ended), or NULL. */
static const error_event *death_row(app *a)
{
    router_pane *rc = st(a);
    const runner_exit_event *x = session_runner_exit(a->s);
    if (!x || !strcmp(x->how, "killed"))
        return NULL;
    if (rc->exit_seen != x) {
        char line[192];
        rc->exit_seen = x;
        strbuf_reset(&rc->death_text);
        strbuf_addstr(&rc->death_text, pane_exit_line(a->s, line, sizeof line));
        if (x->stderr_tail && *x->stderr_tail)
            strbuf_addf(&rc->death_text, "\nits stderr ended with:\n%s", x->stderr_tail);
        memset(&rc->death, 0, sizeof rc->death);
        rc->death.text = rc->death_text.buf;
        rc->death.kernel_index = session_exit_kernel(a->s);
        if (rc->valid && rc->ev == &rc->death)
            rc->ev = NULL;   /* a new death: route it again */
    }
    return &rc->death;
}

/* Router rows are the error events, in order (indexed by app_errors), then
 * the runner's death when it died, then the nan event when the run has one. */
static const error_event *nth_error(app *a, int64_t n)
{
    size_t nerr = app_errors(a);
    if (n < 0)
        return NULL;
    if ((size_t)n < nerr)
        return &a->s->events[a->err_idx[n]]->u.error;
    const error_event *d = death_row(a);
    if (d && (size_t)n == nerr)
        return d;
    return (size_t)n == nerr + (d != NULL) ? nan_row(a) : NULL;
}

static int64_t r_rows(app *a, pane *p)
{
    (void)p;
    return (int64_t)app_errors(a) + (death_row(a) ? 1 : 0) + (nan_row(a) ? 1 : 0);
}

const error_event *pane_router_error(app *a) { return nth_error(a, a->panes[PANE_ROUTER].cursor); }

const route_result *pane_router_selected(app *a)
{
    const error_event *e = pane_router_error(a);
    return e ? routed(a, e) : NULL;
}

int pane_router_act(app *a) { return st(a)->act; }
void pane_router_set_act(app *a, int i) { st(a)->act = i; }

/* A field of e, else of its routing; NULL when neither has it. */
static const char *field_of(const error_event *e, const route_result *rr, const char *key)
{
    for (size_t i = 0; i < e->nfields; i++)
        if (!strcmp(e->fields[i].key, key))
            return e->fields[i].value;
    return rr ? route_result_field(rr, key) : NULL;
}

typedef struct { const error_event *e; const route_result *rr; } field_src;

static const char *field_get(const void *ctx, const char *key)
{
    const field_src *f = ctx;
    return field_of(f->e, f->rr, key);
}

/* What the error comes down to (route_element_line's words). */
static int element_line(const error_event *e, const route_result *rr, strbuf *sb)
{
    field_src f = {e, rr};
    return route_element_line(field_get, &f, sb);
}

static void first_line(const char *text, char *out, size_t n)
{
    size_t l = strcspn(text ? text : "", "\n");
    if (l >= n) l = n - 1;
    memcpy(out, text ? text : "", l);
    out[l] = 0;
}

static void r_render(app *a, pane *p, grid *g, int focused)
{
    router_pane *rc = p->priv;
    int64_t n = r_rows(a, p);
    char title[64];
    snprintf(title, sizeof title, "error router (%lld)", (long long)n);
    rect in = pane_frame(g, p, focused, title);
    if (!n) {
        pane_empty(g, in, a->s->nkernels ? "no errors in this run" : "no errors recorded");
        return;
    }
    int list_h = n < in.h / 3 ? (int)n : in.h / 3;
    if (list_h < 1) list_h = 1;
    pane_scroll_into_view(p, list_h);
    for (int i = 0; i < list_h && p->top + i < n; i++) {
        const error_event *e = nth_error(a, p->top + i);
        int sel = p->top + i == p->cursor;
        char fl[256];
        first_line(e->text, fl, sizeof fl);
        if (sel)
            grid_fill(g, in.x, in.y + i, in.w, 1, ' ', EL_SELECTED);
        const char *route = e->route;
        if (e == &rc->death) {   /* routed with the session's facts: a signal is a crash */
            const route_result *rr = routed(a, e);
            route = rr && rr->route ? rr->route : "crash";
        }
        int x = grid_printf(g, in.x, in.y + i, in.w, sel ? EL_SELECTED : EL_ERROR, "%-22s",
                            route ? route : "unrouted");
        grid_printf(g, in.x + x, in.y + i, in.w - x, sel ? EL_SELECTED : EL_NORMAL, " %s", fl);
    }
    const error_event *e = nth_error(a, p->cursor);
    if (!e || in.h - list_h < 2)
        return;
    int y = in.y + list_h;
    grid_hline(g, in.x, y++, in.w, EL_BORDER);
    int bottom = in.y + in.h;
    const route_result *rr = routed(a, e);
    const char *route = e->route && strcmp(e->route, "unknown") ? e->route : rr ? rr->route : e->route;
    grid_printf(g, in.x, y++, in.w, EL_HEADER, "route: %s%s%s", route ? route : "unknown",
                rr && rr->title ? " - " : "", rr && rr->title ? rr->title : "");
    strbuf el = STRBUF_INIT;
    if (y < bottom && element_line(e, rr, &el))   /* what it comes down to (goto-element shows it) */
        y += wrap_text(g, in.x, y, in.w, bottom - y > 2 ? 2 : bottom - y, EL_NAN, el.buf);
    strbuf_release(&el);
    if (rr && rr->nactions && y < bottom) {
        /* next steps as actions: x (or Enter) runs the selected one */
        if (rc->act >= (int)rr->nactions) rc->act = (int)rr->nactions - 1;
        if (rc->act < 0) rc->act = 0;
        int x = grid_put(g, in.x, y, in.w, EL_HEADER, "actions (x runs >):");
        for (size_t i = 0; i < rr->nactions && x < in.w; i++) {
            const route_action *ra = &rr->actions[i];
            char k[16], item[128];
            keymap_first_key(ra->name, k, sizeof k);
            if (ra->level)
                snprintf(item, sizeof item, " %s%zu %s %d%s%s%s", (int)i == rc->act ? ">" : "", i + 1, ra->name,
                         ra->level, k[0] ? " [" : "", k, k[0] ? "]" : "");
            else
                snprintf(item, sizeof item, " %s%zu %s%s%s%s", (int)i == rc->act ? ">" : "", i + 1, ra->name,
                         k[0] ? " [" : "", k, k[0] ? "]" : "");
            x += grid_put(g, in.x + x, y, in.w - x, (int)i == rc->act ? EL_SELECTED : EL_WARN, item);
        }
        y++;
    }
    if (e->kernel_index >= 0 && y < bottom) {
        const event *ke = session_kernel_event(a->s, e->kernel_index);
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "kernel: #%lld %s", (long long)e->kernel_index,
                    ke ? ke->u.kernel.name : "?");
    }
    for (size_t i = 0; i < e->nfields && y < bottom; i++)
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "%s: %s", e->fields[i].key, e->fields[i].value);
    for (size_t i = 0; rr && i < rr->nfields && y < bottom; i++) {
        int dup = 0;   /* the recorded fields win; add what the router found besides */
        for (size_t j = 0; j < e->nfields; j++)
            dup |= !strcmp(e->fields[j].key, rr->fields[i].key);
        if (!dup)
            grid_printf(g, in.x, y++, in.w, EL_NORMAL, "%s: %s", rr->fields[i].key, rr->fields[i].value);
    }
    for (size_t i = 0; rr && i < rr->nsteps && y < bottom; i++) {
        char num[24];
        snprintf(num, sizeof num, "%zu. ", i + 1);
        grid_put(g, in.x, y, 4, EL_WARN, num);
        y += wrap_text(g, in.x + 3, y, in.w - 3, bottom - y, EL_NORMAL, rr->steps[i]);
    }
    if (!rr && rc->rules_failed && !a->router_off && y < bottom)
        grid_printf(g, in.x, y++, in.w, EL_DIM, "(no next steps: %s)", rc->rules_err);
    if (y < bottom)
        y += wrap_text(g, in.x, y, in.w, bottom - y, EL_DIM, e->text);
}

static const char *r_row_text(app *a, pane *p, int64_t row, strbuf *buf)
{
    (void)p;
    const error_event *e = nth_error(a, row);
    if (!e)
        return NULL;
    strbuf_addf(buf, "%s %s", e->route ? e->route : "", e->text ? e->text : "");
    return buf->buf;
}

/* Left/right choose among the selected error's next steps; Enter runs it. */
static int r_request(app *a, pane *p, pane_request req, const char *arg)
{
    (void)arg;
    router_pane *rc = p->priv;
    if (req == PREQ_MOVED) {
        rc->act = 0;   /* another error: its first next step */
        return AF_HANDLED;
    }
    if (req == PREQ_ENTER) {
        const route_result *rr = pane_router_selected(a);
        return rr && rr->nactions ? app_chain(a, "route-action", NULL) : 0;
    }
    if ((req != PREQ_LEFT && req != PREQ_RIGHT) || a->over)
        return 0;
    const route_result *rr = pane_router_selected(a);
    if (!rr || rr->nactions < 2)
        return 0;
    int d = req == PREQ_LEFT ? -1 : 1;
    rc->act = (int)((rc->act + d + (int)rr->nactions) % (int)rr->nactions);
    app_message(a, 0, "next step %d: %s (x or Enter runs it)", rc->act + 1, rr->actions[rc->act].name);
    return AF_HANDLED;
}

const pane_ops pane_router_ops = {
    .name = "router",
    .init = r_init,
    .release = r_release,
    .rows = r_rows,
    .render = r_render,
    .row_text = r_row_text,
    .request = r_request,
};
