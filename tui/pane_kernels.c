/* pane_kernels.c — the kernel list: index, name, where it comes from, kind,
 * status, the kernel's own time (dev us: device_us, when the session has it),
 * the hook-to-hook duration (dur us) and anomaly marks of every launch, in
 * order, grouped into
 * the model's layers when the session knows them (kernel_groups.h). Only the
 * visible rows are formatted, so a million-kernel session draws as fast as a
 * ten-kernel one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pane_kernels.h"
#include "compat.h"
#include "kernel_folds.h"
#include "kernel_groups.h"
#include "live.h"
#include "pane_util.h"
#include "stack_trace.h"

static int64_t k_rows(app *a, pane *p)
{
    (void)p;
    return (int64_t)a->s->nkernels;
}

/* "ERR", "NaN", "+Inf", "-Inf", "NaN+Inf" from the after-tensors' stats
 * ("mask" for -Inf alone, as an attention mask writes; "=eager" for
 * infinities the eager program computes too), else "DIV" when it departs
 * from the eager program, else "". */
static const char *anomaly(const kernel_event *k)
{
    int eagers;
    int held = kernel_nonfinite_own(k, &eagers);
    int inf = held & (NONFIN_POSINF | NONFIN_NEGINF);
    if (k->status == KSTAT_ERROR)
        return "ERR";
    if ((held & NONFIN_NAN) && inf) return "NaN+Inf";
    if (held & NONFIN_NAN) return "NaN";
    if (inf == (NONFIN_POSINF | NONFIN_NEGINF)) return "+-Inf";
    if (held & NONFIN_POSINF) return "+Inf";
    if (nonfinite_is_mask(held)) return "mask";
    if (eagers && !held) return "=eager";
    if (k->status == KSTAT_NAN)
        return "NaN?";
    for (size_t i = 0; i < k->neager; i++)   /* departs from the eager program (--eager) */
        if (k->eager[i].verdict == EAGER_DIFFERS)
            return "DIV";
    return "";
}

/* With --eager: "-eager" for a finished kernel none of whose nodes was found in an output. */
static const char *uncompared(const session *s, const kernel_event *k)
{
    if (!s->eager.present || k->status != KSTAT_OK)
        return "";
    for (size_t i = 0; i < k->neager; i++)
        if (k->eager[i].verdict == EAGER_CLOSE || k->eager[i].verdict == EAGER_DIFFERS)
            return "";
    return "-eager";
}

static int status_el(const kernel_event *k)
{
    switch (k->status) {
    case KSTAT_OK: return EL_OK;
    case KSTAT_NAN: {
        int eagers, own = kernel_nonfinite_own(k, &eagers);
        return nonfinite_is_mask(own) || (eagers && !own) ? EL_OK : EL_NAN;
    }
    case KSTAT_ERROR: return EL_ERROR;
    default: return EL_RUNNING;
    }
}

/* The list's own state (its pane's priv): how it groups, and the groups. */
typedef struct {
    int mode;                  /* kg_mode */
    kgroups *g;                /* built as the kernels arrive */
    kfolds *f;                 /* the fold events, placed before their kernels */
    int64_t *cum;              /* display lines of the folds before each fold */
    size_t cum_cap;
    /* a fold's line selected: fold fsel (-1 none), its header (frow -1) or
     * its kernel frow; stands while the cursor stays at fcur */
    int64_t fsel, frow, fcur;
} klist;

static void *k_init(app *a)
{
    (void)a;
    klist *k = xcalloc(1, sizeof *k);
    k->mode = KG_LAYER;
    k->g = kgroups_new();
    k->f = kfolds_new();
    k->fsel = -1;
    return k;
}

static void k_release(void *priv)
{
    klist *k = priv;
    if (!k)
        return;
    kgroups_free(k->g);
    kfolds_free(k->f);
    free(k->cum);
    free(k);
}

static klist *kl(const app *a) { return a->panes[PANE_KERNELS].priv; }

/* The groups when the list is grouped: asked for, and the session knows
 * where its kernels come from; else NULL. */
static kgroups *groups(app *a)
{
    klist *k = kl(a);
    if (!k || k->mode == KG_NONE || !a->s->prov.ncalls)
        return NULL;
    kgroups_sync(k->g, a->s, (kg_mode)k->mode);
    return kgroups_count(k->g) ? k->g : NULL;
}

/* ---- the display with fold events: each fold's lines (its header, and its
 * kernels when open) come just before the line that shows the kernel after
 * it; the rest are the base lines (kernels, or the groups' lines). ---- */

