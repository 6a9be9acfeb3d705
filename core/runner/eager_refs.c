/* eager_refs.c — kernel outputs against the eager reference (eager_refs.h). */
#define _GNU_SOURCE
#include "eager_refs.h"
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_stats.h"
#include "tensor_close.h"
#include "tensor_read.h"
#include "torch_abi.h"

#define CHUNK 4096            /* elements compared at a time */
#define MAX_CANDIDATES 4096   /* (reference, tensor) pairs one kernel keeps */
#define MAX_BEFORE 1024       /* before-tensors one kernel remembers */

typedef struct {
    char *kernel, *node, *path;
    char *tensor;             /* the one tensor that holds it (the compiler's record); "" any of its shape */
    char *path64;             /* its float64 value ("" none) */
    uint64_t offset64;
    uint32_t occurrence;
    uint64_t offset;
    dtype_kind kind;          /* of the file's data */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    double atol, rtol;        /* < 0: the tensor dtype's default, atol at least rtol * scale */
    double scale;             /* the node's largest finite |value| */
    size_t node_id;           /* the first ref of the same node (begin_run) */
} eref;

typedef struct {
    size_t ref;               /* index into refs */
    char tensor[128];
    int written;              /* its values changed (or it had no before) */
    int failed;               /* could not be read: note holds why */
    char note[160];
    close_result r;
    /* beyond the tolerance with a float64 value: the RMS errors against it of the tensor and of eager */
    int has64;
    double err64, eager_err64, fmax64;   /* largest errors against float64; largest |float64 value| */
    double eps;                          /* the tensor dtype's machine epsilon */
    int low_precision;        /* the tensor is float16 or bfloat16 */
} candidate;

typedef struct {
    char name[128];
    tensor_stats st;
    int has_stats;
} before_rec;

/* One reference's candidates: the one that holds it (ok), the one it would be blamed on (bad),
 * or one that could not be read (failed). */
typedef struct {
    const candidate *ok, *bad, *failed;
} ref_pick;

static struct {
    eref *refs;
    size_t n, cap;
    int sorted;
    uint32_t *seen;           /* per ref: launches of its kernel so far (kept on its name's first ref) */
    int64_t *held_at;         /* per node_id: the kernel whose output held it when it finished, -1 none yet */
    size_t *next_same;        /* per ref: the next ref of the same node, E.n none (node_ids) */
    struct deferred {         /* a node that departed where a later launch computes it too (later_ref) */
        size_t node_id;
        int64_t k;            /* the kernel it departed in */
        candidate c;          /* the output it departed in */
    } *deferred;
    size_t ndeferred, capdeferred;
    char *deferred_here;      /* per ref of the current launch: it had a deferred departure when it finished */
    /* the current launch */
    size_t lo, hi;            /* its references: refs[lo..hi) */
    int active;
    candidate *cand;
    size_t ncand;
    before_rec *before;
    size_t nbefore;
    /* eref_kernel_finish's scratch: a pick per reference, the tensors references matched */
    ref_pick *picks;
    size_t cap_picks;
    const char **held_names;
    size_t cap_held;
} E;

static char *xstrdup(const char *s)
{
    char *r = strdup(s ? s : "");
    if (!r) abort();
    return r;
}

int eref_add(const proto_msg *m, strbuf *err)
{
    const __typeof__(m->u.reference) *r = &m->u.reference;
    if (E.n >= EREF_MAX) {
        strbuf_addf(err, "more than %d eager references", EREF_MAX);
        return -1;
    }
    dtype_kind k;
    if (stats_kind_by_name(r->dtype, &k)) {
        strbuf_addf(err, "reference %s: dtype '%s' is not one the runner reads", r->node, r->dtype);
        return -1;
    }
    if (!r->kernel[0] || !r->node[0] || !r->path[0] || r->ndim < 0 || r->ndim > TENSOR_MAX_DIMS) {
        strbuf_addstr(err, "a REFERENCE without a kernel, node or file");
        return -1;
    }
    for (int d = 0; d < r->ndim; d++)
        if (r->shape[d] < 0) {
            strbuf_addf(err, "reference %s: negative size in its shape", r->node);
            return -1;
        }
    if (E.n == E.cap) {
        E.cap = E.cap ? E.cap * 2 : 64;
        eref *n = realloc(E.refs, E.cap * sizeof *n);
        if (!n) abort();
        E.refs = n;
    }
    eref *e = &E.refs[E.n++];
    memset(e, 0, sizeof *e);
    e->kernel = xstrdup(r->kernel);
    e->node = xstrdup(r->node);
    e->path = xstrdup(r->path);
    e->tensor = xstrdup(r->tensor);
    e->path64 = xstrdup(r->path64);
    e->offset64 = r->offset64;
    e->occurrence = r->occurrence;
    e->offset = r->offset;
    e->kind = k;
    e->ndim = r->ndim;
    memcpy(e->shape, r->shape, (size_t)r->ndim * sizeof *e->shape);
    e->atol = r->atol;
    e->rtol = r->rtol;
    e->scale = r->scale >= 0 && r->scale < 1e300 ? r->scale : 0;
    E.sorted = 0;
    return 0;
}

