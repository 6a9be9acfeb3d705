/* PLACEHOLDER until its owner lands the real command: remove this line when replacing. */
#include <stdio.h>
#include "commands.h"
int cmd_check(int argc, char **argv) { fputs("aotidbg: 'check' is not built yet\n", stderr); return EXIT_USAGE; }
