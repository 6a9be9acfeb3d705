/* package.c — the .pt2 reader (see package.h for the contract).
 *
 * Owns: opening a package with libzip, validating every entry before anything
 * is written (names, links, duplicates, sizes, compression ratio), classifying
 * entries into models, reading <key>.wrapper_metadata.json with cJSON, the
 * private extraction folder and its cleanup, and the package's SHA-256.
 * Errors: 0 / -1 with a message in `err` that names the package and entry. */
#define _GNU_SOURCE
#include "package.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include "paths.h"

#define META_MAX_BYTES (1u << 20)

/* The public struct first, so a package_t* is also a package_priv*. */
typedef struct {
    package_t pub;
    zip_t *za;                 /* NULL for a bare .so */
    const package_source *src; /* package_open_source (&src_store); NULL for a local file */
    package_source src_store;
    uint64_t src_pos;          /* its read position for libzip */
    zip_error_t src_err;
} package_priv;

/* ---- SHA-256 (FIPS 180-4), small and dependency-free ---- */
typedef struct { uint32_t h[8]; uint64_t len; uint8_t buf[64]; size_t n; } sha256_ctx;

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(sha256_ctx *c, const uint8_t *p)
{
    uint32_t w[64], a, b, d, e, f, g, h, cc;
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3]; e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
        h = g; g = f; f = e; e = d + t1; d = cc; cc = b; b = a; a = t1 + t2;
    }
    c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d; c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

static void sha256_init(sha256_ctx *c)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof h0);
    c->len = 0;
    c->n = 0;
}

static void sha256_update(sha256_ctx *c, const uint8_t *p, size_t n)
{
    c->len += n;
    while (n) {
        size_t k = 64 - c->n < n ? 64 - c->n : n;
        memcpy(c->buf + c->n, p, k);
        c->n += k; p += k; n -= k;
        if (c->n == 64) {
            sha256_block(c, c->buf);
            c->n = 0;
        }
    }
}

static void sha256_final(sha256_ctx *c, char hex[65])
{
    uint64_t bits = c->len * 8;
    uint8_t pad = 0x80, zero = 0, lenb[8];
    sha256_update(c, &pad, 1);
    while (c->n != 56)
        sha256_update(c, &zero, 1);
    for (int i = 0; i < 8; i++)
        lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(c, lenb, 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", c->h[i]);
}

/* Hex SHA-256 of a file; -1 with err if unreadable. */
int package_sha256_file(const char *path, char hex[65], strbuf *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        strbuf_addf(err, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    sha256_ctx c;
    sha256_init(&c);
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        strbuf_addf(err, "%s: read error", path);
        return -1;
    }
    sha256_final(&c, hex);
    return 0;
}

/* ---- cleanup of extraction folders, also at exit ---- */
#define MAX_LIVE_DIRS 64
static char *live_dirs[MAX_LIVE_DIRS];
static int atexit_registered;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    if (dir && *dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup_at_exit(void)
{
    for (int i = 0; i < MAX_LIVE_DIRS; i++)
        if (live_dirs[i]) {
            remove_tree(live_dirs[i]);
            live_dirs[i] = NULL;
        }
}

static void track_dir(char *dir, int add)
{
    for (int i = 0; i < MAX_LIVE_DIRS; i++) {
        if (add && !live_dirs[i]) {
            live_dirs[i] = dir;
            return;
        }
        if (!add && live_dirs[i] == dir) {
            live_dirs[i] = NULL;
            return;
        }
    }
}

/* ---- helpers ---- */
static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !memcmp(s + a - b, suf, b);
}

static int starts_with(const char *s, const char *pre) { return !strncmp(s, pre, strlen(pre)); }

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Growable arena arrays of const char* for a model's lists (few items). */
static void push_name(arena *a, const char ***arr, size_t *n, const char *s)
{
    const char **na = arena_alloc(a, (*n + 1) * sizeof *na);
    if (*n)
        memcpy(na, *arr, *n * sizeof *na);
    na[(*n)++] = s;
    *arr = na;
}

static package_model *model_for(package_t *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->nmodels; i++)
        if (strlen(p->models[i].name) == len && !strncmp(p->models[i].name, name, len))
            return &p->models[i];
    package_model *nm = arena_alloc(&p->arena, (p->nmodels + 1) * sizeof *nm);
    if (p->nmodels)
        memcpy(nm, p->models, p->nmodels * sizeof *nm);
    p->models = nm;
    package_model *m = &p->models[p->nmodels++];
    m->name = arena_strndup(&p->arena, name, len);
    return m;
}

