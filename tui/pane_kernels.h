/* pane_kernels.h — pane 3, the kernel list: every launch of the run in
 * order (index, name, kind, status, duration, anomaly marks), following the
 * running kernel in a live run. Moving its cursor selects a kernel for the
 * other panes (PREQ_KERNEL_SELECTED). */
#ifndef AOTIDBG_PANE_KERNELS_H
#define AOTIDBG_PANE_KERNELS_H
#include "app.h"

extern const pane_ops pane_kernels_ops;

#endif
