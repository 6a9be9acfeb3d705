/* hooks.h — the printer hooks the model calls, and what they do: kernel
 * boundaries, KERNEL/TENSOR events, blocking-mode error checks, stepping.
 *
 * The model, built with aot_inductor.debug_intermediate_value_printer, calls
 * aoti_torch_save_tensor_handle (level 1) / aoti_torch_print_tensor_handle
 * (level 2) before and after every kernel for each tensor argument; the
 * runner defines both and exports them (-rdynamic), so those calls land here
 * on the model's thread. A kernel starts at the first "before_launch" event
 * after an "after_launch" one (or under a new kernel name or branch). A
 * re-instrumented launch inside a subgraph passes "before_launch:<subgraph>"
 * (reinstrument.h); the part after ':' is the kernel's branch (KERNEL.branch).
 *
 * Stops: "before kernel k" is k's last before-hook when the front end said
 * how many tensors the printer saves before that launch (LAUNCHES,
 * hooks_add_launches): KERNEL(k, before) and every TENSOR(before) of k have
 * been sent, so the front end shows what k is about to consume; without that
 * count, k's first before-hook (its TENSOR(before) follow the next CONTROL).
 * When fewer before-hooks came than said, the stop comes at k's first
 * after-hook (phase 1). A NaN stop (BREAK_ON_NAN) comes once per run, after the first
 * kernel whose after-tensors hold NaN/Inf, when that kernel is complete (at
 * the next kernel's first hook, or when the run returns). While stopped the
 * hook blocks reading the socket; QUIT (or the front end going away) ends
 * the process on the spot.
 *
 * Values (round_stats, LOAD flag ROUND_STATS): a kernel in a while_loop's
 * round 1 or later that no stop is due at is read without values, and its
 * KERNEL(before) says STATS_ONLY; a tensor of it holding NaN/Inf is read a
 * second time for its values (the front end keeps that round whole).
 *
 * Single-threaded by design: one model thread, one run at a time. */
#ifndef AOTIDBG_HOOKS_H
#define AOTIDBG_HOOKS_H
#include <stdint.h>
#include <stdio.h>
#include "protocol.h"

typedef struct {
    int record;          /* 0: hooks only count events (AOTIDBG_RUNNER_RECORD=0, bench) */
    int blocking;        /* cudaDeviceSynchronize + error check at every hook (CUDA models) */
    int is_cuda;
    size_t max_values;
    int (*send)(const proto_msg *m);         /* 0 ok, -1 the front end is gone */
    int (*wait_control)(proto_msg *ctl);     /* blocks: 0 a CONTROL in *ctl, 1 QUIT, -1 gone */
    int alloc;           /* TENSORs say where their elements sit (PROTO_LOAD_ALLOC) */
    int (*send_later)(const proto_msg *m);   /* queues (NULL: send does), written within 10 ms (channel.h) */
    int (*flush)(void);
    int round_stats;     /* PROTO_LOAD_ROUND_STATS: no values in a loop's later rounds but at stops and NaN/Inf */
} hooks_config;

typedef struct {
    uint64_t events;     /* hook calls during runs */
    int64_t kernels;     /* kernels seen in the last run */
} hooks_counters;

void hooks_configure(const hooks_config *c);
/* Appends the package's launches (LAUNCHES): kernel names in wrapper.cpp order
 * and the tensors the printer saves before each. */
void hooks_add_launches(const char *const *kernels, const uint32_t *before, size_t n);
/* Appends LAUNCHES' branch rows: the subgraph each kernel is launched in, for launches
 * whose hook names none (their while_loop round is counted in it). */
void hooks_add_branches(const char *const *kernels, const char *const *branches, size_t n);
void hooks_set_control(uint8_t cmd, int64_t arg, const char *name, uint32_t break_flags);
/* Starts a run: clock, kernel numbering; stops at START when the control says STEP. */
void hooks_begin_run(void);
/* After the model returned: completes the last kernel (may stop for NaN).
 * When the run failed, a kernel that never reached its after-hooks is marked
 * error. Returns the kernel index to blame for a failure (-1 none). */
int64_t hooks_end_run(int run_failed);
/* SIGUSR1's handler: the next kernel start stops with PAUSE (async-signal-safe). */
void hooks_request_pause(int sig);
/* Sends STOPPED and blocks for the next CONTROL (QUIT / peer gone: exits). */
void hooks_stop(int64_t kernel_index, int phase, int reason);
int hooks_break_flags(void);
hooks_counters hooks_get_counters(void);
void hooks_reset_counters(void);
double hooks_now_us(void);   /* CLOCK_MONOTONIC */

/* Kernel boundaries from interposed cuLaunchKernel (interpose.c), for CUDA
 * packages built without the printer, and for the launches a printer package
 * does not hook (kernels inside torch.cond / while_loop branches): a launch
 * while no printer kernel is between its before- and after-hooks is one
 * kernel, KERNEL source "interpose" (branch "": the front end names it from
 * wrapper.cpp), stepping and breaks stop before the launch. FAILED (always honoured, also
 * with the printer): ERROR naming the kernel with interpose_last_error(),
 * KERNEL(after, error), DONE 1 and exit. Called on the launching thread. */
#define HOOKS_LAUNCH_BEFORE 0
#define HOOKS_LAUNCH_AFTER 1
#define HOOKS_LAUNCH_FAILED 2
#define HOOKS_LAUNCH_QUEUED 3   /* the launch returned, before the blocking sync: device_timer's close */
void hooks_interposed(const char *kernel_name, int phase);

/* interpose.c's API (it has no header of its own). */
void interpose_set_callback(void (*cb)(const char *kernel_name, int phase, void *ctx), void *ctx);
int interpose_set_blocking(int on);
const char *interpose_last_error(void);
int interpose_available(void);
void interpose_set_timer(void (*start)(void *stream, int loaded), void (*stop)(void *stream, int ok));
int interpose_empty_kernel(void *stream);
/* During a launch's BEFORE callback: its function name, grid, block, shared
 * memory and argument bytes as launch.txt lines (runner_capture.h); -1 when no
 * launch is under way. */
int interpose_write_launch(FILE *f);

#endif
