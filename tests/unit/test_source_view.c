/* test_source_view.c — kernel_source_find lands on a kernel's body (not its
 * forward declaration) and on the failing line; source_excerpt. Texts have
 * the shape torch 2.13 writes (CPU: kernel.cpp + wrapper.cpp; CUDA: Triton
 * source embedded in wrapper.cpp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "source_view.h"

static const char cpu_wrapper[] =
    "#include <torch/csrc/inductor/aoti_include/cpu.h>\n"                       /* 1 */
    "extern \"C\"  void  cpp_fused_embedding_0(const int64_t* in_ptr0,\n"       /* 2 */
    "                       float* out_ptr0);\n"                                /* 3 */
    "void AOTInductorModel::run_impl(\n"                                        /* 4 */
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"cpp_fused_embedding_0\");\n"
    "    cpp_fused_embedding_0((const int64_t*)(arg15_1.data_ptr()), (float*)(buf0.data_ptr()));\n"   /* 6 */
    "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf1, b, buf0, w, 1L, 1L));\n";        /* 7 */

static const char cpu_kernel[] =
    "// Triton kernels are embedded as comments in /tmp/x.wrapper.cpp\n"       /* 1 */
    "\n"                                                                        /* 2 */
    "extern \"C\"  void  cpp_fused_embedding_0(const int64_t* in_ptr0,\n"       /* 3 */
    "                       float* out_ptr0)\n"                                 /* 4 */
    "{\n"                                                                       /* 5 */
    "    auto tmp2 = c10::convert<int64_t>(tmp1);\n"                            /* 6 */
    "    AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < 100L), \"index out of bounds: 0 <= tmp2 < 100L\");\n"  /* 7 */
    "    { if (x) { out_ptr0[0] = '}'; } }\n"                                   /* 8 */
    "}\n"                                                                       /* 9 */
    "extern \"C\"  void  cpp_fused_relu_1(float* p)\n"                          /* 10 */
    "{\n"                                                                       /* 11 */
    "}\n";                                                                      /* 12 */

static const char cuda_wrapper[] =
    "/*\n"                                                                      /* 1 */
    "@triton.jit\n"                                                             /* 2 */
    "def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, ks0, ks1, xnumel, XBLOCK : tl.constexpr):\n"
    "    tmp4 = tl.where(tmp3, tmp2, tmp0)\n"                                   /* 4 */
    "    tl.device_assert(((0 <= tmp4) & (tmp4 < ks1)) | ~(xmask), \"index out of bounds: 0 <= tmp4 < ks1\")\n"
    "\n"                                                                        /* 6 */
    "    tl.store(out_ptr0 + (x2), tmp6, xmask)\n"                              /* 7 */
    "*/\n"                                                                      /* 8 */
    "static inline void call_triton_poi_fused_embedding_0(const CUdeviceptr in_ptr0) {\n"          /* 9 */
    "}\n"
    "void AOTInductorModel::run_impl(\n"
    "    call_triton_poi_fused_embedding_0(arg1_1, arg0_1, buf0, s27, s53, 8L*s27, this->device_idx_, stream, kernels);\n";

/* What torch 2.11 wrote on the H200: the Triton source indented, in a comment
 * inside call_triton_<name>, between the launcher's declaration and its body. */
static const char cuda211_wrapper[] =
    "static inline void call_triton_poi_fused_embedding_0(\n"                       /* 1 */
    "    const in_ptr0_type_& in_ptr0,\n"                                           /* 2 */
    "    kernels_type_& kernels_\n"                                                 /* 3 */
    "){\n"                                                                          /* 4 */
    "    /*\n"                                                                      /* 5 */
    "    async_compile.triton('triton_poi_fused_embedding_0', '''\n"                /* 6 */
    "    import triton\n"                                                           /* 7 */
    "    @triton.jit\n"                                                             /* 8 */
    "    def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
    "        xnumel = 64\n"                                                         /* 10 */
    "\n"                                                                            /* 11 */
    "        tl.device_assert(((0 <= tmp4) & (tmp4 < 100)) | ~(xmask), \"index out of bounds: 0 <= tmp4 < 100\")\n"
    "        tl.store(out_ptr0 + (x2), tmp6, xmask)\n"                              /* 13 */
    "    ''', device_str='cuda')\n"                                                 /* 14 */
    "    */\n"                                                                      /* 15 */
    "    launchKernel(kernels_.triton_poi_fused_embedding_0, grid_0, grid_1, grid_2, 1, 0, kernel_args_, stream_);\n"
    "}\n"
    "void AOTInductorModel::run_impl(\n"
    "    aoti_torch_save_tensor_handle(arg15_1, \"arg15_1\", \"before_launch\", \"triton_poi_fused_embedding_0\");\n"
    "    call_triton_poi_fused_embedding_0(arg15_1, emb_weight, buf0, 64L, this->device_idx_, stream, kernels);\n";

