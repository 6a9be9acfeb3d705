/* runner_main.c — aotidbg-runner: the one process that loads libtorch and the
 * model .so, so that a crashing model never takes the front end down.
 *
 *   aotidbg-runner                 protocol mode: started by aotidbg with the
 *                                  socket on fd 3 (protocol.h)
 *   aotidbg-runner --bench ...     timing driver for hook overhead (bench.c)
 *   aotidbg-runner --help | --version
 *
 * Protocol mode, in order: HELLO; LOAD -> LOADED (or ERROR + DONE 1); INPUT
 * for each model input; CONSTANT for each weight kept apart from the .so (if
 * any: applied at RUN); CONTROL; RUN -> KERNEL/TENSOR/STOPPED events, then
 * TENSOR(kernel -1, output) per output and DONE. The process ends after DONE
 * (restart = a fresh runner). With --eager, WEIGHT_CHECKs (before RUN) are
 * answered at RUN, before the model runs, by WEIGHT_DIFFs (param_diff.h). Exit codes: 0 after DONE or QUIT, 1 when the
 * model or the front end failed, 2 bad usage.
 * Environment: AOTIDBG_RUNNER_RECORD=0 makes hooks only count events and
 * prints a timing summary on stderr; AOTIDBG_RUNNER_PROFILE=1 prints where
 * the run's time went (prof.h).
 *
 * Failures carry the model's own words: fd 2 goes through stderr_tap, so a
 * failed Run or container creation reports the "Error: ..." line the model
 * printed. CUDA models: after Run returns 0 we synchronize and check (an
 * asynchronous fault is an ERROR, never "the model ran"); every output that
 * cannot be read is an ERROR; kernel launches are interposed (interpose.c)
 * so packages without the printer still show kernels, and blocking mode
 * names the kernel that faulted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "channel.h"
#include "device_timer.h"
#include "dist_group.h"
#include "eager_main.h"
#include "eager_refs.h"
#include "hooks.h"
#include "input_build.h"
#include "model_so.h"
#include "param_diff.h"
#include "prof.h"
#include "protocol.h"
#include "runner_capture.h"
#include "runner_main.h"
#include "stderr_tap.h"
#include "tensor_read.h"
#include "torch_abi.h"

#ifndef AOTIDBG_TORCH_VERSION
#define AOTIDBG_TORCH_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: aotidbg-runner            (started by aotidbg: protocol on fd 3)\n"
            "       aotidbg-runner --serve [--idle S]   (started by aotidbg --remote through ssh)\n"
            "       aotidbg-runner --check-so SO\n"
            "       aotidbg-runner --bench SO CUBIN_DIR DEVICE ITERS MODE INPUT...\n"
            "       aotidbg-runner --eager-ref PLAN   (started by aotidbg run --eager)\n"
            "       aotidbg-runner --help | --version\n"
            "\n"
            "aotidbg-runner loads libtorch and an AOTInductor model .so and runs it for the\n"
            "aotidbg front end, reporting every kernel launch through the printer hooks.\n"
            "\n"
            "--serve is the GPU box's end of `aotidbg --remote HOST`: it speaks the protocol on\n"
            "stdin/stdout, extracts the package into a private folder, starts a runner per run and\n"
            "relays it; it leaves (killing its runner, removing its folder) when the connection\n"
            "closes or nothing arrives for S seconds (default 300).\n"
            "--eager-ref computes the eager reference of `aotidbg run --eager PROGRAM` with libtorch:\n"
            "the exported program's graph from PLAN (written by aotidbg) run op by op, the values it\n"
            "keeps written as .npy (exit 0; 3: something it does not do, aotidbg then uses Python).\n"
            "--check-so loads SO with RTLD_NOW against this runner's libtorch and prints \"ok\" or\n"
            "the loader's message (exit 0 or 1).\n"
            "\n"
            "--bench times ITERS runs of the model in one MODE:\n"
            "  off       hooks only count events\n"
            "  record    hooks compute statistics and encode events (no stops)\n"
            "  blocking  hooks synchronize and check CUDA errors at every event\n"
            "INPUT is DTYPE:SHAPE:FILL, SHAPE like 4x8 (or 'scalar'), FILL randn|zeros|ones|arange\n"
            "or full=VALUE, e.g. float32:4x8:randn int64:3:arange.\n"
            "\n"
            "Environment: AOTIDBG_RUNNER_RECORD=0 (hooks only count events; timing on stderr),\n"
            "AOTIDBG_RUNNER_PROFILE=1 (where a run's time goes, per hook step, on stderr).\n");
}

static int send_msg(const proto_msg *m) { return chan_send(m); }

static arena ctl_arena = ARENA_INIT;

static int wait_control(proto_msg *c)
{
    for (;;) {
        strbuf err = STRBUF_INIT;
        int r = chan_recv(c, &ctl_arena, &err);
        if (r <= 0) {
            if (r < 0) fprintf(stderr, "aotidbg-runner: %s\n", err.buf);
            strbuf_release(&err);
            return -1;
        }
        strbuf_release(&err);
        if (c->type == PROTO_CONTROL) return 0;
        if (c->type == PROTO_QUIT) return 1;
        proto_msg e = {.type = PROTO_ERROR};
        e.u.error.kernel_index = -1;
        e.u.error.text = arena_printf(&ctl_arena, "runner is stopped: %s ignored (send CONTROL or QUIT)",
                                      proto_type_name(c->type));
        if (chan_send(&e)) return -1;
    }
}

static void send_error(int64_t k, const char *text)
{
    proto_msg m = {.type = PROTO_ERROR};
    m.u.error.kernel_index = k;
    m.u.error.text = text;
    chan_send(&m);
}

static int finish(int status, int code)
{
    proto_msg m = {.type = PROTO_DONE};
    m.u.done.status = status;
    chan_send(&m);
    fflush(stdout);
    fflush(stderr);
    stap_drain();
    _exit(code);   /* libtorch's static destructors after a model run are not worth the risk */
}

