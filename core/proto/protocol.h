/* protocol.h — the runner protocol, version 2 (PROTO_VERSION): how aotidbg (the front end)
 * and aotidbg-runner talk over a socketpair (the runner's fd 3).
 *
 * Framing: every message is one frame:
 *   u32 length (little-endian; bytes after this field, at most PROTO_MAX_FRAME)
 *   u8  type   (proto_type)
 *   fields, in the order of the message's rows in protocol_table.c (the schema:
 *   one row per field, with what each message means), encoded as:
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
 *  - An input whose file does not hold what its INPUT says (a torch.save file
 *    with another dtype, shape or key) is ERROR(-1, "input N: ...") then DONE 2
 *    (PROTO_DONE_BAD_INPUT): the model never ran. A front end that knows only
 *    0 and 1 reads it as a failure.
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

typedef enum {             /* fields and meaning: protocol_table.c, one row per field */
    /* runner -> front end */
    PROTO_HELLO = 1,       /* the runner's version, torch's, its pid, the GPUs */
    PROTO_LOADED = 2,      /* the model loaded: input/output counts, input names */
    PROTO_KERNEL = 3,      /* a kernel boundary (before or after) */
    PROTO_TENSOR = 4,      /* one tensor of a kernel, or an output */
    PROTO_STOPPED = 5,     /* stopped at a kernel boundary, waiting for CONTROL */
    PROTO_ERROR = 6,       /* a failure, and the kernel blamed */
    PROTO_DONE = 7,        /* the end: 0 the model ran, 1 it failed, 2 an input was bad (proto_done_status) */
    PROTO_COMPARE = 8,     /* an eager check of one of a kernel's outputs */
    PROTO_ALIAS = 9,       /* an output that is another output or an input */
    PROTO_WEIGHT_DIFF = 10, /* one program weight against the package's constant (--eager) */
    /* front end -> runner */
    PROTO_LOAD = 16,       /* the .so, its cubins, the device, flags */
    PROTO_INPUT = 17,      /* one model input: dtype, shape, how to fill it */
    PROTO_CONTROL = 18,    /* what to run to and what to break on */
    PROTO_RUN = 19,        /* no fields */
    PROTO_QUIT = 20,       /* no fields */
    PROTO_CONSTANT = 21,   /* one weight kept apart from the .so */
    PROTO_REFERENCE = 22,  /* an eager value to compare a kernel's output with */
    PROTO_LAUNCHES = 23,   /* the package's launches, with the tensors saved before each */
    PROTO_CAPTURE = 26,    /* write one launch in full to a folder (aotidbg repro) */
    PROTO_WEIGHT_CHECK = 27, /* one of the program's weights to compare with the package's (--eager) */
    /* a plan file for `aotidbg-runner --eager-ref PLAN` (protocol_table.c says its order) */
    PROTO_EAGER_RUN = 24,  /* the exported program, device, output folder */
    PROTO_EAGER_NODE = 25, /* one graph node: target, arguments, outputs */
    /* front end -> remote agent (aotidbg-runner --serve) */
    PROTO_FREAD = 32,      /* read part of a file -> REPLY */
    PROTO_SHA256 = 33,     /* hash a file -> REPLY */
    PROTO_FACTS = 34,      /* the box's facts -> REPLY */
    PROTO_EXTRACT = 35,    /* unpack entries of a package -> REPLY */
    PROTO_PUT = 36,        /* one piece of a file to write -> REPLY after the last */
    PROTO_SPAWN = 37,      /* start a runner -> its frames, then EXIT */
    PROTO_SIGNAL = 38,     /* pause or kill the spawned runner */
    PROTO_PING = 39,       /* no fields: keeps the agent's idle limit from ending it */
    /* remote agent -> front end */
    PROTO_REPLY = 48,      /* the answer to one request */
    PROTO_LOG = 49,        /* the runner's stdout or stderr as it came */
    PROTO_EXIT = 50,       /* how the spawned runner ended */
} proto_type;

enum { PROTO_SPAWN_DETERMINISTIC = 1 };   /* CUDA_LAUNCH_BLOCKING=1 ... in the runner's environment */
enum { PROTO_SIGNAL_PAUSE = 0, PROTO_SIGNAL_KILL = 1 };

enum {
    PROTO_LOAD_BLOCKING = 1,
    PROTO_LOAD_ALLOC = 2,  /* TENSORs carry where their elements sit (the tensor table of a memcheck run) */
    PROTO_LOAD_ROUND_STATS = 4, /* in a while_loop's second and later rounds a kernel the run does not stop
                                   at sends statistics without values (values still for a tensor holding
                                   NaN/Inf), and its KERNEL(before) says STATS_ONLY: the rounds a session
                                   folds keep no values, and reading them was most of a wide loop's cost */
};

enum {                     /* KERNEL flags */
    PROTO_KERNEL_STATS_ONLY = 1, /* before: its tensors carry no values unless non-finite (ROUND_STATS) */
};

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

typedef enum {
    PROTO_DONE_OK = 0,        /* the model ran */
    PROTO_DONE_FAILED = 1,    /* it failed (ERROR says how) */
    PROTO_DONE_BAD_INPUT = 2, /* an input could not be built from its file: bad input */
} proto_done_status;

typedef struct {
    proto_type type;
    union {
        struct { uint32_t version; const char *runner_version, *torch_version; int64_t pid;
                 int64_t cuda_device_count; const char *gpu_name, *gpu_cc;
                 double gpu_peak_gbps; /* memory clock x bus width, -1 unknown */ } hello;
        struct { uint32_t n_inputs, n_outputs, n_names; const char **input_names; } loaded;
        struct { int64_t index; const char *name; uint8_t phase, status; double t_us, duration_us;
                 const char *source, *branch; /* NULL encodes as "" */
                 double device_us; const char *device_note; /* NULL encodes as "" */
                 uint32_t flags; /* PROTO_KERNEL_*; unknown bits are ignored */ } kernel;
        struct { int64_t kernel_index; tensor_rec t; } tensor;  /* t.phase carries the phase */
        struct { int64_t kernel_index; uint8_t phase, reason; } stopped;
        struct { int64_t kernel_index; const char *text; } error;
        struct { int64_t status; } done;
        struct { int64_t kernel_index; eager_check c; } compare;
        struct { const char *kernel, *node, *path, *dtype; uint32_t occurrence; uint64_t offset; int ndim;
                 int64_t *shape; double atol, rtol, scale;
                 /* added later ("" none): the kernel's tensor that holds the node (the compiler's
                    record: only it is compared), and the node's float64 value (.npy data, float64) */
                 const char *tensor, *path64; uint64_t offset64; } reference;
        struct { uint32_t output; const char *of; } alias;
        weight_diff wdiff;
        struct { const char *so_path, *cubin_dir, *device; uint32_t flags; uint64_t max_values;
                 uint64_t output_values; } load;
        struct { uint32_t index; input_spec spec; const char *raw_path; } input;
        struct { uint8_t cmd; int64_t arg; const char *name; uint32_t break_flags; } control;
        struct { const char *fqn, *path, *dtype; uint64_t offset; int ndim; int64_t *shape, *strides;
                 int64_t storage_offset; } constant;
        struct { uint32_t n; const char **kernels; const uint32_t *before;
                 uint32_t nbranches; const char **branch_kernels, **branch_names; } launches;
        struct { const char *dir, *kernel; int64_t index; uint32_t occurrence; const char *constants; } capture;
        struct { const char *archive, *fqn, *record, *dtype; int ndim; int64_t *shape, *strides;
                 int64_t storage_offset; } wcheck;
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
