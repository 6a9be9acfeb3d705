/* pane_inspector.c — the tensors of the selected kernel, before and after it
 * ran: shape, strides, dtype, device, contiguity and statistics; for the
 * selected tensor a value grid over a 2-D slice and a histogram when the
 * session holds values; the "diff" view pairs before/after by name. On top,
 * one line each against the --reference session and against a .npy file
 * attached to the selected tensor (ref-npy); this file owns those attachments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pane_inspector.h"
#include "compat.h"
#include "numfmt.h"
#include "pane_util.h"
#include "route_event.h"
#include "tensor_close.h"
#include "tensor_diff.h"
#include "source_view.h"
#include "stack_trace.h"
#include "tensor_file.h"
#include "value_grid.h"
static const npy_ref *inspector_npy_find(const app *a, int64_t kernel, const char *name, tensor_phase phase);   /* defined below */

#define MAX_ROWS 512

/* The inspector's own state (its pane's priv). */
typedef struct {
    int view;                      /* INSP_* */
    value_grid vg;
    npy_ref *refs;                 /* .npy references, see inspector_npy_attach */
    size_t nrefs, alloc;
    /* the user's source lines under the header: the last file and line read (frames redraw often) */
    char *ex_path;
    int64_t ex_line;
    int ex_ok;
    strbuf ex_text;
    struct {                       /* the one ref-eager attached (its name malloc'd; NULL none) */
        int64_t kernel;
        char *name;
        tensor_phase phase;
    } eager_ref;
} insp;

static insp *st(const app *a) { return a->panes[PANE_INSPECTOR].priv; }

static void *i_init(app *a)
{
    (void)a;
    return xcalloc(1, sizeof(insp));
}

static void npy_free(npy_ref *r);

static void i_release(void *priv)
{
    insp *s = priv;
    if (!s)
        return;
    for (size_t i = 0; i < s->nrefs; i++)
        npy_free(&s->refs[i]);
    free(s->refs);
    free(s->ex_path);
    strbuf_release(&s->ex_text);
    free(s->eager_ref.name);
    free(s);
}

/* At most 9 columns: "%.3g" of a float32 is "-6.02e+17" at worst. */
static void fmt_short(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        fmt_double(buf, n, v);
    else
        snprintf(buf, n, "%.3g", v);
}

static const char *const view_names[INSP__COUNT] = {"all", "before", "after", "diff"};

/* Fills idx with the tensor indices shown in the current view; for diff, the
 * before-tensor of each name that also has an after-tensor. */
static int rows_of(app *a, const kernel_event *k, int *idx)
{
    int n = 0;
    if (!k)
        return 0;
    for (size_t i = 0; i < k->ntensors && n < MAX_ROWS; i++) {
        const tensor_rec *t = &k->tensors[i];
        switch (st(a)->view) {
        case INSP_BEFORE: if (t->phase != PHASE_BEFORE) continue; break;
        case INSP_AFTER: if (t->phase != PHASE_AFTER) continue; break;
        case INSP_DIFF: {
            if (t->phase != PHASE_BEFORE)
                continue;
            int found = 0;
            for (size_t j = 0; j < k->ntensors; j++)
                if (k->tensors[j].phase == PHASE_AFTER && !strcmp(k->tensors[j].name, t->name))
                    found = 1;
            if (!found)
                continue;
            break;
        }
        default: break;
        }
        idx[n++] = (int)i;
    }
    return n;
}

static int64_t i_rows(app *a, pane *p)
{
    (void)p;
    int idx[MAX_ROWS];
    return rows_of(a, app_selected_kernel(a), idx);
}

static int contiguous(const tensor_rec *t)
{
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != expect)
            return 0;
        expect *= t->shape[d];
    }
    return 1;
}

static void ref_line(app *a, const kernel_event *k, const tensor_rec *t, strbuf *sb);
static void npy_line(const npy_ref *nr, const tensor_rec *t, strbuf *sb);
static int eager_line(const kernel_event *k, const tensor_rec *t, strbuf *sb);

static const tensor_rec *partner(const kernel_event *k, const tensor_rec *t)
{
    for (size_t j = 0; j < k->ntensors; j++)
        if (k->tensors[j].phase == PHASE_AFTER && !strcmp(k->tensors[j].name, t->name))
            return &k->tensors[j];
    return NULL;
}

static void stats_line(const tensor_rec *t, strbuf *sb)
{
    if (!t->has_stats) {
        strbuf_addstr(sb, "no statistics recorded");
        return;
    }
    char mn[24], mx[24], me[24], sd[24];
    fmt_double(mn, sizeof mn, t->stats.min);
    fmt_double(mx, sizeof mx, t->stats.max);
    fmt_double(me, sizeof me, t->stats.mean);
    fmt_double(sd, sizeof sd, t->stats.std);
    if (dtype_lanes(t->dtype) == 2)
        strbuf_addstr(sb, "|z| ");   /* complex: the moments are of the modulus */
    strbuf_addf(sb, "min %s max %s mean %s std %s nan %llu inf %llu zeros %llu", mn, mx, me, sd,
                (unsigned long long)t->stats.nan,
                (unsigned long long)(t->stats.posinf + t->stats.neginf), (unsigned long long)t->stats.zeros);
}

/* Why a tensor has fewer values than the runner sent: the value budget
 * (--values-budget) was used up when it arrived. */
