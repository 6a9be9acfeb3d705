/* run_options.c — the run options table; see run_options.h. */
#include "run_options.h"
#include "compat.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "protocol.h"
#include "run_record.h"

int run_device_ok(const char *d)
{
    if (!strcmp(d, "cpu") || !strcmp(d, "cuda"))
        return 1;
    const char *idx;
    if (!skip_prefix(d, "cuda:", &idx) || !*idx || strlen(idx) > 4)
        return 0;
    return strspn(idx, "0123456789") == strlen(idx);
}

static int store_device(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    if (!run_device_ok(v)) {
        strbuf_addf(err, "%s takes cpu, cuda or cuda:N, not '%s'", o->name, v);
        return -1;
    }
    *(const char **)field = v;
    return 0;
}

static int store_break(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    run_breaks *b = field;
    const char *rest;
    if (!strcmp(v, "error"))
        b->flags |= BREAK_ON_ERROR;
    else if (!strcmp(v, "nan"))
        b->flags |= BREAK_ON_NAN;
    else if (!strcmp(v, "inf"))
        b->flags |= BREAK_ON_INF;
    else if (!strcmp(v, "nonfinite"))
        b->flags |= BREAK_ON_NONFINITE;
    else if (!strcmp(v, "diverge"))
        b->flags |= BREAK_ON_DIVERGE;
    else if (skip_prefix(v, "kernel=", &rest) && *rest) {
        const char *at = strrchr(rest, '@');
        char *end;
        if (at && (at == rest || !at[1] || strtoll(at + 1, &end, 10) < 0 || *end)) {
            strbuf_addf(err, "--break-on kernel=NAME@K needs a kernel name and a while_loop iteration "
                        "K >= 0, got '%s'", v);
            return -1;
        }
        b->kernel = rest;
    } else if (skip_prefix(v, "iteration=", &rest) && *rest) {
        char *end;
        errno = 0;
        long long n = strtoll(rest, &end, 10);
        if (errno || *end || n < 0) {
            strbuf_addf(err, "--break-on iteration=K needs a non-negative integer (a while_loop round, "
                        "0-based), got '%s'", v);
            return -1;
        }
        static char spec[24];   /* outlives every copy of the options; the last --break-on wins, as kernel= */
        snprintf(spec, sizeof spec, "@%lld", n);
        b->kernel = spec;
    }
    else if (skip_prefix(v, "index=", &rest) && *rest) {
        char *end;
        errno = 0;
        long long n = strtoll(rest, &end, 10);
        if (errno || *end || n < 0) {
            strbuf_addf(err, "--break-on index=N needs a non-negative integer, got '%s'", v);
            return -1;
        }
        b->index = n;
    } else {
        strbuf_addf(err, "--break-on takes error, nan, inf, nonfinite, diverge, kernel=NAME[@K], iteration=K or "
                    "index=N, not '%s'", v);
        return -1;
    }
    return 0;
}

int run_break_matches(const char *want, const char *name, int64_t iteration)
{
    const char *at = strrchr(want, '@');
    if (!at)
        return !strcmp(want, name);
    size_t n = (size_t)(at - want);
    return (!n || (strlen(name) == n && !strncmp(name, want, n))) && iteration >= 0 &&
           iteration == strtoll(at + 1, NULL, 10);
}

static int store_timeout(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    char *end;
    double t = strtod(v, &end);
    if (*end || end == v || !(t >= 0) || t > 1e7) {
        strbuf_addf(err, "--timeout needs seconds (0 = never), got '%s'", v);
        return -1;
    }
    *(double *)field = t;
    return 0;
}

static int store_values(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || end == v || v[0] == '-' || n > PROTO_MAX_VALUES) {
        strbuf_addf(err, "--values needs a count from 0 to %u, got '%s'", PROTO_MAX_VALUES, v);
        return -1;
    }
    *(size_t *)field = (size_t)n;
    return 0;
}

static int store_loop_values(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    if (strcmp(v, "kept") && strcmp(v, "all")) {
        strbuf_addf(err, "--loop-values needs kept or all, got '%s'", v);
        return -1;
    }
    *(int *)field = !strcmp(v, "all");
    return 0;
}

static int store_ranks(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > RUN_MAX_RANKS) {
        strbuf_addf(err, "--ranks needs a number of ranks from 1 to %d, got '%s'", RUN_MAX_RANKS, v);
        return -1;
    }
    *(int *)field = (int)n;
    return 0;
}

static int store_budget(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    if (opt_parse_size(v, field) < 0) {
        strbuf_addf(err, "--values-budget needs a size in bytes with an optional K, M or G suffix "
                    "(256M; 0 = no limit), got '%s'", v);
        return -1;
    }
    return 0;
}

