/* run_record.c — runner messages into session events; see run_record.h. */
#include "run_record.h"
#include <inttypes.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loop_iter.h"
#include "run_fold.h"
#include "run_options.h"
#include "nan_element.h"
#include "route_nan.h"
#include "route_provenance.h"
#include "numfmt.h"
#include "router.h"
#include "route_event.h"
#include "stack_trace.h"
#include "triton_trace.h"
#include "weight_diff.h"
#include "compat.h"

#define LOG_LINE_MAX     4096          /* longer lines are split */
#define LOG_MAX_EVENTS   20000         /* then one "dropped" note */
#define STDERR_TAIL_MAX  4096

struct run_record {
    session *s;
    char *trace_source;        /* malloc'd; may be NULL */
    values_budget_state vb;    /* values kept so far this run */
    event *output_ev;          /* the EV_OUTPUT being filled */
    strbuf line[2];            /* partial stdout / stderr line */
    strbuf tail;               /* last STDERR_TAIL_MAX bytes of stderr */
    size_t nlogs, dropped_logs;
    char **input_names;        /* from LOADED ("arg0_1", ...) */
    size_t n_input_names;
    const launch_branch *branches;   /* borrowed (run_record_set_branches) */
    size_t nbranches;
    const tensor_user_name *unames;   /* borrowed (run_record_set_user_names) */
    size_t nunames;
    unsigned char *seen;       /* per branches row: interposition launched it this run */
    int64_t hidden0;           /* s->hidden_kernels before this run's interposed launches, -2 unset */
    const char *hidden_why0;
    int diverged;              /* this run's divergence event is recorded */
    loop_iter loops;           /* which while_loop round each launch is in */
    int nan_recorded;          /* this run's nan event is in the session */
    run_fold *fold;            /* repeated loop iterations, folded as they come */
    int64_t stats_only_ki;     /* the kernel whose KERNEL(before) said STATS_ONLY; -1 none */
};

run_record *run_record_new(session *s, const char *trace_source, uint64_t values_budget)
{
    run_record *r = xcalloc(1, sizeof *r);
    r->trace_source = trace_source ? xstrdup(trace_source) : NULL;
    r->s = s;
    r->hidden0 = -2;
    r->stats_only_ki = -1;
    r->vb.budget = values_budget;
    r->fold = run_fold_new(s);
    strbuf_init(&r->line[0], 0);
    strbuf_init(&r->line[1], 0);
    strbuf_init(&r->tail, 0);
    return r;
}

static void free_input_names(run_record *r)
{
    for (size_t i = 0; i < r->n_input_names; i++)
        free(r->input_names[i]);
    free(r->input_names);
    r->input_names = NULL;
    r->n_input_names = 0;
}

void run_record_free(run_record *r)
{
    if (!r)
        return;
    strbuf_release(&r->line[0]);
    strbuf_release(&r->line[1]);
    strbuf_release(&r->tail);
    free_input_names(r);
    free(r->seen);
    run_fold_free(r->fold);
    free(r->trace_source);
    free(r);
}

void run_record_restart(run_record *r)
{
    run_fold_restart(r->fold);
    r->s->nevents = 0;
    r->s->nkernels = 0;
    r->vb.used = r->vb.reserve_used = 0;
    r->output_ev = NULL;
    r->diverged = 0;
    r->nan_recorded = 0;
    r->stats_only_ki = -1;
    loop_iter_reset(&r->loops);
    r->nlogs = r->dropped_logs = 0;
    strbuf_reset(&r->line[0]);
    strbuf_reset(&r->line[1]);
    strbuf_reset(&r->tail);
    if (r->hidden0 != -2) {   /* every hidden launch is hidden again until interposition sees it */
        r->s->hidden_kernels = r->hidden0;
        r->s->hidden_why = r->hidden_why0;
    }
    if (r->seen)
        memset(r->seen, 0, r->nbranches);
}

