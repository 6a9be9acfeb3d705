/* route_load.c — see route_load.h. */
#define _GNU_SOURCE   /* tdestroy, twalk_r */
#include "route_load.h"
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hunts.h"
#include "route_event.h"
#include "session_copy.h"
#include "session_read.h"
#include "compat.h"

#define DEFAULT_STEP 512

typedef struct {
    uint64_t pos;   /* the event's place in the file */
    event *e;       /* the copy, in rl->keep */
} kept_event;

typedef struct {
    char *name;
    int64_t last;   /* index of the file's last kernel of that name */
} name_last;

struct route_loaded {
    char *path;
    size_t step;
    session *keep;          /* the copies */
    kept_event *kept;
    size_t nkept, cap_kept;
    void *names;            /* tsearch tree of name_last */
    size_t nkernels;        /* kernels in the file */
    int64_t *want;          /* kernel indices to copy when they come */
    size_t nwant, cap_want;
    route_progress progress;   /* fn NULL: none */
};

/* ---- small sets ----------------------------------------------------------- */

static int has_kept(const route_loaded *rl, int64_t index) { return session_kernel_event(rl->keep, index) != NULL; }

/* Adds index to the kernels to copy (the first pass wants one or two; a
 * fetch sorts them first). */
static void want(route_loaded *rl, int64_t index)
{
    if (index < 0 || has_kept(rl, index))
        return;
    if (rl->nwant == rl->cap_want) {
        rl->cap_want = rl->cap_want ? 2 * rl->cap_want : 8;
        rl->want = xrealloc(rl->want, rl->cap_want * sizeof *rl->want);
    }
    rl->want[rl->nwant++] = index;
}

