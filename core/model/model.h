/* model.h — the in-memory debugging session, the one model behind every view.
 *
 * A live run (runner_client.c) appends events to it as they arrive; a replay
 * (session_read.c) builds the same structure from a YAML file; the panes and
 * `replay --dump` read it. Nothing here knows about curses, YAML or torch.
 *
 * Ownership: a session owns everything reachable from it. All strings and
 * arrays inside are allocated from s->arena (see arena.h) and freed together
 * by session_free(). Callers never free parts and never keep pointers past
 * session_free(). Strings are UTF-8, NUL-terminated, never NULL unless the
 * field comment says "may be NULL".
 *
 * Thread safety: none. One thread owns a session. */
#ifndef AOTIDBG_MODEL_H
#define AOTIDBG_MODEL_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"

#define SESSION_FORMAT_MAJOR 1
#define SESSION_FORMAT_MINOR 0
#define AOTIDBG_VERSION "0.1.0"
#define TENSOR_MAX_DIMS 16

typedef struct { const char *key, *value; } kv_pair;

typedef enum { PHASE_BEFORE = 0, PHASE_AFTER = 1, PHASE_OUTPUT = 2 } tensor_phase;

/* One pass over a tensor gives all of these (host_stats.c). std is the
 * unbiased (n-1) standard deviation, as torch.std computes by default; min,
 * max, mean and std skip NaN and ±Inf (the counts report those). When every
 * element is non-finite, or numel is 0, finite == 0 and min..std are NaN.
 * Positions (at, when has_at is 1; else unknown: older sessions, stats made
 * by hand) are row-major flat indices of the first element holding the
 * minimum, the maximum and NaN/±Inf, -1 when there is none; "first" is in
 * logical order on the host, in memory order on CUDA (the same for
 * contiguous tensors). */
typedef struct { int64_t min, max, nonfinite; } stats_at;
typedef struct {
    uint64_t numel, finite;
    uint64_t nan, posinf, neginf, zeros, subnormal;
    double min, max, mean, std;
    int has_at;
    stats_at at;
} tensor_stats;

/* Where a tensor's elements sat at a launch, as the runner saw them: the
 * data pointer and the allocation (storage) holding it, so that an address
 * a memory checker reports can be named (core/analysis/addr_map.h). */
typedef struct {
    uint64_t data;             /* address of element [0, ..., 0]; 0 for an empty tensor */
    uint64_t base;             /* the storage's first byte (data - storage_offset * itemsize) */
    uint64_t bytes;            /* the storage's size in bytes */
} tensor_alloc;

typedef struct {
    const char *name;          /* "buf0", "arg4_1", "output0" */
    const char *user_name;     /* the user's name of a model input or output ("x", "out"); may be NULL */
    const char *alias_of;      /* an output that is another output or an input ("output0",
                                  "input 0"); may be NULL */
    tensor_phase phase;
    int ndim;                  /* 0..TENSOR_MAX_DIMS */
    int64_t *shape, *strides;  /* ndim entries each; NULL when ndim == 0 */
    const char *dtype;         /* "float32", "bfloat16", "int64", "bool", ... */
    const char *device;        /* "cpu", "cuda:0" */
    int has_stats;
    tensor_stats stats;
    size_t nvalues;            /* sample of values in logical (row-major) order; complex dtypes:
                                  (real, imaginary) pairs, two values an element (dtype_lanes) */
    double *values;            /* may be NULL when nvalues == 0 */
    int values_complete;       /* 1 when values holds every element */
    int values_budget_cut;     /* 1 when the value budget (--values-budget) dropped values the
                                  runner sent: values is then a prefix sample or empty */
    int values_skipped;        /* 1 when the runner read no values, though asked (--values): a while_loop
                               round after the first that the run did not stop at, with no NaN/Inf
                               in the tensor (PROTO_LOAD_ROUND_STATS; --loop-values all reads them) */
    int has_alloc;             /* 1 when the runner said where the elements sit (alloc) */
    tensor_alloc alloc;
} tensor_rec;

