/* pane_router.c — the session's error events: route id, the fields pulled out
 * of the text (kernel, tmpN, ksM, input index, expected/got), the kernel it
 * is attributed to, and the text itself for the selected error. */
#include <stdio.h>
#include <string.h>
#include "app.h"
#include "pane_util.h"

/* Router rows are the error events, in order (indexed by app_errors). */
static const error_event *nth_error(app *a, int64_t n)
{
    if (n < 0 || (size_t)n >= app_errors(a))
        return NULL;
    return &a->s->events[a->err_idx[n]]->u.error;
}

static int64_t r_rows(app *a) { return (int64_t)app_errors(a); }

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
    grid_printf(g, in.x, y++, in.w, EL_HEADER, "route: %s%s", e->route ? e->route : "unknown",
                e->kernel_index >= 0 ? "" : "");
    if (e->kernel_index >= 0 && y < bottom) {
        const event *ke = session_kernel_event(a->s, e->kernel_index);
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "kernel: #%lld %s", (long long)e->kernel_index,
                    ke ? ke->u.kernel.name : "?");
    }
    for (size_t i = 0; i < e->nfields && y < bottom; i++)
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "%s: %s", e->fields[i].key, e->fields[i].value);
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