static int fail(const char *text, int code)
{
    send_error(-1, text);
    return finish(1, code);
}

/* 0 when AOTIDBG_RUNNER_RECORD=0 asks hooks to only count events. */
static int runner_env_record(void)
{
    const char *r = getenv("AOTIDBG_RUNNER_RECORD");
    return !(r && !strcmp(r, "0"));
}

/* Deletes each output handle once: a model that returns one tensor twice
 * gives the same handle twice (output_handles[1] = output_handles[0]). */
static void free_outputs(AtenTensorHandle *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!out[i]) continue;
        for (size_t j = i + 1; j < n; j++)
            if (out[j] == out[i]) out[j] = NULL;
        aoti_torch_delete_tensor_object(out[i]);
    }
}

/* This executable's path, for the agent to spawn runners from. */
static const char *self_exe(void)
{
    static char p[4096];
    ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
    if (n <= 0)
        return "aotidbg-runner";
    p[n] = 0;
    return p;
}

/* --check-so: loads SO as a model run would (RTLD_NOW, against this runner's libtorch). */
static int check_so(const char *so)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    const char *e = h ? NULL : dlerror();
    printf("%s\n", h ? "ok" : e ? e : "dlopen failed");
    return h ? 0 : 1;
}

/* ALIAS when output i is a handle already returned, or sits where an input's
 * data does (the model returned its input). */
static int send_alias(AtenTensorHandle *out, size_t i, void *const *in_data, size_t nin)
{
    char of[40] = "";
    for (size_t j = 0; j < i && !of[0]; j++)
        if (out[j] == out[i]) snprintf(of, sizeof of, "output%zu", j);
    void *p = NULL;
    int64_t numel = 0;
    if (!of[0] && !aoti_torch_get_data_ptr(out[i], &p) && p && !aoti_torch_get_numel(out[i], &numel) && numel > 0)
        for (size_t k = 0; k < nin && !of[0]; k++)
            if (in_data[k] == p) snprintf(of, sizeof of, "input %zu", k);
    if (!of[0]) return 0;
    proto_msg a = {.type = PROTO_ALIAS};
    a.u.alias.output = (uint32_t)i;
    a.u.alias.of = of;
    return chan_send(&a);
}

static void on_launch(const char *kernel, int phase, void *ctx)
{
    (void)ctx;
    hooks_interposed(kernel, phase);
}

