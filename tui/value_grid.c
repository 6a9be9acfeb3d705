/* value_grid.c — see value_grid.h. */
#include "value_grid.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "theme.h"

#define CELL_W 10   /* " %9s": "%.3g" of a float32 is at most 9 columns */
#define CELL_WC 20  /* complex: " %19s": "%.3g%+.3gj" */
#define LABEL_W 7   /* "%6lld " row label */

void value_grid_reset(value_grid *vg)
{
    vg->rax = vg->cax = 0;
    memset(vg->fix, 0, sizeof vg->fix);
    vg->crow = vg->ccol = 0;
    vg->vrow = vg->vcol = 0;
}

static void value_grid_slice(const value_grid *vg, const tensor_rec *t, tensor_slice *s)
{
    tslice_init(s, t->shape ? t->ndim : 0, t->shape);
    if (vg->rax != vg->cax && vg->rax >= 0 && vg->cax >= 0 && vg->rax < s->ndim &&
        vg->cax < s->ndim) {
        strbuf ignore = STRBUF_INIT;   /* cannot fail: checked above */
        tslice_set_axes(s, vg->rax, vg->cax, &ignore);
        strbuf_release(&ignore);
    }
    for (int d = 0; d < s->ndim; d++)
        s->fix[d] = vg->fix[d];
    tslice_clamp(s);
}

