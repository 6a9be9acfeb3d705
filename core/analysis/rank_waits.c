/* rank_waits.c — who waits for whom in a collective (see rank_waits.h). */
#include "rank_waits.h"
#include <stdlib.h>
#include <string.h>

const kernel_event *rank_kernel_at(const session *s, int64_t index)
{
    for (size_t i = s ? s->nkernels : 0; i-- > 0;) {
        const kernel_event *k = &s->kernels[i]->u.kernel;
        if (k->index == index)
            return k;
        if (k->index < index)
            break;
    }
    return NULL;
}

static int has_output(const session *s)
{
    for (size_t i = s->nevents; i-- > 0;)
        if (s->events[i]->kind == EV_OUTPUT)
            return 1;
    return 0;
}

void rank_pos_recorded(const session *s, rank_pos *p)
{
    p->at = p->reach = -1;
    p->in_kernel = 0;
    if (!s || !s->nkernels)
        return;
    const kernel_event *l = &s->kernels[s->nkernels - 1]->u.kernel;
    p->at = p->reach = l->index;
    if (l->status != KSTAT_PENDING && l->status != KSTAT_ERROR && has_output(s)) {
        p->reach = RANK_REACH_END;   /* it ran to the end */
        return;
    }
    p->in_kernel = !(l->status == KSTAT_PENDING && s->end_state && !strcmp(s->end_state, "stopped"));
    if (!p->in_kernel)
        p->reach = l->index - 1;
}

int rank_sessions_order(session **s, const char **paths, int n, strbuf *err)
{
    for (int k = 0; k < n; k++) {
        if (s[k]->rank < 0) {
            strbuf_addf(err, "%s: not a session of a --ranks run (no rank key): open it alone", paths[k]);
            return -1;
        }
        if (s[k]->world_size != s[0]->world_size) {
            strbuf_addf(err, "%s: rank %d of a world of %d, but %s is of a world of %d: the files are not the "
                        "ranks of one run", paths[k], s[k]->rank, s[k]->world_size, paths[0], s[0]->world_size);
            return -1;
        }
    }
    for (int i = 1; i < n; i++)   /* insertion sort: a few ranks */
        for (int j = i; j > 0 && s[j - 1]->rank > s[j]->rank; j--) {
            session *t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
            const char *p = paths[j];
            paths[j] = paths[j - 1];
            paths[j - 1] = p;
        }
    for (int k = 1; k < n; k++)
        if (s[k]->rank == s[k - 1]->rank) {
            strbuf_addf(err, "%s and %s are both rank %d", paths[k - 1], paths[k], s[k]->rank);
            return -1;
        }
    return 0;
}

/* 1 when rank j is one of the participants ("0,1,3"); a NULL list has all. */
static int takes_part(const char *participants, int j)
{
    if (!participants)
        return 1;
    for (const char *p = participants; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (v == j)
            return 1;
        p = end + strspn(end, ", ");
    }
    return 0;
}

int rank_waits_for(session *const *s, const rank_pos *pos, int n, int k, const kernel_event **op, strbuf *who)
{
    const kernel_event *l = pos[k].in_kernel ? rank_kernel_at(s[k], pos[k].at) : NULL;
    if (!l || !l->collective || (l->status != KSTAT_PENDING && l->status != KSTAT_ERROR))
        return 0;
    const kernel_event *c = l;   /* a wait_tensor waits for the collective before it */
    if (!strcmp(l->collective, "wait_tensor"))
        for (int64_t i = l->index - 1; i >= 0; i--) {
            const kernel_event *e = rank_kernel_at(s[k], i);
            if (e && e->collective && strcmp(e->collective, "wait_tensor")) {
                c = e;
                break;
            }
        }
    int missing = 0;
    strbuf list = STRBUF_INIT;
    for (int j = 0; j < n; j++)
        if (j != k && takes_part(c->participants, j) && pos[j].reach < c->index) {
            strbuf_addf(&list, "%s%d", missing ? ", " : "", j);
            missing++;
        }
    if (missing)
        strbuf_addf(who, "%s %s", missing == 1 ? "rank" : "ranks", list.buf);
    strbuf_release(&list);
    *op = c;
    return missing > 0;
}
