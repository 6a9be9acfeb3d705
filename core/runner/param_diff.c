/* param_diff.c — the program's weights against the container's constants (param_diff.h). */
#define _GNU_SOURCE
#include "param_diff.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "aoti_abi.h"
#include "param_cmp.h"
#include "torch_cxx.h"

#define PDIFF_MAX (1u << 20)   /* weights of one program */

static struct {
    const proto_msg **m;       /* the WEIGHT_CHECKs, decoded into the conversation's arena */
    size_t n, cap;
} checks;

int pdiff_add(const proto_msg *m, strbuf *err)
{
    if (checks.n >= PDIFF_MAX) {
        strbuf_addf(err, "more than %u WEIGHT_CHECKs", PDIFF_MAX);
        return -1;
    }
    if (checks.n == checks.cap) {
        size_t cap = checks.cap ? checks.cap * 2 : 64;
        const proto_msg **g = realloc(checks.m, cap * sizeof *g);
        if (!g) {
            strbuf_addstr(err, "out of memory");
            return -1;
        }
        checks.m = g;
        checks.cap = cap;
    }
    proto_msg *keep = malloc(sizeof *keep);
    if (!keep) {
        strbuf_addstr(err, "out of memory");
        return -1;
    }
    *keep = *m;   /* its strings and arrays stay in the arena */
    checks.m[checks.n++] = keep;
    return 0;
}

typedef struct { const char *name; AtenTensorHandle handle; } entry;   /* AOTInductorConstantMapEntry */
typedef int (*entries_fn)(void *container, const entry **entries, size_t *n, int use_inactive);

/* The container's constants by original FQN (constant-folded ones are not in it). */
typedef struct {
    char **fqn;
    void **h;
    size_t n, cap;
} handle_list;

static void add_handle(void *ctx, const char *fqn, void *h)
{
    handle_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **f = realloc(l->fqn, cap * sizeof *f);
        if (f) l->fqn = f;
        void **hh = f ? realloc(l->h, cap * sizeof *hh) : NULL;
        if (!hh) return;
        l->h = hh;
        l->cap = cap;
    }
    char *c = strdup(fqn);
    if (!c) return;
    l->fqn[l->n] = c;
    l->h[l->n++] = h;
}

static int list_handles(void *dl, void *container, handle_list *l)
{
    entries_fn fn = (entries_fn)dlsym(dl, "AOTInductorModelContainerExtractConstantsMapEntries");
    const entry *e = NULL;
    size_t n = 0;
    if (fn && fn(container, &e, &n, 0) == 0) {
        for (size_t i = 0; i < n; i++)
            if (e[i].name) add_handle(l, e[i].name, e[i].handle);
        return 0;
    }
    void *v1 = dlsym(dl, "AOTInductorModelContainerExtractConstantsMap");
    char err[256];
    return v1 && !tcxx_extract_constants(v1, container, add_handle, l, err, sizeof err) ? 0 : -1;
}

/* 1 when a is b under more modules ("m.fc1.weight" and "fc1.weight"). */
static int under(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    return na > nb && a[na - nb - 1] == '.' && !strcmp(a + na - nb, b);
}

/* The constant named fqn; else the one constant whose name is fqn under more (or fewer) modules (a
 * program exported from a wrapper module: "m.fc1.weight" for the package's "fc1.weight"), with
 * *renamed set. NULL when none, or when more than one would do. */
static void *find_handle(const handle_list *l, const char *fqn, size_t *at, int *renamed)
{
    size_t found = l->n, n = 0;
    *renamed = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->fqn[i], fqn)) {
            *at = i;
            return l->h[i];
        }
    for (size_t i = 0; i < l->n; i++)
        if (under(fqn, l->fqn[i]) || under(l->fqn[i], fqn)) {
            found = i;
            n++;
        }
    if (n != 1) return NULL;
    *at = found;
    *renamed = 1;
    return l->h[found];
}

static weight_diff from_result(const proto_msg *c, const pcmp_result *r)
{
    static const weight_verdict v[] = {[PCMP_EQUAL] = WDIFF_EQUAL, [PCMP_DIFFERS] = WDIFF_DIFFERS,
                                       [PCMP_DTYPE] = WDIFF_DTYPE, [PCMP_SHAPE] = WDIFF_SHAPE,
                                       [PCMP_UNREAD] = WDIFF_UNREAD};
    weight_diff d = {.fqn = c->u.wcheck.fqn, .verdict = v[r->verdict], .dtype = c->u.wcheck.dtype,
                     .pkg_dtype = r->pkg_dtype, .pkg_ndim = r->pkg_ndim, .lead = r->lead,
                     .lead_differ = r->lead_differ, .ranges = r->ranges, .differing = r->differing,
                     .numel = r->numel, .has_first = r->has_first, .max_abs = r->max_abs,
                     .nonfinite = r->nonfinite, .note = r->note};
    d.ndim = c->u.wcheck.ndim > TENSOR_MAX_DIMS ? TENSOR_MAX_DIMS : c->u.wcheck.ndim;
    memcpy(d.shape, c->u.wcheck.shape, (size_t)d.ndim * sizeof *d.shape);
    if (d.pkg_ndim > TENSOR_MAX_DIMS) d.pkg_ndim = TENSOR_MAX_DIMS;
    memcpy(d.pkg_shape, r->pkg_shape, (size_t)d.pkg_ndim * sizeof *d.pkg_shape);
    d.first = (struct weight_first){r->first, r->value, r->pkg_value};
    return d;
}

