/* dist_group.h — the runner's torch.distributed process group, made through
 * c10d's C++ API (TCPStore rendezvous, ProcessGroupGloo on CPU, ProcessGroupNCCL
 * on CUDA when this runner was built with NCCL's headers) and registered under
 * the names the package's collectives use, so that the model's
 * _c10d_functional calls find it, as torch's own loader does inside an
 * initialised group.
 *
 * The front end asks for it through the environment it starts the runner
 * with: AOTIDBG_PG (the group names, comma-separated, e.g. "0") with RANK,
 * WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT as torch.distributed
 * reads them, and AOTIDBG_PG_TIMEOUT_MS (store and collective timeout).
 * Errors: 0 / -1 with a message in err (C++ exceptions never cross into C).
 * Ownership: the group lives until the process ends (the runner _exits).
 * Threads: the runner's main thread, before the model is loaded. */
#ifndef AOTIDBG_DIST_GROUP_H
#define AOTIDBG_DIST_GROUP_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *names;         /* comma-separated group names to register */
    const char *master_addr;
    int master_port;
    int rank, world_size, local_rank;
    int cuda;                  /* 1: NCCL on cuda:local_rank; 0: gloo on CPU */
    long timeout_ms;
} dgroup_config;

/* Rendezvous with the other ranks and register the group under every name. */
int dgroup_init(const dgroup_config *c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
