/* live.c — live runs from the UI (see live.h): the run service
 * (core/run/run_service.h) does the package, checklist, mode, runner and
 * recording, as for `aotidbg run`; this file is the step/continue/restart
 * glue and what the screen says about the run. */
#include "live.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hunt.h"
#include "protocol.h"
#include "run_service.h"

static run_service *live_rs;   /* one live run per process */
/* A step/continue pressed while the runner is still loading or running is
 * kept and sent at the next stop, so keys are never lost to timing. */
enum { PEND_NONE = 0, PEND_STEP, PEND_CONTINUE };
static int pending;
static int pause_asked;   /* ^C asked for a pause; a second ^C before the stop ends the runner */
static int end_noted;     /* the end of this run was said in the message line */

int64_t live_current_kernel(app *a)
{
    if (a->mode != MODE_LIVE || !a->rc)
        return -1;
    return runner_client_current_kernel(a->rc);
}

const char *runner_state_text(app *a)
{
    static char buf[96];   /* the status bar's words; one UI per process */
    if (a->mode != MODE_LIVE)   /* session_load said how a run ended (cut-off too) */
        return a->s->end_state ? a->s->end_state : "recorded";
    if (a->gated)
        return "blocked by a checklist FAIL (--force overrides)";
    if (!a->rc)
        return "no runner";
    const char *end = run_service_end_state(live_rs);
    uint64_t done, total;
    switch (runner_client_state(a->rc)) {
    case RUNNER_STARTING:
        if (!run_service_extracting(live_rs, &done, &total))
            return "starting";
        snprintf(buf, sizeof buf, "extracting %.0f%% of %.1f GB",
                 total ? 100.0 * (double)done / (double)total : 0.0, (double)total / 1e9);
        return buf;
    case RUNNER_STOPPED:
        /* at the error's stop the model has failed already */
        return runner_client_stop_reason(a->rc) == PROTO_STOP_ERROR ? "failed (stopped at the error)" : "stopped";
    case RUNNER_RUNNING: return "running";
    case RUNNER_FINISHED:
    case RUNNER_DEAD:
        if (!end || !strcmp(end, "complete"))
            return runner_client_state(a->rc) == RUNNER_DEAD ? "runner died" : "finished";
        if (!strcmp(end, "killed"))
            return "runner killed";
        if (!strcmp(end, "timeout"))
            return "runner timed out (killed)";
        if (!strcmp(end, "failed") || !strcmp(end, "stopped"))
            return end;
        snprintf(buf, sizeof buf, "runner died: %s", end);
        return buf;
    }
    return "?";
}

int live_fd(app *a)
{
    return a->rc ? run_service_fd(live_rs) : -1;
}

/* The service's notes go to stderr: the screen is not open yet. */
static void say_live(void *ctx, const char *text)
{
    fprintf(stderr, "aotidbg: %s\n", text);
}

int live_start(app *a, const run_options *o, strbuf *err)
{
    run_say sayer = {say_live, NULL};
    int r = run_service_open(&live_rs, o, RUN_OPT_LIVE, a->s, &sayer, err);
    if (r < 0)
        return -1;
    a->rc = run_service_client(live_rs);
    a->sources_at = run_service_sources_at(live_rs);   /* --remote: the package is there */
    session *s = a->s;
    a->panes[PANE_CHECKLIST].cursor = 0;
    for (size_t i = 0; i < s->nchecks; i++)
        if (s->checks[i].status == CHECK_FAIL) {
            a->panes[PANE_CHECKLIST].cursor = (int64_t)i;
            break;
        }
    if (r == RUN_OPEN_GATED) {
        /* The gate: the checklist runs first; a FAIL row keeps the run from
         * starting (the playbook's first step), unless --force. */
        a->gated = 1;
        a->focus = PANE_CHECKLIST;
        const char *why = run_service_gate_reason(live_rs);
        app_message(a, 1, "not started: checklist FAIL: %.*s (fix it, or start with --force)",
                    (int)strcspn(why, "\n"), why);
        return 0;
    }
    if (o->breaks.index >= 0)
        a->break_kernel = o->breaks.index;
    a->break_nan = (int)(o->breaks.flags & (BREAK_ON_NAN | BREAK_ON_INF | BREAK_ON_NONFINITE));
    return 0;
}

