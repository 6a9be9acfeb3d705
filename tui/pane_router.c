/* pane_router.c — the session's error events: route id, the fields pulled out
 * of the text (kernel, tmpN, ksM, input index, expected/got), the kernel it
 * is attributed to, the router's title and next steps, and the text itself.
 * The selected error's text goes through core/router/router.h once (cached), which
 * also routes errors recorded without a route. */
#include <stdio.h>
#include <string.h>
#include "actions.h"
#include "app.h"
#include "pane_util.h"
#include "router.h"
#include "router_session.h"

/* Routing result of one error event, computed when it is first shown. */
static struct {
    router_rules *rules;
    int rules_failed;
    char rules_err[256];
    const app *owner;
    const error_event *ev;
    int valid;
    route_result res;
} rc_cache;

static const route_result *routed(app *a, const error_event *e)
{
    if (a->router_off)
        return NULL;
    if (!rc_cache.rules && !rc_cache.rules_failed) {
        strbuf err = STRBUF_INIT;
        if (router_rules_load_default(&rc_cache.rules, &err) < 0) {
            rc_cache.rules_failed = 1;
            snprintf(rc_cache.rules_err, sizeof rc_cache.rules_err, "%s", err.buf);
        }
        strbuf_release(&err);
    }
    if (!rc_cache.rules)
        return NULL;
    if (rc_cache.valid && rc_cache.owner == a && rc_cache.ev == e)
        return &rc_cache.res;
    if (rc_cache.valid)
        route_result_release(&rc_cache.res);
    memset(&rc_cache.res, 0, sizeof rc_cache.res);
    const char *t = e->text ? e->text : "";
    router_route_buffer(rc_cache.rules, t, strlen(t), &rc_cache.res);
    /* the run's device picks the advice's wording (a CPU run gets no CUDA advice) */
    const char *dev = a->s ? (a->s->device ? a->s->device : a->s->package.device_key) : NULL;
    if (router_platform_of_device(dev)) {
        char origin[96];
        snprintf(origin, sizeof origin, "session: device %.64s", dev);
        route_result_set_platform(&rc_cache.res, rc_cache.rules, router_platform_of_device(dev), origin);
    }
    rc_cache.owner = a;
    rc_cache.ev = e;
    rc_cache.valid = 1;
    return &rc_cache.res;
}

void pane_router_release(void)
{
    if (rc_cache.valid)
        route_result_release(&rc_cache.res);
    router_rules_free(rc_cache.rules);
    memset(&rc_cache, 0, sizeof rc_cache);
}

/* Router rows are the error events, in order (indexed by app_errors). */
static const error_event *nth_error(app *a, int64_t n)
{
    if (n < 0 || (size_t)n >= app_errors(a))
        return NULL;
    return &a->s->events[a->err_idx[n]]->u.error;
}

static int64_t r_rows(app *a) { return (int64_t)app_errors(a); }

const route_result *pane_router_selected(app *a)
{
    const error_event *e = nth_error(a, a->panes[PANE_ROUTER].cursor);
    return e ? routed(a, e) : NULL;
}

/* Key of a named action, for the pane ("C"); "" when unbound. */
static void key_of(const char *name, char *buf, size_t n)
{
    buf[0] = 0;
    int i = actions_find(name);
    if (i < 0)
        return;
    strbuf kb = STRBUF_INIT;
    actions_keys_text((size_t)i, &kb);
    size_t l = strcspn(kb.buf, " ");
    snprintf(buf, n, "%.*s", (int)l, kb.buf);
    strbuf_release(&kb);
}

static void first_line(const char *text, char *out, size_t n)
{
    size_t l = strcspn(text ? text : "", "\n");
    if (l >= n) l = n - 1;
    memcpy(out, text ? text : "", l);
    out[l] = 0;
}

static void r_render(app *a, grid *g, rect r, int focused)
{
    int64_t n = r_rows(a);
    char title[64];
    snprintf(title, sizeof title, "error router (%lld)", (long long)n);
    rect in = pane_frame(a, g, r, focused, PANE_ROUTER, title);
    if (!n) {
        pane_empty(g, in, a->s->nkernels ? "no errors in this run" : "no errors recorded");
        return;
    }
    pane *p = &a->panes[PANE_ROUTER];
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
        int x = grid_printf(g, in.x, in.y + i, in.w, sel ? EL_SELECTED : EL_ERROR, "%-22s",
                            e->route ? e->route : "unrouted");
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
    if (rr && rr->nactions && y < bottom) {
        /* next steps as actions: x (or Enter) runs the selected one */
        if (a->route_act >= (int)rr->nactions) a->route_act = (int)rr->nactions - 1;
        if (a->route_act < 0) a->route_act = 0;
        int x = grid_put(g, in.x, y, in.w, EL_HEADER, "actions (x runs >):");
        for (size_t i = 0; i < rr->nactions && x < in.w; i++) {
            const route_action *ra = &rr->actions[i];
            char k[16], item[128];
            key_of(ra->name, k, sizeof k);
            if (ra->level)
                snprintf(item, sizeof item, " %s%zu %s %d%s%s%s", (int)i == a->route_act ? ">" : "", i + 1, ra->name,
                         ra->level, k[0] ? " [" : "", k, k[0] ? "]" : "");
            else
                snprintf(item, sizeof item, " %s%zu %s%s%s%s", (int)i == a->route_act ? ">" : "", i + 1, ra->name,
                         k[0] ? " [" : "", k, k[0] ? "]" : "");
            x += grid_put(g, in.x + x, y, in.w - x, (int)i == a->route_act ? EL_SELECTED : EL_WARN, item);
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
    if (!rr && rc_cache.rules_failed && !a->router_off && y < bottom)
        grid_printf(g, in.x, y++, in.w, EL_DIM, "(no next steps: %s)", rc_cache.rules_err);
    if (y < bottom)
        y += wrap_text(g, in.x, y, in.w, bottom - y, EL_DIM, e->text);
}

static const char *r_row_text(app *a, int64_t row, strbuf *buf)
{
    const error_event *e = nth_error(a, row);
    if (!e)
        return NULL;
    strbuf_addf(buf, "%s %s", e->route ? e->route : "", e->text ? e->text : "");
    return buf->buf;
}

const pane_ops pane_router_ops = {"router", "error router", r_rows, r_render, r_row_text};
