/* runner_capture.h — CAPTURE (protocol.h): one kernel launch written in full
 * to a folder, for `aotidbg repro` (core/cli/cmd_repro.h reads it).
 *
 * The hooks (hooks.c) say when a kernel starts, hand over each tensor the
 * printer saves before and after it, and say when it ends; interpose.c's
 * launch record gives a CUDA launch's grid, block, shared memory and
 * argument bytes. For the one launch asked for, the runner writes
 *   DIR/in/NAME.npy        every tensor before the launch, every element, and
 *                          the weights asked for (from the container's
 *                          ExtractConstantsMapEntries, else its older
 *                          ExtractConstantsMap; `skipped` when it has neither)
 *   DIR/expected/NAME.npy  every tensor after it
 *   DIR/launch.txt         an interposed CUDA launch (lines below)
 *   DIR/capture.txt        last, so that its presence means the rest is there
 * A tensor is written as the kernel sees its memory: C-contiguous ones with
 * their shape; others as the 1-d span of elements from their first to their
 * last (capture.txt gives shape and strides). bfloat16 is written as numpy's
 * <u2 and float8 as |u1 (the bits); capture.txt names the real dtype.
 *
 * capture.txt, one record a line, tab-separated:
 *   kernel INDEX NAME BRANCH SOURCE        the launch captured
 *   tensor PHASE NAME FILE DTYPE SHAPE STRIDES LAYOUT DATA_PTR NBYTES
 *          (PHASE before|after; SHAPE/STRIDES comma-separated; LAYOUT
 *          contiguous|span; DATA_PTR hex; NBYTES of the file's data)
 *   status ok|nan|error                    how the kernel ended
 *   skipped NAME WHY                       a tensor that could not be written
 *   missing KERNELS                        the launch never came (KERNELS seen)
 * launch.txt: `function NAME`, `grid X Y Z`, `block X Y Z`, `shmem N`, then
 * `param I OFFSET SIZE HEX` per argument (the bytes the launch passed), or
 * `params unknown WHY` when the driver cannot say their sizes.
 * Errors: writing problems become `skipped` lines and a note on stderr; the
 * run goes on. Single-threaded like the hooks. */
#ifndef AOTIDBG_RUNNER_CAPTURE_H
#define AOTIDBG_RUNNER_CAPTURE_H
#include <stdint.h>
#include "aoti_abi.h"

/* CAPTURE: the folder and which launch (index >= 0, else the occurrence-th
 * launch named kernel), and the weights it reads ("NAME\tFQN\n" lines).
 * Copies its arguments. */
void capture_request(const char *dir, int64_t index, const char *kernel, uint32_t occurrence, const char *constants);
/* The loaded model (dlopen handle, container) whose weights are read. */
void capture_set_model(void *dl, void *container);
/* A kernel starts (hooks.c's numbering); decides whether it is the one. */
void capture_kernel_start(int64_t index, const char *name, const char *branch, const char *source);
/* A tensor of the current kernel, before (1) or after (0) the launch. */
void capture_tensor(AtenTensorHandle h, const char *name, int before);
/* An interposed launch of the current kernel (interpose.c's record). */
void capture_launch(void);
/* The current kernel ended with status (kernel_status). */
void capture_kernel_end(int status);
/* The run ended: writes `missing` when the launch never came. */
void capture_run_end(int64_t kernels);

#endif