static int read_zip_entry(package_priv *pp, zip_int64_t idx, const char *name, size_t max, strbuf *sb, strbuf *err)
{
    zip_stat_t st;
    if (zip_stat_index(pp->za, (zip_uint64_t)idx, 0, &st) < 0) {
        strbuf_addf(err, "%s: %s: %s", pp->pub.path, name, zip_strerror(pp->za));
        return -1;
    }
    if ((st.valid & ZIP_STAT_SIZE) && st.size > max) {
        strbuf_addf(err, "%s: %s: %llu bytes, over the %zu-byte limit for this entry",
                    pp->pub.path, name, (unsigned long long)st.size, max);
        return -1;
    }
    zip_file_t *zf = zip_fopen_index(pp->za, (zip_uint64_t)idx, 0);
    if (!zf) {
        strbuf_addf(err, "%s: %s: cannot open entry: %s", pp->pub.path, name, zip_strerror(pp->za));
        return -1;
    }
    char buf[1 << 16];
    size_t total = 0;
    for (;;) {
        zip_int64_t n = zip_fread(zf, buf, sizeof buf);
        if (n < 0) {
            strbuf_addf(err, "%s: %s: read failed (truncated or corrupt archive?): %s",
                        pp->pub.path, name, zip_file_strerror(zf));
            zip_fclose(zf);
            return -1;
        }
        if (n == 0)
            break;
        total += (size_t)n;
        if (total > max) {
            strbuf_addf(err, "%s: %s: more than %zu bytes", pp->pub.path, name, max);
            zip_fclose(zf);
            return -1;
        }
        strbuf_add(sb, buf, (size_t)n);
    }
    zip_fclose(zf);
    return 0;
}

int package_read_entry(package_t *p, const char *entry, size_t max, strbuf *sb, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (!entry) {
        strbuf_addf(err, "%s: no such entry", p->path);
        return -1;
    }
    if (!pp->za)   /* bare .so: entries are plain files beside it */
        return strbuf_read_file(sb, entry, max, err);
    zip_int64_t idx = zip_name_locate(pp->za, entry, 0);
    if (idx < 0) {
        strbuf_addf(err, "%s: no entry '%s' in the archive", p->path, entry);
        return -1;
    }
    return read_zip_entry(pp, idx, entry, max, sb, err);
}

static const char *json_str(arena *a, cJSON *o, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? arena_strdup(a, v->valuestring) : NULL;
}

static int read_metadata(package_priv *pp, package_model *m, strbuf *err)
{
    strbuf sb = STRBUF_INIT;
    if (package_read_entry(&pp->pub, m->metadata_entry, META_MAX_BYTES, &sb, err) < 0) {
        strbuf_release(&sb);
        return -1;
    }
    cJSON *j = cJSON_ParseWithLength(sb.buf, sb.len);
    if (!j || !cJSON_IsObject(j)) {
        const char *at = cJSON_GetErrorPtr();
        strbuf_addf(err, "%s: %s: not a JSON object (near byte %ld); rebuild the package",
                    pp->pub.path, m->metadata_entry, at && at >= sb.buf ? (long)(at - sb.buf) : 0L);
        cJSON_Delete(j);
        strbuf_release(&sb);
        return -1;
    }
    arena *a = &pp->pub.arena;
    m->device_key = json_str(a, j, "AOTI_DEVICE_KEY");
    m->compute_capability = json_str(a, j, "AOTI_COMPUTE_CAPABILITY");
    m->cpu_isa = json_str(a, j, "AOTI_CPU_ISA");
    m->platform = json_str(a, j, "AOTI_PLATFORM");
    m->machine = json_str(a, j, "AOTI_MACHINE");
    cJSON_Delete(j);
    strbuf_release(&sb);
    return 0;
}