/* By kernel name, then occurrence, then arrival (a stable order for COMPAREs). */
static int by_launch(const void *a, const void *b)
{
    const eref *x = a, *y = b;
    int c = strcmp(x->kernel, y->kernel);
    if (c) return c;
    if (x->occurrence != y->occurrence) return x->occurrence < y->occurrence ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int by_node(const void *a, const void *b)
{
    const eref *x = &E.refs[*(const size_t *)a], *y = &E.refs[*(const size_t *)b];
    int c = strcmp(x->node, y->node);
    return c ? c : *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Refs of one node (a library call names the nodes its input's kernel fused too) share an id. */
static void node_ids(void)
{
    size_t *ix = malloc(E.n * sizeof *ix);
    free(E.held_at);
    E.held_at = malloc(E.n * sizeof *E.held_at);
    if (!ix || !E.held_at) abort();
    for (size_t i = 0; i < E.n; i++) ix[i] = i;
    qsort(ix, E.n, sizeof *ix, by_node);
    for (size_t i = 0; i < E.n; i++)
        E.refs[ix[i]].node_id = i && !strcmp(E.refs[ix[i]].node, E.refs[ix[i - 1]].node) ? E.refs[ix[i - 1]].node_id
                                                                                          : ix[i];
    free(E.next_same);
    E.next_same = malloc(E.n * sizeof *E.next_same);
    if (!E.next_same) abort();
    for (size_t i = 0; i < E.n; i++)
        E.next_same[ix[i]] = i + 1 < E.n && E.refs[ix[i + 1]].node_id == E.refs[ix[i]].node_id ? ix[i + 1] : E.n;
    free(ix);
}

void eref_begin_run(void)
{
    if (!E.sorted && E.n) {
        /* qsort is not stable: number them first so arrival order breaks ties */
        eref *tmp = malloc(E.n * sizeof *tmp);
        if (!tmp) abort();
        memcpy(tmp, E.refs, E.n * sizeof *tmp);
        qsort(tmp, E.n, sizeof *tmp, by_launch);
        memcpy(E.refs, tmp, E.n * sizeof *tmp);
        free(tmp);
        E.sorted = 1;
        free(E.seen);
        E.seen = calloc(E.n, sizeof *E.seen);
        if (!E.seen) abort();
        node_ids();
    }
    if (E.seen) memset(E.seen, 0, E.n * sizeof *E.seen);
    E.ndeferred = 0;
    for (size_t i = 0; E.held_at && i < E.n; i++) E.held_at[i] = -1;
    E.active = 0;
}

/* The first reference of kernel `name`, or E.n. */
static size_t first_of(const char *name)
{
    size_t lo = 0, hi = E.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(E.refs[mid].kernel, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < E.n && !strcmp(E.refs[lo].kernel, name) ? lo : E.n;
}

void eref_kernel_start(const char *name, const char *branch)
{
    E.active = 0;
    E.ncand = E.nbefore = 0;
    if (!E.n || (branch && *branch)) return;
    size_t f = first_of(name);
    if (f == E.n) return;
    uint32_t occ = E.seen[f]++;
    size_t lo = f;
    while (lo < E.n && !strcmp(E.refs[lo].kernel, name) && E.refs[lo].occurrence < occ) lo++;
    size_t hi = lo;
    while (hi < E.n && !strcmp(E.refs[hi].kernel, name) && E.refs[hi].occurrence == occ) hi++;
    if (hi == lo) return;
    E.lo = lo;
    E.hi = hi;
    E.active = 1;
}

int eref_active(void) { return E.active; }

void eref_before(const tensor_rec *t)
{
    if (!E.active || E.nbefore >= MAX_BEFORE) return;
    if (!E.before) {
        E.before = calloc(MAX_BEFORE, sizeof *E.before);
        if (!E.before) abort();
    }
    before_rec *b = &E.before[E.nbefore++];
    snprintf(b->name, sizeof b->name, "%s", t->name);
    b->st = t->stats;
    b->has_stats = t->has_stats;
}

static int same_stats(const tensor_stats *a, const tensor_stats *b)
{
    return a->numel == b->numel && a->finite == b->finite && a->nan == b->nan && a->posinf == b->posinf &&
           a->neginf == b->neginf && a->zeros == b->zeros && !memcmp(&a->min, &b->min, sizeof a->min) &&
           !memcmp(&a->max, &b->max, sizeof a->max) && !memcmp(&a->mean, &b->mean, sizeof a->mean) &&
           !memcmp(&a->std, &b->std, sizeof a->std);
}

/* It wrote t: no before-tensor of that name, or one with other statistics. */
static int was_written(const tensor_rec *t)
{
    for (size_t i = 0; i < E.nbefore; i++)
        if (!strcmp(E.before[i].name, t->name))
            return !(E.before[i].has_stats && t->has_stats && same_stats(&E.before[i].st, &t->stats));
    return 1;
}

/* t holds e's value element for element in row-major order: the same shape, or a
 * contiguous view of the same storage with as many elements (an addmm writing a
 * [256, 768] view of a [2, 128, 768] node, reinterpret_tensor of any rank). */
static int same_layout(const eref *e, const tensor_rec *t)
{
    int same = e->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++)
        same = e->shape[d] == t->shape[d];
    if (same) return 1;
    uint64_t ne = 1, nt = 1;
    for (int d = 0; d < e->ndim; d++) ne *= (uint64_t)e->shape[d];
    for (int d = 0; d < t->ndim; d++) nt *= (uint64_t)t->shape[d];
    if (ne != nt || !t->strides) return 0;
    int64_t want = 1;
    for (int d = t->ndim; d-- > 0;) {
        if (t->shape[d] != 1 && t->strides[d] != want) return 0;
        want *= t->shape[d];
    }
    return 1;
}

/* The whole buffer of t, a CPU view of part of one, when it holds exactly e's elements (a cat
 * Inductor writes slice by slice into one buffer: block_diag, cartesian_prod, torch.cat):
 * its first element, with *view laid out as e (contiguous, strides in cstr); NULL otherwise. */
static void *whole_buffer(const eref *e, AtenTensorHandle h, const tensor_rec *t, const dtype_entry *dt,
                          tensor_rec *view, int64_t *cstr)
{
    int64_t nbytes = 0, off = 0;
    void *p = NULL;
    if (!dt || strcmp(t->device, "cpu") || aoti_torch_get_storage_size(h, &nbytes) ||
        aoti_torch_get_storage_offset(h, &off) || aoti_torch_get_data_ptr(h, &p) || !p)
        return NULL;
    uint64_t ne = 1, nt = 1;
    for (int d = 0; d < e->ndim; d++) ne *= (uint64_t)e->shape[d];
    for (int d = 0; d < t->ndim; d++) nt *= (uint64_t)t->shape[d];
    size_t isz = stats_kind_size(dt->kind);
    if (!ne || nt >= ne || off < 0 || (uint64_t)nbytes != ne * isz) return NULL;
    *view = *t;
    view->ndim = e->ndim;
    view->shape = (int64_t *)e->shape;
    int64_t want = 1;
    for (int d = e->ndim; d-- > 0;) {
        cstr[d] = want;
        want *= e->shape[d];
    }
    view->strides = cstr;
    return (char *)p - (size_t)off * isz;
}

/* n elements of kind k at byte at of fd into out (as doubles); -1 with note. */
static int read_ref(int fd, const char *path, dtype_kind k, uint64_t at, size_t n, unsigned char *raw, double *out,
                    char *note, size_t nnote)
{
    size_t bytes = n * stats_kind_size(k), got = 0;
    while (got < bytes) {
        ssize_t m = pread(fd, raw + got, bytes - got, (off_t)(at + got));
        if (m < 0 && errno == EINTR) continue;
        if (m <= 0) {
            snprintf(note, nnote, "%s: read failed at byte %llu", path, (unsigned long long)(at + got));
            return -1;
        }
        got += (size_t)m;
    }
    int64_t nn = (int64_t)n, one = 1;
    return stats_read(raw, k, 1, &nn, &one, 0, out, n) ? (snprintf(note, nnote, "%s: unreadable elements", path), -1)
                                                       : 0;
}

static int open_ref(const char *path, uint64_t offset, size_t isz, uint64_t numel, char *note, size_t nnote)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(note, nnote, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0) close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size < offset || ((uint64_t)st.st_size - offset) / isz < numel) {
        snprintf(note, nnote, "%s holds %lld bytes, fewer than %llu elements at byte %llu", path,
                 (long long)st.st_size, (unsigned long long)numel, (unsigned long long)offset);
        close(fd);
        return -1;
    }
    return fd;
}

/* The largest errors against e's float64 value of the tensor (host data, strided) and of eager's
 * value, and the largest |float64 value|: the yardstick of a kernel beyond the tolerance (the
 * float64 reference of torch's accuracy checks, with torchtitan's max-error gate: a change to a
 * few elements is not averaged away). */
static int against_float64(const eref *e, const void *data, dtype_kind k, const tensor_rec *t, double *err,
                           double *eager_err, double *fmax, char *note, size_t nnote)
{
    uint64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)t->shape[d];
    int fw = open_ref(e->path, e->offset, stats_kind_size(e->kind), numel, note, nnote);
    int ff = fw < 0 ? -1 : open_ref(e->path64, e->offset64, 8, numel, note, nnote);
    if (ff < 0) {
        if (fw >= 0) close(fw);
        return -1;
    }
    static unsigned char raw[CHUNK * 8];
    double g[CHUNK], w[CHUNK], f[CHUNK], mg = 0, mw = 0, mf = 0;
    int rc = 0;
    for (uint64_t done = 0; done < numel && !rc;) {
        size_t n = numel - done < CHUNK ? (size_t)(numel - done) : CHUNK;
        rc = stats_read(data, k, t->ndim, t->shape, t->strides, done, g, n) ||
             read_ref(fw, e->path, e->kind, e->offset + done * stats_kind_size(e->kind), n, raw, w, note, nnote) ||
             read_ref(ff, e->path64, DK_F64, e->offset64 + done * 8, n, raw, f, note, nnote);
        for (size_t i = 0; i < n && !rc; i++) {
            if (isnan(f[i]) && isnan(g[i]) && isnan(w[i])) continue;   /* the same NaN everywhere */
            if (isinf(f[i]) && g[i] == f[i] && w[i] == f[i]) continue;  /* the same infinity */
            double a = fabs(g[i] - f[i]), b = fabs(w[i] - f[i]);
            mg = isnan(a) || a > mg ? (isnan(a) ? INFINITY : a) : mg;
            mw = isnan(b) || b > mw ? (isnan(b) ? INFINITY : b) : mw;
            if (isfinite(f[i]) && fabs(f[i]) > mf) mf = fabs(f[i]);
        }
        done += n;
    }
    close(fw);
    close(ff);
    if (rc) return -1;
    *err = mg;
    *eager_err = mw;
    *fmax = mf;
    return 0;
}

