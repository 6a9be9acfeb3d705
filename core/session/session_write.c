/* session_write.c — writes sessions as YAML, schema v1 (man/aotidbg-session.5).
 *
 * Owns: session_write, session_save, and the streaming session_writer.
 * Layout: the header (every top-level key but events) in block style, then
 * `events:` LAST, one list item per event in flow style. A flow item only
 * parses once its closing brace is written, so a file cut while an event was
 * being written never yields a silently shortened event: the reader sees a
 * parse error at the end of the file and drops just that event.
 * Strings are emitted plain when that is unambiguous, else double-quoted with
 * escapes; invalid UTF-8 becomes U+FFFD and strings are capped below the
 * reader's scalar limit, so whatever we write, we can read back.
 * Errors: 0/-1 with a message appended to err. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "session_write.h"
#include "session_dump.h"
#include "session_read.h"
#include "session_keys.h"
#include "compat.h"

/* Room left under SESSION_MAX_SCALAR_BYTES for the cut marker. */
#define STR_CAP (SESSION_MAX_SCALAR_BYTES - 64)
#define KEY_CAP 1000   /* libyaml refuses simple keys longer than 1024 chars */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n, unsigned *cp)
{
    unsigned c = p[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2; min = 0x80; c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3; min = 0x800; c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4; min = 0x10000; c &= 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static int plain_ok(const char *s)
{
    static const char *const reserved[] = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", NULL};
    if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    size_t n = 0;
    for (const char *p = s; *p; p++, n++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-' || c == '+'))
            return 0;
        if (n > 200)
            return 0;
    }
    for (int i = 0; reserved[i]; i++)
        if (!strcasecmp(s, reserved[i]))
            return 0;
    return 1;
}

/* Writes s as a YAML scalar (plain or double-quoted), at most cap bytes of value. */
static void put_str_cap(FILE *f, const char *s, size_t cap)
{
    if (!s)
        s = "";
    if (plain_ok(s)) {
        fputs(s, f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), out = 0;
    putc('"', f);
    for (size_t i = 0; i < n;) {
        if (out >= cap) {
            fputs(" [cut]", f);
            break;
        }
        unsigned cp;
        size_t k = utf8_seq(p + i, n - i, &cp);
        if (!k) {
            fputs("\\uFFFD", f);
            out += 3;
            i++;
            continue;
        }
        i += k;
        out += k;
        switch (cp) {
        case '"': fputs("\\\"", f); continue;
        case '\\': fputs("\\\\", f); continue;
        case '\n': fputs("\\n", f); continue;
        case '\t': fputs("\\t", f); continue;
        case '\r': fputs("\\r", f); continue;
        }
        if (cp < 0x20 || cp == 0x7f)
            fprintf(f, "\\x%02x", cp);
        else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
                 cp == 0xfffe || cp == 0xffff)
            fprintf(f, "\\u%04X", cp);
        else
            fwrite(p + i - k, 1, k, f);
    }
    putc('"', f);
}

static void put_str(FILE *f, const char *s) { put_str_cap(f, s, STR_CAP); }
static void put_key(FILE *f, const char *s) { put_str_cap(f, s, KEY_CAP); }

/* Shortest %.Ng that reads back to the same double; .nan/.inf spelled the
 * YAML way; an exponent always comes with a '.' so PyYAML reads a float. */
static void put_num(FILE *f, double v)
{
    if (isnan(v)) {
        fputs(".nan", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? ".inf" : "-.inf", f);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    char *e = strchr(buf, 'e');
    if (e && !strchr(buf, '.')) {
        char tail[40];
        snprintf(tail, sizeof tail, "%s", e);
        snprintf(e, sizeof buf - (size_t)(e - buf), ".0%s", tail);
    }
    fputs(buf, f);
}

static void put_dims(FILE *f, int n, const int64_t *d)
{
    putc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, i ? ", %lld" : "%lld", (long long)d[i]);
    putc(']', f);
}

/* Flow-mapping separator helper: first key gets no comma. */
typedef struct { FILE *f; int n; } flow;
static void fkey(flow *m, const char *k)
{
    fprintf(m->f, m->n++ ? ", %s: " : "%s: ", k);
}
static void fstr(flow *m, const char *k, const char *v)
{
    if (v) {
        fkey(m, k);
        put_str(m->f, v);
    }
}

static void put_kv_map(FILE *f, size_t n, const kv_pair *kv)
{
    putc('{', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        put_key(f, kv[i].key);
        fputs(": ", f);
        put_str(f, kv[i].value);
    }
    putc('}', f);
}

/* ---------- records, by their key tables (session_keys.c) ---------- */

#define AT(rec, off, type) ((const type *)((const char *)(rec) + (off)))

/* 1 when the writer puts key k of rec in the file. */
static int written(const skey *k, const void *rec)
{
    switch (k->custom) {
    case SC_KIND: return 0;   /* put_event writes it first */
    case SC_INPUT_STRIDES: return ((const input_spec *)rec)->has_strides;
    case SC_INPUT_VALUE: return ((const input_spec *)rec)->fill == FILL_FULL;
    case SC_VALUES_COMPLETE: {
        const tensor_rec *t = rec;
        return t->nvalues && t->values;
    }
    case SC_TENSOR_STRIDES: {
        const tensor_rec *t = rec;
        return t->ndim > 0 && t->strides;
    }
    default: break;
    }
    if (k->type == SK_STR)
        return *AT(rec, k->off, char *) || k->dflt;
    if (k->type == SK_SUB && k->has)
        return *AT(rec, k->has, int);
    return !(k->flags & SKF_OPT) || skey_is_set(k, rec);
}

static void put_record_flow(FILE *f, const stable *t, const void *rec);

/* The value of key k of rec, in flow style (one line, or a list of flow records). */
static void put_value(FILE *f, const skey *k, const void *rec)
{
    const void *v = AT(rec, k->off, char);
    switch (k->custom) {
    case SC_TENSOR_SHAPE:
    case SC_TENSOR_STRIDES: {
        const tensor_rec *t = rec;
        const int64_t *d = k->custom == SC_TENSOR_SHAPE ? t->shape : t->strides;
        put_dims(f, d ? t->ndim : 0, d);
        return;
    }
    case SC_INPUT_STRIDES:
        put_dims(f, ((const input_spec *)rec)->ndim, v);
        return;
    default: break;
    }
    switch (k->type) {
    case SK_STR: {
        const char *s = *(const char *const *)v;
        put_str(f, s ? s : k->dflt);
        break;
    }
    case SK_INT: fprintf(f, "%d", *(const int *)v); break;
    case SK_I64: fprintf(f, "%lld", (long long)*(const int64_t *)v); break;
    case SK_U64: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)v); break;
    case SK_NUM: put_num(f, *(const double *)v); break;
    case SK_BOOL: fputs(*(const int *)v ? "true" : "false", f); break;
    case SK_ENUM: put_str(f, k->enum_name(*(const int *)v)); break;
    case SK_DIMS: put_dims(f, *AT(rec, k->cnt, int), v); break;
    case SK_NUMS: {
        size_t n = *AT(rec, k->cnt, size_t);
        const double *d = *(const double *const *)v;
        putc('[', f);
        for (size_t i = 0; i < n && d; i++) {
            if (i)
                fputs(", ", f);
            put_num(f, d[i]);
        }
        putc(']', f);
        break;
    }
    case SK_STRS: {
        size_t n = *AT(rec, k->cnt, size_t);
        const char *const *s = *(const char *const *const *)v;
        putc('[', f);
        for (size_t i = 0; i < n && s; i++) {
            if (i)
                fputs(", ", f);
            put_str(f, s[i] ? s[i] : k->dflt);
        }
        putc(']', f);
        break;
    }
    case SK_KV: put_kv_map(f, *AT(rec, k->cnt, size_t), *(const kv_pair *const *)v); break;
    case SK_SUB: put_record_flow(f, k->sub, v); break;
    case SK_LIST: {
        size_t n = *AT(rec, k->cnt, size_t);
        const char *items = *(const char *const *)v;
        if (!n || !items) {
            fputs("[]", f);
            break;
        }
        putc('[', f);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ",\n    " : "\n    ", f);
            put_record_flow(f, k->sub, items + i * k->sub->size);
        }
        putc(']', f);
        break;
    }
    case SK_CUSTOM: break;
    }
}

