/* log_parts.h — a log's structure, read before any route is scored.
 *
 * Each line is one kind of part (LOG_PART_KINDS): a Python traceback's head,
 * frames and the exception it ends with (type and message), the markers that
 * chain two tracebacks ("During handling of the above exception" / "The above
 * exception was the direct cause"), C++ `terminate called` / `what():` and
 * c10::Error blocks, compiler `error:` and `warning:` lines, C/C++, Triton,
 * MLIR and LLVM assertions (`Assertion ... failed`, `LLVM ERROR:`), torch's
 * glog prefixes (`W1130 ...]`, `E1130 ...]`, `[W socket.cpp:12]`) and
 * Python logging's `WARNING` / `ERROR`, and the CUDA caching allocator's
 * memory summary (`|  PyTorch CUDA memory summary ... |`). Each kind has a
 * severity: a warning is never the part a log is routed on while an error
 * part names a cause (router.c).
 *
 * log_line_part classifies one line (the router calls it on every line; no
 * allocation, O(line)). log_parts_parse groups a whole text into parts (a
 * traceback from its head to its exception; a memory summary's table) for
 * tests and output. Input is untrusted bytes: lines are read up to
 * LOG_PART_LINE_CAP bytes, at most LOG_PARTS_MAX parts are kept (the rest
 * counted in log_parts.dropped), each text cut to LOG_PART_TEXT_CAP bytes.
 * Ownership: log_parts owns its array and strings (malloc'd); release with
 * log_parts_free. Errors: none (any bytes parse). Threads: none shared. */
#ifndef AOTIDBG_LOG_PARTS_H
#define AOTIDBG_LOG_PARTS_H
#include <stddef.h>

#define LOG_PARTS_MAX      256
#define LOG_PART_TEXT_CAP  300
#define LOG_PART_LINE_CAP  4096

/* X(NAME, "name", severity): 0 none, 1 warning, 2 error */
#define LOG_PART_KINDS(X) \
    X(NONE, "text", 0) \
    X(TRACEBACK, "traceback", 0) \
    X(FRAME, "frame", 0) \
    X(EXCEPTION, "python-exception", 2) \
    X(CHAIN, "chained-exception", 0) \
    X(CPP_WHAT, "cpp-what", 2) \
    X(C10_ERROR, "c10-error", 2) \
    X(COMPILER_ERROR, "compiler-error", 2) \
    X(COMPILER_WARNING, "compiler-warning", 1) \
    X(ASSERTION, "assertion", 2) \
    X(LOG_ERROR, "log-error", 2) \
    X(LOG_WARNING, "log-warning", 1) \
    X(MEMORY_SUMMARY, "memory-summary", 0)

#define LOG_PART_ENUM(e, s, sev) LOG_PART_##e,
typedef enum { LOG_PART_KINDS(LOG_PART_ENUM) LOG_PART_NKINDS } log_part_kind;
#undef LOG_PART_ENUM

enum { LOG_SEV_NONE = 0, LOG_SEV_WARNING = 1, LOG_SEV_ERROR = 2 };

/* The kind of one line. `line` is the text after log prefixes were stripped
 * (router.c strip_prefixes), n its length; `level` is the glog letter of a
 * stripped `W1130 12:00:00.1 7 f.cpp:1]` prefix ('I', 'W', 'E', 'F'), else 0.
 * A line behind `W`/`WARNING` is a warning whatever it says; one behind `E`
 * keeps a more precise error kind when it has one (an exception, an assert). */
log_part_kind log_line_part(const char *line, size_t n, int level);
/* The glog letter a raw line starts with (`W1130 ...]`, `[W1130 ...]`,
 * `[W socket.cpp:12]`, `[rank0]:[W1130 ...]`), else 0. */
int log_line_level(const char *raw, size_t n);
const char *log_part_name(log_part_kind k);
int log_part_severity(log_part_kind k);

typedef struct {
    log_part_kind kind;
    size_t line, last_line;   /* 1-based, inclusive */
    int chained;              /* a traceback that follows a chain marker: the handling / caused one */
    char *type;               /* a traceback's (or a bare) exception type: "torch._dynamo.exc.Unsupported"; NULL else */
    char *text;               /* the part's decisive line (an exception's message line; a summary's head) */
} log_part;

typedef struct {
    size_t n, dropped;
    log_part *parts;
} log_parts;

/* Parts of text[0..len) in order. A traceback is one part (head, frames and
 * the exception line; kind LOG_PART_EXCEPTION, line its head); a memory
 * summary's table one part; every other line of a kind but NONE/FRAME its own.
 * *out must be zeroed or freed. */
void log_parts_parse(const char *text, size_t len, log_parts *out);
/* The part a log is routed on: the first error part that is not a chained
 * wrapper of an earlier one ("The above exception was the direct cause":
 * the first traceback is the cause), else the first warning, else NULL. */
const log_part *log_parts_decisive(const log_parts *p);
void log_parts_free(log_parts *p);

#endif
