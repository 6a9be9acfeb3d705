/* hooks.c — printer hooks, kernel boundaries and stepping (hooks.h). */
#define _GNU_SOURCE
#include "hooks.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "aoti_abi.h"
#include "device_timer.h"
#include "eager_refs.h"
#include "loop_iter.h"
#include "prof.h"
#include "protocol.h"
#include "runner_capture.h"
#include "stderr_tap.h"
#include "tensor_read.h"
#include "torch_abi.h"
#include "compat.h"

static hooks_config cfg;
static struct {
    uint8_t cmd;
    int64_t arg;
    char *name;            /* RUN_TO_NAME: the kernel name; "" any kernel (NAME@K / @K below) */
    uint32_t flags;
    int64_t iteration;     /* RUN_TO_NAME "NAME@K" or "@K": only in while_loop round K; -1 any */
} ctl = {PROTO_CMD_CONTINUE, -1, NULL, 0, -1};

static struct {
    int active;            /* inside a run */
    double t0;             /* run start, µs */
    int64_t kidx;          /* current kernel, -1 before the first */
    char *kname;
    size_t kname_cap;
    int kphase;            /* 0: before-hooks so far, 1: after-hooks seen */
    int kdone;             /* KERNEL(after) sent */
    int knan;              /* what after-tensors held: NONFIN_NAN | NONFIN_POSINF | NONFIN_NEGINF */
    char kinf[8][64];      /* after-tensors holding +-Inf and no NaN (--eager may explain them) */
    int nkinf;             /* how many; -1 more than kinf holds, or a name too long */
    double t_launch;       /* end of the latest before-hook */
    double duration;       /* t_launch -> first after-hook (after the sync) */
    double device_us;      /* the kernel's own time (device_timer.h), -1 unknown */
    const char *device_note;   /* why it is unknown / what it includes (static text), NULL none */
    int nan_stopped;       /* the once-per-run NaN stop happened */
    int div_stopped;       /* the once-per-run divergence stop happened (or the NaN stop took its place) */
    int printer_seen;      /* a printer hook fired in this run: interposed launches are not kernels */
    const char *source;    /* "printer" or "interpose": how the current kernel was seen */
    char branch[256];      /* the subgraph of the current kernel ("" main graph) */
    loop_iter loops;       /* the while_loop round of each launch, as the front end counts it */
    int64_t iteration;     /* the current kernel's round, -1 outside loops */
    int64_t before_left;   /* before-tensors of the current launch still to come (LAUNCHES), 0 unknown */
    int stop_pending;      /* 1 + the reason of a stop waiting for those tensors; 0 none */
    int stats_only;        /* its tensors are read without values, but for non-finite ones (round_stats) */
} K;

/* The package's launches (LAUNCHES): kernel name and before-tensor count, in
 * wrapper.cpp order; matched by name in order like session_match_call. */
static struct {
    char **kernel;
    uint32_t *before;
    size_t n, cap, next;   /* next: the row after the last matched */
} L;

/* Where wrapper.cpp launches each subgraph kernel (LAUNCHES' branch rows): the
 * branch of a launch whose hook says none, as run_record.c's branch_of. */
static struct {
    char **kernel, **branch;
    size_t n;
} B;

static hooks_counters counters;
static tread_scratch scratch;

double hooks_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(int code)
{
    fflush(stdout);
    fflush(stderr);
    stap_drain();
    _exit(code);
}

static void send_or_die(const proto_msg *m)
{
    if (cfg.send && cfg.send(m)) {
        fprintf(stderr, "aotidbg-runner: the front end went away; ending\n");
        die(1);
    }
}

/* Queued: flush_launch puts it on the wire before the launch, or the channel's flusher within
 * 10 ms, a stop or a fatal signal at once (channel.h). */
static void send_later_or_die(const proto_msg *m)
{
    if (!cfg.send_later) {
        send_or_die(m);
        return;
    }
    if (cfg.send_later(m)) {
        fprintf(stderr, "aotidbg-runner: the front end went away; ending\n");
        die(1);
    }
}

