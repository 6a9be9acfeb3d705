/* cmd_repro.c — `aotidbg repro`: one kernel launch, standalone (cmd_repro.h). */
#define _GNU_SOURCE
#include "cmd_repro.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "compat.h"
#include "model.h"
#include "package.h"
#include "package_sources.h"
#include "protocol.h"
#include "reinstrument.h"
#include "repro_gen.h"
#include "run_options.h"
#include "run_service.h"
#include "wrapper_scan.h"

#define R(f) offsetof(repro_options, f)
const opt_spec repro_option_specs[] = {
    {"--kernel", "N|NAME[@K]", "the launch to capture: N, its number in the run (from 0, as aotidbg run\n"
     "records it), or NAME, the kernel's first launch, NAME@K its launch K (from 0: the\n"
     "iteration of a while_loop body, the K-th call of an extern op)", R(kernel), NULL, 0, 0},
    {"-o", "DIR", "the repro folder to write (must not exist, or be empty)", R(out), NULL, 0, 0},
    {NULL},
};

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

static void say_repro(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "aotidbg repro: %s\n", text);
}

/* N, NAME or NAME@K. */
static int parse_spec(const char *spec, int64_t *index, char *name, size_t cap, uint32_t *occ)
{
    *index = -1;
    *occ = 0;
    if (!*spec) return -1;
    if (strspn(spec, "0123456789") == strlen(spec)) {
        *index = strtoll(spec, NULL, 10);
        return 0;
    }
    const char *at = strrchr(spec, '@');
    size_t n = at ? (size_t)(at - spec) : strlen(spec);
    if (!n || n >= cap) return -1;
    if (at) {
        if (!at[1] || strspn(at + 1, "0123456789") != strlen(at + 1) || strlen(at + 1) > 9) return -1;
        *occ = (uint32_t)strtoul(at + 1, NULL, 10);
    }
    memcpy(name, spec, n);
    name[n] = 0;
    return 0;
}

/* DIR made (or empty), its absolute path into abs. */
static int make_dir(const char *dir, char *abs, strbuf *err)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        strbuf_addf(err, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        strbuf_addf(err, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int busy = 0;
    for (struct dirent *e; (e = readdir(d)) && !busy;)
        busy = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    if (busy) {
        strbuf_addf(err, "%s is not empty: give a new folder (a repro never writes over files)", dir);
        return -1;
    }
    if (!realpath(dir, abs)) {
        strbuf_addf(err, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes what a refused repro wrote in dir (the run's session stays). */
static void remove_written(const char *dir)
{
    static const char *const subs[] = {"in", "expected", "out"};
    static const char *const files[] = {"capture.txt", "capture.txt.tmp", "launch.txt", "repro.h", "repro_cuda.h",
                                        "main.cpp", "kernel.cpp", "kernel.cubin", "kernel.py", "CMakeLists.txt",
                                        "README"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, subs[i]);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));)
            if (ends_with(e->d_name, ".npy")) {
                char f[PATH_MAX + 256];
                snprintf(f, sizeof f, "%s/%s", path, e->d_name);
                unlink(f);
            }
        if (d) closedir(d);
        rmdir(path);
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
}

/* The error the run blamed on kernel index (else the run's first), or NULL. */
static const char *kernel_error(const session *s, int64_t index)
{
    const char *any = NULL;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind != EV_ERROR) continue;
        if (e->u.error.kernel_index == index) return e->u.error.text;
        if (!any) any = e->u.error.text;
    }
    return any;
}

/* Which call site in wrapper.cpp the captured launch is: its place among the
 * run's launches of that name, within the sites there are. */
static int64_t call_site(const session *s, const repro_capture *c, const char *wrapper)
{
    int64_t before = 0;
    for (size_t i = 0; i < s->nkernels; i++) {
        const kernel_event *k = &s->kernels[i]->u.kernel;
        if (k->index < c->index && !strcmp(k->name, c->name)) before++;
    }
    int64_t sites = repro_call_count(wrapper, c->name);
    return sites > 0 ? before % sites : 0;
}

