/* remote_package.c — packages and inputs on the remote box (remote_package.h). */
#define _GNU_SOURCE
#include "remote_package.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "inputs.h"
#include "compat.h"

/* Ranges come in blocks, a few kept: libzip's small reads of headers and the
 * directory then cost one round trip per block, not one each. */
#define BLOCK   (256u << 10)
#define NBLOCKS 8

typedef struct {
    remote *r;
    char *path;
    uint64_t size;
    struct { uint64_t off; size_t len; unsigned long used; char *data; } b[NBLOCKS];
    unsigned long tick;
} rsrc;

static long rsrc_read(void *ctx, uint64_t off, void *buf, size_t len, strbuf *err)
{
    rsrc *s = ctx;
    if (off >= s->size || !len)
        return 0;
    uint64_t start = off - off % BLOCK;
    int slot = -1, lru = 0;
    for (int i = 0; i < NBLOCKS; i++) {
        if (s->b[i].data && s->b[i].off == start) {
            slot = i;
            break;
        }
        if (s->b[i].used < s->b[lru].used)
            lru = i;
    }
    if (slot < 0) {
        slot = lru;
        if (!s->b[slot].data)
            s->b[slot].data = xmalloc(BLOCK);
        size_t got = 0;
        uint64_t size = 0;
        if (remote_fread(s->r, s->path, start, s->b[slot].data, BLOCK, &got, &size, err) < 0) {
            s->b[slot].len = 0;
            s->b[slot].off = UINT64_MAX;
            return -1;
        }
        s->b[slot].off = start;
        s->b[slot].len = got;
    }
    s->b[slot].used = ++s->tick;
    size_t at = (size_t)(off - start);
    if (at >= s->b[slot].len)
        return 0;
    size_t n = s->b[slot].len - at < len ? s->b[slot].len - at : len;
    memcpy(buf, s->b[slot].data + at, n);
    return (long)n;
}

static void rsrc_release(void *ctx)
{
    rsrc *s = ctx;
    for (int i = 0; i < NBLOCKS; i++)
        free(s->b[i].data);
    free(s->path);
    free(s);
}

static int remote_package_open(remote *r, const char *path, package_t **out, strbuf *err)
{
    *out = NULL;
    char hex[65];
    char probe[1];
    size_t got = 0;
    uint64_t size = 0;
    /* the size (and that it is a readable file) first: a clear message */
    if (remote_fread(r, path, 0, probe, 0, &got, &size, err) < 0)
        return -1;
    if (remote_sha256(r, path, hex, err) < 0)
        return -1;
    rsrc *s = xcalloc(1, sizeof *s);
    s->r = r;
    s->path = xstrdup(path);
    s->size = size;
    for (int i = 0; i < NBLOCKS; i++)
        s->b[i].off = UINT64_MAX;
    package_source src = {s, size, hex, rsrc_read, rsrc_release};
    strbuf e = STRBUF_INIT;
    int rc = package_open_source(out, path, &src, &e);
    if (rc < 0)
        strbuf_addf(err, "%s (on %s)", e.buf, remote_host(r));
    strbuf_release(&e);
    return rc;
}

static int extract_prefixes(remote *r, package_t *p, package_model *m, const char *prefixes, strbuf *err)
{
    char *dir = NULL;
    if (remote_extract(r, p->path, prefixes, &dir, err) < 0)
        return -1;
    arena *a = &p->arena;
    m->model_dir = arena_printf(a, "%s/data/aotinductor/%s", dir, m->name);
    m->so_path = arena_printf(a, "%s/%s", dir, m->so_entry + strlen(p->root));
    free(dir);
    return 0;
}

static int remote_package_extract(remote *r, package_t *p, package_model *m, strbuf *err)
{
    if (p->is_bare_so)
        return 0;   /* runs where it lies; cubins beside it */
    if (!m->so_entry) {
        strbuf_addf(err, "%s: model '%s' has no <key>.wrapper.so under %sdata/aotinductor/%s/; rebuild the package",
                    p->path, m->name, p->root, m->name);
        return -1;
    }
    strbuf pre = STRBUF_INIT;
    strbuf_addf(&pre, "%sdata/aotinductor/%s/\n%sdata/weights/\n%sdata/constants/", p->root, m->name, p->root,
                p->root);
    int rc = extract_prefixes(r, p, m, pre.buf, err);
    strbuf_release(&pre);
    if (rc < 0)
        return -1;
    if (m->wrapper_cpp_entry) {   /* read here: the router's trace and the source view (S) */
        strbuf e = STRBUF_INIT;
        m->wrapper_cpp_path = package_mirror_entry(p, m->wrapper_cpp_entry, 256u << 20, &e);
        /* beside it, as package_sources.h looks for them */
        if (m->kernel_cpp_entry)
            package_mirror_entry(p, m->kernel_cpp_entry, 256u << 20, &e);
        if (m->kernel_info_entry)
            package_mirror_entry(p, m->kernel_info_entry, 256u << 20, &e);
        strbuf_release(&e);
    }
    return 0;
}