void value_grid_goto_flat(value_grid *vg, const tensor_rec *t, int64_t flat)
{
    value_grid_reset(vg);
    if (flat < 0)
        return;
    tensor_slice s;
    value_grid_slice(vg, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    tslice_unflatten(&s, flat, idx);
    strbuf err = STRBUF_INIT;
    if (tslice_locate(&s, idx, &r, &c, &err) == 0) {
        memcpy(vg->fix, s.fix, sizeof s.fix);
        vg->crow = vg->vrow = r;
        vg->ccol = c;
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

int value_grid_draw(value_grid *vg, grid *g, rect r, const tensor_rec *t)
{
    if (!t->nvalues || !t->values || r.h < 2 || r.w < 10)
        return 0;
    tensor_slice s;
    value_grid_slice(vg, t, &s);
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
    int lanes = dtype_lanes(t->dtype);   /* complex: (re, im) pairs, "a+bj" cells */
    int cw = lanes == 2 ? CELL_WC : CELL_W;
    size_t kept = tensor_values_elems(t);
    int64_t fit = (r.w - LABEL_W) / cw, page = r.h - hdr;
    if (fit < 1) fit = 1;
    vg->vrow = clamp64(vg->vrow, 0, nrow - 1);
    vg->vcol = clamp64(vg->vcol, 0, cols - 1);
    vg->crow = clamp64(vg->crow, 0, nrow - 1);
    vg->ccol = clamp64(vg->ccol, 0, cols - 1);
    keep_visible(&vg->vrow, vg->crow, page);
    keep_visible(&vg->vcol, vg->ccol, fit);

    int64_t idx[TENSOR_MAX_DIMS];
    tslice_index(&s, vg->crow, vg->ccol, idx);
    int64_t cflat = tslice_flat(&s, vg->crow, vg->ccol);
    strbuf cur = STRBUF_INIT;   /* the cursor: "[i, j, k] = v" */
    tslice_fmt_index(&cur, s.ndim, idx);
    if (cflat >= 0 && (uint64_t)cflat < kept) {
        char vb[64];
        if (lanes == 2)
            fmt_complex(vb, sizeof vb, t->values[2 * cflat], t->values[2 * cflat + 1], 4);
        else
            fmt_double(vb, sizeof vb, t->values[cflat]);
        strbuf_addf(&cur, " = %s", vb);
    } else {
        strbuf_addstr(&cur, " not kept");
    }
    /* the range and the cursor on one line when they fit, else two */
    int64_t lines = page;
    for (int pass = 0; pass < 2; pass++) {
        strbuf_reset(&sb);
        strbuf_addf(&sb, "values (%zu%s) rows %lld-%lld of %lld, cols %lld-%lld of %lld", kept,
                    t->values_budget_cut ? " sampled: value budget" : t->values_complete ? "" : " sampled",
                    (long long)vg->vrow,
                    (long long)(vg->vrow + lines - 1 < nrow - 1 ? vg->vrow + lines - 1 : nrow - 1), (long long)nrow,
                    (long long)vg->vcol, (long long)(vg->vcol + fit - 1 < cols - 1 ? vg->vcol + fit - 1 : cols - 1),
                    (long long)cols);
        if (pass || utf8_columns(sb.buf) + 2 + utf8_columns(cur.buf) <= r.w || page < 2)
            break;
        lines = page - 1;   /* the cursor takes a line of its own */
        keep_visible(&vg->vrow, vg->crow, lines);
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
    for (int64_t i = vg->vrow; i < nrow && y < r.h; i++, y++) {
        int x = r.x + grid_printf(g, r.x, r.y + y, LABEL_W, EL_DIM, "%6lld ", (long long)i);
        for (int64_t j = vg->vcol; j < cols && j < vg->vcol + fit; j++, x += cw) {
            int cur = i == vg->crow && j == vg->ccol;
            int64_t f = tslice_flat(&s, i, j);
            if (cur)   /* the cursor cell, less its separating space */
                grid_fill(g, x + 1, r.y + y, cw - 1, 1, ' ', EL_SELECTED);
            if (f < 0 || (uint64_t)f >= kept) {   /* not kept: never read past values */
                grid_set(g, x + cw - 1, r.y + y, absent, cur ? EL_SELECTED : EL_DIM);
                continue;
            }
            char b[48];
            int finite;
            if (lanes == 2) {
                double re = t->values[2 * f], im = t->values[2 * f + 1];
                fmt_complex(b, sizeof b, re, im, 3);
                finite = isfinite(re) && isfinite(im);
            } else {
                fmt_short(b, sizeof b, t->values[f]);
                finite = isfinite(t->values[f]);
            }
            int el = cur ? EL_SELECTED : finite ? EL_NORMAL : EL_NAN;
            grid_printf(g, x + 1, r.y + y, cw - 1, el, "%*s", cw - 1, b);
        }
    }
    return y;
}

/* ---- changes of view ----------------------------------------------------- */

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

/* After a change of view: msg says which slice is shown. */
static int said_slice(strbuf *msg, const tensor_slice *s)
{
    strbuf_addstr(msg, "grid: ");
    tslice_describe(s, msg);
    return 0;
}

int value_grid_axes(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg)
{
    tensor_slice s;
    value_grid_slice(vg, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    tslice_index(&s, vg->crow, vg->ccol, idx);   /* the cursor's element stays put */
    long long v[2];
    int n = parse_ints(arg, v, 2);
    strbuf err = STRBUF_INIT;
    if (n == 0) {   /* back to the default axes */
        tslice_init(&s, t->shape ? t->ndim : 0, t->shape);
    } else if (n != 2 || v[0] < -1000 || v[0] > 1000 || v[1] < -1000 || v[1] > 1000) {
        strbuf_addf(msg, "grid-axes: give the row dim and the column dim, e.g. :grid-axes 0 2 (got '%s')", arg);
        return -1;
    } else if (tslice_set_axes(&s, (int)v[0], (int)v[1], &err) < 0) {
        strbuf_addf(msg, "grid-axes: %s", err.buf);
        strbuf_release(&err);
        return -1;
    }
    tslice_clamp(&s);
    if (tslice_locate(&s, idx, &r, &c, &err) < 0)
        r = c = 0;
    strbuf_release(&err);
    vg->rax = n ? s.row_axis : 0;
    vg->cax = n ? s.col_axis : 0;
    memcpy(vg->fix, s.fix, sizeof s.fix);
    vg->crow = r;
    vg->ccol = c;
    vg->vrow = vg->vcol = 0;
    return said_slice(msg, &s);
}

int value_grid_fix(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg)
{
    long long v[2];
    if (parse_ints(arg, v, 2) != 2 || v[0] < -1000 || v[0] > 1000) {
        strbuf_addf(msg, "grid-fix: give a dim and its index, e.g. :grid-fix 1 3 (got '%s')", arg ? arg : "");
        return -1;
    }
    tensor_slice s;
    value_grid_slice(vg, t, &s);
    strbuf err = STRBUF_INIT;
    if (tslice_set_fix(&s, (int)v[0], v[1], &err) < 0) {
        strbuf_addf(msg, "grid-fix: %s", err.buf);
        strbuf_release(&err);
        return -1;
    }
    strbuf_release(&err);
    vg->fix[v[0]] = v[1];
    return said_slice(msg, &s);
}

int value_grid_goto(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg)
{
    tensor_slice s;
    value_grid_slice(vg, t, &s);
    int64_t idx[TENSOR_MAX_DIMS], r, c;
    strbuf err = STRBUF_INIT;
    if (tslice_parse_index(&s, arg, idx, &err) < 0 || tslice_locate(&s, idx, &r, &c, &err) < 0) {
        strbuf_addf(msg, "grid-goto: %s", err.buf);
        strbuf_release(&err);
        return -1;
    }
    strbuf_release(&err);
    memcpy(vg->fix, s.fix, sizeof s.fix);
    vg->crow = r;
    vg->ccol = c;
    return 0;
}

int value_grid_cursor_by(value_grid *vg, const tensor_rec *t, const char *arg, int dr, int dc, strbuf *msg)
{
    long long n = 1;
    if (arg && *arg && (parse_ints(arg, &n, 1) != 1 || n < 0)) {
        strbuf_addf(msg, "grid-cursor: the count must be a number >= 0 (got '%s')", arg);
        return -1;
    }
    if (n > ((int64_t)1 << 40))
        n = (int64_t)1 << 40;
    vg->crow += dr * n;
    vg->ccol += dc * n;
    int64_t nr = 1, nc = 1;
    if (t) {
        tensor_slice s;
        value_grid_slice(vg, t, &s);
        nr = s.nrows, nc = s.ncols;
    }
    vg->crow = clamp64(vg->crow, 0, nr > 0 ? nr - 1 : 0);
    vg->ccol = clamp64(vg->ccol, 0, nc > 0 ? nc - 1 : 0);
    return 0;
}

void value_grid_scroll(value_grid *vg, int64_t dr, int64_t dc)
{
    vg->vrow += dr;
    vg->vcol += dc;
    vg->crow += dr;
    vg->ccol += dc;
    if (vg->vrow < 0) vg->vrow = 0;
    if (vg->vcol < 0) vg->vcol = 0;
    if (vg->crow < 0) vg->crow = 0;
    if (vg->ccol < 0) vg->ccol = 0;
}