static void budget_line(const session *s, const tensor_rec *t, strbuf *sb)
{
    uint64_t numel = 0;
    if (t->has_stats)
        numel = t->stats.numel;
    else if (t->shape) {
        numel = 1;
        for (int d = 0; d < t->ndim; d++)
            numel *= t->shape[d] > 0 ? (uint64_t)t->shape[d] : 0;
    }
    if (t->nvalues)
        strbuf_addf(sb, "values: first %zu of %llu kept", tensor_values_elems(t), (unsigned long long)numel);
    else
        strbuf_addf(sb, "values: none of %llu kept", (unsigned long long)numel);
    strbuf_addstr(sb, " (value budget");
    uint64_t b = s ? s->values_budget : 0;
    if (b) {
        static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB"};
        int u = 0;
        while (u < 3 && b % 1024 == 0)
            b /= 1024, u++;
        strbuf_addf(sb, " %llu %s", (unsigned long long)b, unit[u]);
    }
    strbuf_addstr(sb, " used up; the statistics cover every element; raise --values-budget)");
}

/* Element i of t's values: itself, or |z| of a complex one (a (re, im) pair). */
static double elem_value(const tensor_rec *t, int lanes, size_t i)
{
    return lanes == 2 ? hypot(t->values[2 * i], t->values[2 * i + 1]) : t->values[i];
}

static void diff_line(const tensor_rec *b, const tensor_rec *af, strbuf *sb)
{
    int lanes = dtype_lanes(b->dtype);
    if (b->nvalues && af->nvalues && lanes == dtype_lanes(af->dtype)) {
        size_t nb = tensor_values_elems(b), na = tensor_values_elems(af);
        size_t n = nb < na ? nb : na;
        double maxd = 0;
        size_t changed = 0;
        for (size_t i = 0; i < n; i++) {   /* complex: |after - before| of the pair */
            const double *x = af->values + i * (size_t)lanes, *y = b->values + i * (size_t)lanes;
            double d = lanes == 2 ? hypot(x[0] - y[0], x[1] - y[1]) : x[0] - y[0];
            int same = 1;
            for (int l = 0; l < lanes; l++)
                same &= x[l] == y[l] || (isnan(x[l]) && isnan(y[l]));
            if (!same) {
                changed++;
                if (!isnan(d) && fabs(d) > maxd)
                    maxd = fabs(d);
            }
        }
        char md[24];
        fmt_double(md, sizeof md, maxd);
        strbuf_addf(sb, "changed %zu of %zu values%s, max |after-before| %s", changed, n,
                    (b->values_budget_cut || af->values_budget_cut) ? " (sampled: value budget used up)"
                    : (b->values_complete && af->values_complete)   ? ""
                                                                    : " (sampled)", md);
    } else if (b->has_stats && af->has_stats) {
        char m0[24], m1[24];
        fmt_double(m0, sizeof m0, b->stats.mean);
        fmt_double(m1, sizeof m1, af->stats.mean);
        strbuf_addf(sb, "mean %s -> %s, nan %llu -> %llu, inf %llu -> %llu", m0, m1,
                    (unsigned long long)b->stats.nan, (unsigned long long)af->stats.nan,
                    (unsigned long long)(b->stats.posinf + b->stats.neginf),
                    (unsigned long long)(af->stats.posinf + af->stats.neginf));
    } else {
        strbuf_addstr(sb, "no values or statistics to compare");
    }
}

static void histogram(grid *g, rect r, const tensor_rec *t)
{
    if (!t->nvalues || r.h < 3 || r.w < 20)
        return;
    int lanes = dtype_lanes(t->dtype);   /* complex: of |z|, as the statistics */
    size_t n = tensor_values_elems(t);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = elem_value(t, lanes, i);
        if (isfinite(v)) {
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    }
    grid_put(g, r.x, r.y, r.w, EL_HEADER,
             lanes == 2 ? (t->values_budget_cut ? "histogram of |z| (finite values kept by the value budget):"
                                                : "histogram of |z| (finite values):")
             : t->values_budget_cut ? "histogram (finite values kept by the value budget):" : "histogram (finite values):");
    if (!(lo <= hi))
        return;
    int bins = r.h - 1;
    if (bins > 10) bins = 10;
    size_t cnt[10] = {0}, top = 0;
    for (size_t i = 0; i < n; i++) {
        double v = elem_value(t, lanes, i);
        if (!isfinite(v))
            continue;
        int b = hi > lo ? (int)((v - lo) / (hi - lo) * bins) : 0;
        if (b >= bins) b = bins - 1;
        if (b < 0) b = 0;
        cnt[b]++;
    }
    for (int b = 0; b < bins; b++)
        if (cnt[b] > top) top = cnt[b];
    int barw = r.w - 18;
    for (int b = 0; b < bins; b++) {
        char lb[24];
        fmt_short(lb, sizeof lb, lo + (hi - lo) * b / bins);
        grid_printf(g, r.x, r.y + 1 + b, 17, EL_DIM, "%9s %6zu ", lb, cnt[b]);
        int len = top ? (int)((double)cnt[b] / (double)top * barw + 0.5) : 0;
        grid_fill(g, r.x + 17, r.y + 1 + b, len, 1, grid_ld(g, LD_BLOCK), EL_HIST);
    }
}

/* Lines line-1..line+1 of path (source_view.h), kept from the last frame
 * that asked for the same; NULL when the file cannot be read here. */
static const char *excerpt(insp *s, const char *path, int64_t line)
{
    if (s->ex_path && !strcmp(s->ex_path, path) && s->ex_line == line)
        return s->ex_ok ? s->ex_text.buf : NULL;
    free(s->ex_path);
    s->ex_path = xstrdup(path);
    s->ex_line = line;
    strbuf_reset(&s->ex_text);
    strbuf err = STRBUF_INIT;
    s->ex_ok = source_excerpt(path, line, 1, &s->ex_text, &err) == 0;
    strbuf_release(&err);
    return s->ex_ok ? s->ex_text.buf : NULL;
}

/* ", a, b" items of a list after a label: "label: a, b". */
static void add_list(strbuf *sb, const char *label, size_t n, const char *const *v)
{
    for (size_t i = 0; i < n; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : label, v[i]);
}

