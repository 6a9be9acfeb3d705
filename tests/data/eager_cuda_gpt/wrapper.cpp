// Trimmed from the c2d2qskoeruwpvit6gplnzofmy3hplecgta5c6bvuwaho4r5uumf.wrapper.cpp that torch 2.11.0+cu130
// wrote on the H200 for tests/models/model_eager_gpt.py's bf16 GPT (d=384, 6 layers, seq 128, batch 2,
// printer on, no provenance): the constants' names, the Triton launchers' signatures and run_impl
// verbatim (tests/data/eager_cuda_gpt/README.md says how). tests/unit/test_eager_plan.c reads it.
    inputs_info_[0].name = "arg77_1";
    constants_info_[0].name = "tok_weight";
    constants_info_[0].original_fqn = "tok.weight";
    constants_info_[1].name = "pos_weight";
    constants_info_[1].original_fqn = "pos.weight";
    constants_info_[2].name = "blocks_0_ln1_weight";
    constants_info_[2].original_fqn = "blocks.0.ln1.weight";
    constants_info_[3].name = "blocks_0_ln1_bias";
    constants_info_[3].original_fqn = "blocks.0.ln1.bias";
    constants_info_[4].name = "blocks_0_qkv_weight";
    constants_info_[4].original_fqn = "blocks.0.qkv.weight";
    constants_info_[5].name = "blocks_0_qkv_bias";
    constants_info_[5].original_fqn = "blocks.0.qkv.bias";
    constants_info_[6].name = "blocks_0_proj_weight";
    constants_info_[6].original_fqn = "blocks.0.proj.weight";
    constants_info_[7].name = "blocks_0_proj_bias";
    constants_info_[7].original_fqn = "blocks.0.proj.bias";
    constants_info_[8].name = "blocks_0_ln2_weight";
    constants_info_[8].original_fqn = "blocks.0.ln2.weight";
    constants_info_[9].name = "blocks_0_ln2_bias";
    constants_info_[9].original_fqn = "blocks.0.ln2.bias";
    constants_info_[10].name = "blocks_0_fc_weight";
    constants_info_[10].original_fqn = "blocks.0.fc.weight";
    constants_info_[11].name = "blocks_0_fc_bias";
    constants_info_[11].original_fqn = "blocks.0.fc.bias";
    constants_info_[12].name = "blocks_0_out_weight";
    constants_info_[12].original_fqn = "blocks.0.out.weight";
    constants_info_[13].name = "blocks_0_out_bias";
    constants_info_[13].original_fqn = "blocks.0.out.bias";
    constants_info_[14].name = "blocks_1_ln1_weight";
    constants_info_[14].original_fqn = "blocks.1.ln1.weight";
    constants_info_[15].name = "blocks_1_ln1_bias";
    constants_info_[15].original_fqn = "blocks.1.ln1.bias";
    constants_info_[16].name = "blocks_1_qkv_weight";
    constants_info_[16].original_fqn = "blocks.1.qkv.weight";
    constants_info_[17].name = "blocks_1_qkv_bias";
    constants_info_[17].original_fqn = "blocks.1.qkv.bias";
    constants_info_[18].name = "blocks_1_proj_weight";
    constants_info_[18].original_fqn = "blocks.1.proj.weight";
    constants_info_[19].name = "blocks_1_proj_bias";
    constants_info_[19].original_fqn = "blocks.1.proj.bias";
    constants_info_[20].name = "blocks_1_ln2_weight";
    constants_info_[20].original_fqn = "blocks.1.ln2.weight";
    constants_info_[21].name = "blocks_1_ln2_bias";
    constants_info_[21].original_fqn = "blocks.1.ln2.bias";
    constants_info_[22].name = "blocks_1_fc_weight";
    constants_info_[22].original_fqn = "blocks.1.fc.weight";
    constants_info_[23].name = "blocks_1_fc_bias";
    constants_info_[23].original_fqn = "blocks.1.fc.bias";
    constants_info_[24].name = "blocks_1_out_weight";
    constants_info_[24].original_fqn = "blocks.1.out.weight";
    constants_info_[25].name = "blocks_1_out_bias";
    constants_info_[25].original_fqn = "blocks.1.out.bias";
    constants_info_[26].name = "blocks_2_ln1_weight";
    constants_info_[26].original_fqn = "blocks.2.ln1.weight";
    constants_info_[27].name = "blocks_2_ln1_bias";
    constants_info_[27].original_fqn = "blocks.2.ln1.bias";
    constants_info_[28].name = "blocks_2_qkv_weight";
    constants_info_[28].original_fqn = "blocks.2.qkv.weight";
    constants_info_[29].name = "blocks_2_qkv_bias";
    constants_info_[29].original_fqn = "blocks.2.qkv.bias";
    constants_info_[30].name = "blocks_2_proj_weight";
    constants_info_[30].original_fqn = "blocks.2.proj.weight";
    constants_info_[31].name = "blocks_2_proj_bias";
    constants_info_[31].original_fqn = "blocks.2.proj.bias";
    constants_info_[32].name = "blocks_2_ln2_weight";
    constants_info_[32].original_fqn = "blocks.2.ln2.weight";
    constants_info_[33].name = "blocks_2_ln2_bias";
    constants_info_[33].original_fqn = "blocks.2.ln2.bias";
    constants_info_[34].name = "blocks_2_fc_weight";
    constants_info_[34].original_fqn = "blocks.2.fc.weight";
    constants_info_[35].name = "blocks_2_fc_bias";
    constants_info_[35].original_fqn = "blocks.2.fc.bias";
    constants_info_[36].name = "blocks_2_out_weight";
    constants_info_[36].original_fqn = "blocks.2.out.weight";
    constants_info_[37].name = "blocks_2_out_bias";
    constants_info_[37].original_fqn = "blocks.2.out.bias";
    constants_info_[38].name = "blocks_3_ln1_weight";
    constants_info_[38].original_fqn = "blocks.3.ln1.weight";
    constants_info_[39].name = "blocks_3_ln1_bias";
    constants_info_[39].original_fqn = "blocks.3.ln1.bias";
    constants_info_[40].name = "blocks_3_qkv_weight";
    constants_info_[40].original_fqn = "blocks.3.qkv.weight";
    constants_info_[41].name = "blocks_3_qkv_bias";
    constants_info_[41].original_fqn = "blocks.3.qkv.bias";
    constants_info_[42].name = "blocks_3_proj_weight";
    constants_info_[42].original_fqn = "blocks.3.proj.weight";
    constants_info_[43].name = "blocks_3_proj_bias";
    constants_info_[43].original_fqn = "blocks.3.proj.bias";
    constants_info_[44].name = "blocks_3_ln2_weight";
    constants_info_[44].original_fqn = "blocks.3.ln2.weight";
    constants_info_[45].name = "blocks_3_ln2_bias";
    constants_info_[45].original_fqn = "blocks.3.ln2.bias";
    constants_info_[46].name = "blocks_3_fc_weight";
    constants_info_[46].original_fqn = "blocks.3.fc.weight";
    constants_info_[47].name = "blocks_3_fc_bias";
    constants_info_[47].original_fqn = "blocks.3.fc.bias";
    constants_info_[48].name = "blocks_3_out_weight";
    constants_info_[48].original_fqn = "blocks.3.out.weight";
    constants_info_[49].name = "blocks_3_out_bias";
    constants_info_[49].original_fqn = "blocks.3.out.bias";
    constants_info_[50].name = "blocks_4_ln1_weight";
    constants_info_[50].original_fqn = "blocks.4.ln1.weight";
    constants_info_[51].name = "blocks_4_ln1_bias";
    constants_info_[51].original_fqn = "blocks.4.ln1.bias";
    constants_info_[52].name = "blocks_4_qkv_weight";
    constants_info_[52].original_fqn = "blocks.4.qkv.weight";
    constants_info_[53].name = "blocks_4_qkv_bias";
    constants_info_[53].original_fqn = "blocks.4.qkv.bias";
    constants_info_[54].name = "blocks_4_proj_weight";
    constants_info_[54].original_fqn = "blocks.4.proj.weight";
    constants_info_[55].name = "blocks_4_proj_bias";
    constants_info_[55].original_fqn = "blocks.4.proj.bias";
    constants_info_[56].name = "blocks_4_ln2_weight";
    constants_info_[56].original_fqn = "blocks.4.ln2.weight";
    constants_info_[57].name = "blocks_4_ln2_bias";
    constants_info_[57].original_fqn = "blocks.4.ln2.bias";
    constants_info_[58].name = "blocks_4_fc_weight";
    constants_info_[58].original_fqn = "blocks.4.fc.weight";
    constants_info_[59].name = "blocks_4_fc_bias";
    constants_info_[59].original_fqn = "blocks.4.fc.bias";
    constants_info_[60].name = "blocks_4_out_weight";
    constants_info_[60].original_fqn = "blocks.4.out.weight";
    constants_info_[61].name = "blocks_4_out_bias";
    constants_info_[61].original_fqn = "blocks.4.out.bias";
    constants_info_[62].name = "blocks_5_ln1_weight";
    constants_info_[62].original_fqn = "blocks.5.ln1.weight";
    constants_info_[63].name = "blocks_5_ln1_bias";
    constants_info_[63].original_fqn = "blocks.5.ln1.bias";
    constants_info_[64].name = "blocks_5_qkv_weight";
    constants_info_[64].original_fqn = "blocks.5.qkv.weight";
    constants_info_[65].name = "blocks_5_qkv_bias";
    constants_info_[65].original_fqn = "blocks.5.qkv.bias";
    constants_info_[66].name = "blocks_5_proj_weight";
    constants_info_[66].original_fqn = "blocks.5.proj.weight";
    constants_info_[67].name = "blocks_5_proj_bias";
    constants_info_[67].original_fqn = "blocks.5.proj.bias";
    constants_info_[68].name = "blocks_5_ln2_weight";
    constants_info_[68].original_fqn = "blocks.5.ln2.weight";
    constants_info_[69].name = "blocks_5_ln2_bias";
    constants_info_[69].original_fqn = "blocks.5.ln2.bias";
    constants_info_[70].name = "blocks_5_fc_weight";
    constants_info_[70].original_fqn = "blocks.5.fc.weight";
    constants_info_[71].name = "blocks_5_fc_bias";
    constants_info_[71].original_fqn = "blocks.5.fc.bias";
    constants_info_[72].name = "blocks_5_out_weight";
    constants_info_[72].original_fqn = "blocks.5.out.weight";
    constants_info_[73].name = "blocks_5_out_bias";
    constants_info_[73].original_fqn = "blocks.5.out.bias";
    constants_info_[74].name = "ln_weight";
    constants_info_[74].original_fqn = "ln.weight";
    constants_info_[75].name = "ln_bias";
    constants_info_[75].original_fqn = "ln.bias";
    constants_info_[76].name = "head_weight";
    constants_info_[76].original_fqn = "head.weight";
    outputs_info_[0].name = "output0";
