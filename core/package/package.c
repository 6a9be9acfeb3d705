/* package.c — the .pt2 reader (see package.h for the contract).
 *
 * Owns: opening a package with libzip, validating every entry before anything
 * is written (names, links, duplicates, sizes, compression ratio), classifying
 * entries into models, reading <key>.wrapper_metadata.json with cJSON, the
 * private extraction folder and its cleanup, and the package's SHA-256.
 * Errors: 0 / -1 with a message in `err` that names the package and entry. */
#define _GNU_SOURCE
#include "private_dir.h"
#include "package.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include "paths.h"
#include "zip_readat.h"
#include "compat.h"

#define META_MAX_BYTES (1u << 20)

/* The public struct first, so a package_t* is also a package_priv*. */
typedef struct {
    package_t pub;
    zip_t *za;                 /* NULL for a bare .so */
    const package_source *src; /* package_open_source (&src_store); NULL for a local file */
    package_source src_store;
    zip_readat src_zip;        /* libzip's stream over src */
    int fd;                    /* the local file, opened once (libzip reads a dup); -1 for src */
    /* the SHA-256 thread (package_sha256_start): it preads fd and writes
     * hash_rc, hex and hash_err, which are read only after the join */
    pthread_t hasher;
    int hashing, hashed;       /* thread started; result (hex or hash_err) final */
    atomic_int cancel;
    atomic_int hash_done;      /* the thread has returned (its result can be joined now) */
    int hash_rc;
    char hex[65];
    strbuf hash_err;
    struct extract_job *xj;    /* the extraction thread's job (package_extract_start); NULL when none */
} package_priv;

/* One extraction: the entries of a model's folder and the shared weights, in
 * archive order. Run by the caller (package_extract) or by a thread with its own
 * zip handle on its own open of the file (package_extract_start): libzip's
 * handles are not shared between threads, nor are file offsets. */
typedef struct extract_job {
    package_model *m;
    zip_t *za;                 /* the thread's; the package's own for package_extract */
    int topfd;
    size_t n;
    zip_uint64_t *idx;         /* entries to write (arena) */
    const char **names;
    uint64_t total;            /* their declared bytes */
    atomic_ullong done;
    atomic_int cancel;
    atomic_int finished;       /* the thread is done: rc and err are final */
    int rc;
    strbuf err;
    pthread_t th;
    int notify[2];             /* written once the thread ends */
} extract_job;

/* ---- SHA-256 with libcrypto, off the load path ----
 * A package's hash identifies it in sessions and the rebuild cache, but it reads
 * every byte: package_sha256_start() runs it on a thread while the caller
 * extracts, checks and loads, and package_sha256() waits for it. */
#define HASH_CHUNK (1u << 20)

/* Hex SHA-256 of the file open as fd (read with pread: the offset others use
 * is left alone); -1 with err. *cancel (may be NULL) stops it early. */
