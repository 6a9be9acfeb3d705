/* host_stats.h — one pass over a strided host tensor: the numbers of model.h's
 * tensor_stats plus the first values in logical (row-major) order.
 *
 * Numerics: elements are widened to double; mean and variance are merged
 * block by block (exact two-pass inside a 4096-element block, Chan et al.'s
 * pairwise update between blocks), so std stays accurate for large tensors
 * with a large mean. NaN and ±Inf are counted and left out of min/max/mean/std;
 * subnormal is judged in the element's own dtype (a float16 subnormal counts
 * even though it is normal as a double). The positions of the first minimum,
 * maximum and NaN/±Inf are logical (row-major) flat indices; has_at is 1.
 *
 * Complex kinds (DK_C64, DK_C128): the statistics are over |z| (min, max,
 * mean, std and their positions of the finite elements' moduli); an element
 * counts as NaN when either part is NaN, else as +Inf / -Inf when either part
 * is (+Inf first), zero when both parts are 0, subnormal when either part is.
 * Values are (real, imaginary) pairs: an element takes two doubles, so
 * values / max_values / *nvalues count doubles, not elements (a pair is
 * never split).
 * No torch, no allocation. */
#ifndef AOTIDBG_HOST_STATS_H
#define AOTIDBG_HOST_STATS_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"

#include "dtype.h"   /* dtype_kind: the kinds, one row each */

/* data points at logical element 0; sizes/strides are in elements (strides
 * may be 0 or negative: expanded or flipped views). Writes up to max_values
 * values into values (may be NULL when max_values is 0) and their count into
 * *nvalues. Returns 0, or -1 when ndim is out of range or data is NULL with
 * elements to read. */
int stats_compute(const void *data, dtype_kind k, int ndim, const int64_t *sizes, const int64_t *strides,
                  tensor_stats *out, double *values, size_t max_values, size_t *nvalues);

/* n elements of a strided tensor from logical (row-major) index first on,
 * widened to double as the statistics widen them (complex: 2n doubles, in
 * pairs); -1 on a bad kind, a
 * negative size, a range past the end, or NULL data with elements to read. */
int stats_read(const void *data, dtype_kind k, int ndim, const int64_t *sizes, const int64_t *strides,
               uint64_t first, double *out, size_t n);

/* The canonical dtype names ("float32", "float8_e4m3fn", "uint16", ...) and
 * element sizes of the kinds (dtype.c's rows); shared by the runner's torch
 * dtype table and the .npy loader. by_name: -1 for a name no kind has. */
const char *stats_kind_name(dtype_kind k);
size_t stats_kind_size(dtype_kind k);
/* Doubles an element widens to: 2 for the complex kinds, else 1. */
int stats_kind_lanes(dtype_kind k);
int stats_kind_by_name(const char *name, dtype_kind *out);

/* The same pass fed piece by piece (a file read in chunks): init, add the
 * elements in logical order as often as needed, finish. values as above. */
typedef struct {
    tensor_stats st;           /* counts so far; numel = elements added */
    double n, mean, m2, mn, mx;
    double *values;
    size_t maxv, nvals;
} stats_acc;
void stats_acc_init(stats_acc *a, double *values, size_t max_values);
/* n contiguous elements of kind k; -1 on a bad kind or NULL data. */
int stats_acc_add(stats_acc *a, const void *data, dtype_kind k, size_t n);
void stats_acc_finish(const stats_acc *a, tensor_stats *out, size_t *nvalues);

/* Element conversions, shared with the input builder and the tests. */
double stats_half_to_double(uint16_t h);
double stats_bf16_to_double(uint16_t b);
double stats_f8e4m3_to_double(uint8_t v);
double stats_f8e5m2_to_double(uint8_t v);
uint16_t stats_double_to_half(double d);   /* round to nearest even */
uint16_t stats_double_to_bf16(double d);   /* round to nearest even */

#endif