/* What the conversation (protocol.h) has set up so far, from HELLO to RUN. */
typedef struct {
    arena a;                   /* the decoded messages' strings and arrays: kept until exit */
    int ncuda, record;
    model_so model;
    int loaded, model_cuda_index;
    uint32_t load_flags;
    size_t max_values, output_values;   /* values kept of each kernel tensor, of each output */
    input_spec *specs;
    size_t nspecs, cap_specs;
    model_constant *consts;    /* weights apart from the .so (CONSTANT), applied at RUN */
    size_t nconsts;
} conversation;

enum { GO_ON = -1 };           /* a step's result when the conversation goes on (else: the exit code) */

static int send_hello(conversation *cv)
{
    char gpu[256], cc[32];
    cv->ncuda = tabi_cuda_info(gpu, sizeof gpu, cc, sizeof cc);
    proto_msg hello = {.type = PROTO_HELLO};
    hello.u.hello.version = PROTO_VERSION;
    hello.u.hello.runner_version = AOTIDBG_VERSION;
    hello.u.hello.torch_version = AOTIDBG_TORCH_VERSION;
    hello.u.hello.pid = getpid();
    hello.u.hello.cuda_device_count = cv->ncuda;
    hello.u.hello.gpu_name = gpu;
    hello.u.hello.gpu_cc = cc;
    hello.u.hello.gpu_peak_gbps = cv->ncuda > 0 ? tabi_cuda_peak_gbps() : -1;
    if (chan_send(&hello)) {
        fprintf(stderr, "aotidbg-runner: cannot write to fd %d\n", PROTO_FD);
        return 1;
    }
    return GO_ON;
}

/* An integer from the environment in [lo, hi]; -1 with a message in err when unset or not one. */
static long env_int(const char *name, long lo, long hi, char *err, size_t errlen)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    if (!v || !*v || *end || n < lo || n > hi) {
        snprintf(err, errlen, "%s is %s%s%s (an integer from %ld to %ld is needed for a process group)", name,
                 v ? "'" : "unset", v ? v : "", v ? "'" : "", lo, hi);
        return -1;
    }
    return n;
}

/* The process group the front end asked for (AOTIDBG_PG and torch.distributed's
 * variables, dist_group.h), joined before the model is loaded: its collectives
 * look the group up by name at run time. 0, or -1 with err. */
static int join_group(int cuda, char *err, size_t errlen)
{
    const char *names = getenv("AOTIDBG_PG");
    if (!names || !*names) return 0;
    dgroup_config c = {.names = names, .master_addr = getenv("MASTER_ADDR"), .cuda = cuda};
    long ws = env_int("WORLD_SIZE", 1, 1 << 16, err, errlen);
    long rank = ws < 0 ? -1 : env_int("RANK", 0, ws - 1, err, errlen);
    long local = rank < 0 ? -1 : getenv("LOCAL_RANK") ? env_int("LOCAL_RANK", 0, ws - 1, err, errlen) : rank;
    long port = local < 0 ? -1 : env_int("MASTER_PORT", 1, 65535, err, errlen);
    if (port < 0) return -1;
    if (!c.master_addr || !*c.master_addr) c.master_addr = "127.0.0.1";
    const char *t = getenv("AOTIDBG_PG_TIMEOUT_MS");
    c.timeout_ms = t ? strtol(t, NULL, 10) : 0;
    c.world_size = (int)ws;
    c.rank = (int)rank;
    c.local_rank = (int)local;
    c.master_port = (int)port;
    if (dgroup_init(&c, err, errlen)) return -1;
    fprintf(stderr, "aotidbg-runner: rank %d of %d joined process group %s (%s, store %s:%d)\n", c.rank,
            c.world_size, names, cuda ? "nccl" : "gloo", c.master_addr, c.master_port);
    return 0;
}

