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
 * Errors: -1 with "FILE:LINE:COL: found X, expected Y" (1-based) in err.
 * Ownership: everything lands in the new session's arena; the caller frees
 * the session with session_free(). Repeated short strings are interned. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>
#include "session_io.h"

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
        size_t nc = v->cap ? v->cap * 2 : 16;
        void *q = realloc(v->p, nc * v->elem);
        if (!q) {
            fputs("aotidbg: out of memory\n", stderr);
            abort();
        }
        v->p = q;
        v->cap = nc;
    }
    void *e = (char *)v->p + v->n++ * v->elem;
    memset(e, 0, v->elem);
    return e;
}

typedef struct {
    yaml_parser_t p;
    yaml_event_t ev;
    int have_ev;
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
    vec tensors, values, kv;
} rd;

/* ---------- messages ---------- */

/* Copies at most 40 chars of s for a message, control chars as '?'. */
static void add_shown(strbuf *sb, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (n >= 40 && (*p & 0xc0) != 0x80) {
            strbuf_addstr(sb, "...");
            return;
        }
        strbuf_addch(sb, *p < 0x20 || *p == 0x7f ? '?' : *p);
        if ((*p & 0xc0) != 0x80)
            n++;
    }
}

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

/* "a mapping", "the value 'x'", ... for "found X" */
static void describe(rd *r, strbuf *sb)
{
    switch (r->ev.type) {
    case YAML_SCALAR_EVENT:
        if (!r->ev.data.scalar.length) {
            strbuf_addstr(sb, "an empty value");
        } else {
            strbuf_addstr(sb, "the value '");
            add_shown(sb, (const char *)r->ev.data.scalar.value);
            strbuf_addch(sb, '\'');
        }
        break;
    case YAML_MAPPING_START_EVENT: strbuf_addstr(sb, "a mapping"); break;
    case YAML_SEQUENCE_START_EVENT: strbuf_addstr(sb, "a list"); break;
    case YAML_MAPPING_END_EVENT: strbuf_addstr(sb, "the end of a mapping"); break;
    case YAML_SEQUENCE_END_EVENT: strbuf_addstr(sb, "the end of a list"); break;
    case YAML_DOCUMENT_START_EVENT: strbuf_addstr(sb, "a second document"); break;
    default: strbuf_addstr(sb, "the end of the file"); break;
    }
}

static int unexpected(rd *r, const char *expected)
{
    strbuf d = STRBUF_INIT;
    describe(r, &d);
    fail_at(r, r->ev.start_mark, "found %s, expected %s", d.buf, expected);
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
    if (r->have_ev) {
        yaml_event_delete(&r->ev);
        r->have_ev = 0;
    }
    if (!yaml_parser_parse(&r->p, &r->ev)) {
        if (r->input_err)
            return -1;
        yaml_mark_t m = r->p.problem_mark;
        if (r->p.error == YAML_READER_ERROR || r->p.error == YAML_MEMORY_ERROR)
            m = r->p.mark;
        r->yaml_at_eof = at_end(r, m);
        const char *prob = r->p.problem ? r->p.problem : "a YAML error";
        if (r->p.context)
            fail_at(r, m, "found bad YAML (%s %s, from line %zu), expected well-formed YAML", prob,
                    r->p.context, (size_t)r->p.context_mark.line + 1);
        else
            fail_at(r, m, "found bad YAML (%s), expected well-formed YAML", prob);
        return -1;
    }
    r->have_ev = 1;
    r->handed_at_event = r->handed;
    yaml_event_t *e = &r->ev;
    const yaml_char_t *anchor = NULL;
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return fail_at(r, e->start_mark, "found an alias (*%s), expected plain data (session files allow no anchors or aliases)",
                       e->data.alias.anchor ? (const char *)e->data.alias.anchor : "");
    case YAML_SCALAR_EVENT:
        anchor = e->data.scalar.anchor;
        if (e->data.scalar.length > SESSION_MAX_SCALAR_BYTES)
            return fail_at(r, e->start_mark, "found a value of %zu bytes, expected at most %u bytes",
                           e->data.scalar.length, SESSION_MAX_SCALAR_BYTES);
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        anchor = e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor : e->data.mapping_start.anchor;
        if (++r->depth > SESSION_MAX_DEPTH)
            return fail_at(r, e->start_mark, "found nesting deeper than %d levels, expected a session file",
                           SESSION_MAX_DEPTH);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        r->depth--;
        break;
    default:
        break;
    }
    if (anchor)
        return fail_at(r, e->start_mark, "found an anchor (&%s), expected plain data (session files allow no anchors or aliases)",
                       (const char *)anchor);
    return 0;
}

static const char *sval(rd *r) { return (const char *)r->ev.data.scalar.value; }
static size_t slen(rd *r) { return r->ev.data.scalar.length; }

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
        const char **t = calloc(nc, sizeof *t);
        if (!t) {
            fputs("aotidbg: out of memory\n", stderr);
            abort();
        }
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
    if (r->ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, what);
    if (nullable && r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!slen(r) || !strcmp(sval(r), "~") || !strcmp(sval(r), "null")))
        *out = NULL;
    else
        *out = intern(r, sval(r), slen(r));
    return next(r);
}

