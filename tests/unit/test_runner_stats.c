/* test_runner_stats.c — the runner's one-pass tensor statistics
 * (core/model/host_stats.c, no torch dependency; also behind the .npy reference): every dtype conversion, strided walks, special values,
 * numerics on hard inputs, checked against straightforward two-pass sums. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "host_stats.h"
#include "check.h"

/* Reference: two passes in long double over an array of doubles. */
static void ref_stats(const double *x, size_t n, tensor_stats *r)
{
    memset(r, 0, sizeof *r);
    r->numel = n;
    long double s = 0, mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) { r->nan++; continue; }
        if (isinf(x[i])) { if (x[i] > 0) r->posinf++; else r->neginf++; continue; }
        if (x[i] == 0) r->zeros++;
        r->finite++;
        s += x[i];
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
    }
    r->min = r->finite ? (double)mn : NAN;
    r->max = r->finite ? (double)mx : NAN;
    long double mean = r->finite ? s / r->finite : NAN, q = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) q += (x[i] - mean) * (x[i] - mean);
    r->mean = (double)mean;
    r->std = r->finite > 1 ? sqrt((double)(q / (r->finite - 1))) : NAN;
}

static int close_rel(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= tol * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void check_same(const tensor_stats *g, const tensor_stats *w, double tol)
{
    CHECK(g->numel == w->numel);
    CHECK(g->finite == w->finite);
    CHECK(g->nan == w->nan);
    CHECK(g->posinf == w->posinf);
    CHECK(g->neginf == w->neginf);
    CHECK(g->zeros == w->zeros);
    CHECK(close_rel(g->min, w->min, 0));
    CHECK(close_rel(g->max, w->max, 0));
    CHECK(close_rel(g->mean, w->mean, tol));
    CHECK(close_rel(g->std, w->std, tol));
}

static void test_f32_special_values(void)
{
    float x[] = {1.0f, -2.0f, NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, 3.5f};
    double d[9];
    for (int i = 0; i < 9; i++) d[i] = x[i];
    int64_t sz[1] = {9}, st[1] = {1};
    tensor_stats s, r;
    double vals[9];
    size_t nv = 0;
    CHECK(stats_compute(x, DK_F32, 1, sz, st, &s, vals, 9, &nv) == 0);
    ref_stats(d, 9, &r);
    check_same(&s, &r, 1e-12);
    CHECK(s.subnormal == 1);      /* 1e-40f is subnormal as a float */
    CHECK(s.nan == 1 && s.posinf == 1 && s.neginf == 1 && s.zeros == 2 && s.finite == 6);
    CHECK(nv == 9 && vals[0] == 1.0 && isnan(vals[2]) && vals[3] == INFINITY);
}

static void test_empty_and_single(void)
{
    float x = 4.0f;
    int64_t sz0[1] = {0}, st[1] = {1};
    tensor_stats s;
    size_t nv = 7;
    CHECK(stats_compute(NULL, DK_F32, 1, sz0, st, &s, NULL, 0, &nv) == 0);
    CHECK(s.numel == 0 && s.finite == 0 && isnan(s.min) && isnan(s.std) && nv == 0);
    CHECK(stats_compute(&x, DK_F32, 0, NULL, NULL, &s, NULL, 0, NULL) == 0);   /* scalar */
    CHECK(s.numel == 1 && s.finite == 1 && s.min == 4 && s.mean == 4 && isnan(s.std));
    float nans[2] = {NAN, NAN};
    int64_t sz2[1] = {2};
    CHECK(stats_compute(nans, DK_F32, 1, sz2, st, &s, NULL, 0, NULL) == 0);
    CHECK(s.finite == 0 && s.nan == 2 && isnan(s.mean));
    CHECK(stats_compute(NULL, DK_F32, 1, sz2, st, &s, NULL, 0, NULL) == -1);
    CHECK(stats_compute(&x, DK_F32, TENSOR_MAX_DIMS + 1, sz2, st, &s, NULL, 0, NULL) == -1);
}

/* A transposed 3x4 view, a flipped view and an expanded (stride 0) view walk
 * in logical order. */
static void test_strided_views(void)
{
    int32_t base[12];
    for (int i = 0; i < 12; i++) base[i] = i;             /* 3x4 row-major */
    int64_t sz[2] = {4, 3}, st[2] = {1, 4};                /* its transpose */
    double v[12];
    size_t nv;
    tensor_stats s;
    CHECK(stats_compute(base, DK_I32, 2, sz, st, &s, v, 12, &nv) == 0);
    CHECK(nv == 12);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) CHECK(v[i * 3 + j] == j * 4 + i);
    CHECK(s.min == 0 && s.max == 11 && s.mean == 5.5 && s.zeros == 1);
    int64_t fsz[1] = {12}, fst[1] = {-1};                  /* flipped: data points at the last */
    CHECK(stats_compute(base + 11, DK_I32, 1, fsz, fst, &s, v, 3, &nv) == 0);
    CHECK(nv == 3 && v[0] == 11 && v[1] == 10 && v[2] == 9);
    int64_t esz[2] = {5, 4}, est[2] = {0, 1};              /* row 0 repeated 5 times */
    CHECK(stats_compute(base, DK_I32, 2, esz, est, &s, v, 12, &nv) == 0);
    CHECK(s.numel == 20 && s.zeros == 5 && s.mean == 1.5 && v[4] == 0 && v[5] == 1);
}

