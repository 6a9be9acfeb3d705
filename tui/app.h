/* app.h — the state of one UI session and the pane interface.
 *
 * The app owns the session it shows (replay) or borrows it from the runner
 * client (live); either way it reads it only through core/model/model.h. Panes are
 * small objects with an ops table (after tig's view_ops): each knows how many
 * rows it has, how to draw itself into a grid rectangle, and how to search.
 * Everything here is curses-free so headless tests and the bench drive the
 * same code; screen.c is the only file that talks to the terminal. */
#ifndef AOTIDBG_APP_H
#define AOTIDBG_APP_H
#include <stdint.h>
#include "arena.h"
#include "grid.h"
#include "model.h"
#include "strbuf.h"
#include "theme.h"

struct runner_client;
struct session_writer;
typedef struct app app;

enum { PANE_ROUTER = 0, PANE_CHECKLIST, PANE_KERNELS, PANE_INSPECTOR, PANE__COUNT };

typedef struct { int x, y, w, h; } rect;

typedef struct pane_ops {
    const char *name;      /* "router", "checklist", "kernels", "inspector" */
    const char *title;
    int64_t (*rows)(app *a);                         /* selectable rows */
    void (*render)(app *a, grid *g, rect r, int focused);
    /* Row text for search; NULL when row is out of range. buf is scratch. */
    const char *(*row_text)(app *a, int64_t row, strbuf *buf);
} pane_ops;

typedef struct {
    const pane_ops *ops;
    int64_t cursor, top;   /* selected row, first visible row */
    int page;              /* visible rows at the last render */
} pane;

void pane_router_release(void);    /* frees the router's cached rules */
struct route_result;
/* The tensor selected in the inspector, or NULL. */
const tensor_rec *pane_inspector_selected(app *a);
/* The routing of the error selected in the router pane, or NULL (cached;
 * valid until the selection changes). */
const struct route_result *pane_router_selected(app *a);
extern const pane_ops pane_router_ops, pane_checklist_ops, pane_kernels_ops, pane_inspector_ops;

/* A .npy file attached as the reference of one inspector tensor (ref-npy,
 * --ref-npy): the tensor is named by kernel index, name and phase, so it
 * can be attached before a live run reaches the kernel. */
typedef struct {
    int64_t kernel;
    char *name, *path;             /* malloc'd */
    tensor_phase phase;
    arena ar;                      /* holds t's arrays and values */
    tensor_rec t;                  /* the file's contents */
} npy_ref;

/* Attaches the .npy at path to (kernel, name, phase), replacing that
 * tensor's earlier attachment; one attachment per tensor, several tensors.
 * 0, or -1 with "PATH: what; what to do" in err (nothing changes then). */
int inspector_npy_attach(app *a, int64_t kernel, const char *name, tensor_phase phase, const char *path,
                         strbuf *err);
/* The attachment of that tensor, or NULL. */
const npy_ref *inspector_npy_find(const app *a, int64_t kernel, const char *name, tensor_phase phase);
/* Drops that tensor's attachment; 1 when there was one. */
int inspector_npy_clear(app *a, int64_t kernel, const char *name, tensor_phase phase);
/* Frees every attachment (app_release calls it). */
void inspector_npy_release(app *a);

typedef enum { MODE_REPLAY = 0, MODE_LIVE, MODE_TUTORIAL } app_mode;

/* Inspector view of the selected kernel's tensors. */
enum { INSP_ALL = 0, INSP_BEFORE, INSP_AFTER, INSP_DIFF, INSP__COUNT };

