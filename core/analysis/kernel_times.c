/* kernel_times.c — the per-kernel time and bytes table; see kernel_times.h. */
#include "kernel_times.h"
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "host_stats.h"
#include "numfmt.h"

/* Vendor datasheet peaks (GB/s), most specific name first: a substring of s->gpu picks a row. */
static const struct { const char *name; double gbps; } peaks[] = {
    {"H200", 4800}, {"H100 PCIe", 2000}, {"H100 NVL", 3900}, {"H100", 3350},
    {"A100-SXM4-80GB", 2039}, {"A100 80GB PCIe", 1935}, {"A100", 1555},
    {"L40S", 864}, {"L4", 300}, {"RTX 4090", 1008},
};

/* The peak memory bandwidth of the GPU a session names (s->gpu), from the
 * datasheets above; -1 when not listed (CPU runs, other GPUs). from gets
 * "datasheet: <name>". */
static double kernel_times_peak_gbps(const char *gpu, char *from, size_t len)
{
    for (size_t i = 0; gpu && i < sizeof peaks / sizeof *peaks; i++)
        if (strstr(gpu, peaks[i].name)) {
            snprintf(from, len, "datasheet: %s", peaks[i].name);
            return peaks[i].gbps;
        }
    return -1;
}

/* numel x element size of t; 0 with *known = 0 for a dtype no kind has. */
static uint64_t tensor_bytes(const tensor_rec *t, int *known)
{
    dtype_kind dk;
    if (!t->dtype || stats_kind_by_name(t->dtype, &dk)) {
        *known = 0;
        return 0;
    }
    uint64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d] > 0 ? (uint64_t)t->shape[d] : 0;
    return n * stats_kind_size(dk);
}

static const tensor_rec *find_tensor(const kernel_event *k, const char *name, tensor_phase ph)
{
    for (size_t i = 0; i < k->ntensors; i++)
        if (k->tensors[i].phase == ph && !strcmp(k->tensors[i].name, name))
            return &k->tensors[i];
    return NULL;
}

static int stats_differ(const tensor_rec *a, const tensor_rec *b)
{
    if (!a->has_stats || !b->has_stats)
        return 1;   /* nothing to tell them apart by: count it as written */
    const tensor_stats *x = &a->stats, *y = &b->stats;
    return x->nan != y->nan || x->posinf != y->posinf || x->neginf != y->neginf || x->zeros != y->zeros ||
           memcmp(&x->min, &y->min, sizeof x->min) || memcmp(&x->max, &y->max, sizeof x->max) ||
           memcmp(&x->mean, &y->mean, sizeof x->mean) || memcmp(&x->std, &y->std, sizeof x->std);
}

static void row_bytes(const session *s, const kernel_event *k, kernel_time_row *r)
{
    r->bytes_known = k->ntensors > 0;   /* none recorded: unknown, not zero */
    for (size_t i = 0; i < k->ntensors; i++) {
        const tensor_rec *t = &k->tensors[i];
        if (t->phase == PHASE_BEFORE) {
            if (!tensor_uninitialised(s, k, t))
                r->bytes_read += tensor_bytes(t, &r->bytes_known);
        } else if (t->phase == PHASE_AFTER) {
            const tensor_rec *b = find_tensor(k, t->name, PHASE_BEFORE);
            if (!b || tensor_uninitialised(s, k, b) || stats_differ(b, t))
                r->bytes_written += tensor_bytes(t, &r->bytes_known);
        }
    }
}

static const kernel_time_row *sort_rows;
static int by_device_desc(const void *a, const void *b)
{
    const kernel_time_row *x = &sort_rows[*(const size_t *)a], *y = &sort_rows[*(const size_t *)b];
    if ((x->device_us >= 0) != (y->device_us >= 0))
        return x->device_us >= 0 ? -1 : 1;
    if (x->device_us != y->device_us)
        return x->device_us > y->device_us ? -1 : 1;
    return x->k->index < y->k->index ? -1 : x->k->index > y->k->index;
}

static void set_peak(kernel_times *t, const session *s)
{
    t->gpu = s->gpu;
    if (s->gpu_peak_gbps > 0) {   /* what the runtime reported beats the table */
        t->peak_gbps = s->gpu_peak_gbps;
        snprintf(t->peak_from, sizeof t->peak_from, "runtime: memory clock x bus width");
    } else {
        t->peak_gbps = kernel_times_peak_gbps(s->gpu, t->peak_from, sizeof t->peak_from);
    }
}