/* 1 (and no longer wanted) when index was wanted: the first pass's few wants, in any order. */
static int take_want(route_loaded *rl, int64_t index)
{
    for (size_t i = 0; i < rl->nwant; i++)
        if (rl->want[i] == index) {
            rl->want[i] = rl->want[--rl->nwant];
            return 1;
        }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void keep_event(route_loaded *rl, const event *e, uint64_t pos)
{
    if (rl->nkept == rl->cap_kept) {
        rl->cap_kept = rl->cap_kept ? 2 * rl->cap_kept : 64;
        rl->kept = xrealloc(rl->kept, rl->cap_kept * sizeof *rl->kept);
    }
    rl->kept[rl->nkept++] = (kept_event){pos, session_copy_event(rl->keep, e)};
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(((const name_last *)a)->name, ((const name_last *)b)->name);
}

static void note_name(route_loaded *rl, const kernel_event *ke)
{
    name_last key = {.name = (char *)ke->name};
    name_last **hit = tfind(&key, &rl->names, name_cmp);
    if (hit) {
        (*hit)->last = ke->index;
        return;
    }
    name_last *n = xmalloc(sizeof *n);
    n->name = xstrdup(ke->name);
    n->last = ke->index;
    if (!tsearch(n, &rl->names, name_cmp))
        abort();   /* tsearch fails only for want of memory, as xmalloc aborts */
}

static void want_last(const void *node, VISIT v, void *rl)
{
    if (v == postorder || v == leaf)
        want(rl, (*(name_last *const *)node)->last);
}

static void free_name(void *p)
{
    name_last *n = p;
    free(n->name);
    free(n);
}

/* ---- reading -------------------------------------------------------------- */

/* Called with each slice's events (pos: the first one's place in the file);
 * returns 1 to stop reading. */
typedef int (*slice_fn)(route_loaded *rl, void *ctx, event *const *ev, size_t n, uint64_t pos);

/* Reads rl->path a slice at a time; *header (when not NULL) takes the
 * reader's session at the end: the header and the last slice's events. */
static int read_slices(route_loaded *rl, const char *what, slice_fn fn, void *ctx, session **header, strbuf *err)
{
    session_reader *r = NULL;
    if (session_reader_open(rl->path, &r, err))
        return -1;
    uint64_t pos = 0;
    int rc;
    for (;;) {
        rc = session_reader_step(r, rl->step, err);
        if (rc < 0)
            break;
        const session *s = session_reader_session(r);
        int stop = fn(rl, ctx, s->events, s->nevents, pos);
        if (rl->progress.fn) {
            uint64_t done, total;
            session_reader_progress(r, &done, &total);
            rl->progress.fn(rl->progress.ctx, what, stop || rc == 0 ? total : done, total);
        }
        pos += s->nevents;
        if (stop || rc == 0)
            break;
        session_reader_forget(r);
    }
    if (rc >= 0 && header)
        *header = session_reader_take(r);
    session_reader_close(r);
    return rc < 0 ? -1 : 0;
}

/* What the first read has seen. */
typedef struct {
    int seen_nan_event, seen_failed, seen_nan_status;
    int64_t error_kernel;   /* the kernel the first error naming one names (route_event.c), -1 none */
    int64_t hit;            /* hunt_nan's kernel, -1 none yet */
    const event *hit_copy;  /* its copy */
} first_pass;

static int first_slice(route_loaded *rl, void *ctx, event *const *ev, size_t n, uint64_t pos)
{
    first_pass *p = ctx;
    for (size_t i = 0; i < n; i++) {   /* an event may name a kernel before it in this slice */
        const event *e = ev[i];
        if (e->kind == EV_ERROR && p->error_kernel < 0 && e->u.error.kernel_index >= 0) {
            p->error_kernel = e->u.error.kernel_index;
            want(rl, p->error_kernel);
        } else if (e->kind == EV_NAN && !p->seen_nan_event) {
            p->seen_nan_event = 1;
            want(rl, e->u.nan.kernel_index);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const event *e = ev[i];
        if (e->kind != EV_KERNEL) {
            keep_event(rl, e, pos + i);
            continue;
        }
        const kernel_event *ke = &e->u.kernel;
        rl->nkernels++;
        note_name(rl, ke);
        int keep = take_want(rl, ke->index);
        if (ke->status == KSTAT_ERROR && !p->seen_failed)
            keep = p->seen_failed = 1;
        if (ke->status == KSTAT_NAN && !p->seen_nan_status)
            keep = p->seen_nan_status = 1;
        hunt_hit h;
        int hit = p->hit < 0 && hunt_nan_kernel(ke, 0, &h);
        if (hit)
            p->hit = ke->index;
        if (keep || hit)
            keep_event(rl, e, pos + i);
        if (hit)
            p->hit_copy = rl->kept[rl->nkept - 1].e;
    }
    return 0;
}

/* hunt_producer_of for each tensor of the hunt's kernel: the last earlier
 * kernel with an after-tensor of its name, else the last that wrote the
 * same data. */
typedef struct {
    const kernel_event *hit;
    int64_t *by_name, *by_data;   /* one each per tensor of hit */
} producers;

static int producer_slice(route_loaded *rl, void *ctx, event *const *ev, size_t n, uint64_t pos)
{
    (void)rl, (void)pos;
    producers *p = ctx;
    for (size_t i = 0; i < n; i++) {
        if (ev[i]->kind != EV_KERNEL)
            continue;
        const kernel_event *ke = &ev[i]->u.kernel;
        if (ke->index >= p->hit->index)
            return 1;
        for (size_t j = 0; j < ke->ntensors; j++) {
            const tensor_rec *o = &ke->tensors[j];
            if (o->phase != PHASE_AFTER)
                continue;
            int written = -1;   /* hunt_written, asked once a tensor */
            for (size_t t = 0; t < p->hit->ntensors; t++) {
                const tensor_rec *x = &p->hit->tensors[t];
                if (!strcmp(o->name, x->name))
                    p->by_name[t] = ke->index;
                if (written < 0)
                    written = hunt_written(ke, o);
                if (written && hunt_same_data(o, x))
                    p->by_data[t] = ke->index;
            }
        }
    }
    return 0;
}

/* A fetch: rl->want sorted and unique; found counts the copies. */
typedef struct {
    size_t found;
} fetching;

static int fetch_slice(route_loaded *rl, void *ctx, event *const *ev, size_t n, uint64_t pos)
{
    fetching *f = ctx;
    for (size_t i = 0; i < n; i++)
        if (ev[i]->kind == EV_KERNEL &&
            bsearch(&ev[i]->u.kernel.index, rl->want, rl->nwant, sizeof *rl->want, cmp_i64)) {
            keep_event(rl, ev[i], pos + i);
            f->found++;
        }
    return f->found == rl->nwant;
}

static int by_pos(const void *a, const void *b)
{
    uint64_t x = ((const kept_event *)a)->pos, y = ((const kept_event *)b)->pos;
    return (x > y) - (x < y);
}

/* s's events: the copies, in file order (s is the reader's header, or rl->keep). */
static void place(route_loaded *rl, session *s)
{
    if (rl->nkept)   /* an empty session's list is NULL, which qsort must not see */
        qsort(rl->kept, rl->nkept, sizeof *rl->kept, by_pos);
    event **ev = xmalloc((rl->nkept ? rl->nkept : 1) * sizeof *ev);
    for (size_t i = 0; i < rl->nkept; i++)
        ev[i] = rl->kept[i].e;
    session_set_events(s, ev, rl->nkept);
    free(ev);
}

/* Copies what is wanted (and not yet kept: want() checks), then wants nothing. */
static int fetch(route_loaded *rl, strbuf *err)
{
    if (!rl->nwant)
        return 0;
    qsort(rl->want, rl->nwant, sizeof *rl->want, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < rl->nwant; i++)
        if (!u || rl->want[u - 1] != rl->want[i])
            rl->want[u++] = rl->want[i];
    rl->nwant = u;
    fetching f = {0};
    int rc = read_slices(rl, "fetching kernels", fetch_slice, &f, NULL, err);
    rl->nwant = 0;   /* found, or indices the file does not have */
    if (f.found)
        place(rl, rl->keep);   /* its kernels in index order again, for session_kernel_event */
    return rc;
}

int route_session_load(const char *path, size_t step, const char *package, const route_progress *progress,
                       session **out, route_loaded **rlp, strbuf *err)
{
    *out = NULL;
    *rlp = NULL;
    route_loaded *rl = xcalloc(1, sizeof *rl);
    rl->path = xstrdup(path);
    rl->step = step ? step : DEFAULT_STEP;
    rl->keep = session_new();
    if (progress)
        rl->progress = *progress;
    first_pass p = {.hit = -1, .error_kernel = -1};
    session *s = NULL;
    if (read_slices(rl, "reading", first_slice, &p, &s, err))
        goto fail;
    if (p.hit >= 0 && !p.seen_nan_event) {   /* the nan route walks back from the hunt's kernel */
        const kernel_event *hit = &p.hit_copy->u.kernel;
        size_t nt = hit->ntensors ? hit->ntensors : 1;
        producers pr = {hit, xmalloc(nt * sizeof(int64_t)), xmalloc(nt * sizeof(int64_t))};
        for (size_t t = 0; t < hit->ntensors; t++)
            pr.by_name[t] = pr.by_data[t] = -1;
        int rc = read_slices(rl, "finding the producers", producer_slice, &pr, NULL, err);
        for (size_t t = 0; !rc && t < hit->ntensors; t++)
            want(rl, pr.by_name[t] >= 0 ? pr.by_name[t] : pr.by_data[t]);
        free(pr.by_name);
        free(pr.by_data);
        if (rc)
            goto fail;
    }
    if (fetch(rl, err))
        goto fail;
    /* with a package to read, oob_element.c goes by an assert's kernel name when no error names a launch */
    if ((package || router_session_package(s)) && !session_kernel_event(rl->keep, p.error_kernel)) {
        twalk_r(rl->names, want_last, rl);
        if (fetch(rl, err))
            goto fail;
    }
    place(rl, s);
    *out = s;
    *rlp = rl;
    return 0;
fail:
    session_free(s);
    route_loaded_free(rl);
    return -1;
}

void route_loaded_counts(const route_loaded *rl, size_t *kept, size_t *kernels)
{
    *kept = rl->keep->nkernels;
    *kernels = rl->nkernels;
}

void route_loaded_free(route_loaded *rl)
{
    if (!rl)
        return;
    free(rl->path);
    free(rl->kept);
    free(rl->want);
    tdestroy(rl->names, free_name);
    session_free(rl->keep);
    free(rl);
}
