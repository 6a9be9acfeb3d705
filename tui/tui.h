/* tui.h — entry points of the full-screen UI (tui/ is the only code that
 * includes curses). Each returns a process exit code (commands.h). */
#ifndef AOTIDBG_TUI_H
#define AOTIDBG_TUI_H
#include <stdio.h>
#include "commands.h"

/* The UI commands of the command table (cli_front.ui): a->cmd->ui_mode is
 * "live" (a->pos[0] the package, a->run its run options), "replay" (the
 * session) or "tutorial" ([NAME], --list); a->ui the UI options. */
int tui_main(const cli_args *a);

/* Prints every action of the action table, one a line:
 * "name<TAB>default keys (space-separated; empty when none)<TAB>help".
 * For `aotidbg --list-actions` and the man page check. Returns 0. */
int tui_print_actions(FILE *f);

#endif
