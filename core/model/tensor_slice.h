/* tensor_slice.h — a 2-D slice of an N-d tensor, for the inspector's value grid.
 *
 * A slice picks a row axis and a column axis; every other dim is held at a
 * fixed index. Grid cell (r, c) then maps to one element, named by its
 * row-major flat index (the order tensor_rec keeps values in). A 1-d tensor
 * is one row (row_axis -1), a 0-d tensor one cell (both axes -1).
 * Pure C, no allocation. Functions that validate return 0, or -1 with a
 * human message appended to err (nothing changes then). */
#ifndef AOTIDBG_TENSOR_SLICE_H
#define AOTIDBG_TENSOR_SLICE_H
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

typedef struct {
    int ndim;                          /* 0..TENSOR_MAX_DIMS */
    int64_t shape[TENSOR_MAX_DIMS];    /* negative sizes read as 0 */
    int row_axis, col_axis;            /* -1 when the tensor has too few dims */
    int64_t fix[TENSOR_MAX_DIMS];      /* index of each dim that is not an axis */
    int64_t nrows, ncols;              /* the slice's extent */
} tensor_slice;

/* The default view: rows dim N-2, cols dim N-1, every other dim at 0
 * (2-d: rows dim 0, cols dim 1; 1-d: one row; 0-d: one cell). ndim past
 * TENSOR_MAX_DIMS is clamped to it. */
void tslice_init(tensor_slice *s, int ndim, const int64_t *shape);
/* Picks the two axes (distinct dims of the tensor); fixed indices are kept. */
int tslice_set_axes(tensor_slice *s, int row_axis, int col_axis, strbuf *err);
/* Holds dim at idx; dim must not be one of the axes. */
int tslice_set_fix(tensor_slice *s, int dim, int64_t idx, strbuf *err);
/* Clamps every fixed index into its dim (0 for an empty dim). */
void tslice_clamp(tensor_slice *s);
/* Row-major flat index of cell (r, c), or -1 when the cell is outside the
 * slice or the flat index would not fit in int64. */
int64_t tslice_flat(const tensor_slice *s, int64_t r, int64_t c);
/* The multi-index (ndim entries) of cell (r, c). */
void tslice_index(const tensor_slice *s, int64_t r, int64_t c, int64_t *idx);
/* Puts the slice through multi-index idx (fixed dims take its entries) and
 * gives the cell it lands on; -1 with a message when idx is out of range. */
int tslice_locate(tensor_slice *s, const int64_t *idx, int64_t *r, int64_t *c, strbuf *err);
/* The multi-index of a row-major flat index (ndim entries). */
void tslice_unflatten(const tensor_slice *s, int64_t flat, int64_t *idx);
/* Parses "I,J,K", "I J K" or "[I, J, K]" into exactly s->ndim indices
 * ("[]" or "" for 0-d); does not range-check (tslice_locate does). */
int tslice_parse_index(const tensor_slice *s, const char *text, int64_t *idx, strbuf *err);
/* Appends "[i, j, k]" ("[]" for 0-d). */
void tslice_fmt_index(strbuf *sb, int ndim, const int64_t *idx);
/* Appends "rows: dim 0, cols: dim 2, dim 1 = 3" (1-d: "cols: dim 0";
 * 0-d: "scalar"). */
void tslice_describe(const tensor_slice *s, strbuf *sb);

#endif
