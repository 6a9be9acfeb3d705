/* run_fold.c — folding repeated while_loop iterations while recording (run_fold.h). */
#include "run_fold.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "loop_iter.h"

typedef struct {
    int on;
    char key[LOOP_ITER_KEY];
    int64_t iteration;
    size_t from, n;            /* its events: s->events[from .. from + n) once closed */
    int marked;                /* a stop or an error in it */
    arena mem;                 /* what its events were allocated from */
} fold_iter;

struct run_fold {
    session *s;
    fold_iter open, held;      /* the iteration recording now; the last foldable one, kept until the next */
    event *fold;               /* the fold event growing over held's predecessors; NULL none */
    arena saved;               /* the session's arena while open's is swapped in */
    int swapped;
    uint64_t dropped;          /* values of folded iterations, not yet taken (run_fold_take_dropped) */
};

run_fold *run_fold_new(session *s)
{
    run_fold *f = xcalloc(1, sizeof *f);
    f->s = s;
    return f;
}

static void drop(fold_iter *it)
{
    arena_release(&it->mem);
    memset(it, 0, sizeof *it);
}

void run_fold_restart(run_fold *f)
{
    if (!f)
        return;
    run_fold_leave(f);
    drop(&f->open);
    drop(&f->held);
    f->fold = NULL;
    f->s->nevents_held = 0;
}

void run_fold_free(run_fold *f)
{
    if (!f)
        return;
    run_fold_flush(f);   /* what is still open or held is the session's now */
    free(f);
}

static void update_held(run_fold *f)
{
    session *s = f->s;
    size_t from = s->nevents;
    if (f->open.on && f->open.from < from)
        from = f->open.from;
    if (f->held.on && f->held.from < from)
        from = f->held.from;
    for (size_t i = from; f->fold && i-- > 0 && i + 4 > from;)   /* the fold sits right before held */
        if (s->events[i] == f->fold) {
            from = i;
            break;
        }
    s->nevents_held = s->nevents - from;
}

/* Keeps it whole: its memory becomes the session's. */
static void keep(run_fold *f, fold_iter *it)
{
    if (it->on)
        arena_adopt(&f->s->arena, &it->mem);
    memset(it, 0, sizeof *it);
}

static int foldable(const run_fold *f, const fold_iter *it)
{
    if (!it->on || it->marked || it->iteration <= 0 || !it->n)
        return 0;
    for (size_t i = it->from; i < it->from + it->n; i++) {
        const event *e = f->s->events[i];
        if (e->kind != EV_KERNEL || e->u.kernel.status != KSTAT_OK || e->u.kernel.neager)
            return 0;
    }
    return 1;
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* b follows a: same loop, next round, right after it in the events, same kernels and tensors. */
static int repeats(const run_fold *f, const fold_iter *a, const fold_iter *b)
{
    if (!a->on || !b->on || strcmp(a->key, b->key) || a->iteration + 1 != b->iteration || a->n != b->n ||
        a->from + a->n != b->from)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const kernel_event *x = &f->s->events[a->from + i]->u.kernel, *y = &f->s->events[b->from + i]->u.kernel;
        if (strcmp(x->name, y->name) || !same_str(x->branch, y->branch) || x->ntensors != y->ntensors)
            return 0;
        for (size_t t = 0; t < x->ntensors; t++)
            if (x->tensors[t].phase != y->tensors[t].phase || strcmp(x->tensors[t].name, y->tensors[t].name))
                return 0;
    }
    return 1;
}

static double add_known(double sum, double v) { return v < 0 ? sum : sum < 0 ? v : sum + v; }

static void fold_tensor_add(fold_tensor *ft, const tensor_rec *t, int first)
{
    if (!t->has_stats)
        return;
    const tensor_stats *st = &t->stats;
    if (first || st->min < ft->min || isnan(ft->min))
        ft->min = st->min;
    if (first || st->max > ft->max || isnan(ft->max))
        ft->max = st->max;
    if (first || st->mean < ft->mean_lo)
        ft->mean_lo = st->mean;
    if (first || st->mean > ft->mean_hi)
        ft->mean_hi = st->mean;
    ft->nan += st->nan;
    ft->posinf += st->posinf;
    ft->neginf += st->neginf;
}

/* The sequence of it's kernels, as the fold's (the first iteration folded). */
static void fold_start(run_fold *f, const fold_iter *it)
{
    session *s = f->s;
    fold_event *fe = &f->fold->u.fold;
    fe->loop = arena_strdup(&s->arena, it->key);
    fe->from = it->iteration;
    fe->first_kernel = s->events[it->from]->u.kernel.index;
    f->fold->t_ms = s->events[it->from]->t_ms;
    fe->nkernels = it->n;
    fe->kernels = arena_alloc(&s->arena, it->n * sizeof *fe->kernels);
    for (size_t i = 0; i < it->n; i++) {
        const kernel_event *k = &s->events[it->from + i]->u.kernel;
        fold_kernel *fk = &fe->kernels[i];
        fk->name = arena_strdup(&s->arena, k->name);
        fk->branch = arena_strdup(&s->arena, k->branch);
        fk->duration_us = fk->duration_min_us = fk->duration_max_us = fk->device_us = -1;
        fk->ntensors = k->ntensors;
        fk->tensors = k->ntensors ? arena_alloc(&s->arena, k->ntensors * sizeof *fk->tensors) : NULL;
        for (size_t t = 0; t < k->ntensors; t++) {
            fk->tensors[t].name = arena_strdup(&s->arena, k->tensors[t].name);
            fk->tensors[t].phase = k->tensors[t].phase;
        }
    }
}