/* Where the kernel comes from, on top: the user's line and code, its nodes,
 * ATen ops and layer, and (when the file is readable here and there is room)
 * the lines around it. Returns the rows used. */
static int provenance_header(insp *s, grid *g, rect in, const kernel_call *c)
{
    if (in.h < 6)
        return 0;
    st_frame f[16];
    size_t ns = kernel_call_sites(c, f, 16);
    strbuf sb = STRBUF_INIT;
    int y = in.y;
    if (ns) {
        int bl;
        const char *b = st_frame_base(&f[0], &bl);
        strbuf_addf(&sb, "at %.*s:%lld", bl, b, (long long)f[0].line);
        if (f[0].func_len)
            strbuf_addf(&sb, " in %.*s", f[0].func_len, f[0].func);
        if (f[0].code_len)
            strbuf_addf(&sb, ": %.*s", f[0].code_len, f[0].code);
        for (size_t i = 1; i < ns; i++) {
            b = st_frame_base(&f[i], &bl);
            strbuf_addf(&sb, "%s%.*s:%lld", i == 1 ? "  (also " : ", ", bl, b, (long long)f[i].line);
        }
        if (ns > 1)
            strbuf_addch(&sb, ')');
        grid_put(g, in.x, y++, in.w, EL_HEADER, sb.buf);
        strbuf_reset(&sb);
    }
    size_t nn;
    const char *which;
    const char *const *nodes = kernel_call_nodes(c, &nn, &which);
    char label[40];
    snprintf(label, sizeof label, "%s: ", which ? which : "nodes");
    add_list(&sb, label, nn, nodes);
    add_list(&sb, sb.len ? " | aten: " : "aten: ", c->naten, c->aten);
    char layer[128];
    if (kernel_call_layer(c, layer, sizeof layer))
        strbuf_addf(&sb, "%slayer %s", sb.len ? " | " : "", layer);
    if (sb.len)
        grid_put(g, in.x, y++, in.w, ns ? EL_DIM : EL_HEADER, sb.buf);
    strbuf_release(&sb);
    if (ns && in.h >= 18) {   /* gdb's list, short: the line and one either side */
        char path[4096];
        snprintf(path, sizeof path, "%.*s", f[0].file_len, f[0].file);
        const char *ex = excerpt(s, path, f[0].line);
        for (const char *q = ex; q && *q && y < in.y + 5;) {
            size_t len = strcspn(q, "\n");
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), q);
            grid_put(g, in.x, y++, in.w, line[0] == '>' ? EL_NORMAL : EL_DIM, line);
            q += len + (q[len] == '\n');
        }
    }
    return y - in.y;
}

/* The eager check of the node t holds (its after-value); NULL none. */
static const eager_check *eager_check_of(const kernel_event *k, const tensor_rec *t)
{
    for (size_t i = 0; i < k->neager; i++)
        if (k->eager[i].tensor && !strcmp(k->eager[i].tensor, t->name))
            return &k->eager[i];
    return NULL;
}

/* t against the eager node's .npy that ref-eager attached, judged by the
 * tolerance the runner's check used (so it counts what "departs at" counts,
 * never an exact diff of every rounding): "vs NODE.npy (atol A, rtol R):
 * departs at [i, j] (n/m), ...". 0 when it cannot (no values on both sides,
 * a complex dtype, shapes that differ): the plain comparison says why. */
static int eager_npy_line(const eager_check *c, const tensor_rec *t, const npy_ref *nr, strbuf *sb)
{
    const tensor_rec *r = &nr->t;
    int same = t->ndim == r->ndim && t->values && r->values && dtype_lanes(t->dtype) == 1 &&
               dtype_lanes(r->dtype) == 1;
    for (int i = 0; same && i < t->ndim; i++)
        same = t->shape[i] == r->shape[i];
    size_t n = same ? (t->nvalues < r->nvalues ? t->nvalues : r->nvalues) : 0;
    if (!n)
        return 0;
    close_result cr;
    close_init(&cr, (close_tol){c->atol, c->rtol});
    close_add(&cr, t->values, r->values, n);
    const char *base = strrchr(nr->path, '/');
    char at[24], rt[24], ma[24], mr[24];
    fmt_double(at, sizeof at, c->atol);
    fmt_double(rt, sizeof rt, c->rtol);
    fmt_double(ma, sizeof ma, cr.max_abs);
    fmt_double(mr, sizeof mr, cr.max_rel);
    strbuf_addf(sb, "vs %s (eager's tolerance: atol %s, rtol %s): ", base && base[1] ? base + 1 : nr->path, at, rt);
    if (cr.first >= 0) {
        strbuf_addstr(sb, "departs at ");
        fmt_index(sb, t, cr.first);
        strbuf_addf(sb, " (%llu/%llu)", (unsigned long long)cr.differing, (unsigned long long)cr.compared);
    } else {
        strbuf_addf(sb, "close (%llu values)", (unsigned long long)cr.compared);
    }
    strbuf_addf(sb, "%s, max abs err %s, max rel err %s", tensor_values_elems(t) > n ? ", of the values kept" : "",
                ma, mr);
    return 1;
}

static const char *error_get(const void *ctx, const char *key)
{
    const error_event *e = ctx;
    for (size_t i = 0; i < e->nfields; i++)
        if (!strcmp(e->fields[i].key, key))
            return e->fields[i].value;
    return NULL;
}

/* The element an error of this kernel comes down to (the words of the run's
 * summary and the router), into sb; 0 when no error names one. The runner's
 * death leaves it in the error event the recorder routed. */
