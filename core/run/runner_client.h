/* runner_client.h — the conversation with a runner: start it through a
 * transport (runner_link.h), speak the protocol (protocol.h) in its order,
 * keep the runner's state; what arrives goes to run_record.h, which turns it
 * into session events.
 *
 * Never blocks the UI: runner_client_fd() is for poll(); runner_client_pump()
 * reads what is there and returns. When the runner dies (signal, abort,
 * device-side assert, hang past the timeout) the client records a
 * runner-exit event with how it ended and the stderr tail, and stays usable:
 * runner_client_restart() starts a fresh runner with the same options.
 * Error events are routed (router.h) together with the runner's captured
 * output, resolved through trace_source when given, and routed again when
 * the runner ends (its stderr may arrive after the ERROR frame).
 * Ownership: the client borrows the session (events are appended to it) and
 * owns the child process; runner_client_free() kills and reaps it. */
#ifndef AOTIDBG_RUNNER_CLIENT_H
#define AOTIDBG_RUNNER_CLIENT_H
#include <stdint.h>
#include "model.h"
#include "protocol.h"   /* BREAK_* flags */
#include "run_record.h" /* the value budget */
#include "runner_link.h"
#include "strbuf.h"
#include "weights.h"

typedef enum {
    RUNNER_STARTING = 0,   /* spawned, loading the model */
    RUNNER_STOPPED,        /* the model thread waits at a kernel boundary */
    RUNNER_RUNNING,
    RUNNER_FINISHED,       /* the model returned (ok or with an error) */
    RUNNER_DEAD,           /* the process ended abnormally */
} runner_state;

typedef struct {
    const char *so_path;       /* the model .so */
    const char *cubin_dir;     /* extracted model folder; may be NULL */
    int load_later;            /* spawn now, so libtorch loads while the caller extracts the package;
                                  LOAD waits for runner_client_load() (so_path and cubin_dir are
                                  then ignored here); a restart before it spawns without LOAD */
    const char *device;        /* "cpu", "cuda", "cuda:N" */
    const char *runner_path;   /* NULL: aotidbg_runner_path() */
    int blocking;              /* sync + error check at every kernel boundary */
    int deterministic;         /* CUDA_LAUNCH_BLOCKING=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1 AOTI_RUNTIME_CHECK_INPUTS=1 */
    double timeout_s;          /* a kernel (or load) taking longer kills the runner; 0 = none */
    int break_flags;
    const char *break_kernel;  /* stop before the first kernel with this name; may be NULL */
    int64_t break_index;       /* stop before kernel N; -1 none */
    size_t max_values;         /* values kept per tensor for the grid (0 = none) */
    size_t output_values;      /* values kept of each output (0: max_values): run --expect */
    int round_stats;           /* PROTO_LOAD_ROUND_STATS: a loop's later rounds read values only where kept */
    uint64_t values_budget;    /* bytes of values kept in the session, all tensors together,
                                  8 per value (values_budget_keep); 0 = no limit */
    const char *trace_source;  /* the package's generated code for routing errors (a .pt2, an
                                  extracted folder or a *.wrapper.cpp, see triton_trace.h):
                                  resolves an index-out-of-bounds assert to the input behind
                                  it; may be NULL */
    const runner_transport *transport;   /* NULL: the local one (runner_link.h), or the ssh one
                                            when remote is set */
    const proto_msg *pre_run;  /* sent after LOADED and the INPUTs, before the first CONTROL and RUN
                                  (REFERENCEs of the eager reference); borrowed: they must outlive
                                  the client (restarts send them again) */
    size_t npre_run;
    const proto_msg *capture;  /* a CAPTURE (aotidbg repro), sent after pre_run; may be NULL; borrowed */
    int hold_run;              /* wait for runner_client_release before sending them and RUN (the
                                  runner loads meanwhile; a held runner does not time out) */
    struct remote *remote;     /* --remote: runners start on that box through its agent (remote.h);
                                  so_path, cubin_dir and input files are paths there (fill: file
                                  inputs are materialised here and pushed); borrowed */
    const weight_ref *constants;         /* weights kept apart from the .so (weights.h), sent as
                                            CONSTANT after the inputs; borrowed */
    size_t nconstants;
    const launch_branch *branches;       /* kernel -> branch for interposed launches
                                            (run_record_set_branches); borrowed */
    size_t nbranches;
    const tensor_user_name *user_names;  /* tensor -> the user's name (run_record_set_user_names); borrowed */
    size_t nuser_names;
    const char *const *wrap;   /* the command the runner runs under (compute-sanitizer, sanitizer.h); NULL none */
    int alloc;                 /* the runner says where every tensor's elements sit (PROTO_LOAD_ALLOC) */
    const char *const *env;    /* "NAME=VALUE" for every runner this client starts (a --ranks rank's,
                                  run_ranks.h); NULL none; borrowed: it must outlive the client */
    const char *const *first_env;   /* more "NAME=VALUE" for the first runner only, with first_fd (> 2)
                                       inherited by it (--eager: the reference computed in a fork of
                                       it, eager_ref_runner_env); NULL/0 none; borrowed until
                                       runner_client_start returns */
    int first_fd;
} runner_options;

