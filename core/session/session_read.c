/* session_read.c — loads a session YAML file (schema v1) into the model.
 *
 * Owns: session_load, session_load_mem. Input is untrusted. We pull events
 * from libyaml's event parser one at a time and build the model directly
 * (no document tree), with our own limits: nesting depth, scalar size, file
 * size; anchors, aliases and duplicate keys are refused; the raw bytes are
 * checked for NUL, invalid UTF-8 and characters YAML forbids as they stream
 * past (so memory stays bounded by the model, not the file).
 * A file that ends inside the events list (the writer was killed) keeps every
 * complete event: s->truncated = 1, end_state "cut-off", and a warning.
 * A file (a path) whose end_state says "running" while no aotidbg holds its
 * PATH.lock was cut too, at an event's end (its writer was killed: SIGKILL,
 * the OOM killer, a lost machine): end_state "cut-off: ..." names the last
 * kernel seen and when the file was last written (see writer_died).
 * Errors: -1 with "FILE:LINE:COL: found X, expected Y" (1-based) in err.
 * Ownership: everything lands in the new session's arena; the caller frees
 * the session with session_free(). Repeated short strings are interned. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include "session_read.h"
#include "compat.h"
#include "session_keys.h"
#include "yevent.h"

#define CHUNK (64 * 1024)
#define MAX_WARNINGS 100
#define INTERN_MAX 64   /* strings up to this length are interned */
/* libyaml holds a whole scalar in memory before it hands it over: stop
 * feeding it after this much input without a complete YAML event. A 1 MiB
 * value written with escapes takes at most 4 MiB of text. */
#define MAX_BYTES_PER_EVENT (16u << 20)

typedef struct {
    void *p;
    size_t n, cap, elem;
} vec;

static void *vec_push(vec *v)
{
    if (v->n == v->cap) {
        v->cap = alloc_nr(v->cap);
        v->p = xrealloc_array(v->p, v->cap, v->elem);
    }
    void *e = (char *)v->p + v->n++ * v->elem;
    memset(e, 0, v->elem);
    return e;
}

/* Hash set of keys for maps with arbitrary keys (flags, fields, unknown
 * maps), so a hostile map with many keys stays linear. Keys are copied. */
typedef struct {
    struct hs_slot { uint64_t h; char *k; } *t;
    size_t cap, n;
} hashset;

/* The reader's state (session_reader, session_read.h): one parse, resumable in the events list. */
typedef struct session_reader {
    yev y;                   /* core/yaml: the events, with our limits */
    const char *name;
    strbuf *err;
    session *s;
    int depth;
    int failed;              /* an error is in err */
    int yaml_at_eof;         /* the last libyaml error sat at the end of the input */

    /* input: FILE or memory, validated in chunks */
    FILE *file;
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    unsigned char chunk[CHUNK + 4];
    size_t chunk_len, chunk_pos;
    unsigned char pend[4];
    size_t npend;
    size_t total;
    size_t handed, handed_at_event;   /* bytes given to libyaml, in all and at the last event */
    size_t line, col;        /* 1-based position after the validated bytes */
    int eof, input_err, utf8_cut;

    /* build state */
    int in_events;
    size_t nwarn;
    size_t ev_warnings, ev_nwarn;
    int quiet;               /* inside an event of unknown kind: no key warnings */   /* warning counts when the current event began */
    const char **itab;       /* interned strings (arena-owned), open addressing */
    size_t icap, in;
    vec values, kv;
    vec lists[SESSION_MAX_DEPTH + 2];   /* list scratch, by depth */
    int nstrides;            /* strides of the tensor or input being read */
    yaml_mark_t strides_at;
    struct ev_ctx *evc;      /* the event being read */

    /* the top level, resumable at each event (session_reader_step) */
    int phase;               /* RP_* */
    hashset top_unknown;     /* unknown top-level keys seen */
    uint64_t top_seen;       /* top-level keys seen (bits of session_top_table) */
    struct key_names *names; /* event keys, while the events list is open */
    strbuf msg;              /* the error, until the reader ends */
    int rc;                  /* how it ended: 0 complete (maybe cut off), -1 failed */
    uint64_t file_size;      /* of a regular file, 0 unknown */
    int taken;               /* the session is the caller's (session_reader_take) */
    size_t top_line;         /* where the top mapping began */

    /* session_reader_forget: the header's memory apart from the events' */
    arena keep;              /* the header's blocks (and kept warnings) until take */
    int split;               /* keep holds the header: s->arena only events since */
    size_t forgot_events, forgot_kernels;   /* events freed by forget, before s->events[0] */
    size_t warn_kept;        /* warnings [0, warn_kept) already copied into keep */
    int exit_kept;           /* a runner-exit after the last kernel was forgotten: exit_copy */
    runner_exit_event exit_copy;
    int64_t last_kernel;     /* the last kernel forgotten (its index, -1 none), its name (keep's) and t_ms */
    const char *last_kernel_name;
    double last_kernel_ms;
    time_t mtime;            /* of a regular file, 0 unknown: when its writer last wrote */
} rd;

enum { RP_START = 0, RP_TOP, RP_EVENTS, RP_DONE };

/* ---------- messages ---------- */


static int failv(rd *r, size_t line, size_t col, const char *fmt, va_list ap)
{
    if (r->failed)
        return -1;
    r->failed = 1;
    strbuf_addf(r->err, "%s:%zu:%zu: ", r->name, line, col);
    strbuf_vaddf(r->err, fmt, ap);
    return -1;
}

static int fail_at(rd *r, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(rd *r, yaml_mark_t m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, m.line + 1, m.column + 1, fmt, ap);
    va_end(ap);
    return -1;
}

