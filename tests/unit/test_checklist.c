/* test_checklist.c — wrapper.cpp scanning and checklist rows.
 *
 * The snippets below are lines of a real torch 2.13 AOTI wrapper.cpp (the
 * check2 model of tests/models/model_check.py), trimmed to what the scanner
 * reads, plus the GPU/printer-level-2/3 lines in the exact form torch's
 * cpp_wrapper_gpu.py and debug_utils.py generate.
 *
 * With AOTIDBG_CHECK_PKG=<a real check2.pt2> (set by tests/integration/
 * test_check.py) it also runs the whole checklist on that package with a
 * transposed first input (strides from AOTIDBG_CHECK_STRIDES, computed by
 * torch), a case the inputs spec cannot express yet. */
#include <stdlib.h>
#include "check.h"
#include "checklist.h"
#include "elf_syms.h"
#include "wrapper_scan.h"

static const char snippet[] =
    "    inputs_info_[0].name = \"arg0_1\";\n"
    "    inputs_info_[1].name = \"arg1_1\";\n"
    "    outputs_info_[0].name = \"output0\";\n"
    "    outputs_info_[1].name = \"output1\";\n"
    "AOTI_NOINLINE static void check_input_0(\n"
    "    AtenTensorHandle* input_handles\n"
    ") {\n"
    "    ConstantHandle arg0_1 = ConstantHandle(input_handles[0]);\n"
    "    int32_t arg0_1_expected_dtype = aoti_torch_dtype_float32();\n"
    "    if (arg0_1_expected_dtype != arg0_1_dtype) {\n"
    "    }\n"
    "    if (arg0_1_size[0] < 2) {\n"
    "    }\n"
    "    if (arg0_1_size[0] > 32) {\n"
    "    }\n"
    "    if (8 != arg0_1_size[1]) {\n"
    "    }\n"
    "    if (1 != arg0_1_stride[1]) {\n"
    "    }\n"
    "    int32_t arg0_1_expected_device_type = 0;\n"
    "}\n"
    "AOTI_NOINLINE static void check_input_1(\n"
    "    ConstantHandle arg1_1 = ConstantHandle(input_handles[1]);\n"
    "    int32_t arg1_1_expected_dtype = aoti_torch_dtype_float32();\n"
    "    if (8 != arg1_1_size[0]) {\n"
    "    }\n"
    "    if (6 != arg1_1_size[1]) {\n"
    "    }\n"
    "    if (6 != arg1_1_stride[0]) {\n"
    "    }\n"
    "    if (1 != arg1_1_stride[1]) {\n"
    "    }\n"
    "    int32_t arg1_1_expected_device_type = 0;\n"
    "}\n"
    "void AOTInductorModel::run_impl(\n"
    "    int64_t s77 = arg0_1_size[0];\n"
    "    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg0_1, {s77, 8L}, {8L, 1L}, \"input\"); }\n"
    "    if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(arg1_1, {8L, 6L}, {6L, 1L}, \"input\"); }\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"aoti_torch_cpu_mm_out\");\n"
    "    aoti_torch_save_tensor_handle(arg0_1, \"arg0_1\", \"before_launch\", \"aoti_torch_cpu_mm_out\");\n"
    "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf0, arg0_1, arg1_1));\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"aoti_torch_cpu_mm_out\");\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"cpp_fused_add_relu_sum_0\");\n"
    "    cpp_fused_add_relu_sum_0((float*)(buf0.data_ptr()), s77);\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"cpp_fused_add_relu_sum_0\");\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"before_launch\", \"aoti_torch_cpu_mm_out\");\n"
    "    aoti_torch_save_tensor_handle(buf0, \"buf0\", \"after_launch\", \"aoti_torch_cpu_mm_out\");\n"
    "} // AOTInductorModel::run_impl\n";

static void scan(wrapper_scan *ws, const char *text)
{
    strbuf err = STRBUF_INIT;
    CHECK(wrapper_scan_text(ws, text, strlen(text), &err) == 0);
    strbuf_release(&err);
}

