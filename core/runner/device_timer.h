/* device_timer.h — a kernel's own time (KERNEL device_us), apart from the
 * hooks, statistics and value copies around it.
 *
 * CPU: the wall time from the end of the kernel's last before-hook ("open")
 * to its first after-hook ("close"): the launch alone.
 *
 * CUDA, a kernel launched through cuLaunchKernel (every Triton kernel; the
 * launch is interposed, interpose.c): two events on the launch's own stream
 * right around the real launch, per launch (a kernel with several launches
 * sums them). The function is loaded first (cuFuncLoad: a lazily loaded
 * function would otherwise load inside the launch, which may synchronize),
 * and module loading, the printer's hooks and any host work before the launch
 * stay outside the pair. Ahead of the first event a host function holds the
 * stream until the launch has returned, so the GPU runs event, kernel, event
 * back to back and the host's launch latency is not counted.
 *
 * An event pair has an overhead of its own on the GPU (the events' processing
 * and the launch's dispatch: ~2-3 us on the H200, where CUPTI gives a small
 * Triton kernel 1.1 us and the pair 3.5 us). dtimer_calibrate measures it
 * once, as the median of 25 held pairs around an empty kernel, and every CUDA
 * pair gives its time less that, never below 0 (the empty kernel's own time,
 * under a microsecond, comes off too). The runner logs the figure. Once
 * calibrated, every hold also has an empty kernel queued behind it, ahead of
 * the opening event, to take what the first work after a wait pays.
 *
 * CUDA, a kernel that never goes through cuLaunchKernel (an extern call:
 * cuBLAS, cuDNN, ATen): events at the hook marks, the stream held from the
 * open to the close. Its first call is not timed (a library's first call may
 * load modules and synchronize, which would wait on the hold): device_us -1
 * with a note; later calls of that name are. Every hook releases a hold first
 * (its own statistics kernels and syncs queue on that stream too).
 *
 * A hold that lasts HOLD_TIMEOUT (20 ms: the host synchronized while the
 * stream was held) leaves that kernel's time unknown (-1, noted); after
 * HOLD_TIMEOUTS_MAX in a run, holds of that kind (library calls', launches':
 * counted apart) stop for the run (library calls -1, launches with their
 * latency; noted). Under
 * CUDA_LAUNCH_BLOCKING=1 a launch waits for its kernel, so there is no hold:
 * the figure then includes the launch latency (noted). Without a CUDA runtime
 * (or its event functions) CUDA kernels get -1 (noted).
 *
 * Threads: the model's thread; the hold itself runs on CUDA's callback thread
 * and only reads the release counter. */
#ifndef AOTIDBG_DEVICE_TIMER_H
#define AOTIDBG_DEVICE_TIMER_H

void dtimer_setup(int is_cuda);   /* once the model is loaded */
/* Measures the pairs' own overhead with empty_launch (queues an empty kernel on
 * a stream, 0 ok; interpose_empty_kernel); none when it cannot (CPU, no holds). */
void dtimer_calibrate(int (*empty_launch)(void *stream));
void dtimer_begin_run(void);
void dtimer_kernel(const char *name);   /* a new kernel: forget the marks and launches */
void dtimer_open(void);           /* a before-hook ends (the model may launch now) */
void dtimer_hook(void);           /* a hook starts: release a hold (before any GPU work or sync of ours) */
void dtimer_close(void);          /* the first after-hook */
/* Around an interposed launch (interpose_set_timer): start right before the
 * real launch, stop right after it returns (ok: it succeeded). `loaded` 0 when
 * the function may still load inside the launch (no cuFuncLoad). */
void dtimer_launch_start(void *stream, int loaded);
void dtimer_launch_stop(void *stream, int ok);
/* The current kernel's time in µs, -1 when unknown; *note (static text, may
 * be NULL) says why it is unknown or what the figure includes, NULL when
 * nothing needs saying. CUDA: waits for the closing events. */
double dtimer_take_us(const char **note);

#endif
