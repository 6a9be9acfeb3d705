/* pane_kernels.c — the kernel list: index, name, kind, status, duration and
 * anomaly marks of every launch, in order. Only the visible rows are
 * formatted, so a million-kernel session draws as fast as a ten-kernel one. */
#include <stdio.h>
#include <string.h>
#include "pane_kernels.h"
#include "live.h"
#include "pane_util.h"

static int64_t k_rows(app *a, pane *p)
{
    (void)p;
    return (int64_t)a->s->nkernels;
}

/* "NaN", "Inf", "NaN+Inf" or "" from the after-tensors' stats. */
static const char *anomaly(const kernel_event *k)
{
    int nan = 0, inf = 0;
    for (size_t i = 0; i < k->ntensors; i++) {
        const tensor_rec *t = &k->tensors[i];
        if (t->phase != PHASE_AFTER || !t->has_stats)
            continue;
        nan |= t->stats.nan > 0;
        inf |= t->stats.posinf + t->stats.neginf > 0;
    }
    if (k->status == KSTAT_ERROR)
        return "ERR";
    if (nan && inf) return "NaN+Inf";
    if (nan) return "NaN";
    if (inf) return "Inf";
    return k->status == KSTAT_NAN ? "NaN?" : "";
}

static int status_el(const kernel_event *k)
{
    switch (k->status) {
    case KSTAT_OK: return EL_OK;
    case KSTAT_NAN: return EL_NAN;
    case KSTAT_ERROR: return EL_ERROR;
    default: return EL_RUNNING;
    }
}

static void k_render(app *a, pane *p, grid *g, int focused)
{
    char title[160], mode[96] = "";
    if (a->s->mode) {
        const char *lim = app_mode_limits(a->s->mode);
        snprintf(mode, sizeof mode, " [%s%s%s]", a->s->mode, *lim ? ": " : "", lim);
    }
    snprintf(title, sizeof title, "kernels (%zu)%s%s", a->s->nkernels, mode, a->follow ? "" : " [follow off]");
    rect in = pane_frame(g, p, focused, title);
    if (!a->s->nkernels) {
        pane_empty(g, in, a->mode == MODE_LIVE ? "no kernel yet: press s to step, c to continue"
                                               : "this session has no kernel events");
        return;
    }
    int iw = 3;
    for (size_t n = a->s->nkernels - 1; n >= 1000; n /= 10)
        iw++;
    /* columns: mark idx name kind status dur marks */
    int fixed = 1 + iw + 1 + 1 + 6 + 1 + 7 + 1 + 10 + 1 + 7;
    int nw = in.w - fixed;
    int show_dur = 1;
    if (nw < 12) { nw += 11; show_dur = 0; }
    if (nw < 6) nw = 6;
    char hdr[256];
    snprintf(hdr, sizeof hdr, " %*s %-*s %-6s %-7s%s %s", iw, "#", nw, "name", "kind", "status",
             show_dur ? "    dur us" : "", "marks");
    grid_put(g, in.x, in.y, in.w, EL_HEADER, hdr);
    int rows = in.h - 1;
    pane_scroll_into_view(p, rows);
    int64_t cur_running = live_current_kernel(a);
    for (int i = 0; i < rows; i++) {
        int64_t row = p->top + i;
        if (row >= (int64_t)a->s->nkernels)
            break;
        const kernel_event *k = &a->s->kernels[row]->u.kernel;
        int y = in.y + 1 + i;
        int sel = row == p->cursor;
        int base = sel ? EL_SELECTED : EL_NORMAL;
        if (sel)
            grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
        char mark = row == cur_running ? '>' : k->index == a->break_kernel ? 'B' : ' ';
        char dur[16] = "";
        if (k->duration_us >= 0)
            snprintf(dur, sizeof dur, "%10.1f", k->duration_us);
        else
            snprintf(dur, sizeof dur, "%10s", "-");
        int x = in.x;
        x += grid_printf(g, x, y, in.x + in.w - x, base, "%c%*lld ", mark, iw, (long long)k->index);
        int nx = x;
        grid_put(g, x, y, nw, (sel || !a->search[0] || !strstr(k->name, a->search)) ? base : EL_MATCH, k->name);
        x = nx + nw + 1;
        x += grid_printf(g, x, y, in.x + in.w - x, base, "%-6s ", kernel_type_name(k->type));
        grid_printf(g, x, y, in.x + in.w - x, sel ? base : status_el(k), "%-7s", kernel_status_name(k->status));
        x += 7;
        if (show_dur)
            x += grid_printf(g, x, y, in.x + in.w - x, base, " %s", dur);
        const char *an = anomaly(k);
        grid_printf(g, x, y, in.x + in.w - x, sel ? base : (*an ? EL_NAN : base), " %s", an);
    }
}

static const char *k_row_text(app *a, pane *p, int64_t row, strbuf *buf)
{
    (void)p;
    (void)buf;
    if (row < 0 || (size_t)row >= a->s->nkernels)
        return NULL;
    return a->s->kernels[row]->u.kernel.name;
}

/* Kernel names compared as they are: a million rows in milliseconds. */
static int64_t k_find(app *a, pane *p, const char *pat, int64_t from, int dir)
{
    (void)p;
    int64_t n = (int64_t)a->s->nkernels;
    event **k = a->s->kernels;
    for (int64_t i = 0, r = from; i < n; i++, r += dir) {
        if (r >= n)
            r = 0;
        else if (r < 0)
            r = n - 1;
        if (strstr(k[r]->u.kernel.name, pat))
            return r;
    }
    return -1;
}

/* The user moved the cursor: stop following the run, tell the other panes. */
static int k_request(app *a, pane *p, pane_request req, const char *arg)
{
    (void)p;
    (void)arg;
    if (req != PREQ_MOVED)
        return 0;
    a->follow = 0;
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    return AF_HANDLED;
}

const pane_ops pane_kernels_ops = {
    .name = "kernels",
    .rows = k_rows,
    .render = k_render,
    .row_text = k_row_text,
    .find = k_find,
    .request = k_request,
};
