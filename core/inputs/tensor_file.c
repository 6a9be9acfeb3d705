/* tensor_file.c — .npy headers and .npy files as tensor_recs (tensor_file.h).
 *
 * The header dict is read with a tiny lexer for the one Python-literal shape
 * numpy writes ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), });
 * anything else is refused with the byte where it went wrong. */
#include "tensor_file.h"
#include "compat.h"
#include "host_stats.h"
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "inputs.h"

#define NPY_MAX_HEADER (1U << 20)

int tensor_file_read_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

int tensor_file_numel(const int64_t *shape, int ndim, uint64_t *out)
{
    uint64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || (uint64_t)shape[i] > TENSOR_FILE_MAX_NUMEL ||
            (shape[i] && n > TENSOR_FILE_MAX_NUMEL / (uint64_t)shape[i]))
            return -1;
        n *= (uint64_t)shape[i];
    }
    *out = n;
    return 0;
}

/* npy header dict text, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } */
typedef struct { const char *p, *end, *start; } lex;

static void skip_ws(lex *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
        l->p++;
}

static int lex_char(lex *l, char c)
{
    skip_ws(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return 0;
    }
    return -1;
}

static int lex_str(lex *l, char *out, size_t cap)
{
    skip_ws(l);
    if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
        return -1;
    char q = *l->p++;
    size_t n = 0;
    while (l->p < l->end && *l->p != q) {
        if (n + 1 >= cap)
            return -1;
        out[n++] = *l->p++;
    }
    if (l->p >= l->end)
        return -1;
    l->p++;
    out[n] = 0;
    return 0;
}

static int lex_word(lex *l, const char *w)
{
    skip_ws(l);
    size_t n = strlen(w);
    if ((size_t)(l->end - l->p) >= n && !memcmp(l->p, w, n)) {
        l->p += n;
        return 0;
    }
    return -1;
}

static int npy_fail(strbuf *err, const char *file, const lex *l, const char *what)
{
    strbuf_addf(err, "%s: bad .npy header at byte %ld of the header dict: %s; re-save it with numpy.save",
                file, (long)(l->p - l->start), what);
    return -1;
}

static int npy_descr(const char *d, const char **dtype)
{
    char order = d[0];
    if (order != '<' && order != '|' && order != '=')
        return -1;
    const char *name = dtype_from_npy(d + 1);
    if (!name || (order == '|' && strcmp(d + 2, "1")))
        return -1;   /* '|' is "not applicable": only for 1-byte types */
    *dtype = name;
    return 0;
}

int npy_read_header(int fd, uint64_t fsize, const char *file, file_tensor *ft, strbuf *err)
{
    if (npy_read_header_any_order(fd, fsize, file, ft, err) < 0)
        return -1;
    if (ft->fortran) {
        strbuf_addf(err, "%s: .npy array is in Fortran (column-major) order; save it with "
                    "numpy.save(path, numpy.ascontiguousarray(arr))", file);
        return -1;
    }
    return 0;
}