/* The cubin the package carries for kernel name (Triton), into out. */
static int read_cubin(const char *pkg_path, const char *model, const char *wrapper, const char *name, strbuf *out,
                      strbuf *err)
{
    wrapper_scan ws;
    const char *file = NULL;
    if (!wrapper_scan_text(&ws, wrapper, strlen(wrapper), err))
        for (size_t i = 0; i < ws.ncubins && !file; i++)
            if (ws.cubins[i].kernel && !strcmp(ws.cubins[i].kernel, name)) file = ws.cubins[i].file;
    package_t *p = NULL;
    int rc = -1;
    if (!file) strbuf_addf(err, "wrapper.cpp loads no cubin for %s", name);
    else if (!package_open(&p, pkg_path, err)) {
        package_model *m = package_find_model(p, model, err);
        for (size_t i = 0; m && i < m->ncubins && rc; i++) {
            const char *slash = strrchr(m->cubin_entries[i], '/');
            if (!strcmp(slash ? slash + 1 : m->cubin_entries[i], file))
                rc = package_read_entry(p, m->cubin_entries[i], 1u << 30, out, err);
        }
        if (rc && !err->len) strbuf_addf(err, "the package carries no %s (the cubin of %s)", file, name);
    }
    if (p) package_close(p);
    wrapper_scan_free(&ws);
    return rc;
}

/* After the run: the folder from the capture, or why not (-1 + err). */
static int make_repro(const run_options *o, const char *kernel, const char *dir, const session *s,
                      const package_sources *src, strbuf *summary, strbuf *err)
{
    repro_capture c;
    if (repro_capture_read(dir, &c, err)) {
        strbuf_reset(err);
        strbuf_addf(err, "the runner wrote no capture (it ended before the run; see %s/session.yaml)", dir);
        return -1;
    }
    int rc = -1;
    strbuf cubin = STRBUF_INIT;
    if (c.index < 0) {
        strbuf_addf(err, "no launch %s in this run (%" PRId64 " kernel launch%s; `aotidbg run PKG --record S.yaml` "
                    "lists them)", kernel, c.kernels, c.kernels == 1 ? "" : "es");
        goto out;
    }
    const event *ev = session_kernel_event(s, c.index);
    kernel_type kt = ev ? ev->u.kernel.type : kernel_type_guess(c.name);
    if (kt == KTYPE_UNKNOWN) kt = kernel_type_guess(c.name);
    repro_job j = {
        .dir = dir, .package = o->package, .kernel_spec = kernel, .type = kernel_type_name(kt),
        .wrapper = src->wrapper.buf, .kernel_cpp = src->kernel.buf, .call = call_site(s, &c, src->wrapper.buf),
        .error_text = !strcmp(c.status, "error") ? kernel_error(s, c.index) : NULL,
        .torch_root = reinstrument_torch_root(),
    };
    if (kt == KTYPE_UNKNOWN) {
        strbuf_addf(err, "%s: a kernel of a kind aotidbg cannot tell (not cpp_*, triton_* or an aoti_torch_* call)",
                    c.name);
        goto out;
    }
    if (kt == KTYPE_EXTERN && starts_with(c.name, "aoti_torch_cuda_")) {
        strbuf_addstr(err, "an extern call on CUDA: its launcher would need libtorch's CUDA build and device "
                      "tensors, which repro does not write yet (CPU extern calls and Triton kernels it does)");
        goto out;
    }
    if (kt == KTYPE_TRITON) {
        if (read_cubin(o->package, o->model, src->wrapper.buf, c.name, &cubin, err)) goto out;
        j.cubin = cubin.buf;
        j.ncubin = cubin.len;
    } else if (!j.torch_root) {
        strbuf_addstr(err, "no torch install with the AOTI headers here (set TORCH_DIR): the kernel's code includes them");
        goto out;
    }
    if (repro_write(&j, &c, err)) goto out;
    strbuf_addf(summary, "%s (%s, launch %" PRId64 "%s%s%s, status %s)", c.name, j.type, c.index,
                *c.branch ? " in " : "", c.branch, "", *c.status ? c.status : "?");
    rc = 0;
out:
    if (rc && c.name) {
        strbuf why = STRBUF_INIT;
        strbuf_addf(&why, "cannot make a repro of %s (launch %" PRId64 "): %s", c.name, c.index, err->buf);
        strbuf_reset(err);
        strbuf_addstr(err, why.buf);
        strbuf_release(&why);
    }
    strbuf_release(&cubin);
    repro_capture_release(&c);
    return rc;
}

