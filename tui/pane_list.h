/* pane_list.h — the panes of the UI, in tab order (their numbers 1, 2, ...):
 * one row each. The row's name is the pane's enum value; its ops are
 * declared by the pane's header and put in the table by panes.c. */
#ifndef AOTIDBG_PANE_LIST_H
#define AOTIDBG_PANE_LIST_H

#define AOTIDBG_PANES(X)               \
    X(PANE_ROUTER, pane_router_ops)    \
    X(PANE_CHECKLIST, pane_checklist_ops) \
    X(PANE_KERNELS, pane_kernels_ops)  \
    X(PANE_INSPECTOR, pane_inspector_ops)

#define AOTIDBG_PANE_ENUM(id, ops) id,
enum { AOTIDBG_PANES(AOTIDBG_PANE_ENUM) PANE__COUNT };
#undef AOTIDBG_PANE_ENUM

#endif