/* Compares host data (strided) with the reference file, chunk by chunk. */
static int compare_file(const eref *e, const void *data, dtype_kind k, const tensor_rec *t, close_result *r,
                        char *note, size_t nnote)
{
    if (stats_kind_lanes(k) != 1 || stats_kind_lanes(e->kind) != 1) {   /* the rule is for real numbers */
        snprintf(note, nnote, "%s is complex: not compared with eager element by element", t->name);
        return -1;
    }
    uint64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)t->shape[d];
    size_t isz = stats_kind_size(e->kind);
    int fd = open_ref(e->path, e->offset, isz, numel, note, nnote);
    if (fd < 0) return -1;
    static unsigned char raw[CHUNK * 8];
    double g[CHUNK], w[CHUNK];
    for (uint64_t done = 0; done < numel;) {
        size_t n = numel - done < CHUNK ? (size_t)(numel - done) : CHUNK;
        if (read_ref(fd, e->path, e->kind, e->offset + done * isz, n, raw, w, note, nnote)) {
            close(fd);
            return -1;
        }
        if (stats_read(data, k, t->ndim, t->shape, t->strides, done, g, n)) {
            snprintf(note, nnote, "could not read the elements of %s", t->name);
            close(fd);
            return -1;
        }
        close_add(r, g, w, n);
        done += n;
    }
    close(fd);
    return 0;
}

