/* protocol_table.c — every message of the runner protocol, field by field, in
 * wire order (protocol_table.h says what a row means, README.md how to add a
 * message). The comment above each message says when it is sent and what its
 * fields mean; the rows are the schema. */
#include "protocol_table.h"
#include <stddef.h>

#define SZ(T, m) sizeof(((T *)0)->m)
#define ROWS(a) {a, (int)(sizeof a / sizeof a[0])}

/* A row of record T: F(kind, T, member, what, more designators). */
#define F(k, T, m, wh, ...) {.kind = PF_##k, .off = offsetof(T, m), .size = SZ(T, m), .what = wh, __VA_ARGS__}
/* The same for a message's own member ("kernel.index" is proto_msg's u.kernel.index). */
#define M(k, m, wh, ...) F(k, proto_msg, u.m, wh, __VA_ARGS__)
/* One column of a PFF_COLUMNS list: the member is the array, size its item's. */
#define COL(k, T, m, wh) {.kind = PF_##k, .off = offsetof(T, m), .size = sizeof(*((T *)0)->m), .what = wh}
#define CNT(T, m) .cnt = offsetof(T, m), .cnt_size = SZ(T, m)
#define MCNT(m) CNT(proto_msg, u.m)
#define MAX(v) .max = (v)
#define LATER .flags = PFF_LATER
#define SAME .flags = PFF_SAME

/* A list of strings: u32 count (at most PROTO_MAX_NAMES) + strs. */
#define STRS(T, m, n, list_what, item_what, rows)                                                              \
    {.kind = PF_LIST, .flags = PFF_COLUMNS, .off = offsetof(T, m), .size = sizeof(char *), .what = list_what, \
     CNT(T, n), .max = PROTO_MAX_NAMES, .min_item = 4, .sub = &rows}

/* ---- sub-tables ---------------------------------------------------------- */

/* tensor: str name, str dtype, str device, i64[] shape, i64[] strides (the same count), u8 has_stats,
 * then if has_stats the counts and moments; then f64[] values (a sample in row-major order),
 * u8 values_complete; then, if has_stats and the runner computed them (added later: a frame
 * that ends before them decodes with stats.has_at 0), the row-major flat indices of the min,
 * the max and the first non-finite element (-1 none); then, when the runner says where the
 * elements sit (LOAD flag ALLOC; added later: decodes with has_alloc 0), u64 data, base and
 * bytes (model.h tensor_alloc). A tensor with stats but no positions cannot carry them (the
 * runner always computes positions with stats). */
static const proto_field tensor_value_col[] = {COL(F64, tensor_rec, values, "values")};
static const proto_rows tensor_values = ROWS(tensor_value_col);
#define STAT(k, m) F(k, tensor_rec, stats.m, "stats", .flags = PFF_IF, .cond = offsetof(tensor_rec, has_stats))
#define STAT_AT(m, fl) \
    F(POS, tensor_rec, stats.at.m, "stats position", .flags = PFF_IF | (fl), .cond = offsetof(tensor_rec, has_stats), \
      .has = offsetof(tensor_rec, stats.has_at), .ref = offsetof(tensor_rec, stats.numel), .dflt = -1)
static const proto_field tensor_f[] = {
    F(STR, tensor_rec, name, "tensor name"),
    F(STR, tensor_rec, dtype, "tensor dtype"),
    F(STR, tensor_rec, device, "tensor device"),
    F(DIMS, tensor_rec, shape, "tensor shape", CNT(tensor_rec, ndim)),
    F(DIMS, tensor_rec, strides, "tensor strides", CNT(tensor_rec, ndim), SAME),
    F(BOOL, tensor_rec, has_stats, "has_stats flag"),
    STAT(U64, numel), STAT(U64, finite), STAT(U64, nan), STAT(U64, posinf), STAT(U64, neginf), STAT(U64, zeros),
    STAT(U64, subnormal), STAT(F64, min), STAT(F64, max), STAT(F64, mean), STAT(F64, std),
    {.kind = PF_LIST, .flags = PFF_COLUMNS, .what = "values", CNT(tensor_rec, nvalues),
     .max = PROTO_MAX_VALUES, .min_item = 8, .sub = &tensor_values},
    F(BOOL, tensor_rec, values_complete, "values_complete flag"),
    STAT_AT(min, PFF_LATER | PFF_HAS), STAT_AT(max, 0), STAT_AT(nonfinite, 0),
    F(U64, tensor_rec, alloc.data, "data pointer", .flags = PFF_LATER | PFF_HAS, .has = offsetof(tensor_rec, has_alloc)),
    F(U64, tensor_rec, alloc.base, "storage address"),
    F(U64, tensor_rec, alloc.bytes, "storage size"),
};
static const proto_rows tensor_rows = ROWS(tensor_f);