/* Puts one archive entry in its model's lists. */
static void classify(package_t *p, const char *name)
{
    const char *rest = name + strlen(p->root);
    arena *a = &p->arena;
    if (starts_with(rest, "data/weights/") || starts_with(rest, "data/constants/")) {
        if (!ends_with(rest, "/"))   /* shared by all models; recorded per model below */
            for (size_t i = 0; i < p->nmodels; i++)
                push_name(a, &p->models[i].weight_entries, &p->models[i].nweights, name);
        return;
    }
    if (!starts_with(rest, "data/aotinductor/"))
        return;
    const char *mname = rest + strlen("data/aotinductor/");
    const char *slash = strchr(mname, '/');
    if (!slash || slash == mname || !slash[1])
        return;
    package_model *m = model_for(p, mname, (size_t)(slash - mname));
    const char *file = slash + 1;
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    const char *s = arena_strdup(a, name);
    if (ends_with(base, ".wrapper.so") || (!m->so_entry && ends_with(base, ".so") && !strchr(file, '/')))
        m->so_entry = s;
    else if (ends_with(base, ".wrapper.cpp"))
        m->wrapper_cpp_entry = s;
    else if (ends_with(base, ".kernel.cpp"))
        m->kernel_cpp_entry = s;
    else if (ends_with(base, ".wrapper_metadata.json"))
        m->metadata_entry = s;
    else if (ends_with(base, "_metadata.json") && !ends_with(base, ".kernel_metadata.json") && !m->metadata_entry)
        m->metadata_entry = s;   /* older naming; kernel metadata is not the package's device record */
    else if (!strcmp(base, "kernel_information.json"))
        m->kernel_info_entry = s;
    else if (ends_with(base, ".wrapper.json"))
        m->proxy_json_entry = s;
    else if (ends_with(base, ".cubin") || ends_with(base, ".hsaco") || ends_with(base, ".spv"))
        push_name(a, &m->cubin_entries, &m->ncubins, s);
    else if (ends_with(base, ".blob") || !strcmp(base, "weights_config.json"))
        push_name(a, &m->weight_entries, &m->nweights, s);
}

static int open_bare_so(package_priv *pp, const char *path, strbuf *err)
{
    package_t *p = &pp->pub;
    char real[PATH_MAX];
    if (pp->src) {   /* on another box: its path as given, nothing looked up beside it here */
        p->is_bare_so = 1;
        p->root = "";
        p->nmodels = 1;
        p->models = arena_alloc(&p->arena, sizeof *p->models);
        package_model *m = &p->models[0];
        m->name = "model";
        m->so_entry = m->so_path = p->path;
        char *dir = arena_strdup(&p->arena, p->path);
        char *sl = strrchr(dir, '/');
        m->model_dir = sl ? (sl == dir ? "/" : (*sl = 0, dir)) : ".";
        return 0;
    }
    if (!realpath(path, real)) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    p->is_bare_so = 1;
    p->root = "";
    p->nmodels = 1;
    p->models = arena_alloc(&p->arena, sizeof *p->models);
    package_model *m = &p->models[0];
    m->name = "model";
    m->so_entry = m->so_path = arena_strdup(&p->arena, real);
    char *dir = arena_strdup(&p->arena, real);
    *strrchr(dir, '/') = 0;
    m->model_dir = dir[0] ? dir : "/";
    /* torch._export.aot_compile leaves <stem>.cpp or <stem>.wrapper.cpp beside the .so */
    const char *stem_end = ends_with(real, ".wrapper.so") ? real + strlen(real) - 11
                           : ends_with(real, ".so") ? real + strlen(real) - 3 : NULL;
    if (stem_end) {
        static const char *const sufs[] = {".wrapper.cpp", ".cpp"};
        for (int i = 0; i < 2 && !m->wrapper_cpp_entry; i++) {
            char *c = arena_printf(&p->arena, "%.*s%s", (int)(stem_end - real), real, sufs[i]);
            if (access(c, R_OK) == 0)
                m->wrapper_cpp_entry = m->wrapper_cpp_path = c;
        }
    }
    char *ki = arena_printf(&p->arena, "%s/kernel_information.json", m->model_dir);
    if (access(ki, R_OK) == 0)
        m->kernel_info_entry = ki;
    return 0;
}

