/* input_build.h — makes the model's input tensors from input_spec's.
 *
 * Fills (values in row-major element order):
 *   randn   float dtypes: standard normal from our own generator, so a seed
 *           gives the same numbers on every machine and torch version:
 *           a splitmix64 stream seeded with `seed`; each pair of draws gives
 *           u1 = ((a >> 11) + 1) * 2^-53 in (0,1] and u2 = (b >> 11) * 2^-53,
 *           then z0 = sqrt(-2 ln u1) cos(2 pi u2), z1 = sqrt(-2 ln u1) sin(2 pi u2).
 *           Integer dtypes: uniform in [0, 16) (the top 4 bits of each draw);
 *           bool: the top bit.
 *   zeros, ones, full(value), arange (element i holds i; bool: i odd)
 *   randint integers uniform in [low, high): low + (draw mod (high - low)), the
 *           same splitmix64 stream as randn
 *   file    raw little-endian row-major bytes at spec->file; the size must be
 *           numel * itemsize exactly. A torch.save file (file_format
 *           INPUT_FILE_TORCH) is read with libtorch (torch_cxx.h): its one
 *           tensor, or the entry `key` of a dict, list or tuple of tensors,
 *           whose dtype and shape must be the spec's.
 * Values are rounded to the dtype (float16/bfloat16 to nearest even; integers
 * saturate). Host tensors wrap our buffer (aoti_torch_create_tensor_from_blob;
 * the buffer must outlive the run: built_input.host); device tensors are
 * aoti_torch_empty_strided + aoti_torch_copy_ from it.
 * Errors: -1 with "input <i>: ..." in err; INPUT_BAD_FILE (-2) when a
 * `fill: file` input's file does not hold what the spec says (dtype, shape,
 * key, size) or cannot be read: bad input, which the runner ends with DONE
 * PROTO_DONE_BAD_INPUT (the front end exits 2). */
#ifndef AOTIDBG_INPUT_BUILD_H
#define AOTIDBG_INPUT_BUILD_H
#include "aoti_abi.h"
#include "model.h"
#include "strbuf.h"

#define INPUT_MAX_BYTES (64ULL << 30)
#define INPUT_BAD_FILE (-2)

typedef struct {
    AtenTensorHandle h;    /* handed to (and stolen by) the model run */
    void *host;            /* malloc'd; free after the run (NULL for device inputs) */
} built_input;

/* default_cuda_index: the index plain "cuda" means (the model's device). */
int input_build(const input_spec *spec, int index, int default_cuda_index, built_input *out, strbuf *err);
/* Fills buf (numel elements of dtype) as the spec says; exposed for tests and the bench. */
int input_fill(const input_spec *spec, int index, void *buf, uint64_t numel, strbuf *err);

#endif