typedef struct {
    app *a;
    klist *k;
    kgroups *g;                /* NULL: one base line per kernel */
    int64_t nk;
    size_t nf;
} kdisp;

typedef struct {
    int64_t fold, row;         /* a fold's line: fold >= 0, row -1 its header or its kernel */
    int64_t base;              /* else the base line */
} kitem;

static int64_t base_lines(const kdisp *d) { return d->g ? kgroups_lines(d->g) : d->nk; }
static int64_t base_line(const kdisp *d, int64_t k)
{
    if (k >= d->nk)
        return base_lines(d);
    return d->g ? kgroups_line_of(d->g, k) : k;
}
/* A fold inside a folded group (not at its start) shows no line: the group's header stands for it. */
static int fold_hidden(const kdisp *d, const kfold *f)
{
    if (!d->g || f->at >= d->nk)
        return 0;
    const kgroup *x = kgroups_at(d->g, kgroups_of(d->g, f->at));
    return x->folded && f->at != x->first;
}

static int64_t fold_lines(const kdisp *d, const kfold *f)
{
    return fold_hidden(d, f) ? 0 : 1 + (f->open ? (int64_t)f->f->nkernels : 0);
}

/* The selection, where the inspector finds it (app_selected_fold). */
static void publish(const kdisp *d)
{
    app *a = d->a;
    a->fold_sel = d->k->fsel >= 0 ? kfolds_at(d->k->f, (size_t)d->k->fsel)->f : NULL;
    a->fold_row = d->k->frow;
    a->fold_cursor = d->k->fcur;
}

/* The display over a's session: folds synced, their line sums made, a stale fold selection dropped. */
static kdisp disp(app *a)
{
    klist *k = kl(a);
    kdisp d = {a, k, groups(a), (int64_t)a->s->nkernels, 0};
    kfolds_sync(k->f, a->s);
    d.nf = kfolds_count(k->f);
    if (d.nf + 1 > k->cum_cap) {
        k->cum_cap = (d.nf + 1) * 2;
        k->cum = xrealloc(k->cum, k->cum_cap * sizeof *k->cum);
    }
    k->cum[0] = 0;
    for (size_t i = 0; i < d.nf; i++)
        k->cum[i + 1] = k->cum[i] + fold_lines(&d, kfolds_at(k->f, i));
    if (k->fsel >= (int64_t)d.nf || (k->fsel >= 0 && a->panes[PANE_KERNELS].cursor != k->fcur) ||
        (k->fsel >= 0 && fold_hidden(&d, kfolds_at(k->f, (size_t)k->fsel))))
        k->fsel = -1;   /* the cursor moved on, a restart took the fold, or its group folded over it */
    if (k->fsel >= 0 && (!kfolds_at(k->f, (size_t)k->fsel)->open ||
                         k->frow >= (int64_t)kfolds_at(k->f, (size_t)k->fsel)->f->nkernels))
        k->frow = -1;
    publish(&d);
    return d;
}

static int64_t fold_start(const kdisp *d, size_t i)
{
    return base_line(d, kfolds_at(d->k->f, i)->at) + d->k->cum[i];
}

static int64_t disp_lines(const kdisp *d) { return base_lines(d) + d->k->cum[d->nf]; }

static kitem disp_item(const kdisp *d, int64_t l)
{
    size_t lo = 0, hi = d->nf;   /* folds starting at or before l: [0, lo) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (fold_start(d, mid) <= l)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo) {
        int64_t s = fold_start(d, lo - 1);
        if (l < s + fold_lines(d, kfolds_at(d->k->f, lo - 1)))
            return (kitem){(int64_t)lo - 1, l - s - 1, -1};
    }
    return (kitem){-1, -1, l - d->k->cum[lo]};
}

/* The display line of kernel position c (not a fold's line). */
static int64_t kernel_line(const kdisp *d, int64_t c)
{
    int64_t bl = base_line(d, c);
    size_t lo = 0, hi = d->nf;   /* folds whose base line is at or before bl */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (base_line(d, kfolds_at(d->k->f, mid)->at) <= bl)
            lo = mid + 1;
        else
            hi = mid;
    }
    return bl + d->k->cum[lo];
}

static int64_t sel_line(const kdisp *d)
{
    if (d->k->fsel >= 0)
        return fold_start(d, (size_t)d->k->fsel) + 1 + d->k->frow;
    return kernel_line(d, d->a->panes[PANE_KERNELS].cursor);
}

