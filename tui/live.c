/* live.c — live runs from the UI (see live.h): package extraction, the
 * runner client, the session writer, and the step/continue/restart glue. */
#include "live.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "checklist.h"
#include "hunt.h"
#include "inputs.h"
#include "package.h"
#include "protocol.h"
#include "runner_client.h"
#include "session_io.h"


static package_t *live_pkg;   /* one live run per process */
/* A step/continue pressed while the runner is still loading or running is
 * kept and sent at the next stop, so keys are never lost to timing. */
enum { PEND_NONE = 0, PEND_STEP, PEND_CONTINUE };
static int pending;
static int pause_asked;   /* ^C sent SIGUSR1; a second ^C before the stop ends the runner */
/* What the runner was started with; its strings live in live_pkg's arena
 * (the extracted model), which stays open until live_finish. */
static runner_options live_ro;

int64_t live_current_kernel(app *a);
int64_t live_current_kernel(app *a)
{
    if (a->mode != MODE_LIVE || !a->rc)
        return -1;
    return runner_client_current_kernel(a->rc);
}

const char *runner_state_text(app *a)
{
    if (a->mode != MODE_LIVE)
        return a->s->end_state ? a->s->end_state : a->s->truncated ? "cut-off" : "recorded";
    if (!a->rc)
        return a->gated ? "blocked by a checklist FAIL (--force overrides)" : "no runner";
    switch (runner_client_state(a->rc)) {
    case RUNNER_STARTING: return "starting";
    case RUNNER_STOPPED: return "stopped";
    case RUNNER_RUNNING: return "running";
    case RUNNER_FINISHED: return "finished";
    case RUNNER_DEAD: return "runner died";
    }
    return "?";
}

int live_fd(app *a)
{
    return a->rc ? runner_client_fd(a->rc) : -1;
}

static int open_writer(app *a, const live_options *o, strbuf *err)
{
    session *s = a->s;
    char def[64];
    const char *rec = o->record;
    if (!rec) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(def, sizeof def, "./aotidbg-session-%Y%m%d-%H%M%S.yaml", &tm);
        rec = def;
    }
    a->record_path = arena_strdup(&s->arena, rec);
    if (session_writer_open((session_writer **)&a->writer, a->record_path, s, err) < 0)
        return -1;
    return 0;
}


int live_start(app *a, const live_options *o, strbuf *err)
{
    package_model *m;
    if (package_open(&live_pkg, o->package, err) < 0 || !(m = package_find_model(live_pkg, NULL, err)) ||
        package_extract(live_pkg, m, err) < 0)
        return -1;
    session *s = a->s;
    package_to_session(live_pkg, m, s);
    package_sha256_to_session(live_pkg, s);   /* i16: moves off the load path with the run service */
    s->device = arena_strdup(&s->arena, o->device ? o->device : m->device_key ? m->device_key : "cpu");
    if (o->inputs && inputs_load(s, o->inputs, err) < 0)
        return -1;
    /* The gate: the checklist runs first; a FAIL row keeps the run from
     * starting (the playbook's first step), unless --force. */
    checklist_opts co = {0};
    co.device = o->device;
    co.model = m->name;
    co.inputs = o->inputs ? s->inputs : NULL;
    co.ninputs = o->inputs ? s->ninputs : 0;
    strbuf why = STRBUF_INIT;
    int failed = checklist_gate(live_pkg, &co, s, &why);
    a->panes[PANE_CHECKLIST].cursor = 0;
    for (size_t i = 0; i < s->nchecks; i++)
        if (s->checks[i].status == CHECK_FAIL) {
            a->panes[PANE_CHECKLIST].cursor = (int64_t)i;
            break;
        }
    if (failed == 1 && !o->force) {
        a->gated = 1;
        a->focus = PANE_CHECKLIST;
        size_t l = strcspn(why.buf, "\n");
        app_message(a, 1, "not started: checklist FAIL: %.*s (fix it, or start with --force)", (int)l, why.buf);
        strbuf_release(&why);
        return open_writer(a, o, err);   /* the checks are still recorded */
    }
    if (failed == 1)
        session_add_note(s, "started with --force over a failing checklist");
    strbuf_release(&why);
    runner_options ro = {0};
    ro.so_path = m->so_path;
    ro.cubin_dir = m->model_dir;
    ro.device = s->device;
    ro.blocking = 1;
    ro.break_flags = BREAK_EACH_KERNEL | BREAK_ON_ERROR;
    ro.break_index = -1;
    ro.max_values = 4096;
    ro.values_budget = o->values_budget_set ? o->values_budget : VALUES_BUDGET_DEFAULT;
    s->values_budget = ro.values_budget;
    ro.timeout_s = 60;
    /* as `aotidbg run` does: an index-out-of-bounds assert is traced to its input */
    ro.trace_source = package_trace_source(live_pkg, m);
    live_ro = ro;
    if (runner_client_start((runner_client **)&a->rc, &ro, s, err) < 0)
        return -1;
    return open_writer(a, o, err);
}

