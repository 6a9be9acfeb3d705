/* test_tensor_file.c — .npy files as tensor_recs (core/inputs/tensor_file.c, the
 * inspector's .npy reference): files written here byte by byte, their values,
 * shape, strides and statistics; malformed files and their messages; the
 * --ref-npy option syntax (core/cli/cli_opts.c); a loaded file against a tensor
 * with tensor_compare (tui/hunt.c). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli_opts.h"
#include "tensor_diff.h"
#include "tensor_file.h"

static char tmpdir[] = "/tmp/aotidbg-test-tensor-file-XXXXXX";
static char path[512];

/* Writes <tmpdir>/name: the \x93NUMPY preamble (format major.0), the header
 * dict padded with spaces to a multiple of 64 bytes and ended by '\n', then
 * ndata bytes of data. hlen_override != 0 writes that header length instead. */
static const char *write_npy(const char *name, int major, const char *dict, const void *data, size_t ndata,
                             unsigned hlen_override)
{
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t hlen = dl + 1;
    while ((pre + hlen) % 64)
        hlen++;
    unsigned hl = hlen_override ? hlen_override : (unsigned)hlen;
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(major, f);
    fputc(0, f);
    fputc(hl & 0xff, f);
    fputc((hl >> 8) & 0xff, f);
    if (major != 1) {
        fputc((hl >> 16) & 0xff, f);
        fputc((hl >> 24) & 0xff, f);
    }
    fwrite(dict, 1, dl, f);
    for (size_t i = dl; i + 1 < hlen; i++)
        fputc(' ', f);
    fputc('\n', f);
    if (ndata)
        fwrite(data, 1, ndata, f);
    fclose(f);
    return path;
}

static arena ar = ARENA_INIT;
static strbuf err = STRBUF_INIT;

static int load(const char *p, size_t max_values, tensor_rec *t)
{
    strbuf_reset(&err);
    return tensor_file_load_npy(&ar, p, max_values, t, &err);
}

/* mean and unbiased std of the finite values, the definition in model.h */
static void moments(const double *v, size_t n, double *mean, double *std)
{
    double s = 0, m2 = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            s += v[i], k++;
    *mean = s / (double)k;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            m2 += (v[i] - *mean) * (v[i] - *mean);
    *std = k > 1 ? sqrt(m2 / (double)(k - 1)) : NAN;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1); }

static void test_f4(void)
{
    float v[6] = {1.5f, -2.0f, 0.0f, NAN, INFINITY, 1e-40f};   /* 1e-40f is subnormal */
    const char *p = write_npy("f4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v,
                              sizeof v, 0);
    tensor_rec t;
    CHECK(load(p, 0, &t) == 0);
    CHECK_STR(t.dtype, "float32");
    CHECK_STR(t.name, p);
    CHECK(t.phase == PHASE_AFTER);
    CHECK(t.ndim == 2 && t.shape[0] == 2 && t.shape[1] == 3 && t.strides[0] == 3 && t.strides[1] == 1);
    CHECK(t.nvalues == 6 && t.values_complete == 1);
    for (int i = 0; i < 6; i++)
        CHECK(i == 3 ? isnan(t.values[i]) : t.values[i] == (double)v[i]);
    CHECK(t.has_stats);
    CHECK(t.stats.numel == 6 && t.stats.finite == 4);
    CHECK(t.stats.nan == 1 && t.stats.posinf == 1 && t.stats.neginf == 0);
    CHECK(t.stats.zeros == 1 && t.stats.subnormal == 1);
    double fin[4] = {1.5, -2.0, 0.0, (double)1e-40f}, mean, std;
    moments(fin, 4, &mean, &std);
    CHECK(t.stats.min == -2.0 && t.stats.max == 1.5);
    CHECK(near(t.stats.mean, mean) && near(t.stats.std, std));
}

