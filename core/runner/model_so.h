/* model_so.h — one AOTInductor model .so: dlopen, the container API, run.
 *
 * Errors: functions return 0/-1 and append to err a message that says which
 * file, what failed and what to try. The container's own error text comes
 * from AOTInductorGetLastError when the .so exports it (newer torch), else
 * from the "Error: ..." line the model printed on our stderr (stderr_tap.h;
 * AOTIDBG_RUNNER_IGNORE_LAST_ERROR=1 forces that path, for tests). A failed
 * run also gives, on a line after it, the exception a libtorch shim call
 * caught meanwhile (torch 2.10+: "the shim call's exception: ...").
 * After a Run of a CUDA model returned 0, model_run synchronizes and checks
 * for a CUDA error (an asynchronous fault, e.g. a device-side assert in a
 * package built without the printer, surfaces there): -1 with
 * "CUDA error: <what> (code N)".
 *
 * Loaded as torch's AOTIModelPackageLoader does: a package whose model needs
 * the proxy executor (fallback ops without a C shim, custom ops: a
 * <so stem>.json beside the .so) is created through torch's own model runner
 * (torch_cxx.h), which builds the executor from that file; every Run passes
 * it. Weights outside the .so (binary_blob: one *.blob in cubin_dir) are
 * mapped and handed to AOTInductorModelUpdateConstantsFromBlob after the
 * container exists, after checking the file holds the size the model asks.
 * Ownership: model_so owns the dlopen handle and the container (or torch's
 * runner holding it); model_unload() releases them (the .so stays mapped:
 * libtorch may hold pointers into it until exit). */
#ifndef AOTIDBG_MODEL_SO_H
#define AOTIDBG_MODEL_SO_H
#include <stddef.h>
#include "aoti_abi.h"
#include "strbuf.h"
#include "torch_cxx.h"

#define MODEL_MAX_IO 65536

typedef struct {
    void *dl;
    AOTInductorModelContainerHandle h;
    aoti_create_with_device_fn create;
    aoti_delete_fn destroy;
    aoti_run_fn run;
    aoti_get_count_fn num_inputs, num_outputs;
    aoti_get_name_fn input_name;
    aoti_last_error_fn last_error;   /* may be NULL */
    tcxx_runner *torch_runner;       /* torch's runner owning the container; NULL when we created it */
    AOTIProxyExecutorHandle proxy;   /* passed to every Run; NULL when the model needs none */
    char *weights_path;              /* the external weights blob loaded, malloc'd; NULL when none */
    unsigned long long weights_bytes;
    size_t nmaps;                    /* files mapped for model_set_constants (freed at unload) */
    struct { void *p; size_t n; } *maps;
    size_t n_inputs, n_outputs;
    const char **input_names;        /* n_inputs entries, owned by the container */
    int is_cuda;                     /* the device string names cuda */
    char device[32];                 /* as given to model_load */
    int cuda_failed;                 /* model_run's post-run CUDA check failed: the context is dead */
    int no_post_check;               /* set by the bench: no synchronize after each Run */
} model_so;

int model_load(model_so *m, const char *so_path, const char *device, const char *cubin_dir, strbuf *err);

/* One weight kept apart from the .so (protocol.h CONSTANT): the tensor whose
 * storage element 0 sits at byte `offset` of `path`. */
typedef struct {
    const char *fqn, *path, *dtype;   /* dtype "" or NULL: the model's own */
    uint64_t offset;
    int ndim;
    const int64_t *shape, *strides;
    int64_t storage_offset;
} model_constant;

/* Hands the model its weights as torch's load_pt2(load_weights_from_disk=True)
 * does (user-managed constants, every non-folded constant required): each
 * file is mapped copy-on-write (kept until model_unload) and wrapped in place
 * on CPU, copied with its strides on CUDA. Errors name the constant and say
 * what is wrong (unknown name, dtype, file too short, missing constants). */
int model_set_constants(model_so *m, const model_constant *c, size_t n, strbuf *err);
/* Runs once; inputs are stolen by the model, outputs (n_outputs) become the caller's. */
int model_run(model_so *m, AtenTensorHandle *inputs, size_t n_inputs, AtenTensorHandle *outputs, strbuf *err);
void model_unload(model_so *m);

#endif