int npy_read_header_any_order(int fd, uint64_t fsize, const char *file, file_tensor *ft, strbuf *err)
{
    unsigned char pre[12];
    if (fsize < 10 || tensor_file_read_at(fd, pre, 10, 0) < 0 || !skip_prefix_mem((const char *)pre, 10, "\x93NUMPY", NULL, NULL)) {
        strbuf_addf(err, "%s: not a .npy file (no \\x93NUMPY magic)", file);
        return -1;
    }
    unsigned major = pre[6];
    uint64_t hlen, hstart;
    if (major == 1) {
        hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (fsize < 12 || tensor_file_read_at(fd, pre, 12, 0) < 0) {
            strbuf_addf(err, "%s: .npy file cut off in its preamble", file);
            return -1;
        }
        hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8 | (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
        hstart = 12;
    } else {
        strbuf_addf(err, "%s: .npy format version %u.%u, expected 1.x, 2.x or 3.x", file, major, pre[7]);
        return -1;
    }
    if (hlen > NPY_MAX_HEADER || hstart + hlen > fsize) {
        strbuf_addf(err, "%s: .npy header length %" PRIu64 " runs past the file (%" PRIu64 " bytes) or over %u",
                    file, hlen, fsize, NPY_MAX_HEADER);
        return -1;
    }
    char *h = xmalloc(hlen + 1);
    if (tensor_file_read_at(fd, h, hlen, hstart) < 0) {
        free(h);
        strbuf_addf(err, "%s: cannot read the .npy header", file);
        return -1;
    }
    h[hlen] = 0;
    lex l = {h, h + hlen, h};
    int rc = -1, have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
    char key[64], val[64];
    if (lex_char(&l, '{') < 0) {
        npy_fail(err, file, &l, "expected '{'");
        goto out;
    }
    for (;;) {
        if (lex_char(&l, '}') == 0)
            break;
        if (lex_str(&l, key, sizeof key) < 0) {
            npy_fail(err, file, &l, "expected a quoted key");
            goto out;
        }
        if (lex_char(&l, ':') < 0) {
            npy_fail(err, file, &l, "expected ':'");
            goto out;
        }
        if (!strcmp(key, "descr")) {
            if (lex_str(&l, val, sizeof val) < 0) {
                npy_fail(err, file, &l, "descr: expected a string like '<f4' (structured dtypes are not supported)");
                goto out;
            }
            if (npy_descr(val, &ft->dtype) < 0) {
                strbuf_addf(err, "%s: .npy dtype '%s' is not supported; expected little-endian "
                            "f4 f2 f8 i8 i4 i2 i1 u1 b1 c8 c16 (convert with arr.astype('<f4') or similar)", file, val);
                goto out;
            }
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (lex_word(&l, "False") == 0)
                fortran = 0;
            else if (lex_word(&l, "True") == 0)
                fortran = 1;
            else {
                npy_fail(err, file, &l, "fortran_order: expected True or False");
                goto out;
            }
            have_order = 1;
        } else if (!strcmp(key, "shape")) {
            if (lex_char(&l, '(') < 0) {
                npy_fail(err, file, &l, "shape: expected a tuple");
                goto out;
            }
            ft->ndim = 0;
            for (;;) {
                if (lex_char(&l, ')') == 0)
                    break;
                skip_ws(&l);
                if (l.p >= l.end || *l.p < '0' || *l.p > '9') {
                    npy_fail(err, file, &l, "shape: expected a non-negative integer");
                    goto out;
                }
                uint64_t v = 0;
                while (l.p < l.end && *l.p >= '0' && *l.p <= '9') {
                    v = v * 10 + (uint64_t)(*l.p++ - '0');
                    if (v > TENSOR_FILE_MAX_NUMEL) {
                        npy_fail(err, file, &l, "shape: a dimension over 2^40");
                        goto out;
                    }
                }
                skip_ws(&l);
                if (l.p < l.end && *l.p == 'L')   /* Python 2 longs */
                    l.p++;
                if (ft->ndim >= TENSOR_MAX_DIMS) {
                    npy_fail(err, file, &l, "shape: more than 16 dimensions");
                    goto out;
                }
                ft->shape[ft->ndim++] = (int64_t)v;
                if (lex_char(&l, ',') < 0) {
                    if (lex_char(&l, ')') == 0)
                        break;
                    npy_fail(err, file, &l, "shape: expected ',' or ')'");
                    goto out;
                }
            }
            have_shape = 1;
        } else {
            char msg[128];
            snprintf(msg, sizeof msg, "unexpected key '%s'", key);
            npy_fail(err, file, &l, msg);
            goto out;
        }
        if (lex_char(&l, ',') < 0) {
            if (lex_char(&l, '}') == 0)
                break;
            npy_fail(err, file, &l, "expected ',' or '}'");
            goto out;
        }
    }
    if (!have_descr || !have_order || !have_shape) {
        strbuf_addf(err, "%s: .npy header lacks %s; re-save it with numpy.save", file,
                    !have_descr ? "'descr'" : !have_order ? "'fortran_order'" : "'shape'");
        goto out;
    }
    uint64_t numel;
    if (tensor_file_numel(ft->shape, ft->ndim, &numel) < 0) {
        strbuf_addf(err, "%s: .npy shape has more than 2^40 elements", file);
        goto out;
    }
    ft->fortran = fortran && ft->ndim > 1;   /* one dim: the same bytes either way */
    ft->offset = hstart + hlen;
    ft->nbytes = numel * dtype_size(ft->dtype);
    if (ft->offset + ft->nbytes > fsize) {
        strbuf_addf(err, "%s: .npy data is cut off: the header promises %" PRIu64 " bytes of data, the file has %"
                    PRIu64, file, ft->nbytes, fsize - ft->offset);
        goto out;
    }
    rc = 0;
out:
    free(h);
    return rc;
}


/* ---- Fortran order -------------------------------------------------------- */

int tensor_file_read_c_order(int fd, const file_tensor *ft, const char *file, unsigned char **data, strbuf *err)
{
    *data = NULL;
    if (ft->nbytes > SIZE_MAX - 1) {
        strbuf_addf(err, "%s: %" PRIu64 " bytes of data do not fit in memory here", file, ft->nbytes);
        return -1;
    }
    unsigned char *raw = xmalloc(ft->nbytes ? (size_t)ft->nbytes : 1);
    if (tensor_file_read_at(fd, raw, (size_t)ft->nbytes, ft->offset) < 0) {
        strbuf_addf(err, "%s: read failed (the file changed while read?); try again", file);
        free(raw);
        return -1;
    }
    if (!ft->fortran) {
        *data = raw;
        return 0;
    }
    unsigned char *out = xmalloc(ft->nbytes ? (size_t)ft->nbytes : 1);
    /* Row-major walk of the index; its column-major offset kept alongside:
     * dim d steps by the product of the sizes before it. */
    size_t esz = dtype_size(ft->dtype);
    uint64_t numel = ft->nbytes / (esz ? esz : 1), fstride[TENSOR_MAX_DIMS], idx[TENSOR_MAX_DIMS] = {0}, at = 0;
    uint64_t m = 1;
    for (int d = 0; d < ft->ndim; d++) {
        fstride[d] = m;
        m *= (uint64_t)ft->shape[d];
    }
    for (uint64_t i = 0; i < numel; i++) {
        memcpy(out + i * esz, raw + at * esz, esz);
        for (int d = ft->ndim - 1; d >= 0; d--) {
            at += fstride[d];
            if (++idx[d] < (uint64_t)ft->shape[d])
                break;
            at -= fstride[d] * idx[d];
            idx[d] = 0;
        }
    }
    free(raw);
    *data = out;
    return 0;
}

/* ---- a whole .npy file as a tensor_rec ---------------------------------- */

#define CHUNK_BYTES (1U << 16)

int tensor_file_load_npy(arena *ar, const char *path, size_t max_values, tensor_rec *t, strbuf *err)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        strbuf_addf(err, "%s: cannot open it: %s; check the path", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        strbuf_addf(err, "%s: not a regular file; give the path of a .npy file", path);
        close(fd);
        return -1;
    }
    file_tensor ft;
    memset(&ft, 0, sizeof ft);
    uint64_t numel = 0;
    unsigned char *cdata = NULL;   /* a Fortran-order file, in row-major order */
    if (npy_read_header_any_order(fd, (uint64_t)st.st_size, path, &ft, err) < 0 ||
        tensor_file_numel(ft.shape, ft.ndim, &numel) < 0 ||
        (ft.fortran && tensor_file_read_c_order(fd, &ft, path, &cdata, err) < 0)) {
        close(fd);
        return -1;
    }
    size_t esz = dtype_size(ft.dtype);
    size_t budget = (size_t)(TENSOR_FILE_VALUES_BUDGET / sizeof(double));
    if (!max_values || max_values > budget)
        max_values = budget;
    dtype_kind kind;
    if (stats_kind_by_name(ft.dtype, &kind) < 0) {   /* npy_read_header accepted a dtype it lacks */
        strbuf_addf(err, "%s: dtype %s has no statistics here; save it as float64", path, ft.dtype);
        free(cdata);
        close(fd);
        return -1;
    }
    uint64_t lanes = (uint64_t)stats_kind_lanes(kind);   /* complex: (re, im) pairs of doubles */
    size_t keep = numel * lanes < max_values ? (size_t)(numel * lanes) : max_values - max_values % lanes;
    double *vals = keep ? arena_alloc(ar, keep * sizeof *vals) : NULL;

    /* Little-endian file data read in chunks and fed to the runner's own
     * statistics pass (host_stats.h), so a file and a tensor agree. */
    static _Alignas(8) unsigned char buf[CHUNK_BYTES];
    stats_acc a;
    stats_acc_init(&a, vals, keep);
    uint64_t per = CHUNK_BYTES / esz;
    for (uint64_t done = 0; done < numel;) {
        size_t n = numel - done < per ? (size_t)(numel - done) : (size_t)per;
        if (cdata) {
            memcpy(buf, cdata + done * esz, n * esz);
        } else if (tensor_file_read_at(fd, buf, n * esz, ft.offset + done * esz) < 0) {
            strbuf_addf(err, "%s: read failed at byte %" PRIu64 " (the file changed while read?); try again",
                        path, ft.offset + done * esz);
            close(fd);
            return -1;
        }
        stats_acc_add(&a, buf, kind, n);
        done += n;
    }
    free(cdata);
    close(fd);
    size_t nvals = 0;
    t->name = arena_strdup(ar, path);
    t->phase = PHASE_AFTER;
    t->ndim = ft.ndim;
    if (ft.ndim) {
        t->shape = arena_memdup(ar, ft.shape, (size_t)ft.ndim * sizeof *t->shape);
        t->strides = arena_alloc(ar, (size_t)ft.ndim * sizeof *t->strides);
        int64_t s = 1;
        for (int d = ft.ndim - 1; d >= 0; d--) {
            t->strides[d] = s;
            s *= ft.shape[d] > 0 ? ft.shape[d] : 1;
        }
    }
    t->dtype = ft.dtype;
    t->device = "file";
    t->has_stats = 1;
    stats_acc_finish(&a, &t->stats, &nvals);
    t->nvalues = nvals;
    t->values = vals;
    t->values_complete = nvals == numel * lanes;
    return 0;
}

