/* timeview.h — the kernel time view over the panes: the session's kernels
 * sorted by device time (core/analysis/kernel_times.h), each with its share
 * of the total, bytes read and written, achieved GB/s against the device's
 * peak and a bar scaled to the longest, fitted to the width it gets (columns
 * drop out on a narrow screen, the bar last; '#' bars with --ascii). j/k move,
 * / searches kernel names, Enter selects the kernel in the kernel list, q
 * closes. The view owns its state (a->timeview, made on first open, freed by
 * timeview_release); the table is rebuilt when the session grows (live).
 * Grid only; threads: one. */
#ifndef AOTIDBG_TIMEVIEW_H
#define AOTIDBG_TIMEVIEW_H
#include "app.h"

/* The kernel-times action: opens the view (or closes it when open). */
int timeview_action(app *a, const char *arg);
/* Frees a->timeview; safe when it was never opened. */
void timeview_release(app *a);

#endif
