/* route_event.h — the one routing entry point: what a recorded error (or,
 * with no error, the whole session: its errors, log lines, stderr tail and
 * the runner's death) means, with everything the session and its package
 * know. The recorder, `aotidbg route`, and the TUI's router pane all call it,
 * so they say the same thing.
 *
 * Steps: the text (the error's, after the run's last log lines; or the
 * session's, router_session.h), the platform wording (the session's device,
 * else the package's AOTI_DEVICE_KEY; a generated C++ kernel runs on the
 * CPU), an index assert traced through the package's code (triton_trace.h)
 * down to the element (oob_element.h), the runtime size of the input
 * dimension behind it, the failing kernel's provenance, the NaN/Inf element
 * (route_nan.h), and the fields the run recorded for the same route (they
 * stay true when the package is gone).
 *
 * source: the package's sources (a .pt2, an extracted folder, a
 * *.wrapper.cpp); NULL: the session's package when it can still be opened.
 * Ownership: fills *out (zeroed or released before; release with
 * route_result_release). Errors: none; what could not be read is a field
 * (trace_error, element_error) or simply missing. Threads: none. */
#ifndef AOTIDBG_ROUTE_EVENT_H
#define AOTIDBG_ROUTE_EVENT_H
#include "model.h"
#include "router.h"

#define ROUTE_LOG_LINES 5000   /* runner output lines routed with an error (the last ones) */

void router_route_event(const router_rules *rules, const session *s, const error_event *e, const char *source,
                        route_result *out);

/* The steps after the text, for a result routed from elsewhere (a plain log
 * file: s may then be an empty session). */
void router_route_enrich(const router_rules *rules, const session *s, const error_event *e, const char *source,
                         route_result *out);

#endif
