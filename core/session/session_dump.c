/* session_dump.c — the plain-text rendering of a session (`replay --dump`).
 *
 * Owns: session_dump. Deterministic: the same model gives the same bytes, so
 * tests compare a live run's dump with its replay's. Numbers print with
 * %.6g; text is printed on one line with \n, \t, \\ and control bytes
 * escaped, so every line of the dump is one fact. Reader warnings are not
 * part of the dump (the caller prints them on stderr). No errors. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "fmt.h"
#include "numfmt.h"
#include "session_dump.h"
#include "session_keys.h"
#include "stack_trace.h"
#include "weight_diff.h"

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

/* ---------- keys without a place of their own: " key=value" ---------- */

#define AT(rec, off, type) ((const type *)((const char *)(rec) + (off)))

static const char *label(const skey *k) { return k->label ? k->label : k->name; }

static void put_keys(FILE *f, const stable *t, const void *rec, const char *sep, int hand_too);

/* The value of key k of rec on one line. */
static void put_value(FILE *f, const skey *k, const void *rec)
{
    const void *v = AT(rec, k->off, char);
    size_t n = k->type >= SK_NUMS && k->type != SK_SUB && k->type != SK_CUSTOM ? *AT(rec, k->cnt, size_t) : 0;
    switch (k->type) {
    case SK_STR: put_text(f, *(const char *const *)v); break;
    case SK_INT: fprintf(f, "%d", *(const int *)v); break;
    case SK_I64: fprintf(f, "%lld", (long long)*(const int64_t *)v); break;
    case SK_U64: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)v); break;
    case SK_NUM: put_num(f, *(const double *)v); break;
    case SK_BOOL: fputs(*(const int *)v ? "yes" : "no", f); break;
    case SK_ENUM: put_text(f, k->enum_name(*(const int *)v)); break;
    case SK_DIMS: put_dims(f, *AT(rec, k->cnt, int), v); break;
    case SK_NUMS:
        putc('[', f);
        for (size_t i = 0; i < n; i++) {
            if (i)
                putc(' ', f);
            put_num(f, (*(const double *const *)v)[i]);
        }
        putc(']', f);
        break;
    case SK_STRS:
        putc('[', f);
        for (size_t i = 0; i < n; i++) {
            if (i)
                fputs(", ", f);
            put_text(f, (*(const char *const *const *)v)[i]);
        }
        putc(']', f);
        break;
    case SK_KV:
        putc('{', f);
        for (size_t i = 0; i < n; i++) {
            const kv_pair *kv = &(*(const kv_pair *const *)v)[i];
            fputs(i ? ", " : "", f);
            put_text(f, kv->key);
            putc('=', f);
            put_text(f, kv->value);
        }
        putc('}', f);
        break;
    case SK_SUB:
        putc('{', f);
        put_keys(f, k->sub, v, " ", 1);
        putc('}', f);
        break;
    case SK_LIST:
        putc('[', f);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ", {" : "{", f);
            put_keys(f, k->sub, *(const char *const *)v + i * k->sub->size, " ", 1);
            putc('}', f);
        }
        putc(']', f);
        break;
    case SK_CUSTOM: break;
    }
}

/* "key=value" for the keys of t (all, or those without SKF_HAND), each
 * after sep (the first one without it when sep is " " inside braces). */
static void put_keys(FILE *f, const stable *t, const void *rec, const char *sep, int hand_too)
{
    int first = 1;
    for (int i = 0; i < t->n; i++) {
        const skey *k = &t->keys[i];
        if (k->type == SK_CUSTOM || (!hand_too && (k->flags & SKF_HAND)) || ((k->flags & SKF_OPT) && !skey_is_set(k, rec)))
            continue;
        if (!(first && hand_too))
            fputs(sep, f);
        first = 0;
        fprintf(f, "%s=", label(k));
        put_value(f, k, rec);
    }
}

/* The keys of rec no hand-written line shows, as " key=value". */
static void put_rest(FILE *f, const stable *t, const void *rec) { put_keys(f, t, rec, " ", 0); }

