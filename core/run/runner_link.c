/* runner_link.c — starting a runner (the local transport: proto_spawn.h's
 * child with the protocol on its fd 3); see runner_link.h. */
#include "runner_link.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "paths.h"
#include "proto_spawn.h"

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
    const char *det[4] = {runner_det_vars[0], runner_det_vars[1], runner_det_vars[2], NULL};
    proto_spawn_options so = {.set_one = o->deterministic ? det : NULL, .set_env = o->env, .wrap = o->wrap,
                              .keep_fd = o->keep_fd};
    proto_child c;
    if (proto_spawn_runner(path, &so, &c, err) < 0)
        return -1;
    l->pid = c.pid;
    l->proto_rd = l->proto_wr = c.sock;
    l->out_fd = c.out;
    l->err_fd = c.err;
    l->alive = 1;
    return 0;
}

/* The inner runner, while it is still our child's child (its pid may be reused once it ended). */
static int inner_alive(const runner_link *l)
{
    char path[64], buf[512];
    if (l->inner_pid <= 0 || l->pid <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/stat", l->inner_pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *rp = strrchr(buf, ')');   /* "pid (comm) state ppid ..." */
    int ppid = -1;
    return rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == l->pid;
}

static int local_pause(runner_link *l)
{
    int p = inner_alive(l) ? l->inner_pid : l->pid;
    return p > 0 ? kill(p, SIGUSR1) : -1;
}

static const runner_transport runner_link_local = {"local", local_open, local_pause, NULL, NULL, NULL};

int runner_link_open(runner_link *l, const runner_link_options *o, strbuf *err)
{
    l->pid = l->inner_pid = -1;
    l->proto_rd = l->proto_wr = l->out_fd = l->err_fd = -1;
    l->alive = l->ended = l->end_status = 0;
    l->remote = o->remote;
    l->t = o->transport ? o->transport : o->remote ? &runner_link_remote : &runner_link_local;
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

int runner_link_alive(const runner_link *l) { return l->alive; }

int runner_link_try_wait(runner_link *l, int *status)
{
    if (l->t && l->t->pump) {   /* in-band: its EXIT frame said so */
        if (!l->ended)
            return -1;
        *status = l->end_status;
        l->ended = l->alive = 0;
        return 0;
    }
    if (l->pid <= 0)
        return -1;
    pid_t r = waitpid(l->pid, status, WNOHANG);
    if (r == l->pid) {
        l->pid = -1;
        l->alive = 0;
        return 0;
    }
    if (r < 0 && errno != EINTR) {   /* reaped elsewhere: nothing to learn */
        *status = 0;
        l->pid = -1;
        l->alive = 0;
        return 1;
    }
    return -1;
}

int runner_link_kill(runner_link *l, int *status)
{
    int st = 0;
    if (l->t && l->t->kill) {
        if (!l->alive)
            return -1;
        l->t->kill(l, &st);
        l->alive = l->ended = 0;
        if (status)
            *status = st;
        return 0;
    }
    if (l->pid <= 0)
        return -1;
    if (inner_alive(l))   /* a tool killed first could leave its runner holding the GPU */
        kill(l->inner_pid, SIGKILL);
    l->inner_pid = -1;
    kill(l->pid, SIGKILL);
    while (waitpid(l->pid, &st, 0) < 0 && errno == EINTR)
        ;
    l->pid = -1;
    l->alive = 0;
    if (status)
        *status = st;
    return 0;
}

void runner_link_close(runner_link *l)
{
    if (l->remote) {   /* the connection's fd is not ours to close */
        l->proto_rd = l->proto_wr = -1;
        return;
    }
    if (l->proto_wr != l->proto_rd)
        runner_link_close_fd(&l->proto_wr);
    l->proto_wr = -1;
    runner_link_close_fd(&l->proto_rd);
    runner_link_close_fd(&l->out_fd);
    runner_link_close_fd(&l->err_fd);
}
