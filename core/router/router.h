/* router.h — the error router: from any AOTI error text to the route (ROUTE_IDS),
 * the facts in it (fields), the next steps and the actions.
 *
 * Rules are data (routes.yaml, loaded by router_rules.c); this module streams a
 * log through them. Logs are untrusted: every line is read whole, a line
 * longer than ROUTER_LINE_CAP bytes in windows of that size overlapping by
 * ROUTER_LINE_OVERLAP bytes (a message shorter than the overlap is always seen
 * in one window); the input is read in chunks and only matched lines (plus a
 * small context window) are kept, so a 100 MB log costs the same memory as a
 * 1 KB one. Binary bytes and invalid UTF-8 are matched as bytes and sanitised
 * on output.
 *
 * The route is taken from the line that failed first (routes.yaml
 * `failures:`; result's failed_line) when a route states a cause there, else
 * from the whole text. Every line is first read as a part of the log's
 * structure (log_parts.h: an exception, an assert, a compiler error, a
 * warning, ...): a warning line is never the failing line, and a route seen
 * on warning lines alone wins only when no route is seen on any other line.
 * When no rule names a cause, the learned fallback (router_nb.h, the rules'
 * router_nb.txt) may name the route, shown as such (learned_*).
 *
 * Besides the text, a caller can add facts it knows (a session's failing
 * kernel, the runner's exit signal, checklist rows: router_stream_fact) and the
 * platform the run used (router_stream_set_platform); facts are matched by the
 * same rules and shown with their origin instead of a line number. The
 * platform (cuda, rocm, xpu, mps, cpu: from the caller, else from the text)
 * picks each route's wording (`wording:` in routes.yaml): a CPU run gets no CUDA advice.
 *
 * Ownership: a router_rules is malloc'd, freed by router_rules_free(). A
 * route_result owns an arena holding every string it points to; release it
 * with route_result_release(). Errors: 0 / -1 with a message appended to err
 * (rule files: "file:line:col: what").
 */
#ifndef AOTIDBG_ROUTER_H
#define AOTIDBG_ROUTER_H
#include <stddef.h>
#include <stdio.h>
#include "arena.h"
#include "strbuf.h"

#define ROUTER_LINE_CAP      4096      /* bytes of one line examined at once (a window) */
#define ROUTER_LINE_OVERLAP  1024      /* bytes consecutive windows of a long line share */
#define ROUTER_LOOKED_LINES  5         /* error-like lines kept to show what was read */
#define ROUTER_MAX_EVIDENCE  64        /* distinct matched lines kept */
#define ROUTER_CONTEXT_LINES 2         /* lines kept before each evidence line */
#define ROUTER_RULES_MAX_BYTES (1 << 20)
#define ROUTER_MAX_INPUT_BYTES (1ULL << 30)  /* bytes of one input that are examined (time bound) */
#define ROUTER_NB_MIN_CONFIDENCE 0.3          /* the learned fallback routes only this sure (k-fold: ~3 in 4 right) */

/* The route ids, written once: a contract (output, sessions, scripts and
 * tests use them; add, never rename; man/aotidbg.1 ROUTES says what each
 * means). routes.yaml may use only these; X(NAME, "id"). */
#define ROUTE_IDS(X) \
    X(TRITON_INDEX_OOB, "triton-index-oob") \
    X(DEVICE_MISMATCH, "device-mismatch") \
    X(INPUT_MISMATCH, "input-mismatch") \
    X(ILLEGAL_MEMORY_ACCESS, "illegal-memory-access") \
    X(NAN_INF, "nan-inf") \
    X(WRONG_OUTPUT, "wrong-output") \
    X(DYNAMIC_SHAPE, "dynamic-shape") \
    X(CUSTOM_OP, "custom-op") \
    X(MISSING_ARTIFACT, "missing-artifact") \
    X(ABI_MISMATCH, "abi-mismatch") \
    X(COMPILE_ERROR, "compile-error") \
    X(OUT_OF_MEMORY, "out-of-memory") \
    X(CRASH, "crash") \
    X(UNKNOWN, "unknown") \
    X(CPP_INDEX_OOB, "cpp-index-oob") \
    X(COLLECTIVE_TIMEOUT, "collective-timeout")

