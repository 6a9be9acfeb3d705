/* value_grid.c — see value_grid.h. */
#include "value_grid.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "actions.h"

#define CELL_W 10   /* " %9s": "%.3g" of a float32 is at most 9 columns */
#define LABEL_W 7   /* "%6lld " row label */

void value_grid_reset(app *a)
{
    a->grid_rax = a->grid_cax = 0;
    memset(a->grid_fix, 0, sizeof a->grid_fix);
    a->grid_crow = a->grid_ccol = 0;
    a->vrow = a->vcol = 0;
}

void value_grid_slice(const app *a, const tensor_rec *t, tensor_slice *s)
{
    tslice_init(s, t->shape ? t->ndim : 0, t->shape);
    if (a->grid_rax != a->grid_cax && a->grid_rax >= 0 && a->grid_cax >= 0 && a->grid_rax < s->ndim &&
        a->grid_cax < s->ndim) {
        strbuf ignore = STRBUF_INIT;   /* cannot fail: checked above */
        tslice_set_axes(s, a->grid_rax, a->grid_cax, &ignore);
        strbuf_release(&ignore);
    }
    for (int d = 0; d < s->ndim; d++)
        s->fix[d] = a->grid_fix[d];
    tslice_clamp(s);
}

void value_grid_goto_flat(app *a, const tensor_rec *t, int64_t flat)
{
    value_grid_reset(a);
    if (flat < 0)
        return;
    tensor_slice s;
    value_grid_slice(a, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    tslice_unflatten(&s, flat, idx);
    strbuf err = STRBUF_INIT;
    if (tslice_locate(&s, idx, &r, &c, &err) == 0) {
        memcpy(a->grid_fix, s.fix, sizeof s.fix);
        a->grid_crow = a->vrow = r;
        a->grid_ccol = c;
    }
    strbuf_release(&err);
}

/* ---- drawing ------------------------------------------------------------ */

static void fmt_short(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        fmt_double(buf, n, v);
    else
        snprintf(buf, n, "%.3g", v);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Scroll so the cursor is on screen: the least move of first. */
static void keep_visible(int64_t *first, int64_t cur, int64_t page)
{
    if (cur < *first)
        *first = cur;
    else if (cur >= *first + page)
        *first = cur - page + 1;
}

int value_grid_draw(app *a, grid *g, rect r, const tensor_rec *t)
{
    if (!t->nvalues || !t->values || r.h < 2 || r.w < 10)
        return 0;
    tensor_slice s;
    value_grid_slice(a, t, &s);
    int default_axes = s.row_axis == (s.ndim >= 2 ? s.ndim - 2 : -1);
    int slice_line = (s.ndim > 2 || !default_axes) && r.h >= 3;
    int hdr = 1 + slice_line, y = 0;
    strbuf sb = STRBUF_INIT;
    if (slice_line) {
        strbuf_addstr(&sb, "slice ");
        tslice_describe(&s, &sb);
        grid_put(g, r.x, r.y + y++, r.w, EL_HEADER, sb.buf);
        strbuf_reset(&sb);
    }
    int64_t nrow = s.nrows, cols = s.ncols;
    if (nrow <= 0 || cols <= 0) {
        strbuf_addstr(&sb, "values: the tensor is empty (shape ");
        fmt_shape(&sb, t->ndim, t->shape);
        strbuf_addch(&sb, ')');
        grid_put(g, r.x, r.y + y++, r.w, EL_HEADER, sb.buf);
        strbuf_release(&sb);
        return y;
    }
    int64_t fit = (r.w - LABEL_W) / CELL_W, page = r.h - hdr;
    if (fit < 1) fit = 1;
    a->vrow = clamp64(a->vrow, 0, nrow - 1);
    a->vcol = clamp64(a->vcol, 0, cols - 1);
    a->grid_crow = clamp64(a->grid_crow, 0, nrow - 1);
    a->grid_ccol = clamp64(a->grid_ccol, 0, cols - 1);
    keep_visible(&a->vrow, a->grid_crow, page);
    keep_visible(&a->vcol, a->grid_ccol, fit);

    int64_t idx[TENSOR_MAX_DIMS];
    tslice_index(&s, a->grid_crow, a->grid_ccol, idx);
    int64_t cflat = tslice_flat(&s, a->grid_crow, a->grid_ccol);
    strbuf cur = STRBUF_INIT;   /* the cursor: "[i, j, k] = v" */
    tslice_fmt_index(&cur, s.ndim, idx);
    if (cflat >= 0 && (uint64_t)cflat < t->nvalues) {
        char vb[32];
        fmt_double(vb, sizeof vb, t->values[cflat]);
        strbuf_addf(&cur, " = %s", vb);
    } else {
        strbuf_addstr(&cur, " not kept");
    }
    /* the range and the cursor on one line when they fit, else two */
    int64_t lines = page;
    for (int pass = 0; pass < 2; pass++) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "values (%zu%s) rows %lld-%lld of %lld, cols %lld-%lld of %lld", t->nvalues,
                    t->values_budget_cut ? " sampled: value budget" : t->values_complete ? "" : " sampled",
                    (long long)a->vrow,
                    (long long)(a->vrow + lines - 1 < nrow - 1 ? a->vrow + lines - 1 : nrow - 1), (long long)nrow,
                    (long long)a->vcol, (long long)(a->vcol + fit - 1 < cols - 1 ? a->vcol + fit - 1 : cols - 1),
                    (long long)cols);
        if (pass || utf8_columns(sb.buf) + 2 + utf8_columns(cur.buf) <= r.w || page < 2)
            break;
        lines = page - 1;   /* the cursor takes a line of its own */
        keep_visible(&a->vrow, a->grid_crow, lines);
    }
    if (lines == page) {
        strbuf_addf(&sb, "; %s", cur.buf);
        grid_put(g, r.x, r.y + y++, r.w, EL_HEADER, sb.buf);
    } else {
        grid_put(g, r.x, r.y + y++, r.w, EL_HEADER, sb.buf);
        strbuf_reset(&sb);
        strbuf_addf(&sb, "cursor %s", cur.buf);
        grid_put(g, r.x, r.y + y++, r.w, EL_HEADER, sb.buf);
    }
    strbuf_release(&cur);
    strbuf_release(&sb);

    uint32_t absent = g->ascii ? '-' : 0xb7;   /* "·", set directly: it is one column in any locale */
    for (int64_t i = a->vrow; i < nrow && y < r.h; i++, y++) {
        int x = r.x + grid_printf(g, r.x, r.y + y, LABEL_W, EL_DIM, "%6lld ", (long long)i);
        for (int64_t j = a->vcol; j < cols && j < a->vcol + fit; j++, x += CELL_W) {
            int cur = i == a->grid_crow && j == a->grid_ccol;
            int64_t f = tslice_flat(&s, i, j);
            if (cur)   /* the cursor cell, less its separating space */
                grid_fill(g, x + 1, r.y + y, CELL_W - 1, 1, ' ', EL_SELECTED);
            if (f < 0 || (uint64_t)f >= t->nvalues) {   /* not kept: never read past values */
                grid_set(g, x + CELL_W - 1, r.y + y, absent, cur ? EL_SELECTED : EL_DIM);
                continue;
            }
            double v = t->values[f];
            char b[24];
            fmt_short(b, sizeof b, v);
            int el = cur ? EL_SELECTED : isfinite(v) ? EL_NORMAL : EL_NAN;
            grid_printf(g, x + 1, r.y + y, CELL_W - 1, el, "%9s", b);
        }
    }
    return y;
}

