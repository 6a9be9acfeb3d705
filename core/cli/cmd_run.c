/* cmd_run.c — `aotidbg run`: the headless run, for CI and remote boxes.
 *
 * Opens the package (or bare .so), reads the inputs spec, runs the device/
 * shape checklist (checklist.h: its rows go into the session; a FAIL row
 * refuses the run unless --force, as the playbook puts the checklist first
 * for any crash), starts the runner
 * (runner_client.c) and pumps it to the end or the first break, writing every
 * event to the session file as it arrives, then prints a short summary to
 * stderr. Exit codes (commands.h): 0 the model ran (or stopped at a
 * kernel=NAME / index=N break), 1 the model failed, hit a NaN/Inf break, the
 * runner died or a checklist row failed, 2 bad usage or bad input (including
 * a wrong input count caught by the runner under --force).
 * Everything here is freed before return; the runner never outlives us. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checklist.h"
#include "cli_opts.h"
#include "commands.h"
#include "inputs.h"
#include "model.h"
#include "package.h"
#include "protocol.h"
#include "reinstrument.h"
#include "runner_client.h"
#include "session_io.h"
#include "wrapper_scan.h"

static const char run_usage[] =
    "usage: aotidbg run PKG [--inputs SPEC] [--device DEV] [--break-on error|nan|kernel=NAME|index=N]\n"
    "                  [--deterministic] [--blocking] [--timeout S] [--values N] [--force]\n"
    "                  [--values-budget SIZE] [--reinstrument | --no-reinstrument]\n"
    "                  --record OUT.yaml\n"
    "\n"
    "Runs an AOTInductor package headless, kernel by kernel, and records every event\n"
    "(kernels, their tensors' statistics, errors, outputs, runner output) to OUT.yaml as\n"
    "it happens. PKG is a .pt2 from torch._inductor.aoti_compile_and_package, or a bare\n"
    "model .so from torch._export.aot_compile (then --device is required).\n"
    "\n"
    "  --inputs SPEC      inputs spec YAML: inputs: [{shape, dtype, device, fill, ...}]\n"
    "  --device DEV       cpu, cuda or cuda:N (default: the device the package was compiled for)\n"
    "  --break-on WHAT    stop at: error (first failing kernel), nan (first NaN/Inf output),\n"
    "                     kernel=NAME (before the first launch of NAME), index=N (before kernel N);\n"
    "                     may be repeated\n"
    "  --deterministic    run with CUDA_LAUNCH_BLOCKING=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1\n"
    "                     AOTI_RUNTIME_CHECK_INPUTS=1 (recorded in the session)\n"
    "  --blocking         synchronize and check the device at every kernel boundary\n"
    "  --timeout S        kill the runner when a kernel (or the load) takes longer than S\n"
    "                     seconds (default 600; 0 = never)\n"
    "  --values N         keep up to N values per tensor for the value grid (default 0),\n"
    "                     within the value budget\n"
    "  --values-budget SIZE\n"
    "                     bytes of values kept in all (8 per value; K, M, G suffixes;\n"
    "                     default 256M; 0 = no limit); past it a tensor keeps its\n"
    "                     statistics and its first 1024 values while such samples fit in\n"
    "                     a reserve of SIZE/16, then statistics only\n"
    "  --force            run even when the checklist (aotidbg check) has a FAIL row\n"
    "  --reinstrument     rebuild a private copy of the model .so with a hook around every\n"
    "                     kernel launch (from the sources the package carries) and run that;\n"
    "                     the default for a CPU package built without the printer\n"
    "  --no-reinstrument  never rebuild: a package without the printer runs as shipped\n"
    "                     (CUDA: kernel names by launch interposition; CPU: outputs only)\n"
    "  --record OUT.yaml  the session file to write\n"
    "\n"
    "Before running, the checklist of `aotidbg check` runs; its rows go into the session,\n"
    "and a FAIL row stops the run (exit 1) unless --force. The session records the mode\n"
    "(printer, reinstrument, interpose or none) and a run.mode row saying what it sees.\n"
    "Errors are routed (aotidbg route) with the runner's output and the package's code.\n"
    "\n"
    "Exit codes: 0 the model ran (or stopped at a kernel= / index= break); 1 the model\n"
    "failed, a nan/error break hit, the runner died, or a checklist row failed; 2 bad\n"
    "usage or bad input.\n";

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

#define usage_error(...) cli_usage_error("run", run_hint, __VA_ARGS__)
static const char run_hint[] = "(aotidbg run --help shows the options)\n";

static int device_ok(const char *d)
{
    if (!strcmp(d, "cpu") || !strcmp(d, "cuda"))
        return 1;
    if (strncmp(d, "cuda:", 5) || !d[5] || strlen(d + 5) > 4)
        return 0;
    return strspn(d + 5, "0123456789") == strlen(d + 5);
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "a signal";
    }
}

/* First line of text, at most max bytes, into a static buffer. */
static const char *first_line(const char *text, size_t max)
{
    static char buf[512];
    if (max >= sizeof buf)
        max = sizeof buf - 1;
    size_t n = strcspn(text, "\n");
    if (n > max)
        n = max;
    memcpy(buf, text, n);
    buf[n] = 0;
    return buf;
}

