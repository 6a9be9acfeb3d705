/* live.c — live runs from the UI (see live.h): the run service
 * (core/run/run_service.h) does the package, checklist, mode, runner and
 * recording, as for `aotidbg run`; this file is the step/continue/restart
 * glue and what the screen says about the run. */
#include "live.h"
#include "route_actions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compat.h"
#include "hunt.h"
#include "protocol.h"

/* The runner's state (RUNNER_*), RUNNER_DEAD when there is none. */
static runner_state live_state(app *a)
{
    return a->live ? run_service_state(a->live->rs) : RUNNER_DEAD;
}

int64_t live_current_kernel(app *a)
{
    return a->live ? run_service_current_kernel(a->live->rs) : -1;
}

static int settled(runner_state st) { return st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD; }

/* The words for a run that ended (end_state, run_service.h). */
static const char *ended_text(const char *end, runner_state st, char *buf, size_t n)
{
    if (!end || !strcmp(end, "complete"))
        return st == RUNNER_DEAD ? "runner died" : "finished";
    if (!strcmp(end, "killed"))
        return "runner killed";
    if (!strcmp(end, "timeout"))
        return "runner timed out (killed)";
    if (!strcmp(end, "lost"))
        return "connection lost";
    if (!strcmp(end, "failed") || !strcmp(end, "stopped"))
        return end;
    snprintf(buf, n, "runner died: %s", end);
    return buf;
}

const char *runner_state_text(app *a)
{
    static char buf[96];   /* the status bar's words; one UI per process */
    if (!a->live)   /* session_load said how a run ended (cut-off too) */
        return a->mode != MODE_LIVE && a->s->end_state ? a->s->end_state : a->mode == MODE_LIVE ? "no runner"
                                                                                                : "recorded";
    run_service *rs = a->live->rs;
    if (a->live->gated)
        return "blocked by a checklist FAIL (--force overrides)";
    uint64_t done, total;
    runner_state st = run_service_state(rs);
    switch (st) {
    case RUNNER_STARTING:
        if (!run_service_extracting(rs, &done, &total))
            return "starting";
        snprintf(buf, sizeof buf, "extracting %.0f%% of %.1f GB",
                 total ? 100.0 * (double)done / (double)total : 0.0, (double)total / 1e9);
        return buf;
    case RUNNER_STOPPED:
        /* at the error's stop the model has failed already */
        return run_service_stop_reason(rs) == PROTO_STOP_ERROR ? "failed (stopped at the error)" : "stopped";
    case RUNNER_RUNNING: return "running";
    case RUNNER_FINISHED:
    case RUNNER_DEAD: return ended_text(run_service_end_state(rs), st, buf, sizeof buf);
    }
    return "?";
}

int live_fd(app *a)
{
    return a->live && run_service_has_runner(a->live->rs) ? run_service_fd(a->live->rs) : -1;
}

/* The service's notes go to stderr: the screen is not open yet. */
static void say_live(void *ctx, const char *text)
{
    fprintf(stderr, "aotidbg: %s\n", text);
}

/* The checklist's first FAIL row under the cursor. */
static void point_at_fail(app *a)
{
    session *s = a->s;
    a->panes[PANE_CHECKLIST].cursor = 0;
    for (size_t i = 0; i < s->nchecks; i++)
        if (s->checks[i].status == CHECK_FAIL) {
            a->panes[PANE_CHECKLIST].cursor = (int64_t)i;
            break;
        }
}

