/* run_service.h — one run, for every front end: `aotidbg run` (core/cli/
 * cmd_run.c) and the live UI (tui/live.c) both go through here, so they
 * record the same session for the same package and options.
 *
 * run_service_open does, in order: the inputs spec, the package (a .pt2 or a
 * bare .so; a session file given by mistake says to use replay; its SHA-256
 * starts on a thread), the model's extraction (locally on a thread: nothing
 * here waits for the weights), the wrapper.cpp scan (printer level; no --inputs
 * for a model that takes inputs: a spec to start from), the session header
 * (tool and package versions, device, host), the checklist (its rows go into
 * the session; a FAIL row stops here unless --force), the mode (printer,
 * reinstrument, interpose or none: run_options.h; a rebuild waits for the
 * extraction), the runner (runner_client.h: spawned now so libtorch loads
 * meanwhile; LOAD goes once the extraction is done) and the recording
 * (session_io.h, written as events arrive).
 * run_service_pump then follows the extraction and the runner, records, syncs
 * the file and says what changed; run_service_finish ends the run, sets
 * end_state, the package's sha256 (waiting for the hash unless the run was
 * killed) and saves.
 *
 * end_state (aotidbg-session(5)) says how the run ended: complete (the model
 * ran to the end), failed (it returned an error, a checklist row or the
 * input count kept it from running), stopped (it was left at a kernel: a
 * break, or the user quit there), "signal N (SIGNAME)" or "exited N" (the
 * runner died), killed (the front end ended it), timeout, lost.
 *
 * Ownership: the service borrows the session (the caller frees it after
 * run_service_free) and owns the package, the runner and the recording.
 * Errors: -1 with the reason in err (no "aotidbg CMD:" prefix). Threads: one. */
#ifndef AOTIDBG_RUN_SERVICE_H
#define AOTIDBG_RUN_SERVICE_H
#include "model.h"
#include "run_options.h"
#include "runner_client.h"
#include "strbuf.h"

typedef struct run_service run_service;

/* Where the service's notes go (a bare .so, re-instrumenting and its
 * progress, the mode, --force over a FAIL): one line or more, no trailing
 * newline, no prefix. NULL: nowhere. */
typedef struct {
    void (*say)(void *ctx, const char *text);
    void *ctx;
} run_say;

enum { RUN_OPEN_STARTED = 0, RUN_OPEN_GATED = 1 };

/* front: RUN_OPT_RUN (run to the end or the first break) or RUN_OPT_LIVE
 * (stop at every kernel). s: a new session. RUN_OPEN_STARTED: the runner is
 * loading the model, the recording is open. RUN_OPEN_GATED: a checklist row
 * FAILs and --force was not given: no runner; the recording holds the rows
 * and an error event; run_service_gate_reason says which rows. -1: bad input
 * or usage (the caller exits 2); *out is NULL. */
int run_service_open(run_service **out, const run_options *o, unsigned front, session *s, const run_say *say,
                     strbuf *err);

/* What run_service_pump saw. */
enum {
    RUN_CHANGED_EVENTS = 1,   /* events were added */
    RUN_CHANGED_STATE = 2,    /* the runner's state or current kernel moved */
    RUN_PUMP_ERROR = 4,       /* a protocol error: err says what (the runner was ended) */
    RUN_WRITE_ERROR = 8,      /* writing the recording failed: err says what (once) */
};
/* Reads what the runner sent, waiting at most timeout_ms, records it and
 * syncs the recording. A write error is reported once (the run goes on). */
int run_service_pump(run_service *rs, int timeout_ms, strbuf *err);

/* ---- run control: the one door to the runner ------------------------------
 * The verbs below act on the run's runner. Each control verb returns 0 when
 * sent, -1 when there is no runner (gated) or it is not stopped at a kernel
 * (nothing is sent then). break_flags (BREAK_* of protocol.h) are where the
 * runner also stops on the way: BREAK_ON_ERROR, BREAK_ON_NAN; the run-to verbs
 * clear BREAK_EACH_KERNEL, so they go all the way to their kernel. */
