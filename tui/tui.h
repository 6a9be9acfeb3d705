/* tui.h — entry points of the full-screen UI (tui/ is the only code that
 * includes curses). Each returns a process exit code (commands.h). */
#ifndef AOTIDBG_TUI_H
#define AOTIDBG_TUI_H
#include <stdio.h>

/* mode: "live" (argv: PKG [options]), "replay" (argv: SESSION [options]),
 * "tutorial" (argv: [NAME] [--list]). argv[0] is the subcommand or package. */
int tui_main(const char *mode, int argc, char **argv);

/* Prints every action of the action table, one a line:
 * "name<TAB>default keys (space-separated; empty when none)<TAB>help".
 * For `aotidbg --list-actions` and the man page check. Returns 0. */
int tui_print_actions(FILE *f);

#endif
