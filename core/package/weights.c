/* weights.c — a package model's weights in every form torch writes (weights.h). */
#define _GNU_SOURCE
#include "weights.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include "host_stats.h"
#include "zip_readat.h"

#define CONFIG_MAX_BYTES (64u << 20)
#define BLOB_ALIGN 64   /* codecache.py ALIGN_BYTES: each constant's start in the blob */

const char *weights_form_name(weights_form f)
{
    static const char *const names[] = {"in the .so", "binary_blob", "pickle_weights", "none in the package",
                                        "no constants", "unknown"};
    return (unsigned)f <= WEIGHTS_UNKNOWN ? names[f] : "unknown";
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !memcmp(s + a - b, suf, b);
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---- a torch.save archive inside the package, read by libzip over the entry's bytes ---- */

/* zip_readat's read over a package entry: all of it or nothing. */
static long entry_read(void *ctx, uint64_t off, void *buf, size_t len, strbuf *err)
{
    return package_entry_read_at(ctx, off, buf, len, err) ? -1 : (long)len;
}

/* One weight_N file: its torch.save archive and the one storage record in it. */
typedef struct {
    package_entry *e;
    zip_readat src;
    zip_t *z;
    zip_int64_t rec;          /* index of "<archive>/data/<key>" */
    uint64_t rec_size;
} saved_tensor;

static void saved_close(saved_tensor *t)
{
    if (t->z) zip_discard(t->z);
    if (t->e) package_entry_close(t->e);
    zip_readat_fini(&t->src);
    memset(t, 0, sizeof *t);
}

static int saved_open(package_t *p, const char *entry, saved_tensor *t, strbuf *err)
{
    memset(t, 0, sizeof *t);
    uint64_t size = 0;
    if (package_entry_open(p, entry, &t->e, &size, err)) return -1;
    zip_readat_init(&t->src, entry_read, t->e, size);
    zip_error_t ze;
    zip_error_init(&ze);
    t->z = zip_readat_open(&t->src, ZIP_RDONLY, &ze);
    if (!t->z) {
        strbuf_addf(err, "%s: %s: not a torch.save archive (%s)", p->path, entry, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        saved_close(t);
        return -1;
    }
    zip_error_fini(&ze);
    zip_int64_t n = zip_get_num_entries(t->z, 0);
    int found = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(t->z, (zip_uint64_t)i, 0);
        const char *d = nm ? strstr(nm, "/data/") : NULL;
        if (!d || strchr(d + 6, '/') || strstr(nm, "/.data/")) continue;
        zip_stat_t st;
        if (zip_stat_index(t->z, (zip_uint64_t)i, 0, &st) || !(st.valid & ZIP_STAT_SIZE)) continue;
        found++;
        t->rec = i;
        t->rec_size = st.size;
    }
    if (found != 1) {
        strbuf_addf(err, "%s: %s holds %d tensor storages; torch's weight files hold one (a torch.save of one "
                    "tensor)", p->path, entry, found);
        saved_close(t);
        return -1;
    }
    return 0;
}

/* ---- the plan ---------------------------------------------------------------- */

static const ws_constant *constant_by_fqn(const wrapper_scan *ws, const char *fqn)
{
    for (size_t i = 0; ws && i < ws->nconstants; i++)
        if (ws->constants[i].fqn && !strcmp(ws->constants[i].fqn, fqn)) return &ws->constants[i];
    return NULL;
}

static size_t itemsize_of(const char *dtype)
{
    dtype_kind k;
    return dtype && stats_kind_by_name(dtype, &k) == 0 ? stats_kind_size(k) : 0;
}

static void set_problem(arena *a, weights_plan *wp, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_problem(arena *a, weights_plan *wp, const char *fix, const char *fmt, ...)
{
    if (wp->problem) return;   /* the first one says enough */
    va_list ap;
    va_start(ap, fmt);
    strbuf sb = STRBUF_INIT;
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    wp->problem = arena_strdup(a, sb.buf);
    wp->fix = fix;
    strbuf_release(&sb);
}

static const char *entry_named(const package_model *m, const char *suffix_or_base, int by_base)
{
    for (size_t i = 0; i < m->nweights; i++) {
        const char *e = m->weight_entries[i];
        if (by_base ? !strcmp(base_of(e), suffix_or_base) : ends_with(e, suffix_or_base)) return e;
    }
    return NULL;
}

static void plan_blob(package_t *p, const wrapper_scan *ws, arena *a, weights_plan *wp)
{
    int all_cuda = ws && ws->nconstants > 0;
    for (size_t i = 0; ws && i < ws->nconstants; i++) {
        const ws_constant *c = &ws->constants[i];
        if (c->from_folded || c->data_size < 0) continue;
        if (!c->device || strcmp(c->device, "cuda")) all_cuda = 0;
    }
    uint64_t need = 0;
    for (size_t i = 0; ws && i < ws->nconstants; i++) {
        const ws_constant *c = &ws->constants[i];
        if (c->from_folded || c->data_size < 0) continue;
        uint64_t n = (uint64_t)c->data_size;
        need += all_cuda ? n : (n + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN;   /* codecache.py's layout */
    }
    wp->blob_need = need;
    package_entry *e = NULL;
    strbuf err = STRBUF_INIT;
    if (package_entry_open(p, wp->blob_entry, &e, &wp->blob_have, &err)) {
        set_problem(a, wp, "copy the package again, or rebuild it", "%s cannot be read: %s", wp->blob_entry, err.buf);
    } else {
        unsigned char probe[64];
        uint64_t n = wp->blob_have < sizeof probe ? wp->blob_have : sizeof probe;
        strbuf_reset(&err);
        if (n && package_entry_read_at(e, wp->blob_have - n, probe, (size_t)n, &err))   /* its last bytes */
            set_problem(a, wp, "copy the package again, or rebuild it", "%s cannot be read to its end: %s",
                        wp->blob_entry, err.buf);
        package_entry_close(e);
    }
    if (wp->blob_have < need)
        set_problem(a, wp, "the blob is truncated or from another build: copy the package again, or rebuild it",
                    "%s holds %llu bytes, but the model's %zu weights need %llu", base_of(wp->blob_entry),
                    (unsigned long long)wp->blob_have, wp->nconstants, (unsigned long long)need);
    strbuf_release(&err);
}

static void plan_pickle(package_t *p, const package_model *m, const wrapper_scan *ws, const char *cfg, arena *a,
                        weights_plan *wp)
{
    const char *fix_copy = "copy the package again, or rebuild it";
    strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
    if (package_read_entry(p, cfg, CONFIG_MAX_BYTES, &sb, &e)) {
        set_problem(a, wp, fix_copy, "%s cannot be read: %s", cfg, e.buf);
        goto out;
    }
    cJSON *j = cJSON_ParseWithLength(sb.buf, sb.len);
    if (!cJSON_IsObject(j)) {
        set_problem(a, wp, fix_copy, "%s is not a JSON object {fqn: [file, shape, stride, offset]}", cfg);
        cJSON_Delete(j);
        goto out;
    }
    int n = cJSON_GetArraySize(j);
    wp->refs = arena_alloc(a, (size_t)(n ? n : 1) * sizeof *wp->refs);
    const cJSON *it;
    cJSON_ArrayForEach(it, j)
    {
        weight_ref *r = &wp->refs[wp->nrefs];
        memset(r, 0, sizeof *r);
        const cJSON *fn = cJSON_GetArrayItem(it, 0), *sh = cJSON_GetArrayItem(it, 1), *st = cJSON_GetArrayItem(it, 2),
                    *off = cJSON_GetArrayItem(it, 3);
        if (!it->string || !cJSON_IsString(fn) || !cJSON_IsArray(sh) || !cJSON_IsArray(st) || !cJSON_IsNumber(off) ||
            cJSON_GetArraySize(sh) != cJSON_GetArraySize(st) || cJSON_GetArraySize(sh) > TENSOR_MAX_DIMS ||
            strchr(fn->valuestring, '/')) {
            set_problem(a, wp, fix_copy, "%s: entry '%s' is not [file, shape, stride, offset]", cfg,
                        it->string ? it->string : "?");
            continue;
        }
        r->fqn = arena_strdup(a, it->string);
        r->ndim = cJSON_GetArraySize(sh);
        for (int d = 0; d < r->ndim; d++) {
            r->shape[d] = (int64_t)cJSON_GetArrayItem(sh, d)->valuedouble;
            r->strides[d] = (int64_t)cJSON_GetArrayItem(st, d)->valuedouble;
        }
        r->storage_offset = (int64_t)off->valuedouble;
        const ws_constant *c = constant_by_fqn(ws, r->fqn);
        r->dtype = c && c->dtype ? arena_strdup(a, c->dtype) : NULL;   /* ws is freed before the run */
        size_t isz = itemsize_of(r->dtype);
        uint64_t last = (uint64_t)(r->storage_offset > 0 ? r->storage_offset : 0), numel = 1;
        for (int d = 0; d < r->ndim; d++) {
            numel *= (uint64_t)(r->shape[d] > 0 ? r->shape[d] : 0);
            if (r->shape[d] > 0 && r->strides[d] > 0) last += (uint64_t)(r->shape[d] - 1) * (uint64_t)r->strides[d];
        }
        r->need = numel && isz ? (last + 1) * isz : 0;
        r->entry = arena_printf(a, "%sdata/weights/%s", p->root, fn->valuestring);
        wp->nrefs++;
        if (!entry_named(m, r->entry, 0)) {
            set_problem(a, wp, "the archive lacks files under data/weights/: copy the package again, or rebuild it",
                        "%s (weight %s) is missing from the package", base_of(r->entry), r->fqn);
            continue;
        }
        saved_tensor t;
        strbuf_reset(&e);
        if (saved_open(p, r->entry, &t, &e)) {
            set_problem(a, wp, fix_copy, "weight %s: %s", r->fqn, e.buf);
            continue;
        }
        r->have = t.rec_size;
        saved_close(&t);
        if (r->have < r->need)
            set_problem(a, wp, fix_copy, "weight %s: %s holds %llu bytes, the tensor needs %llu", r->fqn,
                        base_of(r->entry), (unsigned long long)r->have, (unsigned long long)r->need);
    }
    cJSON_Delete(j);
    /* every weight the model takes must be listed (load_pt2 checks the update is full) */
    for (size_t i = 0; ws && i < ws->nconstants; i++) {
        const ws_constant *c = &ws->constants[i];
        if (c->from_folded || !c->fqn) continue;
        size_t k = 0;
        while (k < wp->nrefs && strcmp(wp->refs[k].fqn, c->fqn)) k++;
        if (k == wp->nrefs)
            set_problem(a, wp, fix_copy, "%s does not list weight %s, which the model takes", base_of(cfg), c->fqn);
    }
out:
    strbuf_release(&sb);
    strbuf_release(&e);
}

int weights_plan_read(package_t *p, const package_model *m, const wrapper_scan *ws, arena *a, weights_plan *wp,
                      strbuf *err)
{
    (void)err;
    memset(wp, 0, sizeof *wp);
    for (size_t i = 0; ws && i < ws->nconstants; i++) {
        const ws_constant *c = &ws->constants[i];
        if (c->from_folded) continue;
        wp->nconstants++;
        if (c->data_size > 0) wp->bytes += (uint64_t)c->data_size;
    }
    const char *cfg = entry_named(m, "weights_config.json", 1);
    wp->blob_entry = NULL;
    for (size_t i = 0; i < m->nweights && !wp->blob_entry; i++)
        if (ends_with(m->weight_entries[i], ".blob")) wp->blob_entry = m->weight_entries[i];
    if (wp->blob_entry) {
        wp->form = WEIGHTS_BLOB;
        plan_blob(p, ws, a, wp);
    } else if (cfg) {
        wp->form = WEIGHTS_PICKLE;
        plan_pickle(p, m, ws, cfg, a, wp);
    } else if (!ws) {
        wp->form = WEIGHTS_UNKNOWN;
    } else if (!wp->nconstants) {
        wp->form = WEIGHTS_NO_CONSTANTS;
    } else if (ws->include_weights == 0) {
        wp->form = WEIGHTS_NONE;
        set_problem(a, wp,
                    "rebuild with aot_inductor.package_constants_in_so=True, or with "
                    "aot_inductor.package_constants_on_disk_format=\"binary_blob\" (or \"pickle_weights\")",
                    "the package holds none of the model's %zu weights (built with package_constants_in_so=False "
                    "and no on-disk format): torch runs it only after the caller loads them with load_constants(), "
                    "and torch._inductor.aoti_load_package alone crashes at the first weight", wp->nconstants);
    } else {
        wp->form = WEIGHTS_IN_SO;
    }
    return 0;
}

int weights_materialize(package_t *p, const package_model *m, weights_plan *wp, arena *a, strbuf *err)
{
    (void)m;
    if (wp->form != WEIGHTS_PICKLE) return 0;
    if (!p->extract_dir) {
        strbuf_addf(err, "%s: extract the package before its weights", p->path);
        return -1;
    }
    for (size_t i = 0; i < wp->nrefs; i++) {
        weight_ref *r = &wp->refs[i];
        for (size_t k = 0; k < i && !r->path; k++)   /* weights sharing one file share its storage */
            if (!strcmp(wp->refs[k].entry, r->entry)) r->path = wp->refs[k].path;
        if (r->path) continue;
        char *path = arena_printf(a, "%s/data/weights/%s.storage", p->extract_dir, base_of(r->entry));
        saved_tensor t;
        if (saved_open(p, r->entry, &t, err)) return -1;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        zip_file_t *zf = fd >= 0 ? zip_fopen_index(t.z, (zip_uint64_t)t.rec, 0) : NULL;
        int rc = fd >= 0 && zf ? 0 : -1;
        if (rc) strbuf_addf(err, "%s: %s", path, fd < 0 ? strerror(errno) : zip_strerror(t.z));
        char buf[1 << 16];
        uint64_t total = 0;
        while (!rc) {
            zip_int64_t n = zip_fread(zf, buf, sizeof buf);
            if (n == 0) break;
            if (n < 0 || write(fd, buf, (size_t)n) != n) {
                strbuf_addf(err, "%s: copying weight %s to %s failed", p->path, r->fqn, path);
                rc = -1;
                break;
            }
            total += (uint64_t)n;
        }
        if (zf) zip_fclose(zf);
        if (fd >= 0 && close(fd) && !rc) {
            strbuf_addf(err, "%s: %s", path, strerror(errno));
            rc = -1;
        }
        uint64_t want = t.rec_size;
        saved_close(&t);
        if (rc) return -1;
        if (total != want) {
            strbuf_addf(err, "%s: weight %s: %llu of %llu bytes read", p->path, r->fqn, (unsigned long long)total,
                        (unsigned long long)want);
            return -1;
        }
        r->path = path;
        r->offset = 0;
    }
    return 0;
}
