/* test_launch_roles.c — which tensors a launch writes before it reads them
 * (core/package/launch_roles.h) and how many tensors the printer saves before
 * each launch (wrapper_scan's nbefore), on wrapper.cpp in the shapes torch
 * 2.13 writes for CPU packages and torch 2.11 for CUDA ones (lines as the
 * H200 wrote them for tests/models/model_provenance.py; the integration tests,
 * test_nan_element.py, run the CPU form on real packages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "wrapper_scan.h"

static const ws_kernel *kernel_at(const wrapper_scan *ws, size_t i) { return i < ws->nkernels ? &ws->kernels[i] : NULL; }

static int fresh_is(const ws_kernel *k, const char *want)
{
    if (!want)
        return k->nfresh == 0;
    return k->nfresh == 1 && !strcmp(k->fresh[0], want);
}

/* torch 2.11 on CUDA: each Triton launch goes through call_triton_<name>,
 * declared with `const out_ptr0_type_& out_ptr0` parameters; a buffer AOTI
 * reuses through reinterpret_tensor_wrapper is no fresh one when the kernel
 * reads it in place. */
static void test_cuda_211(void)
{
    static const char w[] =
        "    constants_info_[0].name = \"emb_weight\";\n"
        "    constants_info_[1].name = \"blocks_0_fc_bias\";\n"
        "    constants_info_[2].name = \"blocks_0_fc_weight\";\n"
        "    constants_info_[3].name = \"blocks_0_ln_weight\";\n"
        "    constants_info_[4].name = \"blocks_0_ln_bias\";\n"
        "static inline void call_triton_poi_fused_embedding_0(\n"
        "    const in_ptr0_type_& in_ptr0,\n"
        "    const in_ptr1_type_& in_ptr1,\n"
        "    const out_ptr0_type_& out_ptr0,\n"
        "    int64_t xnumel,\n"
        "    int32_t device_idx_,\n"
        "    cudaStream_t stream_,\n"
        "    kernels_type_& kernels_,\n"
        "    const std::optional<std::string>& cubin_dir_ = std::nullopt\n"
        "){\n"
        "}\n"
        "static inline void call_triton_per_fused_add_native_layer_norm_relu_view_1(\n"
        "    const in_out_ptr0_type_& in_out_ptr0,\n"
        "    const in_ptr0_type_& in_ptr0,\n"
        "    const in_ptr1_type_& in_ptr1,\n"
        "    const in_ptr2_type_& in_ptr2,\n"
        "    int64_t xnumel,\n"
        "    int64_t r0_numel,\n"
        "    int32_t device_idx_,\n"
        "    cudaStream_t stream_,\n"
        "    kernels_type_& kernels_,\n"
        "    const std::optional<std::string>& cubin_dir_ = std::nullopt\n"
        "){\n"
        "}\n"
        "static inline void call_triton_poi_fused_3(\n"
        "    const out_ptr0_type_& out_ptr0,\n"
        "    int64_t xnumel,\n"
        "    int32_t device_idx_,\n"
        "    cudaStream_t stream_,\n"
        "    kernels_type_& kernels_,\n"
        "    const std::optional<std::string>& cubin_dir_ = std::nullopt\n"
        "){\n"
        "}\n"
        "void AOTInductorModel::run_impl(\n"
        "    auto arg15_1 = std::move(inputs[0]);\n"
        "    AtenTensorHandle buf0_handle;\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, "
        "cached_torch_dtype_float32, cached_torch_device_type_cuda, this->device_idx_, &buf0_handle));\n"
        "    RAIIAtenTensorHandle buf0(buf0_handle);\n"
        "    // [Provenance debug handles] triton_poi_fused_embedding_0:1\n"
        "    aoti_torch_save_tensor_handle(arg15_1, \"arg15_1\", \"before_launch\", \"triton_poi_fused_embedding_0\");\n"
        "    aoti_torch_save_tensor_handle(emb_weight, \"emb_weight\", \"before_launch\", \"triton_poi_fused_embedding_0\");\n"
        "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"triton_poi_fused_embedding_0\");\n"
        "    call_triton_poi_fused_embedding_0(arg15_1, emb_weight, buf0, 64L, this->device_idx_, stream, kernels, "
        "this->cubin_dir_);\n"
        "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"triton_poi_fused_embedding_0\");\n"
        "    RAIIAtenTensorHandle buf1(buf1_handle);\n"
        "    // [Provenance debug handles] aoti_torch_cuda_addmm_out:2\n"
        "    aoti_torch_save_tensor_handle(buf1, \"buf1\", \"before_launch\", \"aoti_torch_cuda_addmm_out\");\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf1, blocks_0_fc_bias, "
        "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf0, 2, int_array_4, int_array_5, 0L)), "
        "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_0_fc_weight, 2, int_array_6, int_array_7, "
        "0L)), 1L, 1L));\n"
        "    aoti_torch_save_tensor_handle(buf1, \"buf1\", \"after_launch\", \"aoti_torch_cuda_addmm_out\");\n"
        "    auto buf5 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf1, 3, int_array_8, int_array_9, "
        "0L)); buf1.reset();  // reuse\n"
        "    // [Provenance debug handles] triton_per_fused_add_native_layer_norm_relu_view_1:3\n"
        "    aoti_torch_save_tensor_handle(buf5, \"buf5\", \"before_launch\", "
        "\"triton_per_fused_add_native_layer_norm_relu_view_1\");\n"
        "    aoti_torch_save_tensor_handle(blocks_0_ln_weight, \"blocks_0_ln_weight\", \"before_launch\", "
        "\"triton_per_fused_add_native_layer_norm_relu_view_1\");\n"
        "    aoti_torch_save_tensor_handle(blocks_0_ln_bias, \"blocks_0_ln_bias\", \"before_launch\", "
        "\"triton_per_fused_add_native_layer_norm_relu_view_1\");\n"
        "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", "
        "\"triton_per_fused_add_native_layer_norm_relu_view_1\");\n"
        "    call_triton_per_fused_add_native_layer_norm_relu_view_1(buf5, blocks_0_ln_weight, blocks_0_ln_bias, buf0, "
        "4L, 16L, this->device_idx_, stream, kernels, this->cubin_dir_);\n"
        "    aoti_torch_save_tensor_handle(buf5, \"buf5\", \"after_launch\", "
        "\"triton_per_fused_add_native_layer_norm_relu_view_1\");\n"
        "    RAIIAtenTensorHandle buf16(buf16_handle);\n"
        "    // [Provenance debug handles] triton_poi_fused_3:8\n"
        "    aoti_torch_save_tensor_handle(buf16, \"buf16\", \"before_launch\", \"triton_poi_fused_3\");\n"
        "    call_triton_poi_fused_3(buf16, 4L, this->device_idx_, stream, kernels, this->cubin_dir_);\n"
        "    aoti_torch_save_tensor_handle(buf16, \"buf16\", \"after_launch\", \"triton_poi_fused_3\");\n"
        "} // AOTInductorModel::run_impl\n";
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    CHECK(wrapper_scan_text(&ws, w, strlen(w), &err) == 0);
    CHECK(ws.nkernels == 4);
    const ws_kernel *k = kernel_at(&ws, 0);
    CHECK(k && !strcmp(k->name, "triton_poi_fused_embedding_0") && k->nbefore == 3 && fresh_is(k, "buf0"));
    k = kernel_at(&ws, 1);   /* an _out op writes its first argument; a view of a weight is read */
    CHECK(k && !strcmp(k->name, "aoti_torch_cuda_addmm_out") && k->nbefore == 1 && fresh_is(k, "buf1"));
    k = kernel_at(&ws, 2);   /* in place on buf1's storage, which the matmul wrote: read, not fresh */
    CHECK(k && k->nbefore == 4 && fresh_is(k, NULL));
    k = kernel_at(&ws, 3);   /* out_ptr0 only: the folded bias it fills */
    CHECK(k && !strcmp(k->name, "triton_poi_fused_3") && k->nbefore == 1 && fresh_is(k, "buf16"));
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

/* torch 2.13 on CPU: extern "C" declarations with pointer parameters, data_ptr
 * arguments, an in_out_ptr on storage AOTI moved over from a buffer no call
 * touched (fresh) and one a call wrote (not fresh). */
static void test_cpu_213(void)
{
    static const char w[] =
        "extern \"C\" void cpp_fused_embedding_0(const int64_t* in_ptr0, const float* in_ptr1, float* out_ptr0);\n"
        "extern \"C\" void cpp_fused_relu_1(float* in_out_ptr0);\n"
        "void AOTInductorModel::run_impl(\n"
        "    // [Provenance debug handles] cpp_fused_embedding_0:1\n"
        "    aoti_torch_save_tensor_handle(arg11_1, \"arg11_1\", \"before_launch\", \"cpp_fused_embedding_0\");\n"
        "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"cpp_fused_embedding_0\");\n"
        "    cpp_fused_embedding_0((const int64_t*)(arg11_1.data_ptr()), (const float*)(emb_weight.data_ptr()), "
        "(float*)(buf0.data_ptr()));\n"
        "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"cpp_fused_embedding_0\");\n"
        "    auto buf3 = std::move(buf2);  // reuse\n"
        "    aoti_torch_save_tensor_handle(buf3, \"buf3\", \"before_launch\", \"cpp_fused_relu_1\");\n"
        "    cpp_fused_relu_1((float*)(buf3.data_ptr()));\n"
        "    aoti_torch_save_tensor_handle(buf3, \"buf3\", \"after_launch\", \"cpp_fused_relu_1\");\n"
        "    auto buf4 = std::move(buf0);  // reuse\n"
        "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"before_launch\", \"cpp_fused_relu_1\");\n"
        "    cpp_fused_relu_1((float*)(buf4.data_ptr()));\n"
        "    aoti_torch_save_tensor_handle(buf4, \"buf4\", \"after_launch\", \"cpp_fused_relu_1\");\n"
        "}\n";
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    CHECK(wrapper_scan_text(&ws, w, strlen(w), &err) == 0);
    CHECK(ws.nkernels == 3);
    const ws_kernel *k = kernel_at(&ws, 0);
    CHECK(k && k->nbefore == 2 && fresh_is(k, "buf0"));   /* arg11_1 is an input: never fresh */
    k = kernel_at(&ws, 1);
    CHECK(k && k->nbefore == 1 && fresh_is(k, "buf3"));
    k = kernel_at(&ws, 2);
    CHECK(k && k->nbefore == 1 && fresh_is(k, NULL));   /* buf0's storage, which the embedding wrote */
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

static int defines_are(const ws_kernel *k, const char *want)   /* want: names joined by ' ' */
{
    char got[512] = "";
    for (size_t i = 0; i < k->ndefines; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", k->defines[i]);
    if (strcmp(got, want))
        fprintf(stderr, "defines: got '%s', want '%s'\n", got, want);
    return !strcmp(got, want);
}

/* The buffers each launch makes (defines), on a torch 2.13 CPU package without the printer (lines
 * as aoti_compile_and_package wrote them: a cat written through `// alias` views of buf3, which the
 * same kernel then reads; buf8 the storage of buf7 and buf0, reused twice; weights passed). */
static void test_defines_cpu_213(void)
{
    static const char w[] =
        "extern \"C\"  void  cpp_fused_add_cat_0(float* in_out_ptr0, float* in_out_ptr1, const float* in_ptr0, "
        "const float* in_ptr1, const float* in_ptr2, float* out_ptr0, float* out_ptr1, float* out_ptr2, "
        "float* out_ptr3);\n"
        "extern \"C\"  void  cpp_fused__softmax_1(const float* in_ptr0, float* out_ptr0, float* out_ptr1, "
        "float* out_ptr2);\n"
        "    inputs_info_[0].name = \"arg6_1\";\n"
        "    constants_info_[0].name = \"fc_weight\";\n"
        "    constants_info_[1].name = \"fc_bias\";\n"
        "    constants_info_[2].name = \"ln_weight\";\n"
        "    constants_info_[3].name = \"ln_bias\";\n"
        "void AOTInductorModel::run_impl(\n"
        "    auto arg6_1 = std::move(inputs[0]);\n"
        "    RAIIAtenTensorHandle buf0(buf0_handle);\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf0, fc_bias, arg6_1, "
        "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(fc_weight, 2, int_array_2, int_array_3, 0L)), "
        "1L, 1L));\n"
        "    RAIIAtenTensorHandle buf3(buf3_handle);\n"
        "    auto buf1 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_4, "
        "int_array_5, 0L));  // alias\n"
        "    auto buf2 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_4, "
        "int_array_5, 16L));  // alias\n"
        "    auto buf5 = std::move(buf4);  // reuse\n"
        "    auto buf7 = std::move(buf0);  // reuse\n"
        "    auto buf8 = std::move(buf7);  // reuse\n"
        "    cpp_fused_add_cat_0((float*)(buf5.data_ptr()), (float*)(buf8.data_ptr()), (const float*)(buf3.data_ptr()), "
        "(const float*)(ln_weight.data_ptr()), (const float*)(ln_bias.data_ptr()), (float*)(buf1.data_ptr()), "
        "(float*)(buf2.data_ptr()), (float*)(buf6.data_ptr()), (float*)(buf9.data_ptr()));\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf10, buf9, buf8, "
        "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(fc2_weight, 2, int_array_12, int_array_13, 0L)), "
        "1L, 1L));\n"
        "    auto buf11 = std::move(buf6);  // reuse\n"
        "    auto buf13 = std::move(buf5);  // reuse\n"
        "    cpp_fused__softmax_1((const float*)(buf10.data_ptr()), (float*)(buf11.data_ptr()), "
        "(float*)(buf13.data_ptr()), (float*)(buf14.data_ptr()));\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(buf15, buf16, "
        "buf17, 0.0, 0, nullptr, nullptr, &buf19_handle, &buf20_handle));\n"
        "    cpp_fused__softmax_1((const float*)(buf19.data_ptr()), (float*)(buf21.data_ptr()));\n"
        "    output_handles[0] = buf14.release();\n"
        "}\n";
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    CHECK(wrapper_scan_text(&ws, w, strlen(w), &err) == 0);
    CHECK(ws.nkernels == 6);
    /* buf19 was made through its handle: a later call that passes it makes only buf21 */
    CHECK(kernel_at(&ws, 5) && defines_are(kernel_at(&ws, 5), "buf21"));
    /* an extern op with output handles makes the buffers it fills; nullptr is no tensor */
    CHECK(kernel_at(&ws, 4) && defines_are(kernel_at(&ws, 4), "buf15 buf16 buf17 buf19 buf20"));
    const ws_kernel *k = kernel_at(&ws, 0);
    CHECK(k && defines_are(k, "buf0"));   /* arg6_1 an input, fc_bias a weight, fc_weight a view */
    k = kernel_at(&ws, 1);
    CHECK(k && defines_are(k, "buf5 buf8 buf3 buf1 buf2 buf6 buf9"));   /* buf8: a new name for buf0's storage */
    k = kernel_at(&ws, 2);
    CHECK(k && defines_are(k, "buf10"));   /* buf9 and buf8 were passed before */
    k = kernel_at(&ws, 3);
    CHECK(k && defines_are(k, "buf11 buf13 buf14"));
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_defines_cpu_213);
    RUN(test_cuda_211);
    RUN(test_cpu_213);
    return CHECK_DONE();
}