/* A base line's kernel: the kernel, or the first of the group whose header
 * it is; *open_header when that group is open (its header is no stop). */
static int64_t base_kernel(const kdisp *d, int64_t b, int *open_header)
{
    *open_header = 0;
    if (!d->g)
        return b;
    size_t gi;
    int64_t k;
    kgroups_item(d->g, b, &gi, &k);
    if (k >= 0)
        return k;
    const kgroup *x = kgroups_at(d->g, gi);
    *open_header = !x->folded;
    return x->first;
}

/* Puts the selection on display line l. */
static void select_line(kdisp *d, int64_t l)
{
    pane *p = &d->a->panes[PANE_KERNELS];
    kitem it = disp_item(d, l);
    if (it.fold >= 0) {
        int64_t at = kfolds_at(d->k->f, (size_t)it.fold)->at;
        p->cursor = at < d->nk ? at : d->nk - 1;
        d->k->fsel = it.fold;
        d->k->frow = it.row;
        d->k->fcur = p->cursor;
        publish(d);
        return;
    }
    int oh;
    d->k->fsel = -1;
    publish(d);
    p->cursor = base_kernel(d, it.base, &oh);
}

static int open_header(const kdisp *d, int64_t l)
{
    kitem it = disp_item(d, l);
    int oh = 0;
    if (it.fold < 0)
        base_kernel(d, it.base, &oh);
    return oh;
}

/* Moves n lines (a folded group is one line, an open group's header no
 * stop); a move as far as the first or the last kernel (top, bottom) goes
 * to the first or last line. */
static void move_lines(kdisp *d, int64_t n)
{
    int64_t c = d->a->panes[PANE_KERNELS].cursor, total = disp_lines(d), dir = n < 0 ? -1 : 1;
    int64_t t = sel_line(d) + n;
    if (n <= -c || t < 0)
        t = 0;
    if (n >= d->nk - 1 - c || t >= total)
        t = total - 1;
    for (int guard = 0; open_header(d, t) && guard < 2; ) {
        t += dir;
        if (t < 0 || t >= total) {   /* past the end: the other way */
            dir = -dir;
            t += 2 * dir;
            guard++;
        }
    }
    select_line(d, t < 0 ? 0 : t);
}

/* Columns of a kernel row. */
typedef struct {
    int iw, nw, ww, show_dur;   /* index, name and `from` widths; duration shown */
    int show_dev;               /* the kernel's own time shown */
    int64_t running;
} kcols;

/* A microsecond figure in 10 columns, "-" when unknown. */
static void fmt_us(char *buf, size_t n, double us)
{
    if (us >= 0)
        snprintf(buf, n, "%10.1f", us);
    else
        snprintf(buf, n, "%10s", "-");
}

static void kernel_row(app *a, grid *g, rect in, int y, int64_t row, int sel, int indent, const kcols *c)
{
    const kernel_event *k = &a->s->kernels[row]->u.kernel;
    int base = sel ? EL_SELECTED : EL_NORMAL;
    if (sel)
        grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
    char mark = row == c->running ? '>' : app_breaks_at(a, k) ? 'B' : ' ';
    char dur[16], dev[16];
    fmt_us(dur, sizeof dur, k->duration_us);
    fmt_us(dev, sizeof dev, k->device_us);
    int x = in.x;
    x += grid_printf(g, x, y, in.x + in.w - x, base, "%c%*lld ", mark, c->iw, (long long)k->index);
    int nx = x;
    grid_put(g, x + indent, y, c->nw - indent,
             (sel || !a->search[0] || !strstr(k->name, a->search)) ? base : EL_MATCH, k->name);
    int nl = indent + (int)strlen(k->name);
    if (k->iteration >= 0 && nl + 2 < c->nw)   /* its while_loop round: NAME@K, as --break-on names it */
        nl += grid_printf(g, x + nl, y, c->nw - nl, sel ? base : EL_HEADER, "@%lld", (long long)k->iteration);
    if (k->branch && nl + 2 < c->nw)   /* the subgraph it ran in, after the name */
        grid_printf(g, x + nl, y, c->nw - nl, sel ? base : EL_HEADER, " @%s", k->branch);
    x = nx + c->nw + 1;
    if (c->ww) {   /* where it comes from; a long file name keeps its end and the line */
        strbuf w = STRBUF_INIT;
        kernel_call_where(session_kernel_call(a->s, k), &w, 256);
        int el = sel ? base : EL_DIM;
        if ((int)w.len > c->ww && w.buf[0] != '[') {
            grid_set(g, x, y, grid_ld(g, LD_ELLIPSIS), el);
            grid_put(g, x + 1, y, c->ww - 1, el, w.buf + w.len - (size_t)(c->ww - 1));
        } else {
            grid_put(g, x, y, c->ww, el, w.buf);
        }
        strbuf_release(&w);
        x += c->ww + 1;
    }
    x += grid_printf(g, x, y, in.x + in.w - x, base, "%-6s ", kernel_type_name(k->type));
    /* the kernel the runner was in when it died: never finished, never "pending" */
    const runner_exit_event *ex = session_runner_exit(a->s);
    int died = ex && k->index == session_exit_kernel(a->s);
    const char *status = kernel_status_name(k->status), *an = anomaly(k);
    if (died) {
        status = !strcmp(ex->how, "killed") || !strcmp(ex->how, "timeout") || !strcmp(ex->how, "lost") ? ex->how
                                                                                                   : "died";
        an = !strcmp(ex->how, "signal") ? signal_name(ex->signal) : !strcmp(ex->how, "exited") ? "EXIT" : "";
    }
    grid_printf(g, x, y, in.x + in.w - x, sel ? base : died ? EL_ERROR : status_el(k), "%-7s", status);
    x += 7;
    if (c->show_dev)
        x += grid_printf(g, x, y, in.x + in.w - x, base, " %s", dev);
    if (c->show_dur)
        x += grid_printf(g, x, y, in.x + in.w - x, base, " %s", dur);
    int flagged = *an != 0 && strcmp(an, "=eager");   /* the eager program's own infinities: no anomaly */
    if (!flagged && !died)
        an = uncompared(a->s, k);
    grid_printf(g, x, y, in.x + in.w - x, sel ? base : died ? EL_ERROR : (flagged ? EL_NAN : base), " %s", an);
}