static void test_cuda_211(void)
{
    source_spot sp;
    size_t wl = strlen(cuda211_wrapper);
    CHECK(kernel_source_find(cuda211_wrapper, wl, NULL, 0, "triton_poi_fused_embedding_0", 19, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_WRAPPER && sp.line == 9 && sp.body_first == 9 && sp.body_last == 13);
    CHECK_STR(sp.what, "body");
    CHECK(kernel_source_find(cuda211_wrapper, wl, NULL, 0, "triton_poi_fused_embedding_0", 19,
                             "index out of bounds: 0 <= tmp4 < 100", 0, &sp) == 0);
    CHECK(sp.line == 12 && !strcmp(sp.what, "failing line"));
}

static void test_cpu(void)
{
    source_spot sp;
    size_t wl = strlen(cpu_wrapper), kl = strlen(cpu_kernel);
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_embedding_0", 0, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_KERNEL && sp.line == 3 && sp.body_first == 3 && sp.body_last == 9);
    CHECK_STR(sp.what, "body");
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_embedding_0", 0,
                             "index out of bounds: 0 <= tmp2 < 100L", 0, &sp) == 0);
    CHECK(sp.part == SRC_KERNEL && sp.line == 7);
    CHECK_STR(sp.what, "failing line");
    /* the error's kernel.cpp:N, when the message is not found */
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_embedding_0", 0, "nope", 6, &sp) == 0);
    CHECK(sp.line == 6 && !strcmp(sp.what, "failing line"));
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_embedding_0", 0, NULL, 11, &sp) == 0);
    CHECK(sp.line == 3 && !strcmp(sp.what, "body"));   /* line 11 is another kernel's */
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_relu_1", 0, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_KERNEL && sp.body_first == 10 && sp.body_last == 12);
    /* without kernel.cpp, no body: never the forward declaration as a body, the launch instead */
    CHECK(kernel_source_find(cpu_wrapper, wl, NULL, 0, "cpp_fused_embedding_0", 0, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_WRAPPER && sp.line == 6 && !strcmp(sp.what, "launch"));
    /* an extern op: its launch, or the provenance's line */
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "aoti_torch_cpu_addmm_out", 0, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_WRAPPER && sp.line == 7 && !strcmp(sp.what, "launch"));
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "aoti_torch_cpu_addmm_out", 5, NULL, 0, &sp) == 0);
    CHECK(sp.line == 7);   /* the call after the provenance's printer line */
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "at::_ops::sdpa::call", 5, NULL, 0, &sp) == 0);
    CHECK(sp.line == 5 && !strcmp(sp.what, "launch"));   /* a printer name that is no call: the line given */
    CHECK(kernel_source_find(cpu_wrapper, wl, cpu_kernel, kl, "cpp_fused_missing_9", 0, NULL, 0, &sp) == -1);
    /* a body that never closes (a cut file) ends at the text's end, and nothing is read past it */
    static const char cut[] = "void k(int a)\n{\n  { \"}\\";
    char *heap = malloc(sizeof cut - 1);   /* no NUL after it: ASan sees a read past the end */
    memcpy(heap, cut, sizeof cut - 1);
    CHECK(kernel_source_find(NULL, 0, heap, sizeof cut - 1, "k", 0, "never there", 0, &sp) == 0);
    CHECK(sp.part == SRC_KERNEL && sp.body_first == 1 && sp.body_last == 3);
    free(heap);
}

static void test_triton(void)
{
    source_spot sp;
    size_t wl = strlen(cuda_wrapper);
    CHECK(kernel_source_find(cuda_wrapper, wl, NULL, 0, "triton_poi_fused_embedding_0", 0, NULL, 0, &sp) == 0);
    CHECK(sp.part == SRC_WRAPPER && sp.line == 3 && sp.body_first == 3 && sp.body_last == 7);
    CHECK(kernel_source_find(cuda_wrapper, wl, NULL, 0, "triton_poi_fused_embedding_0", 0,
                             "index out of bounds: 0 <= tmp4 < ks1", 0, &sp) == 0);
    CHECK(sp.line == 5 && !strcmp(sp.what, "failing line"));
}

static void test_excerpt(void)
{
    char path[] = "/tmp/aotidbg_test_srcXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "a\nb\n\tc\nd\ne\nf\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    CHECK(source_excerpt(path, 3, 1, &out, &err) == 0);
    CHECK_STR(out.buf, "      2  b\n>     3   c\n      4  d\n");
    strbuf_reset(&out);
    CHECK(source_excerpt(path, 1, 2, &out, &err) == 0 && !strncmp(out.buf, ">     1  a\n", 11));
    CHECK(source_excerpt(path, 40, 2, &out, &err) == -1);
    CHECK_CONTAINS(err.buf, "has no line 40");
    strbuf_reset(&err);
    CHECK(source_excerpt("/nonexistent/model.py", 3, 2, &out, &err) == -1);
    CHECK_CONTAINS(err.buf, "/nonexistent/model.py: ");
    strbuf_reset(&err);
    CHECK(source_excerpt("/tmp", 3, 2, &out, &err) == -1);
    CHECK_CONTAINS(err.buf, "not a regular file");
    unlink(path);
    strbuf_release(&out);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_cpu);
    RUN(test_triton);
    RUN(test_cuda_211);
    RUN(test_excerpt);
    return CHECK_DONE();
}