/* uninit: a before-tensor holding leftover bytes (tensor_uninitialised). */
static void put_tensor(FILE *f, const tensor_rec *t, int uninit)
{
    fprintf(f, "    %s ", phase_name(t->phase));
    put_text(f, t->name);
    putc(' ', f);
    put_layout(f, t->ndim, t->shape, 1, t->strides, t->dtype, t->device);
    put_rest(f, &session_tensor_table, t);
    if (uninit)
        fputs(" uninitialised (the kernel writes it before it reads it)", f);
    putc('\n', f);
    if (t->has_stats) {
        fputs("      ", f);
        put_keys(f, &session_stats_table, &t->stats, " ", 1);
        putc('\n', f);
    }
    if (t->nvalues && t->values && dtype_lanes(t->dtype) == 2) {   /* complex: a+bj, one an element */
        size_t n = tensor_values_elems(t);
        fprintf(f, "      values (%zu%s):", n, t->values_complete ? ", all" : ", sample");
        for (size_t i = 0; i < n; i++) {
            char b[64];
            fmt_complex(b, sizeof b, t->values[2 * i], t->values[2 * i + 1], 6);
            fprintf(f, " %s", b);
        }
        putc('\n', f);
    } else if (t->nvalues && t->values) {
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
    if (t->values_skipped)
        fputs("      values_skipped: not read (a while_loop round after the first, not stopped at, no NaN/Inf: "
              "--loop-values all reads them)\n", f);
}

/* "[a, b]" of a list. */
static void put_list(FILE *f, size_t n, const char *const *v)
{
    putc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        put_text(f, v[i]);
    }
    putc(']', f);
}

/* The provenance table: one line per call, the user's lines as file:line. */
static void put_calls(FILE *f, const call_table *p)
{
    if (!p->from && !p->ncalls)
        return;
    fputs("provenance: from=", f);
    put_text(f, p->from);
    fprintf(f, " calls=%zu\n", p->ncalls);
    for (size_t i = 0; i < p->ncalls; i++) {
        const kernel_call *c = &p->calls[i];
        fprintf(f, "call %zu ", i);
        put_text(f, c->kernel);
        put_opt(f, " handle=", c->handle);
        if (c->line)
            fprintf(f, " line=%lld", (long long)c->line);
        st_frame fr[16];
        size_t n = kernel_call_sites(c, fr, 16);
        for (size_t j = 0; j < n; j++)
            fprintf(f, "%s%.*s:%lld", j ? "," : " at=", fr[j].file_len, fr[j].file, (long long)fr[j].line);
        const char *const *lists[] = {c->nodes, c->aten, c->pre_grad, c->post_grad, c->params, c->fresh};
        const size_t counts[] = {c->nnodes, c->naten, c->npre, c->npost, c->nparams, c->nfresh};
        static const char *const names[] = {"nodes", "aten", "pre_grad", "post_grad", "weights", "fresh"};
        for (int j = 0; j < 6; j++)
            if (counts[j]) {
                fprintf(f, " %s=", names[j]);
                put_list(f, counts[j], lists[j]);
            }
        if (c->nbefore)
            fprintf(f, " before=%llu", (unsigned long long)c->nbefore);
        if (c->nstack)
            fprintf(f, " stacks=%zu", c->nstack);
        putc('\n', f);
    }
}

/* Under a kernel: where it comes from, one line per user line of its call. */
static void put_kernel_sites(FILE *f, const session *s, const kernel_event *k)
{
    const kernel_call *c = session_kernel_call(s, k);
    st_frame fr[16];
    size_t n = kernel_call_sites(c, fr, 16);
    if (c && !n) {   /* no source line: the nodes and ops it computes */
        size_t nn;
        const char *which;
        const char *const *nodes = kernel_call_nodes(c, &nn, &which);
        if (nn || c->naten) {
            fprintf(f, "    from %s ", which ? which : "nodes");
            put_list(f, nn, nodes);
            fputs(" aten ", f);
            put_list(f, c->naten, c->aten);
            putc('\n', f);
        }
    }
    for (size_t j = 0; j < n; j++) {
        fprintf(f, "    at %.*s:%lld", fr[j].file_len, fr[j].file, (long long)fr[j].line);
        if (fr[j].func_len)
            fprintf(f, " in %.*s", fr[j].func_len, fr[j].func);
        if (fr[j].code_len)
            fprintf(f, ": %.*s", fr[j].code_len, fr[j].code);
        putc('\n', f);
    }
}

