/* eager_main.h — `aotidbg-runner --eager-ref PLAN` (eager_main.c): reads a
 * plan file (protocol frames, protocol.h EAGER_RUN...), makes the inputs as
 * a model run does (input_fill) and computes the eager reference
 * (eager_graph.h). Prints one summary line; diagnostics on stderr. */
#ifndef AOTIDBG_EAGER_MAIN_H
#define AOTIDBG_EAGER_MAIN_H

/* argv[0] = PLAN. Returns the exit code (eager_graph.h EG_*). */
int eager_ref_main(int argc, char **argv);

#endif