static const char *kernel_name_at(const session *s, int64_t idx)
{
    const event *e = session_kernel_event(s, idx);
    return e ? e->u.kernel.name : "?";
}

/* Scans the model's wrapper.cpp (when the package has one) for the printer
 * level and the inputs as compiled. 0 with ws filled, -1 when there is none
 * or it can't be read (the run goes on without it). */
static int scan_wrapper(package_t *pkg, package_model *m, wrapper_scan *ws)
{
    strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    int rc = -1;
    memset(ws, 0, sizeof *ws);
    if (m->wrapper_cpp_path && strbuf_read_file(&text, m->wrapper_cpp_path, WS_MAX_BYTES, &err) == 0)
        rc = 0;
    else if (m->wrapper_cpp_entry && !pkg->is_bare_so &&
             package_read_entry(pkg, m->wrapper_cpp_entry, WS_MAX_BYTES, &text, &err) == 0)
        rc = 0;
    if (rc == 0 && wrapper_scan_text(ws, text.buf, text.len, &err) < 0) {
        wrapper_scan_free(ws);
        memset(ws, 0, sizeof *ws);
        rc = -1;
    }
    strbuf_release(&text);
    strbuf_release(&err);
    return rc;
}

/* "this model takes N inputs" plus a spec to start from, from wrapper.cpp. */
static void suggest_spec(const wrapper_scan *ws)
{
    fprintf(stderr, "aotidbg run: this model takes %zu input%s; give --inputs SPEC, for example:\ninputs:\n",
            ws->ninputs, ws->ninputs == 1 ? "" : "s");
    for (size_t i = 0; i < ws->ninputs; i++) {
        const ws_input *in = &ws->inputs[i];
        fputs("  - {shape: [", stderr);
        for (int d = 0; d < in->ndim; d++) {
            int64_t v = in->dims[d];
            if (v == WS_UNKNOWN)   /* dynamic: the smallest size the model accepts, at least 2 */
                v = in->dim_min[d] != WS_UNKNOWN && in->dim_min[d] > 2 ? in->dim_min[d] : 2;
            fprintf(stderr, "%s%" PRId64, d ? ", " : "", v);
        }
        fprintf(stderr, "], dtype: %s, device: %s, fill: %s}", in->dtype ? in->dtype : "float32",
                in->device ? in->device : "cpu",
                in->dtype && (strstr(in->dtype, "int") || !strcmp(in->dtype, "bool")) ? "zeros" : "randn");
        fprintf(stderr, "   # %s%s\n", in->name ? in->name : "input",
                in->ndim < 0 ? " (rank unknown: fill in the shape)" : "");
    }
}

