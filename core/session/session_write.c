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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "session_write.h"
#include "session_dump.h"
#include "session_read.h"
#include "session_keys.h"
#include "term_escape.h"
#include "compat.h"

/* Room left under SESSION_MAX_SCALAR_BYTES for the cut marker. */
#define STR_CAP (SESSION_MAX_SCALAR_BYTES - 64)
#define KEY_CAP 1000   /* libyaml refuses simple keys longer than 1024 chars */

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
        uint32_t cp;
        int sk = utf8_next(p + i, n - i, &cp);
        size_t k = sk > 0 ? (size_t)sk : 0;
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

/* 1 when the writer puts any key of record rec (table t) in the file: a
 * record read with only keys this version does not know (a newer minor
 * version's) holds none, and is written as an empty mapping. */
static int writes_any(const stable *t, const void *rec)
{
    for (int i = 0; i < t->n; i++)
        if (t->keys[i].custom == SC_FORMAT || t->keys[i].custom == SC_EVENTS || written(&t->keys[i], rec))
            return 1;
    return 0;
}

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

/* The index: key of a whole save to a seekable file (session_write_indexed):
 * written first with zeros, at a width fixed by the count, and rewritten in
 * place once the events' lines are written and their offsets known. */
#define INDEX_BYTES_W 20
#define INDEX_AT_W 12   /* offsets below 10^12: the reader takes 4 GiB at most */

typedef struct {
    const size_t *events;   /* event numbers, ascending, no repeats */
    size_t n;
    off_t block;            /* where the key's lines begin; -1: not written */
    uint64_t *at, *len;     /* each listed event's offset and length, as written */
} index_plan;

/* The key's lines: offsets at and lengths len (NULL: zeros), the file's size bytes. The
 * length depends on n alone, so the rewrite fits over the placeholder;
 * -1 when a number does not fit its width (the zeros stay: no reader
 * trusts an index of a zero-byte file). */
static int index_block(strbuf *sb, const index_plan *ix, uint64_t bytes)
{
    char num[32];
    int w = snprintf(num, sizeof num, "%llu", (unsigned long long)bytes);
    if (w > INDEX_BYTES_W)
        return -1;
    strbuf_addf(sb, "index:\n  bytes: %*s\n", INDEX_BYTES_W, num);
    for (int list = 0; list < 2; list++) {
        strbuf_addstr(sb, list ? "  len: [" : "  at: [");
        for (size_t j = 0; j < ix->n; j++) {
            uint64_t v = !ix->at ? 0 : list ? ix->len[j] : ix->at[j];
            w = snprintf(num, sizeof num, "%llu", (unsigned long long)v);
            if (w > INDEX_AT_W)
                return -1;
            strbuf_addf(sb, "%s%*s", j ? ", " : "", INDEX_AT_W, num);
        }
        strbuf_addstr(sb, "]\n");
    }
    return 0;
}

static void put_index(FILE *f, index_plan *ix)
{
    strbuf sb = STRBUF_INIT;
    ix->block = ftello(f);
    if (ix->block >= 0 && !index_block(&sb, ix, 0))
        fwrite(sb.buf, 1, sb.len, f);
    else
        ix->block = -1;
    strbuf_release(&sb);
}

/* After the events: the real offsets over the placeholder; 0, or -1 when
 * the file cannot be rewritten (the zeros stay, which no reader trusts). */
static int patch_index(FILE *f, const index_plan *ix)
{
    off_t end = ftello(f);
    strbuf sb = STRBUF_INIT;
    int rc = end < 0 || index_block(&sb, ix, (uint64_t)end) || fseeko(f, ix->block, SEEK_SET) ||
                     fwrite(sb.buf, 1, sb.len, f) != sb.len || fseeko(f, end, SEEK_SET) ? -1 : 0;
    strbuf_release(&sb);
    return rc;
}

/* Block style: "key: value" lines under indent; a sub-record as "key:" and
 * its keys one level in; lists as "key:" and "  - item" lines. ix: the
 * top level's index plan, or NULL (no index: key). */
