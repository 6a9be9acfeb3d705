/* protocol.h — the runner protocol, version 1: how aotidbg (the front end)
 * and aotidbg-runner talk over a socketpair (the runner's fd 3).
 *
 * Framing: every message is one frame:
 *   u32 length (little-endian; bytes after this field, at most PROTO_MAX_FRAME)
 *   u8  type   (proto_type)
 *   fields, in the order given per message below, encoded as:
 *     u8/u32/u64/i64: little-endian; f64: IEEE-754 binary64 little-endian
 *     str: u32 byte length + bytes (no NUL; at most PROTO_MAX_STR)
 *     i64[]: u32 count + items (count at most TENSOR_MAX_DIMS for shapes)
 *     f64[]: u32 count + items (at most PROTO_MAX_VALUES)
 *     bytes: u32 length + bytes (may hold NUL; at most PROTO_MAX_DATA)
 * A frame whose fields do not exactly fill its length is malformed.
 *
 * Conversation: the runner sends HELLO; the front end sends LOAD, then one
 * INPUT per model input, then CONTROL (what to run to / break on) and RUN.
 * The runner answers LOADED (or ERROR + DONE), then streams KERNEL/TENSOR
 * events; when it stops at a kernel boundary it sends STOPPED and blocks
 * until the next CONTROL. It ends with OUTPUT messages and DONE. QUIT ends it
 * at any stop. Version mismatches are refused at HELLO.
 *
 * Runner behaviour (core/runner/hooks.h has the details):
 *  - STOPPED(k, phase 0) comes at kernel k's first before-hook: KERNEL(k,
 *    before) is out, k's TENSOR(before) messages follow the next CONTROL.
 *    A CONTROL with cmd STEP before RUN first gives STOPPED(-1, 0, START).
 *  - A NaN stop (BREAK_ON_NAN, once per run) is STOPPED(k, phase 1, NAN) once
 *    kernel k's after-tensors are all sent and KERNEL(k, after, status nan).
 *    A divergence stop (BREAK_ON_DIVERGE, once per run) is STOPPED(k, 1,
 *    DIVERGE) after the COMPAREs of k, one of which differs, and KERNEL(k, after).
 *  - Failures: ERROR (kernel_index = the kernel blamed, or -1) then DONE 1;
 *    with BREAK_ON_ERROR a STOPPED(reason ERROR) comes between them. In
 *    blocking mode a CUDA error reads "CUDA error: <cudaGetErrorString> (code N)"
 *    and is followed by KERNEL(k, after, status error).
 *  - The runner exits right after DONE (0, or 1 when the model failed) and on
 *    QUIT (0, no DONE); a restart is a fresh process.
 *  - LOAD.max_values above PROTO_MAX_VALUES is clamped to it.
 *  - SIGUSR1 (the front end's ^C) while running: STOPPED(k, 0, PAUSE) at the
 *    next kernel's start, as if stepping had been asked for (a run with no
 *    kernel boundaries, or stuck inside a kernel, does not stop).
 *
 * Remote (protocol 2): `aotidbg-runner --serve` is an agent on the GPU box,
 * started through ssh, speaking this protocol on its stdin/stdout. It sends
 * HELLO (pid = its own), serves requests (FREAD, SHA256, FACTS, EXTRACT,
 * PUT), each answered by one REPLY in order, and on SPAWN starts a runner as
 * its child and relays: the runner's frames pass through unchanged (so the
 * conversation above holds), front-end frames of types 16..20 go to it, its
 * stdout/stderr come as LOG, and its end as EXIT. SIGNAL pauses or kills it.
 * The agent exits, killing its runner and removing its folder, when its
 * stdin closes or nothing (not even PING) arrived for its idle limit.
 *
 * Untrusted bytes: proto_decode() never reads past len, caps every count and
 * string, and reports what was malformed; it is fuzzed (tests/fuzz).
 * Ownership: decoded strings and arrays live in the caller's arena.
 * Strings: encoding treats NULL as ""; decoded strings are never NULL ("" when
 * empty) and may not hold NUL bytes. Enums (phase, status, reason, fill, cmd,
 * flags bytes) are range-checked; TENSOR shape and strides counts must match.
 * Decoding INPUT also sets u.input.spec.file = u.input.raw_path. */
#ifndef AOTIDBG_PROTOCOL_H
#define AOTIDBG_PROTOCOL_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "model.h"
#include "strbuf.h"
#include "eager_plan.h"

