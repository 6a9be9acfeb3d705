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
#include "session_io.h"

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
static void fint(flow *m, const char *k, long long v)
{
    fkey(m, k);
    fprintf(m->f, "%lld", v);
}
static void fu64(flow *m, const char *k, uint64_t v)
{
    fkey(m, k);
    fprintf(m->f, "%llu", (unsigned long long)v);
}
static void fnum(flow *m, const char *k, double v)
{
    fkey(m, k);
    put_num(m->f, v);
}

static void put_tensor(FILE *f, const tensor_rec *t)
{
    flow m = {f, 0};
    putc('{', f);
    fstr(&m, "name", t->name);
    fstr(&m, "phase", phase_name(t->phase));
    if (t->ndim > 0 && t->shape) {
        fkey(&m, "shape");
        put_dims(f, t->ndim, t->shape);
    } else {
        fkey(&m, "shape");
        fputs("[]", f);
    }
    if (t->ndim > 0 && t->strides) {
        fkey(&m, "strides");
        put_dims(f, t->ndim, t->strides);
    }
    fstr(&m, "dtype", t->dtype);
    fstr(&m, "device", t->device);
    if (t->has_stats) {
        const tensor_stats *st = &t->stats;
        fkey(&m, "stats");
        flow sm = {f, 0};
        putc('{', f);
        fu64(&sm, "numel", st->numel);
        fu64(&sm, "finite", st->finite);
        fnum(&sm, "min", st->min);
        fnum(&sm, "max", st->max);
        fnum(&sm, "mean", st->mean);
        fnum(&sm, "std", st->std);
        fu64(&sm, "nan", st->nan);
        fu64(&sm, "posinf", st->posinf);
        fu64(&sm, "neginf", st->neginf);
        fu64(&sm, "zeros", st->zeros);
        fu64(&sm, "subnormal", st->subnormal);
        putc('}', f);
    }
    if (t->nvalues && t->values) {
        fkey(&m, "values");
        putc('[', f);
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                fputs(", ", f);
            put_num(f, t->values[i]);
        }
        putc(']', f);
        fkey(&m, "values_complete");
        fputs(t->values_complete ? "true" : "false", f);
    }
    if (t->values_budget_cut) {   /* only when set: older files stay as they were */
        fkey(&m, "values_budget_cut");
        fputs("true", f);
    }
    putc('}', f);
}

