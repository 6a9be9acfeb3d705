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
#include "remote.h"
#include "run_ranks.h"
#include "session_read.h"
#include "tensor_diff.h"
#include "strbuf.h"

typedef struct {
    pid_t pid;
    int err_fd;                /* its stderr, relayed line by line; -1 after EOF */
    strbuf line;               /* a partial line */
    int code;                  /* its exit code; -1 while it runs */
    char *record, *inputs;
    const char *host;          /* --remote: its [USER@]HOST[:PORT] (into hosts); NULL: here */
    int local_rank;            /* among the ranks on its host (here: its rank) */
} rank_child;

#define RANKS_VALUES 1024   /* values kept a tensor when --values is not given */

/* The child: rank k's one-rank run, its stderr into the pipe. Never returns. Its runner gets the
 * group's variables (run_ranks_one) in its runner's environment (here) or through the ssh command (remote_env). */
static void rank_main(const run_options *o, rank_child *c, int k, const char *addr, int port, int pipe_w,
                      int (*run_one)(run_options o))
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(pipe_w, 2);
    close(pipe_w);
    /* a rank waiting in a collective for one that hangs gives up within --timeout too, early enough
     * (2 s before it, at least half of it) that c10d's own error is recorded before the hung rank's
     * runner is killed at --timeout */
    double pg_s = o->timeout_s - 2 > o->timeout_s / 2 ? o->timeout_s - 2 : o->timeout_s / 2;
    run_rank_place at = {.rank = k, .local_rank = c->local_rank, .addr = addr, .port = port,
                         .pg_timeout_s = o->timeout_s > 0 ? pg_s : 0, .record = c->record, .inputs = c->inputs};
    static run_rank vars;
    run_options one;
    run_ranks_one(o, &at, &vars, &one);
    for (int i = 0; vars.env[i]; i++)   /* this process's too: what else it starts (ssh, the eager reference) */
        putenv(vars.text[i]);
    one.remote = c->host;
    if (c->host) {   /* there: through the ssh command */
        one.remote_env = vars.env;
        one.env = NULL;
    }
    if (!one.max_values)   /* the agreement check compares values (say_agreement) */
        one.max_values = RANKS_VALUES;
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

#define STOP_KILL_S 30                   /* a rank asked to stop is killed when it has not ended by then */

/* 1 when the session of a rank that ended says its runner joined the process group. */
static int joined_group(const rank_child *c)
{
    session *s = NULL;
    strbuf e = STRBUF_INIT;
    int joined = session_load(c->record, &s, &e) == 0 && run_ranks_joined(s);
    session_free(s);
    strbuf_release(&e);
    return joined;
}

/* Rank k ended before it joined the group: the others' rendezvous (c10d's store waits for every
 * rank, gloo's mesh connects every pair) can never complete, and they would wait the group's
 * timeout (--timeout less 2 s: almost 10 min by default, 24 h with --timeout 0). Those still running RUN_RANKS_UNJOINED_GRACE_S after it are asked to stop (each saves
 * its session). 1 when any was. */
static int stop_the_waiting(rank_child *c, int n, int k)
{
    strbuf who = STRBUF_INIT;
    for (int j = 0; j < n; j++)
        if (c[j].code < 0)
            strbuf_addf(&who, "%s%d", who.len ? ", " : "", j);
    if (who.len)
        fprintf(stderr, "aotidbg run: rank %d ended (exit code %d) before it joined the process group: rank%s %s "
                "would wait for it in the rendezvous (c10d's store) until the group's timeout; stopping %s\n", k,
                c[k].code, strchr(who.buf, ',') ? "s" : "", who.buf, strchr(who.buf, ',') ? "them" : "it");
    for (int j = 0; j < n; j++)
        if (c[j].code < 0)
            kill(c[j].pid, SIGTERM);
    int any = who.len > 0;
    strbuf_release(&who);
    return any;
}

/* Waits for every child, relaying its stderr; past the deadline (nothing heard for --timeout plus a
 * grace, when the ranks' own timeouts did not end them) each is asked to stop (it saves its session).
 * A rank that ends before it joined the process group stops the others (stop_the_waiting);
 * a rank asked to stop that has not ended STOP_KILL_S later is killed. */
