/* hunts.h — hunts over a recorded session: the first kernel
 * whose after-tensors hold NaN/Inf, the first whose after-tensor differs from
 * a reference session beyond a tolerance, and the producer of a tensor (the
 * last earlier kernel that wrote it) so the user can walk back to the real
 * culprit; a plain-text report of a hit. Pure functions over the model, no
 * screen: the UI's glue (tui/hunt.c) selects kernels and shows the report.
 * Strings in hunt_hit point into the session (valid while it lives). */
#ifndef AOTIDBG_HUNTS_H
#define AOTIDBG_HUNTS_H
#include <stdint.h>
#include "model.h"
#include "strbuf.h"
#include "tensor_diff.h"

typedef struct {
    int64_t kernel;       /* kernel index; -1 none */
    const char *kernel_name;
    const tensor_rec *tensor;   /* the bad after-tensor */
    int64_t first_bad;    /* flat index of the first bad value; -1 unknown */
    tensor_diff diff;     /* hunt-diverge: against the reference */
    int is_diverge;
    double tol;
    const eager_check *eager;   /* against the eager program (--eager): the check that differs; else NULL */
} hunt_hit;

/* 1 and *h when found, 0 when no kernel qualifies. Only after-tensors the
 * kernel wrote count (no before-tensor of that name, or its values changed):
 * an input it merely read is some earlier kernel's output. */
int hunt_nan(const session *s, hunt_hit *h);
/* hunt_nan's test on one kernel, ke at position k of its session: 1 and
 * *h when one of its written after-tensors holds NaN/Inf (what hunt_nan
 * finds first in a whole session), for a reader that sees kernels one at a time. */
int hunt_nan_kernel(const kernel_event *ke, size_t k, hunt_hit *h);
int hunt_diverge(const session *s, const session *ref, double tol, hunt_hit *h);
/* The first kernel whose output departs from the eager program: its first
 * eager check that differs (the runner judged it, model.h eager_check). */
int hunt_eager(const session *s, hunt_hit *h);
/* 1 when after-tensor t is one ke wrote: no before-tensor of that name, or
 * one whose values (statistics) changed. Inputs it only read are not its output. */
int hunt_written(const kernel_event *ke, const tensor_rec *t);
/* Last kernel before `kernel` with an after-tensor named name; -1 none. */
int64_t hunt_producer(const session *s, int64_t kernel, const char *name);
/* hunt_producer by name, else (AOTI reuses buffers under new names) the last
 * earlier kernel that wrote a tensor with the same shape, dtype and
 * statistics; *as_name is the name it had there. */
int64_t hunt_producer_of(const session *s, int64_t kernel, const tensor_rec *t, const char **as_name);
/* 1 when x and y look like the same data: shape, dtype and statistics equal
 * (some finite elements): what hunt_producer_of follows a reused buffer by. */
int hunt_same_data(const tensor_rec *x, const tensor_rec *y);
/* The report: kernel, tensor, first bad index, and each input tensor of the
 * kernel with its producer kernel. */
void hunt_report(const session *s, const hunt_hit *h, strbuf *out);

#endif
