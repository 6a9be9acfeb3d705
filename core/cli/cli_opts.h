/* cli_opts.h — option values with a syntax of their own that more than one
 * command takes (the option tables themselves are opt.h rows: run_options.h,
 * ui_options.h, cmd_*.h). Values point into argv (nothing is allocated). */
#ifndef AOTIDBG_CLI_OPTS_H
#define AOTIDBG_CLI_OPTS_H
#include <stdint.h>
#include "model.h"
#include "opt.h"
#include "strbuf.h"

/* --format text|yaml (check, route): an opt_store_fn for a const char * field. */
int cli_store_format(const opt_spec *o, const char *v, void *field, strbuf *err);

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

/* "aotidbg CMD: <message>" and a hint at --help on stderr; EXIT_USAGE (commands.h).
 * Here, not in commands.c, so that the commands it dispatches to call no file that calls them. */
struct command;
int cli_usage_error(const struct command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
