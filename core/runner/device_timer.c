/* device_timer.c — a kernel's own time (device_timer.h). */
#define _GNU_SOURCE
#include "device_timer.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "torch_abi.h"

#define HOLD_TIMEOUT_NS (20 * 1000000LL)   /* a launch, or a library call's host work: microseconds */
#define HOLD_TIMEOUTS_MAX 4   /* per run and kind of hold */
#define PAIRS 8   /* event pairs per kernel before they are folded into a sum */
#define CALIBRATIONS 25   /* event pairs around an empty kernel, for the pairs' own overhead */

/* Holds by what they hold: a library call between its hooks, or one launch. They are
 * counted apart, so library calls that synchronize do not turn off the launches' holds. */
enum { HOLD_HOOKS, HOLD_LAUNCH, HOLD_KINDS };

/* What a kernel name is known to do: learnt at its first call, kept for the process. */
enum { NAME_NEW, NAME_LAUNCHES, NAME_EXTERN };

static const char NOTE_NO_EVENTS[] = "no CUDA event functions in this process: not timed";
static const char NOTE_FIRST_EXTERN[] =
    "first call of a kernel not launched through cuLaunchKernel (a library call: cuBLAS, cuDNN, ATen): "
    "not timed, its first call may load modules and synchronize";
static const char NOTE_TIMEOUT[] =
    "the host synchronized while the stream was held (module or library loading): not timed";
static const char NOTE_LAZY[] =
    "first launch of a lazily loaded function (this driver has no cuFuncLoad): not timed";
static const char NOTE_LAUNCH_FAILED[] = "the launch failed: not timed";
static const char NOTE_NO_CLOSE[] = "the kernel never reached an after-hook: not timed";
static const char NOTE_NO_HOLD_EXTERN[] =
    "no stream hold (CUDA_LAUNCH_BLOCKING=1, or holds off after timeouts this run): a library call's "
    "figure would include the host's work, not timed";
static const char NOTE_LATENCY_BLOCKING[] = "CUDA_LAUNCH_BLOCKING=1: no stream hold, includes the launch latency";
static const char NOTE_LATENCY_TIMEOUTS[] =
    "holds off after timeouts this run: no stream hold, includes the launch latency";

typedef struct {
    void *ev[2];
    int bad;   /* failed or not timed: the kernel's sum is unknown */
} pair_ev;

static struct {
    int model_cuda;            /* the model runs on CUDA */
    int cuda;                  /* ... and events are available */
    int holds_ok;              /* a host function can hold the stream (not CUDA_LAUNCH_BLOCKING) */
    int in_kernel;             /* between dtimer_kernel and dtimer_take_us */
    unsigned char *state;      /* the current name's NAME_* (in the table; NULL without memory) */
    /* hook marks (CPU; CUDA kernels that do not launch through cuLaunchKernel) */
    void *ev_open, *ev_close;
    int opened, closed, hook_held;
    double t_open, t_close;    /* CPU, ns */
    /* interposed launches of the current kernel */
    pair_ev p[PAIRS];
    int np, npairs_made, pending, launches, lbad;
    double acc_us;
    const char *lnote;
    unsigned held;             /* generation of the latest hold queued (0: none pending) */
    unsigned timeouts_at_run[HOLD_KINDS], timeouts_at_kernel[HOLD_KINDS];
    double overhead_us;        /* an event pair's own time around an empty kernel (dtimer_calibrate) */
    int (*empty_launch)(void *stream);   /* queues an empty kernel; NULL none (no calibration) */
} T;

static atomic_uint released;                 /* holds up to this generation may end */
static atomic_uint n_timeouts[HOLD_KINDS];   /* holds that ended by timeout, since the start */
static unsigned next_gen;

static struct {
    char **name;
    unsigned char *state;
    size_t cap, len;
} names;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

/* The state slot of name, added as NAME_NEW when absent; NULL without memory. */
static unsigned char *name_state(const char *name)
{
    if ((names.len + 1) * 2 > names.cap) {
        size_t cap = names.cap ? names.cap * 2 : 256;
        char **n = calloc(cap, sizeof *n);
        unsigned char *st = calloc(cap, 1);
        if (!n || !st) {
            free(n);
            free(st);
            return NULL;
        }
        for (size_t i = 0; i < names.cap; i++)
            if (names.name[i]) {
                size_t s = name_hash(names.name[i]) & (cap - 1);
                while (n[s])
                    s = (s + 1) & (cap - 1);
                n[s] = names.name[i];
                st[s] = names.state[i];
            }
        free(names.name);
        free(names.state);
        names.name = n;
        names.state = st;
        names.cap = cap;
    }
    size_t s = name_hash(name) & (names.cap - 1);
    while (names.name[s] && strcmp(names.name[s], name))
        s = (s + 1) & (names.cap - 1);
    if (!names.name[s]) {
        if (!(names.name[s] = strdup(name)))
            return NULL;
        names.state[s] = NAME_NEW;
        names.len++;
    }
    return &names.state[s];
}

/* Runs on CUDA's callback thread; the stream waits for it to return. arg: the
 * generation times HOLD_KINDS plus the kind. */
