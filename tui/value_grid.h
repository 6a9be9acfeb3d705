/* value_grid.h — the inspector's value grid: the kept values of one tensor
 * over a 2-D slice (core/model/tensor_slice.h) with a cursor cell, and the actions
 * that choose the slice and move the cursor.
 *
 * The state lives in app (grid_rax, grid_cax, grid_fix, grid_crow,
 * grid_ccol, vrow, vcol) as plain numbers: drawing re-validates them against
 * the tensor shown, so a stale or hostile value never reads out of range;
 * an element whose flat index is past the kept values is drawn as "·".
 * Actions return AF_* flags; on bad arguments AF_FAILED with the reason on
 * the message line. Curses-free. */
#ifndef AOTIDBG_VALUE_GRID_H
#define AOTIDBG_VALUE_GRID_H
#include "app.h"
#include "tensor_slice.h"

/* Back to the default view at [0, ..., 0] (another tensor was selected). */
void value_grid_reset(app *a);
/* The slice app's state gives for t: the chosen axes when they suit t, else
 * the default; fixed indices clamped into t's shape. */
void value_grid_slice(const app *a, const tensor_rec *t, tensor_slice *s);
/* Default view through the element at row-major flat index (hunt: the first
 * bad value), cursor on it and its row on top. */
void value_grid_goto_flat(app *a, const tensor_rec *t, int64_t flat);
/* Draws the header (slice, range, cursor index and value) and the cells into
 * r; returns the rows used (0 when t keeps no values or r is too small). */
int value_grid_draw(app *a, grid *g, rect r, const tensor_rec *t);

/* Actions (tui/actions.c table): grid-axes [R C], grid-fix DIM IDX,
 * grid-goto I,J,K, grid-cursor-{down,up,left,right} [N]. */
int vg_action_axes(app *a, const char *arg);
int vg_action_fix(app *a, const char *arg);
int vg_action_goto(app *a, const char *arg);
int vg_action_cdown(app *a, const char *arg);
int vg_action_cup(app *a, const char *arg);
int vg_action_cleft(app *a, const char *arg);
int vg_action_cright(app *a, const char *arg);

#endif