typedef enum {
    EV_KERNEL = 0,
    EV_ERROR,
    EV_OUTPUT,
    EV_RUNNER_EXIT,
    EV_LOG,                    /* captured runner stdout/stderr text */
    EV_DIVERGENCE,             /* the first kernel output that departs from the eager reference */
    EV_NAN,                    /* the first kernel output that gains NaN/Inf, down to the element */
    EV_MEMCHECK,               /* one compute-sanitizer report (--memcheck), the address named by tensor */
    EV_FOLD,                   /* while_loop iterations that repeated the same kernels with nothing anomalous */
    EV__COUNT
} event_kind;

/* Kernel kind, under the YAML key `type`. */
typedef enum { KTYPE_UNKNOWN = 0, KTYPE_TRITON, KTYPE_CPP, KTYPE_EXTERN } kernel_type;

/* Kernel status. */
typedef enum {
    KSTAT_PENDING = 0,         /* seen "before" only (running or stopped at) */
    KSTAT_OK,
    KSTAT_NAN,                 /* an after-tensor holds NaN or Inf */
    KSTAT_ERROR,               /* the first failing kernel (blocking mode) */
} kernel_status;

/* How one graph node's eager value compares with the kernel output that
 * holds it (--eager; tensor_close.h gives the rule). */
typedef enum {
    EAGER_CLOSE = 0,           /* within the tolerance */
    EAGER_DIFFERS,             /* beyond it: the kernel departs from eager */
    EAGER_UNMATCHED,           /* no output of the kernel has the node's shape (nothing compared) */
    EAGER_UNREADABLE,          /* the reference or the tensor could not be read (note says why) */
} eager_verdict;

typedef struct {
    const char *node;          /* the exported program's graph node ("linear_1") */
    const char *tensor;        /* the kernel's tensor compared with it ("buf5"); NULL when none */
    eager_verdict verdict;
    uint64_t compared, differing;   /* elements */
    int64_t first;             /* flat index of the first element beyond the tolerance, -1 none */
    double got, want;          /* the package's and eager's values there */
    double max_abs, max_rel;   /* largest errors over all elements */
    int64_t max_at;            /* flat index of max_abs, -1 none */
    double atol, rtol;         /* the tolerance it was judged with */
    const char *note;          /* why unmatched or unreadable; may be NULL */
    /* the yardstick of the verdict: NULL or "eager" (the tolerance above against eager's value),
     * "float64" (the package's largest error against the float64 reference within
     * 2x (3x for float16, bfloat16) eager's own plus a rounding floor, core/runner/eager_refs.c) */
    const char *yardstick;
    double err64, eager_err64; /* largest errors against float64 of the package and of eager; -1 unknown */
} eager_check;

typedef struct {
    int64_t index;             /* 0-based launch order */
    const char *name;
    kernel_type type;
    kernel_status status;
    double duration_us;        /* before→after hook, -1 when unknown */
    double device_us;          /* the kernel's own time: CUDA events around the launch, on CPU
                                  the launch alone (no hooks, statistics or copies); -1 unknown */
    const char *device_note;   /* why device_us is -1, or what it includes; NULL nothing to say */
    const char *source;        /* how it was seen: "printer", "interpose", "reinstrument"; may be NULL */
    const char *branch;        /* the subgraph it ran in ("true_graph_0", "while_loop_body_graph_0",
                                  nested "outer/inner"); NULL in the main graph */
    int64_t iteration;         /* round of the innermost while_loop it ran in, 0-based (loop_iter.h); -1 none */
    size_t ntensors;
    tensor_rec *tensors;       /* before tensors, then after tensors */
    int64_t call;              /* row of session.prov.calls this launch is, -1 unknown (session_match_call) */
    /* a collective (a _c10d_functional extern call) of a run with --ranks: its op ("all_reduce"),
       the process group's name and its ranks ("0,1"); NULL when not one */
    const char *collective, *group, *participants;
    size_t neager;
    eager_check *eager;        /* against the eager reference (--eager); in the order of its nodes */
} kernel_event;

