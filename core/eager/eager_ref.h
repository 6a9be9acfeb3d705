/* eager_ref.h — the eager reference of a run (--eager PROGRAM.pt2):
 * which graph node each kernel call of the package computes, that node's
 * value from running the exported program eagerly on the run's inputs, and
 * the REFERENCE messages that hand both to the runner (protocol.h), which
 * compares each kernel's outputs as it runs (core/runner/eager_refs.h).
 *
 * The values come from the runner: `aotidbg-runner --eager-ref PLAN`
 * interprets the exported program with libtorch (eager_program.h reads the
 * archive and writes the plan; core/runner/eager_graph.h), without Python.
 * A program it cannot do (symbolic shapes, higher-order or custom ops, an
 * argument kind or archive layout it does not know), or a runner that fails,
 * falls back to core/prepare/aotidbg_eager.py, run with python3
 * ($AOTIDBG_PYTHON) and torch: it makes the inputs exactly as the runner
 * does, runs the program with torch.fx.Interpreter and writes one .npy per
 * node the kernels write out (the nodes a call names that are used outside
 * it). AOTIDBG_EAGER_WITH=python or =runner picks one way only. Both write
 * the same files and manifest (its computed_by says which). The nodes of a call are its kernel_information.json pre_grad_nodes:
 * the exported program's own node names (post_grad_nodes name Inductor's
 * graph after its decompositions, which the program does not have), else
 * the `Topologically Sorted Source Nodes` comment above its launch (the same
 * names), less a node a later library call makes (eager_ref_call_nodes below). A call that names no node (a CPU cpp_fused_* kernel of a package
 * built without provenance) is compared on the graph values between its
 * neighbours' (the launch order puts it there), or, when there are none, on
 * the graph inputs the next call reads (a kernel that lays out a
 * convolution's input and weight). The calls the printer does not hook
 * (attention on views, extern calls with output handles) are in the call
 * table where they run (wrapper_scan.h's unprinted calls).
 *
 * Cache: <cache_root>/.aotidbg-eager/<key>/, key = SHA-256 of the program
 * file, the helper, the device, float64 and the inputs (spec and the bytes
 * of file inputs): nodes/<node>.npy, inputs.json, calls-<h>.json and
 * manifest-<h>.json (h: the calls' hash), helper.log. A later run with the
 * same program and inputs reads the manifest and starts no Python at all;
 * one that needs more nodes (another package) computes only those.
 *
 * Ownership: eager_ref owns its strings, messages and the helper process
 * (eager_ref_free kills a helper still running). Errors: -1 with err saying
 * what and what to do. Threads: one. */
#ifndef AOTIDBG_EAGER_REF_H
#define AOTIDBG_EAGER_REF_H
#include <stddef.h>
#include "eager_program.h"
#include "model.h"
#include "protocol.h"
#include "strbuf.h"

/* Which kernel buffer holds which graph node. EAGER_MAP_COMPILER: Inductor's own record, from
 * lowering the program again with this machine's torch (core/prepare/aotidbg_record.py: each
 * buffer's origin_node in the post-grad graph; the launch that makes a buffer is the first call
 * passing it, launch_roles.h), checked against the package's wrapper.cpp: kernel calls and buffer
 * names must be the same, else nothing is compared and the summary says why (never a guess). Each
 * node is also computed in float64, and a kernel beyond the tolerance against eager still holds
 * the node when its error against float64 is within eager's own (eager_refs.h). The reference is
 * then the post-grad graph run eagerly (torch.fx.Interpreter), by Python only.
 * EAGER_MAP_NAMES: the rule below (eager_ref_call_nodes): node names above each launch, outputs
 * matched by shape. */
typedef enum { EAGER_MAP_DEFAULT = 0, EAGER_MAP_COMPILER, EAGER_MAP_NAMES } eager_map;
/* "compiler" / "names" (NULL: the default: $AOTIDBG_EAGER_MAP, else compiler); -1 for anything else. */
int eager_map_from_name(const char *s);

typedef struct {
    const char *program;       /* the torch.export.save file */
    eager_map map;             /* which buffer holds which node */
    const char *wrapper;       /* the package's wrapper.cpp text as Inductor wrote it (EAGER_MAP_COMPILER
                                  checks the record against it; written beside the reference); NULL none */
    size_t wrapper_len;
    const char *device;        /* where eager runs; NULL: run_device */
    int float64;               /* run eager in float64 */
    double atol, rtol;         /* the tolerance; < 0: the compared tensor's dtype default */
    const char *cache_root;    /* the folder the reference cache goes in (the session's) */
} eager_opts;