static void put_event(FILE *f, const session *s, size_t i, const event *e)
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
    if (e->kind < EV__COUNT)
        put_rest(f, session_kind_tables[e->kind], &e->u);
    if (e->t_ms >= 0 || isnan(e->t_ms)) {
        fputs(" t=", f);
        put_num(f, e->t_ms);
        fputs("ms", f);
    }
    putc('\n', f);
    switch (e->kind) {
    case EV_KERNEL:
        put_kernel_sites(f, s, &e->u.kernel);
        for (size_t j = 0; j < e->u.kernel.ntensors; j++)
            put_tensor(f, &e->u.kernel.tensors[j], tensor_uninitialised(s, &e->u.kernel, &e->u.kernel.tensors[j]));
        break;
    case EV_OUTPUT:
        for (size_t j = 0; j < e->u.output.ntensors; j++)
            put_tensor(f, &e->u.output.tensors[j], 0);
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
    case EV_NAN:
        for (size_t j = 0; j < e->u.nan.ninputs; j++) {
            fputs("    input ", f);
            put_text(f, e->u.nan.inputs[j]);
            putc('\n', f);
        }
        for (size_t j = 0; j < e->u.nan.nops; j++) {
            fputs("    op ", f);
            put_text(f, e->u.nan.ops[j]);
            putc('\n', f);
        }
        break;
    default:
        break;
    }
}

static void put_input(FILE *f, size_t i, const input_spec *in)
{
    fprintf(f, "input %zu: ", i);
    put_layout(f, in->ndim, in->shape, in->has_strides, in->strides, in->dtype, in->device);
    fprintf(f, " fill=%s seed=%llu", fill_kind_name(in->fill), (unsigned long long)in->seed);
    if (in->fill == FILL_FULL) {
        fputs(" value=", f);
        put_num(f, in->value);
    }
    put_opt(f, " file=", in->file);
    put_opt(f, " key=", in->key);
    put_rest(f, &session_input_table, in);
    putc('\n', f);
}

static void put_check(FILE *f, const check_row *c)
{
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
    put_rest(f, &session_check_table, c);
    putc('\n', f);
}

static void put_narration(FILE *f, size_t i, const narration_step *n)
{
    fprintf(f, "narration %zu: pane=", i);
    put_text(f, n->pane);
    fprintf(f, " event=%lld action=", (long long)n->event_index);
    put_text(f, n->action);
    fputs(" expect=", f);
    put_text(f, n->expect);
    fputs(" text=", f);
    put_text(f, n->text);
    put_rest(f, &session_narration_table, n);
    putc('\n', f);
}

/* --eager's weights in words: the summary, then each difference. */
static void put_weights(FILE *f, const weights_cmp *w)
{
    strbuf sb = STRBUF_INIT;
    weights_cmp_summary(w, &sb);
    fputs("eager weights: ", f);
    put_text(f, sb.buf);
    putc('\n', f);
    for (size_t i = 0; i < w->ndiffs; i++) {
        if (!weight_diff_is_difference(&w->diffs[i]))
            continue;
        strbuf_reset(&sb);
        weight_diff_describe(&w->diffs[i], &sb);
        fputs("  ", f);
        put_text(f, sb.buf);
        putc('\n', f);
    }
    strbuf_release(&sb);
}

/* One top-level key, in table order: lines of its own for the keys of
 * format 1.0, "key: value" for the rest. */