/* One kernel call of the package, in wrapper.cpp order: where it comes from in
 * the user's model (core/package/provenance.h fills the table; sessions keep it
 * under `provenance:`). Every list may be empty. */
typedef struct {
    const char *kernel;        /* the name it is launched under (the printer's, else the call site's) */
    const char *handle;        /* kernel_information.json key "<kernel>:<N>"; may be NULL */
    int64_t line;              /* 1-based wrapper.cpp line of the launch, 0 unknown */
    size_t nnodes;  const char **nodes;      /* `// Topologically Sorted Source Nodes: [...]` */
    size_t naten;   const char **aten;       /* `Original ATen: [...]` ("aten.addmm") */
    size_t nstack;  const char **stack;      /* stack_traces: one Python traceback text each */
    size_t npre;    const char **pre_grad;   /* pre_grad_nodes */
    size_t npost;   const char **post_grad;  /* post_grad_nodes: the graph nodes it computes */
    size_t nparams; const char **params;     /* weights the call passes ("blocks.0.fc.weight") */
    /* tensors the call writes before it reads them and nothing wrote before
     * (launch_roles.h): their values before the launch are uninitialised */
    size_t nfresh;  const char **fresh;
    /* tensors the call makes: passed whole, first here, no input or weight (launch_roles.h);
     * not saved in sessions */
    size_t ndefines; const char **defines;
    uint64_t nbefore;          /* tensors the printer saves before the launch (0 unknown): a stop
                                  before the kernel waits for them (protocol LAUNCHES) */
} kernel_call;

typedef struct {
    const char *from;          /* "kernel_information.json" or "wrapper.cpp"; NULL when none */
    size_t ncalls;
    kernel_call *calls;        /* in wrapper.cpp order */
} call_table;

typedef struct {
    const char *text;          /* the error text as received */
    const char *route;         /* route id, "unknown" when not routed; may be NULL */
    int64_t kernel_index;      /* kernel it is attributed to, -1 if none */
    size_t nfields;
    kv_pair *fields;
} error_event;

typedef struct {
    size_t ntensors;
    tensor_rec *tensors;       /* phase PHASE_OUTPUT */
} output_event;

typedef struct {
    const char *how;           /* "exited", "signal", "timeout", "killed", "lost" */
    int exit_code;             /* when how == "exited" */
    int signal;                /* when how == "signal" */
    const char *stderr_tail;   /* may be NULL */
} runner_exit_event;

typedef struct {
    const char *stream;        /* "stdout" or "stderr" */
    const char *text;
} log_event;

/* The first kernel whose output departs from the eager reference: one per run. */
typedef struct {
    int64_t kernel_index;
    const char *kernel;        /* its name */
    const char *index;         /* check.first as "[i, j]" in the tensor's shape; may be NULL */
    const char *where;         /* the user's source line (provenance), else its nodes; may be NULL */
    const char *code;          /* the code on that line; may be NULL */
    eager_check check;
} divergence_event;
/* The first kernel whose output gains NaN/Inf, down to the element
 * (core/analysis/nan_element.h): one per run, after that kernel's event. */
typedef struct {
    int64_t kernel_index;
    const char *tensor;        /* the after-tensor that gained NaN/Inf */
    const char *at;            /* its first bad element, "[0, 3]"; may be NULL (unknown) */
    const char *value;         /* "nan", "inf", "-inf"; may be NULL (unknown) */
    const char *from;          /* "computed here from finite inputs", "input buf3 holds nan there";
                                  may be NULL (the inputs' values were not kept) */
    size_t ninputs; const char **inputs;   /* the kernel's before-tensors at that position:
                                              "buf10[0, 3] = 2.5", "buf14: not read (...)" */
    size_t nops; const char **ops;         /* its fused ops that can make NaN/Inf, with the
                                              user's line: "log at model.py:7: h = torch.log(h)" */
} nan_event;

/* One report of compute-sanitizer (--memcheck; core/run/sanitizer.h), reports of the same
 * kernel, program counter and error folded into it (count). */