static const char *error_field(const error_event *e, const char *key)
{
    for (size_t i = 0; i < e->nfields; i++)
        if (!strcmp(e->fields[i].key, key))
            return e->fields[i].value;
    return NULL;
}

/* "  route: ID (input N NAME, dim D = SIZE); the steps: aotidbg route OUT" */
static void print_route(const event *err_ev, const char *out)
{
    const error_event *e = &err_ev->u.error;
    if (!e->route || !strcmp(e->route, "unknown"))
        return;
    fprintf(stderr, "  route: %s", e->route);
    const char *ii = error_field(e, "input_index"), *name = error_field(e, "input"), *dim = error_field(e, "dim"),
               *size = error_field(e, "dim_value");
    if (ii) {
        fprintf(stderr, " (input %s%s%s", ii, name ? " " : "", name ? name : "");
        if (dim)
            fprintf(stderr, ", dim %s%s%s", dim, size ? " = " : "", size ? size : "");
        fputc(')', stderr);
    }
    fprintf(stderr, "; the steps: aotidbg route %s\n", out);
}

/* "4 KiB", "256 MiB", "1536 bytes": the budget as it was most likely given. */
static void put_size(FILE *f, uint64_t n)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && n && n % 1024 == 0)
        n /= 1024, u++;
    fprintf(f, "%llu %s", (unsigned long long)n, unit[u]);
}

/* One line when the value budget cut any tensor: where it first ran out
 * and how many tensors keep only statistics and a sample. */
static void report_budget(const session *s, uint64_t budget)
{
    size_t ncut = 0;
    const event *first = NULL;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        size_t n = e->kind == EV_KERNEL ? e->u.kernel.ntensors : e->kind == EV_OUTPUT ? e->u.output.ntensors : 0;
        const tensor_rec *t = e->kind == EV_KERNEL ? e->u.kernel.tensors : e->kind == EV_OUTPUT ? e->u.output.tensors
                                                                                              : NULL;
        for (size_t j = 0; j < n; j++)
            if (t[j].values_budget_cut) {
                ncut++;
                if (!first)
                    first = e;
            }
    }
    if (!ncut)
        return;
    fputs("aotidbg: the value budget (", stderr);
    put_size(stderr, budget);
    if (first->kind == EV_KERNEL)
        fprintf(stderr, ") was used up at kernel #%" PRId64 " (%s)", first->u.kernel.index, first->u.kernel.name);
    else
        fputs(") was used up at the outputs", stderr);
    fprintf(stderr, "; %zu tensor%s keep%s statistics and a sample of %s values (--values-budget)\n", ncut,
            ncut == 1 ? "" : "s", ncut == 1 ? "s" : "", ncut == 1 ? "its" : "their");
}