/* The kernel about to launch goes on the wire before it runs, so that even a SIGKILL in it leaves
 * it named; but not in a while_loop's second and later rounds (the ones folded): there, one
 * write per launch was most of a long loop's time, and the flusher thread, a stop, an error
 * and the fatal-signal handler still put every launch out (only a SIGKILL there loses the
 * last 10 ms). */
static void flush_launch(void)
{
    if (K.iteration >= 1 || !cfg.flush) return;
    if (cfg.flush()) {
        fprintf(stderr, "aotidbg-runner: the front end went away; ending\n");
        die(1);
    }
}

static volatile sig_atomic_t pause_requested;

void hooks_request_pause(int sig)
{
    (void)sig;
    pause_requested = 1;
}

void hooks_configure(const hooks_config *c) { cfg = *c; }

void hooks_add_launches(const char *const *kernels, const uint32_t *before, size_t n)
{
    if (L.n + n > L.cap) {
        size_t cap = L.cap ? L.cap : 64;
        while (cap < L.n + n)
            cap *= 2;
        char **k = realloc(L.kernel, cap * sizeof *k);
        uint32_t *b = k ? realloc(L.before, cap * sizeof *b) : NULL;
        if (!k || !b) {
            fprintf(stderr, "aotidbg-runner: out of memory for the launch table; stops come at the first hook\n");
            if (k)
                L.kernel = k;
            return;
        }
        L.kernel = k;
        L.before = b;
        L.cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        L.kernel[L.n] = strdup(kernels[i] ? kernels[i] : "");
        L.before[L.n++] = before[i];
    }
}

void hooks_add_branches(const char *const *kernels, const char *const *branches, size_t n)
{
    if (!n) return;
    char **k = realloc(B.kernel, (B.n + n) * sizeof *k);
    if (k) B.kernel = k;
    char **b = k ? realloc(B.branch, (B.n + n) * sizeof *b) : NULL;
    if (b) B.branch = b;
    if (!k || !b) {
        fprintf(stderr, "aotidbg-runner: out of memory for the branch table; loop rounds go uncounted\n");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        B.kernel[B.n] = strdup(kernels[i] ? kernels[i] : "");
        B.branch[B.n] = strdup(branches[i] ? branches[i] : "");
        if (B.kernel[B.n] && B.branch[B.n]) B.n++;
    }
}

static const char *branch_of(const char *name)
{
    for (size_t i = 0; i < B.n; i++)
        if (!strcmp(B.kernel[i], name)) return B.branch[i];
    return "";
}

/* The before-tensor count of the next launch of name: the first row of that
 * name after the last match, else the first of that name; 0 when none. */
static uint32_t launch_before(const char *name)
{
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = pass ? 0 : L.next; i < (pass ? L.next : L.n); i++)
            if (L.kernel[i] && !strcmp(L.kernel[i], name)) {
                L.next = i + 1;
                return L.before[i];
            }
    return 0;
}
int hooks_break_flags(void) { return (int)ctl.flags; }
hooks_counters hooks_get_counters(void) { return counters; }
void hooks_reset_counters(void) { memset(&counters, 0, sizeof counters); }

void hooks_set_control(uint8_t cmd, int64_t arg, const char *name, uint32_t break_flags)
{
    free(ctl.name);
    ctl.cmd = cmd;
    ctl.arg = arg;
    ctl.name = strdup(name ? name : "");
    ctl.flags = break_flags;
    ctl.iteration = -1;
    char *at = ctl.name ? strrchr(ctl.name, '@') : NULL, *end;
    if (at && at[1]) {   /* kernel names are C identifiers: an '@' is the round */
        long long k = strtoll(at + 1, &end, 10);
        if (!*end && k >= 0) {
            ctl.iteration = k;
            *at = 0;
        }
    }
}