typedef struct {
    const char *tool;          /* memcheck, racecheck, initcheck, synccheck */
    const char *what;          /* the tool's headline: "Invalid __global__ read of size 4 bytes is out of bounds" */
    const char *access;        /* "read", "write"; may be NULL */
    int64_t size;              /* bytes of the access; -1 unknown */
    int64_t kernel_index;      /* the launch it is in; -1 unknown */
    const char *kernel;        /* the function the tool names */
    const char *at;            /* the kernel's own source line ("c4x...py:30"); may be NULL */
    const char *where;         /* the user's line the kernel comes from (provenance); may be NULL */
    const char *thread, *block;   /* "(0,0,0)"; may be NULL */
    const char *address;       /* "0x7f00bc800090"; may be NULL */
    const char *hit;           /* what the address hit, in words (addr_map.h); may be NULL */
    const char *tensor;        /* the tensor named; may be NULL */
    const char *tensor_user;   /* its user name ("table", "e.weight"; tensor_rec.user_name); may be NULL */
    const char *element;       /* its element at the address, "[9, 0]"; may be NULL */
    const char *place;         /* inside, in-alloc, past-end, before; may be NULL */
    int64_t distance;          /* bytes outside the allocation; -1 unknown */
    const char *index;         /* the index element that led there, "arg1_1[0] = 9"; may be NULL */
    const char *nearest;       /* the tool's own "17 bytes after the nearest allocation at ..."; may be NULL */
    int64_t count;             /* reports folded into this one */
} memcheck_event;

/* One tensor of a folded kernel: the range its statistics took over the folded launches. */
typedef struct {
    const char *name;
    tensor_phase phase;
    double min, max;           /* the lowest min and the highest max */
    double mean_lo, mean_hi;   /* the range of the means */
    uint64_t nan, posinf, neginf;   /* totals over the launches (before-tensors may hold leftover bytes) */
} fold_tensor;

/* One kernel of the folded iterations' repeating sequence. */
typedef struct {
    const char *name;
    const char *branch;        /* may be NULL */
    uint64_t launches;
    double duration_us;        /* the sum over the launches, -1 unknown */
    double duration_min_us, duration_max_us;   /* -1 unknown */
    double device_us;          /* the sum, -1 unknown */
    size_t ntensors;
    fold_tensor *tensors;
} fold_kernel;

/* Iterations from..to of one while_loop, each launching the same kernels in
 * the same order, all ok, with no other event among them: their launches
 * (kernel indices first_kernel..last_kernel) are counted, not kept. */
typedef struct {
    const char *loop;          /* the loop: outer branches + "while_loop_" + N */
    int64_t from, to;          /* first and last folded iteration */
    int64_t first_kernel, last_kernel;
    uint64_t launches;
    double end_ms;             /* when the last folded launch ended, -1 unknown */
    double duration_us;        /* the sum of the launches' durations, -1 unknown */
    size_t nkernels;
    fold_kernel *kernels;      /* one iteration's sequence */
} fold_event;

typedef struct event {
    event_kind kind;
    double t_ms;               /* ms since the run started, -1 if unknown */
    int rank;                  /* the rank it came from (--ranks), -1 none; session_add_event copies s->rank */
    union {
        kernel_event kernel;
        error_event error;
        output_event output;
        runner_exit_event exit;
        log_event log;
        divergence_event divergence;
        nan_event nan;
        memcheck_event memcheck;
        fold_event fold;
    } u;
} event;

typedef enum { CHECK_PASS = 0, CHECK_WARN, CHECK_FAIL, CHECK_INFO } check_status;

typedef struct {
    const char *id;            /* stable: "device.compile-vs-load", "input.0.dtype", ... */
    check_status status;
    const char *subject;       /* what was checked, one line */
    const char *expected;      /* may be NULL */
    const char *got;           /* may be NULL */
    const char *source;        /* evidence: "metadata AOTI_DEVICE_KEY", "wrapper.cpp:789" */
    const char *fix;           /* one line; may be NULL on PASS */
} check_row;