int live_start(app *a, const run_options *o, strbuf *err)
{
    run_say sayer = {say_live, NULL};
    run_service *rs;
    int r = run_service_open(&rs, o, RUN_OPT_LIVE, a->s, &sayer, err);
    if (r < 0)
        return -1;
    a->live = xcalloc(1, sizeof *a->live);
    a->live->rs = rs;
    a->live->given = *o;
    a->sources_at = run_service_sources_at(rs);   /* --remote: the package is there */
    point_at_fail(a);
    if (r == RUN_OPEN_GATED) {
        /* The gate: the checklist runs first; a FAIL row keeps the run from
         * starting (the playbook's first step), unless --force. */
        a->live->gated = 1;
        a->focus = PANE_CHECKLIST;
        const char *why = run_service_gate_reason(rs);
        app_message(a, 1, "not started: checklist FAIL: %.*s (fix it, or start with --force)",
                    (int)strcspn(why, "\n"), why);
        return 0;
    }
    if (o->breaks.index >= 0)
        a->brk.kernel = o->breaks.index;
    if (o->breaks.kernel)
        snprintf(a->brk.name, sizeof a->brk.name, "%s", o->breaks.kernel);
    a->brk.nan = (int)(o->breaks.flags & (BREAK_ON_NAN | BREAK_ON_INF | BREAK_ON_NONFINITE));
    return 0;
}

int live_pump(app *a, int timeout_ms)
{
    if (!a->live || !run_service_has_runner(a->live->rs))
        return 0;
    strbuf err = STRBUF_INIT;
    int ch = run_service_pump(a->live->rs, timeout_ms, &err);
    if (ch & (RUN_PUMP_ERROR | RUN_WRITE_ERROR))
        app_message(a, 1, "%s", err.buf);
    strbuf_release(&err);
    return ch;
}

/* ---- after a pump: one named step each ------------------------------------ */

/* A ^C's pause was answered (or the run ended first). */
static int note_pause(app *a, runner_state st)
{
    live_run *L = a->live;
    if (!L->pause_asked || st == RUNNER_RUNNING)
        return 0;
    L->pause_asked = 0;
    L->pending = LIVE_PEND_NONE;
    if (st == RUNNER_STOPPED && run_service_stop_reason(L->rs) == PROTO_STOP_PAUSE)
        app_message(a, 0, "paused before kernel #%lld (^C); s steps, c continues",
                    (long long)run_service_current_kernel(L->rs));
    return 1;
}

/* The key pressed while the runner was busy, now that it stopped. */
static int replay_pending_key(app *a, runner_state st)
{
    live_run *L = a->live;
    int p = L->pending;
    if (!p || st == RUNNER_STARTING || st == RUNNER_RUNNING)
        return 0;
    L->pending = LIVE_PEND_NONE;
    if (st != RUNNER_STOPPED)
        return 0;   /* the run ended first: nothing to send */
    if (p == LIVE_PEND_STEP)
        live_step(a);
    else if (p == LIVE_PEND_CONTINUE)
        live_continue(a);
    else
        live_run_to(a, L->pending_to);
    return 1;
}

/* What `aotidbg run` would say about the end: NaN outputs, a break that never hit. */
static int note_end(app *a, runner_state st)
{
    live_run *L = a->live;
    if (L->end_noted || st != RUNNER_FINISHED)
        return 0;
    L->end_noted = 1;
    const tensor_rec *bad = run_service_bad_output(L->rs);
    const char *miss = run_service_unmatched_break(L->rs);
    if (miss)
        app_message(a, 1, "--break-on %s matched no kernel of the %zu that ran", miss, a->s->nkernels);
    else if (bad)
        app_message(a, 1, "the model ran to the end, but output %s is all NaN/Inf: hunt-nan (F) finds "
                    "where it starts", bad->name);
    return miss || bad;
}

/* The pending hunt: launched at the first stop, reported once settled. */
static int settle_hunt(app *a, runner_state st)
{
    if (!a->live->hunt_pending || !settled(st))
        return 0;
    hunt_live_settled(a);
    return 1;
}

/* The kernel list on the running kernel. */
static void follow_run(app *a)
{
    if (!a->follow || !a->s->nkernels)
        return;
    int64_t cur = run_service_current_kernel(a->live->rs);
    int64_t target = cur >= 0 ? cur : (int64_t)a->s->nkernels - 1;
    pane_goto(&a->panes[PANE_KERNELS], target, (int64_t)a->s->nkernels);
}

