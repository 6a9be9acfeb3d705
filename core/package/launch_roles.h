/* launch_roles.h — which tensors a launch only writes, from wrapper.cpp.
 *
 * A generated kernel names its pointer parameters by role: in_ptrN (read),
 * in_out_ptrN (written in place), out_ptrN (written only). wrapper.cpp
 * declares each one's parameters (`extern "C" void cpp_fused_X(const float*
 * in_ptr0, float* out_ptr0)`, `static inline void call_triton_X(const
 * CUdeviceptr in_ptr0, ...)`; torch 2.11: `const in_ptr0_type_& in_ptr0`), and
 * an extern op's `aoti_torch_*_out(out, ...)`
 * writes its first argument. A launch's argument is fresh, its values before
 * the launch whatever the allocator left (model.h tensor_uninitialised), when
 * it is no model input or weight and
 * - written only, under a name no earlier call statement passes, or
 * - written in place, and neither its name nor the storage it took over
 *   (`auto buf3 = std::move(buf2);  // reuse`) was passed to an earlier call:
 *   a kernel writes such a buffer before it reads it.
 * Views passed through reinterpret_tensor_wrapper are never fresh.
 * A launch defines (ws_kernel.defines) every tensor it passes whole, in any
 * role, under a name no earlier call statement passed that is no input or
 * weight: the buffers it makes, in place of a storage it took over too
 * (`auto buf8 = std::move(buf7)`), or read after its own views wrote them (a
 * cat written through `// alias` views): the compiler's buffer -> node record
 * (core/prepare/aotidbg_record.py) gives their values after that launch.
 *
 * Fills ws_kernel.fresh/nfresh for every launch wrapper_scan found (printer
 * launches, or the call sites of a package without the printer): its launch
 * is the first call statement at or after its line naming the kernel.
 * Bounded scans of untrusted text; names live in ws->arena. No errors: a
 * launch it cannot read gets no fresh list. Threads: none. */
#ifndef AOTIDBG_LAUNCH_ROLES_H
#define AOTIDBG_LAUNCH_ROLES_H
#include <stddef.h>
#include "wrapper_scan.h"

void launch_roles_scan(wrapper_scan *ws, const char *text, size_t len);

#endif
