/* pane_util.h — drawing helpers shared by the pane files (grid only). */
#ifndef AOTIDBG_PANE_UTIL_H
#define AOTIDBG_PANE_UTIL_H
#include "app.h"

/* Frame with the pane's number and title; returns the inner rectangle. */
rect pane_frame(app *a, grid *g, rect r, int focused, int index, const char *title);
int wrap_text(grid *g, int x, int y, int w, int h, int el, const char *text);
/* Shows "(empty reason)" centered-left in the inner rectangle. */
void pane_empty(grid *g, rect in, const char *why);

#endif
