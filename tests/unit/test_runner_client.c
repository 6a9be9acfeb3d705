/* test_runner_client.c — the runner client driving the real aotidbg-runner on
 * a real AOTI package (tests/models/model_core.py: mlp_ln, 4 kernels):
 * stepping, run to index / name, restart, a runner killed while stopped, and
 * a runner that cannot start. The package comes from the shared model cache
 * ($AOTIDBG_MODELS_DIR, else build/test-models), built with torch on first use. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "inputs.h"
#include "package.h"
#include "protocol.h"
#include "runner_client.h"

static char pkg_path[1024];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Pumps until the runner stops, finishes or dies (or 60 s pass). */
static runner_state settle(runner_client *rc)
{
    double t0 = now_s();
    strbuf err = STRBUF_INIT;
    while (now_s() - t0 < 60) {
        runner_state st = runner_client_state(rc);
        if (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD)
            break;
        strbuf_reset(&err);
        if (runner_client_pump(rc, 100, &err) < 0)
            fprintf(stderr, "pump: %s\n", err.buf);
    }
    strbuf_release(&err);
    return runner_client_state(rc);
}

/* Pumps until the state is `want` (or 30 s pass). */
static runner_state wait_state(runner_client *rc, runner_state want)
{
    double t0 = now_s();
    strbuf err = STRBUF_INIT;
    while (runner_client_state(rc) != want && now_s() - t0 < 30) {
        strbuf_reset(&err);
        runner_client_pump(rc, 100, &err);
    }
    strbuf_release(&err);
    return runner_client_state(rc);
}

/* Pumps until the child is gone (after DONE the runner exits by itself). */
static void drain(runner_client *rc)
{
    double t0 = now_s();
    strbuf err = STRBUF_INIT;
    while (runner_client_pid(rc) > 0 && now_s() - t0 < 30) {
        strbuf_reset(&err);
        runner_client_pump(rc, 100, &err);
    }
    strbuf_release(&err);
}

static int count_kind(const session *s, event_kind k)
{
    int n = 0;
    for (size_t i = 0; i < s->nevents; i++)
        n += s->events[i]->kind == k;
    return n;
}

typedef struct { package_t *p; package_model *m; session *s; } fixture;

static int setup(fixture *f)
{
    strbuf err = STRBUF_INIT;
    memset(f, 0, sizeof *f);
    if (package_open(&f->p, pkg_path, &err) < 0 || !(f->m = package_find_model(f->p, NULL, &err)) ||
        package_extract(f->p, f->m, &err) < 0) {
        fprintf(stderr, "package: %s\n", err.buf);
        strbuf_release(&err);
        return -1;
    }
    f->s = session_new();
    static const char spec[] = "inputs:\n  - {shape: [6, 16], dtype: float32, fill: randn, seed: 1}\n"
                               "  - {shape: [3], dtype: int64, fill: arange}\n";
    if (inputs_parse(f->s, "spec.yaml", spec, strlen(spec), &err) < 0) {
        fprintf(stderr, "spec: %s\n", err.buf);
        strbuf_release(&err);
        return -1;
    }
    strbuf_release(&err);
    return 0;
}

static void teardown(fixture *f)
{
    session_free(f->s);
    package_close(f->p);
}

static runner_client *start(fixture *f, int flags, const char *runner, strbuf *err)
{
    runner_options o = {.so_path = f->m->so_path, .cubin_dir = f->m->model_dir, .device = "cpu",
                        .runner_path = runner, .timeout_s = 60, .break_flags = flags, .break_index = -1,
                        .max_values = 16};
    runner_client *rc = NULL;
    if (runner_client_start(&rc, &o, f->s, err) < 0)
        return NULL;
    return rc;
}

/* The runner started under a wrapping command (as --memcheck starts it under compute-sanitizer:
 * here /usr/bin/env, which execs it with the same fds) with the ALLOC flag: the protocol passes
 * through, the runner's own pid is known apart from the child's, every kernel tensor says where
 * its elements sit. */
