/* eager_main.c — `aotidbg-runner --eager-ref PLAN` (eager_main.h). */
#include "eager_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