int live_react(app *a, int changed)
{
    if (!a->live || !run_service_has_runner(a->live->rs))
        return 0;
    runner_state st = run_service_state(a->live->rs);
    int shown = (changed & (RUN_CHANGED_EVENTS | RUN_CHANGED_STATE)) != 0;
    shown |= note_pause(a, st);
    shown |= replay_pending_key(a, st);
    st = run_service_state(a->live->rs);
    shown |= note_end(a, st);
    shown |= settle_hunt(a, st);
    if (shown)
        follow_run(a);
    app_clamp(a);
    return shown || (changed & (RUN_PUMP_ERROR | RUN_WRITE_ERROR));
}

int live_settle(app *a, int timeout_ms)
{
    if (!a->live || !run_service_has_runner(a->live->rs))
        return 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        live_react(a, 0);   /* a key kept for this stop goes now */
        if (settled(live_state(a)) && !a->live->pending)
            return 0;
        live_react(a, live_pump(a, 50));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            return -1;
    }
}

/* ---- the verbs -------------------------------------------------------------- */

static int need_runner(app *a)
{
    if (a->live && run_service_has_runner(a->live->rs))
        return 0;
    if (a->live && a->live->gated) {
        strbuf cmd = STRBUF_INIT;
        const run_options *o = &a->live->given;
        strbuf_add_shell_word(&cmd, o->package);
        run_options_repeat(o, RUN_OPT_LIVE, RUN_OPT_LIVE, &cmd);
        app_message(a, 1, "the run did not start: a checklist row FAILs (pane 2); to run anyway: aotidbg %s --force",
                    cmd.buf);
        strbuf_release(&cmd);
    } else
        app_message(a, 1, "no runner: live mode is not running");
    return -1;
}

/* A runner still loading or running keeps the key for its next stop. */
static int busy(app *a, int what, const char *to)
{
    runner_state st = live_state(a);
    if (st != RUNNER_STARTING && st != RUNNER_RUNNING)
        return 0;
    a->live->pending = what;
    snprintf(a->live->pending_to, sizeof a->live->pending_to, "%s", to ? to : "");
    app_message(a, 0, "the runner is %s: will %s%s at the next stop", st == RUNNER_STARTING ? "loading" : "running",
                what == LIVE_PEND_STEP ? "step" : what == LIVE_PEND_CONTINUE ? "continue" : "run to ", to ? to : "");
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
    if (need_runner(a))
        return -1;
    if (busy(a, LIVE_PEND_STEP, NULL))
        return 0;
    return resumed(a, run_service_step(a->live->rs), "step");
}

int live_continue(app *a)
{
    if (need_runner(a))
        return -1;
    if (busy(a, LIVE_PEND_CONTINUE, NULL))
        return 0;
    run_service *rs = a->live->rs;
    int flags = BREAK_ON_ERROR | BREAK_ON_NAN;
    int64_t cur = run_service_current_kernel(rs);
    int rc = a->brk.kernel > cur ? run_service_run_to_index(rs, a->brk.kernel, flags)
             : a->brk.name[0]    ? run_service_run_to_name(rs, a->brk.name, flags)
                                 : run_service_continue(rs, flags);
    return resumed(a, rc, "continue");
}

/* The breaks a run-to keeps on its way, and those of a fresh runner. */
static int leg_breaks(app *a) { return BREAK_ON_ERROR | a->brk.nan; }   /* brk.nan: BREAK_ON_NAN... flags */
static int each_kernel(app *a) { return BREAK_EACH_KERNEL | leg_breaks(a); }

static void forget_run(live_run *L)
{
    L->pending = LIVE_PEND_NONE;
    L->pause_asked = 0;
    L->end_noted = 0;
}

int live_restart(app *a)
{
    if (need_runner(a))
        return -1;
    strbuf err = STRBUF_INIT;
    forget_run(a->live);
    int rc = run_service_restart(a->live->rs, &err);
    if (rc < 0)
        app_message(a, 1, "restart: %s", err.buf);
    else {
        run_service_set_breaks(a->live->rs, each_kernel(a));
        app_message(a, 0, "restarted: a fresh runner from the first kernel");
        a->follow = 1;
    }
    strbuf_release(&err);
    return rc;
}

