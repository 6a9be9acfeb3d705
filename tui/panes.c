/* panes.c — the pane table and the app that holds the panes (see panes.h). */
#include "panes.h"
#include <stdlib.h>
#include <string.h>
#include "pane_checklist.h"
#include "pane_inspector.h"
#include "pane_kernels.h"
#include "pane_router.h"
#include "session_read.h"
#include "timeview.h"
#include "view.h"

#define MIN_W 40
#define MIN_H 10

#define AOTIDBG_PANE_OPS(id, ops, name, key, what) [id] = &ops,
static const pane_ops *const table[PANE__COUNT] = {AOTIDBG_PANES(AOTIDBG_PANE_OPS)};

void app_init(app *a, session *s, app_mode mode)
{
    memset(a, 0, sizeof *a);
    a->s = s;
    a->mode = mode;
    for (int i = 0; i < PANE__COUNT; i++) {
        a->panes[i].ops = table[i];
        a->panes[i].index = i;
        a->panes[i].priv = table[i]->init ? table[i]->init(a) : NULL;
    }
    a->focus = PANE_KERNELS;
    a->search_pane = -1;
    a->follow = 1;
    a->brk.kernel = -1;
    strbuf_init(&a->input, 0);
    strbuf_init(&a->message, 0);
    strbuf_init(&a->messages, 0);
    strbuf_init(&a->view, 0);
    a->view_hit = -1;
    theme_default(&a->th);
    a->min_w = MIN_W;
    a->min_h = MIN_H;
    /* Open on what matters: a session with errors starts in the router. */
    if (app_errors(a))
        a->focus = PANE_ROUTER;
}

void app_reset_panes(app *a)
{
    for (int i = 0; i < PANE__COUNT; i++) {
        pane *p = &a->panes[i];
        if (p->ops->release)
            p->ops->release(p->priv);
        p->priv = p->ops->init ? p->ops->init(a) : NULL;
    }
    a->nerr = a->err_scanned = 0;
    a->nanom = a->anom_scanned = 0;
    view_close_all(a);   /* a view over the panes (kernel times) was of the other session */
    timeview_release(a);
}

void app_release(app *a)
{
    for (int i = 0; i < PANE__COUNT; i++) {
        if (a->panes[i].ops && a->panes[i].ops->release)
            a->panes[i].ops->release(a->panes[i].priv);
        a->panes[i].priv = NULL;
    }
    free(a->anom_idx);
    a->anom_idx = NULL;
    free(a->err_idx);
    a->err_idx = NULL;
    free(a->mc_idx);
    a->mc_idx = NULL;
    strbuf_release(&a->input);
    strbuf_release(&a->message);
    strbuf_release(&a->messages);
    strbuf_release(&a->view);
    timeview_release(a);
    session_reader_close(a->loader);
    a->loader = NULL;
    free(a->load_error);
    a->load_error = NULL;
    session_free(a->ref);
    a->ref = NULL;
    if (a->owns_session)
        session_free(a->s);
    a->s = NULL;
}
