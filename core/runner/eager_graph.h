/* eager_graph.h — the eager reference computed in the runner with libtorch
 * (`aotidbg-runner --eager-ref PLAN`): the exported program's
 * graph, as the front end read it from the torch.export.save archive
 * (core/eager/eager_program.h), interpreted node by node, each
 * `torch.ops.<ns>.<op>.<overload>` called through the dispatcher with its
 * arguments mapped by the op's schema; the values the plan keeps are written
 * as <out_dir>/nodes/<name>.npy (bfloat16 and float8 widened to float32, as
 * core/prepare/aotidbg_eager.py writes them) and the largest finite |value|
 * of every tensor as <out_dir>/nodes/absmax.json (when nodes/ is not there yet, every file is
 * written in a staging folder, nodes.<pid>.tmp, renamed to nodes/ at the end: one rename, and
 * never half a set; else each file through a temporary name). Weights are read from the
 * archive with torch's own reader (caffe2::serialize::PyTorchStreamReader).
 *
 * Handles: plain C structs from the plan (protocol.h); no torch type crosses
 * this header. Errors: the exit code the runner returns (EG_*) with a
 * message naming the node and why in err; C++ exceptions never cross into C.
 * Threads: the runner's main thread. */
#ifndef AOTIDBG_EAGER_GRAPH_H
#define AOTIDBG_EAGER_GRAPH_H
#include <stddef.h>
#include <stdint.h>
#include "eager_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    EG_OK = 0,           /* every value written */
    EG_FAILED = 1,       /* an op failed while running (the program's own error) */
    EG_BAD_PLAN = 2,     /* the plan or a weight record is unusable */
    EG_UNSUPPORTED = 3,  /* something this interpreter does not do: the Python helper can */
};

typedef struct {
    const char *placeholder;   /* the graph input it feeds */
    const char *dtype;         /* canonical name ("float32") */
    int ndim;
    const int64_t *shape;
    const void *host;          /* its values, row-major (input_fill) */
} eg_input;

typedef struct {
    const char *placeholder;   /* the graph input it feeds */
    const char *record;        /* the archive record ("data/weights/weight_0") */
    const char *dtype;
    int ndim;
    const int64_t *shape, *strides;
    int64_t storage_offset;
} eg_constant;

typedef struct {
    const char *name, *target;
    uint32_t nargs, nouts;
    const proto_eager_arg *args;
    const proto_eager_out *outs;
} eg_node;

typedef struct {
    const char *program, *device, *out_dir;   /* the archive; "cpu", "cuda:0"; the reference's folder */
    int float64;
    const char *const *keep; size_t nkeep;    /* the values written as .npy */
    const eg_input *inputs; size_t ninputs;
    const eg_constant *constants; size_t nconstants;   /* weights, buffers, constants */
    const eg_node *nodes; size_t nnodes;               /* in graph order */
} eg_plan;

/* Runs the plan; *computed gets the values written. */
int eg_run(const eg_plan *p, size_t *computed, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