int live_pump(app *a, int timeout_ms)
{
    if (!a->rc)
        return 0;
    static int last_state = -1;
    static int64_t last_kernel = -2;
    strbuf err = STRBUF_INIT;
    int n = runner_client_pump(a->rc, timeout_ms, &err);
    /* a state change (STOPPED, DONE) adds no event but changes the screen */
    int st = (int)runner_client_state(a->rc);
    int64_t ck = runner_client_current_kernel(a->rc);
    if (n == 0 && (st != last_state || ck != last_kernel))
        n = 1;
    last_state = st;
    last_kernel = ck;
    if (pause_asked && st != RUNNER_RUNNING) {
        pause_asked = 0;
        pending = PEND_NONE;
        if (st == RUNNER_STOPPED && runner_client_stop_reason(a->rc) == PROTO_STOP_PAUSE)
            app_message(a, 0, "paused before kernel #%lld (^C); s steps, c continues",
                        (long long)runner_client_current_kernel(a->rc));
    }
    if (st == RUNNER_STOPPED && pending) {
        int p = pending;
        pending = PEND_NONE;
        if (p == PEND_STEP)
            live_step(a);
        else
            live_continue(a);
    } else if (st == RUNNER_FINISHED || st == RUNNER_DEAD) {
        pending = PEND_NONE;
    }
    if (a->hunt_pending && (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD)) {
        if (n > 0 && a->writer)
            session_writer_sync(a->writer, &err);
        strbuf_reset(&err);
        hunt_live_settled(a);   /* the run stopped: hunt over what it recorded */
        n = n > 0 ? n : 1;
    }
    if (n < 0)
        app_message(a, 1, "runner: %s", err.buf);
    strbuf_reset(&err);
    if (n > 0 && a->writer && session_writer_sync(a->writer, &err) < 0)
        app_message(a, 1, "recording %s: %s", a->record_path, err.buf);
    strbuf_release(&err);
    if (n > 0 && a->follow && a->s->nkernels) {
        int64_t cur = runner_client_current_kernel(a->rc);
        int64_t target = cur >= 0 ? cur : (int64_t)a->s->nkernels - 1;
        pane_goto(&a->panes[PANE_KERNELS], target, (int64_t)a->s->nkernels);
    }
    app_clamp(a);
    return n;
}

int live_settle(app *a, int timeout_ms)
{
    if (!a->rc)
        return 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        runner_state st = runner_client_state(a->rc);
        if (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD)
            return 0;
        live_pump(a, 50);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            return -1;
    }
}

static int need_rc(app *a)
{
    if (a->rc)
        return 0;
    if (a->gated)
        app_message(a, 1, "the run did not start: a checklist row FAILs (pane 2); restart aotidbg with --force to run anyway");
    else
        app_message(a, 1, "no runner: live mode is not running");
    return -1;
}

static int busy(app *a, int what)
{
    runner_state st = runner_client_state(a->rc);
    if (st != RUNNER_STARTING && st != RUNNER_RUNNING)
        return 0;
    pending = what;
    app_message(a, 0, "the runner is %s: will %s at the next stop", st == RUNNER_STARTING ? "loading" : "running",
                what == PEND_STEP ? "step" : "continue");
    return 1;
}

/* After asking a stopped runner to go on: follow the run, or say why not. */
static int resumed(app *a, int rc, const char *what)
{
    if (rc < 0) {
        app_message(a, 1, "%s: the runner is not stopped at a kernel (r restarts)", what);
        return -1;
    }
    a->follow = 1;
    return 0;
}

int live_step(app *a)
{
    if (need_rc(a))
        return -1;
    if (busy(a, PEND_STEP))
        return 0;
    return resumed(a, runner_client_step(a->rc), "step");
}

int live_continue(app *a)
{
    if (need_rc(a))
        return -1;
    if (busy(a, PEND_CONTINUE))
        return 0;
    int flags = BREAK_ON_ERROR | BREAK_ON_NAN;
    runner_client_set_breaks(a->rc, flags);
    int rc = a->break_kernel >= 0 ? runner_client_run_to_index(a->rc, a->break_kernel) : runner_client_continue(a->rc);
    return resumed(a, rc, "continue");
}

