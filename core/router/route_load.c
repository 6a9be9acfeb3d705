/* route_load.c — see route_load.h. */
#define _GNU_SOURCE   /* tdestroy, twalk_r */
#include "route_load.h"
#include <fcntl.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
    const session *mem;     /* route_session_picks: the session read instead of path */
    int indexed;            /* read by the file's index: key */
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

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
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
    if (rl->mem) {   /* one slice: the whole session in memory */
        fn(rl, ctx, rl->mem->events, rl->mem->nevents, 0);
        return 0;
    }
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

/* Keeps in rl what the router reads (route_load.h). all_names: the last
 * launch of each name whether a route will need them or not (an index
 * serves every --package). *hdr (file reads): the first read's header. */
static int pick(route_loaded *rl, const char *package, int all_names, session **hdr, strbuf *err)
{
    first_pass p = {.hit = -1, .error_kernel = -1};
    session *s = NULL;
    if (read_slices(rl, "reading", first_slice, &p, rl->mem ? NULL : &s, err))
        return -1;
    *hdr = s;
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
            return -1;
    }
    if (fetch(rl, err))
        return -1;
    /* with a package to read, oob_element.c goes by an assert's kernel name when no error names a launch */
    if (all_names ||
        ((package || router_session_package(s)) && !session_kernel_event(rl->keep, p.error_kernel))) {
        twalk_r(rl->names, want_last, rl);
        if (fetch(rl, err))
            return -1;
    }
    return 0;
}

/* At most this much is read by an index (a bigger claim is read as the
 * whole file is, a slice at a time: memory stays bounded either way). */
#define INDEX_READ_MAX (256u << 20)

/* The event at off of fd, len bytes, appended to doc; -1 when it is not
 * where an event's lines are (a list item from a line's start to one's end). */
static int index_event(int fd, uint64_t off, uint64_t len, strbuf *doc)
{
    char c;
    if (len < 5 || pread(fd, &c, 1, (off_t)off - 1) != 1 || c != '\n')
        return -1;
    size_t start = doc->len;
    strbuf_grow(doc, (size_t)len);
    for (uint64_t got = 0; got < len;) {
        ssize_t n = pread(fd, doc->buf + start + got, (size_t)(len - got), (off_t)(off + got));
        if (n <= 0)
            return -1;
        got += (uint64_t)n;
    }
    doc->len = start + (size_t)len;
    doc->buf[doc->len] = 0;
    return !memcmp(doc->buf + start, "- {", 3) && doc->buf[doc->len - 1] == '\n' ? 0 : -1;
}

/* The route read by the file's index: key (model.h event_index): 1 and
 * *out with rl keeping the listed events alone; 0 and nothing kept when the
 * file has no index or one that does not fit it (another size, a place
 * that is not an event of the events list, events that do not parse alone),
 * so the caller reads the whole file. */
static int read_indexed(route_loaded *rl, session **out)
{
    strbuf e = STRBUF_INIT, doc = STRBUF_INIT;
    session_reader *r = NULL;
    session *s = NULL, *ev = NULL;
    int fd = -1, ok = 0;
    if (session_reader_open(rl->path, &r, &e))
        goto done;
    const session *h = session_reader_session(r);
    if (session_reader_done(r) || !h->index.nat || h->index.nlen != h->index.nat || h->counts.events < 0 ||
        h->counts.kernels < 0 || h->nwarnings || h->index.nat > (size_t)h->counts.events)
        goto done;
    s = session_reader_take(r);
    struct stat st;
    fd = open(rl->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != s->index.bytes)
        goto done;
    strbuf_addf(&doc, "format_version: \"%d.%d\"\nevents:\n", s->format_major, s->format_minor);
    for (size_t j = 0; j < s->index.nat; j++) {   /* in order, apart, inside the file */
        double a = s->index.at[j], n = s->index.len[j], end = j ? s->index.at[j - 1] + s->index.len[j - 1] : 1;
        if (!(a >= end && n >= 1 && a + n <= (double)s->index.bytes && a == (double)(uint64_t)a &&
              n == (double)(uint64_t)n && doc.len + n <= INDEX_READ_MAX) ||
            index_event(fd, (uint64_t)a, (uint64_t)n, &doc))
            goto done;
    }
    if (session_load_mem(rl->path, doc.buf, doc.len, &ev, &e) || ev->nevents != s->index.nat || ev->truncated ||
        ev->nwarnings)
        goto done;
    for (size_t j = 0; j < ev->nevents; j++)
        keep_event(rl, ev->events[j], (uint64_t)s->index.at[j]);
    rl->nkernels = (size_t)s->counts.kernels;
    rl->indexed = ok = 1;
    *out = s;
    s = NULL;
done:
    if (fd >= 0)
        close(fd);
    session_reader_close(r);
    session_free(s);
    session_free(ev);
    strbuf_release(&doc);
    strbuf_release(&e);
    return ok;
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
    session *s = NULL;
    if (!read_indexed(rl, &s) && pick(rl, package, 0, &s, err)) {
        session_free(s);
        route_loaded_free(rl);
        return -1;
    }
    place(rl, s);
    *out = s;
    *rlp = rl;
    return 0;
}

void route_session_picks(const session *s, size_t **at, size_t *n)
{
    route_loaded *rl = xcalloc(1, sizeof *rl);
    rl->mem = s;
    rl->keep = session_new();
    session *none = NULL;
    (void)pick(rl, NULL, 1, &none, NULL);   /* from memory: nothing to fail */
    *n = rl->nkept;
    *at = xmalloc((*n ? *n : 1) * sizeof **at);
    for (size_t i = 0; i < *n; i++)
        (*at)[i] = (size_t)rl->kept[i].pos;
    qsort(*at, *n, sizeof **at, cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (!u || (*at)[u - 1] != (*at)[i])
            (*at)[u++] = (*at)[i];
    *n = u;
    route_loaded_free(rl);
}

int route_loaded_indexed(const route_loaded *rl) { return rl->indexed; }

void route_loaded_counts(const route_loaded *rl, size_t *kept, size_t *kernels)
{
    *kept = rl->keep->nkernels;
    *kernels = rl->nkernels;
}

void route_loaded_free(route_loaded *rl)
{
    if (!rl)
        return;
    free(rl->path);   /* NULL for route_session_picks */
    free(rl->kept);
    free(rl->want);
    tdestroy(rl->names, free_name);
    session_free(rl->keep);
    free(rl);
}
