/* param_cmp.h — one of the program's weights against the package's constant,
 * with libtorch (param_cmp.cpp; the C side is param_diff.h): the program's
 * weight is read from its torch.export.save archive with torch's own reader
 * (caffe2::serialize::PyTorchStreamReader, kept open for the next weight of
 * the same archive) and viewed as the program lays it out; it is moved to the
 * constant's device and compared byte for byte there; only when the bytes
 * differ are the values compared, element by element: how many differ, the
 * first, the largest |difference|, and which indices of dim 0 (rows) hold a
 * difference.
 *
 * Handles: the constant is an AtenTensorHandle passed as void * (no torch type
 * crosses this header; aoti_abi.h's C prototypes clash with torch's headers).
 * Errors: never thrown into C; an unreadable record or a failed op is the
 * result PCMP_UNREAD with torch's words in note. Threads: the runner's main thread. */
#ifndef AOTIDBG_PARAM_CMP_H
#define AOTIDBG_PARAM_CMP_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PCMP_EQUAL = 0, PCMP_DIFFERS, PCMP_DTYPE, PCMP_SHAPE, PCMP_UNREAD };

typedef struct {
    const char *archive;       /* the torch.export.save file */
    const char *record;        /* its storage's record ("data/weights/weight_0") */
    const char *dtype;         /* canonical name ("float32") */
    int ndim;
    const int64_t *shape, *strides;
    int64_t storage_offset;    /* elements */
} pcmp_weight;

typedef struct {
    int verdict;               /* PCMP_* */
    char pkg_dtype[32];        /* the constant's dtype, canonical name */
    int pkg_ndim;
    int64_t pkg_shape[16];
    int64_t lead, lead_differ; /* PCMP_DIFFERS: dim 0's size and its indices that differ; -1 else */
    char ranges[256];          /* those indices as ranges: "17", "3-5, 17" (the first 16, then ", ...") */
    uint64_t differing, numel;
    int has_first;
    int64_t first;             /* flat row-major index of the first difference */
    double value, pkg_value;   /* the program's and the package's values there (real parts) */
    double max_abs;            /* over differing finite pairs; -1 none */
    uint64_t nonfinite;        /* differing elements where one side is NaN or +-Inf */
    char note[512];            /* PCMP_UNREAD: why; PCMP_EQUAL: what the bytes differ in, when they do */
} pcmp_result;

/* Compares w with the constant pkg (an AtenTensorHandle); fills r. Never fails: what
 * could not be read is r->verdict PCMP_UNREAD with note. */
void pcmp_compare(const pcmp_weight *w, void *pkg, pcmp_result *r);
/* Closes the archive kept open. */
void pcmp_close(void);

#ifdef __cplusplus
}
#endif
#endif