/* ATOL,RTOL: two numbers >= 0 ("1e-4,1e-3"). */
static int store_tolerance(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    run_tolerance *t = field;
    char *end, *end2;
    double a = strtod(v, &end), r = *end == ',' ? strtod(end + 1, &end2) : -1;
    if (*end != ',' || end == v || *end2 || end2 == end + 1 || !(a >= 0) || !(r >= 0) || a > 1e30 || r > 1e30) {
        strbuf_addf(err, "%s needs ATOL,RTOL, two numbers >= 0 like 1e-4,1e-3, got '%s'", o->name, v);
        return -1;
    }
    t->atol = a;
    t->rtol = r;
    return 0;
}

/* [=memcheck|racecheck|initcheck|synccheck]: compute-sanitizer's tools */
static int store_memcheck(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    static const char *const tools[] = {"memcheck", "racecheck", "initcheck", "synccheck"};
    if (!v) {
        *(const char **)field = tools[0];
        return 0;
    }
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (!strcmp(v, tools[i])) {
            *(const char **)field = tools[i];
            return 0;
        }
    strbuf_addf(err, "%s takes memcheck, racecheck, initcheck or synccheck (--memcheck=racecheck), not '%s'",
                o->name, v);
    return -1;
}

static int store_seed(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    char *end;
    errno = 0;
    (void)strtoull(v, &end, 10);
    if (errno || *end || end == v || v[0] == '-' || v[0] == '+' || v[0] == ' ') {
        strbuf_addf(err, "%s needs a non-negative integer, got '%s'", o->name, v);
        return -1;
    }
    *(const char **)field = v;
    return 0;
}

static int store_expect(const opt_spec *o, const char *v, void *field, strbuf *err)
{
    run_expects *e = field;
    if (e->n >= RUN_MAX_EXPECT) {
        strbuf_addf(err, "%s may be given at most %d times (one per output)", o->name, RUN_MAX_EXPECT);
        return -1;
    }
    if (!*v) {
        strbuf_addf(err, "%s needs a .npy file", o->name);
        return -1;
    }
    e->path[e->n++] = v;
    return 0;
}

#define F(field) offsetof(run_options, field)
enum { RL = RUN_OPT_RUN | RUN_OPT_LIVE, ALL = RUN_OPT_RUN | RUN_OPT_LIVE | RUN_OPT_CHECK };