void eref_after(AtenTensorHandle h, const tensor_rec *t)
{
    if (!E.active) return;
    const dtype_entry *dt = tabi_dtype_by_name(t->dtype);
    int written = was_written(t);
    AtenTensorHandle host = NULL;
    void *data = NULL;
    int tried_data = 0;
    tensor_rec view = *t;   /* how the data is laid out: t's, or a contiguous host copy's */
    int64_t cstr[TENSOR_MAX_DIMS];
    char data_note[160] = "";
    for (size_t i = E.lo; i < E.hi && E.ncand < MAX_CANDIDATES; i++) {
        const eref *e = &E.refs[i];
        if (e->tensor[0] && strcmp(e->tensor, t->name)) continue;   /* the record names another tensor */
        if (!e->tensor[0] && E.held_at[e->node_id] >= 0) continue;
        tensor_rec wview;
        int64_t wstr[TENSOR_MAX_DIMS];
        void *whole = same_layout(e, t) ? NULL : whole_buffer(e, h, t, dt, &wview, wstr);
        if (!whole && !same_layout(e, t)) continue;
        if (!E.cand) {
            E.cand = calloc(MAX_CANDIDATES, sizeof *E.cand);
            if (!E.cand) abort();
        }
        candidate *c = &E.cand[E.ncand++];
        memset(c, 0, sizeof *c);
        c->ref = i;
        snprintf(c->tensor, sizeof c->tensor, "%s", t->name);
        c->written = written;
        c->low_precision = dt && (dt->kind == DK_F16 || dt->kind == DK_BF16);
        close_tol tol = dt ? close_scaled_tol(dt->kind, e->scale) : (close_tol){0, 0};
        if (e->atol >= 0) tol.atol = e->atol;   /* --tolerance: as given */
        if (e->rtol >= 0) tol.rtol = e->rtol;
        close_init(&c->r, tol);
        if (!tried_data) {   /* the tensor's data, once for all its references */
            tried_data = 1;
            strbuf err = STRBUF_INIT;
            uint64_t numel = 1;
            for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)t->shape[d];
            if (!dt) {
                snprintf(data_note, sizeof data_note, "%s: dtype %s is not one the runner compares", t->name,
                         t->dtype);
            } else if (!numel) {
                data = "";
            } else if (!strcmp(t->device, "cpu")) {
                if (aoti_torch_get_data_ptr(h, &data) || !data)
                    snprintf(data_note, sizeof data_note, "%s: no data pointer", t->name);
            } else {
                if (tread_host_copy(h, t, dt->code, cstr, &host, &err) ||
                    aoti_torch_get_data_ptr(host, &data) || !data) {
                    snprintf(data_note, sizeof data_note, "%s", err.len ? err.buf : "no host copy");
                    data = NULL;
                } else {
                    view.strides = cstr;
                }
            }
            strbuf_release(&err);
        }
        if (whole) {   /* the buffer t is part of, as the node's shape */
            if (compare_file(e, whole, dt->kind, &wview, &c->r, c->note, sizeof c->note)) c->failed = 1;
            continue;
        }
        if (!data) {
            c->failed = 1;
            snprintf(c->note, sizeof c->note, "%s", data_note);
            continue;
        }
        if (compare_file(e, data, dt->kind, &view, &c->r, c->note, sizeof c->note))
            c->failed = 1;
        else if (c->r.differing && e->path64[0]) {   /* beyond the tolerance: against float64 */
            char note[160];
            c->has64 = !against_float64(e, data, dt->kind, &view, &c->err64, &c->eager_err64, &c->fmax64, note,
                                        sizeof note);
            c->eps = dt->kind == DK_BF16 ? 0x1p-8 : dt->kind == DK_F16 ? 0x1p-10 : dt->kind == DK_F64 ? 0x1p-52
                     : 0x1p-23;
        }
    }
    if (host) aoti_torch_delete_tensor_object(host);
}