static int scalar_num(rd *r, const char *what)
{
    if (r->ev.type != YAML_SCALAR_EVENT || !slen(r) || r->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
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
        describe(r, &d);
        fail_at(r, r->ev.start_mark, "found %s (out of range), expected %s from %lld to %lld", d.buf, what,
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
        describe(r, &d);
        fail_at(r, r->ev.start_mark, "found %s (out of range), expected %s below 2^64", d.buf, what);
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
    if (r->ev.type == YAML_SCALAR_EVENT && r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
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
    if (r->ev.type != YAML_SCALAR_EVENT)
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
    add_shown(&d, key);
    fail_at(r, r->ev.start_mark, "found key '%s' a second time, expected each key once", d.buf);
    strbuf_release(&d);
    return -1;
}

/* Hash set of keys for maps with arbitrary keys (flags, fields, unknown
 * maps), so a hostile map with many keys stays linear. Keys are copied. */
typedef struct {
    struct hs_slot { uint64_t h; char *k; } *t;
    size_t cap, n;
} hashset;

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
        struct hs_slot *t = calloc(nc, sizeof *t);
        if (!t)
            abort();
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
    hs->t[j].k = strdup(key);
    if (!hs->t[j].k)
        abort();
    hs->n++;
    return 0;
}

static int skip_node(rd *r)
{
    if (r->ev.type == YAML_SCALAR_EVENT)
        return next(r);
    if (r->ev.type == YAML_SEQUENCE_START_EVENT) {
        if (next(r))
            return -1;
        while (r->ev.type != YAML_SEQUENCE_END_EVENT)
            if (skip_node(r))
                return -1;
        return next(r);
    }
    if (r->ev.type == YAML_MAPPING_START_EVENT) {
        hashset hs = {0};
        int rc = next(r);
        while (!rc && r->ev.type != YAML_MAPPING_END_EVENT) {
            if (r->ev.type != YAML_SCALAR_EVENT)
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

/* Iterates a mapping of known keys. val(r, id, ctx) consumes the value of
 * known key id; unknown keys are warned about and skipped; *seen gets the
 * bitmask of known keys present. Starts at MAPPING_START, ends past MAPPING_END. */
typedef int (*val_fn)(rd *r, int id, void *ctx);

/* As parse_map, but stops AT the MAPPING_END: the caller commits what it
 * built before pulling more input (which may hit the cut of a cut-off file). */
/* Consumes the start of a mapping, or says a mapping (`where`) was expected. */
static int enter_map(rd *r, const char *where)
{
    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        char exp[128];
        snprintf(exp, sizeof exp, "a mapping (%s)", where);
        return unexpected(r, exp);
    }
    return next(r);
}

/* The entries of a mapping whose start is already consumed, up to (not past)
 * its end: known keys go to val (each once; bits of *seen, which may come in
 * with some set), unknown ones are warned about (`place`: "in a kernel
 * event", "at the top level") and skipped. */
static int map_entries(rd *r, const char *const *keys, int nkeys, val_fn val, void *ctx, const char *place,
                       uint32_t *seen)
{
    hashset unknown = {0};
    int rc = 0;
    while (!rc && r->ev.type != YAML_MAPPING_END_EVENT) {
        if (r->ev.type != YAML_SCALAR_EVENT) {
            rc = unexpected(r, "a plain key");
            break;
        }
        const char *key = sval(r);
        int id = -1;
        for (int i = 0; i < nkeys; i++)
            if (!strcmp(keys[i], key)) {
                id = i;
                break;
            }
        if (id >= 0) {
            if (*seen & (1u << id)) {
                rc = dup_key(r, key);
                break;
            }
            *seen |= 1u << id;
            rc = next(r) || val(r, id, ctx) ? -1 : 0;
        } else {
            if (hashset_add(&unknown, key)) {
                rc = dup_key(r, key);
                break;
            }
            strbuf d = STRBUF_INIT;
            add_shown(&d, key);
            warn_at(r, r->ev.start_mark, "unknown key '%s' %s; skipped (written by a newer aotidbg?)", d.buf, place);
            strbuf_release(&d);
            rc = next(r) || skip_node(r) ? -1 : 0;
        }
    }
    hashset_free(&unknown);
    return rc;
}

static int parse_map_body(rd *r, const char *const *keys, int nkeys, val_fn val, void *ctx, const char *where,
                          uint32_t *seen)
{
    *seen = 0;
    if (enter_map(r, where))
        return -1;
    char in[160];
    snprintf(in, sizeof in, "in %s", where);
    return map_entries(r, keys, nkeys, val, ctx, in, seen);
}

static int parse_map(rd *r, const char *const *keys, int nkeys, val_fn val, void *ctx, const char *where,
                     uint32_t *seen)
{
    return parse_map_body(r, keys, nkeys, val, ctx, where, seen) ? -1 : next(r);
}

static int need_keys(rd *r, yaml_mark_t at, uint32_t seen, uint32_t need, const char *const *keys, const char *where)
{
    for (int i = 0; i < 32; i++)
        if ((need & (1u << i)) && !(seen & (1u << i)))
            return fail_at(r, at, "found %s without '%s', expected a '%s' key", where, keys[i], keys[i]);
    return 0;
}

/* Iterates a list: item(r, ctx) consumes one element. A plain empty, ~ or
 * null value (`events:` with nothing after it) counts as an empty list. */
typedef int (*item_fn)(rd *r, void *ctx);

static int parse_list(rd *r, item_fn item, void *ctx, const char *what)
{
    if (r->ev.type == YAML_SCALAR_EVENT && r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!slen(r) || !strcmp(sval(r), "~") || !strcmp(sval(r), "null")))
        return next(r);
    if (r->ev.type != YAML_SEQUENCE_START_EVENT)
        return unexpected(r, what);
    if (next(r))
        return -1;
    while (r->ev.type != YAML_SEQUENCE_END_EVENT)
        if (item(r, ctx))
            return -1;
    return next(r);
}

static int dims_item(rd *r, void *ctx)
{
    int64_t *d = ctx;   /* d[0] counts, d[1..] holds */
    if (d[0] >= TENSOR_MAX_DIMS)
        return fail_at(r, r->ev.start_mark, "found more than %d dimensions, expected at most %d", TENSOR_MAX_DIMS,
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

/* ---------- tensors ---------- */

static const char *const stats_keys[] = {"numel", "finite", "min", "max", "mean", "std",
                                         "nan", "posinf", "neginf", "zeros", "subnormal"};

static int stats_val(rd *r, int id, void *ctx)
{
    tensor_stats *st = ctx;
    uint64_t *u[] = {&st->numel, &st->finite, NULL, NULL, NULL, NULL,
                     &st->nan, &st->posinf, &st->neginf, &st->zeros, &st->subnormal};
    double *d[] = {NULL, NULL, &st->min, &st->max, &st->mean, &st->std};
    if (u[id])
        return get_u64(r, u[id], "a count (integer >= 0)");
    return get_double(r, d[id], "a number (.nan and .inf allowed)");
}

static int value_item(rd *r, void *ctx)
{
    double *v = vec_push(&r->values);
    return get_double(r, v, "a number (.nan and .inf allowed)");
}

enum { T_NAME, T_PHASE, T_SHAPE, T_STRIDES, T_DTYPE, T_DEVICE, T_STATS, T_VALUES, T_COMPLETE, T_BUDGET_CUT, T__N };
static const char *const tensor_keys[] = {"name", "phase", "shape", "strides", "dtype",
                                          "device", "stats", "values", "values_complete", "values_budget_cut"};

typedef struct {
    tensor_rec *t;
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int nshape, nstrides;
    yaml_mark_t strides_at;
} tensor_ctx;

static int tensor_val(rd *r, int id, void *ctx)
{
    tensor_ctx *c = ctx;
    tensor_rec *t = c->t;
    uint32_t seen;
    int ph;
    switch (id) {
    case T_NAME: return get_str(r, &t->name, 0, "a tensor name");
    case T_PHASE:
        if (get_enum(r, &ph, phase_from_name, "before, after or output"))
            return -1;
        t->phase = ph;
        return 0;
    case T_SHAPE: return get_dims(r, c->shape, &c->nshape);
    case T_STRIDES:
        c->strides_at = r->ev.start_mark;
        return get_dims(r, c->strides, &c->nstrides);
    case T_DTYPE: return get_str(r, &t->dtype, 0, "a dtype name");
    case T_DEVICE: return get_str(r, &t->device, 0, "a device name");
    case T_STATS:
        t->has_stats = 1;
        return parse_map(r, stats_keys, 11, stats_val, &t->stats, "tensor stats", &seen);
    case T_VALUES: {
        r->values.n = 0;
        if (parse_list(r, value_item, NULL, "a list of numbers"))
            return -1;
        t->nvalues = r->values.n;
        t->values = t->nvalues ? arena_memdup(&r->s->arena, r->values.p, t->nvalues * sizeof(double)) : NULL;
        return 0;
    }
    case T_COMPLETE: return get_bool(r, &t->values_complete);
    case T_BUDGET_CUT: return get_bool(r, &t->values_budget_cut);
    }
    return -1;
}

static int tensor_item(rd *r, void *ctx)
{
    tensor_rec t = {0};
    tensor_ctx c = {.t = &t};
    yaml_mark_t at = r->ev.start_mark;
    uint32_t seen;
    if (parse_map(r, tensor_keys, T__N, tensor_val, &c, "a tensor", &seen) ||
        need_keys(r, at, seen, 1u << T_NAME | 1u << T_PHASE | 1u << T_DTYPE | 1u << T_DEVICE, tensor_keys,
                  "a tensor"))
        return -1;
    if ((seen & (1u << T_STRIDES)) && c.nstrides != c.nshape)
        return fail_at(r, c.strides_at, "found %d strides for %d dimensions, expected one stride per dimension",
                       c.nstrides, c.nshape);
    t.ndim = c.nshape;
    if (t.ndim) {
        t.shape = arena_memdup(&r->s->arena, c.shape, (size_t)t.ndim * sizeof(int64_t));
        t.strides = seen & (1u << T_STRIDES) ? arena_memdup(&r->s->arena, c.strides, (size_t)t.ndim * sizeof(int64_t))
                                             : arena_alloc(&r->s->arena, (size_t)t.ndim * sizeof(int64_t));
        if (!(seen & (1u << T_STRIDES))) {   /* contiguous by default */
            int64_t st = 1;
            for (int i = t.ndim - 1; i >= 0; i--) {
                t.strides[i] = st;
                st *= t.shape[i] > 0 ? t.shape[i] : 1;
            }
        }
    }
    *(tensor_rec *)vec_push(&r->tensors) = t;
    return 0;
}

static int get_tensors(rd *r, size_t *n, tensor_rec **out)
{
    r->tensors.n = 0;
    if (parse_list(r, tensor_item, NULL, "a list of tensors"))
        return -1;
    *n = r->tensors.n;
    *out = *n ? arena_memdup(&r->s->arena, r->tensors.p, *n * sizeof(tensor_rec)) : NULL;
    return 0;
}

/* ---------- string maps (flags, fields) ---------- */

static int get_kv_map(rd *r, size_t *n, kv_pair **out, const char *where)
{
    if (enter_map(r, where))
        return -1;
    hashset hs = {0};
    r->kv.n = 0;
    int rc = 0;
    while (!rc && r->ev.type != YAML_MAPPING_END_EVENT) {
        if (r->ev.type != YAML_SCALAR_EVENT) {
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
        else if (r->ev.type == YAML_SCALAR_EVENT)
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

/* ---------- events ---------- */

enum { E_KIND, E_TMS, E_INDEX, E_NAME, E_TYPE, E_STATUS, E_DURATION, E_SOURCE, E_TENSORS, E_TEXT, E_ROUTE,
       E_KERNEL, E_FIELDS, E_HOW, E_EXIT_CODE, E_SIGNAL, E_STDERR_TAIL, E_STREAM, E__N };
static const char *const event_keys[] = {"kind", "t_ms", "index", "name", "type", "status", "duration_us",
                                         "source", "tensors", "text", "route", "kernel", "fields", "how",
                                         "exit_code", "signal", "stderr_tail", "stream"};
/* Which keys each kind takes, and which it needs. */
#define B(x) (1u << (x))
static const uint32_t kind_keys[EV__COUNT] = {
    [EV_KERNEL] = B(E_INDEX) | B(E_NAME) | B(E_TYPE) | B(E_STATUS) | B(E_DURATION) | B(E_SOURCE) | B(E_TENSORS),
    [EV_ERROR] = B(E_TEXT) | B(E_ROUTE) | B(E_KERNEL) | B(E_FIELDS),
    [EV_OUTPUT] = B(E_TENSORS),
    [EV_RUNNER_EXIT] = B(E_HOW) | B(E_EXIT_CODE) | B(E_SIGNAL) | B(E_STDERR_TAIL),
    [EV_LOG] = B(E_STREAM) | B(E_TEXT),
};
static const uint32_t kind_needs[EV__COUNT] = {
    [EV_KERNEL] = B(E_INDEX) | B(E_NAME),
    [EV_ERROR] = B(E_TEXT),
    [EV_OUTPUT] = 0,
    [EV_RUNNER_EXIT] = B(E_HOW),
    [EV_LOG] = B(E_STREAM) | B(E_TEXT),
};

typedef struct {
    int kind;                /* -1 until known, -2 unknown kind: skip */
    event e;                 /* t_ms only */
    const char *unknown_kind;
} ev_ctx;

/* kind and t_ms; the rest goes through parts_val. */
static int event_val(rd *r, int id, void *ctx)
{
    ev_ctx *c = ctx;
    if (id == E_TMS)
        return get_double(r, &c->e.t_ms, "a time in ms");
    if (r->ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, "an event kind (kernel, error, output, runner-exit, log)");
    c->kind = event_kind_from_name(sval(r));
    if (c->kind < 0) {
        c->kind = -2;
        c->unknown_kind = intern(r, sval(r), slen(r));
        r->quiet = 1;
    }
    return next(r);
}

/* The kind may come after other keys, and the event union's members
 * overlap, so keys land in separate fields first and are assembled at the end. */
typedef struct {
    ev_ctx base;
    /* per-kind scratch, assembled after the map ends */
    int64_t index;
    const char *name, *source, *text, *route, *how, *stderr_tail, *stream;
    int type, status, exit_code, signal;
    double duration;
    int64_t kernel;
    size_t ntensors, nfields;
    tensor_rec *tensors;
    kv_pair *fields;
} ev_parts;

static int parts_val(rd *r, int id, void *ctx)
{
    ev_parts *p = ctx;
    int v;
    if (p->base.kind == -2)
        return skip_node(r);
    switch (id) {
    case E_KIND:
    case E_TMS:
        return event_val(r, id, &p->base);
    case E_INDEX: return get_i64(r, &p->index, 0, INT64_MAX, "a kernel index (integer >= 0)");
    case E_NAME: return get_str(r, &p->name, 0, "a kernel name");
    case E_TYPE: return get_enum_as(r, v, p->type, kernel_type_from_name, "triton, cpp, extern or unknown");
    case E_STATUS: return get_enum_as(r, v, p->status, kernel_status_from_name, "pending, ok, nan or error");
    case E_DURATION: return get_double(r, &p->duration, "a duration in microseconds");
    case E_SOURCE: return get_str(r, &p->source, 1, "a source name");
    case E_TENSORS: return get_tensors(r, &p->ntensors, &p->tensors);
    case E_TEXT: return get_str(r, &p->text, 0, "a text string");
    case E_ROUTE: return get_str(r, &p->route, 1, "a route id");
    case E_KERNEL: return get_i64(r, &p->kernel, -1, INT64_MAX, "a kernel index (integer >= -1)");
    case E_FIELDS: return get_kv_map(r, &p->nfields, &p->fields, "error fields");
    case E_HOW: return get_str(r, &p->how, 0, "how the runner ended (exited, signal, ...)");
    case E_EXIT_CODE: return get_int(r, &p->exit_code, -1000000, 1000000, "an exit code");
    case E_SIGNAL: return get_int(r, &p->signal, 0, 1000, "a signal number");
    case E_STDERR_TAIL: return get_str(r, &p->stderr_tail, 1, "a string");
    case E_STREAM: return get_str(r, &p->stream, 0, "stdout or stderr");
    }
    return -1;
}

static int event_item(rd *r, void *ctx)
{
    (void)ctx;
    yaml_mark_t at = r->ev.start_mark;
    r->ev_warnings = r->s->nwarnings;
    r->ev_nwarn = r->nwarn;
    /* `- ` with nothing after it: only the writer being cut off makes that. */
    if (r->ev.type == YAML_SCALAR_EVENT && r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !slen(r)) {
        if (next(r))
            return -1;
        if (r->ev.type == YAML_SEQUENCE_END_EVENT && r->eof && r->chunk_pos == r->chunk_len) {
            r->yaml_at_eof = 1;
            return fail_at(r, at, "found an empty event at the end of the file, expected an event");
        }
        return fail_at(r, at, "found an empty value, expected an event (a mapping with 'kind')");
    }
    ev_parts p = {.base.kind = -1, .base.e.t_ms = -1, .duration = -1, .kernel = -1};
    uint32_t seen;
    int rc = parse_map_body(r, event_keys, E__N, parts_val, &p, "an event", &seen);
    r->quiet = 0;
    if (rc)
        return -1;
    if (p.base.kind == -2) {
        strbuf d = STRBUF_INIT;
        add_shown(&d, p.base.unknown_kind);
        warn_at(r, at, "unknown event kind '%s'; event skipped (written by a newer aotidbg?)", d.buf);
        strbuf_release(&d);
        return next(r);
    }
    if (p.base.kind < 0)
        return fail_at(r, at, "found an event without 'kind', expected kind: kernel, error, output, runner-exit or log");
    int k = p.base.kind;
    const char *kname = event_kind_name(k);
    char where[64];
    snprintf(where, sizeof where, "a %s event", kname);
    if (need_keys(r, at, seen, kind_needs[k], event_keys, where))
        return -1;
    uint32_t extra = seen & ~(kind_keys[k] | B(E_KIND) | B(E_TMS));
    for (int i = 0; i < E__N; i++)
        if (extra & B(i))
            warn_at(r, at, "key '%s' does not belong in %s; ignored", event_keys[i], where);
    event *e = session_add_event(r->s, k);
    e->t_ms = p.base.e.t_ms;
    switch (k) {
    case EV_KERNEL:
        e->u.kernel = (kernel_event){p.index, p.name, p.type, p.status, p.duration, p.source, p.ntensors, p.tensors};
        break;
    case EV_ERROR:
        e->u.error = (error_event){p.text, p.route, p.kernel, p.nfields, p.fields};
        break;
    case EV_OUTPUT:
        e->u.output = (output_event){p.ntensors, p.tensors};
        break;
    case EV_RUNNER_EXIT:
        e->u.exit = (runner_exit_event){p.how, p.exit_code, p.signal, p.stderr_tail};
        break;
    case EV_LOG:
        e->u.log = (log_event){p.stream, p.text};
        break;
    }
    r->ev_warnings = r->s->nwarnings;   /* committed: its warnings stay */
    r->ev_nwarn = r->nwarn;
    return next(r);
}

/* ---------- header ---------- */

static const char *const pkg_keys[] = {"path", "sha256", "model", "device_key", "compute_capability", "cpu_isa"};

static int pkg_val(rd *r, int id, void *ctx)
{
    package_info *p = ctx;
    const char **f[] = {&p->path, &p->sha256, &p->model, &p->device_key, &p->compute_capability, &p->cpu_isa};
    return get_str(r, f[id], 1, "a string");
}

enum { I_SHAPE, I_DTYPE, I_DEVICE, I_FILL, I_SEED, I_VALUE, I_FILE, I_KEY, I_STRIDES };
static const char *const input_keys[] = {"shape", "dtype", "device", "fill", "seed", "value", "file", "key", "strides"};

typedef struct {
    input_spec *in;
    int nstrides;
} input_ctx;

static int input_val(rd *r, int id, void *ctx)
{
    input_ctx *c = ctx;
    input_spec *in = c->in;
    int v;
    switch (id) {
    case I_STRIDES:
        in->has_strides = 1;
        return get_dims(r, in->strides, &c->nstrides);
    case I_SHAPE: return get_dims(r, in->shape, &in->ndim);
    case I_DTYPE: return get_str(r, &in->dtype, 0, "a dtype name");
    case I_DEVICE: return get_str(r, &in->device, 0, "a device name");
    case I_FILL: return get_enum_as(r, v, in->fill, fill_kind_from_name, "randn, zeros, ones, arange, full or file");
    case I_SEED: return get_u64(r, &in->seed, "a seed (integer >= 0)");
    case I_VALUE: return get_double(r, &in->value, "a number");
    case I_FILE: return get_str(r, &in->file, 1, "a file path");
    case I_KEY: return get_str(r, &in->key, 1, "a tensor key");
    }
    return -1;
}

static int input_item(rd *r, void *ctx)
{
    vec *v = ctx;
    input_spec *in = vec_push(v);
    in->dtype = "float32";
    in->device = "cpu";
    input_ctx c = {in, 0};
    yaml_mark_t at = r->ev.start_mark;
    uint32_t seen;
    if (parse_map(r, input_keys, 9, input_val, &c, "an input", &seen))
        return -1;
    if (in->has_strides && c.nstrides != in->ndim)
        return fail_at(r, at, "found an input with %d strides for %d dimensions, expected one stride per dimension",
                       c.nstrides, in->ndim);
    return 0;
}

enum { C_ID, C_STATUS, C_SUBJECT, C_EXPECTED, C_GOT, C_SOURCE, C_FIX };
static const char *const check_keys[] = {"id", "status", "subject", "expected", "got", "source", "fix"};

static int check_val(rd *r, int id, void *ctx)
{
    check_row *c = ctx;
    int v;
    switch (id) {
    case C_ID: return get_str(r, &c->id, 0, "a check id");
    case C_STATUS: return get_enum_as(r, v, c->status, check_status_from_name, "PASS, WARN, FAIL or INFO");
    case C_SUBJECT: return get_str(r, &c->subject, 0, "a string");
    case C_EXPECTED: return get_str(r, &c->expected, 1, "a string");
    case C_GOT: return get_str(r, &c->got, 1, "a string");
    case C_SOURCE: return get_str(r, &c->source, 0, "a string");
    case C_FIX: return get_str(r, &c->fix, 1, "a string");
    }
    return -1;
}

static int check_item(rd *r, void *ctx)
{
    vec *v = ctx;
    check_row *c = vec_push(v);
    c->subject = c->source = "";
    yaml_mark_t at = r->ev.start_mark;
    uint32_t seen;
    if (parse_map(r, check_keys, 7, check_val, c, "a check", &seen))
        return -1;
    return need_keys(r, at, seen, B(C_ID) | B(C_STATUS), check_keys, "a check");
}

static const char *const bm_keys[] = {"event", "note"};
typedef struct { int64_t ev; const char *note; } bm_tmp;

static int bm_val(rd *r, int id, void *ctx)
{
    bm_tmp *b = ctx;
    if (id == 0)
        return get_i64(r, &b->ev, -1, INT64_MAX, "an event index (-1 for none)");
    return get_str(r, &b->note, 0, "a note");
}

static int bm_item(rd *r, void *ctx)
{
    bm_tmp b = {-1, ""};
    uint32_t seen;
    if (parse_map(r, bm_keys, 2, bm_val, &b, "a bookmark", &seen))
        return -1;
    session_add_bookmark(r->s, b.ev, b.note);
    return 0;
}

static int note_item(rd *r, void *ctx)
{
    const char *n;
    if (get_str(r, &n, 0, "a note (a string)"))
        return -1;
    session_add_note(r->s, n);
    return 0;
}

static const char *const narr_keys[] = {"text", "pane", "event", "action", "expect"};

static int narr_val(rd *r, int id, void *ctx)
{
    narration_step *n = ctx;
    switch (id) {
    case 0: return get_str(r, &n->text, 0, "the narration text");
    case 1: return get_str(r, &n->pane, 1, "a pane (router, checklist, kernels, inspector)");
    case 2: return get_i64(r, &n->event_index, -1, INT64_MAX, "an event index (-1 for none)");
    case 3: return get_str(r, &n->action, 1, "an action name");
    case 4: return get_str(r, &n->expect, 1, "the text to expect");
    }
    return -1;
}

static int narr_item(rd *r, void *ctx)
{
    vec *v = ctx;
    narration_step *n = vec_push(v);
    n->event_index = -1;
    yaml_mark_t at = r->ev.start_mark;
    uint32_t seen;
    if (parse_map(r, narr_keys, 5, narr_val, n, "a narration step", &seen))
        return -1;
    return need_keys(r, at, seen, 1, narr_keys, "a narration step");
}

enum { H_FORMAT, H_TOOL, H_TORCH, H_HOST, H_GPU, H_TITLE, H_PACKAGE, H_DEVICE, H_PRINTER, H_MODE, H_FLAGS,
       H_INPUTS, H_CHECKS, H_BOOKMARKS, H_NOTES, H_NARRATION, H_END_STATE, H_EVENTS, H_VALUES_BUDGET, H__N };
static const char *const top_keys[] = {"format_version", "tool_version", "torch_version", "host", "gpu", "title",
                                       "package", "device", "printer_level", "mode", "flags", "inputs", "checks",
                                       "bookmarks", "notes", "narration", "end_state", "events", "values_budget"};

/* Copies a scratch vec into the arena. */
static void *vec_to_arena(rd *r, vec *v, size_t *n)
{
    *n = v->n;
    void *p = v->n ? arena_memdup(&r->s->arena, v->p, v->n * v->elem) : NULL;
    free(v->p);
    *v = (vec){.elem = v->elem};
    return p;
}

static int top_val(rd *r, int id, void *ctx)
{
    session *s = r->s;
    uint32_t seen;
    switch (id) {
    case H_FORMAT: return -1;   /* handled before the map loop */
    case H_TOOL: return get_str(r, &s->tool_version, 1, "a version string");
    case H_TORCH: return get_str(r, &s->torch_version, 1, "a version string");
    case H_HOST: return get_str(r, &s->host, 1, "a host name");
    case H_GPU: return get_str(r, &s->gpu, 1, "a GPU name");
    case H_TITLE: return get_str(r, &s->title, 1, "a title");
    case H_PACKAGE: return parse_map(r, pkg_keys, 6, pkg_val, &s->package, "package", &seen);
    case H_DEVICE: return get_str(r, &s->device, 1, "a device name");
    case H_PRINTER: return get_int(r, &s->printer_level, -1, 3, "a printer level");
    case H_MODE: return get_str(r, &s->mode, 1, "a mode (printer, interpose, reinstrument)");
    case H_FLAGS: return get_kv_map(r, &s->nflags, &s->flags, "flags");
    case H_INPUTS: {
        vec v = {.elem = sizeof(input_spec)};
        int rc = parse_list(r, input_item, &v, "a list of inputs");
        s->inputs = vec_to_arena(r, &v, &s->ninputs);
        return rc;
    }
    case H_CHECKS: {
        vec v = {.elem = sizeof(check_row)};
        int rc = parse_list(r, check_item, &v, "a list of checks");
        s->checks = vec_to_arena(r, &v, &s->nchecks);
        return rc;
    }
    case H_BOOKMARKS: return parse_list(r, bm_item, NULL, "a list of bookmarks");
    case H_NOTES: return parse_list(r, note_item, NULL, "a list of notes");
    case H_NARRATION: {
        vec v = {.elem = sizeof(narration_step)};
        int rc = parse_list(r, narr_item, &v, "a list of narration steps");
        s->narration = vec_to_arena(r, &v, &s->nnarration);
        return rc;
    }
    case H_END_STATE: return get_str(r, &s->end_state, 1, "complete, running or cut-off");
    case H_VALUES_BUDGET: return get_u64(r, &s->values_budget, "a size in bytes (integer >= 0)");
    case H_EVENTS: {
        r->in_events = 1;
        int rc = parse_list(r, event_item, NULL, "a list of events");
        if (!rc)   /* on failure, load() needs to know where it failed */
            r->in_events = 0;
        return rc;
    }
    }
    return -1;
}

static int parse_format(rd *r)
{
    /* at the first key of the top mapping */
    if (r->ev.type != YAML_SCALAR_EVENT || strcmp(sval(r), "format_version"))
        return unexpected(r, "format_version as the first key (is this an aotidbg session file?)");
    if (next(r))
        return -1;
    if (r->ev.type != YAML_SCALAR_EVENT)
        return unexpected(r, "a version like \"1.0\"");
    int maj, min, n = 0;
    if (sscanf(sval(r), "%d.%d%n", &maj, &min, &n) != 2 || (size_t)n != slen(r) || maj < 0 || min < 0)
        return unexpected(r, "a version like \"1.0\"");
    if (maj != SESSION_FORMAT_MAJOR)
        return fail_at(r, r->ev.start_mark,
                       "found format_version %d.%d, expected %d.x (%s; this aotidbg reads format %d.%d)", maj, min,
                       SESSION_FORMAT_MAJOR,
                       maj > SESSION_FORMAT_MAJOR ? "written by a newer aotidbg: upgrade to read it" : "too old",
                       SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
    if (min > SESSION_FORMAT_MINOR)
        warn_at(r, r->ev.start_mark, "format_version %d.%d is newer than %d.%d; parts this aotidbg does not know are skipped",
                maj, min, SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
    r->s->format_major = maj;
    r->s->format_minor = min;
    return next(r);
}

static int parse_session(rd *r)
{
    if (next(r) || r->ev.type != YAML_STREAM_START_EVENT)
        return -1;
    if (next(r))
        return -1;
    if (r->ev.type != YAML_DOCUMENT_START_EVENT)
        return unexpected(r, "a session (format_version: \"1.0\" ...)");
    if (next(r))
        return -1;
    if (r->ev.type != YAML_MAPPING_START_EVENT)
        return unexpected(r, "a mapping of session keys (format_version: \"1.0\" ...)");
    yaml_mark_t top = r->ev.start_mark;
    if (next(r) || parse_format(r))
        return -1;
    /* The rest of the top mapping, format_version already read. */
    uint32_t seen = B(H_FORMAT);
    int rc = map_entries(r, top_keys, H__N, top_val, NULL, "at the top level", &seen);
    if (rc)
        return -1;
    if (!(seen & B(H_EVENTS)))
        return fail_at(r, r->ev.start_mark, "found the end of the session without 'events' (it began at line %zu), "
                       "expected an events: list (is the file cut off before the events?)", (size_t)top.line + 1);
    if (next(r))
        return -1;
    if (r->ev.type != YAML_DOCUMENT_END_EVENT)
        return unexpected(r, "the end of the session");
    if (next(r))
        return -1;
    if (r->ev.type != YAML_STREAM_END_EVENT)
        return unexpected(r, "the end of the file (one session per file)");
    return 0;
}

/* After a successful parse: references that point nowhere get a warning. */
static void check_refs(rd *r)
{
    session *s = r->s;
    for (size_t i = 0; i < s->nbookmarks && i < MAX_WARNINGS; i++)
        if (s->bookmarks[i].event_index >= (int64_t)s->nevents)
            session_add_warning(s, "%s: bookmark %zu points at event #%lld; the file has %zu events", r->name, i,
                                (long long)s->bookmarks[i].event_index, s->nevents);
    for (size_t i = 0; i < s->nnarration && i < MAX_WARNINGS; i++)
        if (s->narration[i].event_index >= (int64_t)s->nevents)
            session_add_warning(s, "%s: narration step %zu points at event #%lld; the file has %zu events", r->name,
                                i, (long long)s->narration[i].event_index, s->nevents);
}

static int load(rd *r, session **out, strbuf *err)
{
    *out = NULL;
    r->s = session_new();
    r->err = err;
    r->line = r->col = 1;
    r->tensors.elem = sizeof(tensor_rec);
    r->values.elem = sizeof(double);
    r->kv.elem = sizeof(kv_pair);
    if (!yaml_parser_initialize(&r->p)) {
        strbuf_addf(err, "%s: out of memory", r->name);
        session_free(r->s);
        return -1;
    }
    /* No yaml_parser_set_encoding: detection skips a UTF-8 BOM; UTF-16 never
     * gets that far (our UTF-8 check refuses it first). */
    yaml_parser_set_input(&r->p, read_handler, r);
    strbuf msg = STRBUF_INIT;
    r->err = &msg;
    int rc = parse_session(r);
    if (rc && !r->failed)
        fail_at(r, r->p.mark, "found a YAML error, expected a session file");
    /* A value error in the last event may be the cut itself (`t_ms:` then
     * the end of the file): if libyaml fails at the end within a few more
     * events, the event was cut off, not wrong. */
    if (rc && r->in_events && !r->yaml_at_eof && !r->input_err && !r->utf8_cut) {
        for (int i = 0; i < 4; i++) {
            yaml_event_t e;
            if (!yaml_parser_parse(&r->p, &e)) {
                r->yaml_at_eof = at_end(r, r->p.problem_mark);
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
        if (s->nevents)
            session_add_warning(s, "%s: cut off after event #%zu: the file ends inside the events list "
                                "(the recording was interrupted); %zu complete event%s loaded",
                                r->name, s->nevents - 1, s->nevents, s->nevents == 1 ? "" : "s");
        else
            session_add_warning(s, "%s: cut off before the first event: the file ends inside the events list "
                                "(the recording was interrupted)", r->name);
        rc = 0;
    }
    if (!rc)
        check_refs(r);
    if (r->have_ev)
        yaml_event_delete(&r->ev);
    yaml_parser_delete(&r->p);
    free(r->itab);
    free(r->tensors.p);
    free(r->values.p);
    free(r->kv.p);
    if (rc) {
        strbuf_add(err, msg.buf, msg.len);
        strbuf_release(&msg);
        session_free(r->s);
        return -1;
    }
    strbuf_release(&msg);
    *out = r->s;
    return 0;
}

int session_load_mem(const char *name, const char *buf, size_t len, session **out, strbuf *err)
{
    rd *r = calloc(1, sizeof *r);
    if (!r) {
        strbuf_addf(err, "%s: out of memory", name);
        return -1;
    }
    r->name = name;
    r->mem = (const unsigned char *)buf;
    r->mem_len = len;
    int rc = load(r, out, err);
    free(r);
    return rc;
}

int session_load(const char *path, session **out, strbuf *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            strbuf_addf(err, "%s: is a directory, expected a session file", path);
            fclose(f);
            return -1;
        }
        if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > SESSION_MAX_FILE_BYTES) {
            strbuf_addf(err, "%s:1:1: found a file of %lld bytes, expected at most %llu bytes", path,
                        (long long)st.st_size, (unsigned long long)SESSION_MAX_FILE_BYTES);
            fclose(f);
            return -1;
        }
    }
    rd *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        strbuf_addf(err, "%s: out of memory", path);
        return -1;
    }
    r->name = path;
    r->file = f;
    int rc = load(r, out, err);
    free(r);
    fclose(f);
    return rc;
}
