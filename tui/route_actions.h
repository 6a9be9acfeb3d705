/* route_actions.h — the router's next steps as named actions (issue 4 item 5):
 * run-checklist, rerun-blocking, rebuild-printer, jump-kernel, open-source,
 * break-nan, goto-element (route-action, which runs the selected error's Nth next step, is
 * actions.c's: it runs another action).
 * Handlers follow actions.h: return AF_* flags, say what happened in the
 * app's message line. */
#ifndef AOTIDBG_ROUTE_ACTIONS_H
#define AOTIDBG_ROUTE_ACTIONS_H
#include "app.h"

int ra_run_checklist(app *a, const char *arg);
int ra_rerun_blocking(app *a, const char *arg);
int ra_rebuild_printer(app *a, const char *arg);
/* Says the aotidbg repro command for the selected kernel (into DIR, arg; default repro-kN). */
int ra_repro(app *a, const char *arg);
int ra_jump_kernel(app *a, const char *arg);
int ra_open_source(app *a, const char *arg);
int ra_break_nan(app *a, const char *arg);
/* The element the selected error comes down to (index out of bounds:
 * index_tensor/index_at, before the launch; NaN/Inf: bad_tensor/bad_at,
 * after it): its kernel selected, the inspector's grid cursor on it. */
int ra_goto_element(app *a, const char *arg);

#endif
