/* cmd_repro.h — `aotidbg repro PKG --kernel N|NAME[@K] -o DIR`: one kernel
 * launch, standalone. The package runs (the run service, as `aotidbg run`)
 * with a CAPTURE request (protocol.h): the runner writes every tensor of
 * that launch in full before and after it, and, for a Triton launch, its
 * grid, block, shared memory and argument bytes; then repro_gen.h writes the
 * kernel's code, a launcher, CMakeLists.txt and README beside them.
 * `cmake -S DIR -B DIR/build && cmake --build DIR/build && DIR/build/repro`
 * runs the kernel once and checks its outputs bit for bit.
 *
 * DIR must not exist or be empty. The run's session is DIR/session.yaml,
 * with `repro: DIR` once the folder is complete. A refusal (the launch never
 * came, an argument that cannot be captured) says what and why, exit 2, and
 * removes what it wrote. Exit: 0 written; 1 the run failed before the launch
 * (or the runner died); 2 bad usage, bad input or a refusal. */
#ifndef AOTIDBG_CMD_REPRO_H
#define AOTIDBG_CMD_REPRO_H
#include "opt.h"
#include "run_service.h"

typedef struct {
    const char *kernel;        /* --kernel N|NAME[@K] */
    const char *out;           /* -o DIR */
} repro_options;

extern const opt_spec repro_option_specs[];

struct cli_args;
int cmd_repro(const struct cli_args *a);

/* The repro itself, for the command and the live UI's `repro` action, in
 * steps so that a caller with its own loop (the live UI keeps reading keys
 * while the repro runs) pumps it: start, pump until it says 1, finish.
 * run (its package, inputs, device, model, timeout, force) runs again, to
 * launch kernel (N|NAME[@K]), through the run service, and the folder is
 * written. say gets the progress (the run's notes too; NULL: none).
 * finish: EXIT_OK with done = "repro of ... written to DIR\nrun it: ...";
 * else the exit code above, with err saying what and why (no prefix).
 * Ownership: the repro_run is the caller's from a successful start until
 * repro_run_finish or repro_run_cancel frees it (either saves its session).
 * Not thread-safe; one repro_run per run service, any number per process. */
typedef struct repro_run repro_run;
/* Checks the spec, makes the folder and starts the run: EXIT_OK with *out
 * set, else *out NULL and the exit code with err (nothing left running). */
int repro_run_start(repro_run **out, const run_options *run, const char *kernel, const char *dir,
                    const run_say *say, strbuf *err);
/* Reads what the runner sent, waiting at most timeout_ms (its errors go to
 * say): 1 once the run has ended (finished, stopped at an error, died), 0
 * while it goes on. */
int repro_run_pump(repro_run *r, int timeout_ms);
int repro_run_fd(const repro_run *r);            /* the runner's fd to poll, -1 when none */
size_t repro_run_kernels(const repro_run *r);    /* kernel launches recorded so far */
const char *repro_run_dir(const repro_run *r);   /* the folder, absolute */
/* After pump said 1: writes the folder (done, err and the exit code as above) and frees r. */
int repro_run_finish(repro_run *r, strbuf *done, strbuf *err);
/* Ends the run now (the runner is killed, end_state "killed"), removes what it
 * wrote in the folder but the session, and frees r. NULL: nothing. */
void repro_run_cancel(repro_run *r);

#endif