static void put_record_block(FILE *f, const stable *t, const void *rec, const char *indent, index_plan *ix)
{
    for (int i = 0; i < t->n; i++) {
        const skey *k = &t->keys[i];
        if (k->custom == SC_INDEX) {   /* never the session's own: its offsets are another file's */
            if (ix && ix->n)
                put_index(f, ix);
            continue;
        }
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
            if (!writes_any(k->sub, v)) {   /* "key:" alone reads as null, not a mapping: write it empty */
                fprintf(f, "%s%s: {}\n", indent, k->name);
                break;
            }
            fprintf(f, "%s%s:\n", indent, k->name);
            put_record_block(f, k->sub, v, in2, NULL);
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
 * the streaming header can say "running". counts: the events' and kernels'
 * counts of a whole save; NULL (the stream's header) leaves the key out. */
static void put_header(FILE *f, const session *s, const char *end_state, const session *counted, index_plan *ix)
{
    session as = *s;   /* shallow copy: only end_state and counts differ */
    as.end_state = end_state;
    as.counts.events = counted ? (int64_t)counted->nevents : -1;
    as.counts.kernels = counted ? (int64_t)counted->nkernels : -1;
    put_record_block(f, &session_top_table, &as, "", ix);
}

static int check_stream(FILE *f, const char *what, strbuf *err)
{
    if (fflush(f) || ferror(f)) {
        strbuf_addf(err, "%s: write failed: %s", what, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int session_write_indexed(const session *s, FILE *f, const size_t *index, size_t nindex, strbuf *err)
{
    char buf[64];
    index_plan ix = {index, 0, -1, NULL, NULL};
    for (size_t j = 0; index && j < nindex && index[j] < s->nevents && (!j || index[j] > index[j - 1]); j++)
        ix.n = j + 1;   /* what is in order and in range: a plan that is not is cut there */
    ix.at = ix.n ? xcalloc(ix.n, sizeof *ix.at) : NULL;
    ix.len = ix.n ? xcalloc(ix.n, sizeof *ix.len) : NULL;
    put_header(f, s, session_end_state(s, buf, sizeof buf), s, &ix);
    size_t j = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        off_t at = ix.block >= 0 && j < ix.n && ix.events[j] == i ? ftello(f) : -1;
        put_event(f, s->events[i]);
        if (at >= 0) {   /* an event is its lines: a kernel's tensors one each */
            off_t end = ftello(f);
            ix.at[j] = (uint64_t)at;
            ix.len[j++] = end > at ? (uint64_t)(end - at) : 0;
        }
    }
    if (ix.block >= 0)
        (void)patch_index(f, &ix);   /* failing, the zeros stay: the file stands, its index untrusted */
    free(ix.at);
    free(ix.len);
    return check_stream(f, "session", err);
}

int session_write(const session *s, FILE *f, strbuf *err) { return session_write_indexed(s, f, NULL, 0, err); }

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

/* A new file at path, never through a link or over anything there. */
static FILE *create_new(const char *path, strbuf *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        strbuf_addf(err, "%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* PATH.tmp-XXXXXXXXXXXXXXXX, a random name in the target's folder, created
 * with O_EXCL: a link planted by another user of the folder is refused, not
 * followed. Returns the open file and the name (malloc'd) in *tmp. */
static FILE *create_temp(const char *path, char **tmp, strbuf *err)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&r ^ (uint64_t)tries;
        strbuf name = STRBUF_INIT;
        strbuf_addf(&name, "%s.tmp-%016llx", path, (unsigned long long)r);
        strbuf e = STRBUF_INIT;
        FILE *f = create_new(name.buf, &e);
        if (f) {
            *tmp = strbuf_detach(&name, NULL);
            strbuf_release(&e);
            return f;
        }
        int again = errno == EEXIST;
        if (!again)
            strbuf_addstr(err, e.buf);
        strbuf_release(&e);
        strbuf_release(&name);
        if (!again)
            return NULL;
    }
    strbuf_addf(err, "%s: cannot create a temporary file beside it", path);
    return NULL;
}

int session_save_indexed(const session *s, const char *path, const size_t *index, size_t nindex, strbuf *err)
{
    char *tmp = NULL;
    FILE *f = create_temp(path, &tmp, err);
    if (!f)
        return -1;
    int rc = session_write_indexed(s, f, index, nindex, err);
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

int session_save(const session *s, const char *path, strbuf *err) { return session_save_indexed(s, path, NULL, 0, err); }

/* ---- the lock: PATH.lock, flock'd while a writer records to PATH ---------------------- */

static char *with_suffix(const char *path, const char *suffix)
{
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s%s", path, suffix);
    return strbuf_detach(&sb, NULL);
}

/* Takes PATH.lock (a file of ours, not a link) and writes our pid in it.
 * Held by another process: -1, err naming its pid. The holder unlinks the
 * file before it lets go, so a lock taken on an unlinked file is retried. */
static int lock_session(const char *path, strbuf *err)
{
    char *lp = with_suffix(path, ".lock");
    int fd = -1;
    for (int tries = 0; tries < 8 && fd < 0; tries++) {
        fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        struct stat a, b;
        if (fd < 0) {
            strbuf_addf(err, "%s: cannot create the lock: %s", lp, strerror(errno));
            break;
        }
        if (fstat(fd, &a) || !S_ISREG(a.st_mode) || a.st_uid != geteuid()) {
            strbuf_addf(err, "%s: the lock is not a file of ours; remove it or record elsewhere", lp);
            close(fd);
            fd = -1;
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB)) {
            usleep(2000);   /* a sweep (sweep_stale_locks) may hold it for as long as it takes to unlink it */
            if (stat(lp, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
                close(fd);
                fd = -1;
                continue;
            }
            char pid[32] = "";
            ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
            pid[n > 0 ? n : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            strbuf_addf(err, "%s is being recorded by another aotidbg (pid %s, lock %s); record to another file "
                        "or wait for it to end", path, *pid ? pid : "?", lp);
            close(fd);
            fd = -1;
            break;
        }
        if (stat(lp, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
            close(fd);   /* the holder unlinked it as we opened it: take the new one */
            fd = -1;
            continue;
        }
        char pid[32];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
            /* the lock holds without the pid; only the message of a second writer suffers */
        }
    }
    free(lp);
    return fd;
}

/* 1 when file name in folder dfd begins as a session file does (its header's first key). */
static int looks_like_session(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char head[16];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && !memcmp(head, "format_version: ", 16);
}

/* Removes the stale locks in path's folder: X.lock files of ours, not links,
 * beside a session file X (or X.part), that nobody holds (their writer was
 * killed before it could unlink them: SIGKILL, the OOM killer), so that a
 * killed run's lock does not outlive the next run's start, as its extraction
 * folder does not (private_dir.h). A lock is removed while we hold it, as
 * its holder does (unlock_session): a writer that opened it retries on a
 * new file. Other .lock files (no session beside them) are left alone. */
static void sweep_stale_locks(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return;
    int dfd = dirfd(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".lock"))
            continue;
        char *base = xstrndup(e->d_name, n - 5), *part = with_suffix(base, ".part");
        int session = looks_like_session(dfd, base) || looks_like_session(dfd, part);
        free(base);
        free(part);
        if (!session)
            continue;
        int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat a, b;
        if (fd < 0)
            continue;
        if (!fstat(fd, &a) && S_ISREG(a.st_mode) && a.st_uid == geteuid() && !flock(fd, LOCK_EX | LOCK_NB) &&
            !fstatat(dfd, e->d_name, &b, AT_SYMLINK_NOFOLLOW) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            unlinkat(dfd, e->d_name, 0);
        close(fd);
    }
    closedir(d);
}

static void unlock_session(const char *path, int fd)
{
    if (fd < 0)
        return;
    char *lp = with_suffix(path, ".lock");
    unlink(lp);   /* before the unlock: a waiter that opened it retries on the new file */
    free(lp);
    close(fd);
}

struct session_writer {
    FILE *f;
    char *path;
    char *part;            /* PATH.part when PATH existed (kept until the final save), else NULL */
    int lock;              /* PATH.lock's fd, flock'd */
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
    sweep_stale_locks(path);
    w->lock = lock_session(path, err);
    if (w->lock < 0) {
        free(w->path);
        free(w);
        return -1;
    }
    /* A session already at PATH stays until this one is safely saved: the
     * stream goes to PATH.part then (ours: we hold the lock). */
    struct stat st;
    int stale_ok = 1;
    if (!lstat(path, &st)) {
        w->part = with_suffix(path, ".part");
        if (unlink(w->part) && errno != ENOENT) {
            strbuf_addf(err, "%s: cannot remove: %s", w->part, strerror(errno));
            stale_ok = 0;
        }
    }
    if (stale_ok)
        w->f = create_new(w->part ? w->part : path, err);
    if (!w->f) {
        session_writer_close(w);
        return -1;
    }
    w->s = s;
    put_header(w->f, s, "running", NULL, NULL);
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

static const char *session_writer_stream_path(const session_writer *w)
{
    return w->part ? w->part : w->path;
}

int session_writer_sync(session_writer *w, strbuf *err)
{
    const session *s = w->s;
    size_t upto = s->nevents;
    /* Iterations the recorder may still fold (and the fold growing over them) come once settled. */
    upto -= s->nevents_held < upto ? s->nevents_held : upto;
    if (upto < w->written && w->written <= s->nevents)
        upto = w->written;
    /* A kernel still pending (before-hook seen, after not yet) keeps growing:
     * it is written once it ends or once anything follows it. */
    if (upto > w->written && s->events[upto - 1]->kind == EV_KERNEL &&
        s->events[upto - 1]->u.kernel.status == KSTAT_PENDING)
        upto--;
    /* runner_client_restart clears the events: start the list over. */
    if (w->written && (w->written > s->nevents || s->events[w->written - 1] != w->last)) {
        if (fflush(w->f) || ftruncate(fileno(w->f), w->header_end) || fseek(w->f, w->header_end, SEEK_SET)) {
            strbuf_addf(err, "%s: cannot restart the events list: %s", session_writer_stream_path(w), strerror(errno));
            return -1;
        }
        w->written = 0;
    }
    for (; w->written < upto; w->written++) {
        put_event(w->f, s->events[w->written]);
        w->last = s->events[w->written];
    }
    if (check_stream(w->f, session_writer_stream_path(w), err))
        return -1;
    if (since_ms(&w->last_sync) >= 100) {
        fdatasync(fileno(w->f));
        clock_gettime(CLOCK_MONOTONIC, &w->last_sync);
    }
    return 0;
}

int session_writer_finish(session_writer *w, const size_t *index, size_t nindex, strbuf *err)
{
    if (!w)
        return 0;
    if (w->f) {
        fclose(w->f);   /* the stream is complete as far as it goes: the save rewrites it whole */
        w->f = NULL;
    }
    int rc = session_save_indexed(w->s, w->path, index, nindex, err);
    if (!rc && w->part)
        unlink(w->part);
    else if (rc && w->part)
        strbuf_addf(err, " (this run's recording so far is in %s; %s is the session that was there)", w->part,
                    w->path);
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
    unlock_session(w->path, w->lock);
    free(w->part);
    free(w->path);
    free(w);
}
