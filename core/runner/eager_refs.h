/* eager_refs.h — the runner's side of the eager reference (--eager):
 * each kernel's outputs compared, while the hooks hold them, with the eager
 * values of the graph nodes the kernel computes.
 *
 * The front end sends one REFERENCE per (kernel launch, graph node) before
 * RUN: the launch as kernel name + occurrence (counting the main graph's
 * printer launches of that name in this run, from 0), the node's value as
 * row-major data in a file (a .npy's data: path + offset, dtype, shape). For
 * a launch with references the hooks report its before-tensors (to tell
 * what it wrote) and after-tensors (compared on the spot with every
 * reference of the same shape: the reference is read in chunks, a CUDA
 * tensor through one host copy); when the kernel ends, one COMPARE per
 * reference says how its node fared:
 *   close      some output of its shape is within the tolerance;
 *   differs    none is, and an output the kernel wrote (its values changed)
 *              that no other node of the kernel matched has its shape: the
 *              one with the fewest differing elements is reported;
 *   unmatched  no such output (a node the kernel only computes inside it,
 *              or one whose buffer holds another node's value; two or more
 *              nodes that would be blamed on one output, unless the kernel
 *              wrote as many distinct such outputs; one that a later launch
 *              computes too, judged there: when that one does not hold it
 *              either, this launch's difference is sent then, a second
 *              COMPARE of the node for this kernel index);
 * On the CPU a node is also compared with the whole buffer of an output that
 * is a view of part of one holding as many elements (a cat written slice by
 * slice).
 *   unreadable the reference file (or the tensor) could not be read.
 * Memory: one chunk of reference at a time, plus a host copy of a CUDA
 * tensor being compared. Single-threaded (the model thread). */
#ifndef AOTIDBG_EAGER_REFS_H
#define AOTIDBG_EAGER_REFS_H
#include <stdint.h>
#include "aoti_abi.h"
#include "protocol.h"
#include "strbuf.h"

#define EREF_MAX 1000000   /* references one run takes */

/* Copies a REFERENCE message in; -1 with err when it is malformed or too many. */
int eref_add(const proto_msg *m, strbuf *err);
/* A new run: occurrence counters from 0. */
void eref_begin_run(void);
/* A kernel launch starts (printer hooks; branch "" = main graph): picks its references. */
void eref_kernel_start(const char *name, const char *branch);
/* 1 when the current launch has references (the hooks then call the two below). */
int eref_active(void);
void eref_before(const tensor_rec *t);
/* t describes h (tread_tensor). */
void eref_after(AtenTensorHandle h, const tensor_rec *t);
/* 1 when an after-tensor of the current launch equals a node's eager value (before
 * eref_kernel_finish): an Inf it holds is the model's own, not an anomaly. */
int eref_holds_eager(const char *tensor);
/* The launch ended: sends one COMPARE per reference through send (kernel
 * index k); returns 1 when one of them differs. A node some earlier launch's
 * output held when it finished (a library call names the nodes its input's
 * kernel fused too) is not compared again: a later kernel may have updated
 * that buffer in place, and its value is no longer the node's. */
int eref_kernel_finish(int64_t k, void (*send)(const proto_msg *m));

#endif
