    inputs_info_[0].name = "arg0_1";
    inputs_info_[1].name = "arg1_1";
    outputs_info_[0].name = "output0";
    outputs_info_[1].name = "output1";
AOTI_NOINLINE static void check_input_0(
    AtenTensorHandle* input_handles
) {
    ConstantHandle arg0_1 = ConstantHandle(input_handles[0]);
    int32_t arg0_1_dtype;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_get_dtype(arg0_1, &arg0_1_dtype));

    int32_t arg0_1_expected_dtype = aoti_torch_dtype_float32();
    if (arg0_1_expected_dtype != arg0_1_dtype) {
        std::stringstream ss;
        ss << "input_handles[0]: unmatched dtype, "
           << "expected: " << arg0_1_expected_dtype << "(at::kFloat), "
           << "but got: " << arg0_1_dtype << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    auto arg0_1_size = arg0_1.sizes();

    if (arg0_1_size[0] < 2) {
        std::stringstream ss;
        ss << "input_handles[0]: dim value is too small at 0, "
           << "expected it to be >= 2, " << "but got: "
           << arg0_1_size[0] << "\n";
        throw std::runtime_error(std::move(ss).str());
    }

    if (arg0_1_size[0] > 32) {
        std::stringstream ss;
        ss << "input_handles[0]: dim value is too large at 0, "
           << "expected to be <= 32, " << "but got: "
           << arg0_1_size[0] << "\n";
        throw std::runtime_error(std::move(ss).str());
    }

    if (8 != arg0_1_size[1]) {
        std::stringstream ss;
        ss << "input_handles[0]: unmatched dim value at 1, "
           << "expected: 8, " << "but got: " << arg0_1_size[1]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    auto arg0_1_stride = arg0_1.strides();

    if (8 != arg0_1_stride[0]) {
        std::stringstream ss;
        ss << "input_handles[0]: unmatched stride value at 0, "
           << "expected: 8, " << "but got: " << arg0_1_stride[0]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }

    if (1 != arg0_1_stride[1]) {
        std::stringstream ss;
        ss << "input_handles[0]: unmatched stride value at 1, "
           << "expected: 1, " << "but got: " << arg0_1_stride[1]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    int32_t arg0_1_device_type;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_type(arg0_1, &arg0_1_device_type));

    int32_t arg0_1_expected_device_type = 0;
    if (arg0_1_expected_device_type != arg0_1_device_type) {
        std::stringstream ss;
        ss << "input_handles[0]: unmatched device type, "
        << "expected: " << arg0_1_expected_device_type << "0(cpu), "
        << "but got: " << arg0_1_device_type << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
}

AOTI_NOINLINE static void check_input_1(
    AtenTensorHandle* input_handles
) {
    ConstantHandle arg1_1 = ConstantHandle(input_handles[1]);
    int32_t arg1_1_dtype;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_get_dtype(arg1_1, &arg1_1_dtype));

    int32_t arg1_1_expected_dtype = aoti_torch_dtype_float32();
    if (arg1_1_expected_dtype != arg1_1_dtype) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched dtype, "
           << "expected: " << arg1_1_expected_dtype << "(at::kFloat), "
           << "but got: " << arg1_1_dtype << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    auto arg1_1_size = arg1_1.sizes();

    if (8 != arg1_1_size[0]) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched dim value at 0, "
           << "expected: 8, " << "but got: " << arg1_1_size[0]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }

    if (6 != arg1_1_size[1]) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched dim value at 1, "
           << "expected: 6, " << "but got: " << arg1_1_size[1]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    auto arg1_1_stride = arg1_1.strides();

    if (6 != arg1_1_stride[0]) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched stride value at 0, "
           << "expected: 6, " << "but got: " << arg1_1_stride[0]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }

    if (1 != arg1_1_stride[1]) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched stride value at 1, "
           << "expected: 1, " << "but got: " << arg1_1_stride[1]
           << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
    int32_t arg1_1_device_type;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_type(arg1_1, &arg1_1_device_type));

    int32_t arg1_1_expected_device_type = 0;
    if (arg1_1_expected_device_type != arg1_1_device_type) {
        std::stringstream ss;
        ss << "input_handles[1]: unmatched device type, "
        << "expected: " << arg1_1_expected_device_type << "0(cpu), "
        << "but got: " << arg1_1_device_type << "\n";
        throw std::runtime_error(std::move(ss).str());
    }
}

static bool _check_aoti_runtime_check_inputs_env() {
    const static char* env_var_value = getenv("AOTI_RUNTIME_CHECK_INPUTS");
    const static bool result = env_var_value != nullptr && env_var_value[0] != '0';
    return result;
}

AOTI_NOINLINE static void __check_inputs_outputs(
    AtenTensorHandle* input_handles,
    AtenTensorHandle* output_handles) {
    if (!_check_aoti_runtime_check_inputs_env()){
        return;
    }
    check_input_0(input_handles);
    check_input_1(input_handles);
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
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 2);
    auto arg0_1 = std::move(inputs[0]);
    auto arg1_1 = std::move(inputs[1]);
    auto arg0_1_size = arg0_1.sizes();
    int64_t s77 = arg0_1_size[0];
    inputs.clear();
    [[maybe_unused]] auto& kernels = static_cast<AOTInductorModelKernels&>(*this->kernels_.get());
    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg0_1, {s77, 8L}, {8L, 1L}, "input"); }
    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg1_1, {8L, 6L}, {6L, 1L}, "input"); }
    const int64_t int_array_0[] = {s77, 6L};
    static constexpr int64_t int_array_1[] = {6L, 1L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, this->device_idx_, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    // Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.mm]
    aoti_torch_save_tensor_handle(buf0, "buf0", "before_launch", "aoti_torch_cpu_mm_out");
    aoti_torch_save_tensor_handle(arg0_1, "arg0_1", "before_launch", "aoti_torch_cpu_mm_out");
    aoti_torch_save_tensor_handle(arg1_1, "arg1_1", "before_launch", "aoti_torch_cpu_mm_out");
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf0, arg0_1, arg1_1));
    aoti_torch_save_tensor_handle(buf0, "buf0", "after_launch", "aoti_torch_cpu_mm_out");
    aoti_torch_save_tensor_handle(arg0_1, "arg0_1", "after_launch", "aoti_torch_cpu_mm_out");
    aoti_torch_save_tensor_handle(arg1_1, "arg1_1", "after_launch", "aoti_torch_cpu_mm_out");
    arg0_1.reset();
    arg1_1.reset();
    auto buf1 = std::move(buf0);  // reuse
    static constexpr int64_t int_array_2[] = {6L, };
    static constexpr int64_t int_array_3[] = {1L, };
    AtenTensorHandle buf2_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(1, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, this->device_idx_, &buf2_handle));
    RAIIAtenTensorHandle buf2(buf2_handle);
    aoti_torch_save_tensor_handle(buf1, "buf1", "before_launch", "cpp_fused_add_relu_sum_0");
    aoti_torch_save_tensor_handle(buf2, "buf2", "before_launch", "cpp_fused_add_relu_sum_0");
    cpp_fused_add_relu_sum_0((float*)(buf1.data_ptr()), (float*)(buf2.data_ptr()), s77);
    aoti_torch_save_tensor_handle(buf1, "buf1", "after_launch", "cpp_fused_add_relu_sum_0");
    aoti_torch_save_tensor_handle(buf2, "buf2", "after_launch", "cpp_fused_add_relu_sum_0");
    output_handles[0] = buf1.release();
    output_handles[1] = buf2.release();
} // AOTInductorModel::run_impl
} // nam