/* cmd_ranks.h — `aotidbg run --ranks N`: N runs of one package, one per rank
 * of a torch.distributed world, here or on --remote's hosts.
 *
 * Each rank is a child process doing the one-rank run (run_one, cmd_run.c)
 * with torch.distributed's variables (RANK, LOCAL_RANK, WORLD_SIZE,
 * MASTER_ADDR, MASTER_PORT) and AOTIDBG_PG=RUN_RANKS_GROUP, which make its
 * runner join the group (core/runner/dist_group.h). Here: MASTER_ADDR=127.0.0.1,
 * a free port. --remote HOST1,HOST2,...: rank k on host k mod count, through
 * its own ssh connection (the variables in the ssh command:
 * run_options.remote_env, remote_options.env), LOCAL_RANK its place among
 * that host's ranks, the store on rank 0's host ($MASTER_ADDR /
 * $MASTER_PORT override). Without --values each keeps 1024 values a tensor.
 * It writes OUT.rankK.yaml (every event with rank K). Its stderr comes out
 * here line by line as "rank K: ...". After all have ended: one line per
 * rank (how it ended, the kernel it was in, c10d's error under a failed
 * collective), the ranks that died or hung named with the collective the
 * others were in, and whether the ranks' after-tensors agree from their
 * first collective's wait on (values where kept, exactly, else statistics;
 * the line says which and how many). man aotidbg(1) lists the lines.
 * Exit code: 2 bad usage; else the worst of the ranks' (1 also when the
 * ranks disagree). Everything is freed before return; no child outlives it. */
#ifndef AOTIDBG_CMD_RANKS_H
#define AOTIDBG_CMD_RANKS_H
#include "run_options.h"

int ranks_run(const run_options *o, int (*run_one)(run_options o));

#endif
