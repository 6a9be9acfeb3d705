/* tensor_file.h — .npy tensor files: the header reader (shared with the
 * inputs spec's `fill: file`, inputs.c), a loader that turns a whole .npy
 * file into a tensor_rec, the inspector's `.npy` reference (ref-npy), and a
 * writer of the values a session keeps (the inspector's save-npy).
 *
 * Files are untrusted: every header length, shape and data size is checked
 * against the file before a byte of data is read; sizes are capped.
 * Errors: 0 / -1 with "FILE: what; what to do" appended to err.
 * Ownership: tensor_file_load_npy allocates everything it fills in (name,
 * shape, strides, values) from the caller's arena. */
#ifndef AOTIDBG_TENSOR_FILE_H
#define AOTIDBG_TENSOR_FILE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "model.h"
#include "strbuf.h"

/* Elements a tensor file may claim (also the inputs spec's cap). */
#define TENSOR_FILE_MAX_NUMEL (1ULL << 40)
/* Bytes of doubles a loaded reference keeps for element-wise comparison;
 * the statistics always cover every element. Past it the values are the
 * first ones (values_complete 0, "sampled"), as the session does. */
#define TENSOR_FILE_VALUES_BUDGET (256ULL << 20)

/* Where a tensor's row-major little-endian data sits in a file. */
typedef struct {
    const char *dtype;         /* canonical ("float32", ...), static storage */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    uint64_t offset, nbytes;
    int fortran;               /* data in column-major order (a .npy with fortran_order True, ndim > 1) */
} file_tensor;

/* pread() of exactly n bytes at off; -1 on error or short file. */
int tensor_file_read_at(int fd, void *buf, size_t n, uint64_t off);
/* Product of the shape into *out; -1 on a negative size or past TENSOR_FILE_MAX_NUMEL. */
int tensor_file_numel(const int64_t *shape, int ndim, uint64_t *out);

/* Reads and checks a .npy header (format 1.x-3.x; descr f4 f2 f8 i8 i4 i2 i1
 * u1 b1 c8 c16, little-endian; C order, Fortran order refused unless ndim <= 1) and
 * that the data is all there. `file` names it in messages. */
int npy_read_header(int fd, uint64_t fsize, const char *file, file_tensor *ft, strbuf *err);
/* The same, taking Fortran order too (ft->fortran set): for readers that go
 * through tensor_file_read_c_order. */
int npy_read_header_any_order(int fd, uint64_t fsize, const char *file, file_tensor *ft, strbuf *err);
/* The whole data of ft in row-major (C) order, malloc'd into *data (caller
 * frees): a Fortran-order array is transposed. 0, or -1 with "FILE: ..." in err. */
int tensor_file_read_c_order(int fd, const file_tensor *ft, const char *file, unsigned char **data, strbuf *err);

/* Loads the .npy at path into *t: name = path, phase PHASE_AFTER, device
 * "file", row-major strides, statistics over every element (as the runner
 * computes them: see tensor_stats in model.h) and the first max_values values
 * as doubles (complex: (re, im) pairs, max_values counting doubles;
 * values_complete 1 when that is all of them). max_values 0
 * means the budget above. *t is zeroed first; on error it stays zeroed. */
int tensor_file_load_npy(arena *ar, const char *path, size_t max_values, tensor_rec *t, strbuf *err);

/* Writes the values t keeps to path as a .npy file (format 1.0, C order,
 * little-endian), written to path.tmp and renamed over path:
 * - every value kept (values_complete): t's shape and dtype (numpy has no
 *   bfloat16 or float8: those are written as float32; the session keeps
 *   values as doubles, so an int64 past 2^53 is rounded; complex64/128 as
 *   numpy's c8/c16 from the (re, im) pairs);
 * - a prefix kept (--values N, the value budget): a 1-d array of those values;
 * - none: nothing is written, -1 with "only statistics were kept ..." in err.
 * note gets what was written ("[1, 4, 16] float32, all 64 values", "the first
 * 4096 of 65536 values, as a 1-d array"). 0, or -1 with err. */
int tensor_file_save_npy(const tensor_rec *t, const char *path, strbuf *note, strbuf *err);

#endif
