/* test_reinstrument.c — unit tests of core/package/reinstrument.c, and (with
 * arguments) the driver the integration test and the benchmark use:
 *
 *   test_reinstrument                        the unit tests (no torch needed)
 *   test_reinstrument --build MODEL_DIR SHA  rebuild; prints progress lines
 *                                            "progress <stage> <fraction>" and
 *                                            finally "so <path>"; exit 1 on error
 *   test_reinstrument --instrument WRAPPER   prints the instrumented source
 *   test_reinstrument --consts SO            "consts <bytes> <section> <mmap tail>"
 *
 * The unit tests feed source text shaped like AOTI's (copied patterns from
 * torch 2.13's cpp_wrapper_cpu.py / cpp_wrapper_gpu.py output) and check the
 * inserted calls match what the printer at level 1 writes. The real-package
 * checks (same kernels, same order, same values as a printer-level-1 build)
 * are in tests/integration/test_reinstrument.py. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "reinstrument.h"

static const char *WRAP_HEAD =
    "#include <torch/csrc/inductor/aoti_include/cpu.h>\n"
    "void AOTInductorModel::run_impl(\n"
    "    AtenTensorHandle* input_handles, AtenTensorHandle* output_handles,\n"
    "    DeviceStreamType stream, AOTIProxyExecutorHandle proxy_executor) {\n";
static const char *WRAP_TAIL =
    "} // AOTInductorModel::run_impl\n"
    "} // namespace torch::aot_inductor\n\n"
    "// Compile cmd\n// g++ /tmp/torchinductor_u/ab/k.wrapper.cpp -O1 -c -o /tmp/torchinductor_u/ab/k.wrapper.o\n"
    "// Link cmd\n// g++ /tmp/torchinductor_u/ab/k.wrapper.o -shared -o /tmp/torchinductor_u/ab/k.wrapper.so\n";

static char *instrument(const char *body, reinstrument_stats *st, strbuf *err)
{
    strbuf in = STRBUF_INIT, out = STRBUF_INIT;
    strbuf_addf(&in, "%s%s%s", WRAP_HEAD, body, WRAP_TAIL);
    int rc = reinstrument_source(in.buf, in.len, NULL, &out, st, err);
    strbuf_release(&in);
    if (rc) { strbuf_release(&out); return NULL; }
    return strbuf_detach(&out, NULL);
}

static void test_cpp_kernel(void)
{
    strbuf err = STRBUF_INIT;
    reinstrument_stats st;
    char *o = instrument(
        "    cpp_fused_mul_0((float*)(buf2.data_ptr()), (const float*)(n_weight.data_ptr()), "
        "(const int64_t*)(arg5_1.data_ptr()), s77);\n", &st, &err);
    CHECK(o);
    CHECK_CONTAINS(o,
        "    aoti_torch_save_tensor_handle(buf2, \"buf2\", \"before_launch\", \"cpp_fused_mul_0\");\n"
        "    aoti_torch_save_tensor_handle(arg5_1, \"arg5_1\", \"before_launch\", \"cpp_fused_mul_0\");\n"
        "    cpp_fused_mul_0(");
    CHECK_CONTAINS(o, "s77);\n"
        "    aoti_torch_save_tensor_handle(buf2, \"buf2\", \"after_launch\", \"cpp_fused_mul_0\");\n"
        "    aoti_torch_save_tensor_handle(arg5_1, \"arg5_1\", \"after_launch\", \"cpp_fused_mul_0\");\n");
    CHECK(!strstr(o, "n_weight, \"n_weight\""));   /* constants are not saved by the printer */
    CHECK(st.launches == 1 && st.hooks == 4 && st.cpp == 1);
    free(o);
    strbuf_release(&err);
}