#define PROTO_VERSION     2              /* 2: the remote agent's messages (32..50) */
#define PROTO_FD          3              /* the runner's end of the socketpair */
#define PROTO_MAX_FRAME   (64U << 20)
#define PROTO_MAX_STR     (1U << 20)
#define PROTO_MAX_VALUES  (4U << 20)
#define PROTO_MAX_NAMES   (1U << 16)     /* input names in LOADED, launches in one LAUNCHES */
#define PROTO_MAX_DATA    (4U << 20)     /* bytes fields (FREAD replies, PUT, LOG) */

typedef enum {
    /* runner -> front end */
    PROTO_HELLO = 1,     /* u32 version, str runner_version, str torch_version, i64 pid,
                            i64 cuda_device_count, str gpu_name, str gpu_cc */
    PROTO_LOADED = 2,    /* u32 n_inputs, u32 n_outputs, str[] input_names (u32 count + strs) */
    PROTO_KERNEL = 3,    /* i64 index, str name, u8 phase (0 before, 1 after), u8 status
                            (kernel_status), f64 t_us (since RUN), f64 duration_us (after; -1 else),
                            str source (how the kernel was seen: "printer" hooks or "interpose"d
                            cuLaunchKernel; added later: a frame that ends before it decodes as ""),
                            str branch (the subgraph the launch sits in: "true_graph_0",
                            "while_loop_body_graph_0", nested ones "outer/inner"; "" the main
                            graph; added later, decoded as "" when the frame ends before it),
                            f64 device_us (after: the kernel's own time, device_timer.h in the
                            runner; -1 unknown, and from frames that end before it),
                            str device_note (after: why device_us is -1, or what it includes;
                            "" nothing to say, and from frames that end before it) */
    PROTO_TENSOR = 4,    /* i64 kernel_index (-1 for outputs), u8 phase, tensor (below) */
    PROTO_STOPPED = 5,   /* i64 kernel_index, u8 phase, u8 reason (proto_stop_reason) */
    PROTO_ERROR = 6,     /* i64 kernel_index (-1 none), str text */
    PROTO_DONE = 7,      /* i64 status (0 the model ran, 1 it failed) */
    PROTO_COMPARE = 8,   /* i64 kernel_index, eager check (below): a graph node's eager value against
                            the kernel's output holding it, one per REFERENCE of the kernel, sent
                            after its last after-tensor and before KERNEL(after) */
    PROTO_ALIAS = 9,     /* u32 output, str of: after that output's TENSOR, when the model returned
                            a tensor it already returned or was given ("output0", "input 0") */
    /* front end -> runner */
    PROTO_LOAD = 16,     /* str so_path, str cubin_dir, str device, u32 flags (PROTO_LOAD_*),
                            u64 max_values */
    PROTO_INPUT = 17,    /* u32 index, str dtype, str device, i64[] shape, u8 fill (fill_kind),
                            u64 seed, f64 value, str raw_path (FILL_FILE: raw bytes, row-major) */
    PROTO_CONTROL = 18,  /* u8 cmd (proto_cmd), i64 arg (kernel index), str name, u32 break_flags */
    PROTO_RUN = 19,      /* no fields */
    PROTO_QUIT = 20,     /* no fields */
    PROTO_CONSTANT = 21, /* str fqn, str path, u64 offset, str dtype, i64[] shape, i64[] strides,
                            i64 storage_offset: one weight kept apart from the .so (pickle_weights
                            packages, a user's weights file), sent after LOADED and before RUN; the
                            storage's element 0 sits at byte `offset` of `path`; dtype "" = the
                            model's own for that constant; strides count equals shape's */
    PROTO_REFERENCE = 22,/* str kernel, u32 occurrence, str node, str path, u64 offset, str dtype,
                            i64[] shape, f64 atol, f64 rtol, f64 scale: the eager value of graph node
                            `node`, which the occurrence-th launch (from 0, main graph) of `kernel`
                            computes, as row-major little-endian `dtype` data at byte `offset` of `path`
                            (a .npy's data); atol/rtol < 0: the compared tensor's dtype default, with
                            atol at least rtol * scale (the largest finite |value| the kernel combines,
                            as eager computed it). Sent after LOADED and before RUN */
    PROTO_LAUNCHES = 23, /* u32 n, then n times (str kernel, u32 before): the package's launches in
                            wrapper.cpp order with the tensors the printer saves before each; sent
                            after LOADED and before RUN (several append). A stop due before a
                            launch with before > 0 waits until those tensors are sent, so the
                            front end has what the kernel is about to consume (added later: a
                            runner that never gets it stops at the first before-hook) */
    /* a plan file for `aotidbg-runner --eager-ref PLAN` (core/eager/eager_program.h writes it, the
       runner computes the eager reference with libtorch): EAGER_RUN, INPUT per user input (spec.name =
       its placeholder), CONSTANT per weight/buffer/constant (fqn = its placeholder, path = the archive
       record, offset 0), then EAGER_NODE per graph node in order */
    PROTO_EAGER_RUN = 24,  /* str program (the torch.export.save file), str device, u8 float64,
                              str out_dir, str[] keep (u32 count + strs: the values written as .npy),
                              str[] inputs (the placeholders the INPUTs feed, in order) */
    PROTO_EAGER_NODE = 25, /* str name, str target ("torch.ops.aten.add.Tensor"), u32 nargs, then per
                              argument: str name (the schema's), u8 kind (eager_arg_kind), str[] names
                              (tensors; "" = None in an optional list), i64[] ints, f64[] floats, str
                              text; u32 nouts, then per output: str name, u32 ret (the schema return),
                              i64 elem (-1: the return itself, else its index in a Tensor[] return) */
    /* front end -> remote agent (aotidbg-runner --serve) */
    PROTO_FREAD = 32,    /* str path, u64 offset, u32 len -> REPLY(value = file size, data = the bytes,
                            fewer at the end of the file; len at most PROTO_MAX_DATA) */
    PROTO_SHA256 = 33,   /* str path -> REPLY(text = hex SHA-256) */
    PROTO_FACTS = 34,    /* str so_path ("" = none) -> REPLY(text = "key\tvalue\n" lines: the box's
                            CUDA driver, CPU flags, debug environment, runner build; with so_path,
                            whether that .so loads against the box's libtorch) */
    PROTO_EXTRACT = 35,  /* str package path, str entry-name prefixes ("\n"-separated) -> REPLY(text =
                            the folder on the box holding the entries, root folder stripped;
                            value = files written) */
    PROTO_PUT = 36,      /* str name (a plain file name), u64 offset, bytes data, u8 last -> after
                            the last piece, REPLY(text = the file's path on the box) */
    PROTO_SPAWN = 37,    /* u32 flags (PROTO_SPAWN_*) -> the runner's frames, then EXIT */
    PROTO_SIGNAL = 38,   /* u8 what (PROTO_SIGNAL_*) to the spawned runner */
    PROTO_PING = 39,     /* no fields: keeps the agent's idle limit from ending it */
    /* remote agent -> front end */
    PROTO_REPLY = 48,    /* u8 request type, u8 ok, i64 value, str text (the error when not ok), bytes data */
    PROTO_LOG = 49,      /* u8 stream (0 stdout, 1 stderr), bytes: the runner's output as it came */
    PROTO_EXIT = 50,     /* u8 how (0 exited, 1 killed by a signal), i64 exit code or signal number */
} proto_type;

