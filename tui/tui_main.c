/* PLACEHOLDER until the TUI lands: remove this line when replacing. */
#include <stdio.h>
#include "tui.h"
int tui_main(const char *mode, int argc, char **argv) { fprintf(stderr, "aotidbg: the %s UI is not built yet\n", mode); return 2; }
