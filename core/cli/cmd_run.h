/* cmd_run.h — `aotidbg run`: the headless run (its options are the run
 * options, core/run/run_options.h). Returns the exit code (commands.h). */
#ifndef AOTIDBG_CMD_RUN_H
#define AOTIDBG_CMD_RUN_H

struct cli_args;
int cmd_run(const struct cli_args *a);

#endif
