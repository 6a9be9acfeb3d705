/* zipread.c — central directory and entry copies for the runner (zipread.h). */
#define _GNU_SOURCE
#include "zipread.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fdio.h"
#include "paths.h"
#include "compat.h"
#ifdef AOTIDBG_HAVE_ZLIB
#include <zlib.h>
#endif

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char *p) { return le16(p) | le16(p + 2) << 16; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static int zr_have_inflate(void)
{
#ifdef AOTIDBG_HAVE_ZLIB
    return 1;
#else
    return 0;
#endif
}

/* Finds the end of central directory (zip64 when the classic one overflows). */
static int find_cd(zipread *z, uint64_t *count, uint64_t *cd_size, strbuf *err)
{
    unsigned char tail[65536 + 22];
    size_t n = z->size < sizeof tail ? (size_t)z->size : sizeof tail;
    uint64_t base = z->size - n;
    if (n < 22 || fd_read_at(z->fd, tail, n, base) < 0) {
        strbuf_addf(err, "%s: too short or unreadable to be a zip archive", z->path);
        return -1;
    }
    size_t at = n - 22 + 1;
    while (at-- > 0)
        if (le32(tail + at) == 0x06054b50)
            break;
    if (at == (size_t)-1) {
        strbuf_addf(err, "%s: no end of central directory: not a zip archive, or truncated (copy it again)", z->path);
        return -1;
    }
    const unsigned char *e = tail + at;
    *count = le16(e + 10);
    *cd_size = le32(e + 12);
    z->cd_offset = le32(e + 16);
    if (*count == 0xffff || *cd_size == 0xffffffffu || z->cd_offset == 0xffffffffu) {
        unsigned char loc[20], e64[56];
        uint64_t eocd = base + at;
        if (eocd < 20 || fd_read_at(z->fd, loc, 20, eocd - 20) < 0 || le32(loc) != 0x07064b50) {
            strbuf_addf(err, "%s: zip64 end-of-directory locator missing", z->path);
            return -1;
        }
        uint64_t off = le64(loc + 8);
        if (off > z->size - 56 || fd_read_at(z->fd, e64, 56, off) < 0 || le32(e64) != 0x06064b50) {
            strbuf_addf(err, "%s: zip64 end of central directory missing or corrupt", z->path);
            return -1;
        }
        *count = le64(e64 + 32);
        *cd_size = le64(e64 + 40);
        z->cd_offset = le64(e64 + 48);
    }
    if (*count > ZR_MAX_ENTRIES || *cd_size > ZR_MAX_CD_BYTES) {
        strbuf_addf(err, "%s: %llu entries in a %llu-byte directory, over the limits (%d, %u bytes)", z->path,
                    (unsigned long long)*count, (unsigned long long)*cd_size, ZR_MAX_ENTRIES, ZR_MAX_CD_BYTES);
        return -1;
    }
    if (z->cd_offset > z->size || *cd_size > z->size - z->cd_offset) {
        strbuf_addf(err, "%s: the central directory lies past the end of the file (truncated?)", z->path);
        return -1;
    }
    return 0;
}

/* Zip64 extra field: the values whose 32-bit fields are all ones, in order. */
static int zip64_extra(const unsigned char *x, size_t xl, uint64_t *usize, uint64_t *csize, uint64_t *off)
{
    for (size_t i = 0; i + 4 <= xl;) {
        uint32_t id = le16(x + i), len = le16(x + i + 2);
        if (i + 4 + len > xl)
            return -1;
        if (id == 1) {
            const unsigned char *v = x + i + 4;
            size_t k = 0;
            uint64_t *f[3] = {usize, csize, off};
            for (int j = 0; j < 3; j++)
                if (*f[j] == 0xffffffffu) {
                    if (k + 8 > len)
                        return -1;
                    *f[j] = le64(v + k);
                    k += 8;
                }
            return 0;
        }
        i += 4 + len;
    }
    return 0;
}

int zr_open(zipread *z, const char *path, strbuf *err)
{
    memset(z, 0, sizeof *z);
    z->path = path;
    z->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (z->fd < 0 || fstat(z->fd, &st) < 0) {
        strbuf_addf(err, "%s: %s", path, strerror(errno));
        zr_close(z);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        strbuf_addf(err, "%s: not a regular file", path);
        zr_close(z);
        return -1;
    }
    z->size = (uint64_t)st.st_size;
    uint64_t count, cd_size;
    if (find_cd(z, &count, &cd_size, err) < 0) {
        zr_close(z);
        return -1;
    }
    unsigned char *cd = xmalloc(cd_size ? cd_size : 1);
    z->e = xcalloc(count ? count : 1, sizeof *z->e);
    int rc = -1;
    if (fd_read_at(z->fd, cd, cd_size, z->cd_offset) < 0) {
        strbuf_addf(err, "%s: cannot read the central directory", path);
        goto out;
    }
    uint64_t total = 0;
    size_t pos = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (pos + 46 > cd_size || le32(cd + pos) != 0x02014b50) {
            strbuf_addf(err, "%s: central directory entry #%llu is corrupt", path, (unsigned long long)i);
            goto out;
        }
        const unsigned char *h = cd + pos;
        size_t nl = le16(h + 28), xl = le16(h + 30), cl = le16(h + 32);
        if (pos + 46 + nl + xl + cl > cd_size) {
            strbuf_addf(err, "%s: central directory entry #%llu runs past the directory", path,
                        (unsigned long long)i);
            goto out;
        }
        zr_entry *e = &z->e[z->n];
        e->name = xstrndup((const char *)h + 46, nl);
        z->n++;
        e->method = (uint16_t)le16(h + 10);
        e->crc = le32(h + 16);
        e->csize = le32(h + 20);
        e->usize = le32(h + 24);
        e->offset = le32(h + 42);
        const char *why = strlen(e->name) != nl ? "NUL byte in name" : path_unsafe_entry(e->name);
        if (!why && zip64_extra(h + 46 + nl, xl, &e->usize, &e->csize, &e->offset) < 0)
            why = "corrupt zip64 extra field";
        if (!why && (le16(h + 8) & 1))
            why = "encrypted";
        uint32_t mode = le32(h + 38) >> 16;
        if (!why && (le16(h + 4) >> 8) == 3 && (mode & 0170000) == 0120000)
            why = "a symbolic link";
        if (!why && (e->usize > ZR_MAX_ENTRY || (total += e->usize) > ZR_MAX_TOTAL))
            why = "over the size limits (8 GiB an entry, 32 GiB in all)";
        if (!why && (e->offset > z->cd_offset || e->csize > z->cd_offset - e->offset))
            why = "data lies past the central directory";
        if (why) {
            strbuf_addf(err, "%s: entry '%s' refused: %s", path, e->name, why);
            goto out;
        }
        pos += 46 + nl + xl + cl;
    }
    rc = 0;
out:
    free(cd);
    if (rc < 0)
        zr_close(z);
    return rc;
}

