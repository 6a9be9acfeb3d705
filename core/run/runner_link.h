/* runner_link.h — how the front end reaches a runner: the one place that
 * starts one. A link is a child process we wait for (the runner itself, or
 * a program that runs it elsewhere, such as ssh) and three byte streams: the
 * protocol (in and out: one socket locally, so rd == wr), the runner's stdout
 * and its stderr. Every fd is non-blocking and close-on-exec.
 *
 * A transport is a row of ops: runner_link_local is the local one; another
 * transport (ssh, runner_link_remote.c) is one more row given in runner_link_options,
 * and nothing above this file changes.
 * Errors: 0 / -1 with the reason in err. The link owns its fds and child;
 * runner_link_kill() reaps it, runner_link_close() closes what is left. */
#ifndef AOTIDBG_RUNNER_LINK_H
#define AOTIDBG_RUNNER_LINK_H
#include "strbuf.h"

typedef struct runner_link {
    int pid;              /* the child; -1 when none (and always for a remote runner) */
    int inner_pid;        /* the runner itself when the child is a tool running it (wrap: its HELLO
                             pid), which pause signals and kill kills first; -1 none */
    int proto_rd, proto_wr;
    int out_fd, err_fd;   /* the runner's stdout and stderr; -1 when it comes in-band */
    const struct runner_transport *t;
    int alive;            /* a runner is there to talk to (runner_link_alive) */
    struct remote *remote;     /* the remote transport's connection (borrowed) */
    int ended, end_status;     /* remote: EXIT arrived, with this wait status */
} runner_link;

typedef struct runner_link_options {
    const char *runner_path;   /* NULL: aotidbg_runner_path() (AOTIDBG_RUNNER, else beside aotidbg) */
    int deterministic;         /* CUDA_LAUNCH_BLOCKING=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1
                                  AOTI_RUNTIME_CHECK_INPUTS=1 in the runner's environment */
    const struct runner_transport *transport;   /* NULL: runner_link_local, or runner_link_remote
                                                   when remote is set */
    struct remote *remote;     /* --remote: the connection to the agent there (remote.h) */
    const char *const *wrap;   /* local: the command the runner runs under (proto_spawn.h; --memcheck) */
    const char *const *env;    /* local: NULL-terminated "NAME=VALUE" set in the runner's environment
                                  (a --ranks rank's, run_ranks.h); NULL none; the ssh transport ignores it */
    int keep_fd;               /* local: > 2, an fd the runner inherits (proto_spawn.h); 0 none */
} runner_link_options;

/* What a transport hands the pump: protocol bytes to decode, the runner's
 * output (out(ctx, 0 stdout / 1 stderr, bytes, n)), and its end. */
typedef void runner_link_out_fn(void *ctx, int stream, const char *buf, size_t n);

typedef struct runner_transport {
    const char *name;          /* "local", "ssh" */
    /* Starts the runner; fills every field of l. */
    int (*open)(runner_link *l, const runner_link_options *o, strbuf *err);
    /* Asks a running model to stop at the next kernel start (protocol.h: PAUSE). */
    int (*pause)(runner_link *l);
    /* In-band transports (the runner's output and end come inside the
     * protocol stream); NULL for the local one, whose fds the client reads:
     * send writes one whole frame; pump reads what came (waiting at most
     * timeout_ms): protocol bytes appended to proto, output to out; returns
     * 1 when the runner ended (*status its wait status), 0, or -1 when the
     * link itself is gone (err says how); kill kills the runner and waits for
     * its end (*status). */
    int (*send)(runner_link *l, const char *buf, size_t n, strbuf *err);
    int (*pump)(runner_link *l, int timeout_ms, strbuf *proto, runner_link_out_fn *out, void *ctx, int *status,
                strbuf *err);
    int (*kill)(runner_link *l, int *status);
} runner_transport;

extern const runner_transport runner_link_remote;   /* runner_link_remote.c: --remote */

/* The variables --deterministic sets, in the order the session records them. */
extern const char *const runner_det_vars[3];

int runner_link_open(runner_link *l, const runner_link_options *o, strbuf *err);
int runner_link_pause(runner_link *l);
/* 1 while a runner is there (a local child not yet reaped, a remote one
 * whose EXIT has not come); 0 after kill, try_wait or its end. */
int runner_link_alive(const runner_link *l);
/* 0 with the child's wait status when it has ended (reaped: pid becomes
 * -1); 1 when it is gone with no status to read; -1 while it runs (or when
 * there is no child). */
int runner_link_try_wait(runner_link *l, int *status);
/* SIGKILL and reap; *status gets the wait status. 0, or -1 when no child. */
int runner_link_kill(runner_link *l, int *status);
/* Closes one fd of the link (a pointer to one of its fields) and marks it -1. */
void runner_link_close_fd(int *fd);
/* Closes every fd (the child, if any, is left to runner_link_kill). */
void runner_link_close(runner_link *l);

#endif
