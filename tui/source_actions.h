/* source_actions.h — the user's own source behind the selected kernel
 * (provenance, stack_trace.h): list-source opens the file in the text view at
 * the kernel's line (gdb's `list`), edit-source opens $VISUAL/$EDITOR there.
 * Handlers return AF_* flags (pane.h) and say the outcome in the message
 * line. No curses: the editor runs through screen_run_external. */
#ifndef AOTIDBG_SOURCE_ACTIONS_H
#define AOTIDBG_SOURCE_ACTIONS_H
#include "app.h"

int sa_list_source(app *a, const char *arg);
int sa_edit_source(app *a, const char *arg);

#endif