static void test_scan_inputs(void)
{
    wrapper_scan ws;
    scan(&ws, snippet);
    CHECK(ws.ninputs == 2);
    CHECK(ws.noutputs == 2);
    CHECK(ws.has_input_checks);
    const ws_input *x = &ws.inputs[0], *w = &ws.inputs[1];
    CHECK_STR(x->name, "arg0_1");
    CHECK_STR(x->dtype, "float32");
    CHECK_STR(x->device, "cpu");
    CHECK(x->ndim == 2);
    CHECK(x->dims[0] == WS_UNKNOWN && x->dim_min[0] == 2 && x->dim_max[0] == 32);
    CHECK_STR(x->dim_sym[0], "s77");
    CHECK(x->dims[1] == 8);
    CHECK(x->strides[0] == 8 && x->strides[1] == 1);   /* stride 0 from assert_size_stride */
    CHECK(x->line == 5);
    CHECK_STR(w->name, "arg1_1");
    CHECK(w->ndim == 2 && w->dims[0] == 8 && w->dims[1] == 6);
    CHECK(w->strides[0] == 6 && w->strides[1] == 1);
    CHECK(ws.printer_level == 1);
    CHECK_STR(ws.kernels_source, "printer");
    /* three launches: mm, the fused kernel, mm again (a second launch of the same kernel) */
    CHECK(ws.nkernels == 3);
    if (ws.nkernels == 3) {
        CHECK_STR(ws.kernels[0].name, "aoti_torch_cpu_mm_out");
        CHECK_STR(ws.kernels[1].name, "cpp_fused_add_relu_sum_0");
        CHECK_STR(ws.kernels[2].name, "aoti_torch_cpu_mm_out");
    }
    CHECK(!ws.nan_asserts && ws.ncubins == 0);
    wrapper_scan_free(&ws);
}

static void test_scan_gpu_and_levels(void)
{
    const char *gpu =
        "    constants_info_[0].name = \"l_weight\";\n"
        "    constants_info_[0].original_fqn = \"l.weight\";\n"
        "    : AOTInductorModelBase(2,\n"
        "                           std::move(cubin_dir),\n"
        "                           false) {\n"
        "    if (kernels_.triton_poi_fused_0 == nullptr) {\n"
        "        kernels_.triton_poi_fused_0 = loadKernel(\"/tmp/t/ab/cxyz.cubin\", \"triton_poi_fused_0\", 0, "
        "cubin_dir_, &kernels_.loaded_modules_); \n"
        "    }\n"
        "    if (kernels_.triton_poi_fused_1 == nullptr) {\n"
        "        kernels_.triton_poi_fused_1 = loadKernel(__triton_poi_fused_1_start, \"triton_poi_fused_1\", 0); \n"
        "    }\n"
        "    int32_t arg3_1_expected_device_type = 1;\n"
        "    aoti_torch_print_tensor_handle(buf0, \"before_launch - triton_poi_fused_0 - buf0\");\n"
        "    aoti_torch_print_tensor_handle(buf0, \"after_launch - triton_poi_fused_0 - buf0\");\n"
        "    printf(\"[ before_launch: triton_poi_fused_1 ]\\n\");\n"
        "    printf(\"[ after_launch: triton_poi_fused_1 ]\\n\");\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_check_inf_and_nan(\"buf0\", buf0));\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_proxy_executor_call_function(proxy_executor, 0, 1, "
        "int_array_0, 2, tensor_args_var_0));\n";
    wrapper_scan ws;
    scan(&ws, gpu);
    CHECK(ws.ncubins == 1);
    if (ws.ncubins == 1) {
        CHECK_STR(ws.cubins[0].file, "cxyz.cubin");
        CHECK_STR(ws.cubins[0].kernel, "triton_poi_fused_0");
    }
    CHECK(ws.nembedded_kernels == 1);
    CHECK(ws.printer_level == 3);   /* the highest level seen */
    CHECK(ws.nkernels == 2);
    CHECK(ws.nan_asserts && ws.nan_assert_line == 17);
    CHECK(ws.nproxy_calls == 1);
    CHECK(ws.include_weights == 0);
    CHECK(ws.nconstants == 1 && !strcmp(ws.constants[0].fqn, "l.weight"));
    wrapper_scan_free(&ws);

    /* no printer: kernels come from call sites in run_impl */
    const char *plain =
        "void AOTInductorModel::run_impl(\n"
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf0, a, b, c, 1L, 1L));\n"
        "    cpp_fused_relu_0((float*)(buf0.data_ptr()));\n"
        "    call_triton_poi_fused_1(buf0, stream, kernels, this->cubin_dir_);\n"
        "} // AOTInductorModel::run_impl\n"
        "    cpp_fused_outside_1();\n";
    scan(&ws, plain);
    CHECK(ws.printer_level == 0);
    CHECK_STR(ws.kernels_source, "call-sites");
    CHECK(ws.nkernels == 3);
    if (ws.nkernels == 3)
        CHECK_STR(ws.kernels[2].name, "triton_poi_fused_1");
    wrapper_scan_free(&ws);
}