/* A group's line: fold mark, key, size, and its first anomaly when folded. */
static void group_row(app *a, grid *g, rect in, int y, const kgroup *x, int sel)
{
    int base = sel ? EL_SELECTED : EL_HEADER;
    if (sel)
        grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
    char extra[96] = "", span[48];
    if (x->folded) {
        int64_t an = app_next_anomaly(a, x->first - 1);
        if (an >= 0 && an < x->first + x->n)
            snprintf(extra, sizeof extra, "  %s at #%lld", anomaly(&a->s->kernels[an]->u.kernel),
                     (long long)a->s->kernels[an]->u.kernel.index);
    }
    /* kernel indices, not list positions: a folded loop leaves gaps between them */
    long long i0 = (long long)a->s->kernels[x->first]->u.kernel.index;
    long long i1 = (long long)a->s->kernels[x->first + x->n - 1]->u.kernel.index;
    if (x->n == 1)
        snprintf(span, sizeof span, "#%lld", i0);
    else
        snprintf(span, sizeof span, "#%lld-%lld", i0, i1);
    grid_printf(g, in.x, y, in.w, base, "[%c] %s  (%lld kernel%s, %s)%s", x->folded ? '+' : '-',
                x->key[0] ? x->key : "(no weights)", (long long)x->n, x->n == 1 ? "" : "s", span, extra);
}

/* "12.5 us" / "12.5 ms" into buf. */
static const char *fmt_time(char *buf, size_t n, double us)
{
    if (us < 0)
        snprintf(buf, n, "time unknown");
    else if (us >= 1e4)
        snprintf(buf, n, "%.1f ms", us / 1e3);
    else
        snprintf(buf, n, "%.1f us", us);
    return buf;
}

/* A fold's header: what was folded, and which launches. */
static void fold_row(grid *g, rect in, int y, const kfold *x, int sel)
{
    const fold_event *f = x->f;
    int el = sel ? EL_SELECTED : EL_HEADER;
    if (sel)
        grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
    char t[32];
    grid_printf(g, in.x, y, in.w, el, "[%c] iterations %lld..%lld of %s folded: %llu launches of %zu kernel%s, %s  (#%lld-%lld)",
                x->open ? '-' : '+', (long long)f->from, (long long)f->to, f->loop, (unsigned long long)f->launches,
                f->nkernels, f->nkernels == 1 ? "" : "s", fmt_time(t, sizeof t, f->duration_us),
                (long long)f->first_kernel, (long long)f->last_kernel);
}