static void test_wrapped_runner_with_alloc(void)
{
    fixture f;
    if (setup(&f) < 0) {
        CHECK(0);
        return;
    }
    static const char *const wrap[] = {"/usr/bin/env", "AOTIDBG_WRAPPED=1", NULL};
    runner_options o = {.so_path = f.m->so_path, .cubin_dir = f.m->model_dir, .device = "cpu", .timeout_s = 60,
                        .break_index = -1, .max_values = 16, .wrap = wrap, .alloc = 1};
    runner_client *rc = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(runner_client_start(&rc, &o, f.s, &err) == 0);
    if (!rc) {
        fprintf(stderr, "start: %s\n", err.buf);
        strbuf_release(&err);
        teardown(&f);
        return;
    }
    CHECK(settle(rc) == RUNNER_FINISHED);
    CHECK(runner_client_done_status(rc) == 0);
    size_t tensors = 0, with_alloc = 0;
    for (size_t i = 0; i < f.s->nkernels; i++) {
        const kernel_event *k = &f.s->kernels[i]->u.kernel;
        for (size_t j = 0; j < k->ntensors; j++) {
            tensors++;
            with_alloc += k->tensors[j].has_alloc && k->tensors[j].alloc.base <= k->tensors[j].alloc.data &&
                          k->tensors[j].alloc.bytes > 0;
        }
    }
    CHECK(tensors > 0 && with_alloc == tensors);
    runner_client_free(rc);
    strbuf_release(&err);
    teardown(&f);
}

static void test_step_through(void)
{
    fixture f;
    if (setup(&f) < 0) {
        CHECK(0);
        return;
    }
    strbuf err = STRBUF_INIT;
    runner_client *rc = start(&f, BREAK_EACH_KERNEL, NULL, &err);
    CHECK(rc != NULL);
    if (!rc) {
        fprintf(stderr, "start: %s\n", err.buf);
        teardown(&f);
        return;
    }
    CHECK(settle(rc) == RUNNER_STOPPED);
    CHECK(runner_client_stop_reason(rc) == PROTO_STOP_START);
    CHECK(runner_client_model_inputs(rc) == 2);
    int steps = 0;
    int64_t expect = 0;
    while (runner_client_state(rc) == RUNNER_STOPPED && steps < 100) {
        CHECK(runner_client_step(rc) == 0);
        CHECK(runner_client_step(rc) == -1);   /* not stopped any more */
        runner_state st = settle(rc);
        steps++;
        if (st == RUNNER_STOPPED) {
            CHECK(runner_client_stop_reason(rc) == PROTO_STOP_STEP);
            CHECK(runner_client_current_kernel(rc) == expect);
            CHECK((int64_t)f.s->nkernels == expect + 1);
            /* stopped before the kernel: it is announced and still pending */
            CHECK(f.s->kernels[expect]->u.kernel.status == KSTAT_PENDING);
            expect++;
        }
    }
    CHECK(runner_client_state(rc) == RUNNER_FINISHED);
    CHECK(runner_client_done_status(rc) == 0);
    CHECK(f.s->nkernels == 4 && steps == 5);
    for (size_t i = 0; i < f.s->nkernels; i++) {
        const kernel_event *k = &f.s->kernels[i]->u.kernel;
        CHECK(k->status == KSTAT_OK);
        CHECK(k->ntensors >= 2);
        CHECK(k->duration_us >= 0);
    }
    CHECK(count_kind(f.s, EV_OUTPUT) == 1);
    drain(rc);
    CHECK(runner_client_pid(rc) == -1);
    CHECK(count_kind(f.s, EV_RUNNER_EXIT) == 0);   /* an orderly end records no exit event */
    CHECK(runner_client_fd(rc) == -1);

    /* restart: a fresh runner, the events start over; run to kernel 2 */
    CHECK(runner_client_restart(rc, &err) == 0);
    CHECK(f.s->nevents == 0 && f.s->nkernels == 0);
    CHECK(settle(rc) == RUNNER_STOPPED);
    CHECK(runner_client_stop_reason(rc) == PROTO_STOP_START);
    CHECK(runner_client_set_breaks(rc, 0) == 0);
    CHECK(runner_client_run_to_index(rc, 2) == 0);
    CHECK(settle(rc) == RUNNER_STOPPED);
    CHECK(runner_client_stop_reason(rc) == PROTO_STOP_BREAK_INDEX);
    CHECK(runner_client_current_kernel(rc) == 2);
    CHECK(f.s->nkernels == 3);
    CHECK(runner_client_run_to_name(rc, "cpp_fused_index_1") == 0);
    CHECK(settle(rc) == RUNNER_STOPPED);
    CHECK(runner_client_stop_reason(rc) == PROTO_STOP_BREAK_NAME);
    CHECK(runner_client_current_kernel(rc) == 3);
    CHECK(runner_client_continue(rc) == 0);
    CHECK(settle(rc) == RUNNER_FINISHED);
    CHECK(f.s->nkernels == 4 && count_kind(f.s, EV_OUTPUT) == 1);

    /* a runner killed while stopped: recorded, the client survives, restart works */
    CHECK(runner_client_restart(rc, &err) == 0);
    runner_client_set_breaks(rc, BREAK_EACH_KERNEL);
    CHECK(settle(rc) == RUNNER_STOPPED);
    CHECK(runner_client_step(rc) == 0);
    CHECK(settle(rc) == RUNNER_STOPPED);
    int pid = runner_client_pid(rc);
    CHECK(pid > 0);
    if (pid > 0)
        kill(pid, SIGKILL);   /* SIGSEGV would be caught by an ASan-built runner */
    CHECK(wait_state(rc, RUNNER_DEAD) == RUNNER_DEAD);
    CHECK(count_kind(f.s, EV_RUNNER_EXIT) == 1);
    const event *last = f.s->events[f.s->nevents - 1];
    CHECK(last->kind == EV_RUNNER_EXIT);
    if (last->kind == EV_RUNNER_EXIT) {
        CHECK_STR(last->u.exit.how, "signal");
        CHECK(last->u.exit.signal == SIGKILL);
    }
    CHECK(runner_client_step(rc) == -1);
    CHECK(runner_client_restart(rc, &err) == 0);
    CHECK(settle(rc) == RUNNER_STOPPED);
    runner_client_set_breaks(rc, 0);
    CHECK(runner_client_continue(rc) == 0);
    CHECK(settle(rc) == RUNNER_FINISHED);
    CHECK(f.s->nkernels == 4 && count_kind(f.s, EV_RUNNER_EXIT) == 0);
    runner_client_free(rc);
    strbuf_release(&err);
    teardown(&f);
}

