/* cli_opts.h — option parsing the subcommands (cmd_*.c) share: options that
 * take a value, written "--opt VALUE" or "--opt=VALUE", and the usage-error
 * message.
 *
 * Errors: cli_take prints "aotidbg CMD: --opt needs a value" and the usage
 * text on stderr and returns CLI_ERR; the caller exits with EXIT_USAGE.
 * Values point into argv (nothing is allocated). */
#ifndef AOTIDBG_CLI_OPTS_H
#define AOTIDBG_CLI_OPTS_H
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

/* An option that takes a value, and where the value goes; or, with flag set,
 * an option without a value that sets *flag to 1. */
typedef struct {
    const char *name;     /* "--inputs" */
    const char **dst;
    int *flag;            /* "--sha256": dst is NULL */
} cli_opt;

enum { CLI_NONE = -1, CLI_ERR = -2, CLI_HELP = -3, CLI_ARG = -4 };

/* Is argv[*i] one of opts? Then stores its value in *opts[k].dst (advancing
 * *i past a separate value) and returns k. CLI_NONE when it is none of them;
 * CLI_ERR when the value is missing (message printed). */
int cli_take(const char *cmd, const char *usage, int argc, char **argv, int *i, const cli_opt *opts, int nopts);

/* A subcommand's options: its name, --help text (stdout), what follows a
 * usage error on stderr (the help text, or a hint to run --help). */
typedef struct {
    const char *cmd, *help, *on_error;
    const cli_opt *opts;
    int nopts;
} cli_spec;

/* One step of the argument loop: k for an option of sp->opts (value
 * stored), CLI_ARG for a positional argument (argv[*i]), CLI_HELP after
 * printing the help (exit 0), CLI_ERR after printing a usage error (an
 * unknown option or a missing value; exit EXIT_USAGE). Options the caller
 * handles itself (flags) must be checked before. */
int cli_next(const cli_spec *sp, int argc, char **argv, int *i);

/* The whole loop for a subcommand with options and one positional argument
 * (stored in *arg, left as is when absent): 0 when parsed; -1 when the
 * command is done, with *exit_code EXIT_OK after --help or EXIT_USAGE after
 * a printed error. `extra` is the message for a second positional, a printf
 * format given the first and the second ("one package only (got '%s' and '%s')"). */
int cli_parse_one(const cli_spec *sp, int argc, char **argv, const char **arg, const char *extra, int *exit_code);

/* Prints "aotidbg CMD: <message>\n" then usage (may be "") on stderr;
 * returns EXIT_USAGE so callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* --ref-npy KERNEL:TENSOR=PATH (replay, live): a .npy file as the inspector
 * reference of kernel KERNEL's tensor TENSOR, its after-phase one unless
 * written before:TENSOR (after:TENSOR also works). name is copied; path
 * points into the spec. */
typedef struct {
    int64_t kernel;
    tensor_phase phase;
    char name[128];
    const char *path;
} cli_ref_npy;

/* 0, or -1 with what is wrong (and the expected form) appended to err. */
int cli_parse_ref_npy(const char *spec, cli_ref_npy *out, strbuf *err);

#endif
