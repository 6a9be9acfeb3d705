/* tensor_slice.c — see tensor_slice.h. */
#include "tensor_slice.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void extent(tensor_slice *s)
{
    s->nrows = s->row_axis >= 0 ? s->shape[s->row_axis] : 1;
    s->ncols = s->col_axis >= 0 ? s->shape[s->col_axis] : 1;
    for (int d = 0; d < s->ndim; d++)
        if (s->shape[d] == 0)   /* an empty tensor has no cell, whatever the axes */
            s->nrows = s->ncols = 0;
}

void tslice_init(tensor_slice *s, int ndim, const int64_t *shape)
{
    memset(s, 0, sizeof *s);
    if (ndim < 0 || !shape)
        ndim = 0;
    if (ndim > TENSOR_MAX_DIMS)
        ndim = TENSOR_MAX_DIMS;
    s->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        s->shape[d] = shape[d] > 0 ? shape[d] : 0;
    s->row_axis = ndim >= 2 ? ndim - 2 : -1;
    s->col_axis = ndim >= 1 ? ndim - 1 : -1;
    extent(s);
}

static int check_dim(const tensor_slice *s, int dim, strbuf *err)
{
    if (dim < 0) {
        strbuf_addf(err, "axis %d is negative (dims count from 0)", dim);
        return -1;
    }
    if (dim >= s->ndim) {
        strbuf_addf(err, "axis %d is past the tensor's %d dims", dim, s->ndim);
        return -1;
    }
    return 0;
}

int tslice_set_axes(tensor_slice *s, int row_axis, int col_axis, strbuf *err)
{
    if (s->ndim < 2) {
        strbuf_addf(err, "a %d-d tensor has no pair of axes to choose (it is shown as %s)", s->ndim,
                    s->ndim ? "one row" : "one cell");
        return -1;
    }
    if (check_dim(s, row_axis, err) < 0 || check_dim(s, col_axis, err) < 0)
        return -1;
    if (row_axis == col_axis) {
        strbuf_addf(err, "the row and column axes are both dim %d: pick two different dims", row_axis);
        return -1;
    }
    s->row_axis = row_axis;
    s->col_axis = col_axis;
    extent(s);
    return 0;
}

int tslice_set_fix(tensor_slice *s, int dim, int64_t idx, strbuf *err)
{
    if (dim < 0) {
        strbuf_addf(err, "dim %d is negative (dims count from 0)", dim);
        return -1;
    }
    if (dim >= s->ndim) {
        strbuf_addf(err, "dim %d is past the tensor's %d dims", dim, s->ndim);
        return -1;
    }
    if (dim == s->row_axis || dim == s->col_axis) {
        strbuf_addf(err, "dim %d is the grid's %s axis: fix another dim, or change the axes with grid-axes", dim,
                    dim == s->row_axis ? "row" : "column");
        return -1;
    }
    if (idx < 0 || idx >= s->shape[dim]) {
        strbuf_addf(err, "index %lld of dim %d is past its size %lld", (long long)idx, dim, (long long)s->shape[dim]);
        return -1;
    }
    s->fix[dim] = idx;
    return 0;
}

void tslice_clamp(tensor_slice *s)
{
    for (int d = 0; d < s->ndim; d++) {
        if (s->fix[d] >= s->shape[d])
            s->fix[d] = s->shape[d] - 1;
        if (s->fix[d] < 0)
            s->fix[d] = 0;
    }
}

void tslice_index(const tensor_slice *s, int64_t r, int64_t c, int64_t *idx)
{
    for (int d = 0; d < s->ndim; d++)
        idx[d] = d == s->row_axis ? r : d == s->col_axis ? c : s->fix[d];
}

