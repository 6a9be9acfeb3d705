/* route_actions.h — the router's next steps as named actions:
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
/* The selected kernel's launch as a standalone folder (DIR, arg; default
 * repro-kN). Replay: says the aotidbg repro command. Live: starts that repro
 * (cmd_repro.h's repro_run, its own runner through the run service) and
 * returns at once; the UI loop pumps it with ra_repro_tick, so keys are read
 * while it runs, and Esc or ^C (ra_repro_cancel) ends it. One at a time. */
int ra_repro(app *a, const char *arg);
/* Pumps the live repro (at most timeout_ms): its progress, then its result,
 * on the message line. 1 when the screen changed, 0 (also when none runs). */
int ra_repro_tick(app *a, int timeout_ms);
/* Scripts: pumps until the repro is done; -1 after timeout_ms (it goes on). */
int ra_repro_settle(app *a, int timeout_ms);
/* Ends the live repro now (its runner killed, its folder emptied, its
 * session kept) and says so: 1, or 0 when none runs. */
int ra_repro_cancel(app *a);
int ra_repro_fd(app *a);   /* the live repro's runner fd to poll, -1 when none */
int ra_jump_kernel(app *a, const char *arg);
int ra_open_source(app *a, const char *arg);
int ra_break_nan(app *a, const char *arg);
/* The element the selected error comes down to (index out of bounds:
 * index_tensor/index_at, before the launch; NaN/Inf: bad_tensor/bad_at,
 * after it): its kernel selected, the inspector's grid cursor on it. */
int ra_goto_element(app *a, const char *arg);

#endif