typedef struct runner_client runner_client;

int runner_client_start(runner_client **out, const runner_options *o, session *s, strbuf *err);
/* Lets a runner started with hold_run go: pre_run (borrowed, as above) is
 * sent with the inputs and RUN as soon as the model is loaded (now, when it
 * already is). 0, or -1 when it was not held. */
int runner_client_release(runner_client *rc, const proto_msg *pre_run, size_t n);
/* With load_later: the model to load, once it is on disk (copied). The load
 * timeout counts from here. -1 + err when the client already has a model. */
int runner_client_load(runner_client *rc, const char *so_path, const char *cubin_dir, strbuf *err);
int runner_client_fd(const runner_client *rc);        /* -1 when no runner */
/* 1 while a runner (here or remote) is there to talk to; use it, not
 * runner_client_pid() > 0: a remote runner has no pid here. */
int runner_client_alive(const runner_client *rc);
/* Reads and applies pending messages, waiting at most timeout_ms (0: no wait).
 * Returns the number of new events appended, -1 on a protocol error (err). */
int runner_client_pump(runner_client *rc, int timeout_ms, strbuf *err);
runner_state runner_client_state(const runner_client *rc);
int64_t runner_client_current_kernel(const runner_client *rc);  /* -1 none */

int runner_client_step(runner_client *rc);                 /* run to the next kernel boundary */
int runner_client_continue(runner_client *rc);             /* run to the end or a break */
int runner_client_run_to_index(runner_client *rc, int64_t n);
int runner_client_run_to_name(runner_client *rc, const char *name);
int runner_client_set_breaks(runner_client *rc, int flags);
int runner_client_restart(runner_client *rc, strbuf *err);  /* fresh process, same options */
/* Sends QUIT at a stop (or to a finished runner), waits up to wait_ms for it
 * to leave (< 0: however long it takes), then kills it. Leaving at a stop
 * counts as an orderly end. */
int runner_client_quit(runner_client *rc, int wait_ms);
/* What the last messages said; -1 when not known yet. */
int runner_client_stop_reason(const runner_client *rc);     /* proto_stop_reason of the last STOPPED */
int runner_client_done_status(const runner_client *rc);     /* DONE: 0 the model ran, 1 it failed, 2 bad input (proto_done_status); -1 none yet */
int64_t runner_client_model_inputs(const runner_client *rc); /* input count from LOADED */
int runner_client_pid(const runner_client *rc);              /* the child's pid, -1 when none */
/* Asks a running model to stop at the next kernel start (STOPPED reason
 * PAUSE); 0 when asked, -1 when it is not running. */
int runner_client_pause(runner_client *rc);
/* Ends a runner that is not stopped (SIGKILL) and records a runner-exit with
 * how ("killed", "timeout"); a no-op when none is left. */
void runner_client_kill(runner_client *rc, const char *how);
void runner_client_free(runner_client *rc);

#endif
