/* test_tensor_slice.c — 2-D slices of N-d tensors (core/model/tensor_slice.c):
 * the cell -> row-major flat index mapping checked against an independent
 * stride computation, validation messages, 0-d/1-d/3-d/4-d tensors, the
 * multi-index parser and formatter; and the value grid drawn over a tensor
 * whose values are only partly kept (tui/value_grid.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "tensor_slice.h"
#include "theme.h"
#include "value_grid.h"

/* Row-major flat index of a multi-index by explicit strides. */
static int64_t flat_of(int ndim, const int64_t *shape, const int64_t *idx)
{
    int64_t f = 0, stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        f += idx[d] * stride;
        stride *= shape[d];
    }
    return f;
}

static void test_default_views(void)
{
    tensor_slice s;
    int64_t sh2[] = {4, 6};
    tslice_init(&s, 2, sh2);
    CHECK(s.row_axis == 0 && s.col_axis == 1 && s.nrows == 4 && s.ncols == 6);
    CHECK(tslice_flat(&s, 3, 5) == 23);
    CHECK(tslice_flat(&s, 1, 2) == 8);
    CHECK(tslice_flat(&s, 4, 0) == -1 && tslice_flat(&s, 0, 6) == -1 && tslice_flat(&s, -1, 0) == -1);
    int64_t sh1[] = {7};
    tslice_init(&s, 1, sh1);
    CHECK(s.row_axis == -1 && s.col_axis == 0 && s.nrows == 1 && s.ncols == 7);
    CHECK(tslice_flat(&s, 0, 6) == 6 && tslice_flat(&s, 1, 0) == -1);
    tslice_init(&s, 0, NULL);
    CHECK(s.nrows == 1 && s.ncols == 1 && tslice_flat(&s, 0, 0) == 0 && tslice_flat(&s, 0, 1) == -1);
    strbuf sb = STRBUF_INIT;
    tslice_describe(&s, &sb);
    CHECK_STR(sb.buf, "scalar");
    tslice_fmt_index(&sb, 0, NULL);
    CHECK_STR(sb.buf, "scalar[]");
    strbuf_release(&sb);
    int64_t sh3[] = {2, 3, 5};
    tslice_init(&s, 3, sh3);   /* rows dim 1, cols dim 2, dim 0 at 0 */
    CHECK(s.row_axis == 1 && s.col_axis == 2 && s.nrows == 3 && s.ncols == 5 && s.fix[0] == 0);
    CHECK(tslice_flat(&s, 2, 4) == 14);
    int64_t sh0[] = {3, 0, 2};   /* an empty tensor has no cell */
    tslice_init(&s, 3, sh0);
    CHECK(s.nrows == 0 && tslice_flat(&s, 0, 0) == -1);
}

/* Every cell of every axis pair and fixed index of a 4-d tensor against the
 * stride formula; each flat index is hit exactly once per fixed choice. */
static void test_mapping_4d(void)
{
    int64_t sh[] = {2, 3, 4, 5};
    int seen[120];
    for (int ra = 0; ra < 4; ra++)
        for (int ca = 0; ca < 4; ca++) {
            if (ra == ca)
                continue;
            tensor_slice s;
            tslice_init(&s, 4, sh);
            strbuf err = STRBUF_INIT;
            CHECK(tslice_set_axes(&s, ra, ca, &err) == 0);
            strbuf_release(&err);
            CHECK(s.nrows == sh[ra] && s.ncols == sh[ca]);
            memset(seen, 0, sizeof seen);
            int o[2], no = 0;   /* the two other dims */
            for (int d = 0; d < 4; d++)
                if (d != ra && d != ca) o[no++] = d;
            for (int64_t f0 = 0; f0 < sh[o[0]]; f0++)
                for (int64_t f1 = 0; f1 < sh[o[1]]; f1++) {
                    strbuf e2 = STRBUF_INIT;
                    CHECK(tslice_set_fix(&s, o[0], f0, &e2) == 0 && tslice_set_fix(&s, o[1], f1, &e2) == 0);
                    strbuf_release(&e2);
                    for (int64_t r = 0; r < s.nrows; r++)
                        for (int64_t c = 0; c < s.ncols; c++) {
                            int64_t idx[4];
                            idx[ra] = r, idx[ca] = c, idx[o[0]] = f0, idx[o[1]] = f1;
                            int64_t f = tslice_flat(&s, r, c);
                            CHECK(f == flat_of(4, sh, idx));
                            if (f >= 0 && f < 120) seen[f]++;
                            int64_t back[4], rr, cc;
                            tslice_unflatten(&s, f, back);
                            CHECK(!memcmp(back, idx, sizeof idx));
                            tensor_slice t2 = s;
                            strbuf e3 = STRBUF_INIT;
                            CHECK(tslice_locate(&t2, back, &rr, &cc, &e3) == 0 && rr == r && cc == c);
                            strbuf_release(&e3);
                        }
                }
            for (int f = 0; f < 120; f++)
                CHECK(seen[f] == 1);
        }
}

