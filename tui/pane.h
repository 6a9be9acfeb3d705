/* pane.h — a pane of the UI as an object (after tig's view_ops with
 * view->private, and htop's Panel): it owns its state (priv, made by its
 * init and freed by its release), answers the app's requests, and knows
 * where the layout last put it (at).
 *
 * Adding a pane: one file (pane_NAME.c with its header declaring
 * `extern const pane_ops pane_NAME_ops` and whatever API other files need),
 * one row in pane_list.h and its #include in panes.c. README.md says how a
 * pane adds a column, a line or a key.
 * Curses-free: panes draw into a grid (grid.h). */
#ifndef AOTIDBG_PANE_H
#define AOTIDBG_PANE_H
#include <stdint.h>
#include "grid.h"
#include "strbuf.h"

typedef struct app app;
typedef struct pane pane;
typedef struct { int x, y, w, h; } rect;

/* What an action handler or a request hook returns (after htop's
 * HandlerResult); every action redraws the screen. */
enum {
    AF_HANDLED = 1,
    AF_REPAINT = 2,    /* repaint the whole terminal, not just what changed (C-l) */
    AF_QUIT = 4,       /* the UI ends */
    AF_FAILED = 8,     /* scripts stop; a walkthrough step is not done */
    AF_CHAIN = 16,     /* run app->chain_action (app_chain) next, as if the user had */
};

/* Requests the app sends to a pane's request hook. A hook returns AF_*
 * flags when it handled the request, 0 for the app's default. */
typedef enum {
    PREQ_MOVED = 1,         /* the user moved its cursor (keys, search) */
    PREQ_LEFT,              /* h / Left while it has the focus; default: previous pane */
    PREQ_RIGHT,             /* l / Right; default: next pane */
    PREQ_ENTER,             /* Enter outside a walkthrough; default: nothing */
    PREQ_KERNEL_SELECTED,   /* to every pane: another kernel was selected (app_broadcast) */
    PREQ_MOVE_BY,           /* move the cursor arg rows (a signed decimal count), as the pane counts
                               them (the kernel list steps over folded groups); default: that many rows */
} pane_request;

typedef struct pane_ops {
    const char *name;         /* "kernels": narration steps and the tabs name it */
    const char *search_in;    /* a search started here searches this pane; NULL: itself */
    void *(*init)(app *a);    /* its private state (NULL is fine); called by app_init */
    void (*release)(void *priv);
    int64_t (*rows)(app *a, pane *p);                  /* selectable rows */
    void (*render)(app *a, pane *p, grid *g, int focused);   /* into p->at */
    /* Row text for search; NULL when row is out of range. buf is scratch. */
    const char *(*row_text)(app *a, pane *p, int64_t row, strbuf *buf);
    /* The first row from `from` on (dir 1 or -1, wrapping) whose text holds
     * pat, or -1: a pane with a million rows searches its own way. NULL: the
     * app searches row_text. */
    int64_t (*find)(app *a, pane *p, const char *pat, int64_t from, int dir);
    int (*request)(app *a, pane *p, pane_request req, const char *arg);   /* may be NULL */
} pane_ops;

struct pane {
    const pane_ops *ops;
    void *priv;               /* the pane's own state: only its file looks inside */
    int index;                /* its number - 1 (the frame shows "3 kernels") */
    int64_t cursor, top;      /* selected row, first visible row */
    int page;                 /* visible rows at the last render */
    rect at;                  /* where the layout put it; w == 0 when not shown */
};

#endif
