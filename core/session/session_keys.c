/* session_keys.c — the session key tables; see session_keys.h for how to add a key.
 * Row order is the order the writer puts keys in (and the dump shows them). */
#include "session_keys.h"
#include <string.h>
#include "weight_diff.h"

/* The enum name functions take their own enum types; the tables call them with an int. */
#define ENUM_NAME(fn, type) \
    static const char *fn##_i(int v) { return fn((type)v); }
ENUM_NAME(kernel_type_name, kernel_type)
ENUM_NAME(kernel_status_name, kernel_status)
ENUM_NAME(phase_name, tensor_phase)
ENUM_NAME(check_status_name, check_status)
ENUM_NAME(fill_kind_name, fill_kind)
ENUM_NAME(eager_verdict_name, eager_verdict)
ENUM_NAME(weight_verdict_name, weight_verdict)
#define ENUM(fn) .enum_name = fn##_name_i, .enum_from = fn##_from_name

#define TABLE(var, rec, where_, rows) \
    const stable var = {where_, rows, (int)(sizeof rows / sizeof rows[0]), sizeof(rec)}

/* Row makers: S string, I int, L int64, U uint64, N number, B bool, E enum. */
#define S(rec, k, f, fl, wh, df) {.name = #k, .type = SK_STR, .flags = (fl), .off = offsetof(rec, f), .what = wh, .dflt = df}
#define I(rec, k, f, fl, wh, l, h) {.name = #k, .type = SK_INT, .flags = (fl), .off = offsetof(rec, f), .what = wh, .lo = l, .hi = h}
#define L(rec, k, f, fl, wh, l, h) {.name = #k, .type = SK_I64, .flags = (fl), .off = offsetof(rec, f), .what = wh, .lo = l, .hi = h}
#define U(rec, k, f, fl, wh) {.name = #k, .type = SK_U64, .flags = (fl), .off = offsetof(rec, f), .what = wh}
#define N(rec, k, f, fl, wh) {.name = #k, .type = SK_NUM, .flags = (fl), .off = offsetof(rec, f), .what = wh}
#define B(rec, k, f, fl) {.name = #k, .type = SK_BOOL, .flags = (fl), .off = offsetof(rec, f), .what = "true or false"}
#define E(rec, k, f, fl, wh, fn) {.name = #k, .type = SK_ENUM, .flags = (fl), .off = offsetof(rec, f), .what = wh, ENUM(fn)}
#define LIST(rec, k, f, n, fl, wh, tab) \
    {.name = #k, .type = SK_LIST, .flags = (fl), .off = offsetof(rec, f), .cnt = offsetof(rec, n), .what = wh, .sub = &tab}

#define H SKF_HAND
#define NUL SKF_NULL
#define OPT SKF_OPT
#define NEED SKF_NEED
#define NEG1 SKF_NEG1
#define INT64_LIMIT INT64_MAX
#define STRS(rec, k, f, n, wh, it) \
    {.name = #k, .type = SK_STRS, .flags = OPT, .off = offsetof(rec, f), .cnt = offsetof(rec, n), .what = wh, .item = it}

static const skey package_rows[] = {
    S(package_info, path, path, NUL, "a string", NULL),
    S(package_info, sha256, sha256, NUL, "a string", NULL),
    S(package_info, model, model, NUL, "a string", NULL),
    S(package_info, device_key, device_key, NUL, "a string", NULL),
    S(package_info, compute_capability, compute_capability, NUL, "a string", NULL),
    S(package_info, cpu_isa, cpu_isa, NUL, "a string", NULL),
    STRS(package_info, input_names, input_names, ninput_names, "a list of input names", "an input name (x, args[0])"),
    STRS(package_info, output_names, output_names, noutput_names, "a list of output names", "an output name (out)"),
};
static TABLE(session_package_table, package_info, "package", package_rows);

static const skey input_rows[] = {
    S(input_spec, name, name, NUL | OPT, "an input name", NULL),
    {.name = "shape", .type = SK_DIMS, .flags = H, .off = offsetof(input_spec, shape), .cnt = offsetof(input_spec, ndim),
     .what = "a list of integers like [4, 16]"},
    {.name = "strides", .type = SK_DIMS, .flags = H, .off = offsetof(input_spec, strides),
     .what = "a list of integers like [4, 16]", .custom = SC_INPUT_STRIDES},
    S(input_spec, dtype, dtype, H, "a dtype name", "float32"),
    S(input_spec, device, device, H, "a device name", "cpu"),
    E(input_spec, fill, fill, H, "randn, zeros, ones, arange, full or file", fill_kind),
    U(input_spec, seed, seed, H, "a seed (integer >= 0)"),
    {.name = "value", .type = SK_NUM, .flags = H, .off = offsetof(input_spec, value), .what = "a number",
     .custom = SC_INPUT_VALUE},
    S(input_spec, file, file, H | NUL, "a file path", NULL),
    S(input_spec, key, key, H | NUL, "a tensor key", NULL),
};
TABLE(session_input_table, input_spec, "an input", input_rows);

static const skey check_rows[] = {
    S(check_row, id, id, H | NEED, "a check id", "?"),
    E(check_row, status, status, H | NEED, "PASS, WARN, FAIL or INFO", check_status),
    S(check_row, subject, subject, H, "a string", ""),
    S(check_row, expected, expected, H | NUL, "a string", NULL),
    S(check_row, got, got, H | NUL, "a string", NULL),
    S(check_row, source, source, H, "a string", ""),
    S(check_row, fix, fix, H | NUL, "a string", NULL),
};
TABLE(session_check_table, check_row, "a check", check_rows);

static const skey bookmark_rows[] = {
    L(bookmark, event, event_index, H | NEG1, "an event index (-1 for none)", -1, INT64_LIMIT),
    S(bookmark, note, note, H, "a note", ""),
};
TABLE(session_bookmark_table, bookmark, "a bookmark", bookmark_rows);

static const skey narration_rows[] = {
    S(narration_step, text, text, H | NEED, "the narration text", ""),
    S(narration_step, pane, pane, H | NUL, "a pane (router, checklist, kernels, inspector)", NULL),
    L(narration_step, event, event_index, H | NEG1 | OPT, "an event index (-1 for none)", -1, INT64_LIMIT),
    S(narration_step, action, action, H | NUL, "an action name", NULL),
    S(narration_step, expect, expect, H | NUL, "the text to expect", NULL),
};
TABLE(session_narration_table, narration_step, "a narration step", narration_rows);

/* Row-major flat indices; -1 (none) is left out. */
static const skey stats_at_rows[] = {
    L(stats_at, min, min, OPT | NEG1, "a flat element index (integer >= 0)", 0, INT64_LIMIT),
    L(stats_at, max, max, OPT | NEG1, "a flat element index (integer >= 0)", 0, INT64_LIMIT),
    L(stats_at, nonfinite, nonfinite, OPT | NEG1, "a flat element index (integer >= 0)", 0, INT64_LIMIT),
};
static TABLE(session_stats_at_table, stats_at, "stats positions", stats_at_rows);

/* The dump shows the statistics on one line, in this order, with these labels. */
static const skey stats_rows[] = {
    U(tensor_stats, numel, numel, 0, "a count (integer >= 0)"),
    U(tensor_stats, finite, finite, 0, "a count (integer >= 0)"),
    N(tensor_stats, min, min, 0, "a number (.nan and .inf allowed)"),
    N(tensor_stats, max, max, 0, "a number (.nan and .inf allowed)"),
    N(tensor_stats, mean, mean, 0, "a number (.nan and .inf allowed)"),
    N(tensor_stats, std, std, 0, "a number (.nan and .inf allowed)"),
    U(tensor_stats, nan, nan, 0, "a count (integer >= 0)"),
    {.name = "posinf", .type = SK_U64, .off = offsetof(tensor_stats, posinf), .what = "a count (integer >= 0)",
     .label = "+inf"},
    {.name = "neginf", .type = SK_U64, .off = offsetof(tensor_stats, neginf), .what = "a count (integer >= 0)",
     .label = "-inf"},
    U(tensor_stats, zeros, zeros, 0, "a count (integer >= 0)"),
    U(tensor_stats, subnormal, subnormal, 0, "a count (integer >= 0)"),
    {.name = "at", .type = SK_SUB, .flags = OPT, .off = offsetof(tensor_stats, at),
     .has = offsetof(tensor_stats, has_at), .what = "the positions of the first min, max and NaN/Inf",
     .sub = &session_stats_at_table},
};
TABLE(session_stats_table, tensor_stats, "tensor stats", stats_rows);

/* Where a tensor's elements sat at the launch (memcheck runs): addresses as integers. */
static const skey alloc_rows[] = {
    U(tensor_alloc, data, data, 0, "an address (integer >= 0)"),
    U(tensor_alloc, base, base, 0, "an address (integer >= 0)"),
    U(tensor_alloc, bytes, bytes, 0, "a size in bytes (integer >= 0)"),
};
static TABLE(session_alloc_table, tensor_alloc, "a tensor's allocation", alloc_rows);

static const skey tensor_rows[] = {
    S(tensor_rec, name, name, H | NEED, "a tensor name", NULL),
    S(tensor_rec, user_name, user_name, NUL | OPT, "the user's name of a model input or output", NULL),
    S(tensor_rec, alias_of, alias_of, NUL | OPT, "the output or input it is (output0, input 0)", NULL),
    E(tensor_rec, phase, phase, H | NEED, "before, after or output", phase),
    {.name = "shape", .type = SK_CUSTOM, .flags = H, .what = "a list of integers like [4, 16]",
     .custom = SC_TENSOR_SHAPE},
    {.name = "strides", .type = SK_CUSTOM, .flags = H, .what = "a list of integers like [4, 16]",
     .custom = SC_TENSOR_STRIDES},
    S(tensor_rec, dtype, dtype, H | NEED, "a dtype name", NULL),
    S(tensor_rec, device, device, H | NEED, "a device name", NULL),
    {.name = "stats", .type = SK_SUB, .flags = H, .off = offsetof(tensor_rec, stats),
     .has = offsetof(tensor_rec, has_stats), .what = "tensor stats", .sub = &session_stats_table},
    {.name = "values", .type = SK_NUMS, .flags = H | OPT, .off = offsetof(tensor_rec, values),
     .cnt = offsetof(tensor_rec, nvalues), .what = "a list of numbers"},
    {.name = "values_complete", .type = SK_BOOL, .flags = H, .off = offsetof(tensor_rec, values_complete),
     .what = "true or false", .custom = SC_VALUES_COMPLETE},
    B(tensor_rec, values_budget_cut, values_budget_cut, H | OPT),
    B(tensor_rec, values_skipped, values_skipped, H | OPT),
    {.name = "alloc", .type = SK_SUB, .flags = OPT, .off = offsetof(tensor_rec, alloc),
     .has = offsetof(tensor_rec, has_alloc), .what = "where its elements sat (data, base, bytes)",
     .sub = &session_alloc_table},
};
TABLE(session_tensor_table, tensor_rec, "a tensor", tensor_rows);

/* Every event: kind first, then t_ms, then its kind's keys. */
static const skey event_rows[] = {
    {.name = "kind", .type = SK_CUSTOM, .flags = H | NEED, .what = "an event kind (kernel, error, output, runner-exit, log, divergence, nan, memcheck, fold)",
     .custom = SC_KIND},
    N(event, t_ms, t_ms, H | OPT | NEG1, "a time in ms"),
    I(event, rank, rank, OPT | NEG1, "a rank (integer >= 0)", -1, 65535),
};
TABLE(session_event_table, event, "an event", event_rows);

/* A graph node's eager value against the kernel output holding it (--eager). */
static const skey eager_check_rows[] = {
    S(eager_check, node, node, NEED, "a graph node name", NULL),
    S(eager_check, tensor, tensor, NUL | OPT, "a tensor name", NULL),
    E(eager_check, verdict, verdict, 0, "close, differs, unmatched or unreadable", eager_verdict),
    U(eager_check, compared, compared, 0, "a count (integer >= 0)"),
    U(eager_check, differing, differing, 0, "a count (integer >= 0)"),
    L(eager_check, first, first, OPT | NEG1, "a flat element index (-1 for none)", -1, INT64_LIMIT),
    N(eager_check, got, got, 0, "a number (.nan and .inf allowed)"),
    N(eager_check, want, want, 0, "a number (.nan and .inf allowed)"),
    N(eager_check, max_abs, max_abs, 0, "a number (.nan and .inf allowed)"),
    N(eager_check, max_rel, max_rel, 0, "a number (.nan and .inf allowed)"),
    L(eager_check, max_at, max_at, OPT | NEG1, "a flat element index (-1 for none)", -1, INT64_LIMIT),
    N(eager_check, atol, atol, 0, "a tolerance (number >= 0)"),
    N(eager_check, rtol, rtol, 0, "a tolerance (number >= 0)"),
    S(eager_check, note, note, NUL | OPT, "a string", NULL),
    S(eager_check, yardstick, yardstick, NUL | OPT, "eager or float64", NULL),
    N(eager_check, err64, err64, OPT | NEG1, "a number (-1 for unknown)"),
    N(eager_check, eager_err64, eager_err64, OPT | NEG1, "a number (-1 for unknown)"),
};
static TABLE(session_eager_check_table, eager_check, "an eager check", eager_check_rows);

static const skey kernel_rows[] = {
    L(kernel_event, index, index, H | NEED, "a kernel index (integer >= 0)", 0, INT64_LIMIT),
    S(kernel_event, name, name, H | NEED, "a kernel name", "?"),
    E(kernel_event, type, type, H, "triton, cpp, extern or unknown", kernel_type),
    E(kernel_event, status, status, H, "pending, ok, nan or error", kernel_status),
    N(kernel_event, duration_us, duration_us, H | NEG1, "a duration in microseconds"),
    N(kernel_event, device_us, device_us, OPT | NEG1, "a duration in microseconds"),
    S(kernel_event, device_note, device_note, NUL | OPT, "a string", NULL),
    S(kernel_event, source, source, H | NUL, "a source name", NULL),
    S(kernel_event, branch, branch, NUL | OPT, "a subgraph name (true_graph_0)", NULL),
    L(kernel_event, iteration, iteration, OPT | NEG1, "a while_loop iteration (integer >= -1)", -1, INT64_LIMIT),
    L(kernel_event, call, call, OPT | NEG1, "a row of provenance.calls (integer >= -1)", -1, INT64_LIMIT),
    S(kernel_event, collective, collective, NUL | OPT, "a collective's op (all_reduce)", NULL),
    S(kernel_event, group, group, NUL | OPT, "a process group name", NULL),
    S(kernel_event, participants, participants, NUL | OPT, "the group's ranks (\"0,1\")", NULL),
    LIST(kernel_event, tensors, tensors, ntensors, H, "a list of tensors", session_tensor_table),
    LIST(kernel_event, eager, eager, neager, OPT, "a list of eager checks", session_eager_check_table),
};
static TABLE(kernel_table, kernel_event, "a kernel event", kernel_rows);

static const skey error_rows[] = {
    S(error_event, text, text, H | NEED, "a text string", ""),
    S(error_event, route, route, H | NUL, "a route id", NULL),
    L(error_event, kernel, kernel_index, H | OPT | NEG1, "a kernel index (integer >= -1)", -1, INT64_LIMIT),
    {.name = "fields", .type = SK_KV, .flags = H | OPT, .off = offsetof(error_event, fields),
     .cnt = offsetof(error_event, nfields), .what = "error fields"},
};
static TABLE(error_table, error_event, "an error event", error_rows);

static const skey output_rows[] = {
    LIST(output_event, tensors, tensors, ntensors, H, "a list of tensors", session_tensor_table),
};
static TABLE(output_table, output_event, "an output event", output_rows);

static const skey exit_rows[] = {
    S(runner_exit_event, how, how, H | NEED, "how the runner ended (exited, signal, ...)", "lost"),
    I(runner_exit_event, exit_code, exit_code, H, "an exit code", -1000000, 1000000),
    I(runner_exit_event, signal, signal, H, "a signal number", 0, 1000),
    S(runner_exit_event, stderr_tail, stderr_tail, H | NUL, "a string", NULL),
};
static TABLE(exit_table, runner_exit_event, "a runner-exit event", exit_rows);

static const skey log_rows[] = {
    S(log_event, stream, stream, H | NEED, "stdout or stderr", "stderr"),
    S(log_event, text, text, H | NEED, "a text string", ""),
};
static TABLE(log_table, log_event, "a log event", log_rows);

static const skey divergence_rows[] = {
    L(divergence_event, kernel, kernel_index, NEED, "a kernel index (integer >= -1)", -1, INT64_LIMIT),
    S(divergence_event, name, kernel, NUL, "a kernel name", NULL),
    S(divergence_event, at, index, NUL | OPT, "an element index like [0, 3]", NULL),
    S(divergence_event, where, where, NUL | OPT, "a source line", NULL),
    S(divergence_event, code, code, NUL | OPT, "a line of code", NULL),
    {.name = "check", .type = SK_SUB, .off = offsetof(divergence_event, check), .what = "an eager check",
     .sub = &session_eager_check_table},
};
static TABLE(divergence_table, divergence_event, "a divergence event", divergence_rows);
#define STRS(rec, k, f, n, wh, it) \
    {.name = #k, .type = SK_STRS, .flags = OPT, .off = offsetof(rec, f), .cnt = offsetof(rec, n), .what = wh, .item = it}

static const skey nan_rows[] = {
    L(nan_event, kernel, kernel_index, NEED, "a kernel index (integer >= -1)", -1, INT64_LIMIT),
    S(nan_event, tensor, tensor, NEED, "a tensor name", NULL),
    S(nan_event, at, at, NUL | OPT, "an element index like [0, 3]", NULL),
    S(nan_event, value, value, NUL | OPT, "nan, inf or -inf", NULL),
    S(nan_event, from, from, NUL | OPT, "where the value comes from", NULL),
    /* the dump shows these one per line (session_dump.c) */
    {.name = "inputs", .type = SK_STRS, .flags = H | OPT, .off = offsetof(nan_event, inputs),
     .cnt = offsetof(nan_event, ninputs), .what = "a list of the kernel's inputs at the element",
     .item = "an input at the element (buf10[0, 3] = 2.5)"},
    {.name = "ops", .type = SK_STRS, .flags = H | OPT, .off = offsetof(nan_event, ops), .cnt = offsetof(nan_event, nops),
     .what = "a list of ops that can make NaN/Inf", .item = "an op and its line (log at model.py:7)"},
};
static TABLE(nan_table, nan_event, "a nan event", nan_rows);

static const skey memcheck_rows[] = {
    S(memcheck_event, tool, tool, NEED, "memcheck, racecheck, initcheck or synccheck", NULL),
    S(memcheck_event, what, what, NEED, "the tool's report headline", NULL),
    S(memcheck_event, access, access, NUL | OPT, "read or write", NULL),
    L(memcheck_event, size, size, OPT | NEG1, "a size in bytes (integer >= -1)", -1, INT64_LIMIT),
    L(memcheck_event, kernel, kernel_index, OPT | NEG1, "a kernel index (integer >= -1)", -1, INT64_LIMIT),
    S(memcheck_event, name, kernel, NUL | OPT, "a kernel name", NULL),
    S(memcheck_event, kernel_line, at, NUL | OPT, "the kernel's source line (file:line)", NULL),
    S(memcheck_event, where, where, NUL | OPT, "a source line", NULL),
    S(memcheck_event, thread, thread, NUL | OPT, "a thread index like (0,0,0)", NULL),
    S(memcheck_event, block, block, NUL | OPT, "a block index like (0,0,0)", NULL),
    S(memcheck_event, address, address, NUL | OPT, "an address like 0x7f00bc800090", NULL),
    S(memcheck_event, hit, hit, NUL | OPT, "what the address hit", NULL),
    S(memcheck_event, tensor, tensor, NUL | OPT, "a tensor name", NULL),
    S(memcheck_event, tensor_user, tensor_user, NUL | OPT, "the tensor's user name (an input, a weight's fqn)", NULL),
    S(memcheck_event, element, element, NUL | OPT, "an element index like [9, 0]", NULL),
    S(memcheck_event, place, place, NUL | OPT, "inside, in-alloc, past-end or before", NULL),
    L(memcheck_event, distance, distance, OPT | NEG1, "a distance in bytes (integer >= -1)", -1, INT64_LIMIT),
    S(memcheck_event, by_index, index, NUL | OPT, "an index element like idx[0] = 9", NULL),
    S(memcheck_event, nearest, nearest, NUL | OPT, "the tool's nearest-allocation words", NULL),
    L(memcheck_event, count, count, OPT, "a count of reports (integer >= 0)", 0, INT64_LIMIT),
};
static TABLE(memcheck_table, memcheck_event, "a memcheck event", memcheck_rows);

/* Folded iterations: ranges, not values (man/aotidbg-session.5, "Folded iterations"). */
static const skey fold_tensor_rows[] = {
    S(fold_tensor, name, name, NEED, "a tensor name", NULL),
    E(fold_tensor, phase, phase, 0, "before, after or output", phase),
    N(fold_tensor, min, min, 0, "a number (.nan and .inf allowed)"),
    N(fold_tensor, max, max, 0, "a number (.nan and .inf allowed)"),
    N(fold_tensor, mean_lo, mean_lo, 0, "a number (.nan and .inf allowed)"),
    N(fold_tensor, mean_hi, mean_hi, 0, "a number (.nan and .inf allowed)"),
    U(fold_tensor, nan, nan, OPT, "a count (integer >= 0)"),
    U(fold_tensor, posinf, posinf, OPT, "a count (integer >= 0)"),
    U(fold_tensor, neginf, neginf, OPT, "a count (integer >= 0)"),
};
static TABLE(fold_tensor_table, fold_tensor, "a folded tensor", fold_tensor_rows);

static const skey fold_kernel_rows[] = {
    S(fold_kernel, name, name, NEED, "a kernel name", NULL),
    S(fold_kernel, branch, branch, NUL | OPT, "a subgraph name (while_loop_body_graph_0)", NULL),
    U(fold_kernel, launches, launches, 0, "a count (integer >= 0)"),
    N(fold_kernel, duration_us, duration_us, OPT | NEG1, "a duration in microseconds"),
    N(fold_kernel, duration_min_us, duration_min_us, OPT | NEG1, "a duration in microseconds"),
    N(fold_kernel, duration_max_us, duration_max_us, OPT | NEG1, "a duration in microseconds"),
    N(fold_kernel, device_us, device_us, OPT | NEG1, "a duration in microseconds"),
    LIST(fold_kernel, tensors, tensors, ntensors, OPT, "a list of folded tensors", fold_tensor_table),
};
static TABLE(fold_kernel_table, fold_kernel, "a folded kernel", fold_kernel_rows);

/* Key names are shared across kinds with one type each (the reader reads a key once): hence from_iteration. */
static const skey fold_rows[] = {
    S(fold_event, loop, loop, NEED, "a loop name (while_loop_0)", NULL),
    L(fold_event, from_iteration, from, NEED, "a while_loop iteration (integer >= 0)", 0, INT64_LIMIT),
    L(fold_event, to_iteration, to, NEED, "a while_loop iteration (integer >= 0)", 0, INT64_LIMIT),
    L(fold_event, first_kernel, first_kernel, NEED, "a kernel index (integer >= 0)", 0, INT64_LIMIT),
    L(fold_event, last_kernel, last_kernel, NEED, "a kernel index (integer >= 0)", 0, INT64_LIMIT),
    U(fold_event, launches, launches, 0, "a count (integer >= 0)"),
    N(fold_event, end_ms, end_ms, OPT | NEG1, "a time in ms"),
    N(fold_event, duration_us, duration_us, OPT | NEG1, "a duration in microseconds"),
    LIST(fold_event, kernels, kernels, nkernels, OPT, "a list of folded kernels", fold_kernel_table),
};
static TABLE(fold_table, fold_event, "a fold event", fold_rows);

const stable *const session_kind_tables[EV__COUNT] = {
    [EV_KERNEL] = &kernel_table,
    [EV_ERROR] = &error_table,
    [EV_OUTPUT] = &output_table,
    [EV_RUNNER_EXIT] = &exit_table,
    [EV_LOG] = &log_table,
    [EV_DIVERGENCE] = &divergence_table,
    [EV_NAN] = &nan_table,
    [EV_MEMCHECK] = &memcheck_table,
    [EV_FOLD] = &fold_table,
};

/* Where each kernel call comes from (core/package/provenance.h). */
static const skey call_rows[] = {
    S(kernel_call, kernel, kernel, NEED, "a kernel name", NULL),
    S(kernel_call, handle, handle, NUL | OPT, "a kernel_information.json key (<kernel>:<N>)", NULL),
    L(kernel_call, line, line, OPT, "a wrapper.cpp line (integer >= 0)", 0, INT64_LIMIT),
    STRS(kernel_call, nodes, nodes, nnodes, "a list of graph node names", "a node name"),
    STRS(kernel_call, aten, aten, naten, "a list of ATen op names", "an op name"),
    STRS(kernel_call, stack, stack, nstack, "a list of stack traces", "a stack trace (Python traceback text)"),
    STRS(kernel_call, pre_grad, pre_grad, npre, "a list of graph node names", "a node name"),
    STRS(kernel_call, post_grad, post_grad, npost, "a list of graph node names", "a node name"),
    STRS(kernel_call, weights, params, nparams, "a list of weight names", "a weight name (blocks.0.fc.weight)"),
    STRS(kernel_call, fresh, fresh, nfresh, "a list of tensor names", "a tensor the call only writes, first here"),
    U(kernel_call, before, nbefore, OPT, "a count of tensors (integer >= 0)"),
};
static TABLE(call_table_keys, kernel_call, "a call", call_rows);

static const skey prov_rows[] = {
    S(call_table, from, from, NUL, "kernel_information.json or wrapper.cpp", NULL),
    LIST(call_table, calls, calls, ncalls, OPT, "a list of calls", call_table_keys),
};
static TABLE(prov_table, call_table, "provenance", prov_rows);

static const skey weight_first_rows[] = {
    L(struct weight_first, index, index, 0, "a flat element index (integer >= 0)", 0, INT64_LIMIT),
    N(struct weight_first, value, value, 0, "a number (.nan and .inf allowed)"),
    N(struct weight_first, package_value, pkg_value, 0, "a number (.nan and .inf allowed)"),
};
static TABLE(session_weight_first_table, struct weight_first, "a first differing element", weight_first_rows);

/* One program weight against the package's constant (--eager), kept when not equal. */
static const skey weight_diff_rows[] = {
    S(weight_diff, fqn, fqn, NEED, "a weight name (blocks.3.fc.weight)", NULL),
    E(weight_diff, verdict, verdict, 0, "equal, differs, dtype, shape, unread, no-package, no-program or folded",
      weight_verdict),
    S(weight_diff, dtype, dtype, NUL | OPT, "a dtype name", NULL),
    S(weight_diff, package_dtype, pkg_dtype, NUL | OPT, "a dtype name", NULL),
    {.name = "shape", .type = SK_DIMS, .flags = OPT, .off = offsetof(weight_diff, shape),
     .cnt = offsetof(weight_diff, ndim), .what = "a list of integers like [256, 64]"},
    {.name = "package_shape", .type = SK_DIMS, .flags = OPT, .off = offsetof(weight_diff, pkg_shape),
     .cnt = offsetof(weight_diff, pkg_ndim), .what = "a list of integers like [256, 64]"},
    L(weight_diff, lead, lead, OPT | NEG1, "a size (integer >= 0; -1 for a scalar)", -1, INT64_LIMIT),
    L(weight_diff, lead_differ, lead_differ, OPT | NEG1, "a count (integer >= 0)", -1, INT64_LIMIT),
    S(weight_diff, ranges, ranges, NUL | OPT, "index ranges like \"3-5, 17\"", NULL),
    U(weight_diff, differing, differing, OPT, "a count (integer >= 0)"),
    U(weight_diff, numel, numel, OPT, "a count (integer >= 0)"),
    {.name = "first", .type = SK_SUB, .flags = OPT, .off = offsetof(weight_diff, first),
     .has = offsetof(weight_diff, has_first), .what = "the first differing element",
     .sub = &session_weight_first_table},
    N(weight_diff, max_abs, max_abs, OPT | NEG1, "a number (>= 0; -1 for none)"),
    U(weight_diff, nonfinite, nonfinite, OPT, "a count (integer >= 0)"),
    S(weight_diff, note, note, NUL | OPT, "a string", NULL),
};
static TABLE(session_weight_diff_table, weight_diff, "a weight difference", weight_diff_rows);

static const skey weights_cmp_rows[] = {
    U(weights_cmp, program, program, OPT, "a count (integer >= 0)"),
    U(weights_cmp, compared, compared, OPT, "a count (integer >= 0)"),
    U(weights_cmp, equal, equal, OPT, "a count (integer >= 0)"),
    U(weights_cmp, folded, folded, OPT, "a count (integer >= 0)"),
    S(weights_cmp, not_compared, not_compared, NUL | OPT, "why the weights were not compared", NULL),
    LIST(weights_cmp, differ, diffs, ndiffs, OPT, "a list of weight differences", session_weight_diff_table),
};
static TABLE(session_weights_cmp_table, weights_cmp, "the weights compared", weights_cmp_rows);

static const skey eager_info_rows[] = {
    S(eager_info, program, program, NUL, "a file path", NULL),
    S(eager_info, sha256, sha256, NUL | OPT, "a SHA-256 in hex", NULL),
    S(eager_info, dir, dir, NUL | OPT, "a folder", NULL),
    S(eager_info, device, device, NUL | OPT, "a device name", NULL),
    B(eager_info, float64, float64, OPT),
    N(eager_info, atol, atol, OPT | NEG1, "a tolerance (number >= 0; -1 for the dtype's default)"),
    N(eager_info, rtol, rtol, OPT | NEG1, "a tolerance (number >= 0; -1 for the dtype's default)"),
    L(eager_info, calls, calls, OPT | NEG1, "a count (integer >= 0)", -1, INT64_LIMIT),
    L(eager_info, refs, refs, OPT | NEG1, "a count (integer >= 0)", -1, INT64_LIMIT),
    S(eager_info, computed_by, computed_by, NUL | OPT, "runner or python", NULL),
    S(eager_info, map, map, NUL | OPT, "compiler or names", NULL),
    S(eager_info, map_note, map_note, NUL | OPT, "a string", NULL),
    {.name = "weights", .type = SK_SUB, .flags = OPT, .off = offsetof(eager_info, weights),
     .has = offsetof(eager_info, weights) + offsetof(weights_cmp, present),
     .what = "the program's weights against the package's", .sub = &session_weights_cmp_table},
};
static TABLE(session_eager_table, eager_info, "the eager reference", eager_info_rows);

static const skey counts_rows[] = {
    L(event_counts, events, events, NEED | NEG1, "a count of events (integer >= 0)", 0, INT64_LIMIT),
    L(event_counts, kernels, kernels, NEED | NEG1, "a count of kernel events (integer >= 0)", 0, INT64_LIMIT),
};
static TABLE(session_counts_table, event_counts, "the event counts", counts_rows);

static const skey index_rows[] = {
    U(event_index, bytes, bytes, NEED, "the file's size in bytes (integer >= 0)"),
    {.name = "at", .type = SK_NUMS, .flags = NEED, .off = offsetof(event_index, at), .cnt = offsetof(event_index, nat),
     .what = "a list of byte offsets"},
    {.name = "len", .type = SK_NUMS, .flags = NEED, .off = offsetof(event_index, len), .cnt = offsetof(event_index, nlen),
     .what = "a list of lengths in bytes"},
};
static TABLE(session_index_table, event_index, "the route's index", index_rows);

static const skey top_rows[] = {
    {.name = "format_version", .type = SK_CUSTOM, .flags = H, .what = "a version like \"1.0\"", .custom = SC_FORMAT},
    S(session, tool_version, tool_version, NUL, "a version string", NULL),
    S(session, torch_version, torch_version, NUL, "a version string", NULL),
    S(session, host, host, NUL, "a host name", NULL),
    S(session, gpu, gpu, NUL, "a GPU name", NULL),
    N(session, gpu_peak_gbps, gpu_peak_gbps, OPT | NEG1, "a bandwidth in GB/s (number > 0; -1 for unknown)"),
    S(session, title, title, NUL | OPT, "a title", NULL),
    {.name = "package", .type = SK_SUB, .flags = H | OPT, .off = offsetof(session, package), .what = "package",
     .sub = &session_package_table},
    S(session, device, device, NUL, "a device name", NULL),
    I(session, printer_level, printer_level, NEG1, "a printer level", -1, 3),
    S(session, mode, mode, NUL, "a mode (printer, interpose, reinstrument)", NULL),
    L(session, hidden_kernels, hidden_kernels, OPT | NEG1, "a count of launches (integer >= -1)", -1, INT64_LIMIT),
    S(session, hidden_why, hidden_why, NUL | OPT, "where the hidden launches are and why", NULL),
    U(session, values_budget, values_budget, OPT, "a size in bytes (integer >= 0)"),
    {.name = "eager", .type = SK_SUB, .flags = OPT, .off = offsetof(session, eager),
     .has = offsetof(session, eager) + offsetof(eager_info, present), .what = "the eager reference",
     .sub = &session_eager_table},
    {.name = "flags", .type = SK_KV, .flags = H | OPT, .off = offsetof(session, flags), .cnt = offsetof(session, nflags),
     .what = "flags"},
    LIST(session, inputs, inputs, ninputs, H | OPT, "a list of inputs", session_input_table),
    LIST(session, checks, checks, nchecks, H | OPT, "a list of checks", session_check_table),
    LIST(session, bookmarks, bookmarks, nbookmarks, H | OPT, "a list of bookmarks", session_bookmark_table),
    {.name = "notes", .type = SK_STRS, .flags = H | OPT, .off = offsetof(session, notes), .cnt = offsetof(session, nnotes),
     .what = "a list of notes", .item = "a note (a string)", .dflt = ""},
    LIST(session, narration, narration, nnarration, H | OPT, "a list of narration steps", session_narration_table),
    {.name = "provenance", .type = SK_SUB, .flags = OPT, .off = offsetof(session, prov), .what = "provenance",
     .sub = &prov_table},
    S(session, end_state, end_state, NUL, "how the run ended (complete, failed, stopped, signal N, no-reference, ...)", NULL),
    S(session, repro, repro, NUL | OPT, "the repro folder made from this run (aotidbg repro)", NULL),
    I(session, rank, rank, OPT | NEG1, "this session's rank (aotidbg run --ranks)", -1, 65535),
    I(session, world_size, world_size, OPT | NEG1, "the number of ranks of the run", -1, 65536),
    {.name = "counts", .type = SK_SUB, .flags = OPT, .off = offsetof(session, counts), .what = "the event counts",
     .sub = &session_counts_table, .custom = SC_COUNTS},
    {.name = "index", .type = SK_SUB, .flags = OPT, .off = offsetof(session, index), .what = "the route's index",
     .sub = &session_index_table, .custom = SC_INDEX},
    {.name = "events", .type = SK_CUSTOM, .flags = H, .what = "a list of events", .custom = SC_EVENTS},
};
TABLE(session_top_table, session, "the session", top_rows);

const skey *skey_find(const stable *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->keys[i].name, name))
            return &t->keys[i];
    return NULL;
}

#define AT(rec, off, type) ((const type *)((const char *)(rec) + (off)))

int skey_is_set(const skey *k, const void *rec)
{
    switch (k->type) {
    case SK_STR: return *AT(rec, k->off, char *) != NULL;
    case SK_INT: return *AT(rec, k->off, int) >= 0;
    case SK_I64: return *AT(rec, k->off, int64_t) >= 0;
    case SK_NUM: return !(*AT(rec, k->off, double) < 0);
    case SK_U64: return *AT(rec, k->off, uint64_t) != 0;
    case SK_BOOL: case SK_ENUM: return *AT(rec, k->off, int) != 0;
    case SK_DIMS: return *AT(rec, k->cnt, int) > 0;
    case SK_NUMS: case SK_STRS: case SK_KV: case SK_LIST:
        return *AT(rec, k->cnt, size_t) > 0 && *AT(rec, k->off, void *);
    case SK_SUB:
        if (k->has)
            return *AT(rec, k->has, int);
        for (int i = 0; i < k->sub->n; i++)
            if (skey_is_set(&k->sub->keys[i], AT(rec, k->off, char)))
                return 1;
        return 0;
    case SK_CUSTOM: return 1;
    }
    return 0;
}