void run_record_set_branches(run_record *r, const launch_branch *rows, size_t n)
{
    r->branches = rows;
    r->nbranches = n;
    free(r->seen);
    r->seen = n ? xcalloc(n, 1) : NULL;
}

/* The row of wrapper.cpp's launches for `name`, -1 none. */
static ssize_t branch_row(const run_record *r, const char *name)
{
    for (size_t i = 0; i < r->nbranches; i++)
        if (!strcmp(r->branches[i].kernel, name))
            return (ssize_t)i;
    return -1;
}

/* The branch wrapper.cpp launches `name` in; NULL in the main graph, or when unsure. */
static const char *branch_of(const run_record *r, const char *name)
{
    ssize_t i = branch_row(r, name);
    return i >= 0 && r->branches[i].branch && *r->branches[i].branch ? r->branches[i].branch : NULL;
}

/* Interposition launched `name`: the first time this run, its launch sites
 * inside subgraphs are no longer hidden (the session counted them hidden
 * because the printer does not reach them); the count and its words say so. */
static void hidden_seen(run_record *r, const char *name)
{
    session *s = r->s;
    ssize_t i = branch_row(r, name);
    if (i < 0 || r->seen[i] || !r->branches[i].branch || !*r->branches[i].branch || !r->branches[i].sites ||
        s->hidden_kernels <= 0)
        return;
    r->seen[i] = 1;
    if (r->hidden0 == -2) {
        r->hidden0 = s->hidden_kernels;
        r->hidden_why0 = s->hidden_why;
    }
    int64_t sites = (int64_t)r->branches[i].sites;
    s->hidden_kernels = s->hidden_kernels > sites ? s->hidden_kernels - sites : 0;
    s->hidden_why = arena_printf(&s->arena, "%lld of %lld still hidden: launch interposition named the rest "
                                 "(their kernels carry @branch, without tensors); %s", (long long)s->hidden_kernels,
                                 (long long)r->hidden0, r->hidden_why0 ? r->hidden_why0 : "");
}

void run_record_set_input_names(run_record *r, const char *const *names, size_t n)
{
    free_input_names(r);
    if (!n)
        return;
    r->input_names = xcalloc(n, sizeof *r->input_names);
    for (size_t i = 0; i < n; i++)
        r->input_names[i] = xstrdup(names[i] ? names[i] : "");
    r->n_input_names = n;
}

void run_record_set_user_names(run_record *r, const tensor_user_name *rows, size_t n)
{
    r->unames = rows;
    r->nunames = n;
}

/* The user's name of a tensor the runner named: a model input's from the package's specs, else
 * a row of run_record_set_user_names; NULL none. */
static const char *user_name_of(const run_record *r, const char *name)
{
    const session *s = r->s;
    for (size_t i = 0; i < r->n_input_names && i < s->package.ninput_names; i++)
        if (!strcmp(name, r->input_names[i]) && *s->package.input_names[i])   /* "arg3_1" is the user's "x" */
            return s->package.input_names[i];
    for (size_t i = 0; i < r->nunames; i++)
        if (!strcmp(name, r->unames[i].tensor))
            return r->unames[i].user;
    return NULL;
}

/* ---- errors --------------------------------------------------------------- */

/* A runner error that only points at stderr ("model run failed; see stderr")
 * takes the model's own last `Error: ...` line, when stderr has one. */
static void take_stderr_error_text(run_record *r, event *e)
{
    const char *t = e->u.error.text;
    if (!t || (!strstr(t, "see stderr") && !strstr(t, "see the runner's stderr")) || strlen(t) > 200)
        return;
    session *s = r->s;
    for (size_t i = s->nevents; i-- > 0;) {
        const event *l = s->events[i];
        if (l->kind == EV_LOG && !strcmp(l->u.log.stream, "stderr") && starts_with(l->u.log.text, "Error: ") &&
            l->u.log.text[7]) {
            e->u.error.text = arena_strdup(&s->arena, l->u.log.text + 7);
            return;
        }
    }
}