static void test_half_bf16_conversions(void)
{
    CHECK(stats_half_to_double(0x3c00) == 1.0);
    CHECK(stats_half_to_double(0xc000) == -2.0);
    CHECK(stats_half_to_double(0x0001) == ldexp(1, -24));
    CHECK(stats_half_to_double(0x7bff) == 65504.0);
    CHECK(stats_half_to_double(0x7c00) == INFINITY);
    CHECK(stats_half_to_double(0xfc00) == -INFINITY);
    CHECK(isnan(stats_half_to_double(0x7e00)));
    CHECK(stats_bf16_to_double(0x3f80) == 1.0);
    CHECK(stats_bf16_to_double(0xc2f7) == -123.5);
    /* every finite half and bfloat16 survives double -> bits -> double */
    int bad = 0;
    for (uint32_t b = 0; b < 65536; b++) {
        double h = stats_half_to_double((uint16_t)b);
        if (!isnan(h) && stats_double_to_half(h) != b) bad++;
        double f = stats_bf16_to_double((uint16_t)b);
        if (!isnan(f) && stats_double_to_bf16(f) != b) bad++;
    }
    CHECK(bad == 0);
    CHECK(stats_double_to_half(1e6) == 0x7c00);            /* overflow to inf */
    CHECK(stats_double_to_half(1.0 + ldexp(1, -11)) == 0x3c00);   /* tie: to even */
    CHECK(stats_double_to_half(1.0 + 3 * ldexp(1, -11)) == 0x3c02);
    CHECK(isnan(stats_half_to_double(stats_double_to_half(NAN))));
}

static void test_float8(void)
{
    CHECK(stats_f8e4m3_to_double(0x38) == 1.0);
    CHECK(stats_f8e4m3_to_double(0x7e) == 448.0);
    CHECK(stats_f8e4m3_to_double(0x01) == ldexp(1, -9));
    CHECK(isnan(stats_f8e4m3_to_double(0x7f)) && isnan(stats_f8e4m3_to_double(0xff)));
    CHECK(stats_f8e5m2_to_double(0x3c) == 1.0);
    CHECK(stats_f8e5m2_to_double(0x7b) == 57344.0);
    CHECK(stats_f8e5m2_to_double(0x7c) == INFINITY && stats_f8e5m2_to_double(0xfc) == -INFINITY);
    CHECK(stats_f8e5m2_to_double(0x01) == ldexp(1, -16));
    uint8_t e4[256], e5[256];
    for (int i = 0; i < 256; i++) e4[i] = e5[i] = (uint8_t)i;
    int64_t sz[1] = {256}, st[1] = {1};
    tensor_stats s;
    CHECK(stats_compute(e4, DK_F8E4M3, 1, sz, st, &s, NULL, 0, NULL) == 0);
    CHECK(s.nan == 2 && s.posinf == 0 && s.zeros == 2 && s.subnormal == 14 && s.max == 448 && s.min == -448);
    CHECK(stats_compute(e5, DK_F8E5M2, 1, sz, st, &s, NULL, 0, NULL) == 0);
    CHECK(s.nan == 6 && s.posinf == 1 && s.neginf == 1 && s.zeros == 2 && s.subnormal == 6);
}

