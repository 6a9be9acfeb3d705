/* pane_inspector.h — pane 4, the tensor inspector: the tensors of the selected
 * kernel before and after it ran, the value grid and histogram of the
 * selected one, and its diff against --reference, the eager program (--eager:
 * the runner's checks, and ref-eager's node value) and an attached .npy file.
 * Its state (view, value grid, .npy attachments) is its own; other files
 * reach it through these functions. Handlers return AF_* flags (pane.h). */
#ifndef AOTIDBG_PANE_INSPECTOR_H
#define AOTIDBG_PANE_INSPECTOR_H
#include "app.h"

extern const pane_ops pane_inspector_ops;

/* Which tensors of the kernel it lists. */
enum { INSP_ALL = 0, INSP_BEFORE, INSP_AFTER, INSP_DIFF, INSP__COUNT };

/* The tensor selected in the inspector, or NULL. */
const tensor_rec *pane_inspector_selected(app *a);
/* Shows all tensors with row selected and the value grid on flat index
 * flat of t (flat < 0: the grid's default view); the hunts use it. */
void inspector_show(app *a, int64_t row, const tensor_rec *t, int64_t flat);
/* The same for the selected kernel's tensor (name, phase), the grid's cursor
 * on the element at ("[1, 2]"): 0, or -1 with why in msg (a note on success
 * when the session kept no values of it). */
int inspector_goto_element(app *a, const char *name, tensor_phase ph, const char *at, strbuf *msg);

/* A .npy file attached as the reference of one inspector tensor (ref-npy,
 * --ref-npy): the tensor is named by kernel index, name and phase, so it
 * can be attached before a live run reaches the kernel. */
typedef struct {
    int64_t kernel;
    char *name, *path;             /* malloc'd */
    tensor_phase phase;
    arena ar;                      /* holds t's arrays and values */
    tensor_rec t;                  /* the file's contents */
} npy_ref;

/* Attaches the .npy at path to (kernel, name, phase), replacing that
 * tensor's earlier attachment; one attachment per tensor, several tensors.
 * 0, or -1 with "PATH: what; what to do" in err (nothing changes then). */
int inspector_npy_attach(app *a, int64_t kernel, const char *name, tensor_phase phase, const char *path,
                         strbuf *err);

/* Its actions (the action table, actions.c): view, values-*, grid-*, ref-npy, save-npy. */
int inspector_action_view(app *a, const char *arg);
int inspector_action_vdown(app *a, const char *arg);
int inspector_action_vup(app *a, const char *arg);
int inspector_action_vright(app *a, const char *arg);
int inspector_action_vleft(app *a, const char *arg);
int inspector_action_axes(app *a, const char *arg);
int inspector_action_fix(app *a, const char *arg);
int inspector_action_goto(app *a, const char *arg);
int inspector_action_cdown(app *a, const char *arg);
int inspector_action_cup(app *a, const char *arg);
int inspector_action_cleft(app *a, const char *arg);
int inspector_action_cright(app *a, const char *arg);
int inspector_action_ref_npy(app *a, const char *arg);
int inspector_action_ref_eager(app *a, const char *arg);
/* save-npy [PATH]: the selected tensor's kept values to a .npy file (default
 * kN_NAME_PHASE.npy here); says when only statistics or a prefix were kept. */
int inspector_action_save_npy(app *a, const char *arg);

#endif