/* Fewer differing elements, then a smaller largest error. */
static int better(const candidate *a, const candidate *b)
{
    if (!b) return 1;
    if (a->r.differing != b->r.differing) return a->r.differing < b->r.differing;
    return a->r.max_abs < b->r.max_abs;
}

static int close_enough(const candidate *c) { return !c->failed && c->r.differing == 0; }

/* A tensor some reference of this kernel matched: it holds that node. */
static int claimed(const char *tensor)
{
    for (size_t j = 0; j < E.ncand; j++)
        if (close_enough(&E.cand[j]) && !strcmp(E.cand[j].tensor, tensor)) return 1;
    return 0;
}

int eref_holds_eager(const char *tensor) { return E.active && claimed(tensor); }

/* The picks of refs[E.lo..E.hi), once per kernel: one pass over the candidates in their order
 * (each reference's choice depends only on its own candidates, in that order). A candidate
 * is blamed only when it was written and no reference matched its tensor (claimed). */
static void pick_all(ref_pick *p)
{
    size_t nref = E.hi - E.lo;
    memset(p, 0, nref * sizeof *p);
    /* the tensors some reference matched: the close candidates' names */
    size_t nheld = 0;
    if (E.cap_held < E.ncand) {
        const char **n = realloc(E.held_names, E.ncand * sizeof *n);
        if (!n) abort();
        E.held_names = n;
        E.cap_held = E.ncand;
    }
    const char **held = E.held_names;
    for (size_t j = 0; j < E.ncand; j++)
        if (close_enough(&E.cand[j])) held[nheld++] = E.cand[j].tensor;
    for (size_t j = 0; j < E.ncand; j++) {
        const candidate *c = &E.cand[j];
        if (c->ref < E.lo || c->ref >= E.hi) continue;
        ref_pick *r = &p[c->ref - E.lo];
        if (c->failed) {
            if (!r->failed) r->failed = c;
        } else if (close_enough(c)) {
            if (!r->ok || (c->written && !r->ok->written)) r->ok = c;
        } else if (c->written && better(c, r->bad)) {
            int claimed_by_one = 0;
            for (size_t h = 0; h < nheld && !claimed_by_one; h++)
                claimed_by_one = !strcmp(held[h], c->tensor);
            if (!claimed_by_one) r->bad = c;
        }
    }
}