/* LOAD: checks the device, loads the .so, sets up the launch interposer, answers LOADED. */
static int on_load(conversation *cv, const proto_msg *m)
{
    arena *a = &cv->a;
    if (cv->loaded) return fail("runner: LOAD sent twice", 2);
    int32_t dt, di;
    if (tabi_parse_device(m->u.load.device, 0, &dt, &di))
        return fail(arena_printf(a, "device '%s' is not cpu, cuda or cuda:N", m->u.load.device), 1);
    /* a CUDA torch whose runtime we could not find to ask: let torch decide */
    if (dt == tabi_device_cuda() && (tabi_cuda()->get_device_count || !tabi_torch_has_cuda()) && cv->ncuda <= di) {
        const char *why = cv->ncuda ? arena_printf(a, "only %d CUDA device(s) are visible", cv->ncuda)
                          : tabi_torch_has_cuda() ? "no CUDA device is visible to this torch"
                                                  : "this torch is a CPU-only build (no CUDA device)";
        return fail(arena_printf(a, "device %s was asked for, but %s; load on cpu, or run on a GPU "
                                 "machine with a CUDA build of torch", m->u.load.device, why), 1);
    }
    cv->model_cuda_index = dt == tabi_device_cuda() ? di : 0;
    char gerr[1024];
    if (join_group(dt == tabi_device_cuda(), gerr, sizeof gerr))
        return fail(arena_printf(a, "process group: %s", gerr), 1);
    model_so *model = &cv->model;
    strbuf lerr = STRBUF_INIT;
    if (model_load(model, m->u.load.so_path, m->u.load.device, m->u.load.cubin_dir, &lerr)) {
        char *t = arena_strdup(a, lerr.buf);
        strbuf_release(&lerr);
        return fail(t, 1);
    }
    cv->loaded = 1;
    dtimer_setup(model->is_cuda);
    if (model->weights_path)
        fprintf(stderr, "aotidbg-runner: weights: %llu bytes from %s (outside the .so)\n", model->weights_bytes,
                model->weights_path);
    cv->load_flags = m->u.load.flags;
    if (model->is_cuda && interpose_available()) {
        interpose_set_callback(on_launch, NULL);
        interpose_set_timer(dtimer_launch_start, dtimer_launch_stop);
        dtimer_calibrate(interpose_empty_kernel);
        if (cv->load_flags & PROTO_LOAD_BLOCKING) interpose_set_blocking(1);
    }
    if ((cv->load_flags & PROTO_LOAD_BLOCKING) && model->is_cuda && !tabi_cuda()->device_synchronize)
        fprintf(stderr, "aotidbg-runner: blocking mode asked for, but no cudaDeviceSynchronize was found "
                        "in this process (libcudart not loaded by libtorch_cuda?): hooks will not sync\n");
    cv->max_values = m->u.load.max_values > PROTO_MAX_VALUES ? PROTO_MAX_VALUES : (size_t)m->u.load.max_values;
    cv->output_values = m->u.load.output_values > PROTO_MAX_VALUES ? PROTO_MAX_VALUES
                        : m->u.load.output_values ? (size_t)m->u.load.output_values : cv->max_values;
    proto_msg l = {.type = PROTO_LOADED};
    l.u.loaded.n_inputs = (uint32_t)model->n_inputs;
    l.u.loaded.n_outputs = (uint32_t)model->n_outputs;
    l.u.loaded.n_names = (uint32_t)model->n_inputs;
    l.u.loaded.input_names = model->input_names;
    return chan_send(&l) ? 1 : GO_ON;
}

static int on_input(conversation *cv, const proto_msg *m)
{
    if (m->u.input.index != cv->nspecs)
        return fail(arena_printf(&cv->a, "runner: INPUT %u arrived after %zu inputs (they must come in "
                                 "order from 0)", m->u.input.index, cv->nspecs), 2);
    if (cv->nspecs >= MODEL_MAX_IO) return fail("runner: too many inputs", 2);
    if (cv->nspecs == cv->cap_specs) {
        cv->cap_specs = cv->cap_specs ? cv->cap_specs * 2 : 8;
        cv->specs = realloc(cv->specs, cv->cap_specs * sizeof *cv->specs);
        if (!cv->specs) return fail("runner: out of memory", 1);
    }
    cv->specs[cv->nspecs++] = m->u.input.spec;   /* strings live in cv->a */
    return GO_ON;
}

