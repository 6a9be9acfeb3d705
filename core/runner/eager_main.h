/* eager_main.h — `aotidbg-runner --eager-ref PLAN` (eager_main.c): reads a
 * plan file (protocol frames, protocol.h EAGER_RUN...), makes the inputs as
 * a model run does (input_fill) and computes the eager reference
 * (eager_graph.h). Prints one summary line; diagnostics on stderr. */
#ifndef AOTIDBG_EAGER_MAIN_H
#define AOTIDBG_EAGER_MAIN_H

/* argv[0] = PLAN. Returns the exit code (eager_graph.h EG_*). */
int eager_ref_main(int argc, char **argv);

/* The reference computed in a fork of the model's runner (one libtorch start instead of two):
 * with AOTIDBG_EAGER_REF_FD, _PLAN and _LOG in its environment (core/eager/eager_ref.c sets
 * them for the first runner it starts; they are removed here, so the model never sees them),
 * the runner, still one thread, forks: the child runs eager_ref_main(PLAN) with stdout and
 * stderr on LOG, as `--eager-ref PLAN` would, and writes "pid N\n" when it starts and
 * "rc N\n" when it is done on the fd, which it holds until it ends. The runner closes the fd
 * either way: EOF without "pid" means it was not started (the front end spawns `--eager-ref`
 * then). Call before any thread starts. eager_ref_reap waits for the child (the front end
 * sends RUN only once the reference is there, so it has ended or is ending): its CPU time
 * counts in the runner's children, as the separate process's did in the front end's. */
void eager_ref_fork(void);
void eager_ref_reap(void);

#endif
