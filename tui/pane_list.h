/* pane_list.h — the panes of the UI, in tab order (their numbers 1, 2, ...):
 * one row each: the pane's enum value, its ops (declared by the pane's
 * header, put in the table by panes.c), its name (the ops' name too), the
 * key that focuses it (its number) and what it is, for the pane-NAME focus
 * action that actions.c makes from the row. */
#ifndef AOTIDBG_PANE_LIST_H
#define AOTIDBG_PANE_LIST_H

#define AOTIDBG_PANES(X)                                                                  \
    X(PANE_ROUTER, pane_router_ops, "router", "1", "the error router")                    \
    X(PANE_CHECKLIST, pane_checklist_ops, "checklist", "2", "the device/shape checklist") \
    X(PANE_KERNELS, pane_kernels_ops, "kernels", "3", "the kernel list")                  \
    X(PANE_INSPECTOR, pane_inspector_ops, "inspector", "4", "the tensor inspector")

#define AOTIDBG_PANE_ENUM(id, ops, name, key, what) id,
enum { AOTIDBG_PANES(AOTIDBG_PANE_ENUM) PANE__COUNT };
#undef AOTIDBG_PANE_ENUM

#endif
