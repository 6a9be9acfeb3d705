/* pane_router.h — pane 1, the error router: the session's error events, each
 * routed through core/router (cached), with its fields, next steps as
 * actions and the text. Its state (the rules, the cached routing, the
 * selected next step) is its own. */
#ifndef AOTIDBG_PANE_ROUTER_H
#define AOTIDBG_PANE_ROUTER_H
#include "app.h"

extern const pane_ops pane_router_ops;

struct route_result;
/* The routing of the error selected in the router pane, or NULL (cached;
 * valid until the selection changes). */
const struct route_result *pane_router_selected(app *a);
/* The error event selected in the router, or NULL. */
const error_event *pane_router_error(app *a);
/* The selected next step of that error (0-based), and setting it. */
int pane_router_act(app *a);
void pane_router_set_act(app *a, int i);

#endif