static int on_constant(conversation *cv, const proto_msg *m)
{
    if (!cv->loaded) return fail("runner: CONSTANT before LOAD", 2);
    if (cv->nconsts >= MODEL_MAX_IO * 16) return fail("runner: too many constants", 2);
    model_constant *nc = realloc(cv->consts, (cv->nconsts + 1) * sizeof *cv->consts);
    if (!nc) return fail("runner: out of memory", 1);
    cv->consts = nc;
    cv->consts[cv->nconsts++] = (model_constant){m->u.constant.fqn, m->u.constant.path, m->u.constant.dtype,
                                                 m->u.constant.offset, m->u.constant.ndim, m->u.constant.shape,
                                                 m->u.constant.strides, m->u.constant.storage_offset};
    return GO_ON;   /* strings and arrays live in cv->a */
}

/* The tensors of one run: inputs built from the specs, and the model's outputs. */
typedef struct {
    built_input *bi;
    AtenTensorHandle *in, *out;
    void **in_data;            /* where each input's data is: an output at the same place is that input (ALIAS) */
} run_tensors;

static int build_inputs(conversation *cv, run_tensors *rt)
{
    size_t n = cv->nspecs;
    rt->bi = calloc(n ? n : 1, sizeof *rt->bi);
    rt->in = calloc(n ? n : 1, sizeof *rt->in);
    rt->out = calloc(cv->model.n_outputs ? cv->model.n_outputs : 1, sizeof *rt->out);
    rt->in_data = calloc(n ? n : 1, sizeof *rt->in_data);
    if (!rt->bi || !rt->in || !rt->out || !rt->in_data) return fail("runner: out of memory", 1);
    for (size_t i = 0; i < n; i++) {
        strbuf ierr = STRBUF_INIT;
        int built = input_build(&cv->specs[i], (int)i, cv->model_cuda_index, &rt->bi[i], &ierr);
        if (built == INPUT_BAD_FILE) {   /* bad input: the front end exits 2 */
            send_error(-1, arena_strdup(&cv->a, ierr.buf));
            return finish(PROTO_DONE_BAD_INPUT, 1);
        }
        if (built)
            return fail(arena_strdup(&cv->a, ierr.buf), 1);
        rt->in[i] = rt->bi[i].h;
    }
    for (size_t i = 0; i < n; i++)
        if (aoti_torch_get_data_ptr(rt->in[i], &rt->in_data[i])) rt->in_data[i] = NULL;
    return GO_ON;
}

/* Runs the model once with the hooks on; a failure is sent (ERROR, a stop when asked, DONE). */
static int run_model(conversation *cv, run_tensors *rt)
{
    model_so *model = &cv->model;
    hooks_config hc = {cv->record, (cv->load_flags & PROTO_LOAD_BLOCKING) != 0, model->is_cuda, cv->max_values,
                       send_msg, wait_control, (cv->load_flags & PROTO_LOAD_ALLOC) != 0, chan_send_later, chan_flush,
                       (cv->load_flags & PROTO_LOAD_ROUND_STATS) != 0};
    hooks_configure(&hc);
    capture_set_model(model->dl, model->h);
    hooks_reset_counters();
    prof_reset();
    hooks_begin_run();
    double t0 = hooks_now_us();
    strbuf rerr = STRBUF_INIT;
    int rc = model_run(model, rt->in, cv->nspecs, rt->out, &rerr);
    double t1 = hooks_now_us();
    prof_add(PROF_RUN, t0);
    int64_t blame = hooks_end_run(rc != 0);
    if (!cv->record) {
        hooks_counters c = hooks_get_counters();
        fprintf(stderr, "aotidbg-runner: timing: run %.1f us, %llu hook events (hooks counting only)\n",
                t1 - t0, (unsigned long long)c.events);
    } else if (hooks_get_counters().events == 0) {
        /* Facts only: the package may have no kernel, or only kernels the printer does not
         * reach (torch.cond branches, proxy calls); the front end knows what was compiled in. */
        if (model->is_cuda && hooks_get_counters().kernels > 0)
            fprintf(stderr, "aotidbg-runner: no printer hook fired in this run: kernels come from "
                            "interposed cuLaunchKernel, with no tensors\n");
        else
            fprintf(stderr, "aotidbg-runner: no printer hook fired in this run, so no kernels are "
                            "reported\n");
    }
    prof_report(stderr, "run", 1, (unsigned long long)hooks_get_counters().events);
    if (rc) {
        send_error(blame, rerr.buf);
        if (hooks_break_flags() & BREAK_ON_ERROR) hooks_stop(blame, blame >= 0 ? 1 : 0, PROTO_STOP_ERROR);
        return finish(1, 1);
    }
    strbuf_release(&rerr);
    return GO_ON;
}