typedef struct eager_ref eager_ref;

/* Computes the cache key, and either reads a cached manifest (ready at once)
 * or starts the helper. Needs s's inputs and provenance calls. Fills
 * s->eager. -1: the program is unreadable, no call names a node, the
 * helper is missing... (the run should not start). */
int eager_ref_start(eager_ref **out, const eager_opts *o, session *s, const char *run_device, strbuf *err);
/* Waits at most timeout_ms for the helper. 1 ready, 0 still computing, -1
 * failed: err says why, *code is 2 when the program or inputs are bad and 1
 * when the program failed to run. */
int eager_ref_poll(eager_ref *r, int timeout_ms, int *code, strbuf *err);
/* Once ready: the REFERENCE messages, then the WEIGHT_CHECKs of the program's
 * weights (eager_weights.h; the runner compares them with the package's
 * constants), valid while r lives; and a one-line summary. */
const proto_msg *eager_ref_messages(const eager_ref *r, size_t *n);
const char *eager_ref_summary(const eager_ref *r);
/* While it is computed: by what ("the runner with libtorch", "python3 because the runner could not: ..."). */
void eager_ref_computer(const eager_ref *r, strbuf *out);
/* Once ready: s->eager's counts (calls with references, node values, weights
 * sent; why none, when the program's weights could not be listed). */
void eager_ref_to_session(const eager_ref *r, session *s);
void eager_ref_free(eager_ref *r);
/* The reference computed by a fork of the model's runner (one libtorch start; core/runner/
 * eager_main.h eager_ref_fork) rather than `aotidbg-runner --eager-ref` of its own: for the
 * first runner the run starts, the environment (borrowed, valid while r lives) and the fd it
 * inherits, or 0 and NULL when the reference is not to be computed so (cached, Python's, or
 * AOTIDBG_EAGER_FORK=0). Then eager_ref_runner_started(r, ok), ok 0 when that runner did not
 * start: the reference's own process is started then, as it is when the runner does not fork. */
int eager_ref_runner_env(eager_ref *r, const char *const **env);
void eager_ref_runner_started(eager_ref *r, int ok);

/* The graph nodes kernel call i of ct is compared on (what the REFERENCE messages and the
 * Python helper's calls list are made from; tests/unit/test_eager_plan.c runs it on a real
 * CUDA wrapper.cpp), and in *occ its occurrence among the calls of its kernel's name. A
 * call's own nodes (pre_grad_nodes, else its source-node comment), less those that a later
 * library call (cuBLAS, cuDNN, an ATen fallback) computes: the last of the nodes that call
 * names, in graph order. On CUDA an extern call names its input's chain too (an addmm after
 * the Triton kernel that writes a layer norm: [add, layer_norm, linear]): those stay with the
 * Triton kernel, which writes them; but inductor names the attention node in the Triton kernel
 * that only lays out q/k/v for the attention call after it (H200, a llama-style decoder: the
 * kernel was compared with the attention's output), and that node is the attention call's.
 * Nodes that several generated kernels name stay with each (a pre-grad `linear` spans the mm
 * and the kernel that adds its bias). A generated call that names none gets the graph values
 * between its neighbours' (see above). prog: the program (graph order), NULL when it could not
 * be read. The list is allocated in a; returns its length (0: the call is not compared). */
size_t eager_ref_call_nodes(const call_table *ct, size_t i, const eager_program *prog, arena *a,
                            const char ***nodes, size_t *occ);
/* Call i's references as the runner computes them (eager_program_refs of its nodes): where an
 * extern mm or convolution computes a node without the bias that a later generated kernel
 * adds (Inductor on a GPU), the reference is that node less its bias
 * (eager_program_without_bias), which prog then computes too; a generated call that copies a
 * graph input which a later one updates (a kv-cache's index_put in two kernels) also gets that
 * input (eager_program_updated_input). Returns how many nodes the
 * call names (eager_ref_call_nodes; 0: it is not compared, *out empty). */
size_t eager_ref_call_refs(const call_table *ct, size_t i, eager_program *prog, arena *a, eager_call_refs *out,
                           size_t *occ);


#endif