void hooks_stop(int64_t kernel_index, int phase, int reason)
{
    proto_msg m = {.type = PROTO_STOPPED};
    m.u.stopped.kernel_index = kernel_index;
    m.u.stopped.phase = (uint8_t)phase;
    m.u.stopped.reason = (uint8_t)reason;
    send_or_die(&m);
    if (!cfg.wait_control) return;
    proto_msg c;
    double pt = prof_now();
    int r = cfg.wait_control(&c);
    prof_add(PROF_STOPPED, pt);
    if (r == 1) die(0);              /* QUIT */
    if (r < 0) die(1);               /* gone */
    hooks_set_control(c.u.control.cmd, c.u.control.arg, c.u.control.name, c.u.control.break_flags);
}

static void send_kernel(int phase, int status)
{
    proto_msg m = {.type = PROTO_KERNEL};
    m.u.kernel.index = K.kidx;
    m.u.kernel.name = K.kname;
    m.u.kernel.phase = (uint8_t)phase;
    m.u.kernel.status = (uint8_t)status;
    m.u.kernel.t_us = hooks_now_us() - K.t0;
    m.u.kernel.duration_us = phase ? K.duration : -1;
    m.u.kernel.device_us = phase ? K.device_us : -1;
    m.u.kernel.device_note = phase ? K.device_note : NULL;
    m.u.kernel.source = K.source;
    m.u.kernel.branch = K.branch;
    m.u.kernel.flags = phase == 0 && K.stats_only ? PROTO_KERNEL_STATS_ONLY : 0;
    double pt = prof_now();
    send_later_or_die(&m);
    prof_add(PROF_SEND, pt);
}

/* Sends KERNEL(after) for the current kernel, then the NaN stop if due. */
static void finish_kernel(int status)
{
    if (K.kidx < 0 || K.kdone) return;
    if (status == KSTAT_OK && K.knan) status = KSTAT_NAN;
    if (!K.kphase) K.duration = -1;   /* never reached an after-hook */
    K.device_us = dtimer_take_us(&K.device_note);
    if (status == KSTAT_ERROR) {
        K.device_us = -1;
        K.device_note = "the kernel failed: not timed";
    } else if (!K.kphase) {
        K.device_us = -1;
        K.device_note = "the kernel never reached an after-hook: not timed";
    }
    int eager_inf = 0;   /* every Inf it wrote, eager computes too (a mask): no NaN/Inf stop */
    if (status == KSTAT_NAN && !(K.knan & NONFIN_NAN) && K.nkinf > 0 && eref_active()) {
        eager_inf = 1;
        for (int i = 0; i < K.nkinf; i++)
            eager_inf &= eref_holds_eager(K.kinf[i]);
    }
    int diverged = eref_active() && eref_kernel_finish(K.kidx, send_or_die);
    send_kernel(1, status);
    K.kdone = 1;
    capture_kernel_end(status);
    if (status == KSTAT_NAN && !eager_inf && proto_nonfinite_breaks(K.knan, ctl.flags) && !K.nan_stopped) {
        K.nan_stopped = 1;
        K.div_stopped |= diverged;   /* one stop for both */
        hooks_stop(K.kidx, 1, PROTO_STOP_NAN);
    } else if (diverged && (ctl.flags & BREAK_ON_DIVERGE) && !K.div_stopped) {
        K.div_stopped = 1;
        hooks_stop(K.kidx, 1, PROTO_STOP_DIVERGE);
    }
}

