/* cmd_ranks.h — `aotidbg run --ranks N`: N runs of one package, one per rank
 * of a torch.distributed world on this host, stepped by their collectives.
 *
 * Each rank is a child process doing the one-rank run (run_one, cmd_run.c)
 * with torch.distributed's variables (RANK, LOCAL_RANK, WORLD_SIZE,
 * MASTER_ADDR=127.0.0.1, a free MASTER_PORT) and AOTIDBG_PG=RUN_RANKS_GROUP,
 * which make its runner join the group (core/runner/dist_group.h); it
 * writes OUT.rankK.yaml (every event with rank K). Its stderr comes out
 * here line by line as "rank K: ...". After all have ended: one line per
 * rank (how it ended, the kernel it was in), the ranks that died or hung
 * named with the collective the others were in, and whether the ranks'
 * tensors agree after their first collective (statistics compared).
 * Exit code: 2 bad usage; else the worst of the ranks' (1 also when the
 * ranks disagree). Everything is freed before return; no child outlives it. */
#ifndef AOTIDBG_CMD_RANKS_H
#define AOTIDBG_CMD_RANKS_H
#include "run_options.h"

int ranks_run(const run_options *o, int (*run_one)(run_options o));

#endif