/* libzip's view of a package_source: a seekable, read-only stream. */
static zip_int64_t src_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    package_priv *pp = ud;
    const package_source *s = pp->src;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        pp->src_pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        zip_uint64_t left = s->size - (pp->src_pos < s->size ? pp->src_pos : s->size), done = 0;
        if (len > left)
            len = left;
        while (done < len) {
            strbuf e = STRBUF_INIT;
            long n = s->read(s->ctx, pp->src_pos + done, (char *)data + done, (size_t)(len - done), &e);
            strbuf_release(&e);
            if (n <= 0) {
                zip_error_set(&pp->src_err, ZIP_ER_READ, EIO);
                return -1;
            }
            done += (zip_uint64_t)n;
        }
        pp->src_pos += done;
        return (zip_int64_t)done;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = s->size;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&pp->src_err, data, len);
    case ZIP_SOURCE_SEEK: {
        zip_int64_t at = zip_source_seek_compute_offset(pp->src_pos, s->size, data, len, &pp->src_err);
        if (at < 0)
            return -1;
        pp->src_pos = (zip_uint64_t)at;
        return 0;
    }
    case ZIP_SOURCE_TELL:
        return (zip_int64_t)pp->src_pos;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
                                              ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&pp->src_err, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* zip_open() of the package's file, or of its source. */
static zip_t *open_zip(package_priv *pp, const char *path, int flags, int *zerr)
{
    if (!pp->src)
        return zip_open(path, flags, zerr);
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *zs = zip_source_function_create(src_cb, pp, &ze);
    zip_t *za = zs ? zip_open_from_source(zs, flags, &ze) : NULL;
    if (!za && zs)
        zip_source_free(zs);
    *zerr = zip_error_code_zip(&ze);
    zip_error_fini(&ze);
    return za;
}

static int package_open_impl(package_t **out, const char *path, const package_source *src, strbuf *err);

int package_open(package_t **out, const char *path, strbuf *err)
{
    return package_open_impl(out, path, NULL, err);
}

int package_open_source(package_t **out, const char *path, const package_source *src, strbuf *err)
{
    return package_open_impl(out, path, src, err);
}