static void test_subnormal_per_dtype(void)
{
    uint16_t h[3] = {0x0001, 0x03ff, 0x0400};   /* two half subnormals, then the smallest normal */
    uint16_t b[3] = {0x0001, 0x007f, 0x0080};
    double d[2] = {4.9e-324, 1e-300};
    int64_t sz[1] = {3}, st[1] = {1}, sz2[1] = {2};
    tensor_stats s;
    CHECK(stats_compute(h, DK_F16, 1, sz, st, &s, NULL, 0, NULL) == 0 && s.subnormal == 2);
    CHECK(stats_compute(b, DK_BF16, 1, sz, st, &s, NULL, 0, NULL) == 0 && s.subnormal == 2);
    CHECK(stats_compute(d, DK_F64, 1, sz2, st, &s, NULL, 0, NULL) == 0 && s.subnormal == 1);
}

static void test_integers_and_bool(void)
{
    int64_t big[3] = {INT64_MIN / 2, 0, 7};
    uint8_t u[4] = {0, 255, 1, 2}, bl[4] = {0, 1, 1, 0};
    int8_t i8[3] = {-128, 127, 0};
    int16_t i16[2] = {-32768, 32767};
    int64_t sz[1] = {3}, sz4[1] = {4}, sz2[1] = {2}, st[1] = {1};
    tensor_stats s;
    CHECK(stats_compute(big, DK_I64, 1, sz, st, &s, NULL, 0, NULL) == 0 && s.min == (double)(INT64_MIN / 2));
    CHECK(stats_compute(u, DK_U8, 1, sz4, st, &s, NULL, 0, NULL) == 0 && s.max == 255 && s.mean == 64.5);
    CHECK(stats_compute(bl, DK_BOOL, 1, sz4, st, &s, NULL, 0, NULL) == 0 && s.mean == 0.5 && s.zeros == 2);
    CHECK(stats_compute(i8, DK_I8, 1, sz, st, &s, NULL, 0, NULL) == 0 && s.min == -128 && s.max == 127);
    CHECK(stats_compute(i16, DK_I16, 1, sz2, st, &s, NULL, 0, NULL) == 0 && s.mean == -0.5);
}

/* A large mean and tiny spread over many blocks: naive sum-of-squares would
 * lose every digit of the variance. */
static void test_numerics_large_mean(void)
{
    size_t n = 1000003;
    double *x = malloc(n * sizeof *x);
    uint64_t r = 12345;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        x[i] = 1e9 + (double)(r >> 11) * 0x1.0p-53;
    }
    int64_t sz[1] = {(int64_t)n}, st[1] = {1};
    tensor_stats s, ref;
    CHECK(stats_compute(x, DK_F64, 1, sz, st, &s, NULL, 0, NULL) == 0);
    ref_stats(x, n, &ref);
    CHECK(close_rel(s.mean, ref.mean, 1e-15));
    CHECK(fabs(s.std - ref.std) / ref.std < 1e-6);
    CHECK(fabs(s.std - sqrt(1.0 / 12)) < 0.01);   /* uniform [0,1) spread */
    free(x);
}

/* Complex: statistics over |z|, counts per element (a NaN or Inf in either
 * part), values as (re, im) pairs never split, strided reads in pairs. */