typedef enum {
    FILL_RANDN = 0, FILL_ZEROS, FILL_ONES, FILL_ARANGE, FILL_FULL, FILL_FILE,
    FILL_RANDINT               /* integers drawn uniformly in [low, high) (seeded as randn) */
} fill_kind;

/* How the runner reads a FILL_FILE input's file (input_spec.file_format). */
enum { INPUT_FILE_RAW = 0,     /* row-major little-endian bytes: what the front end writes from .npy / .safetensors */
       INPUT_FILE_TORCH = 1 }; /* a torch.save file, read with libtorch (key: a dict key or a list index) */

/* One model input as the user asked for it (inputs spec YAML, see inputs.h). */
typedef struct {
    const char *name;          /* the input it is for ("x", "arg3_1"): specs may name their inputs
                                  instead of listing them in model order; may be NULL */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    const char *dtype;         /* canonical name: "float32", ... */
    const char *device;        /* "cpu", "cuda", "cuda:N" */
    fill_kind fill;
    uint64_t seed;
    double value;              /* for FILL_FULL */
    const char *file;          /* for FILL_FILE; may be NULL */
    const char *key;           /* safetensors key; may be NULL */
    int file_line, file_col;   /* where `file:` sits in the spec (1-based), for messages; 0 unknown */
    int has_strides;           /* 0: contiguous (row-major) strides from shape */
    int64_t strides[TENSOR_MAX_DIMS];   /* element strides when has_strides */
    int64_t low, high;         /* FILL_RANDINT's range [low, high) */
    int file_format;           /* INPUT_FILE_*; set when the file is checked (inputs.h) */
    const char *file_shown;    /* the file as the spec names it, for the runner's messages (the runner reads
                                  a copy at `file`); NULL: file */
    const char *file_note;     /* what reading the file changed ("float32 values rounded to bfloat16: 3 of
                                  64 changed"); NULL when nothing did */
} input_spec;

typedef struct {
    int64_t event_index;       /* index into events, -1 for none */
    const char *note;
} bookmark;

typedef struct {
    const char *text;          /* what the learner reads */
    const char *pane;          /* "router", "checklist", "kernels", "inspector"; may be NULL */
    int64_t event_index;       /* event it points at, -1 for none */
    const char *action;        /* action name the learner is asked to do; may be NULL */
    const char *expect;        /* text the screen must show after the action; may be NULL */
} narration_step;

/* One of the program's weights against the package's constant of the same
 * original FQN (--eager; the runner compares them before the model runs:
 * core/runner/param_diff.h). */
typedef enum {
    WDIFF_EQUAL = 0,           /* the same bytes (or values: only -0.0/0.0 or NaN payloads differ) */
    WDIFF_DIFFERS,             /* same dtype and shape, values differ */
    WDIFF_DTYPE,               /* the dtypes differ (nothing compared) */
    WDIFF_SHAPE,               /* the shapes differ (nothing compared) */
    WDIFF_UNREAD,              /* the program's record or the package's constant could not be read (note) */
    WDIFF_NO_PACKAGE,          /* the program has it, the package holds no constant of that FQN */
    WDIFF_NO_PROGRAM,          /* the package holds it, the program has no weight of that FQN */
    WDIFF_FOLDED,              /* a constant the package's constant folding makes: no program weight */
} weight_verdict;

typedef struct {
    const char *fqn;           /* the user's name ("blocks.3.fc.weight") */
    weight_verdict verdict;
    const char *dtype, *pkg_dtype;   /* the program's and the package's; NULL unknown */
    int ndim, pkg_ndim;
    int64_t shape[TENSOR_MAX_DIMS], pkg_shape[TENSOR_MAX_DIMS];
    int64_t lead;              /* DIFFERS: the size of dim 0 (rows of a 2-D weight); -1 for a scalar */
    int64_t lead_differ;       /* how many indices of dim 0 hold a difference */
    const char *ranges;        /* those indices as ranges ("17", "3-5, 17", the first 16 then ", ...") */
    uint64_t differing, numel; /* elements */
    struct weight_first {
        int64_t index;         /* flat row-major index of the first differing element */
        double value, pkg_value;   /* the program's and the package's values there */
    } first;
    int has_first;             /* first is set */
    double max_abs;            /* largest |program - package| over differing finite pairs; -1 none */
    uint64_t nonfinite;        /* differing elements where one side is NaN or +-Inf */
    const char *note;          /* why unread; what an EQUAL's bytes differ in; may be NULL */
} weight_diff;