static void test_scan_hostile(void)
{
    /* huge indexes, overflowing numbers, NUL bytes, dims past TENSOR_MAX_DIMS */
    static const char bad[] =
        "inputs_info_[99999999999999999999].name = \"x\";\n"
        "inputs_info_[5000].name = \"y\";\n"
        "inputs_info_[-1].name = \"z\";\n"
        "AOTI_NOINLINE static void check_input_0(\n"
        "    if (8 != arg_size[400]) {\n"
        "    if (arg_size[3] < 99999999999999999999999) {\n"
        "    if (1 != x_stride[-2]) {\n"
        "assert_size_stride(arg, {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18}, {1}, \"input\");\n"
        "\0 garbage after a NUL\n"
        "aoti_torch_save_tensor_handle(b, \"b\", \"before_launch\", \"unterminated);\n"
        "loadKernel(\"no-end\n";
    wrapper_scan ws;
    strbuf err = STRBUF_INIT;
    CHECK(wrapper_scan_text(&ws, bad, sizeof bad - 1, &err) == 0);
    CHECK(ws.ninputs == 1);
    CHECK(ws.inputs[0].ndim == -1);
    CHECK(ws.nkernels == 0 && ws.ncubins == 0);
    wrapper_scan_free(&ws);
    strbuf_release(&err);
}

static const check_row *row(const checklist *cl, const char *id) { return checklist_find(cl, id); }

static size_t nfail(const checklist *cl) { return checklist_count(cl, CHECK_FAIL); }

static void spec2(input_spec *in, int64_t b)
{
    memset(in, 0, 2 * sizeof *in);
    in[0].ndim = 2; in[0].shape[0] = b; in[0].shape[1] = 8; in[0].dtype = "float32"; in[0].device = "cpu";
    in[1].ndim = 2; in[1].shape[0] = 8; in[1].shape[1] = 6; in[1].dtype = "float32"; in[1].device = "cpu";
}

static void test_input_rows(void)
{
    wrapper_scan ws;
    scan(&ws, snippet);
    input_spec in[3];
    checklist cl;

    spec2(in, 4);
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 0);
    CHECK(row(&cl, "input.0.dim.0") && row(&cl, "input.0.dim.0")->status == CHECK_PASS);
    CHECK_STR(row(&cl, "input.0.dim.0")->expected, ">= 2, <= 32");
    CHECK_STR(row(&cl, "input.0.strides")->expected, "[8, 1]");
    checklist_free(&cl);

    spec2(in, 33);
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.0.dim.0")->status == CHECK_FAIL);
    CHECK_STR(row(&cl, "input.0.dim.0")->got, "33");
    CHECK_CONTAINS(row(&cl, "input.0.dim.0")->source, "w.cpp:12 (check_input_0)");   /* the `< 2` line */
    checklist_free(&cl);

    spec2(in, 4);
    in[1].dtype = "bfloat16";
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.1.dtype")->status == CHECK_FAIL);
    checklist_free(&cl);

    spec2(in, 4);
    in[0].ndim = 3;
    in[0].shape[2] = 1;
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.0.rank")->status == CHECK_FAIL);
    CHECK(!row(&cl, "input.0.dim.0"));   /* dims are not compared across ranks */
    checklist_free(&cl);

    spec2(in, 4);   /* transposed x: strides (1, 4) */
    in[0].has_strides = 1;
    in[0].strides[0] = 1;
    in[0].strides[1] = 4;
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.0.strides")->status == CHECK_FAIL);
    CHECK_STR(row(&cl, "input.0.strides")->got, "[1, 4]");
    checklist_free(&cl);

    spec2(in, 4);
    in[1].device = "cuda:1";
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 2, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.1.device")->status == CHECK_FAIL);
    checklist_free(&cl);

    spec2(in, 4);
    checklist_init(&cl);
    checklist_inputs(&cl, &ws, "w.cpp", in, 1, "cpu");
    CHECK(nfail(&cl) == 1 && row(&cl, "input.count")->status == CHECK_FAIL);
    CHECK_STR(row(&cl, "input.count")->got, "1");
    checklist_free(&cl);
    wrapper_scan_free(&ws);
}