/* Compared in this kernel: not held by an earlier launch's output when it finished. Setting
 * held_at to k while the kernel finishes leaves this unchanged. */
static int live_here(size_t i, int64_t k)
{
    int64_t held = E.held_at[E.refs[i].node_id];
    return held < 0 || held == k;
}

/* How many references of this kernel, none of which it holds, would be blamed on tensor:
 * a fused kernel recomputes a chain of same-shaped nodes (a residual stream's adds) and
 * stores only one value, often one the plan does not name (the layer norm after them), so
 * two or more such references say the tensor holds none of them, not that all departed. */
static int blamed_on(const ref_pick *p, int64_t k, const char *tensor)
{
    int n = 0;
    for (size_t i = E.lo; i < E.hi; i++) {
        const ref_pick *r = &p[i - E.lo];
        if (E.deferred_here[i - E.lo]) continue;   /* an earlier kernel's output was its (later_ref) */
        n += live_here(i, k) && !r->ok && r->bad && !strcmp(r->bad->tensor, tensor);
    }
    return n;
}

/* Refs [lo, hi) compared here that no output holds and that would be blamed on an output:
 * when two or more would be blamed on one and the kernel wrote as many distinct such outputs
 * as there are of them (two 0-d results of one kernel, both departing), each gets its own,
 * best pairs first, instead of all being taken for another value (blamed_on). assigned[i - lo]:
 * the candidate, or NULL (the usual rule). Returns 1 when it assigned them. */
static int assign_distinct(const ref_pick *p, int64_t k, const candidate **assigned)
{
    size_t nref = 0, ntensor = 0, n = E.hi - E.lo;
    const char **tensors = calloc(E.ncand + 1, sizeof *tensors);
    const candidate **bads = calloc(n, sizeof *bads);
    char *taken = calloc(E.ncand + 1, 1);
    int collide = 0, done = 0;
    if (!tensors || !bads || !taken) abort();
    for (size_t i = E.lo; i < E.hi; i++) {
        assigned[i - E.lo] = NULL;
        int64_t held = E.held_at[E.refs[i].node_id];
        if (held >= 0 && held != k) continue;
        const candidate *ok = p[i - E.lo].ok, *bad = p[i - E.lo].bad;
        if (ok || !bad || E.deferred_here[i - E.lo]) continue;
        bads[i - E.lo] = bad;
        nref++;
        for (size_t j = E.lo; j < i; j++)
            collide |= bads[j - E.lo] && !strcmp(bads[j - E.lo]->tensor, bad->tensor);
        for (size_t j = 0; j < E.ncand; j++) {   /* the distinct outputs any of them may be blamed on */
            const candidate *c = &E.cand[j];
            if (c->ref != i || c->failed || close_enough(c) || !c->written || claimed(c->tensor)) continue;
            size_t t = 0;
            while (t < ntensor && strcmp(tensors[t], c->tensor)) t++;
            if (t == ntensor) tensors[ntensor++] = c->tensor;
        }
    }
    if (collide && nref >= 2 && ntensor >= nref) {
        for (size_t round = 0; round < nref; round++) {   /* the best (reference, output) pair left, each once */
            const candidate *best = NULL;
            size_t bt = 0;
            for (size_t j = 0; j < E.ncand; j++) {
                const candidate *c = &E.cand[j];
                if (c->ref < E.lo || c->ref >= E.hi || !bads[c->ref - E.lo] || assigned[c->ref - E.lo]) continue;
                if (c->failed || close_enough(c) || !c->written || claimed(c->tensor)) continue;
                size_t t = 0;
                while (t < ntensor && strcmp(tensors[t], c->tensor)) t++;
                if (t < ntensor && !taken[t] && better(c, best)) best = c, bt = t;
            }
            if (!best) break;
            assigned[best->ref - E.lo] = best;
            taken[bt] = 1;
        }
        done = 1;
    }
    free(tensors);
    free(bads);
    free(taken);
    return done;
}