/* Stores res's route and fields in the error event (session arena). */
static void keep_route(session *s, event *e, const route_result *res)
{
    e->u.error.route = arena_strdup(&s->arena, res->route ? res->route : "unknown");
    e->u.error.fields = NULL;
    e->u.error.nfields = 0;
    if (res->nfields) {
        kv_pair *f = arena_alloc(&s->arena, res->nfields * sizeof *f);
        for (size_t i = 0; i < res->nfields; i++) {
            f[i].key = arena_strdup(&s->arena, res->fields[i].key);
            f[i].value = arena_strdup(&s->arena, res->fields[i].value ? res->fields[i].value : "");
        }
        e->u.error.fields = f;
        e->u.error.nfields = res->nfields;
    }
}

/* The shared rules (router_rules_shared); NULL when unavailable: the error
 * is then recorded unrouted. */
static const router_rules *rules_of(void)
{
    strbuf err = STRBUF_INIT;
    const router_rules *rules = router_rules_shared(&err);
    strbuf_release(&err);
    return rules;
}

/* The input an error names, by the name the model loaded it under ("arg0_1"). */
static void add_input_name(const run_record *r, route_result *res)
{
    const char *ii = route_result_field(res, "input_index");
    char *end;
    long i = ii ? strtol(ii, &end, 10) : -1;
    if (ii && !*end && end != ii && i >= 0 && (size_t)i < r->n_input_names && r->input_names[i][0] &&
        !route_result_field(res, "input"))
        route_result_set_field(res, "input", r->input_names[i]);
}

/* Names the error's route through the one routing entry point
 * (route_event.h), with the package's sources at hand. Replaces route and
 * fields; without routes.yaml the route stays NULL and the error is still
 * recorded. */
static void route_error(run_record *r, event *e)
{
    take_stderr_error_text(r, e);
    const router_rules *rules = rules_of();
    if (!rules)
        return;
    route_result res;
    memset(&res, 0, sizeof res);
    e->u.error.route = NULL;   /* routed again with more output: this routing replaces the last */
    router_route_event(rules, r->s, &e->u.error, r->trace_source, &res);
    add_input_name(r, &res);
    keep_route(r->s, e, &res);
    route_result_release(&res);
}

/* When the runner is done (DONE, or it ended): route this run's errors again
 * with all of its output, which may have arrived after the ERROR frame. */
static void reroute_errors(run_record *r)
{
    session *s = r->s;
    for (size_t i = 0; i < s->nevents; i++)
        if (s->events[i]->kind == EV_ERROR)
            route_error(r, s->events[i]);
}

int run_record_error(run_record *r, int64_t kernel_index, const char *text, double t_ms)
{
    session *s = r->s;
    event *e = session_add_event(s, EV_ERROR);
    e->t_ms = t_ms;
    e->u.error.text = arena_strdup(&s->arena, text);
    e->u.error.kernel_index = kernel_index;
    route_error(r, e);
    return 1;
}

/* ---- kernels and tensors ---------------------------------------------------- */

static kernel_event *kernel_by_index(run_record *r, int64_t idx)
{
    /* Kernels arrive in order, so the last one is nearly always it. */
    session *s = r->s;
    for (size_t i = s->nkernels; i-- > 0;) {
        if (s->kernels[i]->u.kernel.index == idx)
            return &s->kernels[i]->u.kernel;
        if (s->nkernels - i > 64)
            break;
    }
    for (size_t i = 0; i < s->nkernels; i++)
        if (s->kernels[i]->u.kernel.index == idx)
            return &s->kernels[i]->u.kernel;
    return NULL;
}

