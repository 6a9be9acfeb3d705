/* eager_program.h — an exported program (a torch.export.save archive) read
 * without Python, for the runner to compute the eager reference with libtorch
 * (`aotidbg-runner --eager-ref PLAN`, core/runner/eager_graph.h), and the
 * rule of which graph nodes a kernel call writes out.
 *
 * Reads (libzip, cJSON) <root>/models/<model>.json (the serialized program,
 * torch/_export/serde/schema.py, torch 2.11 and 2.13 write the same layout),
 * <root>/data/weights/<model>_weights_config.json and
 * <root>/data/constants/<model>_constants_config.json (raw storages,
 * weight_N/constant_N, addressed by sizes, strides and storage offset).
 * Only what the runner's interpreter does is accepted: every node a
 * `torch.ops.<ns>.<op>.<overload>` call (no higher-order ops), arguments of
 * the kinds in eager_plan.h, static shapes, tensor inputs, raw (not pickled)
 * weights. Anything else: -1 with err naming the node or entry and why (the
 * caller then uses the Python helper, core/prepare/aotidbg_eager.py).
 *
 * The node rule (eager_program_refs) is the one aotidbg_eager.py's call_refs
 * applies to the fx graph; tests/integration/test_eager.py compares the two
 * manifests on the same package so that they stay one rule.
 *
 * Ownership: an eager_program owns its arena (every string and array it
 * returns). Errors: 0 / -1 with "PROGRAM: what" in err. Threads: one. */
#ifndef AOTIDBG_EAGER_PROGRAM_H
#define AOTIDBG_EAGER_PROGRAM_H
#include <stddef.h>
#include "model.h"
#include "strbuf.h"

typedef struct eager_program eager_program;

/* What one kernel call writes out, as names of graph values. */
typedef struct {
    const char **refs;         /* its references, in graph order (views after), tensor-valued only */
    size_t nrefs;
    const char **missing;      /* names the program does not have */
    size_t nmissing;
    const char **combined;     /* its values and their inputs (weights included): the scale */
    size_t ncombined;
} eager_call_refs;

int eager_program_read(eager_program **out, const char *path, strbuf *err);
/* The signature and the weights only (no graph: symbolic shapes and higher-order
 * ops are fine; inputs that are not tensors or weights are skipped), for
 * comparing the program's weights with a package's (eager_weights.h). */
int eager_program_read_weights(eager_program **out, const char *path, strbuf *err);

/* One of the program's weights, buffers or constants: the view (dtype, shape,
 * strides, storage_offset in elements) on the raw storage that is archive
 * record `record` ("data/weights/weight_0", the root folder left out). */
typedef struct {
    const char *fqn;           /* its original name ("blocks.3.fc.weight") */
    const char *placeholder;   /* the graph input it feeds ("p_blocks_3_fc_weight") */
    const char *record, *dtype;
    int ndim;
    const int64_t *shape, *strides;
    int64_t storage_offset;
} eager_weight;
size_t eager_program_nweights(const eager_program *p);
/* Weight i (< eager_program_nweights), in signature order; valid while p lives. */
void eager_program_weight(const eager_program *p, size_t i, eager_weight *out);
/* The rule for a call naming nodes names[0..n). */
void eager_program_refs(eager_program *p, const char *const *names, size_t n, eager_call_refs *out);
/* The graph's values in graph order (getitems and the graph's inputs left
 * out): what the kernels between two calls that name nodes may compute. */
size_t eager_program_nvalues(const eager_program *p);
/* Value i's name; NULL for a getitem or a graph input. */
const char *eager_program_value(const eager_program *p, size_t i);
/* The graph inputs (user inputs, weights, buffers: their placeholder names)
 * that node `name` reads, at most max, into out; returns how many. */
size_t eager_program_graph_inputs(const eager_program *p, const char *name, const char **out, size_t max);
/* The graph input that node `name` returns an updated copy of (index_put,
 * scatter, slice_scatter, copy: their first argument), NULL when it is not
 * such an op or that argument is not a graph input. */
const char *eager_program_updated_input(const eager_program *p, const char *name);
/* Its stack trace as the program keeps it (Python's traceback text); NULL none. */
const char *eager_program_stack(const eager_program *p, const char *name);
/* Its place in graph order; -1 when the program has no such value. */
long eager_program_index(const eager_program *p, const char *name);
/* The value "<node>__no_bias": node's op with its `bias` argument None, as
 * Inductor computes it on a GPU when it moves a linear's or a convolution's
 * bias into the next kernel (an extern mm or convolution, then a generated
 * kernel that adds it). Added once, after the graph's nodes (the plan computes
 * it last; eager_program_value leaves it out), with node's stack trace; valid
 * while p lives. NULL when node is not one tensor value with a tensor bias. */
const char *eager_program_without_bias(eager_program *p, const char *node);
/* Writes the plan file: EAGER_RUN (keep = the values to write), one INPUT per
 * session input (raw[i]: the materialised file of a fill: file input, else
 * NULL), CONSTANT per weight, EAGER_NODE per node. -1 when the session's
 * inputs do not fit the program (count, strides). */
int eager_program_write_plan(eager_program *p, const char *plan, const char *program, const char *device,
                             int float64, const char *out_dir, const char *const *keep, size_t nkeep,
                             const session *s, char *const *raw, strbuf *err);
void eager_program_free(eager_program *p);

#endif
