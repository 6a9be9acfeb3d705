/* stats.c — one-pass tensor statistics over strided host memory (stats.h). */
#include "stats.h"
#include <math.h>
#include <string.h>

double stats_half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0) v = ldexp(m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

double stats_bf16_to_double(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double stats_f8e4m3_to_double(uint8_t v)
{
    int s = v >> 7, e = (v >> 3) & 0xf, m = v & 7;
    double d;
    if (e == 15 && m == 7) return NAN;     /* e4m3fn: no infinities, one NaN pattern */
    if (e == 0) d = ldexp(m, -9);
    else d = ldexp(8 + m, e - 10);
    return s ? -d : d;
}

double stats_f8e5m2_to_double(uint8_t v)
{
    int s = v >> 7, e = (v >> 2) & 0x1f, m = v & 3;
    double d;
    if (e == 31) d = m ? NAN : INFINITY;
    else if (e == 0) d = ldexp(m, -16);
    else d = ldexp(4 + m, e - 17);
    return s ? -d : d;
}

uint16_t stats_double_to_half(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0);   /* inf / nan */
    if (ax >= 0x477ff000u) return sign | 0x7c00;                                    /* overflow */
    if (ax < 0x38800000u)   /* half subnormal (or 1024 = the smallest normal): units of 2^-24 */
        return sign | (uint16_t)nearbyint(fabs((double)f) * 16777216.0);
    uint32_t r = ((ax - 0x38000000u) >> 13);
    uint32_t rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
    return sign | (uint16_t)r;
}

uint16_t stats_double_to_bf16(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);   /* quiet NaN */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* ---- the pass ------------------------------------------------------------ */

#define BLOCK 4096

typedef struct {
    int ndim;
    const int64_t *sizes, *strides;
    int64_t idx[TENSOR_MAX_DIMS];
    int64_t off;               /* element offset of the current element */
} walker;

static inline void walk_next(walker *w)
{
    for (int d = w->ndim - 1; d >= 0; d--) {
        w->off += w->strides[d];
        if (++w->idx[d] < w->sizes[d]) return;
        w->off -= w->strides[d] * w->sizes[d];
        w->idx[d] = 0;
    }
}

typedef struct {
    uint64_t nan, posinf, neginf, zeros, subnormal;
    double *values;
    size_t maxv, nvals;
} counts;

#define SUB_NONE(raw) 0
#define SUB_F32(raw) (fpclassify(raw) == FP_SUBNORMAL)
#define SUB_F64(raw) (fpclassify(raw) == FP_SUBNORMAL)
#define SUB_F16(raw) (((raw) & 0x7c00) == 0 && ((raw) & 0x3ff) != 0)
#define SUB_BF16(raw) (((raw) & 0x7f80) == 0 && ((raw) & 0x7f) != 0)
#define SUB_E4M3(raw) ((((raw) >> 3) & 0xf) == 0 && ((raw) & 7) != 0)
#define SUB_E5M2(raw) ((((raw) >> 2) & 0x1f) == 0 && ((raw) & 3) != 0)
#define CONV_ID(raw) ((double)(raw))
#define CONV_BOOL(raw) ((raw) ? 1.0 : 0.0)

/* Reads n elements from the walker, counts the special ones, and writes the
 * finite ones to fin; returns how many finite. */
#define DEFINE_BLOCK(NAME, CTYPE, CONV, SUBN)                                     \
    static size_t NAME(walker *w, const char *base, size_t n, double *fin, counts *c) \
    {                                                                             \
        size_t nf = 0;                                                            \
        for (size_t i = 0; i < n; i++) {                                          \
            CTYPE raw;                                                            \
            memcpy(&raw, base + w->off * (int64_t)sizeof(CTYPE), sizeof raw);    \
            double x = CONV(raw);                                                 \
            if (c->nvals < c->maxv) c->values[c->nvals++] = x;                    \
            if (x != x) c->nan++;                                                 \
            else if (x == INFINITY) c->posinf++;                                  \
            else if (x == -INFINITY) c->neginf++;                                 \
            else {                                                                \
                if (x == 0) c->zeros++;                                           \
                else if (SUBN(raw)) c->subnormal++;                               \
                fin[nf++] = x;                                                    \
            }                                                                     \
            walk_next(w);                                                         \
        }                                                                         \
        return nf;                                                                \
    }

/* One row per dtype: its block reader's name, element type, conversion and
 * subnormal test. Both the readers and the dispatch table come from it. */
#define BLOCK_KINDS(X)                                                      \
    X(DK_F32, blk_f32, float, CONV_ID, SUB_F32)                             \
    X(DK_F64, blk_f64, double, CONV_ID, SUB_F64)                            \
    X(DK_F16, blk_f16, uint16_t, stats_half_to_double, SUB_F16)             \
    X(DK_BF16, blk_bf16, uint16_t, stats_bf16_to_double, SUB_BF16)          \
    X(DK_F8E4M3, blk_e4m3, uint8_t, stats_f8e4m3_to_double, SUB_E4M3)       \
    X(DK_F8E5M2, blk_e5m2, uint8_t, stats_f8e5m2_to_double, SUB_E5M2)       \
    X(DK_I64, blk_i64, int64_t, CONV_ID, SUB_NONE)                          \
    X(DK_I32, blk_i32, int32_t, CONV_ID, SUB_NONE)                          \
    X(DK_I16, blk_i16, int16_t, CONV_ID, SUB_NONE)                          \
    X(DK_I8, blk_i8, int8_t, CONV_ID, SUB_NONE)                             \
    X(DK_U8, blk_u8, uint8_t, CONV_ID, SUB_NONE)                            \
    X(DK_BOOL, blk_bool, uint8_t, CONV_BOOL, SUB_NONE)

#define BLOCK_DEFINE(kind, fn, T, CONV, SUBN) DEFINE_BLOCK(fn, T, CONV, SUBN)
BLOCK_KINDS(BLOCK_DEFINE)
#define BLOCK_ENTRY(kind, fn, T, CONV, SUBN) [kind] = fn,

typedef size_t (*block_fn)(walker *, const char *, size_t, double *, counts *);

int stats_compute(const void *data, dtype_kind k, int ndim, const int64_t *sizes, const int64_t *strides,
                  tensor_stats *out, double *values, size_t max_values, size_t *nvalues)
{
    static const block_fn fns[] = {BLOCK_KINDS(BLOCK_ENTRY)};
    memset(out, 0, sizeof *out);
    out->min = out->max = out->mean = out->std = NAN;
    if (nvalues) *nvalues = 0;
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS || (unsigned)k >= sizeof fns / sizeof *fns) return -1;
    uint64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) return -1;
        numel *= (uint64_t)sizes[d];
    }
    out->numel = numel;
    if (numel == 0) return 0;
    if (!data) return -1;

    walker w = {ndim, sizes, strides, {0}, 0};
    counts c = {0, 0, 0, 0, 0, values, values ? max_values : 0, 0};
    double fin[BLOCK];
    double n_acc = 0, mean = 0, m2 = 0, mn = INFINITY, mx = -INFINITY;
    for (uint64_t done = 0; done < numel;) {
        size_t n = numel - done < BLOCK ? (size_t)(numel - done) : BLOCK;
        size_t nf = fns[k](&w, data, n, fin, &c);
        done += n;
        if (!nf) continue;
        /* exact two-pass inside the block (it sits in L1), then merge */
        double s = 0, bmn = fin[0], bmx = fin[0];
        for (size_t i = 0; i < nf; i++) {
            s += fin[i];
            if (fin[i] < bmn) bmn = fin[i];
            if (fin[i] > bmx) bmx = fin[i];
        }
        double bmean = s / (double)nf, bm2 = 0;
        for (size_t i = 0; i < nf; i++) {
            double dlt = fin[i] - bmean;
            bm2 += dlt * dlt;
        }
        double nb = (double)nf, nt = n_acc + nb, delta = bmean - mean;
        mean += delta * nb / nt;
        m2 += bm2 + delta * delta * n_acc * nb / nt;
        n_acc = nt;
        if (bmn < mn) mn = bmn;
        if (bmx > mx) mx = bmx;
    }
    out->nan = c.nan;
    out->posinf = c.posinf;
    out->neginf = c.neginf;
    out->zeros = c.zeros;
    out->subnormal = c.subnormal;
    out->finite = (uint64_t)n_acc;
    if (n_acc > 0) {
        out->min = mn;
        out->max = mx;
        out->mean = mean;
        out->std = n_acc > 1 ? sqrt(m2 / (n_acc - 1)) : NAN;
    }
    if (nvalues) *nvalues = c.nvals;
    return 0;
}