size_t values_budget_keep(values_budget_state *b, size_t n)
{
    if (!b->budget || !n)
        return n;
    uint64_t bytes = (uint64_t)n * sizeof(double);
    if (b->used <= b->budget && bytes <= b->budget - b->used) {
        b->used += bytes;
        return n;
    }
    size_t k = n < VALUES_BUDGET_SAMPLE ? n : VALUES_BUDGET_SAMPLE;
    uint64_t kb = (uint64_t)k * sizeof(double), reserve = b->budget / 16;
    if (b->reserve_used <= reserve && kb <= reserve - b->reserve_used) {
        b->reserve_used += kb;
        return k;
    }
    return 0;
}

void values_budget_return(values_budget_state *b, uint64_t n)
{
    uint64_t bytes = n * sizeof(double), u = bytes < b->used ? bytes : b->used;
    b->used -= u;
    bytes -= u;
    b->reserve_used -= bytes < b->reserve_used ? bytes : b->reserve_used;
}

/* Copies a tensor decoded into scratch memory into the session arena,
 * keeping the values the budget allows (a prefix; statistics untouched). */
static tensor_rec keep_tensor(run_record *r, const tensor_rec *src)
{
    arena *a = &r->s->arena;
    tensor_rec t = *src;
    t.name = arena_strdup(a, src->name);
    t.dtype = arena_strdup(a, src->dtype);
    t.device = arena_strdup(a, src->device);
    int nd = src->ndim > 0 && src->ndim <= TENSOR_MAX_DIMS ? src->ndim : 0;
    t.shape = nd && src->shape ? arena_memdup(a, src->shape, (size_t)nd * sizeof *t.shape) : NULL;
    t.strides = nd && src->strides ? arena_memdup(a, src->strides, (size_t)nd * sizeof *t.strides) : NULL;
    size_t n = src->values ? src->nvalues : 0;
    values_budget_return(&r->vb, run_fold_take_dropped(r->fold));   /* rounds folded meanwhile */
    size_t k = values_budget_keep(&r->vb, n);
    k -= k % (size_t)dtype_lanes(src->dtype);   /* never half a complex pair */
    if (k < n) {
        t.values_budget_cut = 1;
        t.values_complete = 0;
    }
    t.nvalues = k;
    t.values = k ? arena_memdup(a, src->values, k * sizeof *t.values) : NULL;
    return t;
}

/* Appends t to an arena-backed array whose capacity is implied by its length
 * (4, 8, 16, ...), so no capacity field is needed in model.h. */
static void push_tensor(arena *a, size_t *n, tensor_rec **arr, const tensor_rec *t)
{
    size_t len = *n;
    if (len == 0 || (len >= 4 && (len & (len - 1)) == 0)) {
        size_t cap = len ? len * 2 : 4;
        tensor_rec *na = arena_alloc(a, cap * sizeof *na);
        if (len)
            memcpy(na, *arr, len * sizeof *na);
        *arr = na;
    }
    (*arr)[len] = *t;
    *n = len + 1;
}

/* ---- the eager reference --------------------------------------------------- */

static eager_check keep_check(arena *a, const eager_check *c)
{
    eager_check k = *c;
    k.node = arena_strdup(a, c->node);
    k.tensor = c->tensor && *c->tensor ? arena_strdup(a, c->tensor) : NULL;
    k.note = c->note && *c->note ? arena_strdup(a, c->note) : NULL;
    k.yardstick = c->yardstick && *c->yardstick ? arena_strdup(a, c->yardstick) : NULL;
    return k;
}

/* "[i, j]": a flat index in the shape of the kernel's after-tensor `name`. */
static const char *index_text(session *s, const kernel_event *k, const char *name, int64_t flat)
{
    const tensor_rec *t = NULL;
    for (size_t i = 0; name && i < k->ntensors && !t; i++)
        if (k->tensors[i].phase == PHASE_AFTER && !strcmp(k->tensors[i].name, name))
            t = &k->tensors[i];
    if (flat < 0 || !t)
        return NULL;
    int64_t idx[TENSOR_MAX_DIMS];
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = flat % n;
        flat /= n;
    }
    strbuf sb = STRBUF_INIT;
    fmt_shape(&sb, t->ndim, idx);
    const char *out = arena_strdup(&s->arena, sb.buf);
    strbuf_release(&sb);
    return out;
}