static int error_element(const session *s, int64_t kernel, strbuf *sb)
{
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind == EV_ERROR && e->u.error.kernel_index == kernel && route_element_line(error_get, &e->u.error, sb))
            return 1;
    }
    return 0;
}

/* The first compute-sanitizer report of kernel ki that names a tensor; NULL none. */
static const memcheck_event *memcheck_of(app *a, int64_t ki)
{
    size_t n;
    const size_t *mc = app_memchecks(a, &n);   /* indexed: not a pass over every event each frame */
    for (size_t i = 0; i < n; i++) {
        if (mc[i] >= a->s->nevents || a->s->events[mc[i]]->kind != EV_MEMCHECK)
            continue;   /* a restart under the index: it is rebuilt when the events shrink */
        const memcheck_event *m = &a->s->events[mc[i]]->u.memcheck;
        if (m->kernel_index == ki && m->hit)
            return m;
    }
    return NULL;
}

/* A folded kernel's ranges: launches, times, each tensor's min/max and the range of its means. */
static int fold_kernel_lines(grid *g, rect in, int y, const fold_kernel *fk)
{
    int y0 = y;
    if (y >= in.y + in.h)
        return 0;
    grid_printf(g, in.x, y++, in.w, EL_HEADER, "%s%s%s  x%llu", fk->name, fk->branch ? " @" : "",
                fk->branch ? fk->branch : "", (unsigned long long)fk->launches);
    if (y < in.y + in.h && fk->duration_us >= 0)
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "  time %.1f us in all, %.1f..%.1f us a launch", fk->duration_us,
                    fk->duration_min_us, fk->duration_max_us);
    if (y < in.y + in.h && fk->device_us >= 0)
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "  device time %.1f us in all", fk->device_us);
    for (size_t i = 0; i < fk->ntensors && y < in.y + in.h; i++) {
        const fold_tensor *t = &fk->tensors[i];
        char nf[96] = "";
        if (t->nan || t->posinf || t->neginf)
            snprintf(nf, sizeof nf, "  nan %llu inf %llu -inf %llu", (unsigned long long)t->nan,
                     (unsigned long long)t->posinf, (unsigned long long)t->neginf);
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "  %-6s %s  min %.6g max %.6g mean %.6g..%.6g%s", phase_name(t->phase),
                    t->name, t->min, t->max, t->mean_lo, t->mean_hi, nf);
    }
    return y - y0;
}

/* A folded loop's line is selected in the kernel list: its ranges (values are never kept for folded launches). */
static void fold_render(app *a, pane *p, grid *g, int focused, const fold_event *f, int64_t row)
{
    char title[200];
    snprintf(title, sizeof title, "inspector: %s iterations %lld..%lld, folded", f->loop, (long long)f->from,
             (long long)f->to);
    rect in = pane_frame(g, p, focused, title);
    int y = in.y;
    grid_printf(g, in.x, y++, in.w, EL_NORMAL, "%llu launches (#%lld-%lld) of %zu kernels, counted, not kept: ranges over "
                "the launches, no values", (unsigned long long)f->launches, (long long)f->first_kernel,
                (long long)f->last_kernel, f->nkernels);
    if (f->duration_us >= 0 && y < in.y + in.h)
        grid_printf(g, in.x, y++, in.w, EL_NORMAL, "time %.1f us in all", f->duration_us);
    for (size_t i = 0; i < f->nkernels && y < in.y + in.h; i++)
        if (row < 0 || (size_t)row == i)
            y += fold_kernel_lines(g, in, y, &f->kernels[i]);
    (void)a;
}

