/* cmd_export.c — `aotidbg export`: a session as a chrome trace or CSV; see cmd_export.h.
 *
 * The trace has one process (the run) and these tracks: kernels (before to
 * after hook, the wall time a launch took under aotidbg), device time (the
 * kernel alone, where the session has it), host (aotidbg's hooks between one
 * kernel's after-hook and the next one's before-hook), subgraph runs (a
 * torch.cond/while_loop branch's consecutive launches), loop iterations (a
 * while_loop round's consecutive launches: its cond check and body) and
 * events (errors,
 * NaN/Inf, departures from eager, outputs, how the runner ended, as instant
 * events). Timestamps are the session's (ms since the run started), in us. */
#include "cmd_export.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "compat.h"
#include "fdio.h"
#include "kernel_times.h"
#include "loop_iter.h"
#include "session_io.h"

const opt_spec export_option_specs[] = {
    {"--format", "chrome-trace|csv", "chrome-trace (default): a Trace Event Format file that Perfetto\n"
     "and chrome://tracing open; csv: one row per kernel event", offsetof(export_options, format), NULL, 0, 0},
    {"-o", "FILE", "write to FILE (replaced whole when done; - or none: stdout)", offsetof(export_options, output),
     NULL, 0, 0},
    {"--output", "FILE", "the same as -o", offsetof(export_options, output), NULL, 0, 0},
    {NULL},
};

enum { TID_KERNELS = 1, TID_DEVICE, TID_HOST, TID_BRANCH, TID_EVENTS, TID_LOOP };

static cJSON *trace_event(cJSON *list, const char *name, const char *ph, int tid, double ts)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name ? name : "");
    cJSON_AddStringToObject(e, "ph", ph);
    cJSON_AddNumberToObject(e, "pid", 1);
    cJSON_AddNumberToObject(e, "tid", tid);
    cJSON_AddNumberToObject(e, "ts", ts);
    cJSON_AddItemToArray(list, e);
    return e;
}

static void meta_name(cJSON *list, const char *what, int tid, const char *name)
{
    cJSON *e = trace_event(list, what, "M", tid, 0);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddStringToObject(args, "name", name);
}

/* Where each kernel starts and how long it took, on the trace's clock: the
 * session's times where it has them, else right after the previous kernel. */
typedef struct { double ts, dur; } span;

static span *kernel_spans(const kernel_times *t)
{
    span *sp = xcalloc(t->n ? t->n : 1, sizeof *sp);
    double next = 0;
    for (size_t i = 0; sp && i < t->n; i++) {
        const kernel_time_row *r = &t->rows[i];
        sp[i].ts = r->t_ms >= 0 ? r->t_ms * 1000 : next;
        sp[i].dur = r->wall_us > 0 ? r->wall_us : r->device_us > 0 ? r->device_us : 1;
        next = sp[i].ts + sp[i].dur;
    }
    return sp;
}

static void kernel_args(cJSON *e, const kernel_time_row *r, double peak_gbps)
{
    cJSON *a = cJSON_AddObjectToObject(e, "args");
    const kernel_event *k = r->k;
    cJSON_AddNumberToObject(a, "index", (double)k->index);
    cJSON_AddStringToObject(a, "type", kernel_type_name(k->type));
    cJSON_AddStringToObject(a, "status", kernel_status_name(k->status));
    if (r->wall_us >= 0) cJSON_AddNumberToObject(a, "wall_us", r->wall_us);
    if (r->device_us >= 0) cJSON_AddNumberToObject(a, "device_us", r->device_us);
    if (k->device_note) cJSON_AddStringToObject(a, "device_note", k->device_note);
    if (k->branch) cJSON_AddStringToObject(a, "branch", k->branch);
    if (k->source) cJSON_AddStringToObject(a, "source", k->source);
    cJSON_AddNumberToObject(a, "bytes_read", (double)r->bytes_read);
    cJSON_AddNumberToObject(a, "bytes_written", (double)r->bytes_written);
    if (!r->bytes_known) cJSON_AddStringToObject(a, "bytes_note", r->bytes_read || r->bytes_written
                                         ? "at least: a tensor's dtype is unknown" : "unknown: no tensor recorded");
    if (r->gbps >= 0) cJSON_AddNumberToObject(a, "GB_per_s", r->gbps);
    if (r->gbps >= 0 && peak_gbps > 0) cJSON_AddNumberToObject(a, "of_peak_pct", 100 * r->gbps / peak_gbps);
}