/* The last after-tensor's ranges of a folded kernel into buf ("" when none). */
static void fold_tensor_text(const fold_kernel *fk, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; i < fk->ntensors; i++)
        if (fk->tensors[fk->ntensors - 1 - i].phase == PHASE_AFTER) {   /* the last: the kernel's output */
            const fold_tensor *t = &fk->tensors[fk->ntensors - 1 - i];
            snprintf(buf, n, "%s [%.4g, %.4g] mean %.4g..%.4g", t->name, t->min, t->max, t->mean_lo, t->mean_hi);
            return;
        }
}

/* One kernel of an open fold: name, launches, time range, its output's ranges. */
static void fold_kernel_row(app *a, grid *g, rect in, int y, const fold_kernel *fk, int sel, int nw)
{
    int base = sel ? EL_SELECTED : EL_NORMAL;
    if (sel)
        grid_fill(g, in.x, y, in.w, 1, ' ', EL_SELECTED);
    int x = in.x + 4;
    int w = nw > 12 ? nw - 3 : 9;
    grid_put(g, x, y, w, (sel || !a->search[0] || !strstr(fk->name, a->search)) ? base : EL_MATCH, fk->name);
    x += w + 1;
    char t0[32], t1[32], sum[32], ten[160];
    fold_tensor_text(fk, ten, sizeof ten);
    if (x >= in.x + in.w)
        return;
    if (fk->duration_min_us >= 0)
        grid_printf(g, x, y, in.x + in.w - x, base, "x%llu  %s..%s (sum %s)  %s", (unsigned long long)fk->launches,
                    fmt_time(t0, sizeof t0, fk->duration_min_us), fmt_time(t1, sizeof t1, fk->duration_max_us),
                    fmt_time(sum, sizeof sum, fk->duration_us), ten);
    else
        grid_printf(g, x, y, in.x + in.w - x, base, "x%llu  %s", (unsigned long long)fk->launches, ten);
}

/* The list when the session has fold events (kdisp): the same rows, the folds among them. */
static void render_with_folds(app *a, pane *p, grid *g, rect in, int rows, kdisp *d, const kcols *c)
{
    if (d->g && d->k->fsel < 0) {   /* something put the cursor inside a folded group: show it */
        size_t cg = kgroups_of(d->g, p->cursor);
        const kgroup *cx = kgroups_at(d->g, cg);
        if (cx->folded && p->cursor != cx->first)
            kgroups_fold(d->g, cg, 0);
    }
    int64_t total = disp_lines(d), cl = sel_line(d);
    p->page = rows > 0 ? rows : 1;
    if (cl < p->top)
        p->top = cl;
    if (cl >= p->top + rows)
        p->top = cl - rows + 1;
    if (p->top > total - rows)
        p->top = total - rows > 0 ? total - rows : 0;
    size_t cg = d->g ? kgroups_of(d->g, p->cursor) : 0;
    int on_kernel = d->k->fsel < 0;
    for (int i = 0; i < rows && p->top + i < total; i++) {
        int y = in.y + 1 + i;
        kitem it = disp_item(d, p->top + i);
        if (it.fold >= 0) {
            const kfold *x = kfolds_at(d->k->f, (size_t)it.fold);
            int sel = d->k->fsel == it.fold && d->k->frow == it.row;
            if (it.row < 0)
                fold_row(g, in, y, x, sel);
            else
                fold_kernel_row(a, g, in, y, &x->f->kernels[it.row], sel, c->nw);
            continue;
        }
        if (!d->g) {
            kernel_row(a, g, in, y, it.base, on_kernel && it.base == p->cursor, 0, c);
            continue;
        }
        size_t gi;
        int64_t k;
        kgroups_item(d->g, it.base, &gi, &k);
        const kgroup *x = kgroups_at(d->g, gi);
        if (k < 0)
            group_row(a, g, in, y, x, on_kernel && x->folded && gi == cg);
        else
            kernel_row(a, g, in, y, k, on_kernel && k == p->cursor, 2, c);
    }
}