static void warn_at(rd *r, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn_at(rd *r, yaml_mark_t m, const char *fmt, ...)
{
    if (r->quiet)
        return;
    if (r->nwarn++ >= MAX_WARNINGS) {
        if (r->nwarn == MAX_WARNINGS + 1)
            session_add_warning(r->s, "%s: more warnings not shown", r->name);
        return;
    }
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    session_add_warning(r->s, "%s:%zu:%zu: %s", r->name, (size_t)m.line + 1, (size_t)m.column + 1, msg);
}


static int unexpected(rd *r, const char *expected)
{
    strbuf d = STRBUF_INIT;
    yev_describe(&r->y.ev, &d);
    fail_at(r, r->y.ev.start_mark, "found %s, expected %s", d.buf, expected);
    strbuf_release(&d);
    return -1;
}

/* ---------- input: chunked validation ---------- */

static size_t utf8_len(unsigned c)
{
    return c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

/* Decodes one strict UTF-8 sequence; 0 when invalid or incomplete. */
static size_t utf8_dec(const unsigned char *p, size_t n, unsigned *cp)
{
    size_t len = utf8_len(p[0]);
    if (!len || n < len)
        return 0;
    if (len == 1) {
        *cp = p[0];
        return 1;
    }
    unsigned c = p[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3f);
    }
    static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* 1 when p[0..n) could be the start of a valid sequence cut short. */
static int utf8_prefix(const unsigned char *p, size_t n)
{
    size_t len = utf8_len(p[0]);
    if (len < 2 || n >= len)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return 1;
}

static int input_fail(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int input_fail(rd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, r->line, r->col, fmt, ap);
    va_end(ap);
    r->input_err = 1;
    return -1;
}

static size_t source_read(rd *r, unsigned char *buf, size_t n)
{
    if (r->file)
        return fread(buf, 1, n, r->file);
    size_t k = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
    memcpy(buf, r->mem + r->mem_pos, k);
    r->mem_pos += k;
    return k;
}

static int refill(rd *r)
{
    size_t n = r->npend;
    memcpy(r->chunk, r->pend, n);
    r->npend = 0;
    size_t want = CHUNK - n;
    size_t got = source_read(r, r->chunk + n, want);
    if (got < want) {
        if (r->file && ferror(r->file))
            return input_fail(r, "found a read error (%s), expected a readable file", strerror(errno));
        r->eof = 1;
    }
    r->total += got;
    if (r->total > SESSION_MAX_FILE_BYTES)
        return input_fail(r, "found more than %llu bytes, expected a smaller session file",
                          (unsigned long long)SESSION_MAX_FILE_BYTES);
    n += got;
    size_t i = 0;
    while (i < n) {
        unsigned c = r->chunk[i];
        if (c >= 0x20 && c < 0x7f) {
            r->col++;
            i++;
            continue;
        }
        if (c == '\n') {
            r->line++;
            r->col = 1;
            i++;
            continue;
        }
        if (c == '\t' || c == '\r') {
            r->col++;
            i++;
            continue;
        }
        if (c == 0)
            return input_fail(r, "found a NUL byte, expected UTF-8 text (is this a session file?)");
        unsigned cp;
        size_t k = c >= 0x80 ? utf8_dec(r->chunk + i, n - i, &cp) : 0;
        if (!k) {
            if (c >= 0x80 && utf8_prefix(r->chunk + i, n - i)) {
                if (!r->eof) {       /* finish it with the next chunk */
                    r->npend = n - i;
                    memcpy(r->pend, r->chunk + i, r->npend);
                } else {
                    r->utf8_cut = 1; /* the file ends mid-character */
                }
                n = i;
                break;
            }
            if (c < 0x80)
                return input_fail(r, "found control character 0x%02x, expected printable UTF-8 text", c);
            return input_fail(r, "found invalid UTF-8 (byte 0x%02x), expected UTF-8 text", c);
        }
        /* YAML forbids C1 controls (but NEL), surrogates and U+FFFE/U+FFFF in the stream. */
        if ((cp >= 0x80 && cp <= 0x9f && cp != 0x85) || cp == 0xfffe || cp == 0xffff)
            return input_fail(r, "found character U+%04X, expected printable text (escape it in a quoted string)", cp);
        r->col++;
        i += k;
    }
    r->chunk_len = n;
    r->chunk_pos = 0;
    return 0;
}

static int read_handler(void *data, unsigned char *buf, size_t size, size_t *size_read)
{
    rd *r = data;
    *size_read = 0;
    if (r->input_err)
        return 0;
    while (r->chunk_pos == r->chunk_len) {
        if (r->eof)
            return 1;
        if (refill(r))
            return 0;
    }
    if (r->handed - r->handed_at_event > MAX_BYTES_PER_EVENT) {
        input_fail(r, "found more than %u MiB of text in one value (a huge string or comment), "
                   "expected values of at most %u bytes", MAX_BYTES_PER_EVENT >> 20, SESSION_MAX_SCALAR_BYTES);
        return 0;
    }
    size_t n = r->chunk_len - r->chunk_pos;
    if (n > size)
        n = size;
    memcpy(buf, r->chunk + r->chunk_pos, n);
    r->chunk_pos += n;
    r->handed += n;
    *size_read = n;
    return 1;
}

/* ---------- event stream ---------- */

/* A libyaml error at the end of the input: the writer was cut off (maybe).
 * libyaml may point a few characters back (at a lone "-" or "."). */
static int at_end(rd *r, yaml_mark_t m)
{
    return !r->input_err && r->eof && r->chunk_pos == r->chunk_len &&
           (m.line + 1 > r->line || (m.line + 1 == r->line && m.column + 1 + 8 >= r->col));
}

static int next(rd *r)
{
    if (r->failed)
        return -1;
    if (yev_next(&r->y)) {
        if (r->input_err)
            return -1;   /* our own check of the bytes said why */
        if (r->y.syntax)
            r->yaml_at_eof = at_end(r, r->y.err_mark);
        return fail_at(r, r->y.err_mark, "%s", r->y.msg.buf);
    }
    r->handed_at_event = r->handed;
    return 0;
}

static const char *sval(rd *r) { return (const char *)r->y.ev.data.scalar.value; }
static size_t slen(rd *r) { return r->y.ev.data.scalar.length; }

/* ---------- interning ---------- */

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static const char *intern(rd *r, const char *s, size_t n)
{
    if (n > INTERN_MAX || memchr(s, 0, n))
        return arena_strndup(&r->s->arena, s, n);
    if (r->in * 10 >= r->icap * 7) {
        size_t nc = r->icap ? r->icap * 2 : 1024;
        const char **t = xcalloc(nc, sizeof *t);
        for (size_t i = 0; i < r->icap; i++)
            if (r->itab[i]) {
                size_t j = fnv(r->itab[i], strlen(r->itab[i])) & (nc - 1);
                while (t[j])
                    j = (j + 1) & (nc - 1);
                t[j] = r->itab[i];
            }
        free(r->itab);
        r->itab = t;
        r->icap = nc;
    }
    size_t j = fnv(s, n) & (r->icap - 1);
    while (r->itab[j]) {
        if (!strncmp(r->itab[j], s, n) && r->itab[j][n] == 0)
            return r->itab[j];
        j = (j + 1) & (r->icap - 1);
    }
    r->in++;
    return r->itab[j] = arena_strndup(&r->s->arena, s, n);
}

/* ---------- scalars ---------- */

/* Consumes a string; nullable: plain ~, null or empty gives NULL. */
static int get_str(rd *r, const char **out, int nullable, const char *what)
{
    if (r->y.ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, what);
    if (nullable && r->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!slen(r) || !strcmp(sval(r), "~") || !strcmp(sval(r), "null")))
        *out = NULL;
    else
        *out = intern(r, sval(r), slen(r));
    return next(r);
}

static int scalar_num(rd *r, const char *what)
{
    if (r->y.ev.type != YAML_SCALAR_EVENT || !slen(r) || r->y.ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return unexpected(r, what);
    return 0;
}

static int get_i64(rd *r, int64_t *out, int64_t lo, int64_t hi, const char *what)
{
    if (scalar_num(r, what))
        return -1;
    const char *v = sval(r);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!(*v == '-' || *v == '+' || (*v >= '0' && *v <= '9')) || *end)
        return unexpected(r, what);
    if (errno == ERANGE || x < lo || x > hi) {
        strbuf d = STRBUF_INIT;
        yev_describe(&r->y.ev, &d);
        fail_at(r, r->y.ev.start_mark, "found %s (out of range), expected %s from %lld to %lld", d.buf, what,
                (long long)lo, (long long)hi);
        strbuf_release(&d);
        return -1;
    }
    *out = x;
    return next(r);
}

static int get_int(rd *r, int *out, int lo, int hi, const char *what)
{
    int64_t v;
    if (get_i64(r, &v, lo, hi, what))
        return -1;
    *out = (int)v;
    return 0;
}

static int get_u64(rd *r, uint64_t *out, const char *what)
{
    if (scalar_num(r, what))
        return -1;
    const char *v = sval(r);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!(*v == '+' || (*v >= '0' && *v <= '9')) || *end)
        return unexpected(r, what);
    if (errno == ERANGE) {
        strbuf d = STRBUF_INIT;
        yev_describe(&r->y.ev, &d);
        fail_at(r, r->y.ev.start_mark, "found %s (out of range), expected %s below 2^64", d.buf, what);
        strbuf_release(&d);
        return -1;
    }
    *out = x;
    return next(r);
}

