/* provenance.h — where each kernel call of a package comes from in the
 * user's model: graph nodes, ATen ops, the user's source lines, weights.
 *
 * Two sources, both written by AOTInductor (checked with torch 2.13 on CPU;
 * torch 2.11 writes the same for CUDA packages):
 * - every package's <key>.wrapper.cpp, above a launch (Triton launches and
 *   extern calls; CPU cpp_fused_* launches get none):
 *     // Topologically Sorted Source Nodes: [linear, relu], Original ATen: [aten.addmm, aten.relu]
 * - a package compiled with inductor_configs={"trace.provenance_tracking_level": 1}
 *   also carries data/aotinductor/<model>/kernel_information.json,
 *     {"<kernel>:<N>": {"stack_traces": [...], "pre_grad_nodes": [...], "post_grad_nodes": [...]}}
 *   one entry per call, N counting calls from 1 in code-generation order, and
 *   wrapper.cpp marks each launch `// [Provenance debug handles] <kernel>:<N>`.
 * The result is the session's call table (model.h kernel_call): one row per
 * launch wrapper_scan lists (the printer's launches, or the call sites of a
 * package without the printer), joined to its JSON entry by that handle, else
 * by kernel name in order; a JSON entry of a launch the printer does not see
 * is left out. Kernel events point at their row (session_match_call).
 *
 * Use: a run calls provenance_from_scan() once the package is open; the eager
 * reference maps a kernel event to the graph nodes it computes through
 * session_kernel_call(s, k)->post_grad, and a node back to its call with
 * session_call_of_node(); stack_trace.h turns a row's stack into the user's lines.
 *
 * Owner: core/package/provenance.c. Everything is copied into the session's
 * arena. Untrusted input: sizes and list lengths are capped (below), entries of
 * the wrong shape are skipped and counted. Errors: 0, or -1 with a message
 * naming the file and what is wrong; the wrapper's rows stay even then. */
#ifndef AOTIDBG_PROVENANCE_H
#define AOTIDBG_PROVENANCE_H
#include <stddef.h>
#include "model.h"
#include "package.h"
#include "strbuf.h"
#include "wrapper_scan.h"

#define PROV_MAX_JSON_BYTES (256u << 20)   /* kernel_information.json */
#define PROV_MAX_LIST       1024           /* items kept per list of one call */
#define PROV_MAX_STRING     (64u << 10)    /* bytes kept of one stack trace or name */

/* From texts: wrapper (may be NULL), json (may be NULL; jname names it in errors). */
int provenance_scan(session *s, const char *wrapper, size_t wlen, const char *json, size_t jlen,
                    const char *jname, strbuf *err);
/* From a wrapper.cpp already scanned (ws may be NULL) and the JSON text. */
int provenance_from_scan(session *s, const wrapper_scan *ws, const char *json, size_t jlen, const char *jname,
                         strbuf *err);
/* From PKG in any form package_sources.h reads (.pt2, folder, *.wrapper.cpp). */
int provenance_load_path(session *s, const char *pkg, strbuf *err);

#endif