static void hold(void *arg)
{
    uintptr_t a = (uintptr_t)arg;
    unsigned gen = (unsigned)(a / HOLD_KINDS);
    long long end = now_ns() + HOLD_TIMEOUT_NS;
    while (atomic_load_explicit(&released, memory_order_acquire) < gen)
        if (now_ns() > end) {
            atomic_fetch_add(&n_timeouts[a % HOLD_KINDS], 1);
            return;
        }
}

static void timeouts_now(unsigned out[HOLD_KINDS])
{
    for (int k = 0; k < HOLD_KINDS; k++)
        out[k] = atomic_load(&n_timeouts[k]);
}

static void release(void)
{
    if (T.held) {
        atomic_store_explicit(&released, T.held, memory_order_release);
        T.held = 0;
    }
}

static int holds_allowed(int kind)
{
    return T.holds_ok && atomic_load(&n_timeouts[kind]) - T.timeouts_at_run[kind] < HOLD_TIMEOUTS_MAX;
}

/* Holds `stream` until the next release(); 1 when queued. Behind the hold an
 * empty kernel (once calibrated) takes whatever the first work after a wait
 * pays, ahead of the opening event: on an H200 (tests/gpu) the pairs read
 * 5 us more with --values 4096 than with --values 0, and the first item after
 * a longer idle is the suspect (not proven). */
static int hold_stream(void *stream, int kind)
{
    if (!holds_allowed(kind))
        return 0;
    unsigned gen = ++next_gen;
    if (tabi_cuda()->launch_host_func(stream, hold, (void *)((uintptr_t)gen * HOLD_KINDS + (uintptr_t)kind)))
        return 0;
    T.held = gen;
    if (T.empty_launch)
        T.empty_launch(stream);
    return 1;
}

static void forget_marks(void)
{
    T.opened = T.closed = T.hook_held = 0;
    T.np = T.pending = T.launches = T.lbad = 0;
    T.acc_us = 0;
    T.lnote = NULL;
}

void dtimer_setup(int is_cuda)
{
    memset(&T, 0, sizeof T);   /* the calibration too: dtimer_calibrate after this */
    T.model_cuda = is_cuda;
    if (!is_cuda)
        return;
    const cuda_rt *c = tabi_cuda();
    if (!c->event_create || !c->event_record || !c->event_synchronize || !c->event_elapsed_time ||
        c->event_create(&T.ev_open) || c->event_create(&T.ev_close))
        return;   /* no events: CUDA kernels get -1 */
    T.cuda = 1;
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
    T.holds_ok = c->launch_host_func && !(lb && *lb && strcmp(lb, "0"));
}

void dtimer_begin_run(void)
{
    release();
    T.in_kernel = 0;
    timeouts_now(T.timeouts_at_run);
    forget_marks();
}

void dtimer_kernel(const char *name)
{
    release();
    forget_marks();
    T.in_kernel = 1;
    T.state = name_state(name ? name : "");
    timeouts_now(T.timeouts_at_kernel);
}

void dtimer_hook(void) { release(); }

void dtimer_open(void)
{
    if (!T.in_kernel)
        return;
    T.opened = 1;
    T.closed = 0;
    if (!T.model_cuda) {
        T.t_open = (double)now_ns();
        return;
    }
    release();
    /* only a name known not to launch through cuLaunchKernel is timed at the hooks: the others
     * are timed at their launches, and a first call may load modules (which waits on a hold) */
    if (!T.cuda || !T.state || *T.state != NAME_EXTERN) {
        T.opened = 0;
        return;
    }
    T.hook_held = hold_stream(NULL, HOLD_HOOKS);   /* the runner gives the model the legacy default stream */
    tabi_cuda()->event_record(T.ev_open, NULL);
}

void dtimer_close(void)
{
    if (T.in_kernel && T.opened && !T.closed) {
        if (!T.model_cuda)
            T.t_close = (double)now_ns();
        else
            tabi_cuda()->event_record(T.ev_close, NULL);   /* queued behind the kernel, still held */
        T.closed = 1;
    }
    release();
}

/* A pair's time less its own overhead, never below 0. */
static double less_overhead(double us)
{
    return us > T.overhead_us ? us - T.overhead_us : 0;
}