/* Prints the human summary to stderr and returns the exit code. */
static int summarize(const session *s, runner_client *rc, int stopped, const char *out, int input_count_bad)
{
    int64_t nk = (int64_t)s->nkernels;
    const event *err_ev = NULL, *exit_ev = NULL;
    int has_output = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind == EV_ERROR && !err_ev)
            err_ev = e;
        else if (e->kind == EV_RUNNER_EXIT)
            exit_ev = e;
        else if (e->kind == EV_OUTPUT)
            has_output = 1;
    }
    int code;
    fprintf(stderr, "aotidbg run: %" PRId64 " kernel%s", nk, nk == 1 ? "" : "s");
    if (input_count_bad) {
        fprintf(stderr, ", not run: %s\n", err_ev ? err_ev->u.error.text : "wrong number of inputs");
        code = EXIT_USAGE;
    } else if (exit_ev && strcmp(exit_ev->u.exit.how, "killed")) {
        const runner_exit_event *x = &exit_ev->u.exit;
        int64_t last = nk ? nk - 1 : -1;
        if (!strcmp(x->how, "signal"))
            fprintf(stderr, "; the runner died by signal %d (%s)", x->signal, sig_name(x->signal));
        else if (!strcmp(x->how, "timeout"))
            fprintf(stderr, "; the runner stopped answering and was killed (timeout)");
        else if (!strcmp(x->how, "exited"))
            fprintf(stderr, "; the runner exited with code %d before the model finished", x->exit_code);
        else
            fprintf(stderr, "; the runner was lost (%s)", x->how);
        if (last >= 0)
            fprintf(stderr, " during or after kernel %" PRId64 " (%s)", last, kernel_name_at(s, last));
        fputc('\n', stderr);
        if (err_ev) {
            fprintf(stderr, "  error: %s\n", first_line(err_ev->u.error.text, 300));
            print_route(err_ev, out);
        }
        if (x->stderr_tail) {
            /* the last few lines say most about a crash */
            const char *t = x->stderr_tail, *p = t + strlen(t);
            int lines = 0;
            while (p > t && lines < 6)
                if (*--p == '\n' && p[1])
                    lines++;
            fprintf(stderr, "  runner stderr (tail):\n%s%s", p == t ? "" : "", p == t ? p : p + 1);
            if (t[strlen(t) - 1] != '\n')
                fputc('\n', stderr);
        }
        code = EXIT_FAILED;
    } else if (stopped) {
        int reason = runner_client_stop_reason(rc);
        int64_t k = runner_client_current_kernel(rc);
        static const char *const why[] = {"after a step", "at the index break", "at the kernel break",
                                          "at the first NaN/Inf", "at the first error", "at the start"};
        fprintf(stderr, "; stopped %s, kernel %" PRId64 " (%s)\n",
                reason >= 0 && reason <= PROTO_STOP_START ? why[reason] : "at a break", k, kernel_name_at(s, k));
        if (err_ev) {
            fprintf(stderr, "  error: %s\n", first_line(err_ev->u.error.text, 300));
            print_route(err_ev, out);
        }
        code = reason == PROTO_STOP_NAN || reason == PROTO_STOP_ERROR || err_ev ? EXIT_FAILED : EXIT_OK;
    } else if (runner_client_done_status(rc) == 0 && !err_ev) {
        fprintf(stderr, "; the model ran to the end%s\n", has_output ? " (outputs recorded)" : "");
        code = EXIT_OK;
    } else {
        fprintf(stderr, "; the model failed\n");
        if (err_ev) {
            fprintf(stderr, "  error: %s", first_line(err_ev->u.error.text, 300));
            if (err_ev->u.error.kernel_index >= 0)
                fprintf(stderr, " (kernel %" PRId64 ", %s)", err_ev->u.error.kernel_index,
                        kernel_name_at(s, err_ev->u.error.kernel_index));
            fputc('\n', stderr);
            print_route(err_ev, out);
        }
        code = EXIT_FAILED;
    }
    fprintf(stderr, "  session: %s\n", out);
    return code;
}

/* ---- mode: how kernel boundaries are seen (issue 10) ---------------------- */

enum { REINSTR_AUTO = 0, REINSTR_FORCE, REINSTR_OFF };

static void reinstrument_progress(const char *stage, double fraction, void *ctx)
{
    const char **last = ctx;
    if (*last && !strcmp(*last, stage))
        return;    /* one line per stage */
    *last = stage;
    fprintf(stderr, "aotidbg run: re-instrumenting: %s (%.0f%%)\n", stage, fraction * 100.0);
}

/* Appends one INFO row to s->checks (arena arrays have no spare room: copy). */
static void add_check_row(session *s, const char *id, const char *subject, const char *got, const char *source,
                          const char *fix)
{
    check_row *rows = arena_alloc(&s->arena, (s->nchecks + 1) * sizeof *rows);
    if (s->nchecks)
        memcpy(rows, s->checks, s->nchecks * sizeof *rows);
    check_row *r = &rows[s->nchecks];
    memset(r, 0, sizeof *r);
    r->id = arena_strdup(&s->arena, id);
    r->status = CHECK_INFO;
    r->subject = arena_strdup(&s->arena, subject);
    r->got = got ? arena_strdup(&s->arena, got) : NULL;
    r->source = source ? arena_strdup(&s->arena, source) : NULL;
    r->fix = fix ? arena_strdup(&s->arena, fix) : NULL;
    s->checks = rows;
    s->nchecks++;
}

