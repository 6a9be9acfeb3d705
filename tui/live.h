/* live.h — the UI's side of a live run: drives the run service
 * (core/run/run_service.h, shared with `aotidbg run`; the UI's only door to
 * the runner) from actions and pumps it without blocking. Replay mode uses
 * the same actions over the recorded kernels (step = next kernel, continue =
 * next anomaly or break).
 *
 * Ownership: the live run is one struct, a->live, made by live_start and
 * freed by live_finish; NULL in replay and walkthroughs. live.c owns it;
 * hunt.c sets and reads its hunt fields. The breakpoints (a->brk) are the
 * app's: replay and live stop at the same ones.
 * Errors: 0/-1 with a message appended to err (or to the app's message). */
#ifndef AOTIDBG_LIVE_H
#define AOTIDBG_LIVE_H
#include "app.h"
#include "run_options.h"
#include "rank_waits.h"
#include "run_service.h"

/* A step/continue/run-to pressed while the runner is still loading or
 * running is kept and sent at the next stop, so keys are never lost to
 * timing. */
enum { LIVE_PEND_NONE = 0, LIVE_PEND_STEP, LIVE_PEND_CONTINUE, LIVE_PEND_RUN_TO };

typedef struct live_run live_run;
struct live_run {
    run_service *rs;        /* the run (gated: the recording only, no runner) */
    run_options given;      /* the options as the user gave them, for hints that repeat them */
    int gated;              /* a checklist FAIL kept the run from starting */
    int pending;            /* LIVE_PEND_* */
    char pending_to[128];   /* LIVE_PEND_RUN_TO: the kernel index or name */
    int pause_asked;        /* ^C asked for a pause; a second ^C before the stop ends the runner */
    int end_noted;          /* the end of this run was said in the message line */
    int hunt_pending;       /* hunt.c: the hunt that waits for the runner to stop (hunt.h) */
    int hunt_launched;      /* hunt.c: the runner was continued for it (else: at the first stop) */
    double hunt_tol;        /* hunt.c: hunt-diverge's tolerance */
    struct repro_run *repro;   /* route_actions.c: the `repro` run going on in the UI loop (cmd_repro.h), or NULL */
    int64_t repro_kernel;      /* route_actions.c: the launch it runs to */
    size_t repro_seen;         /* route_actions.c: the launches its progress line last said */
    /* --ranks N: N runs in lockstep, one run service each; rs is the shown rank's
       (ranks.h: a->ranks holds their sessions). 0: one run. */
    int nranks;
    struct live_rank *rank;  /* live.c's, nranks of them */
    int hold;               /* a continue or run-to is under way: one rank's NaN/error stop pauses the others */
};

/* live_start opens the run service (run_service.h) with the options `run`
 * takes (run_options.h): the checklist first (rows go into the session);
 * when a row FAILs and force is off, no runner starts: it returns 0 with
 * a->live->gated set, the checklist focused and the reason in the message.
 * --break-on index=N and kernel=NAME become the app's breakpoint (a->brk),
 * nan the NaN break. -1 with err: bad input (exit 2). */
int live_start(app *a, const run_options *o, strbuf *err);
/* With o->ranks (--ranks N): N run services in lockstep, one per rank
 * (run_ranks.h: the same variables, records OUT.rankK.yaml and inputs as
 * `aotidbg run --ranks`), every one stopping at each kernel; a->ranks holds
 * their sessions. step/continue/run-to/restart/^C act on every rank: a
 * step moves each stopped rank to its next kernel (one still inside a
 * collective stops at its next kernel by itself); kernel=/index= breaks
 * stop every rank there; a NaN or error stop of one rank pauses the others
 * at their next kernel start (a rank waiting in a collective for it stays
 * there). Live's default --timeout (60 s) does not apply: no rank times
 * out (one waits in a collective as long as its peer is held); another
 * value does, to each rank and its group. */
/* Reads what the runner sent (waiting at most timeout_ms), appends to the
 * session and syncs the recording: the RUN_CHANGED_* flags of run_service.h
 * (0: nothing), RUN_PUMP_ERROR with the message set. Pumps only: what follows
 * a change is live_react's. */
int live_pump(app *a, int timeout_ms);
/* What the UI does after a pump that changed something, in named steps:
 * the pause note, the key kept for the next stop, the end's note, the
 * pending hunt, the kernel list following the run. 1 when the screen
 * changed. */
int live_react(app *a, int changed);
int live_fd(app *a);                                       /* -1 when none */
/* Every rank's fd to poll (--ranks: the UI waits on none alone) into out:
 * how many (at most max; 0 when none). */
int live_fds(app *a, int *out, int max);
/* --ranks: where rank k is (rank_waits.h) and its state's word ("stopped",
 * "running", "finished", ...); -1 when the run has no rank k. */
int live_rank_position(app *a, int k, rank_pos *p, const char **state);
/* --ranks: the verbs' messages and the status bar follow rank k. */
void live_show_rank(app *a, int k);
/* Scripts and tests: pumps (and reacts) until the runner stops, finishes or
 * dies (or timeout_ms passes). 0 when it settled, -1 on timeout. */
int live_settle(app *a, int timeout_ms);
int live_step(app *a);
int live_continue(app *a);
int live_restart(app *a);
/* run-to and goto N|NAME: a kernel already recorded is selected (as replay
 * does); one ahead is run to (the runner stops there, or earlier at an error
 * or, with break-nan, a NaN); after the end, only recorded kernels. */
int live_run_to(app *a, const char *arg);
/* SIGINT during a run: a pause at the next kernel start; a second one ends
 * the runner and keeps the UI. -1 when nothing runs. */
int live_interrupt(app *a);
/* rerun-blocking: a fresh runner with CUDA_LAUNCH_BLOCKING=1,
 * PYTORCH_NO_CUDA_MEMORY_CACHING=1, AOTI_RUNTIME_CHECK_INPUTS=1 and a sync
 * at every kernel boundary, from the first kernel. */
int live_rerun_blocking(app *a);
/* break-nan: the runner stops at the first kernel whose output holds NaN/Inf. */
void live_break_nan(app *a, int on);
/* The kernel the live runner is at, -1 when not live. */
int64_t live_current_kernel(app *a);
/* The run's state for the status bar: "running", "stopped", "failed",
 * "runner died: signal 11 (SIGSEGV)", a replay's end_state, ... */
const char *runner_state_text(app *a);
/* A signal (SIGHUP, SIGTERM) ends the UI: the runner is killed and the
 * session's end_state says "interrupted (SIGNAME)" at live_finish's save. */
void live_interrupted(app *a, int sig);
/* Final save (normal exit; end_state set) or flush only (signal path).
 * A live repro (route_actions.h) is the caller's to end first (ra_repro_cancel).
 * Returns the exit code `aotidbg run` would give the run (commands.h: 1 the
 * model failed, ...), 0 when there was no live run. */
int live_finish(app *a, int from_signal);

#endif
