/* nan_element.h — NaN/Inf down to the element: for the first
 * kernel whose output gains NaN/Inf (hunts.h's hunt_nan), the first bad
 * element of that output (its multi-index and value), each of the kernel's
 * before-tensors at the matching position (same shape, or broadcast to it the
 * way NumPy and torch line dims up from the right), and the fused ops of the
 * kernel that can turn finite values into NaN/Inf, each with the user's line
 * that computes it (from provenance: `log at model.py:7: h = torch.log(h)`).
 *
 * Where the element comes from: the kept values when they hold a non-finite
 * one (the first in row-major order: values are a row-major prefix), else the
 * statistics' position (stats.at.nonfinite, every element; CUDA: memory order).
 * A before-tensor the kernel only writes (tensor_uninitialised) is no input:
 * it is listed as not read. The ops come from the call's ATen ops, graph
 * nodes and the kernel's own name, matched against stack-trace code lines.
 *
 * Pure functions over the model; strings in nan_element point into the
 * session (valid while it lives); text goes to the caller's strbuf. Threads:
 * none. Errors: none (what is unknown is said in the text). */
#ifndef AOTIDBG_NAN_ELEMENT_H
#define AOTIDBG_NAN_ELEMENT_H
#include <stdint.h>
#include "hunts.h"
#include "model.h"
#include "stack_trace.h"
#include "strbuf.h"

#define NAN_ELEMENT_MAX_INPUTS 64

typedef enum {
    NI_SAME = 0,       /* same shape: the same multi-index */
    NI_BROADCAST,      /* broadcast to the output's shape: size-1 dims at 0 */
    NI_SHAPE,          /* its shape does not line up with the output's */
    NI_NOT_READ,       /* a tensor the kernel only writes (uninitialised before) */
} nan_input_match;

typedef struct {
    const tensor_rec *t;       /* a before-tensor of the kernel */
    nan_input_match match;
    int64_t flat;              /* its element at the position (SAME, BROADCAST); -1 else */
    int have_value;            /* 1 when that element is among its kept values */
    double value;
} nan_input;

typedef struct {
    int64_t kernel;            /* kernel index (position in s->kernels); -1 none */
    const kernel_event *k;
    const tensor_rec *tensor;  /* the after-tensor that gained NaN/Inf */
    int64_t flat;              /* the first bad element, -1 unknown */
    int have_value;            /* 1 when value is known (kept, or one kind of non-finite only) */
    double value;
    size_t ninputs;
    nan_input inputs[NAN_ELEMENT_MAX_INPUTS];
} nan_element;

/* The same for kernel position k only (the run records it as the kernel
 * ends): 1 when k wrote a tensor holding NaN/Inf. */
int nan_element_at_kernel(const session *s, size_t k, nan_element *ne);


/* The user's frame of the first of those ops a stack trace names: 1 and *site. */
int nan_element_op_site(const kernel_call *c, const char *kernel_name, st_frame *site);

/* The finding as a session event (model.h nan_event): strings in arena a. */
void nan_event_fill(arena *a, const session *s, const nan_element *ne, nan_event *ev);
/* An event as (key, value) pairs, in the order routes and reports show them:
 * kernel, kernel_index, bad_tensor, bad_at, bad_value, bad_count, nan_from,
 * inputs_at, suspect_ops (lists "; "-separated). */
void nan_event_fields(const session *s, const nan_event *ev, void (*add)(void *ctx, const char *k, const char *v),
                      void *ctx);
/* The session's nan event (the first), or NULL. */
const nan_event *session_nan_event(const session *s);
/* The session's nan event, else one found now (files from before it
 * existed) filled into *tmp with strings in a; NULL when no kernel wrote NaN/Inf. */
const nan_event *nan_event_of(const session *s, arena *a, nan_event *tmp);
/* The element, where it comes from, the inputs at it and the ops, as
 * indented report lines (the NaN hunt's report). */
void nan_event_report(const session *s, const nan_event *ev, strbuf *out);

#endif