/* The finished pairs into acc_us (waits for them). */
static void fold(void)
{
    const cuda_rt *c = tabi_cuda();
    for (int i = 0; i < T.np; i++) {
        float ms = 0;
        if (T.p[i].bad || c->event_synchronize(T.p[i].ev[1]) || c->event_elapsed_time(&ms, T.p[i].ev[0], T.p[i].ev[1]))
            T.lbad = 1;
        else
            T.acc_us += less_overhead(ms * 1e3);
    }
    T.np = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void dtimer_calibrate(int (*empty_launch)(void *stream))
{
    if (!T.cuda || !T.holds_ok || !empty_launch)
        return;
    const cuda_rt *c = tabi_cuda();
    double us[CALIBRATIONS];
    int n = 0;
    T.empty_launch = NULL;   /* the first pass below has no empty kernel behind its holds yet */
    if (empty_launch(NULL)) {
        fprintf(stderr, "aotidbg-runner: device timer: no calibration (no empty kernel); device_us keeps the "
                        "pairs' own overhead (a few microseconds)\n");
        return;
    }
    T.empty_launch = empty_launch;   /* from here hold_stream queues one behind each hold, as in the run */
    unsigned before[HOLD_KINDS], after[HOLD_KINDS];
    for (int i = 0; i < CALIBRATIONS; i++) {
        float ms = 0;
        timeouts_now(before);
        int held = hold_stream(NULL, HOLD_LAUNCH);
        c->event_record(T.ev_open, NULL);
        int bad = empty_launch(NULL);
        c->event_record(T.ev_close, NULL);
        release();
        if (c->event_synchronize(T.ev_close) || c->event_elapsed_time(&ms, T.ev_open, T.ev_close))
            bad = 1;
        timeouts_now(after);
        if (bad || !held || memcmp(before, after, sizeof before))
            continue;
        us[n++] = ms * 1e3;
    }
    if (n < CALIBRATIONS / 2) {
        T.empty_launch = NULL;
        fprintf(stderr, "aotidbg-runner: device timer: no calibration (%d of %d event pairs around an empty kernel "
                        "timed); device_us keeps the pairs' own overhead (a few microseconds)\n", n, CALIBRATIONS);
        return;
    }
    qsort(us, (size_t)n, sizeof us[0], cmp_double);
    T.overhead_us = us[n / 2];
    fprintf(stderr, "aotidbg-runner: device timer: %.2f us of event-pair overhead (median of %d around an empty "
                    "kernel) comes off every CUDA device_us\n", T.overhead_us, n);
}

void dtimer_launch_start(void *stream, int loaded)
{
    if (!T.model_cuda || !T.in_kernel)
        return;
    release();   /* a hook-level hold must not hold this launch */
    T.launches++;
    if (!T.cuda) {
        T.lbad = 1;
        T.lnote = NOTE_NO_EVENTS;
        return;
    }
    if (!loaded) {   /* it may load (and synchronize) inside the launch: no hold, no figure */
        T.lbad = 1;
        T.lnote = NOTE_LAZY;
        return;
    }
    if (T.np == PAIRS)
        fold();
    pair_ev *p = &T.p[T.np];
    const cuda_rt *c = tabi_cuda();
    if (T.np >= T.npairs_made) {
        if (c->event_create(&p->ev[0]) || c->event_create(&p->ev[1])) {
            T.lbad = 1;
            T.lnote = NOTE_NO_EVENTS;
            return;
        }
        T.npairs_made++;
    }
    p->bad = 0;
    if (!hold_stream(stream, HOLD_LAUNCH) && !T.lnote)
        T.lnote = T.holds_ok ? NOTE_LATENCY_TIMEOUTS : NOTE_LATENCY_BLOCKING;
    c->event_record(p->ev[0], stream);
    T.pending = 1;
}

void dtimer_launch_stop(void *stream, int ok)
{
    if (!T.pending)
        return;
    T.pending = 0;
    pair_ev *p = &T.p[T.np++];
    tabi_cuda()->event_record(p->ev[1], stream);
    release();
    if (!ok) {
        p->bad = 1;
        T.lnote = NOTE_LAUNCH_FAILED;
    }
}

double dtimer_take_us(const char **note)
{
    release();
    double us = -1;
    const char *why = NULL;
    if (!T.in_kernel) {
        /* nothing to time */
    } else if (!T.model_cuda) {
        if (T.opened && T.closed)
            us = (T.t_close - T.t_open) / 1e3;
    } else if (T.launches) {   /* timed at its launches */
        if (T.state)
            *T.state = NAME_LAUNCHES;
        if (T.cuda)
            fold();
        us = T.lbad ? -1 : T.acc_us;
        why = T.lnote;
    } else if (!T.cuda) {
        why = NOTE_NO_EVENTS;
    } else if (T.opened) {   /* a library call timed at the hooks */
        float ms = 0;
        if (!T.closed)
            why = NOTE_NO_CLOSE;
        else if (!T.hook_held)
            why = NOTE_NO_HOLD_EXTERN;
        else if (tabi_cuda()->event_synchronize(T.ev_close) == 0 &&
                 tabi_cuda()->event_elapsed_time(&ms, T.ev_open, T.ev_close) == 0)
            us = less_overhead(ms * 1e3);
    } else if (T.state && *T.state != NAME_LAUNCHES) {   /* its first call: learn that it does not launch */
        *T.state = NAME_EXTERN;
        why = NOTE_FIRST_EXTERN;
    }
    unsigned now[HOLD_KINDS];
    timeouts_now(now);
    if (T.model_cuda && T.cuda && memcmp(now, T.timeouts_at_kernel, sizeof now)) {
        us = -1;   /* a hold of this kernel gave up: the host's wait is in there */
        why = NOTE_TIMEOUT;
    }
    T.in_kernel = 0;
    forget_marks();
    if (note)
        *note = why;
    return us;
}
