/* host_stats.c — one-pass tensor statistics over strided host memory (host_stats.h). */
#include "host_stats.h"
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
    int64_t at;                /* logical index of the next element */
    double mn, mx;             /* over finite elements; strict compares keep the first */
    int64_t mn_at, mx_at, bad_at;
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

/* A NaN or ±Inf element at c->at. */
static inline void count_bad(counts *c, int nan, int pos)
{
    if (c->bad_at < 0) c->bad_at = c->at;
    if (nan) c->nan++;
    else if (pos) c->posinf++;
    else c->neginf++;
}

/* A finite element x (|z| for complex) at c->at, kept in fin for the moments. */
static inline void count_finite(counts *c, double x, int zero, int sub, double *fin, size_t *nf)
{
    if (zero) c->zeros++;
    else if (sub) c->subnormal++;
    if (x < c->mn) { c->mn = x; c->mn_at = c->at; }
    if (x > c->mx) { c->mx = x; c->mx_at = c->at; }
    fin[(*nf)++] = x;
}

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
            if (!isfinite(x))                                                     \
                count_bad(c, x != x, x > 0);                                      \
            else                                                                  \
                count_finite(c, x, x == 0, x != 0 && SUBN(raw), fin, &nf);        \
            c->at++;                                                              \
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
    X(DK_BOOL, blk_bool, uint8_t, CONV_BOOL, SUB_NONE)                      \
    X(DK_U16, blk_u16, uint16_t, CONV_ID, SUB_NONE)                         \
    X(DK_U32, blk_u32, uint32_t, CONV_ID, SUB_NONE)                         \
    X(DK_U64, blk_u64, uint64_t, CONV_ID, SUB_NONE)

#define BLOCK_DEFINE(kind, fn, T, CONV, SUBN) DEFINE_BLOCK(fn, T, CONV, SUBN)
BLOCK_KINDS(BLOCK_DEFINE)

/* Complex: a pair of PART; the statistics of |z| (host_stats.h says which
 * element counts as what). hypot: no overflow for parts near the max. */
#define DEFINE_CBLOCK(NAME, PART, SUBN)                                           \
    static size_t NAME(walker *w, const char *base, size_t n, double *fin, counts *c) \
    {                                                                             \
        size_t nf = 0;                                                            \
        for (size_t i = 0; i < n; i++) {                                          \
            PART raw[2];                                                          \
            memcpy(raw, base + w->off * (int64_t)sizeof raw, sizeof raw);         \
            double re = raw[0], im = raw[1];                                      \
            if (c->nvals + 2 <= c->maxv) {                                        \
                c->values[c->nvals++] = re;                                       \
                c->values[c->nvals++] = im;                                       \
            }                                                                     \
            if (!isfinite(re) || !isfinite(im))                                   \
                count_bad(c, re != re || im != im, re == INFINITY || im == INFINITY); \
            else                                                                  \
                count_finite(c, hypot(re, im), re == 0 && im == 0,                \
                             (re != 0 || im != 0) && (SUBN(raw[0]) || SUBN(raw[1])), fin, &nf); \
            c->at++;                                                              \
            walk_next(w);                                                         \
        }                                                                         \
        return nf;                                                                \
    }
DEFINE_CBLOCK(blk_c64, float, SUB_F32)
DEFINE_CBLOCK(blk_c128, double, SUB_F64)

#define BLOCK_ENTRY(kind, fn, T, CONV, SUBN) [kind] = fn,

typedef size_t (*block_fn)(walker *, const char *, size_t, double *, counts *);


/* Plain reads, widened to double: the same conversions, for stats_read. */
#define DEFINE_READ(NAME, CTYPE, CONV)                                             \
    static void NAME(walker *w, const char *base, size_t n, double *out)          \
    {                                                                             \
        for (size_t i = 0; i < n; i++) {                                          \
            CTYPE raw;                                                            \
            memcpy(&raw, base + w->off * (int64_t)sizeof(CTYPE), sizeof raw);    \
            out[i] = CONV(raw);                                                   \
            walk_next(w);                                                         \
        }                                                                         \
    }
#define READ_DEFINE(kind, fn, T, CONV, SUBN) DEFINE_READ(rd_##fn, T, CONV)
BLOCK_KINDS(READ_DEFINE)
#define DEFINE_CREAD(NAME, PART)                                                  \
    static void NAME(walker *w, const char *base, size_t n, double *out)          \
    {                                                                             \
        for (size_t i = 0; i < n; i++) {                                          \
            PART raw[2];                                                          \
            memcpy(raw, base + w->off * (int64_t)sizeof raw, sizeof raw);         \
            out[2 * i] = raw[0];                                                  \
            out[2 * i + 1] = raw[1];                                              \
            walk_next(w);                                                         \
        }                                                                         \
    }
DEFINE_CREAD(rd_blk_c64, float)
DEFINE_CREAD(rd_blk_c128, double)
#define READ_ENTRY(kind, fn, T, CONV, SUBN) [kind] = rd_##fn,