static void i_render(app *a, pane *p, grid *g, int focused)
{
    int64_t frow;
    const fold_event *fe = app_selected_fold(a, &frow);
    if (fe) {
        fold_render(a, p, g, focused, fe, frow);
        return;
    }
    const kernel_event *k = app_selected_kernel(a);
    char title[160];
    if (k)
        snprintf(title, sizeof title, "inspector: #%lld %s [%s]", (long long)k->index, k->name, view_names[st(a)->view]);
    else
        snprintf(title, sizeof title, "inspector");
    rect in = pane_frame(g, p, focused, title);
    if (!k) {
        pane_empty(g, in, "select a kernel in the kernel list (3)");
        return;
    }
    char ended[192];
    int died = k->index == session_exit_kernel(a->s) && pane_exit_what(a->s, ended, sizeof ended);
    if (died && in.h >= 3) {
        /* it never finished: no after-tensors will come */
        grid_printf(g, in.x, in.y, in.w, EL_ERROR, "%s in this kernel: no after-tensors", ended);
        in.y++;
        in.h--;
    }
    const memcheck_event *mc = memcheck_of(a, k->index);
    if (mc && in.h >= 3) {   /* --memcheck: where this kernel's bad access landed */
        grid_printf(g, in.x, in.y, in.w, EL_ERROR, "%s: %s", mc->tool, mc->hit);
        in.y++;
        in.h--;
    }
    strbuf el = STRBUF_INIT;
    if (!mc && died && in.h >= 3 && error_element(a->s, k->index, &el)) {   /* what the death leaves unsaid here */
        grid_put(g, in.x, in.y, in.w, EL_ERROR, el.buf);
        in.y++;
        in.h--;
    }
    strbuf_release(&el);
    const kernel_call *kc = session_kernel_call(a->s, k);
    if (kc) {
        int used = provenance_header(st(a), g, in, kc);
        in.y += used;
        in.h -= used;
    }
    int idx[MAX_ROWS];
    int n = rows_of(a, k, idx);
    if (!n) {
        pane_empty(g, in, k->ntensors                 ? "no tensor in this view: left/right or v changes the view"
                          : k->status == KSTAT_PENDING && !died ? "stopped before this kernel: s runs it and shows its tensors"
                                                       : "no tensors recorded for this kernel");
        return;
    }
    const tensor_rec *sel = &k->tensors[idx[p->cursor < n ? p->cursor : 0]];
    if (a->ref && in.h >= 3) {   /* the diff against --reference, on top */
        strbuf rl = STRBUF_INIT;
        ref_line(a, k, sel, &rl);
        grid_put(g, in.x, in.y, in.w, EL_WARN, rl.buf);
        strbuf_release(&rl);
        in.y++;
        in.h--;
    }
    if (k->neager && in.h >= 3) {   /* package versus the eager program (--eager) */
        strbuf el = STRBUF_INIT;
        int bad = eager_line(k, sel, &el);
        grid_put(g, in.x, in.y, in.w, bad ? EL_NAN : EL_DIM, el.buf);
        strbuf_release(&el);
        in.y++;
        in.h--;
    }
    const npy_ref *nr = inspector_npy_find(a, k->index, sel->name, sel->phase);
    if (nr && in.h >= 3) {   /* the diff against an attached .npy file */
        strbuf rl = STRBUF_INIT;
        const insp *is = st(a);
        const eager_check *ec = is->eager_ref.name && is->eager_ref.kernel == k->index &&
                                is->eager_ref.phase == sel->phase && !strcmp(is->eager_ref.name, sel->name)
                                    ? eager_check_of(k, sel) : NULL;
        if (!ec || !eager_npy_line(ec, sel, nr, &rl))
            npy_line(nr, sel, &rl);
        grid_put(g, in.x, in.y, in.w, EL_WARN, rl.buf);
        strbuf_release(&rl);
        in.y++;
        in.h--;
    }
    if (sel->values_budget_cut && in.h >= 3) {   /* why the grid holds fewer values */
        strbuf bl = STRBUF_INIT;
        budget_line(a->s, sel, &bl);
        grid_put(g, in.x, in.y, in.w, EL_WARN, bl.buf);
        strbuf_release(&bl);
        in.y++;
        in.h--;
    }
    if (sel->values_skipped && in.h >= 3) {   /* why this round has no grid */
        grid_put(g, in.x, in.y, in.w, EL_WARN,
                 "values not read in this loop round (a later one, not stopped at, no NaN/Inf): "
                 "the statistics are the round's; --loop-values all reads them");
        in.y++;
        in.h--;
    }
    /* Split: tensor list on top; values and histogram below when there is room. */
    int detail = sel->nvalues && in.h >= 12 ? in.h / 2 : 0;
    int list_h = in.h - detail;
    int per = list_h >= 4 ? 2 : 1;
    pane_scroll_into_view(p, list_h / per > 0 ? list_h / per : 1);
    strbuf sb = STRBUF_INIT;
    int y = in.y;
    for (int64_t row = p->top; row < n && y + per <= in.y + list_h; row++) {
        const tensor_rec *t = &k->tensors[idx[row]];
        int is_sel = row == p->cursor;
        strbuf_reset(&sb);
        strbuf_addf(&sb, "%-6s %s ", phase_name(t->phase), t->name);
        if (t->user_name)   /* the user's name of a model input or output */
            strbuf_addf(&sb, "(%s) ", t->user_name);
        if (t->alias_of)
            strbuf_addf(&sb, "= %s ", t->alias_of);
        fmt_shape(&sb, t->ndim, t->shape);
        strbuf_addstr(&sb, " strides ");
        fmt_shape(&sb, t->ndim, t->strides);
        strbuf_addf(&sb, " %s %s %s", t->dtype ? t->dtype : "?", t->device ? t->device : "?",
                    t->ndim == 0 || contiguous(t) ? "contiguous" : "non-contiguous");
        if (is_sel)
            grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
        grid_put(g, in.x, y, in.w, is_sel ? EL_SELECTED : EL_NORMAL, sb.buf);
        y++;
        if (per == 2) {
            strbuf_reset(&sb);
            strbuf_addstr(&sb, "  ");
            if (st(a)->view == INSP_DIFF) {
                const tensor_rec *af = partner(k, t);
                if (af)
                    diff_line(t, af, &sb);
            } else {
                if (tensor_uninitialised(a->s, k, t))   /* leftover bytes, not an input */
                    strbuf_addstr(&sb, "uninitialised (the kernel writes it first): ");
                stats_line(t, &sb);
            }
            int bad = t->has_stats && (t->stats.nan || t->stats.posinf || t->stats.neginf);
            grid_put(g, in.x, y, in.w, bad && !tensor_uninitialised(a->s, k, t) ? EL_NAN : EL_DIM, sb.buf);
            y++;
        }
    }
    strbuf_release(&sb);
    if (detail) {
        int dy = in.y + list_h;
        grid_hline(g, in.x, dy, in.w, EL_BORDER);
        rect d = {in.x, dy + 1, in.w, detail - 1};
        if (d.w >= 70) {
            int vw = d.w * 3 / 5;
            value_grid_draw(&st(a)->vg, g, (rect){d.x, d.y, vw, d.h}, sel);
            histogram(g, (rect){d.x + vw + 1, d.y, d.w - vw - 1, d.h}, sel);
        } else {
            int used = value_grid_draw(&st(a)->vg, g, (rect){d.x, d.y, d.w, d.h / 2 > 2 ? d.h / 2 : d.h}, sel);
            if (d.h - used >= 3)
                histogram(g, (rect){d.x, d.y + used, d.w, d.h - used}, sel);
        }
    }
}

const tensor_rec *pane_inspector_selected(app *a)
{
    const kernel_event *k = app_selected_kernel(a);
    int idx[MAX_ROWS];
    int n = rows_of(a, k, idx);
    int64_t c = a->panes[PANE_INSPECTOR].cursor;
    if (c < 0 || c >= n)
        return NULL;
    return &k->tensors[idx[c]];
}

