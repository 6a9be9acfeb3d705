/* weights.h — where a package model's weights are, in every form torch writes,
 * whether they are all there (the checklist), and what the runner is handed.
 *
 * Forms (torch._inductor.config.aot_inductor, torch 2.11 and 2.13):
 *   WEIGHTS_IN_SO   package_constants_in_so=True (the default): inside the .so.
 *   WEIGHTS_BLOB    package_constants_on_disk_format="binary_blob": one
 *                   <key>.wrapper_weights.blob beside the .so, which torch's
 *                   loader maps after creating the model (so does the runner).
 *   WEIGHTS_PICKLE  "pickle_weights": data/weights/weight_N, each a torch.save
 *                   archive of one storage, and weights_config.json
 *                   {fqn: [file, shape, stride, storage offset]}. Only
 *                   torch.export.pt2_archive._package.load_pt2(...,
 *                   load_weights_from_disk=True) loads them (user-managed);
 *                   torch._inductor.aoti_load_package does not, and the model
 *                   then dies at its first weight. aotidbg loads them as
 *                   load_pt2 does: each storage is written out raw
 *                   (weights_materialize) and handed over as CONSTANT.
 *   WEIGHTS_NONE    package_constants_in_so=False with no on-disk format: the
 *                   package holds no weights at all; torch runs it only after
 *                   the user loads them (AOTIModelPackageLoader.load_constants),
 *                   and aoti_load_package alone dies at the first weight.
 *   WEIGHTS_NO_CONSTANTS  the model has no constants.
 *
 * Sizes come from wrapper.cpp's constants_info_ (dtype, data_size, from_folded,
 * original_fqn) and the archive's entries, read without extracting anything
 * (the inner torch.save archives through libzip over the entry's bytes).
 * Ownership: strings and arrays live in the caller's arena.
 * Errors: functions return 0 / -1 with a message naming the package, the
 * entry and the weight; a missing or short weight is reported through the
 * plan (problem), not as an error, so the checklist can say it. */
#ifndef AOTIDBG_WEIGHTS_H
#define AOTIDBG_WEIGHTS_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "model.h"
#include "package.h"
#include "strbuf.h"
#include "wrapper_scan.h"

typedef enum {
    WEIGHTS_IN_SO = 0, WEIGHTS_BLOB, WEIGHTS_PICKLE, WEIGHTS_NONE, WEIGHTS_NO_CONSTANTS, WEIGHTS_UNKNOWN
} weights_form;

typedef struct {
    const char *fqn;                 /* the user's name ("lin.weight") */
    const char *dtype;               /* canonical, from constants_info_; NULL unknown */
    const char *entry;               /* archive entry holding it (weight_N, a .safetensors file) */
    const char *path;                /* the file the runner maps (after weights_materialize) */
    uint64_t offset;                 /* byte of the storage's element 0 in path */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int64_t storage_offset;
    uint64_t need, have;             /* bytes the view reaches / the storage holds */
} weight_ref;

typedef struct {
    weights_form form;
    size_t nconstants;               /* constants the model takes (constants_info_, not folded) */
    uint64_t bytes;                  /* their data sizes, summed */
    const char *blob_entry;          /* WEIGHTS_BLOB */
    uint64_t blob_need, blob_have;
    size_t nrefs;
    weight_ref *refs;                /* WEIGHTS_PICKLE (or given by the user) */
    const char *problem;             /* what is missing, short or unreadable; NULL when all is there */
    const char *fix;                 /* with problem: what to do */
} weights_plan;

const char *weights_form_name(weights_form f);   /* "in the .so", "binary_blob", "pickle_weights", ... */

/* What the package says about model m's weights; reads entries, extracts nothing.
 * ws may be NULL (no wrapper.cpp: form unknown unless files say). */
int weights_plan_read(package_t *p, const package_model *m, const wrapper_scan *ws, arena *a, weights_plan *wp,
                      strbuf *err);

/* After package_extract: writes each WEIGHTS_PICKLE storage as a raw file in
 * the extraction folder and fills refs[i].path / offset. */
int weights_materialize(package_t *p, const package_model *m, weights_plan *wp, arena *a, strbuf *err);

#endif