int live_restart(app *a)
{
    if (need_rc(a))
        return -1;
    strbuf err = STRBUF_INIT;
    pending = PEND_NONE;
    pause_asked = 0;
    int rc = runner_client_restart(a->rc, &err);
    if (rc < 0)
        app_message(a, 1, "restart: %s", err.buf);
    else {
        runner_client_set_breaks(a->rc, BREAK_EACH_KERNEL | BREAK_ON_ERROR | (a->break_nan ? BREAK_ON_NAN : 0));
        app_message(a, 0, "restarted: a fresh runner from the first kernel");
        a->follow = 1;
    }
    strbuf_release(&err);
    return rc;
}

int live_rerun_blocking(app *a)
{
    if (!a->rc) {
        need_rc(a);
        return -1;
    }
    strbuf err = STRBUF_INIT;
    runner_client_free(a->rc);
    a->rc = NULL;
    pending = PEND_NONE;
    a->s->nevents = 0;   /* a fresh run, as runner_client_restart does */
    a->s->nkernels = 0;
    runner_options ro = live_ro;
    ro.blocking = 1;
    ro.deterministic = 1;
    ro.break_flags = BREAK_EACH_KERNEL | BREAK_ON_ERROR | (a->break_nan ? BREAK_ON_NAN : 0);
    int rc = runner_client_start((runner_client **)&a->rc, &ro, a->s, &err);
    if (rc < 0) {
        app_message(a, 1, "rerun-blocking: %s", err.buf);
    } else {
        live_ro = ro;
        session_set_flag(a->s, "CUDA_LAUNCH_BLOCKING", "1");
        session_set_flag(a->s, "PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        session_set_flag(a->s, "AOTI_RUNTIME_CHECK_INPUTS", "1");
        app_message(a, 0, "rerun with blocking launches (CUDA_LAUNCH_BLOCKING=1, sync at every kernel) from kernel 0");
        a->follow = 1;
    }
    strbuf_release(&err);
    return rc;
}

void live_break_nan(app *a, int on)
{
    if (!a->rc)
        return;
    runner_state st = runner_client_state(a->rc);
    if (st == RUNNER_STOPPED || st == RUNNER_STARTING)
        runner_client_set_breaks(a->rc, BREAK_EACH_KERNEL | BREAK_ON_ERROR | (on ? BREAK_ON_NAN : 0));
    session_set_flag(a->s, "break-on-nan", on ? "1" : "0");
}

int live_run_to(app *a, const char *arg)
{
    if (need_rc(a))
        return -1;
    char *end;
    long long v = strtoll(arg, &end, 10);
    int rc = *end ? runner_client_run_to_name(a->rc, arg) : runner_client_run_to_index(a->rc, v);
    if (rc < 0)
        app_message(a, 1, "run-to: the runner is not stopped at a kernel");
    a->follow = 1;
    return rc;
}

int live_interrupt(app *a)
{
    if (!a->rc || runner_client_state(a->rc) != RUNNER_RUNNING)
        return -1;
    int pid = runner_client_pid(a->rc);
    if (!pause_asked && pid > 0 && kill(pid, SIGUSR1) == 0) {
        /* The runner stops at the next kernel start (protocol.h: PAUSE). */
        pause_asked = 1;
        app_message(a, 0, "^C: stopping at the next kernel start (^C again ends the runner)");
        return 0;
    }
    /* A second ^C, or a kernel that never ends: the runner goes (the UI and
     * the recording stay; r starts a fresh runner). */
    pause_asked = 0;
    pending = PEND_NONE;
    runner_client_quit(a->rc, 500);
    live_pump(a, 0);
    app_message(a, 0, "interrupted: the runner was stopped; r restarts from the first kernel");
    return 0;
}

void live_finish(app *a, int from_signal)
{
    if (a->writer) {
        if (from_signal) {
            session_writer_close(a->writer);
        } else {
            strbuf err = STRBUF_INIT;
            if (session_writer_finish(a->writer, &err) < 0)
                fprintf(stderr, "aotidbg: saving %s: %s\n", a->record_path, err.buf);
            else
                fprintf(stderr, "aotidbg: session saved to %s\n", a->record_path);
            strbuf_release(&err);
        }
        a->writer = NULL;
    }
    if (!from_signal) {
        if (a->rc)
            runner_client_free(a->rc);
        a->rc = NULL;
        if (live_pkg)
            package_close(live_pkg);
        live_pkg = NULL;
    }
}
