/* oob_element.h — an index-out-of-bounds assert down to the element: which
 * tensor held the index, where in it, its value, and what the bound is.
 *
 * After triton_trace.h has named the kernel and the bound, this reads the
 * kernel's source (a Triton kernel embedded in wrapper.cpp, a C++ kernel in
 * kernel.cpp) for the chain that computes the asserted tmpN back to the load
 * that produced it (`tl.load(in_ptr0 + ...)`, `in_ptr0[...]`), maps that
 * pointer through the launch's arguments in wrapper.cpp to a buffer or model
 * input (`arg1_1`), and finds in the failing kernel's before-tensor of that
 * name (the session) the first element outside the valid range: [0, bound),
 * or [-bound, bound) when the kernel wraps negative indices first (Python
 * semantics: `tmp0 < 0 ? tmp0 + bound : tmp0`). With every value kept, the
 * first such element in row-major order; with a sample only, the statistics'
 * first minimum or maximum when it is outside (said in index_note).
 *
 * Fields added to the result (all strings): index_tensor (the tensor's name,
 * "arg1_1"), index_input (its model input index when it is one), index_user
 * (the user's name when known: a keyword input's name from the package's
 * pytree spec, "ids"; a positional one has none), index_at ("[1, 3]"), index_value ("137"),
 * bound_value ("100"), valid_range ("[0, 100)"), bound_of (what the bound
 * is: "dim 0 of arg0_1 [100, 64]", the table the index reads), load_ptr
 * ("in_ptr0"), index_note (how the element was found when not exact); on a
 * break in the chain, element_error says where it broke.
 *
 * Untrusted text: bounded scans only. Ownership: nothing kept. Threads: none. */
#ifndef AOTIDBG_OOB_ELEMENT_H
#define AOTIDBG_OOB_ELEMENT_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "router.h"
#include "strbuf.h"

/* r: a triton-index-oob or cpp-index-oob result that triton_trace_apply has filled (kernel,
 * tmp, bound; dim_value for a symbolic bound). kernel_index: the failing
 * kernel's event in s (-1: the last kernel event named like r's kernel).
 * Other routes: nothing. Always returns 0; what failed is element_error. */
int oob_element_apply(route_result *r, const char *wrapper, size_t wlen, const char *kernels, size_t klen,
                      const session *s, int64_t kernel_index);

/* Where the index of one assert comes from, without a session: the assert
 * `index out of bounds: 0 <= TMP < BOUND` in KERNEL's source (kernels, or
 * wrapper for Triton kernels embedded there), traced to its load and the
 * launch's argument. tensor: that argument ("arg1_1"); wrap: negative
 * indices are wrapped first; plain: the chain only copies, casts and wraps,
 * so the value loaded is the value checked. 0, or -1 with *why saying
 * where the chain broke (static text). */
typedef struct {
    char tensor[128], ptr[32];
    char bound_arg[64];        /* a bound that is a kernel parameter (ks1): the launch's argument for it
                                  when that is a plain name ("s70"), else "" */
    int wrap, plain;
} oob_index_source;
int oob_element_index_source(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const char *kernel,
                             const char *tmp, const char *bound, oob_index_source *out, const char **why);

/* The same, reading the sources of PKG (package_sources.h). -1 (err) only
 * when PKG cannot be read. */
int oob_element_apply_package(route_result *r, const char *pkg, const session *s, int64_t kernel_index,
                              strbuf *err);

#endif