/* The first check that differs becomes the run's divergence event: where it
 * is in the tensor, and the user's line the kernel comes from. */
static void add_divergence(run_record *r, const kernel_event *k, const eager_check *c, double t_ms)
{
    session *s = r->s;
    event *e = session_add_event(s, EV_DIVERGENCE);
    e->t_ms = t_ms;
    divergence_event *d = &e->u.divergence;
    d->kernel_index = k->index;
    d->kernel = k->name;
    d->check = *c;
    d->index = index_text(s, k, c->tensor, c->first);
    const kernel_call *call = session_kernel_call(s, k);
    st_frame f;
    if (call && kernel_call_sites(call, &f, 1) == 1) {
        d->where = f.line > 0 ? arena_printf(&s->arena, "%.*s:%lld", f.file_len, f.file, (long long)f.line)
                              : arena_strndup(&s->arena, f.file, (size_t)f.file_len);
        if (f.code_len)
            d->code = arena_strndup(&s->arena, f.code, (size_t)f.code_len);
    } else if (call) {
        strbuf sb = STRBUF_INIT;
        kernel_call_where(call, &sb, 200);
        d->where = sb.len ? arena_strdup(&s->arena, sb.buf) : NULL;
        strbuf_release(&sb);
    }
}

/* The first kernel whose output gains NaN/Inf, down to the element
 * (nan_element.h), as a nan event after it: 1 when added. */
static int record_nan(run_record *r, const kernel_event *k, double t_ms)
{
    session *s = r->s;
    int eagers;
    if (r->nan_recorded || (!kernel_nonfinite_own(k, &eagers) && eagers))
        return 0;   /* infinities the eager program computes too (--eager) are the model's: not the first anomaly */
    size_t pos = s->nkernels;
    while (pos-- > 0 && &s->kernels[pos]->u.kernel != k)
        ;
    nan_element ne;
    if (pos >= s->nkernels || !nan_element_at_kernel(s, pos, &ne))
        return 0;   /* NaN/Inf only in tensors it read: an earlier kernel or an input made it */
    r->nan_recorded = 1;
    event *e = session_add_event(s, EV_NAN);
    e->t_ms = t_ms;   /* when the kernel ended, on the run's clock where it says */
    if (s->kernels[pos]->t_ms >= 0)
        e->t_ms = s->kernels[pos]->t_ms + (k->duration_us > 0 ? k->duration_us / 1000.0 : 0);
    nan_event_fill(&s->arena, s, &ne, &e->u.nan);
    return 1;
}

/* KERNEL(after): the launch's status and times. */
static int kernel_after(run_record *r, proto_msg *m, double t_ms, strbuf *err)
{
    session *s = r->s;
    kernel_event *k = kernel_by_index(r, m->u.kernel.index);
    if (!k) {
        strbuf_addf(err, "runner sent 'after' for kernel %" PRId64 " (%s) with no 'before'",
                    m->u.kernel.index, m->u.kernel.name);
        return -1;
    }
    k->status = (kernel_status)m->u.kernel.status;
    k->duration_us = m->u.kernel.duration_us;
    k->device_us = m->u.kernel.device_us;
    k->device_note = m->u.kernel.device_note && *m->u.kernel.device_note
                         ? arena_strdup(&s->arena, m->u.kernel.device_note) : NULL;
    return k->status == KSTAT_NAN ? record_nan(r, k, t_ms) : 0;
}

