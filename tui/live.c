/* live.c — live runs from the UI (see live.h): the run service
 * (core/run/run_service.h) does the package, checklist, mode, runner and
 * recording, as for `aotidbg run`; this file is the step/continue/restart
 * glue and what the screen says about the run. */
#include "live.h"
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compat.h"
#include "fdio.h"
#include "hunt.h"
#include "protocol.h"
#include "ranks.h"   /* rank_set's fields only: ranks.c calls here, not back */
#include "run_ranks.h"

/* One rank of a --ranks run (live.h). */
typedef struct live_rank {
    run_service *rs;
    run_rank env;              /* its torch.distributed variables (the service's options point here) */
    char *record, *inputs;
    int pending;               /* LIVE_PEND_*: sent at its next stop */
    int went;                  /* LIVE_PEND_* last sent (a step: it stops at the next kernel by itself) */
    int64_t from;              /* the kernel it was stopped at when it was sent on */
    int unjoined;              /* 1: its run ended before it joined the process group (stop_the_waiting);
                                  -1: it joined, or that was dealt with; 0: still going */
    double ended_at;           /* when its end was seen (mono_now_s) */
} live_rank;

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

/* A run service's state in the status bar's words. */
static const char *service_text(run_service *rs)
{
    static char buf[96];   /* the status bar's words; one UI per process */
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

const char *runner_state_text(app *a)
{
    static char buf[160];
    if (!a->live && a->ranks && a->s->end_state) {   /* the ranks replayed together */
        snprintf(buf, sizeof buf, "rank %d: %s", a->ranks->shown, a->s->end_state);
        return buf;
    }
    if (!a->live)   /* session_load said how a run ended (cut-off too) */
        return a->mode != MODE_LIVE && a->s->end_state ? a->s->end_state : a->mode == MODE_LIVE ? "no runner"
                                                                                                : "recorded";
    if (a->live->gated)
        return "blocked by a checklist FAIL (--force overrides)";
    if (!a->live->nranks || !a->ranks)
        return service_text(a->live->rs);
    snprintf(buf, sizeof buf, "rank %d: %s", a->ranks->shown, service_text(a->live->rs));
    return buf;
}

int live_fd(app *a)
{
    if (a->live && a->live->nranks)
        return -1;   /* live_fds: every rank's */
    return a->live && run_service_has_runner(a->live->rs) ? run_service_fd(a->live->rs) : -1;
}

int live_fds(app *a, int *out, int max)
{
    live_run *L = a->live;
    int n = 0;
    for (int k = 0; L && k < L->nranks && n < max; k++)
        if (run_service_has_runner(L->rank[k].rs) && run_service_fd(L->rank[k].rs) >= 0)
            out[n++] = run_service_fd(L->rank[k].rs);
    return n;
}

/* A rank's own stop that the others will not make: a NaN, an error, a departure. */
static int own_stop(run_service *rs)
{
    int why = run_service_stop_reason(rs);
    return run_service_state(rs) == RUNNER_STOPPED &&
           (why == PROTO_STOP_NAN || why == PROTO_STOP_ERROR || why == PROTO_STOP_DIVERGE);
}

int live_rank_position(app *a, int k, rank_pos *p, const char **state)
{
    live_run *L = a->live;
    if (!L || k < 0 || k >= L->nranks || !a->ranks)
        return -1;
    run_service *rs = L->rank[k].rs;
    if (state)
        *state = service_text(rs);
    runner_state st = run_service_state(rs);
    int64_t cur = run_service_current_kernel(rs);
    p->at = cur;
    p->in_kernel = 0;
    p->reach = cur - 1;
    if (st == RUNNER_STARTING) {
        p->at = p->reach = -1;
    } else if (st == RUNNER_RUNNING && L->rank[k].went == LIVE_PEND_STEP && cur > L->rank[k].from) {
        /* a step's next kernel announced, its stop on the way: not launched */
    } else if (st == RUNNER_RUNNING) {
        p->in_kernel = cur >= 0;
        p->reach = cur;
    } else if (st == RUNNER_FINISHED && run_service_exit_code(rs) == 0) {
        p->at = -1;
        p->reach = RANK_REACH_END;
    } else if (st != RUNNER_STOPPED) {   /* it ended (failed, died) where its recording ends */
        rank_pos_recorded(a->ranks->s[k], p);
    } else if (own_stop(rs)) {   /* a NaN, error or departure stop: kernel cur ran */
        p->in_kernel = 1;
        p->reach = cur;
    }
    return 0;
}

void live_show_rank(app *a, int k)
{
    live_run *L = a->live;
    if (!L || k < 0 || k >= L->nranks)
        return;
    L->rs = L->rank[k].rs;
    L->end_noted = 0;
    a->sources_at = run_service_sources_at(L->rs);
}

/* The service's notes go to stderr: before the screen is open, the terminal;
 * while it is up, the message line and the messages log (screen.h's tap). */
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

/* --break-on index=N and kernel=NAME as the app's breakpoint, nan as the NaN break. */
static void take_breaks(app *a, const run_options *o)
{
    if (o->breaks.index >= 0)
        a->brk.kernel = o->breaks.index;
    if (o->breaks.kernel)
        snprintf(a->brk.name, sizeof a->brk.name, "%s", o->breaks.kernel);
    a->brk.nan = (int)(o->breaks.flags & (BREAK_ON_NAN | BREAK_ON_INF | BREAK_ON_NONFINITE));
}

/* The service's notes of rank k go to stderr (as say_live's). */
static void say_rank(void *ctx, const char *text)
{
    fprintf(stderr, "aotidbg: rank %d: %s\n", (int)(intptr_t)ctx, text);
}

static void free_ranks(live_run *L)
{
    for (int k = 0; k < L->nranks; k++) {
        run_service_free(L->rank[k].rs);
        free(L->rank[k].record);
        free(L->rank[k].inputs);
    }
    free(L->rank);
    L->rank = NULL;
    L->nranks = 0;
}

/* --ranks N: one run service per rank, in lockstep (live.h). */
static int start_ranks(app *a, const run_options *o, strbuf *err)
{
    int n = o->ranks, port = run_ranks_port(err);
    if (port < 0)
        return -1;
    char def[64];
    const char *base = o->record;
    if (!base) {   /* the default record's name, one file per rank */
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(def, sizeof def, "./aotidbg-session-%Y%m%d-%H%M%S.yaml", &tm);
        base = def;
    }
    live_run *L = xcalloc(1, sizeof *L);
    L->given = *o;
    L->rank = xcalloc((size_t)n, sizeof *L->rank);
    L->nranks = n;
    for (int k = 0; k < n; k++) {
        live_rank *r = &L->rank[k];
        r->record = run_ranks_record(base, k);
        r->inputs = run_ranks_inputs(o->inputs, k, n, err);
        if (err->len) {
            free_ranks(L);
            free(L);
            return -1;
        }
    }
    rank_set *R = a->ranks;   /* tui_main made it (ranks.h) */
    if (!R || R->n != n) {
        strbuf_addf(err, "--ranks %d: no rank sessions to record into", n);
        free_ranks(L);
        free(L);
        return -1;
    }
    /* a rank waits in a collective as long as a peer is held at a stop, unless --timeout says */
    double timeout = o->timeout_s == 60 ? 0 : o->timeout_s;
    for (int k = 0; k < n; k++) {
        live_rank *r = &L->rank[k];
        run_options one;
        run_rank_place at = {.rank = k, .local_rank = k, .port = port, .pg_timeout_s = timeout,
                              .record = r->record, .inputs = r->inputs};
        run_ranks_one(o, &at, &r->env, &one);
        one.timeout_s = timeout;
        run_say sayer = {say_rank, (void *)(intptr_t)k};
        int rc = run_service_open(&r->rs, &one, RUN_OPT_LIVE, R->s[k], &sayer, err);
        if (rc < 0) {
            for (int j = 0; j < k; j++)
                run_service_kill(L->rank[j].rs, "killed");
            free_ranks(L);
            free(L);
            return -1;
        }
        if (rc == RUN_OPEN_GATED && !L->gated) {
            L->gated = 1;
            L->rs = r->rs;
        }
    }
    a->live = L;
    if (!L->gated)
        L->rs = L->rank[0].rs;
    a->sources_at = run_service_sources_at(L->rs);
    point_at_fail(a);
    if (L->gated) {   /* the others would wait for it in the rendezvous forever */
        for (int k = 0; k < n; k++)
            run_service_kill(L->rank[k].rs, "killed");
        a->focus = PANE_CHECKLIST;
        const char *why = run_service_gate_reason(L->rs);
        app_message(a, 1, "not started: checklist FAIL: %.*s (fix it, or start with --force)",
                    (int)strcspn(why, "\n"), why);
        return 0;
    }
    take_breaks(a, o);
    return 0;
}

int live_start(app *a, const run_options *o, strbuf *err)
{
    if (o->ranks)
        return start_ranks(a, o, err);
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
    take_breaks(a, o);
    return 0;
}

/* --ranks: waits on every rank's fd at once, then reads each (none is waited on alone: a rank
 * inside a collective says nothing until its peers arrive). */
static int pump_ranks(app *a, int timeout_ms)
{
    live_run *L = a->live;
    int fds[RUN_MAX_RANKS], n = live_fds(a, fds, RUN_MAX_RANKS), ch = 0;
    if (n && timeout_ms) {
        struct pollfd p[RUN_MAX_RANKS];
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){fds[i], POLLIN, 0};
        poll(p, (nfds_t)n, timeout_ms);
    }
    for (int k = 0; k < L->nranks; k++) {
        if (!run_service_has_runner(L->rank[k].rs))
            continue;
        strbuf err = STRBUF_INIT;
        int c = run_service_pump(L->rank[k].rs, 0, &err);
        if (c & (RUN_PUMP_ERROR | RUN_WRITE_ERROR))
            app_message(a, 1, "rank %d: %s", k, err.buf);
        strbuf_release(&err);
        ch |= c;
    }
    return ch;
}

