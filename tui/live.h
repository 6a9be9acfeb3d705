/* live.h — the UI's side of a live run: drives the run service
 * (core/run/run_service.h, shared with `aotidbg run`) from actions and pumps
 * it without blocking. Replay mode uses the same actions over the
 * recorded kernels (step = next kernel, continue = next anomaly or break).
 * Errors: 0/-1 with a message appended to err (or to the app's message). */
#ifndef AOTIDBG_LIVE_H
#define AOTIDBG_LIVE_H
#include "app.h"
#include "run_options.h"

/* live_start opens the run service (run_service.h) with the options `run`
 * takes (run_options.h): the checklist first (rows go into the session);
 * when a row FAILs and force is off, no runner starts: it returns 0 with
 * a->gated set, the checklist focused and the reason in the message.
 * --break-on index=N becomes the kernel list's breakpoint, nan the NaN
 * break, kernel=NAME where c stops. -1 with err: bad input (exit 2). */
int live_start(app *a, const run_options *o, strbuf *err);
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
/* The kernel the live runner is at, -1 when not live. */
int64_t live_current_kernel(app *a);
/* The run's state for the status bar: "running", "stopped", "failed",
 * "runner died: signal 11 (SIGSEGV)", a replay's end_state, ... */
const char *runner_state_text(app *a);
/* Final save (normal exit; end_state set) or flush only (signal path).
 * Returns the exit code `aotidbg run` would give the run (commands.h: 1 the
 * model failed, ...), 0 when there was no live run. */
int live_finish(app *a, int from_signal);

#endif
