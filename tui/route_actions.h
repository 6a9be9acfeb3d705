/* route_actions.h — the router's next steps as named actions (issue 4 item 5):
 * run-checklist, rerun-blocking, rebuild-printer, jump-kernel, open-source,
 * break-nan, and route-action (runs the selected error's Nth next step).
 * Also the read-only text view they open (kernel source) and the hunts use.
 * Handlers follow actions.h: return AF_* flags, say what happened in the
 * app's message line. */
#ifndef AOTIDBG_ROUTE_ACTIONS_H
#define AOTIDBG_ROUTE_ACTIONS_H
#include "app.h"

int ra_route_action(app *a, const char *arg);
int ra_run_checklist(app *a, const char *arg);
int ra_rerun_blocking(app *a, const char *arg);
int ra_rebuild_printer(app *a, const char *arg);
int ra_jump_kernel(app *a, const char *arg);
int ra_open_source(app *a, const char *arg);
int ra_break_nan(app *a, const char *arg);

/* Text view: replaces the view's text (copied) and opens it at line top. */
void textview_open(app *a, const char *title, const char *text, int64_t top);
void textview_close(app *a);
int64_t textview_lines(const app *a);
/* Next line (from the current top, in direction dir) holding pat; -1 none. */
int64_t textview_find(const app *a, const char *pat, int dir, int include_top);
void textview_render(app *a, grid *g, rect r);

#endif
