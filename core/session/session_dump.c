/* session_dump.c — the plain-text rendering of a session (`replay --dump`).
 *
 * Owns: session_dump. Deterministic: the same model gives the same bytes, so
 * tests compare a live run's dump with its replay's. Numbers print with
 * %.6g; text is printed on one line with \n, \t, \\ and control bytes
 * escaped, so every line of the dump is one fact. Reader warnings are not
 * part of the dump (the caller prints them on stderr). No errors. */
#include <math.h>
#include <string.h>
#include "fmt.h"
#include "session_io.h"

/* Writes s on one line: backslash escapes for \\, newline, tab, CR, other
 * control bytes, and the C1 controls and Unicode line/paragraph separators
 * (terminals and editors may break lines there). */
static void put_text(FILE *f, const char *s)
{
    if (!s) {
        fputs("-", f);
        return;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            fprintf(f, "\\u%04x", p[1]);
            p++;
            continue;
        }
        if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            fprintf(f, "\\u%04x", 0x2000 | (p[2] - 0x80));
            p += 2;
            continue;
        }
        switch (*p) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\x%02x", *p);
            else
                putc(*p, f);
        }
    }
}

static void put_num(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    else
        fprintf(f, "%.6g", v == 0 ? 0.0 : v);   /* no "-0" */
}

static void put_dims(FILE *f, int n, const int64_t *d)
{
    putc('[', f);
    for (int i = 0; i < n && d; i++)
        fprintf(f, i ? ", %lld" : "%lld", (long long)d[i]);
    putc(']', f);
}

static void put_field(FILE *f, const char *label, const char *v)
{
    fprintf(f, "%s: ", label);
    put_text(f, v);
    putc('\n', f);
}

/* " label text" when text is set, nothing otherwise (optional columns). */
static void put_opt(FILE *f, const char *label, const char *text)
{
    if (!text)
        return;
    fputs(label, f);
    put_text(f, text);
}

/* "<shape>[ strides <strides>] <dtype> <device>", shared by recorded tensors
 * and input specs. */
static void put_layout(FILE *f, int ndim, const int64_t *shape, int with_strides, const int64_t *strides,
                       const char *dtype, const char *device)
{
    put_dims(f, ndim, shape);
    if (with_strides) {
        fputs(" strides ", f);
        put_dims(f, ndim, strides);
    }
    putc(' ', f);
    put_text(f, dtype);
    putc(' ', f);
    put_text(f, device);
}

static void put_tensor(FILE *f, const tensor_rec *t)
{
    fprintf(f, "    %s ", phase_name(t->phase));
    put_text(f, t->name);
    putc(' ', f);
    put_layout(f, t->ndim, t->shape, 1, t->strides, t->dtype, t->device);
    putc('\n', f);
    if (t->has_stats) {
        const tensor_stats *st = &t->stats;
        fprintf(f, "      numel=%llu finite=%llu min=", (unsigned long long)st->numel,
                (unsigned long long)st->finite);
        put_num(f, st->min);
        fputs(" max=", f);
        put_num(f, st->max);
        fputs(" mean=", f);
        put_num(f, st->mean);
        fputs(" std=", f);
        put_num(f, st->std);
        fprintf(f, " nan=%llu +inf=%llu -inf=%llu zeros=%llu subnormal=%llu\n", (unsigned long long)st->nan,
                (unsigned long long)st->posinf, (unsigned long long)st->neginf, (unsigned long long)st->zeros,
                (unsigned long long)st->subnormal);
    }
    if (t->nvalues && t->values) {
        fprintf(f, "      values (%zu%s):", t->nvalues, t->values_complete ? ", all" : ", sample");
        for (size_t i = 0; i < t->nvalues; i++) {
            putc(' ', f);
            put_num(f, t->values[i]);
        }
        putc('\n', f);
    }
    if (t->values_budget_cut)
        fprintf(f, "      values_budget_cut: %zu value%s kept (the value budget was used up)\n", t->nvalues,
                t->nvalues == 1 ? "" : "s");
}