/* Opens (creating) the folders of `rel` under dirfd, refusing links. */
static int open_parent(int dirfd, const char *rel, strbuf *err)
{
    int fd = dup(dirfd);
    char comp[1100];
    for (const char *p = rel;;) {
        const char *slash = strchr(p, '/');
        if (!slash)
            return fd;
        size_t n = (size_t)(slash - p);
        if (n >= sizeof comp)
            n = sizeof comp - 1;
        memcpy(comp, p, n);
        comp[n] = 0;
        int nfd = -1;
        if ((mkdirat(fd, comp, 0700) == 0 || errno == EEXIST))
            nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0)
            strbuf_addf(err, "%s: cannot make folder %s: %s", rel, comp, strerror(errno));
        close(fd);
        if (nfd < 0)
            return -1;
        fd = nfd;
        p = slash + 1;
    }
}

/* Copies (or inflates) one entry's data into fd. */
static int copy_entry(zipread *z, const zr_entry *e, int out, strbuf *err)
{
    unsigned char lh[30];
    if (fd_read_at(z->fd, lh, 30, e->offset) < 0 || le32(lh) != 0x04034b50) {
        strbuf_addf(err, "%s: entry '%s': local header missing (corrupt archive)", z->path, e->name);
        return -1;
    }
    uint64_t data = e->offset + 30 + le16(lh + 26) + le16(lh + 28);
    if (data > z->cd_offset || e->csize > z->cd_offset - data) {
        strbuf_addf(err, "%s: entry '%s': data runs past the central directory (truncated?)", z->path, e->name);
        return -1;
    }
    if (e->method != 0 && !(e->method == 8 && zr_have_inflate())) {
        strbuf_addf(err, "%s: entry '%s' is compressed (method %u) and this runner reads only uncompressed "
                    "entries%s: repack the package uncompressed (zip -0), as torch writes it%s", z->path, e->name,
                    e->method, e->method == 8 ? " (built without zlib)" : "",
                    e->method == 8 ? ", or rebuild the runner with zlib's header (zlib1g-dev)" : "");
        return -1;
    }
    enum { CHUNK = 1 << 20 };
    unsigned char *in = xmalloc(CHUNK), *ob = NULL;
    int rc = 0;
    uint64_t done = 0, written = 0;
#ifdef AOTIDBG_HAVE_ZLIB
    uLong crc = crc32(0L, Z_NULL, 0);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (e->method == 8) {
        ob = xmalloc(CHUNK);
        if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
            abort();
    }
#endif
    while (done < e->csize && !rc) {
        size_t n = e->csize - done < CHUNK ? (size_t)(e->csize - done) : CHUNK;
        if (fd_read_at(z->fd, in, n, data + done) < 0) {
            strbuf_addf(err, "%s: entry '%s': read failed at byte %llu", z->path, e->name,
                        (unsigned long long)(data + done));
            rc = -1;
            break;
        }
        done += n;
        if (e->method == 0) {
#ifdef AOTIDBG_HAVE_ZLIB
            crc = crc32(crc, in, (uInt)n);
#endif
            written += n;
            if (fd_write_all(out, in, n) < 0)
                rc = -2;
            continue;
        }
#ifdef AOTIDBG_HAVE_ZLIB
        zs.next_in = in;
        zs.avail_in = (uInt)n;
        do {
            zs.next_out = ob;
            zs.avail_out = CHUNK;
            int zr = inflate(&zs, Z_NO_FLUSH);
            if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
                strbuf_addf(err, "%s: entry '%s': corrupt deflate data (%s)", z->path, e->name,
                            zs.msg ? zs.msg : "inflate failed");
                rc = -1;
                break;
            }
            size_t got = CHUNK - zs.avail_out;
            written += got;
            if (written > e->usize) {
                strbuf_addf(err, "%s: entry '%s' inflates past its declared %llu bytes; refusing", z->path,
                            e->name, (unsigned long long)e->usize);
                rc = -1;
                break;
            }
            crc = crc32(crc, ob, (uInt)got);
            if (fd_write_all(out, ob, got) < 0) {
                rc = -2;
                break;
            }
            if (zr == Z_STREAM_END)
                break;
        } while (zs.avail_out == 0);
#endif
    }
    if (rc == -2) {
        strbuf_addf(err, "%s: entry '%s': write failed: %s", z->path, e->name, strerror(errno));
        rc = -1;
    }
    if (!rc && written != e->usize) {
        strbuf_addf(err, "%s: entry '%s': %llu bytes, the directory says %llu (corrupt archive)", z->path, e->name,
                    (unsigned long long)written, (unsigned long long)e->usize);
        rc = -1;
    }