static inline void call_triton_red_fused_add_arange_embedding_native_layer_norm_0(
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_arange_embedding_native_layer_norm_view_1(
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const in_ptr5_type_& in_ptr5,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_poi_fused_gelu_view_2(
    const in_out_ptr0_type_& in_out_ptr0,
    int64_t xnumel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_arange_embedding_native_layer_norm_view_3(
    const in_out_ptr0_type_& in_out_ptr0,
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const in_ptr5_type_& in_ptr5,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_native_layer_norm_view_4(
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_native_layer_norm_view_5(
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_native_layer_norm_view_6(
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const in_ptr5_type_& in_ptr5,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_native_layer_norm_view_7(
    const in_out_ptr0_type_& in_out_ptr0,
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    const in_ptr4_type_& in_ptr4,
    const in_ptr5_type_& in_ptr5,
    const out_ptr2_type_& out_ptr2,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
static inline void call_triton_per_fused_add_native_layer_norm_view_8(
    const in_out_ptr0_type_& in_out_ptr0,
    const in_ptr0_type_& in_ptr0,
    const in_ptr1_type_& in_ptr1,
    const in_ptr2_type_& in_ptr2,
    const in_ptr3_type_& in_ptr3,
    int64_t xnumel,
    int64_t r0_numel,
    int32_t device_idx_,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){
    // body (the Triton source and the launch) left out
}
void AOTInductorModel::run_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
                        // are stolen; the array itself is borrowed
    AtenTensorHandle*
        output_handles, // array for writing output AtenTensorHandle; handles
                        // will be stolen by the caller; the array itself is
                        // borrowed
    DeviceStreamType stream,
    AOTIProxyExecutorHandle proxy_executor
) {
    __check_inputs_outputs(input_handles, output_handles);

    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 1);
    auto arg77_1 = std::move(inputs[0]);
    [[maybe_unused]] auto& tok_weight = constants_->at(0);
    [[maybe_unused]] auto& pos_weight = constants_->at(1);
    [[maybe_unused]] auto& blocks_0_ln1_weight = constants_->at(2);
    [[maybe_unused]] auto& blocks_0_ln1_bias = constants_->at(3);
    [[maybe_unused]] auto& blocks_0_qkv_weight = constants_->at(4);
    [[maybe_unused]] auto& blocks_0_qkv_bias = constants_->at(5);
    [[maybe_unused]] auto& blocks_0_proj_weight = constants_->at(6);
    [[maybe_unused]] auto& blocks_0_proj_bias = constants_->at(7);
    [[maybe_unused]] auto& blocks_0_ln2_weight = constants_->at(8);
    [[maybe_unused]] auto& blocks_0_ln2_bias = constants_->at(9);
    [[maybe_unused]] auto& blocks_0_fc_weight = constants_->at(10);
    [[maybe_unused]] auto& blocks_0_fc_bias = constants_->at(11);
    [[maybe_unused]] auto& blocks_0_out_weight = constants_->at(12);
    [[maybe_unused]] auto& blocks_0_out_bias = constants_->at(13);
    [[maybe_unused]] auto& blocks_1_ln1_weight = constants_->at(14);
    [[maybe_unused]] auto& blocks_1_ln1_bias = constants_->at(15);
    [[maybe_unused]] auto& blocks_1_qkv_weight = constants_->at(16);
    [[maybe_unused]] auto& blocks_1_qkv_bias = constants_->at(17);
    [[maybe_unused]] auto& blocks_1_proj_weight = constants_->at(18);
    [[maybe_unused]] auto& blocks_1_proj_bias = constants_->at(19);
    [[maybe_unused]] auto& blocks_1_ln2_weight = constants_->at(20);
    [[maybe_unused]] auto& blocks_1_ln2_bias = constants_->at(21);
    [[maybe_unused]] auto& blocks_1_fc_weight = constants_->at(22);
    [[maybe_unused]] auto& blocks_1_fc_bias = constants_->at(23);
    [[maybe_unused]] auto& blocks_1_out_weight = constants_->at(24);
    [[maybe_unused]] auto& blocks_1_out_bias = constants_->at(25);
    [[maybe_unused]] auto& blocks_2_ln1_weight = constants_->at(26);
    [[maybe_unused]] auto& blocks_2_ln1_bias = constants_->at(27);
    [[maybe_unused]] auto& blocks_2_qkv_weight = constants_->at(28);
    [[maybe_unused]] auto& blocks_2_qkv_bias = constants_->at(29);
    [[maybe_unused]] auto& blocks_2_proj_weight = constants_->at(30);
    [[maybe_unused]] auto& blocks_2_proj_bias = constants_->at(31);
    [[maybe_unused]] auto& blocks_2_ln2_weight = constants_->at(32);
    [[maybe_unused]] auto& blocks_2_ln2_bias = constants_->at(33);
    [[maybe_unused]] auto& blocks_2_fc_weight = constants_->at(34);
    [[maybe_unused]] auto& blocks_2_fc_bias = constants_->at(35);
    [[maybe_unused]] auto& blocks_2_out_weight = constants_->at(36);
    [[maybe_unused]] auto& blocks_2_out_bias = constants_->at(37);
    [[maybe_unused]] auto& blocks_3_ln1_weight = constants_->at(38);
    [[maybe_unused]] auto& blocks_3_ln1_bias = constants_->at(39);
    [[maybe_unused]] auto& blocks_3_qkv_weight = constants_->at(40);
    [[maybe_unused]] auto& blocks_3_qkv_bias = constants_->at(41);
    [[maybe_unused]] auto& blocks_3_proj_weight = constants_->at(42);
    [[maybe_unused]] auto& blocks_3_proj_bias = constants_->at(43);
    [[maybe_unused]] auto& blocks_3_ln2_weight = constants_->at(44);
    [[maybe_unused]] auto& blocks_3_ln2_bias = constants_->at(45);
    [[maybe_unused]] auto& blocks_3_fc_weight = constants_->at(46);
    [[maybe_unused]] auto& blocks_3_fc_bias = constants_->at(47);
    [[maybe_unused]] auto& blocks_3_out_weight = constants_->at(48);
    [[maybe_unused]] auto& blocks_3_out_bias = constants_->at(49);
    [[maybe_unused]] auto& blocks_4_ln1_weight = constants_->at(50);
    [[maybe_unused]] auto& blocks_4_ln1_bias = constants_->at(51);
    [[maybe_unused]] auto& blocks_4_qkv_weight = constants_->at(52);
    [[maybe_unused]] auto& blocks_4_qkv_bias = constants_->at(53);
    [[maybe_unused]] auto& blocks_4_proj_weight = constants_->at(54);
    [[maybe_unused]] auto& blocks_4_proj_bias = constants_->at(55);
    [[maybe_unused]] auto& blocks_4_ln2_weight = constants_->at(56);
    [[maybe_unused]] auto& blocks_4_ln2_bias = constants_->at(57);
    [[maybe_unused]] auto& blocks_4_fc_weight = constants_->at(58);
    [[maybe_unused]] auto& blocks_4_fc_bias = constants_->at(59);
    [[maybe_unused]] auto& blocks_4_out_weight = constants_->at(60);
    [[maybe_unused]] auto& blocks_4_out_bias = constants_->at(61);
    [[maybe_unused]] auto& blocks_5_ln1_weight = constants_->at(62);
    [[maybe_unused]] auto& blocks_5_ln1_bias = constants_->at(63);
    [[maybe_unused]] auto& blocks_5_qkv_weight = constants_->at(64);
    [[maybe_unused]] auto& blocks_5_qkv_bias = constants_->at(65);
    [[maybe_unused]] auto& blocks_5_proj_weight = constants_->at(66);
    [[maybe_unused]] auto& blocks_5_proj_bias = constants_->at(67);
    [[maybe_unused]] auto& blocks_5_ln2_weight = constants_->at(68);
    [[maybe_unused]] auto& blocks_5_ln2_bias = constants_->at(69);
    [[maybe_unused]] auto& blocks_5_fc_weight = constants_->at(70);
    [[maybe_unused]] auto& blocks_5_fc_bias = constants_->at(71);
    [[maybe_unused]] auto& blocks_5_out_weight = constants_->at(72);
    [[maybe_unused]] auto& blocks_5_out_bias = constants_->at(73);
    [[maybe_unused]] auto& ln_weight = constants_->at(74);
    [[maybe_unused]] auto& ln_bias = constants_->at(75);
    [[maybe_unused]] auto& head_weight = constants_->at(76);

    if ((reinterpret_cast<std::uintptr_t>(arg77_1.data_ptr()) & (16 -1)) != 0) {
        AOTI_TORCH_WARN("Input 0 was compiled as 16-bytes aligned, but it is not aligned at run time. Copying to an aligned tensor to guarantee correctness, but expect a performance hit.");
        AtenTensorHandle arg77_1_aligned;
        aoti_torch_clone_preserve_strides(arg77_1, &arg77_1_aligned);
        arg77_1 = std::move(RAIIAtenTensorHandle(arg77_1_aligned));
    }
    inputs.clear();
    [[maybe_unused]] auto& kernels = static_cast<AOTInductorModelKernels&>(*this->kernels_.get());

    AOTICudaStreamGuard stream_guard(stream, this->device_idx_);
    static constexpr int64_t int_array_0[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_1[] = {49152L, 384L, 1L};
    AtenTensorHandle buf3_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf3_handle));
    RAIIAtenTensorHandle buf3(buf3_handle);
    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, layer_norm], Original ATen: [aten.embedding, aten.arange, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(blocks_0_ln1_weight, "blocks_0_ln1_weight", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(blocks_0_ln1_bias, "blocks_0_ln1_bias", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(buf3, "buf3", "before_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    call_triton_red_fused_add_arange_embedding_native_layer_norm_0(arg77_1, tok_weight, pos_weight, blocks_0_ln1_weight, blocks_0_ln1_bias, buf3, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(blocks_0_ln1_weight, "blocks_0_ln1_weight", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(blocks_0_ln1_bias, "blocks_0_ln1_bias", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    aoti_torch_save_tensor_handle(buf3, "buf3", "after_launch", "triton_red_fused_add_arange_embedding_native_layer_norm_0");
    static constexpr int64_t int_array_2[] = {256L, 1152L};
    static constexpr int64_t int_array_3[] = {1152L, 1L};
    AtenTensorHandle buf4_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_2, int_array_3, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf4_handle));
    RAIIAtenTensorHandle buf4(buf4_handle);
    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, layer_norm, linear], Original ATen: [aten.embedding, aten.arange, aten.add, aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_4[] = {256L, 384L};
    static constexpr int64_t int_array_5[] = {384L, 1L};
    static constexpr int64_t int_array_6[] = {384L, 1152L};
    static constexpr int64_t int_array_7[] = {1L, 384L};
    aoti_torch_save_tensor_handle(buf4, "buf4", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf4, blocks_0_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_0_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf4, "buf4", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear, split, view, transpose, view_1, transpose_1, view_2, transpose_2, scaled_dot_product_attention], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    static constexpr int64_t int_array_8[] = {2L, 6L, 128L, 64L};
    static constexpr int64_t int_array_9[] = {147456L, 64L, 1152L, 1L};
    AtenTensorHandle buf6_handle;
    AtenTensorHandle buf7_handle;
    int64_t buf5_4 = 128;
    int64_t buf5_5 = 128;
    AtenTensorHandle buf8_handle;
    AtenTensorHandle buf9_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf6_handle, &buf7_handle, nullptr, nullptr, &buf5_4, &buf5_5, &buf8_handle, &buf9_handle, nullptr));
    RAIIAtenTensorHandle buf6(buf6_handle);
    RAIIAtenTensorHandle buf7(buf7_handle);
    RAIIAtenTensorHandle buf8(buf8_handle);
    RAIIAtenTensorHandle buf9(buf9_handle);
    buf4.reset();

    static constexpr int64_t int_array_10[] = {256L, 384L};
    static constexpr int64_t int_array_11[] = {384L, 1L};
    auto buf10 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_10, int_array_11, 0L)); buf3.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_3, reshape, linear_1], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_12[] = {384L, 384L};
    aoti_torch_save_tensor_handle(buf10, "buf10", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf10, blocks_0_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf6, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_0_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf10, "buf10", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_13[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_14[] = {49152L, 384L, 1L};
    auto buf14 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf6, 3, int_array_13, int_array_14, 0L)); buf6.reset();  // reuse
    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, linear_1, add_1, layer_norm_1], Original ATen: [aten.embedding, aten.arange, aten.add, aten.view, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(buf10, "buf10", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(blocks_0_ln2_weight, "blocks_0_ln2_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(blocks_0_ln2_bias, "blocks_0_ln2_bias", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(buf14, "buf14", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    call_triton_per_fused_add_arange_embedding_native_layer_norm_view_1(arg77_1, tok_weight, pos_weight, buf10, blocks_0_ln2_weight, blocks_0_ln2_bias, buf14, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(buf10, "buf10", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(blocks_0_ln2_weight, "blocks_0_ln2_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(blocks_0_ln2_bias, "blocks_0_ln2_bias", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    aoti_torch_save_tensor_handle(buf14, "buf14", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_1");
    static constexpr int64_t int_array_15[] = {256L, 1536L};
    static constexpr int64_t int_array_16[] = {1536L, 1L};
    AtenTensorHandle buf15_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_15, int_array_16, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf15_handle));
    RAIIAtenTensorHandle buf15(buf15_handle);
    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, linear_1, add_1, layer_norm_1, linear_2], Original ATen: [aten.embedding, aten.arange, aten.add, aten.view, aten.native_layer_norm, aten.t, aten.addmm]
    static constexpr int64_t int_array_17[] = {384L, 1536L};
    aoti_torch_save_tensor_handle(buf15, "buf15", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf15, blocks_0_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf14, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_0_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf15, "buf15", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_18[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_19[] = {196608L, 1536L, 1L};
    auto buf16 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf15, 3, int_array_18, int_array_19, 0L)); buf15.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_2, gelu], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf16, "buf16", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf16, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf16, "buf16", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_20[] = {256L, 384L};
    static constexpr int64_t int_array_21[] = {384L, 1L};
    auto buf17 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf14, 2, int_array_20, int_array_21, 0L)); buf14.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_2, gelu, linear_3], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    static constexpr int64_t int_array_22[] = {256L, 1536L};
    static constexpr int64_t int_array_23[] = {1536L, 1L};
    static constexpr int64_t int_array_24[] = {1536L, 384L};
    static constexpr int64_t int_array_25[] = {1L, 1536L};
    aoti_torch_save_tensor_handle(buf17, "buf17", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf17, blocks_0_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf16, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_0_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf17, "buf17", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_26[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_27[] = {49152L, 384L, 1L};
    auto buf18 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf10, 3, int_array_26, int_array_27, 0L)); buf10.reset();  // reuse
    static constexpr int64_t int_array_28[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_29[] = {49152L, 384L, 1L};
    AtenTensorHandle buf22_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_28, int_array_29, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf22_handle));
    RAIIAtenTensorHandle buf22(buf22_handle);
    // Topologically Sorted Source Nodes: [embedding, arange, embedding_1, add, linear_1, add_1, linear_3, add_2, layer_norm_2], Original ATen: [aten.embedding, aten.arange, aten.add, aten.view, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf18, "buf18", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(buf17, "buf17", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(blocks_1_ln1_weight, "blocks_1_ln1_weight", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(blocks_1_ln1_bias, "blocks_1_ln1_bias", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(buf22, "buf22", "before_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    call_triton_per_fused_add_arange_embedding_native_layer_norm_view_3(buf18, arg77_1, tok_weight, pos_weight, buf17, blocks_1_ln1_weight, blocks_1_ln1_bias, buf22, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf18, "buf18", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(arg77_1, "arg77_1", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(tok_weight, "tok_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(pos_weight, "pos_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(buf17, "buf17", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(blocks_1_ln1_weight, "blocks_1_ln1_weight", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(blocks_1_ln1_bias, "blocks_1_ln1_bias", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    aoti_torch_save_tensor_handle(buf22, "buf22", "after_launch", "triton_per_fused_add_arange_embedding_native_layer_norm_view_3");
    arg77_1.reset();
    static constexpr int64_t int_array_30[] = {256L, 1152L};
    static constexpr int64_t int_array_31[] = {1152L, 1L};
    AtenTensorHandle buf23_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_30, int_array_31, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf23_handle));
    RAIIAtenTensorHandle buf23(buf23_handle);
    // Topologically Sorted Source Nodes: [layer_norm_2, linear_4], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf23, "buf23", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf23, blocks_1_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf22, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_1_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf23, "buf23", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear_4, split_1, view_3, transpose_4, view_4, transpose_5, view_5, transpose_6, scaled_dot_product_attention_1], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    AtenTensorHandle buf25_handle;
    AtenTensorHandle buf26_handle;
    int64_t buf24_4 = 128;
    int64_t buf24_5 = 128;
    AtenTensorHandle buf27_handle;
    AtenTensorHandle buf28_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf23, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf23, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf23, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf25_handle, &buf26_handle, nullptr, nullptr, &buf24_4, &buf24_5, &buf27_handle, &buf28_handle, nullptr));
    RAIIAtenTensorHandle buf25(buf25_handle);
    RAIIAtenTensorHandle buf26(buf26_handle);
    RAIIAtenTensorHandle buf27(buf27_handle);
    RAIIAtenTensorHandle buf28(buf28_handle);
    buf23.reset();

    static constexpr int64_t int_array_32[] = {256L, 384L};
    static constexpr int64_t int_array_33[] = {384L, 1L};
    auto buf29 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf22, 2, int_array_32, int_array_33, 0L)); buf22.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_7, reshape_1, linear_5], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf29, "buf29", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf29, blocks_1_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf25, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_1_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf29, "buf29", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_34[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_35[] = {49152L, 384L, 1L};
    auto buf33 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf25, 3, int_array_34, int_array_35, 0L)); buf25.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_5, add_3, layer_norm_3], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf18, "buf18", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf29, "buf29", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_1_ln2_weight, "blocks_1_ln2_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_1_ln2_bias, "blocks_1_ln2_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf33, "buf33", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    call_triton_per_fused_add_native_layer_norm_view_4(buf18, buf29, blocks_1_ln2_weight, blocks_1_ln2_bias, buf33, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf18, "buf18", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf29, "buf29", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_1_ln2_weight, "blocks_1_ln2_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_1_ln2_bias, "blocks_1_ln2_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf33, "buf33", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    static constexpr int64_t int_array_36[] = {256L, 1536L};
    static constexpr int64_t int_array_37[] = {1536L, 1L};
    auto buf34 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf16, 2, int_array_36, int_array_37, 0L)); buf16.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_5, add_3, layer_norm_3, linear_6], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf34, "buf34", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf34, blocks_1_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf33, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_1_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf34, "buf34", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_38[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_39[] = {196608L, 1536L, 1L};
    auto buf35 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf34, 3, int_array_38, int_array_39, 0L)); buf34.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_6, gelu_1], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf35, "buf35", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf35, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf35, "buf35", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_40[] = {256L, 384L};
    static constexpr int64_t int_array_41[] = {384L, 1L};
    auto buf36 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf33, 2, int_array_40, int_array_41, 0L)); buf33.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_6, gelu_1, linear_7], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf36, "buf36", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf36, blocks_1_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf35, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_1_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf36, "buf36", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_42[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_43[] = {49152L, 384L, 1L};
    auto buf40 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf17, 3, int_array_42, int_array_43, 0L)); buf17.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_5, add_3, linear_7, add_4, layer_norm_4], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf18, "buf18", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf29, "buf29", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf36, "buf36", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_2_ln1_weight, "blocks_2_ln1_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_2_ln1_bias, "blocks_2_ln1_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf40, "buf40", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    call_triton_per_fused_add_native_layer_norm_view_5(buf18, buf29, buf36, blocks_2_ln1_weight, blocks_2_ln1_bias, buf40, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf18, "buf18", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf29, "buf29", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf36, "buf36", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_2_ln1_weight, "blocks_2_ln1_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_2_ln1_bias, "blocks_2_ln1_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf40, "buf40", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    static constexpr int64_t int_array_44[] = {256L, 1152L};
    static constexpr int64_t int_array_45[] = {1152L, 1L};
    AtenTensorHandle buf41_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_44, int_array_45, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf41_handle));
    RAIIAtenTensorHandle buf41(buf41_handle);
    // Topologically Sorted Source Nodes: [linear_5, add_3, linear_7, add_4, layer_norm_4, linear_8], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf41, "buf41", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf41, blocks_2_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf40, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_2_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf41, "buf41", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear_8, split_2, view_6, transpose_8, view_7, transpose_9, view_8, transpose_10, scaled_dot_product_attention_2], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    AtenTensorHandle buf43_handle;
    AtenTensorHandle buf44_handle;
    int64_t buf42_4 = 128;
    int64_t buf42_5 = 128;
    AtenTensorHandle buf45_handle;
    AtenTensorHandle buf46_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf41, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf41, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf41, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf43_handle, &buf44_handle, nullptr, nullptr, &buf42_4, &buf42_5, &buf45_handle, &buf46_handle, nullptr));
    RAIIAtenTensorHandle buf43(buf43_handle);
    RAIIAtenTensorHandle buf44(buf44_handle);
    RAIIAtenTensorHandle buf45(buf45_handle);
    RAIIAtenTensorHandle buf46(buf46_handle);
    buf41.reset();

    static constexpr int64_t int_array_46[] = {256L, 384L};
    static constexpr int64_t int_array_47[] = {384L, 1L};
    auto buf47 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf40, 2, int_array_46, int_array_47, 0L)); buf40.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_11, reshape_2, linear_9], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf47, "buf47", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf47, blocks_2_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf43, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_2_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf47, "buf47", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_48[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_49[] = {49152L, 384L, 1L};
    auto buf51 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf43, 3, int_array_48, int_array_49, 0L)); buf43.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_5, add_3, linear_7, add_4, linear_9, add_5, layer_norm_5], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf18, "buf18", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf29, "buf29", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf36, "buf36", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf47, "buf47", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_2_ln2_weight, "blocks_2_ln2_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_2_ln2_bias, "blocks_2_ln2_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf51, "buf51", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    call_triton_per_fused_add_native_layer_norm_view_6(buf18, buf29, buf36, buf47, blocks_2_ln2_weight, blocks_2_ln2_bias, buf51, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf18, "buf18", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf29, "buf29", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf36, "buf36", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf47, "buf47", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_2_ln2_weight, "blocks_2_ln2_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_2_ln2_bias, "blocks_2_ln2_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf51, "buf51", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    static constexpr int64_t int_array_50[] = {256L, 1536L};
    static constexpr int64_t int_array_51[] = {1536L, 1L};
    auto buf52 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf35, 2, int_array_50, int_array_51, 0L)); buf35.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_5, add_3, linear_7, add_4, linear_9, add_5, layer_norm_5, linear_10], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf52, "buf52", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf52, blocks_2_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf51, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_2_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf52, "buf52", "after_launch", "aoti_torch_cuda_addmm_out");
    buf51.reset();
    static constexpr int64_t int_array_52[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_53[] = {196608L, 1536L, 1L};
    auto buf53 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf52, 3, int_array_52, int_array_53, 0L)); buf52.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_10, gelu_2], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf53, "buf53", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf53, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf53, "buf53", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_54[] = {256L, 384L};
    static constexpr int64_t int_array_55[] = {384L, 1L};
    AtenTensorHandle buf54_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_54, int_array_55, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf54_handle));
    RAIIAtenTensorHandle buf54(buf54_handle);
    // Topologically Sorted Source Nodes: [linear_10, gelu_2, linear_11], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf54, "buf54", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf54, blocks_2_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf53, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_2_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf54, "buf54", "after_launch", "aoti_torch_cuda_addmm_out");
    auto buf55 = std::move(buf18);  // reuse
    static constexpr int64_t int_array_56[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_57[] = {49152L, 384L, 1L};
    AtenTensorHandle buf59_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_56, int_array_57, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf59_handle));
    RAIIAtenTensorHandle buf59(buf59_handle);
    // Topologically Sorted Source Nodes: [linear_5, add_3, linear_7, add_4, linear_9, add_5, linear_11, add_6, layer_norm_6], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf55, "buf55", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf29, "buf29", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf36, "buf36", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf47, "buf47", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf54, "buf54", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_3_ln1_weight, "blocks_3_ln1_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_3_ln1_bias, "blocks_3_ln1_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf59, "buf59", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    call_triton_per_fused_add_native_layer_norm_view_7(buf55, buf29, buf36, buf47, buf54, blocks_3_ln1_weight, blocks_3_ln1_bias, buf59, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf55, "buf55", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf29, "buf29", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf36, "buf36", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf47, "buf47", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf54, "buf54", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_3_ln1_weight, "blocks_3_ln1_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_3_ln1_bias, "blocks_3_ln1_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf59, "buf59", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    buf29.reset();
    buf36.reset();
    buf47.reset();
    static constexpr int64_t int_array_58[] = {256L, 1152L};
    static constexpr int64_t int_array_59[] = {1152L, 1L};
    AtenTensorHandle buf60_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_58, int_array_59, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf60_handle));
    RAIIAtenTensorHandle buf60(buf60_handle);
    // Topologically Sorted Source Nodes: [layer_norm_6, linear_12], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf60, "buf60", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf60, blocks_3_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf59, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_3_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf60, "buf60", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear_12, split_3, view_9, transpose_12, view_10, transpose_13, view_11, transpose_14, scaled_dot_product_attention_3], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    AtenTensorHandle buf62_handle;
    AtenTensorHandle buf63_handle;
    int64_t buf61_4 = 128;
    int64_t buf61_5 = 128;
    AtenTensorHandle buf64_handle;
    AtenTensorHandle buf65_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf60, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf60, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf60, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf62_handle, &buf63_handle, nullptr, nullptr, &buf61_4, &buf61_5, &buf64_handle, &buf65_handle, nullptr));
    RAIIAtenTensorHandle buf62(buf62_handle);
    RAIIAtenTensorHandle buf63(buf63_handle);
    RAIIAtenTensorHandle buf64(buf64_handle);
    RAIIAtenTensorHandle buf65(buf65_handle);
    buf60.reset();

    static constexpr int64_t int_array_60[] = {256L, 384L};
    static constexpr int64_t int_array_61[] = {384L, 1L};
    auto buf66 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf59, 2, int_array_60, int_array_61, 0L)); buf59.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_15, reshape_3, linear_13], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf66, "buf66", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf66, blocks_3_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf62, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_3_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf66, "buf66", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_62[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_63[] = {49152L, 384L, 1L};
    auto buf70 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf62, 3, int_array_62, int_array_63, 0L)); buf62.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_13, add_7, layer_norm_7], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf55, "buf55", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf66, "buf66", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_3_ln2_weight, "blocks_3_ln2_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_3_ln2_bias, "blocks_3_ln2_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf70, "buf70", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    call_triton_per_fused_add_native_layer_norm_view_4(buf55, buf66, blocks_3_ln2_weight, blocks_3_ln2_bias, buf70, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf55, "buf55", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf66, "buf66", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_3_ln2_weight, "blocks_3_ln2_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_3_ln2_bias, "blocks_3_ln2_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf70, "buf70", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    static constexpr int64_t int_array_64[] = {256L, 1536L};
    static constexpr int64_t int_array_65[] = {1536L, 1L};
    auto buf71 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf53, 2, int_array_64, int_array_65, 0L)); buf53.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_13, add_7, layer_norm_7, linear_14], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf71, "buf71", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf71, blocks_3_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf70, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_3_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf71, "buf71", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_66[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_67[] = {196608L, 1536L, 1L};
    auto buf72 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf71, 3, int_array_66, int_array_67, 0L)); buf71.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_14, gelu_3], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf72, "buf72", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf72, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf72, "buf72", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_68[] = {256L, 384L};
    static constexpr int64_t int_array_69[] = {384L, 1L};
    auto buf73 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf70, 2, int_array_68, int_array_69, 0L)); buf70.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_14, gelu_3, linear_15], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf73, "buf73", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf73, blocks_3_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf72, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_3_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf73, "buf73", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_70[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_71[] = {49152L, 384L, 1L};
    auto buf77 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf54, 3, int_array_70, int_array_71, 0L)); buf54.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_13, add_7, linear_15, add_8, layer_norm_8], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf55, "buf55", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf66, "buf66", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf73, "buf73", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_4_ln1_weight, "blocks_4_ln1_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_4_ln1_bias, "blocks_4_ln1_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf77, "buf77", "before_launch", "triton_per_fused_add_native_layer_norm_view_5");
    call_triton_per_fused_add_native_layer_norm_view_5(buf55, buf66, buf73, blocks_4_ln1_weight, blocks_4_ln1_bias, buf77, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf55, "buf55", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf66, "buf66", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf73, "buf73", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_4_ln1_weight, "blocks_4_ln1_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(blocks_4_ln1_bias, "blocks_4_ln1_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    aoti_torch_save_tensor_handle(buf77, "buf77", "after_launch", "triton_per_fused_add_native_layer_norm_view_5");
    static constexpr int64_t int_array_72[] = {256L, 1152L};
    static constexpr int64_t int_array_73[] = {1152L, 1L};
    AtenTensorHandle buf78_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_72, int_array_73, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf78_handle));
    RAIIAtenTensorHandle buf78(buf78_handle);
    // Topologically Sorted Source Nodes: [linear_13, add_7, linear_15, add_8, layer_norm_8, linear_16], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf78, "buf78", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf78, blocks_4_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf77, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_4_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf78, "buf78", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear_16, split_4, view_12, transpose_16, view_13, transpose_17, view_14, transpose_18, scaled_dot_product_attention_4], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    AtenTensorHandle buf80_handle;
    AtenTensorHandle buf81_handle;
    int64_t buf79_4 = 128;
    int64_t buf79_5 = 128;
    AtenTensorHandle buf82_handle;
    AtenTensorHandle buf83_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf78, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf78, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf78, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf80_handle, &buf81_handle, nullptr, nullptr, &buf79_4, &buf79_5, &buf82_handle, &buf83_handle, nullptr));
    RAIIAtenTensorHandle buf80(buf80_handle);
    RAIIAtenTensorHandle buf81(buf81_handle);
    RAIIAtenTensorHandle buf82(buf82_handle);
    RAIIAtenTensorHandle buf83(buf83_handle);
    buf78.reset();

    static constexpr int64_t int_array_74[] = {256L, 384L};
    static constexpr int64_t int_array_75[] = {384L, 1L};
    auto buf84 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf77, 2, int_array_74, int_array_75, 0L)); buf77.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_19, reshape_4, linear_17], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf84, "buf84", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf84, blocks_4_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf80, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_4_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf84, "buf84", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_76[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_77[] = {49152L, 384L, 1L};
    auto buf88 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf80, 3, int_array_76, int_array_77, 0L)); buf80.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_13, add_7, linear_15, add_8, linear_17, add_9, layer_norm_9], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf55, "buf55", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf66, "buf66", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf73, "buf73", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf84, "buf84", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_4_ln2_weight, "blocks_4_ln2_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_4_ln2_bias, "blocks_4_ln2_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf88, "buf88", "before_launch", "triton_per_fused_add_native_layer_norm_view_6");
    call_triton_per_fused_add_native_layer_norm_view_6(buf55, buf66, buf73, buf84, blocks_4_ln2_weight, blocks_4_ln2_bias, buf88, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf55, "buf55", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf66, "buf66", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf73, "buf73", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf84, "buf84", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_4_ln2_weight, "blocks_4_ln2_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(blocks_4_ln2_bias, "blocks_4_ln2_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    aoti_torch_save_tensor_handle(buf88, "buf88", "after_launch", "triton_per_fused_add_native_layer_norm_view_6");
    static constexpr int64_t int_array_78[] = {256L, 1536L};
    static constexpr int64_t int_array_79[] = {1536L, 1L};
    auto buf89 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf72, 2, int_array_78, int_array_79, 0L)); buf72.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_13, add_7, linear_15, add_8, linear_17, add_9, layer_norm_9, linear_18], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf89, "buf89", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf89, blocks_4_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf88, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_4_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf89, "buf89", "after_launch", "aoti_torch_cuda_addmm_out");
    buf88.reset();
    static constexpr int64_t int_array_80[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_81[] = {196608L, 1536L, 1L};
    auto buf90 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf89, 3, int_array_80, int_array_81, 0L)); buf89.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_18, gelu_4], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf90, "buf90", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf90, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf90, "buf90", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_82[] = {256L, 384L};
    static constexpr int64_t int_array_83[] = {384L, 1L};
    AtenTensorHandle buf91_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_82, int_array_83, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf91_handle));
    RAIIAtenTensorHandle buf91(buf91_handle);
    // Topologically Sorted Source Nodes: [linear_18, gelu_4, linear_19], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf91, "buf91", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf91, blocks_4_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf90, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_4_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf91, "buf91", "after_launch", "aoti_torch_cuda_addmm_out");
    auto buf92 = std::move(buf55);  // reuse
    static constexpr int64_t int_array_84[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_85[] = {49152L, 384L, 1L};
    AtenTensorHandle buf96_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_84, int_array_85, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf96_handle));
    RAIIAtenTensorHandle buf96(buf96_handle);
    // Topologically Sorted Source Nodes: [linear_13, add_7, linear_15, add_8, linear_17, add_9, linear_19, add_10, layer_norm_10], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf92, "buf92", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf66, "buf66", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf73, "buf73", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf84, "buf84", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf91, "buf91", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_5_ln1_weight, "blocks_5_ln1_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_5_ln1_bias, "blocks_5_ln1_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf96, "buf96", "before_launch", "triton_per_fused_add_native_layer_norm_view_7");
    call_triton_per_fused_add_native_layer_norm_view_7(buf92, buf66, buf73, buf84, buf91, blocks_5_ln1_weight, blocks_5_ln1_bias, buf96, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf92, "buf92", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf66, "buf66", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf73, "buf73", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf84, "buf84", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf91, "buf91", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_5_ln1_weight, "blocks_5_ln1_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(blocks_5_ln1_bias, "blocks_5_ln1_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    aoti_torch_save_tensor_handle(buf96, "buf96", "after_launch", "triton_per_fused_add_native_layer_norm_view_7");
    buf66.reset();
    buf73.reset();
    buf84.reset();
    buf91.reset();
    static constexpr int64_t int_array_86[] = {256L, 1152L};
    static constexpr int64_t int_array_87[] = {1152L, 1L};
    AtenTensorHandle buf97_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_86, int_array_87, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf97_handle));
    RAIIAtenTensorHandle buf97(buf97_handle);
    // Topologically Sorted Source Nodes: [layer_norm_10, linear_20], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf97, "buf97", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf97, blocks_5_qkv_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf96, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_5_qkv_weight, 2, int_array_6, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf97, "buf97", "after_launch", "aoti_torch_cuda_addmm_out");
    // Topologically Sorted Source Nodes: [linear_20, split_5, view_15, transpose_20, view_16, transpose_21, view_17, transpose_22, scaled_dot_product_attention_5], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_cudnn_attention]
    AtenTensorHandle buf99_handle;
    AtenTensorHandle buf100_handle;
    int64_t buf98_4 = 128;
    int64_t buf98_5 = 128;
    AtenTensorHandle buf101_handle;
    AtenTensorHandle buf102_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda__scaled_dot_product_cudnn_attention(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf97, 4, int_array_8, int_array_9, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf97, 4, int_array_8, int_array_9, 384L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf97, 4, int_array_8, int_array_9, 768L)), nullptr, 0, 0.0, 1, 0, nullptr, &buf99_handle, &buf100_handle, nullptr, nullptr, &buf98_4, &buf98_5, &buf101_handle, &buf102_handle, nullptr));
    RAIIAtenTensorHandle buf99(buf99_handle);
    RAIIAtenTensorHandle buf100(buf100_handle);
    RAIIAtenTensorHandle buf101(buf101_handle);
    RAIIAtenTensorHandle buf102(buf102_handle);
    buf97.reset();

    static constexpr int64_t int_array_88[] = {256L, 384L};
    static constexpr int64_t int_array_89[] = {384L, 1L};
    auto buf103 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf96, 2, int_array_88, int_array_89, 0L)); buf96.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_23, reshape_5, linear_21], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf103, "buf103", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf103, blocks_5_proj_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf99, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_5_proj_weight, 2, int_array_12, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf103, "buf103", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_90[] = {2L, 128L, 384L};
    static constexpr int64_t int_array_91[] = {49152L, 384L, 1L};
    auto buf107 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf99, 3, int_array_90, int_array_91, 0L)); buf99.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_21, add_11, layer_norm_11], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf92, "buf92", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf103, "buf103", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_5_ln2_weight, "blocks_5_ln2_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_5_ln2_bias, "blocks_5_ln2_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf107, "buf107", "before_launch", "triton_per_fused_add_native_layer_norm_view_4");
    call_triton_per_fused_add_native_layer_norm_view_4(buf92, buf103, blocks_5_ln2_weight, blocks_5_ln2_bias, buf107, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf92, "buf92", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf103, "buf103", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_5_ln2_weight, "blocks_5_ln2_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(blocks_5_ln2_bias, "blocks_5_ln2_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    aoti_torch_save_tensor_handle(buf107, "buf107", "after_launch", "triton_per_fused_add_native_layer_norm_view_4");
    static constexpr int64_t int_array_92[] = {256L, 1536L};
    static constexpr int64_t int_array_93[] = {1536L, 1L};
    auto buf108 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf90, 2, int_array_92, int_array_93, 0L)); buf90.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_21, add_11, layer_norm_11, linear_22], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf108, "buf108", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf108, blocks_5_fc_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf107, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_5_fc_weight, 2, int_array_17, int_array_7, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf108, "buf108", "after_launch", "aoti_torch_cuda_addmm_out");
    static constexpr int64_t int_array_94[] = {2L, 128L, 1536L};
    static constexpr int64_t int_array_95[] = {196608L, 1536L, 1L};
    auto buf109 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf108, 3, int_array_94, int_array_95, 0L)); buf108.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_22, gelu_5], Original ATen: [aten.view, aten.gelu]
    aoti_torch_save_tensor_handle(buf109, "buf109", "before_launch", "triton_poi_fused_gelu_view_2");
    call_triton_poi_fused_gelu_view_2(buf109, 393216L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf109, "buf109", "after_launch", "triton_poi_fused_gelu_view_2");
    static constexpr int64_t int_array_96[] = {256L, 384L};
    static constexpr int64_t int_array_97[] = {384L, 1L};
    auto buf110 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf107, 2, int_array_96, int_array_97, 0L)); buf107.reset();  // reuse
    // Topologically Sorted Source Nodes: [linear_22, gelu_5, linear_23], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    aoti_torch_save_tensor_handle(buf110, "buf110", "before_launch", "aoti_torch_cuda_addmm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(buf110, blocks_5_out_bias, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf109, 2, int_array_22, int_array_23, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(blocks_5_out_weight, 2, int_array_24, int_array_25, 0L)), 1L, 1L));
    aoti_torch_save_tensor_handle(buf110, "buf110", "after_launch", "aoti_torch_cuda_addmm_out");
    buf109.reset();
    auto buf114 = std::move(buf92);  // reuse
    // Topologically Sorted Source Nodes: [linear_21, add_11, linear_23, add_12, layer_norm_12], Original ATen: [aten.view, aten.add, aten.native_layer_norm]
    aoti_torch_save_tensor_handle(buf114, "buf114", "before_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(buf103, "buf103", "before_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(buf110, "buf110", "before_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(ln_weight, "ln_weight", "before_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(ln_bias, "ln_bias", "before_launch", "triton_per_fused_add_native_layer_norm_view_8");
    call_triton_per_fused_add_native_layer_norm_view_8(buf114, buf103, buf110, ln_weight, ln_bias, 256L, 384L, this->device_idx_, stream, kernels, this->cubin_dir_);
    aoti_torch_save_tensor_handle(buf114, "buf114", "after_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(buf103, "buf103", "after_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(buf110, "buf110", "after_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(ln_weight, "ln_weight", "after_launch", "triton_per_fused_add_native_layer_norm_view_8");
    aoti_torch_save_tensor_handle(ln_bias, "ln_bias", "after_launch", "triton_per_fused_add_native_layer_norm_view_8");
    buf103.reset();
    buf110.reset();
    static constexpr int64_t int_array_98[] = {256L, 512L};
    static constexpr int64_t int_array_99[] = {512L, 1L};
    AtenTensorHandle buf115_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_98, int_array_99, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf115_handle));
    RAIIAtenTensorHandle buf115(buf115_handle);
    // Topologically Sorted Source Nodes: [linear_21, add_11, linear_23, add_12, layer_norm_12, linear_24], Original ATen: [aten.view, aten.add, aten.native_layer_norm, aten.t, aten.mm]
    static constexpr int64_t int_array_100[] = {384L, 512L};
    aoti_torch_save_tensor_handle(buf115, "buf115", "before_launch", "aoti_torch_cuda_mm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf115, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf114, 2, int_array_4, int_array_5, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(head_weight, 2, int_array_100, int_array_7, 0L))));
    aoti_torch_save_tensor_handle(buf115, "buf115", "after_launch", "aoti_torch_cuda_mm_out");
    buf114.reset();
    static constexpr int64_t int_array_101[] = {2L, 128L, 512L};
    static constexpr int64_t int_array_102[] = {65536L, 512L, 1L};
    auto var_0 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf115, 3, int_array_101, int_array_102, 0L));
    output_handles[0] = var_0.release();
} // AOTInductorModel::run_impl
