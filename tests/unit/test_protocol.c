/* test_protocol.c — the runner protocol codec: every message round-trips,
 * every truncated prefix asks for more bytes, corrupt frames are refused with
 * a message, and the caps hold on both the encoding and the decoding side. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "protocol.h"
#include "protocol_table.h"

static int64_t shape3[3] = {4, 8, 2}, strides3[3] = {16, 2, 1};
static double vals[5] = {1.5, -2.25, 0.0, 1e300, -1e-310};
static const char *names2[2] = {"arg0_1", "arg1_1"};

/* One filled example of every message type. */
static int sample_msgs(proto_msg *out)
{
    int n = 0;
    proto_msg m;
    memset(&m, 0, sizeof m); m.type = PROTO_HELLO;
    m.u.hello.version = PROTO_VERSION; m.u.hello.runner_version = "0.1.0";
    m.u.hello.torch_version = "2.13.0"; m.u.hello.pid = 4242; m.u.hello.cuda_device_count = 2;
    m.u.hello.gpu_name = "NVIDIA H200"; m.u.hello.gpu_cc = "9.0";
    m.u.hello.gpu_peak_gbps = 4915.2;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_LOADED;
    m.u.loaded.n_inputs = 2; m.u.loaded.n_outputs = 1; m.u.loaded.n_names = 2;
    m.u.loaded.input_names = names2;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_KERNEL;
    m.u.kernel.index = 7; m.u.kernel.name = "triton_poi_fused_add_0"; m.u.kernel.phase = 1;
    m.u.kernel.status = KSTAT_NAN; m.u.kernel.t_us = 123.5; m.u.kernel.duration_us = 4.25;
    m.u.kernel.source = "interpose"; m.u.kernel.branch = "while_loop_body_graph_0/true_graph_1";
    m.u.kernel.device_us = 3.75;
    m.u.kernel.device_note = "CUDA_LAUNCH_BLOCKING=1: no stream hold, includes the launch latency";
    m.u.kernel.flags = PROTO_KERNEL_STATS_ONLY;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
    m.u.tensor.kernel_index = 3;
    m.u.tensor.t.name = "buf0"; m.u.tensor.t.phase = PHASE_AFTER; m.u.tensor.t.ndim = 3;
    m.u.tensor.t.shape = shape3; m.u.tensor.t.strides = strides3;
    m.u.tensor.t.dtype = "bfloat16"; m.u.tensor.t.device = "cuda:0"; m.u.tensor.t.has_stats = 1;
    m.u.tensor.t.stats = (tensor_stats){64, 60, 2, 1, 1, 5, 3, -1.5, 2.5, 0.125, NAN, 1, {0, 63, 17}};
    m.u.tensor.t.nvalues = 5; m.u.tensor.t.values = vals; m.u.tensor.t.values_complete = 0;
    out[n++] = m;
    m.u.tensor.t.stats.has_at = 0;   /* an older runner's frame: no positions */
    out[n++] = m;
    m.u.tensor.t.stats.has_at = 1;   /* where its elements sit (a launch's tensor table) */
    m.u.tensor.t.has_alloc = 1;
    m.u.tensor.t.alloc = (tensor_alloc){0x7f0000001040ULL, 0x7f0000001000ULL, 4096};
    out[n++] = m;
    m.u.tensor.t.has_stats = 0;      /* ... with no statistics */
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;   /* scalar output, no stats, no values */
    m.u.tensor.kernel_index = -1; m.u.tensor.t.name = "output0"; m.u.tensor.t.phase = PHASE_OUTPUT;
    m.u.tensor.t.dtype = "int64"; m.u.tensor.t.device = "cpu"; m.u.tensor.t.values_complete = 1;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_STOPPED;
    m.u.stopped.kernel_index = 2; m.u.stopped.phase = 0; m.u.stopped.reason = PROTO_STOP_BREAK_NAME;
    out[n++] = m;
    m.u.stopped.kernel_index = 5; m.u.stopped.reason = PROTO_STOP_DIVERGE;   /* the last reason */
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_ERROR;
    m.u.error.kernel_index = -1; m.u.error.text = "CUDA error: device-side assert triggered\nline 2";
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_DONE; m.u.done.status = 1;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_COMPARE;   /* an eager check */
    m.u.compare.kernel_index = 4;
    m.u.compare.c = (eager_check){"linear_1", "buf5", EAGER_DIFFERS, 64, 3, 17, -0.25, 0.5, INFINITY, NAN, 17,
                                  1e-5, 1.3e-6, "", "float64", 0.125, 0.03125};
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_ALIAS; m.u.alias.output = 2; m.u.alias.of = "input 0";
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_WEIGHT_DIFF;   /* a changed row */
    m.u.wdiff = (weight_diff){.fqn = "blocks.3.fc.weight", .verdict = WDIFF_DIFFERS, .dtype = "float32",
                              .pkg_dtype = "float32", .ndim = 2, .shape = {256, 64}, .pkg_ndim = 2,
                              .pkg_shape = {256, 64}, .lead = 256, .lead_differ = 1, .ranges = "17",
                              .differing = 64, .numel = 16384, .first = {1088, 0.125, -0.25}, .has_first = 1,
                              .max_abs = 0.375, .nonfinite = 0, .note = ""};
    out[n++] = m;
    m.u.wdiff = (weight_diff){.fqn = "blocks.0.bn.weight", .verdict = WDIFF_FOLDED, .dtype = "", .pkg_dtype = "",
                              .lead = -1, .lead_differ = -1, .ranges = "", .max_abs = -1, .note = "folded"};
    out[n++] = m;   /* no shapes, no first element */
    memset(&m, 0, sizeof m); m.type = PROTO_LOAD;
    m.u.load.so_path = "/tmp/x/model.wrapper.so"; m.u.load.cubin_dir = "/tmp/x";
    m.u.load.device = "cuda:1"; m.u.load.flags = PROTO_LOAD_BLOCKING; m.u.load.max_values = 1ULL << 40;
    m.u.load.output_values = 4096;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_INPUT;
    m.u.input.index = 1; m.u.input.spec.dtype = "float16"; m.u.input.spec.device = "cpu";
    m.u.input.spec.ndim = 2; m.u.input.spec.shape[0] = 0; m.u.input.spec.shape[1] = INT64_MAX;
    m.u.input.spec.fill = FILL_FILE; m.u.input.spec.seed = UINT64_MAX; m.u.input.spec.value = -0.5;
    m.u.input.raw_path = "/tmp/in1.raw";
    m.u.input.spec.file_format = INPUT_FILE_TORCH; m.u.input.spec.key = "ids";
    m.u.input.spec.low = -3; m.u.input.spec.high = INT64_MAX; m.u.input.spec.file_shown = "in1.pt";
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_CONTROL;
    m.u.control.cmd = PROTO_CMD_RUN_TO_NAME; m.u.control.arg = -1; m.u.control.name = "cpp_fused_mul_1";
    m.u.control.break_flags = 6;
    out[n++] = m;
    static int64_t cshape[2] = {4, 8}, cstrides[2] = {1, 4};   /* a transposed weight */
    memset(&m, 0, sizeof m); m.type = PROTO_CONSTANT;
    m.u.constant.fqn = "lin.weight"; m.u.constant.path = "/tmp/x/weight_0.storage"; m.u.constant.offset = 64;
    m.u.constant.dtype = ""; m.u.constant.ndim = 2; m.u.constant.shape = cshape; m.u.constant.strides = cstrides;
    m.u.constant.storage_offset = 3;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_REFERENCE;
    m.u.reference.kernel = "cpp_fused_add_relu_0"; m.u.reference.occurrence = 2; m.u.reference.node = "add_1";
    m.u.reference.path = "/tmp/ref/nodes/add_1.npy"; m.u.reference.offset = 128; m.u.reference.dtype = "float32";
    m.u.reference.ndim = 2; m.u.reference.shape = cshape; m.u.reference.atol = -1; m.u.reference.rtol = 0.5;
    m.u.reference.scale = 3.25;
    m.u.reference.tensor = "buf3"; m.u.reference.path64 = "/tmp/ref/record/buf3.f64.npy";
    m.u.reference.offset64 = 128;
    out[n++] = m;
    static const char *lk[3] = {"cpp_fused_embedding_0", "aoti_torch_cpu_addmm_out", ""};
    static const uint32_t lb[3] = {2, 1, 0};
    static const char *bk[2] = {"triton_poi_fused_sin_1", "triton_poi_fused_lt_0"};
    static const char *bn[2] = {"while_loop_body_graph_0", "while_loop_cond_graph_0"};
    memset(&m, 0, sizeof m); m.type = PROTO_LAUNCHES;
    m.u.launches.n = 3; m.u.launches.kernels = lk; m.u.launches.before = lb;
    m.u.launches.nbranches = 2; m.u.launches.branch_kernels = bk; m.u.launches.branch_names = bn;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_CAPTURE;
    m.u.capture.dir = "/tmp/repro"; m.u.capture.index = -1; m.u.capture.kernel = "cpp_fused_sin_0";
    m.u.capture.occurrence = 2; m.u.capture.constants = "fc1_weight\tfc1.weight\n";
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_WEIGHT_CHECK;
    m.u.wcheck.archive = "/tmp/p.ep.pt2"; m.u.wcheck.fqn = "lin.weight"; m.u.wcheck.record = "data/weights/weight_0";
    m.u.wcheck.dtype = "bfloat16"; m.u.wcheck.ndim = 2; m.u.wcheck.shape = cshape; m.u.wcheck.strides = cstrides;
    m.u.wcheck.storage_offset = 5;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_RUN; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_QUIT; out[n++] = m;
    /* the remote agent's (protocol 2); bytes fields may hold NUL */
    static const char bin[] = {'P', 'K', 0, 3, 0, '\n'};
    memset(&m, 0, sizeof m); m.type = PROTO_FREAD;
    m.u.fread.path = "/data/m.pt2"; m.u.fread.offset = UINT64_MAX - 1; m.u.fread.len = PROTO_MAX_DATA;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_SHA256; m.u.sha256.path = "/data/m.pt2"; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_FACTS; m.u.facts.path = ""; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_EXTRACT;
    m.u.extract.path = "/data/m.pt2"; m.u.extract.prefixes = "m/data/aotinductor/model/\nm/data/weights/";
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_PUT;
    m.u.put.name = "in0.raw"; m.u.put.offset = 4096; m.u.put.data = bin; m.u.put.ndata = sizeof bin; m.u.put.last = 1;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_SPAWN; m.u.spawn.flags = PROTO_SPAWN_DETERMINISTIC; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_SIGNAL; m.u.signal.what = PROTO_SIGNAL_KILL; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_PING; out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_REPLY;
    m.u.reply.request = PROTO_FREAD; m.u.reply.ok = 1; m.u.reply.value = 1234; m.u.reply.text = "";
    m.u.reply.data = bin; m.u.reply.ndata = sizeof bin;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_LOG;
    m.u.log.stream = 1; m.u.log.data = "Error: boom\n"; m.u.log.ndata = 12;
    out[n++] = m;
    memset(&m, 0, sizeof m); m.type = PROTO_EXIT; m.u.exit.how = 1; m.u.exit.code = 11; out[n++] = m;
    static const char *keep[] = {"linear", "getitem_1"};
    memset(&m, 0, sizeof m); m.type = PROTO_EAGER_RUN;
    m.u.eager_run.program = "/m.ep.pt2"; m.u.eager_run.device = "cuda:0"; m.u.eager_run.float64 = 1;
    m.u.eager_run.out_dir = "/s/.aotidbg-eager/k"; m.u.eager_run.nkeep = 2; m.u.eager_run.keep = keep;
    m.u.eager_run.ninputs = 1; m.u.eager_run.inputs = keep;
    out[n++] = m;
    static const char *tensors[] = {"x", ""};
    static int64_t ints[] = {INT64_MAX, -1};
    static double floats[] = {1e-5, -0.0};
    static proto_eager_arg args[] = {
        {"self", EAGER_ARG_OPT_TENSORS, 2, 0, 0, tensors, NULL, NULL, ""},
        {"dim", EAGER_ARG_INTS, 0, 2, 0, NULL, ints, NULL, ""},
        {"eps", EAGER_ARG_FLOATS, 0, 0, 2, NULL, NULL, floats, ""},
        {"approximate", EAGER_ARG_STRING, 0, 0, 0, NULL, NULL, NULL, "tanh"},
    };
    static proto_eager_out outs[] = {{"getitem", 0, -1}, {"getitem_1", 1, 3}};
    memset(&m, 0, sizeof m); m.type = PROTO_EAGER_NODE;
    m.u.eager_node.name = "native_layer_norm"; m.u.eager_node.target = "torch.ops.aten.native_layer_norm.default";
    m.u.eager_node.nargs = 4; m.u.eager_node.args = args; m.u.eager_node.nouts = 2; m.u.eager_node.outs = outs;
    out[n++] = m;
    return n;
}

