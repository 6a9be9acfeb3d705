/* tensor_read.h — turns a live torch tensor handle into a tensor_rec:
 * shape, strides, dtype, device, statistics and the first values.
 *
 * CPU tensors are read in place. CUDA tensors go through the optional device
 * statistics library (libaotidbg_cudastats.so beside the runner, API below)
 * when it is there, else they are copied to a contiguous host tensor first
 * (aoti_torch_empty_strided on cpu + aoti_torch_copy_, which synchronizes).
 * With device statistics, only the first max_values elements of a
 * contiguous tensor are copied back (cudaMemcpy), not the whole tensor.
 * Ownership: t's strings and arrays point into the scratch, valid until the
 * next call with the same scratch; tread_scratch_release() frees it. */
#ifndef AOTIDBG_TENSOR_READ_H
#define AOTIDBG_TENSOR_READ_H
#include <stddef.h>
#include "aoti_abi.h"
#include "model.h"
#include "strbuf.h"

/* The device statistics library's entry point (written elsewhere); returns 0 ok. */
typedef int (*aotidbg_cuda_stats_fn)(const void *dev_ptr, const char *dtype, int ndim, const int64_t *sizes,
                                     const int64_t *strides, void *stream, tensor_stats *out);
#define CUDASTATS_LIB "libaotidbg_cudastats.so"
/* Device copies larger than this are not made just for the values sample
 * when the device library computed the statistics. */
#define TREAD_MAX_VALUES_COPY (256ULL << 20)

typedef struct {
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    double *values;
    size_t cap_values;
    void *bytes;          /* raw device bytes of a values sample */
    size_t cap_bytes;
    char device[32], dtype[32];
} tread_scratch;

/* want_stats 0: only metadata and values. max_values counts doubles: a
 * complex element takes two (real, imaginary), and its statistics are over
 * |z| on the host (host_stats.h). Returns 0, or -1 with err when the
 * tensor could not be read (t then holds what was known, has_stats 0). */
int tread_tensor(AtenTensorHandle h, const char *name, tensor_phase phase, size_t max_values, int want_stats,
                 tread_scratch *sc, tensor_rec *t, strbuf *err);
void tread_scratch_release(tread_scratch *sc);
/* Where t's elements sit (t->alloc, has_alloc 1): h's data pointer and its
 * storage's first byte and size, for naming an address a memory checker
 * reports (addr_map.h). Leaves has_alloc 0 when torch cannot say. Reads no
 * element, never synchronizes. */
void tread_alloc(AtenTensorHandle h, tensor_rec *t);
/* A contiguous host copy of tensor h, which t describes (shape, dtype code
 * dcode): *out (delete it with aoti_torch_delete_tensor_object) and its
 * strides in cstr (t->ndim entries). 0, or -1 with err. Synchronizes. */
int tread_host_copy(AtenTensorHandle h, const tensor_rec *t, int32_t dcode, int64_t *cstr, AtenTensorHandle *out,
                    strbuf *err);
/* Points the CUDA path at a statistics function (NULL: host path); tests and
 * the bench use it. By default the library beside the runner is tried once. */
void tread_set_cuda_stats(aotidbg_cuda_stats_fn fn);

#endif