#ifdef AOTIDBG_HAVE_ZLIB
    if (e->method == 8)
        inflateEnd(&zs);
    if (!rc && crc != e->crc) {
        strbuf_addf(err, "%s: entry '%s': CRC-32 mismatch (corrupt archive: copy it again)", z->path, e->name);
        rc = -1;
    }
#endif
    free(in);
    free(ob);
    return rc;
}

int zr_extract(zipread *z, const char *const *prefixes, size_t n, size_t strip, const char *dest, size_t *nfiles,
               strbuf *err)
{
    *nfiles = 0;
    int top = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0) {
        strbuf_addf(err, "%s: %s", dest, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < z->n && !rc; i++) {
        const zr_entry *e = &z->e[i];
        int want = 0;
        for (size_t k = 0; k < n && !want; k++)
            want = !strncmp(e->name, prefixes[k], strlen(prefixes[k]));
        size_t len = strlen(e->name);
        if (!want || len <= strip)
            continue;
        const char *rel = e->name + strip;
        int dfd = open_parent(top, rel, err);
        if (dfd < 0) {
            rc = -1;
            break;
        }
        const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
        if (!*base) {              /* a folder entry */
            close(dfd);
            continue;
        }
        int mode = len > 3 && !strcmp(e->name + len - 3, ".so") ? 0700 : 0600;
        int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        close(dfd);
        if (fd < 0 && errno == EEXIST)
            continue;              /* extracted by an earlier request */
        if (fd < 0) {
            strbuf_addf(err, "%s/%s: cannot create: %s", dest, rel, strerror(errno));
            rc = -1;
            break;
        }
        rc = copy_entry(z, e, fd, err);
        if (close(fd) < 0 && !rc) {
            strbuf_addf(err, "%s/%s: write failed: %s", dest, rel, strerror(errno));
            rc = -1;
        }
        if (rc)
            unlinkat(top, rel, 0);
        else
            (*nfiles)++;
    }
    close(top);
    return rc;
}

void zr_close(zipread *z)
{
    if (z->fd >= 0)
        close(z->fd);
    for (size_t i = 0; i < z->n; i++)
        free(z->e[i].name);
    free(z->e);
    z->e = NULL;
    z->n = 0;
    z->fd = -1;
}