static int same_f64(double a, double b) { return memcmp(&a, &b, 8) == 0; }

static int same_tensor(const tensor_rec *a, const tensor_rec *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->dtype, b->dtype) || strcmp(a->device, b->device)) return 0;
    if (a->phase != b->phase || a->ndim != b->ndim || a->has_stats != b->has_stats) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return 0;
    if (a->has_stats) {
        const tensor_stats *x = &a->stats, *y = &b->stats;
        if (x->numel != y->numel || x->finite != y->finite || x->nan != y->nan || x->posinf != y->posinf ||
            x->neginf != y->neginf || x->zeros != y->zeros || x->subnormal != y->subnormal)
            return 0;
        if (!same_f64(x->min, y->min) || !same_f64(x->max, y->max) || !same_f64(x->mean, y->mean) ||
            !same_f64(x->std, y->std))
            return 0;
        if (x->has_at != y->has_at ||
            (x->has_at && (x->at.min != y->at.min || x->at.max != y->at.max || x->at.nonfinite != y->at.nonfinite)))
            return 0;
    }
    if (a->nvalues != b->nvalues || a->values_complete != b->values_complete) return 0;
    if (a->has_alloc != b->has_alloc ||
        (a->has_alloc && (a->alloc.data != b->alloc.data || a->alloc.base != b->alloc.base ||
                          a->alloc.bytes != b->alloc.bytes)))
        return 0;
    for (size_t i = 0; i < a->nvalues; i++)
        if (!same_f64(a->values[i], b->values[i])) return 0;
    return 1;
}

