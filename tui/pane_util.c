/* pane_util.c — drawing helpers shared by the panes. */
#include "pane_util.h"
#include <stdio.h>

rect pane_frame(app *a, grid *g, rect r, int focused, int index, const char *title)
{
    char t[256];
    snprintf(t, sizeof t, "%d %s", index + 1, title);
    grid_box(g, r.x, r.y, r.w, r.h, focused ? EL_BORDER_FOCUS : EL_BORDER, t,
             focused ? EL_TITLE_FOCUS : EL_TITLE);
    return (rect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

void pane_empty(grid *g, rect in, const char *why)
{
    wrap_text(g, in.x + 1, in.y, in.w - 2, in.h, EL_DIM, why);
}
