/* wrapper_scan.h — what a package's generated <key>.wrapper.cpp tells us.
 *
 * Owner: core/package/wrapper_scan.c. Reads the C++ text AOTInductor generates
 * (never compiles or runs it) and pulls out: the model inputs as compiled
 * (name, dtype, device, rank, static dims, dynamic dim bounds, static strides,
 * from the generated check_input_N functions, inputs_info_ and
 * assert_size_stride), the printer level compiled in, whether NaN asserts are
 * compiled in, the kernel launch list (from printer calls, or call sites when
 * there is no printer), the cubins it loads, the constants it references and
 * the proxy-executor calls; and for each launch the provenance comments above
 * it and the weights it passes.
 *
 * The text is untrusted: indexes are capped, numbers are range-checked, and
 * anything unrecognised is skipped (the result only says what was found).
 * Ownership: a wrapper_scan owns everything it points to (its own arena and
 * malloc'd arrays); release with wrapper_scan_free(). Errors: 0 / -1 + err. */
#ifndef AOTIDBG_WRAPPER_SCAN_H
#define AOTIDBG_WRAPPER_SCAN_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "model.h"
#include "strbuf.h"

#define WS_MAX_INPUTS   4096
#define WS_MAX_KERNELS  1000000
#define WS_MAX_BYTES    (256u << 20)   /* wrapper.cpp size cap */
#define WS_UNKNOWN      INT64_MIN      /* a dim / bound / stride the text doesn't fix */

typedef struct {
    const char *name;                   /* "arg4_1"; may be NULL if only check_input_N was seen */
    const char *user_name;              /* the user's name from in_spec_ ("x", "cfg['scale']", "args[0]",
                                           pytree.h); NULL when the spec is absent or unreadable */
    const char *dtype;                  /* canonical ("float32", "int64"); NULL when not checked */
    const char *device;                 /* "cpu", "cuda", ...; NULL when not checked */
    int ndim;                           /* -1 when unknown */
    int64_t dims[TENSOR_MAX_DIMS];      /* static value, or WS_UNKNOWN for a dynamic dim */
    int64_t dim_min[TENSOR_MAX_DIMS];   /* dynamic bounds; WS_UNKNOWN when not checked */
    int64_t dim_max[TENSOR_MAX_DIMS];
    const char *dim_sym[TENSOR_MAX_DIMS]; /* "s77" for a dynamic dim; may be NULL */
    int64_t strides[TENSOR_MAX_DIMS];   /* static stride, or WS_UNKNOWN */
    int line;                           /* 1-based line of check_input_N (or inputs_info_), 0 if none */
    int dtype_line, device_line;        /* lines of the dtype / device checks, 0 if none */
    int dim_line[TENSOR_MAX_DIMS];      /* first size check of each dim, 0 if none */
    int stride_line;                    /* first stride check, 0 if none */
} ws_input;

typedef struct {
    const char *name;                   /* kernel name as the printer gives it */
    int line;                           /* 1-based line of its first before_launch call */
    /* comments AOTInductor writes above the launch (provenance.h reads them); NULL when absent */
    const char *source_nodes;           /* text after "// Topologically Sorted Source Nodes: " */
    const char *handle;                 /* "<kernel>:<N>" of "// [Provenance debug handles] " */
    size_t nparams;                     /* constants the call passes (weights), as named in */
    const char **params;                /* constants_info_ (their original_fqn when known) */
    size_t nfresh;                      /* tensors the launch only writes, passed by no call */
    const char **fresh;                 /* before it (launch_roles.h); NULL when none */
    size_t ndefines;                    /* tensors passed whole that no earlier call passes and that are */
    const char **defines;               /* no input or weight: the buffers this launch makes (their
                                           values after it are its own; launch_roles.h); NULL none */
    size_t nbefore;                     /* tensors the printer saves before the launch (levels 1, 2) */
    size_t after;                       /* an unprinted call: how many printed launches come before it */
} ws_kernel;

typedef struct {
    const char *file;                   /* basename of the cubin loadKernel() opens */
    const char *kernel;                 /* kernel it belongs to; may be NULL */
    int line;
} ws_cubin;

typedef struct {
    const char *name, *fqn;             /* fqn may be NULL */
    /* from the other constants_info_[N] fields (weights.h checks sizes with them) */
    const char *dtype;                  /* canonical ("float32"); NULL when not seen */
    const char *device;                 /* "cpu", "cuda"; NULL when not seen */
    int64_t data_size;                  /* bytes; -1 when not seen */
    int from_folded;                    /* made by constant folding at run time: not a weight to load */
    int ndim;                           /* -1 when not seen */
    int64_t shape[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
} ws_constant;

typedef struct wrapper_scan {
    arena arena;
    size_t ninputs;   ws_input *inputs;
    size_t noutputs;
    const char **output_names;          /* noutputs entries from out_spec_ ("out", "[1]['aux']"), or NULL
                                           when the outputs have no keyed names (pytree.h) */
    int has_input_checks;               /* check_input_N functions were generated */
    int printer_level;                  /* 0 none, 1 save, 2 print, 3 names only */
    int nan_asserts;                    /* aoti_torch_check_inf_and_nan calls present */
    int nan_assert_line;
    const char *kernels_source;         /* "printer", "call-sites" */
    size_t nkernels, cap_kernels; ws_kernel *kernels;
    /* run_impl's calls the printer does not hook (extern calls on views or
     * with output handles: attention, max): re-instrumentation hooks them under
     * these names; provenance.h puts them among the kernels by `after` */
    size_t nunprinted, cap_unprinted; ws_kernel *unprinted;
    size_t ncubins, cap_cubins; ws_cubin *cubins;
    size_t nembedded_kernels;           /* loadKernel(__name_start, ...): binary inside the .so */
    size_t nconstants, cap_constants; ws_constant *constants;
    int include_weights;                /* AOTInductorModelBase(..., include_weights); -1 unknown */
    size_t nproxy_calls;                /* aoti_torch_proxy_executor_call_function sites */
    size_t nlines;
} wrapper_scan;

/* Scans text (len bytes, need not be NUL-terminated). ws is initialised by
 * this call; always call wrapper_scan_free() afterwards, even on error. */
int wrapper_scan_text(wrapper_scan *ws, const char *text, size_t len, strbuf *err);
void wrapper_scan_free(wrapper_scan *ws);


#endif