/* eager check: a graph node's eager value against the kernel's tensor holding it (model.h
 * eager_check). */
static const proto_field check_f[] = {
    F(STR, eager_check, node, "node name"),
    F(STR, eager_check, tensor, "tensor name"),
    F(U8, eager_check, verdict, "verdict", MAX(EAGER_UNREADABLE)),
    F(U64, eager_check, compared, "compared"),
    F(U64, eager_check, differing, "differing"),
    F(I64, eager_check, first, "first index"),
    F(F64, eager_check, got, "got"),
    F(F64, eager_check, want, "want"),
    F(F64, eager_check, max_abs, "max_abs"),
    F(F64, eager_check, max_rel, "max_rel"),
    F(I64, eager_check, max_at, "max_at"),
    F(F64, eager_check, atol, "atol"),
    F(F64, eager_check, rtol, "rtol"),
    F(STR, eager_check, note, "check note"),
    F(STR, eager_check, yardstick, "yardstick", LATER),
    F(F64, eager_check, err64, "err64", LATER, .dflt = -1),
    F(F64, eager_check, eager_err64, "eager_err64", LATER, .dflt = -1),
};
static const proto_rows check_rows = ROWS(check_f);

/* weight difference: one program weight against the package's constant of the same FQN (model.h
 * weight_diff); the first differing element only when has_first. */
#define FIRST(k, m) F(k, weight_diff, first.m, "first difference", .flags = PFF_IF, .cond = offsetof(weight_diff, has_first))
static const proto_field wdiff_f[] = {
    F(STR, weight_diff, fqn, "weight name"),
    F(U8, weight_diff, verdict, "weight verdict", MAX(WDIFF_FOLDED)),
    F(STR, weight_diff, dtype, "program dtype"),
    F(STR, weight_diff, pkg_dtype, "package dtype"),
    F(DIMS, weight_diff, shape, "program shape", CNT(weight_diff, ndim), .flags = PFF_INLINE),
    F(DIMS, weight_diff, pkg_shape, "package shape", CNT(weight_diff, pkg_ndim), .flags = PFF_INLINE),
    F(I64, weight_diff, lead, "dim 0 size"),
    F(I64, weight_diff, lead_differ, "dim 0 indices differing"),
    F(STR, weight_diff, ranges, "differing ranges"),
    F(U64, weight_diff, differing, "differing elements"),
    F(U64, weight_diff, numel, "elements"),
    F(BOOL, weight_diff, has_first, "has_first flag"),
    FIRST(I64, index), FIRST(F64, value), FIRST(F64, pkg_value),
    F(F64, weight_diff, max_abs, "max_abs"),
    F(U64, weight_diff, nonfinite, "non-finite differences"),
    F(STR, weight_diff, note, "weight note"),
};
static const proto_rows wdiff_rows = ROWS(wdiff_f);

/* EAGER_NODE argument (eager_plan.h): str name (the schema's), u8 kind (eager_arg_kind),
 * str[] names (tensors; "" = None in an optional list), i64[] ints, f64[] floats, str text. */
static const proto_field arg_name_col[] = {COL(STR, proto_eager_arg, names, "argument tensors")};
static const proto_field arg_int_col[] = {COL(I64, proto_eager_arg, ints, "argument ints")};
static const proto_field arg_float_col[] = {COL(F64, proto_eager_arg, floats, "argument floats")};
static const proto_rows arg_names = ROWS(arg_name_col), arg_ints = ROWS(arg_int_col),
                        arg_floats = ROWS(arg_float_col);