const opt_spec run_option_specs[] = {
    {"--inputs", "SPEC", "inputs spec YAML: inputs: [{shape, dtype, device, fill, ...}]; run and live: 'random' "
     "makes inputs from what the package checks (dynamic sizes inside their bounds, integer inputs inside the "
     "index checks that bound them) and writes the spec beside the session (OUT.yaml.inputs.yaml)", F(inputs),
     NULL, 0, ALL | RUN_OPT_REPRO},
    {"--seed", "N", "with --inputs random: the seed of the values (input i gets N + i; default 0)", F(seed),
     store_seed, 0, RL},
    {"--device", "DEV", "cpu, cuda or cuda:N (default: the device the package was\ncompiled for)", F(device),
     store_device, 0, ALL | RUN_OPT_REPRO},
    {"--record", "OUT.yaml", "the session file to write (run: required; live: default\n"
     "./aotidbg-session-<time>.yaml)", F(record), NULL, 0, RL},
    {"--break-on", "WHAT", "stop at: error (first failing kernel), nan (first NaN output), inf (first +Inf, or -Inf beside other "
     "non-finite values: -Inf alone is an attention mask's), nonfinite (first NaN or +-Inf, masks too), diverge (after "
     "the first kernel whose output departs from --eager), kernel=NAME (before the first launch of NAME; NAME@K: "
     "its launch in while_loop iteration K), iteration=K (before the first launch of while_loop iteration K, 0-based), "
     "index=N (before kernel N); may be repeated (live: c stops there)", F(breaks), store_break, 0, RL},
    {"--deterministic", NULL, "run with CUDA_LAUNCH_BLOCKING=1, AOTI_RUNTIME_CHECK_INPUTS=1 and "
     "PYTORCH_NO_CUDA_MEMORY_CACHING=1 (recorded in the session)", F(deterministic), NULL, 1, RL},
    {"--blocking", NULL, "synchronize and check the device at every kernel boundary\n"
     "(live mode always does)", F(blocking), NULL, 1, RL},
    {"--memcheck", "[=TOOL]", "run the runner under NVIDIA compute-sanitizer (TOOL: memcheck, the default, "
     "racecheck, initcheck or synccheck; CUDA packages only) with blocking launches and the caching allocator "
     "off: each report becomes a memcheck event naming the kernel and the tensor, element and distance the "
     "address hit; the tool's own reports are kept beside the session (OUT.yaml.sanitizer.xml, .txt)",
     F(memcheck), store_memcheck, 0, RL},
    {"--timeout", "S", "kill the runner when a kernel (or the load) takes longer than S seconds (default: "
     "run 600, live 60; 0 = never, and the runner's exit after the run is awaited however long it takes, "
     "as under valgrind; otherwise it gets 3 s); with --remote also the longest silence of the runner there "
     "(its HELLO, each reply, the rest of a frame; check waits only on that)", F(timeout_s), store_timeout, 0,
     ALL | RUN_OPT_REPRO},
    {"--values", "N", "keep up to N values per tensor for the value grid\n"
     "(default: run 0, live 4096), within the value budget", F(max_values), store_values, 0, RL},
    {"--loop-values", "WHICH", "with --values: which while_loop rounds read values.\n"
     "kept (the default): the first round of each entry into a\n"
     "loop, the kernels the run stops at, and tensors holding\n"
     "NaN/Inf; later rounds keep statistics alone (most fold).\n"
     "all: every round (slower on a long loop of wide tensors)", F(loop_values_all), store_loop_values, 0, RL},
    {"--values-budget", "SIZE", "bytes of values kept in all (8 per value; K, M, G\n"
     "suffixes; default 256M; 0 = no limit); past it a tensor\n"
     "keeps its statistics and its first 1024 values while such\n"
     "samples fit in a reserve of SIZE/16, then statistics only", F(values_budget), store_budget, 0, RL},
    {"--force", NULL, "run even when the checklist (aotidbg check) has a FAIL row", F(force), NULL, 1, RL | RUN_OPT_REPRO},
    {"--reinstrument", NULL, "rebuild a private copy of the model .so with a hook around\n"
     "every kernel launch (from the sources the package carries)\n"
     "and run that; the default for a CPU package built without\n"
     "the printer", F(reinstrument), NULL, RUN_REINSTR_FORCE, RL},
    {"--no-reinstrument", NULL, "never rebuild: a package without the printer runs as\n"
     "shipped (CUDA: kernel names by launch interposition; CPU:\n"
     "outputs only)", F(reinstrument), NULL, RUN_REINSTR_OFF, RL},
    {"--model", "NAME", "the model inside the package (default: the only one, or 'model')", F(model), NULL, 0,
     ALL | RUN_OPT_INFO | RUN_OPT_REPRO},
    {"--sha256", NULL, "also the SHA-256 of the whole file (reads every byte; the rest reads only the "
     "archive's directory and the parts it needs)", F(sha256), NULL, 1, RUN_OPT_CHECK | RUN_OPT_INFO},
    {"--remote", "[USER@]HOST[:PORT]", "run the model on the GPU box HOST, through ssh ($AOTIDBG_SSH) and "
     "aotidbg-runner there: PKG and SPEC are paths there, the session is written here; check's device, CPU "
     "and environment rows are HOST's, and its symbol row loads the .so against the runner's libtorch there; "
     "with --ranks, HOST1,HOST2,...: rank K on the (K mod count)th host, the store on rank 0's",
     F(remote), NULL, 0, ALL},
    {"--push", NULL, "with --remote: PKG and SPEC are here; copy the package to a private folder there first",
     F(push), NULL, 1, ALL},
    {"--remote-runner", "PATH", "with --remote: the runner there (default: aotidbg-runner on its PATH)",
     F(remote_runner), NULL, 0, ALL},
    {"--eager", "PROGRAM.pt2", "compare every kernel's output with the exported program (torch.export.save) "
     "run eagerly on the same inputs: each kernel gets eager checks, the first that departs a divergence "
     "event; computed once with python3 and torch, cached beside the session", F(eager), NULL, 0, RL},
    {"--tolerance", "ATOL,RTOL", "with --eager: an element departs when |got - want| > ATOL + RTOL * |want| "
     "(default: torch.testing.assert_close's for the tensor's dtype)", F(tol), store_tolerance, 0, RL},
    {"--eager-device", "DEV", "with --eager: run the program there (default: the run's device)", F(eager_device),
     store_device, 0, RL},
    {"--eager-float64", NULL, "with --eager: run the program in float64, a reference nearer the exact math",
     F(eager_float64), NULL, 1, RL},
    {"--eager-map", "compiler|names", "with --eager: which kernel buffer holds which graph node. compiler "
     "(the default): Inductor's own record (each buffer's origin node), from lowering the program again here "
     "with this torch, each node judged against float64 too; names: the node names above each launch and the "
     "outputs' shapes", F(eager_map), NULL, 0, RL},
    {"--expect", "OUT.npy", "check an output: the Nth --expect is the Nth output's expected values (repeat it "
     "for more outputs, in order); the run exits 1 naming the first differing element when one differs, 0 "
     "when every output given matches", F(expect), store_expect, 0, RUN_OPT_RUN},
    {"--expect-tolerance", "ATOL,RTOL", "with --expect: an element differs when |got - want| > ATOL + RTOL * "
     "|want| (default: torch.testing.assert_close's for the output's dtype; 0,0: equal)", F(expect_tol),
     store_tolerance, 0, RUN_OPT_RUN},
    {"--ranks", "N", "run N ranks of a model with collectives (torch.distributed): N runners here (or on "
     "--remote's hosts, round-robin), one process group (gloo on cpu, NCCL on cuda:LOCAL_RANK) registered "
     "under the name the package uses (\"0\", the default group); --inputs takes one SPEC for all or N specs "
     "separated by commas; each rank writes OUT.rankK.yaml, every event with its rank; values are kept (--values "
     "1024 unless given) so the ranks' after-tensors are compared by value; live: the ranks in lockstep, side by "
     "side", F(ranks), store_ranks, 0, RUN_OPT_RUN | RUN_OPT_LIVE},
    {NULL},
};

