/* rank_waits.h — the ranks of a --ranks run side by side: where each rank
 * is (the kernel it is stopped before or running in) and, for a rank inside
 * a collective, the ranks it waits for (those of the collective's
 * participants that have not launched it yet). The live UI's and the
 * replay's ranks strip (tui/ranks.c) and `aotidbg replay --dump` of several
 * rank files (core/cli/cmd_replay.c) say the same thing through here.
 *
 * Ownership: sessions are borrowed; the returned kernel events point into
 * them. Errors: none. Threads: any. */
#ifndef AOTIDBG_RANK_WAITS_H
#define AOTIDBG_RANK_WAITS_H
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

#define RANK_REACH_END INT64_MAX   /* rank_pos.reach of a rank that ran to the end */

typedef struct {
    int64_t at;       /* the kernel index it is at (stopped before it, or in it); -1 none yet */
    int in_kernel;    /* 1: kernel `at` was launched (running in it, or the run ended in it) */
    int64_t reach;    /* the last kernel it launched (and every one before); -1 none, RANK_REACH_END */
} rank_pos;

/* Kernel `index` of s (searched from the end), or NULL. */
const kernel_event *rank_kernel_at(const session *s, int64_t index);
/* Where a recorded run left its rank: in its last kernel, unless it ran to
 * the end (reach RANK_REACH_END) or was left stopped before it (end_state
 * "stopped": not launched). */
void rank_pos_recorded(const session *s, rank_pos *p);
/* Rank k waits in a collective: 1 when kernel pos[k].at is a collective it
 * is in (not finished) and some participants have not launched the
 * collective (for a wait_tensor, the collective before it): *op is that
 * collective, who gets "rank 1" or "ranks 1, 2" (appended). 0 otherwise
 * (also when every participant got there: it is on its way out). */
int rank_waits_for(session *const *s, const rank_pos *pos, int n, int k, const kernel_event **op, strbuf *who);

/* Sessions of one --ranks run given in any order (paths[k] is s[k]'s file):
 * both arrays put in rank order; -1 with err when one has no rank key,
 * their worlds differ or a rank comes twice. */
int rank_sessions_order(session **s, const char **paths, int n, strbuf *err);

#endif