static void fold_add(run_fold *f, const fold_iter *it)
{
    session *s = f->s;
    fold_event *fe = &f->fold->u.fold;
    int first = fe->launches == 0;
    for (size_t i = 0; i < it->n; i++) {
        const event *e = s->events[it->from + i];
        const kernel_event *k = &e->u.kernel;
        fold_kernel *fk = &fe->kernels[i];
        double d = k->duration_us;
        if (d >= 0) {
            fk->duration_min_us = fk->duration_min_us < 0 || d < fk->duration_min_us ? d : fk->duration_min_us;
            fk->duration_max_us = d > fk->duration_max_us ? d : fk->duration_max_us;
        }
        fk->duration_us = add_known(fk->duration_us, d);
        fk->device_us = add_known(fk->device_us, k->device_us);
        fe->duration_us = add_known(fe->duration_us, d);
        for (size_t t = 0; t < k->ntensors && t < fk->ntensors; t++)
            fold_tensor_add(&fk->tensors[t], &k->tensors[t], first);
        fk->launches++;
        fe->launches++;
        fe->last_kernel = k->index;
        if (e->t_ms >= 0)
            fe->end_ms = e->t_ms + (d > 0 ? d / 1000.0 : 0);
    }
    fe->to = it->iteration;
}

/* Takes s->events[from .. from + n) (kernels only, the last kernels but `after`) out. */
static void remove_events(run_fold *f, size_t from, size_t n, size_t after)
{
    session *s = f->s;
    memmove(&s->events[from], &s->events[from + n], (s->nevents - from - n) * sizeof *s->events);
    s->nevents -= n;
    size_t k = s->nkernels - after - n;
    memmove(&s->kernels[k], &s->kernels[k + n], after * sizeof *s->kernels);
    s->nkernels -= n;
}

/* Ends the fold: held stays whole. */
static void end_fold(run_fold *f)
{
    keep(f, &f->held);
    f->fold = NULL;
}

/* The open iteration is complete: fold the one held before it, hold it, or keep both. */
static void close_open(run_fold *f)
{
    run_fold_leave(f);
    fold_iter *it = &f->open;
    if (!it->on)
        return;
    it->n = f->s->nevents - it->from;
    if (!foldable(f, it)) {
        end_fold(f);
        keep(f, it);
        return;
    }
    if (!repeats(f, &f->held, it)) {
        end_fold(f);
        f->held = *it;
        memset(it, 0, sizeof *it);
        return;
    }
    session *s = f->s;
    if (!f->fold || !f->held.from || s->events[f->held.from - 1] != f->fold) {
        f->fold = NULL;
        event *e = session_add_event(s, EV_FOLD);   /* appended: moved to just before held */
        memmove(&s->events[f->held.from + 1], &s->events[f->held.from],
                (s->nevents - 1 - f->held.from) * sizeof *s->events);
        s->events[f->held.from] = e;
        f->held.from++;
        it->from++;
        f->fold = e;
        fold_start(f, &f->held);
    }
    fold_add(f, &f->held);
    for (size_t i = f->held.from; i < f->held.from + f->held.n; i++)   /* foldable: kernels only */
        for (size_t t = 0; t < s->events[i]->u.kernel.ntensors; t++)
            f->dropped += s->events[i]->u.kernel.tensors[t].nvalues;
    remove_events(f, f->held.from, f->held.n, it->n);
    it->from -= f->held.n;
    drop(&f->held);
    f->held = *it;
    memset(it, 0, sizeof *it);
}

int run_fold_kernel(run_fold *f, const char *branch, int64_t iteration)
{
    if (!f)
        return 0;
    run_fold_leave(f);
    char key[LOOP_ITER_KEY];
    if (iteration < 0 || loop_iter_key(branch, key) < 0) {
        run_fold_flush(f);
        return 0;
    }
    if (f->open.on && (strcmp(f->open.key, key) || f->open.iteration != iteration))
        close_open(f);
    if (!f->open.on) {
        f->open.on = 1;
        snprintf(f->open.key, sizeof f->open.key, "%s", key);
        f->open.iteration = iteration;
        f->open.from = f->s->nevents;
    }
    update_held(f);
    f->saved = f->s->arena;
    f->s->arena = f->open.mem;
    f->swapped = 1;
    return 1;
}

int run_fold_enter(run_fold *f, int64_t ki)
{
    if (!f || !f->open.on || f->swapped)
        return 0;
    session *s = f->s;
    if (f->open.from >= s->nevents || s->events[f->open.from]->kind != EV_KERNEL ||
        ki < s->events[f->open.from]->u.kernel.index)
        return 0;
    f->saved = s->arena;
    s->arena = f->open.mem;
    f->swapped = 1;
    return 1;
}

void run_fold_leave(run_fold *f)
{
    if (!f || !f->swapped)
        return;
    f->open.mem = f->s->arena;
    f->s->arena = f->saved;
    f->swapped = 0;
    update_held(f);
}

void run_fold_mark(run_fold *f)
{
    if (f && f->open.on)
        f->open.marked = 1;
}

uint64_t run_fold_take_dropped(run_fold *f)
{
    uint64_t n = f ? f->dropped : 0;
    if (f)
        f->dropped = 0;
    return n;
}

void run_fold_flush(run_fold *f)
{
    if (!f)
        return;
    close_open(f);
    end_fold(f);
    update_held(f);
}
