/* test_router_structure.c — the router reads a log's structure before it
 * scores (log_parts.h): each line's part, tracebacks with their exception
 * type and message, chained tracebacks, C++ what()/c10::Error, compiler
 * errors, assertions, glog and Python logging prefixes, memory summaries; a
 * warning never outranks an error; the platform's advice (a log that names
 * XPU, MPS or the CPU gets no CUDA step, an unknown platform gets each
 * platform's step); the learned fallback's weights file (router_nb.h): bad
 * files rejected with file:line, a good one classifying and routing only
 * where no rule names a cause; the collective-timeout route. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "compat.h"
#include "log_parts.h"
#include "router.h"
#include "router_nb.h"
#include "router_rules.h"

static router_rules *rules;

static void route_str(const char *text, route_result *r)
{
    memset(r, 0, sizeof *r);
    router_route_buffer(rules, text, strlen(text), r);
}

static log_part_kind kind_of(const char *line)
{
    return log_line_part(line, strlen(line), 0);
}

static void test_line_parts(void)
{
    CHECK(kind_of("Traceback (most recent call last):") == LOG_PART_TRACEBACK);
    CHECK(kind_of("  File \"/x/model.py\", line 12, in forward") == LOG_PART_FRAME);
    CHECK(kind_of("torch._dynamo.exc.Unsupported: data dependent operator") == LOG_PART_EXCEPTION);
    CHECK(kind_of("RuntimeError: CUDA error: an illegal memory access was encountered") == LOG_PART_EXCEPTION);
    CHECK(kind_of("KeyboardInterrupt") == LOG_PART_EXCEPTION);
    CHECK(kind_of("UserWarning: TypedStorage is deprecated") == LOG_PART_LOG_WARNING);
    CHECK(kind_of("During handling of the above exception, another exception occurred:") == LOG_PART_CHAIN);
    CHECK(kind_of("The above exception was the direct cause of the following exception:") == LOG_PART_CHAIN);
    CHECK(kind_of("terminate called after throwing an instance of 'c10::Error'") == LOG_PART_CPP_WHAT);
    CHECK(kind_of("  what():  CUDA error: device-side assert triggered") == LOG_PART_CPP_WHAT);
    CHECK(kind_of("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43") ==
          LOG_PART_C10_ERROR);
    CHECK(kind_of("/tmp/torchinductor_u/ab/cab.cpp:12:5: error: 'x' was not declared in this scope") ==
          LOG_PART_COMPILER_ERROR);
    CHECK(kind_of("/tmp/x.cpp:3:1: warning: unused variable 'y' [-Wunused-variable]") == LOG_PART_COMPILER_WARNING);
    CHECK(kind_of("python3: /triton/lib/Dialect/TritonGPU/IR/Dialect.cpp:42: auto f(): Assertion `x' failed.") ==
          LOG_PART_ASSERTION);
    CHECK(kind_of("LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.x") == LOG_PART_ASSERTION);
    CHECK(kind_of("WARNING 12-01 10:00:00 [config.py:12] Config file not found") == LOG_PART_LOG_WARNING);
    CHECK(kind_of("[WARNING] something") == LOG_PART_LOG_WARNING);
    CHECK(kind_of("ERROR 12-01 10:00:00 [engine.py:9] worker died") == LOG_PART_LOG_ERROR);
    CHECK(kind_of("|                  PyTorch CUDA memory summary, device ID 0                 |") ==
          LOG_PART_MEMORY_SUMMARY);
    CHECK(kind_of("step 12 loss 0.31") == LOG_PART_NONE);
    /* glog prefixes: W is a warning whatever it says; E keeps a more precise kind */
    const char *w = "W1130 12:00:00.123456 777 torch/_inductor/utils.py:12] error: looks bad";
    CHECK(log_line_level(w, strlen(w)) == 'W');
    CHECK(log_line_part("error: looks bad", 16, 'W') == LOG_PART_LOG_WARNING);
    const char *e = "[rank1]:[E1207 10:00:00.1 42 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught";
    CHECK(log_line_level(e, strlen(e)) == 'E');
    CHECK(log_line_part("[Rank 1] Watchdog caught", 24, 'E') == LOG_PART_LOG_ERROR);
    CHECK(log_line_part("RuntimeError: boom", 18, 'E') == LOG_PART_EXCEPTION);
    const char *old = "[W socket.cpp:601] [c10d] The client socket has timed out";
    CHECK(log_line_level(old, strlen(old)) == 'W');
    CHECK(log_line_level("When it fails", 13) == 0);
    CHECK(log_line_level("E", 1) == 0);
    CHECK(strcmp(log_part_name(LOG_PART_ASSERTION), "assertion") == 0);
}