/* The run.mode row: what the chosen mode can and cannot see. */
static void add_mode_row(session *s, const char *why)
{
    const char *m = s->mode, *subject, *fix = NULL;
    if (!strcmp(m, "printer"))
        subject = "run mode: the printer compiled into the package reports every kernel it instruments (Triton, "
                  "C++ and extern ops) with its tensors before and after; it cannot see custom ops through the "
                  "proxy executor, scatter/index_put fallbacks or device copies";
    else if (!strcmp(m, "reinstrument"))
        subject = "run mode: a private copy of the model .so, rebuilt from the package's own sources with a hook "
                  "around every kernel launch, reports each kernel with its tensors before and after; what runs is "
                  "that copy (this machine's compiler and torch), not the shipped .so";
    else if (!strcmp(m, "interpose"))
        subject = "run mode: launch interposition (cuLaunchKernel) names every Triton kernel in launch order and, "
                  "in blocking mode, the one that fails; it sees no tensor values and no C++ or extern ops";
    else
        subject = "run mode: no kernel boundaries are seen (the package has no printer and was not re-instrumented); "
                  "only the outputs and errors are recorded";
    if (!strcmp(m, "interpose"))
        fix = "aotidbg run --reinstrument rebuilds a copy with tensor hooks, for the values";
    else if (!strcmp(m, "none"))
        fix = "drop --no-reinstrument, or rebuild with inductor_configs={\"aot_inductor.debug_intermediate_value_"
              "printer\": \"1\"}";
    add_check_row(s, "run.mode", subject, m, why, fix);
}

/* Picks the mode from the compiled-in printer level and the device, and for
 * "reinstrument" builds (or finds in the cache) the rebuilt copy: *so_out is
 * then a malloc'd path the caller frees. A failed rebuild is said on stderr
 * and falls back to what the shipped .so can give. */
static void choose_mode(session *s, package_t *pkg, package_model *m, const char *pkg_path, const char *device,
                        int have_ws, int reinstr, char **so_out, strbuf *why)
{
    int is_cuda = !strncmp(device, "cuda", 4);
    int level = have_ws ? s->printer_level : -1;
    *so_out = NULL;
    if (!have_ws) {
        s->mode = "printer";
        strbuf_addstr(why, "no wrapper.cpp: printer level unknown; kernels appear only if the .so was built "
                           "with the printer");
        return;
    }
    strbuf_addf(why, "wrapper.cpp: printer level %d", level);
    if ((level == 1 || level == 2) && reinstr != REINSTR_FORCE) {
        s->mode = "printer";
        return;
    }
    if (reinstr == REINSTR_FORCE || (reinstr == REINSTR_AUTO && !is_cuda)) {
        if (level == 1 || level == 2) {
            fprintf(stderr, "aotidbg run: note: --reinstrument ignored: %s already has the printer at level %d\n",
                    pkg_path, level);
            s->mode = "printer";
            return;
        }
        fprintf(stderr, "aotidbg run: %s was built without the intermediate-value printer; re-instrumenting a "
                "private copy (the package is not modified; later runs hit the cache)\n", pkg_path);
        strbuf err = STRBUF_INIT;
        const char *last = NULL;
        char *so = NULL;
        const char *sha = package_sha256(pkg, &err);   /* the rebuild cache's key */
        if (sha && reinstrument_build(m->model_dir, sha, reinstrument_progress, &last, &so, &err) == 0) {
            *so_out = so;
            s->mode = "reinstrument";
            strbuf_addf(why, "; rebuilt copy %s", so);
            session_add_note(s, arena_printf(&s->arena, "re-instrumented copy of the model .so: %s", so));
            strbuf_release(&err);
            return;
        }
        fprintf(stderr, "aotidbg run: re-instrumenting failed: %s\n", err.buf);
        session_add_note(s, arena_printf(&s->arena, "re-instrumenting failed: %s", err.buf));
        strbuf_addstr(why, "; re-instrumenting failed");
        strbuf_release(&err);
    }
    if (is_cuda) {
        s->mode = "interpose";
        fprintf(stderr, "aotidbg run: note: %s has no printer: kernels are seen by launch interposition (names, "
                "no tensor values); --reinstrument rebuilds a copy with tensor hooks\n", pkg_path);
    } else {
        s->mode = "none";
        fprintf(stderr, "aotidbg run: note: %s has no printer and was not re-instrumented, so no kernels will be "
                "reported; rebuild with inductor_configs={\"aot_inductor.debug_intermediate_value_printer\": \"1\"}"
                "%s\n", pkg_path, reinstr == REINSTR_OFF ? " or drop --no-reinstrument" : "");
    }
}