static int parse_double(const char *v, double *out)
{
    static const char *const nans[] = {".nan", ".NaN", ".NAN"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, nans[i])) {
            *out = NAN;
            return 0;
        }
    const char *w = v + (*v == '+' || *v == '-');
    if (!strcmp(w, ".inf") || !strcmp(w, ".Inf") || !strcmp(w, ".INF")) {
        *out = *v == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    /* Decimal only: strtod would also take "nan", "inf" and hex. */
    if (!*w || strspn(w, "0123456789.eE+-") != strlen(w))
        return -1;
    char *end;
    *out = strtod(v, &end);
    return *end ? -1 : 0;
}

static int get_double(rd *r, double *out, const char *what)
{
    if (scalar_num(r, what) || parse_double(sval(r), out))
        return r->failed ? -1 : unexpected(r, what);
    return next(r);
}

static int get_bool(rd *r, int *out)
{
    if (r->y.ev.type == YAML_SCALAR_EVENT && r->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        const char *v = sval(r);
        if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
            *out = 1;
            return next(r);
        }
        if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
            *out = 0;
            return next(r);
        }
    }
    return unexpected(r, "true or false");
}

/* An enum by name: from_name() < 0 is an error listing the choices. */
static int get_enum(rd *r, int *out, int (*from_name)(const char *), const char *choices)
{
    if (r->y.ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, choices);
    int v = from_name(sval(r));
    if (v < 0)
        return unexpected(r, choices);
    *out = v;
    return next(r);
}

/* get_enum into a field of any enum type (each field has its own enum type,
 * so this is a macro; it evaluates to get_enum's 0/-1 and sets the field
 * only on success). */
#define get_enum_as(r, tmp, field, from_name, choices) \
    (get_enum((r), &(tmp), (from_name), (choices)) ? -1 : ((field) = (tmp), 0))

/* ---------- structure ---------- */

static int skip_node(rd *r);

static int dup_key(rd *r, const char *key)
{
    strbuf d = STRBUF_INIT;
    yev_add_shown(&d, key);
    fail_at(r, r->y.ev.start_mark, "found key '%s' a second time, expected each key once", d.buf);
    strbuf_release(&d);
    return -1;
}


static void hashset_free(hashset *hs)
{
    for (size_t i = 0; i < hs->cap; i++)
        free(hs->t[i].k);
    free(hs->t);
}

/* Returns 1 for a duplicate, else adds the key. */
static int hashset_add(hashset *hs, const char *key)
{
    if (hs->n * 2 >= hs->cap) {
        size_t nc = hs->cap ? hs->cap * 2 : 16;
        struct hs_slot *t = xcalloc(nc, sizeof *t);
        for (size_t i = 0; i < hs->cap; i++)
            if (hs->t[i].k) {
                size_t j = hs->t[i].h & (nc - 1);
                while (t[j].k)
                    j = (j + 1) & (nc - 1);
                t[j] = hs->t[i];
            }
        free(hs->t);
        hs->t = t;
        hs->cap = nc;
    }
    uint64_t h = fnv(key, strlen(key));
    size_t j = h & (hs->cap - 1);
    while (hs->t[j].k) {
        if (hs->t[j].h == h && !strcmp(hs->t[j].k, key))
            return 1;
        j = (j + 1) & (hs->cap - 1);
    }
    hs->t[j].h = h;
    hs->t[j].k = xmalloc(strlen(key) + 1);
    strcpy(hs->t[j].k, key);
    hs->n++;
    return 0;
}

static int skip_node(rd *r)
{
    if (r->y.ev.type == YAML_SCALAR_EVENT)
        return next(r);
    if (r->y.ev.type == YAML_SEQUENCE_START_EVENT) {
        if (next(r))
            return -1;
        while (r->y.ev.type != YAML_SEQUENCE_END_EVENT)
            if (skip_node(r))
                return -1;
        return next(r);
    }
    if (r->y.ev.type == YAML_MAPPING_START_EVENT) {
        hashset hs = {0};
        int rc = next(r);
        while (!rc && r->y.ev.type != YAML_MAPPING_END_EVENT) {
            if (r->y.ev.type != YAML_SCALAR_EVENT)
                rc = unexpected(r, "a plain key");
            else if (hashset_add(&hs, sval(r)))
                rc = dup_key(r, sval(r));
            else
                rc = next(r) || skip_node(r) ? -1 : 0;
        }
        hashset_free(&hs);
        return rc ? -1 : next(r);
    }
    return unexpected(r, "a value");
}

/* Iterates a mapping. find(fctx, key) gives a known key's id (< 64) or -1;
 * val(r, id, ctx) consumes the value of known key id. */
typedef int (*find_fn)(const void *fctx, const char *key);
typedef int (*val_fn)(rd *r, int id, void *ctx);

/* Consumes the start of a mapping, or says a mapping (`where`) was expected. */
static int enter_map(rd *r, const char *where)
{
    if (r->y.ev.type != YAML_MAPPING_START_EVENT) {
        char exp[128];
        snprintf(exp, sizeof exp, "a mapping (%s)", where);
        return unexpected(r, exp);
    }
    return next(r);
}

/* The entries of a mapping whose start is already consumed, up to (not past)
 * its end: known keys go to val (each once; bits of *seen, which may come in
 * with some set), unknown ones are warned about (`place`: "in a kernel
 * event", "at the top level") and skipped. Stopping AT the end lets the
 * caller commit what it built before pulling more input (which may hit the
 * cut of a cut-off file). */
static int map_entry(rd *r, find_fn find, const void *fctx, val_fn val, void *ctx, const char *place,
                     uint64_t *seen, hashset *unknown)
{
    if (r->y.ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, "a plain key");
    const char *key = sval(r);
    int id = find(fctx, key);
    if (id >= 0) {
        if (*seen & (1ull << id))
            return dup_key(r, key);
        *seen |= 1ull << id;
        return next(r) || val(r, id, ctx) ? -1 : 0;
    }
    if (hashset_add(unknown, key))
        return dup_key(r, key);
    strbuf d = STRBUF_INIT;
    yev_add_shown(&d, key);
    warn_at(r, r->y.ev.start_mark, "unknown key '%s' %s; skipped (written by a newer aotidbg?)", d.buf, place);
    strbuf_release(&d);
    return next(r) || skip_node(r) ? -1 : 0;
}

static int map_entries(rd *r, find_fn find, const void *fctx, val_fn val, void *ctx, const char *place,
                       uint64_t *seen)
{
    hashset unknown = {0};
    int rc = 0;
    while (!rc && r->y.ev.type != YAML_MAPPING_END_EVENT)
        rc = map_entry(r, find, fctx, val, ctx, place, seen, &unknown);
    hashset_free(&unknown);
    return rc;
}

/* Iterates a list: item(r, ctx) consumes one element. A plain empty, ~ or
 * null value (`events:` with nothing after it) counts as an empty list. */
typedef int (*item_fn)(rd *r, void *ctx);

static int parse_list(rd *r, item_fn item, void *ctx, const char *what)
{
    if (r->y.ev.type == YAML_SCALAR_EVENT && r->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!slen(r) || !strcmp(sval(r), "~") || !strcmp(sval(r), "null")))
        return next(r);
    if (r->y.ev.type != YAML_SEQUENCE_START_EVENT)
        return unexpected(r, what);
    if (next(r))
        return -1;
    while (r->y.ev.type != YAML_SEQUENCE_END_EVENT)
        if (item(r, ctx))
            return -1;
    return next(r);
}

static int dims_item(rd *r, void *ctx)
{
    int64_t *d = ctx;   /* d[0] counts, d[1..] holds */
    if (d[0] >= TENSOR_MAX_DIMS)
        return fail_at(r, r->y.ev.start_mark, "found more than %d dimensions, expected at most %d", TENSOR_MAX_DIMS,
                       TENSOR_MAX_DIMS);
    return get_i64(r, &d[1 + d[0]++], INT64_MIN, INT64_MAX, "an integer dimension");
}

