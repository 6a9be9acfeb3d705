/* run_ranks.h — the ranks of a --ranks run on this host, set up the same way
 * for `aotidbg run --ranks N` (core/cli/cmd_ranks.c: one child process per
 * rank) and the live UI (tui/live.c: one run service per rank): the
 * rendezvous port, each rank's session file, inputs spec and device, and
 * torch.distributed's variables for its runner (RANK, LOCAL_RANK, WORLD_SIZE,
 * MASTER_ADDR, MASTER_PORT, AOTIDBG_PG=RUN_RANKS_GROUP and
 * AOTIDBG_PG_TIMEOUT_MS; core/runner/dist_group.h reads them).
 *
 * Ownership: run_ranks_record and run_ranks_inputs return malloc'd strings
 * (the caller frees them); a run_rank holds its variables' and device's
 * text, so it must outlive the options run_ranks_one fills (they point into
 * it). Errors: -1 / NULL with the reason in err. Threads: any. */
#ifndef AOTIDBG_RUN_RANKS_H
#define AOTIDBG_RUN_RANKS_H
#include "model.h"
#include "run_options.h"
#include "strbuf.h"

/* A port nothing listens on now, outside the kernel's ephemeral range (no
 * rank's connect() can be given it as its source), for rank 0's store
 * (another process may take it first: the store says so then); -1 with err. */
int run_ranks_port(strbuf *err);
/* OUT.yaml -> OUT.rankK.yaml (OUT -> OUT.rankK.yaml). */
char *run_ranks_record(const char *out, int k);
/* The k-th of n comma-separated specs, or the one spec for all; NULL and
 * err when the count is neither, NULL without err when spec is NULL. */
char *run_ranks_inputs(const char *spec, int k, int n, strbuf *err);

#define RUN_RANK_NVARS 7
typedef struct {
    char text[RUN_RANK_NVARS][1040];       /* MASTER_ADDR's holds a host name */
    const char *env[RUN_RANK_NVARS + 1];   /* "NAME=VALUE" ..., NULL */
    char device[24];                       /* cuda:K for --device cuda*; "" otherwise */
} run_rank;

/* Where rank k runs: its rank among those on its host (its GPU there), rank
 * 0's host and store port, and its session file and inputs spec (borrowed). */
typedef struct {
    int rank, local_rank;
    const char *addr;      /* MASTER_ADDR; NULL: 127.0.0.1 */
    int port;
    double pg_timeout_s;   /* a rank waiting in a collective gives up after it; 0: after a day */
    const char *record, *inputs;
} run_rank_place;

/* Rank p->rank's options: o's with that rank, record and inputs, one GPU per
 * rank of a host (cuda:LOCAL_RANK when o's device is cuda), and env the
 * rank's variables for a world of o->ranks. The one place those variables
 * are made: `run --ranks` (its children, here or over --remote) and live. */
void run_ranks_one(const run_options *o, const run_rank_place *p, run_rank *r, run_options *one);

/* 1 when s (a rank's session, read or being recorded) holds its runner's
 * line saying it joined the process group (runner_main.c join_group): a
 * rank that ended without it left the others waiting in the rendezvous. */
int run_ranks_joined(const session *s);
/* How long the others may end on their own after a rank ended unjoined,
 * before the front end ends them. */
#define RUN_RANKS_UNJOINED_GRACE_S 3

#endif
