/* cli_opts.c — shared subcommand option parsing; see cli_opts.h. */
#include "cli_opts.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
    fprintf(stderr, "aotidbg %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage);
    return EXIT_USAGE;
}

int cli_take(const char *cmd, const char *usage, int argc, char **argv, int *i, const cli_opt *opts, int nopts)
{
    const char *a = argv[*i];
    for (int k = 0; k < nopts; k++) {
        size_t n = strlen(opts[k].name);
        if (strncmp(a, opts[k].name, n))
            continue;
        if (a[n] == '=') {
            *opts[k].dst = a + n + 1;
            return k;
        }
        if (a[n])
            continue;
        if (*i + 1 >= argc) {
            cli_usage_error(cmd, usage, "%s needs a value", a);
            return CLI_ERR;
        }
        *opts[k].dst = argv[++*i];
        return k;
    }
    return CLI_NONE;
}
