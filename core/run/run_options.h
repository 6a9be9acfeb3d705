/* run_options.h — what a run is asked to do, and the one table of options
 * that `aotidbg run`, the live UI (`aotidbg PKG`) and `aotidbg check` parse
 * (opt.h): each option is one row of run_option_specs (name, argument, help
 * text, field, scope), so every front end takes it with the same spelling,
 * checks and help text.
 *
 * Adding an option: a field below, one row in run_options.c (its scope says
 * which commands take it), its use in run_service.c, a line in man/aotidbg.1
 * (tests/integration/test_manual.py checks that). See the board's Notice.
 * Strings point into argv; nothing here is allocated. */
#ifndef AOTIDBG_RUN_OPTIONS_H
#define AOTIDBG_RUN_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "opt.h"
#include "protocol.h"

/* The commands a row applies to (opt_spec.scope). */
enum {
    RUN_OPT_RUN = 1,      /* aotidbg run */
    RUN_OPT_LIVE = 2,     /* aotidbg PKG (the live UI) */
    RUN_OPT_CHECK = 4,    /* aotidbg check */
    RUN_OPT_INFO = 8,     /* aotidbg info (--model, --sha256) */
    RUN_OPT_REPRO = 16,   /* aotidbg repro (--inputs, --device, --model, --timeout, --force) */
};

/* How kernel boundaries of a package without the printer are seen. */
enum { RUN_REINSTR_AUTO = 0, RUN_REINSTR_FORCE, RUN_REINSTR_OFF };

typedef struct {
    int flags;            /* BREAK_ON_ERROR | BREAK_ON_NAN | BREAK_ON_DIVERGE (protocol.h) */
    const char *kernel;   /* kernel=NAME: stop before its first launch; NAME@K: its launch in while_loop
                             round K (loop_iter.h); "@K": the first launch of round K (iteration=K);
                             may be NULL */
    int64_t index;        /* index=N: stop before kernel N; -1 none */
} run_breaks;

/* Whether the launch `name` in round `iteration` (-1 none) is what kernel=`want` names. */
int run_break_matches(const char *want, const char *name, int64_t iteration);

typedef struct {
    double atol, rtol;    /* an element differs when |got - want| > atol + rtol * |want| */
} run_tolerance;

#define RUN_MAX_RANKS 64   /* --ranks: runners of one run (here, or over --remote's hosts) */
#define RUN_RANKS_GROUP "0"   /* the group a --ranks run registers: torch's default group's name */

/* --expect OUT.npy, repeatable: the Nth is the Nth output's expected values. */
#define RUN_MAX_EXPECT 16
typedef struct {
    const char *path[RUN_MAX_EXPECT];
    size_t n;
} run_expects;

typedef struct run_options {
    const char *package;  /* PKG: a .pt2 or a bare model .so (the command's argument) */
    const char *inputs;   /* --inputs SPEC, or "random" (random_inputs.h); may be NULL */
    const char *seed;     /* --seed N with --inputs random (digits, checked); NULL: 0 */
    const char *device;   /* --device; NULL: the package's */
    const char *record;   /* --record; run: required; live: NULL = ./aotidbg-session-<time>.yaml */
    int force;            /* --force: run despite a checklist FAIL */
    int deterministic;    /* --deterministic */
    int blocking;         /* --blocking (live: always) */
    int reinstrument;     /* RUN_REINSTR_* */
    double timeout_s;     /* --timeout; 0 = never */
    size_t max_values;    /* --values */
    uint64_t values_budget; /* --values-budget, bytes; 0 = no limit */
    int loop_values_all;  /* --loop-values all: values in every while_loop round (default kept: the first
                             round, stops, NaN/Inf; PROTO_LOAD_ROUND_STATS) */
    run_breaks breaks;    /* --break-on, repeatable */
    const char *model;    /* --model NAME: the package's model; NULL: the only one, or "model" */
    int sha256;           /* --sha256 (check, info): also hash the whole file */
    const char *remote;   /* --remote [USER@]HOST[:PORT]: the runner runs there (remote.h); NULL: here */
    const char *remote_runner; /* --remote-runner PATH there; NULL: aotidbg-runner on its PATH */
    int push;             /* --push: PKG and SPEC are here; the package is copied there first */
    const char *eager;    /* --eager PROGRAM.pt2: each kernel's output against the exported program run
                             eagerly (core/eager/eager_ref.h); NULL: none */
    const char *eager_device; /* --eager-device; NULL: the run's device */
    int eager_float64;    /* --eager-float64 */
    const char *eager_map; /* --eager-map compiler|names: which buffer holds which node (eager_ref.h); NULL
                              the default */
    run_tolerance tol;    /* --tolerance ATOL,RTOL; -1: each dtype's default (tensor_close.h) */
    const char *memcheck; /* --memcheck[=TOOL]: compute-sanitizer's tool (sanitizer.h); NULL: none */
    run_expects expect;   /* --expect OUT.npy (run): outputs checked after the run (run_expect.h) */
    run_tolerance expect_tol; /* --expect-tolerance; -1: each dtype's default */
    const proto_msg *capture; /* no option: the CAPTURE `aotidbg repro` sends (protocol.h); NULL none */
    int ranks;            /* --ranks N (run): N runners in one process group (cmd_ranks.h); 0 none */
    int rank;             /* no option: the rank this run is of a --ranks run (its session's rank key); -1 none */
    const char *const *remote_env; /* no option: NAME=VALUE for the runner there (a --ranks rank over --remote:
                                      remote_options.env); NULL none */
    const char *const *env; /* no option: "NAME=VALUE" in the runner's environment (a rank's torch.distributed
                               variables, run_ranks.h); NULL none; borrowed for the run's life */
} run_options;

/* The rows; pass them to opt_parse as a group with scope RUN_OPT_*. */
extern const opt_spec run_option_specs[];

/* Defaults for a front end (RUN_OPT_RUN or RUN_OPT_LIVE): live keeps 4096
 * values a tensor, times out after 60 s and always blocks. */
void run_options_init(run_options *o, unsigned front);

/* Appends the options o holds that differ from front's defaults, among the
 * rows of scope, as a command line would give them again (" --inputs
 * in.yaml --model m"; each value a shell word), so a hint's command runs
 * the same package the same way. The package itself is not included. */
void run_options_repeat(const run_options *o, unsigned front, unsigned scope, strbuf *out);

/* "cpu", "cuda", "cuda:N" (N at most 4 digits). */
int run_device_ok(const char *device);

#endif
