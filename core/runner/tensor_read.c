/* tensor_read.c — describe a live tensor handle (tensor_read.h). */
#define _GNU_SOURCE
#include "tensor_read.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "prof.h"
#include "host_stats.h"
#include "torch_abi.h"

static aotidbg_cuda_stats_fn cuda_stats;
static const char *(*cuda_stats_error)(void);
static int cuda_stats_tried;

void tread_set_cuda_stats(aotidbg_cuda_stats_fn fn)
{
    cuda_stats = fn;
    cuda_stats_tried = 1;
}

static aotidbg_cuda_stats_fn find_cuda_stats(void)
{
    if (cuda_stats_tried) return cuda_stats;
    cuda_stats_tried = 1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", exe, CUDASTATS_LIB);
    if (access(path, R_OK) != 0) return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "aotidbg-runner: %s: %s; using host statistics\n", path, dlerror());
        return NULL;
    }
    cuda_stats = (aotidbg_cuda_stats_fn)dlsym(lib, "aotidbg_cuda_stats");
    cuda_stats_error = (const char *(*)(void))dlsym(lib, "aotidbg_cuda_stats_error");
    if (!cuda_stats) fprintf(stderr, "aotidbg-runner: %s has no aotidbg_cuda_stats; using host statistics\n", path);
    return cuda_stats;
}

void tread_scratch_release(tread_scratch *sc)
{
    free(sc->values);
    sc->values = NULL;
    sc->cap_values = 0;
    free(sc->bytes);
    sc->bytes = NULL;
    sc->cap_bytes = 0;
}

static double *values_buf(tread_scratch *sc, size_t n)
{
    if (n > sc->cap_values) {
        double *v = realloc(sc->values, n * sizeof *v);
        if (!v) return NULL;
        sc->values = v;
        sc->cap_values = n;
    }
    return sc->values;
}

/* Stats and values of a host tensor; values only when stats is NULL. */
static int host_pass(const void *data, const dtype_entry *dt, tensor_rec *t, size_t max_values, tread_scratch *sc,
                     tensor_stats *stats)
{
    uint64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)t->shape[d];
    uint64_t lanes = (uint64_t)stats_kind_lanes(dt->kind);   /* complex: (re, im) pairs */
    size_t nv = numel * lanes < max_values ? (size_t)(numel * lanes) : max_values;
    double *vals = nv ? values_buf(sc, nv) : NULL;
    if (nv && !vals) nv = 0;
    tensor_stats tmp;
    size_t got = 0;
    if (stats_compute(data, dt->kind, t->ndim, t->shape, t->strides, stats ? stats : &tmp, vals, nv, &got)) return -1;
    t->values = got ? vals : NULL;
    t->nvalues = got;
    t->values_complete = got == numel * lanes;
    return 0;
}

/* The device statistics are done; only the first max_values values are
 * wanted. A row-major contiguous tensor holds them in its first bytes: copy
 * just those with cudaMemcpy instead of the whole tensor through torch.
 * Returns -1 when that does not apply (then the caller copies it all). */
static int small_values_copy(AtenTensorHandle h, const dtype_entry *dt, tensor_rec *t, uint64_t numel,
                             size_t max_values, tread_scratch *sc)
{
    const cuda_rt *cu = tabi_cuda();
    if (!cu->memcpy || !numel) return -1;
    int64_t want = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {   /* size-1 dims may carry any stride */
        if (t->shape[d] != 1 && t->strides[d] != want) return -1;
        want *= t->shape[d];
    }
    void *dptr = NULL;
    if (aoti_torch_get_data_ptr(h, &dptr) || !dptr) return -1;
    size_t lanes = (size_t)stats_kind_lanes(dt->kind);
    size_t nv = numel * lanes < max_values ? (size_t)numel : max_values / lanes;   /* elements */
    size_t bytes = nv * dt->itemsize;
    if (bytes > sc->cap_bytes) {
        void *b = realloc(sc->bytes, bytes);
        if (!b) return -1;
        sc->bytes = b;
        sc->cap_bytes = bytes;
    }
    double pt = prof_now();
    int e = cu->memcpy(sc->bytes, dptr, bytes, 2 /* cudaMemcpyDeviceToHost */);
    prof_add(PROF_VALUES_COPY, pt);
    if (e) {
        if (cu->get_last_error) cu->get_last_error();   /* the caller's torch copy reports it */
        return -1;
    }
    tensor_rec view = *t;
    int64_t n1 = (int64_t)nv, one = 1;
    view.ndim = 1;
    view.shape = &n1;
    view.strides = &one;
    tensor_stats tmp;
    pt = prof_now();
    int bad = host_pass(sc->bytes, dt, &view, max_values, sc, &tmp);
    prof_add(PROF_HOST_STATS, pt);
    if (bad) return -1;
    t->values = view.values;
    t->nvalues = view.nvalues;
    t->values_complete = view.nvalues == numel * lanes;
    return 0;
}

