/* addr_map.c — naming a device address by the tensor table; see addr_map.h. */
#include "addr_map.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "host_stats.h"

static size_t itemsize(const tensor_rec *t)
{
    dtype_kind k;
    return t->dtype && stats_kind_by_name(t->dtype, &k) == 0 ? stats_kind_size(k) : 0;
}

static int is_integer(const tensor_rec *t)
{
    static const char *const ints[] = {"int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64"};
    for (size_t i = 0; t->dtype && i < sizeof ints / sizeof ints[0]; i++)
        if (!strcmp(t->dtype, ints[i]))
            return 1;
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The byte range [lo, hi) of t's elements relative to its data pointer; 0 when it has none. */
static int elem_extent(const tensor_rec *t, size_t is, int64_t *lo, int64_t *hi)
{
    int64_t mn = 0, mx = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] <= 0)
            return 0;
        int64_t st = t->strides ? t->strides[d] : 0, span = (t->shape[d] - 1) * st;
        if (span > 0)
            mx += span;
        else
            mn += span;
    }
    *lo = mn * (int64_t)is;
    *hi = (mx + 1) * (int64_t)is;
    return 1;
}

/* The element at byte offset off from t's data pointer: largest stride first, the
 * outermost dimension unbounded. */
static void element_at(const tensor_rec *t, size_t is, int64_t off, addr_hit *h, int *outer)
{
    int order[TENSOR_MAX_DIMS], n = t->ndim;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)   /* insertion sort by |stride|, descending; size-1 dims last */
        for (int j = i; j > 0; j--) {
            int64_t a = t->shape[order[j]] == 1 ? -1 : llabs(t->strides[order[j]]);
            int64_t b = t->shape[order[j - 1]] == 1 ? -1 : llabs(t->strides[order[j - 1]]);
            if (a <= b)
                break;
            int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
        }
    int64_t e = floor_div(off, (int64_t)is);
    h->byte_in_elem = (uint64_t)(off - e * (int64_t)is);
    h->ndim = n;
    memset(h->index, 0, sizeof h->index);
    for (int i = 0; i < n; i++) {
        int64_t st = t->strides[order[i]];
        if (st == 0 || t->shape[order[i]] == 1)
            continue;
        h->index[order[i]] = floor_div(e, st);
        e -= h->index[order[i]] * st;
    }
    *outer = n ? order[0] : -1;
}

/* An integer tensor of the launch (not t) holding value v: its position, or -1. */
static int64_t find_index(const addr_table *tab, const tensor_rec *t, int64_t v, const tensor_rec **which)
{
    for (size_t i = 0; i < tab->n; i++) {
        const tensor_rec *x = &tab->t[i];
        if (x == t || !is_integer(x) || x->phase == PHASE_AFTER)
            continue;
        for (size_t j = 0; j < x->nvalues; j++)
            if (x->values[j] == (double)v) {
                *which = x;
                return (int64_t)j;
            }
    }
    return -1;
}

/* Fills h for address addr against t; returns 1 when t has an allocation to measure by. */
static int measure(const addr_table *tab, const tensor_rec *t, uint64_t addr, addr_hit *h)
{
    size_t is = itemsize(t);
    if (!t->has_alloc || !is || !t->alloc.data || t->alloc.base + t->alloc.bytes < t->alloc.base)
        return 0;   /* an allocation that wraps the address space is not one */
    memset(h, 0, sizeof *h);
    h->t = t;
    h->launch = tab->launch;
    h->index_flat = -1;
    uint64_t end = t->alloc.base + t->alloc.bytes;
    int64_t lo, hi, off = (int64_t)(addr - t->alloc.data);
    if (addr >= t->alloc.base && addr < end)
        h->place = elem_extent(t, is, &lo, &hi) && off >= lo && off < hi ? ADDR_INSIDE : ADDR_IN_ALLOC;
    else if (addr >= end) {
        h->place = ADDR_PAST_END;
        h->distance = addr - end;
    } else {
        h->place = ADDR_BEFORE;
        h->distance = t->alloc.base - addr;
    }
    int outer;
    element_at(t, is, off, h, &outer);
    if (outer >= 0) {
        h->index_value = h->index[outer];
        h->index_flat = find_index(tab, t, h->index[outer], &h->index_t);
        if (h->index_flat < 0)
            h->index_t = NULL;
    }
    return 1;
}

