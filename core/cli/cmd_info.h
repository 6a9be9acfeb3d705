/* cmd_info.h — `aotidbg info`: what a package holds. Takes the run options
 * of scope RUN_OPT_INFO (--model, --sha256) and these. Returns the exit code. */
#ifndef AOTIDBG_CMD_INFO_H
#define AOTIDBG_CMD_INFO_H
#include "opt.h"

typedef struct {
    int calls;                 /* --calls */
} info_options;

extern const opt_spec info_option_specs[];

struct cli_args;
int cmd_info(const struct cli_args *a);

#endif
