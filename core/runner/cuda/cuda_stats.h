/* cuda_stats.h — the device statistics engine: libaotidbg_cudastats.so.
 *
 * One pass over a CUDA tensor computes every statistic of tensor_stats
 * (core/model/model.h): counts of finite, NaN, +Inf, -Inf, zero and subnormal
 * elements, and min, max, mean and unbiased std over the finite elements
 * (NaN when there are none; std is NaN when fewer than two, as torch.std),
 * and the positions of the first minimum, maximum and NaN/Inf (has_at 1;
 * "first" in memory order, which for a contiguous tensor is row-major order;
 * elements sharing memory through a stride-0 dim resolve to index 0 there).
 *
 * The runner dlopens the library from beside itself and dlsyms the two
 * functions below, so it builds and runs without the CUDA toolkit; the host
 * path (runner/stats.c) covers CPU tensors and builds without this library.
 *
 * Errors: aotidbg_cuda_stats returns 0 on success and nonzero on error
 * (unknown dtype, bad sizes/strides, pointer not in device memory, a CUDA
 * error); the message is then readable, until the next call on the same
 * thread, through aotidbg_cuda_stats_error() (thread-local, never NULL,
 * owned by the library). `out` is only written on success.
 *
 * Threads: calls may come from any thread; they are serialized inside (one
 * cached scratch buffer per device). The call is synchronous: it enqueues on
 * `stream` (NULL = the legacy default stream), waits for that stream and
 * returns the result. It switches to the pointer's device for the call and
 * switches back. */
#ifndef AOTIDBG_CUDA_STATS_H
#define AOTIDBG_CUDA_STATS_H
#include <stdint.h>
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dtype: float32 float16 bfloat16 float64 float8_e4m3fn float8_e5m2 int64
 * int32 int16 int8 uint8 uint16 uint32 uint64 bool.
 * sizes/strides: ndim entries each, in elements (ndim 0..16; both may be
 * NULL when ndim == 0). Strides must be >= 0 (torch never makes negative
 * ones). Elements repeated by stride-0 (expanded) dims count every time,
 * like torch reductions over the expanded view. */
int aotidbg_cuda_stats(const void *dev_ptr, const char *dtype, int ndim,
                       const int64_t *sizes, const int64_t *strides,
                       void *stream, tensor_stats *out);

const char *aotidbg_cuda_stats_error(void);

/* Symbol names for dlsym, and the library's file name. */
#define AOTIDBG_CUDA_STATS_LIB "libaotidbg_cudastats.so"
#define AOTIDBG_CUDA_STATS_SYM "aotidbg_cuda_stats"
#define AOTIDBG_CUDA_STATS_ERROR_SYM "aotidbg_cuda_stats_error"
typedef int (*aotidbg_cuda_stats_fn)(const void *, const char *, int, const int64_t *,
                                     const int64_t *, void *, tensor_stats *);
typedef const char *(*aotidbg_cuda_stats_error_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
