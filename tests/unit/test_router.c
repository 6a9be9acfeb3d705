/* test_router.c — the error router on the shipped rules (core/router/routes.yaml):
 * rule loading and its errors, log cleaning (prefixes, ANSI, repeats, long
 * lines, binary, invalid UTF-8), root cause over consequence, fields, chunked
 * streaming, demangling, and triton_trace on a wrapper/kernel pair. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "router.h"
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
    static const char *ids[] = {"triton-index-oob", "device-mismatch", "input-mismatch", "illegal-memory-access",
                                "nan-inf", "wrong-output", "dynamic-shape", "custom-op", "missing-artifact",
                                "abi-mismatch", "compile-error", "out-of-memory", "crash", "unknown"};
    CHECK(router_rules_count(rules) == 14);
    for (size_t i = 0; i < 14; i++) {
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
    /* deep nesting is refused, not recursed into */
    strbuf deep = STRBUF_INIT;
    strbuf_addstr(&deep, "version: 1\nroutes: ");
    for (int i = 0; i < 100; i++)
        strbuf_addch(&deep, '[');
    expect_rule_error(deep.buf, "nesting deeper");
    strbuf_release(&deep);
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
    /* the cause past the cap is not seen (documented limit), and nothing breaks */
    memset(big, 'y', n);
    memcpy(big + n - 40, "Segmentation fault", 18);
    strcpy(big + n, "\n");
    memset(&r, 0, sizeof r);
    router_route_buffer(rules, big, strlen(big), &r);
    CHECK_STR(r.route, "unknown");
    route_result_release(&r);
    free(big);
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
    RUN(test_phrasings);
    RUN(test_route_text_default_rules);
    RUN(test_fields_input_mismatch);
    RUN(test_devices_and_symbol);
    RUN(test_oob_repeats_prefixes_and_consequences);
    RUN(test_primary_beats_consequence_only);
    RUN(test_adversarial_bytes);
    RUN(test_streaming_chunks);
    RUN(test_triton_trace);
    router_rules_free(rules);
    strbuf_release(&err);
    return CHECK_DONE();
}
