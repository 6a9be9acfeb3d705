/* bench_checklist.c — checklist time on a package with 2,000 kernels.
 *
 * Builds (with libzip, in a temp folder) a CUDA-style package whose
 * wrapper.cpp has N kernels (default 2000), each launched with printer
 * level 1 around it and loaded from its own cubin (N cubin entries), 4
 * inputs with generated checks, and as its .so this executable itself (a real
 * ELF with .dynsym). Then times package_open + checklist_run with an inputs
 * spec: once without the libtorch symbol check and once with it (when a local
 * libtorch is found). Target: under 1 s. Prints figures; not a pass/fail test.
 * usage: bench_checklist [N_KERNELS] [RUNS] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>
#include "bench_util.h"
#include "checklist.h"
#include "package.h"

static void add(zip_t *z, const char *name, const void *data, size_t len)
{
    zip_source_t *s = zip_source_buffer(z, data, len, 0);
    if (!s || zip_file_add(z, name, s, 0) < 0) {
        fprintf(stderr, "zip_file_add %s: %s\n", name, zip_strerror(z));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int nk = argc > 1 ? atoi(argv[1]) : 2000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (nk < 1 || runs < 1)
        return 2;
    char dir[] = "/tmp/bench_checklist.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char pkg[256];
    snprintf(pkg, sizeof pkg, "%s/big.pt2", dir);

    strbuf w = STRBUF_INIT, err = STRBUF_INIT, so = STRBUF_INIT;
    for (int i = 0; i < 4; i++)
        strbuf_addf(&w, "    inputs_info_[%d].name = \"arg%d_1\";\n", i, i);
    for (int i = 0; i < 4; i++)
        strbuf_addf(&w,
                    "AOTI_NOINLINE static void check_input_%d(\n"
                    "    ConstantHandle arg%d_1 = ConstantHandle(input_handles[%d]);\n"
                    "    int32_t arg%d_1_expected_dtype = aoti_torch_dtype_float32();\n"
                    "    if (arg%d_1_size[0] < 2) {\n    }\n    if (arg%d_1_size[0] > 4096) {\n    }\n"
                    "    if (64 != arg%d_1_size[1]) {\n    }\n    if (1 != arg%d_1_stride[1]) {\n    }\n"
                    "    int32_t arg%d_1_expected_device_type = 1;\n}\n",
                    i, i, i, i, i, i, i, i, i);
    strbuf_addstr(&w, "void AOTInductorModel::run_impl(\n");
    for (int i = 0; i < 4; i++)
        strbuf_addf(&w, "    int64_t s%d = arg%d_1_size[0];\n", i, i);
    for (int k = 0; k < nk; k++) {
        strbuf_addf(&w, "    if (kernels_.triton_poi_fused_%d == nullptr) {\n"
                        "        kernels_.triton_poi_fused_%d = loadKernel(\"/tmp/torchinductor/x/c%05d.cubin\", "
                        "\"triton_poi_fused_%d\", 0, cubin_dir_, &kernels_.loaded_modules_); \n    }\n", k, k, k, k);
        for (int ph = 0; ph < 2; ph++) {
            for (int b = 0; b < 3; b++)
                strbuf_addf(&w, "    aoti_torch_save_tensor_handle(buf%d, \"buf%d\", \"%s\", \"triton_poi_fused_%d\");\n",
                            b, b, ph ? "after_launch" : "before_launch", k);
            if (!ph)
                strbuf_addf(&w, "    call_triton_poi_fused_%d(buf0, buf1, buf2, s0, stream, kernels, this->cubin_dir_);\n", k);
        }
    }
    strbuf_addstr(&w, "} // AOTInductorModel::run_impl\n");
    if (strbuf_read_file(&so, "/proc/self/exe", 256u << 20, &err) < 0) {
        fprintf(stderr, "%s\n", err.buf);
        return 1;
    }
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_COMPUTE_CAPABILITY\": \"90\", \"AOTI_CPU_ISA\": \"\"}";
    int zerr;
    zip_t *z = zip_open(pkg, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    add(z, "big/data/aotinductor/model/ckey.wrapper.cpp", w.buf, w.len);
    add(z, "big/data/aotinductor/model/ckey.wrapper.so", so.buf, so.len);
    add(z, "big/data/aotinductor/model/ckey.wrapper_metadata.json", meta, strlen(meta));
    char (*names)[64] = calloc((size_t)nk, 64);
    for (int k = 0; k < nk; k++) {
        snprintf(names[k], 64, "big/data/aotinductor/model/c%05d.cubin", k);
        add(z, names[k], "cubin", 5);
    }
    if (zip_close(z) < 0) {
        fprintf(stderr, "zip_close failed\n");
        return 1;
    }
    free(names);

    input_spec in[4];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 4; i++) {
        in[i].ndim = 2;
        in[i].shape[0] = 128;
        in[i].shape[1] = 64;
        in[i].dtype = "float32";
        in[i].device = "cuda:0";
    }
    const char *tl = checklist_torch_lib_dir();
    printf("bench_checklist: %d kernels, %d cubins, wrapper.cpp %zu bytes, package %s\n", nk, nk, w.len, pkg);
    for (int pass = 0; pass < (tl ? 2 : 1); pass++) {
        double *t = calloc((size_t)runs, sizeof *t);
        size_t nrows = 0, nfail = 0, kern = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now_ms();
            package_t *p;
            strbuf_reset(&err);
            if (package_open(&p, pkg, &err) < 0) {
                fprintf(stderr, "%s\n", err.buf);
                return 1;
            }
            checklist cl;
            checklist_init(&cl);
            checklist_opts o = {.device = "cuda:0", .inputs = in, .ninputs = 4, .torch_lib = pass ? tl : "none"};
            checklist_run(&cl, p, &o, &err);
            t[r] = bench_now_ms() - t0;
            nrows = cl.nrows;
            nfail = checklist_count(&cl, CHECK_FAIL);
            const check_row *wr = checklist_find(&cl, "package.wrapper-cpp");
            kern = wr && wr->got ? (size_t)strtoul(strchr(wr->got, ',') ? strchr(wr->got, ',') + 2 : "0", NULL, 10) : 0;
            checklist_free(&cl);
            package_close(p);
        }
        qsort(t, (size_t)runs, sizeof *t, bench_cmp_double);
        printf("  %-34s median %8.2f ms  min %8.2f ms  max %8.2f ms  (%zu rows, %zu FAIL, %zu kernels seen)%s\n",
               pass ? "open + checklist + libtorch symbols" : "open + checklist (no symbol check)", t[runs / 2], t[0],
               t[runs - 1], nrows, nfail, kern, t[runs / 2] < 1000 ? "  target < 1 s: met" : "  target < 1 s: MISSED");
        free(t);
    }
    if (!tl)
        printf("  (no local libtorch found: symbol check not timed)\n");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    strbuf_release(&w);
    strbuf_release(&so);
    strbuf_release(&err);
    return 0;
}