int live_pump(app *a, int timeout_ms)
{
    if (a->live && a->live->nranks)
        return pump_ranks(a, timeout_ms);
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

static int send_rank(app *a, int k, int what, const char *to);

/* --ranks: each rank's kept key goes at its stop; a rank's own stop during a continue pauses the
 * others at their next kernel start (kernel=/index= breaks stop each rank by itself). */
static int react_ranks(app *a)
{
    live_run *L = a->live;
    int shown = 0;
    for (int k = 0; k < L->nranks; k++) {
        live_rank *r = &L->rank[k];
        runner_state st = run_service_state(r->rs);
        if (!r->pending || st == RUNNER_STARTING || st == RUNNER_RUNNING)
            continue;
        int p = r->pending;
        r->pending = LIVE_PEND_NONE;
        if (st == RUNNER_STOPPED)
            send_rank(a, k, p, L->pending_to);
        shown = 1;
    }
    for (int k = 0; L->hold && k < L->nranks; k++) {
        if (!own_stop(L->rank[k].rs))
            continue;
        L->hold = 0;
        rank_pos pos[RUN_MAX_RANKS];
        for (int j = 0; j < L->nranks; j++)
            live_rank_position(a, j, &pos[j], NULL);
        int paused = 0, held = 0;
        for (int j = 0; j < L->nranks; j++) {
            if (j == k || run_service_state(L->rank[j].rs) != RUNNER_RUNNING)
                continue;
            const kernel_event *op;
            strbuf who = STRBUF_INIT;
            int waits = rank_waits_for(a->ranks->s, pos, L->nranks, j, &op, &who);
            strbuf_release(&who);
            if (waits) {   /* its peer holds it already; a pause would stop it later, unasked */
                held++;
                continue;
            }
            L->rank[j].pending = LIVE_PEND_NONE;
            paused += run_service_pause(L->rank[j].rs) == 0;
        }
        int why = run_service_stop_reason(L->rank[k].rs);
        app_message(a, why == PROTO_STOP_ERROR, "rank %d stopped at kernel #%lld (%s)%s%s", k,
                    (long long)run_service_current_kernel(L->rank[k].rs),
                    why == PROTO_STOP_NAN ? "NaN/Inf" : why == PROTO_STOP_ERROR ? "its error" : "it departs",
                    paused ? ": the other ranks pause at their next kernel start" : "",
                    held && !paused ? ": the others wait for it in a collective" : "");
        shown = 1;
    }
    return shown;
}

/* Nothing moves by itself: every rank stopped or ended, or waiting in a collective for one
 * that is (its peers stopped short of it), and no key kept. A rank in a functional collective's
 * launch (all_reduce_, ...) is not waiting yet: the launch only enqueues it and returns, and the
 * rank goes on to its next stop (the wait_tensor, where it does wait); a frame taken there showed
 * it still "in" the launch, and the next step was not kept for it (it was running a step). */
static int quiet(app *a)
{
    live_run *L = a->live;
    if (!L->nranks)
        return settled(live_state(a)) && !L->pending;
    rank_pos pos[RUN_MAX_RANKS];
    for (int k = 0; k < L->nranks; k++) {
        if (L->rank[k].pending)
            return 0;
        live_rank_position(a, k, &pos[k], NULL);
    }
    for (int k = 0; k < L->nranks; k++) {
        if (settled(run_service_state(L->rank[k].rs)))
            continue;
        const kernel_event *op;
        strbuf who = STRBUF_INIT;
        int waits = rank_waits_for(a->ranks->s, pos, L->nranks, k, &op, &who);
        strbuf_release(&who);
        const kernel_event *in = waits ? rank_kernel_at(a->ranks->s[k], pos[k].at) : NULL;
        if (!waits || (in && in->collective && strcmp(in->collective, "wait_tensor")))
            return 0;
    }
    return 1;
}

/* A rank whose run ended before its runner joined the process group: the others' rendezvous
 * can never complete (c10d's store waits for every rank) and they would wait in it for the
 * group's timeout (a day without --timeout). Those still going RUN_RANKS_UNJOINED_GRACE_S after
 * it are ended, and the message line says why (as `run --ranks` does). 1 when it did. */
static int stop_the_waiting(app *a)
{
    live_run *L = a->live;
    double now = mono_now_s();
    for (int k = 0; k < L->nranks; k++) {
        live_rank *r = &L->rank[k];
        runner_state st = run_service_state(r->rs);
        if (!r->unjoined && (st == RUNNER_FINISHED || st == RUNNER_DEAD)) {
            r->unjoined = run_ranks_joined(a->ranks->s[k]) ? -1 : 1;
            r->ended_at = now;
        }
        if (r->unjoined != 1 || now < r->ended_at + RUN_RANKS_UNJOINED_GRACE_S)
            continue;
        r->unjoined = -1;
        strbuf who = STRBUF_INIT;
        for (int j = 0; j < L->nranks; j++)
            if (!settled(run_service_state(L->rank[j].rs))) {
                strbuf_addf(&who, "%s%d", who.len ? ", " : "", j);
                run_service_kill(L->rank[j].rs, "killed");
            }
        int many = strchr(who.buf, ',') != NULL;
        if (who.len)
            app_message(a, 1, "rank %d ended before it joined the process group: rank%s %s would wait for it in "
                        "the rendezvous (c10d's store) until the group's timeout; ended %s", k, many ? "s" : "",
                        who.buf, many ? "them" : "it");
        int any = who.len > 0;
        strbuf_release(&who);
        if (any)
            return 1;
    }
    return 0;
}

int live_react(app *a, int changed)
{
    if (!a->live || !run_service_has_runner(a->live->rs))
        return 0;
    int shown = (changed & (RUN_CHANGED_EVENTS | RUN_CHANGED_STATE)) != 0;
    if (a->live->nranks)
        shown |= react_ranks(a) | stop_the_waiting(a);
    runner_state st = run_service_state(a->live->rs);
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
        if (quiet(a))
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

/* The breaks a run-to keeps on its way, and those of a fresh runner. */
static int leg_breaks(app *a) { return BREAK_ON_ERROR | a->brk.nan; }   /* brk.nan: BREAK_ON_NAN... flags */
static int each_kernel(app *a) { return BREAK_EACH_KERNEL | leg_breaks(a); }

/* A continue of one run: to the breakpoint's kernel or name, else to the end (stops at an error
 * or a NaN on the way). */
static int continue_one(app *a, run_service *rs)
{
    int flags = BREAK_ON_ERROR | BREAK_ON_NAN;
    int64_t cur = run_service_current_kernel(rs);
    return a->brk.kernel > cur ? run_service_run_to_index(rs, a->brk.kernel, flags)
           : a->brk.name[0]    ? run_service_run_to_name(rs, a->brk.name, flags)
                               : run_service_continue(rs, flags);
}

static int run_to_one(app *a, run_service *rs, const char *to)
{
    char *end;
    long long v = strtoll(to, &end, 10);
    return *to && !*end ? run_service_run_to_index(rs, v, leg_breaks(a)) : run_service_run_to_name(rs, to, leg_breaks(a));
}

/* --ranks: rank k's verb, now (it is stopped). */
static int send_rank(app *a, int k, int what, const char *to)
{
    live_rank *r = &a->live->rank[k];
    r->from = run_service_current_kernel(r->rs);
    int rc = what == LIVE_PEND_STEP       ? run_service_step(r->rs)
             : what == LIVE_PEND_CONTINUE ? continue_one(a, r->rs)
                                          : run_to_one(a, r->rs, to);
    if (rc == 0)
        r->went = what;
    return rc;
}

/* --ranks: the verb on every rank: a stopped one goes now, one loading (or running to a far stop)
 * keeps it for its next stop, one running a step stops at its next kernel by itself. */
static int ranks_verb(app *a, int what, const char *to, const char *name)
{
    live_run *L = a->live;
    int moved = 0, kept = 0;
    snprintf(L->pending_to, sizeof L->pending_to, "%s", to ? to : "");
    for (int k = 0; k < L->nranks; k++) {
        live_rank *r = &L->rank[k];
        runner_state st = run_service_state(r->rs);
        if (st == RUNNER_STOPPED)
            moved += send_rank(a, k, what, L->pending_to) == 0;
        else if (st == RUNNER_STARTING || (st == RUNNER_RUNNING && !(what == LIVE_PEND_STEP && r->went == what))) {
            r->pending = what;
            kept++;
        }
    }
    if (!moved && !kept) {
        app_message(a, 1, "%s: no rank is stopped at a kernel (r restarts)", name);
        return -1;
    }
    L->hold = what != LIVE_PEND_STEP;
    a->follow = 1;
    if (kept)
        app_message(a, 0, "%s: %d rank(s) now, %d at their next stop", name, moved, kept);
    return 0;
}

int live_step(app *a)
{
    if (need_runner(a))
        return -1;
    if (a->live->nranks)
        return ranks_verb(a, LIVE_PEND_STEP, NULL, "step");
    if (busy(a, LIVE_PEND_STEP, NULL))
        return 0;
    return resumed(a, run_service_step(a->live->rs), "step");
}

int live_continue(app *a)
{
    if (need_runner(a))
        return -1;
    if (a->live->nranks)
        return ranks_verb(a, LIVE_PEND_CONTINUE, NULL, "continue");
    if (busy(a, LIVE_PEND_CONTINUE, NULL))
        return 0;
    return resumed(a, continue_one(a, a->live->rs), "continue");
}

static void forget_run(live_run *L)
{
    L->pending = LIVE_PEND_NONE;
    L->pause_asked = 0;
    L->end_noted = 0;
}

/* --ranks: every rank from its first kernel, in a fresh runner each (they meet again in the
 * rendezvous). */
static int restart_ranks(app *a)
{
    live_run *L = a->live;
    strbuf err = STRBUF_INIT;
    forget_run(L);
    L->hold = 0;
    int rc = 0;
    for (int k = 0; k < L->nranks && rc == 0; k++) {
        L->rank[k].pending = L->rank[k].went = LIVE_PEND_NONE;
        L->rank[k].unjoined = 0;   /* the fresh runner joins again, or stop_the_waiting says it did not */
        rc = run_service_restart(L->rank[k].rs, &err);
        if (rc == 0)
            run_service_set_breaks(L->rank[k].rs, each_kernel(a));
        else
            app_message(a, 1, "restart: rank %d: %s", k, err.buf);
    }
    if (rc == 0) {
        app_message(a, 0, "restarted: %d fresh runners from the first kernel", L->nranks);
        a->follow = 1;
    }
    strbuf_release(&err);
    return rc;
}

int live_restart(app *a)
{
    if (need_runner(a))
        return -1;
    if (a->live->nranks)
        return restart_ranks(a);
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
    if (a->live->nranks) {
        app_message(a, 1, "rerun-blocking: not with --ranks (start again with --deterministic)");
        return -1;
    }
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
    live_run *L = a->live;
    for (int k = 0; k < (L->nranks ? L->nranks : 1); k++) {
        run_service *rs = L->nranks ? L->rank[k].rs : L->rs;
        runner_state st = run_service_state(rs);
        if (st == RUNNER_STOPPED || st == RUNNER_STARTING)
            run_service_set_breaks(rs, BREAK_EACH_KERNEL | BREAK_ON_ERROR | on);
    }
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
    if (a->live->nranks)
        return ranks_verb(a, LIVE_PEND_RUN_TO, arg, "run-to");
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
    int rc = run_to_one(a, rs, arg);
    if (rc == 0)
        app_message(a, 0, "running to kernel %s%s", by_index ? "#" : "", arg);
    return resumed(a, rc, "run-to");
}

/* --ranks: ^C pauses every running rank; a second one (before they all stopped) ends them. */
static int interrupt_ranks(app *a)
{
    live_run *L = a->live;
    int running = 0;
    for (int k = 0; k < L->nranks; k++)
        running += run_service_state(L->rank[k].rs) == RUNNER_RUNNING;
    if (!running)
        return -1;
    L->hold = 0;
    for (int k = 0; k < L->nranks; k++) {
        live_rank *r = &L->rank[k];
        r->pending = LIVE_PEND_NONE;
        if (run_service_state(r->rs) != RUNNER_RUNNING)
            continue;
        if (!L->pause_asked)
            run_service_pause(r->rs);
        else
            run_service_quit(r->rs, 500);
    }
    if (!L->pause_asked) {
        L->pause_asked = 1;
        app_message(a, 0, "^C: %d rank(s) stop at their next kernel start (^C again ends them)", running);
    } else {
        L->pause_asked = 0;
        live_react(a, live_pump(a, 0));
        app_message(a, 0, "interrupted: the running ranks' runners were stopped; r restarts from the first kernel");
    }
    return 0;
}

int live_interrupt(app *a)
{
    if (a->live && a->live->nranks)
        return interrupt_ranks(a);
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
    live_run *L = a->live;
    for (int k = 0; L && k < (L->nranks ? L->nranks : 1); k++)
        run_service_interrupt(L->nranks ? L->rank[k].rs : L->rs, signal_name(sig));
}

/* --ranks: every rank's run ended and saved; the worst exit code. */
static int finish_ranks(app *a, int from_signal)
{
    live_run *L = a->live;
    int code = 0;
    for (int k = 0; k < L->nranks; k++) {
        run_service *rs = L->rank[k].rs;
        if (from_signal) {
            run_service_abandon(rs);
            code = 1;
            continue;
        }
        strbuf err = STRBUF_INIT;
        if (run_service_finish(rs, &err) < 0)
            fprintf(stderr, "aotidbg: rank %d: saving the session: %s\n", k, err.buf);
        else
            fprintf(stderr, "aotidbg: rank %d: session saved to %s (end_state: %s)\n", k, run_service_record_path(rs),
                    a->ranks ? a->ranks->s[k]->end_state : "?");
        strbuf_release(&err);
        int c = run_service_exit_code(rs);
        if (!c && run_service_write_failed(rs))
            c = 1;
        if (c > code)
            code = c;
    }
    free_ranks(L);
    free(a->live);
    a->live = NULL;
    return code;
}

int live_finish(app *a, int from_signal)
{
    if (!a->live)
        return 0;
    if (a->live->nranks)
        return finish_ranks(a, from_signal);
    run_service *rs = a->live->rs;
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
