/* commands.h — the CLI subcommands. Each takes argv after the subcommand name
 * (argv[0] is the subcommand itself) and returns the process exit code:
 *   EXIT_OK 0       success (the model ran; nothing failed)
 *   EXIT_FAILED 1   the model failed, or a check failed
 *   EXIT_USAGE 2    bad usage or bad input
 * They print to stdout/stderr and never die by a signal on bad input.
 * Headless commands live in core/cmd_*.c; tui/main.c dispatches. */
#ifndef AOTIDBG_COMMANDS_H
#define AOTIDBG_COMMANDS_H

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

int cmd_run(int argc, char **argv);       /* cmd_run.c      */
int cmd_replay_dump(int argc, char **argv); /* cmd_replay.c: replay --dump */
int cmd_check(int argc, char **argv);     /* cmd_check.c    */
int cmd_route(int argc, char **argv);     /* cmd_route.c    */
int cmd_info(int argc, char **argv);      /* cmd_info.c     */

#endif
