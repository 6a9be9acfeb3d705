/* route_nan.h — a nan-inf route down to the element: the fields of the
 * session's nan event (core/analysis/nan_element.h; computed from the
 * session when it has none, as in files recorded before it existed) and the
 * provenance of the kernel that wrote the NaN/Inf (route_provenance.h).
 *
 * Fields added (strings): kernel, kernel_index (the kernel that wrote it,
 * replacing any the text named: NaN asserts fire after it), bad_tensor, bad_at,
 * bad_value, bad_count, nan_from, inputs_at ("; "-separated), suspect_ops,
 * then source_line, source_code, also_at, graph_nodes, aten_ops, kernel_call
 * of that kernel. Other routes, or a session where no kernel wrote NaN/Inf:
 * nothing. Ownership: values copied into r. Errors: none. Threads: none. */
#ifndef AOTIDBG_ROUTE_NAN_H
#define AOTIDBG_ROUTE_NAN_H
#include "model.h"
#include "router.h"

void route_add_nan(route_result *r, const session *s);

#endif
