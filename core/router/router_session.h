/* router_session.h — routes what a recorded session knows, not only its text.
 *
 * The text: every error event, the runner's log lines and its stderr tail.
 * The facts next to it (router_stream_fact, matched by routes.yaml like any
 * line, shown with their origin): the run's device (the platform, which picks
 * the advice's wording), the kernel that failed and the first that wrote
 * NaN/Inf, how the runner ended (a signal is a crash even when it printed
 * nothing), and the checklist rows that failed.
 *
 * Ownership: reads the session, fills *out (release with
 * route_result_release). No errors: a session with nothing in it routes
 * `unknown`. Thread safety: none beyond the session's own. */
#ifndef AOTIDBG_ROUTER_SESSION_H
#define AOTIDBG_ROUTER_SESSION_H
#include "model.h"
#include "router.h"

void router_route_session(const router_rules *rules, const session *s, route_result *out);

/* What the run itself worked out for err (the kernel's name, the index's
 * tensor, element and value, with the package at hand) wins over what the
 * text alone gives, when both name the same route (the two index-check
 * routes count as one: a session older than cpp-index-oob says triton-index-oob). err may be NULL. */
void router_keep_recorded_fields(route_result *out, const error_event *err);

/* The platform id (cuda, rocm, xpu, mps, cpu) a device or AOTI_DEVICE_KEY
 * string names ("cuda:1" -> "cuda", "hip" -> "rocm"); NULL when none. */
const char *router_platform_of_device(const char *device);

#endif