static void test_extern_kernel(void)
{
    strbuf err = STRBUF_INIT;
    reinstrument_stats st;
    char *o = instrument(
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, a, b, d, c, 0, &buf0_handle));\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf0, l_bias, arg4_1, "
        "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf9, 2, x, y, 0L)), 1L, 1L));\n",
        &st, &err);
    CHECK(o);
    CHECK_CONTAINS(o, "aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"aoti_torch_cpu_addmm_out\");\n"
                      "    aoti_torch_save_tensor_handle(arg4_1, \"arg4_1\", \"before_launch\", \"aoti_torch_cpu_addmm_out\");\n"
                      "    aoti_torch_save_tensor_handle(buf9, \"buf9\", \"before_launch\", \"aoti_torch_cpu_addmm_out\");\n"
                      "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(");
    CHECK(!strstr(o, "\"aoti_torch_empty_strided\""));   /* allocation is not a launch */
    CHECK(!strstr(o, "l_bias, \"l_bias\""));             /* constants are not saved, as the printer does not */
    CHECK(st.launches == 1 && st.extern_ops == 1 && st.hooks == 6 && st.main_graph == 1);
    free(o);
    /* attention: every argument a view of one buffer (hooked once), outputs made by the call (after it only) */
    o = instrument("    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu("
                   "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, a, b, 0L)), "
                   "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, a, b, 32L)), "
                   "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, a, b, 64L)), 0.0, 1, nullptr, "
                   "nullptr, &buf6_handle, &buf7_handle));\n", &st, &err);
    CHECK(o);
    CHECK_CONTAINS(o, "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"before_launch\", "
                      "\"aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu\");\n"
                      "    AOTI_TORCH_ERROR_CODE_CHECK(");
    CHECK_CONTAINS(o, "    aoti_torch_save_tensor_handle(buf6_handle, \"buf6\", \"after_launch\", "
                      "\"aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu\");\n");
    CHECK(!strstr(o, "buf6_handle, \"buf6\", \"before_launch\""));
    CHECK(st.launches == 1 && st.hooks == 2 + 1 + 1 && st.main_graph == 1);
    free(o);
    /* a convolution the printer hooks: its arguments are saved, its output handle is added after the call */
    o = instrument("    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"aoti_torch_cpu_convolution\");\n"
                   "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_convolution(buf0, buf1, nullptr, 1L, &buf3_handle));\n"
                   "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"aoti_torch_cpu_convolution\");\n",
                   &st, &err);
    CHECK(o);
    CHECK_CONTAINS(o, "&buf3_handle));\n    aoti_torch_save_tensor_handle(buf3_handle, \"buf3\", \"after_launch\", "
                      "\"aoti_torch_cpu_convolution\");\n    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\"");
    CHECK(st.launches == 0 && st.printer == 1 && st.outputs == 1 && st.hooks == 1);
    free(o);
    strbuf_release(&err);
}

static void test_triton_kernel(void)
{
    strbuf err = STRBUF_INIT, in = STRBUF_INIT, out = STRBUF_INIT;
    reinstrument_stats st;
    strbuf_addstr(&in,
        "template <typename in_ptr0_type_, typename out_ptr0_type_, typename kernels_type_>\n"
        "static __attribute__((noinline)) void call_triton_poi_fused_0(\n"
        "    const in_ptr0_type_& in_ptr0,\n    const out_ptr0_type_& out_ptr0,\n    int64_t xnumel,\n"
        "    int32_t device_idx_,\n    cudaStream_t stream_,\n    kernels_type_& kernels_,\n"
        "    const std::optional<std::string>& cubin_dir_ = std::nullopt\n){\n}\n");
    strbuf_addstr(&in, WRAP_HEAD);
    strbuf_addstr(&in, "    call_triton_poi_fused_0(arg0_1, buf1, s0,\n        this->device_idx_, stream, kernels, this->cubin_dir_);\n");
    strbuf_addstr(&in, WRAP_TAIL);
    CHECK(reinstrument_source(in.buf, in.len, NULL, &out, &st, &err) == 0);
    CHECK_CONTAINS(out.buf,
        "    aoti_torch_save_tensor_handle(arg0_1, \"arg0_1\", \"before_launch\", \"triton_poi_fused_0\");\n"
        "    aoti_torch_save_tensor_handle(buf1, \"buf1\", \"before_launch\", \"triton_poi_fused_0\");\n"
        "    call_triton_poi_fused_0(arg0_1, buf1, s0,\n        this->device_idx_, stream, kernels, this->cubin_dir_);\n"
        "    aoti_torch_save_tensor_handle(arg0_1, \"arg0_1\", \"after_launch\", \"triton_poi_fused_0\");\n");
    CHECK(!strstr(out.buf, "s0, \"s0\""));
    CHECK(st.triton == 1 && st.hooks == 4);
    strbuf_release(&in); strbuf_release(&out); strbuf_release(&err);
}

