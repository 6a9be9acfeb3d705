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

/* The repro itself, for the command and the live UI's `repro` action:
 * run (its package, inputs, device, model, timeout, force) runs again, to
 * launch kernel (N|NAME[@K]), through the run service, and the folder out
 * is written. say gets the progress (the run's notes too; NULL: none).
 * EXIT_OK with done = "repro of ... written to DIR
run it: ..."; else the
 * exit code above, with err saying what and why (no prefix). */
int repro_make(const run_options *run, const char *kernel, const char *out, const run_say *say, strbuf *done,
               strbuf *err);

#endif
