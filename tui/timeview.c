/* timeview.c — the kernel time view over the panes (see timeview.h). */
#include "timeview.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "kernel_times.h"
#include "pane_util.h"
#include "theme.h"
#include "view.h"

struct timeview {
    kernel_times t;
    size_t built_n;            /* s->nkernels the table was built from */
    int built_last_status;     /* and the last kernel's status (live: it ends later) */
    int64_t cursor, top;       /* rows in device-time order */
    int page;                  /* rows shown at the last render */
};

static const view_ops time_view;   /* at the end: its functions come first */

/* The columns, in screen order. prio: 0 always shown, then 1, 2, ... while
 * the width allows (the bar before the numbers that explain it). */
typedef enum { C_INDEX, C_NAME, C_DEV, C_SHARE, C_READ, C_WRITTEN, C_GBPS, C_PEAK, C_BAR, C__N } col_id;
static const struct { const char *head; int w, prio, right; } cols[C__N] = {
    [C_INDEX] = {"#", 5, 5, 1},        [C_NAME] = {"kernel", 14, 0, 0},
    [C_DEV] = {"device us", 9, 0, 1},  [C_SHARE] = {"share", 6, 0, 1},
    [C_READ] = {"read", 10, 4, 1},     [C_WRITTEN] = {"written", 10, 4, 1},
    [C_GBPS] = {"GB/s", 8, 2, 1},      [C_PEAK] = {"%peak", 6, 3, 1},
    [C_BAR] = {"", 6, 1, 0},
};
#define NAME_MAX_W 48

static struct timeview *tv_of(app *a)
{
    if (!a->timeview)
        a->timeview = xcalloc(1, sizeof *a->timeview);
    return a->timeview;
}

/* Rebuilds the table when the session has grown or its last kernel ended. */
static void tv_refresh(app *a, struct timeview *tv)
{
    size_t n = a->s->nkernels;
    int last = n ? (int)a->s->kernels[n - 1]->u.kernel.status : -1;
    if (tv->t.rows && tv->built_n == n && tv->built_last_status == last)
        return;
    kernel_times_release(&tv->t);
    kernel_times_build(a->s, &tv->t);
    tv->built_n = n;
    tv->built_last_status = last;
    if (tv->cursor >= (int64_t)tv->t.n)
        tv->cursor = tv->t.n ? (int64_t)tv->t.n - 1 : 0;
}

static const kernel_time_row *row_at(const struct timeview *tv, int64_t i)
{
    return i >= 0 && (size_t)i < tv->t.n ? &tv->t.rows[tv->t.by_device[i]] : NULL;
}

/* Which columns fit in w and how wide each is: the name grows to the longest
 * name shown (at most NAME_MAX_W) while the bar keeps its least width, the bar
 * gets the rest. */
static void fit_columns(const struct timeview *tv, int w, int rows_shown, int width[C__N])
{
    const kernel_times *t = &tv->t;
    int used = 0;
    for (int c = 0; c < C__N; c++) {
        width[c] = cols[c].prio == 0 ? cols[c].w : 0;
        used += width[c] ? width[c] + 1 : 0;
    }
    for (int prio = 1; prio <= 5; prio++) {   /* a priority's columns come together (read and written) */
        int need = 0;
        for (int c = 0; c < C__N; c++)
            need += cols[c].prio == prio && !(c == C_PEAK && t->peak_gbps <= 0) ? cols[c].w + 1 : 0;
        if (!need || used + need > w)
            continue;
        for (int c = 0; c < C__N; c++)
            if (cols[c].prio == prio && !(c == C_PEAK && t->peak_gbps <= 0))
                width[c] = cols[c].w;
        used += need;
    }
    int want = 0;
    for (int64_t i = tv->top; i < tv->top + rows_shown && (size_t)i < t->n; i++) {
        int l = utf8_columns(t->rows[t->by_device[i]].k->name);
        want = l > want ? l : want;
    }
    if (want > NAME_MAX_W)
        want = NAME_MAX_W;
    int spare = w - used, grow = want - width[C_NAME];
    if (grow > spare)
        grow = spare;
    if (grow > 0) {
        width[C_NAME] += grow;
        spare -= grow;
    }
    if (width[C_BAR] && spare > 0)
        width[C_BAR] += spare;
}