static void test_refusals(void)
{
    strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    const char *no_run = "int main() { cpp_fused_0((float*)(buf0.data_ptr())); }\n";
    CHECK(reinstrument_source(no_run, strlen(no_run), NULL, &out, NULL, &err) == -1);
    CHECK_CONTAINS(err.buf, "run_impl");
    strbuf_reset(&err);
    char *o = instrument("    cpp_fused_0((float*)(buf0.data_ptr()),\n", NULL, &err);   /* never closes */
    CHECK(!o);
    CHECK_CONTAINS(err.buf, "never closes");
    strbuf_reset(&err);
    /* a truncated run_impl */
    const char *trunc = "void AOTInductorModel::run_impl(\n  cpp_fused_0();\n";
    CHECK(reinstrument_source(trunc, strlen(trunc), NULL, &out, NULL, &err) == -1);
    CHECK_CONTAINS(err.buf, "closing");
    strbuf_release(&out); strbuf_release(&err);
}

static void note_launch(const char *kernel, size_t n, const char *branch, int hooked, void *ctx)
{
    strbuf_addf(ctx, "%.*s@%s%s ", (int)n, kernel, branch, hooked ? "+" : "");
}

/* A package built with the printer: its hooked launches stay as they are;
 * the launches inside torch.cond / while_loop subgraphs and the proxy call get
 * hooks, with the subgraph in the launch prefix (text as torch 2.13 writes it). */
static void test_printer_package_subgraphs_and_proxy(void)
{
    strbuf err = STRBUF_INIT;
    reinstrument_stats st;
    const char *body =
        "    aoti_torch_save_tensor_handle(arg3_1, \"arg3_1\", \"before_launch\", \"cpp_fused_gt_sum_0\");\n"
        "    cpp_fused_gt_sum_0((const float*)(arg3_1.data_ptr()), (bool*)(buf1.data_ptr()));\n"
        "    aoti_torch_save_tensor_handle(arg3_1, \"arg3_1\", \"after_launch\", \"cpp_fused_gt_sum_0\");\n"
        "    if (buf1_scalar) {\n"
        "        // subgraph: true_graph_0\n"
        "        AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(true_graph_0_buf0, true_graph_0_arg1_1, "
        "true_graph_0_arg0_1, wrap_with_raii_handle_if_needed(x), 1L, 1L));\n"
        "        cpp_fused_add_gt_relu_1((float*)(true_graph_0_buf1.data_ptr()));\n"
        "    } else {\n"
        "        // subgraph: false_graph_0\n"
        "        cpp_fused_gt_mul_sigmoid_2((const float*)(false_graph_0_arg0_1.data_ptr()), "
        "(float*)(false_graph_0_buf0.data_ptr()));\n"
        "    }\n"
        "    while (1) {\n"
        "        // subgraph: while_loop_cond_graph_0\n"
        "        cpp_fused_gt_3((const int64_t*)(while_loop_cond_graph_0_arg0_1.data_ptr()));\n"
        "        if (!buf0_cond_result_scalar) break;\n"
        "        // subgraph: while_loop_body_graph_0\n"
        "        cpp_fused_sin_4((float*)(while_loop_body_graph_0_buf0.data_ptr()));\n"
        "    }\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_proxy_executor_call_function(proxy_executor, 0, 0, "
        "std::array<int64_t, 0>{}.data(), 2, std::array<AtenTensorHandle, 2>{buf4, buf5}.data()));\n"
        "    aoti_torch_save_tensor_handle(buf6, \"buf6\", \"before_launch\", \"cpp_fused_mul_5\");\n"
        "    cpp_fused_mul_5((float*)(buf6.data_ptr()));\n";
    char *o = instrument(body, &st, &err);
    CHECK(o);
    CHECK(st.printer == 2 && st.launches == 6 && st.subgraph == 5 && st.proxy == 1 && st.extern_ops == 1);
    /* the printer's launch is not hooked twice */
    CHECK(!strstr(o, "\"before_launch\", \"cpp_fused_gt_sum_0\");\n    aoti_torch_save_tensor_handle(arg3_1"));
    CHECK_CONTAINS(o, "        aoti_torch_save_tensor_handle(true_graph_0_buf0, \"true_graph_0_buf0\", "
                      "\"before_launch:true_graph_0\", \"aoti_torch_cpu_addmm_out\");\n");
    CHECK_CONTAINS(o, "(true_graph_0_buf1, \"true_graph_0_buf1\", \"after_launch:true_graph_0\", "
                      "\"cpp_fused_add_gt_relu_1\");\n");
    CHECK_CONTAINS(o, "\"before_launch:false_graph_0\", \"cpp_fused_gt_mul_sigmoid_2\"");
    CHECK_CONTAINS(o, "\"before_launch:while_loop_cond_graph_0\", \"cpp_fused_gt_3\"");
    CHECK_CONTAINS(o, "\"before_launch:while_loop_body_graph_0\", \"cpp_fused_sin_4\"");
    /* after the loop: the main graph again; the proxy call named by index */
    CHECK_CONTAINS(o, "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"before_launch\", \"proxy_executor_call_0\");\n"
                      "    aoti_torch_save_tensor_handle(buf5, \"buf5\", \"before_launch\", \"proxy_executor_call_0\");\n");
    free(o);
    /* named from the executor's node list; counting only */
    strbuf in = STRBUF_INIT, out = STRBUF_INIT;
    strbuf_addf(&in, "%s%s%s", WRAP_HEAD, body, WRAP_TAIL);
    const char *ops[] = {"aten::_unique2"};
    reinstrument_opts ro = {ops, 1};
    CHECK(reinstrument_source(in.buf, in.len, &ro, &out, &st, &err) == 0);
    CHECK_CONTAINS(out.buf, "\"before_launch\", \"aten::_unique2\");");
    reinstrument_stats st2;
    CHECK(reinstrument_source(in.buf, in.len, &ro, NULL, &st2, &err) == 0);
    CHECK(st2.launches == st.launches && st2.hooks == st.hooks && st2.printer == 2);
    /* every launch with its branch, the printer's too (interposed kernels are named from it) */
    strbuf seen = STRBUF_INIT;
    reinstrument_opts each = {.each_launch = note_launch, .ctx = &seen};
    CHECK(reinstrument_source(in.buf, in.len, &each, NULL, NULL, &err) == 0);
    CHECK_STR(seen.buf, "cpp_fused_gt_sum_0@+ aoti_torch_cpu_addmm_out@true_graph_0 cpp_fused_add_gt_relu_1@true_graph_0 "
                        "cpp_fused_gt_mul_sigmoid_2@false_graph_0 cpp_fused_gt_3@while_loop_cond_graph_0 "
                        "cpp_fused_sin_4@while_loop_body_graph_0 proxy_executor_call_0@ cpp_fused_mul_5@+ ");
    strbuf_release(&seen);
    strbuf_release(&in); strbuf_release(&out); strbuf_release(&err);
}

