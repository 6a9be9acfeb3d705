/* proto_spawn.h — starting a runner process the way the protocol expects it
 * (protocol.h): the socket on its fd PROTO_FD, pipes for its stdout and
 * stderr, /dev/null on stdin, the terminal's ^C ignored (the front end says
 * what ^C means), OMP_WAIT_POLICY=PASSIVE unless OMP_WAIT_POLICY, GOMP_SPINCOUNT
 * or KMP_BLOCKTIME is set (idle OpenMP workers sleep between kernels instead of
 * spinning through the hooks). The local front end (runner_client) and the remote agent
 * (core/agent) both start runners with it.
 * Ownership: the caller owns the child and the three parent fds (non-blocking,
 * close-on-exec). Errors: 0, or -1 with err (socketpair, pipe, fork); a
 * failed exec is the child's exit 127 with the reason on its stderr. */
#ifndef AOTIDBG_PROTO_SPAWN_H
#define AOTIDBG_PROTO_SPAWN_H
#include <sys/types.h>
#include "strbuf.h"

typedef struct {
    pid_t pid;
    int sock, out, err;        /* our ends: the protocol socket, its stdout, its stderr */
} proto_child;

typedef struct {
    const char *const *set_one;   /* NULL-terminated names set to "1" in its environment; may be NULL */
    const char *const *set_env;   /* NULL-terminated "NAME=VALUE" set in its environment (a --ranks
                                     rank's torch.distributed variables, run_ranks.h); may be NULL */
    int die_with_parent;          /* PR_SET_PDEATHSIG: it dies when we do, even by SIGKILL */
    const char *const *wrap;      /* NULL-terminated command the runner runs under (wrap[0] is
                                     exec'd with wrap..., path; compute-sanitizer); NULL: none.
                                     The protocol fd and the pipes pass through it unchanged */
    int keep_fd;                  /* > 2: an fd the runner inherits as it is (close-on-exec cleared in
                                     the child; --eager's status pipe, eager_ref.h); 0: none */
} proto_spawn_options;

int proto_spawn_runner(const char *path, const proto_spawn_options *o, proto_child *c, strbuf *err);
/* In a child about to exec a runner: the OpenMP wait policy above (also for
 * `aotidbg-runner --eager-ref`, core/eager/eager_ref.c). */
void proto_runner_env(void);

#endif