static void test_parse_parts(void)
{
    const char *log =
        "W1130 12:00:00.1 7 utils.py:1] TensorFloat32 tensor cores available but not enabled\n"
        "Traceback (most recent call last):\n"
        "  File \"/x/a.py\", line 3, in <module>\n"
        "    f()\n"
        "torch._subclasses.fake_tensor.DataDependentOutputException: aten.nonzero.default\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        "  File \"/x/b.py\", line 9, in <module>\n"
        "torch._dynamo.exc.Unsupported: data dependent operator: aten.nonzero.default\n"
        "|===========================================================================|\n"
        "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
        "|            CUDA OOMs: 1            |        cudaMalloc retries: 2         |\n"
        "|===========================================================================|\n"
        "/tmp/k.cpp:4:2: error: expected ';' before '}' token\n";
    log_parts p;
    log_parts_parse(log, strlen(log), &p);
    CHECK(p.n == 6);
    if (p.n == 6) {
        CHECK(p.parts[0].kind == LOG_PART_LOG_WARNING);
        CHECK(p.parts[1].kind == LOG_PART_EXCEPTION);
        CHECK(p.parts[1].line == 2 && p.parts[1].last_line == 5);
        CHECK_STR(p.parts[1].type, "torch._subclasses.fake_tensor.DataDependentOutputException");
        CHECK(!p.parts[1].chained);
        CHECK(p.parts[2].kind == LOG_PART_CHAIN);
        CHECK(p.parts[3].kind == LOG_PART_EXCEPTION);
        CHECK(p.parts[3].chained == 2);
        CHECK_STR(p.parts[3].type, "torch._dynamo.exc.Unsupported");
        CHECK_CONTAINS(p.parts[3].text, "data dependent operator");
        CHECK(p.parts[4].kind == LOG_PART_MEMORY_SUMMARY);
        CHECK(p.parts[4].line == 13 && p.parts[4].last_line == 15);   /* from its head; the rule above is no part */
        CHECK(p.parts[5].kind == LOG_PART_COMPILER_ERROR);
        /* the decisive part: the first error, never the warning before it */
        CHECK(log_parts_decisive(&p) == &p.parts[1]);
    }
    log_parts_free(&p);
    /* only warnings: the first warning is what there is */
    const char *warn = "UserWarning: a\nWARNING: b\n";
    log_parts_parse(warn, strlen(warn), &p);
    CHECK(p.n == 2 && log_parts_decisive(&p) == &p.parts[0]);
    log_parts_free(&p);
    /* bounded: a flood of error lines keeps LOG_PARTS_MAX and counts the rest */
    strbuf big = STRBUF_INIT;
    for (int i = 0; i < LOG_PARTS_MAX + 50; i++)
        strbuf_addstr(&big, "error: x\n");
    log_parts_parse(big.buf, big.len, &p);
    CHECK(p.n == LOG_PARTS_MAX && p.dropped == 50);
    log_parts_free(&p);
    strbuf_release(&big);
    log_parts_parse("", 0, &p);
    CHECK(p.n == 0 && log_parts_decisive(&p) == NULL);
    log_parts_free(&p);
}