#define NUMS(m, n, wh, rows)                                                                     \
    {.kind = PF_LIST, .flags = PFF_COLUMNS, .what = wh, CNT(proto_eager_arg, n), .max = PROTO_MAX_VALUES, \
     .min_item = 8, .sub = &rows}
static const proto_field arg_f[] = {
    F(STR, proto_eager_arg, name, "argument name"),
    F(U8, proto_eager_arg, kind, "argument kind", MAX(EAGER_ARG_LAST)),
    STRS(proto_eager_arg, names, nnames, "argument tensors", "argument tensors", arg_names),
    NUMS(ints, nints, "argument ints", arg_ints),
    NUMS(floats, nfloats, "argument floats", arg_floats),
    F(STR, proto_eager_arg, text, "argument text"),
};
static const proto_rows arg_rows = ROWS(arg_f);

/* EAGER_NODE output: str name, u32 ret (the schema return), i64 elem (-1: the return itself, else
 * its index in a Tensor[] return). */
static const proto_field out_f[] = {
    F(STR, proto_eager_out, name, "output name"),
    F(U32, proto_eager_out, ret, "output return"),
    F(I64, proto_eager_out, elem, "output element"),
};
static const proto_rows out_rows = ROWS(out_f);

/* ---- runner -> front end --------------------------------------------------- */

/* The runner's first frame; a version other than PROTO_VERSION is refused. */
static const proto_field hello[] = {
    M(U32, hello.version, "version"),
    M(STR, hello.runner_version, "runner version"),
    M(STR, hello.torch_version, "torch version"),
    M(I64, hello.pid, "pid"),
    M(I64, hello.cuda_device_count, "cuda device count"),
    M(STR, hello.gpu_name, "gpu name"),
    M(STR, hello.gpu_cc, "gpu compute capability"),
    /* device 0's peak memory bandwidth in GB/s from its memory clock and bus width; -1 unknown (no GPU) */
    M(F64, hello.gpu_peak_gbps, "gpu peak bandwidth", LATER, .dflt = -1),
};

/* The model loaded: its input and output counts and the input names. */
static const proto_field loaded_name_col[] = {COL(STR, proto_msg, u.loaded.input_names, "input name")};
static const proto_rows loaded_names = ROWS(loaded_name_col);
static const proto_field loaded[] = {
    M(U32, loaded.n_inputs, "n_inputs"),
    M(U32, loaded.n_outputs, "n_outputs"),
    STRS(proto_msg, u.loaded.input_names, u.loaded.n_names, "input name", "input name", loaded_names),
};

/* A kernel boundary: phase 0 before, 1 after; status (kernel_status); t_us since RUN; duration_us
 * after (-1 else). Added later, each decoded as its default from a frame that ends before it:
 * source (how the kernel was seen: "printer" hooks or "interpose"d cuLaunchKernel), branch (the
 * subgraph the launch sits in: "true_graph_0", nested ones "outer/inner"; "" the main graph),
 * device_us (after: the kernel's own time, device_timer.h in the runner; -1 unknown),
 * device_note (after: why device_us is -1, or what it includes) and flags (PROTO_KERNEL_*: before,
 * STATS_ONLY under LOAD flag ROUND_STATS: its tensors carry values only where they hold NaN/Inf). */
static const proto_field kernel[] = {
    M(I64, kernel.index, "kernel index"),
    M(STR, kernel.name, "kernel name"),
    M(U8, kernel.phase, "kernel phase", MAX(1)),
    M(U8, kernel.status, "kernel status", MAX(KSTAT_ERROR)),
    M(F64, kernel.t_us, "t_us"),
    M(F64, kernel.duration_us, "duration_us"),
    M(STR, kernel.source, "kernel source", LATER),
    M(STR, kernel.branch, "kernel branch", LATER),
    M(F64, kernel.device_us, "device_us", LATER, .dflt = -1),
    M(STR, kernel.device_note, "device note", LATER),
    M(U32, kernel.flags, "kernel flags", LATER),
};