static void test_find_cmd(void)
{
    strbuf err = STRBUF_INIT, cmd = STRBUF_INIT;
    char *o = instrument("", NULL, &err);
    CHECK(o);
    CHECK(reinstrument_find_cmd(o, strlen(o), "Compile cmd", &cmd, &err) == 0);
    CHECK_STR(cmd.buf, "g++ /tmp/torchinductor_u/ab/k.wrapper.cpp -O1 -c -o /tmp/torchinductor_u/ab/k.wrapper.o");
    CHECK(reinstrument_find_cmd(o, strlen(o), "Link cmd", &cmd, &err) == 0);
    CHECK_CONTAINS(cmd.buf, "-shared");
    CHECK(reinstrument_find_cmd("x", 1, "Link cmd", &cmd, &err) == -1);
    CHECK_CONTAINS(err.buf, "Link cmd");
    free(o);
    strbuf_release(&cmd); strbuf_release(&err);
}

static void test_build_refuses_bad_input(void)
{
    strbuf err = STRBUF_INIT;
    char *so = NULL;
    CHECK(reinstrument_build("/nonexistent-dir", "../../etc", NULL, NULL, &so, &err) == -1);
    CHECK_CONTAINS(err.buf, "hex");
    strbuf_reset(&err);
    CHECK(reinstrument_build("/nonexistent-dir", "abcdef0123456789", NULL, NULL, &so, &err) == -1);
    CHECK_CONTAINS(err.buf, "wrapper.cpp");
    CHECK(so == NULL);
    strbuf_reset(&err);
    const char *section; size_t tail;
    strbuf blob = STRBUF_INIT;
    CHECK(reinstrument_read_consts(AOTIDBG_SOURCE_DIR "/CMakeLists.txt", &blob, &section, &tail, &err) == -1);
    CHECK_CONTAINS(err.buf, "not an ELF");
    strbuf_release(&blob); strbuf_release(&err);
}