static void test_torch_symbols(void)
{
    CHECK(elf_sym_is_torch("aoti_torch_empty_strided"));
    CHECK(elf_sym_is_torch("AOTInductorModelContainerRun"));
    CHECK(elf_sym_is_torch("_ZN3c1019UndefinedTensorImpl10_singletonE"));
    CHECK(elf_sym_is_torch("_ZNK2at10TensorBase4sizeEl"));
    CHECK(elf_sym_is_torch("_ZTVN5torch8autograd4NodeE"));
    CHECK(!elf_sym_is_torch("_ZNSt6vectorIiSaIiEE9push_backEOi"));
    CHECK(!elf_sym_is_torch("memcpy"));
    CHECK(!elf_sym_is_torch("GOMP_parallel"));
}

static void test_cuda_probe(void)
{
    cuda_probe cp;
    cuda_probe_run(&cp);   /* on a machine without CUDA: a reason, no crash */
    if (!cp.init_ok)
        CHECK(cp.error[0] != 0);
    else
        CHECK(cp.device_count >= 0);
    setenv("AOTIDBG_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    cuda_probe_run(&cp);
    CHECK(!cp.driver_found && !cp.init_ok);
    CHECK_CONTAINS(cp.error, "no CUDA driver");
    unsetenv("AOTIDBG_LIBCUDA");
}

static int parse_list(const char *s, int64_t *out)
{
    int n = 0;
    while (s && *s && n < TENSOR_MAX_DIMS) {
        char *end;
        out[n++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* Run by test_check.py on a real package. */
static void test_real_package_transposed(void)
{
    const char *pkg = getenv("AOTIDBG_CHECK_PKG");
    if (!pkg) {
        printf("skipped: AOTIDBG_CHECK_PKG not set (test_check.py sets it)\n");
        return;
    }
    input_spec in[2];
    memset(in, 0, sizeof in);
    in[0].ndim = parse_list(getenv("AOTIDBG_CHECK_SHAPE"), in[0].shape);
    CHECK(parse_list(getenv("AOTIDBG_CHECK_STRIDES"), in[0].strides) == in[0].ndim);
    in[0].has_strides = 1;
    in[1].ndim = parse_list(getenv("AOTIDBG_CHECK_W_SHAPE"), in[1].shape);
    in[0].dtype = in[1].dtype = "float32";
    in[0].device = in[1].device = "cpu";
    strbuf err = STRBUF_INIT;
    package_t *p = NULL;
    CHECK(package_open(&p, pkg, &err) == 0);
    if (!p)
        return;
    checklist cl;
    checklist_init(&cl);
    checklist_opts o = {.inputs = in, .ninputs = 2, .torch_lib = "none"};
    CHECK(checklist_run(&cl, p, &o, &err) == 0);
    CHECK(checklist_has_fail(&cl));
    CHECK(nfail(&cl) == 1);
    const check_row *r = row(&cl, "input.0.strides");
    CHECK(r && r->status == CHECK_FAIL);
    if (r)
        printf("transposed: %s %s expected %s got %s\n", check_status_name(r->status), r->id, r->expected, r->got);
    session *gs = session_new();
    strbuf why = STRBUF_INIT;
    CHECK(checklist_gate(p, &o, gs, &why) == 1);
    CHECK(gs->nchecks > 0);
    CHECK_CONTAINS(why.buf, "input.0.strides: input 0");
    CHECK(strchr(why.buf, '\n') == why.buf + why.len - 1);   /* one FAIL row, one line */
    strbuf_release(&why);
    session_free(gs);
    /* and the same package with contiguous inputs passes */
    in[0].has_strides = 0;
    checklist_free(&cl);
    checklist_init(&cl);
    CHECK(checklist_run(&cl, p, &o, &err) == 0);
    CHECK(!checklist_has_fail(&cl));
    strbuf why2 = STRBUF_INIT;
    CHECK(checklist_gate(p, &o, NULL, &why2) == 0 && why2.len == 0);
    strbuf_release(&why2);
    strbuf y = STRBUF_INIT;
    checklist_format_yaml(&cl, &y);
    CHECK_CONTAINS(y.buf, "summary: {pass: ");
    session *s = session_new();
    checklist_to_session(&cl, s);
    CHECK(s->nchecks == cl.nrows);
    session_free(s);
    strbuf_release(&y);
    checklist_free(&cl);
    package_close(p);
    strbuf_release(&err);
}

int main(void)
{
    RUN(test_scan_inputs);
    RUN(test_scan_gpu_and_levels);
    RUN(test_scan_hostile);
    RUN(test_input_rows);
    RUN(test_torch_symbols);
    RUN(test_cuda_probe);
    RUN(test_real_package_transposed);
    return CHECK_DONE();
}