/* ---- actions ------------------------------------------------------------ */

static const tensor_rec *selected(app *a, const char *what)
{
    const tensor_rec *t = pane_inspector_selected(a);
    if (!t)
        app_message(a, 1, "%s: no tensor selected in the inspector (4 focuses it; select a kernel first)", what);
    return t;
}

/* Reads up to max integers separated by spaces or commas; -1 on junk. */
static int parse_ints(const char *arg, long long *v, int max)
{
    int n = 0;
    const char *p = arg ? arg : "";
    for (;;) {
        while (isspace((unsigned char)*p) || *p == ',') p++;
        if (!*p)
            return n;
        if (n == max)
            return -1;
        char *end;
        errno = 0;
        v[n] = strtoll(p, &end, 10);
        if (end == p || errno || (*end && !isspace((unsigned char)*end) && *end != ','))
            return -1;
        n++;
        p = end;
    }
}

/* After a change of view: the message line says which slice is shown. */
static int said_slice(app *a, const tensor_slice *s)
{
    strbuf d = STRBUF_INIT;
    tslice_describe(s, &d);
    app_message(a, 0, "grid: %s", d.buf);
    strbuf_release(&d);
    return AF_HANDLED | AF_REDRAW;
}

int vg_action_axes(app *a, const char *arg)
{
    const tensor_rec *t = selected(a, "grid-axes");
    if (!t)
        return AF_FAILED;
    tensor_slice s;
    value_grid_slice(a, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    tslice_index(&s, a->grid_crow, a->grid_ccol, idx);   /* the cursor's element stays put */
    long long v[2];
    int n = parse_ints(arg, v, 2);
    strbuf err = STRBUF_INIT;
    if (n == 0) {   /* back to the default axes */
        tslice_init(&s, t->shape ? t->ndim : 0, t->shape);
    } else if (n != 2 || v[0] < -1000 || v[0] > 1000 || v[1] < -1000 || v[1] > 1000) {
        app_message(a, 1, "grid-axes: give the row dim and the column dim, e.g. :grid-axes 0 2 (got '%s')", arg);
        return AF_FAILED;
    } else if (tslice_set_axes(&s, (int)v[0], (int)v[1], &err) < 0) {
        app_message(a, 1, "grid-axes: %s", err.buf);
        strbuf_release(&err);
        return AF_FAILED;
    }
    tslice_clamp(&s);
    if (tslice_locate(&s, idx, &r, &c, &err) < 0)
        r = c = 0;
    strbuf_release(&err);
    a->grid_rax = n ? s.row_axis : 0;
    a->grid_cax = n ? s.col_axis : 0;
    memcpy(a->grid_fix, s.fix, sizeof s.fix);
    a->grid_crow = r;
    a->grid_ccol = c;
    a->vrow = a->vcol = 0;
    return said_slice(a, &s);
}

int vg_action_fix(app *a, const char *arg)
{
    const tensor_rec *t = selected(a, "grid-fix");
    if (!t)
        return AF_FAILED;
    long long v[2];
    if (parse_ints(arg, v, 2) != 2 || v[0] < -1000 || v[0] > 1000) {
        app_message(a, 1, "grid-fix: give a dim and its index, e.g. :grid-fix 1 3 (got '%s')", arg ? arg : "");
        return AF_FAILED;
    }
    tensor_slice s;
    value_grid_slice(a, t, &s);
    strbuf err = STRBUF_INIT;
    if (tslice_set_fix(&s, (int)v[0], v[1], &err) < 0) {
        app_message(a, 1, "grid-fix: %s", err.buf);
        strbuf_release(&err);
        return AF_FAILED;
    }
    strbuf_release(&err);
    a->grid_fix[v[0]] = v[1];
    return said_slice(a, &s);
}

int vg_action_goto(app *a, const char *arg)
{
    const tensor_rec *t = selected(a, "grid-goto");
    if (!t)
        return AF_FAILED;
    tensor_slice s;
    value_grid_slice(a, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    strbuf err = STRBUF_INIT;
    if (tslice_parse_index(&s, arg, idx, &err) < 0 || tslice_locate(&s, idx, &r, &c, &err) < 0) {
        app_message(a, 1, "grid-goto: %s", err.buf);
        strbuf_release(&err);
        return AF_FAILED;
    }
    strbuf_release(&err);
    memcpy(a->grid_fix, s.fix, sizeof s.fix);
    a->grid_crow = r;
    a->grid_ccol = c;
    return AF_HANDLED | AF_REDRAW;
}

/* Moves the cursor by (dr, dc) inside the selected tensor's slice; the
 * drawing scrolls to keep it on screen. */
static int cursor_by(app *a, const char *arg, int dr, int dc)
{
    long long n = 1;
    if (arg && *arg && (parse_ints(arg, &n, 1) != 1 || n < 0)) {
        app_message(a, 1, "grid-cursor: the count must be a number >= 0 (got '%s')", arg);
        return AF_FAILED;
    }
    if (n > ((int64_t)1 << 40))
        n = (int64_t)1 << 40;
    a->grid_crow += dr * n;
    a->grid_ccol += dc * n;
    const tensor_rec *t = pane_inspector_selected(a);
    int64_t nr = 1, nc = 1;
    if (t) {
        tensor_slice s;
        value_grid_slice(a, t, &s);
        nr = s.nrows, nc = s.ncols;
    }
    a->grid_crow = clamp64(a->grid_crow, 0, nr > 0 ? nr - 1 : 0);
    a->grid_ccol = clamp64(a->grid_ccol, 0, nc > 0 ? nc - 1 : 0);
    return AF_HANDLED | AF_REDRAW;
}
int vg_action_cdown(app *a, const char *arg) { return cursor_by(a, arg, 1, 0); }
int vg_action_cup(app *a, const char *arg) { return cursor_by(a, arg, -1, 0); }
int vg_action_cleft(app *a, const char *arg) { return cursor_by(a, arg, 0, -1); }
int vg_action_cright(app *a, const char *arg) { return cursor_by(a, arg, 0, 1); }