static void wait_children(rank_child *c, int n, double timeout_s)
{
    double last = now_s(), grace = timeout_s > 0 ? timeout_s + 30 : 0, stop_at = 0, kill_at = 0;
    int alive = n, termed = 0, stopped = 0, stop_rank = -1;
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
            if (alive && stop_rank < 0 && !termed && n > 1 && !joined_group(&c[k]))
                stop_rank = k, stop_at = now_s() + RUN_RANKS_UNJOINED_GRACE_S;
        }
        if (alive && stop_rank >= 0 && !stopped && !termed && now_s() > stop_at) {
            for (int i = 0; i < 16 && c[stop_rank].err_fd >= 0; i++)   /* its own words first */
                relay(&c[stop_rank], stop_rank, 0);
            if (stop_the_waiting(c, n, stop_rank))
                stopped = 1, kill_at = now_s() + STOP_KILL_S;
        }
        if (alive && stopped == 1 && now_s() > kill_at) {
            fprintf(stderr, "aotidbg run: %d rank(s) asked to stop did not end in %d s; killing them\n", alive,
                    STOP_KILL_S);
            for (int k = 0; k < n; k++)
                if (c[k].code < 0)
                    kill(c[k].pid, SIGKILL);
            stopped = 2;
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

#define C10D_SHOWN 480   /* bytes of c10d's error text in the summary */

/* The error of kernel i (a collective), as c10d gave it: the text after "the shim call's
 * exception: " when the runner got it (model_so.h), else the whole error; one line, control bytes
 * and newlines escaped (stderr's guard, term_escape.h, escapes the rest), cut at C10D_SHOWN bytes. */
static void say_c10d(const session *s, int64_t i, strbuf *out)
{
    static const char lead[] = "the shim call's exception: ";
    for (size_t e = 0; e < s->nevents; e++) {
        const event *ev = s->events[e];
        if (ev->kind != EV_ERROR || ev->u.error.kernel_index != i || !ev->u.error.text)
            continue;
        const char *t = strstr(ev->u.error.text, lead);
        t = t ? t + sizeof lead - 1 : ev->u.error.text;
        strbuf_addstr(out, "    c10d: ");
        size_t n = 0;
        for (; t[n] && n < C10D_SHOWN; n++) {
            if (t[n] == '\n')
                strbuf_addstr(out, "\\n");
            else if ((unsigned char)t[n] < 0x20 || t[n] == 0x7f)
                strbuf_addf(out, "\\x%02x", (unsigned char)t[n]);
            else
                strbuf_addch(out, t[n]);
        }
        strbuf_addstr(out, t[n] ? " ...\n" : "\n");
        return;
    }
}

/* How rank k ended, in one line (and c10d's error when it failed in a collective). */
static void say_rank(const session *s, int k, const rank_child *c, strbuf *out)
{
    char st[64], how[64];
    const char *record = c->record;
    const kernel_event *l = last_kernel(s);
    const runner_exit_event *x = session_runner_exit(s);
    strbuf_addf(out, "  rank %d", k);
    if (c->host)
        strbuf_addf(out, " on %s", c->host);
    strbuf_addf(out, ": %s", session_end_state(s, st, sizeof st));
    if (x)
        strbuf_addf(out, " (runner %s)", runner_exit_text(x, how, sizeof how));
    strbuf_addf(out, ", %zu kernel%s", s->nkernels, s->nkernels == 1 ? "" : "s");
    if (l && (l->status == KSTAT_PENDING || l->status == KSTAT_ERROR))
        strbuf_addf(out, ", in kernel %" PRId64 " %s%s%s", l->index, l->name, l->collective ? " (the collective " : "",
                    l->collective ? l->collective : "");
    if (l && l->collective && (l->status == KSTAT_PENDING || l->status == KSTAT_ERROR))
        strbuf_addf(out, ", group %s, ranks %s)", l->group, l->participants);
    strbuf_addf(out, "; session %s\n", record);
    if (l && l->collective && l->status == KSTAT_ERROR)
        say_c10d(s, l->index, out);
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
        joined += !s[k]->nkernels && run_ranks_joined(s[k]);
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

/* What the agreement check compared, and where the ranks first differ. */
typedef struct {
    int64_t kernels;           /* kernels compared (from the first wait_tensor on, ok on rank 0) */
    int64_t by_values;         /* after-tensors compared by their values (tensor_compare, as --reference) */
    int64_t sampled;           /* of those, the kept values were a prefix, not every element */
    int64_t by_stats;          /* after-tensors with no values on both sides: statistics only */
    int64_t at;                /* the kernel where they diverge; -1 agree, -2 different kernels,
                                  -3 no collective completed on every rank */
    int bad_rank;
    /* there: the first after-tensor the kernel wrote that differs (want rank 0's, got bad_rank's;
       NULL when none), and the first that already differed going in (in_want, in_got; NULL none) */
    const tensor_rec *want, *got, *in_want, *in_got;
    tensor_diff d, in_d;
} agreement;

static const tensor_rec *before_of(const kernel_event *e, const char *name)
{
    for (size_t t = 0; t < e->ntensors; t++)
        if (e->tensors[t].phase == PHASE_BEFORE && !strcmp(e->tensors[t].name, name))
            return &e->tensors[t];
    return NULL;
}

/* y (a rank's) against x (rank 0's) into d, counted in g; 1 when they differ. */
static int tensors_differ(const tensor_rec *y, const tensor_rec *x, tensor_diff *d, agreement *g)
{
    tensor_compare(y, x, 0, d);
    if (g && d->by_values) {
        g->by_values++;
        g->sampled += d->sampled;
    } else if (g) {
        g->by_stats++;
    }
    if (d->by_values)
        return d->differing > 0 || d->shape_differs || strcmp(x->name, y->name);
    return !same_stats(x, y);
}

/* From the first collective's wait on, every rank computes on the same values: the first kernel one
 * of whose after-tensors differs from rank 0's (its values when both kept them, exactly; else its
 * statistics) is where the ranks diverge. There, a tensor the kernel did not change (before equals
 * after on each rank) that differs came in different: an input the ranks were given differently. */
static void first_divergence(session **s, int n, agreement *g)
{
    size_t common = s[0]->nkernels, start = SIZE_MAX;
    for (int k = 1; k < n; k++)
        if (s[k]->nkernels < common)
            common = s[k]->nkernels;
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < common; i++) {
        const kernel_event *a = &s[0]->kernels[i]->u.kernel;
        for (int k = 1; k < n; k++)
            if (strcmp(a->name, s[k]->kernels[i]->u.kernel.name)) {
                g->at = -2;
                return;
            }
        /* a functional collective's values are in flight until its wait_tensor */
        if (a->collective && !strcmp(a->collective, "wait_tensor") && start == SIZE_MAX)
            start = i;
        if (start == SIZE_MAX || a->status != KSTAT_OK)
            continue;
        g->kernels++;
        for (int k = 1; k < n && !g->want && !g->in_want; k++) {
            const kernel_event *b = &s[k]->kernels[i]->u.kernel;
            if (b->status != KSTAT_OK || a->ntensors != b->ntensors)
                continue;
            for (size_t t = 0; t < a->ntensors; t++) {
                const tensor_rec *x = &a->tensors[t], *y = &b->tensors[t];
                tensor_diff d, in;
                if (x->phase != PHASE_AFTER || !tensors_differ(y, x, &d, k == 1 ? g : NULL))   /* counted once a tensor */
                    continue;
                /* one the kernel left as it was on both ranks (an input it read) came in different */
                const tensor_rec *xb = before_of(a, x->name), *yb = before_of(b, y->name);
                tensor_diff same;
                int came_in = xb && yb && !tensors_differ(x, xb, &same, NULL) && !tensors_differ(y, yb, &same, NULL) &&
                              tensors_differ(yb, xb, &in, NULL);
                g->bad_rank = k;
                g->at = a->index;
                if (came_in && !g->in_want) {
                    g->in_want = xb, g->in_got = yb, g->in_d = in;
                } else if (!came_in && !g->want) {
                    g->want = x, g->got = y, g->d = d;
                }
            }
        }
        if (g->want || g->in_want)
            return;
    }
    g->at = start == SIZE_MAX ? -3 : -1;
}

/* "TENSOR at [i]: A on rank K, B on rank 0 (n of m compared values differ)", or how it differs. */
static void say_diff(const tensor_rec *want, const tensor_rec *got, const tensor_diff *d, int k, strbuf *out)
{
    strbuf_addstr(out, want->name);
    if (d->by_values && d->first_diff >= 0) {
        strbuf_addstr(out, " at ");
        fmt_index(out, want, d->first_diff);
        strbuf_addf(out, ": %.9g on rank %d, %.9g on rank 0 (%zu of %zu compared values differ)",
                    got->values[d->first_diff * dtype_lanes(got->dtype)], k,
                    want->values[d->first_diff * dtype_lanes(want->dtype)], d->differing, d->compared);
    } else if (d->by_values) {
        strbuf_addstr(out, " (its shape or name)");
    } else {
        strbuf_addstr(out, " (its statistics: no values kept)");
    }
}

/* "values of T after-tensors (every element of A, the first kept values of B), statistics only of C". */
static void say_compared(const agreement *g, strbuf *out)
{
    strbuf_addf(out, "%" PRId64 " kernel%s: ", g->kernels, g->kernels == 1 ? "" : "s");
    if (g->by_values)
        strbuf_addf(out, "values of %" PRId64 " after-tensor%s (every element of %" PRId64 ", the kept first "
                    "values of %" PRId64 ")", g->by_values, g->by_values == 1 ? "" : "s", g->by_values - g->sampled,
                    g->sampled);
    if (g->by_stats)
        strbuf_addf(out, "%sstatistics only of %" PRId64 " (no values kept; --values N keeps them)",
                    g->by_values ? ", " : "", g->by_stats);
    if (!g->by_values && !g->by_stats)
        strbuf_addstr(out, "no after-tensors");
}

/* The ranks' agreement after their first collective; 1 when they diverge. */
static int say_agreement(session **s, int n, strbuf *out)
{
    agreement g;
    first_divergence(s, n, &g);
    if (g.at == -2) {
        strbuf_addstr(out, "  ranks not compared: they ran different kernels\n");
    } else if (g.at == -3) {
        strbuf_addstr(out, "  ranks not compared: no collective completed (wait_tensor) on every rank\n");
    } else if (g.at == -1) {
        strbuf_addf(out, "  ranks agree from the first collective's wait on: equal on all %d ranks over ", n);
        say_compared(&g, out);
        strbuf_addch(out, '\n');
    } else {
        strbuf_addf(out, "  ranks diverge at kernel %" PRId64 " %s: ", g.at, s[0]->kernels[g.at]->u.kernel.name);
        if (g.want) {
            strbuf_addf(out, "rank %d's ", g.bad_rank);
            say_diff(g.want, g.got, &g.d, g.bad_rank, out);
            strbuf_addstr(out, " (after, written by it)");
        }
        if (g.in_want) {
            strbuf_addf(out, "%sgoing in, rank %d's ", g.want ? "; " : "", g.bad_rank);
            say_diff(g.in_want, g.in_got, &g.in_d, g.bad_rank, out);
            strbuf_addstr(out, " (before: not from the collective; the ranks were given it differently)");
        }
        strbuf_addstr(out, "; every kernel from the first collective's wait up to it agreed; compared: ");
        say_compared(&g, out);
        strbuf_addch(out, '\n');
    }
    return g.at >= 0;
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
            say_rank(s[k], k, &c[k], &out);
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

/* --remote HOST1,HOST2,...: the hosts (in hosts, its commas cut), rank k on the (k mod count)th, its
 * local rank its place among the ranks on that host; the store's address is rank 0's host (or
 * $MASTER_ADDR) into addr. Without --remote every rank is here, on 127.0.0.1. -1 with err. */
static int place_ranks(char *hosts, rank_child *c, int n, char *addr, size_t naddr,
                       strbuf *err)
{
    const char *h[RUN_MAX_RANKS];
    int nh = 0;
    for (char *p = hosts, *e; p && nh < RUN_MAX_RANKS; p = e ? e + 1 : NULL) {
        e = strchr(p, ',');
        if (e)
            *e = 0;
        char host[1024];
        if (remote_target_host(p, host, sizeof host, err) < 0)
            return -1;
        h[nh++] = p;
    }
    snprintf(addr, naddr, "127.0.0.1");
    for (int k = 0; k < n; k++) {
        c[k].host = nh ? h[k % nh] : NULL;
        c[k].local_rank = k;
        if (nh)
            for (int j = c[k].local_rank = 0; j < k; j++)
                c[k].local_rank += !strcmp(c[j].host, c[k].host);
    }
    if (nh && getenv("MASTER_ADDR") && *getenv("MASTER_ADDR"))
        snprintf(addr, naddr, "%s", getenv("MASTER_ADDR"));
    else if (nh)
        remote_target_host(h[0], addr, naddr, err);
    return 0;
}

/* The store's port: $MASTER_PORT with --remote when set (rank 0's host is another machine: a port free
 * here is only a guess there, and a taken one makes the store say so), else one free here. */
static int store_port(const run_options *o, strbuf *err)
{
    const char *p = o->remote ? getenv("MASTER_PORT") : NULL;
    if (p && *p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (*end || v < 1 || v > 65535) {
            strbuf_addf(err, "MASTER_PORT='%s' is not a port (1 to 65535)", p);
            return -1;
        }
        return (int)v;
    }
    return run_ranks_port(err);
}

int ranks_run(const run_options *o, int (*run_one)(run_options o))
{
    int n = o->ranks, code = EXIT_OK;
    strbuf err = STRBUF_INIT;
    rank_child c[RUN_MAX_RANKS];
    memset(c, 0, sizeof c);
    char *hosts = o->remote ? xstrdup(o->remote) : NULL, addr[1024];
    int port = place_ranks(hosts, c, n, addr, sizeof addr, &err) < 0 ? -1 : store_port(o, &err);
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
            rank_main(o, &c[k], k, addr, port, p[1], run_one);
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
    free(hosts);
    strbuf_release(&err);
    return code;
}