static int package_open_impl(package_t **out, const char *path, const package_source *src, strbuf *err)
{
    *out = NULL;
    package_priv *pp = calloc(1, sizeof *pp);
    if (!pp)
        abort();
    package_t *p = &pp->pub;
    p->path = arena_strdup(&p->arena, path);
    if (src) {
        pp->src_store = *src;
        pp->src = &pp->src_store;
        src = pp->src;
    }
    zip_error_init(&pp->src_err);

    unsigned char magic[4] = {0};
    size_t got = 0;
    if (src) {
        snprintf(p->sha256, sizeof p->sha256, "%s", src->sha256 ? src->sha256 : "");
        long n = src->size >= 4 ? src->read(src->ctx, 0, magic, 4, err) : 0;
        if (n < 0)
            goto fail;
        got = (size_t)n;
    } else {
        struct stat st;
        if (stat(path, &st) < 0) {
            strbuf_addf(err, "%s: %s", path, strerror(errno));
            goto fail;
        }
        if (!S_ISREG(st.st_mode)) {
            strbuf_addf(err, "%s: not a regular file; give a .pt2 package or a model .so", path);
            goto fail;
        }
        if (package_sha256_file(path, p->sha256, err) < 0)
            goto fail;
        FILE *f = fopen(path, "rb");
        if (!f) {
            strbuf_addf(err, "%s: %s", path, strerror(errno));
            goto fail;
        }
        got = fread(magic, 1, 4, f);
        fclose(f);
    }
    if (got == 4 && !memcmp(magic, "\x7f" "ELF", 4)) {
        if (open_bare_so(pp, path, err) < 0)
            goto fail;
        *out = p;
        return 0;
    }

    int zerr = 0;
    pp->za = open_zip(pp, path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!pp->za && zerr == ZIP_ER_EXISTS) {
        /* libzip saw two entries with one name; reopen without the check only to name it. */
        int e2 = 0;
        zip_t *z2 = open_zip(pp, path, ZIP_RDONLY, &e2);
        zip_int64_t n2 = z2 ? zip_get_num_entries(z2, 0) : 0;
        const char *dup = NULL;
        if (z2 && n2 > 0 && n2 <= PACKAGE_MAX_ENTRIES) {
            const char **nm = arena_alloc(&p->arena, (size_t)n2 * sizeof *nm);
            for (zip_int64_t i = 0; i < n2; i++) {
                const char *s = zip_get_name(z2, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
                nm[i] = arena_strdup(&p->arena, s ? s : "");
            }
            qsort(nm, (size_t)n2, sizeof *nm, cmp_str);
            for (zip_int64_t i = 1; i < n2 && !dup; i++)
                if (!strcmp(nm[i], nm[i - 1]))
                    dup = nm[i];
        }
        if (z2)
            zip_discard(z2);
        strbuf_addf(err, "%s: entry '%s' appears twice; refusing an ambiguous archive", path,
                    dup ? dup : "(unknown)");
        goto fail;
    }
    if (!pp->za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        strbuf_addf(err, "%s: not a readable .pt2 package (zip): %s%s", path, zip_error_strerror(&ze),
                    zerr == ZIP_ER_NOZIP || zerr == ZIP_ER_INCONS || zerr == ZIP_ER_READ
                        ? "; the file may be truncated or not a zip: copy it again or rebuild it with "
                          "torch._inductor.aoti_compile_and_package"
                        : "");
        zip_error_fini(&ze);
        goto fail;
    }
    zip_int64_t n = zip_get_num_entries(pp->za, 0);
    if (n <= 0) {
        strbuf_addf(err, "%s: the archive has no entries", path);
        goto fail;
    }
    if (n > PACKAGE_MAX_ENTRIES) {
        strbuf_addf(err, "%s: %lld entries, over the limit of %d; refusing to read it", path, (long long)n,
                    PACKAGE_MAX_ENTRIES);
        goto fail;
    }
    p->nentries = (size_t)n;
    const char **names = arena_alloc(&p->arena, (size_t)n * sizeof *names);
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t zs;
        if (zip_stat_index(pp->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW, &zs) < 0 || !(zs.valid & ZIP_STAT_NAME)) {
            strbuf_addf(err, "%s: entry #%lld: cannot read its header: %s", path, (long long)i, zip_strerror(pp->za));
            goto fail;
        }
        const char *name = zs.name;
        const char *why = path_unsafe_entry(name);
        if (why) {
            strbuf_addf(err, "%s: entry '%s' refused: %s; nothing was extracted", path, name, why);
            goto fail;
        }
        zip_uint8_t opsys;
        zip_uint32_t attr;
        if (zip_file_get_external_attributes(pp->za, (zip_uint64_t)i, 0, &opsys, &attr) == 0 &&
            opsys == ZIP_OPSYS_UNIX) {
            mode_t mode = (mode_t)(attr >> 16);
            if (S_ISLNK(mode)) {
                strbuf_addf(err, "%s: entry '%s' refused: it is a symbolic link; nothing was extracted", path, name);
                goto fail;
            }
            if (mode & S_IFMT && !S_ISREG(mode) && !S_ISDIR(mode)) {
                strbuf_addf(err, "%s: entry '%s' refused: not a regular file or folder", path, name);
                goto fail;
            }
        }
        uint64_t size = (zs.valid & ZIP_STAT_SIZE) ? zs.size : 0;
        uint64_t csize = (zs.valid & ZIP_STAT_COMP_SIZE) ? zs.comp_size : 0;
        if (size > PACKAGE_MAX_ENTRY_BYTES) {
            strbuf_addf(err, "%s: entry '%s' refused: %llu bytes uncompressed, over the %llu-byte limit", path,
                        name, (unsigned long long)size, (unsigned long long)PACKAGE_MAX_ENTRY_BYTES);
            goto fail;
        }
        /* Ratio only matters for big entries: a bomb is big by definition. */
        if (size > (1u << 20) && size / (csize ? csize : 1) > PACKAGE_MAX_RATIO) {
            strbuf_addf(err, "%s: entry '%s' refused: compression ratio %llu:1 (%llu bytes from %llu) is over "
                        "%d:1 (zip bomb?)", path, name, (unsigned long long)(size / (csize ? csize : 1)),
                        (unsigned long long)size, (unsigned long long)csize, PACKAGE_MAX_RATIO);
            goto fail;
        }
        total += size;
        if (total > PACKAGE_MAX_TOTAL_BYTES) {
            strbuf_addf(err, "%s: entries up to '%s' add up to more than %llu bytes uncompressed; refusing", path,
                        name, (unsigned long long)PACKAGE_MAX_TOTAL_BYTES);
            goto fail;
        }
        names[i] = arena_strdup(&p->arena, name);
    }
    const char **sorted = arena_memdup(&p->arena, names, (size_t)n * sizeof *names);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
    for (zip_int64_t i = 1; i < n; i++)
        if (!strcmp(sorted[i], sorted[i - 1])) {
            strbuf_addf(err, "%s: entry '%s' appears twice; refusing an ambiguous archive", path, sorted[i]);
            goto fail;
        }
    const char *slash = strchr(names[0], '/');
    if (!slash) {
        strbuf_addf(err, "%s: entry '%s' is not under a root folder; not a .pt2 package", path, names[0]);
        goto fail;
    }
    p->root = arena_strndup(&p->arena, names[0], (size_t)(slash - names[0]) + 1);
    for (zip_int64_t i = 0; i < n; i++)
        if (!starts_with(names[i], p->root)) {
            strbuf_addf(err, "%s: entry '%s' is outside the root folder '%s'", path, names[i], p->root);
            goto fail;
        }
    /* Models first (so shared weights attach to each), then their files. */
    for (zip_int64_t i = 0; i < n; i++) {
        const char *rest = names[i] + strlen(p->root);
        if (starts_with(rest, "data/aotinductor/")) {
            const char *mn = rest + strlen("data/aotinductor/");
            const char *s = strchr(mn, '/');
            if (s && s > mn && s[1])
                model_for(p, mn, (size_t)(s - mn));
        }
    }
    for (zip_int64_t i = 0; i < n; i++)
        classify(p, names[i]);
    if (p->nmodels == 0) {
        strbuf_addf(err, "%s: no model under %sdata/aotinductor/; not an AOTInductor package "
                    "(make one with torch._inductor.aoti_compile_and_package)", path, p->root);
        goto fail;
    }
    for (size_t i = 0; i < p->nmodels; i++) {
        package_model *m = &p->models[i];
        if (m->metadata_entry && read_metadata(pp, m, err) < 0)
            goto fail;
    }
    *out = p;
    return 0;
fail:
    package_close(p);
    return -1;
}