/* The actions a route can name (routes.yaml `do:`; the TUI binds each to a
 * key in tui/actions.c); X(NAME, "name"). */
#define ROUTE_ACTIONS(X) \
    X(RUN_CHECKLIST, "run-checklist") \
    X(RERUN_BLOCKING, "rerun-blocking") \
    X(REBUILD_PRINTER, "rebuild-printer") \
    X(JUMP_KERNEL, "jump-kernel") \
    X(OPEN_SOURCE, "open-source") \
    X(BREAK_NAN, "break-nan") \
    X(GOTO_ELEMENT, "goto-element")

/* X helpers: a table's names as array elements, or as indented lines of a string. */
#define ROUTE_NAME_ELEM(e, s) s,
#define ROUTE_NAME_LINE(e, s) "\n  " s

typedef struct router_rules router_rules;    /* opaque; see router_rules.h */

/* Loads rules from a file. */
int router_rules_load(router_rules **out, const char *path, strbuf *err);
/* Parses rules from memory; `name` is used in messages. */
int router_rules_parse(router_rules **out, const char *text, size_t len, const char *name, strbuf *err);
/* Loads the installed rules: <aotidbg_data_dir()>/routes.yaml, else
 * <data_dir>/core/router/routes.yaml (a source tree). */
int router_rules_load_default(router_rules **out, strbuf *err);
/* The installed rules, loaded once per process and kept (read-only, shared
 * by every thread; never freed): what the recorder, the TUI and
 * router_route_text route with. NULL when they cannot be loaded, with why
 * in *err (each call says it again). */
const router_rules *router_rules_shared(strbuf *err);
void router_rules_free(router_rules *r);
/* Number of routes and their ids, in file order (for tests and help). */
size_t router_rules_count(const router_rules *r);
const char *router_rules_id(const router_rules *r, size_t i);

typedef struct { const char *key, *value; } route_field;
typedef struct {
    const char *name;      /* one of ROUTE_ACTIONS */
    int level;             /* rebuild-printer's level; 0 when not given */
    const char *field;     /* the field it acts on (e.g. "kernel"); NULL if none */
    const char *value;     /* that field's value in this result; NULL if absent */
} route_action;
typedef struct {
    const char *route;
    const char *reason;    /* why it is not the primary route */
    double score;
} route_also;
typedef struct {
    size_t line;           /* 1-based line number in the input; 0 for a fact */
    const char *origin;    /* a fact's origin ("session: checklist row input.0.dtype"); NULL for input lines */
    size_t count;          /* how many lines looked like this one (digits ignored) */
    const char *route;     /* the route whose pattern matched */
    const char *role;      /* "primary" or "consequence" */
    const char *text;      /* the line after prefix stripping, valid UTF-8 */
    const char *before[ROUTER_CONTEXT_LINES]; /* preceding lines, oldest first; NULL if none */
} route_evidence;

typedef struct { size_t line; const char *text; } route_line;

typedef struct route_result {
    arena arena;
    const char *route;            /* an id of ROUTE_IDS; "unknown" when nothing matched */
    const char *title, *explanation;
    const char *platform;         /* cuda, rocm, xpu, mps, cpu; NULL when nothing says */
    const char *platform_from;    /* why: the caller's origin, or the input line that says so */
    double score;
    size_t nfields;   route_field *fields;
    size_t fields_cap;            /* internal: allocated slots of fields */
    size_t nsteps;    const char **steps;
    size_t nactions;  route_action *actions;
    size_t nalso;     route_also *also;
    size_t nevidence; route_evidence *evidence;   /* winner's evidence first */
    size_t nlooked;   route_line *looked;         /* error-like input lines (first, then the last few) */
    size_t failed_line;           /* the line that failed first (routes.yaml failures:); 0 when none */
    const char *failed_text;      /* that line; NULL when none */
    int failed_routed;            /* 1: the route was taken from that line; 0: from the whole text */
    size_t lines, bytes;          /* input seen */
    size_t long_lines;            /* lines longer than ROUTER_LINE_CAP (read in windows) */
    int input_cut;                /* input went past ROUTER_MAX_INPUT_BYTES: the rest was not read */
    /* the part the route was decided on (log_parts.h: "python-exception",
     * "assertion", "compiler-error", "log-warning", ...); NULL when none */
    const char *part;
    size_t part_line;
    /* the learned fallback (router_nb.h), asked only when no rule names a
     * cause: its answer, and whether it became the route (confidence at
     * least ROUTER_NB_MIN_CONFIDENCE); learned_route NULL when not asked */
    const char *learned_route;
    double learned_confidence;
    int learned_used;
    size_t nlearned_nearest;
    const char *learned_nearest[3], *learned_nearest_route[3];
} route_result;

