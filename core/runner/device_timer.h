/* device_timer.h — a kernel's own time (KERNEL device_us), apart from the
 * hooks, statistics and value copies around it.
 *
 * Marks: "open" at the end of a before-hook (the model may launch now; when a
 * kernel has several before-hooks the last one counts), "close" at the first
 * after-hook, or right after an interposed launch was queued.
 *   CPU:  the wall time from open to close: the launch alone.
 *   CUDA: two events on the stream the model runs on (the legacy default
 *         stream: the runner passes the model a NULL stream). Ahead of the
 *         first, a host function holds the stream until the kernel is queued
 *         behind it (or the close comes), so the GPU runs event, kernel(s),
 *         event back to back and the host's launch latency is not counted.
 *         Every hook releases a hold first (its own statistics kernels and
 *         syncs queue on that stream too). Under CUDA_LAUNCH_BLOCKING=1 a
 *         launch would wait for the hold, so there is none (the figure then
 *         includes the launch latency, a few microseconds). A hold that lasts
 *         HOLD_TIMEOUT (the model synchronized inside the launch) leaves that
 *         kernel's time unknown; after three, holds stop for the run.
 * Without a CUDA runtime (or its event functions) CUDA kernels get -1.
 *
 * Threads: the model's thread; the hold itself runs on CUDA's callback thread
 * and only reads the release counter. */
#ifndef AOTIDBG_DEVICE_TIMER_H
#define AOTIDBG_DEVICE_TIMER_H

void dtimer_setup(int is_cuda);   /* once the model is loaded */
void dtimer_begin_run(void);
void dtimer_kernel(void);         /* a new kernel: forget the marks */
void dtimer_open(void);           /* a before-hook ends (or an interposed launch is about to happen) */
void dtimer_hook(void);           /* a hook starts: release a hold (before any GPU work or sync of ours) */
void dtimer_queued(void);         /* an interposed launch returned, before any sync: close after it, release */
void dtimer_close(void);          /* the first after-hook: close (unless a queued launch closed it) */
/* The current kernel's time in µs, -1 when unknown (no open or close, a hold
 * timed out, no events); CUDA: waits for the closing event. */
double dtimer_take_us(void);

#endif