/* Better: inside before in-alloc before outside; then an index match; then the smaller distance. */
static int better(const addr_hit *a, const addr_hit *b)
{
    int ra = a->place == ADDR_INSIDE ? 0 : a->place == ADDR_IN_ALLOC ? 1 : 2;
    int rb = b->place == ADDR_INSIDE ? 0 : b->place == ADDR_IN_ALLOC ? 1 : 2;
    if (ra != rb)
        return ra < rb;
    if (ra == 2 && (a->index_t != NULL) != (b->index_t != NULL))
        return a->index_t != NULL;
    return a->distance < b->distance;
}

addr_place addr_map(const addr_table *tables, size_t n, uint64_t addr, uint32_t size, addr_hit *out)
{
    (void)size;
    memset(out, 0, sizeof *out);
    out->index_flat = -1;
    for (size_t k = 0; k < n; k++) {
        addr_hit best = {0}, h;
        for (size_t i = 0; i < tables[k].n; i++) {
            const tensor_rec *t = &tables[k].t[i];
            if (t->phase == PHASE_AFTER && k == 0)
                continue;   /* the same tensors as before the launch */
            if (measure(&tables[k], t, addr, &h) && (!best.t || better(&h, &best)))
                best = h;
        }
        if (!best.t)
            continue;
        if (k == 0) {
            *out = best;
            if (best.place == ADDR_INSIDE || best.place == ADDR_IN_ALLOC)
                return out->place;
            continue;   /* an earlier launch's allocation may hold it */
        }
        if (best.place == ADDR_INSIDE || best.place == ADDR_IN_ALLOC) {
            *out = best;
            out->index_t = NULL;   /* another launch's index values say nothing here */
            out->index_flat = -1;
            return out->place;
        }
        if (!out->t)
            *out = best;
    }
    out->by_index = out->t && out->index_t && out->place >= ADDR_PAST_END;
    return out->place;
}

static void put_dims(strbuf *sb, int n, const int64_t *v)
{
    strbuf_addch(sb, '[');
    for (int i = 0; i < n; i++)
        strbuf_addf(sb, "%s%" PRId64, i ? ", " : "", v[i]);
    strbuf_addch(sb, ']');
}

void addr_hit_index_text(const addr_hit *h, strbuf *sb) { put_dims(sb, h->ndim, h->index); }

/* A flat position as "[i, j]" in t's shape (row-major). */
static void put_flat(strbuf *sb, const tensor_rec *t, int64_t flat)
{
    int64_t idx[TENSOR_MAX_DIMS];
    if (t->ndim == 0 || tensor_unflatten(t, flat, idx) < 0) {
        strbuf_addf(sb, "[%" PRId64 "]", flat);
        return;
    }
    put_dims(sb, t->ndim, idx);
}

void addr_hit_text(const addr_hit *h, strbuf *sb)
{
    const tensor_rec *t = h->t;
    if (!t) {
        strbuf_addstr(sb, "no tensor of the run is known there");
        return;
    }
    switch (h->place) {
    case ADDR_INSIDE: strbuf_addstr(sb, "inside "); break;
    case ADDR_IN_ALLOC: strbuf_addstr(sb, "inside the allocation but outside the elements of "); break;
    case ADDR_PAST_END: strbuf_addf(sb, "%" PRIu64 " bytes past the end of ", h->distance); break;
    case ADDR_BEFORE: strbuf_addf(sb, "%" PRIu64 " bytes before the start of ", h->distance); break;
    case ADDR_NONE: break;
    }
    strbuf_addstr(sb, t->name);
    if (t->user_name)
        strbuf_addf(sb, " (%s)", t->user_name);
    strbuf_addch(sb, ' ');
    put_dims(sb, t->ndim, t->shape);
    strbuf_addf(sb, " %s, element ", t->dtype);
    addr_hit_index_text(h, sb);
    if (h->byte_in_elem)
        strbuf_addf(sb, " + %" PRIu64 " bytes", h->byte_in_elem);
    if (h->index_t) {
        strbuf_addf(sb, "; index %s", h->index_t->name);
        if (h->index_t->user_name)
            strbuf_addf(sb, " (%s)", h->index_t->user_name);
        put_flat(sb, h->index_t, h->index_flat);
        strbuf_addf(sb, " = %" PRId64, h->index_value);
    }
}