static void k_render(app *a, pane *p, grid *g, int focused)
{
    kgroups *kg = groups(a);
    char title[256], mode[96] = "", by[32] = "";
    if (a->s->mode) {
        const char *lim = app_mode_limits(a->s->mode);
        snprintf(mode, sizeof mode, " [%s%s%s]", a->s->mode, *lim ? ": " : "", lim);
    }
    if (kg)
        snprintf(by, sizeof by, " by %s", kg_mode_name((kg_mode)kl(a)->mode));
    char hidden[80] = "";   /* launches this run's mode could not see (subgraphs, proxy calls) */
    if (a->s->hidden_kernels > 0)
        snprintf(hidden, sizeof hidden, " +%lld hidden", (long long)a->s->hidden_kernels);
    kdisp d = disp(a);
    uint64_t folded = kfolds_launches(d.k->f, a->s);   /* repeated loop iterations: counted, not kept */
    if (folded)
        snprintf(hidden + strlen(hidden), sizeof hidden - strlen(hidden), " +%llu folded", (unsigned long long)folded);
    char ended[192];
    const char *exit_line = pane_exit_what(a->s, ended, sizeof ended);
    snprintf(title, sizeof title, "kernels (%zu%s)%s%s%s%s%s", a->s->nkernels, hidden, by, mode,
             a->follow ? "" : " [follow off]", exit_line ? " - " : "", exit_line ? exit_line : "");
    rect in = pane_frame(g, p, focused, title);
    if (!a->s->nkernels) {
        pane_empty(g, in, a->mode == MODE_LIVE ? "no kernel yet: press s to step, c to continue"
                                               : "this session has no kernel events");
        return;
    }
    kcols c = {3, 0, 0, 1, 0, live_current_kernel(a)};
    /* the widest index is the last kernel's (a folded loop leaves gaps: not nkernels - 1) */
    for (int64_t n = a->s->kernels[a->s->nkernels - 1]->u.kernel.index; n >= 1000; n /= 10)
        c.iw++;
    /* dev us only for sessions that have it: the first, the last and the
     * selected kernel decide, not a scan of every kernel */
    int64_t nk = (int64_t)a->s->nkernels, probe[3] = {0, nk - 1, p->cursor};
    for (int i = 0; i < 3; i++)
        if (probe[i] >= 0 && probe[i] < nk && a->s->kernels[probe[i]]->u.kernel.device_us >= 0)
            c.show_dev = 1;
    /* columns: mark idx name [from] kind status [dev] dur marks; narrow panes drop dur, then dev;
     * with dev us beside it, dur us also gives way to the `from` column (dev us is the kernel's time) */
    int fixed = 1 + c.iw + 1 + 1 + 6 + 1 + 7 + (1 + 10) * (1 + c.show_dev) + 1 + 7;
    c.nw = in.w - fixed;
    if (c.nw < 12 || (c.show_dev && a->s->prov.ncalls && c.nw < 30)) { c.nw += 11; c.show_dur = 0; }
    if (c.nw < 12 && c.show_dev) { c.nw += 11; c.show_dev = 0; }
    if (a->s->prov.ncalls && c.nw >= 30) {
        c.ww = c.nw / 3 > 28 ? 28 : c.nw / 3;
        c.nw -= c.ww + 1;
    }
    if (c.nw < 6) c.nw = 6;
    /* the time labels end over their figures (dur us alone sits one to the left, as it always did) */
    char hdr[256], times[32];
    snprintf(times, sizeof times, "%s%s", c.show_dev ? "     dev us" : "",
             !c.show_dur ? "" : c.show_dev ? "     dur us" : "    dur us");
    if (c.ww)
        snprintf(hdr, sizeof hdr, " %*s %-*s %-*s %-6s %-7s%s %s", c.iw, "#", c.nw, "name", c.ww, "from", "kind",
                 "status", times, "marks");
    else
        snprintf(hdr, sizeof hdr, " %*s %-*s %-6s %-7s%s %s", c.iw, "#", c.nw, "name", "kind", "status", times,
                 "marks");
    grid_put(g, in.x, in.y, in.w, EL_HEADER, hdr);
    int rows = in.h - 1;
    if (d.nf) {
        render_with_folds(a, p, g, in, rows, &d, &c);
        return;
    }
    if (!kg) {
        pane_scroll_into_view(p, rows);
        for (int i = 0; i < rows && p->top + i < (int64_t)a->s->nkernels; i++)
            kernel_row(a, g, in, in.y + 1 + i, p->top + i, p->top + i == p->cursor, 0, &c);
        int64_t below = (int64_t)a->s->nkernels - p->top;   /* the row after the last kernel, when shown */
        if (a->s->hidden_kernels > 0 && a->s->hidden_why && below >= 0 && below < rows)
            grid_printf(g, in.x, in.y + 1 + (int)below, in.w, EL_HEADER, " hidden: %s", a->s->hidden_why);
        return;
    }
    /* grouped: p->top counts display lines; the cursor stays a kernel */
    size_t cg = kgroups_of(kg, p->cursor);
    const kgroup *cx = kgroups_at(kg, cg);
    if (cx->folded && p->cursor != cx->first)
        kgroups_fold(kg, cg, 0);   /* something put the cursor inside a folded group: show it */
    int64_t total = kgroups_lines(kg), cl = kgroups_line_of(kg, p->cursor);
    p->page = rows > 0 ? rows : 1;
    if (cl < p->top)
        p->top = cl;
    if (cl >= p->top + rows)
        p->top = cl - rows + 1;
    if (p->top > total - rows)
        p->top = total - rows > 0 ? total - rows : 0;
    for (int i = 0; i < rows && p->top + i < total; i++) {
        size_t gi;
        int64_t k;
        kgroups_item(kg, p->top + i, &gi, &k);
        const kgroup *x = kgroups_at(kg, gi);
        if (k < 0)
            group_row(a, g, in, in.y + 1 + i, x, x->folded && gi == cg);
        else
            kernel_row(a, g, in, in.y + 1 + i, k, k == p->cursor, 2, &c);
    }
}

