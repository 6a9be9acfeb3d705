/* commands.h — the command line as a table (after git.c's commands[] and
 * libgit2's src/cli): one row per command with its name, synopsis, summary,
 * help text, option groups (opt.h tables: the run options, the UI options,
 * its own) and handler. `aotidbg --help`, `aotidbg COMMAND --help`,
 * `aotidbg --list-options` (what test_manual.py reads) and the parser all
 * walk the same rows, so a command or an option is added in one place.
 *
 * Exit codes (man/aotidbg.1 EXIT STATUS) of every handler:
 *   EXIT_OK 0       success (the model ran; nothing failed)
 *   EXIT_FAILED 1   the model failed, or a check failed
 *   EXIT_USAGE 2    bad usage or bad input
 *   EXIT_PARTIAL 3  passed, but only part was compared (run --eager: some
 *                   kernels not compared with the eager reference)
 * Handlers print to stdout/stderr and never die by a signal on bad input.
 * The UI commands (live, replay without --dump, tutorial) are the front
 * end's: cli_main hands them to cli_front.ui, so core needs no curses. */
#ifndef AOTIDBG_COMMANDS_H
#define AOTIDBG_COMMANDS_H
#include <stdio.h>
#include "cli_opts.h"
#include "cmd_check.h"
#include "cmd_export.h"
#include "cmd_info.h"
#include "cmd_replay.h"
#include "cmd_repro.h"
#include "cmd_route.h"
#include "cmd_run.h"
#include "opt.h"
#include "run_options.h"
#include "ui_options.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_PARTIAL = 3 };

typedef struct cli_args cli_args;

/* What the front end (tui/main.c) brings: the full-screen UI, and the action
 * table for --list-actions. */
typedef struct {
    int (*ui)(const cli_args *a);
    int (*list_actions)(FILE *f);
} cli_front;

#define CLI_MAX_GROUPS 3
#define CLI_MAX_POS RUN_MAX_RANKS   /* replay: one session per rank */

typedef struct command {
    const char *name;          /* what is typed: "run"; NULL for the live UI (aotidbg PKG) */
    const char *label;         /* "run", "live": in messages and --list-options */
    const char *synopsis;      /* after "aotidbg ": "run PKG [--inputs SPEC] ... --record OUT.yaml" */
    const char *summary;       /* one line for aotidbg --help */
    const char *about;         /* COMMAND --help, before the options; may be NULL */
    const char *after;         /* COMMAND --help, after the options (exit codes); may be NULL */
    const char *args;          /* the positional arguments, for messages: "PKG" */
    int min_pos, max_pos;
    opt_group groups[CLI_MAX_GROUPS];   /* base is offsetof(cli_args, ...); ends at specs NULL */
    int (*run)(const cli_args *a);      /* NULL: the front end's UI */
    const char *ui_mode;       /* "live", "replay", "tutorial" for the UI */
} command;

/* Everything a command line says, parsed by the command's groups. Strings
 * point into argv. */
struct cli_args {
    const command *cmd;
    const cli_front *front;
    const char *pos[CLI_MAX_POS];
    size_t npos;
    run_options run;           /* run, live, check, info (scopes in run_options.h) */
    ui_options ui;             /* live, replay, tutorial */
    check_options check;
    route_options route;
    info_options info;
    replay_options replay;
    repro_options repro;
    export_options exp;
};


/* The whole program: dispatches argv (argv[0] is the program) to a row,
 * parses its options, prints help, runs the handler; returns the exit code. */
int cli_main(int argc, char **argv, const cli_front *front);

#endif