/* The ts of the end of kernel index ki, or of the last kernel when ki is not one. */
static double kernel_end_ts(const kernel_times *t, const span *sp, int64_t ki)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].k->index == ki)
            return sp[i].ts + sp[i].dur;
    return t->n ? sp[t->n - 1].ts + sp[t->n - 1].dur : 0;
}

static void instant(cJSON *list, const char *name, double ts, const char *key, const char *text)
{
    cJSON *e = trace_event(list, name, "i", TID_EVENTS, ts);
    cJSON_AddStringToObject(e, "s", "p");
    cJSON *a = cJSON_AddObjectToObject(e, "args");
    if (text) cJSON_AddStringToObject(a, key, text);
}

static void event_instants(cJSON *list, const session *s, const kernel_times *t, const span *sp)
{
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        double ts = e->t_ms >= 0 ? e->t_ms * 1000 : -1;
        char buf[64];
        switch (e->kind) {
        case EV_ERROR:
            instant(list, e->u.error.route ? e->u.error.route : "error",
                    ts >= 0 ? ts : kernel_end_ts(t, sp, e->u.error.kernel_index), "text", e->u.error.text);
            break;
        case EV_NAN:
            snprintf(buf, sizeof buf, "%s at kernel %lld", e->u.nan.value ? e->u.nan.value : "nan/inf",
                     (long long)e->u.nan.kernel_index);
            instant(list, buf, ts >= 0 ? ts : kernel_end_ts(t, sp, e->u.nan.kernel_index), "tensor", e->u.nan.tensor);
            break;
        case EV_DIVERGENCE:
            snprintf(buf, sizeof buf, "departs from eager at kernel %lld", (long long)e->u.divergence.kernel_index);
            instant(list, buf, ts >= 0 ? ts : kernel_end_ts(t, sp, e->u.divergence.kernel_index), "kernel",
                    e->u.divergence.kernel);
            break;
        case EV_OUTPUT:
            instant(list, "outputs", ts >= 0 ? ts : kernel_end_ts(t, sp, -1), "count", NULL);
            break;
        case EV_RUNNER_EXIT:
            instant(list, "runner ended", ts >= 0 ? ts : kernel_end_ts(t, sp, -1), "how",
                    runner_exit_text(&e->u.exit, buf, sizeof buf));
            break;
        default:
            break;
        }
    }
}

/* Row i's while_loop round: its loop's key in key, -1 when it ran in none. */
static int64_t round_of(const kernel_time_row *r, char key[LOOP_ITER_KEY])
{
    if (r->k->iteration < 0 || loop_iter_key(r->k->branch, key))
        return -1;
    return r->k->iteration;
}

/* One slice per while_loop round: the launches in a row with the same loop and iteration. */
static void loop_slices(cJSON *list, const kernel_times *t, const span *sp)
{
    char key[LOOP_ITER_KEY], nkey[LOOP_ITER_KEY], name[LOOP_ITER_KEY + 40];
    for (size_t i = 0, from = 0; i < t->n; i++) {
        int64_t it = round_of(&t->rows[i], key);
        int64_t nit = i + 1 < t->n ? round_of(&t->rows[i + 1], nkey) : -1;
        if (it >= 0 && (nit != it || strcmp(key, nkey))) {
            snprintf(name, sizeof name, "%s iteration %lld", key, (long long)it);
            cJSON *e = trace_event(list, name, "X", TID_LOOP, sp[from].ts);
            cJSON_AddNumberToObject(e, "dur", sp[i].ts + sp[i].dur - sp[from].ts);
            cJSON *a = cJSON_AddObjectToObject(e, "args");
            cJSON_AddStringToObject(a, "loop", key);
            cJSON_AddNumberToObject(a, "iteration", (double)it);
            cJSON_AddNumberToObject(a, "kernels", (double)(i + 1 - from));
        }
        if (it < 0 || nit != it || strcmp(key, nkey))
            from = i + 1;
    }
}