/* fold, fold-all: how 1 fold, -1 toggle, 2 all (fold when any is open, else open all). */
static int fold(app *a, int how, const char *what)
{
    kdisp d = disp(a);
    klist *kk = kl(a);
    if (kk->fsel >= 0 && how != 2) {   /* on a folded loop's line: open or close it */
        kfold *x = kfolds_at(kk->f, (size_t)kk->fsel);
        x->open = how < 0 ? !x->open : !how;
        kk->frow = -1;
        publish(&d);
        return AF_HANDLED;
    }
    if (how == 2 && d.nf) {   /* the folded loops too: close them when any is open, else open them all */
        int any_open = 0;
        for (size_t i = 0; i < d.nf; i++)
            any_open |= kfolds_at(kk->f, i)->open;
        for (size_t i = 0; i < d.nf; i++)
            kfolds_at(kk->f, i)->open = !any_open;
        kk->frow = -1;
        publish(&d);
        if (!d.g)
            return AF_HANDLED;
    }
    kgroups *g = groups(a);
    if (!g && d.nf) {
        app_message(a, 1, "%s: put the cursor on a folded loop's line ([+] iterations ...) to open it", what);
        return AF_FAILED;
    }
    if (!g) {
        app_message(a, 1, "%s: the kernel list is not grouped (group-by layer or line; it needs the package's "
                          "provenance: aotidbg info PKG --calls)", what);
        return AF_FAILED;
    }
    pane *p = &a->panes[PANE_KERNELS];
    size_t i = kgroups_of(g, p->cursor);
    if (how == 2) {
        int any_open = 0;
        for (size_t j = 0; j < kgroups_count(g) && !any_open; j++)
            any_open = !kgroups_at(g, j)->folded;
        kgroups_fold_all(g, any_open);
    } else {
        kgroups_fold(g, i, how < 0 ? !kgroups_at(g, i)->folded : how);
    }
    const kgroup *x = kgroups_at(g, i);
    if (x->folded && p->cursor != x->first) {   /* the header stands for the group: its first kernel */
        p->cursor = x->first;
        app_broadcast(a, PREQ_KERNEL_SELECTED);
    }
    disp(a);   /* a fold's line under a group folded now is no selection */
    return AF_HANDLED;
}

int kernels_goto_folded(app *a, int64_t index)
{
    kdisp d = disp(a);
    int64_t i = kfolds_find_index(d.k->f, index);
    if (i < 0)
        return 0;
    kfold *x = kfolds_at(d.k->f, (size_t)i);
    pane *p = &a->panes[PANE_KERNELS];
    x->open = 1;
    disp(a);   /* its lines, now open */
    p->cursor = x->at < d.nk ? x->at : d.nk - 1;
    d.k->fsel = i;
    d.k->fcur = p->cursor;
    d.k->frow = x->f->nkernels ? (index - x->f->first_kernel) % (int64_t)x->f->nkernels : -1;
    publish(&d);
    a->focus = PANE_KERNELS;
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    app_message(a, 0, "kernel %lld: in iterations %lld..%lld of %s, folded (%s)", (long long)index,
                (long long)x->f->from, (long long)x->f->to, x->f->loop,
                d.k->frow >= 0 ? x->f->kernels[d.k->frow].name : "?");
    return 1;
}

int kernels_action_fold(app *a, const char *arg) { (void)arg; return fold(a, -1, "fold"); }
int kernels_action_fold_all(app *a, const char *arg) { (void)arg; return fold(a, 2, "fold-all"); }

