/* panes.h — the panes of the UI (pane_list.h) put together: app_init makes
 * every pane with its own state, app_release frees them with the app. */
#ifndef AOTIDBG_PANES_H
#define AOTIDBG_PANES_H
#include "app.h"

/* The app over session s in mode: every pane made (ops->init), the kernel
 * list focused, or the router when the session has errors. */
void app_init(app *a, session *s, app_mode mode);
/* Every pane's state made anew (ops->release, ops->init) with the error
 * and anomaly indexes, for another session in a->s (ranks.h: another rank);
 * the cursors stay, clamped later. */
void app_reset_panes(app *a);
/* Frees the panes' state, the strbufs, the reference session, and the
 * session when owned. */
void app_release(app *a);

#endif