/* A Fortran-order 2-D file loads in row-major order: element [i, j] is data[i + 2 j]. */
static void test_fortran_2d(void)
{
    float v[6] = {1, 2, 3, 4, 5, 6};
    tensor_rec t;
    CHECK(load(write_npy("fo.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, sizeof v, 0),
               0, &t) == 0);
    CHECK(t.ndim == 2 && t.shape[0] == 2 && t.shape[1] == 3 && t.nvalues == 6 && t.values_complete);
    CHECK(t.values[0] == 1 && t.values[1] == 3 && t.values[2] == 5 && t.values[3] == 2 && t.values[5] == 6);
    CHECK(t.stats.at.max == 5);   /* the 6 sits at [1, 2]: row-major index 5 */
}

static void test_f8_v2_fortran_1d(void)
{
    double v[3] = {-INFINITY, 1e-310, 3.25};   /* 1e-310 is a float64 subnormal */
    /* format 2.0, keys in another order, fortran_order True is fine for 1-D */
    const char *p = write_npy("f8.npy", 2, "{'shape': (3,), 'fortran_order': True, 'descr': '<f8'}", v, sizeof v, 0);
    tensor_rec t;
    CHECK(load(p, 0, &t) == 0);
    CHECK_STR(t.dtype, "float64");
    CHECK(t.ndim == 1 && t.shape[0] == 3 && t.strides[0] == 1);
    CHECK(t.values[0] == -INFINITY && t.values[1] == 1e-310 && t.values[2] == 3.25);
    CHECK(t.stats.neginf == 1 && t.stats.subnormal == 1 && t.stats.finite == 2);
    CHECK(t.stats.min == 1e-310 && t.stats.max == 3.25);
}

static void test_ints_bool_u8(void)
{
    int64_t i8[4] = {-5, 0, 7, INT64_C(1) << 40};
    tensor_rec t;
    CHECK(load(write_npy("i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", i8,
                         sizeof i8, 0), 0, &t) == 0);
    CHECK_STR(t.dtype, "int64");
    CHECK(t.values[0] == -5 && t.values[1] == 0 && t.values[2] == 7 && t.values[3] == 1099511627776.0);
    CHECK(t.stats.zeros == 1 && t.stats.min == -5 && t.stats.max == 1099511627776.0 && t.stats.subnormal == 0);

    int16_t i2[3] = {-3, 32767, -32768};
    CHECK(load(write_npy("i2.npy", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", i2,
                         sizeof i2, 0), 0, &t) == 0);
    CHECK(t.values[0] == -3 && t.values[1] == 32767 && t.values[2] == -32768);

    int32_t i4[2] = {-1, 123456789};
    CHECK(load(write_npy("i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", i4,
                         sizeof i4, 0), 0, &t) == 0);
    CHECK(t.values[0] == -1 && t.values[1] == 123456789);

    signed char i1[2] = {-128, 5};
    CHECK(load(write_npy("i1.npy", 1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", i1,
                         sizeof i1, 0), 0, &t) == 0);
    CHECK(t.values[0] == -128 && t.values[1] == 5);

    unsigned char b1[4] = {1, 0, 1, 1};
    CHECK(load(write_npy("b1.npy", 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", b1,
                         sizeof b1, 0), 0, &t) == 0);
    CHECK_STR(t.dtype, "bool");
    CHECK(t.values[0] == 1 && t.values[1] == 0 && t.stats.zeros == 1);
    CHECK(t.stats.mean == 0.75);

    unsigned char u1[3] = {255, 0, 128};
    CHECK(load(write_npy("u1.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", u1,
                         sizeof u1, 0), 0, &t) == 0);
    CHECK_STR(t.dtype, "uint8");
    CHECK(t.values[0] == 255 && t.values[1] == 0 && t.values[2] == 128);
    CHECK(t.stats.min == 0 && t.stats.max == 255);
}

static void test_f2(void)
{
    /* 1.0, the smallest subnormal 2^-24, -2.5, +inf, NaN, -0.0 */
    unsigned char h[12] = {0x00, 0x3c, 0x01, 0x00, 0x00, 0xc1, 0x00, 0x7c, 0x00, 0x7e, 0x00, 0x80};
    tensor_rec t;
    CHECK(load(write_npy("f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }", h,
                         sizeof h, 0), 0, &t) == 0);
    CHECK_STR(t.dtype, "float16");
    CHECK(t.values[0] == 1.0 && t.values[1] == ldexp(1, -24) && t.values[2] == -2.5);
    CHECK(t.values[3] == INFINITY && isnan(t.values[4]) && t.values[5] == 0 && signbit(t.values[5]));
    CHECK(t.stats.subnormal == 1 && t.stats.posinf == 1 && t.stats.nan == 1 && t.stats.zeros == 1);
    CHECK(t.stats.finite == 4);
}

static void test_scalar_empty_and_budget(void)
{
    double one = 42;
    tensor_rec t;
    CHECK(load(write_npy("scalar.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &one,
                         sizeof one, 0), 0, &t) == 0);
    CHECK(t.ndim == 0 && t.nvalues == 1 && t.values[0] == 42 && t.stats.numel == 1 && isnan(t.stats.std));

    CHECK(load(write_npy("empty.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", NULL,
                         0, 0), 0, &t) == 0);
    CHECK(t.ndim == 2 && t.shape[0] == 0 && t.nvalues == 0 && t.values_complete == 1);
    CHECK(t.stats.numel == 0 && t.stats.finite == 0 && isnan(t.stats.min) && isnan(t.stats.mean));

    /* a cap below numel keeps the first values, statistics cover all */
    float v[10];
    for (int i = 0; i < 10; i++)
        v[i] = (float)i;
    CHECK(load(write_npy("ten.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }", v,
                         sizeof v, 0), 4, &t) == 0);
    CHECK(t.nvalues == 4 && t.values_complete == 0 && t.values[3] == 3);
    CHECK(t.stats.numel == 10 && t.stats.max == 9 && t.stats.mean == 4.5);

    /* complex64: (re, im) pairs, statistics over |z|; a cut keeps whole pairs */
    float z[6] = {3, 4, 0, 0, 0, -1};
    CHECK(load(write_npy("z.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", z, sizeof z, 0),
               0, &t) == 0);
    CHECK(!strcmp(t.dtype, "complex64") && t.nvalues == 6 && t.values_complete && t.values[5] == -1);
    CHECK(t.stats.numel == 3 && t.stats.max == 5 && t.stats.min == 0 && t.stats.zeros == 1);
    CHECK(load(write_npy("z3.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", z, sizeof z, 0),
               3, &t) == 0);
    CHECK(t.nvalues == 2 && !t.values_complete);

    /* larger than one read chunk (64 KiB): values and stats span chunks */
    size_t n = 50000;
    float *big = malloc(n * sizeof *big);
    double s = 0;
    for (size_t i = 0; i < n; i++)
        big[i] = (float)(i % 97) - 48.0f, s += big[i];
    CHECK(load(write_npy("big.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (50000,), }", big,
                         n * sizeof *big, 0), 0, &t) == 0);
    CHECK(t.nvalues == n && t.values_complete && t.values[n - 1] == big[n - 1] && t.values[20000] == big[20000]);
    CHECK(near(t.stats.mean, s / (double)n) && t.stats.zeros == (n + 96 - 48) / 97);
    free(big);
}

/* Each malformed file fails with a message naming the file and the problem. */
static void bad(const char *name, const char *dict, const void *data, size_t n, unsigned hlen, const char *want)
{
    tensor_rec t;
    const char *p = write_npy(name, 1, dict, data, n, hlen);
    CHECK(load(p, 0, &t) == -1);
    CHECK_CONTAINS(err.buf, p);
    CHECK_CONTAINS(err.buf, want);
    CHECK(t.nvalues == 0 && t.values == NULL && t.ndim == 0);
}

static void test_malformed(void)
{
    float v[4] = {1, 2, 3, 4};
    bad("cut.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, 0,
        "data is cut off: the header promises 24 bytes of data, the file has 16");
    bad("hlen.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", v, 4, 60000,
        "header length 60000 runs past the file");
    bad("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", v,
        sizeof v, 0, "more than 2^40 elements");
    bad("neg.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2), }", v, sizeof v, 0,
        "shape: expected a non-negative integer");
    bad("c4.npy", "{'descr': '<c4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v, 0,
        ".npy dtype '<c4' is not supported");
    bad("c16b.npy", "{'descr': '|c16', 'fortran_order': False, 'shape': (2,), }", v, sizeof v, 0,
        ".npy dtype '|c16' is not supported");
    bad("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", v, sizeof v, 0,
        ".npy dtype '>f4' is not supported");
    bad("obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", v, sizeof v, 0,
        "not supported");
    bad("noshape.npy", "{'descr': '<f4', 'fortran_order': False, }", v, sizeof v, 0, "lacks 'shape'");
    bad("garbage.npy", "[1, 2]", v, sizeof v, 0, "expected '{'");
    bad("deep.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", v,
        sizeof v, 0, "more than 16 dimensions");

    tensor_rec t;
    snprintf(path, sizeof path, "%s/plain.txt", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("not numpy at all\n", f);
    fclose(f);
    CHECK(load(path, 0, &t) == -1);
    CHECK_CONTAINS(err.buf, "not a .npy file");
    snprintf(path, sizeof path, "%s/missing.npy", tmpdir);
    CHECK(load(path, 0, &t) == -1);
    CHECK_CONTAINS(err.buf, "missing.npy: cannot open it");
    CHECK(load(tmpdir, 0, &t) == -1);
    CHECK_CONTAINS(err.buf, "not a regular file");
}

static void test_cli_ref_npy(void)
{
    cli_ref_npy r;
    strbuf e = STRBUF_INIT;
    CHECK(cli_parse_ref_npy("3:buf2=out/ref.npy", &r, &e) == 0);
    CHECK(r.kernel == 3 && r.phase == PHASE_AFTER);
    CHECK_STR(r.name, "buf2");
    CHECK_STR(r.path, "out/ref.npy");
    CHECK(cli_parse_ref_npy("12:before:arg0_1=a=b.npy", &r, &e) == 0);
    CHECK(r.kernel == 12 && r.phase == PHASE_BEFORE);
    CHECK_STR(r.name, "arg0_1");
    CHECK_STR(r.path, "a=b.npy");
    CHECK(cli_parse_ref_npy("0:after:buf0=x.npy", &r, &e) == 0 && r.phase == PHASE_AFTER);
    static const struct { const char *spec, *want; } bads[] = {
        {"buf2=x.npy", "KERNEL must be a kernel index"},
        {"-1:buf2=x.npy", "KERNEL must be a kernel index"},
        {"3buf2=x.npy", "no ':' after the kernel index"},
        {"3:buf2", "no '=PATH'"},
        {"3:=x.npy", "the tensor name is empty"},
        {"3:before:=x.npy", "the tensor name is empty"},
        {"3:buf2=", "the PATH after '=' is empty"},
        {"99999999999:buf2=x.npy", "kernel index too large"},
    };
    for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
        strbuf_reset(&e);
        CHECK(cli_parse_ref_npy(bads[i].spec, &r, &e) == -1);
        CHECK_CONTAINS(e.buf, bads[i].want);
        CHECK_CONTAINS(e.buf, "expected KERNEL:TENSOR=PATH");
    }
    strbuf_release(&e);
}

/* The loaded file as the reference of tensor_compare: the first differing
 * flat index and the errors come out of the file's values. */
static void test_compare(void)
{
    float ref[6] = {1, 2, 3, 4, 5, 6};
    tensor_rec r;
    CHECK(load(write_npy("ref.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", ref,
                         sizeof ref, 0), 0, &r) == 0);
    int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
    double vals[6] = {1, 2, 3, 4, 5.5, 6};
    tensor_rec t = {.name = "buf0", .phase = PHASE_AFTER, .ndim = 2, .shape = shape, .strides = strides,
                    .dtype = "float32", .nvalues = 6, .values = vals, .values_complete = 1};
    tensor_diff d;
    tensor_compare(&t, &r, 0, &d);
    CHECK(d.by_values && !d.sampled && !d.shape_differs);
    CHECK(d.first_diff == 4 && d.differing == 1 && d.compared == 6);
    CHECK(d.max_abs == 0.5 && d.max_rel == 0.1);
    strbuf sb = STRBUF_INIT;
    fmt_index(&sb, &t, d.first_diff);
    CHECK_STR(sb.buf, "[1, 1]");
    strbuf_release(&sb);
    /* statistics only, when the tensor holds no values */
    tensor_rec s = t;
    s.nvalues = 0;
    s.values = NULL;
    s.has_stats = 1;
    s.stats = r.stats;
    tensor_compare(&s, &r, 0, &d);
    CHECK(!d.by_values && d.compared == 5 && d.differing == 0);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 2;
    RUN(test_f4);
    RUN(test_f8_v2_fortran_1d);
    RUN(test_fortran_2d);
    RUN(test_ints_bool_u8);
    RUN(test_f2);
    RUN(test_scalar_empty_and_budget);
    RUN(test_malformed);
    RUN(test_cli_ref_npy);
    RUN(test_compare);
    arena_release(&ar);
    strbuf_release(&err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return CHECK_DONE();
}