static void test_complex(void)
{
    float z[12] = {3, 4, 0, 0, NAN, 1, 1, -INFINITY, 0, -2, 1, 0};   /* 3+4j 0 nan+1j 1-infj -2j 1 */
    int64_t n6[1] = {6}, one[1] = {1}, two[1] = {2}, n3[1] = {3};
    tensor_stats s;
    double v[12];
    size_t nv = 0;
    CHECK(stats_compute(z, DK_C64, 1, n6, one, &s, v, 5, &nv) == 0);
    CHECK(s.numel == 6 && s.finite == 4 && s.nan == 1 && s.neginf == 1 && s.posinf == 0 && s.zeros == 1);
    CHECK(s.min == 0 && s.max == 5 && s.mean == 2 && s.at.min == 1 && s.at.max == 0 && s.at.nonfinite == 2);
    CHECK(nv == 4 && v[0] == 3 && v[1] == 4 && v[2] == 0 && v[3] == 0);   /* 5 doubles: 2 whole pairs */
    double zz[4] = {1, 2, 3, 4};
    CHECK(stats_compute(zz, DK_C128, 1, two, one, &s, v, 12, &nv) == 0 && nv == 4 && v[3] == 4);
    CHECK(s.max == 5 && fabs(s.min - sqrt(5)) < 1e-15);
    int64_t st2[1] = {2};   /* every other element: 3+4j, nan+1j, -2j */
    CHECK(stats_read(z, DK_C64, 1, n3, st2, 1, v, 2) == 0 && isnan(v[0]) && v[1] == 1 && v[2] == 0 && v[3] == -2);
    CHECK(stats_kind_lanes(DK_C64) == 2 && stats_kind_lanes(DK_F32) == 1 && stats_kind_size(DK_C128) == 16);
    dtype_kind k;
    CHECK(stats_kind_by_name("complex64", &k) == 0 && k == DK_C64);
}

/* Unsigned 16/32/64-bit: full range, no sign extension; and the streaming
 * form (stats_acc) fed in pieces agrees with one stats_compute call. */
