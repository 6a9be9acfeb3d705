/* route_provenance.h — the failing kernel's provenance as route fields: the
 * user's source line and code, the graph nodes and ATen ops it computes.
 *
 * Owner: core/router/route_provenance.c. Fields (values copied into r's arena;
 * a field the call does not know is left out):
 *   source_line   "/path/model.py:36", the user's line (stack_trace.h)
 *   source_code   "h = torch.log(h - 10.0)"
 *   also_at       more user lines of a fused kernel, ", "-separated
 *   graph_nodes   its graph nodes (source-node comment, else pre/post-grad nodes)
 *   aten_ops      "aten.log, aten.sub"
 *   kernel_call   its kernel_information.json handle "<kernel>:<N>"
 * The call is the kernel event's (kernel_index, session_kernel_call), else the
 * first call of the kernel the result's `kernel` field names. No errors; does
 * nothing when neither is known or the session has no calls. Threads: none. */
#ifndef AOTIDBG_ROUTE_PROVENANCE_H
#define AOTIDBG_ROUTE_PROVENANCE_H
#include <stdint.h>
#include "model.h"
#include "router.h"

void route_add_provenance(route_result *r, const session *s, int64_t kernel_index);

#endif