static int get_dims(rd *r, int64_t *dims, int *n)
{
    int64_t d[TENSOR_MAX_DIMS + 1] = {0};
    if (parse_list(r, dims_item, d, "a list of integers like [4, 16]"))
        return -1;
    *n = (int)d[0];
    memcpy(dims, d + 1, (size_t)d[0] * sizeof *dims);
    return 0;
}

static int value_item(rd *r, void *ctx)
{
    double *v = vec_push(&r->values);
    return get_double(r, v, "a number (.nan and .inf allowed)");
}

static int get_kv_map(rd *r, size_t *n, kv_pair **out, const char *where)
{
    if (enter_map(r, where))
        return -1;
    hashset hs = {0};
    r->kv.n = 0;
    int rc = 0;
    while (!rc && r->y.ev.type != YAML_MAPPING_END_EVENT) {
        if (r->y.ev.type != YAML_SCALAR_EVENT) {
            rc = unexpected(r, "a plain key");
            break;
        }
        if (hashset_add(&hs, sval(r))) {
            rc = dup_key(r, sval(r));
            break;
        }
        kv_pair *kv = vec_push(&r->kv);
        kv->key = intern(r, sval(r), slen(r));
        if (next(r))
            rc = -1;
        else if (r->y.ev.type == YAML_SCALAR_EVENT)
            rc = get_str(r, &kv->value, 0, "a string");
        else
            rc = unexpected(r, "a string value");
    }
    hashset_free(&hs);
    if (rc)
        return -1;
    *n = r->kv.n;
    *out = *n ? arena_memdup(&r->s->arena, r->kv.p, *n * sizeof(kv_pair)) : NULL;
    return next(r);
}

/* The scratch vec for a list at the current depth (lists nest, so each
 * depth has its own; buffers are kept for the next list there). */
static vec *list_vec(rd *r, size_t elem)
{
    vec *v = &r->lists[r->y.depth];
    if (v->elem != elem) {
        free(v->p);
        *v = (vec){.elem = elem};
    }
    v->n = 0;
    return v;
}

/* Copies a scratch vec into the arena. */
static void *vec_to_arena(rd *r, vec *v, size_t *n)
{
    *n = v->n;
    void *p = v->n ? arena_memdup(&r->s->arena, v->p, v->n * v->elem) : NULL;
    v->n = 0;
    return p;
}

/* ---------- records, by their key tables (session_keys.c) ---------- */

#define AT(rec, off, type) ((type *)((char *)(rec) + (off)))

static int read_record(rd *r, const stable *t, void *rec, const char *where);

static int find_row(const void *t, const char *key)
{
    const skey *k = skey_find(t, key);
    return k ? (int)(k - ((const stable *)t)->keys) : -1;
}

/* A new record's values before its keys are read: defaults and -1s on
 * top of zeros (lists zero their items; a sub-record is zeroed with the
 * record holding it, and may even be that record's own fields). */
static void record_init(const stable *t, void *rec)
{
    for (int i = 0; i < t->n; i++) {
        const skey *k = &t->keys[i];
        if (k->type == SK_STR && k->dflt)
            *AT(rec, k->off, const char *) = k->dflt;
        else if (k->flags & SKF_NEG1) {
            if (k->type == SK_INT)
                *AT(rec, k->off, int) = -1;
            else if (k->type == SK_I64)
                *AT(rec, k->off, int64_t) = -1;
            else if (k->type == SK_NUM)
                *AT(rec, k->off, double) = -1;
        }
    }
}

static int need_keys(rd *r, yaml_mark_t at, uint64_t seen, const stable *t, const char *where)
{
    for (int i = 0; i < t->n; i++)
        if ((t->keys[i].flags & SKF_NEED) && !(seen & (1ull << i)))
            return fail_at(r, at, "found %s without '%s', expected a '%s' key", where, t->keys[i].name,
                           t->keys[i].name);
    return 0;
}

typedef struct {
    const stable *t;   /* SK_LIST */
    const skey *k;     /* SK_STRS */
    vec *v;
} list_ctx;

static int str_item(rd *r, void *ctx)
{
    list_ctx *c = ctx;
    const char **p = vec_push(c->v);
    return get_str(r, p, 0, c->k->item);
}

static int record_item(rd *r, void *ctx)
{
    list_ctx *c = ctx;
    void *rec = vec_push(c->v);
    return read_record(r, c->t, rec, c->t->where);
}

/* Consumes the value of key k into rec. */
static int read_value(rd *r, const skey *k, void *rec)
{
    void *f = AT(rec, k->off, void);
    int v;
    switch (k->custom) {
    case SC_FORMAT:
        return -1;   /* read before the rest; a second one is a duplicate */
    case SC_TENSOR_SHAPE:
    case SC_TENSOR_STRIDES: {
        tensor_rec *t = rec;
        int64_t d[TENSOR_MAX_DIMS];
        int n;
        yaml_mark_t at = r->y.ev.start_mark;
        if (get_dims(r, d, &n))
            return -1;
        int64_t *p = n ? arena_memdup(&r->s->arena, d, (size_t)n * sizeof *d) : NULL;
        if (k->custom == SC_TENSOR_SHAPE) {
            t->shape = p;
            t->ndim = n;
        } else {
            t->strides = p;
            r->nstrides = n;
            r->strides_at = at;
        }
        return 0;
    }
    case SC_INPUT_STRIDES:
        ((input_spec *)rec)->has_strides = 1;
        return get_dims(r, f, &r->nstrides);
    default:
        break;
    }
    switch (k->type) {
    case SK_STR: return get_str(r, f, !!(k->flags & SKF_NULL), k->what);
    case SK_INT: return get_int(r, f, (int)k->lo, (int)k->hi, k->what);
    case SK_I64: return get_i64(r, f, k->lo, k->hi, k->what);
    case SK_U64: return get_u64(r, f, k->what);
    case SK_NUM: return get_double(r, f, k->what);
    case SK_BOOL: return get_bool(r, f);
    case SK_ENUM:
        if (get_enum(r, &v, k->enum_from, k->what))
            return -1;
        *(int *)f = v;
        return 0;
    case SK_DIMS: return get_dims(r, f, AT(rec, k->cnt, int));
    case SK_NUMS: {
        r->values.n = 0;
        if (parse_list(r, value_item, NULL, k->what))
            return -1;
        size_t n = r->values.n;
        *AT(rec, k->cnt, size_t) = n;
        *(double **)f = n ? arena_memdup(&r->s->arena, r->values.p, n * sizeof(double)) : NULL;
        return 0;
    }
    case SK_STRS: {
        list_ctx c = {NULL, k, list_vec(r, sizeof(const char *))};
        int rc = parse_list(r, str_item, &c, k->what);
        *(void **)f = vec_to_arena(r, c.v, AT(rec, k->cnt, size_t));
        return rc;
    }
    case SK_KV: return get_kv_map(r, AT(rec, k->cnt, size_t), f, k->what);
    case SK_SUB:
        if (k->has)
            *AT(rec, k->has, int) = 1;
        return read_record(r, k->sub, f, k->what);
    case SK_LIST: {
        list_ctx c = {k->sub, NULL, list_vec(r, k->sub->size)};
        int rc = parse_list(r, record_item, &c, k->what);
        *(void **)f = vec_to_arena(r, c.v, AT(rec, k->cnt, size_t));
        return rc;
    }
    case SK_CUSTOM: break;
    }
    return -1;
}

typedef struct {
    const stable *t;
    void *rec;
} rec_ctx;