static int sha256_fd(int fd, const char *path, char hex[65], const atomic_int *cancel, strbuf *err)
{
    unsigned char *buf = xmalloc(HASH_CHUNK), md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int rc = -1;
    if (!buf || !c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
        strbuf_addf(err, "%s: cannot start SHA-256 (libcrypto)", path);
        goto out;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (off_t at = 0;;) {
        if (cancel && atomic_load(cancel)) {
            strbuf_addf(err, "%s: hashing stopped", path);
            goto out;
        }
        ssize_t n = pread(fd, buf, HASH_CHUNK, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            strbuf_addf(err, "%s: read error: %s", path, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        at += n;
        EVP_DigestUpdate(c, buf, (size_t)n);
    }
    if (!EVP_DigestFinal_ex(c, md, &mdlen) || mdlen != 32) {
        strbuf_addf(err, "%s: SHA-256 failed (libcrypto)", path);
        goto out;
    }
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    rc = 0;
out:
    EVP_MD_CTX_free(c);
    free(buf);
    return rc;
}

int package_sha256_file(const char *path, char hex[65], strbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        strbuf_addf(err, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    int rc = sha256_fd(fd, path, hex, NULL, err);
    close(fd);
    return rc;
}

static void *hash_main(void *arg)
{
    package_priv *pp = arg;
    pp->hash_rc = sha256_fd(pp->fd, pp->pub.path, pp->hex, &pp->cancel, &pp->hash_err);
    atomic_store(&pp->hash_done, 1);
    return NULL;
}

void package_sha256_start(package_t *p)
{
    package_priv *pp = (package_priv *)p;
    if (pp->hashing || pp->hashed)
        return;
    if (pthread_create(&pp->hasher, NULL, hash_main, pp) == 0)
        pp->hashing = 1;   /* else package_sha256() hashes on the caller's thread */
}

const char *package_sha256(package_t *p, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (!pp->hashed) {
        if (pp->hashing)
            pthread_join(pp->hasher, NULL);
        else
            pp->hash_rc = sha256_fd(pp->fd, p->path, pp->hex, NULL, &pp->hash_err);
        pp->hashing = 0;
        pp->hashed = 1;
    }
    if (pp->hash_rc) {
        strbuf_addstr(err, pp->hash_err.buf);
        return NULL;
    }
    return pp->hex;
}

void package_to_session(const package_t *p, const package_model *m, session *s)
{
    s->package.path = arena_strdup(&s->arena, p->path);
    s->package.model = arena_strdup(&s->arena, m->name);
    s->package.device_key = arena_strdup(&s->arena, m->device_key);
    s->package.compute_capability = arena_strdup(&s->arena, m->compute_capability);
    s->package.cpu_isa = arena_strdup(&s->arena, m->cpu_isa);
}

const char *package_sha256_ready(package_t *p)
{
    package_priv *pp = (package_priv *)p;
    if (pp->hashing && !atomic_load(&pp->hash_done))
        return NULL;
    if (!pp->hashing && !pp->hashed)
        return NULL;
    strbuf err = STRBUF_INIT;
    const char *sha = package_sha256(p, &err);
    strbuf_release(&err);
    return sha;
}

void package_sha256_to_session(package_t *p, session *s)
{
    strbuf err = STRBUF_INIT;
    const char *sha = package_sha256(p, &err);
    if (sha)
        s->package.sha256 = arena_strdup(&s->arena, sha);
    else
        session_add_note(s, arena_printf(&s->arena, "no package sha256: %s", err.buf));
    strbuf_release(&err);
}

/* ---- cleanup of extraction folders, also at exit ---- */
#define MAX_LIVE_DIRS 64
static char *live_dirs[MAX_LIVE_DIRS];
static int atexit_registered;

static void remove_tree(const char *dir)
{
    private_dir_remove(dir);
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
        if (sb)
            strbuf_add(sb, buf, (size_t)n);
    }
    zip_fclose(zf);
    return 0;
}

int package_entry_intact(package_t *p, const char *entry, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (!pp->za || !entry)
        return 0;   /* a bare .so: no archive, no CRC */
    zip_int64_t idx = zip_name_locate(pp->za, entry, 0);
    if (idx < 0) {
        strbuf_addf(err, "%s: no entry '%s' in the archive", p->path, entry);
        return -1;
    }
    return read_zip_entry(pp, idx, entry, SIZE_MAX, NULL, err);
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

struct package_entry {
    package_priv *pp;
    zip_int64_t idx;
    zip_file_t *zf;            /* NULL for a bare .so (pp->fd or pp->src is the file) */
    int seekable;              /* stored: zip_fseek works */
    uint64_t pos, size;
    const char *name;
};

int package_entry_open(package_t *p, const char *entry, package_entry **out, uint64_t *size, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    *out = NULL;
    package_entry *e = xcalloc(1, sizeof *e);
    e->pp = pp;
    e->name = entry;
    if (!pp->za && pp->src) {   /* bare .so on another box */
        e->size = pp->src->size;
    } else if (!pp->za) {   /* bare .so: its one entry is the file itself */
        struct stat st;
        if (fstat(pp->fd, &st) < 0) {
            strbuf_addf(err, "%s: %s", p->path, strerror(errno));
            free(e);
            return -1;
        }
        e->size = (uint64_t)st.st_size;
    } else {
        zip_stat_t st;
        if ((e->idx = zip_name_locate(pp->za, entry, 0)) < 0 || zip_stat_index(pp->za, (zip_uint64_t)e->idx, 0, &st) < 0
            || !(st.valid & ZIP_STAT_SIZE) || !(e->zf = zip_fopen_index(pp->za, (zip_uint64_t)e->idx, 0))) {
            strbuf_addf(err, "%s: %s: cannot open entry: %s", p->path, entry, zip_strerror(pp->za));
            free(e);
            return -1;
        }
        e->size = st.size;
        e->seekable = (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
    }
    *size = e->size;
    *out = e;
    return 0;
}

int package_entry_read_at(void *entry, uint64_t off, void *buf, size_t n, strbuf *err)
{
    package_entry *e = entry;
    const char *path = e->pp->pub.path;
    if (off > e->size || n > e->size - off) {
        strbuf_addf(err, "%s: %s: bytes %llu..%llu are past its end", path, e->name, (unsigned long long)off,
                    (unsigned long long)(off + n));
        return -1;
    }
    const package_source *src = e->pp->src;
    if (!e->zf) {
        for (size_t got = 0; got < n;) {
            ssize_t r = src ? src->read(src->ctx, off + got, (char *)buf + got, n - got, err)
                            : pread(e->pp->fd, (char *)buf + got, n - got, (off_t)(off + got));
            if (r < 0 && src)
                return -1;
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                strbuf_addf(err, "%s: read error: %s", path, r ? strerror(errno) : "the file got shorter");
                return -1;
            }
            got += (size_t)r;
        }
        return 0;
    }
    if (e->pos != off && e->seekable && zip_fseek(e->zf, (zip_int64_t)off, SEEK_SET) == 0)
        e->pos = off;
    if (e->pos > off) {   /* compressed, going back: read again from the start */
        zip_fclose(e->zf);
        if (!(e->zf = zip_fopen_index(e->pp->za, (zip_uint64_t)e->idx, 0))) {
            strbuf_addf(err, "%s: %s: cannot open entry: %s", path, e->name, zip_strerror(e->pp->za));
            return -1;
        }
        e->pos = 0;
    }
    char skip[1 << 16];
    while (e->pos < off || n) {
        int skipping = e->pos < off;
        uint64_t want = skipping ? off - e->pos : n;
        if (skipping && want > sizeof skip)
            want = sizeof skip;
        zip_int64_t r = zip_fread(e->zf, skipping ? skip : buf, want);
        if (r <= 0) {
            strbuf_addf(err, "%s: %s: read failed (truncated or corrupt archive?): %s", path, e->name,
                        r < 0 ? zip_file_strerror(e->zf) : "ends early");
            return -1;
        }
        e->pos += (uint64_t)r;
        if (!skipping) {
            buf = (char *)buf + r;
            n -= (size_t)r;
        }
    }
    return 0;
}

void package_entry_close(package_entry *e)
{
    if (!e)
        return;
    if (e->zf)
        zip_fclose(e->zf);
    free(e);
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
    m->torch_version = json_str(a, j, "AOTI_TORCH_VERSION");
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
    else if (!strcmp(file, "CMakeLists.txt"))
        m->cmake_entry = s;
    else if (ends_with(base, ".wrapper.json"))
        m->proxy_json_entry = s;
    else if (ends_with(base, ".cubin") || ends_with(base, ".hsaco") || ends_with(base, ".spv"))
        push_name(a, &m->cubin_entries, &m->ncubins, s);
    else if (ends_with(base, ".blob") || !strcmp(base, "weights_config.json"))
        push_name(a, &m->weight_entries, &m->nweights, s);
}

/* A bare .so's one model: the file itself, in its folder. */
static package_model *bare_model(package_t *p, const char *so)
{
    p->is_bare_so = 1;
    p->root = "";
    p->nmodels = 1;
    p->models = arena_alloc(&p->arena, sizeof *p->models);
    package_model *m = &p->models[0];
    m->name = "model";
    m->so_entry = m->so_path = arena_strdup(&p->arena, so);
    char *dir = arena_strdup(&p->arena, so);
    char *sl = strrchr(dir, '/');
    m->model_dir = sl ? (sl == dir ? "/" : (*sl = 0, dir)) : ".";
    return m;
}

static int open_bare_so(package_priv *pp, const char *path, strbuf *err)
{
    package_t *p = &pp->pub;
    char real[PATH_MAX];
    if (pp->src) {   /* on another box: its path as given, nothing looked up beside it here */
        bare_model(p, p->path);
        return 0;
    }
    if (!realpath(path, real)) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    package_model *m = bare_model(p, real);
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

/* zip_open() of the package's file, or of its source. */
static zip_t *open_zip(package_priv *pp, const char *path, int flags, int *zerr)
{
    if (!pp->src) {   /* the file opened once; zip_fdopen closes its fd on success only */
        (void)path;
        int zfd = dup(pp->fd);
        zip_t *za = zfd < 0 ? NULL : zip_fdopen(zfd, flags & ZIP_CHECKCONS, zerr);
        if (zfd < 0)
            *zerr = ZIP_ER_OPEN;
        else if (!za)
            close(zfd);
        return za;
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_t *za = zip_readat_open(&pp->src_zip, flags, &ze);
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

/* Step 1: the first 4 bytes (ELF or zip?) and the hash's source: the file, opened once, or the
 * remote side's hash. Returns how many magic bytes were read, -1 on error. */
static long read_magic(package_priv *pp, const char *path, unsigned char magic[4], strbuf *err)
{
    const package_source *src = pp->src;
    if (src) {   /* hashed where the file is */
        pp->hashed = 1;
        pp->hash_rc = src->sha256 && strlen(src->sha256) == 64 ? 0 : -1;
        if (pp->hash_rc)
            strbuf_addf(&pp->hash_err, "%s: the remote side gave no SHA-256", path);
        else
            memcpy(pp->hex, src->sha256, 65);
        return src->size >= 4 ? src->read(src->ctx, 0, magic, 4, err) : 0;
    }
    /* O_NONBLOCK: a FIFO put in the package's place must not hang the open */
    pp->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (pp->fd < 0 || fstat(pp->fd, &st) < 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        strbuf_addf(err, "%s: not a regular file; give a .pt2 package or a model .so", path);
        return -1;
    }
    ssize_t n = pread(pp->fd, magic, 4, 0);
    return n > 0 ? n : 0;
}

/* Step 2: the zip, with libzip's consistency check; an archive with a name twice is refused
 * naming it. */
static int open_archive(package_priv *pp, const char *path, strbuf *err)
{
    package_t *p = &pp->pub;
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
        return -1;
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
        return -1;
    }
    return 0;
}

/* Step 3, per entry: nothing unsafe (paths, links, devices), nothing too big (size, ratio). */
static int check_entry(package_priv *pp, const char *path, zip_int64_t i, const char **name, uint64_t *total,
                       strbuf *err)
{
    zip_stat_t zs;
    if (zip_stat_index(pp->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW, &zs) < 0 || !(zs.valid & ZIP_STAT_NAME)) {
        strbuf_addf(err, "%s: entry #%lld: cannot read its header: %s", path, (long long)i, zip_strerror(pp->za));
        return -1;
    }
    *name = zs.name;
    const char *why = path_unsafe_entry(zs.name);
    if (why) {
        strbuf_addf(err, "%s: entry '%s' refused: %s; nothing was extracted", path, zs.name, why);
        return -1;
    }
    zip_uint8_t opsys;
    zip_uint32_t attr;
    if (zip_file_get_external_attributes(pp->za, (zip_uint64_t)i, 0, &opsys, &attr) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
        mode_t mode = (mode_t)(attr >> 16);
        if (S_ISLNK(mode)) {
            strbuf_addf(err, "%s: entry '%s' refused: it is a symbolic link; nothing was extracted", path, zs.name);
            return -1;
        }
        if (mode & S_IFMT && !S_ISREG(mode) && !S_ISDIR(mode)) {
            strbuf_addf(err, "%s: entry '%s' refused: not a regular file or folder", path, zs.name);
            return -1;
        }
    }
    uint64_t size = (zs.valid & ZIP_STAT_SIZE) ? zs.size : 0;
    uint64_t csize = (zs.valid & ZIP_STAT_COMP_SIZE) ? zs.comp_size : 0;
    if (size > PACKAGE_MAX_ENTRY_BYTES) {
        strbuf_addf(err, "%s: entry '%s' refused: %llu bytes uncompressed, over the %llu-byte limit", path,
                    zs.name, (unsigned long long)size, (unsigned long long)PACKAGE_MAX_ENTRY_BYTES);
        return -1;
    }
    /* Ratio only matters for big entries: a bomb is big by definition. */
    if (size > (1u << 20) && size / (csize ? csize : 1) > PACKAGE_MAX_RATIO) {
        strbuf_addf(err, "%s: entry '%s' refused: compression ratio %llu:1 (%llu bytes from %llu) is over "
                    "%d:1 (zip bomb?)", path, zs.name, (unsigned long long)(size / (csize ? csize : 1)),
                    (unsigned long long)size, (unsigned long long)csize, PACKAGE_MAX_RATIO);
        return -1;
    }
    *total += size;
    if (*total > PACKAGE_MAX_TOTAL_BYTES) {
        strbuf_addf(err, "%s: entries up to '%s' add up to more than %llu bytes uncompressed; refusing", path,
                    zs.name, (unsigned long long)PACKAGE_MAX_TOTAL_BYTES);
        return -1;
    }
    return 0;
}

/* Step 3: every entry checked, no name twice, all under one root folder. Returns the names
 * (in p's arena) or NULL. */
static const char **read_entries(package_priv *pp, const char *path, strbuf *err)
{
    package_t *p = &pp->pub;
    zip_int64_t n = zip_get_num_entries(pp->za, 0);
    if (n <= 0) {
        strbuf_addf(err, "%s: the archive has no entries", path);
        return NULL;
    }
    if (n > PACKAGE_MAX_ENTRIES) {
        strbuf_addf(err, "%s: %lld entries, over the limit of %d; refusing to read it", path, (long long)n,
                    PACKAGE_MAX_ENTRIES);
        return NULL;
    }
    p->nentries = (size_t)n;
    const char **names = arena_alloc(&p->arena, (size_t)n * sizeof *names);
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name;
        if (check_entry(pp, path, i, &name, &total, err) < 0)
            return NULL;
        names[i] = arena_strdup(&p->arena, name);
    }
    const char **sorted = arena_memdup(&p->arena, names, (size_t)n * sizeof *names);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
    for (zip_int64_t i = 1; i < n; i++)
        if (!strcmp(sorted[i], sorted[i - 1])) {
            strbuf_addf(err, "%s: entry '%s' appears twice; refusing an ambiguous archive", path, sorted[i]);
            return NULL;
        }
    const char *slash = strchr(names[0], '/');
    if (!slash) {
        strbuf_addf(err, "%s: entry '%s' is not under a root folder; not a .pt2 package", path, names[0]);
        return NULL;
    }
    p->root = arena_strndup(&p->arena, names[0], (size_t)(slash - names[0]) + 1);
    for (zip_int64_t i = 0; i < n; i++)
        if (!starts_with(names[i], p->root)) {
            strbuf_addf(err, "%s: entry '%s' is outside the root folder '%s'", path, names[i], p->root);
            return NULL;
        }
    return names;
}

/* Step 4: the models (first, so shared weights attach to each), their files, their metadata. */
static int find_models(package_priv *pp, const char *path, const char **names, strbuf *err)
{
    package_t *p = &pp->pub;
    for (size_t i = 0; i < p->nentries; i++) {
        const char *rest = names[i] + strlen(p->root);
        if (starts_with(rest, "data/aotinductor/")) {
            const char *mn = rest + strlen("data/aotinductor/");
            const char *s = strchr(mn, '/');
            if (s && s > mn && s[1])
                model_for(p, mn, (size_t)(s - mn));
        }
    }
    for (size_t i = 0; i < p->nentries; i++)
        classify(p, names[i]);
    if (p->nmodels == 0) {
        strbuf_addf(err, "%s: no model under %sdata/aotinductor/; not an AOTInductor package "
                    "(make one with torch._inductor.aoti_compile_and_package)", path, p->root);
        return -1;
    }
    for (size_t i = 0; i < p->nmodels; i++) {
        package_model *m = &p->models[i];
        if (m->metadata_entry && read_metadata(pp, m, err) < 0)
            return -1;
    }
    return 0;
}

static int package_open_impl(package_t **out, const char *path, const package_source *src, strbuf *err)
{
    *out = NULL;
    package_priv *pp = xcalloc(1, sizeof *pp);
    package_t *p = &pp->pub;
    p->path = arena_strdup(&p->arena, path);
    pp->fd = -1;
    strbuf_init(&pp->hash_err, 0);
    if (src) {
        pp->src_store = *src;
        pp->src = &pp->src_store;
        zip_readat_init(&pp->src_zip, pp->src->read, pp->src->ctx, pp->src->size);
    }
    unsigned char magic[4] = {0};
    long got = read_magic(pp, path, magic, err);
    if (got < 0)
        goto fail;
    if (got == 4 && !memcmp(magic, "\x7f" "ELF", 4)) {
        if (open_bare_so(pp, path, err) < 0)
            goto fail;
        *out = p;
        return 0;
    }
    const char **names;
    if (open_archive(pp, path, err) < 0 || !(names = read_entries(pp, path, err)) ||
        find_models(pp, path, names, err) < 0)
        goto fail;
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

void package_cpp_only_help(const package_t *p, const package_model *m, strbuf *out)
{
    const char *dir = "/tmp/aoti_build";
    strbuf_addf(out, "model '%s' was built with aot_inductor.package_cpp_only=True: the package holds its "
                "sources (%s, %s) and no .so to load. Build the .so with CMake 3.27 or newer (its "
                "CMakeLists.txt asks for it; `pip install cmake` gives one) and this machine's torch, then debug "
                "that: unzip -o '%s' '%sdata/aotinductor/%s/*' -d %s && cmake -S "
                "%s/%sdata/aotinductor/%s -B %s/build -DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch; "
                "print(torch.utils.cmake_prefix_path)')\" && cmake --build %s/build && aotidbg run "
                "%s/build/libaoti_model.so --device %s --inputs SPEC (or rebuild the package without "
                "package_cpp_only)", m->name, m->wrapper_cpp_entry ? "wrapper.cpp" : "C++ sources",
                m->cmake_entry ? "CMakeLists.txt" : "no CMakeLists.txt", p->path, p->root, m->name, dir, dir, p->root,
                m->name, dir, dir, dir, m->device_key && !strncmp(m->device_key, "cuda", 4) ? "cuda" : "cpu");
}

package_model *package_find_model(package_t *p, const char *name, strbuf *err)
{
    if (!name) {
        if (p->nmodels == 1)
            return &p->models[0];
        for (size_t i = 0; i < p->nmodels; i++)
            if (!strcmp(p->models[i].name, "model"))
                return &p->models[i];
        strbuf_addf(err, "%s holds %zu models and none is called 'model'; pick one with --model NAME:", p->path,
                    p->nmodels);
    } else {
        for (size_t i = 0; i < p->nmodels; i++)
            if (!strcmp(p->models[i].name, name))
                return &p->models[i];
        strbuf_addf(err, "%s: no model '%s'; pick one with --model NAME:", p->path, name);
    }
    for (size_t i = 0; i < p->nmodels; i++)
        strbuf_addf(err, "%s %s", i ? "," : "", p->models[i].name);
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

static int extract_one(package_priv *pp, extract_job *j, zip_int64_t idx, const char *name, strbuf *err)
{
    zip_t *za = j->za;
    int topfd = j->topfd;
    const char *rel = name + strlen(pp->pub.root);
    if (ends_with(rel, "/")) {
        int d = open_dirs(topfd, rel, err, name);
        if (d < 0)
            return -1;
        close(d);
        return 0;
    }
    zip_stat_t st;
    if (zip_stat_index(za, (zip_uint64_t)idx, 0, &st) < 0) {
        strbuf_addf(err, "%s: %s: %s", pp->pub.path, name, zip_strerror(za));
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
    zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)idx, 0);
    if (!zf) {
        strbuf_addf(err, "%s: %s: cannot open entry: %s", pp->pub.path, name, zip_strerror(za));
        close(fd);
        return -1;
    }
    /* 128 KB: the buffer stays in the cache between the read and the write (1 MB
     * chunks took twice the time and 2.7x the system time on a 538 MB package) */
    enum { CHUNK = 128 << 10 };
    char *buf = xmalloc(CHUNK);
    uint64_t total = 0;
    int rc = 0;
    for (;;) {
        if (atomic_load(&j->cancel)) {
            strbuf_addf(err, "%s: extraction stopped", pp->pub.path);
            rc = -1;
            break;
        }
        zip_int64_t n = zip_fread(zf, buf, CHUNK);
        if (n < 0) {
            strbuf_addf(err, "%s: %s: read failed (truncated or corrupt archive?): %s", pp->pub.path, name,
                        zip_file_strerror(zf));
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        atomic_fetch_add(&j->done, (unsigned long long)n);
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
    free(buf);
    zip_fclose(zf);
    if (close(fd) < 0 && !rc) {
        strbuf_addf(err, "%s: %s: write failed: %s", pp->pub.path, name, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* The private folder entries are written to (removed by package_close and at
 * exit; after a crash, by the next run: private_dir.h). */
static int make_extract_dir(package_t *p, strbuf *err)
{
    if (p->extract_dir)
        return 0;
    char *dir = private_dir_make("aotidbg-pkg", err);   /* also removes a killed run's folders */
    if (!dir)
        return -1;
    p->extract_dir = arena_strdup(&p->arena, dir);
    free(dir);
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

/* Checks, the folder, and the list of entries to write; -1 with err. */
static int extract_plan(package_t *p, package_model *m, extract_job *j, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
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
    j->m = m;
    j->topfd = open(p->extract_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (j->topfd < 0) {
        strbuf_addf(err, "%s: %s", p->extract_dir, strerror(errno));
        return -1;
    }
    char *mprefix = arena_printf(&p->arena, "%sdata/aotinductor/%s/", p->root, m->name);
    char *wprefix = arena_printf(&p->arena, "%sdata/weights/", p->root);
    char *cprefix = arena_printf(&p->arena, "%sdata/constants/", p->root);
    j->idx = arena_alloc(&p->arena, (p->nentries ? p->nentries : 1) * sizeof *j->idx);
    j->names = arena_alloc(&p->arena, (p->nentries ? p->nentries : 1) * sizeof *j->names);
    for (zip_uint64_t i = 0; i < p->nentries; i++) {
        const char *name = zip_get_name(pp->za, i, ZIP_FL_ENC_RAW);
        if (!name || (!starts_with(name, mprefix) && !starts_with(name, wprefix) && !starts_with(name, cprefix)))
            continue;
        /* Already extracted (a second model sharing weights)? O_EXCL would refuse it. */
        struct stat st;
        if (fstatat(j->topfd, name + strlen(p->root), &st, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        zip_stat_t zs;
        if (zip_stat_index(pp->za, i, 0, &zs) == 0 && (zs.valid & ZIP_STAT_SIZE))
            j->total += zs.size;
        j->names[j->n] = arena_strdup(&p->arena, name);
        j->idx[j->n++] = i;
    }
    return 0;
}

static int extract_run(package_priv *pp, extract_job *j, strbuf *err)
{
    int rc = 0;
    for (size_t i = 0; i < j->n && !rc; i++)
        rc = extract_one(pp, j, (zip_int64_t)j->idx[i], j->names[i], err);
    close(j->topfd);
    j->topfd = -1;
    return rc;
}

static void extract_paths(package_t *p, package_model *m)
{
    m->model_dir = arena_printf(&p->arena, "%s/data/aotinductor/%s", p->extract_dir, m->name);
    m->so_path = arena_printf(&p->arena, "%s/%s", p->extract_dir, m->so_entry + strlen(p->root));
    if (m->wrapper_cpp_entry)
        m->wrapper_cpp_path = arena_printf(&p->arena, "%s/%s", p->extract_dir, m->wrapper_cpp_entry + strlen(p->root));
}

int package_extract(package_t *p, package_model *m, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (p->is_bare_so)
        return 0;   /* paths already point at the file and its folder */
    if (pp->xj) {
        strbuf_addf(err, "%s: an extraction is already running", p->path);
        return -1;
    }
    extract_job j;
    memset(&j, 0, sizeof j);
    j.topfd = -1;
    if (extract_plan(p, m, &j, err) < 0)
        return -1;
    j.za = pp->za;
    if (extract_run(pp, &j, err) < 0)
        return -1;
    extract_paths(p, m);
    return 0;
}

static void *extract_main(void *arg)
{
    package_priv *pp = arg;
    extract_job *j = pp->xj;
    j->rc = extract_run(pp, j, &j->err);
    atomic_store(&j->finished, 1);
    char one = 1;
    while (write(j->notify[1], &one, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* A zip handle on a new open of the package's file (its own file offset):
 * /proc/self/fd names the very file opened, whatever happened to the path. */
static zip_t *reopen_zip(package_priv *pp, strbuf *err)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", pp->fd);
    int fd = open(self, O_RDONLY | O_CLOEXEC);
    struct stat a, b;
    if (fd < 0 && (fd = open(pp->pub.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0 &&
        (fstat(fd, &a) < 0 || fstat(pp->fd, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
        close(fd);
        strbuf_addf(err, "%s: the file was replaced while it was open", pp->pub.path);
        return NULL;
    }
    int zerr = 0;
    zip_t *za = fd < 0 ? NULL : zip_fdopen(fd, 0, &zerr);
    if (!za) {
        strbuf_addf(err, "%s: cannot open it again for extraction: %s", pp->pub.path,
                    fd < 0 ? strerror(errno) : "libzip refused it");
        if (fd >= 0)
            close(fd);
    }
    return za;
}

int package_extract_start(package_t *p, package_model *m, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    if (p->is_bare_so)
        return 0;
    if (pp->xj) {
        strbuf_addf(err, "%s: an extraction is already running", p->path);
        return -1;
    }
    extract_job *j = xcalloc(1, sizeof *j);
    j->topfd = -1;
    j->notify[0] = j->notify[1] = -1;
    strbuf_init(&j->err, 0);
    if (extract_plan(p, m, j, err) < 0 || !(j->za = reopen_zip(pp, err)) ||
        pipe2(j->notify, O_CLOEXEC | O_NONBLOCK) < 0) {
        if (j->za && j->notify[0] < 0)
            strbuf_addf(err, "pipe: %s", strerror(errno));
        goto fail;
    }
    pp->xj = j;
    if (pthread_create(&j->th, NULL, extract_main, pp) != 0) {
        pp->xj = NULL;
        strbuf_addf(err, "cannot start the extraction thread: %s", strerror(errno));
        goto fail;
    }
    return 0;
fail:
    if (j->topfd >= 0)
        close(j->topfd);
    if (j->za)
        zip_discard(j->za);
    for (int i = 0; i < 2; i++)
        if (j->notify[i] >= 0)
            close(j->notify[i]);
    strbuf_release(&j->err);
    free(j);
    return -1;
}

int package_extract_fd(const package_t *p)
{
    const package_priv *pp = (const package_priv *)p;
    return pp->xj ? pp->xj->notify[0] : -1;
}

int package_extract_progress(const package_t *p, uint64_t *done, uint64_t *total)
{
    const package_priv *pp = (const package_priv *)p;
    if (!pp->xj)
        return 0;
    *done = atomic_load(&pp->xj->done);
    *total = pp->xj->total;
    return !atomic_load(&pp->xj->finished);
}

/* Joins the thread and frees the job; its result when asked for. */
static int extract_end(package_priv *pp, strbuf *err)
{
    extract_job *j = pp->xj;
    pthread_join(j->th, NULL);
    int rc = j->rc;
    if (rc && err)
        strbuf_addstr(err, j->err.buf);
    package_model *m = j->m;
    zip_discard(j->za);
    close(j->notify[0]);
    close(j->notify[1]);
    strbuf_release(&j->err);
    free(j);
    pp->xj = NULL;
    if (!rc)
        extract_paths(&pp->pub, m);
    return rc;
}

int package_extract_finish(package_t *p, strbuf *err)
{
    package_priv *pp = (package_priv *)p;
    return pp->xj ? extract_end(pp, err) : 0;
}

void package_close(package_t *p)
{
    if (!p)
        return;
    package_priv *pp = (package_priv *)p;
    if (pp->hashing) {   /* nobody asked for the hash: stop it */
        atomic_store(&pp->cancel, 1);
        pthread_join(pp->hasher, NULL);
    }
    if (pp->xj) {   /* nor for the extraction */
        atomic_store(&pp->xj->cancel, 1);
        extract_end(pp, NULL);
    }
    strbuf_release(&pp->hash_err);
    if (pp->fd >= 0)
        close(pp->fd);
    if (pp->za)
        zip_discard(pp->za);
    if (pp->src)
        zip_readat_fini(&pp->src_zip);
    if (pp->src && pp->src->release)
        pp->src->release(pp->src->ctx);
    if (p->extract_dir) {
        remove_tree(p->extract_dir);
        track_dir(p->extract_dir, 0);
    }
    arena_release(&p->arena);
    free(pp);
}