/* One TENSOR (phase output) per output, and ALIAS where it is another output or an input. */
static int send_outputs(conversation *cv, run_tensors *rt)
{
    tread_scratch sc = {0};
    for (size_t i = 0; i < cv->model.n_outputs; i++) {
        proto_msg t = {.type = PROTO_TENSOR};
        t.u.tensor.kernel_index = -1;
        char name[32];
        snprintf(name, sizeof name, "output%zu", i);
        if (!rt->out[i]) {   /* a None output: AOTI leaves the handle NULL */
            fprintf(stderr, "aotidbg-runner: %s is None (no tensor)\n", name);
            continue;
        }
        strbuf terr = STRBUF_INIT;
        if (tread_tensor(rt->out[i], name, PHASE_OUTPUT, cv->output_values, 1, &sc, &t.u.tensor.t, &terr)) {
            /* a CUDA fault can surface here first: say what the runtime says */
            char ctext[512] = "";
            if (cv->model.is_cuda) tabi_cuda_sync_check(ctext, sizeof ctext);
            send_error(-1, arena_printf(&cv->a, "%s%sreading the model's %s failed: %s", ctext, *ctext ? "; " : "",
                                        name, terr.buf));
            strbuf_release(&terr);
            return finish(1, 1);
        }
        strbuf_release(&terr);
        if (chan_send(&t)) return 1;
        if (send_alias(rt->out, i, rt->in_data, cv->nspecs)) return 1;
    }
    tread_scratch_release(&sc);
    return GO_ON;
}

/* RUN: the constants, the inputs, the run, the outputs, DONE. */
static int on_run(conversation *cv)
{
    if (!cv->loaded) return fail("runner: RUN before LOAD", 2);
    if (cv->nspecs != cv->model.n_inputs)
        return fail(arena_printf(&cv->a, "model takes %zu inputs, the spec gives %zu", cv->model.n_inputs,
                                 cv->nspecs), 1);
    if (cv->nconsts) {
        strbuf cerr = STRBUF_INIT;
        if (model_set_constants(&cv->model, cv->consts, cv->nconsts, &cerr))
            return fail(arena_strdup(&cv->a, cerr.buf), 1);
        fprintf(stderr, "aotidbg-runner: weights: %zu constant(s) given apart from the .so\n", cv->nconsts);
        strbuf_release(&cerr);
    }
    /* --eager: the program's weights, before the model runs; libtorch's own launches for it are
     * no kernels of the model (the interposer is off meanwhile) */
    int interposed = cv->model.is_cuda && interpose_available();
    if (interposed) interpose_set_callback(NULL, NULL);
    int wrc = pdiff_run(cv->model.dl, cv->model.h, chan_send);
    if (interposed) interpose_set_callback(on_launch, NULL);
    if (wrc) return 1;
    run_tensors rt = {0};
    int r = build_inputs(cv, &rt);
    if (r == GO_ON) r = run_model(cv, &rt);
    if (r == GO_ON) r = send_outputs(cv, &rt);
    if (r != GO_ON) return r;
    free(rt.in_data);
    free_outputs(rt.out, cv->model.n_outputs);
    for (size_t i = 0; i < cv->nspecs; i++) free(rt.bi[i].host);
    free(rt.bi);
    free(rt.in);
    free(rt.out);
    free(cv->specs);
    free(cv->consts);
    model_unload(&cv->model);
    return finish(0, 0);
}

