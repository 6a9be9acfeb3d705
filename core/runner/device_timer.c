/* device_timer.c — a kernel's own time (device_timer.h). */
#define _GNU_SOURCE
#include "device_timer.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "torch_abi.h"

#define HOLD_TIMEOUT_NS (100 * 1000000LL)
#define HOLD_TIMEOUTS_MAX 3

static struct {
    int cuda;                  /* events available and the model is on CUDA */
    int holds;                 /* hold the stream ahead of the opening event */
    void *ev_open, *ev_close;
    int opened, closed, queued;   /* marks of the current kernel */
    double t_open, t_close;    /* CPU, ns */
    unsigned held;             /* generation of the latest hold queued (0: none pending) */
    unsigned open_gen;         /* the hold ahead of the current opening event (0: none) */
    int timeouts;              /* holds that timed out this run */
} T;

static atomic_uint released;     /* holds up to this generation may end */
static atomic_uint timed_out;    /* the latest generation that ended by timeout */
static unsigned next_gen;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Runs on CUDA's callback thread; the stream waits for it to return. */
static void hold(void *arg)
{
    unsigned gen = (unsigned)(uintptr_t)arg;
    long long end = now_ns() + HOLD_TIMEOUT_NS;
    while (atomic_load_explicit(&released, memory_order_acquire) < gen)
        if (now_ns() > end) {
            atomic_store(&timed_out, gen);
            return;
        }
}

static void release(void)
{
    if (T.held) {
        atomic_store_explicit(&released, T.held, memory_order_release);
        T.held = 0;
    }
}

void dtimer_setup(int is_cuda)
{
    memset(&T, 0, sizeof T);
    if (!is_cuda)
        return;
    const cuda_rt *c = tabi_cuda();
    if (!c->event_create || !c->event_record || !c->event_synchronize || !c->event_elapsed_time ||
        c->event_create(&T.ev_open) || c->event_create(&T.ev_close))
        return;   /* no events: CUDA kernels get -1 */
    T.cuda = 1;
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
    T.holds = c->launch_host_func && !(lb && *lb && strcmp(lb, "0"));
}

void dtimer_begin_run(void)
{
    release();
    T.timeouts = 0;
    T.opened = T.closed = T.queued = 0;
}

void dtimer_kernel(void)
{
    release();
    T.opened = T.closed = T.queued = 0;
}

void dtimer_hook(void) { release(); }

void dtimer_open(void)
{
    T.opened = 1;
    T.closed = T.queued = 0;
    T.open_gen = 0;
    if (!T.cuda) {
        T.t_open = (double)now_ns();
        return;
    }
    const cuda_rt *c = tabi_cuda();
    release();
    if (T.holds && T.timeouts < HOLD_TIMEOUTS_MAX) {
        unsigned gen = ++next_gen;
        if (c->launch_host_func(NULL, hold, (void *)(uintptr_t)gen) == 0)
            T.held = T.open_gen = gen;
    }
    c->event_record(T.ev_open, NULL);
}

static void close_mark(void)
{
    if (!T.cuda) {
        T.t_close = (double)now_ns();
    } else {
        tabi_cuda()->event_record(T.ev_close, NULL);   /* queued behind the kernel, still held */
        release();
    }
    T.closed = 1;
}

void dtimer_queued(void)
{
    if (!T.opened)
        return;
    T.queued = 1;
    close_mark();   /* every queued launch moves the close behind it */
}

void dtimer_close(void)
{
    if (T.opened && !T.closed && !T.queued)
        close_mark();
    release();
}

double dtimer_take_us(void)
{
    release();
    double us = -1;
    if (T.opened && T.closed) {
        if (!T.cuda) {
            us = (T.t_close - T.t_open) / 1e3;
        } else {
            const cuda_rt *c = tabi_cuda();
            float ms = 0;
            if (c->event_synchronize(T.ev_close) == 0 && c->event_elapsed_time(&ms, T.ev_open, T.ev_close) == 0)
                us = ms * 1e3;
            if (T.open_gen && atomic_load(&timed_out) == T.open_gen) {   /* the hold gave up: the gap is in there */
                us = -1;
                T.timeouts++;
            }
        }
    }
    T.opened = T.closed = T.queued = 0;
    return us;
}