/* "vs LABEL: first diff at [i, j] (n/m differ), max abs err …, max rel err …"
 * and its family, for t against the reference r. */
static void cmp_line(const char *label, const tensor_rec *t, const tensor_rec *r, strbuf *sb)
{
    tensor_compare_line(label, t, r, sb);
}

/* The selected tensor against the same kernel index, name and phase in the
 * reference session: one line. */
static void ref_line(app *a, const kernel_event *k, const tensor_rec *t, strbuf *sb)
{
    const tensor_rec *r = session_find_tensor(a->ref, k->index, t->name, t->phase);
    if (!r) {
        const event *re = session_kernel_event(a->ref, k->index);
        strbuf_addf(sb, "vs ref: no %s %s at kernel #%lld there%s%s", phase_name(t->phase), t->name,
                    (long long)k->index, re ? " (it is " : "", re ? re->u.kernel.name : "");
        if (re)
            strbuf_addch(sb, ')');
        return;
    }
    cmp_line("ref", t, r, sb);
    if (strcmp(k->name, session_kernel_event(a->ref, k->index)->u.kernel.name))
        strbuf_addstr(sb, "; kernel names differ");
}

/* The selected tensor against its attached .npy file, labelled by the
 * file's base name (the line has room for little else). */
static void npy_line(const npy_ref *nr, const tensor_rec *t, strbuf *sb)
{
    const char *base = strrchr(nr->path, '/');
    cmp_line(base && base[1] ? base + 1 : nr->path, t, &nr->t, sb);
    int same = t->ndim == nr->t.ndim;
    for (int i = 0; same && i < t->ndim; i++)
        same = t->shape[i] == nr->t.shape[i];
    if (!same) {   /* say which: the file is the one the user can re-save */
        strbuf_addstr(sb, " (tensor ");
        fmt_shape(sb, t->ndim, t->shape);
        strbuf_addstr(sb, ", file ");
        fmt_shape(sb, nr->t.ndim, nr->t.shape);
        strbuf_addch(sb, ')');
    }
}

/* The kernel against the eager program, as the runner judged it: the check
 * of the node the selected tensor holds (its after-value), else a summary of
 * the kernel's checks. Returns 1 when one departs. */
static int eager_line(const kernel_event *k, const tensor_rec *t, strbuf *sb)
{
    const eager_check *c = eager_check_of(k, t);
    size_t ndiff = 0;
    for (size_t i = 0; i < k->neager; i++)
        ndiff += k->eager[i].verdict == EAGER_DIFFERS;
    if (!c) {
        strbuf_addstr(sb, "vs eager:");
        for (size_t i = 0; i < k->neager && sb->len < 200; i++)
            strbuf_addf(sb, "%s node %s %s%s%s", i ? "," : "", k->eager[i].node,
                        eager_verdict_name(k->eager[i].verdict), k->eager[i].tensor ? " in " : "",
                        k->eager[i].tensor ? k->eager[i].tensor : "");
        return ndiff > 0;
    }
    char ma[24], mr[24], g[24], w[24];
    fmt_double(ma, sizeof ma, c->max_abs);
    fmt_double(mr, sizeof mr, c->max_rel);
    strbuf_addf(sb, "after vs eager %s: ", c->node);
    if (c->verdict == EAGER_DIFFERS && c->first >= 0) {
        fmt_double(g, sizeof g, c->got);
        fmt_double(w, sizeof w, c->want);
        strbuf_addstr(sb, "departs at ");
        fmt_index(sb, t, c->first);
        strbuf_addf(sb, " (%llu/%llu), got %s want %s, max abs err %s, max rel err %s",
                    (unsigned long long)c->differing, (unsigned long long)c->compared, g, w, ma, mr);
    } else if (c->verdict == EAGER_CLOSE) {
        strbuf_addf(sb, "close (%llu values), max abs err %s, max rel err %s", (unsigned long long)c->compared, ma,
                    mr);
    } else {
        strbuf_addf(sb, "%s%s%s", eager_verdict_name(c->verdict), c->note ? ": " : "", c->note ? c->note : "");
    }
    if (c->yardstick && !strcmp(c->yardstick, "float64") && c->err64 >= 0) {   /* judged against float64 */
        char e[24], ee[24];
        fmt_double(e, sizeof e, c->err64);
        fmt_double(ee, sizeof ee, c->eager_err64);
        strbuf_addf(sb, "; vs float64: rms err %s, eager's %s", e, ee);
    }
    return c->verdict == EAGER_DIFFERS;
}

/* ---- .npy attachments ---------------------------------------------------- */

static npy_ref *npy_slot(const app *a, int64_t kernel, const char *name, tensor_phase phase)
{
    for (size_t i = 0; i < st(a)->nrefs; i++) {
        npy_ref *r = &st(a)->refs[i];
        if (r->kernel == kernel && r->phase == phase && !strcmp(r->name, name))
            return r;
    }
    return NULL;
}

static void npy_free(npy_ref *r)
{
    free(r->name);
    free(r->path);
    arena_release(&r->ar);
}

static const npy_ref *inspector_npy_find(const app *a, int64_t kernel, const char *name, tensor_phase phase)
{
    return name ? npy_slot(a, kernel, name, phase) : NULL;
}

int inspector_npy_attach(app *a, int64_t kernel, const char *name, tensor_phase phase, const char *path,
                         strbuf *err)
{
    npy_ref nr = {kernel, NULL, NULL, phase, ARENA_INIT, {0}};
    if (tensor_file_load_npy(&nr.ar, path, 0, &nr.t, err) < 0) {
        arena_release(&nr.ar);
        return -1;
    }
    nr.name = xstrdup(name);
    nr.path = xstrdup(path);
    npy_ref *old = npy_slot(a, kernel, name, phase);
    if (old) {
        npy_free(old);
        *old = nr;
        return 0;
    }
    insp *s = st(a);
    ALLOC_GROW(s->refs, s->nrefs + 1, s->alloc);
    s->refs[s->nrefs++] = nr;
    return 0;
}