/* A model output (TENSOR with no kernel): 1 when the output event is new. */
static int output_tensor(run_record *r, proto_msg *m, double t_ms)
{
    session *s = r->s;
    int added = 0;
    if (!r->output_ev) {
        r->output_ev = session_add_event(s, EV_OUTPUT);
        r->output_ev->t_ms = t_ms;
        added = 1;
    }
    m->u.tensor.t.phase = PHASE_OUTPUT;
    output_event *o = &r->output_ev->u.output;
    tensor_rec t = keep_tensor(r, &m->u.tensor.t);
    unsigned long oi;   /* "output<i>": the user's name from the package's out_spec_ */
    if (sscanf(t.name, "output%lu", &oi) == 1 && oi < s->package.noutput_names)
        t.user_name = s->package.output_names[oi];
    push_tensor(&s->arena, &o->ntensors, &o->tensors, &t);
    return added;
}

/* A kernel's tensor, before or after its launch. */
static int kernel_tensor(run_record *r, proto_msg *m, strbuf *err)
{
    session *s = r->s;
    int64_t ki = m->u.tensor.kernel_index;
    kernel_event *k = kernel_by_index(r, ki);
    if (!k) {
        strbuf_addf(err, "runner sent a tensor for kernel %" PRId64 ", which it never announced", ki);
        return -1;
    }
    tensor_rec t = keep_tensor(r, &m->u.tensor.t);
    t.user_name = user_name_of(r, t.name);
    if (ki == r->stats_only_ki && !m->u.tensor.t.nvalues && t.has_stats && t.stats.numel)
        t.values_skipped = 1;   /* the runner read no values: a later loop round, nothing anomalous in it */
    push_tensor(&s->arena, &k->ntensors, &k->tensors, &t);
    return 0;
}