static void put_event(FILE *f, size_t i, const event *e)
{
    fprintf(f, "#%zu %s", i, event_kind_name(e->kind));
    switch (e->kind) {
    case EV_KERNEL: {
        const kernel_event *k = &e->u.kernel;
        putc(' ', f);
        put_text(f, k->name);
        fprintf(f, " [%s] %s ", kernel_type_name(k->type), kernel_status_name(k->status));
        if (k->duration_us >= 0) {
            put_num(f, k->duration_us);
            fputs("us", f);
        } else {
            fputs("-", f);
        }
        fprintf(f, " index=%lld", (long long)k->index);
        put_opt(f, " source=", k->source);
        break;
    }
    case EV_ERROR:
        fputs(" route=", f);
        put_text(f, e->u.error.route);
        if (e->u.error.kernel_index >= 0)
            fprintf(f, " kernel=%lld", (long long)e->u.error.kernel_index);
        break;
    case EV_RUNNER_EXIT:
        putc(' ', f);
        put_text(f, e->u.exit.how);
        fprintf(f, " code=%d signal=%d", e->u.exit.exit_code, e->u.exit.signal);
        break;
    case EV_LOG:
        putc(' ', f);
        put_text(f, e->u.log.stream);
        break;
    default:
        break;
    }
    if (e->t_ms >= 0 || isnan(e->t_ms)) {
        fputs(" t=", f);
        put_num(f, e->t_ms);
        fputs("ms", f);
    }
    putc('\n', f);
    switch (e->kind) {
    case EV_KERNEL:
        for (size_t j = 0; j < e->u.kernel.ntensors; j++)
            put_tensor(f, &e->u.kernel.tensors[j]);
        break;
    case EV_OUTPUT:
        for (size_t j = 0; j < e->u.output.ntensors; j++)
            put_tensor(f, &e->u.output.tensors[j]);
        break;
    case EV_ERROR:
        fputs("    text: ", f);
        put_text(f, e->u.error.text);
        putc('\n', f);
        fmt_kv_lines(f, e->u.error.nfields, e->u.error.fields, "    field ", " = ", put_text, put_text);
        break;
    case EV_RUNNER_EXIT:
        if (e->u.exit.stderr_tail) {
            fputs("    stderr: ", f);
            put_text(f, e->u.exit.stderr_tail);
            putc('\n', f);
        }
        break;
    case EV_LOG:
        fputs("    text: ", f);
        put_text(f, e->u.log.text);
        putc('\n', f);
        break;
    default:
        break;
    }
}

void session_dump(const session *s, FILE *out)
{
    FILE *f = out;
    fprintf(f, "session format %d.%d\n", s->format_major, s->format_minor);
    put_field(f, "tool_version", s->tool_version);
    put_field(f, "torch_version", s->torch_version);
    put_field(f, "host", s->host);
    put_field(f, "gpu", s->gpu);
    if (s->title)
        put_field(f, "title", s->title);
    const package_info *p = &s->package;
    put_field(f, "package", p->path);
    put_field(f, "  sha256", p->sha256);
    put_field(f, "  model", p->model);
    put_field(f, "  device_key", p->device_key);
    put_field(f, "  compute_capability", p->compute_capability);
    put_field(f, "  cpu_isa", p->cpu_isa);
    put_field(f, "device", s->device);
    fprintf(f, "printer_level: %d\n", s->printer_level);
    put_field(f, "mode", s->mode);
    if (s->values_budget)
        fprintf(f, "values_budget: %llu\n", (unsigned long long)s->values_budget);
    fmt_kv_lines(f, s->nflags, s->flags, "flag ", "=", put_text, put_text);
    for (size_t i = 0; i < s->ninputs; i++) {
        const input_spec *in = &s->inputs[i];
        fprintf(f, "input %zu: ", i);
        put_layout(f, in->ndim, in->shape, in->has_strides, in->strides, in->dtype, in->device);
        fprintf(f, " fill=%s seed=%llu", fill_kind_name(in->fill), (unsigned long long)in->seed);
        if (in->fill == FILL_FULL) {
            fputs(" value=", f);
            put_num(f, in->value);
        }
        put_opt(f, " file=", in->file);
        put_opt(f, " key=", in->key);
        putc('\n', f);
    }
    for (size_t i = 0; i < s->nchecks; i++) {
        const check_row *c = &s->checks[i];
        fprintf(f, "check %-4s ", check_status_name(c->status));
        put_text(f, c->id);
        fputs(": ", f);
        put_text(f, c->subject);
        if (c->expected || c->got) {
            fputs(" | expected ", f);
            put_text(f, c->expected);
            fputs(" | got ", f);
            put_text(f, c->got);
        }
        fputs(" | source ", f);
        put_text(f, c->source);
        put_opt(f, " | fix ", c->fix);
        putc('\n', f);
    }
    for (size_t i = 0; i < s->nbookmarks; i++) {
        fprintf(f, "bookmark event #%lld: ", (long long)s->bookmarks[i].event_index);
        put_text(f, s->bookmarks[i].note);
        putc('\n', f);
    }
    for (size_t i = 0; i < s->nnotes; i++) {
        fputs("note: ", f);
        put_text(f, s->notes[i]);
        putc('\n', f);
    }
    for (size_t i = 0; i < s->nnarration; i++) {
        const narration_step *n = &s->narration[i];
        fprintf(f, "narration %zu: pane=", i);
        put_text(f, n->pane);
        fprintf(f, " event=%lld action=", (long long)n->event_index);
        put_text(f, n->action);
        fputs(" expect=", f);
        put_text(f, n->expect);
        fputs(" text=", f);
        put_text(f, n->text);
        putc('\n', f);
    }
    put_field(f, "end_state", s->end_state);
    if (s->truncated)
        fputs("truncated: yes (the file was cut off; the last event may be missing)\n", f);
    fprintf(f, "events: %zu (%zu kernels)\n", s->nevents, s->nkernels);
    for (size_t i = 0; i < s->nevents; i++)
        put_event(f, i, s->events[i]);
}
