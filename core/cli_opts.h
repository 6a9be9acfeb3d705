/* cli_opts.h — option parsing the subcommands (cmd_*.c) share: options that
 * take a value, written "--opt VALUE" or "--opt=VALUE", and the usage-error
 * message.
 *
 * Errors: cli_take prints "aotidbg CMD: --opt needs a value" and the usage
 * text on stderr and returns CLI_ERR; the caller exits with EXIT_USAGE.
 * Values point into argv (nothing is allocated). */
#ifndef AOTIDBG_CLI_OPTS_H
#define AOTIDBG_CLI_OPTS_H

/* An option that takes a value, and where the value goes. */
typedef struct {
    const char *name;     /* "--inputs" */
    const char **dst;
} cli_opt;

enum { CLI_NONE = -1, CLI_ERR = -2 };

/* Is argv[*i] one of opts? Then stores its value in *opts[k].dst (advancing
 * *i past a separate value) and returns k. CLI_NONE when it is none of them;
 * CLI_ERR when the value is missing (message printed). */
int cli_take(const char *cmd, const char *usage, int argc, char **argv, int *i, const cli_opt *opts, int nopts);

/* Prints "aotidbg CMD: <message>\n" then usage (may be "") on stderr;
 * returns EXIT_USAGE so callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