enum { PROTO_SPAWN_DETERMINISTIC = 1 };   /* CUDA_LAUNCH_BLOCKING=1 ... in the runner's environment */
enum { PROTO_SIGNAL_PAUSE = 0, PROTO_SIGNAL_KILL = 1 };

/* eager check encoding: str node, str tensor, u8 verdict (eager_verdict), u64 compared,
 * u64 differing, i64 first, f64 got, f64 want, f64 max_abs, f64 max_rel, i64 max_at,
 * f64 atol, f64 rtol, str note. */

/* tensor encoding: str name, str dtype, str device, i64[] shape, i64[] strides,
 * u8 has_stats, then if has_stats: u64 numel, finite, nan, posinf, neginf,
 * zeros, subnormal, f64 min, max, mean, std; then f64[] values, u8 values_complete;
 * then, if has_stats and the runner computed them (added later: a frame that ends
 * before them decodes with stats.has_at 0), i64 min_at, max_at, nonfinite_at
 * (row-major flat indices, -1 none; anything else outside 0..numel-1 is malformed). */

enum { PROTO_LOAD_BLOCKING = 1 };

enum {                     /* break flags (the SET_BREAKS argument) */
    BREAK_EACH_KERNEL = 1, /* stop before every kernel (stepping) */
    BREAK_ON_ERROR = 2,
    BREAK_ON_NAN = 4,
    BREAK_ON_DIVERGE = 8,  /* stop once after the first kernel a COMPARE of which differs */
    BREAK_ON_INF = 16,     /* stop once after the first kernel that writes +Inf, or -Inf beside other
                              non-finite values (-Inf alone is what an attention mask writes) */
    BREAK_ON_NONFINITE = 32, /* stop once after the first kernel that writes any NaN or +-Inf, masks too */
};

/* 1 when a kernel whose outputs held `held` (NONFIN_*, model.h) is a stop for the
 * break flags: BREAK_ON_NAN on NaN only, BREAK_ON_INF on +Inf or a -Inf that
 * is not alone, BREAK_ON_NONFINITE on any. (A NaN stop is one stop a run.) */