/* Streaming: feed any chunks, then finish. The stream borrows rules. */
typedef struct router_stream router_stream;
router_stream *router_stream_new(const router_rules *rules);
void router_stream_feed(router_stream *s, const void *data, size_t len);
/* A fact the caller knows, matched like input lines but not counted as input:
 * text (one or more lines) is shown with origin (copied). Call between lines
 * (after a feed that ended with a newline, or before any). */
void router_stream_fact(router_stream *s, const char *origin, const char *text);
/* The platform the run used (a platform id of routes.yaml; a "cuda" fact is
 * refined to rocm when the text says HIP). Unknown ids are ignored. */
void router_stream_set_platform(router_stream *s, const char *platform, const char *origin);
/* Fills *out (which must be zeroed or released); frees the stream. */
void router_stream_finish(router_stream *s, route_result *out);

/* Whole buffer / whole FILE stream (read in 64 KB chunks). -1 on read error. */
void router_route_buffer(const router_rules *rules, const void *buf, size_t len, route_result *out);
int router_route_file(const router_rules *rules, FILE *f, route_result *out, strbuf *err);

/* Convenience for callers that route one text now and then (recording a run,
 * the TUI pane): loads the default rules once per process (kept until exit)
 * and routes text. -1 with a message when the rules cannot be loaded. */
int router_route_text(const char *text, size_t len, route_result *out, strbuf *err);

/* Field lookup; NULL if absent. */
const char *route_result_field(const route_result *r, const char *key);
/* 1 for the routes of a generated kernel's index check: triton-index-oob
 * (Triton on a GPU, ATen's index kernels) and cpp-index-oob (a C++ kernel,
 * cpp_fused_*, on the CPU). Their fields (tmp, bound, kernel) are traced the
 * same way (triton_trace.h, oob_element.h). */
int route_is_index_oob(const char *route);
/* A triton-index-oob result whose check is Inductor's (field tmp, no block or
 * thread of a device assert) in a C++ kernel (field kernel cpp_*: the text
 * alone may not show it, the package's trace or the session does) becomes
 * cpp-index-oob, reworded. Any other result: unchanged. */
void route_result_refine_index_oob(route_result *r, const router_rules *rules);
/* Sets or adds a field (value copied into the result's arena). */
void route_result_set_field(route_result *r, const char *key, const char *value);
void route_result_release(route_result *r);
/* Sets the result's platform (as router_stream_set_platform) after routing and
 * rewords title, explanation, steps and actions for it; for callers that learn
 * the platform later (a traced kernel that is C++ runs on the CPU). */
void route_result_set_platform(route_result *r, const router_rules *rules, const char *platform, const char *origin);

/* Output: human text, or YAML with top-level route:, title:, platform:,
 * failed_line:, fields:, steps:, actions:, also:, evidence:, looked_at:, input:
 * (the keys man/aotidbg.1 documents under route; add, never rename). */
void route_result_format_text(const route_result *r, strbuf *out);
void route_result_format_yaml(const route_result *r, strbuf *out);

/* Demangles an Itanium C++ name via libstdc++'s __cxa_demangle found at run
 * time (dlopen); NULL when not mangled or not available. malloc'd. */
char *router_demangle(const char *mangled);

#endif
