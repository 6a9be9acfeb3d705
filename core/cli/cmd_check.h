/* cmd_check.h — `aotidbg check`: the checklist of a package and an inputs
 * spec. Takes the run options of scope RUN_OPT_CHECK (--inputs, --device,
 * --model, --sha256, --remote, ...) and these. Returns the exit code. */
#ifndef AOTIDBG_CMD_CHECK_H
#define AOTIDBG_CMD_CHECK_H
#include "opt.h"

typedef struct {
    const char *format;        /* --format text|yaml */
    const char *torch_lib;     /* --torch-lib DIR|none */
} check_options;

extern const opt_spec check_option_specs[];

struct cli_args;
int cmd_check(const struct cli_args *a);

#endif