struct repro_run {
    run_options o;             /* the run's options: record, capture and blocking set */
    run_say sayv;              /* a copy of the caller's: the run service keeps a pointer to it */
    const run_say *say;        /* &sayv, or NULL */
    char *kernel;              /* the --kernel spec, as given */
    char name[512];            /* its NAME without @K (a spec by name) */
    char dir[PATH_MAX], *record;
    strbuf constants;          /* o.capture's constants */
    proto_msg cap;             /* o.capture */
    package_sources src;
    session *s;
    run_service *rs;
};

/* Saves the session (run_service_finish) and frees everything r holds. */
static void run_free(repro_run *r)
{
    if (r->rs) {
        strbuf ferr = STRBUF_INIT;
        if (run_service_finish(r->rs, &ferr) < 0 && r->say && r->say->say) r->say->say(r->say->ctx, ferr.buf);
        strbuf_release(&ferr);
    }
    run_service_free(r->rs);
    session_free(r->s);
    package_sources_release(&r->src);
    strbuf_release(&r->constants);
    free(r->record);
    free(r->kernel);
    free(r);
}

int repro_run_start(repro_run **out, const run_options *given, const char *kernel, const char *dir,
                    const run_say *say, strbuf *err)
{
    *out = NULL;
    int64_t index;
    uint32_t occ;
    char name[512];
    if (parse_spec(kernel, &index, name, sizeof name, &occ)) {
        strbuf_addf(err, "--kernel takes N, NAME or NAME@K (K a launch number from 0), not '%s'", kernel);
        return EXIT_USAGE;
    }
    repro_run *r = xcalloc(1, sizeof *r);
    r->kernel = xstrdup(kernel);
    if (say) r->sayv = *say;
    r->say = say ? &r->sayv : NULL;
    say = r->say;
    r->constants = (strbuf)STRBUF_INIT;
    r->src = (package_sources)PACKAGE_SOURCES_INIT;
    memcpy(r->name, name, sizeof r->name);
    if (package_sources_read(given->package, given->model, 256u << 20, &r->src, err) || make_dir(dir, r->dir, err)) {
        run_free(r);
        return EXIT_USAGE;
    }
    /* the weights the kernel's call reads: the runner writes them too */
    if (index < 0) repro_call_constants(r->src.wrapper.buf, r->name, occ, &r->constants);
    else repro_launch_constants(r->src.wrapper.buf, index, &r->constants);
    if (asprintf(&r->record, "%s/session.yaml", r->dir) < 0) {
        r->record = NULL;
        run_free(r);
        strbuf_addstr(err, "out of memory");
        return EXIT_FAILED;
    }
    r->cap = (proto_msg){.type = PROTO_CAPTURE};
    r->cap.u.capture.dir = r->dir;
    r->cap.u.capture.index = index;
    r->cap.u.capture.kernel = index < 0 ? r->name : "";
    r->cap.u.capture.occurrence = occ;
    r->cap.u.capture.constants = r->constants.buf;
    r->o = *given;
    r->o.record = r->record;
    r->o.capture = &r->cap;
    r->o.blocking = 1;   /* a CUDA error is then the launch's own, caught right after it */
    r->s = session_new();
    if (say && say->say) {
        strbuf line = STRBUF_INIT;
        strbuf_addf(&line, "running %s to launch %s (its own runner; the session goes to %s)", r->o.package, kernel,
                    r->record);
        say->say(say->ctx, line.buf);
        strbuf_release(&line);
    }
    int opened = run_service_open(&r->rs, &r->o, RUN_OPT_RUN, r->s, say, err);
    if (opened < 0 || opened == RUN_OPEN_GATED) {
        if (opened == RUN_OPEN_GATED)
            strbuf_addf(err, "the checklist fails, so the model was not run:\n%s(--force runs anyway)",
                        run_service_gate_reason(r->rs));
        run_free(r);
        return opened < 0 ? EXIT_USAGE : EXIT_FAILED;
    }
    *out = r;
    return EXIT_OK;
}

