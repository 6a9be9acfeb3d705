/* main.c — `aotidbg`: dispatches subcommands (commands.h) and the UI (tui.h). */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "model.h"
#include "tui.h"

static const char usage[] =
    "usage: aotidbg [PKG.pt2 [--inputs SPEC] [--device DEV] [options]]\n"
    "       aotidbg run PKG [--inputs SPEC] [--device DEV] [--break-on error|nan|kernel=NAME] --record OUT.yaml\n"
    "       aotidbg replay SESSION.yaml [--dump]\n"
    "       aotidbg check PKG [--inputs SPEC] [--device DEV] [--format text|yaml]\n"
    "       aotidbg route [FILE|-] [--package PKG] [--format text|yaml]\n"
    "       aotidbg info PKG\n"
    "       aotidbg tutorial [--list|NAME]\n"
    "       aotidbg --list-actions | --version | --help\n"
    "\n"
    "With no arguments, opens the tutorial menu. `aotidbg COMMAND --help` describes a\n"
    "command; man aotidbg has the whole manual.\n"
    "Exit codes: 0 success, 1 the model or a check failed, 2 bad usage or bad input.\n";

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    if (argc < 2)
        return tui_main("tutorial", argc - 1, argv + 1);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--list-actions"))   /* the action table, for scripts and the man page check */
        return tui_print_actions(stdout);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("aotidbg %s (session format %d.%d)\n", AOTIDBG_VERSION, SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
        return EXIT_OK;
    }
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    if (!strcmp(cmd, "run"))
        return cmd_run(sub_argc, sub_argv);
    if (!strcmp(cmd, "check"))
        return cmd_check(sub_argc, sub_argv);
    if (!strcmp(cmd, "route"))
        return cmd_route(sub_argc, sub_argv);
    if (!strcmp(cmd, "info"))
        return cmd_info(sub_argc, sub_argv);
    if (!strcmp(cmd, "replay")) {
        for (int i = 1; i < sub_argc; i++)
            if (!strcmp(sub_argv[i], "--dump"))
                return cmd_replay_dump(sub_argc, sub_argv);
        return tui_main("replay", sub_argc, sub_argv);
    }
    if (!strcmp(cmd, "tutorial"))
        return tui_main("tutorial", sub_argc, sub_argv);
    if (!strcmp(cmd, "--remote") || !strcmp(cmd, "--push") || !strcmp(cmd, "--remote-runner")) {
        /* aotidbg --remote HOST [--push] PKG ...: live, the package first as usual */
        for (int i = 1; i < argc; i++) {
            if (!strcmp(argv[i], "--remote") || !strcmp(argv[i], "--remote-runner")) {
                i++;
                continue;
            }
            if (argv[i][0] == '-')
                continue;
            char *pkg = argv[i];
            memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof *argv);
            argv[1] = pkg;
            return tui_main("live", sub_argc, sub_argv);
        }
        fprintf(stderr, "aotidbg: %s: which package? aotidbg --remote HOST PKG.pt2\n", cmd);
        return EXIT_USAGE;
    }
    if (cmd[0] == '-') {
        fprintf(stderr, "aotidbg: unknown option '%s'\n%s", cmd, usage);
        return EXIT_USAGE;
    }
    /* Anything else is a package to debug live. */
    return tui_main("live", sub_argc, sub_argv);
}
