/* cli_opts.c — shared subcommand option parsing; see cli_opts.h. */
#include "cli_opts.h"
#include "compat.h"
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
        if (opts[k].flag) {   /* takes no value */
            if (a[n])
                continue;
            *opts[k].flag = 1;
            return k;
        }
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

int cli_next(const cli_spec *sp, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        fputs(sp->help, stdout);
        return CLI_HELP;
    }
    int k = cli_take(sp->cmd, sp->on_error, argc, argv, i, sp->opts, sp->nopts);
    if (k != CLI_NONE)
        return k;
    if (a[0] == '-' && a[1]) {
        cli_usage_error(sp->cmd, sp->on_error, "unknown option '%s'", a);
        return CLI_ERR;
    }
    return CLI_ARG;
}

int cli_parse_one(const cli_spec *sp, int argc, char **argv, const char **arg, const char *extra, int *exit_code)
{
    *exit_code = EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        int k = cli_next(sp, argc, argv, &i);
        if (k == CLI_HELP)
            *exit_code = EXIT_OK;
        if (k == CLI_HELP || k == CLI_ERR)
            return -1;
        if (k != CLI_ARG)
            continue;
        if (*arg) {
            fprintf(stderr, "aotidbg %s: ", sp->cmd);
            fprintf(stderr, extra, *arg, argv[i]);
            fprintf(stderr, "\n%s", sp->on_error);
            return -1;
        }
        *arg = argv[i];
    }
    return 0;
}

int cli_parse_ref_npy(const char *spec, cli_ref_npy *out, strbuf *err)
{
    static const char form[] = "; expected KERNEL:TENSOR=PATH (e.g. 3:buf2=ref.npy, or 3:before:buf2=ref.npy)";
    memset(out, 0, sizeof *out);
    const char *p = spec;
    int64_t k = 0;
    if (*p < '0' || *p > '9') {
        strbuf_addf(err, "--ref-npy '%s': KERNEL must be a kernel index (0, 1, ...)%s", spec, form);
        return -1;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        k = k * 10 + (*p - '0');
        if (k > 1000000000) {
            strbuf_addf(err, "--ref-npy '%s': kernel index too large%s", spec, form);
            return -1;
        }
    }
    if (*p++ != ':') {
        strbuf_addf(err, "--ref-npy '%s': no ':' after the kernel index%s", spec, form);
        return -1;
    }
    out->kernel = k;
    out->phase = PHASE_AFTER;
    if (skip_prefix(p, "before:", &p))
        out->phase = PHASE_BEFORE;
    else
        skip_prefix(p, "after:", &p);
    const char *eq = strchr(p, '=');
    if (!eq) {
        strbuf_addf(err, "--ref-npy '%s': no '=PATH'%s", spec, form);
        return -1;
    }
    size_t n = (size_t)(eq - p);
    if (!n || n >= sizeof out->name) {
        strbuf_addf(err, "--ref-npy '%s': the tensor name is %s%s", spec, n ? "over 127 bytes" : "empty", form);
        return -1;
    }
    if (!eq[1]) {
        strbuf_addf(err, "--ref-npy '%s': the PATH after '=' is empty%s", spec, form);
        return -1;
    }
    memcpy(out->name, p, n);
    out->name[n] = 0;
    out->path = eq + 1;
    return 0;
}
