/* test_tensor_close.c — element-wise closeness (core/model/tensor_close.h) and
 * stats_read (host_stats.h): assert_close's rule and defaults, NaN and
 * infinities, the first differing index and the largest errors, strided
 * tensors of every dtype against contiguous references of another, and
 * pieces fed in blocks giving what one pass gives. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "host_stats.h"
#include "tensor_close.h"

static void test_defaults_are_assert_close(void)
{
    close_tol t = close_default_tol(DK_F32);
    CHECK(t.atol == 1e-5 && t.rtol == 1.3e-6);
    t = close_default_tol(DK_F16);
    CHECK(t.atol == 1e-5 && t.rtol == 1e-3);
    t = close_default_tol(DK_BF16);
    CHECK(t.atol == 1e-5 && t.rtol == 1.6e-2);
    t = close_default_tol(DK_F64);
    CHECK(t.atol == 1e-7 && t.rtol == 1e-7);
    t = close_default_tol(DK_I64);
    CHECK(t.atol == 0 && t.rtol == 0);
    t = close_default_tol(DK_BOOL);
    CHECK(t.atol == 0 && t.rtol == 0);
    /* scaled: atol is at least rtol * the reference's largest |value| */
    t = close_scaled_tol(DK_F16, 4.0);
    CHECK(t.atol == 4e-3 && t.rtol == 1e-3);
    t = close_scaled_tol(DK_F32, 1.0);   /* 1.3e-6 < 1e-5: assert_close's atol stays */
    CHECK(t.atol == 1e-5);
    t = close_scaled_tol(DK_I64, 100.0);
    CHECK(t.atol == 0 && t.rtol == 0);
}

static void test_rule_and_first_difference(void)
{
    close_result r;
    close_init(&r, (close_tol){1e-5, 1e-3});
    /* 1000 vs 1000.5: err 0.5 <= 1e-5 + 1 -> close; 2 vs 2.01 -> differs (0.01 > 0.00201) */
    double got[] = {1.0, 1000.5, 2.01, 0.0, -3.0}, want[] = {1.0, 1000.0, 2.0, 0.0, -3.5};
    close_add(&r, got, want, 5);
    CHECK(r.compared == 5);
    CHECK(r.differing == 2);
    CHECK(r.first == 2);
    CHECK(r.got == 2.01 && r.want == 2.0);
    CHECK(r.max_abs == 0.5);
    CHECK(r.max_at == 1);   /* the first of the two 0.5 errors */
    CHECK(fabs(r.max_rel - 0.5 / 3.5) < 1e-15);
    /* a second piece continues the index */
    double g2[] = {7.0}, w2[] = {9.0};
    close_add(&r, g2, w2, 1);
    CHECK(r.compared == 6 && r.differing == 3 && r.first == 2 && r.max_at == 5 && r.max_abs == 2.0);
}

static void test_nan_and_infinities(void)
{
    close_result r;
    close_init(&r, (close_tol){0, 0});
    double got[] = {NAN, INFINITY, -INFINITY, 1.0}, want[] = {NAN, INFINITY, -INFINITY, 1.0};
    close_add(&r, got, want, 4);
    CHECK(r.differing == 0 && r.first == -1 && r.max_abs == 0 && r.max_at == -1);
    double g2[] = {NAN, 1.0, INFINITY}, w2[] = {0.5, NAN, -INFINITY};
    close_add(&r, g2, w2, 3);
    CHECK(r.differing == 3 && r.first == 4 && isnan(r.got) && r.want == 0.5);
    CHECK(isinf(r.max_abs) && isinf(r.max_rel) && r.max_at == 4);
    /* want 0, got a little: relative error is infinite, absolute small */
    close_init(&r, (close_tol){1e-5, 0});
    double g3[] = {1e-6}, w3[] = {0.0};
    close_add(&r, g3, w3, 1);
    CHECK(r.differing == 0 && isinf(r.max_rel) && r.max_abs == 1e-6);
}