/* A weight_diff's note when the package's constant has the program's name under
 * other modules ("m.fc1.weight" for "fc1.weight"): this, then the package's name. */
#define WEIGHT_DIFF_RENAMED "matched to the package's "

/* The program's weights against the package's constants (--eager). */
typedef struct {
    uint64_t program;          /* the program's weights (parameters, buffers, constants) sent */
    uint64_t compared, equal;  /* of those, compared with a package constant; equal to it */
    uint64_t folded;           /* the package's constant-folded constants (not compared) */
    const char *not_compared;  /* why none were compared (the program's weights could not be listed); NULL */
    size_t ndiffs;
    weight_diff *diffs;        /* every weight that is not EQUAL, in the order the runner sent them */
    int present;               /* 1 when they were compared (or not_compared says why not) */
} weights_cmp;

/* The eager reference a run compared with (--eager); program NULL when none. */
typedef struct {
    const char *program;       /* the torch.export.save file */
    const char *sha256;        /* of the program file */
    const char *dir;           /* the reference's folder: nodes/<node>.npy, manifest */
    const char *device;        /* where eager ran ("cpu", "cuda:0") */
    int float64;               /* eager ran in float64 */
    double atol, rtol;         /* --tolerance; -1: each dtype's default (tensor_close.h) */
    int64_t calls, refs;       /* kernel calls with a reference node; node values sent */
    const char *computed_by;   /* "runner" (libtorch) or "python" (aotidbg_eager.py); NULL unknown */
    const char *map;           /* which buffer holds which node: "compiler" (Inductor's record) or "names";
                                  NULL unknown (eager_ref.h) */
    const char *map_note;      /* what the map did not cover, and why ("the record's kernel 5 is ..."); NULL */
    weights_cmp weights;       /* the program's weights against the package's */
    int present;               /* 1 when the run had a reference (the session key is written) */
} eager_info;

typedef struct {
    const char *path, *sha256;
    const char *model;         /* model name inside the archive, "model" by default */
    const char *device_key;    /* AOTI_DEVICE_KEY; may be NULL (bare .so) */
    const char *compute_capability, *cpu_isa;   /* may be NULL */
    /* the user's names of the inputs and outputs, in order, from the package's pytree
     * specs ("x", "cfg['w']", "args[0]"; outputs "out", "[1]['aux']"): none when the
     * specs name nothing (outputs as a plain tuple) */
    size_t ninput_names, noutput_names;
    const char **input_names, **output_names;
} package_info;

/* The counts: key a whole save writes before the events (session_write.h),
 * so that a dump can print its "events:" line before reading them; as the
 * file says, -1 when absent (streamed files, files of older versions). */
typedef struct event_counts {
    int64_t events, kernels;
} event_counts;

/* The index: key a run's final save writes after counts: (session_write.h):
 * where the events a route reads (route_load.h) are in the file (each
 * event's lines: byte offset, ascending, and length), and the file's size
 * when written, so that `route` reads those and not the rest. nat 0:
 * absent. Saves never copy it: the writer writes where what it writes is. */
typedef struct event_index {
    uint64_t bytes;
    double *at, *len;
    size_t nat, nlen;
} event_index;

/* Growable arrays are plain (ptr, len, cap) triples grown by model.c; events,
 * kernels and warnings are malloc'd, the rest live in the arena. */