static char *chrome_trace(const session *s)
{
    kernel_times t;
    kernel_times_build(s, &t);
    span *sp = kernel_spans(&t);
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "traceEvents");
    cJSON_AddStringToObject(root, "displayTimeUnit", "ms");
    char title[512];
    snprintf(title, sizeof title, "aotidbg: %s (%s)", s->package.path ? s->package.path : "package",
             s->gpu ? s->gpu : s->device ? s->device : "device unknown");
    meta_name(list, "process_name", TID_KERNELS, title);
    meta_name(list, "thread_name", TID_KERNELS, "kernels (before to after hook)");
    meta_name(list, "thread_name", TID_DEVICE, "device time (the kernel alone)");
    meta_name(list, "thread_name", TID_HOST, "host: aotidbg hooks between kernels");
    meta_name(list, "thread_name", TID_BRANCH, "subgraph runs (torch.cond / while_loop)");
    meta_name(list, "thread_name", TID_EVENTS, "errors, NaN/Inf, departures, outputs");
    meta_name(list, "thread_name", TID_LOOP, "while_loop iterations");
    size_t branch_from = 0;
    for (size_t i = 0; sp && i < t.n; i++) {
        const kernel_time_row *r = &t.rows[i];
        cJSON *e = trace_event(list, r->k->name, "X", TID_KERNELS, sp[i].ts);
        cJSON_AddNumberToObject(e, "dur", sp[i].dur);
        cJSON_AddStringToObject(e, "cat", kernel_type_name(r->k->type));
        kernel_args(e, r, t.peak_gbps);
        if (r->device_us >= 0) {
            cJSON *d = trace_event(list, r->k->name, "X", TID_DEVICE, sp[i].ts);
            cJSON_AddNumberToObject(d, "dur", r->device_us);
        }
        if (i + 1 < t.n && sp[i + 1].ts > sp[i].ts + sp[i].dur) {
            cJSON *h = trace_event(list, "hooks", "X", TID_HOST, sp[i].ts + sp[i].dur);
            cJSON_AddNumberToObject(h, "dur", sp[i + 1].ts - (sp[i].ts + sp[i].dur));
        }
        /* a branch's run ends where the next launch is elsewhere */
        const char *b = r->k->branch;
        const char *nb = i + 1 < t.n ? t.rows[i + 1].k->branch : NULL;
        if (b && (!nb || strcmp(b, nb))) {
            cJSON *g = trace_event(list, b, "X", TID_BRANCH, sp[branch_from].ts);
            cJSON_AddNumberToObject(g, "dur", sp[i].ts + sp[i].dur - sp[branch_from].ts);
        }
        if (!b || !nb || strcmp(b, nb))
            branch_from = i + 1;
    }
    if (sp)
        loop_slices(list, &t, sp);
    event_instants(list, s, &t, sp);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(sp);
    kernel_times_release(&t);
    return out;
}

/* One CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void csv_field(strbuf *sb, const char *v, int last)
{
    if (!v) v = "";
    if (strpbrk(v, ",\"\r\n")) {
        strbuf_addch(sb, '"');
        for (const char *p = v; *p; p++) {
            if (*p == '"') strbuf_addch(sb, '"');
            strbuf_addch(sb, *p);
        }
        strbuf_addch(sb, '"');
    } else {
        strbuf_addstr(sb, v);
    }
    strbuf_addch(sb, last ? '\n' : ',');
}

static void csv_num(strbuf *sb, double v, int last)
{
    char b[40] = "";
    if ((v >= 0 || v < -1) && v < 9e15 && v > -9e15 && v == (double)(int64_t)v)
        snprintf(b, sizeof b, "%lld", (long long)v);   /* counts and bytes whole, never 1.2e+06 */
    else if (v >= 0 || v < -1)
        snprintf(b, sizeof b, "%.6g", v);
    csv_field(sb, b, last);
}