/* A bar of len/8 cells: eighth blocks in UTF-8, '#' cells (rounded) in ASCII. */
static void draw_bar(grid *g, int x, int y, int w, double frac, int el)
{
    if (frac <= 0 || w <= 0)
        return;
    if (frac > 1)
        frac = 1;
    if (g->ascii) {
        int n = (int)(w * frac + 0.5);
        for (int i = 0; i < (n ? n : 1); i++)
            grid_set(g, x + i, y, '#', el);
        return;
    }
    int eighths = (int)(w * 8 * frac + 0.5);
    if (eighths < 1)
        eighths = 1;
    int i = 0;
    for (; i < eighths / 8; i++)
        grid_set(g, x + i, y, grid_ld(g, LD_BLOCK), el);
    if (eighths % 8)   /* U+258F one eighth ... U+2589 seven eighths */
        grid_set(g, x + i, y, 0x2590 - (uint32_t)(eighths % 8), el);
}

static int put_cell(grid *g, int x, int y, int w, int right, int el, const char *text)
{
    if (w <= 0)
        return x;
    int len = utf8_columns(text);
    grid_put(g, right && len < w ? x + w - len : x, y, w, el, text);
    return x + w + 1;
}

static void render_row(grid *g, int x, int y, const int width[C__N], const kernel_times *t,
                       const kernel_time_row *r, int selected)
{
    kernel_time_cells c;
    kernel_times_cells(t, r, &c);
    char idx[24];
    snprintf(idx, sizeof idx, "%lld", (long long)r->k->index);
    const char *text[C__N] = {[C_INDEX] = idx, [C_NAME] = r->k->name, [C_DEV] = c.dev, [C_SHARE] = c.share,
                              [C_READ] = c.read, [C_WRITTEN] = c.written, [C_GBPS] = c.gbps,
                              [C_PEAK] = c.of_peak, [C_BAR] = ""};
    int el = selected ? EL_SELECTED : EL_NORMAL;
    if (selected) {
        int total = 0;
        for (int k = 0; k < C__N; k++)
            total += width[k] ? width[k] + 1 : 0;
        grid_fill(g, x, y, total - 1, 1, ' ', EL_SELECTED);
    }
    for (int k = 0; k < C__N; k++) {
        if (k == C_BAR && width[k]) {
            double top = t->ndevice_known ? t->rows[t->by_device[0]].device_us : 0;
            draw_bar(g, x, y, width[k], top > 0 && r->device_us > 0 ? r->device_us / top : 0,
                     selected ? EL_SELECTED : EL_HIST);
        }
        x = put_cell(g, x, y, width[k], cols[k].right, el, text[k]);
    }
}

