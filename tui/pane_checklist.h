/* pane_checklist.h — pane 2, the device/shape checklist rows of the session
 * (s->checks): status, what was checked, expected vs got; evidence and fix
 * of the selected row. */
#ifndef AOTIDBG_PANE_CHECKLIST_H
#define AOTIDBG_PANE_CHECKLIST_H
#include "app.h"

extern const pane_ops pane_checklist_ops;

#endif