int64_t tslice_flat(const tensor_slice *s, int64_t r, int64_t c)
{
    if (r < 0 || c < 0 || r >= s->nrows || c >= s->ncols)
        return -1;
    int64_t idx[TENSOR_MAX_DIMS];
    tslice_index(s, r, c, idx);
    int64_t flat = 0;
    for (int d = 0; d < s->ndim; d++) {
        if (idx[d] < 0 || idx[d] >= s->shape[d])
            return -1;
        /* flat = flat * shape[d] + idx[d], refusing overflow: a hostile
         * session may claim a shape whose numel does not fit */
        if (__builtin_mul_overflow(flat, s->shape[d], &flat) || __builtin_add_overflow(flat, idx[d], &flat))
            return -1;
    }
    return flat;
}

void tslice_unflatten(const tensor_slice *s, int64_t flat, int64_t *idx)
{
    for (int d = s->ndim - 1; d >= 0; d--) {
        int64_t n = s->shape[d] > 0 ? s->shape[d] : 1;
        idx[d] = flat % n;
        flat /= n;
    }
}

int tslice_locate(tensor_slice *s, const int64_t *idx, int64_t *r, int64_t *c, strbuf *err)
{
    for (int d = 0; d < s->ndim; d++)
        if (idx[d] < 0 || idx[d] >= s->shape[d]) {
            strbuf_addf(err, "index %lld of dim %d is past its size %lld", (long long)idx[d], d,
                        (long long)s->shape[d]);
            return -1;
        }
    for (int d = 0; d < s->ndim; d++)
        if (d != s->row_axis && d != s->col_axis)
            s->fix[d] = idx[d];
    *r = s->row_axis >= 0 ? idx[s->row_axis] : 0;
    *c = s->col_axis >= 0 ? idx[s->col_axis] : 0;
    return 0;
}

int tslice_parse_index(const tensor_slice *s, const char *text, int64_t *idx, strbuf *err)
{
    const char *p = text ? text : "";
    int n = 0;
    while (isspace((unsigned char)*p)) p++;
    int bracket = *p == '[';
    if (bracket) p++;
    for (;;) {
        while (isspace((unsigned char)*p) || *p == ',') p++;
        if (!*p || *p == ']')
            break;
        if (n >= s->ndim) {
            strbuf_addf(err, "'%s' has more than the tensor's %d indices", text, s->ndim);
            return -1;
        }
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno) {
            strbuf_addf(err, "'%s': index %d is not a number (expected e.g. %s)", text, n + 1,
                        s->ndim == 3 ? "1,2,3" : s->ndim == 2 ? "1,2" : "0");
            return -1;
        }
        idx[n++] = v;
        p = end;
        if (*p && !isspace((unsigned char)*p) && *p != ',' && *p != ']') {
            strbuf_addf(err, "'%s': unexpected '%c' after index %d", text, *p, n);
            return -1;
        }
    }
    if (*p == ']') {
        if (!bracket) {
            strbuf_addf(err, "'%s': ']' without '['", text);
            return -1;
        }
        p++;
        while (isspace((unsigned char)*p)) p++;
        bracket = 0;
    }
    if (bracket || *p) {
        strbuf_addf(err, "'%s': %s", text, bracket ? "missing ']'" : "text after ']'");
        return -1;
    }
    if (n != s->ndim) {
        strbuf_addf(err, "'%s' has %d ind%s; the tensor has %d dims", text, n, n == 1 ? "ex" : "ices", s->ndim);
        return -1;
    }
    return 0;
}

void tslice_fmt_index(strbuf *sb, int ndim, const int64_t *idx)
{
    strbuf_addch(sb, '[');
    for (int d = 0; d < ndim; d++)
        strbuf_addf(sb, "%s%lld", d ? ", " : "", (long long)idx[d]);
    strbuf_addch(sb, ']');
}

void tslice_describe(const tensor_slice *s, strbuf *sb)
{
    if (s->ndim == 0) {
        strbuf_addstr(sb, "scalar");
        return;
    }
    if (s->row_axis >= 0)
        strbuf_addf(sb, "rows: dim %d, ", s->row_axis);
    strbuf_addf(sb, "cols: dim %d", s->col_axis);
    for (int d = 0; d < s->ndim; d++)
        if (d != s->row_axis && d != s->col_axis)
            strbuf_addf(sb, ", dim %d = %lld", d, (long long)s->fix[d]);
}