int live_rerun_blocking(app *a)
{
    if (need_runner(a))
        return -1;
    strbuf err = STRBUF_INIT;
    forget_run(a->live);
    int rc = run_service_rerun(a->live->rs, 1, 1, each_kernel(a), &err);
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
    if (!a->live || !run_service_has_runner(a->live->rs))
        return;
    runner_state st = live_state(a);
    if (st == RUNNER_STOPPED || st == RUNNER_STARTING)
        run_service_set_breaks(a->live->rs, BREAK_EACH_KERNEL | BREAK_ON_ERROR | on);
    session_set_flag(a->s, "break-on-nan", on ? "1" : "0");
}

int live_run_to(app *a, const char *arg)
{
    if (need_runner(a))
        return -1;
    char *end;
    long long v = strtoll(arg, &end, 10);
    int by_index = *arg && !*end;
    if (by_index && v < 0) {
        app_message(a, 1, "run-to: no kernel %lld (kernels count from 0)", v);
        return -1;
    }
    if (busy(a, LIVE_PEND_RUN_TO, arg))
        return 0;
    run_service *rs = a->live->rs;
    if (live_state(a) != RUNNER_STOPPED) {   /* the run ended before it */
        if (by_index)
            app_message(a, 1, "run-to: no kernel %lld: the run ended after %zu kernels (r restarts from the first)",
                        v, a->s->nkernels);
        else
            app_message(a, 1, "run-to: no kernel named %s after this one: the run ended after %zu kernels "
                        "(r restarts from the first)", arg, a->s->nkernels);
        return -1;
    }
    int rc = by_index ? run_service_run_to_index(rs, v, leg_breaks(a)) : run_service_run_to_name(rs, arg, leg_breaks(a));
    if (rc == 0)
        app_message(a, 0, "running to kernel %s%s", by_index ? "#" : "", arg);
    return resumed(a, rc, "run-to");
}

int live_interrupt(app *a)
{
    if (!a->live || live_state(a) != RUNNER_RUNNING)
        return -1;
    live_run *L = a->live;
    if (!L->pause_asked && run_service_pause(L->rs) == 0) {
        /* The runner stops at the next kernel start (protocol.h: PAUSE). */
        L->pause_asked = 1;
        app_message(a, 0, "^C: stopping at the next kernel start (^C again ends the runner)");
        return 0;
    }
    /* A second ^C, or a kernel that never ends: the runner goes (the UI and
     * the recording stay; r starts a fresh runner). */
    L->pause_asked = 0;
    L->pending = LIVE_PEND_NONE;
    run_service_quit(L->rs, 500);
    live_react(a, live_pump(a, 0));
    app_message(a, 0, "interrupted: the runner was stopped; r restarts from the first kernel");
    return 0;
}

void live_interrupted(app *a, int sig)
{
    if (a->live)
        run_service_interrupt(a->live->rs, signal_name(sig));
}

int live_finish(app *a, int from_signal)
{
    if (!a->live)
        return 0;
    run_service *rs = a->live->rs;
    ra_repro_cancel(a);   /* a repro still running ends with the UI */
    if (from_signal) {
        run_service_abandon(rs);
        return 1;
    }
    strbuf err = STRBUF_INIT;
    if (run_service_finish(rs, &err) < 0)
        fprintf(stderr, "aotidbg: saving the session: %s\n", err.buf);
    else
        fprintf(stderr, "aotidbg: session saved to %s (end_state: %s)\n", run_service_record_path(rs),
                a->s->end_state);
    strbuf_release(&err);
    int code = run_service_exit_code(rs);
    if (!code && run_service_write_failed(rs))
        code = 1;
    run_service_free(rs);
    free(a->live);
    a->live = NULL;
    return code;
}