/* ---- a tensor's kept values as a .npy file ------------------------------- */

/* The numpy type a session dtype is written as, and its element size. */
static const char *npy_out_descr(const char *dtype, size_t *esz)
{
    dtype_kind k;
    if (dtype && !dtype_by_name(dtype, &k) && dtype_of(k)->npy) {
        *esz = dtype_of(k)->size;
        return dtype_of(k)->npy;
    }
    *esz = 4;
    return "<f4";   /* bfloat16, float8_*: numpy has none; float32 holds their values exactly */
}

/* One value as the element type d: little-endian bytes into out. */
static void put_elem(const char *d, double v, unsigned char *out)
{
    union { float f; double g; int64_t i; uint64_t u; uint16_t h; } x;
    size_t n = 0;
    if (!strcmp(d, "<f4") || !strcmp(d, "<c8")) { x.f = (float)v; n = 4; }   /* c8/c16: one part */
    else if (!strcmp(d, "<c16")) { x.g = v; n = 8; }
    else if (!strcmp(d, "<f8")) { x.g = v; n = 8; }
    else if (!strcmp(d, "<f2")) { x.h = stats_double_to_half(v); n = 2; }
    else if (d[1] == 'b') { out[0] = v != 0; return; }
    else if (d[1] == 'u') { x.u = v <= 0 || isnan(v) ? 0 : v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v; n = (size_t)(d[2] - '0'); }
    else { x.i = isnan(v) ? 0 : v <= -9223372036854775808.0 ? INT64_MIN : v >= 9223372036854775807.0 ? INT64_MAX : (int64_t)v; n = (size_t)(d[2] - '0'); }
    memcpy(out, &x, n);   /* little-endian host: the low n bytes are the value */
}