static int record_val(rd *r, int id, void *ctx)
{
    rec_ctx *c = ctx;
    return read_value(r, &c->t->keys[id], c->rec);
}

/* After a record's keys: what no single key can check. */
static int record_done(rd *r, const stable *t, void *rec, yaml_mark_t at, uint64_t seen)
{
    if (t == &session_input_table) {
        input_spec *in = rec;
        if (in->has_strides && r->nstrides != in->ndim)
            return fail_at(r, at, "found an input with %d strides for %d dimensions, expected one stride per dimension",
                           r->nstrides, in->ndim);
    } else if (t == &session_tensor_table) {
        tensor_rec *tr = rec;
        int has_strides = !!(seen & (1ull << (skey_find(t, "strides") - t->keys)));
        if (has_strides && r->nstrides != tr->ndim)
            return fail_at(r, r->strides_at, "found %d strides for %d dimensions, expected one stride per dimension",
                           r->nstrides, tr->ndim);
        if (!tr->ndim) {
            tr->shape = tr->strides = NULL;
        } else if (!has_strides) {   /* contiguous by default */
            tr->strides = arena_alloc(&r->s->arena, (size_t)tr->ndim * sizeof(int64_t));
            int64_t st = 1;
            for (int i = tr->ndim - 1; i >= 0; i--) {
                tr->strides[i] = st;
                st *= tr->shape[i] > 0 ? tr->shape[i] : 1;
            }
        }
    }
    return 0;
}

/* A mapping of t's keys into rec, from its start to past its end; `where`
 * names it in messages ("a mapping (where)", "unknown key ... in where"). */
static int read_record(rd *r, const stable *t, void *rec, const char *where)
{
    yaml_mark_t at = r->y.ev.start_mark;
    record_init(t, rec);
    int outer_nstrides = r->nstrides;   /* a tensor's strides, around its stats */
    r->nstrides = 0;
    if (enter_map(r, where))
        return -1;
    char in[160];
    snprintf(in, sizeof in, "in %s", where);
    uint64_t seen = 0;
    rec_ctx c = {t, rec};
    if (map_entries(r, find_row, t, record_val, &c, in, &seen) || need_keys(r, at, seen, t, t->where) ||
        record_done(r, t, rec, at, seen))
        return -1;
    r->nstrides = outer_nstrides;
    return next(r);
}

/* ---------- events ---------- */

/* The event keys: kind and t_ms, then every kind's keys, each name once,
 * in table order (the order of "does not belong" warnings). */
typedef struct key_names {
    const char *name[64];
    int n;
    const skey *row[64][EV__COUNT];   /* each name's row in each kind, or NULL */
    uint64_t kind_mask[EV__COUNT];    /* the names each kind takes */
    uint64_t common;                  /* kind, t_ms */
} key_names;

static void event_key_names(key_names *u)
{
    memset(u, 0, sizeof *u);
    const stable *ts[1 + EV__COUNT] = {&session_event_table};
    for (int k = 0; k < EV__COUNT; k++)
        ts[1 + k] = session_kind_tables[k];
    for (int i = 0; i <= EV__COUNT; i++)
        for (int j = 0; j < ts[i]->n; j++) {
            int m = 0;
            while (m < u->n && strcmp(u->name[m], ts[i]->keys[j].name))
                m++;
            if (m == 64)
                continue;
            if (m == u->n)
                u->name[u->n++] = ts[i]->keys[j].name;
            if (i == 0) {
                u->common |= 1ull << m;
            } else {
                u->row[m][i - 1] = &ts[i]->keys[j];
                u->kind_mask[i - 1] |= 1ull << m;
            }
        }
}

static int find_name(const void *u, const char *key)
{
    const key_names *n = u;
    for (int i = 0; i < n->n; i++)
        if (!strcmp(n->name[i], key))
            return i;
    return -1;
}

/* The kind may come after other keys and the members of event.u overlap, so
 * each kind gets its own scratch event; a key several kinds have ("text",
 * "tensors") is read once and copied to the others. */
typedef struct ev_ctx {
    int kind;                /* -1 until known, -2 unknown kind: skip */
    const char *unknown_kind;
    double t_ms;
    event common;            /* the other keys every event may have (rank) */
    const key_names *names;
    event k[EV__COUNT];
} ev_ctx;

/* Bytes of the value of a row (its field, and its count where it has one). */
static void copy_value(const skey *from, const void *src, const skey *to, void *dst)
{
    size_t n = 0;
    switch (from->type) {
    case SK_STR: n = sizeof(const char *); break;
    case SK_INT: case SK_BOOL: case SK_ENUM: n = sizeof(int); break;
    case SK_I64: case SK_U64: n = sizeof(int64_t); break;
    case SK_NUM: n = sizeof(double); break;
    case SK_DIMS: n = TENSOR_MAX_DIMS * sizeof(int64_t); break;
    case SK_NUMS: case SK_STRS: case SK_KV: case SK_LIST: n = sizeof(void *); break;
    case SK_SUB: n = from->sub->size; break;
    case SK_CUSTOM: return;
    }
    memcpy(AT(dst, to->off, char), AT(src, from->off, char), n);
    if (from->type == SK_DIMS)
        *AT(dst, to->cnt, int) = *AT(src, from->cnt, int);
    else if (from->type >= SK_NUMS && from->type != SK_SUB)
        *AT(dst, to->cnt, size_t) = *AT(src, from->cnt, size_t);
    else if (from->type == SK_SUB && from->has && to->has)
        *AT(dst, to->has, int) = *AT(src, from->has, int);
}

static int event_val(rd *r, int id, void *ctx)
{
    ev_ctx *c = ctx;
    if (c->kind == -2)
        return skip_node(r);
    const char *key = c->names->name[id];
    if (!strcmp(key, "kind")) {
        if (r->y.ev.type != YAML_SCALAR_EVENT)
            return unexpected(r, skey_find(&session_event_table, "kind")->what);
        c->kind = event_kind_from_name(sval(r));
        if (c->kind < 0) {
            c->kind = -2;
            c->unknown_kind = intern(r, sval(r), slen(r));
            r->quiet = 1;
        }
        return next(r);
    }
    if (!strcmp(key, "t_ms"))
        return get_double(r, &c->t_ms, skey_find(&session_event_table, "t_ms")->what);
    if (c->names->common & (1ull << id))
        return read_value(r, skey_find(&session_event_table, key), &c->common);
    const skey *first = NULL;
    int first_kind = -1;
    for (int k = 0; k < EV__COUNT; k++) {
        const skey *row = c->names->row[id][k];
        if (!row)
            continue;
        if (!first) {
            if (read_value(r, row, &c->k[k].u))
                return -1;
            first = row;
            first_kind = k;
        } else {
            copy_value(first, &c->k[first_kind].u, row, &c->k[k].u);
        }
    }
    return first ? 0 : -1;
}

