/* test_router.c — the error router on the shipped rules (core/router/routes.yaml):
 * rule loading and its errors, log cleaning (prefixes, ANSI, repeats, long
 * lines read whole in windows, binary, invalid UTF-8), every route's families
 * of phrasings across platforms, root cause over consequence, the platform
 * and its wording (a CPU run never gets CUDA advice), facts from a session,
 * what `unknown` says it read, fields, chunked streaming, demangling, and
 * triton_trace on a wrapper/kernel pair. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "router.h"
#include "router_rules.h"
#include "router_session.h"
#include "oob_element.h"
#include "triton_trace.h"

static router_rules *rules;

static void route_str(const char *text, route_result *r)
{
    memset(r, 0, sizeof *r);
    router_route_buffer(rules, text, strlen(text), r);
}

static const char *route_of(const char *text)
{
    static char id[64];
    route_result r;
    route_str(text, &r);
    snprintf(id, sizeof id, "%s", r.route);
    route_result_release(&r);
    return id;
}

static const char *also_reason(const route_result *r, const char *id)
{
    for (size_t i = 0; i < r->nalso; i++)
        if (!strcmp(r->also[i].route, id))
            return r->also[i].reason;
    return NULL;
}

static void test_rules_load(void)
{
    static const char *ids[] = {ROUTE_IDS(ROUTE_NAME_ELEM)};
    CHECK(router_rules_count(rules) == 16);
    for (size_t i = 0; i < 16; i++) {
        int found = 0;
        for (size_t k = 0; k < router_rules_count(rules); k++)
            found |= !strcmp(router_rules_id(rules, k), ids[i]);
        CHECK(found);
    }
}

static void expect_rule_error(const char *yaml, const char *want)
{
    router_rules *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(router_rules_parse(&r, yaml, strlen(yaml), "t.yaml", &err) == -1);
    CHECK(r == NULL);
    CHECK_CONTAINS(err.buf, want);
    strbuf_release(&err);
}

static void test_rule_errors(void)
{
    expect_rule_error("version: 1\nroutes:\n  - id: nope\n", "t.yaml:3:9: unknown route id 'nope'");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    patterns:\n      - regex: 'a(b'\n",
                      "t.yaml:5:16: bad regex");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    id: crash\n", "t.yaml:4:5: duplicate key 'id'");
    expect_rule_error("version: 1\nroutes:\n  - &a {id: crash}\n  - *a\n", "aliases are not allowed");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    actions:\n      - {do: reboot}\n",
                      "unknown action 'reboot'");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    patterns:\n      - {regex: 'x(y)', fields: {2: f}}\n",
                      "field group '2' is not a group");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    explains: [unknown]\n", "explains: 'unknown'");
    expect_rule_error("version: 2\nroutes: []\n", "t.yaml:1:10: version: must be 1");
    expect_rule_error("version: 1\nroutes: [\n", "t.yaml:");
    expect_rule_error("", "empty rules file");
    expect_rule_error("version: 1\nroutes:\n  - id: crash\n    wording: {gpu: {title: x}}\n",
                      "t.yaml:4:15: wording: 'gpu' is not a platform of platforms:");
    expect_rule_error("version: 1\nplatforms:\n  - id: tpu\nroutes:\n  - id: crash\n",
                      "t.yaml:3:9: unknown platform id 'tpu'");
    expect_rule_error("version: 1\nplatforms:\n  - id: cpu\nroutes:\n  - id: crash\n    wording: {cpu: {colour: red}}\n",
                      "unknown key 'colour'");
    /* deep nesting is refused, not recursed into */
    strbuf deep = STRBUF_INIT;
    strbuf_addstr(&deep, "version: 1\nroutes: ");
    for (int i = 0; i < 100; i++)
        strbuf_addch(&deep, '[');
    expect_rule_error(deep.buf, "nesting deeper");
    strbuf_release(&deep);
}

/* failures: picks the failing line; a step's {field} is filled in, and it is
 * left out when the field is absent ({!field}: when present). */
static void test_failing_line_and_step_fields(void)
{
    static const char yaml[] =
        "version: 1\n"
        "failures:\n  - regex: '^[A-Za-z]*Error: '\n    case: sensitive\n"
        "routes:\n"
        "  - id: crash\n    patterns:\n      - {regex: 'boom ([a-z]+)', weight: 9, fields: {1: what}}\n"
        "    steps: [\"it was {what}\", \"{!what} nothing named\", \"always\"]\n"
        "  - id: custom-op\n    patterns:\n      - {regex: 'schema', weight: 5}\n"
        "  - id: unknown\n";
    router_rules *r = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(router_rules_parse(&r, yaml, strlen(yaml), "t.yaml", &err) == 0);
    route_result res = {0};
    const char *log = "warning: boom disk\nRuntimeError: no schema\n";
    router_route_buffer(r, log, strlen(log), &res);
    CHECK_STR(res.route, "custom-op");          /* the failing line wins over a heavier side line */
    CHECK(res.failed_line == 2 && res.failed_routed);
    CHECK_STR(res.failed_text, "RuntimeError: no schema");
    route_result_release(&res);
    log = "boom disk\n";
    router_route_buffer(r, log, strlen(log), &res);
    CHECK_STR(res.route, "crash");
    CHECK(res.failed_line == 0 && !res.failed_text);
    CHECK(res.nsteps == 2);
    CHECK_STR(res.steps[0], "it was disk");
    CHECK_STR(res.steps[1], "always");
    route_result_release(&res);
    log = "RuntimeError: boom\n";           /* a failure line no route names: the whole text decides */
    router_route_buffer(r, log, strlen(log), &res);
    CHECK(res.failed_line == 1 && !res.failed_routed);
    route_result_release(&res);
    router_rules_free(r);
    strbuf_release(&err);
    /* torch.utils.cpp_extension's words: no compiler ran, so no compiler advice */
    route_str("OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n", &res);
    CHECK_STR(res.route, "compile-error");
    CHECK_STR(route_result_field(&res, "stopped_at"), "CUDA_HOME environment variable is not set");
    for (size_t i = 0; i < res.nsteps; i++)
        CHECK(!strstr(res.steps[i], "nvcc/ptxas") && !strstr(res.steps[i], "first compiler error"));
    route_result_release(&res);
}

static void test_corpus_style_messages(void)
{
    CHECK_STR(route_of("Error: input_handles[2]: unmatched dim value at 0, expected: 8, but got: 9\n"),
              "input-mismatch");
    CHECK_STR(route_of("RuntimeError: CUDA error: an illegal memory access was encountered\n"),
              "illegal-memory-access");
    CHECK_STR(route_of("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"), "out-of-memory");
    CHECK_STR(route_of("Segmentation fault (core dumped)\n"), "crash");
    CHECK_STR(route_of("hello world\nnothing to see\n"), "unknown");
    CHECK_STR(route_of(""), "unknown");
    CHECK_STR(route_of("OSError: libfoo.so.2: cannot open shared object file: No such file or directory\n"),
              "missing-artifact");
    CHECK_STR(route_of("/tmp/x.cpp:12:3: error: 'foo' was not declared in this scope\n"), "compile-error");
    /* a SyntaxError counts as a codegen failure only in Inductor's generated code */
    CHECK_STR(route_of("  File \"/home/me/repro.py\", line 3\nSyntaxError: invalid syntax\n"), "unknown");
    CHECK_STR(route_of("  File \"/tmp/torchinductor_me/ab/cab.py\", line 3\nSyntaxError: invalid syntax\n"),
              "compile-error");
}

/* Real-world phrasings of each route (one or a few lines as PyTorch, CUDA,
 * the loader and compilers print them), beyond the corpus. */