/* Untrusted input: every prefix of a real-shaped wrapper, and bytes flipped
 * into it, must give 0 or -1 with a message, never a crash or a hang. */
static void test_truncated_and_mangled_sources(void)
{
    strbuf in = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
    strbuf_addstr(&in,
        "template <typename in_ptr0_type_, typename kernels_type_>\n"
        "static __attribute__((noinline)) void call_triton_k_0(\n    const in_ptr0_type_& in_ptr0,\n"
        "    int64_t xnumel, int32_t device_idx_, cudaStream_t stream_, kernels_type_& kernels_\n){\n}\n");
    strbuf_addstr(&in, WRAP_HEAD);
    strbuf_addstr(&in,
        "    cpp_fused_0((float*)(buf0.data_ptr()), \"a,)\\\"\", s0);\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf1, arg0_1, f(g(h(buf2)))));\n"
        "    call_triton_k_0(buf1, 4L, this->device_idx_, stream, kernels, this->cubin_dir_);\n");
    strbuf_addstr(&in, WRAP_TAIL);
    int ok = 0, refused = 0;
    for (size_t cut = 0; cut <= in.len; cut++) {
        strbuf_reset(&out); strbuf_reset(&err);
        char *copy = malloc(cut + 1);
        memcpy(copy, in.buf, cut);   /* no NUL inside the length: the parser must use len */
        copy[cut] = 'x';
        int rc = reinstrument_source(copy, cut, NULL, &out, NULL, &err);
        CHECK(rc == 0 || (rc == -1 && err.len > 0));
        rc == 0 ? ok++ : refused++;
        free(copy);
    }
    CHECK(ok > 0 && refused > 0);
    const char flips[] = "()\",;\n\\'";
    for (size_t i = 0; i < in.len; i += 3) {
        for (size_t f = 0; f < sizeof flips - 1; f++) {
            strbuf_reset(&out); strbuf_reset(&err);
            char saved = in.buf[i];
            in.buf[i] = flips[f];
            int rc = reinstrument_source(in.buf, in.len, NULL, &out, NULL, &err);
            CHECK(rc == 0 || (rc == -1 && err.len > 0));
            in.buf[i] = saved;
        }
    }
    strbuf_release(&in); strbuf_release(&out); strbuf_release(&err);
}

static void on_progress(const char *stage, double f, void *ctx)
{
    (void)ctx;
    printf("progress %s %.2f\n", stage, f);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--build")) {
        strbuf err = STRBUF_INIT;
        char *so = NULL;
        if (reinstrument_build(argv[2], argv[3], on_progress, NULL, &so, &err)) {
            fprintf(stderr, "reinstrument: %s\n", err.buf);
            strbuf_release(&err);
            return 1;
        }
        printf("so %s\n", so);
        free(so);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--consts")) {
        strbuf blob = STRBUF_INIT, err = STRBUF_INIT;
        const char *section; size_t tail;
        int rc = reinstrument_read_consts(argv[2], &blob, &section, &tail, &err);
        if (rc)
            fprintf(stderr, "reinstrument: %s\n", err.buf);
        else
            printf("consts %zu %s %zu\n", blob.len, section, tail);
        strbuf_release(&blob);
        strbuf_release(&err);
        return rc ? 1 : 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--instrument")) {
        strbuf src = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
        reinstrument_stats st;
        if (strbuf_read_file(&src, argv[2], REINSTRUMENT_MAX_SOURCE, &err) ||
            reinstrument_source(src.buf, src.len, NULL, &out, &st, &err)) {
            fprintf(stderr, "reinstrument: %s\n", err.buf);
            return 1;
        }
        fwrite(out.buf, 1, out.len, stdout);
        fprintf(stderr, "launches %zu hooks %zu\n", st.launches, st.hooks);
        return 0;
    }
    RUN(test_cpp_kernel);
    RUN(test_extern_kernel);
    RUN(test_triton_kernel);
    RUN(test_refusals);
    RUN(test_printer_package_subgraphs_and_proxy);
    RUN(test_find_cmd);
    RUN(test_build_refuses_bad_input);
    RUN(test_truncated_and_mangled_sources);
    return CHECK_DONE();
}