static int inspector_npy_clear(app *a, int64_t kernel, const char *name, tensor_phase phase)
{
    npy_ref *r = npy_slot(a, kernel, name, phase);
    if (!r)
        return 0;
    npy_free(r);
    *r = st(a)->refs[--st(a)->nrefs];
    return 1;
}

static const char *i_row_text(app *a, pane *p, int64_t row, strbuf *buf)
{
    (void)p;
    (void)buf;
    const kernel_event *k = app_selected_kernel(a);
    int idx[MAX_ROWS];
    int n = rows_of(a, k, idx);
    if (row < 0 || row >= n)
        return NULL;
    return k->tensors[idx[row]].name;
}

/* ---- requests and actions ------------------------------------------------ */

void inspector_show(app *a, int64_t row, const tensor_rec *t, int64_t flat)
{
    pane *p = &a->panes[PANE_INSPECTOR];
    st(a)->view = INSP_ALL;
    p->cursor = row;
    p->top = 0;
    value_grid_goto_flat(&st(a)->vg, t, flat);   /* the grid's cursor on that value */
}

int inspector_goto_element(app *a, const char *name, tensor_phase ph, const char *at, strbuf *msg)
{
    const kernel_event *k = app_selected_kernel(a);
    int64_t row = -1;
    for (size_t i = 0; k && i < k->ntensors && i < MAX_ROWS && row < 0; i++)
        if (k->tensors[i].phase == ph && !strcmp(k->tensors[i].name, name))
            row = (int64_t)i;
    if (row < 0) {
        strbuf_addf(msg, "the kernel has no %s-tensor %s in this session", phase_name(ph), name);
        return -1;
    }
    const tensor_rec *t = &k->tensors[row];
    inspector_show(a, row, t, -1);
    if (value_grid_goto(&st(a)->vg, t, at, msg) < 0)
        return -1;
    if (!t->nvalues)
        strbuf_addstr(msg, t->values_skipped ? "its values were not read in this loop round (--loop-values all "
                                               "reads them): the statistics name the element"
                                             : "its values were not kept (--values N keeps them): the statistics "
                                               "name the element");
    return 0;
}

static int i_request(app *a, pane *p, pane_request req, const char *arg)
{
    (void)arg;
    insp *s = p->priv;
    switch (req) {
    case PREQ_MOVED:   /* another tensor: its grid starts at [0, 0], default view */
        value_grid_reset(&s->vg);
        return AF_HANDLED;
    case PREQ_KERNEL_SELECTED:
        p->cursor = p->top = 0;
        value_grid_reset(&s->vg);
        return AF_HANDLED;
    case PREQ_LEFT:
        s->view = (s->view + INSP__COUNT - 1) % INSP__COUNT;
        return AF_HANDLED;
    case PREQ_RIGHT:
        s->view = (s->view + 1) % INSP__COUNT;
        return AF_HANDLED;
    default:
        return 0;
    }
}

int inspector_action_view(app *a, const char *arg)
{
    if (arg && *arg) {
        for (int i = 0; i < INSP__COUNT; i++)
            if (!strcmp(arg, view_names[i])) {
                st(a)->view = i;
                return AF_HANDLED;
            }
        app_message(a, 1, "view: expected all, before, after or diff");
        return AF_FAILED;
    }
    st(a)->view = (st(a)->view + 1) % INSP__COUNT;
    return AF_HANDLED;
}

static int64_t count_arg(const char *arg) { return arg && *arg ? atoll(arg) : 1; }
int inspector_action_vdown(app *a, const char *arg) { value_grid_scroll(&st(a)->vg, count_arg(arg), 0); return AF_HANDLED; }
int inspector_action_vup(app *a, const char *arg) { value_grid_scroll(&st(a)->vg, -count_arg(arg), 0); return AF_HANDLED; }
int inspector_action_vright(app *a, const char *arg) { value_grid_scroll(&st(a)->vg, 0, count_arg(arg)); return AF_HANDLED; }
int inspector_action_vleft(app *a, const char *arg) { value_grid_scroll(&st(a)->vg, 0, -count_arg(arg)); return AF_HANDLED; }

static const tensor_rec *selected_for(app *a, const char *what)
{
    const tensor_rec *t = pane_inspector_selected(a);
    if (!t)
        app_message(a, 1, "%s: no tensor selected in the inspector (4 focuses it; select a kernel first)", what);
    return t;
}

/* A value grid change: its message (what is shown now, or why not). */
static int grid_said(app *a, int rc, strbuf *msg)
{
    app_message(a, rc < 0, "%s", msg->buf);
    strbuf_release(msg);
    return rc < 0 ? AF_FAILED : AF_HANDLED;
}

#define GRID_ACTION(fn, what, call)                      \
    int fn(app *a, const char *arg)                      \
    {                                                    \
        const tensor_rec *t = selected_for(a, what);     \
        if (!t)                                          \
            return AF_FAILED;                            \
        strbuf msg = STRBUF_INIT;                        \
        return grid_said(a, call, &msg);                 \
    }
GRID_ACTION(inspector_action_axes, "grid-axes", value_grid_axes(&st(a)->vg, t, arg, &msg))
GRID_ACTION(inspector_action_fix, "grid-fix", value_grid_fix(&st(a)->vg, t, arg, &msg))
GRID_ACTION(inspector_action_goto, "grid-goto", value_grid_goto(&st(a)->vg, t, arg, &msg))