/* The keys of rec that are written, as "k: v, k: v" (no braces). */
static void put_keys_flow(flow *m, const stable *t, const void *rec)
{
    for (int i = 0; i < t->n; i++) {
        const skey *k = &t->keys[i];
        if (!written(k, rec))
            continue;
        fkey(m, k->name);
        put_value(m->f, k, rec);
    }
}

static void put_record_flow(FILE *f, const stable *t, const void *rec)
{
    flow m = {f, 0};
    putc('{', f);
    put_keys_flow(&m, t, rec);
    putc('}', f);
}

/* One event as a complete list item ending in a newline. */
static void put_event(FILE *f, const event *e)
{
    flow m = {f, 0};
    fputs("- {", f);
    fstr(&m, "kind", event_kind_name(e->kind));
    put_keys_flow(&m, &session_event_table, e);
    if (e->kind < EV__COUNT)
        put_keys_flow(&m, session_kind_tables[e->kind], &e->u);
    fputs("}\n", f);
}

/* Block style: "key: value" lines under indent; a sub-record as "key:" and
 * its keys one level in; lists as "key:" and "  - item" lines. */
static void put_record_block(FILE *f, const stable *t, const void *rec, const char *indent)
{
    for (int i = 0; i < t->n; i++) {
        const skey *k = &t->keys[i];
        if (k->custom == SC_FORMAT) {
            fprintf(f, "%sformat_version: \"%d.%d\"\n", indent, SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
            continue;
        }
        if (k->custom == SC_EVENTS) {
            fprintf(f, "%sevents:\n", indent);
            continue;
        }
        if (!written(k, rec))
            continue;
        const void *v = AT(rec, k->off, char);
        size_t n = k->type >= SK_NUMS && k->type != SK_SUB ? *AT(rec, k->cnt, size_t) : 0;
        char in2[32];
        snprintf(in2, sizeof in2, "%s  ", indent);
        switch (k->type) {
        case SK_SUB:
            fprintf(f, "%s%s:\n", indent, k->name);
            put_record_block(f, k->sub, v, in2);
            break;
        case SK_KV:
            fprintf(f, "%s%s:\n", indent, k->name);
            fmt_kv_lines(f, n, *(const kv_pair *const *)v, in2, ": ", put_key, put_str);
            break;
        case SK_LIST:
            fprintf(f, "%s%s:\n", indent, k->name);
            for (size_t j = 0; j < n; j++) {
                fprintf(f, "%s- ", in2);
                put_record_flow(f, k->sub, *(const char *const *)v + j * k->sub->size);
                putc('\n', f);
            }
            break;
        case SK_STRS:
            fprintf(f, "%s%s:\n", indent, k->name);
            for (size_t j = 0; j < n; j++) {
                const char *s = (*(const char *const *const *)v)[j];
                fprintf(f, "%s- ", in2);
                put_str(f, s ? s : k->dflt);
                putc('\n', f);
            }
            break;
        default:
            fprintf(f, "%s%s: ", indent, k->name);
            put_value(f, k, rec);
            putc('\n', f);
        }
    }
}

/* Everything but the events, in schema order; end_state given separately so
 * the streaming header can say "running". */
static void put_header(FILE *f, const session *s, const char *end_state)
{
    session as = *s;   /* shallow copy: only end_state differs */
    as.end_state = end_state;
    put_record_block(f, &session_top_table, &as, "");
}

static int check_stream(FILE *f, const char *what, strbuf *err)
{
    if (fflush(f) || ferror(f)) {
        strbuf_addf(err, "%s: write failed: %s", what, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int session_write(const session *s, FILE *f, strbuf *err)
{
    char buf[64];
    put_header(f, s, session_end_state(s, buf, sizeof buf));
    for (size_t i = 0; i < s->nevents; i++)
        put_event(f, s->events[i]);
    return check_stream(f, "session", err);
}

/* Test hook (documented in aotidbg-session(5)): AOTIDBG_SESSION_DUMP=FILE makes
 * every final save also write the plain-text dump of the in-memory session, as
 * saved, so tests compare a live run's model with its replay. */
static void dump_hook(const session *s)
{
    const char *p = getenv("AOTIDBG_SESSION_DUMP");
    if (!p || !*p)
        return;
    FILE *f = fopen(p, "w");
    if (!f)
        return;
    session as_saved = *s;   /* shallow copy: only end_state differs */
    char buf[64];
    as_saved.end_state = session_end_state(s, buf, sizeof buf);
    session_dump(&as_saved, f);
    fclose(f);
}

static int fsync_dir_of(const char *path)
{
    char *dir = xstrdup(path);
    if (!dir)
        return -1;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        *slash = 0;
        d = slash == dir ? "/" : dir;
    }
    int fd = open(d, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
    return 0;
}

int session_save(const session *s, const char *path, strbuf *err)
{
    size_t n = strlen(path);
    char *tmp = xmalloc(n + 5);
    if (!tmp) {
        strbuf_addf(err, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        strbuf_addf(err, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = session_write(s, f, err);
    if (!rc && fsync(fileno(f))) {
        strbuf_addf(err, "%s: fsync failed: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (fclose(f) && !rc) {
        strbuf_addf(err, "%s: close failed: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp, path)) {
        strbuf_addf(err, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        rc = -1;
    }
    if (rc)
        unlink(tmp);
    else
        fsync_dir_of(path);
    free(tmp);
    if (!rc)
        dump_hook(s);
    return rc;
}

struct session_writer {
    FILE *f;
    char *path;
    const session *s;
    size_t written;        /* events already on disk */
    const event *last;     /* s->events[written - 1] when written, to spot a restart */
    long header_end;       /* file offset where the events start */
    struct timespec last_sync;
};

static double since_ms(const struct timespec *a)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - a->tv_sec) * 1e3 + (double)(now.tv_nsec - a->tv_nsec) / 1e6;
}

int session_writer_open(session_writer **out, const char *path, const session *s, strbuf *err)
{
    *out = NULL;
    session_writer *w = xcalloc(1, sizeof *w);
    if (!w || !(w->path = xstrdup(path))) {
        free(w);
        strbuf_addf(err, "%s: out of memory", path);
        return -1;
    }
    w->f = fopen(path, "w");
    if (!w->f) {
        strbuf_addf(err, "%s: cannot create: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return -1;
    }
    w->s = s;
    put_header(w->f, s, "running");
    if (check_stream(w->f, path, err)) {
        session_writer_close(w);
        return -1;
    }
    w->header_end = ftell(w->f);
    fdatasync(fileno(w->f));
    clock_gettime(CLOCK_MONOTONIC, &w->last_sync);
    *out = w;
    return session_writer_sync(w, err);
}

int session_writer_sync(session_writer *w, strbuf *err)
{
    const session *s = w->s;
    size_t upto = s->nevents;
    /* A kernel still pending (before-hook seen, after not yet) keeps growing:
     * it is written once it ends or once anything follows it. */
    if (upto > w->written && s->events[upto - 1]->kind == EV_KERNEL &&
        s->events[upto - 1]->u.kernel.status == KSTAT_PENDING)
        upto--;
    /* runner_client_restart clears the events: start the list over. */
    if (w->written && (w->written > s->nevents || s->events[w->written - 1] != w->last)) {
        if (fflush(w->f) || ftruncate(fileno(w->f), w->header_end) || fseek(w->f, w->header_end, SEEK_SET)) {
            strbuf_addf(err, "%s: cannot restart the events list: %s", w->path, strerror(errno));
            return -1;
        }
        w->written = 0;
    }
    for (; w->written < upto; w->written++) {
        put_event(w->f, s->events[w->written]);
        w->last = s->events[w->written];
    }
    if (check_stream(w->f, w->path, err))
        return -1;
    if (since_ms(&w->last_sync) >= 100) {
        fdatasync(fileno(w->f));
        clock_gettime(CLOCK_MONOTONIC, &w->last_sync);
    }
    return 0;
}

int session_writer_finish(session_writer *w, strbuf *err)
{
    if (!w)
        return 0;
    int rc = session_save(w->s, w->path, err);
    session_writer_close(w);
    return rc;
}

void session_writer_close(session_writer *w)
{
    if (!w)
        return;
    if (w->f) {
        fflush(w->f);
        fclose(w->f);
    }
    free(w->path);
    free(w);
}
