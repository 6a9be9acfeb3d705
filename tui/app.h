/* app.h — the state of one UI session: the session shown, the panes, the
 * focus, the message line, search, the text view, narration and live-run
 * state. Each pane's own state is the pane's (pane.h: priv); what several
 * panes and actions share lives here.
 *
 * The app owns the session it shows (replay) or borrows it from the runner
 * client (live); either way it reads it only through core/model/model.h.
 * app_init/app_release are panes.c's (they make the panes); the layout and
 * the drawing are render.c's. Curses-free, so headless tests and the bench
 * drive the same code; screen.c is the only file that talks to the terminal.
 * Threads: one. */
#ifndef AOTIDBG_APP_H
#define AOTIDBG_APP_H
#include <stdint.h>
#include "arena.h"
#include "grid.h"
#include "model.h"
#include "pane.h"
#include "pane_list.h"
#include "pane_util.h"   /* pane_goto and friends, for the app's users */
#include "strbuf.h"
#include "theme.h"

struct live_run;
struct timeview;
typedef struct view_ops view_ops;

typedef enum { MODE_REPLAY = 0, MODE_LIVE, MODE_TUTORIAL } app_mode;

struct app {
    app_mode mode;
    session *s;
    int owns_session;
    const char *source;            /* session file or package path, for the status bar */
    const char *sources_at;        /* where open-source reads the package's sources when they are not
                                      at s->package.path (--remote: copies here); may be NULL */
    pane panes[PANE__COUNT];       /* pane_list.h order */
    int focus;                     /* PANE_* */
    int zoom;                      /* 1: focused pane full screen */
    const struct view_ops *over;   /* the view over the panes (view.h: help, text), NULL none */
    const struct view_ops *over_under;   /* the one help covers, NULL none */
    int64_t help_top;
    char search[128];
    int search_pane;               /* pane the pattern applies to, -1 none */
    int follow;                    /* kernel list follows the running kernel */
    /* command line (`:`) and search prompt (`/`) */
    int prompt;                    /* 0 none, ':' or '/' */
    strbuf input;
    strbuf message;                /* one-line feedback under the status bar */
    int message_error;
    strbuf messages;               /* every message so far, a line each, newest last (:messages; capped) */
    /* narration (tutorial) */
    size_t step;                   /* current narration step */
    int narration_on;
    const char *narration_waiting; /* action the current step waits for, or NULL */
    /* breakpoints, replay and live alike: before kernel `kernel` (-1 none), before each
       launch of `name` ("" none), at the first NaN/Inf (break-nan: its BREAK_ON_NAN /
       _INF / _NONFINITE flags, protocol.h; 0 off) */
    struct { int64_t kernel; char name[128]; int nan; } brk;
    struct live_run *live;         /* the live run (live.h owns it); NULL in replay and walkthroughs */
    struct session_reader *loader; /* a replay still reading its file (load.h); NULL when read */
    char *load_error;              /* why the rest of the file did not load (load.h); NULL none */
    int load_saw_error;            /* an error event came with a slice (load.h: the router gets the focus) */
    double load_drawn;             /* when load_slice last asked for a frame (mono_now_s) */
    /* the folded loop's line selected in the kernel list (pane_kernels.c sets it; kernel_folds.h):
       its kernel fold_row (-1 its header), while the list's cursor stays at fold_cursor; NULL none */
    const fold_event *fold_sel;
    int64_t fold_row, fold_cursor;
    struct rank_set *ranks;        /* the ranks of a --ranks run, live or replayed (ranks.h owns it; a->s is
                                      the shown rank's session); NULL for one rank */
    /* read-only text view over the panes (kernel source, hunt reports) */
    strbuf view;
    char view_title[160];
    char view_src[4096];           /* the user's file the view shows (list-source), "" for other text */
    int64_t view_top, view_hit;    /* first line shown; line of the last match, -1 none */
    struct timeview *timeview;     /* the kernel time view's state (timeview.h owns it); NULL until opened */
    /* reference session for the inspector's diff and hunt-diverge; may be NULL */
    session *ref;
    const char *ref_path;
    /* index of the error events (router rows), extended as the session grows */
    size_t *err_idx, nerr, cap_err, err_scanned;
    /* with it, the first nan event and the memcheck events: panes look them up each frame */
    size_t nan_at;                 /* its position + 1, 0 none */
    size_t *mc_idx, nmc, cap_mc;
    /* index of kernels with NaN/Inf or an error, over the kernels whose status
     * is final (scanning stops at the first pending one) */
    int64_t *anom_idx;
    size_t nanom, cap_anom, anom_scanned;
    int router_off;                /* 1: do not consult core/router/router.h (stable golden dumps) */
    /* an action asks for another to run after it (app_chain, AF_CHAIN) */
    const char *chain_action;
    char chain_arg[256];
    int quit;
    theme th;
    int ascii;
    int min_w, min_h;
};

/* Brings the error-event index up to date; returns the number of errors. */
size_t app_errors(app *a);
/* The session's first nan event (session_nan_event), from the same index; NULL none. */
const nan_event *app_nan_event(app *a);
/* The memcheck events' positions in s->events, from the same index: *n of them. */
const size_t *app_memchecks(app *a, size_t *n);
/* First anomalous kernel after index `after`, or -1; uses the anomaly index. */
int64_t app_next_anomaly(app *a, int64_t after);
/* 1 when a breakpoint (a->brk: its index or its name) is before kernel k. */
int app_breaks_at(const app *a, const kernel_event *k);
/* Clamps cursors after the session grew or the screen changed. */
void app_clamp(app *a);
/* Sets the message line and adds it to the messages log (a->messages). */
void app_message(app *a, int is_error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What was written to stderr while the screen was up (screen_take_stderr),
 * appended to *pending: each complete line becomes the message line (its
 * "aotidbg: " dropped; an error when it says error or warning) and a line
 * of the messages log; a partial line stays in *pending. 1 when any did. */
int app_take_output(app *a, strbuf *pending);
/* The kernel selected in the kernel list, or NULL. */
const kernel_event *app_selected_kernel(app *a);
/* The fold event whose line is selected there instead (*row: its kernel, -1
 * its header), or NULL. */
const fold_event *app_selected_fold(const app *a, int64_t *row);
/* The pane named name ("kernels"), or -1. */
int app_pane_index(const app *a, const char *name);
/* Sends req to every pane's request hook (PREQ_KERNEL_SELECTED). */
void app_broadcast(app *a, pane_request req);
/* Asks for action `action` with arg to run after the current handler;
 * returns AF_CHAIN for the handler to return. */
int app_chain(app *a, const char *action, const char *arg);
/* What a run mode (s->mode: printer, interpose, reinstrument, none) cannot
 * see, for the status bar and the kernel list: "" when it sees everything. */
const char *app_mode_limits(const char *mode);

#endif