struct app {
    app_mode mode;
    session *s;
    int owns_session;
    const char *source;            /* session file or package path, for the status bar */
    pane panes[PANE__COUNT];
    int focus;                     /* PANE_* */
    int zoom;                      /* 1: focused pane full screen */
    int help;                      /* 1: help screen shown */
    int64_t help_top;
    int insp_view;                 /* INSP_* */
    int64_t insp_tensor;           /* tensor selected in the inspector */
    int64_t vrow, vcol;            /* value grid scroll: first row and column shown */
    /* value grid slice (tui/value_grid.h): row and column axis (equal, as
     * zeroed, means the default view), the index of every other dim, and the
     * cursor cell inside the slice; value_grid_reset clears them */
    int grid_rax, grid_cax;
    int64_t grid_fix[TENSOR_MAX_DIMS];
    int64_t grid_crow, grid_ccol;
    char search[128];
    int search_pane;               /* pane the pattern applies to, -1 none */
    int follow;                    /* kernel list follows the running kernel */
    /* command line (`:`) and search prompt (`/`) */
    int prompt;                    /* 0 none, ':' or '/' */
    strbuf input;
    strbuf message;                /* one-line feedback under the status bar */
    int message_error;
    /* narration (tutorial) */
    size_t step;                   /* current narration step */
    int narration_on;
    const char *narration_waiting; /* action the current step waits for, or NULL */
    /* live mode */
    struct runner_client *rc;
    struct session_writer *writer;
    const char *record_path;
    int64_t break_kernel;          /* -1 none */
    int gated;                     /* live: a checklist FAIL kept the run from starting */
    int break_nan;                 /* break-nan is on */
    int route_act;                 /* router pane: selected next-step action (0-based) */
    /* read-only text view over the panes (kernel source, hunt reports) */
    int view_on;
    strbuf view;
    char view_title[160];
    int64_t view_top, view_hit;    /* first line shown; line of the last match, -1 none */
    /* reference session for the inspector's diff and hunt-diverge; may be NULL */
    session *ref;
    const char *ref_path;
    npy_ref *npy_refs;             /* .npy references, see inspector_npy_attach */
    size_t nnpy_refs;
    int hunt_pending;              /* live: 1 hunt-nan, 2 hunt-diverge waits for the runner to stop */
    int hunt_launched;             /* the runner was continued for it (else: at the first stop) */
    double hunt_tol;
    /* index of the error events (router rows), extended as the session grows */
    size_t *err_idx, nerr, cap_err, err_scanned;
    /* index of kernels with NaN/Inf or an error, over the kernels whose status
     * is final (scanning stops at the first pending one) */
    int64_t *anom_idx;
    size_t nanom, cap_anom, anom_scanned;
    int router_off;                /* 1: do not consult core/router/router.h (stable golden dumps) */
    int quit;
    theme th;
    int ascii;
    int min_w, min_h;
};

void app_init(app *a, session *s, app_mode mode);
void app_release(app *a);          /* frees the session if owned, the strbufs */
/* Brings the error-event index up to date; returns the number of errors. */
size_t app_errors(app *a);
/* First anomalous kernel after index `after`, or -1; uses the anomaly index. */
int64_t app_next_anomaly(app *a, int64_t after);
/* Clamps cursors after the session grew or the screen changed. */
void app_clamp(app *a);
/* Renders the whole screen (layout, panes, status, prompt, help) into g. */
void app_render(app *a, grid *g);
void app_message(app *a, int is_error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The kernel selected in the kernel list, or NULL. */
const kernel_event *app_selected_kernel(app *a);
/* Moves pane p's cursor to row, keeping it visible. */
void pane_goto(pane *p, int64_t row, int64_t nrows);
/* Draws a scrollbar-free list helper: adjusts p->top for a page of h rows. */
void pane_scroll_into_view(pane *p, int h);
/* Human text for a few shared fields. */
void fmt_shape(strbuf *sb, int ndim, const int64_t *v);
void fmt_double(char *buf, size_t n, double v);
const char *runner_state_text(app *a);
/* What a run mode (s->mode: printer, interpose, reinstrument, none) cannot
 * see, for the status bar and the kernel list: "" when it sees everything. */
const char *app_mode_limits(const char *mode);

#endif
