/* ranks.h — the ranks of a --ranks run, live (`aotidbg PKG --ranks N`, whose
 * run services live.c holds) or replayed together (`aotidbg replay
 * S.rank0.yaml S.rank1.yaml ...`): one session per rank, one of them shown
 * by the kernel list and the inspector (a->s), and the ranks strip above
 * the panes: for each rank its state, the kernel it is at and, inside a
 * collective, the collective (op, group) and the ranks it waits for
 * (core/analysis/rank_waits.h).
 *
 * Ownership: a->ranks (NULL when the run has one rank) owns every rank's
 * session; a->s is the shown one's (the app does not own it then). ranks.c
 * makes and frees the set; live.c moves the live ranks. Errors: -1 with err
 * (ranks_load) or the app's message (the actions). Threads: one. */
#ifndef AOTIDBG_RANKS_H
#define AOTIDBG_RANKS_H
#include "app.h"
#include "rank_waits.h"
#include "run_options.h"

typedef struct rank_set {
    int n, shown;
    session *s[RUN_MAX_RANKS];      /* rank k's session (owned) */
    const char *path[RUN_MAX_RANKS];   /* its file (replay; borrowed from argv), NULL live */
} rank_set;

/* A set of n empty sessions (rank k, world_size n) on the app, for a live
 * --ranks run (made before live_start, which reads it); s[0] is a->s, which
 * the set takes over. */
rank_set *ranks_new(app *a, int n);
/* replay: the files, loaded and put in rank order (their `rank` keys: one
 * world, each rank once); -1 with err naming the file. */
int ranks_load(const char *const *paths, int n, rank_set **out, strbuf *err);
/* The set on the app (it takes it over), rank 0 shown. */
void ranks_attach(app *a, rank_set *r);
/* Frees every session (a->s becomes NULL). NULL set: nothing. */
void ranks_free(app *a);

/* The strip: rows it wants at width w (0: no ranks), and drawing it. */
int ranks_rows(const app *a);
void ranks_render(app *a, grid *g, rect r);

/* Actions (actions.c's table): rank K, rank-next, rank-prev: rank K shown
 * in the kernel list and the inspector (the selected row stays, each
 * pane's own state starts afresh); AF_FAILED with the message when there is
 * no rank K. */
int ranks_action_show(app *a, const char *arg);
int ranks_action_next(app *a, const char *arg);
int ranks_action_prev(app *a, const char *arg);

#endif
