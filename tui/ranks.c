/* ranks.c — the ranks of a --ranks run side by side (see ranks.h). */
#include "ranks.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "live.h"
#include "panes.h"
#include "session_io.h"

#define STRIP_MAX 8   /* rank lines shown at most; more scroll with the shown rank */

rank_set *ranks_new(app *a, int n)
{
    rank_set *r = xcalloc(1, sizeof *r);
    r->n = n;
    for (int k = 0; k < n; k++) {
        r->s[k] = k == 0 && a->s ? a->s : session_new();
        r->s[k]->rank = k;
        r->s[k]->world_size = n;
    }
    ranks_attach(a, r);
    return r;
}

int ranks_load(const char *const *paths, int n, rank_set **out, strbuf *err)
{
    rank_set *r = xcalloc(1, sizeof *r);
    r->n = n;
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        r->path[k] = paths[k];
        if (session_load(paths[k], &r->s[k], err) < 0)
            rc = -1;
    }
    if (!rc)
        rc = rank_sessions_order(r->s, r->path, n, err);
    if (rc) {
        for (int k = 0; k < n; k++)
            session_free(r->s[k]);
        free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void ranks_attach(app *a, rank_set *r)
{
    if (a->owns_session && a->s != r->s[0])
        session_free(a->s);
    a->ranks = r;
    a->owns_session = 0;
    r->shown = 0;
    a->s = r->s[0];
}

void ranks_free(app *a)
{
    rank_set *r = a->ranks;
    if (!r)
        return;
    for (int k = 0; k < r->n; k++)
        session_free(r->s[k]);
    free(r);
    a->ranks = NULL;
    a->s = NULL;
}

static int ranks_show(app *a, int k)
{
    rank_set *r = a->ranks;
    if (!r) {
        app_message(a, 1, "rank: not a --ranks run (one rank)");
        return -1;
    }
    if (k < 0 || k >= r->n) {
        app_message(a, 1, "rank: no rank %d (ranks 0..%d)", k, r->n - 1);
        return -1;
    }
    r->shown = k;
    a->s = r->s[k];
    app_reset_panes(a);   /* each pane's state was the other rank's */
    live_show_rank(a, k);
    app_clamp(a);
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    app_message(a, 0, "rank %d of %d shown (the kernel list and the inspector)", k, r->n);
    return 0;
}

/* Where every rank is: live, from its runner (live.h); replayed, where its recording ends. */
static void ranks_positions(app *a, rank_pos *pos)
{
    rank_set *r = a->ranks;
    for (int k = 0; r && k < r->n; k++)
        if (!a->live || live_rank_position(a, k, &pos[k], NULL) < 0)
            rank_pos_recorded(r->s[k], &pos[k]);
}

int ranks_rows(const app *a)
{
    if (!a->ranks)
        return 0;
    return 1 + (a->ranks->n < STRIP_MAX ? a->ranks->n : STRIP_MAX);
}

/* " (all_reduce, group 0)" for a collective kernel. */
static void add_collective(const kernel_event *k, strbuf *out)
{
    if (k && k->collective)
        strbuf_addf(out, " (%s, group %s)", k->collective, k->group ? k->group : "?");
}

/* One rank's line as the strip shows it. */
static void ranks_line(app *a, const rank_pos *pos, int k, strbuf *out)
{
    rank_set *r = a->ranks;
    const session *s = r->s[k];
    const char *state = NULL;
    char end[64];
    rank_pos p;
    int live = a->live && live_rank_position(a, k, &p, &state) == 0;
    strbuf_addf(out, "rank %d  %-8s", k, live ? state : session_end_state(s, end, sizeof end));
    const kernel_event *op;
    strbuf who = STRBUF_INIT;   /* first, so that a narrow strip still shows it */
    if (rank_waits_for(r->s, pos, r->n, k, &op, &who))
        strbuf_addf(out, " waiting for %s in %s #%" PRId64 " (group %s, ranks %s);", who.buf, op->collective,
                    op->index, op->group ? op->group : "?", op->participants ? op->participants : "?");
    strbuf_release(&who);
    if (live) {   /* where its runner is */
        const kernel_event *at = rank_kernel_at(s, p.at);
        if (at) {
            /* at: stopped before it; in: running it (or failed in it); after: stopped at its NaN */
            const char *where = !p.in_kernel ? "at" : !strcmp(state, "stopped") ? "after" : "in";
            strbuf_addf(out, " %s #%" PRId64 " %s", where, at->index, at->name);
            add_collective(at, out);
        } else if (p.reach == RANK_REACH_END) {
            strbuf_addf(out, " ran %zu kernels", s->nkernels);
        }
        return;
    }
    /* replayed: the selected kernel's row on this rank, then where it ended */
    const kernel_event *sel = app_selected_kernel(a);
    const kernel_event *at = sel ? rank_kernel_at(s, sel->index) : NULL;
    if (at) {
        strbuf_addf(out, " #%" PRId64 " %s %s", at->index, at->name, kernel_status_name(at->status));
        add_collective(at, out);
    } else if (sel) {
        strbuf_addf(out, " no kernel #%" PRId64 " (%zu ran)", sel->index, s->nkernels);
    }
    const kernel_event *last = rank_kernel_at(s, pos[k].at);
    if (pos[k].in_kernel && last && (!at || at->index != last->index))
        strbuf_addf(out, "; ended in #%" PRId64 " %s", last->index, last->name);
}

void ranks_render(app *a, grid *g, rect r)
{
    rank_set *R = a->ranks;
    if (!R || r.h < 1)
        return;
    grid_fill(g, r.x, r.y, r.w, r.h, ' ', EL_NORMAL);
    char head[160];
    snprintf(head, sizeof head, "ranks (%d, rank %d shown: { } or :rank K switches)", R->n, R->shown);
    grid_put(g, r.x, r.y, r.w, EL_HEADER, head);
    rank_pos pos[RUN_MAX_RANKS];
    ranks_positions(a, pos);
    int rows = r.h - 1, first = R->shown - rows / 2;
    if (first > R->n - rows)
        first = R->n - rows;
    if (first < 0)
        first = 0;
    for (int i = 0; i < rows && first + i < R->n; i++) {
        int k = first + i;
        strbuf line = STRBUF_INIT;
        strbuf_addstr(&line, k == R->shown ? "> " : "  ");
        ranks_line(a, pos, k, &line);
        const kernel_event *op;
        strbuf who = STRBUF_INIT;
        int waits = rank_waits_for(R->s, pos, R->n, k, &op, &who);
        strbuf_release(&who);
        grid_put(g, r.x, r.y + 1 + i, r.w, k == R->shown ? EL_SELECTED : waits ? EL_WARN : EL_NORMAL, line.buf);
        strbuf_release(&line);
    }
}

int ranks_action_show(app *a, const char *arg)
{
    char *end;
    long k = arg ? strtol(arg, &end, 10) : -1;
    if (!arg || !*arg || *end) {
        app_message(a, 1, "rank: which rank? (rank K, K from 0)");
        return AF_FAILED;
    }
    return ranks_show(a, (int)k) < 0 ? AF_FAILED : AF_HANDLED;
}

static int show_by(app *a, int d)
{
    if (!a->ranks)
        return ranks_show(a, 0) < 0 ? AF_FAILED : AF_HANDLED;
    int n = a->ranks->n;
    return ranks_show(a, ((a->ranks->shown + d) % n + n) % n) < 0 ? AF_FAILED : AF_HANDLED;
}

int ranks_action_next(app *a, const char *arg) { return show_by(a, 1); }
int ranks_action_prev(app *a, const char *arg) { return show_by(a, -1); }