/* The front end's messages, in the order protocol.h gives, until RUN ends or QUIT. */
static int protocol_main(void)
{
    chan_open(PROTO_FD);
    conversation cv = {.a = ARENA_INIT, .record = runner_env_record()};
    int r = send_hello(&cv);
    while (r == GO_ON) {
        proto_msg m;
        strbuf err = STRBUF_INIT;
        int got = chan_recv(&m, &cv.a, &err);
        if (got == 0) return 0;           /* the front end closed: nothing to do */
        if (got < 0) {
            char *t = arena_printf(&cv.a, "runner: bad message from the front end: %s", err.buf);
            return fail(t, 2);
        }
        strbuf_release(&err);
        switch (m.type) {
        case PROTO_LOAD: r = on_load(&cv, &m); break;
        case PROTO_INPUT: r = on_input(&cv, &m); break;
        case PROTO_CONSTANT: r = on_constant(&cv, &m); break;
        case PROTO_REFERENCE: {
            if (!cv.loaded) return fail("runner: REFERENCE before LOAD", 2);
            strbuf rerr = STRBUF_INIT;
            if (eref_add(&m, &rerr)) return fail(arena_printf(&cv.a, "runner: %s", rerr.buf), 2);
            strbuf_release(&rerr);
            break;
        }
        case PROTO_WEIGHT_CHECK: {
            if (!cv.loaded) return fail("runner: WEIGHT_CHECK before LOAD", 2);
            strbuf werr = STRBUF_INIT;
            if (pdiff_add(&m, &werr)) return fail(arena_printf(&cv.a, "runner: %s", werr.buf), 2);
            strbuf_release(&werr);
            break;
        }
        case PROTO_LAUNCHES:
            hooks_add_launches(m.u.launches.kernels, m.u.launches.before, m.u.launches.n);
            hooks_add_branches(m.u.launches.branch_kernels, m.u.launches.branch_names, m.u.launches.nbranches);
            break;
        case PROTO_CAPTURE:
            capture_request(m.u.capture.dir, m.u.capture.index, m.u.capture.kernel, m.u.capture.occurrence,
                            m.u.capture.constants);
            break;
        case PROTO_CONTROL:
            hooks_set_control(m.u.control.cmd, m.u.control.arg, m.u.control.name, m.u.control.break_flags);
            break;
        case PROTO_QUIT: return 0;
        case PROTO_RUN: eager_ref_reap(); return on_run(&cv);
        default:
            return fail(arena_printf(&cv.a, "runner: unexpected %s from the front end", proto_type_name(m.type)), 2);
        }
    }
    return r;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    signal(SIGPIPE, SIG_IGN);
    /* The front end's ^C: stop at the next kernel start (hooks.c); from the
     * first instruction on, so an early one cannot kill the runner. */
    struct sigaction pause_sa;
    memset(&pause_sa, 0, sizeof pause_sa);
    pause_sa.sa_handler = hooks_request_pause;
    pause_sa.sa_flags = SA_RESTART;
    sigemptyset(&pause_sa.sa_mask);
    sigaction(SIGUSR1, &pause_sa, NULL);
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("aotidbg-runner %s (protocol %d, built for torch %s)\n", AOTIDBG_VERSION, PROTO_VERSION,
               AOTIDBG_TORCH_VERSION);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--serve")) return agent_main(argc - 2, argv + 2, self_exe(), AOTIDBG_TORCH_VERSION);
    if (argc == 3 && !strcmp(argv[1], "--check-so")) return check_so(argv[2]);
    tabi_init();
    if (argc > 1 && !strcmp(argv[1], "--bench")) return bench_main(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "--eager-ref")) return eager_ref_main(argc - 2, argv + 2);
    if (argc > 1) {
        fprintf(stderr, "aotidbg-runner: unknown argument '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    if (fcntl(PROTO_FD, F_GETFD) < 0) {
        fprintf(stderr, "aotidbg-runner: fd %d is not open: the runner is started by aotidbg (see --help)\n",
                PROTO_FD);
        return 2;
    }
    eager_ref_fork();   /* --eager: the reference in a fork, libtorch started once (eager_main.h) */
    /* the model must not inherit or scribble on our socket through a child */
    fcntl(PROTO_FD, F_SETFD, FD_CLOEXEC);
    if (stap_start())
        fprintf(stderr, "aotidbg-runner: could not tap stderr; failed runs will say only \"see stderr\"\n");
    stap_on_fatal(chan_crash_flush);   /* a crash in a kernel: the launches queued before it go out */
    return protocol_main();
}