/* One tensor of kernel kernel_index (-1 for outputs); the phase goes in t.phase. */
static const proto_field tensor[] = {
    M(I64, tensor.kernel_index, "kernel index"),
    M(U8, tensor.t.phase, "tensor phase", MAX(PHASE_OUTPUT)),
    M(STRUCT, tensor.t, "tensor", .sub = &tensor_rows),
};

/* The runner stopped at a kernel boundary (reason: proto_stop_reason) and waits for CONTROL. */
static const proto_field stopped[] = {
    M(I64, stopped.kernel_index, "kernel index"),
    M(U8, stopped.phase, "stop phase", MAX(1)),
    M(U8, stopped.reason, "stop reason", MAX(PROTO_STOP_DIVERGE)),
};

/* A failure, blamed on kernel_index (-1 none); DONE 1 follows. */
static const proto_field error[] = {
    M(I64, error.kernel_index, "kernel index"),
    M(STR, error.text, "error text"),
};

/* The end: status 0 the model ran, 1 it failed. */
static const proto_field done[] = {M(I64, done.status, "status")};

/* A graph node's eager value against the kernel's output holding it, one per REFERENCE of the
 * kernel, sent after its last after-tensor and before KERNEL(after). */
static const proto_field compare[] = {
    M(I64, compare.kernel_index, "kernel index"),
    M(STRUCT, compare.c, "eager check", .sub = &check_rows),
};

/* After that output's TENSOR, when the model returned a tensor it already returned or was given:
 * of is "output0", "input 0". */
static const proto_field alias[] = {
    M(U32, alias.output, "alias output"),
    M(STR, alias.of, "alias of"),
};

/* With --eager, after RUN's constants are in and before the model runs: one per WEIGHT_CHECK (the
 * program's weight against the package's constant of that original FQN), then one per package
 * constant no WEIGHT_CHECK named (verdict no-program, or folded for a constant-folded one). Sent only
 * when the front end sent WEIGHT_CHECKs. */
static const proto_field weight_diff_msg[] = {
    M(STRUCT, wdiff, "weight difference", .sub = &wdiff_rows),
};

/* ---- front end -> runner --------------------------------------------------- */

/* flags: PROTO_LOAD_*; max_values (and output_values) above PROTO_MAX_VALUES is clamped to it. */
static const proto_field load[] = {
    M(STR, load.so_path, "so path"),
    M(STR, load.cubin_dir, "cubin dir"),
    M(STR, load.device, "device"),
    M(U32, load.flags, "flags"),
    M(U64, load.max_values, "max_values"),
    /* values of each output (0: max_values), for run --expect; clamped as max_values */
    M(U64, load.output_values, "output_values", LATER),
};

/* One per model input; raw_path is the file of FILL_FILE (raw bytes, row-major, or a torch.save file
 * when file_format is INPUT_FILE_TORCH: key picks a dict entry or list index, "" the one tensor;
 * file_shown: the file as the spec names it, for messages);
 * low, high: FILL_RANDINT's range. */
static const proto_field input[] = {
    M(U32, input.index, "input index"),
    M(STR, input.spec.dtype, "input dtype"),
    M(STR, input.spec.device, "input device"),
    M(DIMS, input.spec.shape, "input shape", MCNT(input.spec.ndim), .flags = PFF_INLINE),
    M(U8, input.spec.fill, "fill kind", MAX(FILL_RANDINT)),
    M(U64, input.spec.seed, "seed"),
    M(F64, input.spec.value, "value"),
    M(STR, input.raw_path, "raw path"),
    M(ALIAS, input.spec.file, "input file", .ref = offsetof(proto_msg, u.input.raw_path)),
    M(U8, input.spec.file_format, "file format", MAX(INPUT_FILE_TORCH), LATER),
    M(STR, input.spec.key, "file key", LATER),
    M(I64, input.spec.low, "randint low", LATER),
    M(I64, input.spec.high, "randint high", LATER, .dflt = 16),
    M(STR, input.spec.file_shown, "input file as given", LATER),
};

/* cmd: proto_cmd; arg: the kernel index of RUN_TO_INDEX; name: RUN_TO_NAME's kernel; break_flags:
 * BREAK_*. */