static void put_tensor_list(flow *m, size_t n, const tensor_rec *t)
{
    fkey(m, "tensors");
    if (!n) {
        fputs("[]", m->f);
        return;
    }
    putc('[', m->f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    " : "\n    ", m->f);
        put_tensor(m->f, &t[i]);
    }
    putc(']', m->f);
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

/* One event as a complete list item ending in a newline. */
static void put_event(FILE *f, const event *e)
{
    flow m = {f, 0};
    fputs("- {", f);
    fstr(&m, "kind", event_kind_name(e->kind));
    if (e->t_ms >= 0 || isnan(e->t_ms))
        fnum(&m, "t_ms", e->t_ms);
    switch (e->kind) {
    case EV_KERNEL: {
        const kernel_event *k = &e->u.kernel;
        fint(&m, "index", k->index);
        fstr(&m, "name", k->name ? k->name : "?");
        fstr(&m, "type", kernel_type_name(k->type));
        fstr(&m, "status", kernel_status_name(k->status));
        fnum(&m, "duration_us", k->duration_us);
        fstr(&m, "source", k->source);
        put_tensor_list(&m, k->ntensors, k->tensors);
        break;
    }
    case EV_ERROR: {
        const error_event *er = &e->u.error;
        fstr(&m, "text", er->text ? er->text : "");
        fstr(&m, "route", er->route);
        if (er->kernel_index >= 0)
            fint(&m, "kernel", er->kernel_index);
        if (er->nfields) {
            fkey(&m, "fields");
            put_kv_map(f, er->nfields, er->fields);
        }
        break;
    }
    case EV_OUTPUT:
        put_tensor_list(&m, e->u.output.ntensors, e->u.output.tensors);
        break;
    case EV_RUNNER_EXIT: {
        const runner_exit_event *x = &e->u.exit;
        fstr(&m, "how", x->how ? x->how : "lost");
        fint(&m, "exit_code", x->exit_code);
        fint(&m, "signal", x->signal);
        fstr(&m, "stderr_tail", x->stderr_tail);
        break;
    }
    case EV_LOG:
        fstr(&m, "stream", e->u.log.stream ? e->u.log.stream : "stderr");
        fstr(&m, "text", e->u.log.text ? e->u.log.text : "");
        break;
    default:
        break;
    }
    fputs("}\n", f);
}

static void put_line(FILE *f, const char *indent, const char *key, const char *v)
{
    if (!v)
        return;
    fprintf(f, "%s%s: ", indent, key);
    put_str(f, v);
    putc('\n', f);
}

/* Everything but the events, in schema order; end_state given separately so
 * the streaming header can say "running". */
static void put_header(FILE *f, const session *s, const char *end_state)
{
    fprintf(f, "format_version: \"%d.%d\"\n", SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
    put_line(f, "", "tool_version", s->tool_version);
    put_line(f, "", "torch_version", s->torch_version);
    put_line(f, "", "host", s->host);
    put_line(f, "", "gpu", s->gpu);
    put_line(f, "", "title", s->title);
    const package_info *p = &s->package;
    if (p->path || p->sha256 || p->model || p->device_key || p->compute_capability || p->cpu_isa) {
        fputs("package:\n", f);
        put_line(f, "  ", "path", p->path);
        put_line(f, "  ", "sha256", p->sha256);
        put_line(f, "  ", "model", p->model);
        put_line(f, "  ", "device_key", p->device_key);
        put_line(f, "  ", "compute_capability", p->compute_capability);
        put_line(f, "  ", "cpu_isa", p->cpu_isa);
    }
    put_line(f, "", "device", s->device);
    fprintf(f, "printer_level: %d\n", s->printer_level);
    put_line(f, "", "mode", s->mode);
    if (s->values_budget)
        fprintf(f, "values_budget: %llu\n", (unsigned long long)s->values_budget);
    if (s->nflags) {
        fputs("flags:\n", f);
        fmt_kv_lines(f, s->nflags, s->flags, "  ", ": ", put_key, put_str);
    }
    if (s->ninputs) {
        fputs("inputs:\n", f);
        for (size_t i = 0; i < s->ninputs; i++) {
            const input_spec *in = &s->inputs[i];
            flow m = {f, 0};
            fputs("  - {", f);
            fkey(&m, "shape");
            put_dims(f, in->ndim, in->shape);
            if (in->has_strides) {
                fkey(&m, "strides");
                put_dims(f, in->ndim, in->strides);
            }
            fstr(&m, "dtype", in->dtype);
            fstr(&m, "device", in->device);
            fstr(&m, "fill", fill_kind_name(in->fill));
            fu64(&m, "seed", in->seed);
            if (in->fill == FILL_FULL)
                fnum(&m, "value", in->value);
            fstr(&m, "file", in->file);
            fstr(&m, "key", in->key);
            fputs("}\n", f);
        }
    }
    if (s->nchecks) {
        fputs("checks:\n", f);
        for (size_t i = 0; i < s->nchecks; i++) {
            const check_row *c = &s->checks[i];
            flow m = {f, 0};
            fputs("  - {", f);
            fstr(&m, "id", c->id ? c->id : "?");
            fstr(&m, "status", check_status_name(c->status));
            fstr(&m, "subject", c->subject ? c->subject : "");
            fstr(&m, "expected", c->expected);
            fstr(&m, "got", c->got);
            fstr(&m, "source", c->source ? c->source : "");
            fstr(&m, "fix", c->fix);
            fputs("}\n", f);
        }
    }
    if (s->nbookmarks) {
        fputs("bookmarks:\n", f);
        for (size_t i = 0; i < s->nbookmarks; i++) {
            flow m = {f, 0};
            fputs("  - {", f);
            fint(&m, "event", s->bookmarks[i].event_index);
            fstr(&m, "note", s->bookmarks[i].note ? s->bookmarks[i].note : "");
            fputs("}\n", f);
        }
    }
    if (s->nnotes) {
        fputs("notes:\n", f);
        for (size_t i = 0; i < s->nnotes; i++) {
            fputs("  - ", f);
            put_str(f, s->notes[i] ? s->notes[i] : "");
            putc('\n', f);
        }
    }
    if (s->nnarration) {
        fputs("narration:\n", f);
        for (size_t i = 0; i < s->nnarration; i++) {
            const narration_step *n = &s->narration[i];
            flow m = {f, 0};
            fputs("  - {", f);
            fstr(&m, "text", n->text ? n->text : "");
            fstr(&m, "pane", n->pane);
            if (n->event_index >= 0)
                fint(&m, "event", n->event_index);
            fstr(&m, "action", n->action);
            fstr(&m, "expect", n->expect);
            fputs("}\n", f);
        }
    }
    put_line(f, "", "end_state", end_state);
    fputs("events:\n", f);
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
    put_header(f, s, s->end_state ? s->end_state : "complete");
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
    as_saved.end_state = s->end_state ? s->end_state : "complete";
    session_dump(&as_saved, f);
    fclose(f);
}

static int fsync_dir_of(const char *path)
{
    char *dir = strdup(path);
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
    char *tmp = malloc(n + 5);
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
    session_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
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