typedef struct session {
    arena arena;
    int format_major, format_minor;
    const char *tool_version, *torch_version, *host, *gpu;   /* may be NULL */
    double gpu_peak_gbps;      /* the GPU's peak memory bandwidth as its runtime reported it, GB/s; -1 unknown */
    const char *title;         /* walkthroughs; may be NULL */
    package_info package;
    const char *device;        /* requested device; may be NULL */
    int printer_level;         /* compiled-in printer level, -1 unknown */
    int64_t hidden_kernels;    /* kernel launches this run's mode cannot see, -1 unknown */
    const char *hidden_why;    /* where they are and why; may be NULL */
    const char *mode;          /* "printer", "interpose", "reinstrument"; may be NULL */
    uint64_t values_budget;    /* bytes of values the run could keep (--values-budget); 0 no limit or unknown */
    eager_info eager;          /* the eager reference (--eager) */
    size_t nflags;   kv_pair *flags;          /* env flags in effect, "0"/"1"/value */
    size_t ninputs;  input_spec *inputs;
    size_t nchecks;  check_row *checks;
    size_t nevents, cap_events;   event **events;
    size_t nkernels, cap_kernels; event **kernels;   /* the EV_KERNEL events, in order */
    size_t nevents_held;       /* events at the tail a live recorder may still fold: not streamed yet */
    size_t nbookmarks, cap_bookmarks; bookmark *bookmarks;
    size_t nnotes, cap_notes; const char **notes;
    size_t nnarration; narration_step *narration;
    size_t nwarnings, cap_warnings; const char **warnings;  /* reader warnings (unknown keys, ...) */
    call_table prov;           /* the package's kernel calls: where its kernels come from */
    event_counts counts;       /* the file's counts: key; the writer writes the real ones */
    event_index index;         /* the file's index: key, as read; never written from here */
    int truncated;             /* the file ended mid-event: the tail was cut off */
    const char *end_state;     /* "complete", "running", "cut-off"; may be NULL */
    const char *repro;         /* the folder `aotidbg repro` made from this run; NULL none */
    int rank, world_size;      /* this session's rank of a run with --ranks N, and N; -1 none */
} session;

session *session_new(void);
void session_free(session *s);           /* NULL is fine */

/* Replaces s's event list with ev[0..n) in that order (s->kernels: its kernel
 * events). The events stay where they are: the caller keeps them alive as
 * long as s (route_load.h keeps them in a session of its own). */