int run_record_message(run_record *r, proto_msg *m, double t_ms, strbuf *err)
{
    session *s = r->s;
    switch (m->type) {
    case PROTO_HELLO:
        if (m->u.hello.torch_version[0])
            s->torch_version = arena_strdup(&s->arena, m->u.hello.torch_version);
        if (m->u.hello.gpu_name[0])
            s->gpu = m->u.hello.gpu_cc[0] ? arena_printf(&s->arena, "%s (sm_%s)", m->u.hello.gpu_name,
                                                         m->u.hello.gpu_cc)
                                          : arena_strdup(&s->arena, m->u.hello.gpu_name);
        if (m->u.hello.gpu_peak_gbps > 0 && m->u.hello.gpu_peak_gbps < 1e6)   /* a runner's bound, not a datasheet's */
            s->gpu_peak_gbps = m->u.hello.gpu_peak_gbps;
        weights_cmp_restart(&s->eager.weights);   /* this runner compares them again */
        return 0;
    case PROTO_WEIGHT_DIFF:   /* --eager: one program weight against the package's */
        weights_cmp_add(s, &m->u.wdiff);
        return 0;
    case PROTO_KERNEL: {
        if (m->u.kernel.phase == 0) {
            /* interposed, or the printer's own hooks (torch 2.11 on CUDA hooks Triton launches in
             * subgraphs, saying no branch): where wrapper.cpp launches it */
            const char *branch = m->u.kernel.branch && *m->u.kernel.branch ? m->u.kernel.branch
                                                                            : branch_of(r, m->u.kernel.name);
            int64_t iteration = loop_iter_next(&r->loops, branch, m->u.kernel.name);
            int swapped = run_fold_kernel(r->fold, branch, iteration);
            event *e = session_add_event(s, EV_KERNEL);
            e->t_ms = m->u.kernel.t_us >= 0 ? m->u.kernel.t_us / 1000.0 : t_ms;
            kernel_event *k = &e->u.kernel;
            k->index = m->u.kernel.index;
            k->name = arena_strdup(&s->arena, m->u.kernel.name);
            k->type = kernel_type_guess(k->name);
            k->status = KSTAT_PENDING;
            k->source = *m->u.kernel.source ? arena_strdup(&s->arena, m->u.kernel.source)
                                            : s->mode ? s->mode : "printer";
            k->branch = branch == m->u.kernel.branch ? arena_strdup(&s->arena, branch) : branch;
            k->iteration = iteration;
            r->stats_only_ki = m->u.kernel.flags & PROTO_KERNEL_STATS_ONLY ? k->index : -1;
            if (!strcmp(k->source, "interpose"))
                hidden_seen(r, k->name);
            /* a rebuilt copy's hooks are the printer's own calls, inserted by us */
            if (s->mode && !strcmp(s->mode, "reinstrument") && !strcmp(k->source, "printer"))
                k->source = "reinstrument";
            k->call = session_match_call(s, (int64_t)s->nkernels - 1, k->name);
            session_mark_collective(s, k, RUN_RANKS_GROUP);
            if (swapped)
                run_fold_leave(r->fold);
            return 1;
        }
        int swapped = run_fold_enter(r->fold, m->u.kernel.index);
        int rc = kernel_after(r, m, t_ms, err);
        if (swapped)
            run_fold_leave(r->fold);
        return rc;
    }
    case PROTO_TENSOR: {
        if (m->u.tensor.kernel_index < 0) {
            run_fold_flush(r->fold);   /* the outputs: the loops are over */
            return output_tensor(r, m, t_ms);
        }
        int swapped = run_fold_enter(r->fold, m->u.tensor.kernel_index);
        int rc = kernel_tensor(r, m, err);
        if (swapped)
            run_fold_leave(r->fold);
        return rc;
    }
    case PROTO_ALIAS: {
        output_event *o = r->output_ev ? &r->output_ev->u.output : NULL;
        if (!o || m->u.alias.output >= o->ntensors) {
            strbuf_addf(err, "runner sent an alias for output %u before that output", m->u.alias.output);
            return -1;
        }
        o->tensors[m->u.alias.output].alias_of = arena_strdup(&s->arena, m->u.alias.of);
        return 0;
    }
    case PROTO_ERROR: {
        int64_t ki = m->u.error.kernel_index;
        run_fold_mark(r->fold);
        run_record_error(r, ki, m->u.error.text, t_ms);
        kernel_event *k = ki >= 0 ? kernel_by_index(r, ki) : NULL;
        if (k && k->status == KSTAT_PENDING)
            k->status = KSTAT_ERROR;
        return 1;
    }
    case PROTO_COMPARE: {
        kernel_event *k = kernel_by_index(r, m->u.compare.kernel_index);
        if (!k) {
            strbuf_addf(err, "runner sent an eager check for kernel %" PRId64 ", which it never announced",
                        m->u.compare.kernel_index);
            return -1;
        }
        eager_check c = keep_check(&s->arena, &m->u.compare.c);
        size_t cap = 0;   /* implied by the length: 4, 8, 16, ... (as push_tensor's) */
        while (k->neager && cap < k->neager)
            cap = cap ? cap * 2 : 4;
        k->eager = arena_grow(&s->arena, k->eager, k->neager, &cap, sizeof *k->eager, 4);
        k->eager[k->neager++] = c;
        if (c.verdict != EAGER_DIFFERS || r->diverged)
            return 0;
        r->diverged = 1;
        add_divergence(r, k, &c, t_ms);
        return 1;
    }
    case PROTO_DONE:
        run_fold_flush(r->fold);
        if (m->u.done.status != 0)
            reroute_errors(r);
        return 0;
    default:
        return 0;
    }
}

/* ---- runner output ----------------------------------------------------------- */

static void add_log(run_record *r, int stream, const char *text, size_t len, double t_ms)
{
    if (r->nlogs >= LOG_MAX_EVENTS) {
        r->dropped_logs++;
        return;
    }
    session *s = r->s;
    event *e = session_add_event(s, EV_LOG);
    e->t_ms = t_ms;
    e->u.log.stream = stream ? "stderr" : "stdout";
    e->u.log.text = arena_strndup(&s->arena, text, len);
    r->nlogs++;
}