const char *package_trace_source(const package_t *p, const package_model *m)
{
    const package_priv *pp = (const package_priv *)p;
    return m->wrapper_cpp_path ? m->wrapper_cpp_path : p->is_bare_so || pp->src ? NULL : p->path;
}

package_model *package_find_model(package_t *p, const char *name, strbuf *err)
{
    if (!name) {
        if (p->nmodels == 1)
            return &p->models[0];
        for (size_t i = 0; i < p->nmodels; i++)
            if (!strcmp(p->models[i].name, "model"))
                return &p->models[i];
        strbuf_addf(err, "%s: %zu models and none is called 'model'; name one:", p->path, p->nmodels);
    } else {
        for (size_t i = 0; i < p->nmodels; i++)
            if (!strcmp(p->models[i].name, name))
                return &p->models[i];
        strbuf_addf(err, "%s: no model '%s'; the package has:", p->path, name);
    }
    for (size_t i = 0; i < p->nmodels; i++)
        strbuf_addf(err, " %s", p->models[i].name);
    return NULL;
}

/* Opens (creating) the folder chain `rel` under dirfd, refusing links. */
static int open_dirs(int dirfd, const char *rel, strbuf *err, const char *entry)
{
    int fd = dup(dirfd);
    char comp[1100];
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        size_t n = (size_t)(slash - p);
        if (n >= sizeof comp) {
            strbuf_addf(err, "%s: path component too long", entry);
            close(fd);
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
            strbuf_addf(err, "%s: cannot create folder: %s", entry, strerror(errno));
            close(fd);
            return -1;
        }
        int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        if (nfd < 0) {
            strbuf_addf(err, "%s: cannot open folder: %s", entry, strerror(errno));
            return -1;
        }
        fd = nfd;
        p = slash + 1;
    }
    return fd;
}