void session_set_events(session *s, event *const *ev, size_t n);
/* Appends a zeroed event of the given kind, owned by s; never NULL. */
event *session_add_event(session *s, event_kind kind);
void session_add_warning(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_add_note(session *s, const char *text);
void session_add_bookmark(session *s, int64_t event_index, const char *note);
void session_set_flag(session *s, const char *key, const char *value);

/* Names, for YAML, dumps and the UI. The *_from_name functions return -1 for unknown names. */
const char *event_kind_name(event_kind k);       /* "kernel", "error", "output", "runner-exit", "log", "nan" */
int event_kind_from_name(const char *s);
const char *kernel_type_name(kernel_type t);     /* "triton", "cpp", "extern", "unknown" */
int kernel_type_from_name(const char *s);
kernel_type kernel_type_guess(const char *kernel_name); /* from the name AOTI gives it */
const char *kernel_status_name(kernel_status s); /* "pending", "ok", "nan", "error" */
/* What after-tensors hold that is not finite (their statistics):
 * NONFIN_NAN | NONFIN_POSINF | NONFIN_NEGINF. NONFIN_NEGINF alone is what an
 * attention mask writes (an additive -inf mask, masked_fill): not an anomaly. */
enum { NONFIN_NAN = 1, NONFIN_POSINF = 2, NONFIN_NEGINF = 4 };
static inline int nonfinite_is_mask(int held) { return held == NONFIN_NEGINF; }
/* 1 when after-tensor t of k holds +-Inf and no NaN, and a --eager check of
 * t found it close: the eager program computes the same infinities
 * (tensor_close.h: an infinity matches only the same one), so they are the
 * model's, not an anomaly of the compiled package. */
int tensor_inf_is_eagers(const kernel_event *k, const tensor_rec *t);
/* What kernel k's after-tensors hold that is not finite, without those
 * tensors; *eagers (when not NULL) gets what they held. NaN always counts. */
int kernel_nonfinite_own(const kernel_event *k, int *eagers);
int kernel_status_from_name(const char *s);
const char *phase_name(tensor_phase p);          /* "before", "after", "output" */
int phase_from_name(const char *s);
const char *check_status_name(check_status s);   /* "PASS", "WARN", "FAIL", "INFO" */
int check_status_from_name(const char *s);
const char *eager_verdict_name(eager_verdict v); /* "close", "differs", "unmatched", "unreadable" */
int eager_verdict_from_name(const char *s);
const char *fill_kind_name(fill_kind f);         /* "randn", "zeros", "ones", "arange", "full", "file", "randint" */
int fill_kind_from_name(const char *s);

/* When k is a collective (a _c10d_functional extern call: "..._all_reduce_") of a
 * session of a --ranks run, sets its collective (the op: "all_reduce"), group and
 * participants (the ranks of s's world: "0,1"); 1 when it is one. */
int session_mark_collective(session *s, kernel_event *k, const char *group);

/* Lookups used by panes and hunts; NULL / -1 when absent. */
const event *session_kernel_event(const session *s, int64_t kernel_index);
/* The multi-index (t->ndim entries) of row-major flat index flat; -1 when
 * flat is outside the tensor's shape (idx is then undefined). */
int tensor_unflatten(const tensor_rec *t, int64_t flat, int64_t *idx);
/* Values an element takes: 2 for complex dtypes ((real, imaginary) pairs), else 1. */
int dtype_lanes(const char *dtype);
/* Elements whose values t keeps: nvalues / dtype_lanes(t->dtype). */
size_t tensor_values_elems(const tensor_rec *t);
int64_t session_kernel_count(const session *s);
/* Launches counted in fold events (not kept as kernel events); *iterations (may be NULL): the folded iterations. */
uint64_t session_folded_launches(const session *s, uint64_t *iterations);

/* How the run's runner ended when it did not end in order: the runner-exit
 * event after its last kernel (how: signal, exited, timeout, lost, or killed
 * when the front end ended it), or NULL. */
const runner_exit_event *session_runner_exit(const session *s);
/* The kernel the runner was in when it ended so: the last kernel, when it
 * never finished (status pending); -1 when none. */
int64_t session_exit_kernel(const session *s);
/* "signal 11 (SIGSEGV)", "exited 3", "timeout", "killed", "lost" into buf
 * (at least 32 bytes); the same words end_state uses. */
const char *runner_exit_text(const runner_exit_event *x, char *buf, size_t n);
/* How the recorded run ended, in end_state's words, into buf (at least 32
 * bytes): s->end_state, except that a session saying complete (or nothing)
 * whose runner died says how (files written before end_state did so); a
 * runner the front end killed after the run keeps what the file says. */
const char *session_end_state(const session *s, char *buf, size_t n);
/* "SIGSEGV" for 11, ...; "a signal" for one without a name here. */
const char *signal_name(int sig);

/* The row of s->prov.calls for the launch of `name` at position pos of s->kernels
 * (the launches before it already matched): the first call of that name after
 * the last matched launch before pos, else the first of that name; -1 when the
 * package has no such call. Launches follow the printer's order, so matching
 * by name and order also holds for interposed or re-instrumented runs. */
int64_t session_match_call(const session *s, int64_t pos, const char *name);
/* The call of a kernel event, or NULL. */
const kernel_call *session_kernel_call(const session *s, const kernel_event *k);
/* The first call whose post_grad_nodes hold node (a graph node name), -1 none. */
int64_t session_call_of_node(const session *s, const char *node);
/* 1 when t is a before-tensor of k that k writes before it reads it and
 * nothing wrote before (its call's fresh list): leftover bytes, not input. */
int tensor_uninitialised(const session *s, const kernel_event *k, const tensor_rec *t);

#endif