static const struct { const char *route, *text; } phrasings[] = {
    {"abi-mismatch",
     "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by model.so)\n"},
    {"abi-mismatch",
     "./aoti_run: symbol lookup error: /tmp/model.so: undefined symbol: aoti_torch_cpu_new_op\n"},
    {"compile-error",
     "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n\nCommand:\ng++ /tmp/torchinductor_root/x.cpp -shared -fPIC\n\nOutput:\n/tmp/torchinductor_root/x.cpp:10:5: error: 'foo' was not declared in this scope\n"},
    {"compile-error",
     "triton.compiler.errors.CompilationError: at 12:4:\n"},
    {"compile-error",
     "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nLoweringException: AssertionError: \n  target: aten.index_put.default\n"},
    {"compile-error",
     "/tmp/torchinductor_root/ab/kernel.cu(12): error: identifier \"foo\" is undefined\n"},
    {"compile-error",
     "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, Hardware limit: 232448. Reducing block sizes or num_stages may help.\n"},
    {"crash",
     "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n  File \"run.py\", line 12 in <module>\n"},
    {"crash",
     "Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)\n"},
    {"crash",
     "free(): invalid pointer\nAborted (core dumped)\n"},
    {"custom-op",
     "RuntimeError: No such operator mylib::fancy_op\n"},
    {"custom-op",
     "NotImplementedError: Could not run 'mylib::fancy_op' with arguments from the 'CUDA' backend.\n"},
    {"custom-op",
     "RuntimeError: There was no fake impl or Meta kernel registered for mylib.fancy_op.default. Use torch.library.register_fake to add a fake impl.\n"},
    {"custom-op",
     "RuntimeError: operator mylib::fancy does not exist\n"},
    {"device-mismatch",
     "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)\n"},
    {"device-mismatch",
     "Exception in aoti_torch: Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)\nError: aoti_torch_cuda_addmm_out(buf0, arg2_1, arg0_1, reinterpret_tensor(arg1_1, {4, 8}, {1, 4}, 0), 1L, 1L) API call failed at /tmp/x.wrapper.cpp, line 420\n"},
    {"device-mismatch",
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"},
    {"device-mismatch",
     "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.\n"},
    {"device-mismatch",
     "RuntimeError: Input tensor is on cpu but the model was compiled for cuda\n"},
    {"device-mismatch",
     "RuntimeError: Tensor for argument #1 'self' is on CPU, but expected it to be on GPU (while checking arguments for addmm)\n"},
    {"device-mismatch",
     "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor\n"},
    {"dynamic-shape",
     "torch._dynamo.exc.UserError: Constraints violated (batch)! For more information, run with TORCH_LOGS=\"+dynamic\".\n  - Not all values of batch = L['x'].size()[0] in the specified range batch <= 64 are valid because batch was inferred to be a constant (4).\n"},
    {"dynamic-shape",
     "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: u0)\n"},
    {"dynamic-shape",
     "RuntimeError: Runtime assertion failed for expression Eq(s0, 4) on node 'eq'\n"},
    {"dynamic-shape",
     "torch._dynamo.exc.UserError: You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (1). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic\n"},
    {"illegal-memory-access",
     "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nException raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\nAborted (core dumped)\n"},
    {"illegal-memory-access",
     "========= Invalid __global__ read of size 4 bytes\n=========     at triton_poi_fused_add_0+0x1a0\n"},
    {"illegal-memory-access",
     "RuntimeError: CUDA error: misaligned address\n"},
    {"illegal-memory-access",
     "NVRM: Xid (PCI:0000:3b:00): 31, pid=1234, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_12340000.\n"},
    {"input-mismatch",
     "Error: input_handles[1]: unmatched device type, expected: 11(cuda), but got: 0\n"},
    {"input-mismatch",
     "AssertionError: expected size 4==8, stride 1==1 at dim=0\n"},
    {"input-mismatch",
     "RuntimeError: Expected input at *args[0].shape[0] to be equal to 4, but got 8\n"},
    {"input-mismatch",
     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x16 and 32x8)\n"},
    {"missing-artifact",
     "RuntimeError: Error in dlopen: /tmp/x/data/aotinductor/model/abc.wrapper.so: cannot open shared object file: No such file or directory\n"},
    {"missing-artifact",
     "FileNotFoundError: [Errno 2] No such file or directory: 'model.pt2'\n"},
    {"missing-artifact",
     "RuntimeError: PytorchStreamReader failed locating file data/aotinductor/model/abc.wrapper.so: file not found\n"},
    {"missing-artifact",
     "RuntimeError: Failed to find model_name: mymodel in archive\n"},
    {"nan-inf",
     "AssertionError: assert not buf3.isnan().any().item()\n"},
    {"nan-inf",
     "RuntimeError: Function 'MmBackward0' returned nan values in its 0th output.\n"},
    {"out-of-memory",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 10.06 MiB is free.\n"},
    {"out-of-memory",
     "Traceback (most recent call last):\nKilled\n"},
    {"out-of-memory",
     "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried to allocate 1073741824 bytes.\n"},
    {"triton-index-oob",
     "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [32,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.\nRuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"},
    {"triton-index-oob",
     "Error: CUDA driver error: device-side assert triggered\n"},
    {"triton-index-oob",
     "/tmp/torchinductor_root/ab/cabxyz.py:22: triton_poi_fused_embedding_0: block: [3,0,0], thread: [0,0,0] Assertion `index out of bounds: 0 <= tmp3 < 32000` failed.\n"},
    {"unknown",
     "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import foo\nModuleNotFoundError: No module named 'foo'\n"},
    {"wrong-output",
     "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 12 / 64 (18.8%)\nGreatest absolute difference: 0.5 at index (0, 3) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (0, 3) (up to 1.3e-06 allowed)\n"},
    {"wrong-output",
     "max abs diff between AOTI output and eager: 1.25\nassert torch.allclose(out, ref) -> False\n"},
};

/* Families: every route's ways of being reported, each with at least three
 * phrasings from different platforms or layers (as PyTorch, Triton, the
 * CUDA/HIP/Level Zero/Metal runtimes, compilers, linkers and loaders print
 * them). `plat` is the platform the text alone should name (NULL: none or
 * not checked). A family is a class of messages, not one string: a new
 * phrasing of a family goes into its rows. */
static const struct {
    const char *family, *where, *route, *plat, *text;
} families[] = {
    /* --- triton-index-oob ------------------------------------------------ */
    {"inductor index check", "cuda/triton", "triton-index-oob", "cuda",
     "/tmp/torchinductor_u/ab/cab.py:22: unknown: block: [3,0,0], thread: [0,0,0] Assertion `index out of bounds: 0 <= tmp3 < ks0` failed.\n"
     "RuntimeError: CUDA error: device-side assert triggered\n"},
    {"inductor index check", "xpu/sycl", "triton-index-oob", "xpu",
     "/tmp/torchinductor_u/xy/cxy.py:41: triton_poi_fused_index_0: global id: [17,0,0], local id: [17,0,0] Assertion `index out of bounds: 0 <= tmp2 < 128` failed.\n"
     "RuntimeError: Native API failed. Native API returns: 20 (UR_RESULT_ERROR_DEVICE_LOST)\n"},
    {"inductor index check", "rocm/triton", "triton-index-oob", "rocm",
     ":0:rocdevice.cpp            :2984: 12345678 us: [pid:77 tid:0x7f] Device-side assertion `index out of bounds: 0 <= tmp5 < ks1' failed.\n"
     "RuntimeError: HIP error: an illegal memory access was encountered\n"},
    /* --- cpp-index-oob: the same check in a generated C++ kernel ------------ */
    {"inductor C++ index check", "cpu/c++", "cpp-index-oob", "cpu",
     "terminate called after throwing an instance of 'c10::Error'\n  what():  index out of bounds: 0 <= tmp7 < ks2\n"
     "Exception raised from cpp_fused_index_select_0 at /tmp/torchinductor_u/q5/cq5.kernel.cpp:31 (most recent call first):\n"
     "Aborted (core dumped)\n"},
    {"inductor C++ index check", "cpu/older c++", "cpp-index-oob", "cpu",
     "RuntimeError: kernel, /tmp/torchinductor_u/q5/cq5.main.cpp:13, index out of bounds: tmp1 < 2L\n"},
    {"inductor C++ index check", "cpu/aotidbg session", "cpp-index-oob", "cpu",
     "aotidbg kernel: #2 cpp_fused_embedding_0 (cpp) failed\n"
     "index out of bounds: 0 <= tmp2 < 100L\n"},
    {"inductor C++ index check", "cpu/openmp abort", "cpp-index-oob", "cpu",
     "terminate called recursively\n  what():  index out of bounds: 0 <= tmp0 < 8L\n"
     "Exception raised from kernel at /tmp/torchinductor_u/ab/cab.cpp:40 (most recent call first):\n"
     "aotidbg runner: killed by signal 6 (SIGABRT)\n"},
    /* --- triton-index-oob (continued) ----------------------------------- */
    {"aten index kernels", "cuda", "triton-index-oob", "cuda",
     "../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: block: [0,0,0], thread: [3,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
     "torch.AcceleratorError: CUDA error: device-side assert triggered\n"},
    {"aten index kernels", "rocm", "triton-index-oob", "rocm",
     "/pytorch/aten/src/ATen/native/hip/IndexKernel.hip:94: operator(): Device-side assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"' failed.\n"
     "RuntimeError: HIP error: device-side assert triggered\n"},
    {"aten index kernels", "cpu/mps", "triton-index-oob", NULL,
     "IndexError: index 12 is out of bounds for dimension 0 with size 12\n"},
    {"aten index kernels", "mps/embedding", "triton-index-oob", "mps",
     "  File \"model.py\", line 9, in forward\n    return self.emb(x.to('mps'))\nIndexError: index out of range in self\n"},
    {"aten index kernels", "cuda/loss", "triton-index-oob", "cuda",
     "/opt/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"},

    /* --- device-mismatch ------------------------------------------------- */
    {"tensors on two devices", "cuda", "device-mismatch", "cuda",
     "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)\n"},
    {"tensors on two devices", "xpu", "device-mismatch", "xpu",
     "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, xpu:0 and cpu!\n"},
    {"tensors on two devices", "mps", "device-mismatch", "mps",
     "RuntimeError: Placeholder storage has not been allocated on MPS device!\n"},
    {"tensors on two devices", "triton", "device-mismatch", NULL,
     "ValueError: Pointer argument (at 2) cannot be accessed from Triton (cpu tensor?)\n"},
    {"tensors on two devices", "rnn", "device-mismatch", NULL,
     "RuntimeError: Input and parameter tensors are not at the same device, found input tensor at cuda:0 and parameter tensor at cpu\n"},
    {"no code for this GPU", "cuda", "device-mismatch", "cuda",
     "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"},
    {"no code for this GPU", "rocm", "device-mismatch", "rocm",
     "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\nAborted (core dumped)\n"},
    {"no code for this GPU", "cuda/windows", "device-mismatch", "cuda",
     "C:\\Python311\\Lib\\site-packages\\torch\\cuda\\__init__.py:209: UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"},
    {"no code for this GPU", "rocm/hip", "device-mismatch", "rocm",
     "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at some other API call\n"},
    {"driver older than the toolkit", "cuda runtime", "device-mismatch", "cuda",
     "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"},
    {"driver older than the toolkit", "triton ptx", "device-mismatch", "cuda",
     "torch._inductor.exc.InductorError: RuntimeError: PTX was compiled with an unsupported toolchain.\n"},
    {"driver older than the toolkit", "torch import", "device-mismatch", NULL,
     "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"},
    {"driver older than the toolkit", "rocm", "device-mismatch", "rocm",
     "RuntimeError: HIP error: hipErrorInsufficientDriver\n"},
    {"no usable device", "macos", "device-mismatch", NULL,
     "AssertionError: Torch not compiled with CUDA enabled\n"},
    {"no usable device", "rocm", "device-mismatch", "rocm",
     "RuntimeError: No HIP GPUs are available\n"},
    {"no usable device", "windows/cuda", "device-mismatch", "cuda",
     "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"},
    {"no usable device", "mps", "device-mismatch", "mps",
     "RuntimeError: MPS backend is not available: the MPS backend is supported on MacOS 12.3+\n"},
    {"package and load device", "cuda/aoti run", "device-mismatch", "cuda",
     "Exception in aoti_torch: Expected out tensor to have device cuda:0, but got cpu instead\n"},
    {"package and load device", "cuda/aoti load", "device-mismatch", NULL,
     "RuntimeError: CUDAGuardImpl initialized with non-CUDA DeviceType: cpu\n"},
    {"package and load device", "cpu/aoti", "device-mismatch", "cpu",
     "RuntimeError: Expected tensor for argument #1 'self' to have device cpu, but got device cuda:0 (calling aoti_torch_cpu_addmm_out)\n"},

    /* --- input-mismatch -------------------------------------------------- */
    {"aoti input checks", "cuda", "input-mismatch", NULL,
     "Error: input_handles[0]: unmatched dtype, expected: 6(at::kFloat), but got: 7\n"},
    {"aoti input checks", "cpu", "input-mismatch", NULL,
     "[E1130 03:03:03.100 77 model_container.h:88] input_handles[1]: dim value is too small at 0, expected it to be >= 2, but got: 1\n"},
    {"aoti input checks", "cuda/stride", "input-mismatch", NULL,
     "RuntimeError: input_handles[2]: unmatched stride value at 1, expected: 1, but got: 64\n"},
    {"export input checks", "export shape", "input-mismatch", NULL,
     "RuntimeError: Expected input at *args.<unknown location>.shape[0] to be equal to 4096, but got 7680.\n"},
    {"export input checks", "export rank", "input-mismatch", NULL,
     "RuntimeError: Unexpected number of dimensions in input at *args[0].shape (expected [s0, 16], got [4, 16, 1])\n"},
    {"export input checks", "onnxruntime", "input-mismatch", NULL,
     "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: x for the following indices\n index: 0 Got: 8 Expected: 4\n"},

    /* --- illegal-memory-access ------------------------------------------- */
    {"gpu memory fault", "cuda", "illegal-memory-access", "cuda",
     "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered\n"},
    {"gpu memory fault", "rocm", "illegal-memory-access", "rocm",
     "Memory access fault by GPU node-2 (Agent handle: 0x55d0c3a1c0a0) on address 0x7f2d4e000000. Reason: Page not present or supervisor privilege.\nAborted (core dumped)\n"},
    {"gpu memory fault", "xpu", "illegal-memory-access", "xpu",
     "Segmentation fault from GPU at 0xff00000012340000, ctx_id: 1 (CCS) type: 0 (NotPresent), level: 3 (PTE), access: 0 (Read), banned: 1, aborting.\nAbort was called at 274 line in file:\n"},
    {"gpu memory fault", "mps", "illegal-memory-access", "mps",
     "Error: command buffer exited with error status.\n\tThe Metal Performance Shaders operations encoded on it may not have completed.\n\tError:\n\t(null)\n\tCaused GPU Address Fault Error (0000000b:kIOGPUCommandBufferCallbackErrorPageFault)\n"},
    {"gpu memory fault", "cuda/sanitizer", "illegal-memory-access", "cuda",
     "========= COMPUTE-SANITIZER\n========= Invalid __global__ read of size 4 bytes\n=========     at triton_poi_fused_add_0+0x1a0\n"},
    {"gpu memory fault", "cuda/misaligned", "illegal-memory-access", "cuda",
     "torch.AcceleratorError: CUDA error: misaligned address\nSearch for `cudaErrorMisalignedAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"},

    /* --- nan-inf ---------------------------------------------------------- */
    {"non-finite checks", "cuda/aoti", "nan-inf", NULL,
     "Exception in aoti_torch: At least one NaN in buf0\nError: aoti_torch_check_inf_and_nan(\"buf0\", buf0) API call failed at /tmp/x.wrapper.cpp, line 120\n"},
    {"non-finite checks", "cpu/inductor", "nan-inf", NULL,
     "  File \"/tmp/torchinductor_u/ab/cab.py\", line 70, in call\n    assert not buf4.isinf().any().item()\nAssertionError\n"},
    {"non-finite checks", "cuda/device assert", "nan-inf", "cuda",
     "/pytorch/torch/csrc/distributed/c10d/NanCheck.cu:217: checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `!isnan(tailPtr[threadIdx.x])` failed.\n"
     "torch.AcceleratorError: CUDA error: device-side assert triggered\n"},
    {"non-finite checks", "mps/sampling", "nan-inf", NULL,
     "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0\n"},
    {"values outside an op's range", "cuda bce", "nan-inf", "cuda",
     "/pytorch/aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [0,0,0], thread: [0,0,0] Assertion `input_val >= zero && input_val <= one` failed.\n"},
    {"values outside an op's range", "cpu bce", "nan-inf", NULL,
     "RuntimeError: all elements of input should be between 0 and 1\n"},
    {"values outside an op's range", "sampling", "nan-inf", NULL,
     "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0\n"},
    {"non-finite checks", "autograd", "nan-inf", NULL,
     "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.\n"},

    /* --- wrong-output ----------------------------------------------------- */
    {"compared with eager", "assert_close", "wrong-output", NULL,
     "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 3 / 64 (4.7%)\nGreatest absolute difference: 0.25 at index (0, 3) (up to 1e-05 allowed)\n"},
    {"compared with eager", "assert_close shape", "wrong-output", NULL,
     "AssertionError: The values for attribute 'shape' do not match: torch.Size([2649]) != torch.Size([2638]).\n"},
    {"compared with eager", "numpy/macos", "wrong-output", NULL,
     "AssertionError: \nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 4 / 4 (100%)\nMax absolute difference among violations: 0.0625\n"},
    {"compared with eager", "custom check", "wrong-output", NULL,
     "MaxAbsError: 0.4375 (tol: 0.001) for output 0 of aoti_model\n"},
    {"compared with eager", "bug report prose", "wrong-output", NULL,
     "The AOTI package's outputs numerically differ from eager on the same inputs (bf16, H200)\n"},
    {"compared with eager", "printed values", "wrong-output", NULL,
     "eager: [ 1.93e+38  2.74e+38]\ncompiled: [ inf  inf ]\n"},
    {"compared with eager", "one line", "wrong-output", NULL,
     "eager: nan compile: 0.0\n"},
    {"compared with eager", "allclose", "wrong-output", NULL,
     "- Result of torch.allclose(output_eager, output_compiled, atol=1e-5): False\n"},

    /* --- dynamic-shape ---------------------------------------------------- */
    {"export constraints", "export", "dynamic-shape", NULL,
     "torch._dynamo.exc.UserError: Constraints violated (batch)! For more information, run with TORCH_LOGS=\"+dynamic\".\n  - Not all values of batch = L['x'].size()[0] in the specified range satisfy the generated guard L['x'].size()[0] != 1.\n"},
    {"export constraints", "executorch", "dynamic-shape", NULL,
     "torch.fx.experimental.symbolic_shapes.ConstraintViolationError: L['args'][0][0].size()[1] = 7 is not equal to L['args'][0][1].size()[1] = 12\n"},
    {"export constraints", "dim hint", "dynamic-shape", NULL,
     "torch._dynamo.exc.UserError: Received user-specified dim hint Dim.DYNAMIC, but export 0/1 specialized due to hint of 1 for dimension inputs['x'].shape[0].\n"},
    {"export constraints", "specialized", "dynamic-shape", NULL,
     "torch._dynamo.exc.UserError: You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (1).\n"},
    {"data-dependent shapes", "inductor", "dynamic-shape", NULL,
     "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).\n"},
    {"data-dependent shapes", "fake tensor", "dynamic-shape", NULL,
     "torch._subclasses.fake_tensor.DynamicOutputShapeException: aten.nonzero.default\n"},
    {"data-dependent shapes", "runtime assert", "dynamic-shape", NULL,
     "RuntimeError: Runtime assertion failed for expression u0 >= 0 on node 'ge'\n"},

    /* --- custom-op -------------------------------------------------------- */
    {"op not registered", "aoti c++", "custom-op", NULL,
     "terminate called after throwing an instance of 'c10::Error'\n  what():  Could not find schema for mylib::fused_rope.\n"},
    {"op not registered", "python", "custom-op", NULL,
     "AttributeError: '_OpNamespace' 'mylib' object has no attribute 'fused_rope'\n"},
    {"op not registered", "torchscript", "custom-op", NULL,
     "RuntimeError: Unknown builtin op: mylib::fused_rope.\n"},
    {"op not registered", "backend", "custom-op", NULL,
     "NotImplementedError: Could not run 'mylib::fused_rope' with arguments from the 'XPU' backend.\n"},
    {"no kernel for this device", "mps", "custom-op", "mps",
     "NotImplementedError: The operator 'mylib::fused_rope' is not currently implemented for the MPS device.\n"},
    /* torch's own op (aten::) with no kernel for the device: the device lacks it, no custom op is missing */
    {"torch op has no kernel for this device", "mps", "device-mismatch", "mps",
     "NotImplementedError: The operator 'aten::_linalg_eigh.eigenvalues' is not currently implemented for the MPS device. As a temporary fix, you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`\n"},
    {"torch op has no kernel for this device", "xpu", "device-mismatch", "xpu",
     "NotImplementedError: The operator 'aten::cholesky.out' is not currently implemented for the XPU device. Please open a feature on https://github.com/intel/torch-xpu-ops/issues.\n"},
    {"torch op has no kernel for this device", "quantized xpu", "device-mismatch", NULL,
     "NotImplementedError: Could not run 'aten::_empty_affine_quantized' with arguments from the 'QuantizedXPU' backend.\n"},
    {"no kernel for this device", "xpu", "custom-op", "xpu",
     "NotImplementedError: Could not run 'mylib::fused_rope' with arguments from the 'XPU' backend. This could be because the operator doesn't exist for this backend\n"},
    {"no kernel for this device", "cuda", "custom-op", NULL,
     "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.\n"},
    {"fake impl", "export", "custom-op", NULL,
     "RuntimeError: There was no fake impl or Meta kernel registered for mylib.fused_rope.default.\n"},
    {"fake impl", "vllm", "custom-op", NULL,
     "TypeError: Multiple dispatch failed for 'torch._ops.vllm.fused_qkv.default'; all __torch_dispatch__ handlers returned NotImplemented\n"},
    {"fake impl", "sglang", "custom-op", NULL,
     "TypeError: fused_norm_fake() missing 1 required positional argument: 'eps'\n"},

    /* --- missing-artifact ------------------------------------------------- */
    {"loader cannot find a file", "linux", "missing-artifact", NULL,
     "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"},
    {"loader cannot find a file", "macos", "missing-artifact", NULL,
     "ImportError: dlopen(/tmp/x/model.so, 0x0002): Library not loaded: @rpath/libomp.dylib\n  Referenced from: <1A2B> /tmp/x/model.so\n  Reason: tried: '/usr/local/lib/libomp.dylib' (no such file)\n"},
    {"loader cannot find a file", "windows", "missing-artifact", NULL,
     "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Python311\\Lib\\site-packages\\torch\\lib\\c10_cuda.dll\" or one of its dependencies.\n"},
    {"package lacks a file", "cuda", "missing-artifact", "cuda",
     "Error: CUDA driver error: file not found\n"},
    {"package lacks a file", "rocm", "missing-artifact", "rocm",
     "RuntimeError: HIP driver error: file not found (hipErrorFileNotFound)\n"},
    {"package lacks a file", "truncated archive", "missing-artifact", NULL,
     "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n"},
    {"package lacks a file", "cubin dir", "missing-artifact", NULL,
     "RuntimeError: [AOTInductor] Cannot find cubin file: /tmp/x/data/aotinductor/model/triton_poi_fused_0.cubin\n"},
    {"package lacks a file", "zip", "missing-artifact", NULL,
     "RuntimeError: PytorchStreamReader failed locating file data/aotinductor/model/abc.wrapper.so: file not found\n"},

    /* --- abi-mismatch ----------------------------------------------------- */
    {"symbol missing at load", "linux", "abi-mismatch", NULL,
     "OSError: /tmp/x/data/aotinductor/model/c6q.wrapper.so: undefined symbol: aoti_torch_cuda_sdpa_v2\n"},
    {"symbol missing at load", "macos", "abi-mismatch", NULL,
     "ImportError: dlopen(/tmp/x/model.so, 0x0002): Symbol not found: __ZN3c1010TensorImpl17set_storage_offsetEx\n  Referenced from: <9F2E> /tmp/x/model.so\n  Expected in: <77AB> /opt/homebrew/lib/python3.12/site-packages/torch/lib/libc10.dylib\n"},
    {"symbol missing at load", "windows", "abi-mismatch", NULL,
     "OSError: [WinError 127] The specified procedure could not be found. Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\torch_cpu.dll\" or one of its dependencies.\n"},
    {"runtime library too old", "glibcxx", "abi-mismatch", NULL,
     "RuntimeError: Error in dlopen: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /tmp/x/model.so)\n"},
    {"runtime library too old", "cxxabi", "abi-mismatch", NULL,
     "ImportError: /usr/lib64/libstdc++.so.6: version `CXXABI_1.3.15' not found (required by /opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_python.so)\n"},
    {"runtime library too old", "glibc", "abi-mismatch", NULL,
     "/tmp/x/model.so: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by /tmp/x/model.so)\n"},
    {"built for another machine", "linux/aarch64", "abi-mismatch", NULL,
     "RuntimeError: Error in dlopen: /tmp/x/model.so: cannot open shared object file: Exec format error\n"},
    {"built for another machine", "macos", "abi-mismatch", NULL,
     "OSError: dlopen(/tmp/x/model.so, 0x0006): tried: '/tmp/x/model.so' (mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))\n"},
    {"built for another machine", "windows", "abi-mismatch", NULL,
     "OSError: [WinError 193] %1 is not a valid Win32 application\n"},

    /* --- compile-error ---------------------------------------------------- */
    {"c++ diagnostics", "gcc/linux", "compile-error", NULL,
     "/tmp/torchinductor_u/x7/cx7.cpp:384:33: error: 'aoti_torch__embedding_bag' was not declared in this scope\n"},
    {"c++ diagnostics", "gcc without location", "compile-error", NULL,
     "error: invalid user-defined conversion from 'RAIIAtenTensorHandle' to 'int64_t' [-fpermissive]\n  605 |     int64_t int_array_0[] = {buf0};\n      |                              ^~~~\n"},
    {"c++ diagnostics", "clang/macos", "compile-error", NULL,
     "/Users/me/Library/Caches/torchinductor_me/ab/cab.cpp:2:10: fatal error: 'omp.h' file not found\n#include <omp.h>\n         ^~~~~~~\n1 error generated.\n"},
    {"c++ diagnostics", "msvc/windows", "compile-error", NULL,
     "C:\\Users\\me\\AppData\\Local\\Temp\\torchinductor_me\\ab\\cab.cpp(12): error C2065: 'tmp0': undeclared identifier\n"},
    {"c++ diagnostics", "nvcc", "compile-error", NULL,
     "/tmp/torchinductor_u/ab/kernel.cu(57): error: identifier \"__hmax\" is undefined\n"},
    {"c++ diagnostics", "metal/mps", "compile-error", "mps",
     "RuntimeError: Failed to create Metal library from source: Error Domain=MTLLibraryErrorDomain Code=3 \"program_source:14:9: error: use of undeclared identifier 'bfloat'\"\n"},
    {"linking", "gcc/linux", "compile-error", NULL,
     "/usr/bin/ld: /tmp/cab.o: in function `run_impl': cab.cpp:(.text+0x12): undefined reference to `aoti_torch_cpu_foo'\ncollect2: error: ld returned 1 exit status\n"},
    {"linking", "msvc/windows", "compile-error", NULL,
     "cab.obj : error LNK2019: unresolved external symbol aoti_torch_cpu_foo referenced in function run_impl\ncab.pyd : fatal error LNK1120: 1 unresolved externals\n"},
    {"linking", "lld/rocm triton", "compile-error", NULL,
     "  File \"/venv/lib/python3.10/site-packages/triton/backends/amd/compiler.py\", line 357, in <lambda>\n"
     "    stages[\"hsaco\"] = lambda src, metadata: self.make_hsaco(src, metadata, options)\n"
     "RuntimeError: ld.lld: error: undefined symbol: __ockl_get_local_size\n"},
    {"linking", "ld64/macos", "compile-error", NULL,
     "Undefined symbols for architecture arm64:\n  \"_aoti_torch_cpu_foo\", referenced from:\nld: symbol(s) not found for architecture arm64\nclang: error: linker command failed with exit code 1 (use -v to see invocation)\n"},
    {"gpu assemblers", "ptxas", "compile-error", "cuda",
     "RuntimeError: Internal Triton PTX codegen error: \nptxas fatal   : Value 'sm_110' is not defined for option 'gpu-name'\n"},
    {"gpu assemblers", "nvcc", "compile-error", "cuda",
     "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n"},
    {"gpu assemblers", "sycl/xpu", "compile-error", "xpu",
     "RuntimeError: Native API failed. Native API returns: -11 (PI_ERROR_BUILD_PROGRAM_FAILURE) -11 (PI_ERROR_BUILD_PROGRAM_FAILURE)\n"},
    {"triton and mlir", "rocm", "compile-error", NULL,
     "error: failed to legalize operation 'tt.load' that was explicitly marked illegal\nPass execution failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.\n"},
    {"triton and mlir", "cuda", "compile-error", NULL,
     "triton.compiler.errors.CompilationError: at 12:8:\n    x = tl.load(in_ptr0 + xindex)\nValueError: Cannot broadcast, rank mismatch\n"},
    {"triton and mlir", "llvm", "compile-error", NULL,
     "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n"},
    {"compiler run from python", "ptxas path", "compile-error", "cuda",
     "subprocess.CalledProcessError: Command '['/venv/lib/python3.12/site-packages/triton/backends/nvidia/bin/ptxas', '-lineinfo', '--gpu-name=sm_110a', '/tmp/t.ptx']' returned non-zero exit status 255.\n"},
    {"compiler run from python", "g++", "compile-error", NULL,
     "subprocess.CalledProcessError: Command '['g++', '/tmp/torchinductor_u/ab/cab.cpp', '-shared', '-fPIC', '-o', '/tmp/cab.so']' returned non-zero exit status 1.\n"},
    {"compiler run from python", "cl.exe", "compile-error", NULL,
     "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\nCommand:\ncl /I C:/Python311/Include /D TORCH_INDUCTOR_CPP_WRAPPER /EHsc cab.cpp /LD\n"},
    {"compiler run from python", "setuptools", "compile-error", NULL,
     "error: command '/usr/bin/g++' failed with exit code 1\n"},
    {"compiler crashed", "gcc ice", "compile-error", NULL,
     "/tmp/cab.cpp:88:1: internal compiler error: Segmentation fault\nPlease submit a full bug report, with preprocessed source.\n"},
    {"compiler crashed", "cicc", "compile-error", "cuda",
     "nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)\n"},
    {"compiler crashed", "inductor codegen", "compile-error", "mps",
     "  File \"/venv/lib/python3.12/site-packages/torch/_inductor/codegen/mps.py\", line 257, in dtype_to_str\n    return DTYPE_TO_METAL[dtype]\ntorch._inductor.exc.InductorError: KeyError: torch.float64\n"},

    /* --- out-of-memory ---------------------------------------------------- */
    {"device allocators", "cuda", "out-of-memory", "cuda",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 10.06 MiB is free.\n"},
    {"device allocators", "rocm", "out-of-memory", "rocm",
     "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 191.98 GiB of which 1.02 GiB is free.\n"},
    {"device allocators", "xpu", "out-of-memory", "xpu",
     "RuntimeError: XPU out of memory. Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB total capacity; 990.00 MiB already allocated)\n"},
    {"device allocators", "mps", "out-of-memory", "mps",
     "RuntimeError: MPS backend out of memory (MPS allocated: 17.80 GB, other allocations: 1.20 GB, max allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool.\n"},
    {"device allocators", "level zero", "out-of-memory", "xpu",
     "RuntimeError: Native API failed. Native API returns: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)\n"},
    {"device allocators", "mps buffer", "out-of-memory", "mps",
     "RuntimeError: Invalid buffer size: 24.00 GB (MPS backend)\n"},
    {"device allocators", "tensorrt", "out-of-memory", NULL,
     "[TRT] [E] [executionContext.cpp::initializeExecutionContext::644] Error Code 2: OutOfMemory (Requested size was 149635638784 bytes.)\n"},
    {"host allocators", "linux", "out-of-memory", "cpu",
     "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory: you tried to allocate 68719476736 bytes. Error code 12 (Cannot allocate memory)\n"},
    {"host allocators", "c++", "out-of-memory", NULL,
     "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\nAborted (core dumped)\n"},
    {"host allocators", "windows", "out-of-memory", NULL,
     "OSError: [WinError 1455] The paging file is too small for this operation to complete.\n"},
    {"host allocators", "macos", "out-of-memory", NULL,
     "python(1234,0x1f4) malloc: *** mach_vm_map(size=68719476736) failed (error code=3)\n*** error: can't allocate region\n"},
    {"host allocators", "oom killer", "out-of-memory", NULL,
     "[1]    4242 killed     python run.py\nKilled\n"},
    {"allocator warning, then the call fails", "cuda/aoti", "out-of-memory", "cuda",
     "[W1201 10:00:00.1 77 CUDACachingAllocator.cpp:988] expandable_segments: memory mapping failed with OOM\n"
     "Error: aoti_torch_empty_strided(2, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cuda, this->device_idx_, &buf0_handle) API call failed at /tmp/x.wrapper.cpp, line 88\n"
     "terminate called after throwing an instance of 'std::runtime_error'\nAborted (core dumped)\n"},
    {"allocator warning, then the call fails", "rocm/aoti", "out-of-memory", "rocm",
     "HIP error: hipErrorOutOfMemory in hipMalloc for 4294967296 bytes\n"
     "Error: aoti_torch_empty_strided(3, int_array_4, int_array_5, cached_torch_dtype_bfloat16, cached_torch_device_type_cuda, this->device_idx_, &buf3_handle) API call failed at /tmp/y.wrapper.cpp, line 212\n"},
    {"allocator warning, then the call fails", "cpu/aoti", "out-of-memory", NULL,
     "[W1201 10:00:00.1 77 alloc.cpp:41] std::bad_alloc while allocating 17179869184 bytes\n"
     "Error: aoti_torch_empty_strided(1, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf0_handle) API call failed at /tmp/z.wrapper.cpp, line 40\n"},

    /* --- crash ------------------------------------------------------------ */
    {"process died by a signal", "linux", "crash", NULL,
     "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f12 (most recent call first):\n  File \"run.py\", line 12 in <module>\nSegmentation fault (core dumped)\n"},
    {"process died by a signal", "macos", "crash", NULL,
     "zsh: bus error  python run_aoti.py\n"},
    {"process died by a signal", "windows", "crash", NULL,
     "Windows fatal exception: access violation\n\nCurrent thread 0x000022c4 (most recent call first):\nProcess finished with exit code -1073741819 (0xC0000005)\n"},
    {"process died by a signal", "c++ exception", "crash", NULL,
     "terminate called after throwing an instance of 'std::runtime_error'\n  what():  run_impl failed\nAborted (core dumped)\n"},
    {"debugger backtraces", "gdb", "crash", NULL,
     "Thread 1 \"python\" received signal SIGSEGV, Segmentation fault.\n#0  0x00007fffe1c2b8d4 in torch::aot_inductor::AOTInductorModel::run_impl(AtenTensorOpaque**, AtenTensorOpaque**, void*, AOTIProxyExecutorOpaque*) () from /tmp/x/model.so\n"},
    {"debugger backtraces", "lldb/macos", "crash", NULL,
     "* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)\n  * frame #0: 0x000000010f3c2a10 model.so`torch::aot_inductor::AOTInductorModel::run_impl + 128\n"},
    {"debugger backtraces", "ucx handler", "crash", NULL,
     "[host:1337:0:1337] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)\n==== backtrace (tid:   1337) ====\n 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f21d2aa3774]\n"},
    {"debugger backtraces", "macos crash report", "crash", NULL,
     "Exception Type:        EXC_BAD_ACCESS (SIGSEGV)\nException Codes:       KERN_INVALID_ADDRESS at 0x0000000000000010\nTermination Reason:    Namespace SIGNAL, Code 11 Segmentation fault: 11\n"},
    {"uncaught c++ exception", "linux", "crash", NULL,
     "terminate called after throwing an instance of 'std::runtime_error'\n  what():  run_impl failed\n"},
    {"uncaught c++ exception", "macos", "crash", NULL,
     "libc++abi: terminating due to uncaught exception of type std::runtime_error: run_impl failed\nzsh: abort      python run.py\n"},
    {"uncaught c++ exception", "windows", "crash", NULL,
     "OSError: [WinError -529697949] Windows Error 0xe06d7363\n"},
    {"worker died", "compile worker", "crash", NULL,
     "concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly while the future was running or pending.\n"},
    {"worker died", "torchrun", "crash", NULL,
     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n  exitcode  : -11 (pid: 3821)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 3821\n"},
    /* --- collective-timeout ----------------------------------------------- */
    {"a rank never arrives", "nccl watchdog", "collective-timeout", "cuda",
     "[rank1]:[E1207 10:00:00.123 4242 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600034 milliseconds before timing out.\n"
     "terminate called after throwing an instance of 'c10::DistBackendError'\nAborted (core dumped)\n"},
    {"a rank never arrives", "gloo", "collective-timeout", NULL,
     "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete\n"},
    {"a rank never arrives", "c10d store", "collective-timeout", NULL,
     "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.\n"},
    {"a rank never arrives", "tcpstore", "collective-timeout", NULL,
     "RuntimeError: Socket Timeout\n[W socket.cpp:601] [c10d] The client socket has timed out after 1800s while trying to connect to (10.0.0.1, 29500).\n"},
    {"a rank never arrives", "aoti wait_tensor", "collective-timeout", "cpu",
     "Error: aoti_torch_cpu__c10d_functional_wait_tensor(buf1, &buf4_handle) API call failed at /tmp/x/model.wrapper.cpp, line 915\n"
     "the shim call's exception: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 8000ms for recv operation to complete\n"},
    {"a rank never arrives", "aotidbg --ranks", "collective-timeout", NULL,
     "aotidbg run: 2 ranks: rank 0 was in the collective all_reduce (kernel 2, in its wait_tensor at kernel 3, group 0, ranks 0,1) waiting for rank 1 (timeout at kernel 0 aoti_torch_cpu_mm_out)\n"},
    {"worker died", "sglang", "crash", NULL,
     "Subprocess scheduler_0 (pid=1446173) crashed with exit code -3. Triggering SIGQUIT for cleanup...\n"},
};

static void test_families(void)
{
    size_t n = sizeof families / sizeof *families;
    for (size_t i = 0; i < n; i++) {
        route_result r;
        route_str(families[i].text, &r);
        if (strcmp(r.route, families[i].route) ||
            (families[i].plat && (!r.platform || strcmp(r.platform, families[i].plat))))
            fprintf(stderr, "family '%s' (%s): want %s on %s, got %s on %s: %.160s\n", families[i].family,
                    families[i].where, families[i].route, families[i].plat ? families[i].plat : "-", r.route,
                    r.platform ? r.platform : "-", families[i].text);
        CHECK_STR(r.route, families[i].route);
        if (families[i].plat)
            CHECK_STR(r.platform, families[i].plat);
        route_result_release(&r);
        /* each family: at least three phrasings, from three different platforms or layers */
        size_t rows = 0, wheres = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(families[k].family, families[i].family))
                continue;
            CHECK_STR(families[k].route, families[i].route);
            rows++;
            int seen = 0;
            for (size_t j = 0; j < k; j++)
                seen |= !strcmp(families[j].family, families[i].family) && !strcmp(families[j].where, families[k].where);
            wheres += !seen;
        }
        if (rows < 3 || wheres < 3)
            fprintf(stderr, "family '%s': %zu rows, %zu places\n", families[i].family, rows, wheres);
        CHECK(rows >= 3 && wheres >= 3);
    }
    /* every route but unknown has families */
    for (size_t ri = 0; ri < router_rules_count(rules); ri++) {
        const char *id = router_rules_id(rules, ri);
        int have = !strcmp(id, "unknown");
        for (size_t i = 0; i < n; i++)
            have |= !strcmp(families[i].route, id);
        if (!have)
            fprintf(stderr, "route %s has no family\n", id);
        CHECK(have);
    }
}

static void test_phrasings(void)
{
    for (size_t i = 0; i < sizeof phrasings / sizeof *phrasings; i++) {
        const char *got = route_of(phrasings[i].text);
        if (strcmp(got, phrasings[i].route))
            fprintf(stderr, "phrasing %zu: want %s, got %s: %.120s\n", i, phrasings[i].route, got, phrasings[i].text);
        CHECK_STR(got, phrasings[i].route);
    }
}

static void test_route_text_default_rules(void)
{
    route_result r = {0};
    strbuf err = STRBUF_INIT;
    const char *t = "Error: input_handles[0]: unmatched device type, expected: 11(cuda), but got: 0\n";
    CHECK(router_route_text(t, strlen(t), &r, &err) == 0);
    CHECK_STR(r.route, "input-mismatch");
    CHECK_STR(route_result_field(&r, "expected"), "11(cuda)");
    route_result_release(&r);
    strbuf_release(&err);
}

static void test_fields_input_mismatch(void)
{
    route_result r;
    route_str("Error: input_handles[3]: unmatched stride value at 1, expected: 1, but got: 8\n", &r);
    CHECK_STR(r.route, "input-mismatch");
    CHECK_STR(route_result_field(&r, "input_index"), "3");
    CHECK_STR(route_result_field(&r, "dim"), "1");
    CHECK_STR(route_result_field(&r, "expected"), "1");
    CHECK_STR(route_result_field(&r, "got"), "8");
    CHECK_STR(route_result_field(&r, "mismatch"), "stride value");
    route_result_release(&r);
}

static void test_devices_and_symbol(void)
{
    route_result r;
    route_str("RuntimeError: Specified device cuda:1 does not match device of data cuda:0\n", &r);
    CHECK_STR(r.route, "device-mismatch");
    CHECK_STR(route_result_field(&r, "devices"), "cuda:1, cuda:0");
    route_result_release(&r);

    route_str("OSError: m.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jS2_\n", &r);
    CHECK_STR(r.route, "abi-mismatch");
    CHECK_STR(route_result_field(&r, "symbol_mangled"), "_ZN3c106detail14torchCheckFailEPKcS2_jS2_");
    /* demangled through libstdc++ when it is there, else left mangled */
    char *dm = router_demangle("_ZN3c106detail14torchCheckFailEPKcS2_jS2_");
    if (dm) {
        CHECK_STR(route_result_field(&r, "symbol"), dm);
        CHECK_CONTAINS(dm, "c10::detail::torchCheckFail(char const*");
        free(dm);
    }
    CHECK(router_demangle("not_mangled") == NULL);
    route_result_release(&r);

    route_str("RuntimeError: Could not find schema for myns::my_op.default\n", &r);
    CHECK_STR(r.route, "custom-op");
    CHECK_STR(route_result_field(&r, "op_schema"), "myns::my_op.default");
    route_result_release(&r);
}

/* 512 threads print the same assert; prefixes differ per line */
static void test_oob_repeats_prefixes_and_consequences(void)
{
    strbuf log = STRBUF_INIT;
    strbuf_addstr(&log, "W1130 12:00:00.123456 777 torch/_export/__init__.py:71] warming up\n");
    for (int i = 0; i < 512; i++)
        strbuf_addf(&log,
                    "[rank0]:\033[1m/tmp/torchinductor_u/k4/ck46.py:30: unknown: block: [24127,0,0], thread: [%d,0,0] "
                    "Assertion `index out of bounds: 0 <= tmp4 < (-1) + ks0` failed.\033[0m\n", i);
    strbuf_addstr(&log, "[rank0]: RuntimeError: CUDA error: device-side assert triggered\n"
                        "CUDA kernel errors might be asynchronously reported at some other API call\n"
                        "2026-11-30T02:40:33.897Z RuntimeError: CUDA error: an illegal memory access was encountered\n"
                        "Segmentation fault (core dumped)\n");
    route_result r = {0};
    router_route_buffer(rules, log.buf, log.len, &r);
    CHECK_STR(r.route, "triton-index-oob");
    CHECK_STR(route_result_field(&r, "tmp"), "tmp4");
    CHECK_STR(route_result_field(&r, "bound"), "(-1) + ks0");
    CHECK_STR(route_result_field(&r, "bound_kind"), "expression");
    CHECK_STR(route_result_field(&r, "kernel"), "ck46");
    CHECK_STR(route_result_field(&r, "file"), "/tmp/torchinductor_u/k4/ck46.py");
    CHECK_STR(route_result_field(&r, "line"), "30");
    CHECK_STR(route_result_field(&r, "block"), "24127,0,0");
    CHECK_STR(route_result_field(&r, "thread"), "0,0,0");
    CHECK_STR(route_result_field(&r, "count"), "512");
    CHECK(r.lines == 517);
    CHECK_CONTAINS(also_reason(&r, "illegal-memory-access"), "consequence of triton-index-oob");
    CHECK(also_reason(&r, "crash") != NULL);
    /* evidence text is cleaned: no prefix, no escapes */
    CHECK(r.nevidence > 0);
    CHECK(!strncmp(r.evidence[0].text, "/tmp/torchinductor_u", 20));
    CHECK(r.evidence[0].line == 2 && r.evidence[0].count == 512);
    strbuf y = STRBUF_INIT;
    route_result_format_yaml(&r, &y);
    CHECK(!strncmp(y.buf, "route: triton-index-oob\n", 24));
    CHECK_CONTAINS(y.buf, "\nfields:\n");
    CHECK_CONTAINS(y.buf, "\nsteps:\n");
    CHECK_CONTAINS(y.buf, "\nalso:\n  - route: illegal-memory-access");
    strbuf_release(&y);
    route_result_release(&r);
    strbuf_release(&log);
}

static void test_primary_beats_consequence_only(void)
{
    route_result r;
    /* a bare device-side assert still points at an OOB... */
    route_str("RuntimeError: CUDA error: device-side assert triggered\n", &r);
    CHECK_STR(r.route, "triton-index-oob");
    route_result_release(&r);
    /* ...but an illegal memory access stated outright is the cause */
    route_str("RuntimeError: CUDA error: device-side assert triggered\n"
              "RuntimeError: CUDA error: an illegal memory access was encountered\n", &r);
    CHECK_STR(r.route, "illegal-memory-access");
    CHECK_CONTAINS(also_reason(&r, "triton-index-oob"), "after-effect");
    route_result_release(&r);
    /* crash is the fallback: a specific cause wins even with less weight */
    route_str("Error: CUDA error: invalid argument\nterminate called after throwing\nAborted (core dumped)\n", &r);
    CHECK_STR(r.route, "device-mismatch");
    CHECK_CONTAINS(also_reason(&r, "crash"), "nothing more specific");
    route_result_release(&r);
}

static void test_adversarial_bytes(void)
{
    route_result r;
    /* NULs, control bytes, invalid UTF-8, an overlong encoding: matched as bytes */
    const char bin[] = "\xff\xfe\x00\x01garbage\xc0\xaf\xed\xa0\x80 At least one NaN in buf7\x00\n\x80\x80\x80\n";
    memset(&r, 0, sizeof r);
    router_route_buffer(rules, bin, sizeof bin - 1, &r);
    CHECK_STR(r.route, "nan-inf");
    CHECK_STR(route_result_field(&r, "buffer"), "buf7");
    for (size_t i = 0; i < r.nevidence; i++)
        for (const unsigned char *p = (const unsigned char *)r.evidence[i].text; *p; p++)
            CHECK(*p < 0x80 || *p == '?' ? 1 : 0);   /* invalid sequences became '?' */
    route_result_release(&r);

    /* a 100,000-byte line: only the first ROUTER_LINE_CAP bytes are examined */
    size_t n = 100000;
    char *big = malloc(n + 64);
    memset(big, 'x', n);
    memcpy(big, "Segmentation fault ", 19);
    strcpy(big + n, "\nend\n");
    memset(&r, 0, sizeof r);
    router_route_buffer(rules, big, strlen(big), &r);
    CHECK_STR(r.route, "crash");
    CHECK(r.long_lines == 1);
    CHECK(r.lines == 2);
    CHECK(strlen(r.evidence[0].text) <= ROUTER_LINE_CAP);
    route_result_release(&r);
    /* lines are read whole: the cause at the end of a 100,000-byte line is seen */
    memset(big, 'y', n);
    memcpy(big + n - 40, "Segmentation fault", 18);
    strcpy(big + n, "\n");
    memset(&r, 0, sizeof r);
    router_route_buffer(rules, big, strlen(big), &r);
    CHECK_STR(r.route, "crash");
    CHECK(r.long_lines == 1 && r.lines == 1);
    CHECK(r.nevidence > 0 && r.evidence[0].line == 1);
    route_result_release(&r);
    free(big);
}

/* A message across a window edge is inside the next window (windows overlap
 * by ROUTER_LINE_OVERLAP); fed in any chunks, the same result. */
static void test_long_line_windows(void)
{
    const char *msg = "RuntimeError: CUDA error: an illegal memory access was encountered";
    size_t n = 3 * ROUTER_LINE_CAP;
    for (size_t at = ROUTER_LINE_CAP - 40; at < ROUTER_LINE_CAP + 8; at += 7) {
        char *big = malloc(n + 2);
        memset(big, 'z', n);
        memcpy(big + at, msg, strlen(msg));
        big[n] = '\n';
        big[n + 1] = 0;
        route_result whole = {0};
        router_route_buffer(rules, big, n + 1, &whole);
        CHECK_STR(whole.route, "illegal-memory-access");
        CHECK(whole.evidence[0].count == 1);         /* two windows saw it: one line, counted once */
        for (size_t step = 1000; step < 5000; step += 1999) {
            router_stream *st = router_stream_new(rules);
            for (size_t i = 0; i <= n; i += step)
                router_stream_feed(st, big + i, i + step <= n + 1 ? step : n + 1 - i);
            route_result r = {0};
            router_stream_finish(st, &r);
            CHECK_STR(r.route, whole.route);
            CHECK(r.score == whole.score && r.lines == 1 && r.long_lines == 1);
            route_result_release(&r);
        }
        route_result_release(&whole);
        free(big);
    }
}

/* The cause wins over what it makes happen later; the others stay in also: */
static void test_cause_over_effects(void)
{
    static const struct { const char *route, *also, *text; } cases[] = {
        {"out-of-memory", "crash",
         "[W1201 10:00:00.1 77 CUDACachingAllocator.cpp:988] expandable_segments: memory mapping failed with OOM\n"
         "Error: aoti_torch_empty_strided(2, int_array_0, int_array_1, cached_torch_dtype_float32, "
         "cached_torch_device_type_cuda, this->device_idx_, &buf0_handle) API call failed at /tmp/x.wrapper.cpp, line 88\n"
         "terminate called after throwing an instance of 'std::runtime_error'\nAborted (core dumped)\n"},
        {"out-of-memory", "illegal-memory-access",
         "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.\n"
         "RuntimeError: HIP error: an illegal memory access was encountered\n"},
        {"triton-index-oob", "illegal-memory-access",
         ":0:rocdevice.cpp :2984: 1 us: Device-side assertion `index out of bounds: 0 <= tmp5 < ks1' failed.\n"
         "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n"
         "RuntimeError: HIP error: an illegal memory access was encountered\nAborted (core dumped)\n"},
        {"nan-inf", "triton-index-oob",
         "NanCheck.cu:217: checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `!isnan(tailPtr[threadIdx.x])` failed.\n"
         "torch.AcceleratorError: CUDA error: device-side assert triggered\n"},
        {"compile-error", "crash",
         "/tmp/cab.cpp:88:1: internal compiler error: Segmentation fault\n"
         "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n"},
        {"missing-artifact", "crash",
         "Error: CUDA driver error: file not found\nterminate called after throwing an instance of 'c10::Error'\n"
         "Segmentation fault (core dumped)\n"},
        {"device-mismatch", "crash",
         "ValueError: Pointer argument (at 0) cannot be accessed from Triton (cpu tensor?)\n"
         "Fatal Python error: Aborted\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        route_result r;
        route_str(cases[i].text, &r);
        if (strcmp(r.route, cases[i].route))
            fprintf(stderr, "cause case %zu: want %s, got %s\n", i, cases[i].route, r.route);
        CHECK_STR(r.route, cases[i].route);
        CHECK(also_reason(&r, cases[i].also) != NULL);
        route_result_release(&r);
    }
}

/* Patterns of one route on the same line are one piece of evidence: the
 * strongest counts; distinct lines add up. */
static void test_one_line_counts_once(void)
{
    route_result r;
    route_str("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n", &r);
    CHECK_STR(r.route, "out-of-memory");
    CHECK(r.score == 8.0);             /* `out of memory` 8 and `OutOfMemory` 7 match the same line */
    route_result_release(&r);
    route_str("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
              "terminate called after throwing an instance of 'std::bad_alloc'\n", &r);
    CHECK(r.score == 16.0);            /* a second line that says so adds */
    route_result_release(&r);
}

/* Words that are CUDA advice: a CPU run must never get them. */
static const char *const cuda_words[] = {"CUDA", "cuda", "compute-sanitizer", "blocking launches", "device-side",
                                         "nvcc", "ptxas", "cubin", "GPU context"};

static void check_no_cuda_on(const char *plat, const char *what, const char *route, const char *text)
{
    int gpu = strcmp(plat, "cpu") != 0;       /* MPS and XPU are GPUs: a GPU context and device asserts exist there */
    for (size_t k = 0; text && k < sizeof cuda_words / sizeof *cuda_words; k++)
        if (strstr(text, cuda_words[k]) &&
            !(gpu && (!strcmp(cuda_words[k], "GPU context") || !strcmp(cuda_words[k], "device-side")))) {
            fprintf(stderr, "%s of %s on %s says '%s': %s\n", what, route, plat, cuda_words[k], text);
            CHECK(!"CUDA advice on a CPU, MPS or XPU run");
        }
}

static void check_no_cuda(const char *what, const char *route, const char *text)
{
    check_no_cuda_on("cpu", what, route, text);
}

static void test_cpu_wording(void)
{
    int cpu = router_platform_index(rules, "cpu"), rocm = router_platform_index(rules, "rocm");
    CHECK(cpu >= 0 && rocm >= 0);
    static const char *const non_cuda[] = {"cpu", "mps", "xpu"};
    for (size_t ri = 0; ri < router_rules_count(rules); ri++) {
        const char *id = router_rules_id(rules, ri);
        for (size_t p = 0; p < sizeof non_cuda / sizeof *non_cuda; p++) {
            int pi = router_platform_index(rules, non_cuda[p]);
            CHECK(pi >= 0);
            rr_words w = router_words(rules, ri, pi);
            check_no_cuda_on(non_cuda[p], "title", id, w.title);
            check_no_cuda_on(non_cuda[p], "explanation", id, w.explanation);
            check_no_cuda_on(non_cuda[p], "because", id, w.because);
            for (size_t i = 0; i < w.nsteps; i++)
                check_no_cuda_on(non_cuda[p], "step", id, w.steps[i]);
            for (size_t i = 0; i < w.nactions; i++)
                CHECK(strcmp(w.actions[i].name, "rerun-blocking"));
        }
        /* on ROCm, the blocking advice names HIP's variable */
        rr_words h = router_words(rules, ri, rocm);
        for (size_t i = 0; i < h.nsteps; i++)
            CHECK(!strstr(h.steps[i], "CUDA_LAUNCH_BLOCKING") && !strstr(h.steps[i], "compute-sanitizer"));
    }
    /* end to end: a C++ kernel's index check, routed from its text */
    route_result r;
    route_str("terminate called after throwing an instance of 'c10::Error'\n  what():  index out of bounds: 0 <= tmp0 < 20\n"
              "Exception raised from cpp_fused_index_0 at /tmp/torchinductor_u/tk/ctk.kernel.cpp:12 (most recent call first):\n",
              &r);
    CHECK_STR(r.route, "cpp-index-oob");
    CHECK_STR(r.platform, "cpu");
    CHECK_CONTAINS(r.title, "C++ kernel");
    CHECK_STR(route_result_field(&r, "kernel"), "cpp_fused_index_0");
    CHECK_STR(route_result_field(&r, "tmp"), "tmp0");
    CHECK_STR(route_result_field(&r, "bound"), "20");
    strbuf out = STRBUF_INIT;
    route_result_format_text(&r, &out);
    check_no_cuda("text output", r.route, out.buf);
    strbuf_release(&out);
    /* a C++ kernel runs on the CPU whatever the run's device: no blocking launches on a GPU run either */
    route_result_set_platform(&r, rules, "cuda", "test");
    CHECK_STR(r.platform, "cuda");
    int blocking = 0;
    for (size_t i = 0; i < r.nsteps; i++)
        blocking |= strstr(r.steps[i], "CUDA_LAUNCH_BLOCKING") != NULL || strstr(r.steps[i], "Triton") != NULL;
    CHECK(!blocking);
    for (size_t i = 0; i < r.nactions; i++)
        CHECK(strcmp(r.actions[i].name, "rerun-blocking"));
    CHECK_STR(route_result_field(&r, "kernel"), "cpp_fused_index_0");
    route_result_set_platform(&r, rules, "cpu", "test");
    CHECK_CONTAINS(r.title, "C++ kernel");
    route_result_release(&r);
    /* the Triton form of the same check stays triton-index-oob, and ATen's CPU index check too */
    route_str("/tmp/torchinductor_u/ab/cab.py:22: unknown: block: [3,0,0], thread: [0,0,0] Assertion "
              "`index out of bounds: 0 <= tmp3 < 20` failed.\n", &r);
    CHECK_STR(r.route, "triton-index-oob");
    route_result_release(&r);
    route_str("IndexError: index 12 is out of bounds for dimension 0 with size 12\n", &r);
    CHECK_STR(r.route, "triton-index-oob");
    route_result_release(&r);
}

/* `unknown` says what it read: the first error-like line and the latest ones. */
static void test_unknown_lists_lines(void)
{
    route_result r;
    route_str("loading model\nRuntimeError: the flux capacitor is empty\nbye\n", &r);
    CHECK_STR(r.route, "unknown");
    CHECK(r.nlooked == 1 && r.looked[0].line == 2);
    CHECK_CONTAINS(r.looked[0].text, "flux capacitor");
    strbuf out = STRBUF_INIT;
    route_result_format_text(&r, &out);
    CHECK_CONTAINS(out.buf, "read 3 line(s)");
    CHECK_CONTAINS(out.buf, "looked line 2: RuntimeError: the flux capacitor is empty");
    strbuf_reset(&out);
    route_result_format_yaml(&r, &out);
    CHECK_CONTAINS(out.buf, "\nlooked_at:\n  - {line: 2, text: \"RuntimeError: the flux capacitor is empty\"}\n");
    strbuf_release(&out);
    route_result_release(&r);

    strbuf log = STRBUF_INIT;
    for (int i = 1; i <= 12; i++)
        strbuf_addf(&log, "step %d\nError: odd thing %d\n", i, i);
    route_str(log.buf, &r);
    CHECK_STR(r.route, "unknown");
    CHECK(r.nlooked == ROUTER_LOOKED_LINES);
    CHECK(r.looked[0].line == 2);                              /* the first */
    for (size_t i = 1; i < r.nlooked; i++)                     /* then the last ones, in order */
        CHECK(r.looked[i].line == 24 - 2 * (r.nlooked - 1 - i));
    route_result_release(&r);
    strbuf_release(&log);

    route_str("just some output\nand more\n", &r);
    CHECK(r.nlooked == 0);
    strbuf_init(&out, 0);
    route_result_format_text(&r, &out);
    CHECK_CONTAINS(out.buf, "no line reads like an error message");
    strbuf_release(&out);
    route_result_release(&r);
}

/* Facts a caller knows are evidence with their origin; the caller's platform wins. */
static void test_facts_and_platform(void)
{
    router_stream *st = router_stream_new(rules);
    const char *t = "Error: run failed\n";
    router_stream_feed(st, t, strlen(t));
    router_stream_fact(st, "session: checklist row input.0.dtype",
                       "aotidbg checklist: FAIL input.0.dtype: input 0 dtype; expected float32, got float16");
    router_stream_set_platform(st, "cpu", "session: device cpu");
    route_result r = {0};
    router_stream_finish(st, &r);
    CHECK_STR(r.route, "input-mismatch");
    CHECK(r.lines == 1);                                      /* facts are not input lines */
    CHECK_STR(r.platform, "cpu");
    CHECK_STR(r.platform_from, "session: device cpu");
    CHECK(r.nevidence > 0 && r.evidence[0].line == 0);
    CHECK_STR(r.evidence[0].origin, "session: checklist row input.0.dtype");
    strbuf out = STRBUF_INIT;
    route_result_format_yaml(&r, &out);
    CHECK_CONTAINS(out.buf, "\nplatform: cpu\nplatform_from: \"session: device cpu\"\n");
    CHECK_CONTAINS(out.buf, "    origin: \"session: checklist row input.0.dtype\"\n");
    strbuf_release(&out);
    route_result_release(&r);

    /* a caller's "cuda" is refined by text that says HIP */
    st = router_stream_new(rules);
    t = "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.\n";
    router_stream_feed(st, t, strlen(t));
    router_stream_set_platform(st, "cuda", "session: device cuda:0");
    router_stream_finish(st, &r);
    CHECK_STR(r.platform, "rocm");
    route_result_release(&r);
    /* ...but a caller's CPU is not overridden by the text */
    st = router_stream_new(rules);
    t = "RuntimeError: CUDA error: an illegal memory access was encountered\n";
    router_stream_feed(st, t, strlen(t));
    router_stream_set_platform(st, "cpu", "caller");
    router_stream_set_platform(st, "no-such-platform", "caller");      /* ignored */
    router_stream_finish(st, &r);
    CHECK_STR(r.platform, "cpu");
    CHECK_STR(r.title, "Invalid memory access in a CPU kernel");
    route_result_release(&r);
}

static session *mk_session(const char *device)
{
    session *s = session_new();
    s->device = device ? arena_strdup(&s->arena, device) : NULL;
    return s;
}

static void add_check(session *s, const char *id, check_status st, const char *subject)
{
    check_row *rows = arena_alloc(&s->arena, (s->nchecks + 1) * sizeof *rows);
    if (s->nchecks)
        memcpy(rows, s->checks, s->nchecks * sizeof *rows);
    rows[s->nchecks] = (check_row){arena_strdup(&s->arena, id), st, arena_strdup(&s->arena, subject), "cuda", "cpu",
                                   "metadata", NULL};
    s->checks = rows;
    s->nchecks++;
}

/* Routing a session: device, failing kernel, exit signal and checklist rows are evidence. */
static void test_session_facts(void)
{
    /* a CPU run whose runner died by SIGSEGV in a C++ kernel, printing nothing */
    session *s = mk_session("cpu");
    event *k = session_add_event(s, EV_KERNEL);
    k->u.kernel.index = 2;
    k->u.kernel.name = "cpp_fused_gather_2";
    k->u.kernel.type = KTYPE_CPP;
    k->u.kernel.status = KSTAT_ERROR;
    event *x = session_add_event(s, EV_RUNNER_EXIT);
    x->u.exit.how = "signal";
    x->u.exit.signal = 11;
    route_result r = {0};
    router_route_session(rules, s, &r);
    CHECK_STR(r.route, "crash");
    CHECK_STR(r.platform, "cpu");
    CHECK_STR(route_result_field(&r, "kernel"), "cpp_fused_gather_2");
    CHECK_STR(route_result_field(&r, "kernel_index"), "2");
    CHECK_STR(r.evidence[0].origin, "session: runner exit");
    for (size_t i = 0; i < r.nsteps; i++)
        check_no_cuda("session step", r.route, r.steps[i]);
    route_result_release(&r);

    /* the same death with a failed device row: the mismatch is the cause */
    add_check(s, "device.compile-vs-load", CHECK_FAIL, "compile device vs load device");
    add_check(s, "input.0.dtype", CHECK_PASS, "input 0 dtype");
    router_route_session(rules, s, &r);
    CHECK_STR(r.route, "device-mismatch");
    CHECK_STR(r.evidence[0].origin, "session: checklist row device.compile-vs-load");
    CHECK(also_reason(&r, "crash") != NULL);
    route_result_release(&r);
    session_free(s);

    /* an error text that states a cause beats a checklist row; a NaN kernel is evidence */
    s = mk_session("cuda:0");
    event *e = session_add_event(s, EV_ERROR);
    e->u.error.text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 GiB.";
    e->u.error.kernel_index = -1;
    add_check(s, "input.0.dim.0", CHECK_FAIL, "input 0 dim 0 within the compiled range");
    router_route_session(rules, s, &r);
    CHECK_STR(r.route, "out-of-memory");
    CHECK_STR(r.platform, "cuda");
    CHECK(also_reason(&r, "input-mismatch") != NULL);
    route_result_release(&r);
    session_free(s);

    s = mk_session("cuda");
    k = session_add_event(s, EV_KERNEL);
    k->u.kernel.index = 4;
    k->u.kernel.name = "triton_poi_fused_log_4";
    k->u.kernel.type = KTYPE_TRITON;
    k->u.kernel.status = KSTAT_NAN;
    router_route_session(rules, s, &r);
    CHECK_STR(r.route, "nan-inf");
    route_result_release(&r);
    session_free(s);

    /* nothing known: unknown, and no crash */
    s = mk_session(NULL);
    router_route_session(rules, s, &r);
    CHECK_STR(r.route, "unknown");
    CHECK(r.platform == NULL);
    route_result_release(&r);
    session_free(s);
    CHECK_STR(router_platform_of_device("cuda:1"), "cuda");
    CHECK_STR(router_platform_of_device("hip"), "rocm");
    CHECK(router_platform_of_device("cudagraph") == NULL && router_platform_of_device(NULL) == NULL);
}

/* Every shipped pattern has a prefilter literal: none runs on every line (bench_router's speed). */
static void test_prefilter_covers_every_pattern(void)
{
    for (size_t pi = 0; pi < rules->npatterns; pi++) {
        if (rules->patterns[pi].always)
            fprintf(stderr, "pattern without a prefilter literal: %s\n", rules->patterns[pi].source);
        CHECK(!rules->patterns[pi].always);
    }
}

/* chunk boundaries anywhere give the same result as one buffer */
static void test_streaming_chunks(void)
{
    const char *text = "noise\nE0101 00:00:00.1 1 a.cpp:1] Exception in aoti_torch: At least one INF in buf12\n"
                       "Error: aoti_torch_check_inf_and_nan(\"buf12\", buf12) API call failed at x.cpp, line 9";
    route_result whole = {0};
    router_route_buffer(rules, text, strlen(text), &whole);
    CHECK_STR(whole.route, "nan-inf");
    CHECK_STR(route_result_field(&whole, "nonfinite"), "INF");
    for (size_t step = 1; step < 9; step += 3) {
        router_stream *s = router_stream_new(rules);
        for (size_t i = 0; i < strlen(text); i += step) {
            size_t k = strlen(text) - i < step ? strlen(text) - i : step;
            router_stream_feed(s, text + i, k);
        }
        route_result r = {0};
        router_stream_finish(s, &r);
        CHECK_STR(r.route, whole.route);
        CHECK(r.lines == 3 && r.bytes == strlen(text));
        CHECK_STR(route_result_field(&r, "buffer"), "buf12");
        CHECK(r.score == whole.score);
        route_result_release(&r);
    }
    route_result_release(&whole);
}

/* The shape of AOTI's CUDA wrapper: a Triton kernel embedded as a comment,
 * its call_triton_ wrapper call, the size variable and inputs_info_. */
static const char cuda_wrapper[] =
    "    inputs_info_[0].name = \"arg0_1\";\n"
    "    inputs_info_[1].name = \"arg1_1\";\n"
    "/*\n"
    "@triton.jit\n"
    "def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, ks0, ks1, xnumel, XBLOCK : tl.constexpr):\n"
    "    tmp4 = tl.where(tmp3, tmp2, tmp0)\n"
    "    tl.device_assert(((0 <= tmp4) & (tmp4 < ks1)) | ~(xmask), \"index out of bounds: 0 <= tmp4 < ks1\")\n"
    "*/\n"
    "static inline void call_triton_poi_fused_embedding_0(const CUdeviceptr in_ptr0, const CUdeviceptr in_ptr1,\n"
    "    const CUdeviceptr out_ptr0, int64_t ks0, int64_t ks1, int64_t xnumel, int32_t device_idx_,\n"
    "    cudaStream_t stream_, kernels_type_& kernels_) {\n"
    "}\n"
    "    auto arg0_1_size = arg0_1.sizes();\n"
    "    int64_t s27 = arg0_1_size[0];\n"
    "    auto arg1_1_size = arg1_1.sizes();\n"
    "    int64_t s53 = arg1_1_size[1];\n"
    "    // Topologically Sorted Source Nodes: [embedding], Original ATen: [aten.embedding]\n"
    "    call_triton_poi_fused_embedding_0(arg1_1, arg0_1, buf0, s27, s53, 8L*s27, this->device_idx_, stream, kernels);\n";

static void test_triton_trace(void)
{
    arena a = ARENA_INIT;
    triton_trace t;
    strbuf err = STRBUF_INIT;
    int rc = triton_trace_resolve(cuda_wrapper, strlen(cuda_wrapper), NULL, 0, "tmp4", "ks1", NULL, &a, &t, &err);
    CHECK(rc == 0);
    if (rc)
        fprintf(stderr, "triton_trace_resolve: %s\n", err.buf);
    CHECK_STR(t.kernel, "triton_poi_fused_embedding_0");
    CHECK(t.param_pos == 4);
    CHECK_STR(t.arg, "s53");
    CHECK_STR(t.input, "arg1_1");
    CHECK(t.input_index == 1);
    CHECK(t.dim == 1);
    CHECK_STR(t.source_nodes, "[embedding], Original ATen: [aten.embedding]");
    CHECK(t.call_line == 18);

    /* a literal bound is a fixed size: kernel found, no input to map */
    strbuf_reset(&err);
    rc = triton_trace_resolve(cuda_wrapper, strlen(cuda_wrapper), NULL, 0, "tmp4", "352", NULL, &a, &t, &err);
    CHECK(rc == -1);
    CHECK_CONTAINS(err.buf, "no kernel in the package checks");

    /* applied to a routed result */
    route_result r;
    route_str("k.py:30: unknown: block: [1,0,0], thread: [2,0,0] Assertion `index out of bounds: 0 <= tmp4 < ks1` "
              "failed.\n", &r);
    strbuf_reset(&err);
    CHECK(triton_trace_apply(&r, cuda_wrapper, strlen(cuda_wrapper), NULL, 0, &err) == 0);
    CHECK(route_result_field(&r, "trace_error") == NULL);
    CHECK_STR(route_result_field(&r, "input_index"), "1");
    CHECK_STR(route_result_field(&r, "dim"), "1");
    CHECK_STR(route_result_field(&r, "input"), "arg1_1");
    CHECK_STR(route_result_field(&r, "kernel"), "triton_poi_fused_embedding_0");
    CHECK_STR(route_result_field(&r, "kernel_file"), "k");
    int jump = 0;
    for (size_t i = 0; i < r.nactions; i++)
        if (!strcmp(r.actions[i].name, "jump-kernel")) {
            CHECK_STR(r.actions[i].value, "triton_poi_fused_embedding_0");
            jump = 1;
        }
    CHECK(jump);
    route_result_release(&r);

    /* truncated / hostile wrapper text: errors, never a crash */
    for (size_t cut = 0; cut < sizeof cuda_wrapper - 1; cut += 7) {
        strbuf_reset(&err);
        triton_trace_resolve(cuda_wrapper, cut, NULL, 0, "tmp4", "ks1", NULL, &a, &t, &err);
    }
    arena_release(&a);
    strbuf_release(&err);
}

/* The element behind a Triton assert (the CUDA form, embedded in wrapper.cpp): tmp4 comes from
 * tmp0 = tl.load(in_ptr0 ...) through the wrap of negatives; in_ptr0 is arg1_1 at the launch; the
 * session's before-tensor arg1_1 holds 137 at [1, 2]; the bound 100 is dim 0 of arg0_1, which
 * the kernel reads at the index. */
static void test_oob_element_triton(void)
{
    static const char w[] =
        "/*\n@triton.jit\n"
        "def triton_poi_fused_embedding_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    x1 = xindex // 16\n"
        "    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')\n"
        "    tmp1 = tl.full([XBLOCK], 100, tl.int32)\n"
        "    tmp2 = tmp0 + tmp1\n"
        "    tmp3 = tmp0 < 0\n"
        "    tmp4 = tl.where(tmp3, tmp2, tmp0)\n"
        "    tl.device_assert(((0 <= tmp4) & (tmp4 < 100)) | ~(xmask), \"index out of bounds: 0 <= tmp4 < 100\")\n"
        "    tmp6 = tl.load(in_ptr1 + (x0 + 16*tmp4), xmask)\n"
        "    tl.store(out_ptr0 + (x2), tmp6, xmask)\n*/\n"
        "    call_triton_poi_fused_embedding_0(arg1_1, arg0_1, buf0, 128L, this->device_idx_, stream, kernels);\n";
    session *s = session_new();
    event *e = session_add_event(s, EV_KERNEL);
    kernel_event *k = &e->u.kernel;
    k->name = "triton_poi_fused_embedding_0";
    k->ntensors = 2;
    k->tensors = arena_alloc(&s->arena, 2 * sizeof *k->tensors);
    memset(k->tensors, 0, 2 * sizeof *k->tensors);
    static int64_t ish[2] = {2, 4}, ist[2] = {4, 1}, tsh[2] = {100, 16}, tst[2] = {16, 1};
    static double ids[8] = {1, 5, 7, 2, 9, 3, 137, 8};
    k->tensors[0] = (tensor_rec){.name = "arg1_1", .phase = PHASE_BEFORE, .ndim = 2, .shape = ish, .strides = ist,
                                 .dtype = "int64", .device = "cuda:0", .nvalues = 8, .values = ids,
                                 .values_complete = 1};
    k->tensors[1] = (tensor_rec){.name = "arg0_1", .phase = PHASE_BEFORE, .ndim = 2, .shape = tsh, .strides = tst,
                                 .dtype = "float32", .device = "cuda:0"};
    route_result r;
    route_str("k.py:30: unknown: block: [1,0,0], thread: [2,0,0] Assertion `index out of bounds: 0 <= tmp4 < 100` "
              "failed.\n", &r);
    strbuf err = STRBUF_INIT;
    CHECK(triton_trace_apply(&r, w, strlen(w), NULL, 0, &err) == 0);
    CHECK(route_result_field(&r, "trace_error") == NULL);
    CHECK(oob_element_apply(&r, w, strlen(w), NULL, 0, s, 0) == 0);
    CHECK_STR(route_result_field(&r, "load_ptr"), "in_ptr0");
    CHECK_STR(route_result_field(&r, "index_tensor"), "arg1_1");
    CHECK_STR(route_result_field(&r, "index_at"), "[1, 2]");
    CHECK_STR(route_result_field(&r, "index_value"), "137");
    CHECK_STR(route_result_field(&r, "valid_range"), "[-100, 100)");
    CHECK_STR(route_result_field(&r, "bound_of"), "dim 0 of arg0_1 [100, 16] (read at the index)");
    {   /* the table is a weight the printer saved (torch 2.11 on CUDA): named as in the model */
        strbuf w2 = STRBUF_INIT;
        strbuf_addstr(&w2, "    constants_info_[0].name = \"arg0_1\";\n"
                           "    constants_info_[0].original_fqn = \"emb.weight\";\n");
        strbuf_addstr(&w2, w);
        route_result r2;
        route_str("k.py:30: unknown: block: [1,0,0], thread: [2,0,0] Assertion `index out of bounds: 0 <= tmp4 < "
                  "100` failed.\n", &r2);
        CHECK(triton_trace_apply(&r2, w2.buf, w2.len, NULL, 0, &err) == 0);
        CHECK(oob_element_apply(&r2, w2.buf, w2.len, NULL, 0, s, 0) == 0);
        CHECK_STR(route_result_field(&r2, "bound_of"), "dim 0 of the weight emb.weight [100, 16] (read at the index)");
        route_result_release(&r2);
        strbuf_release(&w2);
    }
    /* values not kept: the statistics' position of the largest value */
    k->tensors[0].nvalues = 0;
    k->tensors[0].values_complete = 0;
    k->tensors[0].has_stats = 1;
    k->tensors[0].stats = (tensor_stats){.numel = 8, .finite = 8, .min = 1, .max = 137, .has_at = 1,
                                         .at = {0, 6, -1}};
    CHECK(oob_element_apply(&r, w, strlen(w), NULL, 0, s, 0) == 0);
    CHECK_STR(route_result_field(&r, "index_at"), "[1, 2]");
    CHECK_CONTAINS(route_result_field(&r, "index_note"), "largest value");
    /* a cut-off source: the chain breaks, said in element_error, never a crash */
    route_result r2;
    route_str("Assertion `index out of bounds: 0 <= tmp4 < 100` failed.\n", &r2);
    CHECK(oob_element_apply(&r2, w, 200, NULL, 0, s, 0) == 0);
    route_result_release(&r2);
    route_result_release(&r);
    strbuf_release(&err);
    session_free(s);
}

int main(void)
{
    strbuf err = STRBUF_INIT;
    if (router_rules_load(&rules, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err)) {
        fprintf(stderr, "cannot load rules: %s\n", err.buf);
        return 1;
    }
    RUN(test_rules_load);
    RUN(test_rule_errors);
    RUN(test_corpus_style_messages);
    RUN(test_families);
    RUN(test_phrasings);
    RUN(test_route_text_default_rules);
    RUN(test_fields_input_mismatch);
    RUN(test_devices_and_symbol);
    RUN(test_oob_repeats_prefixes_and_consequences);
    RUN(test_primary_beats_consequence_only);
    RUN(test_adversarial_bytes);
    RUN(test_streaming_chunks);
    RUN(test_long_line_windows);
    RUN(test_cause_over_effects);
    RUN(test_one_line_counts_once);
    RUN(test_cpu_wording);
    RUN(test_failing_line_and_step_fields);
    RUN(test_unknown_lists_lines);
    RUN(test_facts_and_platform);
    RUN(test_session_facts);
    RUN(test_prefilter_covers_every_pattern);
    RUN(test_triton_trace);
    RUN(test_oob_element_triton);
    router_rules_free(rules);
    strbuf_release(&err);
    return CHECK_DONE();
}
