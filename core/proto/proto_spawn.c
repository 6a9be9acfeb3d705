/* proto_spawn.c — a runner process with the protocol's fds (proto_spawn.h). */
#define _GNU_SOURCE
#include "proto_spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "protocol.h"

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void proto_runner_env(void)
{
    /* OpenMP workers spinning between kernels burn a core while the hooks work (most of
     * the runner's CPU on CPU models, and slower kernels on a busy box): they sleep
     * instead, unless the user chose how they wait */
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT") && !getenv("KMP_BLOCKTIME"))
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
}

int proto_spawn_runner(const char *path, const proto_spawn_options *o, proto_child *c, strbuf *err)
{
    int sv[2], po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        strbuf_addf(err, "socketpair: %s", strerror(errno));
        return -1;
    }
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        strbuf_addf(err, "pipe: %s", strerror(errno));
        close(sv[0]); close(sv[1]);
        if (po[0] >= 0) { close(po[0]); close(po[1]); }
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Child: only async-signal-safe work before exec. fd PROTO_FD must not
         * be one of the pipe ends still needed, so move those above it first. */
        if (o && o->die_with_parent && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
            _exit(127);
        int s3 = sv[1], o1 = po[1], e2 = pe[1];
        if (o1 <= PROTO_FD) o1 = fcntl(o1, F_DUPFD_CLOEXEC, 10);
        if (e2 <= PROTO_FD) e2 = fcntl(e2, F_DUPFD_CLOEXEC, 10);
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
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_IGN);   /* the front end decides what ^C and a hangup mean */
        signal(SIGINT, SIG_IGN);
        for (const char *const *n = o ? o->set_one : NULL; n && *n; n++)
            setenv(*n, "1", 1);
        for (const char *const *v = o ? o->set_env : NULL; v && *v; v++)
            putenv((char *)*v);   /* the child's copy of the strings lives until exec */
        proto_runner_env();
        if (o && o->keep_fd > PROTO_FD && o->keep_fd != o1 && o->keep_fd != e2)
            fcntl(o->keep_fd, F_SETFD, 0);
        if (o && o->wrap && o->wrap[0]) {
            const char *argv[32];
            size_t n = 0;
            while (o->wrap[n] && n < 30) {
                argv[n] = o->wrap[n];
                n++;
            }
            argv[n++] = path;
            argv[n] = NULL;
            execv(argv[0], (char *const *)argv);
            path = argv[0];   /* for the message below */
        } else {
            execl(path, "aotidbg-runner", (char *)NULL);
        }
        dprintf(2, "aotidbg: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        strbuf_addf(err, "fork: %s", strerror(errno));
        close(sv[0]);
        close(po[0]);
        close(pe[0]);
        return -1;
    }
    c->pid = pid;
    c->sock = sv[0];
    c->out = po[0];
    c->err = pe[0];
    set_nonblock(c->sock);
    set_nonblock(c->out);
    set_nonblock(c->err);
    return 0;
}