int stats_read(const void *data, dtype_kind k, int ndim, const int64_t *sizes, const int64_t *strides,
               uint64_t first, double *out, size_t n)
{
    static void (*const fns[DK__COUNT])(walker *, const char *, size_t, double *) = {
        BLOCK_KINDS(READ_ENTRY)[DK_C64] = rd_blk_c64, [DK_C128] = rd_blk_c128};
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS || (unsigned)k >= DK__COUNT) return -1;
    uint64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) return -1;
        numel *= (uint64_t)sizes[d];
    }
    if (first > numel || n > numel - first) return -1;
    if (!n) return 0;
    if (!data) return -1;
    walker w = {ndim, sizes, strides, {0}, 0};
    uint64_t rest = first;
    for (int d = ndim - 1; d >= 0; d--) {   /* the walker at logical index `first` */
        w.idx[d] = (int64_t)(rest % (uint64_t)sizes[d]);
        rest /= (uint64_t)sizes[d];
        w.off += w.idx[d] * strides[d];
    }
    fns[k](&w, data, n, out);
    return 0;
}

const char *stats_kind_name(dtype_kind k) { return dtype_of(k) ? dtype_of(k)->name : "?"; }
size_t stats_kind_size(dtype_kind k) { return dtype_of(k) ? dtype_of(k)->size : 0; }
int stats_kind_lanes(dtype_kind k) { return dtype_of(k) ? dtype_of(k)->lanes : 1; }
int stats_kind_by_name(const char *name, dtype_kind *out) { return dtype_by_name(name, out); }

/* A block's finite values (exact two-pass: the block sits in L1) merged
 * into the running (n, mean, m2) with Chan et al.'s update. Min and max
 * (with their positions) are kept by the block readers. */
static void acc_merge_block(stats_acc *a, const double *fin, size_t nf)
{
    if (!nf) return;
    double s = 0;
    for (size_t i = 0; i < nf; i++) s += fin[i];
    double bmean = s / (double)nf, bm2 = 0;
    for (size_t i = 0; i < nf; i++) {
        double dlt = fin[i] - bmean;
        bm2 += dlt * dlt;
    }
    double nb = (double)nf, nt = a->n + nb, delta = bmean - a->mean;
    a->mean += delta * nb / nt;
    a->m2 += bm2 + delta * delta * a->n * nb / nt;
    a->n = nt;
}

/* n elements of kind k along the walker, block by block. */
static void acc_walk(stats_acc *a, walker *w, const void *data, dtype_kind k, uint64_t n)
{
    static const block_fn fns[DK__COUNT] = {BLOCK_KINDS(BLOCK_ENTRY)[DK_C64] = blk_c64, [DK_C128] = blk_c128};
    counts c = {a->st.nan, a->st.posinf, a->st.neginf, a->st.zeros, a->st.subnormal,
                a->values, a->maxv, a->nvals, (int64_t)a->st.numel,
                a->mn, a->mx, a->st.at.min, a->st.at.max, a->st.at.nonfinite};
    double fin[BLOCK];
    for (uint64_t done = 0; done < n;) {
        size_t m = n - done < BLOCK ? (size_t)(n - done) : BLOCK;
        acc_merge_block(a, fin, fns[k](w, data, m, fin, &c));
        done += m;
    }
    a->st.nan = c.nan;
    a->st.posinf = c.posinf;
    a->st.neginf = c.neginf;
    a->st.zeros = c.zeros;
    a->st.subnormal = c.subnormal;
    a->nvals = c.nvals;
    a->mn = c.mn;
    a->mx = c.mx;
    a->st.at.min = c.mn_at;
    a->st.at.max = c.mx_at;
    a->st.at.nonfinite = c.bad_at;
    a->st.numel += n;
}

void stats_acc_init(stats_acc *a, double *values, size_t max_values)
{
    memset(a, 0, sizeof *a);
    a->mn = INFINITY;
    a->mx = -INFINITY;
    a->st.has_at = 1;
    a->st.at.min = a->st.at.max = a->st.at.nonfinite = -1;
    a->values = values;
    a->maxv = values ? max_values : 0;
}

int stats_acc_add(stats_acc *a, const void *data, dtype_kind k, size_t n)
{
    if ((unsigned)k >= DK__COUNT || (n && !data)) return -1;
    int64_t size = (int64_t)n, stride = 1;
    walker w = {1, &size, &stride, {0}, 0};
    acc_walk(a, &w, data, k, n);
    return 0;
}

void stats_acc_finish(const stats_acc *a, tensor_stats *out, size_t *nvalues)
{
    *out = a->st;
    out->finite = (uint64_t)a->n;
    out->min = out->max = out->mean = out->std = NAN;
    if (a->n > 0) {
        out->min = a->mn;
        out->max = a->mx;
        out->mean = a->mean;
        out->std = a->n > 1 ? sqrt(a->m2 / (a->n - 1)) : NAN;
    }
    if (nvalues) *nvalues = a->nvals;
}

int stats_compute(const void *data, dtype_kind k, int ndim, const int64_t *sizes, const int64_t *strides,
                  tensor_stats *out, double *values, size_t max_values, size_t *nvalues)
{
    memset(out, 0, sizeof *out);
    out->min = out->max = out->mean = out->std = NAN;
    out->has_at = 1;
    out->at.min = out->at.max = out->at.nonfinite = -1;
    if (nvalues) *nvalues = 0;
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS || (unsigned)k >= DK__COUNT) return -1;
    uint64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) return -1;
        numel *= (uint64_t)sizes[d];
    }
    out->numel = numel;
    if (numel == 0) return 0;
    if (!data) return -1;
    stats_acc a;
    stats_acc_init(&a, values, max_values);
    walker w = {ndim, sizes, strides, {0}, 0};
    acc_walk(&a, &w, data, k, numel);
    stats_acc_finish(&a, out, nvalues);
    return 0;
}