int tread_host_copy(AtenTensorHandle h, const tensor_rec *t, int32_t dcode, int64_t *cstr, AtenTensorHandle *out,
                    strbuf *err)
{
    *out = NULL;
    int64_t acc = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        cstr[d] = acc;
        acc *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
    AtenTensorHandle host = NULL;
    if (aoti_torch_empty_strided(t->ndim, t->shape, cstr, dcode, tabi_device_cpu(), 0, &host)) {
        strbuf_addf(err, "tensor %s: could not allocate a host copy (%lld elements)", t->name, (long long)acc);
        return -1;
    }
    double pt = prof_now();
    int bad = aoti_torch_copy_(host, h, 0);
    prof_add(PROF_VALUES_COPY, pt);
    if (bad) {
        strbuf_addf(err, "tensor %s: copying it from %s failed (see stderr)", t->name, t->device);
        aoti_torch_delete_tensor_object(host);
        return -1;
    }
    *out = host;
    return 0;
}

void tread_alloc(AtenTensorHandle h, tensor_rec *t)
{
    void *data = NULL;
    int64_t bytes = 0, off = 0;
    const dtype_entry *dt = tabi_dtype_by_name(t->dtype);
    if (!dt || aoti_torch_get_data_ptr(h, &data) || aoti_torch_get_storage_size(h, &bytes) ||
        aoti_torch_get_storage_offset(h, &off) || bytes < 0 || off < 0)
        return;
    uint64_t d = (uint64_t)(uintptr_t)data, skip = (uint64_t)off * dt->itemsize;
    if (d && skip > d) return;
    t->alloc.data = d;
    t->alloc.base = d ? d - skip : 0;
    t->alloc.bytes = (uint64_t)bytes;
    t->has_alloc = 1;
}