static const proto_field control[] = {
    M(U8, control.cmd, "control command", MAX(PROTO_CMD_RUN_TO_NAME)),
    M(I64, control.arg, "control argument"),
    M(STR, control.name, "control kernel name"),
    M(U32, control.break_flags, "break flags"),
};

/* One weight kept apart from the .so (pickle_weights packages, a user's weights file), sent after
 * LOADED and before RUN; the storage's element 0 sits at byte `offset` of `path`; dtype "" = the
 * model's own for that constant. */
static const proto_field constant[] = {
    M(STR, constant.fqn, "constant name"),
    M(STR, constant.path, "constant file"),
    M(U64, constant.offset, "constant offset"),
    M(STR, constant.dtype, "constant dtype"),
    M(DIMS, constant.shape, "constant shape", MCNT(constant.ndim)),
    M(DIMS, constant.strides, "constant strides", MCNT(constant.ndim), SAME),
    M(I64, constant.storage_offset, "constant storage offset"),
};

/* The eager value of graph node `node`, which the occurrence-th launch (from 0, main graph) of
 * `kernel` computes, as row-major little-endian `dtype` data at byte `offset` of `path` (a .npy's
 * data); atol/rtol < 0: the compared tensor's dtype default, with atol at least rtol * scale (the
 * largest finite |value| the kernel combines, as eager computed it). Sent after LOADED and before
 * RUN. */
static const proto_field reference[] = {
    M(STR, reference.kernel, "reference kernel"),
    M(U32, reference.occurrence, "reference occurrence"),
    M(STR, reference.node, "reference node"),
    M(STR, reference.path, "reference file"),
    M(U64, reference.offset, "reference offset"),
    M(STR, reference.dtype, "reference dtype"),
    M(DIMS, reference.shape, "reference shape", MCNT(reference.ndim)),
    M(F64, reference.atol, "atol"),
    M(F64, reference.rtol, "rtol"),
    M(F64, reference.scale, "scale"),
    /* added later: the tensor the compiler's record says holds the node ("" any of its shape), the
     * node's float64 value ("" none) and where its data starts */
    M(STR, reference.tensor, "reference tensor", LATER),
    M(STR, reference.path64, "reference float64 file", LATER),
    M(U64, reference.offset64, "reference float64 offset", LATER),
};

/* The package's launches in wrapper.cpp order, each (str kernel, u32 before: the tensors the
 * printer saves before it); sent after LOADED and before RUN (several append). A stop due before a
 * launch with before > 0 waits until those tensors are sent, so the front end has what the kernel
 * is about to consume (added later: a runner that never gets it stops at the first before-hook).
 * Added later still, decoded as none from a frame that ends before it: (str kernel, str branch),
 * the subgraph wrapper.cpp launches each kernel in that is launched in one place only, for
 * launches whose hooks say no branch (torch 2.11's printer on CUDA): the runner counts their
 * while_loop rounds as the front end does (run_record.c branch_of). */
static const proto_field launch_col[] = {
    COL(STR, proto_msg, u.launches.kernels, "launch kernel name"),
    COL(U32, proto_msg, u.launches.before, "launch before count"),
};
static const proto_rows launch_cols = ROWS(launch_col);
static const proto_field launch_branch_col[] = {
    COL(STR, proto_msg, u.launches.branch_kernels, "branch kernel name"),
    COL(STR, proto_msg, u.launches.branch_names, "branch name"),
};
static const proto_rows launch_branch_cols = ROWS(launch_branch_col);
static const proto_field launches[] = {
    {.kind = PF_LIST, .flags = PFF_COLUMNS, .what = "launch count", MCNT(launches.n), .max = PROTO_MAX_NAMES,
     .min_item = 8, .sub = &launch_cols},
    {.kind = PF_LIST, .flags = PFF_COLUMNS | PFF_LATER, .what = "branch count", MCNT(launches.nbranches),
     .max = PROTO_MAX_NAMES, .min_item = 8, .sub = &launch_branch_cols},
};

