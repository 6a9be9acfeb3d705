/* tensor_close.h — is a tensor close to its reference, element by element:
 * torch.testing.assert_close's rule, |got - want| <= atol + rtol * |want|,
 * with its default tolerances per dtype, fed piece by piece (a reference
 * read from a file in chunks, a tensor read as it is compared), so the
 * comparison costs one read of each, like the statistics pass.
 *
 * Unlike assert_close, NaN matches NaN and an infinity the same infinity: a
 * value eager also gets is not a departure from eager. A NaN or infinity
 * against anything else differs, with an error of +inf.
 *
 * Used by the runner (an output against the eager reference, --eager) and
 * by the front end (a recorded tensor against a .npy). No allocation, no
 * torch, no state: thread-safe. */
#ifndef AOTIDBG_TENSOR_CLOSE_H
#define AOTIDBG_TENSOR_CLOSE_H
#include <stddef.h>
#include <stdint.h>
#include "host_stats.h"

typedef struct {
    double atol, rtol;
} close_tol;

/* torch.testing.assert_close's defaults for a dtype (the compared tensor's):
 * float16 1e-5/1e-3, bfloat16 1e-5/1.6e-2, float32 1e-5/1.3e-6, float64
 * 1e-7/1e-7, float8 as bfloat16; integers and bool exact. */
close_tol close_default_tol(dtype_kind k);
/* The default aotidbg judges with: those, with atol raised to at least
 * rtol * scale, the largest finite |value| the kernel combined (its nodes'
 * and their inputs', in the reference). An element is then judged at the
 * scale of what went into it as well as its own: rounding is relative to the
 * magnitudes a kernel combined, and an element that cancelled to near zero,
 * or went through tanh or softmax, keeps an error of that size. */
close_tol close_scaled_tol(dtype_kind k, double scale);

typedef struct {
    close_tol tol;
    uint64_t compared;     /* elements so far */
    uint64_t differing;    /* beyond the tolerance */
    int64_t first;         /* flat index of the first one beyond it; -1 none */
    double got, want;      /* the values there */
    double max_abs;        /* largest |got - want| (+inf for a NaN/Inf mismatch) */
    double max_rel;        /* largest |got - want| / |want| (+inf where want is 0 and got is not) */
    int64_t max_at;        /* flat index of max_abs; -1 none */
} close_result;

void close_init(close_result *r, close_tol tol);
/* The next n elements in logical (row-major) order. */
void close_add(close_result *r, const double *got, const double *want, size_t n);

/* A whole strided tensor against a contiguous reference (both any dtype),
 * in blocks; -1 on a bad or complex kind, a negative size or NULL data with elements. */
int close_compare(const void *got, dtype_kind gk, int ndim, const int64_t *sizes, const int64_t *strides,
                  const void *want, dtype_kind wk, close_result *r);

#endif
