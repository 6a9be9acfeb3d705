/* cmd_export.h — `aotidbg export SESSION --format chrome-trace|csv [-o FILE]`:
 * a recorded session as a timeline (the Trace Event Format that Perfetto and
 * chrome://tracing open) or as one CSV row per kernel event. Returns the exit
 * code (commands.h): 0 written, 2 bad usage or a session that does not load,
 * 1 the output could not be written (nothing half-written is left at FILE). */
#ifndef AOTIDBG_CMD_EXPORT_H
#define AOTIDBG_CMD_EXPORT_H
#include "opt.h"

typedef struct {
    const char *format;        /* --format chrome-trace|csv (default chrome-trace) */
    const char *output;        /* -o / --output FILE; NULL or "-": stdout */
} export_options;

extern const opt_spec export_option_specs[];

struct cli_args;
int cmd_export(const struct cli_args *a);

#endif