/* One launch written in full to the folder dir (aotidbg repro): the launch numbered index
 * (KERNEL.index) when index >= 0, else the occurrence-th (from 0) launch named kernel, in any
 * branch. The runner writes dir/in/NAME.npy (before the launch), dir/expected/NAME.npy (after),
 * dir/launch.txt (an interposed CUDA launch: grid, block, shared memory, argument bytes) and, last,
 * dir/capture.txt (what was captured, or why not; core/runner/runner_capture.h). constants:
 * "NAME\tFQN\n" lines, the weights the launch reads (wrapper.cpp's name, the container's original
 * FQN), written to dir/in/NAME.npy too. Sent after LOADED and before RUN; nothing comes back. */
static const proto_field capture[] = {
    M(STR, capture.dir, "capture folder"),
    M(I64, capture.index, "capture index"),
    M(STR, capture.kernel, "capture kernel"),
    M(U32, capture.occurrence, "capture occurrence"),
    M(STR, capture.constants, "capture constants"),
};

/* One of the program's weights (--eager), to compare with the package's constant of original FQN
 * fqn: the storage is the record `record` (data/weights/weight_N) of the torch.export.save archive
 * `archive`, the weight the view of dtype, shape, strides and storage_offset (elements) on it. Sent
 * after LOADED and before RUN; the runner answers each with a WEIGHT_DIFF at RUN. */
static const proto_field weight_check[] = {
    M(STR, wcheck.archive, "weight archive"),
    M(STR, wcheck.fqn, "weight name"),
    M(STR, wcheck.record, "weight record"),
    M(STR, wcheck.dtype, "weight dtype"),
    M(DIMS, wcheck.shape, "weight shape", MCNT(wcheck.ndim)),
    M(DIMS, wcheck.strides, "weight strides", MCNT(wcheck.ndim), SAME),
    M(I64, wcheck.storage_offset, "weight storage offset"),
};

/* A plan file for `aotidbg-runner --eager-ref PLAN` (core/eager/eager_program.h writes it, the
 * runner computes the eager reference with libtorch): EAGER_RUN, INPUT per user input (spec.name =
 * its placeholder), CONSTANT per weight/buffer/constant (fqn = its placeholder, path = the archive
 * record, offset 0), then EAGER_NODE per graph node in order. EAGER_RUN: program is the
 * torch.export.save file; keep the values written as .npy; inputs the placeholders the INPUTs feed,
 * in order. */
static const proto_field keep_col[] = {COL(STR, proto_msg, u.eager_run.keep, "eager values kept")};
static const proto_field eager_input_col[] = {COL(STR, proto_msg, u.eager_run.inputs, "eager inputs")};
static const proto_rows keep_cols = ROWS(keep_col), eager_input_cols = ROWS(eager_input_col);
static const proto_field eager_run[] = {
    M(STR, eager_run.program, "eager program"),
    M(STR, eager_run.device, "eager device"),
    M(BOOL, eager_run.float64, "float64 flag"),
    M(STR, eager_run.out_dir, "eager folder"),
    STRS(proto_msg, u.eager_run.keep, u.eager_run.nkeep, "eager values kept", "eager values kept", keep_cols),
    STRS(proto_msg, u.eager_run.inputs, u.eager_run.ninputs, "eager inputs", "eager inputs", eager_input_cols),
};

/* One graph node: target like "torch.ops.aten.add.Tensor", then its arguments and outputs. */
static const proto_field eager_node[] = {
    M(STR, eager_node.name, "node name"),
    M(STR, eager_node.target, "node target"),
    {.kind = PF_LIST, .off = offsetof(proto_msg, u.eager_node.args), .size = sizeof(proto_eager_arg),
     .what = "argument", MCNT(eager_node.nargs), .max = PROTO_MAX_NAMES, .min_item = 4 + 1 + 4 * 4,
     .sub = &arg_rows},
    {.kind = PF_LIST, .off = offsetof(proto_msg, u.eager_node.outs), .size = sizeof(proto_eager_out),
     .what = "output", MCNT(eager_node.nouts), .max = PROTO_MAX_NAMES, .min_item = 4 + 4 + 8, .sub = &out_rows},
};

/* ---- front end -> remote agent (aotidbg-runner --serve) -------------------- */

/* -> REPLY(value = file size, data = the bytes, fewer at the end of the file; len at most
 * PROTO_MAX_DATA). */