static int same_msg(const proto_msg *a, const proto_msg *b)
{
    if (a->type != b->type) return 0;
    switch (a->type) {
    case PROTO_HELLO:
        return a->u.hello.version == b->u.hello.version && a->u.hello.pid == b->u.hello.pid &&
               a->u.hello.cuda_device_count == b->u.hello.cuda_device_count &&
               !strcmp(a->u.hello.runner_version, b->u.hello.runner_version) &&
               !strcmp(a->u.hello.torch_version, b->u.hello.torch_version) &&
               !strcmp(a->u.hello.gpu_name, b->u.hello.gpu_name) && !strcmp(a->u.hello.gpu_cc, b->u.hello.gpu_cc) &&
               a->u.hello.gpu_peak_gbps == b->u.hello.gpu_peak_gbps;
    case PROTO_LOADED:
        if (a->u.loaded.n_inputs != b->u.loaded.n_inputs || a->u.loaded.n_outputs != b->u.loaded.n_outputs ||
            a->u.loaded.n_names != b->u.loaded.n_names)
            return 0;
        for (uint32_t i = 0; i < a->u.loaded.n_names; i++)
            if (strcmp(a->u.loaded.input_names[i], b->u.loaded.input_names[i])) return 0;
        return 1;
    case PROTO_KERNEL:
        return a->u.kernel.index == b->u.kernel.index && !strcmp(a->u.kernel.name, b->u.kernel.name) &&
               a->u.kernel.phase == b->u.kernel.phase && a->u.kernel.status == b->u.kernel.status &&
               same_f64(a->u.kernel.t_us, b->u.kernel.t_us) &&
               same_f64(a->u.kernel.duration_us, b->u.kernel.duration_us) &&
               !strcmp(a->u.kernel.source ? a->u.kernel.source : "", b->u.kernel.source ? b->u.kernel.source : "") &&
               !strcmp(a->u.kernel.branch ? a->u.kernel.branch : "", b->u.kernel.branch ? b->u.kernel.branch : "") &&
               same_f64(a->u.kernel.device_us, b->u.kernel.device_us) &&
               !strcmp(a->u.kernel.device_note ? a->u.kernel.device_note : "",
                       b->u.kernel.device_note ? b->u.kernel.device_note : "") &&
               a->u.kernel.flags == b->u.kernel.flags;
    case PROTO_TENSOR:
        return a->u.tensor.kernel_index == b->u.tensor.kernel_index && same_tensor(&a->u.tensor.t, &b->u.tensor.t);
    case PROTO_STOPPED:
        return a->u.stopped.kernel_index == b->u.stopped.kernel_index && a->u.stopped.phase == b->u.stopped.phase &&
               a->u.stopped.reason == b->u.stopped.reason;
    case PROTO_ERROR:
        return a->u.error.kernel_index == b->u.error.kernel_index && !strcmp(a->u.error.text, b->u.error.text);
    case PROTO_DONE:
        return a->u.done.status == b->u.done.status;
    case PROTO_COMPARE: {
        const eager_check *x = &a->u.compare.c, *y = &b->u.compare.c;
        return a->u.compare.kernel_index == b->u.compare.kernel_index && !strcmp(x->node, y->node) &&
               !strcmp(x->tensor, y->tensor) && x->verdict == y->verdict && x->compared == y->compared &&
               x->differing == y->differing && x->first == y->first && same_f64(x->got, y->got) &&
               same_f64(x->want, y->want) && same_f64(x->max_abs, y->max_abs) && same_f64(x->max_rel, y->max_rel) &&
               x->max_at == y->max_at && same_f64(x->atol, y->atol) && same_f64(x->rtol, y->rtol) &&
               !strcmp(x->note, y->note) && !strcmp(x->yardstick ? x->yardstick : "", y->yardstick ? y->yardstick : "") &&
               same_f64(x->err64, y->err64) && same_f64(x->eager_err64, y->eager_err64);
    }
    case PROTO_REFERENCE: {
        const __typeof__(a->u.reference) *x = &a->u.reference, *y = &b->u.reference;
        if (strcmp(x->kernel, y->kernel) || x->occurrence != y->occurrence || strcmp(x->node, y->node) ||
            strcmp(x->path, y->path) || x->offset != y->offset || strcmp(x->dtype, y->dtype) || x->ndim != y->ndim ||
            !same_f64(x->atol, y->atol) || !same_f64(x->rtol, y->rtol) || !same_f64(x->scale, y->scale) ||
            strcmp(x->tensor ? x->tensor : "", y->tensor ? y->tensor : "") ||
            strcmp(x->path64 ? x->path64 : "", y->path64 ? y->path64 : "") || x->offset64 != y->offset64)
            return 0;
        for (int i = 0; i < x->ndim; i++)
            if (x->shape[i] != y->shape[i]) return 0;
        return 1;
    }
    case PROTO_EAGER_RUN: {
        const __typeof__(a->u.eager_run) *x = &a->u.eager_run, *y = &b->u.eager_run;
        if (strcmp(x->program, y->program) || strcmp(x->device, y->device) || x->float64 != y->float64 ||
            strcmp(x->out_dir, y->out_dir) || x->nkeep != y->nkeep || x->ninputs != y->ninputs)
            return 0;
        for (uint32_t i = 0; i < x->ninputs; i++)
            if (strcmp(x->inputs[i], y->inputs[i])) return 0;
        for (uint32_t i = 0; i < x->nkeep; i++)
            if (strcmp(x->keep[i], y->keep[i])) return 0;
        return 1;
    }
    case PROTO_EAGER_NODE: {
        const __typeof__(a->u.eager_node) *x = &a->u.eager_node, *y = &b->u.eager_node;
        if (strcmp(x->name, y->name) || strcmp(x->target, y->target) || x->nargs != y->nargs || x->nouts != y->nouts)
            return 0;
        for (uint32_t i = 0; i < x->nargs; i++) {
            const proto_eager_arg *p = &x->args[i], *q = &y->args[i];
            if (strcmp(p->name, q->name) || p->kind != q->kind || p->nnames != q->nnames || p->nints != q->nints ||
                p->nfloats != q->nfloats || strcmp(p->text, q->text))
                return 0;
            for (uint32_t j = 0; j < p->nnames; j++)
                if (strcmp(p->names[j], q->names[j])) return 0;
            for (uint32_t j = 0; j < p->nints; j++)
                if (p->ints[j] != q->ints[j]) return 0;
            for (uint32_t j = 0; j < p->nfloats; j++)
                if (!same_f64(p->floats[j], q->floats[j])) return 0;
        }
        for (uint32_t i = 0; i < x->nouts; i++)
            if (strcmp(x->outs[i].name, y->outs[i].name) || x->outs[i].ret != y->outs[i].ret ||
                x->outs[i].elem != y->outs[i].elem)
                return 0;
        return 1;
    }
    case PROTO_ALIAS:
        return a->u.alias.output == b->u.alias.output && !strcmp(a->u.alias.of, b->u.alias.of);
    case PROTO_WEIGHT_DIFF: {
        const weight_diff *x = &a->u.wdiff, *y = &b->u.wdiff;
        if (strcmp(x->fqn, y->fqn) || x->verdict != y->verdict || strcmp(x->dtype, y->dtype) ||
            strcmp(x->pkg_dtype, y->pkg_dtype) || x->ndim != y->ndim || x->pkg_ndim != y->pkg_ndim ||
            x->lead != y->lead || x->lead_differ != y->lead_differ || strcmp(x->ranges, y->ranges) ||
            x->differing != y->differing || x->numel != y->numel || x->has_first != y->has_first ||
            !same_f64(x->max_abs, y->max_abs) || x->nonfinite != y->nonfinite || strcmp(x->note, y->note))
            return 0;
        if (x->has_first && (x->first.index != y->first.index || !same_f64(x->first.value, y->first.value) ||
                             !same_f64(x->first.pkg_value, y->first.pkg_value)))
            return 0;
        for (int i = 0; i < x->ndim; i++)
            if (x->shape[i] != y->shape[i]) return 0;
        for (int i = 0; i < x->pkg_ndim; i++)
            if (x->pkg_shape[i] != y->pkg_shape[i]) return 0;
        return 1;
    }
    case PROTO_WEIGHT_CHECK: {
        const __typeof__(a->u.wcheck) *x = &a->u.wcheck, *y = &b->u.wcheck;
        if (strcmp(x->archive, y->archive) || strcmp(x->fqn, y->fqn) || strcmp(x->record, y->record) ||
            strcmp(x->dtype, y->dtype) || x->ndim != y->ndim || x->storage_offset != y->storage_offset)
            return 0;
        for (int i = 0; i < x->ndim; i++)
            if (x->shape[i] != y->shape[i] || x->strides[i] != y->strides[i]) return 0;
        return 1;
    }
    case PROTO_LOAD:
        return !strcmp(a->u.load.so_path, b->u.load.so_path) && !strcmp(a->u.load.cubin_dir, b->u.load.cubin_dir) &&
               !strcmp(a->u.load.device, b->u.load.device) && a->u.load.flags == b->u.load.flags &&
               a->u.load.max_values == b->u.load.max_values && a->u.load.output_values == b->u.load.output_values;
    case PROTO_INPUT: {
        const input_spec *x = &a->u.input.spec, *y = &b->u.input.spec;
        if (a->u.input.index != b->u.input.index || strcmp(x->dtype, y->dtype) || strcmp(x->device, y->device) ||
            x->ndim != y->ndim || x->fill != y->fill || x->seed != y->seed || !same_f64(x->value, y->value) ||
            strcmp(a->u.input.raw_path, b->u.input.raw_path) || x->file_format != y->file_format ||
            strcmp(x->key ? x->key : "", y->key ? y->key : "") || x->low != y->low || x->high != y->high ||
            strcmp(x->file_shown ? x->file_shown : "", y->file_shown ? y->file_shown : ""))
            return 0;
        for (int i = 0; i < x->ndim; i++)
            if (x->shape[i] != y->shape[i]) return 0;
        return 1;
    }
    case PROTO_CONTROL:
        return a->u.control.cmd == b->u.control.cmd && a->u.control.arg == b->u.control.arg &&
               !strcmp(a->u.control.name, b->u.control.name) &&
               a->u.control.break_flags == b->u.control.break_flags;
    case PROTO_CONSTANT: {
        const __typeof__(a->u.constant) *x = &a->u.constant, *y = &b->u.constant;
        if (strcmp(x->fqn, y->fqn) || strcmp(x->path, y->path) || strcmp(x->dtype, y->dtype) ||
            x->offset != y->offset || x->ndim != y->ndim || x->storage_offset != y->storage_offset)
            return 0;
        for (int i = 0; i < x->ndim; i++)
            if (x->shape[i] != y->shape[i] || x->strides[i] != y->strides[i]) return 0;
        return 1;
    }
    case PROTO_LAUNCHES:
        if (a->u.launches.n != b->u.launches.n) return 0;
        for (uint32_t i = 0; i < a->u.launches.n; i++)
            if (strcmp(a->u.launches.kernels[i], b->u.launches.kernels[i]) ||
                a->u.launches.before[i] != b->u.launches.before[i]) return 0;
        if (a->u.launches.nbranches != b->u.launches.nbranches) return 0;
        for (uint32_t i = 0; i < a->u.launches.nbranches; i++)
            if (strcmp(a->u.launches.branch_kernels[i], b->u.launches.branch_kernels[i]) ||
                strcmp(a->u.launches.branch_names[i], b->u.launches.branch_names[i])) return 0;
        return 1;
    case PROTO_CAPTURE:
        return !strcmp(a->u.capture.dir, b->u.capture.dir) && a->u.capture.index == b->u.capture.index &&
               !strcmp(a->u.capture.kernel, b->u.capture.kernel) &&
               a->u.capture.occurrence == b->u.capture.occurrence &&
               !strcmp(a->u.capture.constants, b->u.capture.constants);
    case PROTO_RUN:
    case PROTO_QUIT:
    case PROTO_PING:
        return 1;
    case PROTO_FREAD:
        return !strcmp(a->u.fread.path, b->u.fread.path) && a->u.fread.offset == b->u.fread.offset &&
               a->u.fread.len == b->u.fread.len;
    case PROTO_SHA256:
    case PROTO_FACTS:
        return !strcmp(a->u.sha256.path, b->u.sha256.path);
    case PROTO_EXTRACT:
        return !strcmp(a->u.extract.path, b->u.extract.path) && !strcmp(a->u.extract.prefixes, b->u.extract.prefixes);
    case PROTO_PUT:
        return !strcmp(a->u.put.name, b->u.put.name) && a->u.put.offset == b->u.put.offset &&
               a->u.put.ndata == b->u.put.ndata && !memcmp(a->u.put.data, b->u.put.data, a->u.put.ndata) &&
               a->u.put.last == b->u.put.last;
    case PROTO_SPAWN:
        return a->u.spawn.flags == b->u.spawn.flags;
    case PROTO_SIGNAL:
        return a->u.signal.what == b->u.signal.what;
    case PROTO_REPLY:
        return a->u.reply.request == b->u.reply.request && a->u.reply.ok == b->u.reply.ok &&
               a->u.reply.value == b->u.reply.value && !strcmp(a->u.reply.text, b->u.reply.text) &&
               a->u.reply.ndata == b->u.reply.ndata && !memcmp(a->u.reply.data, b->u.reply.data, a->u.reply.ndata);
    case PROTO_LOG:
        return a->u.log.stream == b->u.log.stream && a->u.log.ndata == b->u.log.ndata &&
               !memcmp(a->u.log.data, b->u.log.data, a->u.log.ndata);
    case PROTO_EXIT:
        return a->u.exit.how == b->u.exit.how && a->u.exit.code == b->u.exit.code;
    }
    return 0;
}