/* A reference of node i's node for a launch still to come (another kernel, or a later launch of
 * this one), or NULL: a kernel that writes a partial result of a node a later kernel finishes
 * (a Welford reduction's sum of squares in the shape of the var that the next kernel divides). */
static const eref *later_ref(size_t i)
{
    for (size_t r = E.refs[i].node_id; r < E.n; r = E.next_same[r]) {
        if (r >= E.lo && r < E.hi) continue;
        size_t f = first_of(E.refs[r].kernel);
        if (f < E.n && E.seen[f] <= E.refs[r].occurrence) return &E.refs[r];
    }
    return NULL;
}

static void check_from(eager_check *x, const candidate *c)
{
    x->tensor = c->tensor;
    x->compared = c->r.compared;
    x->differing = c->r.differing;
    x->first = c->r.first;
    x->got = c->r.got;
    x->want = c->r.want;
    x->max_abs = c->r.max_abs;
    x->max_rel = c->r.max_rel;
    x->max_at = c->r.max_at;
    x->atol = c->r.tol.atol;
    x->rtol = c->r.tol.rtol;
}

static struct deferred *deferred_of(size_t node_id)
{
    for (size_t d = 0; d < E.ndeferred; d++)
        if (E.deferred[d].node_id == node_id) return &E.deferred[d];
    return NULL;
}

/* Node e's departure in an earlier kernel, kept for the later one (later_ref): the later one
 * holds it (a partial result was finished: dropped) or does not (sent now, as the earlier
 * kernel's: returns 1). */
static int settle_deferred(const eref *e, int held, void (*send)(const proto_msg *m))
{
    struct deferred *d = deferred_of(e->node_id);
    if (!d) return 0;
    int sent = 0;
    if (!held) {
        proto_msg m = {.type = PROTO_COMPARE};
        m.u.compare.kernel_index = d->k;
        eager_check *x = &m.u.compare.c;
        x->node = e->node;
        x->verdict = EAGER_DIFFERS;
        x->err64 = x->eager_err64 = -1;
        check_from(x, &d->c);
        x->note = "the later kernel that computes it too does not hold it either";
        send(&m);
        sent = 1;
    }
    *d = E.deferred[--E.ndeferred];
    return sent;
}

/* A COMPARE of node for kernel k, nothing compared yet. */
static proto_msg compare_msg(int64_t k, const char *node)
{
    proto_msg m = {.type = PROTO_COMPARE};
    m.u.compare.kernel_index = k;
    eager_check *x = &m.u.compare.c;
    x->node = node;
    x->first = x->max_at = -1;
    x->err64 = x->eager_err64 = -1;
    return m;
}

/* The float64 gate: beyond the tolerance against eager, a tensor still holds the node when its
 * largest error against float64 is within 2 (3 for float16 and bfloat16, as torch's accuracy
 * checks allow) times eager's own, plus a rounding floor: the dtype's default atol, or half an ulp
 * of the largest float64 value (the error of rounding the exact value to the tensor's dtype). */
static int within_float64(const candidate *c)
{
    double k = c->low_precision ? 3.0 : 2.0;
    double floor = close_default_tol(c->low_precision ? DK_BF16 : DK_F32).atol;
    if (c->fmax64 * c->eps / 2 > floor) floor = c->fmax64 * c->eps / 2;
    return c->has64 && isfinite(c->err64) && c->err64 <= k * c->eager_err64 + floor;
}

/* A reference the compiler's record binds to one tensor: its own candidate decides (no shapes,
 * no sharing, no deferral: the record says which buffer holds which node). */
static int finish_bound(size_t i, int64_t k, void (*send)(const proto_msg *m))
{
    const eref *e = &E.refs[i];
    const candidate *c = NULL;
    for (size_t j = 0; j < E.ncand && !c; j++)
        if (E.cand[j].ref == i) c = &E.cand[j];
    proto_msg m = compare_msg(k, e->node);
    eager_check *x = &m.u.compare.c;
    static char note[256];
    if (!c) {
        x->verdict = EAGER_UNMATCHED;
        x->tensor = e->tensor;
        x->atol = e->atol;
        x->rtol = e->rtol;
        snprintf(note, sizeof note, "the compiler's record puts it in %s, which this launch did not report with "
                 "the node's shape", e->tensor);
        x->note = note;
        send(&m);
        return 0;
    }
    check_from(x, c);
    x->note = c->failed ? c->note : "";
    if (c->failed) {
        x->verdict = EAGER_UNREADABLE;
    } else if (close_enough(c)) {
        x->verdict = EAGER_CLOSE;
        x->yardstick = "eager";
    } else if (c->has64) {
        x->yardstick = "float64";
        x->err64 = c->err64;
        x->eager_err64 = c->eager_err64;
        x->verdict = within_float64(c) ? EAGER_CLOSE : EAGER_DIFFERS;
    } else {
        x->yardstick = "eager";
        x->verdict = EAGER_DIFFERS;
    }
    send(&m);
    return x->verdict == EAGER_DIFFERS;
}

