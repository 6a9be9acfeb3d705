/* hunt.h — the hunts as actions: hunt-nan, hunt-diverge and
 * producer select what they find in the kernel list and the inspector and
 * open a report in the text view; in a live run the hunt first lets the run
 * go on. The analysis is core/analysis/hunts.h. Handlers return AF_* flags
 * (pane.h) and say what happened on the message line. */
#ifndef AOTIDBG_HUNT_H
#define AOTIDBG_HUNT_H
#include "app.h"

int hunt_action_nan(app *a, const char *arg);
int hunt_action_diverge(app *a, const char *arg);
int hunt_action_producer(app *a, const char *arg);
/* live: called by live_pump when the runner stops while a hunt waits: the
 * first stop after loading launches the hunt, the stop after that reports. */
void hunt_live_settled(app *a);

#endif