/* Copies a file there to path here, in pieces. */
static int fetch_file(remote *r, const char *there, const char *here, strbuf *err)
{
    int fd = open(here, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        strbuf_addf(err, "%s: %s", here, strerror(errno));
        return -1;
    }
    char *buf = xmalloc(1 << 20);
    uint64_t off = 0, size = 0;
    int rc = 0;
    for (;;) {
        size_t got = 0;
        if (remote_fread(r, there, off, buf, 1 << 20, &got, &size, err) < 0) {
            rc = -1;
            break;
        }
        if (size > REMOTE_INPUT_MAX) {
            strbuf_addf(err, "%s on %s: %llu bytes, over the %llu-byte limit for an input file; use --push with a "
                        "local copy", there, remote_host(r), (unsigned long long)size,
                        (unsigned long long)REMOTE_INPUT_MAX);
            rc = -1;
            break;
        }
        if (got && write(fd, buf, got) != (ssize_t)got) {
            strbuf_addf(err, "%s: write failed: %s", here, strerror(errno));
            rc = -1;
            break;
        }
        off += got;
        if (!got || off >= size)
            break;
    }
    free(buf);
    if (close(fd) < 0 && !rc) {
        strbuf_addf(err, "%s: write failed: %s", here, strerror(errno));
        rc = -1;
    }
    return rc;
}

static int remote_inputs_load(remote *r, session *s, const char *spec_path, strbuf *err)
{
    strbuf text = STRBUF_INIT;
    int rc = -1;
    if (remote_read_file(r, spec_path, REMOTE_SPEC_MAX, &text, err) < 0)
        goto out;
    /* named by its path there: messages point at it, relative files resolve there */
    if (inputs_parse(s, spec_path, text.buf, text.len, err) < 0)
        goto out;
    for (size_t i = 0; i < s->ninputs; i++) {
        input_spec *in = &s->inputs[i];
        if (in->fill != FILL_FILE || !in->file)
            continue;
        const char *dir = remote_local_dir(r, err);
        if (!dir)
            goto out;
        const char *base = strrchr(in->file, '/') ? strrchr(in->file, '/') + 1 : in->file;
        char *here = arena_printf(&s->arena, "%s/%zu-%s", dir, i, base);
        unlink(here);
        if (fetch_file(r, in->file, here, err) < 0)
            goto out;
        in->file = here;
    }
    rc = 0;
out:
    strbuf_release(&text);
    return rc;
}

static void push_progress(uint64_t sent, uint64_t total, void *ctx)
{
    int *last = ctx;
    int pct = total ? (int)(sent * 100 / total) : 100;
    if (total >= (64u << 20) && pct / 10 != *last / 10) {
        fprintf(stderr, "aotidbg: --push: %d%% of %llu MiB\n", pct, (unsigned long long)(total >> 20));
        *last = pct;
    }
}

int remote_open(const remote_cli *o, const char *pkg_path, const char *spec, session *s, remote **r,
                package_t **pkg, strbuf *err)
{
    *pkg = NULL;
    remote_options ro = {.target = o->target, .runner_path = o->runner_path, .batch = o->batch,
                         .timeout_s = o->timeout_s, .env = o->env};
    if (remote_connect(r, &ro, err) < 0)
        return -1;
    char *pushed = NULL;
    if (o->push) {
        const char *base = strrchr(pkg_path, '/') ? strrchr(pkg_path, '/') + 1 : pkg_path;
        int last = -10;
        if (remote_push(*r, pkg_path, base, &pushed, push_progress, &last, err) < 0)
            goto fail;
    }
    if (spec && (o->push ? inputs_load(s, spec, err) : remote_inputs_load(*r, s, spec, err)) < 0)
        goto fail;
    if (remote_package_open(*r, pushed ? pushed : pkg_path, pkg, err) < 0)
        goto fail;
    free(pushed);
    return 0;
fail:
    free(pushed);
    remote_close(*r);
    *r = NULL;
    return -1;
}

int remote_prepare_model(remote *r, package_t *p, package_model *m, int so_only, host_facts *hf, strbuf *err)
{
    memset(hf, 0, sizeof *hf);
    if (m->so_entry || p->is_bare_so) {
        int rc;
        if (so_only && !p->is_bare_so)
            rc = extract_prefixes(r, p, m, m->so_entry, err);
        else
            rc = remote_package_extract(r, p, m, err);
        if (rc < 0)
            return -1;
    }
    /* a run loads the .so anyway (a missing symbol is its first error): only check pays for a load */
    return remote_facts(r, so_only && m->so_entry ? m->so_path : NULL, hf, err);
}
