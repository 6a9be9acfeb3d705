/* cmd_route.h — `aotidbg route`: names the error route of a log or a
 * session. Returns the exit code (commands.h). */
#ifndef AOTIDBG_CMD_ROUTE_H
#define AOTIDBG_CMD_ROUTE_H
#include "opt.h"

typedef struct {
    const char *package;       /* --package PKG */
    const char *session;       /* --session S.yaml */
    const char *format;        /* --format text|yaml */
    const char *rules;         /* --rules FILE */
} route_options;

extern const opt_spec route_option_specs[];

struct cli_args;
int cmd_route(const struct cli_args *a);

#endif