static int event_item(rd *r, void *ctx)
{
    const key_names *names = ctx;
    yaml_mark_t at = r->y.ev.start_mark;
    r->ev_warnings = r->s->nwarnings;
    r->ev_nwarn = r->nwarn;
    /* `- ` with nothing after it: only the writer being cut off makes that. */
    if (r->y.ev.type == YAML_SCALAR_EVENT && r->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !slen(r)) {
        if (next(r))
            return -1;
        if (r->y.ev.type == YAML_SEQUENCE_END_EVENT && r->eof && r->chunk_pos == r->chunk_len) {
            r->yaml_at_eof = 1;
            return fail_at(r, at, "found an empty event at the end of the file, expected an event");
        }
        return fail_at(r, at, "found an empty value, expected an event (a mapping with 'kind')");
    }
    ev_ctx *c = r->evc;
    c->kind = -1;
    c->t_ms = -1;
    c->common.rank = -1;
    c->names = names;
    memset(c->k, 0, sizeof c->k);
    for (int k = 0; k < EV__COUNT; k++)
        record_init(session_kind_tables[k], &c->k[k].u);
    uint64_t seen = 0;
    int rc = enter_map(r, "an event") ? -1 : map_entries(r, find_name, names, event_val, c, "in an event", &seen);
    r->quiet = 0;
    if (rc)
        return -1;
    if (c->kind == -2) {
        strbuf d = STRBUF_INIT;
        yev_add_shown(&d, c->unknown_kind);
        warn_at(r, at, "unknown event kind '%s'; event skipped (written by a newer aotidbg?)", d.buf);
        strbuf_release(&d);
        return next(r);
    }
    if (c->kind < 0)
        return fail_at(r, at, "found an event without 'kind', expected kind: kernel, error, output, runner-exit or log");
    int k = c->kind;
    const stable *t = session_kind_tables[k];
    const char *where = t->where;
    uint64_t kseen = 0;   /* seen, as bits of t's rows */
    for (int i = 0; i < names->n; i++)
        if ((seen & (1ull << i)) && names->row[i][k])
            kseen |= 1ull << (names->row[i][k] - t->keys);
    if (need_keys(r, at, kseen, t, where))
        return -1;
    uint64_t extra = seen & ~(names->kind_mask[k] | names->common);
    for (int i = 0; i < names->n; i++)
        if (extra & (1ull << i))
            warn_at(r, at, "key '%s' does not belong in %s; ignored", names->name[i], where);
    event *e = session_add_event(r->s, k);
    if (k == EV_KERNEL)
        e->u.kernel.index += (int64_t)r->forgot_kernels;   /* the default; the file's index overrides it */
    e->t_ms = c->t_ms;
    e->rank = c->common.rank;
    for (int i = 0; i < t->n; i++)   /* fields no key sets keep session_add_event's values */
        copy_value(&t->keys[i], &c->k[k].u, &t->keys[i], &e->u);
    r->ev_warnings = r->s->nwarnings;   /* committed: its warnings stay */
    r->ev_nwarn = r->nwarn;
    return next(r);
}

/* ---------- header ---------- */

static int top_val(rd *r, int id, void *ctx)
{
    return read_value(r, &session_top_table.keys[id], ctx);   /* events: top_entries */
}

