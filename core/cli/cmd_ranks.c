/* cmd_ranks.c — `aotidbg run --ranks N` (cmd_ranks.h). */
#define _GNU_SOURCE
#include "cmd_ranks.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "compat.h"
#include "model.h"
#include "run_ranks.h"
#include "session_read.h"
#include "strbuf.h"

typedef struct {
    pid_t pid;
    int err_fd;                /* its stderr, relayed line by line; -1 after EOF */
    strbuf line;               /* a partial line */
    int code;                  /* its exit code; -1 while it runs */
    char *record, *inputs;
} rank_child;

/* The child: rank k's one-rank run, its stderr into the pipe. Never returns. */
static void rank_main(const run_options *o, rank_child *c, int k, int port, int pipe_w,
                      int (*run_one)(run_options o))
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(pipe_w, 2);
    close(pipe_w);
    run_rank r;
    run_options one;
    run_ranks_one(o, k, port, o->timeout_s, c->record, c->inputs, &r, &one);
    run_ranks_setenv(&r);   /* what the rank's run starts inherits them too */
    fflush(stdout);
    _exit(run_one(one));
}

/* Relays what the children wrote to their stderr, "rank K: " before each line. */
static void relay(rank_child *c, int k, int flush)
{
    char buf[4096];
    ssize_t n = c->err_fd >= 0 ? read(c->err_fd, buf, sizeof buf) : 0;
    if (n > 0)
        strbuf_add(&c->line, buf, (size_t)n);
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        if (c->err_fd >= 0)
            close(c->err_fd);
        c->err_fd = -1;
        flush = 1;
    }
    char *nl;
    size_t off = 0;
    while ((nl = memchr(c->line.buf + off, '\n', c->line.len - off))) {
        fprintf(stderr, "rank %d: %.*s\n", k, (int)(nl - (c->line.buf + off)), c->line.buf + off);
        off = (size_t)(nl - c->line.buf) + 1;
    }
    if (flush && off < c->line.len) {
        fprintf(stderr, "rank %d: %.*s\n", k, (int)(c->line.len - off), c->line.buf + off);
        off = c->line.len;
    }
    memmove(c->line.buf, c->line.buf + off, c->line.len - off);
    strbuf_setlen(&c->line, c->line.len - off);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits for every child, relaying its stderr; past the deadline (nothing heard for --timeout plus a
 * grace, when the ranks' own timeouts did not end them) each is asked to stop (it saves its session). */
static void wait_children(rank_child *c, int n, double timeout_s)
{
    double last = now_s(), grace = timeout_s > 0 ? timeout_s + 30 : 0;
    int alive = n, termed = 0;
    while (alive) {
        struct pollfd p[RUN_MAX_RANKS];
        for (int k = 0; k < n; k++)
            p[k] = (struct pollfd){.fd = c[k].err_fd, .events = POLLIN};
        if (poll(p, (nfds_t)n, 200) > 0)
            last = now_s();
        for (int k = 0; k < n; k++)
            if (c[k].err_fd >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                relay(&c[k], k, 0);
        for (int k = 0; k < n; k++) {
            int st;
            if (c[k].code >= 0 || waitpid(c[k].pid, &st, WNOHANG) != c[k].pid)
                continue;
            c[k].code = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_FAILED;
            alive--;
            last = now_s();
        }
        if (alive && grace > 0 && now_s() - last > grace && termed < 2) {
            fprintf(stderr, "aotidbg run: nothing from %d rank(s) for %.0f s; stopping them\n", alive, grace);
            for (int k = 0; k < n; k++)
                if (c[k].code < 0)
                    kill(c[k].pid, termed ? SIGKILL : SIGTERM);
            termed++;
            last = now_s();
        }
    }
    for (int k = 0; k < n; k++)
        while (c[k].err_fd >= 0)
            relay(&c[k], k, 1);
}

static const kernel_event *last_kernel(const session *s)
{
    return s && s->nkernels ? &s->kernels[s->nkernels - 1]->u.kernel : NULL;
}

/* How rank k ended, in one line. */
static void say_rank(const session *s, int k, const char *record, strbuf *out)
{
    char st[64], how[64];
    const kernel_event *l = last_kernel(s);
    const runner_exit_event *x = session_runner_exit(s);
    strbuf_addf(out, "  rank %d: %s", k, session_end_state(s, st, sizeof st));
    if (x)
        strbuf_addf(out, " (runner %s)", runner_exit_text(x, how, sizeof how));
    strbuf_addf(out, ", %zu kernel%s", s->nkernels, s->nkernels == 1 ? "" : "s");
    if (l && (l->status == KSTAT_PENDING || l->status == KSTAT_ERROR))
        strbuf_addf(out, ", in kernel %" PRId64 " %s%s%s", l->index, l->name, l->collective ? " (the collective " : "",
                    l->collective ? l->collective : "");
    if (l && l->collective && (l->status == KSTAT_PENDING || l->status == KSTAT_ERROR))
        strbuf_addf(out, ", group %s, ranks %s)", l->group, l->participants);
    strbuf_addf(out, "; session %s\n", record);
}

/* How rank j ended short of kernel i (where another rank waits in a collective), or NULL when it got
 * there too. */
static const char *short_of(const session *s, int64_t i, const char *name, char *buf, size_t n)
{
    const kernel_event *l = last_kernel(s);
    if (l && l->index >= i && (size_t)i < s->nkernels && !strcmp(s->kernels[i]->u.kernel.name, name))
        return NULL;
    char st[64];
    if (!l)
        snprintf(buf, n, "%s before its first kernel", session_end_state(s, st, sizeof st));
    else
        snprintf(buf, n, "%s at kernel %" PRId64 " %s", session_end_state(s, st, sizeof st), l->index, l->name);
    return buf;
}

/* For each rank left in a collective, the ranks it waited for: those that never got there. */
static void say_stuck(session **s, int n, strbuf *out)
{
    int none = 0, joined = 0;
    for (int k = 0; k < n; k++) {
        none += !s[k]->nkernels;
        for (size_t e = 0; e < s[k]->nevents && !s[k]->nkernels; e++)
            joined += s[k]->events[e]->kind == EV_LOG && strstr(s[k]->events[e]->u.log.text, "joined process group");
    }
    if (none == n)
        strbuf_addf(out, "  no rank got to its first kernel: %d of %d joined the process group (the runner's "
                    "\"joined process group\" line); the others waited in the rendezvous or ended before it\n",
                    joined, n);
    for (int k = 0; k < n; k++) {
        const kernel_event *l = last_kernel(s[k]);
        if (!l || !l->collective || l->status == KSTAT_OK)
            continue;
        strbuf who = STRBUF_INIT;
        for (int j = 0; j < n; j++) {
            char why[256];
            if (j != k && short_of(s[j], l->index, l->name, why, sizeof why))
                strbuf_addf(&who, "%srank %d (%s)", who.len ? ", " : "", j, why);
        }
        const kernel_event *op = l;   /* a wait_tensor waits for the collective before it */
        for (size_t i = s[k]->nkernels; i-- > 0 && !strcmp(op->collective, "wait_tensor");)
            if (s[k]->kernels[i]->u.kernel.collective && strcmp(s[k]->kernels[i]->u.kernel.collective, "wait_tensor"))
                op = &s[k]->kernels[i]->u.kernel;
        if (who.len && op != l)
            strbuf_addf(out, "  rank %d was in the collective %s (kernel %" PRId64 ", in its wait_tensor at kernel %"
                        PRId64 ", group %s, ranks %s) waiting for %s\n", k, op->collective, op->index, l->index,
                        l->group, l->participants, who.buf);
        else if (who.len)
            strbuf_addf(out, "  rank %d was in the collective %s (kernel %" PRId64 ", group %s, ranks %s) waiting "
                        "for %s\n", k, l->collective, l->index, l->group, l->participants, who.buf);
        strbuf_release(&who);
    }
}

static int same_stats(const tensor_rec *a, const tensor_rec *b)
{
    if (!a->has_stats || !b->has_stats || strcmp(a->name, b->name))
        return !a->has_stats && !b->has_stats && !strcmp(a->name, b->name);
    return !memcmp(&a->stats, &b->stats, sizeof a->stats);
}

/* From the first collective's wait on, every rank computes on the same values: the first kernel whose
 * after-tensors' statistics differ from rank 0's is where the ranks diverge. -1 when they agree over
 * the kernels all ranks ran (*compared of them), -2 when the ranks ran different kernels. */
static int64_t first_divergence(session **s, int n, int *bad_rank, const char **tensor, int64_t *compared)
{
    size_t common = s[0]->nkernels, start = SIZE_MAX;
    for (int k = 1; k < n; k++)
        if (s[k]->nkernels < common)
            common = s[k]->nkernels;
    *compared = 0;
    for (size_t i = 0; i < common; i++) {
        const kernel_event *a = &s[0]->kernels[i]->u.kernel;
        for (int k = 1; k < n; k++)
            if (strcmp(a->name, s[k]->kernels[i]->u.kernel.name))
                return -2;
        /* a functional collective's values are in flight until its wait_tensor */
        if (a->collective && !strcmp(a->collective, "wait_tensor") && start == SIZE_MAX)
            start = i;
        if (start == SIZE_MAX || a->status != KSTAT_OK)
            continue;
        (*compared)++;
        for (int k = 1; k < n; k++) {
            const kernel_event *b = &s[k]->kernels[i]->u.kernel;
            if (b->status != KSTAT_OK || a->ntensors != b->ntensors)
                continue;
            for (size_t t = 0; t < a->ntensors; t++)
                if (a->tensors[t].phase == PHASE_AFTER && !same_stats(&a->tensors[t], &b->tensors[t])) {
                    *bad_rank = k;
                    *tensor = a->tensors[t].name;
                    return a->index;
                }
        }
    }
    return start == SIZE_MAX ? -3 : -1;
}

/* The ranks' agreement after their first collective; 1 when they diverge. */
static int say_agreement(session **s, int n, strbuf *out)
{
    int bad = 0;
    const char *tensor = NULL;
    int64_t compared = 0, at = first_divergence(s, n, &bad, &tensor, &compared);
    if (at == -2)
        strbuf_addstr(out, "  ranks not compared: they ran different kernels\n");
    else if (at == -3)
        strbuf_addstr(out, "  ranks not compared: no collective completed (wait_tensor) on every rank\n");
    else if (at == -1)
        strbuf_addf(out, "  ranks agree from the first collective's wait on: statistics of the after-tensors of %"
                    PRId64 " kernel(s) equal on all %d ranks (values not compared)\n", compared, n);
    else
        strbuf_addf(out, "  ranks diverge at kernel %" PRId64 " %s: rank %d's %s (after) differs from rank 0's "
                    "(statistics), though the collective before it gave every rank the same values\n",
                    at, s[0]->kernels[at]->u.kernel.name, bad, tensor);
    return at >= 0;
}

/* Reads every rank's session and says how the ranks ended; 1 when they diverge. */
static int summarize(rank_child *c, int n)
{
    session *s[RUN_MAX_RANKS] = {0};
    int all = 1, diverged = 0;
    strbuf out = STRBUF_INIT;
    for (int k = 0; k < n; k++) {
        strbuf e = STRBUF_INIT;
        if (session_load(c[k].record, &s[k], &e) < 0) {
            strbuf_addf(&out, "  rank %d: no session: %s\n", k, e.buf);
            all = 0;
        } else {
            say_rank(s[k], k, c[k].record, &out);
        }
        strbuf_release(&e);
    }
    if (all) {
        say_stuck(s, n, &out);
        if (n > 1)
            diverged = say_agreement(s, n, &out);
    }
    fprintf(stderr, "aotidbg run: %d rank%s:\n%s", n, n == 1 ? "" : "s", out.buf);
    strbuf_release(&out);
    for (int k = 0; k < n; k++)
        session_free(s[k]);
    return diverged;
}

int ranks_run(const run_options *o, int (*run_one)(run_options o))
{
    int n = o->ranks, code = EXIT_OK;
    strbuf err = STRBUF_INIT;
    rank_child c[RUN_MAX_RANKS];
    memset(c, 0, sizeof c);
    int port = run_ranks_port(&err);
    for (int k = 0; k < n && port > 0; k++) {
        c[k].code = -1;
        c[k].err_fd = -1;
        c[k].record = run_ranks_record(o->record, k);
        c[k].inputs = run_ranks_inputs(o->inputs, k, n, &err);
        if (err.len)
            break;
    }
    if (port < 0 || err.len) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        code = EXIT_USAGE;
        goto out;
    }
    fflush(stdout);
    fflush(stderr);
    int started = 0;
    for (int k = 0; k < n; k++, started++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
            break;
        c[k].pid = fork();
        if (c[k].pid == 0) {
            close(p[0]);
            rank_main(o, &c[k], k, port, p[1], run_one);
        }
        close(p[1]);
        if (c[k].pid < 0) {
            close(p[0]);
            break;
        }
        c[k].err_fd = p[0];
        fcntl(p[0], F_SETFL, O_NONBLOCK);
    }
    if (started < n) {   /* the started ones wait for the rest forever: stop them */
        fprintf(stderr, "aotidbg run: cannot start rank %d: %s\n", started, strerror(errno));
        for (int k = 0; k < started; k++)
            kill(c[k].pid, SIGTERM);
    }
    wait_children(c, started, o->timeout_s);
    for (int k = 0; k < started; k++)
        if (c[k].code > code)
            code = c[k].code;
    if (started == n && summarize(c, n) && code == EXIT_OK)
        code = EXIT_FAILED;
    if (started < n)
        code = EXIT_FAILED;
out:
    for (int k = 0; k < n; k++) {
        free(c[k].record);
        free(c[k].inputs);
        strbuf_release(&c[k].line);
    }
    strbuf_release(&err);
    return code;
}