int run_service_has_runner(const run_service *rs);   /* 0 when gated */
/* 1 while a runner (here or remote) is there to talk to. */
int run_service_alive(const run_service *rs);
/* RUNNER_* (runner_client.h); RUNNER_DEAD when there is no runner. */
runner_state run_service_state(const run_service *rs);
int64_t run_service_current_kernel(const run_service *rs);   /* -1 none */
int run_service_stop_reason(const run_service *rs);          /* proto_stop_reason of the last stop, -1 none */
int64_t run_service_model_inputs(const run_service *rs);     /* the model's input count (LOADED), -1 unknown */
/* Stops at the next kernel boundary. */
int run_service_step(run_service *rs);
/* Runs to the end, or to the first stop break_flags ask for. */
int run_service_continue(run_service *rs, int break_flags);
/* Runs to kernel n / the next launch of name, or an earlier break_flags stop. */
int run_service_run_to_index(run_service *rs, int64_t n, int break_flags);
int run_service_run_to_name(run_service *rs, const char *name, int break_flags);
/* The breaks the next control verb (or the first, after a restart) carries;
 * 0, -1 when there is no runner. */
int run_service_set_breaks(run_service *rs, int break_flags);
/* Asks a running model to stop at the next kernel start (stop reason PAUSE). */
int run_service_pause(run_service *rs);
/* Lets the runner go (QUIT at a stop), waiting up to wait_ms, then kills it. */
int run_service_quit(run_service *rs, int wait_ms);

/* What to poll() for the run's next news: the extraction while the weights
 * are written, then the runner. -1 when none. */
int run_service_fd(const run_service *rs);
/* 1 while the package is extracted (the runner waits for its LOAD), with the
 * bytes written and to write; 0 after. */
int run_service_extracting(const run_service *rs, uint64_t *done, uint64_t *total);
/* --remote: where the package's sources can be read here (a copy of its
 * wrapper.cpp, kernel.cpp and kernel_information.json beside it, for S);
 * NULL when the package itself is here. */
const char *run_service_sources_at(const run_service *rs);
const run_options *run_service_options(const run_service *rs);
const char *run_service_record_path(const run_service *rs);
const char *run_service_gate_reason(const run_service *rs);  /* "" unless gated */
int run_service_write_failed(const run_service *rs);
/* 1 when the run was left at a kernel stop (a break, a step) by _finish. */
int run_service_left_at_stop(const run_service *rs);

/* A fresh runner from the first kernel, same options. */
int run_service_restart(run_service *rs, strbuf *err);
/* A fresh runner with these changed (rerun-blocking). */
int run_service_rerun(run_service *rs, int blocking, int deterministic, int break_flags, strbuf *err);
/* Ends a runner that is still going, recording how ("killed", for an
 * interrupted run). */
void run_service_kill(run_service *rs, const char *how);
/* A signal ends the run: the runner is killed and end_state says
 * "interrupted (WHY)", WHY a signal name or "parent died". */
void run_service_interrupt(run_service *rs, const char *why);

/* How the run ended (see above), or NULL while it can still go on (loading,
 * running, stopped at a kernel). */
const char *run_service_end_state(const run_service *rs);
/* The exit code (commands.h): 0 the model ran to the end (also with NaN
 * outputs: wrong numbers are not a failed model; --break-on nan makes them
 * one) or stopped at a step or a kernel=/index= break; 1 the model failed,
 * the runner died, a checklist row failed, or a nan/error/diverge break of
 * the options hit, or the eager reference failed to run (2 when its program
 * or inputs are bad); 2 the input count is wrong, an input's file (a
 * torch.save file the runner reads) does not hold what the spec says (DONE
 * PROTO_DONE_BAD_INPUT), or a kernel=/index= break
 * matched no kernel of a run that went to the end. */
int run_service_exit_code(const run_service *rs);
/* The first output whose every element is NaN or Inf, or NULL. */
const tensor_rec *run_service_bad_output(const run_service *rs);
/* The break of the options that matched nothing in a run that went to the
 * end ("kernel=NAME", "index=N"), or NULL. */
const char *run_service_unmatched_break(const run_service *rs);

/* --eager: why the reference could not be made ("the eager reference
 * failed: ..."), or NULL. The run was not compared (exit 2 or 1). */
const char *run_service_eager_failure(const run_service *rs);

/* Ends the run: a runner stopped at a kernel is let go (QUIT), one still
 * running is killed; sets end_state and writes the final session. 0, or -1
 * with err when it could not be saved. */
int run_service_finish(run_service *rs, strbuf *err);
/* Signal paths: the recording is flushed and closed as it is (no rewrite). */
void run_service_abandon(run_service *rs);
/* Kills a runner still there, closes the package. NULL is fine. */
void run_service_free(run_service *rs);

#endif