static int parse_format(rd *r)
{
    /* at the first key of the top mapping */
    if (r->y.ev.type != YAML_SCALAR_EVENT || strcmp(sval(r), "format_version"))
        return unexpected(r, "format_version as the first key (is this an aotidbg session file?)");
    if (next(r))
        return -1;
    if (r->y.ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, "a version like \"1.0\"");
    int maj, min, n = 0;
    if (sscanf(sval(r), "%d.%d%n", &maj, &min, &n) != 2 || (size_t)n != slen(r) || maj < 0 || min < 0)
        return unexpected(r, "a version like \"1.0\"");
    if (maj != SESSION_FORMAT_MAJOR)
        return fail_at(r, r->y.ev.start_mark,
                       "found format_version %d.%d, expected %d.x (%s; this aotidbg reads format %d.%d)", maj, min,
                       SESSION_FORMAT_MAJOR,
                       maj > SESSION_FORMAT_MAJOR ? "written by a newer aotidbg: upgrade to read it" : "too old",
                       SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
    if (min > SESSION_FORMAT_MINOR)
        warn_at(r, r->y.ev.start_mark, "format_version %d.%d is newer than %d.%d; parts this aotidbg does not know are skipped",
                maj, min, SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
    r->s->format_major = maj;
    r->s->format_minor = min;
    return next(r);
}

/* The stream up to the first top-level key after format_version. */
static int top_begin(rd *r)
{
    if (next(r) || r->y.ev.type != YAML_STREAM_START_EVENT)
        return -1;
    if (next(r))
        return -1;
    if (r->y.ev.type != YAML_DOCUMENT_START_EVENT)
        return unexpected(r, "a session (format_version: \"1.0\" ...)");
    if (next(r))
        return -1;
    if (r->y.ev.type != YAML_MAPPING_START_EVENT)
        return unexpected(r, "a mapping of session keys (format_version: \"1.0\" ...)");
    r->top_line = (size_t)r->y.ev.start_mark.line + 1;
    if (next(r) || parse_format(r))
        return -1;
    r->top_seen = 1ull << find_row(&session_top_table, "format_version");
    return 0;
}

/* The top mapping's entries from where the parse stands: 1 at the first
 * event of an events list (its start consumed), 0 at the mapping's end, -1
 * failed. */
static int top_entries(rd *r)
{
    const stable *t = &session_top_table;
    int ev = find_row(t, "events");
    while (r->y.ev.type != YAML_MAPPING_END_EVENT) {
        if (r->y.ev.type != YAML_SCALAR_EVENT || strcmp(sval(r), "events") || (r->top_seen & (1ull << ev))) {
            if (map_entry(r, find_row, t, top_val, r->s, "at the top level", &r->top_seen, &r->top_unknown))
                return -1;
            continue;
        }
        r->top_seen |= 1ull << ev;
        if (next(r))
            return -1;
        if (r->y.ev.type == YAML_SCALAR_EVENT && r->y.ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            (!slen(r) || !strcmp(sval(r), "~") || !strcmp(sval(r), "null"))) {   /* `events:` empty */
            if (next(r))
                return -1;
            continue;
        }
        if (r->y.ev.type != YAML_SEQUENCE_START_EVENT)
            return unexpected(r, t->keys[ev].what);
        if (!r->names) {
            r->names = xmalloc(sizeof *r->names);
            event_key_names(r->names);
        }
        r->in_events = 1;
        return next(r) ? -1 : 1;
    }
    return 0;
}

/* Up to max events of the open list: 1 when the budget ran out first, 0 at
 * the list's end (consumed), -1 failed. */
static int events_step(rd *r, size_t max)
{
    for (size_t i = 0; r->y.ev.type != YAML_SEQUENCE_END_EVENT; i++) {
        if (i == max)
            return 1;
        if (event_item(r, r->names))
            return -1;
    }
    if (next(r))
        return -1;   /* in_events stays: load() needs to know where it failed */
    r->in_events = 0;
    return 0;
}

/* After the top mapping's end: the end of the session and of the file. */
static int top_end(rd *r)
{
    if (!(r->top_seen & (1ull << find_row(&session_top_table, "events"))))
        return fail_at(r, r->y.ev.start_mark, "found the end of the session without 'events' (it began at line %zu), "
                       "expected an events: list (is the file cut off before the events?)", r->top_line);
    if (next(r))
        return -1;
    if (r->y.ev.type != YAML_DOCUMENT_END_EVENT)
        return unexpected(r, "the end of the session");
    if (next(r))
        return -1;
    if (r->y.ev.type != YAML_STREAM_END_EVENT)
        return unexpected(r, "the end of the file (one session per file)");
    return 0;
}

/* The parse from where it stands, at most max more events: 1 when events
 * remain, 0 done, -1 failed. */
static int drive(rd *r, size_t max)
{
    for (;;) {
        int k;
        switch (r->phase) {
        case RP_START:
            if (top_begin(r))
                return -1;
            r->phase = RP_TOP;
            break;
        case RP_TOP:
            if ((k = top_entries(r)) < 0)
                return -1;
            if (k) {
                r->phase = RP_EVENTS;
                if (!max)
                    return 1;
            } else {
                if (top_end(r))
                    return -1;
                r->phase = RP_DONE;
            }
            break;
        case RP_EVENTS:
            if ((k = events_step(r, max)) != 0)
                return k;
            r->phase = RP_TOP;
            break;
        default:
            return 0;
        }
    }
}

/* After a successful parse: references that point nowhere get a warning; a
 * counts: key that belies the events too, unless the file was cut (its
 * warning says so already). Fewer events than counts: says, and no more
 * kernels, is a cut at an event's end: cut-off as any cut. */
static void check_refs(rd *r)
{
    session *s = r->s;
    size_t nev = s->nevents + r->forgot_events, nk = s->nkernels + r->forgot_kernels;
    if (s->counts.events >= 0 && !s->truncated && nev < (size_t)s->counts.events &&
        nk <= (size_t)s->counts.kernels) {   /* whole YAML, cut at an event's end: a loss, as any cut */
        s->truncated = 1;
        s->end_state = "cut-off";
        if (nev)
            session_add_warning(s, "%s: cut off after event #%zu: the file holds %zu of the %lld events its counts: "
                                "key says (the recording was interrupted)", r->name, nev - 1, nev,
                                (long long)s->counts.events);
        else
            session_add_warning(s, "%s: cut off before the first event: the file holds none of the %lld events its "
                                "counts: key says (the recording was interrupted)", r->name,
                                (long long)s->counts.events);
    } else if (s->counts.events >= 0 && !s->truncated &&
               ((size_t)s->counts.events != nev || (size_t)s->counts.kernels != nk)) {
        session_add_warning(s, "%s: counts: says %lld events (%lld kernels); the file holds %zu (%zu kernels)",
                            r->name, (long long)s->counts.events, (long long)s->counts.kernels, nev, nk);
    }
    for (size_t i = 0; i < s->nbookmarks && i < MAX_WARNINGS; i++)
        if (s->bookmarks[i].event_index >= (int64_t)nev)
            session_add_warning(s, "%s: bookmark %zu points at event #%lld; the file has %zu events", r->name, i,
                                (long long)s->bookmarks[i].event_index, nev);
    for (size_t i = 0; i < s->nnarration && i < MAX_WARNINGS; i++)
        if (s->narration[i].event_index >= (int64_t)nev)
            session_add_warning(s, "%s: narration step %zu points at event #%lld; the file has %zu events", r->name,
                                i, (long long)s->narration[i].event_index, nev);
}

/* 1 when an aotidbg writing the first n bytes of path holds its .lock
 * (session_write.c's lock_session: flock'd for as long as the writer lives).
 * A lock file that is absent, or that we can lock, has no writer. */
static int lock_held(const char *path, size_t n)
{
    char *lp = xmalloc(n + 6);
    memcpy(lp, path, n);
    memcpy(lp + n, ".lock", 6);
    int fd = open(lp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    free(lp);
    if (fd < 0)
        return 0;
    int alive = flock(fd, LOCK_SH | LOCK_NB) != 0;
    close(fd);
    return alive;
}

/* 1 when a writer records path: PATH.lock held, or for PATH.part (the stream
 * of a recording over an existing PATH) PATH's lock. */
static int writer_alive(const char *path)
{
    size_t n = strlen(path);
    return lock_held(path, n) || (n > 5 && !strcmp(path + n - 5, ".part") && lock_held(path, n - 5));
}

/* A file whose header says "running" (the stream's header: the final save
 * rewrites it) and whose writer is gone: its front end died without an end.
 * end_state becomes "cut-off: ..." with the last kernel seen and when the file
 * was last written (its mtime), so a replay says so where it shows end_state.
 * (A writer whose final save failed, a full disk, leaves the same file.) */
static void writer_died(rd *r)
{
    session *s = r->s;
    if (writer_alive(r->name))
        return;
    int64_t index = r->last_kernel;
    const char *name = r->last_kernel_name;
    double ms = r->last_kernel_ms;
    if (s->nkernels) {
        const event *k = s->kernels[s->nkernels - 1];
        index = k->u.kernel.index, name = k->u.kernel.name, ms = k->t_ms;
    }
    strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, "cut-off: the writer ended without its final save");
    if (index >= 0) {
        strbuf_addf(&sb, ", after kernel %lld %s", (long long)index, name ? name : "?");
        if (ms >= 0)
            strbuf_addf(&sb, " (t=%.0f ms)", ms);
    } else {
        strbuf_addstr(&sb, ", before its first kernel");
    }
    if (r->mtime) {
        char when[64];
        struct tm tm;
        if (gmtime_r(&r->mtime, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm))
            strbuf_addf(&sb, "; last written %s", when);
    }
    s->end_state = arena_strdup(&s->arena, sb.buf);
    session_add_warning(s, "%s: the recording was cut: end_state says running and no aotidbg holds %s.lock "
                        "(its writer was killed, or its final save failed); %zu events loaded", r->name, r->name,
                        s->nevents + r->forgot_events);
    strbuf_release(&sb);
}

/* The parser set up over r's input (name, file or mem already set). */
static int rd_init(rd *r, strbuf *err)
{
    r->s = session_new();
    r->last_kernel = -1;
    r->err = &r->msg;   /* messages wait in msg until the reader ends */
    r->line = r->col = 1;
    r->values.elem = sizeof(double);
    r->kv.elem = sizeof(kv_pair);
    r->evc = xcalloc(1, sizeof *r->evc);
    static const ylimits lim = {SESSION_MAX_DEPTH, SESSION_MAX_SCALAR_BYTES, 0, "a session file", "session files"};
    if (yev_init_reader(&r->y, read_handler, r, &lim)) {
        strbuf_addf(err, "%s: out of memory", r->name);
        free(r->evc);
        r->evc = NULL;
        session_free(r->s);
        r->s = NULL;
        return -1;
    }
    /* No yaml_parser_set_encoding: detection skips a UTF-8 BOM; UTF-16 never
     * gets that far (our UTF-8 check refuses it first). */
    return 0;
}

/* The parse ended (rc of drive: 0 or -1): a cut-off file keeps what came
 * before the cut, references are checked, the parser's memory goes. r->rc
 * says how it ended; on -1 the error is added to err. */
static void conclude(rd *r, int rc, strbuf *err)
{
    if (rc && !r->failed)
        fail_at(r, r->y.p.mark, "found a YAML error, expected a session file");
    /* A value error in the last event may be the cut itself (`t_ms:` then
     * the end of the file): if libyaml fails at the end within a few more
     * events, the event was cut off, not wrong. */
    if (rc && r->in_events && !r->yaml_at_eof && !r->input_err && !r->utf8_cut) {
        for (int i = 0; i < 4; i++) {
            yaml_event_t e;
            if (!yaml_parser_parse(&r->y.p, &e)) {
                r->yaml_at_eof = at_end(r, r->y.p.problem_mark);
                break;
            }
            int end = e.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&e);
            if (end)
                break;
        }
    }
    /* Cut off inside the events list: keep what came before. */
    if (rc && r->in_events && (r->yaml_at_eof || r->utf8_cut) && !r->input_err) {
        session *s = r->s;
        s->truncated = 1;
        s->nwarnings = r->ev_warnings;   /* drop what the cut event warned about */
        r->nwarn = r->ev_nwarn;
        s->end_state = "cut-off";
        size_t nev = s->nevents + r->forgot_events;
        if (nev)
            session_add_warning(s, "%s: cut off after event #%zu: the file ends inside the events list "
                                "(the recording was interrupted); %zu complete event%s loaded",
                                r->name, nev - 1, nev, nev == 1 ? "" : "s");
        else
            session_add_warning(s, "%s: cut off before the first event: the file ends inside the events list "
                                "(the recording was interrupted)", r->name);
        rc = 0;
    }
    if (!rc)
        check_refs(r);
    if (!rc && r->file && r->s->end_state && !strcmp(r->s->end_state, "running"))
        writer_died(r);
    if (!rc && !r->s->truncated) {   /* a file from before end_state said how a runner died */
        char buf[64];
        const char *end = session_end_state(r->s, buf, sizeof buf);
        int kernel_after = 0;   /* session_runner_exit stops at a kernel: one read since forget hides a kept exit */
        for (size_t i = 0; i < r->s->nevents && !kernel_after; i++)
            kernel_after = r->s->events[i]->kind == EV_KERNEL;
        if (end != buf && r->exit_kept && !kernel_after && !session_runner_exit(r->s)) {
            const runner_exit_event *x = &r->exit_copy;   /* as session_end_state, with the forgotten exit */
            if ((!x->how || strcmp(x->how, "killed")) && (!r->s->end_state || !strcmp(r->s->end_state, "complete")))
                end = runner_exit_text(x, buf, sizeof buf);
        }
        if (end == buf)
            r->s->end_state = arena_strdup(&r->s->arena, end);
    }
    yev_release(&r->y);
    free(r->itab);
    r->itab = NULL;
    free(r->evc);
    r->evc = NULL;
    for (int i = 0; i < SESSION_MAX_DEPTH + 2; i++) {
        free(r->lists[i].p);
        r->lists[i].p = NULL;
    }
    free(r->values.p);
    free(r->kv.p);
    r->values.p = r->kv.p = NULL;
    hashset_free(&r->top_unknown);
    memset(&r->top_unknown, 0, sizeof r->top_unknown);
    free(r->names);
    r->names = NULL;
    if (rc)
        strbuf_add(err, r->msg.buf, r->msg.len);
    strbuf_release(&r->msg);
    if (r->file)
        fclose(r->file);
    r->file = NULL;
    r->phase = RP_DONE;
    r->rc = rc ? -1 : 0;
}

/* Opens path for reading into a new rd; -1 with err. */
static rd *rd_open(const char *path, strbuf *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    uint64_t size = 0;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            strbuf_addf(err, "%s: is a directory, expected a session file", path);
            fclose(f);
            return NULL;
        }
        if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > SESSION_MAX_FILE_BYTES) {
            strbuf_addf(err, "%s:1:1: found a file of %lld bytes, expected at most %llu bytes", path,
                        (long long)st.st_size, (unsigned long long)SESSION_MAX_FILE_BYTES);
            fclose(f);
            return NULL;
        }
        if (S_ISREG(st.st_mode))
            size = (uint64_t)st.st_size;
    }
    rd *r = xcalloc(1, sizeof *r);
    r->name = xstrdup(path);
    r->file = f;
    r->file_size = size;
    r->mtime = size ? st.st_mtime : 0;
    if (rd_init(r, err)) {
        fclose(f);
        free((char *)r->name);
        free(r);
        return NULL;
    }
    return r;
}