int run_record_output(run_record *r, int stream, const char *buf, size_t n, int final, double t_ms)
{
    strbuf *lb = &r->line[stream];
    int added = 0;
    if (stream == 1 && n) {
        strbuf_add(&r->tail, buf, n);
        if (r->tail.len > STDERR_TAIL_MAX) {
            size_t cut = r->tail.len - STDERR_TAIL_MAX;
            memmove(r->tail.buf, r->tail.buf + cut, STDERR_TAIL_MAX);
            strbuf_setlen(&r->tail, STDERR_TAIL_MAX);
        }
    }
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\n' || lb->len >= LOG_LINE_MAX) {
            size_t l = lb->len;
            if (l && lb->buf[l - 1] == '\r')
                l--;
            add_log(r, stream, lb->buf, l, t_ms);
            added++;
            strbuf_reset(lb);
            if (c == '\n')
                continue;
        }
        strbuf_addch(lb, c ? c : '?');
    }
    if (final && lb->len) {
        add_log(r, stream, lb->buf, lb->len, t_ms);
        added++;
        strbuf_reset(lb);
    }
    return added;
}

int run_record_end(run_record *r, double t_ms)
{
    int added = 0;
    run_fold_flush(r->fold);
    if (r->dropped_logs) {
        event *e = session_add_event(r->s, EV_LOG);
        e->t_ms = t_ms;
        e->u.log.stream = "stderr";
        e->u.log.text = arena_printf(&r->s->arena, "aotidbg: %zu more runner output lines were not recorded "
                                     "(cap %d)", r->dropped_logs, LOG_MAX_EVENTS);
        r->dropped_logs = 0;
        added = 1;
    }
    reroute_errors(r);
    return added;
}

/* A runner that died before it could send an ERROR (a check that throws
 * inside an OpenMP region aborts the process) still leaves its answer in its
 * output: the whole session is routed, and when that names a route, an error
 * event carries it (its text the line that said so), so that the summary, the
 * router and the session file say what `aotidbg route` says. 1 when added. */
static int record_death(run_record *r, const runner_exit_event *x, double t_ms)
{
    session *s = r->s;
    if (!strcmp(x->how, "killed") || (!strcmp(x->how, "exited") && x->exit_code == 0))
        return 0;
    for (size_t i = 0; i < s->nevents; i++)
        if (s->events[i]->kind == EV_ERROR)
            return 0;   /* the runner said what failed */
    const router_rules *rules = rules_of();
    if (!rules)
        return 0;
    route_result res;
    memset(&res, 0, sizeof res);
    router_route_event(rules, s, NULL, r->trace_source, &res);
    const char *line = NULL;
    for (size_t i = 0; i < res.nevidence && !line; i++)
        if (!res.evidence[i].origin && res.evidence[i].route && res.route && !strcmp(res.evidence[i].route, res.route))
            line = res.evidence[i].text;
    int added = 0;
    if (res.route && strcmp(res.route, "unknown") && line) {
        event *e = session_add_event(s, EV_ERROR);
        e->t_ms = t_ms;
        e->u.error.text = arena_printf(&s->arena, "%s (the runner then died: %s)", line,
                                       !strcmp(x->how, "signal") ? signal_name(x->signal) : x->how);
        e->u.error.kernel_index = session_exit_kernel(s);
        add_input_name(r, &res);
        keep_route(s, e, &res);
        added = 1;
    }
    route_result_release(&res);
    return added;
}

void run_record_stopped(run_record *r) { run_fold_mark(r->fold); }

int run_record_exit(run_record *r, const char *how, int code, double t_ms)
{
    session *s = r->s;
    run_fold_flush(r->fold);
    event *e = session_add_event(s, EV_RUNNER_EXIT);
    e->t_ms = t_ms;
    runner_exit_event *x = &e->u.exit;
    x->how = how;
    if (!strcmp(how, "signal"))
        x->signal = code;
    else if (!strcmp(how, "exited"))
        x->exit_code = code;
    x->stderr_tail = r->tail.len ? arena_strndup(&s->arena, r->tail.buf, r->tail.len) : NULL;
    return 1 + record_death(r, x, t_ms);
}
