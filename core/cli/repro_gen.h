/* repro_gen.h — turns what the runner captured of one launch (runner_capture.h
 * in core/runner: capture.txt, in/, expected/, launch.txt) and the package's
 * generated code into a standalone repro folder: the kernel's code, a
 * launcher (main.cpp), CMakeLists.txt and README (cmd_repro.h says what the
 * folder does).
 *
 * Kinds: a CPU `cpp_*` kernel (its function from <key>.kernel.cpp, called as
 * wrapper.cpp calls it; the scalars it passes are defined as wrapper.cpp
 * defines them); an extern call (the shim call as wrapper.cpp makes it, on
 * tensors made from the captured bytes: this launcher links libtorch); a
 * Triton kernel (the package's cubin, loaded and launched through the CUDA
 * driver with the captured grid, block, shared memory and argument bytes,
 * device pointers moved onto the launcher's copies of the tensors).
 *
 * Refusals: -1 with err naming the argument and why (a tensor the printer did
 * not hand over, a weight the model could not give, a scalar whose value the
 * repro cannot know, a launch whose argument sizes the driver did not say).
 * Ownership: repro_capture owns what repro_capture_read fills in; release it.
 * Errors: 0 / -1 + err. */
#ifndef AOTIDBG_REPRO_GEN_H
#define AOTIDBG_REPRO_GEN_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

typedef struct {
    char *phase, *name, *file, *dtype, *shape, *strides, *layout;
    uint64_t ptr, nbytes;
} repro_tensor;

typedef struct {
    int64_t index;            /* the launch's number in the run; -1 when it never came */
    int64_t kernels;          /* `missing`: launches the run made */
    char *name, *branch, *source, *status;
    repro_tensor *t;
    size_t nt;
    int has_launch;           /* launch.txt was written */
    strbuf skipped;           /* "NAME: WHY\n" lines */
} repro_capture;

/* Reads DIR/capture.txt. */
int repro_capture_read(const char *dir, repro_capture *c, strbuf *err);
void repro_capture_release(repro_capture *c);

typedef struct {
    const char *dir;          /* the repro folder (holds the capture) */
    const char *package, *kernel_spec;
    const char *type;         /* "cpp", "extern", "triton" (the session's kernel type) */
    const char *wrapper, *kernel_cpp;   /* the package's sources; kernel_cpp may be "" */
    int64_t call;             /* which call site of the kernel's name in wrapper.cpp (from 0) */
    const char *error_text;   /* the run's error at this kernel, or NULL */
    const char *torch_root;   /* this machine's torch (include/, lib/); NULL: none found */
    const void *cubin;        /* Triton: the cubin the package carries */
    size_t ncubin;
} repro_job;

/* Writes the folder's code, CMakeLists.txt and README. */
int repro_write(const repro_job *j, const repro_capture *c, strbuf *err);

/* The weights the call of j's kernel passes, as "NAME\tFQN\n" lines into out
 * (for the capture request), from wrapper.cpp's constants. */
void repro_call_constants(const char *wrapper, const char *kernel, int64_t call, strbuf *out);

/* The same for the launch numbered index in the run, guessed from wrapper.cpp's
 * printer launches in order (the main graph's: a run whose launches differ
 * names another kernel, and the capture then says which). */
void repro_launch_constants(const char *wrapper, int64_t index, strbuf *out);
/* How many call sites of kernel wrapper.cpp has. */
int64_t repro_call_count(const char *wrapper, const char *kernel);

#endif