int repro_run_pump(repro_run *r, int timeout_ms)
{
    strbuf err = STRBUF_INIT;
    int ch = run_service_pump(r->rs, timeout_ms, &err);
    if ((ch & (RUN_WRITE_ERROR | RUN_PUMP_ERROR)) && r->say && r->say->say) r->say->say(r->say->ctx, err.buf);
    strbuf_release(&err);
    runner_state st = run_service_state(r->rs);
    return st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD || !run_service_alive(r->rs);
}

int repro_run_fd(const repro_run *r) { return run_service_has_runner(r->rs) ? run_service_fd(r->rs) : -1; }
size_t repro_run_kernels(const repro_run *r) { return r->s->nkernels; }
const char *repro_run_dir(const repro_run *r) { return r->dir; }

int repro_run_finish(repro_run *r, strbuf *done, strbuf *err)
{
    strbuf summary = STRBUF_INIT;
    int code;
    if (make_repro(&r->o, r->kernel, r->dir, r->s, &r->src, &summary, err) < 0) {
        remove_written(r->dir);
        code = EXIT_USAGE;
    } else {
        r->s->repro = arena_strdup(&r->s->arena, r->dir);
        const char *d = r->dir;
        strbuf_addf(done, "repro of %s written to %s\nrun it: cmake -S %s -B %s/build && cmake --build %s/build && "
                    "%s/build/repro", summary.buf, d, d, d, d, d);
        code = EXIT_OK;
    }
    strbuf_release(&summary);
    run_free(r);
    return code;
}

void repro_run_cancel(repro_run *r)
{
    if (!r) return;
    run_service_kill(r->rs, "killed");
    remove_written(r->dir);
    run_free(r);
}

/* The repro in one call, for the command: start, pump until it ends (^C or
 * SIGTERM cancels it), finish. */
static int repro_make(const run_options *given, const char *kernel, const char *out, const run_say *say,
                      strbuf *done, strbuf *err)
{
    repro_run *r;
    int code = repro_run_start(&r, given, kernel, out, say, err);
    if (!r) return code;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    while (!interrupted && !repro_run_pump(r, 100)) {}
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (interrupted) {
        repro_run_cancel(r);
        strbuf_addstr(err, "interrupted; no repro made");
        return EXIT_FAILED;
    }
    return repro_run_finish(r, done, err);
}

int cmd_repro(const cli_args *a)
{
    const command *cmd = a->cmd;
    if (!a->repro.kernel) return cli_usage_error(cmd, "%s", "--kernel N|NAME[@K] is required: the launch to capture");
    if (!a->repro.out) return cli_usage_error(cmd, "%s", "-o DIR is required: where the repro goes");
    int64_t index;
    uint32_t occ;
    char name[512];
    if (parse_spec(a->repro.kernel, &index, name, sizeof name, &occ))
        return cli_usage_error(cmd, "--kernel takes N, NAME or NAME@K (K a launch number from 0), not '%s'",
                               a->repro.kernel);
    run_options o = a->run;
    o.package = a->pos[0];
    run_say sayer = {say_repro, NULL};
    strbuf done = STRBUF_INIT, err = STRBUF_INIT;
    int code = repro_make(&o, a->repro.kernel, a->repro.out, &sayer, &done, &err);
    if (code == EXIT_OK)
        printf("%s\n", done.buf);
    else
        fprintf(stderr, "aotidbg repro: %s\n", err.buf);
    strbuf_release(&done);
    strbuf_release(&err);
    return code;
}
