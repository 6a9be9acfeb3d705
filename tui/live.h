/* live.h — the UI's side of a live run: drives core/run/runner_client.h from
 * actions, pumps events into the session without blocking, records them
 * through the session writer. Replay mode uses the same actions over the
 * recorded kernels (step = next kernel, continue = next anomaly or break).
 * Errors: 0/-1 with a message appended to err (or to the app's message). */
#ifndef AOTIDBG_LIVE_H
#define AOTIDBG_LIVE_H
#include "app.h"

typedef struct {
    const char *package;       /* .pt2 or .so */
    const char *inputs;        /* spec path; may be NULL */
    const char *device;        /* may be NULL: the package's device */
    const char *record;        /* session file; NULL: ./aotidbg-session-<time>.yaml */
    int force;                 /* start even when a checklist row FAILs */
    uint64_t values_budget;    /* --values-budget in bytes, 0 = no limit */
    int values_budget_set;     /* 0: the default (VALUES_BUDGET_DEFAULT) */
} live_options;

/* live_start runs the checklist first (checklist_gate: rows go into the
 * session). When a row FAILs and force is off, no runner starts: it returns 0
 * with a->gated set, the checklist focused and the reason in the message. */

int live_start(app *a, const live_options *o, strbuf *err);
/* Reads what the runner sent (waiting at most timeout_ms), appends to the
 * session, syncs the recording, moves the kernel list when following.
 * Returns the number of new events, -1 on error (message set). */
int live_pump(app *a, int timeout_ms);
int live_fd(app *a);
/* Scripts and tests: pumps until the runner stops, finishes or dies (or
 * timeout_ms passes). 0 when it settled, -1 on timeout. */
int live_settle(app *a, int timeout_ms);                   /* -1 when none */
int live_step(app *a);
int live_continue(app *a);
int live_restart(app *a);
int live_run_to(app *a, const char *arg);
int live_interrupt(app *a);
/* rerun-blocking: a fresh runner with CUDA_LAUNCH_BLOCKING=1,
 * PYTORCH_NO_CUDA_MEMORY_CACHING=1, AOTI_RUNTIME_CHECK_INPUTS=1 and a sync
 * at every kernel boundary, from the first kernel. */
int live_rerun_blocking(app *a);
/* break-nan: the runner stops at the first kernel whose output holds NaN/Inf. */
void live_break_nan(app *a, int on);            /* SIGINT during a run: end the runner, keep the UI */
/* Final save (normal exit) or flush only (signal path). */
void live_finish(app *a, int from_signal);
/* The kernel the runner is at, -1 when not live. */
int64_t live_current_kernel(app *a);
/* The run's state for the status bar: "running", "stopped", "runner died",
 * a replay's end_state, ... */
const char *runner_state_text(app *a);

#endif