/* A warning never outranks an error: the route comes from the error line. */
static void test_warning_never_outranks_error(void)
{
    route_result r;
    route_str("WARNING 12-01 10:00:00 [utils.py:88] Config file not found: /root/.triton/tune.json, No such file or directory\n"
              "python3: /triton/lib/Conversion/TritonGPUToLLVM/Utility.cpp:212: mlir::Value f(): "
              "Assertion `isa<To>(Val) && \"cast<Ty>() argument of incompatible type!\"' failed.\n"
              "Aborted (core dumped)\n", &r);
    CHECK_STR(r.route, "compile-error");
    CHECK_STR(r.part, "assertion");
    CHECK(r.part_line == 2);
    route_result_release(&r);
    /* the same warning alone still routes (nothing outranks it) */
    route_str("[W1201 10:00:00.1 9 model.cpp:3] CUDA driver error: file not found\n", &r);
    CHECK_STR(r.route, "missing-artifact");
    CHECK_STR(r.part, "log-warning");
    route_result_release(&r);
    /* vLLM's logger: its prefix stripped, its level word the line's part */
    route_str("WARNING 03-27 11:38:50 [config.py:12] CUDA out of memory would follow if the cache grew\n"
              "ERROR 03-27 11:38:51 [core.py:343] RuntimeError: CUDA error: an illegal memory access was encountered\n",
              &r);
    CHECK_STR(r.route, "illegal-memory-access");
    CHECK_STR(r.part, "python-exception");
    CHECK(r.failed_line == 2);
    CHECK_CONTAINS(r.failed_text, "RuntimeError: CUDA error");
    route_result_release(&r);
    /* a warning is never the failing line */
    route_str("[W1201 10:00:00.1 9 x.cpp:3] Error: failed to load the cached kernel: CUDA driver error: file not found\n"
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n", &r);
    CHECK_STR(r.route, "out-of-memory");
    CHECK(r.failed_line == 2);
    CHECK_CONTAINS(r.also ? r.also[0].reason : "", "warning");
    route_result_release(&r);
}

/* The families the issue names: each a rule, not one string. */
static void test_structure_families(void)
{
    static const struct { const char *route, *text; } cases[] = {
        {"dynamic-shape", "torch._dynamo.exc.UserError: Could not extract specialized integer\n"
                          "  evaluate_expr(Ne(u0, 589824))\n"},
        {"dynamic-shape", "RuntimeError: while tracing: guard_bool(Eq(u3, 1)) failed\n"},
        {"dynamic-shape", "torch._dynamo.exc.TorchRuntimeError: Failed running call_function <built-in function mul>"
                          "(*(FakeTensor(..., size=(s0, 4)), FakeTensor(..., size=(3, 4))), **{}): Attempting to "
                          "broadcast a dimension of length 3 at -2!\n"},
        {"out-of-memory", "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
                          "|            CUDA OOMs: 2            |        cudaMalloc retries: 5         |\n"},
        {"compile-error", "python: /root/.triton/llvm/llvm-1f2/include/llvm/Support/Casting.h:566: decltype(auto) "
                          "llvm::cast(const From &) [To = mlir::triton::gpu::BlockedEncodingAttr]: Assertion "
                          "`isa<To>(Val) && \"cast<Ty>() argument of incompatible type!\"' failed.\n"},
        {"cpp-index-oob", "RuntimeError: index out of bounds: 0 <= tmp3 < ks0\n"
                          "running on --device cpu\n"},
        {"collective-timeout", "[rank0]:[E1207 10:00:00.1 42 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught "
                               "collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLGATHER, NumelIn=8, "
                               "NumelOut=16, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"},
        {"collective-timeout", "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /default_pg/0//cuda//0\n"},
        {"device-mismatch", "NotImplementedError: The operator 'aten::upsample_bicubic2d.out' is not currently "
                            "implemented for the MPS device.\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        route_result r;
        route_str(cases[i].text, &r);
        if (strcmp(r.route, cases[i].route))
            fprintf(stderr, "case %zu: want %s, got %s\n", i, cases[i].route, r.route);
        CHECK_STR(r.route, cases[i].route);
        route_result_release(&r);
    }
    route_result r;
    route_str("[rank0]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
              "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n", &r);
    CHECK_STR(route_result_field(&r, "collective"), "ALLREDUCE");
    CHECK_STR(route_result_field(&r, "seq"), "12");
    CHECK_STR(r.platform, "cuda");
    int ranks = 0;
    for (size_t i = 0; i < r.nsteps; i++)
        ranks |= strstr(r.steps[i], "--ranks") != NULL;
    CHECK(ranks);
    route_result_release(&r);
}

static int any_cuda(const route_result *r)
{
    for (size_t i = 0; i < r->nsteps; i++)
        if (strstr(r->steps[i], "CUDA") || strstr(r->steps[i], "nvcc") || strstr(r->steps[i], "compute-sanitizer"))
            return 1;
    for (size_t i = 0; i < r->nactions; i++)
        if (!strcmp(r->actions[i].name, "rerun-blocking"))
            return 1;
    return 0;
}

static void test_platform_advice(void)
{
    route_result r;
    /* XPU text with CUDA's generic names in it: XPU's words */
    route_str("  File \"/x/torch/cuda/__init__.py\", line 3, in f\n"
              "RuntimeError: UR_RESULT_ERROR_DEVICE_LOST on xpu:0 while torch.cuda.synchronize() ran\n"
              "For debugging consider passing CUDA_LAUNCH_BLOCKING=1 (libcudart was never loaded)\n"
              "Segmentation fault (core dumped)\n", &r);
    CHECK_STR(r.platform, "xpu");
    CHECK(!any_cuda(&r));
    route_result_release(&r);
    /* MPS */
    route_str("RuntimeError: MPS backend out of memory (MPS allocated: 18.1 GB, other allocations: 1 GB, max allowed: 18.13 GB)\n", &r);
    CHECK_STR(r.platform, "mps");
    CHECK(!any_cuda(&r));
    route_result_release(&r);
    /* the CPU: a C++ kernel's check */
    route_str("Segmentation fault (core dumped)\nwhile running cpp_fused_add_0 --device cpu\n", &r);
    CHECK_STR(r.platform, "cpu");
    CHECK(!any_cuda(&r));
    route_result_release(&r);
    /* unknown platform: each step that differs says it for each platform */
    route_str("Segmentation fault (core dumped)\n", &r);
    CHECK(r.platform == NULL);
    int each = 0, plain = 0;
    for (size_t i = 0; i < r.nsteps; i++) {
        if (strstr(r.steps[i], "On CUDA") && strstr(r.steps[i], "CPU: ") && strstr(r.steps[i], "ROCm/HIP: ") &&
            strstr(r.steps[i], "Intel XPU, Apple MPS/Metal: "))
            each++;
        if (!strncmp(r.steps[i], "Run the checklist", 17))
            plain++;                  /* a step every platform words alike: once, as it is */
    }
    CHECK(each >= 1);
    CHECK(plain == 1);
    route_result_release(&r);
}

/* ---- the learned fallback ---------------------------------------------------- */

static const char good_nb[] =
    NB_FORMAT "\n"
    "# test weights\n"
    "trained: a test\n"
    "temperature 1\n"
    "classes 2\n"
    "c out-of-memory -0.6931 -5\n"
    "c collective-timeout -0.6931 -5\n"
    "features 4\n"
    "f memory @0:-1\n"
    "f ran.dry @0:-0.5\n"
    "f straggler @1:-0.5\n"
    "f rank @1:-1 @0:-4\n"
    "docs 2\n"
    "d out-of-memory dev/a.log memory ran.dry\n"
    "d collective-timeout dev/b.log straggler rank\n"
    "end\n";

static int nb_rejects(const char *text, const char *want)
{
    router_nb *nb = NULL;
    strbuf err = STRBUF_INIT;
    int rc = router_nb_parse(&nb, text, strlen(text), "w.txt", &err);
    int ok = rc < 0 && nb == NULL && err.buf && strstr(err.buf, want) != NULL;
    if (!ok)
        fprintf(stderr, "nb: want error with \"%s\", got rc %d: %s\n", want, rc, err.buf ? err.buf : "");
    strbuf_release(&err);
    router_nb_free(nb);
    return ok;
}

static char *with(const char *from, const char *to)
{
    const char *p = strstr(good_nb, from);
    if (!p)
        return NULL;
    strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, good_nb, (size_t)(p - good_nb));
    strbuf_addstr(&sb, to);
    strbuf_addstr(&sb, p + strlen(from));
    return strbuf_detach(&sb, NULL);
}

static void test_nb_rejects_bad_files(void)
{
    static const struct { const char *from, *to, *want; } bad[] = {
        {NB_FORMAT "\n", "aotidbg-router-nb 2\n", "w.txt:1: not a router weights file"},
        {"c out-of-memory", "c not-a-route", "w.txt:6: class is not a route id"},
        {"c collective-timeout", "c out-of-memory", "w.txt:7: class listed twice"},
        {"c out-of-memory -0.6931 -5", "c out-of-memory nan -5", "w.txt:6: a class needs"},
        {"c out-of-memory -0.6931 -5", "c out-of-memory 0.5 -5", "w.txt:6: a class needs"},
        {"f memory @0:-1", "f memory @7:-1", "w.txt:9: a feature's entries"},
        {"f memory @0:-1", "f memory 0:-1", "w.txt:9: a feature's entries"},
        {"f memory @0:-1", "f memory @0:inf", "w.txt:9: a feature's entries"},
        {"f memory @0:-1", "f memory @0:-1 @0:-2", "w.txt:9: a class given twice"},
        {"f memory @0:-1", "f MEMORY @0:-1", "w.txt:9: bad feature"},
        {"f memory @0:-1", "f a.b.c @0:-1", "w.txt:9: bad feature"},
        {"f straggler", "f memory", "w.txt:11: feature listed twice"},
        {"features 4", "features 5", "w.txt:13: docs: 5 entries promised, 4 given"},
        {"features 4", "features 999999999", "w.txt:8: features needs a count"},
        {"d out-of-memory dev/a.log memory", "d out-of-memory dev/a.log nowhere", "w.txt:14: a doc names a feature"},
        {"d collective-timeout", "d crash", "w.txt:15: a doc needs a class"},
        {"temperature 1", "temperature -1", "w.txt:4: temperature"},
        {"temperature 1\n", "", "no temperature line"},
        {"end\n", "", "ends before `end`"},
        {"end\n", "end\nf x @0:-1\n", "text after `end`"},
        {"classes 2\n", "features 4\nclasses 2\n", "sections out of order"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = with(bad[i].from, bad[i].to);
        CHECK(t != NULL);
        if (t)
            CHECK(nb_rejects(t, bad[i].want));
        free(t);
    }
    /* a NUL byte, a long line, a huge file */
    char nul[] = NB_FORMAT "\nx\0y\n";
    router_nb *nb = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(router_nb_parse(&nb, nul, sizeof nul - 1, "w.txt", &err) < 0 && strstr(err.buf, "NUL"));
    strbuf_reset(&err);
    strbuf longl = STRBUF_INIT;
    strbuf_addstr(&longl, NB_FORMAT "\ntrained: ");
    for (int i = 0; i < 5000; i++)
        strbuf_addch(&longl, 'x');
    CHECK(router_nb_parse(&nb, longl.buf, longl.len, "w.txt", &err) < 0 && strstr(err.buf, "w.txt:2: line longer"));
    strbuf_release(&longl);
    strbuf_reset(&err);
    CHECK(router_nb_load(&nb, AOTIDBG_SOURCE_DIR "/no/such/router_nb.txt", &err) < 0 && nb == NULL);
    strbuf_release(&err);
}

static void test_nb_classify(void)
{
    router_nb *nb = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(router_nb_parse(&nb, good_nb, strlen(good_nb), "w.txt", &err) == 0);
    if (!nb) {
        fprintf(stderr, "%s\n", err.buf);
        strbuf_release(&err);
        return;
    }
    CHECK_STR(router_nb_about(nb), "a test");
    router_nb_answer a;
    const char *t1 = "The GPU ran dry of memory!";
    CHECK(router_nb_classify(nb, t1, strlen(t1), &a) == 0);
    CHECK_STR(a.route, "out-of-memory");
    CHECK(a.confidence > 0.9 && a.confidence <= 1.0);
    CHECK(a.features == 2);
    CHECK(a.nnearest >= 1 && !strcmp(a.nearest[0], "dev/a.log"));
    const char *t2 = "rank 3 is a STRAGGLER; rank 3 again";
    CHECK(router_nb_classify(nb, t2, strlen(t2), &a) == 0);
    CHECK_STR(a.route, "collective-timeout");
    CHECK_STR(a.nearest_route[0], "collective-timeout");
    /* digits split tokens; nothing known: no answer */
    CHECK(router_nb_classify(nb, "12345 zz", 8, &a) == -1);
    /* routed only where no rule names a cause, and said so */
    router_rules *rr = NULL;
    CHECK(router_rules_load(&rr, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err) == 0);
    if (rr) {
        rr->nb = nb;
        nb = NULL;
        route_result r;
        const char *t3 = "the machine ran dry of memory, sorry\n";
        memset(&r, 0, sizeof r);
        router_route_buffer(rr, t3, strlen(t3), &r);
        CHECK_STR(r.route, "out-of-memory");
        CHECK(r.learned_used);
        CHECK_STR(r.learned_route, "out-of-memory");
        CHECK_CONTAINS(route_result_field(&r, "learned_fallback"), "nearest known log dev/a.log");
        strbuf out = STRBUF_INIT;
        route_result_format_text(&r, &out);
        CHECK_CONTAINS(out.buf, "learned fallback, confidence ");
        CHECK_CONTAINS(out.buf, "nearest known logs: dev/a.log (out-of-memory)");
        strbuf_reset(&out);
        route_result_format_yaml(&r, &out);
        CHECK(!strncmp(out.buf, "route: out-of-memory\n", 21));
        CHECK_CONTAINS(out.buf, "\nlearned: {route: out-of-memory, confidence: ");
        CHECK_CONTAINS(out.buf, "used: true");
        strbuf_release(&out);
        route_result_release(&r);
        /* a rule that names the cause wins and the fallback is not asked */
        const char *t4 = "rank 3 straggler\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
        memset(&r, 0, sizeof r);
        router_route_buffer(rr, t4, strlen(t4), &r);
        CHECK_STR(r.route, "out-of-memory");
        CHECK(r.learned_route == NULL && !r.learned_used);
        route_result_release(&r);
        router_rules_free(rr);
    }
    router_nb_free(nb);
    strbuf_release(&err);
}

/* The fallback reads the head and the tail of the input (router_nb.h), kept
 * as it streams by: whatever the chunks, its answer is the one for that text. */
static void test_nb_reads_head_and_tail(void)
{
    router_rules *rr = NULL;
    strbuf err = STRBUF_INIT;
    CHECK(router_rules_load(&rr, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err) == 0);
    if (!rr)
        return;
    CHECK(router_nb_parse(&rr->nb, good_nb, strlen(good_nb), "w.txt", &err) == 0);
    static const size_t sizes[] = {40, 30000, NB_HEAD + NB_TAIL - 7, NB_HEAD + NB_TAIL, NB_HEAD + NB_TAIL + 1,
                                   70000, 200003};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        char *t = xmalloc(n + 1);
        unsigned seed = (unsigned)n;
        for (size_t i = 0; i < n; i++) {     /* words of the weights, spread so head, middle and tail differ */
            seed = seed * 1103515245u + 12345u;
            static const char *const w[] = {"memory ", "ran dry ", "rank ", "straggler ", "zz ", "\n"};
            const char *x = w[(seed >> 16) % 6];
            /* what the fallback must not read (past the head, before the tail) speaks of ranks alone,
             * the rest of memory alone: reading the wrong part changes the answer */
            int middle = n > (size_t)NB_HEAD + NB_TAIL && i >= NB_HEAD + 16 && i + NB_TAIL + 16 < n;
            if (middle != (x[0] == 's' || x[1] == 'a'))
                x = middle ? "straggler " : "memory ";
            size_t k = strlen(x);
            memcpy(t + i, x, i + k <= n ? k : n - i);
            i += k - 1;
        }
        t[n] = 0;
        /* the text router_nb.h names */
        strbuf want_text = STRBUF_INIT;
        if (n <= (size_t)NB_HEAD + NB_TAIL) {
            strbuf_add(&want_text, t, n);
        } else {
            strbuf_add(&want_text, t, NB_HEAD);
            strbuf_addch(&want_text, '\n');
            strbuf_add(&want_text, t + n - NB_TAIL, NB_TAIL);
        }
        router_nb_answer want;
        int have = router_nb_classify(rr->nb, want_text.buf, want_text.len, &want) == 0;
        for (size_t chunk = 1; chunk <= 100000; chunk *= 7) {
            router_stream *st = router_stream_new(rr);
            for (size_t off = 0; off < n; off += chunk)
                router_stream_feed(st, t + off, off + chunk <= n ? chunk : n - off);
            route_result r;
            router_stream_finish(st, &r);
            CHECK(have);                  /* no rule names a cause in this text: the fallback is asked */
            if (have) {
                CHECK_STR(r.learned_route, want.route);
                if (n > (size_t)NB_HEAD + NB_TAIL)
                    CHECK_STR(r.learned_route, "out-of-memory");
                CHECK(r.learned_confidence > want.confidence - 1e-9 && r.learned_confidence < want.confidence + 1e-9);
            }
            route_result_release(&r);
        }
        strbuf_release(&want_text);
        free(t);
    }
    router_rules_free(rr);
    strbuf_release(&err);
}

/* The shipped weights load (they are data the router reads at every start). */
static void test_shipped_weights(void)
{
    router_nb *nb = NULL;
    strbuf err = STRBUF_INIT;
    int rc = router_nb_load(&nb, AOTIDBG_SOURCE_DIR "/core/router/router_nb.txt", &err);
    if (rc < 0)
        fprintf(stderr, "%s\n", err.buf);
    CHECK(rc == 0);
    CHECK_CONTAINS(router_nb_about(nb), "held-out accuracy");
    router_nb_free(nb);
    strbuf_release(&err);
}

int main(void)
{
    strbuf err = STRBUF_INIT;
    if (router_rules_load(&rules, AOTIDBG_SOURCE_DIR "/core/router/routes.yaml", &err)) {
        fprintf(stderr, "cannot load rules: %s\n", err.buf);
        return 1;
    }
    RUN(test_line_parts);
    RUN(test_parse_parts);
    RUN(test_warning_never_outranks_error);
    RUN(test_structure_families);
    RUN(test_platform_advice);
    RUN(test_nb_rejects_bad_files);
    RUN(test_nb_classify);
    RUN(test_nb_reads_head_and_tail);
    RUN(test_shipped_weights);
    router_rules_free(rules);
    strbuf_release(&err);
    return CHECK_DONE();
}
