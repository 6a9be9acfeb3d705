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

/* The session's package (s->package.path) when it can still be opened, else NULL. */
const char *router_session_package(const session *s);

/* The steps after the text, for a result routed from elsewhere (a plain log
 * file: s may then be an empty session). */
void router_route_enrich(const router_rules *rules, const session *s, const error_event *e, const char *source,
                         route_result *out);

/* One line for the element an error comes down to, from its fields (get(ctx,
 * key): NULL when absent): compute-sanitizer's hit in the model's terms
 * (--memcheck), the index out of bounds ("index ids (arg1_1)[1, 2]
 * = 137, outside [0, 100); the bound is dim 0 of ...") or the first NaN/Inf
 * ("first bad buf15[0, 0, 0] = nan; log at model.py:36: ..."). The run's
 * summary, the router pane and the inspector all say it in these words.
 * Appends to *sb; returns 0 when the fields name no element. */
typedef const char *(*route_field_fn)(const void *ctx, const char *key);
int route_element_line(route_field_fn get, const void *ctx, strbuf *sb);

#endif
