/* test_repro_gen.c — the Triton side of a repro folder (repro_gen.h), with no GPU: a capture
 * as the runner writes it (capture.txt, launch.txt) becomes a launcher whose arguments are the
 * run's bytes, device pointers moved onto the launcher's copies; the launcher compiles (g++
 * -fsyntax-only, no CUDA headers: it declares the driver itself); what cannot be captured is
 * refused, naming the argument. The CPU kinds run end to end in tests/integration/test_repro.py. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "repro_gen.h"

static const char wrapper[] =
    "/*\nasync_compile.triton('triton_poi_fused_add_0', '''\n@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
    "    pass\n''', device_str='cuda')\n*/\n";

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    strbuf_read_file(&sb, path, 1 << 20, &err);
    strbuf_release(&err);
    return strbuf_detach(&sb, NULL);
}

/* A capture of triton_poi_fused_add_0(buf0 + 16 bytes, buf1, 256, scratch NULL) with params as given. */
static void write_capture(const char *dir, const char *params)
{
    put(dir, "capture.txt",
        "kernel\t3\ttriton_poi_fused_add_0\t\tprinter\n"
        "tensor\tbefore\tbuf0\tin/buf0.npy\tfloat32\t64\t1\tcontiguous\t7f0000001000\t256\n"
        "tensor\tbefore\tbuf1\tin/buf1.npy\tfloat32\t60\t1\tcontiguous\t7f0000002000\t240\n"
        "launch\tlaunch.txt\n"
        "tensor\tafter\tbuf1\texpected/buf1.npy\tfloat32\t60\t1\tcontiguous\t7f0000002000\t240\n"
        "status\tok\n");
    char launch[1024];
    snprintf(launch, sizeof launch, "function\ttriton_poi_fused_add_0\ngrid\t2\t1\t1\nblock\t128\t1\t1\nshmem\t0\n%s",
             params);
    put(dir, "launch.txt", launch);
}

static int make(const char *dir, strbuf *err)
{
    repro_capture c;
    if (repro_capture_read(dir, &c, err)) return -1;
    repro_job j = {.dir = dir, .package = "m.pt2", .kernel_spec = "3", .type = "triton", .wrapper = wrapper,
                   .kernel_cpp = "", .cubin = "\x7f" "ELF", .ncubin = 4};
    int rc = repro_write(&j, &c, err);
    repro_capture_release(&c);
    return rc;
}

static void test_triton_launch(void)
{
    char dir[] = "/tmp/aotidbg-repro-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_capture(dir, "param\t0\t0\t8\t10100000007f0000\n"      /* buf0 + 16 */
                       "param\t1\t8\t8\t00200000007f0000\n"      /* buf1 */
                       "param\t2\t16\t4\t00010000\n"             /* xnumel = 256 */
                       "param\t3\t24\t8\t0000000000000000\n");   /* a NULL scratch pointer */
    strbuf err = STRBUF_INIT;
    CHECK(make(dir, &err) == 0);
    if (err.len) fprintf(stderr, "%s\n", err.buf);
    char *m = slurp(dir, "main.cpp");
    CHECK_CONTAINS(m, "CUdeviceptr a0 = d_buf0 + 16;");
    CHECK_CONTAINS(m, "CUdeviceptr a1 = d_buf1 + 0;");
    CHECK_CONTAINS(m, "unsigned char a2[4] = {0x00, 0x01, 0x00, 0x00};");
    CHECK_CONTAINS(m, "d.LaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr)");
    CHECK_CONTAINS(m, "ModuleGetFunction(&f, mod, \"triton_poi_fused_add_0\")");
    char *py = slurp(dir, "kernel.py");
    CHECK_CONTAINS(py, "def triton_poi_fused_add_0(in_ptr0");
    char *readme = slurp(dir, "README");
    CHECK_CONTAINS(readme, "grid (2, 1, 1) block (128, 1, 1) shared memory 0 bytes, 4 arguments");
    /* the launcher is plain C++: it compiles here, with no CUDA headers */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && c++ -std=c++17 -fsyntax-only -DREPRO_DIR='\"%s\"' main.cpp 2>&1", dir, dir);
    if (system("command -v c++ >/dev/null 2>&1") == 0) CHECK(system(cmd) == 0);
    free(m);
    free(py);
    free(readme);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    strbuf_release(&err);
}

static void test_refusals(void)
{
    char dir[] = "/tmp/aotidbg-repro-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    strbuf err = STRBUF_INIT;
    write_capture(dir, "params\tunknown\tthis driver has no cuFuncGetParamInfo (CUDA 12.4 or later needed)\n");
    CHECK(make(dir, &err) == -1);
    CHECK_CONTAINS(err.buf, "cuFuncGetParamInfo");
    strbuf_reset(&err);
    /* a pointer into memory no captured tensor covers */
    write_capture(dir, "param\t0\t0\t8\t00009000007f0000\n");
    CHECK(make(dir, &err) == -1);
    CHECK_CONTAINS(err.buf, "argument 0 of triton_poi_fused_add_0");
    CHECK_CONTAINS(err.buf, "looks like a device pointer");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_triton_launch);
    RUN(test_refusals);
    return CHECK_DONE();
}
