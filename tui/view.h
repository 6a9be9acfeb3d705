/* view.h — views over the panes (the help screen, the read-only text view,
 * the kernel time view),
 * after tig's help view: while one is open it gets movement, top/bottom and
 * search first, and q closes it, so actions need no flag per overlay. Help
 * opened over the text view goes back to it when closed.
 * a->over is the open view (NULL: the panes), a->over_under the one help
 * covers. A view keeps its state in the app (help_top; view_* for the text).
 * Threads: one. */
#ifndef AOTIDBG_VIEW_H
#define AOTIDBG_VIEW_H
#include "app.h"

struct view_ops {
    const char *name;                        /* "help", "text" */
    void (*render)(app *a, grid *g, rect r);
    void (*scroll_by)(app *a, int64_t d);      /* d lines down (up when < 0), kept in range */
    int64_t (*top)(const app *a);           /* the first line shown */
    /* search: the next line holding a->search (AF_* flags); NULL: search goes to the panes */
    int (*find)(app *a, int dir, int include_top);
    int sides_to_panes;                      /* left/right still go to the focused pane */
    int covers;                              /* opens over the open view, which comes back (help) */
    int (*enter)(app *a);                    /* Enter while it is open (AF_* flags); NULL: the usual Enter */
};

extern const view_ops help_view;   /* render.c */

/* Opens v: over the open view when v covers (help), else in its place. */
void view_open(app *a, const view_ops *v);
/* Closes the open view; the one help covered comes back. */
void view_close(app *a);
/* Back to the panes. */
void view_close_all(app *a);

#endif