void run_options_init(run_options *o, unsigned front)
{
    memset(o, 0, sizeof *o);
    o->breaks.index = -1;
    o->rank = -1;
    o->tol.atol = o->tol.rtol = -1;
    o->expect_tol.atol = o->expect_tol.rtol = -1;
    o->values_budget = VALUES_BUDGET_DEFAULT;
    o->timeout_s = 600;
    if (front & RUN_OPT_LIVE) {
        o->timeout_s = 60;
        o->max_values = 4096;
        o->blocking = 1;
    }
}

/* --break-on's values, one option each. */
static void repeat_breaks(const run_breaks *b, strbuf *out)
{
    static const struct { int flag; const char *word; } words[] = {
        {BREAK_ON_ERROR, "error"}, {BREAK_ON_NAN, "nan"}, {BREAK_ON_DIVERGE, "diverge"},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (b->flags & words[i].flag)
            strbuf_addf(out, " --break-on %s", words[i].word);
    if (b->kernel) {
        strbuf_addstr(out, " --break-on ");
        strbuf_addstr(out, "kernel=");
        strbuf_add_shell_word(out, b->kernel);
    }
    if (b->index >= 0)
        strbuf_addf(out, " --break-on index=%lld", (long long)b->index);
}

/* One row's value as given, or nothing when it is the default. */
static void repeat_row(const opt_spec *r, const run_options *o, const run_options *def, strbuf *out)
{
    const char *f = (const char *)o + r->off, *d = (const char *)def + r->off;
    char num[64] = "";
    if (!r->store && !r->arg) {   /* a flag */
        if (*(const int *)f == r->value && *(const int *)d != r->value)
            strbuf_addf(out, " %s", r->name);
        return;
    }
    if (!r->store || r->store == store_device) {   /* a string */
        const char *v = *(const char *const *)f;
        if (v && (!*(const char *const *)d || strcmp(v, *(const char *const *)d))) {
            strbuf_addf(out, " %s ", r->name);
            strbuf_add_shell_word(out, v);
        }
        return;
    }
    if (r->store == store_break)
        repeat_breaks((const run_breaks *)f, out);
    else if (r->store == store_timeout && *(const double *)f != *(const double *)d)
        snprintf(num, sizeof num, "%g", *(const double *)f);
    else if (r->store == store_values && *(const size_t *)f != *(const size_t *)d)
        snprintf(num, sizeof num, "%zu", *(const size_t *)f);
    else if (r->store == store_ranks && *(const int *)f)
        snprintf(num, sizeof num, "%d", *(const int *)f);
    else if (r->store == store_budget && *(const uint64_t *)f != *(const uint64_t *)d)
        snprintf(num, sizeof num, "%llu", (unsigned long long)*(const uint64_t *)f);
    else if (r->store == store_tolerance && ((const run_tolerance *)f)->atol >= 0)
        snprintf(num, sizeof num, "%g,%g", ((const run_tolerance *)f)->atol, ((const run_tolerance *)f)->rtol);
    if (num[0])
        strbuf_addf(out, " %s %s", r->name, num);
}

void run_options_repeat(const run_options *o, unsigned front, unsigned scope, strbuf *out)
{
    run_options def;
    run_options_init(&def, front);
    for (const opt_spec *r = run_option_specs; r->name; r++)
        if (opt_applies(r, scope))
            repeat_row(r, o, &def, out);
}
