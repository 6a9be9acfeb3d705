/* test_device_timer.c — the runner's device timer (core/runner/device_timer.c)
 * against a fake CUDA runtime: one stream run by a "GPU" thread in order
 * (events stamp the real clock when reached, host functions run there and
 * hold the stream, kernels sleep their duration). Checks that a launch's time
 * leaves out the host's latency before it (the hold), that a library call's
 * first call is noted and its later calls timed at the hooks, that launches
 * of one kernel add up, and that a host that synchronizes while the stream is
 * held ends in -1 with a note after the timeout instead of a hang.
 * A loaded machine can keep the host thread off the CPU past the hold's 20 ms
 * timeout (-1, noted): each timed case gets a few tries, one must time right. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "device_timer.h"
#include "torch_abi.h"

typedef struct { double t_us; int done; } fake_event;
enum { OP_HOST, OP_RECORD, OP_KERNEL };
typedef struct { int kind; void (*fn)(void *); void *arg; fake_event *ev; int us; } op;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    op q[1024];
    size_t head, tail;   /* head: next to run; tail: next free */
    int busy;
} G = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *gpu(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&G.mu);
        while (G.head == G.tail)
            pthread_cond_wait(&G.cv, &G.mu);
        op o = G.q[G.head % 1024];
        G.busy = 1;
        pthread_mutex_unlock(&G.mu);
        if (o.kind == OP_HOST)
            o.fn(o.arg);
        else if (o.kind == OP_KERNEL)
            usleep((useconds_t)o.us);
        pthread_mutex_lock(&G.mu);
        if (o.kind == OP_RECORD) {
            o.ev->t_us = now_us();
            o.ev->done = 1;
        }
        G.head++;
        G.busy = 0;
        pthread_cond_broadcast(&G.cv);
        pthread_mutex_unlock(&G.mu);
    }
    return NULL;
}

static void push(op o)
{
    pthread_mutex_lock(&G.mu);
    if (o.kind == OP_RECORD)
        o.ev->done = 0;
    G.q[G.tail++ % 1024] = o;
    pthread_cond_broadcast(&G.cv);
    pthread_mutex_unlock(&G.mu);
}

static void drain(void)   /* cudaDeviceSynchronize */
{
    pthread_mutex_lock(&G.mu);
    while (G.head != G.tail)
        pthread_cond_wait(&G.cv, &G.mu);
    pthread_mutex_unlock(&G.mu);
}

static int f_event_create(void **e)
{
    *e = calloc(1, sizeof(fake_event));
    return *e ? 0 : 2;
}
static int f_event_record(void *e, void *s)
{
    (void)s;
    push((op){.kind = OP_RECORD, .ev = e});
    return 0;
}
static int f_event_synchronize(void *e)
{
    fake_event *ev = e;
    pthread_mutex_lock(&G.mu);
    while (!ev->done)
        pthread_cond_wait(&G.cv, &G.mu);
    pthread_mutex_unlock(&G.mu);
    return 0;
}
static int f_event_elapsed_time(float *ms, void *a, void *b)
{
    *ms = (float)((((fake_event *)b)->t_us - ((fake_event *)a)->t_us) / 1e3);
    return 0;
}
static int f_launch_host_func(void *s, void (*fn)(void *), void *data)
{
    (void)s;
    push((op){.kind = OP_HOST, .fn = fn, .arg = data});
    return 0;
}

static cuda_rt fake = {.event_create = f_event_create, .event_record = f_event_record,
                       .event_synchronize = f_event_synchronize, .event_elapsed_time = f_event_elapsed_time,
                       .launch_host_func = f_launch_host_func};

const cuda_rt *tabi_cuda(void) { return &fake; }

static void kernel(int us) { push((op){.kind = OP_KERNEL, .us = us}); }

#define TRIES 5
/* One try: a fresh run (its timeout count too), then `body` must leave `us`. */
#define TIMED_RIGHT(lo, hi, body)                                      \
    ({                                                                 \
        int ok_ = 0;                                                   \
        for (int t_ = 0; t_ < TRIES && !ok_; t_++) {                   \
            const char *note_ = "x";                                  \
            double us;                                                 \
            dtimer_begin_run();                                        \
            body;                                                      \
            us = dtimer_take_us(&note_);                               \
            ok_ = us >= (lo) && us < (hi) && note_ == NULL;            \
            if (!ok_)                                                  \
                fprintf(stderr, "try %d: %.0f us (%s)\n", t_, us, note_ ? note_ : "no note"); \
        }                                                              \
        ok_;                                                           \
    })

/* A Triton kernel: the host takes 10 ms between the pair's first event and the
 * launch (the latency the hold keeps out; under the hold's 20 ms timeout), the
 * kernel 5 ms. The bounds leave room for a loaded machine's sleeps, not for
 * the host's 10 ms. */
