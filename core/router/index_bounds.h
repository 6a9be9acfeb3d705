/* index_bounds.h — the ranges the package itself gives integer model inputs:
 * every index check the compiler wrote into the kernels
 * (`index out of bounds: 0 <= tmpN < 100L`, C++ and Triton alike) whose
 * index is a model input read as it is (oob_element.h traces each to its
 * load and the launch's argument), so that made-up inputs (`--inputs random`)
 * stay inside them.
 *
 * A check whose bound is a kernel parameter names the size symbol the launch
 * passes for it (sym: the range is [0, that size)); one whose index is
 * computed from the input (an offset, a product) gives no range. One input
 * checked by several kernels gets the narrowest literal bound, else the
 * first symbolic one.
 * Untrusted text: bounded scans only (oob_element.h). Ownership: *out is
 * malloc'd (free it); its strings are copies. Threads: none. */
#ifndef AOTIDBG_INDEX_BOUNDS_H
#define AOTIDBG_INDEX_BOUNDS_H
#include <stddef.h>
#include <stdint.h>
#include "wrapper_scan.h"

typedef struct {
    size_t input;              /* the model input (ws->inputs index) */
    int64_t high;              /* its values must be in [0, high); 0 when the bound is a size symbol */
    char sym[64];              /* the size symbol the bound is ("s70": a dynamic size), or "" */
    char kernel[128];          /* the kernel whose check gives it */
    char check[112];           /* the check: "0 <= tmp2 < 100L" */
} index_bound;

/* The bounds of ws's inputs from the checks in wrapper (and kernels, a CPU
 * package's kernel.cpp; may be NULL): *n of them in *out, at most one per
 * input. Returns 0 (nothing found is not an error). */
int index_bounds_scan(const char *wrapper, size_t wlen, const char *kernels, size_t klen, const wrapper_scan *ws,
                      index_bound **out, size_t *n);

#endif