static void start_kernel(const char *name, const char *source, const char *branch)
{
    finish_kernel(KSTAT_OK);
    dtimer_kernel(name);
    K.kidx++;
    K.source = source;
    snprintf(K.branch, sizeof K.branch, "%s", branch);
    K.iteration = loop_iter_next(&K.loops, *branch ? branch : branch_of(name), name);
    counters.kernels = K.kidx + 1;
    size_t n = strlen(name) + 1;
    if (n > K.kname_cap) {
        K.kname = realloc(K.kname, n);
        K.kname_cap = n;
    }
    memcpy(K.kname, name, n);
    K.kphase = 0;
    K.kdone = 0;
    K.knan = 0;
    K.nkinf = 0;
    K.duration = -1;
    if (!strcmp(source, "printer")) eref_kernel_start(name, branch);   /* the calls eager refers to */
    K.stop_pending = 0;
    K.before_left = !strcmp(source, "printer") ? launch_before(name) : 0;
    capture_kernel_start(K.kidx, name, branch, source);
    int reason = -1;
    if (ctl.cmd == PROTO_CMD_STEP) reason = PROTO_STOP_STEP;
    else if (ctl.cmd == PROTO_CMD_RUN_TO_INDEX && K.kidx == ctl.arg) reason = PROTO_STOP_BREAK_INDEX;
    else if (ctl.cmd == PROTO_CMD_RUN_TO_NAME && (!*ctl.name || !strcmp(name, ctl.name)) &&
             (ctl.iteration < 0 ? *ctl.name : K.iteration == ctl.iteration)) reason = PROTO_STOP_BREAK_NAME;
    else if (ctl.flags & BREAK_EACH_KERNEL) reason = PROTO_STOP_STEP;
    else if (pause_requested) reason = PROTO_STOP_PAUSE;
    /* a later round the run does not stop at is, unless anomalous, folded: its values would be dropped */
    K.stats_only = cfg.round_stats && cfg.max_values && K.iteration >= 1 && reason < 0;
    send_kernel(0, KSTAT_PENDING);
    if (K.before_left <= 0)   /* no before-tensors known to wait for: it may launch next */
        flush_launch();
    if (reason >= 0) {
        pause_requested = 0;   /* any stop answers a pending ^C */
        if (K.before_left > 0)
            K.stop_pending = reason + 1;   /* once the printer has handed over what the kernel reads */
        else
            hooks_stop(K.kidx, 0, reason);
    }
    K.t_launch = hooks_now_us();   /* an after-hook with no before-hook measures from here */
}

/* Blocking mode found a CUDA error: report it against the kernel just launched and end. */
static void cuda_failed(const char *text, int phase)
{
    proto_msg m = {.type = PROTO_ERROR};
    m.u.error.kernel_index = K.kidx;
    m.u.error.text = text;
    send_or_die(&m);
    if (K.kidx >= 0 && cfg.record) {
        K.kdone = 0;
        if (K.kphase == 0 && K.duration < 0) K.duration = hooks_now_us() - K.t_launch;
        K.device_us = -1;
        K.device_note = "the kernel failed: not timed";
        send_kernel(1, KSTAT_ERROR);
        K.kdone = 1;
    }
    capture_kernel_end(KSTAT_ERROR);
    if (ctl.flags & BREAK_ON_ERROR) hooks_stop(K.kidx, phase, PROTO_STOP_ERROR);
    proto_msg d = {.type = PROTO_DONE};
    d.u.done.status = 1;
    send_or_die(&d);
    fprintf(stderr, "aotidbg-runner: %s; the CUDA context is unusable, exiting\n", text);
    die(1);   /* no destructors: they would touch the dead context */
}