int tensor_file_save_npy(const tensor_rec *t, const char *path, strbuf *note, strbuf *err)
{
    uint64_t numel = 0;
    if (tensor_file_numel(t->shape, t->ndim, &numel) < 0)
        numel = 0;
    if (!t->nvalues || !t->values) {
        strbuf_addf(err, "%s: only statistics were kept for it (no values: rerun with --values N, or raise "
                         "--values-budget); nothing written", t->name);
        return -1;
    }
    size_t esz;
    const char *descr = npy_out_descr(t->dtype, &esz);
    size_t lanes = descr[1] == 'c' ? 2 : 1;   /* complex values are (re, im) pairs */
    size_t nelem = t->nvalues / lanes;
    int whole = t->values_complete && nelem == numel;
    strbuf hdr = STRBUF_INIT;
    strbuf_addf(&hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    if (whole) {
        for (int d = 0; d < t->ndim; d++)
            strbuf_addf(&hdr, "%lld,%s", (long long)t->shape[d], d + 1 < t->ndim ? " " : "");
    } else {
        strbuf_addf(&hdr, "%zu,", nelem);
    }
    strbuf_addstr(&hdr, "), }");
    while ((10 + hdr.len + 1) % 64)   /* magic, version, length: the data starts aligned */
        strbuf_addch(&hdr, ' ');
    strbuf_addch(&hdr, '\n');
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "%s.tmp", path);
    FILE *f = fopen(tmp.buf, "wb");
    int rc = -1;
    if (!f) {
        strbuf_addf(err, "%s: cannot write it: %s", tmp.buf, strerror(errno));
        goto out;
    }
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hdr.len & 0xff),
                             (unsigned char)(hdr.len >> 8)};
    fwrite(pre, 1, sizeof pre, f);
    fwrite(hdr.buf, 1, hdr.len, f);
    unsigned char e[8];
    for (size_t i = 0; i < nelem * lanes; i++) {
        put_elem(descr, t->values[i], e);
        fwrite(e, 1, esz / lanes, f);
    }
    if (ferror(f) | fclose(f) || rename(tmp.buf, path) < 0) {
        strbuf_addf(err, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp.buf);
        goto out;
    }
    if (whole)
        strbuf_addf(note, "all %zu values, shape ", nelem);
    else
        strbuf_addf(note, "only the first %zu of %" PRIu64 " values (the rest were not kept: --values N), as a "
                          "1-d array; shape was ", nelem, numel);
    strbuf_addch(note, '[');
    for (int d = 0; d < t->ndim; d++)
        strbuf_addf(note, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    strbuf_addf(note, "] %s", t->dtype ? t->dtype : "?");
    if (strcmp(descr + 1, "f4") == 0 && t->dtype && strcmp(t->dtype, "float32"))
        strbuf_addstr(note, " (written as float32: numpy has no such type)");
    rc = 0;
out:
    strbuf_release(&hdr);
    strbuf_release(&tmp);
    return rc;
}