static void test_unsigned_and_streaming(void)
{
    uint16_t a[3] = {0, 65535, 7};
    uint32_t b[3] = {4294967295u, 1, 0};
    uint64_t c[2] = {UINT64_C(1) << 40, 3};
    int64_t n3[1] = {3}, n2[1] = {2}, one[1] = {1};
    tensor_stats s;
    CHECK(stats_compute(a, DK_U16, 1, n3, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.min == 0 && s.max == 65535 && s.zeros == 1 && s.mean == (65535.0 + 7) / 3);
    CHECK(stats_compute(b, DK_U32, 1, n3, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.max == 4294967295.0 && s.min == 0 && s.zeros == 1);
    CHECK(stats_compute(c, DK_U64, 1, n2, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.max == ldexp(1, 40) && s.min == 3);
    CHECK(stats_compute(a, DK__COUNT, 1, n3, one, &s, NULL, 0, NULL) == -1);

    float x[10000];
    for (int i = 0; i < 10000; i++) x[i] = (float)(1000.0 + sin(i) * (i % 7));
    x[17] = NAN;
    x[9999] = 0;
    int64_t n[1] = {10000};
    double v1[20], v2[20];
    size_t nv1, nv2;
    tensor_stats whole, piecewise;
    CHECK(stats_compute(x, DK_F32, 1, n, one, &whole, v1, 20, &nv1) == 0);
    stats_acc acc;
    stats_acc_init(&acc, v2, 20);
    CHECK(stats_acc_add(&acc, x, DK_F32, 7) == 0);          /* uneven pieces, across block edges */
    CHECK(stats_acc_add(&acc, x + 7, DK_F32, 5000) == 0);
    CHECK(stats_acc_add(&acc, x + 5007, DK_F32, 0) == 0);
    CHECK(stats_acc_add(&acc, x + 5007, DK_F32, 4993) == 0);
    CHECK(stats_acc_add(&acc, NULL, DK_F32, 1) == -1);
    stats_acc_finish(&acc, &piecewise, &nv2);
    CHECK(piecewise.numel == 10000 && piecewise.nan == 1 && piecewise.zeros == 1 && piecewise.finite == 9999);
    CHECK(piecewise.min == whole.min && piecewise.max == whole.max);
    CHECK(fabs(piecewise.mean - whole.mean) <= 1e-12 * fabs(whole.mean));
    CHECK(fabs(piecewise.std - whole.std) <= 1e-9 * whole.std);
    CHECK(nv1 == 20 && nv2 == 20);
    for (int i = 0; i < 20; i++) CHECK(v1[i] == v2[i] || (isnan(v1[i]) && isnan(v2[i])));
}

/* Positions: the first min, max and NaN/Inf in logical order, for every
 * layout and through the streaming form; ties keep the first. */
static void test_positions(void)
{
    float x[8] = {3, -1, 5, -1, NAN, 5, INFINITY, 0};
    int64_t n8[1] = {8}, one[1] = {1};
    tensor_stats s;
    CHECK(stats_compute(x, DK_F32, 1, n8, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.has_at && s.at.min == 1 && s.at.max == 2 && s.at.nonfinite == 4);
    int64_t sz[2] = {4, 2}, tr[2] = {1, 4};                /* the 2x4 storage read as its 4x2 transpose */
    CHECK(stats_compute(x, DK_F32, 2, sz, tr, &s, NULL, 0, NULL) == 0);
    /* logical order: x[0] x[4] x[1] x[5] x[2] x[6] x[3] x[7] */
    CHECK(s.at.min == 2 && s.at.max == 3 && s.at.nonfinite == 1);
    int64_t fl[1] = {-1};                                  /* flipped: x[7] x[6] ... x[0] */
    CHECK(stats_compute(x + 7, DK_F32, 1, n8, fl, &s, NULL, 0, NULL) == 0);
    CHECK(s.at.min == 4 && s.at.max == 2 && s.at.nonfinite == 1);
    int64_t ids[5] = {4, 137, 2, -3, 137};
    int64_t n5[1] = {5};
    CHECK(stats_compute(ids, DK_I64, 1, n5, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.at.min == 3 && s.at.max == 1 && s.at.nonfinite == -1);
    float nans[2] = {NAN, -INFINITY};
    int64_t n2[1] = {2};
    CHECK(stats_compute(nans, DK_F32, 1, n2, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.at.min == -1 && s.at.max == -1 && s.at.nonfinite == 0);
    int64_t n0[1] = {0};
    CHECK(stats_compute(NULL, DK_F32, 1, n0, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.has_at && s.at.min == -1 && s.at.max == -1 && s.at.nonfinite == -1);
    /* across block edges, streamed in uneven pieces */
    static float big[10000];
    for (int i = 0; i < 10000; i++) big[i] = (float)(i % 100);
    big[6001] = -7;
    big[4097] = 1000;
    big[8193] = NAN;
    big[9000] = NAN;
    int64_t nb[1] = {10000};
    CHECK(stats_compute(big, DK_F32, 1, nb, one, &s, NULL, 0, NULL) == 0);
    CHECK(s.at.min == 6001 && s.at.max == 4097 && s.at.nonfinite == 8193);
    stats_acc acc;
    stats_acc_init(&acc, NULL, 0);
    CHECK(stats_acc_add(&acc, big, DK_F32, 4097) == 0);
    CHECK(stats_acc_add(&acc, big + 4097, DK_F32, 5903) == 0);
    tensor_stats p;
    stats_acc_finish(&acc, &p, NULL);
    CHECK(p.has_at && p.at.min == 6001 && p.at.max == 4097 && p.at.nonfinite == 8193);
}

int main(void)
{
    RUN(test_f32_special_values);
    RUN(test_empty_and_single);
    RUN(test_strided_views);
    RUN(test_half_bf16_conversions);
    RUN(test_float8);
    RUN(test_subnormal_per_dtype);
    RUN(test_integers_and_bool);
    RUN(test_numerics_large_mean);
    RUN(test_unsigned_and_streaming);
    RUN(test_positions);
    RUN(test_complex);
    return CHECK_DONE();
}