static void test_round_trip_every_message(void)
{
    proto_msg msgs[64];
    int n = sample_msgs(msgs);
    CHECK(n == 39);
    strbuf all = STRBUF_INIT, err = STRBUF_INIT;
    for (int i = 0; i < n; i++) CHECK(proto_encode(&all, &msgs[i], &err) == 0);
    CHECK(err.len == 0);
    /* decode the concatenated stream back, message by message */
    arena a = ARENA_INIT;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        proto_msg d;
        long used = proto_decode((unsigned char *)all.buf + off, all.len - off, &d, &a, &err);
        CHECK(used > 0);
        if (used <= 0) { fprintf(stderr, "msg %d: %s\n", i, err.buf); break; }
        if (!same_msg(&msgs[i], &d)) fprintf(stderr, "message %d (%s) differs\n", i, proto_type_name(msgs[i].type));
        CHECK(same_msg(&msgs[i], &d));
        off += (size_t)used;
    }
    CHECK(off == all.len);
    arena_release(&a);
    strbuf_release(&all);
    strbuf_release(&err);
}

static void test_null_strings_and_input_file(void)
{
    proto_msg m, d;
    memset(&m, 0, sizeof m);
    m.type = PROTO_LOAD;             /* every string NULL */
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK_STR(d.u.load.so_path, "");
    CHECK_STR(d.u.load.cubin_dir, "");
    memset(&m, 0, sizeof m);
    m.type = PROTO_INPUT; m.u.input.raw_path = "/x.raw";
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK_STR(d.u.input.spec.file, "/x.raw");
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

static void test_every_truncation_wants_more(void)
{
    proto_msg msgs[64];
    int n = sample_msgs(msgs);
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    for (int i = 0; i < n; i++) {
        strbuf_reset(&b);
        CHECK(proto_encode(&b, &msgs[i], &err) == 0);
        for (size_t cut = 0; cut < b.len; cut++) {
            proto_msg d;
            long r = proto_decode((unsigned char *)b.buf, cut, &d, &a, &err);
            if (r != 0) fprintf(stderr, "%s cut at %zu gave %ld\n", proto_type_name(msgs[i].type), cut, r);
            CHECK(r == 0);
        }
    }
    CHECK(err.len == 0);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

/* Shrinking or growing the frame length (and padding the buffer so the frame
 * is "complete") must make every message malformed: fields must fill a frame
 * exactly. */
static void test_corrupted_lengths_refused(void)
{
    proto_msg msgs[64];
    int n = sample_msgs(msgs);
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    for (int i = 0; i < n; i++) {
        strbuf_reset(&b);
        CHECK(proto_encode(&b, &msgs[i], &err) == 0);
        uint32_t len = (uint32_t)(b.len - 4);
        strbuf_add(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);   /* slack for longer lengths */
        int deltas[] = {-3, -1, 1, 2, 9};
        for (size_t k = 0; k < sizeof deltas / sizeof *deltas; k++) {
            long nl = (long)len + deltas[k];
            if (nl < 1) continue;
            unsigned char *p = (unsigned char *)b.buf;
            p[0] = (unsigned char)nl; p[1] = (unsigned char)(nl >> 8);
            p[2] = (unsigned char)(nl >> 16); p[3] = (unsigned char)(nl >> 24);
            proto_msg d;
            strbuf_reset(&err);
            long r = proto_decode(p, b.len, &d, &a, &err);
            if (r != -1) fprintf(stderr, "%s length %+d gave %ld\n", proto_type_name(msgs[i].type), deltas[k], r);
            CHECK(r == -1);
            CHECK_CONTAINS(err.buf, "protocol:");
        }
    }
    /* zero and oversized lengths are refused from the header alone */
    unsigned char zero[5] = {0, 0, 0, 0, PROTO_RUN};
    proto_msg d;
    strbuf_reset(&err);
    CHECK(proto_decode(zero, 5, &d, &a, &err) == -1);
    unsigned char huge[4] = {0xff, 0xff, 0xff, 0x7f};
    strbuf_reset(&err);
    CHECK(proto_decode(huge, 4, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "limit");
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

static void patch_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void test_corrupted_fields_refused(void)
{
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    proto_msg m, d;
    /* unknown type */
    unsigned char unk[5] = {1, 0, 0, 0, 99};
    CHECK(proto_decode(unk, 5, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "unknown message type");
    /* string length larger than the frame: ERROR is i64 then str at offset 13 */
    memset(&m, 0, sizeof m); m.type = PROTO_ERROR; m.u.error.text = "boom";
    CHECK(proto_encode(&b, &m, &err) == 0);
    patch_u32((unsigned char *)b.buf + 13, 1000);
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "error text runs past the end");
    CHECK_CONTAINS(err.buf, "ERROR frame");
    patch_u32((unsigned char *)b.buf + 13, PROTO_MAX_STR + 1);
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "limit");
    /* NUL inside a string */
    patch_u32((unsigned char *)b.buf + 13, 4);
    b.buf[18] = 0;
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "NUL");
    /* out-of-range enum: STOPPED reason */
    memset(&m, 0, sizeof m); m.type = PROTO_STOPPED; m.u.stopped.reason = PROTO_STOP_START;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    b.buf[b.len - 1] = 17;
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "stop reason 17 is out of range");
    /* too many dims in an INPUT shape: u32 index, str dtype(""), str device(""), then the count at 5+4+4+4 */
    memset(&m, 0, sizeof m); m.type = PROTO_INPUT;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    patch_u32((unsigned char *)b.buf + 17, TENSOR_MAX_DIMS + 1);
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    CHECK_CONTAINS(err.buf, "dims");
    /* a statistics position past the tensor: the three i64 positions end the TENSOR frame */
    {
        int64_t sh[1] = {4}, st[1] = {1};
        memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
        m.u.tensor.t.name = "idx"; m.u.tensor.t.dtype = "int64"; m.u.tensor.t.device = "cpu";
        m.u.tensor.t.ndim = 1; m.u.tensor.t.shape = sh; m.u.tensor.t.strides = st; m.u.tensor.t.has_stats = 1;
        m.u.tensor.t.stats = (tensor_stats){.numel = 4, .finite = 4, .has_at = 1, .at.min = 0, .at.max = 3,
                                            .at.nonfinite = -1};
        strbuf_reset(&b);
        CHECK(proto_encode(&b, &m, &err) == 0);
        b.buf[b.len - 16] = 4;   /* max_at = 4 of 4 elements */
        strbuf_reset(&err);
        CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
        CHECK_CONTAINS(err.buf, "stats position 4 is outside");
        b.buf[b.len - 16] = 3;
        b.buf[b.len - 8] = (char)0xfe;   /* nonfinite_at = -2 */
        strbuf_reset(&err);
        CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
        CHECK_CONTAINS(err.buf, "stats position -2");
    }
    /* LOADED claiming a million names in a tiny frame */
    memset(&m, 0, sizeof m); m.type = PROTO_LOADED;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    patch_u32((unsigned char *)b.buf + 13, 1000000);
    strbuf_reset(&err);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == -1);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

static void test_encode_caps(void)
{
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    proto_msg m;
    /* a string over PROTO_MAX_STR */
    char *big = malloc(PROTO_MAX_STR + 2);
    memset(big, 'x', PROTO_MAX_STR + 1);
    big[PROTO_MAX_STR + 1] = 0;
    memset(&m, 0, sizeof m); m.type = PROTO_ERROR; m.u.error.text = big;
    CHECK(proto_encode(&b, &m, &err) == -1);
    CHECK(b.len == 0);                       /* nothing half-written */
    CHECK_CONTAINS(err.buf, "error text");
    /* exactly at the cap is fine */
    big[PROTO_MAX_STR] = 0;
    strbuf_reset(&err);
    CHECK(proto_encode(&b, &m, &err) == 0);
    free(big);
    /* too many dims */
    int64_t dims[TENSOR_MAX_DIMS + 1] = {0};
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
    m.u.tensor.t.ndim = TENSOR_MAX_DIMS + 1; m.u.tensor.t.shape = dims; m.u.tensor.t.strides = dims;
    size_t before = b.len;
    strbuf_reset(&err);
    CHECK(proto_encode(&b, &m, &err) == -1);
    CHECK(b.len == before);
    /* too many values */
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
    static double one;
    m.u.tensor.t.nvalues = (size_t)PROTO_MAX_VALUES + 1; m.u.tensor.t.values = &one;
    strbuf_reset(&err);
    CHECK(proto_encode(&b, &m, &err) == -1);
    CHECK_CONTAINS(err.buf, "values");
    /* unknown type */
    memset(&m, 0, sizeof m); m.type = (proto_type)77;
    strbuf_reset(&err);
    CHECK(proto_encode(&b, &m, &err) == -1);
    CHECK(b.len == before);
    strbuf_release(&b);
    strbuf_release(&err);
}

/* The largest legal TENSOR (PROTO_MAX_VALUES values) encodes and decodes. */
static void test_max_values_round_trip(void)
{
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    double *v = malloc(sizeof(double) * PROTO_MAX_VALUES);
    for (uint32_t i = 0; i < PROTO_MAX_VALUES; i++) v[i] = i * 0.5;
    proto_msg m, d;
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
    m.u.tensor.t.nvalues = PROTO_MAX_VALUES; m.u.tensor.t.values = v;
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK(d.u.tensor.t.nvalues == PROTO_MAX_VALUES);
    CHECK(d.u.tensor.t.values[PROTO_MAX_VALUES - 1] == (PROTO_MAX_VALUES - 1) * 0.5);
    free(v);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

/* Random bytes and random single-byte flips never crash, never claim more
 * bytes than given, and always either decode or explain. */
static void test_random_garbage(void)
{
    proto_msg msgs[64];
    int n = sample_msgs(msgs);
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    uint64_t x = 88172645463325252ULL;
    for (int round = 0; round < 20000; round++) {
        strbuf_reset(&b);
        CHECK(proto_encode(&b, &msgs[round % n], &err) == 0);
        for (int k = 0; k < 3; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            size_t at = (size_t)(x % b.len);
            b.buf[at] = (char)(x >> 32);
        }
        proto_msg d;
        strbuf_reset(&err);
        long r = proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err);
        CHECK(r == -1 || r == 0 || (r > 0 && (size_t)r <= b.len));
        if (r == -1) CHECK(err.len > 0);
        if (round % 1000 == 999) arena_release(&a);
    }
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

/* KERNEL's source, branch, device_us, device_note and flags were appended
 * later: a frame from an older runner ends before them and they decode as "",
 * "", -1, "" and 0; NULL encodes as "". (Each cut below also drops the flags'
 * 4 bytes.) */
static void test_kernel_source_optional(void)
{
    proto_msg m, d;
    memset(&m, 0, sizeof m);
    m.type = PROTO_KERNEL;
    m.u.kernel.index = 2; m.u.kernel.name = "triton_poi_fused_0"; m.u.kernel.duration_us = -1;
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK_STR(d.u.kernel.source, "");
    CHECK_STR(d.u.kernel.branch, "");
    CHECK(d.u.kernel.device_us == 0);
    /* drop the empty source and branch (4-byte lengths), device_us and the empty device_note,
     * and shorten the frame */
    size_t len = b.len - 20 - 4;
    unsigned char *p = (unsigned char *)b.buf;
    uint32_t fl = (uint32_t)(len - 4);
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK_STR(d.u.kernel.source, "");
    CHECK_STR(d.u.kernel.name, "triton_poi_fused_0");
    CHECK(d.u.kernel.device_us == -1);
    m.u.kernel.source = "printer";
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK_STR(d.u.kernel.source, "printer");
    CHECK_STR(d.u.kernel.branch, "");
    /* a frame with a source but from before the branch */
    m.u.kernel.branch = "true_graph_0";
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK_STR(d.u.kernel.branch, "true_graph_0");
    len = b.len - 4 - 8 - 4 - strlen("true_graph_0") - 4;
    fl = (uint32_t)(len - 4);
    p = (unsigned char *)b.buf;
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK_STR(d.u.kernel.source, "printer");
    CHECK_STR(d.u.kernel.branch, "");
    CHECK(d.u.kernel.device_us == -1);
    /* a frame with a branch but from before device_us */
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    len = b.len - 4 - 8 - 4;
    fl = (uint32_t)(len - 4);
    p = (unsigned char *)b.buf;
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK_STR(d.u.kernel.branch, "true_graph_0");
    CHECK(d.u.kernel.device_us == -1);
    CHECK_STR(d.u.kernel.device_note, "");
    /* a frame with device_us but from before device_note */
    m.u.kernel.device_us = 7.5;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    len = b.len - 4 - 4;
    fl = (uint32_t)(len - 4);
    p = (unsigned char *)b.buf;
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK(d.u.kernel.device_us == 7.5);
    CHECK_STR(d.u.kernel.device_note, "");
    /* a frame with device_note but from before the flags; then one with them */
    m.u.kernel.flags = PROTO_KERNEL_STATS_ONLY;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK(d.u.kernel.flags == PROTO_KERNEL_STATS_ONLY);
    len = b.len - 4;
    fl = (uint32_t)(len - 4);
    p = (unsigned char *)b.buf;
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK(d.u.kernel.flags == 0 && d.u.kernel.device_us == 7.5);
    CHECK(err.len == 0);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

/* TENSOR's alloc (data, base, bytes) was appended after the positions: a
 * tensor without it encodes to the same bytes as before it existed, one with
 * it is 24 bytes longer, and it follows the positions when there are stats. */
static void test_tensor_alloc_appended(void)
{
    int64_t sh[2] = {64, 16}, st[2] = {16, 1};
    proto_msg m, d;
    memset(&m, 0, sizeof m); m.type = PROTO_TENSOR;
    m.u.tensor.kernel_index = 1; m.u.tensor.t.phase = PHASE_BEFORE;
    m.u.tensor.t.name = "buf4"; m.u.tensor.t.dtype = "float32"; m.u.tensor.t.device = "cuda:0";
    m.u.tensor.t.ndim = 2; m.u.tensor.t.shape = sh; m.u.tensor.t.strides = st;
    strbuf b = STRBUF_INIT, b2 = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    CHECK(proto_encode(&b, &m, &err) == 0);
    m.u.tensor.t.has_alloc = 1;
    m.u.tensor.t.alloc = (tensor_alloc){0x7f00a0000000ULL, 0x7f00a0000000ULL, 4096};
    CHECK(proto_encode(&b2, &m, &err) == 0);
    CHECK(b2.len == b.len + 24);
    CHECK(memcmp(b.buf + 4, b2.buf + 4, b.len - 4) == 0);   /* same fields, then the three u64 */
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK(d.u.tensor.t.has_alloc == 0);
    CHECK(proto_decode((unsigned char *)b2.buf, b2.len, &d, &a, &err) == (long)b2.len);
    CHECK(d.u.tensor.t.has_alloc == 1 && d.u.tensor.t.alloc.bytes == 4096 &&
          d.u.tensor.t.alloc.data == 0x7f00a0000000ULL);
    /* after the statistics positions */
    m.u.tensor.t.has_stats = 1;
    m.u.tensor.t.stats = (tensor_stats){.numel = 1024, .finite = 1024, .has_at = 1, .at = {3, 5, -1}};
    strbuf_reset(&b2);
    CHECK(proto_encode(&b2, &m, &err) == 0);
    CHECK(proto_decode((unsigned char *)b2.buf, b2.len, &d, &a, &err) == (long)b2.len);
    CHECK(d.u.tensor.t.has_alloc == 1 && d.u.tensor.t.stats.at.min == 3 && d.u.tensor.t.alloc.base == 0x7f00a0000000ULL);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&b2);
    strbuf_release(&err);
}

/* The table is the schema: every message in it has a sample above (so the round trip covers it),
 * every sample's type is in it, and every row can name itself in an error. */
static void check_rows(const proto_rows *t, const char *msg)
{
    for (int i = 0; i < t->n; i++) {
        const proto_field *f = &t->rows[i];
        if (!f->what || !*f->what) fprintf(stderr, "%s row %d has no name\n", msg, i);
        CHECK(f->what && *f->what);
        CHECK((f->kind != PF_STRUCT && f->kind != PF_LIST) || f->sub);
        CHECK(f->kind != PF_LIST || (f->max > 0 && f->min_item > 0));
        CHECK(f->kind != PF_U8 || f->max <= UINT8_MAX);
        if (f->sub) check_rows(f->sub, msg);
    }
}

/* LAUNCHES' branch rows were appended later: a frame from before them (its 4-byte count
 * gone) decodes with none, the launches the same. */
static void test_launches_branches_appended(void)
{
    const char *k[1] = {"cpp_fused_sin_0"}, *bk[1] = {"cpp_fused_sin_0"}, *bn[1] = {"while_loop_body_graph_0"};
    const uint32_t b4[1] = {2};
    proto_msg m = {.type = PROTO_LAUNCHES}, d;
    m.u.launches.n = 1; m.u.launches.kernels = k; m.u.launches.before = b4;
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    arena a = ARENA_INIT;
    CHECK(proto_encode(&b, &m, &err) == 0);
    size_t plain = b.len;
    m.u.launches.nbranches = 1; m.u.launches.branch_kernels = bk; m.u.launches.branch_names = bn;
    strbuf_reset(&b);
    CHECK(proto_encode(&b, &m, &err) == 0);
    CHECK(b.len == plain + 4 + strlen(bk[0]) + 4 + strlen(bn[0]));   /* plain has the count, 0 */
    CHECK(proto_decode((unsigned char *)b.buf, b.len, &d, &a, &err) == (long)b.len);
    CHECK(d.u.launches.nbranches == 1);
    CHECK_STR(d.u.launches.branch_names[0], "while_loop_body_graph_0");
    size_t len = plain - 4;   /* the frame before the rows existed: no count at all */
    strbuf_reset(&b);
    m.u.launches.nbranches = 0;
    CHECK(proto_encode(&b, &m, &err) == 0);
    unsigned char *p = (unsigned char *)b.buf;
    uint32_t fl = (uint32_t)(len - 4);
    p[0] = (unsigned char)fl; p[1] = (unsigned char)(fl >> 8); p[2] = (unsigned char)(fl >> 16); p[3] = 0;
    CHECK(proto_decode(p, len, &d, &a, &err) == (long)len);
    CHECK(d.u.launches.n == 1 && d.u.launches.before[0] == 2 && d.u.launches.nbranches == 0);
    CHECK(err.len == 0);
    arena_release(&a);
    strbuf_release(&b);
    strbuf_release(&err);
}

static void test_table_is_every_message(void)
{
    proto_msg msgs[64];
    int n = sample_msgs(msgs), in_table = 0;
    for (int t = 0; t < PROTO_TYPES; t++) {
        const proto_message *d = proto_message_of(t);
        if (!d) {
            CHECK_STR(proto_type_name((proto_type)t), "unknown");
            continue;
        }
        in_table++;
        CHECK_STR(proto_type_name((proto_type)t), d->name);
        check_rows(&d->fields, d->name);
        int sampled = 0;
        for (int i = 0; i < n; i++) sampled |= (int)msgs[i].type == t;
        if (!sampled) fprintf(stderr, "%s has no sample message\n", d->name);
        CHECK(sampled);
    }
    for (int i = 0; i < n; i++) CHECK(proto_message_of(msgs[i].type) != NULL);
    CHECK(in_table == 33);
    CHECK(proto_message_of(-1) == NULL && proto_message_of(PROTO_TYPES) == NULL);
}

static void test_type_names(void)
{
    CHECK_STR(proto_type_name(PROTO_HELLO), "HELLO");
    CHECK_STR(proto_type_name(PROTO_QUIT), "QUIT");
    CHECK_STR(proto_type_name((proto_type)99), "unknown");
}

/* The non-finite breaks: nan stops at NaN only; inf at +Inf or a -Inf beside
 * others, never at -Inf alone (a mask); nonfinite at any. */
static void test_nonfinite_breaks(void)
{
    CHECK(proto_nonfinite_breaks(NONFIN_NAN, BREAK_ON_NAN));
    CHECK(!proto_nonfinite_breaks(NONFIN_POSINF, BREAK_ON_NAN));
    CHECK(!proto_nonfinite_breaks(NONFIN_NEGINF, BREAK_ON_NAN));
    CHECK(proto_nonfinite_breaks(NONFIN_POSINF, BREAK_ON_INF));
    CHECK(!proto_nonfinite_breaks(NONFIN_NEGINF, BREAK_ON_INF));
    CHECK(proto_nonfinite_breaks(NONFIN_NEGINF | NONFIN_NAN, BREAK_ON_INF));
    CHECK(!proto_nonfinite_breaks(NONFIN_NAN, BREAK_ON_INF));
    CHECK(proto_nonfinite_breaks(NONFIN_NEGINF, BREAK_ON_NONFINITE));
    CHECK(!proto_nonfinite_breaks(0, BREAK_ON_NONFINITE | BREAK_ON_NAN | BREAK_ON_INF));
    CHECK(!proto_nonfinite_breaks(NONFIN_NAN, BREAK_ON_ERROR | BREAK_ON_DIVERGE));
}

int main(void)
{
    RUN(test_nonfinite_breaks);
    RUN(test_round_trip_every_message);
    RUN(test_null_strings_and_input_file);
    RUN(test_every_truncation_wants_more);
    RUN(test_corrupted_lengths_refused);
    RUN(test_corrupted_fields_refused);
    RUN(test_encode_caps);
    RUN(test_max_values_round_trip);
    RUN(test_random_garbage);
    RUN(test_kernel_source_optional);
    RUN(test_tensor_alloc_appended);
    RUN(test_launches_branches_appended);
    RUN(test_type_names);
    RUN(test_table_is_every_message);
    return CHECK_DONE();
}