static void test_launch_leaves_out_the_host(void)
{
    CHECK(TIMED_RIGHT(4900, 12000, {
        dtimer_kernel("triton_poi_fused_0");
        dtimer_open();   /* its before-hook: nothing held, nothing recorded for a launching kernel */
        dtimer_launch_start(NULL, 1);
        usleep(10000);
        kernel(5000);
        dtimer_launch_stop(NULL, 1);
        dtimer_close();
    }));
}

static void test_launches_add_up(void)
{
    CHECK(TIMED_RIGHT(9900, 60000, {
        dtimer_kernel("triton_red_fused_1");
        for (int i = 0; i < 10; i++) {   /* more than the 8 pairs kept at once: folded on the way */
            dtimer_launch_start(NULL, 1);
            kernel(1000);
            dtimer_launch_stop(NULL, 1);
            usleep(10000);   /* host work between the launches: not counted */
        }
    }));
}

static void test_library_call_first_then_timed(void)
{
    const char *note;
    dtimer_kernel("aoti_torch_cuda_mm_out");
    dtimer_open();
    usleep(5000);   /* cuBLAS setup */
    kernel(3000);
    dtimer_close();
    CHECK(dtimer_take_us(&note) == -1);
    CHECK_CONTAINS(note, "first call of a kernel not launched through cuLaunchKernel");
    CHECK(TIMED_RIGHT(4900, 12000, {
        dtimer_kernel("aoti_torch_cuda_mm_out");
        dtimer_open();
        usleep(10000);   /* host work before the library's launch: held out */
        kernel(5000);
        dtimer_close();
    }));
}

static void test_host_sync_while_held_times_out(void)
{
    const char *note;
    dtimer_kernel("aoti_torch_cuda_mm_out");   /* known as a library call by now */
    dtimer_open();
    double t0 = now_us();
    drain();   /* the library synchronizes: waits for the hold, which gives up after 20 ms */
    kernel(1000);
    dtimer_close();
    CHECK(now_us() - t0 < 2e6);
    CHECK(dtimer_take_us(&note) == -1);
    CHECK_CONTAINS(note, "synchronized while the stream was held");
    /* a launch right after is timed again, its own hold untouched by the library's timeout */
    dtimer_kernel("triton_poi_fused_0");
    dtimer_launch_start(NULL, 1);
    kernel(2000);
    dtimer_launch_stop(NULL, 1);
    double us = dtimer_take_us(&note);
    CHECK((us >= 1900 && us < 20000) || (us == -1 && strstr(note, "synchronized")));   /* -1: a loaded box */
}

static void test_failed_and_lazy_launches_are_noted(void)
{
    const char *note;
    dtimer_kernel("triton_poi_fused_2");
    dtimer_launch_start(NULL, 1);
    dtimer_launch_stop(NULL, 0);
    CHECK(dtimer_take_us(&note) == -1);
    CHECK_CONTAINS(note, "the launch failed");
    dtimer_kernel("triton_poi_fused_3");
    dtimer_launch_start(NULL, 0);
    kernel(500);
    dtimer_launch_stop(NULL, 1);
    CHECK(dtimer_take_us(&note) == -1);
    CHECK_CONTAINS(note, "lazily loaded");
    drain();
}

static int fake_empty(void *stream)
{
    (void)stream;
    kernel(2000);   /* an "empty" kernel that takes 2 ms on this fake GPU */
    return 0;
}

/* The calibration's median pair (2 ms here) comes off every pair: 5 ms reads 3. */
static void test_calibration_comes_off(void)
{
    dtimer_calibrate(fake_empty);
    CHECK(TIMED_RIGHT(2500, 4500, {
        dtimer_kernel("triton_poi_fused_0");
        dtimer_launch_start(NULL, 1);
        kernel(5000);
        dtimer_launch_stop(NULL, 1);
    }));
    CHECK(TIMED_RIGHT(0, 1, {   /* shorter than the overhead: 0, not negative */
        dtimer_kernel("triton_poi_fused_0");
        dtimer_launch_start(NULL, 1);
        dtimer_launch_stop(NULL, 1);
    }));
}

static void test_cpu_is_the_launch_alone(void)
{
    const char *note;
    dtimer_setup(0);
    dtimer_begin_run();
    dtimer_kernel("cpp_fused_relu_0");
    dtimer_open();
    usleep(3000);
    dtimer_close();
    double us = dtimer_take_us(&note);
    CHECK(us >= 2900 && us < 20000);
    CHECK(note == NULL);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, gpu, NULL);
    unsetenv("CUDA_LAUNCH_BLOCKING");
    dtimer_setup(1);
    dtimer_begin_run();
    RUN(test_launch_leaves_out_the_host);
    RUN(test_launches_add_up);
    RUN(test_library_call_first_then_timed);
    RUN(test_host_sync_while_held_times_out);
    RUN(test_failed_and_lazy_launches_are_noted);
    RUN(test_calibration_comes_off);
    RUN(test_cpu_is_the_launch_alone);
    return CHECK_DONE();
}