int cmd_run(int argc, char **argv)
{
    const char *pkg_path = NULL, *spec = NULL, *device = NULL, *record = NULL, *break_kernel = NULL;
    int break_flags = 0, deterministic = 0, blocking = 0, force = 0, reinstr = REINSTR_AUTO;
    int64_t break_index = -1;
    double timeout_s = 600;
    size_t max_values = 0;
    uint64_t values_budget = VALUES_BUDGET_DEFAULT;
    const char *val = NULL; /* --break-on, --timeout, --values, --values-budget: checked as they come */
    enum { O_INPUTS, O_DEVICE, O_RECORD, O_BREAK, O_TIMEOUT, O_VALUES, O_BUDGET };
    const cli_opt opts[] = {[O_INPUTS] = {"--inputs", &spec},   [O_DEVICE] = {"--device", &device},
                            [O_RECORD] = {"--record", &record}, [O_BREAK] = {"--break-on", &val},
                            [O_TIMEOUT] = {"--timeout", &val},  [O_VALUES] = {"--values", &val},
                            [O_BUDGET] = {"--values-budget", &val}};
    const cli_spec sp = {"run", run_usage, run_hint, opts, (int)(sizeof opts / sizeof *opts)};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--deterministic")) {
            deterministic = 1;
            continue;
        }
        if (!strcmp(a, "--blocking")) {
            blocking = 1;
            continue;
        }
        if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        }
        if (!strcmp(a, "--reinstrument") || !strcmp(a, "--no-reinstrument")) {
            reinstr = a[2] == 'n' ? REINSTR_OFF : REINSTR_FORCE;
            continue;
        }
        int k = cli_next(&sp, argc, argv, &i);
        if (k == CLI_HELP || k == CLI_ERR)
            return k == CLI_HELP ? EXIT_OK : EXIT_USAGE;
        if (k == O_INPUTS || k == O_DEVICE || k == O_RECORD)
            continue;
        if (k == O_BREAK) {
            if (!strcmp(val, "error"))
                break_flags |= BREAK_ON_ERROR;
            else if (!strcmp(val, "nan"))
                break_flags |= BREAK_ON_NAN;
            else if (!strncmp(val, "kernel=", 7) && val[7])
                break_kernel = val + 7;
            else if (!strncmp(val, "index=", 6) && val[6]) {
                char *end;
                errno = 0;
                long long n = strtoll(val + 6, &end, 10);
                if (errno || *end || n < 0)
                    return usage_error("--break-on index=N needs a non-negative integer, got '%s'", val);
                break_index = n;
            } else
                return usage_error("--break-on takes error, nan, kernel=NAME or index=N, not '%s'", val);
        } else if (k == O_TIMEOUT) {
            char *end;
            double t = strtod(val, &end);
            if (*end || end == val || !(t >= 0) || t > 1e7)
                return usage_error("--timeout needs seconds (0 = never), got '%s'", val);
            timeout_s = t;
        } else if (k == O_VALUES) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(val, &end, 10);
            if (errno || *end || end == val || val[0] == '-' || n > PROTO_MAX_VALUES)
                return usage_error("--values needs a count from 0 to 4194304, got '%s'", val);
            max_values = (size_t)n;
        } else if (k == O_BUDGET) {
            if (cli_parse_size(val, &values_budget) < 0)
                return usage_error("--values-budget needs a size in bytes with an optional K, M or G suffix "
                                   "(256M; 0 = no limit), got '%s'", val);
        } else if (!pkg_path) {
            pkg_path = a;
        } else {
            return usage_error("one package only; '%s' is extra", a);
        }
    }
    if (!pkg_path)
        return usage_error("%s", "which package? aotidbg run PKG --record OUT.yaml");
    if (!record)
        return usage_error("%s", "--record OUT.yaml is required: it is where the session goes");
    if (device && !device_ok(device))
        return usage_error("--device takes cpu, cuda or cuda:N, not '%s'", device);

    int code = EXIT_USAGE;
    strbuf err = STRBUF_INIT;
    session *s = session_new();
    package_t *pkg = NULL;
    runner_client *rc = NULL;
    session_writer *w = NULL;
    char *rebuilt_so = NULL;

    if (spec && inputs_load(s, spec, &err) < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    if (package_open(&pkg, pkg_path, &err) < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    package_model *m = package_find_model(pkg, NULL, &err);
    if (!m) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    if (pkg->is_bare_so) {
        if (!device) {
            fprintf(stderr, "aotidbg run: %s is a bare model .so, which records no device: give --device cpu|cuda\n",
                    pkg_path);
            goto out;
        }
        const char *note = "bare model .so (torch._export.aot_compile, deprecated): cubins are looked up beside "
                           "it; the current API, torch._inductor.aoti_compile_and_package / aoti_load_package, "
                           "records the device in the package";
        fprintf(stderr, "aotidbg run: note: %s is a %s\n", pkg_path, note);
        session_add_note(s, note);
    } else if (!device) {
        device = m->device_key;
        if (!device || !device_ok(device)) {
            fprintf(stderr, "aotidbg run: %s does not say which device it was compiled for%s%s%s; give --device\n",
                    pkg_path, device ? " (AOTI_DEVICE_KEY '" : "", device ? device : "", device ? "')" : "");
            goto out;
        }
    }
    if (!m->so_entry) {
        fprintf(stderr, "aotidbg run: %s: model '%s' has no .wrapper.so; rebuild the package with "
                "aoti_compile_and_package\n", pkg_path, m->name);
        goto out;
    }
    if (package_extract(pkg, m, &err) < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    wrapper_scan ws;
    int have_ws = scan_wrapper(pkg, m, &ws) == 0;
    if (have_ws) {
        s->printer_level = ws.printer_level;
        if (!spec && ws.ninputs > 0) {
            suggest_spec(&ws);
            wrapper_scan_free(&ws);
            goto out;
        }
        wrapper_scan_free(&ws);
    }
    s->tool_version = AOTIDBG_VERSION;
    package_to_session(pkg, m, s);
    package_sha256_to_session(pkg, s);   /* i16: moves off the load path with the run service */
    s->device = arena_strdup(&s->arena, device);
    if (max_values)   /* the budget matters only when values are kept */
        s->values_budget = values_budget;
    char host[256];
    if (gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = 0;
        s->host = arena_strdup(&s->arena, host);
    }

    /* The checklist first: its rows go into the session either way. */
    checklist_opts co = {.device = device, .inputs = spec ? s->inputs : NULL, .ninputs = spec ? s->ninputs : 0};
    strbuf why = STRBUF_INIT;
    if (checklist_gate(pkg, &co, s, &why) && !force) {
        fprintf(stderr, "aotidbg run: the checklist fails, so the model was not run:\n%s"
                "(aotidbg check %s shows every row; --force runs anyway)\n", why.buf, pkg_path);
        event *e = session_add_event(s, EV_ERROR);
        e->u.error.text = arena_printf(&s->arena, "checklist failed; not run:\n%s", why.buf);
        strbuf_release(&why);
        if (session_save(s, record, &err) < 0)
            fprintf(stderr, "aotidbg run: cannot record the session: %s\n", err.buf);
        code = EXIT_FAILED;
        goto out;
    }
    if (why.len)
        fprintf(stderr, "aotidbg run: --force: running despite the checklist:\n%s", why.buf);
    strbuf_reset(&why);
    choose_mode(s, pkg, m, pkg_path, device, have_ws, reinstr, &rebuilt_so, &why);
    add_mode_row(s, why.buf);
    strbuf_release(&why);

    runner_options o = {
        .so_path = rebuilt_so ? rebuilt_so : m->so_path, .cubin_dir = m->model_dir, .device = device,
        .blocking = blocking, .deterministic = deterministic, .timeout_s = timeout_s, .break_flags = break_flags,
        .break_kernel = break_kernel, .break_index = break_index, .max_values = max_values,
        .values_budget = values_budget,
        .trace_source = package_trace_source(pkg, m),
    };
    if (runner_client_start(&rc, &o, s, &err) < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    if (session_writer_open(&w, record, s, &err) < 0) {
        fprintf(stderr, "aotidbg run: cannot record the session: %s\n", err.buf);
        goto out;
    }

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int stopped = 0, write_failed = 0;
    for (;;) {
        strbuf_reset(&err);
        runner_client_pump(rc, 100, &err);
        if (!write_failed && session_writer_sync(w, &err) < 0) {
            fprintf(stderr, "aotidbg run: writing %s failed: %s\n", record, err.buf);
            write_failed = 1;
        }
        runner_state st = runner_client_state(rc);
        if (interrupted) {
            fprintf(stderr, "aotidbg run: interrupted; killing the runner\n");
            runner_client_free(rc);   /* kills and reaps */
            rc = NULL;
            event *e = session_add_event(s, EV_RUNNER_EXIT);
            e->u.exit.how = "killed";
            break;
        }
        if (st == RUNNER_STOPPED) {
            stopped = 1;
            runner_client_quit(rc, 3000);
            break;
        }
        if (st == RUNNER_DEAD || runner_client_pid(rc) < 0)
            break;
        if (st == RUNNER_FINISHED) {
            /* The runner leaves after DONE; wait for it so a crash at teardown is seen too. */
            runner_client_quit(rc, 3000);
            break;
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    strbuf_reset(&err);
    if (session_writer_finish(w, &err) < 0) {
        fprintf(stderr, "aotidbg run: writing %s failed: %s\n", record, err.buf);
        write_failed = 1;
    }
    w = NULL;
    if (interrupted) {
        fprintf(stderr, "aotidbg run: stopped by %s; session: %s\n", sig_name(interrupted), record);
        code = EXIT_FAILED;
    } else {
        int64_t want = runner_client_model_inputs(rc);
        int count_bad = want >= 0 && (size_t)want != s->ninputs;
        if (count_bad && !spec)
            fprintf(stderr, "aotidbg run: this model takes %" PRId64 " input%s; give --inputs SPEC "
                    "(inputs: [{shape, dtype, device, fill}], see aotidbg run --help)\n", want, want == 1 ? "" : "s");
        code = summarize(s, rc, stopped, record, count_bad);
    }
    report_budget(s, values_budget);
    if (write_failed && code == EXIT_OK)
        code = EXIT_FAILED;
out:
    if (w)
        session_writer_close(w);
    runner_client_free(rc);
    free(rebuilt_so);
    package_close(pkg);
    session_free(s);
    strbuf_release(&err);
    return code;
}
