/* eager_main.c — `aotidbg-runner --eager-ref PLAN` (eager_main.h). */
#define _GNU_SOURCE
#include "eager_main.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "arena.h"
#include "eager_graph.h"
#include "input_build.h"
#include "protocol.h"
#include "strbuf.h"
#include "torch_abi.h"

#define PLAN_MAX (256u << 20)   /* bytes of plan read: a graph description, never weights */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Room for one more row in a table of n rows: 16, then doubled at each power of two. */
#define GROW(v, n)                                                          \
    do {                                                                    \
        if (!(n) || ((n) >= 16 && !((n) & ((n) - 1)))) {                    \
            void *g_ = realloc((v), ((n) ? (n) * 2 : 16) * sizeof *(v));    \
            if (!g_) abort();                                               \
            (v) = g_;                                                       \
        }                                                                   \
    } while (0)

int eager_ref_main(int argc, char **argv)
{
    double t0 = now_s();
    if (argc != 1) {
        fprintf(stderr, "aotidbg-runner --eager-ref: usage: aotidbg-runner --eager-ref PLAN\n");
        return EG_BAD_PLAN;
    }
    tabi_init();
    strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    arena a = {0};
    const proto_msg *run = NULL;
    eg_input *inputs = NULL;
    eg_constant *consts = NULL;
    eg_node *nodes = NULL;
    size_t nconsts = 0, nnodes = 0, ninputs = 0;
    int rc = EG_BAD_PLAN;
    if (strbuf_read_file(&text, argv[0], PLAN_MAX, &err) < 0)
        goto done;
    for (size_t at = 0; at < text.len;) {
        proto_msg *m = arena_alloc(&a, sizeof *m);
        long used = proto_decode((const unsigned char *)text.buf + at, text.len - at, m, &a, &err);
        if (used <= 0) {
            if (!used)
                strbuf_addstr(&err, "the plan ends inside a frame");
            strbuf_addf(&err, " (%s, byte %zu)", argv[0], at);
            goto done;
        }
        at += (size_t)used;
        switch (m->type) {
        case PROTO_EAGER_RUN:
            run = m;
            break;
        case PROTO_INPUT: {
            if (m->u.input.index != ninputs) {
                strbuf_addf(&err, "%s: INPUT %u out of order", argv[0], m->u.input.index);
                goto done;
            }
            const input_spec *s = &m->u.input.spec;
            const dtype_entry *dt = tabi_dtype_by_name(s->dtype);
            uint64_t numel = 1;
            for (int d = 0; d < s->ndim; d++)
                numel *= (uint64_t)s->shape[d];
            if (!dt || (dt->itemsize && numel > INPUT_MAX_BYTES / dt->itemsize)) {
                strbuf_addf(&err, "input %zu: dtype '%s' or its size is not one aotidbg makes", ninputs, s->dtype);
                goto done;
            }
            void *host = malloc(numel * dt->itemsize + 1);
            if (!host) abort();
            GROW(inputs, ninputs);
            inputs[ninputs++] = (eg_input){"", s->dtype, s->ndim, s->shape, host};
            if (input_fill(s, (int)ninputs - 1, host, numel, &err) < 0)
                goto done;
            break;
        }
        case PROTO_CONSTANT: {
            const __typeof__(m->u.constant) *c = &m->u.constant;
            GROW(consts, nconsts);
            consts[nconsts++] = (eg_constant){c->fqn, c->path, c->dtype, c->ndim, c->shape, c->strides,
                                              c->storage_offset};
            break;
        }
        case PROTO_EAGER_NODE: {
            const __typeof__(m->u.eager_node) *n = &m->u.eager_node;
            GROW(nodes, nnodes);
            nodes[nnodes++] = (eg_node){n->name, n->target, n->nargs, n->nouts, n->args, n->outs};
            break;
        }
        default:
            strbuf_addf(&err, "%s: a %s frame has no place in a plan", argv[0], proto_type_name(m->type));
            goto done;
        }
    }
    const __typeof__(run->u.eager_run) *r = run ? &run->u.eager_run : NULL;
    if (!r || r->ninputs != ninputs) {
        strbuf_addf(&err, "%s: %s", argv[0], r ? "its inputs and its INPUT frames differ in number" : "no EAGER_RUN frame");
        goto done;
    }
    for (size_t i = 0; i < ninputs; i++)
        inputs[i].placeholder = r->inputs[i];
    double t_plan = now_s();
    eg_plan p = {r->program, r->device, r->out_dir, r->float64, r->keep, r->nkeep, inputs, ninputs, consts, nconsts,
                 nodes, nnodes};
    size_t computed = 0;
    char msg[2048] = "";
    rc = eg_run(&p, &computed, msg, sizeof msg);
    if (rc)
        strbuf_addstr(&err, msg);
    else
        printf("aotidbg-runner --eager-ref: %zu node value(s) in %s/nodes (computed with libtorch on %s%s, %.2f s; "
               "the plan read in %.2f s)\n", computed, r->out_dir, r->device, r->float64 ? ", float64" : "",
               now_s() - t_plan, t_plan - t0);
done:
    if (rc)
        fprintf(stderr, "aotidbg-runner --eager-ref: %s\n", err.len ? err.buf : "failed");
    for (size_t i = 0; i < ninputs; i++)
        free((void *)inputs[i].host);
    free(inputs);
    free(consts);
    free(nodes);
    arena_release(&a);
    strbuf_release(&text);
    strbuf_release(&err);
    return rc;
}

/* Threads of this process (fork copies only the caller's). */
static int nthreads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static pid_t forked;   /* eager_ref_fork's child, until eager_ref_reap */

void eager_ref_reap(void)
{
    if (forked > 0)
        while (waitpid(forked, NULL, 0) < 0 && errno == EINTR) {}
    forked = 0;
}

void eager_ref_fork(void)
{
    const char *fds = getenv("AOTIDBG_EAGER_REF_FD"), *plan = getenv("AOTIDBG_EAGER_REF_PLAN"),
               *log = getenv("AOTIDBG_EAGER_REF_LOG");
    char *end = NULL;
    long fd = fds ? strtol(fds, &end, 10) : -1;
    if (!fds)
        return;
    char *p = plan ? strdup(plan) : NULL, *l = log ? strdup(log) : NULL;
    unsetenv("AOTIDBG_EAGER_REF_FD");
    unsetenv("AOTIDBG_EAGER_REF_PLAN");
    unsetenv("AOTIDBG_EAGER_REF_LOG");
    if (!end || *end || fd <= PROTO_FD || fcntl((int)fd, F_GETFD) < 0) {
        free(p);
        free(l);
        return;
    }
    pid_t pid = p && l && nthreads() == 1 ? fork() : -1;
    if (pid == 0) {
        int lfd = open(l, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (lfd < 0)
            _exit(2);   /* EOF without "pid": the front end starts --eager-ref itself */
        close(PROTO_FD);   /* the protocol socket is the model runner's */
        fflush(stdout);
        dup2(lfd, 1);
        dup2(lfd, 2);
        close(lfd);
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
        signal(SIGUSR1, SIG_DFL);   /* the front end's pause is for the model's runner */
        dprintf((int)fd, "pid %d\n", (int)getpid());
        printf("aotidbg-runner --eager-ref: in a fork of the model's runner (pid %d; libtorch started once)\n",
               (int)getppid());
        int rc = eager_ref_main(1, &p);
        fflush(stdout);
        fflush(stderr);
        dprintf((int)fd, "rc %d\n", rc);
        _exit(rc);
    }
    if (pid > 0)
        forked = pid;
    close((int)fd);
    free(p);
    free(l);
}