static int extract_one(package_priv *pp, int topfd, zip_int64_t idx, const char *name, strbuf *err)
{
    const char *rel = name + strlen(pp->pub.root);
    if (ends_with(rel, "/")) {
        int d = open_dirs(topfd, rel, err, name);
        if (d < 0)
            return -1;
        close(d);
        return 0;
    }
    zip_stat_t st;
    if (zip_stat_index(pp->za, (zip_uint64_t)idx, 0, &st) < 0) {
        strbuf_addf(err, "%s: %s: %s", pp->pub.path, name, zip_strerror(pp->za));
        return -1;
    }
    uint64_t declared = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    int dfd = open_dirs(topfd, rel, err, name);
    if (dfd < 0)
        return -1;
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    int mode = ends_with(base, ".so") ? 0700 : 0600;
    int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    close(dfd);
    if (fd < 0) {
        strbuf_addf(err, "%s: %s: cannot create: %s", pp->pub.path, name, strerror(errno));
        return -1;
    }
    zip_file_t *zf = zip_fopen_index(pp->za, (zip_uint64_t)idx, 0);
    if (!zf) {
        strbuf_addf(err, "%s: %s: cannot open entry: %s", pp->pub.path, name, zip_strerror(pp->za));
        close(fd);
        return -1;
    }
    char buf[1 << 16];
    uint64_t total = 0;
    int rc = 0;
    for (;;) {
        zip_int64_t n = zip_fread(zf, buf, sizeof buf);
        if (n < 0) {
            strbuf_addf(err, "%s: %s: read failed (truncated or corrupt archive?): %s", pp->pub.path, name,
                        zip_file_strerror(zf));
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        /* Don't trust the header: stop at what it declared and at the cap. */
        if (total > declared || total > PACKAGE_MAX_ENTRY_BYTES) {
            strbuf_addf(err, "%s: %s: holds more data than its header declares (%llu bytes); refusing",
                        pp->pub.path, name, (unsigned long long)declared);
            rc = -1;
            break;
        }
        for (char *q = buf; n > 0;) {
            ssize_t w = write(fd, q, (size_t)n);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                strbuf_addf(err, "%s: %s: write failed: %s", pp->pub.path, name, strerror(errno));
                rc = -1;
                break;
            }
            q += w;
            n -= w;
        }
        if (rc)
            break;
    }
    zip_fclose(zf);
    if (close(fd) < 0 && !rc) {
        strbuf_addf(err, "%s: %s: write failed: %s", pp->pub.path, name, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* The private folder entries are written to (removed by package_close and at exit). */
static int make_extract_dir(package_t *p, strbuf *err)
{
    if (p->extract_dir)
        return 0;
    const char *tmp = getenv("TMPDIR");
    char *tmpl = arena_printf(&p->arena, "%s/aotidbg-pkg-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        strbuf_addf(err, "cannot create a temporary folder %s: %s", tmpl, strerror(errno));
        return -1;
    }
    p->extract_dir = tmpl;
    if (!atexit_registered) {
        atexit(cleanup_at_exit);
        atexit_registered = 1;
    }
    track_dir(p->extract_dir, 1);
    return 0;
}

const char *package_mirror_entry(package_t *p, const char *entry, size_t max, strbuf *err)
{
    if (!entry || p->is_bare_so || make_extract_dir(p, err) < 0)
        return NULL;
    strbuf sb = STRBUF_INIT;
    const char *out = NULL;
    if (package_read_entry(p, entry, max, &sb, err) == 0) {
        int top = open(p->extract_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const char *rel = entry + strlen(p->root);
        int dfd = top < 0 ? -1 : open_dirs(top, rel, err, entry);
        const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
        int fd = dfd < 0 ? -1 : openat(dfd, base, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        int ok = fd >= 0 && write(fd, sb.buf, sb.len) == (ssize_t)sb.len;
        if (fd >= 0 && close(fd) != 0)
            ok = 0;
        if (ok)
            out = arena_printf(&p->arena, "%s/%s", p->extract_dir, rel);
        else if (dfd >= 0)
            strbuf_addf(err, "%s: cannot write a copy of %s: %s", p->extract_dir, entry, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        if (top >= 0)
            close(top);
    }
    strbuf_release(&sb);
    return out;
}

int package_extract(package_t *p, package_model *m, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (p->is_bare_so)
        return 0;   /* paths already point at the file and its folder */
    if (pp->src) {
        strbuf_addf(err, "%s: extracted where it is, not here (package_open_source)", p->path);
        return -1;
    }
    if (!m->so_entry) {
        strbuf_addf(err, "%s: model '%s' has no <key>.wrapper.so under %sdata/aotinductor/%s/; rebuild the package",
                    p->path, m->name, p->root, m->name);
        return -1;
    }
    if (make_extract_dir(p, err) < 0)
        return -1;
    int topfd = open(p->extract_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (topfd < 0) {
        strbuf_addf(err, "%s: %s", p->extract_dir, strerror(errno));
        return -1;
    }
    char *mprefix = arena_printf(&p->arena, "%sdata/aotinductor/%s/", p->root, m->name);
    char *wprefix = arena_printf(&p->arena, "%sdata/weights/", p->root);
    char *cprefix = arena_printf(&p->arena, "%sdata/constants/", p->root);
    int rc = 0;
    for (zip_uint64_t i = 0; i < p->nentries && !rc; i++) {
        const char *name = zip_get_name(pp->za, i, ZIP_FL_ENC_RAW);
        if (!name)
            continue;
        if (!starts_with(name, mprefix) && !starts_with(name, wprefix) && !starts_with(name, cprefix))
            continue;
        /* Already extracted (a second model sharing weights)? O_EXCL would refuse it. */
        struct stat st;
        if (fstatat(topfd, name + strlen(p->root), &st, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        rc = extract_one(pp, topfd, (zip_int64_t)i, name, err);
    }
    close(topfd);
    if (rc)
        return -1;
    m->model_dir = arena_printf(&p->arena, "%s/data/aotinductor/%s", p->extract_dir, m->name);
    m->so_path = arena_printf(&p->arena, "%s/%s", p->extract_dir, m->so_entry + strlen(p->root));
    if (m->wrapper_cpp_entry)
        m->wrapper_cpp_path = arena_printf(&p->arena, "%s/%s", p->extract_dir, m->wrapper_cpp_entry + strlen(p->root));
    return 0;
}

void package_close(package_t *p)
{
    if (!p)
        return;
    package_priv *pp = (package_priv *)p;
    if (pp->za)
        zip_discard(pp->za);
    zip_error_fini(&pp->src_err);
    if (pp->src && pp->src->release)
        pp->src->release(pp->src->ctx);
    if (p->extract_dir) {
        remove_tree(p->extract_dir);
        track_dir(p->extract_dir, 0);
    }
    arena_release(&p->arena);
    free(pp);
}