static void test_strided_against_contiguous_other_dtype(void)
{
    /* a 3x4 float32 tensor stored transposed (strides 1, 3) vs its row-major float64 values */
    float store[12];
    double want[12];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            store[j * 3 + i] = (float)(i * 10 + j);
            want[i * 4 + j] = i * 10 + j;
        }
    int64_t sizes[2] = {3, 4}, strides[2] = {1, 3};
    close_result r;
    close_init(&r, close_default_tol(DK_F32));
    CHECK(close_compare(store, DK_F32, 2, sizes, strides, want, DK_F64, &r) == 0);
    CHECK(r.compared == 12 && r.differing == 0);
    want[6] += 0.25;   /* element [1, 2] */
    close_init(&r, close_default_tol(DK_F32));
    CHECK(close_compare(store, DK_F32, 2, sizes, strides, want, DK_F64, &r) == 0);
    CHECK(r.differing == 1 && r.first == 6 && r.got == 12.0 && r.want == 12.25);
    /* bad arguments */
    int64_t neg[1] = {-1}, one[1] = {1};
    CHECK(close_compare(store, DK_F32, 1, neg, one, want, DK_F64, &r) < 0);
    CHECK(close_compare(NULL, DK_F32, 2, sizes, strides, want, DK_F64, &r) < 0);
    CHECK(close_compare(store, DK__COUNT, 2, sizes, strides, want, DK_F64, &r) < 0);
}

static void test_blocks_and_half_types(void)
{
    /* more than one block: 5000 bfloat16 values against float32, one off at 4321 */
    enum { N = 5000 };
    static uint16_t bf[N];
    static float f[N];
    for (int i = 0; i < N; i++) {
        double v = (i % 97) * 0.125 - 3.0;
        bf[i] = stats_double_to_bf16(v);
        f[i] = (float)stats_bf16_to_double(bf[i]);
    }
    f[4321] += 1.0f;
    int64_t n = N, one = 1;
    close_result r;
    close_init(&r, close_default_tol(DK_BF16));
    CHECK(close_compare(bf, DK_BF16, 1, &n, &one, f, DK_F32, &r) == 0);
    CHECK(r.compared == N && r.differing == 1 && r.first == 4321 && r.max_at == 4321);
}

static void test_stats_read_positions(void)
{
    int64_t data[24];
    for (int i = 0; i < 24; i++)
        data[i] = i;
    /* a 2x3x4 view with a flipped last dimension: element [i, j, k] at 12i + 4j + 3 - k */
    int64_t sizes[3] = {2, 3, 4}, strides[3] = {12, 4, -1};
    double out[24];
    CHECK(stats_read(data + 3, DK_I64, 3, sizes, strides, 5, out, 7) == 0);
    for (int t = 0; t < 7; t++) {
        int flat = 5 + t, i = flat / 12, j = flat / 4 % 3, k = flat % 4;
        CHECK(out[t] == 12 * i + 4 * j + 3 - k);
    }
    CHECK(stats_read(data, DK_I64, 3, sizes, strides, 20, out, 5) < 0);   /* past the end */
    CHECK(stats_read(data, DK_I64, 3, sizes, strides, 24, out, 0) == 0);
    CHECK(stats_read(NULL, DK_I64, 3, sizes, strides, 0, out, 1) < 0);
    uint8_t b[3] = {0, 1, 7};
    int64_t n3 = 3, one = 1;
    CHECK(stats_read(b, DK_BOOL, 1, &n3, &one, 0, out, 3) == 0);
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 1);
    double scalar = 2.5;
    CHECK(stats_read(&scalar, DK_F64, 0, NULL, NULL, 0, out, 1) == 0 && out[0] == 2.5);
}

int main(void)
{
    RUN(test_defaults_are_assert_close);
    RUN(test_rule_and_first_difference);
    RUN(test_nan_and_infinities);
    RUN(test_strided_against_contiguous_other_dtype);
    RUN(test_blocks_and_half_types);
    RUN(test_stats_read_positions);
    return CHECK_DONE();
}