static void timeview_render(app *a, grid *g, rect r)
{
    struct timeview *tv = tv_of(a);
    tv_refresh(a, tv);
    const kernel_times *t = &tv->t;
    char title[200];
    snprintf(title, sizeof title, "kernel times: %zu kernel%s by device time (Enter selects, / search, q closes)",
             t->n, t->n == 1 ? "" : "s");
    grid_box(g, r.x, r.y, r.w, r.h, EL_BORDER_FOCUS, title, EL_TITLE_FOCUS);
    rect in = {r.x + 1, r.y + 1, r.w - 2, r.h - 2};
    if (in.w < 8 || in.h < 1)
        return;
    char summary[200], peak[160];
    snprintf(summary, sizeof summary, "device time known for %zu of %zu kernels: %.1f us in all (%.1f us wall)",
             t->ndevice_known, t->n, t->total_device_us, t->total_wall_us);
    const char *head[] = {summary, kernel_times_peak_text(t, peak, sizeof peak),
                          "bytes from shapes: read = inputs not written first, written = outputs that changed; "
                          "+ at least (a dtype unknown), - unknown (no tensor recorded)"};
    int y = in.y;
    for (int i = 0; i < 3 && in.y + in.h - y > 4; i++)   /* these while the table keeps 4 lines */
        grid_put(g, in.x, y++, in.w, i == 2 ? EL_DIM : EL_NORMAL, head[i]);
    if (!t->n) {
        pane_empty(g, (rect){in.x, y, in.w, in.y + in.h - y}, "the session has no kernels yet");
        return;
    }
    int width[C__N];
    fit_columns(tv, in.w, in.h, width);
    int x = in.x;
    for (int k = 0; k < C__N && y < in.y + in.h; k++)
        x = put_cell(g, x, y, width[k], cols[k].right, EL_HEADER, cols[k].head);
    y++;
    int h = in.y + in.h - y;
    tv->page = h > 0 ? h : 1;
    if (tv->cursor < tv->top)
        tv->top = tv->cursor;
    if (tv->cursor >= tv->top + tv->page)
        tv->top = tv->cursor - tv->page + 1;
    for (int i = 0; i < h; i++) {
        const kernel_time_row *row = row_at(tv, tv->top + i);
        if (!row)
            break;
        render_row(g, in.x, y + i, width, t, row, tv->top + i == tv->cursor);
    }
}

/* ---- as a view (view.h) ---------------------------------------------------- */

static void time_scroll(app *a, int64_t d)
{
    struct timeview *tv = tv_of(a);
    tv_refresh(a, tv);
    int64_t n = (int64_t)tv->t.n;
    tv->cursor = d > n - tv->cursor ? n - 1 : tv->cursor + d;
    if (tv->cursor >= n)
        tv->cursor = n - 1;
    if (tv->cursor < 0)
        tv->cursor = 0;
}

static int64_t time_top(const app *a) { return a->timeview ? a->timeview->cursor : 0; }

static int time_find(app *a, int dir, int include_top)
{
    struct timeview *tv = tv_of(a);
    tv_refresh(a, tv);
    int64_t n = (int64_t)tv->t.n;
    for (int64_t k = include_top ? 0 : 1; n && k <= n; k++) {
        int64_t i = ((tv->cursor + dir * k) % n + n) % n;
        const kernel_time_row *r = row_at(tv, i);
        if (strstr(r->k->name, a->search)) {
            tv->cursor = i;
            app_message(a, 0, "/%s: kernel #%lld %s, %lld of %lld by device time", a->search,
                        (long long)r->k->index, r->k->name, (long long)i + 1, (long long)n);
            return AF_HANDLED;
        }
    }
    app_message(a, 1, "not found: %s", a->search);
    return AF_HANDLED | AF_FAILED;
}

/* Enter: the kernel under the cursor, selected in the kernel list. */
static int time_enter(app *a)
{
    struct timeview *tv = tv_of(a);
    tv_refresh(a, tv);
    const kernel_time_row *r = row_at(tv, tv->cursor);
    if (!r) {
        app_message(a, 1, "no kernel to select");
        return AF_FAILED;
    }
    char pos[32];   /* the kernel list's row: its place in launch order */
    snprintf(pos, sizeof pos, "%zu", tv->t.by_device[tv->cursor]);
    view_close_all(a);
    return app_chain(a, "goto", pos);
}

int timeview_action(app *a, const char *arg)
{
    (void)arg;
    if (a->over == &time_view) {
        view_close(a);
        return AF_HANDLED;
    }
    view_close_all(a);
    view_open(a, &time_view);
    return AF_HANDLED;
}

void timeview_release(app *a)
{
    if (!a->timeview)
        return;
    kernel_times_release(&a->timeview->t);
    free(a->timeview);
    a->timeview = NULL;
}

static const view_ops time_view = {"kernel-times", timeview_render, time_scroll, time_top, time_find, 0, 0,
                                   time_enter};
