/* main.c — `aotidbg`: the command table (core/cli/commands.h) with the
 * full-screen UI (tui.h) as its front end. */
#include <locale.h>
#include "commands.h"
#include "tui.h"

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    const cli_front front = {tui_main, tui_print_actions};
    return cli_main(argc, argv, &front);
}