static int cursor_by(app *a, const char *arg, int dr, int dc)
{
    strbuf msg = STRBUF_INIT;
    return grid_said(a, value_grid_cursor_by(&st(a)->vg, pane_inspector_selected(a), arg, dr, dc, &msg), &msg);
}
int inspector_action_cdown(app *a, const char *arg) { return cursor_by(a, arg, 1, 0); }
int inspector_action_cup(app *a, const char *arg) { return cursor_by(a, arg, -1, 0); }
int inspector_action_cleft(app *a, const char *arg) { return cursor_by(a, arg, 0, -1); }
int inspector_action_cright(app *a, const char *arg) { return cursor_by(a, arg, 0, 1); }

int inspector_action_save_npy(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    const tensor_rec *t = pane_inspector_selected(a);
    if (!k || !t) {
        app_message(a, 1, "save-npy: select a tensor in the inspector (4) first");
        return AF_FAILED;
    }
    strbuf path = STRBUF_INIT, note = STRBUF_INIT, err = STRBUF_INIT;
    if (arg && *arg)
        strbuf_addstr(&path, arg);
    else   /* k6_buf15_after.npy: the kernel, the tensor and its phase */
        strbuf_addf(&path, "k%lld_%s_%s.npy", (long long)k->index, t->name, phase_name(t->phase));
    int rc = tensor_file_save_npy(t, path.buf, &note, &err);
    if (rc < 0)
        app_message(a, 1, "save-npy: %s", err.buf);
    else
        app_message(a, 0, "save-npy: %s %s of kernel #%lld -> %s: %s%s", phase_name(t->phase), t->name,
                    (long long)k->index, path.buf, note.buf,
                    tensor_uninitialised(a->s, k, t) ? " (uninitialised: the kernel writes it first)" : "");
    strbuf_release(&path);
    strbuf_release(&note);
    strbuf_release(&err);
    return rc < 0 ? AF_FAILED : AF_HANDLED;
}

int inspector_action_ref_npy(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    const tensor_rec *t = pane_inspector_selected(a);
    if (!k || !t) {
        app_message(a, 1, "ref-npy: select a tensor in the inspector (4) first");
        return AF_HANDLED | AF_FAILED;
    }
    if (!arg || !*arg) {
        int had = inspector_npy_clear(a, k->index, t->name, t->phase);
        app_message(a, 0, "ref-npy: %s %s at kernel #%lld %s", phase_name(t->phase), t->name, (long long)k->index,
                    had ? "has no .npy reference now" : "had no .npy reference; ref-npy PATH attaches one");
        return AF_HANDLED;
    }
    strbuf err = STRBUF_INIT;
    if (inspector_npy_attach(a, k->index, t->name, t->phase, arg, &err) < 0) {
        app_message(a, 1, "ref-npy: %s", err.buf);
        strbuf_release(&err);
        return AF_HANDLED | AF_FAILED;
    }
    strbuf_release(&err);
    app_message(a, 0, "ref-npy: %s is the reference of %s %s at kernel #%lld", arg, phase_name(t->phase), t->name,
                (long long)k->index);
    return AF_HANDLED;
}

/* The selected tensor's node value from the eager reference (its folder's
 * nodes/<node>.npy, or record/<tensor>.npy under the compiler's record) as its .npy reference; one at a time, so no more than one
 * node's values are in memory. */
int inspector_action_ref_eager(app *a, const char *arg)
{
    (void)arg;
    const kernel_event *k = app_selected_kernel(a);
    const tensor_rec *t = pane_inspector_selected(a);
    if (!k || !t) {
        app_message(a, 1, "ref-eager: select a tensor in the inspector (4) first");
        return AF_HANDLED | AF_FAILED;
    }
    const eager_check *c = eager_check_of(k, t);
    if (!a->s->eager.dir || !c) {
        app_message(a, 1, "ref-eager: %s", !a->s->eager.present ? "this run has no eager reference (run with --eager "
                                                                  "PROGRAM.pt2)"
                                           : "the eager reference has no node held in this tensor (see the vs eager line)");
        return AF_HANDLED | AF_FAILED;
    }
    insp *s = st(a);
    if (s->eager_ref.name)   /* the previous one goes */
        inspector_npy_clear(a, s->eager_ref.kernel, s->eager_ref.name, s->eager_ref.phase);
    strbuf path = STRBUF_INIT, err = STRBUF_INIT;
    if (a->s->eager.map && !strcmp(a->s->eager.map, "compiler") && c->tensor)   /* the record's, per buffer */
        strbuf_addf(&path, "%s/record/%s.npy", a->s->eager.dir, c->tensor);
    else
        strbuf_addf(&path, "%s/nodes/%s.npy", a->s->eager.dir, c->node);
    int rc = inspector_npy_attach(a, k->index, t->name, PHASE_AFTER, path.buf, &err);
    if (rc < 0)
        app_message(a, 1, "ref-eager: %s", err.buf);
    else
        app_message(a, 0, "ref-eager: after %s at kernel #%lld against eager node %s (%s)", t->name,
                    (long long)k->index, c->node, path.buf);
    free(s->eager_ref.name);
    s->eager_ref.name = rc < 0 ? NULL : xstrdup(t->name);
    s->eager_ref.kernel = k->index;
    s->eager_ref.phase = PHASE_AFTER;
    strbuf_release(&path);
    strbuf_release(&err);
    return rc < 0 ? AF_HANDLED | AF_FAILED : AF_HANDLED;
}

const pane_ops pane_inspector_ops = {
    .name = "inspector",
    .search_in = "kernels",   /* its rows change with the kernel: a search finds kernels */
    .init = i_init,
    .release = i_release,
    .rows = i_rows,
    .render = i_render,
    .row_text = i_row_text,
    .request = i_request,
};