static void test_runner_missing(void)
{
    fixture f;
    if (setup(&f) < 0) {
        CHECK(0);
        return;
    }
    strbuf err = STRBUF_INIT;
    runner_client *rc = start(&f, 0, "/nonexistent/aotidbg-runner", &err);
    CHECK(rc == NULL);
    CHECK_CONTAINS(err.buf, "cannot run the runner /nonexistent/aotidbg-runner");
    strbuf_reset(&err);
    /* a program that is not a runner at all: it exits at once, never says HELLO */
    rc = start(&f, 0, "/bin/true", &err);
    CHECK(rc != NULL);
    if (rc) {
        CHECK(settle(rc) == RUNNER_DEAD);
        const event *last = f.s->events[f.s->nevents - 1];
        CHECK(last->kind == EV_RUNNER_EXIT);
        if (last->kind == EV_RUNNER_EXIT) {
            CHECK_STR(last->u.exit.how, "exited");
            CHECK(last->u.exit.exit_code == 0);
        }
        runner_client_free(rc);
    }
    strbuf_release(&err);
    teardown(&f);
}

int main(void)
{
    const char *models = getenv("AOTIDBG_MODELS_DIR");
    char dir[900];
    snprintf(dir, sizeof dir, "%s", models && *models ? models : AOTIDBG_SOURCE_DIR "/build/test-models");
    snprintf(pkg_path, sizeof pkg_path, "%s/mlp_ln.pt2", dir);
    if (access(pkg_path, R_OK) != 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "python3 '%s/tests/models/make_models.py' '%s' mlp_ln >&2", AOTIDBG_SOURCE_DIR, dir);
        if (system(cmd) != 0 || access(pkg_path, R_OK) != 0) {
            fprintf(stderr, "cannot build %s (needs python3 with torch)\n", pkg_path);
            return 1;
        }
    }
    if (!getenv("AOTIDBG_RUNNER"))
        setenv("AOTIDBG_RUNNER", AOTIDBG_BINARY_DIR "/aotidbg-runner", 1);
    RUN(test_step_through);
    RUN(test_runner_missing);
    RUN(test_wrapped_runner_with_alloc);
    return CHECK_DONE();
}