static weight_diff bare(const char *fqn, weight_verdict v, const char *note)
{
    return (weight_diff){.fqn = fqn, .verdict = v, .dtype = "", .pkg_dtype = "", .lead = -1, .lead_differ = -1,
                         .ranges = "", .max_abs = -1, .note = note ? note : ""};
}

static int send_diff(int (*send)(const proto_msg *), const weight_diff *d)
{
    proto_msg m = {.type = PROTO_WEIGHT_DIFF};
    m.u.wdiff = *d;
    return send(&m);
}

int pdiff_run(void *dl, void *container, int (*send)(const proto_msg *m))
{
    if (!checks.n) return 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    aoti_get_count_fn count = (aoti_get_count_fn)dlsym(dl, "AOTInductorModelContainerGetNumConstants");
    aoti_const_name_fn fqn_of = (aoti_const_name_fn)dlsym(dl, "AOTInductorModelContainerGetConstantOriginalFQN");
    aoti_const_bool_fn folded_of = (aoti_const_bool_fn)dlsym(dl, "AOTInductorModelContainerGetConstantFromFolded");
    size_t nc = 0;
    handle_list hl = {0};
    const char *no_list = NULL;
    if (!count || !fqn_of || count(container, &nc) || list_handles(dl, container, &hl) < 0)
        no_list = "this model .so cannot hand out its constants (no ExtractConstantsMap or GetNumConstants: "
                  "built by an older torch)";
    unsigned char *used = calloc(hl.n + 1, 1);
    int rc = 0;
    size_t equal = 0, compared = 0;
    for (size_t i = 0; i < checks.n && rc == 0; i++) {
        const proto_msg *c = checks.m[i];
        size_t at = 0;
        int renamed = 0;
        void *h = no_list ? NULL : find_handle(&hl, c->u.wcheck.fqn, &at, &renamed);
        if (h && used && used[at]) h = NULL;   /* another program weight has it */
        weight_diff d;
        pcmp_result r;
        if (no_list) {
            d = bare(c->u.wcheck.fqn, WDIFF_UNREAD, no_list);
        } else if (!h) {
            d = bare(c->u.wcheck.fqn, WDIFF_NO_PACKAGE, NULL);
        } else {
            if (used) used[at] = 1;
            pcmp_weight w = {c->u.wcheck.archive, c->u.wcheck.record, c->u.wcheck.dtype, c->u.wcheck.ndim,
                             c->u.wcheck.shape, c->u.wcheck.strides, c->u.wcheck.storage_offset};
            pcmp_compare(&w, h, &r);
            if (renamed) {   /* said, so that a match by name is never silent */
                size_t k = strlen(r.note);
                snprintf(r.note + k, sizeof r.note - k, "%s" PDIFF_RENAMED "%s", k ? "; " : "", hl.fqn[at]);
            }
            d = from_result(c, &r);
            compared += r.verdict != PCMP_UNREAD;
            equal += r.verdict == PCMP_EQUAL;
        }
        rc = send_diff(send, &d);
    }
    pcmp_close();
    /* the package's constants no check named */
    for (size_t i = 0; !no_list && i < hl.n && rc == 0; i++)
        if (used && !used[i]) {
            weight_diff d = bare(hl.fqn[i], WDIFF_NO_PROGRAM, NULL);
            rc = send_diff(send, &d);
        }
    size_t nfolded = 0;
    for (size_t j = 0; !no_list && folded_of && j < nc && rc == 0; j++) {
        _Bool f = 0;
        const char *fq = NULL;
        if (folded_of(container, j, &f) || !f) continue;
        fqn_of(container, j, &fq);
        weight_diff d = bare(fq && *fq ? fq : "?", WDIFF_FOLDED, NULL);
        rc = send_diff(send, &d);
        nfolded++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "aotidbg-runner: weights: %zu of the program's %zu compared with the package's constants "
            "(%zu equal, %zu constant-folded not compared) in %.1f ms\n", compared, checks.n, equal, nfolded,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    for (size_t i = 0; i < hl.n; i++) free(hl.fqn[i]);
    free(hl.fqn);
    free(hl.h);
    free(used);
    for (size_t i = 0; i < checks.n; i++) free((void *)checks.m[i]);
    free(checks.m);
    checks.m = NULL;
    checks.n = checks.cap = 0;
    return rc ? -1 : 0;
}