int live_pump(app *a, int timeout_ms)
{
    if (!a->rc)
        return 0;
    strbuf err = STRBUF_INIT;
    int ch = run_service_pump(live_rs, timeout_ms, &err);
    if (ch & (RUN_PUMP_ERROR | RUN_WRITE_ERROR))
        app_message(a, 1, "%s", err.buf);
    strbuf_release(&err);
    runner_state st = runner_client_state(a->rc);
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
        if (!end_noted && st == RUNNER_FINISHED) {
            /* what `aotidbg run` would say about the end: NaN outputs, a break that never hit */
            end_noted = 1;
            const tensor_rec *bad = run_service_bad_output(live_rs);
            const char *miss = run_service_unmatched_break(live_rs);
            if (miss)
                app_message(a, 1, "--break-on %s matched no kernel of the %zu that ran", miss, a->s->nkernels);
            else if (bad)
                app_message(a, 1, "the model ran to the end, but output %s is all NaN/Inf: hunt-nan (F) finds "
                            "where it starts", bad->name);
        }
    }
    int n = ch & (RUN_CHANGED_EVENTS | RUN_CHANGED_STATE) ? 1 : 0;
    if (a->hunt_pending && (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD)) {
        hunt_live_settled(a);   /* the run stopped: hunt over what it recorded */
        n = 1;
    }
    if (n > 0 && a->follow && a->s->nkernels) {
        int64_t cur = runner_client_current_kernel(a->rc);
        int64_t target = cur >= 0 ? cur : (int64_t)a->s->nkernels - 1;
        pane_goto(&a->panes[PANE_KERNELS], target, (int64_t)a->s->nkernels);
    }
    app_clamp(a);
    return ch & RUN_PUMP_ERROR ? -1 : n;
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
    const char *name = run_service_options(live_rs)->breaks.kernel;
    int rc = a->break_kernel >= 0 ? runner_client_run_to_index(a->rc, a->break_kernel)
             : name             ? runner_client_run_to_name(a->rc, name)
                                : runner_client_continue(a->rc);
    return resumed(a, rc, "continue");
}

int live_restart(app *a)
{
    if (need_rc(a))
        return -1;
    strbuf err = STRBUF_INIT;
    pending = PEND_NONE;
    pause_asked = 0;
    end_noted = 0;
    int rc = run_service_restart(live_rs, &err);
    if (rc < 0)
        app_message(a, 1, "restart: %s", err.buf);
    else {
        runner_client_set_breaks(a->rc, BREAK_EACH_KERNEL | BREAK_ON_ERROR | a->break_nan);
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
    pending = PEND_NONE;
    end_noted = 0;
    int rc = run_service_rerun(live_rs, 1, 1, BREAK_EACH_KERNEL | BREAK_ON_ERROR | a->break_nan,
                               &err);
    a->rc = run_service_client(live_rs);
    if (rc < 0) {
        app_message(a, 1, "rerun-blocking: %s", err.buf);
    } else {
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
        runner_client_set_breaks(a->rc, BREAK_EACH_KERNEL | BREAK_ON_ERROR | on);
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
    if (!pause_asked && runner_client_pause(a->rc) == 0) {
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

int live_finish(app *a, int from_signal)
{
    int code = 0;
    if (!live_rs)
        return 0;
    if (from_signal) {
        run_service_abandon(live_rs);
        return 1;
    }
    strbuf err = STRBUF_INIT;
    if (run_service_finish(live_rs, &err) < 0)
        fprintf(stderr, "aotidbg: saving the session: %s\n", err.buf);
    else
        fprintf(stderr, "aotidbg: session saved to %s (end_state: %s)\n", run_service_record_path(live_rs),
                a->s->end_state);
    strbuf_release(&err);
    code = run_service_exit_code(live_rs);
    if (!code && run_service_write_failed(live_rs))
        code = 1;
    run_service_free(live_rs);
    live_rs = NULL;
    a->rc = NULL;
    return code;
}