int eref_kernel_finish(int64_t k, void (*send)(const proto_msg *m))
{
    if (!E.active) return 0;
    E.active = 0;
    int differs = 0;
    if (E.refs[E.lo].tensor[0]) {   /* the compiler's record: every ref of a launch is bound */
        for (size_t i = E.lo; i < E.hi; i++)
            differs |= finish_bound(i, k, send);
        E.ncand = E.nbefore = 0;
        return differs;
    }
    if (E.cap_picks < E.hi - E.lo) {
        ref_pick *n = realloc(E.picks, (E.hi - E.lo) * sizeof *n);
        if (!n) abort();
        E.picks = n;
        E.cap_picks = E.hi - E.lo;
    }
    const ref_pick *picks = E.picks;
    pick_all(E.picks);
    const candidate **assigned = calloc(E.hi - E.lo + 1, sizeof *assigned);
    free(E.deferred_here);
    E.deferred_here = calloc(E.hi - E.lo + 1, 1);
    if (!assigned || !E.deferred_here) abort();
    for (size_t i = E.lo; i < E.hi; i++)
        E.deferred_here[i - E.lo] = deferred_of(E.refs[i].node_id) != NULL;
    int distinct = assign_distinct(picks, k, assigned);
    for (size_t i = E.lo; i < E.hi; i++) {
        const eref *e = &E.refs[i];
        const candidate *ok = picks[i - E.lo].ok, *bad = picks[i - E.lo].bad, *failed = picks[i - E.lo].failed;
        /* compared where it was made: its buffer may hold a later value now; but an output this
         * kernel wrote that holds it (a copy in another layout for the next library call) is its */
        if (!live_here(i, k) && !(ok && ok->written))
            continue;
        if (!live_here(i, k))
            bad = failed = NULL;
        int shared = !ok && bad ? blamed_on(picks, k, bad->tensor) : 0;
        if (distinct && !ok && bad)
            bad = assigned[i - E.lo], shared = 0;
        else if (shared > 1)
            bad = NULL;
        int was_deferred = !ok && bad && E.deferred_here[i - E.lo];
        if (was_deferred)   /* its difference is the earlier kernel's (settle_deferred) */
            bad = NULL, shared = 0;
        const eref *later = !ok && bad ? later_ref(i) : NULL;
        static char later_note[256];
        if (later) {   /* judged where it is finished */
            if (!deferred_of(e->node_id)) {
                if (E.ndeferred == E.capdeferred) {
                    E.capdeferred = E.capdeferred ? 2 * E.capdeferred : 16;
                    E.deferred = realloc(E.deferred, E.capdeferred * sizeof *E.deferred);
                    if (!E.deferred) abort();
                }
                E.deferred[E.ndeferred++] = (struct deferred){e->node_id, k, *bad};
            }
            bad = NULL;
            shared = 0;
            snprintf(later_note, sizeof later_note,
                     "no output holds it, and a later kernel (%s) computes it too: judged there (this one may "
                     "write a partial result)", later->kernel);
        }
        if (!later)
            differs |= settle_deferred(e, ok != NULL, send);
        proto_msg m = compare_msg(k, e->node);
        eager_check *x = &m.u.compare.c;
        if (ok && live_here(i, k)) E.held_at[e->node_id] = k;
        const candidate *c = ok ? ok : bad ? bad : failed;
        x->verdict = ok ? EAGER_CLOSE : bad ? EAGER_DIFFERS : failed ? EAGER_UNREADABLE : EAGER_UNMATCHED;
        if (c) {
            check_from(x, c);
            x->note = failed && !ok && !bad ? c->note : "";
        } else {
            x->tensor = "";
            x->atol = e->atol;
            x->rtol = e->rtol;
            x->note = later ? later_note : was_deferred ? "not held here: the earlier kernel's difference is reported"
                                   : shared > 1 ? "several nodes of this kernel have the shape of an output that equals none of them: "
                                   "it holds another value (computed inside the kernel only?)"
                                 : "no output of the kernel written with this node's shape (computed inside the kernel only?)";
        }
        differs |= x->verdict == EAGER_DIFFERS;
        send(&m);
    }
    free(assigned);
    E.ncand = E.nbefore = 0;
    return differs;
}