static void on_event_inner(AtenTensorHandle h, const char *tname, int before, const char *kname,
                           const char *branch)
{
    counters.events++;
    if (!K.active) return;
    K.printer_seen = 1;
    if (cfg.blocking && cfg.is_cuda) {
        char text[512];
        double pt = prof_now();
        int bad = tabi_cuda_sync_check(text, sizeof text);
        prof_add(PROF_SYNC, pt);
        if (bad) cuda_failed(text, before ? 0 : 1);
    }
    if (!cfg.record) return;
    if (!kname) kname = "";
    int other = K.kidx < 0 || strcmp(kname, K.kname) || strcmp(branch, K.branch);
    if (before) {
        if (other || K.kphase == 1) start_kernel(kname, "printer", branch);
    } else {
        if (other) start_kernel(kname, "printer", branch);   /* after without before */
        if (K.stop_pending) {   /* fewer before-tensors than wrapper.cpp said: stop now, after the launch */
            int reason = K.stop_pending - 1;
            K.stop_pending = 0;
            hooks_stop(K.kidx, 1, reason);
        }
        if (K.kphase == 0) {
            K.kphase = 1;
            K.duration = hooks_now_us() - K.t_launch;
        }
    }
    proto_msg m = {.type = PROTO_TENSOR};
    m.u.tensor.kernel_index = K.kidx;
    strbuf err = STRBUF_INIT;
    tensor_phase ph = before ? PHASE_BEFORE : PHASE_AFTER;
    tensor_rec *t = &m.u.tensor.t;
    if (tread_tensor(h, tname ? tname : "?", ph, K.stats_only ? 0 : cfg.max_values, 1, &scratch, t, &err))
        fprintf(stderr, "aotidbg-runner: kernel %lld %s: %s\n", (long long)K.kidx, K.kname, err.buf);
    else if (K.stats_only && t->has_stats && (t->stats.nan || t->stats.posinf || t->stats.neginf)) {
        tensor_rec v;   /* an anomaly keeps its round: its values after all (the metadata is the same) */
        if (!tread_tensor(h, t->name, ph, cfg.max_values, 0, &scratch, &v, &err)) {
            t->values = v.values;
            t->nvalues = v.nvalues;
            t->values_complete = v.values_complete;
        }
    }
    strbuf_release(&err);
    if (cfg.alloc) tread_alloc(h, &m.u.tensor.t);
    const tensor_stats *s = &m.u.tensor.t.stats;
    if (!before && m.u.tensor.t.has_stats) {
        K.knan |= (s->nan ? NONFIN_NAN : 0) | (s->posinf ? NONFIN_POSINF : 0) | (s->neginf ? NONFIN_NEGINF : 0);
        const char *tn = m.u.tensor.t.name ? m.u.tensor.t.name : "";
        if ((s->posinf || s->neginf) && K.nkinf >= 0) {
            if (K.nkinf < 8 && strlen(tn) < sizeof K.kinf[0])
                snprintf(K.kinf[K.nkinf++], sizeof K.kinf[0], "%s", tn);
            else
                K.nkinf = -1;
        }
    }
    if (before && eref_active()) eref_before(&m.u.tensor.t);
    capture_tensor(h, tname ? tname : "?", before);
    double pt = prof_now();
    send_later_or_die(&m);
    /* the last before-tensor (or one of a count not known): the launch comes next */
    if (before && (K.before_left <= 0 || K.before_left == 1))
        flush_launch();
    prof_add(PROF_SEND, pt);
    if (!before && eref_active()) {
        pt = prof_now();
        eref_after(h, &m.u.tensor.t);
        prof_add(PROF_EAGER, pt);
    }
    if (before && K.before_left > 0 && --K.before_left == 0 && K.stop_pending) {
        int reason = K.stop_pending - 1;   /* the last before-tensor: stopped before the launch, with them */
        K.stop_pending = 0;
        hooks_stop(K.kidx, 0, reason);
    }
    if (before) K.t_launch = hooks_now_us();
}

/* The device timer's marks are the first and the last thing a hook does, so
 * the kernel's own time holds none of the hook's work. */
static void on_event(AtenTensorHandle h, const char *tname, int before, const char *kname, const char *branch)
{
    if (K.active && cfg.record) {
        if (before) dtimer_hook();
        else dtimer_close();
    }
    double pt = prof_now();
    on_event_inner(h, tname, before, kname, branch);
    prof_add(PROF_HOOK, pt);
    if (K.active && cfg.record && before) dtimer_open();
}

/* A printer kernel's before-hooks have fired and its after-hooks not yet:
 * an interposed launch now is that kernel's own. */
static int printer_in_flight(void)
{
    return K.kidx >= 0 && !K.kdone && K.kphase == 0 && K.source && !strcmp(K.source, "printer");
}