static inline int proto_nonfinite_breaks(int held, uint32_t flags)
{
    return ((flags & BREAK_ON_NAN) && (held & NONFIN_NAN)) ||
           ((flags & BREAK_ON_INF) && ((held & NONFIN_POSINF) || ((held & NONFIN_NEGINF) && !nonfinite_is_mask(held)))) ||
           ((flags & BREAK_ON_NONFINITE) && held);
}

typedef enum {
    PROTO_CMD_STEP = 0,       /* run to the next kernel boundary */
    PROTO_CMD_CONTINUE = 1,   /* run until a break or the end */
    PROTO_CMD_RUN_TO_INDEX = 2,
    PROTO_CMD_RUN_TO_NAME = 3,
} proto_cmd;

typedef enum {
    PROTO_STOP_STEP = 0, PROTO_STOP_BREAK_INDEX, PROTO_STOP_BREAK_NAME,
    PROTO_STOP_NAN, PROTO_STOP_ERROR, PROTO_STOP_START,
    PROTO_STOP_PAUSE,      /* SIGUSR1 asked for a stop: at the next kernel's start */
    PROTO_STOP_DIVERGE,    /* BREAK_ON_DIVERGE: after the kernel, once its COMPAREs and KERNEL(after) are out */
} proto_stop_reason;

typedef struct {
    proto_type type;
    union {
        struct { uint32_t version; const char *runner_version, *torch_version; int64_t pid;
                 int64_t cuda_device_count; const char *gpu_name, *gpu_cc; } hello;
        struct { uint32_t n_inputs, n_outputs, n_names; const char **input_names; } loaded;
        struct { int64_t index; const char *name; uint8_t phase, status; double t_us, duration_us;
                 const char *source, *branch; /* NULL encodes as "" */
                 double device_us; const char *device_note; /* NULL encodes as "" */ } kernel;
        struct { int64_t kernel_index; tensor_rec t; } tensor;  /* t.phase carries the phase */
        struct { int64_t kernel_index; uint8_t phase, reason; } stopped;
        struct { int64_t kernel_index; const char *text; } error;
        struct { int64_t status; } done;
        struct { int64_t kernel_index; eager_check c; } compare;
        struct { const char *kernel, *node, *path, *dtype; uint32_t occurrence; uint64_t offset; int ndim;
                 int64_t *shape; double atol, rtol, scale; } reference;
        struct { uint32_t output; const char *of; } alias;
        struct { const char *so_path, *cubin_dir, *device; uint32_t flags; uint64_t max_values; } load;
        struct { uint32_t index; input_spec spec; const char *raw_path; } input;
        struct { uint8_t cmd; int64_t arg; const char *name; uint32_t break_flags; } control;
        struct { const char *fqn, *path, *dtype; uint64_t offset; int ndim; int64_t *shape, *strides;
                 int64_t storage_offset; } constant;
        struct { uint32_t n; const char **kernels; const uint32_t *before; } launches;
        struct { const char *program, *device, *out_dir; uint8_t float64; uint32_t nkeep, ninputs;
                 const char **keep, **inputs; }
            eager_run;
        struct { const char *name, *target; uint32_t nargs, nouts; proto_eager_arg *args; proto_eager_out *outs; }
            eager_node;
        struct { const char *path; uint64_t offset; uint32_t len; } fread;
        struct { const char *path; } sha256, facts;          /* facts: path is the so_path */
        struct { const char *path, *prefixes; } extract;
        struct { const char *name; uint64_t offset; const void *data; uint32_t ndata; uint8_t last; } put;
        struct { uint32_t flags; } spawn;
        struct { uint8_t what; } signal;
        struct { uint8_t request, ok; int64_t value; const char *text; const void *data; uint32_t ndata; } reply;
        struct { uint8_t stream; const void *data; uint32_t ndata; } log;
        struct { uint8_t how; int64_t code; } exit;
    } u;
} proto_msg;

/* Appends one encoded frame to out. Returns 0, or -1 if a field is over a cap (err). */
int proto_encode(strbuf *out, const proto_msg *m, strbuf *err);
/* Decodes the frame at buf[0..len). Returns bytes consumed (> 0), 0 when buf
 * holds less than one whole frame, -1 when malformed (err says what and at
 * which byte offset of the frame). Strings and arrays are allocated in a. */
long proto_decode(const unsigned char *buf, size_t len, proto_msg *m, arena *a, strbuf *err);
const char *proto_type_name(proto_type t);

#endif
