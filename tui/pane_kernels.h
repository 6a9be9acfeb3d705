/* pane_kernels.h — pane 3, the kernel list: every launch of the run in
 * order (index, name, where it comes from, kind, status, duration, anomaly
 * marks), following the running kernel in a live run, grouped into the
 * model's layers (foldable) when the session has provenance. Moving its
 * cursor selects a kernel for the other panes (PREQ_KERNEL_SELECTED). */
#ifndef AOTIDBG_PANE_KERNELS_H
#define AOTIDBG_PANE_KERNELS_H
#include "app.h"

extern const pane_ops pane_kernels_ops;

/* Its actions (the action table): fold the selected kernel's group, fold
 * them all (or open them all when all are folded), group by layer, line or
 * not at all (kernel_groups.h). */
int kernels_action_fold(app *a, const char *arg);
int kernels_action_fold_all(app *a, const char *arg);
int kernels_action_group_by(app *a, const char *arg);

/* Kernel index `index` was folded: selects its kernel in its fold's opened
 * group, says so, and returns 1; 0 when no fold holds it. */
int kernels_goto_folded(app *a, int64_t index);

#endif