static const proto_field fread_[] = {
    M(STR, fread.path, "path"),
    M(U64, fread.offset, "offset"),
    M(U32, fread.len, "length"),
};

/* SHA256 -> REPLY(text = hex SHA-256). FACTS (path: the so_path, "" = none) -> REPLY(text =
 * "key\tvalue\n" lines: the box's CUDA driver, CPU flags, debug environment, runner build; with a
 * so_path, whether that .so loads against the box's libtorch). */
static const proto_field path_only[] = {M(STR, sha256.path, "path")};

/* prefixes: entry-name prefixes, "\n"-separated -> REPLY(text = the folder on the box holding the
 * entries, root folder stripped; value = files written). */
static const proto_field extract[] = {
    M(STR, extract.path, "path"),
    M(STR, extract.prefixes, "prefixes"),
};

/* name: a plain file name; after the last piece, REPLY(text = the file's path on the box). */
static const proto_field put[] = {
    M(STR, put.name, "name"),
    M(U64, put.offset, "offset"),
    M(BYTES, put.data, "PUT data", MCNT(put.ndata)),
    M(BOOL, put.last, "last flag"),
};

/* flags: PROTO_SPAWN_* -> the runner's frames, then EXIT. */
static const proto_field spawn[] = {M(U32, spawn.flags, "spawn flags")};

/* what: PROTO_SIGNAL_*, to the spawned runner. */
static const proto_field signal_[] = {M(U8, signal.what, "signal", MAX(PROTO_SIGNAL_KILL))};

/* ---- remote agent -> front end ---------------------------------------------- */

/* The answer to one request, in order; text is the error when not ok. */
static const proto_field reply[] = {
    M(U8, reply.request, "request type", MAX(UINT8_MAX)),
    M(BOOL, reply.ok, "ok flag"),
    M(I64, reply.value, "value"),
    M(STR, reply.text, "reply text"),
    M(BYTES, reply.data, "reply data", MCNT(reply.ndata)),
};

/* stream: 0 stdout, 1 stderr; the runner's output as it came. */
static const proto_field log_[] = {
    M(U8, log.stream, "log stream", MAX(1)),
    M(BYTES, log.data, "log data", MCNT(log.ndata)),
};

/* how: 0 exited, 1 killed by a signal; code: the exit code or signal number. */
static const proto_field exit_[] = {
    M(U8, exit.how, "exit kind", MAX(1)),
    M(I64, exit.code, "exit code"),
};

#define MSG(T, rows) [PROTO_##T] = {#T, ROWS(rows)}
#define EMPTY(T) [PROTO_##T] = {#T, {NULL, 0}}

static const proto_message proto_messages[PROTO_TYPES] = {
    MSG(HELLO, hello),
    MSG(LOADED, loaded),
    MSG(KERNEL, kernel),
    MSG(TENSOR, tensor),
    MSG(STOPPED, stopped),
    MSG(ERROR, error),
    MSG(DONE, done),
    MSG(COMPARE, compare),
    MSG(ALIAS, alias),
    MSG(WEIGHT_DIFF, weight_diff_msg),
    MSG(LOAD, load),
    MSG(INPUT, input),
    MSG(CONTROL, control),
    EMPTY(RUN),
    EMPTY(QUIT),
    MSG(CONSTANT, constant),
    MSG(REFERENCE, reference),
    MSG(LAUNCHES, launches),
    MSG(CAPTURE, capture),
    MSG(WEIGHT_CHECK, weight_check),
    MSG(EAGER_RUN, eager_run),
    MSG(EAGER_NODE, eager_node),
    MSG(FREAD, fread_),
    MSG(SHA256, path_only),
    MSG(FACTS, path_only),
    MSG(EXTRACT, extract),
    MSG(PUT, put),
    MSG(SPAWN, spawn),
    MSG(SIGNAL, signal_),
    EMPTY(PING),
    MSG(REPLY, reply),
    MSG(LOG, log_),
    MSG(EXIT, exit_),
};

const proto_message *proto_message_of(int t)
{
    return t >= 0 && t < PROTO_TYPES && proto_messages[t].name ? &proto_messages[t] : NULL;
}