int tread_tensor(AtenTensorHandle h, const char *name, tensor_phase phase, size_t max_values, int want_stats,
                 tread_scratch *sc, tensor_rec *t, strbuf *err)
{
    memset(t, 0, sizeof *t);
    t->name = name;
    t->phase = phase;
    t->dtype = "unknown";
    t->device = "unknown";
    int64_t dim = 0, *sizes = NULL, *strides = NULL;
    int32_t dcode = 0, dev = 0, devidx = 0;
    double pt = prof_now();
    int bad_describe = aoti_torch_get_dim(h, &dim) || aoti_torch_get_sizes(h, &sizes) || aoti_torch_get_strides(h, &strides) ||
        aoti_torch_get_dtype(h, &dcode) || aoti_torch_get_device_type(h, &dev) ||
        aoti_torch_get_device_index(h, &devidx);
    prof_add(PROF_DESCRIBE, pt);
    if (bad_describe) {
        strbuf_addf(err, "tensor %s: torch could not describe it", name);
        return -1;
    }
    if (dev == tabi_device_cpu()) snprintf(sc->device, sizeof sc->device, "cpu");
    else if (dev == tabi_device_cuda()) snprintf(sc->device, sizeof sc->device, "cuda:%d", (int)devidx);
    else snprintf(sc->device, sizeof sc->device, "device%d:%d", (int)dev, (int)devidx);
    t->device = sc->device;
    const dtype_entry *dt = tabi_dtype_by_code(dcode);
    if (dt) t->dtype = dt->name;
    else {
        snprintf(sc->dtype, sizeof sc->dtype, "dtype%d", (int)dcode);
        t->dtype = sc->dtype;
    }
    if (dim < 0 || dim > TENSOR_MAX_DIMS) {
        strbuf_addf(err, "tensor %s has %lld dims; aotidbg shows at most %d", name, (long long)dim, TENSOR_MAX_DIMS);
        return -1;
    }
    t->ndim = (int)dim;
    if (dim) {
        memcpy(sc->shape, sizes, (size_t)dim * sizeof(int64_t));
        memcpy(sc->strides, strides, (size_t)dim * sizeof(int64_t));
        t->shape = sc->shape;
        t->strides = sc->strides;
    }
    if (!dt) return 0;                     /* complex32, quantized, ...: metadata only */
    if (!want_stats && !max_values) return 0;

    uint64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)(t->shape[d] < 0 ? 0 : t->shape[d]);

    if (dev == tabi_device_cpu()) {
        void *data = NULL;
        if (numel && (aoti_torch_get_data_ptr(h, &data) || !data)) {
            strbuf_addf(err, "tensor %s: no data pointer", name);
            return -1;
        }
        pt = prof_now();
        int bad = host_pass(data, dt, t, max_values, sc, want_stats ? &t->stats : NULL);
        prof_add(PROF_HOST_STATS, pt);
        if (bad) {
            strbuf_addf(err, "tensor %s: could not read its elements", name);
            return -1;
        }
        t->has_stats = want_stats;
        return 0;
    }
    if (dev != tabi_device_cuda()) return 0;

    /* CUDA: device statistics library when present */
    int stats_done = 0;
    /* the CUDA statistics library knows real dtypes only: complex goes through the host copy */
    aotidbg_cuda_stats_fn fn = want_stats && stats_kind_lanes(dt->kind) == 1 ? find_cuda_stats() : NULL;
    if (fn && numel) {
        void *dptr = NULL, *stream = NULL;
        if (tabi_cuda()->current_stream) tabi_cuda()->current_stream(devidx, &stream);
        if (!aoti_torch_get_data_ptr(h, &dptr) && dptr) {
            pt = prof_now();
            int bad = fn(dptr, dt->name, t->ndim, t->shape, t->strides, stream, &t->stats);
            prof_add(PROF_DEV_STATS, pt);
            if (bad == 0) {
                t->has_stats = 1;
                stats_done = 1;
            } else {   /* fall back to the host copy below */
                const char *e = cuda_stats_error ? cuda_stats_error() : NULL;
                fprintf(stderr, "aotidbg-runner: device statistics of %s failed (%s); using a host copy\n", name,
                        e ? e : "no message");
            }
        }
    }
    if (stats_done && !max_values) return 0;
    if (stats_done && small_values_copy(h, dt, t, numel, max_values, sc) == 0) return 0;
    if (stats_done && numel * dt->itemsize > TREAD_MAX_VALUES_COPY) return 0;
    if (!numel) {
        if (want_stats) {
            tensor_stats *s = &t->stats;
            memset(s, 0, sizeof *s);
            s->min = s->max = s->mean = s->std = __builtin_nan("");
            s->has_at = 1;
            s->at.min = s->at.max = s->at.nonfinite = -1;
            t->has_stats = 1;
        }
        t->values_complete = 1;
        return 0;
    }
    /* host copy, contiguous */
    int64_t cstr[TENSOR_MAX_DIMS];
    AtenTensorHandle host = NULL;
    if (tread_host_copy(h, t, dcode, cstr, &host, err)) return -1;
    void *data = NULL;
    int rc = -1;
    if (aoti_torch_get_data_ptr(host, &data) || !data) strbuf_addf(err, "tensor %s: no host data", name);
    else {
        tensor_rec view = *t;
        view.strides = cstr;
        tensor_stats tmp;
        int only_values = stats_done || !want_stats;
        uint64_t lanes = (uint64_t)stats_kind_lanes(dt->kind);
        int64_t nv1 = (int64_t)(numel * lanes < max_values ? numel : max_values / lanes), one = 1;
        if (only_values) {   /* the first values of a contiguous copy: no pass over the rest */
            view.ndim = 1;
            view.shape = &nv1;
            view.strides = &one;
        }
        pt = prof_now();
        int bad = host_pass(data, dt, &view, max_values, sc, only_values ? &tmp : &t->stats);
        prof_add(PROF_HOST_STATS, pt);
        if (!bad && only_values) view.values_complete = view.nvalues == numel * lanes;
        if (bad == 0) {
            t->values = view.values;
            t->nvalues = view.nvalues;
            t->values_complete = view.values_complete;
            if (want_stats) t->has_stats = 1;
            rc = 0;
        } else {
            strbuf_addf(err, "tensor %s: could not read its elements", name);
        }
    }
    aoti_torch_delete_tensor_object(host);
    return rc;
}