static char *csv(const session *s)
{
    kernel_times t;
    kernel_times_build(s, &t);
    strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, "index,name,type,status,branch,source,t_ms,wall_us,device_us,bytes_read,bytes_written,"
                       "GB_per_s,nan,posinf,neginf,device_note,bytes_known,share_pct,of_peak_pct\n");
    for (size_t i = 0; i < t.n; i++) {
        const kernel_time_row *r = &t.rows[i];
        const kernel_event *k = r->k;
        uint64_t nan = 0, pinf = 0, ninf = 0;
        for (size_t j = 0; j < k->ntensors; j++)
            if (k->tensors[j].phase == PHASE_AFTER && k->tensors[j].has_stats) {
                nan += k->tensors[j].stats.nan;
                pinf += k->tensors[j].stats.posinf;
                ninf += k->tensors[j].stats.neginf;
            }
        csv_num(&sb, (double)k->index, 0);
        csv_field(&sb, k->name, 0);
        csv_field(&sb, kernel_type_name(k->type), 0);
        csv_field(&sb, kernel_status_name(k->status), 0);
        csv_field(&sb, k->branch, 0);
        csv_field(&sb, k->source, 0);
        csv_num(&sb, r->t_ms, 0);
        csv_num(&sb, r->wall_us, 0);
        csv_num(&sb, r->device_us, 0);
        int no_bytes = !r->bytes_known && !r->bytes_read && !r->bytes_written;   /* no tensor recorded */
        csv_num(&sb, no_bytes ? -1 : (double)r->bytes_read, 0);
        csv_num(&sb, no_bytes ? -1 : (double)r->bytes_written, 0);
        csv_num(&sb, r->gbps, 0);
        csv_num(&sb, (double)nan, 0);
        csv_num(&sb, (double)pinf, 0);
        csv_num(&sb, (double)ninf, 0);
        csv_field(&sb, k->device_note, 0);
        csv_field(&sb, r->bytes_known ? "1" : "0", 0);   /* 0: the bytes are a lower bound, or empty: unknown */
        csv_num(&sb, r->device_us >= 0 && t.total_device_us > 0 ? 100 * r->device_us / t.total_device_us : -1, 0);
        csv_num(&sb, r->gbps >= 0 && t.peak_gbps > 0 ? 100 * r->gbps / t.peak_gbps : -1, 1);
    }
    kernel_times_release(&t);
    return strbuf_detach(&sb, NULL);
}

/* Writes text to path whole: a private file beside it, renamed over it. */
static int write_whole(const char *path, const char *text, strbuf *err)
{
    size_t n = strlen(text);
    if (!path || !strcmp(path, "-")) {
        if (fwrite(text, 1, n, stdout) != n || fflush(stdout)) {
            strbuf_addf(err, "stdout: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp.buf);   /* O_EXCL: never follows what another user planted */
    if (fd < 0) {
        strbuf_addf(err, "%s: cannot create a file beside it: %s", path, strerror(errno));
        strbuf_release(&tmp);
        return -1;
    }
    int rc = fd_write_all(fd, text, n) || fsync(fd) ? -1 : 0;
    if (rc) strbuf_addf(err, "%s: %s", tmp.buf, strerror(errno));
    if (close(fd) && !rc) {
        strbuf_addf(err, "%s: %s", tmp.buf, strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp.buf, path)) {
        strbuf_addf(err, "%s: cannot rename to %s: %s", tmp.buf, path, strerror(errno));
        rc = -1;
    }
    if (rc) unlink(tmp.buf);
    strbuf_release(&tmp);
    return rc;
}

int cmd_export(const cli_args *a)
{
    const char *fmt = a->exp.format ? a->exp.format : "chrome-trace";
    int trace = !strcmp(fmt, "chrome-trace");
    if (!trace && strcmp(fmt, "csv"))
        return cli_usage_error(a->cmd, "--format takes chrome-trace or csv, got '%s'", fmt);
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    if (session_load(a->pos[0], &s, &err)) {
        fprintf(stderr, "aotidbg export: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    char *text = trace ? chrome_trace(s) : csv(s);
    int rc = EXIT_OK;
    if (!text) {
        fprintf(stderr, "aotidbg export: out of memory\n");
        rc = EXIT_FAILED;
    } else if (write_whole(a->exp.output, text, &err)) {
        fprintf(stderr, "aotidbg export: %s\n", err.buf);
        rc = EXIT_FAILED;
    } else if (a->exp.output && strcmp(a->exp.output, "-")) {
        fprintf(stderr, "aotidbg export: %zu kernel events to %s (%s)\n", s->nkernels, a->exp.output, fmt);
    }
    free(text);
    strbuf_release(&err);
    session_free(s);
    return rc;
}
