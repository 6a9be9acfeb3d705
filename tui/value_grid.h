/* value_grid.h — the inspector's value grid: the kept values of one tensor
 * over a 2-D slice (core/model/tensor_slice.h) with a cursor cell, and the
 * changes of view the inspector's actions make.
 *
 * The state is a value_grid of plain numbers (the inspector keeps one):
 * drawing re-validates them against the tensor shown, so a stale or hostile
 * value never reads out of range; an element whose flat index is past the
 * kept values is drawn as "·". The changes return 0 with what is now shown
 * in msg, or -1 with the reason in msg (nothing changed then). Grid only. */
#ifndef AOTIDBG_VALUE_GRID_H
#define AOTIDBG_VALUE_GRID_H
#include "grid.h"
#include "model.h"
#include "pane.h"
#include "tensor_slice.h"

typedef struct {
    int rax, cax;                  /* row and column axis; equal (as zeroed): the default view */
    int64_t fix[TENSOR_MAX_DIMS];  /* the index of every other dim */
    int64_t crow, ccol;            /* the cursor cell inside the slice */
    int64_t vrow, vcol;            /* first row and column shown */
} value_grid;

/* Back to the default view at [0, ..., 0] (another tensor was selected). */
void value_grid_reset(value_grid *vg);
/* Default view through the element at row-major flat index (hunt: the first
 * bad value), cursor on it and its row on top; flat < 0: reset. */
void value_grid_goto_flat(value_grid *vg, const tensor_rec *t, int64_t flat);
/* Draws the header (slice, range, cursor index and value) and the cells into
 * r; returns the rows used (0 when t keeps no values or r is too small). */
int value_grid_draw(value_grid *vg, grid *g, rect r, const tensor_rec *t);

/* grid-axes [ROW COL], grid-fix DIM IDX, grid-goto I,J,K, grid-cursor-* [N]. */
int value_grid_axes(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg);
int value_grid_fix(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg);
int value_grid_goto(value_grid *vg, const tensor_rec *t, const char *arg, strbuf *msg);
/* t may be NULL (no tensor: the cursor stays in [0, 0]). */
int value_grid_cursor_by(value_grid *vg, const tensor_rec *t, const char *arg, int dr, int dc, strbuf *msg);
/* values-down/up/left/right: the view and the cursor move together. */
void value_grid_scroll(value_grid *vg, int64_t dr, int64_t dc);

#endif
