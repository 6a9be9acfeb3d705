/* test_inputs.c — the inputs spec parser and the .npy / .safetensors readers. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "inputs.h"

static char tmpdir[] = "/tmp/aotidbg-test-inputs-XXXXXX";

/* Parses text as <tmpdir>/spec.yaml; returns rc, err text in *errs (static). */
static int parse(session **sp, const char *text, const char **errs)
{
    static strbuf err = STRBUF_INIT;
    strbuf_reset(&err);
    *sp = session_new();
    char name[256];
    snprintf(name, sizeof name, "%s/spec.yaml", tmpdir);
    int rc = inputs_parse(*sp, name, text, strlen(text), &err);
    *errs = err.buf;
    return rc;
}

static void write_file(const char *name, const void *data, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

static void test_good_spec(void)
{
    session *s;
    const char *e;
    int rc = parse(&s, "inputs:\n"
                       "  - {shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 7}\n"
                       "  - {shape: [3, 2], strides: [1, 3], dtype: torch.int64, fill: arange}\n"
                       "  - {shape: [], dtype: half, fill: full, value: -2.5, device: 'cuda:1'}\n"
                       "  - shape: [2, 2]\n"
                       "    dtype: f64\n"
                       "    fill: file\n"
                       "    file: sub/x.npy\n", &e);
    CHECK(rc == 0);
    CHECK(s->ninputs == 4);
    if (s->ninputs == 4) {
        CHECK(s->inputs[0].ndim == 2 && s->inputs[0].shape[0] == 4 && s->inputs[0].shape[1] == 8);
        CHECK_STR(s->inputs[0].dtype, "float32");
        CHECK(s->inputs[0].seed == 7 && s->inputs[0].fill == FILL_RANDN);
        CHECK_STR(s->inputs[1].dtype, "int64");
        CHECK(s->inputs[1].has_strides && s->inputs[1].strides[0] == 1 && s->inputs[1].strides[1] == 3);
        CHECK(!s->inputs[0].has_strides);
        CHECK(s->inputs[1].fill == FILL_ARANGE);
        CHECK_STR(s->inputs[1].device, "cpu");   /* default */
        CHECK(s->inputs[2].ndim == 0);
        CHECK_STR(s->inputs[2].dtype, "float16");
        CHECK(s->inputs[2].value == -2.5);
        CHECK_STR(s->inputs[2].device, "cuda:1");
        CHECK_STR(s->inputs[3].dtype, "float64");
        CHECK(s->inputs[3].file && strstr(s->inputs[3].file, tmpdir) == s->inputs[3].file);
        CHECK_CONTAINS(s->inputs[3].file, "/sub/x.npy");
    }
    session_free(s);
}

static void test_errors(void)
{
    static const struct { const char *text, *want; } cases[] = {
        {"inputs:\n  - {shape: [2], dtype: float33}\n", "spec.yaml:2:25: input 0: dtype: found 'float33'"},
        {"inputs:\n  - {shape: [2, -1], dtype: float32}\n", "spec.yaml:2:17: input 0: shape[1]: found '-1'"},
        {"inputs:\n  - {shape: 4, dtype: float32}\n", "2:13: input 0: shape: found a scalar, expected a list"},
        {"inputs:\n  - {dtype: float32}\n", "2:5: input 0: missing 'shape'"},
        {"inputs:\n  - {shape: [1]}\n", "missing 'dtype'"},
        {"inputs:\n  - {shape: [1], dtype: float32, colour: red}\n", "2:34: input 0: unknown field 'colour'"},
        {"inputs:\n  - {shape: [1], dtype: float32, device: tpu}\n", "expected cpu, cuda or cuda:N"},
        {"inputs:\n  - {shape: [1], dtype: float32, fill: full}\n", "fill: full needs 'value: N'"},
        {"inputs:\n  - {shape: [1], dtype: float32, fill: file}\n", "fill: file needs 'file: PATH'"},
        {"inputs:\n  - {shape: [1], dtype: float32, value: 3}\n", "'value' is only used with fill: full"},
        {"inputs:\n  - {shape: [1], dtype: float32, fill: sparkle}\n", "fill: found 'sparkle'"},
        {"inputs:\n  - {shape: [1], dtype: float32, dtype: int8}\n", "2:34: duplicate key 'dtype'"},
        {"inputs:\n  - &a {shape: [1], dtype: float32}\n  - *a\n", "anchor (&a)"},
        {"inputs:\n  - {shape: [1], dtype: float32, seed: 1.5}\n", "seed: found '1.5', expected a non-negative"},
        {"inputs:\n  - {shape: [2, 2], strides: [1], dtype: float32}\n", "strides has 1 entries, the shape has 2"},
        {"inputs: 3\n", "1:9: inputs: found a scalar, expected a list"},
        {"outputs: []\n", "1:1: unknown top-level key 'outputs', expected 'inputs'"},
        {"", "found an empty file"},
        {"- 1\n", "found a list, expected a mapping"},
        {"inputs:\n  - {shape: [1, dtype: float32}\n", "spec.yaml:2:"},
        {"inputs: []\n---\ninputs: []\n", "second YAML document"},
        {"inputs:\n  - {shape: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], dtype: float32}\n", "17 dims, expected at most 16"},
        {"inputs:\n  - {shape: [1099511627776, 2], dtype: float32}\n", "more than 2^40 elements"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        session *s;
        const char *e;
        int rc = parse(&s, cases[i].text, &e);
        if (rc != -1 || !strstr(e, cases[i].want))
            fprintf(stderr, "case %zu: rc %d, err: %s\n", i, rc, e);
        CHECK(rc == -1);
        CHECK_CONTAINS(e, cases[i].want);
        session_free(s);
    }
}

static void test_depth_cap(void)
{
    /* 10000 nested lists: libyaml alone would recurse; we stop at our cap */
    size_t n = 10000;
    char *t = malloc(2 * n + 32);
    strcpy(t, "inputs: ");
    size_t o = strlen(t);
    for (size_t i = 0; i < n; i++)
        t[o++] = '[';
    for (size_t i = 0; i < n; i++)
        t[o++] = ']';
    t[o] = 0;
    session *s;
    const char *e;
    CHECK(parse(&s, t, &e) == -1);
    CHECK_CONTAINS(e, "nesting deeper than");
    session_free(s);
    free(t);
}

static void test_empty_inputs(void)
{
    session *s;
    const char *e;
    CHECK(parse(&s, "inputs:\n", &e) == 0);
    CHECK(s->ninputs == 0);
    session_free(s);
    CHECK(parse(&s, "inputs: []\n", &e) == 0);
    CHECK(s->ninputs == 0);
    session_free(s);
}

static void test_dtypes(void)
{
    CHECK_STR(dtype_canonical("torch.bfloat16"), "bfloat16");
    CHECK_STR(dtype_canonical("bf16"), "bfloat16");
    CHECK_STR(dtype_canonical("torch.long"), "int64");
    CHECK_STR(dtype_canonical("uint8"), "uint8");
    CHECK_STR(dtype_canonical("torch.complex64"), "complex64");
    CHECK_STR(dtype_canonical("cdouble"), "complex128");
    CHECK(dtype_canonical("complex32") == NULL && dtype_size("complex128") == 16);
    CHECK(dtype_size("bfloat16") == 2 && dtype_size("int64") == 8 && dtype_size("bool") == 1);
    CHECK(dtype_size("nope") == 0);
}

/* Builds a v1 .npy with the given header dict and data. */
static void make_npy(const char *name, const char *dict, const void *data, size_t n, int version)
{
    char hdr[512];
    size_t pre = version == 1 ? 10 : 12;
    size_t dl = strlen(dict);
    size_t total = pre + dl + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = dl + pad + 1;
    unsigned char buf[4096];
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)version;
    buf[7] = 0;
    if (version == 1) {
        buf[8] = hlen & 0xff;
        buf[9] = hlen >> 8;
    } else {
        buf[8] = hlen & 0xff;
        buf[9] = (hlen >> 8) & 0xff;
        buf[10] = buf[11] = 0;
    }
    memcpy(hdr, dict, dl);
    memset(hdr + dl, ' ', pad);
    hdr[dl + pad] = '\n';
    memcpy(buf + pre, hdr, hlen);
    memcpy(buf + pre + hlen, data, n);
    write_file(name, buf, pre + hlen + n);
}

static int materialize(const char *spec, char **raw, const char **errs)
{
    static strbuf err = STRBUF_INIT;
    strbuf_reset(&err);
    session *s;
    const char *e;
    int rc = parse(&s, spec, &e);
    if (rc == 0)
        rc = inputs_materialize_file(&s->inputs[0], 0, tmpdir, raw, &err);
    else
        strbuf_addstr(&err, e);
    *errs = err.buf;
    session_free(s);
    return rc;
}

static void test_npy(void)
{
    float v[6] = {1, 2, 3, 4, 5, 6.5f};
    make_npy("a.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, 1);
    make_npy("a3.npy", "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (6,)}", v, sizeof v, 3);
    make_npy("f.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, sizeof v, 1);
    make_npy("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, 1);
    make_npy("short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", v, sizeof v, 1);
    make_npy("junk.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", v, sizeof v, 1);
    char *raw = NULL;
    const char *e;
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: a.npy}\n", &raw, &e) == 0);
    if (raw) {
        FILE *f = fopen(raw, "rb");
        float got[8];
        size_t n = fread(got, sizeof *got, 8, f);
        fclose(f);
        CHECK(n == 6 && !memcmp(got, v, sizeof v));
        free(raw);
        raw = NULL;
    }
    CHECK(materialize("inputs:\n  - {shape: [6], dtype: float32, fill: file, file: a3.npy}\n", &raw, &e) == 0);
    free(raw);
    raw = NULL;
    CHECK(materialize("inputs:\n  - {shape: [3, 2], dtype: float32, fill: file, file: a.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "input 0:");
    CHECK_CONTAINS(e, "has shape [2, 3], the spec says [3, 2]");
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: int32, fill: file, file: a.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "holds float32, the spec says dtype int32");
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: f.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "Fortran");
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: be.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "'>f4' is not supported");
    CHECK(materialize("inputs:\n  - {shape: [2, 4], dtype: float32, fill: file, file: short.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "cut off");
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: junk.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "bad .npy header");
    CHECK(materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: nope.npy}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "cannot open");
    CHECK(raw == NULL);
}

static void make_st(const char *name, const char *json, const void *data, size_t n)
{
    unsigned char buf[4096];
    uint64_t hl = strlen(json);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)(hl >> (8 * i));
    memcpy(buf + 8, json, hl);
    memcpy(buf + 8 + hl, data, n);
    write_file(name, buf, 8 + hl + n);
}

static void test_safetensors(void)
{
    int64_t v[4] = {10, -20, 30, 40};
    make_st("w.safetensors", "{\"__metadata__\": {\"format\": \"pt\"}, "
            "\"a\": {\"dtype\": \"I64\", \"shape\": [2, 2], \"data_offsets\": [0, 32]}, "
            "\"b\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [24, 32]}}", v, sizeof v);
    make_st("bad.safetensors", "{\"a\": {\"dtype\": \"I64\", \"shape\": [2, 2], \"data_offsets\": [0, 64]}}", v,
            sizeof v);
    make_st("json.safetensors", "{\"a\": {\"dtype\": ", v, sizeof v);
    char *raw = NULL;
    const char *e;
    CHECK(materialize("inputs:\n  - {shape: [1], dtype: int64, fill: file, file: w.safetensors, key: b}\n",
                      &raw, &e) == 0);
    if (raw) {
        FILE *f = fopen(raw, "rb");
        int64_t got[2];
        CHECK(fread(got, 8, 2, f) == 1 && got[0] == 40);
        fclose(f);
        free(raw);
        raw = NULL;
    }
    CHECK(materialize("inputs:\n  - {shape: [2, 2], dtype: int64, fill: file, file: w.safetensors}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "holds 2 tensors (a, b); add 'key: NAME'");
    CHECK(materialize("inputs:\n  - {shape: [2, 2], dtype: int64, fill: file, file: w.safetensors, key: c}\n",
                      &raw, &e) == -1);
    CHECK_CONTAINS(e, "has no tensor 'c'");
    CHECK(materialize("inputs:\n  - {shape: [2, 2], dtype: int64, fill: file, file: bad.safetensors}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "fall outside");
    CHECK(materialize("inputs:\n  - {shape: [2, 2], dtype: int64, fill: file, file: json.safetensors}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "not a JSON object");
    CHECK(materialize("inputs:\n  - {shape: [2, 2], dtype: float32, fill: file, file: w.safetensors, key: a}\n",
                      &raw, &e) == -1);
    CHECK_CONTAINS(e, "holds int64, the spec says dtype float32");
    /* a header length far past the file */
    unsigned char huge[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '{', '}'};
    write_file("huge.safetensors", huge, sizeof huge);
    CHECK(materialize("inputs:\n  - {shape: [1], dtype: int64, fill: file, file: huge.safetensors}\n", &raw, &e) == -1);
    CHECK_CONTAINS(e, "runs past the file");
}

/* Every truncation of a valid .npy and .safetensors must fail cleanly, never crash. */
static void test_truncations(void)
{
    float v[6] = {1, 2, 3, 4, 5, 6};
    make_npy("t.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/t.npy", tmpdir);
    FILE *f = fopen(path, "rb");
    unsigned char full[512];
    size_t n = fread(full, 1, sizeof full, f);
    fclose(f);
    int fails = 0;
    for (size_t cut = 0; cut < n; cut++) {
        write_file("t.npy", full, cut);
        char *raw = NULL;
        const char *e;
        if (materialize("inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: t.npy}\n", &raw, &e) == -1)
            fails++;
        free(raw);
    }
    CHECK(fails == (int)n);
}

/* Deterministic mutations (flip, insert, delete bytes) of a valid spec and of
 * valid .npy / .safetensors files: every one must end in 0 or -1 with a
 * message, never a crash or a hang (CI runs this under ASan + UBSan). */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t mutate(unsigned char *buf, size_t n, size_t cap)
{
    static const char tokens[] = "[]{}:,-&*!|>'\"#\n 09.eE";
    int edits = 1 + (int)(next_rand() % 4);
    for (int e = 0; e < edits; e++) {
        size_t at = n ? next_rand() % n : 0;
        switch (next_rand() % 3) {
        case 0:
            if (n)
                buf[at] = next_rand() % 2 ? (unsigned char)tokens[next_rand() % (sizeof tokens - 1)]
                                          : (unsigned char)next_rand();
            break;
        case 1:
            if (n + 1 < cap) {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = (unsigned char)tokens[next_rand() % (sizeof tokens - 1)];
                n++;
            }
            break;
        default:
            if (n) {
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            }
        }
    }
    return n;
}

static void test_mutations(void)
{
    static const char spec[] = "inputs:\n  - {shape: [2, 3], dtype: float32, device: cpu, fill: randn, seed: 7}\n"
                               "  - shape: [4]\n    dtype: int64\n    fill: full\n    value: 3\n"
                               "  - {shape: [2], dtype: float32, fill: file, file: m.npy}\n";
    unsigned char buf[512];
    int ok = 0, failed = 0;
    for (int i = 0; i < 3000; i++) {
        size_t n = sizeof spec - 1;
        memcpy(buf, spec, n);
        n = mutate(buf, n, sizeof buf);
        session *s = session_new();
        strbuf err = STRBUF_INIT;
        int rc = inputs_parse(s, "m.yaml", (const char *)buf, n, &err);
        if (rc == 0)
            ok++;
        else if (rc == -1 && err.len)
            failed++;
        strbuf_release(&err);
        session_free(s);
    }
    CHECK(ok + failed == 3000);
    CHECK(ok > 0 && failed > 0);

    float v[6] = {1, 2, 3, 4, 5, 6};
    make_npy("m.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, 1);
    int64_t w[4] = {1, 2, 3, 4};
    make_st("m.safetensors", "{\"x\": {\"dtype\": \"I64\", \"shape\": [2, 2], \"data_offsets\": [0, 32]}}", w,
            sizeof w);
    static const char *const files[] = {"m.npy", "m.safetensors"};
    static const char *const specs[] = {"inputs:\n  - {shape: [2, 3], dtype: float32, fill: file, file: m.npy}\n",
                                        "inputs:\n  - {shape: [2, 2], dtype: int64, fill: file, file: m.safetensors}\n"};
    for (int f = 0; f < 2; f++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[f]);
        FILE *fp = fopen(path, "rb");
        unsigned char orig[512];
        size_t on = fread(orig, 1, sizeof orig, fp);
        fclose(fp);
        int answered = 0;
        for (int i = 0; i < 400; i++) {
            memcpy(buf, orig, on);
            size_t n = mutate(buf, on, sizeof buf);
            write_file(files[f], buf, n);
            char *raw = NULL;
            const char *e;
            int rc = materialize(specs[f], &raw, &e);
            answered += rc == 0 || (rc == -1 && e[0]);
            free(raw);
        }
        CHECK(answered == 400);
    }
}

/* A package exported with positional arguments names its inputs args[0], args[1] (in_spec_) and
 * arg0_1, arg1_1: those names still order a spec; any other names label the inputs in order. */
static void test_labels_for_positional_packages(void)
{
    static const char *const user[] = {"args[0]", "args[1]"}, *const aoti[] = {"arg0_1", "arg1_1"};
    static const char *const kw[] = {"x", "mask"};
    const char *errs;
    session *s;
    strbuf err = STRBUF_INIT;
    const char *two = "inputs:\n  - {name: %s, shape: [2], dtype: float32}\n  - {name: %s, shape: [3], dtype: int64}\n";
    char text[256];
    int labels = -1;
    snprintf(text, sizeof text, two, "table", "idx");
    CHECK(parse(&s, text, &errs) == 0);
    CHECK(inputs_order_by_name(s, "spec.yaml", user, aoti, 2, &labels, &err) == 0 && labels == 1);
    CHECK_STR(s->inputs[0].name, "table");
    CHECK(s->inputs[0].shape[0] == 2);
    session_free(s);
    snprintf(text, sizeof text, two, "\"args[1]\"", "\"args[0]\"");   /* the package's own names reorder */
    CHECK(parse(&s, text, &errs) == 0);
    CHECK(inputs_order_by_name(s, "spec.yaml", user, aoti, 2, &labels, &err) == 0 && labels == 0);
    CHECK(s->inputs[0].shape[0] == 3 && !strcmp(s->inputs[0].name, "args[0]"));
    session_free(s);
    snprintf(text, sizeof text, two, "table", "arg0_1");   /* a mix is an unknown name */
    CHECK(parse(&s, text, &errs) == 0);
    CHECK(inputs_order_by_name(s, "spec.yaml", user, aoti, 2, &labels, &err) == -1);
    CHECK_CONTAINS(err.buf, "input 'table': the model has no input of that name");
    session_free(s);
    strbuf_reset(&err);
    snprintf(text, sizeof text, two, "table", "idx");   /* a package with keyword names: never labels */
    CHECK(parse(&s, text, &errs) == 0);
    CHECK(inputs_order_by_name(s, "spec.yaml", kw, aoti, 2, NULL, &err) == -1);
    CHECK_CONTAINS(err.buf, "it takes x, mask");
    session_free(s);
    strbuf_release(&err);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_good_spec);
    RUN(test_errors);
    RUN(test_depth_cap);
    RUN(test_empty_inputs);
    RUN(test_dtypes);
    RUN(test_npy);
    RUN(test_safetensors);
    RUN(test_truncations);
    RUN(test_mutations);
    RUN(test_labels_for_positional_packages);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return CHECK_DONE();
}