/* Row r of kernel e, and the totals it adds to. */
static void row_of(kernel_times *t, const session *s, const event *e, kernel_time_row *r)
{
    r->k = &e->u.kernel;
    r->t_ms = e->t_ms;
    r->wall_us = r->k->duration_us;
    r->device_us = r->k->device_us;
    row_bytes(s, r->k, r);
    int any = r->bytes_known || r->bytes_read || r->bytes_written;
    r->gbps = r->device_us > 0 && any ? (double)(r->bytes_read + r->bytes_written) / (r->device_us * 1e3) : -1;
    if (r->device_us >= 0) {
        t->total_device_us += r->device_us;
        t->ndevice_known++;
    }
    if (r->wall_us >= 0)
        t->total_wall_us += r->wall_us;
}

void kernel_times_build(const session *s, kernel_times *t)
{
    memset(t, 0, sizeof *t);
    set_peak(t, s);
    t->folded = session_folded_launches(s, NULL);
    if (!s->nkernels)
        return;
    t->rows = xcalloc(s->nkernels, sizeof *t->rows);
    t->by_device = xcalloc(s->nkernels, sizeof *t->by_device);
    for (size_t i = 0; i < s->nkernels; i++) {
        row_of(t, s, s->kernels[i], &t->rows[t->n]);
        t->by_device[t->n] = t->n;
        t->n++;
    }
    t->nall = t->n;
    sort_rows = t->rows;
    qsort(t->by_device, t->n, sizeof *t->by_device, by_device_desc);
    sort_rows = NULL;
}

/* by_device_desc's order of two rows: < 0 when x comes first. */
static int row_cmp(const kernel_time_row *x, const kernel_time_row *y)
{
    if ((x->device_us >= 0) != (y->device_us >= 0))
        return x->device_us >= 0 ? -1 : 1;
    if (x->device_us != y->device_us)
        return x->device_us > y->device_us ? -1 : 1;
    return x->k->index < y->k->index ? -1 : x->k->index > y->k->index;
}

/* The kept rows sorted (by_device) and cut to t->keep, rows in that order. */
static void keep_longest(kernel_times *t)
{
    sort_rows = t->rows;
    for (size_t i = 0; i < t->n; i++)
        t->by_device[i] = i;
    qsort(t->by_device, t->n, sizeof *t->by_device, by_device_desc);
    sort_rows = NULL;
    size_t cap = 2 * t->keep, n = t->n < t->keep ? t->n : t->keep;
    kernel_time_row *rows = xcalloc(cap, sizeof *rows);
    kernel_event *own = xcalloc(cap, sizeof *own);
    for (size_t i = 0; i < t->n; i++) {
        size_t from = t->by_device[i];
        if (i < n) {
            rows[i] = t->rows[from];
            own[i] = t->own[from];
            rows[i].k = &own[i];
        } else {
            free((char *)t->own[from].name);
        }
    }
    free(t->rows);
    free(t->own);
    t->rows = rows;
    t->own = own;
    t->n = n;
    for (size_t i = 0; i < n; i++)
        t->by_device[i] = i;
}

void kernel_times_begin(kernel_times *t, size_t keep)
{
    memset(t, 0, sizeof *t);
    t->keep = keep ? keep : 1;
    t->rows = xcalloc(2 * t->keep, sizeof *t->rows);
    t->by_device = xcalloc(2 * t->keep, sizeof *t->by_device);
    t->own = xcalloc(2 * t->keep, sizeof *t->own);
}

void kernel_times_add(kernel_times *t, const session *s, const event *e)
{
    if (e->kind == EV_FOLD) {
        t->folded += e->u.fold.launches;
        return;
    }
    if (e->kind != EV_KERNEL)
        return;
    kernel_time_row r = {0};
    row_of(t, s, e, &r);
    t->nall++;
    if (t->nall > 2 * t->keep && row_cmp(&r, &t->rows[t->keep - 1]) > 0)
        return;   /* after the keep longest (rows[0, keep) are sorted since the first cut): never printed */
    const kernel_event *k = &e->u.kernel;
    kernel_event *o = &t->own[t->n];
    memset(o, 0, sizeof *o);
    o->index = k->index;
    o->name = k->name ? xstrdup(k->name) : NULL;
    o->type = k->type;
    o->status = k->status;
    o->duration_us = k->duration_us;
    o->device_us = k->device_us;
    r.k = o;
    t->rows[t->n++] = r;
    if (t->n == 2 * t->keep)
        keep_longest(t);
}

void kernel_times_end(kernel_times *t, const session *s)
{
    set_peak(t, s);
    if (t->n)
        keep_longest(t);
}

void kernel_times_release(kernel_times *t)
{
    for (size_t i = 0; t->own && i < t->n; i++)
        free((char *)t->own[i].name);
    free(t->own);
    free(t->rows);
    free(t->by_device);
    memset(t, 0, sizeof *t);
}

