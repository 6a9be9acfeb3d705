/* PLACEHOLDER until its owner lands the real command: remove this line when replacing. */
#include <stdio.h>
#include "commands.h"
int cmd_info(int argc, char **argv) { fputs("aotidbg: 'info' is not built yet\n", stderr); return EXIT_USAGE; }