int kernels_action_group_by(app *a, const char *arg)
{
    klist *k = kl(a);
    int m = arg && *arg ? kg_mode_from_name(arg) : (k->mode + 1) % KG__COUNT;
    if (m < 0) {
        app_message(a, 1, "group-by: layer, line or none, not '%s'", arg);
        return AF_FAILED;
    }
    k->mode = m;
    if (!a->s->prov.ncalls && m != KG_NONE)
        app_message(a, 1, "group-by %s: this session has no provenance to group by (aotidbg info PKG --calls)",
                    kg_mode_name((kg_mode)m));
    else
        app_message(a, 0, "kernel list grouped by %s", kg_mode_name((kg_mode)m));
    return AF_HANDLED;
}

static const char *k_row_text(app *a, pane *p, int64_t row, strbuf *buf)
{
    (void)p;
    (void)buf;
    if (row < 0 || (size_t)row >= a->s->nkernels)
        return NULL;
    return a->s->kernels[row]->u.kernel.name;
}

/* The first fold before kernel position r whose kernels' names hold pat
 * (it is selected, opened, on that kernel): its position, else -1. Folds
 * hidden in a folded group are looked at too (their group opens). */
static int64_t find_in_folds(kdisp *d, int64_t r, const char *pat, int dir)
{
    for (size_t i = 0; i < d->nf; i++) {   /* folds are few: one per entry into a loop */
        size_t fi = dir > 0 ? i : d->nf - 1 - i;
        kfold *x = kfolds_at(d->k->f, fi);
        if (x->at != r)
            continue;
        for (size_t j = 0; j < x->f->nkernels; j++)
            if (strstr(x->f->kernels[j].name, pat)) {
                int64_t c = r < d->nk ? r : d->nk - 1;
                if (d->g && c >= 0)
                    kgroups_fold(d->g, kgroups_of(d->g, c), 0);
                x->open = 1;
                d->k->fsel = (int64_t)fi;
                d->k->frow = (int64_t)j;
                d->k->fcur = c;
                publish(d);
                return c;
            }
    }
    return -1;
}

/* Kernel names compared as they are: a million rows in milliseconds. With
 * fold events, their kernels' names too, each fold where the list shows it
 * (before the kernel after it). */
static int64_t k_find(app *a, pane *p, const char *pat, int64_t from, int dir)
{
    int64_t n = (int64_t)a->s->nkernels;
    event **k = a->s->kernels;
    kdisp d = disp(a);
    int skip_folds_at = -1;   /* on a fold's line: its own position's folds are behind (forward) */
    if (d.k->fsel >= 0 && dir > 0 && from == p->cursor + 1) {
        from = p->cursor;
        skip_folds_at = 1;
    }
    for (int64_t i = 0, r = from; i < n; i++, r += dir) {
        if (r >= n)
            r = 0;
        else if (r < 0)
            r = n - 1;
        int64_t f;
        if (d.nf && dir > 0 && !(skip_folds_at > 0 && i == 0) && (f = find_in_folds(&d, r, pat, dir)) >= 0)
            return f;
        if (strstr(k[r]->u.kernel.name, pat)) {
            d.k->fsel = -1;
            publish(&d);
            return r;
        }
        if (d.nf && dir < 0 && (f = find_in_folds(&d, r, pat, dir)) >= 0)
            return f;
    }
    return -1;
}

/* The user moved the cursor: stop following the run, tell the other panes. */
static int k_request(app *a, pane *p, pane_request req, const char *arg)
{
    if (req == PREQ_MOVE_BY || req == PREQ_ENTER) {
        kdisp d = disp(a);
        if (req == PREQ_ENTER)   /* Enter on a folded loop's line opens or closes it */
            return kl(a)->fsel >= 0 ? fold(a, -1, "fold") : 0;
        if (d.nf) {   /* over the display: fold lines are stops too */
            move_lines(&d, strtoll(arg, NULL, 10));
            return AF_HANDLED;
        }
    }
    if (req == PREQ_MOVE_BY) {   /* over the display: a folded group is one stop */
        kgroups *g = groups(a);
        if (!g)
            return 0;
        pane_goto(p, kgroups_step(g, p->cursor, strtoll(arg, NULL, 10)), (int64_t)a->s->nkernels);
        return AF_HANDLED;
    }
    if (req != PREQ_MOVED)
        return 0;
    a->follow = 0;
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    return AF_HANDLED;
}

const pane_ops pane_kernels_ops = {
    .name = "kernels",
    .init = k_init,
    .release = k_release,
    .rows = k_rows,
    .render = k_render,
    .row_text = k_row_text,
    .find = k_find,
    .request = k_request,
};
