/* cmd_replay.h — `aotidbg replay`: with --dump, the session as text (here);
 * without it, the full-screen UI (the front end's, cli_front.ui). Returns
 * the exit code (commands.h). */
#ifndef AOTIDBG_CMD_REPLAY_H
#define AOTIDBG_CMD_REPLAY_H
#include "opt.h"

typedef struct {
    int dump;                  /* --dump */
} replay_options;

extern const opt_spec replay_option_specs[];

struct cli_args;
int cmd_replay(const struct cli_args *a);

#endif