void hooks_interposed(const char *kname, int phase)
{
    if (!K.active) return;
    if (phase == HOOKS_LAUNCH_QUEUED) return;   /* the device timer closed right after the real launch */
    if (!kname) kname = "";
    /* a launch no printer hook covers: no printer in this run so far, or one
     * outside the printer's hooks (a kernel inside a torch.cond branch) */
    int own = !K.printer_seen || !printer_in_flight();
    if (phase == HOOKS_LAUNCH_FAILED) {   /* blocking sync or the launch itself failed at this kernel */
        if (own && cfg.record && (K.kidx < 0 || K.kdone || strcmp(kname, K.kname)))
            start_kernel(kname, "interpose", "");
        const char *e = interpose_last_error();
        char text[1100];   /* "CUDA error: " keeps the shape of the other CUDA failures */
        snprintf(text, sizeof text, "CUDA error: %s", e && *e ? e : "kernel launch failed");
        cuda_failed(text, 0);
    }
    if (!own && phase == HOOKS_LAUNCH_BEFORE) capture_launch();   /* the printer kernel's own launch */
    if (!own || !cfg.record) return;   /* the printer's events win */
    if (phase == HOOKS_LAUNCH_BEFORE) {
        start_kernel(kname, "interpose", "");   /* may stop here: before the launch */
        capture_launch();
    } else if (phase == HOOKS_LAUNCH_AFTER && K.kidx >= 0 && !K.kdone && !strcmp(K.source, "interpose")) {
        K.kphase = 1;
        K.duration = hooks_now_us() - K.t_launch;   /* launch only, or launch + sync when blocking */
        finish_kernel(KSTAT_OK);
    }
}

void hooks_begin_run(void)
{
    free(K.kname);
    memset(&K, 0, sizeof K);
    K.kidx = -1;
    K.duration = -1;
    K.device_us = -1;
    K.kname = strdup("");
    K.kname_cap = 1;
    K.source = "printer";
    eref_begin_run();
    K.t0 = hooks_now_us();
    if (cfg.record && ctl.cmd == PROTO_CMD_STEP) hooks_stop(-1, 0, PROTO_STOP_START);
    dtimer_begin_run();
    K.t0 = hooks_now_us();
    K.active = 1;
}

int64_t hooks_end_run(int run_failed)
{
    K.active = 0;
    int64_t blame = -1;
    if (cfg.record && K.kidx >= 0) {
        if (run_failed && !K.kdone && K.kphase == 0) {   /* it never came back from its launch */
            finish_kernel(KSTAT_ERROR);
            blame = K.kidx;
        } else {
            finish_kernel(KSTAT_OK);
        }
    }
    capture_run_end(K.kidx + 1);
    return blame;
}

/* ---- the exported hooks ---------------------------------------------------- */

__attribute__((visibility("default"))) void aoti_torch_save_tensor_handle(AtenTensorHandle self,
                                                                          const char *tensor_name,
                                                                          const char *launch_prefix,
                                                                          const char *kernel_name)
{
    /* re-instrumented launches in a subgraph say which: "before_launch:true_graph_0" */
    const char *colon = launch_prefix ? strchr(launch_prefix, ':') : NULL;
    on_event(self, tensor_name, launch_prefix && launch_prefix[0] == 'b', kernel_name, colon ? colon + 1 : "");
}

/* Level 2: msg is "<before_launch|after_launch> - <kernel> - <arg>", or
 * "aoti_model_inputs - <arg>" for the model inputs (not a kernel: counted only). */
__attribute__((visibility("default"))) void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char *msg)
{
    if (!msg) return;
    const char *a = strstr(msg, " - ");
    const char *b = a ? strstr(a + 3, " - ") : NULL;
    int before = starts_with(msg, "before_launch"), after = starts_with(msg, "after_launch");
    if (!b || (!before && !after)) {
        counters.events++;
        return;
    }
    /* the kernel name sits between the separators; copy it for the compare */
    char kname[512];
    size_t n = (size_t)(b - (a + 3));
    if (n >= sizeof kname) n = sizeof kname - 1;
    memcpy(kname, a + 3, n);
    kname[n] = 0;
    on_event(self, b + 3, before, kname, "");
}
