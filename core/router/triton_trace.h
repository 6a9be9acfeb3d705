/* triton_trace.h — resolves an index-out-of-bounds assert (`0 <= tmpN < ksM`)
 * through a package's generated code, down to the model input behind ksM.
 *
 * The chain: the kernel whose embedded source holds the
 * assert's message (Triton kernels are comments in <key>.wrapper.cpp; CPU
 * kernels live in <key>.kernel.cpp) -> ksM's position in that kernel's
 * signature -> the argument at that position at the `call_triton_<k>(...)` /
 * `<k>(...)` call site (the wrapper's sNNN) -> `int64_t sNNN = argK_size[d];`
 * -> `inputs_info_[i].name = "argK";` (input index i, dimension d), plus the
 * `// Topologically Sorted Source Nodes: [...]` comment above the call.
 *
 * The text is untrusted: every scan is bounded by the given lengths and a
 * backward search window; nothing is executed. Ownership: strings in a
 * triton_trace live in the arena passed in. Errors: 0 / -1 with a message in
 * err (what could not be found, and what to check). */
#ifndef AOTIDBG_TRITON_TRACE_H
#define AOTIDBG_TRITON_TRACE_H
#include <stddef.h>
#include "arena.h"
#include "router.h"
#include "strbuf.h"

#define TRITON_TRACE_MAX_SOURCE (256u << 20)   /* wrapper.cpp / kernel.cpp read cap */

typedef struct {
    const char *kernel;        /* kernel whose source holds the condition */
    size_t ncandidates;        /* kernels holding the same message (>1: ambiguous, first taken) */
    const char *param;         /* bound symbol as named in the kernel signature ("ks1"); NULL for a literal bound */
    int param_pos;             /* its 0-based position in the signature; -1 */
    const char *call;          /* the call site's name ("call_triton_k" or "k"); NULL if not found */
    size_t call_line;          /* 1-based line of the call in wrapper.cpp; 0 */
    const char *arg;           /* argument expression at param_pos ("s70") */
    const char *size_var;      /* wrapper symbol holding the size ("s70"); NULL */
    const char *input;         /* input variable ("arg0_1"); NULL */
    int input_index;           /* index into the model's inputs; -1 */
    int dim;                   /* dimension of that input; -1 */
    const char *source_nodes;  /* text after "Topologically Sorted Source Nodes: "; NULL */
} triton_trace;

/* Resolves `tmp` < `bound` (as the assert printed them) in wrapper (wlen bytes);
 * a literal bound resolves to the kernel and call alone (param NULL)
 * and kernels (klen bytes, may be NULL/0). When several kernels hold the same
 * condition, the one named kernel_hint (may be NULL) is taken, else the first.
 * Fills what it finds even when it returns -1 (e.g. kernel found, call site not). */
int triton_trace_resolve(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const char *tmp,
                         const char *bound, const char *kernel_hint, arena *a, triton_trace *out, strbuf *err);

/* The parameter names of a kernel definition whose '(' is at open (bounded by
 * end), in order; at most max. For oob_element.c. */
size_t triton_trace_params(const char *open, const char *end, arena *a, const char **out, size_t max);
/* The arguments of kernel's launch in wrapper.cpp (`call_<k>(`, `call_triton_<k>(` or
 * `<k>(`), trimmed, and its 1-based line; -1 when there is none. */
int triton_trace_call_args(const char *wrapper, size_t wlen, const char *kernel, arena *a, const char **args,
                           size_t max, size_t *nargs, size_t *line);

/* Adds the trace's facts to a triton-index-oob or cpp-index-oob result (route_is_index_oob) as fields (kernel,
 * kernel_param, call_arg, size_var, input, input_index, dim, source_nodes) and
 * refreshes the actions' values. When the chain breaks, what was found is kept
 * and field `trace_error` says where it broke; still returns 0 (the route
 * stands). Any other route: does nothing, returns 0. */
int triton_trace_apply(route_result *r, const char *wrapper, size_t wlen, const char *kernels, size_t klen,
                       strbuf *err);

/* Same, reading the sources from PKG: a .pt2 (via package.h), an extracted
 * package folder, or a *.wrapper.cpp file (its *.kernel.cpp sibling is read
 * if present). -1 only when PKG cannot be read. */
int triton_trace_apply_package(route_result *r, const char *pkg, strbuf *err);

#endif
