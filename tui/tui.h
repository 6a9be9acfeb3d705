/* tui.h — entry points of the full-screen UI (tui/ is the only code that
 * includes curses). Each returns a process exit code (commands.h). */
#ifndef AOTIDBG_TUI_H
#define AOTIDBG_TUI_H

/* mode: "live" (argv: PKG [options]), "replay" (argv: SESSION [options]),
 * "tutorial" (argv: [NAME] [--list]). argv[0] is the subcommand or package. */
int tui_main(const char *mode, int argc, char **argv);

#endif