/* A byte count of row r for a table cell (kernel_time_cells). */
static const char *kernel_times_bytes_text(const kernel_time_row *r, uint64_t n, char *buf, size_t len)
{
    if (!r->bytes_known && !r->bytes_read && !r->bytes_written) {
        snprintf(buf, len, "-");
        return buf;
    }
    char b[22];   /* fits any uint64_t in GiB, and the cell holds it with its "+" */
    fmt_bytes(n, b, sizeof b);
    snprintf(buf, len, "%s%s", b, r->bytes_known ? "" : "+");
    return buf;
}

const char *kernel_times_peak_text(const kernel_times *t, char *buf, size_t len)
{
    if (t->peak_gbps > 0)
        snprintf(buf, len, "peak %.0f GB/s (%s)", t->peak_gbps, t->peak_from);
    else if (!t->gpu)
        snprintf(buf, len, "peak unknown (no GPU named: a CPU run)");
    else
        snprintf(buf, len, "peak unknown (%.80s: not in the datasheet table)", t->gpu);
    return buf;
}

void kernel_times_cells(const kernel_times *t, const kernel_time_row *r, kernel_time_cells *c)
{
    kernel_times_bytes_text(r, r->bytes_read, c->read, sizeof c->read);
    kernel_times_bytes_text(r, r->bytes_written, c->written, sizeof c->written);
    snprintf(c->dev, sizeof c->dev, "-");
    snprintf(c->share, sizeof c->share, "-");
    snprintf(c->gbps, sizeof c->gbps, "-");
    c->of_peak[0] = 0;
    if (r->device_us >= 0) {
        snprintf(c->dev, sizeof c->dev, "%.1f", r->device_us);
        snprintf(c->share, sizeof c->share, "%.1f%%",
                 t->total_device_us > 0 ? 100 * r->device_us / t->total_device_us : 0);
    }
    if (r->gbps >= 0)
        snprintf(c->gbps, sizeof c->gbps, r->gbps >= 100 ? "%.0f%s" : r->gbps >= 1 ? "%.1f%s" : "%.2g%s", r->gbps,
                 r->bytes_known ? "" : "+");
    if (r->gbps >= 0 && t->peak_gbps > 0) {
        double pct = 100 * r->gbps / t->peak_gbps;
        if (pct > 0 && pct < 0.1)
            snprintf(c->of_peak, sizeof c->of_peak, "<0.1%%");
        else
            snprintf(c->of_peak, sizeof c->of_peak, pct >= 10 || pct == 0 ? "%.0f%%" : "%.1f%%", pct);
    }
}

void kernel_times_print(const kernel_times *t, FILE *f, size_t max_rows, int width)
{
    if (width < 90)
        width = 90;
    fprintf(f, "kernel times: %zu kernels, device time known for %zu, total %.1f us device, %.1f us wall "
               "(before to after hook)\n", t->nall, t->ndevice_known, t->total_device_us, t->total_wall_us);
    char peak[160];
    fprintf(f, "  %s\n", kernel_times_peak_text(t, peak, sizeof peak));
    if (t->folded)
        fprintf(f, "  the kept kernel events only: %llu launches of repeated while_loop iterations were folded "
                   "(their summed times are in the fold events)\n", (unsigned long long)t->folded);
    fprintf(f, "  bytes are estimated from the tensors' shapes: read = before-tensors not written first, "
               "written = after-tensors that changed (+: at least, a dtype unknown; -: no tensor recorded)\n");
    if (!t->n)
        return;
    double top = t->ndevice_known ? t->rows[t->by_device[0]].device_us : 0;
    /* 64 columns of numbers and gaps; the name and the bar share the rest */
    int name_w = width - 64 - 10;
    if (name_w > 48)
        name_w = 48;
    int bar_w = width - 64 - name_w;
    fprintf(f, "  %5s %-*s %10s %6s %10s %10s %8s %s\n", "#", name_w, "kernel", "device us", "share", "read",
            "written", "GB/s", t->peak_gbps > 0 ? "of peak" : "");
    size_t n = max_rows && max_rows < t->n ? max_rows : t->n;
    for (size_t i = 0; i < n; i++) {
        const kernel_time_row *r = &t->rows[t->by_device[i]];
        kernel_time_cells c;
        kernel_times_cells(t, r, &c);
        int bars = top > 0 && r->device_us > 0 ? (int)(bar_w * r->device_us / top + 0.5) : 0;
        fprintf(f, "  %5lld %-*.*s %10s %6s %10s %10s %8s %-5s ", (long long)r->k->index, name_w, name_w,
                r->k->name, c.dev, c.share, c.read, c.written, c.gbps, c.of_peak);
        for (int b = 0; b < bars; b++)
            fputc('#', f);
        fputc('\n', f);
    }
    if (n < t->nall)
        fprintf(f, "  ... %zu more kernels\n", t->nall - n);
}