/* The whole parse of r, then r freed: the session, or NULL with err. */
static int load_all(rd *r, session **out, strbuf *err)
{
    conclude(r, drive(r, SIZE_MAX) < 0 ? -1 : 0, err);
    *out = NULL;
    if (r->rc)
        session_free(r->s);
    else
        *out = r->s;
    return r->rc;
}

int session_load_mem(const char *name, const char *buf, size_t len, session **out, strbuf *err)
{
    *out = NULL;
    rd *r = xcalloc(1, sizeof *r);
    r->name = name;
    r->mem = (const unsigned char *)buf;
    r->mem_len = len;
    int rc = rd_init(r, err) ? -1 : load_all(r, out, err);
    free(r);
    return rc;
}

int session_load(const char *path, session **out, strbuf *err)
{
    *out = NULL;
    rd *r = rd_open(path, err);
    if (!r)
        return -1;
    int rc = load_all(r, out, err);
    free((char *)r->name);
    free(r);
    return rc;
}

/* ---------- the reader, a slice at a time ---------- */

int session_reader_open(const char *path, session_reader **out, strbuf *err)
{
    *out = NULL;
    rd *r = rd_open(path, err);
    if (!r)
        return -1;
    int rc = drive(r, 0);
    if (rc <= 0) {   /* the whole file was the header (no events, or an error before them) */
        conclude(r, rc, err);
        if (r->rc) {
            session_free(r->s);
            free((char *)r->name);
            free(r);
            return -1;
        }
    }
    if (!session_reader_done(r)) {   /* the header apart, so that forget frees only events */
        arena_adopt(&r->keep, &r->s->arena);
        r->split = 1;
    }
    *out = r;
    return 0;
}

int session_reader_forget(session_reader *r)
{
    if (r->taken || r->phase == RP_DONE || !r->split)
        return -1;
    session *s = r->s;
    for (size_t i = r->warn_kept; i < s->nwarnings; i++)   /* warnings stay: into the header's memory */
        s->warnings[i] = arena_strdup(&r->keep, s->warnings[i]);
    r->warn_kept = s->nwarnings;
    for (size_t i = s->nevents; i-- > 0;) {   /* what session_runner_exit would find after the last kernel */
        const event *e = s->events[i];
        if (e->kind == EV_KERNEL) {
            r->exit_kept = 0;
            break;
        }
        if (e->kind == EV_RUNNER_EXIT) {
            r->exit_copy = e->u.exit;
            r->exit_copy.how = arena_strdup(&r->keep, e->u.exit.how);
            r->exit_copy.stderr_tail = NULL;
            r->exit_kept = 1;
            break;
        }
    }
    if (s->nkernels) {   /* a cut's end_state names the last kernel seen */
        const event *k = s->kernels[s->nkernels - 1];
        r->last_kernel = k->u.kernel.index;
        r->last_kernel_name = k->u.kernel.name ? arena_strdup(&r->keep, k->u.kernel.name) : NULL;
        r->last_kernel_ms = k->t_ms;
    }
    r->forgot_events += s->nevents;
    r->forgot_kernels += s->nkernels;
    s->nevents = s->nkernels = 0;
    /* interned strings of the events go with them */
    if (r->itab)
        memset(r->itab, 0, r->icap * sizeof *r->itab);
    r->in = 0;
    arena_release(&s->arena);
    return 0;
}

const session *session_reader_session(const session_reader *r) { return r->taken ? NULL : r->s; }

void session_reader_forgotten(const session_reader *r, size_t *nevents, size_t *nkernels)
{
    *nevents = r->forgot_events;
    *nkernels = r->forgot_kernels;
}

int session_reader_step(session_reader *r, size_t max_events, strbuf *err)
{
    if (r->phase == RP_DONE)
        return r->rc;
    int rc = drive(r, max_events);
    if (rc > 0)
        return 1;
    conclude(r, rc, err);
    return r->rc;
}

int session_reader_done(const session_reader *r) { return r->phase == RP_DONE; }

session *session_reader_take(session_reader *r)
{
    session *s = r->taken ? NULL : r->s;
    if (s)
        arena_adopt(&s->arena, &r->keep);   /* the header's memory is the session's again */
    r->taken = 1;
    return s;
}

void session_reader_progress(const session_reader *r, uint64_t *done, uint64_t *total)
{
    *done = r->total;
    *total = r->file_size > r->total ? r->file_size : r->total;
}

void session_reader_close(session_reader *r)
{
    if (!r)
        return;
    if (r->phase != RP_DONE) {
        strbuf e = STRBUF_INIT;
        r->failed = 1;   /* no message: the caller stopped reading */
        r->in_events = 0;
        conclude(r, -1, &e);
        strbuf_release(&e);
    }
    if (!r->taken)
        session_free(r->s);
    arena_release(&r->keep);
    free((char *)r->name);
    free(r);
}
