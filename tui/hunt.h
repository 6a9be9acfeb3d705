/* hunt.h — hunts over a session (issue 7 item 3) and the tensor diff against
 * a reference session: the first kernel whose after-tensors hold NaN/Inf, the
 * first whose after-tensor differs from the reference beyond a tolerance, and
 * the producer of a tensor (the last earlier kernel that had that name as an
 * after-tensor) so the user can walk back to the real culprit.
 * Curses-free: the unit tests drive it on in-memory sessions. The app-level
 * glue (hunt_action_*) selects kernels and opens the report in the text view.
 * Strings in hunt_hit point into the session (valid while it lives). */
#ifndef AOTIDBG_HUNT_H
#define AOTIDBG_HUNT_H
#include <stdint.h>
#include "app.h"
#include "model.h"
#include "strbuf.h"

typedef struct {
    int by_values;        /* 1: element values compared; 0: statistics only */
    int sampled;          /* values were a sample, not every element */
    int shape_differs;
    size_t compared;      /* values compared */
    size_t differing;     /* values beyond the tolerance */
    double max_abs, max_rel;
    int64_t first_diff;   /* flat index of the first value beyond tol; -1 none */
} tensor_diff;

typedef struct {
    int64_t kernel;       /* kernel index; -1 none */
    const char *kernel_name;
    const tensor_rec *tensor;   /* the bad after-tensor */
    int64_t first_bad;    /* flat index of the first bad value; -1 unknown */
    tensor_diff diff;     /* hunt-diverge: against the reference */
    int is_diverge;
    double tol;
} hunt_hit;

/* Compares t against r element-wise when both hold values (over the common
 * prefix), else their statistics. A value differs when
 * |t - r| > tol + tol * |r| (NaN vs a number differs; NaN vs NaN does not). */
void tensor_compare(const tensor_rec *t, const tensor_rec *r, double tol, tensor_diff *d);
/* The tensor with this name and phase in kernel k of s; NULL when absent. */
const tensor_rec *session_find_tensor(const session *s, int64_t k, const char *name, tensor_phase ph);
/* Flat index of the first non-finite value, -1 when none or no values. */
int64_t tensor_first_nonfinite(const tensor_rec *t);
/* "[i, j, k]" of a flat row-major index. */
void fmt_index(strbuf *sb, const tensor_rec *t, int64_t flat);

/* 1 and *h when found, 0 when no kernel qualifies. Only after-tensors the
 * kernel wrote count (no before-tensor of that name, or its values changed):
 * an input it merely read is some earlier kernel's output. */
int hunt_nan(const session *s, hunt_hit *h);
int hunt_diverge(const session *s, const session *ref, double tol, hunt_hit *h);
/* Last kernel before `kernel` with an after-tensor named name; -1 none. */
int64_t hunt_producer(const session *s, int64_t kernel, const char *name);
/* hunt_producer by name, else (AOTI reuses buffers under new names) the last
 * earlier kernel that wrote a tensor with the same shape, dtype and
 * statistics; *as_name is the name it had there. */
int64_t hunt_producer_of(const session *s, int64_t kernel, const tensor_rec *t, const char **as_name);
/* The report: kernel, tensor, first bad index, and each input tensor of the
 * kernel with its producer kernel. */
void hunt_report(const session *s, const hunt_hit *h, strbuf *out);

/* App glue (actions.c's table points here). */
int hunt_action_nan(app *a, const char *arg);
int hunt_action_diverge(app *a, const char *arg);
int hunt_action_producer(app *a, const char *arg);
/* live: called by live_pump when the runner stops while a hunt waits: the
 * first stop after loading launches the hunt, the stop after that reports. */
void hunt_live_settled(app *a);

#endif