static void test_validation(void)
{
    int64_t sh2[] = {4, 4}, sh3[] = {2, 4, 3};
    tensor_slice s;
    strbuf err = STRBUF_INIT;
    tslice_init(&s, 2, sh2);
    CHECK(tslice_set_axes(&s, 0, 3, &err) < 0);
    CHECK_STR(err.buf, "axis 3 is past the tensor's 2 dims");
    strbuf_reset(&err);
    CHECK(tslice_set_axes(&s, 1, 1, &err) < 0);
    CHECK_CONTAINS(err.buf, "both dim 1");
    strbuf_reset(&err);
    CHECK(tslice_set_axes(&s, -1, 0, &err) < 0);
    CHECK_CONTAINS(err.buf, "negative");
    CHECK(s.row_axis == 0 && s.col_axis == 1);   /* unchanged by the failures */
    strbuf_reset(&err);
    tslice_init(&s, 3, sh3);
    CHECK(tslice_set_axes(&s, 0, 2, &err) == 0 && s.nrows == 2 && s.ncols == 3);
    CHECK(tslice_set_fix(&s, 1, 7, &err) < 0);
    CHECK_STR(err.buf, "index 7 of dim 1 is past its size 4");
    strbuf_reset(&err);
    CHECK(tslice_set_fix(&s, 2, 0, &err) < 0);
    CHECK_CONTAINS(err.buf, "dim 2 is the grid's column axis");
    strbuf_reset(&err);
    CHECK(tslice_set_fix(&s, 5, 0, &err) < 0);
    CHECK_CONTAINS(err.buf, "dim 5 is past the tensor's 3 dims");
    strbuf_reset(&err);
    CHECK(tslice_set_fix(&s, -1, 0, &err) < 0);
    CHECK_CONTAINS(err.buf, "dim -1 is negative");
    strbuf_reset(&err);
    CHECK(tslice_set_fix(&s, 1, 3, &err) == 0 && s.fix[1] == 3);
    CHECK(tslice_flat(&s, 1, 2) == flat_of(3, sh3, (int64_t[]){1, 3, 2}));
    strbuf d = STRBUF_INIT;
    tslice_describe(&s, &d);
    CHECK_STR(d.buf, "rows: dim 0, cols: dim 2, dim 1 = 3");
    strbuf_release(&d);
    int64_t sh1[] = {5};
    tslice_init(&s, 1, sh1);
    CHECK(tslice_set_axes(&s, 0, 1, &err) < 0);
    CHECK_CONTAINS(err.buf, "1-d tensor");
    strbuf_reset(&err);
    /* a shape whose numel overflows int64 maps far cells to -1, never wraps */
    int64_t huge[] = {INT64_MAX / 2, 4, 4};
    tslice_init(&s, 3, huge);
    CHECK(tslice_set_axes(&s, 0, 2, &err) == 0);
    CHECK(tslice_flat(&s, INT64_MAX / 2 - 1, 3) == -1);
    CHECK(tslice_flat(&s, 0, 3) == 3);
    strbuf_release(&err);
}

