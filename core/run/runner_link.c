/* runner_link.c — starting a runner (the local transport); see runner_link.h.
 *
 * The local child gets the socketpair's other end as fd 3 (PROTO_FD) and
 * pipes for stdout and stderr. */
#define _GNU_SOURCE   /* pipe2 */
#include "runner_link.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "paths.h"
#include "protocol.h"

const char *const runner_det_vars[3] = {"CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
                                        "AOTI_RUNTIME_CHECK_INPUTS"};

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void runner_link_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int local_open(runner_link *l, const runner_link_options *o, strbuf *err)
{
    const char *path = o->runner_path ? o->runner_path : aotidbg_runner_path();
    if (strchr(path, '/') && access(path, X_OK) != 0) {
        strbuf_addf(err, "cannot run the runner %s: %s; build it (cmake --build) or set AOTIDBG_RUNNER",
                    path, strerror(errno));
        return -1;
    }
    int sv[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        strbuf_addf(err, "socketpair: %s", strerror(errno));
        return -1;
    }
    if (pipe2(po, O_CLOEXEC) < 0) {
        strbuf_addf(err, "pipe: %s", strerror(errno));
        close(sv[0]); close(sv[1]);
        return -1;
    }
    if (pipe2(pe, O_CLOEXEC) < 0) {
        strbuf_addf(err, "pipe: %s", strerror(errno));
        close(sv[0]); close(sv[1]); close(po[0]); close(po[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        strbuf_addf(err, "fork: %s", strerror(errno));
        close(sv[0]); close(sv[1]); close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        /* Child: only async-signal-safe-ish work before exec. fd 3 must not be
         * one of the pipe ends we still need, so move those above 3 first. */
        int s3 = sv[1], o1 = po[1], e2 = pe[1];
        if (o1 <= 3) o1 = fcntl(o1, F_DUPFD_CLOEXEC, 10);
        if (e2 <= 3) e2 = fcntl(e2, F_DUPFD_CLOEXEC, 10);
        if (s3 != PROTO_FD) {
            if (dup2(s3, PROTO_FD) < 0)
                _exit(127);
        } else {
            fcntl(PROTO_FD, F_SETFD, 0);
        }
        if (dup2(o1, 1) < 0 || dup2(e2, 2) < 0)
            _exit(127);
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (nul >= 0)
            dup2(nul, 0);
        signal(SIGPIPE, SIG_DFL);
        /* The terminal's ^C reaches the whole process group: the front end
         * says what it means (live: pause via SIGUSR1; run: end the runner). */
        signal(SIGINT, SIG_IGN);
        if (o->deterministic)
            for (size_t i = 0; i < 3; i++)
                setenv(runner_det_vars[i], "1", 1);
        execl(path, "aotidbg-runner", (char *)NULL);
        dprintf(2, "aotidbg: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    l->pid = pid;
    l->proto_rd = l->proto_wr = sv[0];
    l->out_fd = po[0];
    l->err_fd = pe[0];
    return 0;
}

static int local_pause(runner_link *l)
{
    return l->pid > 0 ? kill(l->pid, SIGUSR1) : -1;
}

const runner_transport runner_link_local = {"local", local_open, local_pause};

int runner_link_open(runner_link *l, const runner_link_options *o, strbuf *err)
{
    l->pid = -1;
    l->proto_rd = l->proto_wr = l->out_fd = l->err_fd = -1;
    l->t = o->transport ? o->transport : &runner_link_local;
    /* A runner dying under us must not kill the front end with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (l->t->open(l, o, err) < 0)
        return -1;
    set_nonblock(l->proto_rd);
    set_nonblock(l->proto_wr);
    set_nonblock(l->out_fd);
    set_nonblock(l->err_fd);
    return 0;
}

int runner_link_pause(runner_link *l)
{
    return l->t && l->t->pause ? l->t->pause(l) : -1;
}

int runner_link_try_wait(runner_link *l, int *status)
{
    if (l->pid <= 0)
        return -1;
    pid_t r = waitpid(l->pid, status, WNOHANG);
    if (r == l->pid) {
        l->pid = -1;
        return 0;
    }
    if (r < 0 && errno != EINTR) {   /* reaped elsewhere: nothing to learn */
        *status = 0;
        l->pid = -1;
        return 1;
    }
    return -1;
}

int runner_link_kill(runner_link *l, int *status)
{
    int st = 0;
    if (l->pid <= 0)
        return -1;
    kill(l->pid, SIGKILL);
    while (waitpid(l->pid, &st, 0) < 0 && errno == EINTR)
        ;
    l->pid = -1;
    if (status)
        *status = st;
    return 0;
}

void runner_link_close(runner_link *l)
{
    if (l->proto_wr != l->proto_rd)
        runner_link_close_fd(&l->proto_wr);
    l->proto_wr = -1;
    runner_link_close_fd(&l->proto_rd);
    runner_link_close_fd(&l->out_fd);
    runner_link_close_fd(&l->err_fd);
}