static void put_top(FILE *f, const session *s, const skey *k)
{
    switch (k->custom) {
    case SC_FORMAT:
        fprintf(f, "session format %d.%d\n", s->format_major, s->format_minor);
        return;
    case SC_EVENTS:   /* session_dump_head's line; the events: session_dump_event */
    case SC_COUNTS:   /* the file's claim: the "events:" line says what it holds */
    case SC_INDEX:    /* where lines are: nothing a reader of the dump needs */
        return;
    default:
        break;
    }
    if (k->off == offsetof(session, prov)) {
        put_calls(f, &s->prov);
        return;
    }
    if (k->type == SK_SUB) {   /* package: its path on the first line, the rest below */
        const stable *t = k->sub;
        const void *rec = AT(s, k->off, char);
        if ((k->flags & SKF_OPT) && !skey_is_set(k, s) && !(k->flags & SKF_HAND))
            return;
        for (int i = 0; i < t->n; i++) {
            const skey *c = &t->keys[i];
            if (!(k->flags & SKF_HAND)) {   /* others: a "key.child: value" line each */
                if (c->type == SK_CUSTOM || ((c->flags & SKF_OPT) && !skey_is_set(c, rec)))
                    continue;
                fprintf(f, "%s.%s: ", label(k), label(c));
            } else {
                if (i && (c->flags & SKF_OPT) && !skey_is_set(c, rec))
                    continue;   /* an optional key left out of the file is left out here too */
                fprintf(f, i ? "  %s: " : "%s: ", i ? label(c) : label(k));
            }
            put_value(f, c, rec);
            putc('\n', f);
        }
        if (k->off == offsetof(session, eager) && s->eager.weights.present)
            put_weights(f, &s->eager.weights);
        return;
    }
    if (k->off == offsetof(session, flags)) {
        fmt_kv_lines(f, s->nflags, s->flags, "flag ", "=", put_text, put_text);
    } else if (k->off == offsetof(session, inputs)) {
        for (size_t i = 0; i < s->ninputs; i++)
            put_input(f, i, &s->inputs[i]);
    } else if (k->off == offsetof(session, checks)) {
        for (size_t i = 0; i < s->nchecks; i++)
            put_check(f, &s->checks[i]);
    } else if (k->off == offsetof(session, bookmarks)) {
        for (size_t i = 0; i < s->nbookmarks; i++) {
            fprintf(f, "bookmark event #%lld: ", (long long)s->bookmarks[i].event_index);
            put_text(f, s->bookmarks[i].note);
            put_rest(f, &session_bookmark_table, &s->bookmarks[i]);
            putc('\n', f);
        }
    } else if (k->off == offsetof(session, notes)) {
        for (size_t i = 0; i < s->nnotes; i++) {
            fputs("note: ", f);
            put_text(f, s->notes[i]);
            putc('\n', f);
        }
    } else if (k->off == offsetof(session, narration)) {
        for (size_t i = 0; i < s->nnarration; i++)
            put_narration(f, i, &s->narration[i]);
    } else if (!(k->flags & SKF_OPT) || skey_is_set(k, s)) {
        fprintf(f, "%s: ", label(k));
        put_value(f, k, s);
        putc('\n', f);
    }
}

/* The row of the events in the top table. */
static int events_row(void)
{
    for (int i = 0; i < session_top_table.n; i++)
        if (session_top_table.keys[i].custom == SC_EVENTS)
            return i;
    return session_top_table.n;
}

void session_dump_head(const session *s, size_t nevents, size_t nkernels, FILE *out)
{
    int ev = events_row();
    for (int i = 0; i < ev; i++)
        put_top(out, s, &session_top_table.keys[i]);
    if (s->truncated)
        fputs("truncated: yes (the file was cut off; the last event may be missing)\n", out);
    fprintf(out, "events: %zu (%zu kernels)\n", nevents, nkernels);
}

void session_dump_event(const session *s, size_t i, const event *e, FILE *out) { put_event(out, s, i, e); }

void session_dump_tail(const session *s, FILE *out)
{
    for (int i = events_row() + 1; i < session_top_table.n; i++)
        put_top(out, s, &session_top_table.keys[i]);
}

void session_dump(const session *s, FILE *out)
{
    session_dump_head(s, s->nevents, s->nkernels, out);
    for (size_t i = 0; i < s->nevents; i++)
        put_event(out, s, i, s->events[i]);
    session_dump_tail(s, out);
}