static void test_parse_index(void)
{
    int64_t sh[] = {2, 3, 5}, idx[3];
    tensor_slice s;
    tslice_init(&s, 3, sh);
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    CHECK(tslice_parse_index(&s, "1,2,4", idx, &err) == 0 && idx[0] == 1 && idx[1] == 2 && idx[2] == 4);
    CHECK(tslice_parse_index(&s, " [1, 0, 3] ", idx, &err) == 0 && idx[2] == 3);
    CHECK(tslice_parse_index(&s, "1 2 3", idx, &err) == 0 && idx[1] == 2);
    tslice_fmt_index(&out, 3, idx);
    CHECK_STR(out.buf, "[1, 2, 3]");
    CHECK(tslice_parse_index(&s, "1,2", idx, &err) < 0);
    CHECK_CONTAINS(err.buf, "has 2 indices; the tensor has 3 dims");
    strbuf_reset(&err);
    CHECK(tslice_parse_index(&s, "1,2,3,4", idx, &err) < 0);
    CHECK_CONTAINS(err.buf, "more than the tensor's 3 indices");
    strbuf_reset(&err);
    CHECK(tslice_parse_index(&s, "1,x,3", idx, &err) < 0);
    CHECK_CONTAINS(err.buf, "index 2 is not a number");
    strbuf_reset(&err);
    CHECK(tslice_parse_index(&s, "[1,2,3", idx, &err) < 0);
    CHECK_CONTAINS(err.buf, "missing ']'");
    strbuf_reset(&err);
    CHECK(tslice_parse_index(&s, "1,2,3]", idx, &err) < 0);
    strbuf_reset(&err);
    CHECK(tslice_parse_index(&s, "1;2;3", idx, &err) < 0);
    strbuf_reset(&err);
    int64_t r, c;
    idx[0] = 1, idx[1] = 9, idx[2] = 0;
    CHECK(tslice_locate(&s, idx, &r, &c, &err) < 0);
    CHECK_STR(err.buf, "index 9 of dim 1 is past its size 3");
    strbuf_reset(&err);
    tslice_init(&s, 0, NULL);
    CHECK(tslice_parse_index(&s, "[]", idx, &err) == 0);
    CHECK(tslice_parse_index(&s, "0", idx, &err) < 0);
    strbuf_release(&err);
    strbuf_release(&out);
}

/* The grid over a 3-d tensor with only its first 17 of 30 values kept:
 * cells past them are "·", never read; the header names the cursor. */
static void test_grid_not_kept(void)
{
    int64_t shape[] = {2, 3, 5}, strides[] = {15, 5, 1};
    double *vals = malloc(17 * sizeof *vals);
    for (int i = 0; i < 17; i++)
        vals[i] = i + 0.5;
    vals[16] = NAN;
    tensor_rec t = {0};
    t.name = "buf0", t.ndim = 3, t.shape = shape, t.strides = strides, t.dtype = "float32";
    t.nvalues = 17, t.values = vals;
    value_grid a;
    memset(&a, 0, sizeof a);
    grid g;
    grid_init(&g, 70, 8, 0);
    grid_clear(&g, EL_NORMAL);
    value_grid_draw(&a, &g, (rect){0, 0, 70, 8}, &t);
    strbuf out = STRBUF_INIT;
    grid_dump(&g, &out);
    CHECK_CONTAINS(out.buf, "slice rows: dim 1, cols: dim 2, dim 0 = 0");
    CHECK_CONTAINS(out.buf, "values (17 sampled) rows 0-2 of 3, cols 0-4 of 5; [0, 0, 0] = 0.5");
    CHECK_CONTAINS(out.buf, "     2       10.5      11.5      12.5      13.5      14.5");
    /* dim 0 = 1: flat 15..29; 15 is kept, 16 is NaN, the rest are not kept */
    a.fix[0] = 1;
    a.ccol = 2;
    grid_clear(&g, EL_NORMAL);
    value_grid_draw(&a, &g, (rect){0, 0, 70, 8}, &t);
    strbuf_reset(&out);
    grid_dump(&g, &out);
    CHECK_CONTAINS(out.buf, "[1, 0, 2] not kept");
    CHECK_CONTAINS(out.buf, "     0       15.5       nan         \xc2\xb7         \xc2\xb7         \xc2\xb7");
    /* the NaN cell is drawn with EL_NAN, the cursor cell with EL_SELECTED */
    CHECK(g.cells[2 * 70 + 7 + 10 + 9].el == EL_NAN);
    CHECK(g.cells[2 * 70 + 7 + 2 * 10 + 9].el == EL_SELECTED);
    /* ASCII mode draws a not-kept cell as "-" */
    grid ga;
    grid_init(&ga, 70, 8, 1);
    grid_clear(&ga, EL_NORMAL);
    value_grid_draw(&a, &ga, (rect){0, 0, 70, 8}, &t);
    strbuf_reset(&out);
    grid_dump(&ga, &out);
    CHECK_CONTAINS(out.buf, "     0       15.5       nan         -         -         -");
    grid_free(&ga);
        /* the cursor below the page scrolls the rows */
    a.fix[0] = 0;
    a.crow = 2;
    grid_clear(&g, EL_NORMAL);
    value_grid_draw(&a, &g, (rect){0, 0, 70, 4}, &t);
    CHECK(a.vrow == 1);
    strbuf_release(&out);
    grid_free(&g);
    free(vals);
}

int main(void)
{
    RUN(test_default_views);
    RUN(test_mapping_4d);
    RUN(test_validation);
    RUN(test_parse_index);
    RUN(test_grid_not_kept);
    return CHECK_DONE();
}
