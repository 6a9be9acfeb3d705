/* source_view.h — where to look in source text: a kernel's body in the
 * package's generated sources (the `S` key's view), and a few lines of the
 * user's own file around a line (like gdb's `list`).
 *
 * Owner: core/package/source_view.c. Texts are untrusted: every scan is
 * bounded by the given lengths; nothing is compiled or run. source_excerpt
 * reads only a regular file, at most SOURCE_EXCERPT_MAX_BYTES of it.
 * Errors: kernel_source_find returns 0 / -1 (not named at all);
 * source_excerpt 0 / -1 with "path: why" in err. Threads: no state. */
#ifndef AOTIDBG_SOURCE_VIEW_H
#define AOTIDBG_SOURCE_VIEW_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

#define SOURCE_EXCERPT_MAX_BYTES (64u << 20)

typedef enum { SRC_WRAPPER = 0, SRC_KERNEL } source_part;   /* <key>.wrapper.cpp, <key>.kernel.cpp */

typedef struct {
    source_part part;          /* the file the spot is in */
    int64_t line;              /* 1-based */
    int64_t body_first, body_last;   /* the kernel's body (definition to its end); 0 when not a body */
    const char *what;          /* "failing line", "body", "launch", "mention" (static) */
} source_spot;

/* Finds kernel `name` in wrapper (wlen bytes) and kernel (klen, may be NULL):
 * its body, not a forward declaration (C++: `void name(...)` followed by `{`;
 * Triton: the embedded `def name(`); an extern op has none: then its launch
 * (the call at or after launch_line, a 1-based wrapper.cpp line from the
 * provenance, or the first call in run_impl); else the first mention. With fail (text the failing line
 * holds, e.g. the assert message; may be NULL) or fail_line (a 1-based line
 * in the body's file the error names; 0 none), the spot is that line of the
 * body when the body holds it. -1 when name is nowhere. */
int kernel_source_find(const char *wrapper, size_t wlen, const char *kernel, size_t klen, const char *name,
                       int64_t launch_line, const char *fail, int64_t fail_line, source_spot *out);

/* Lines line-ctx..line+ctx of the file at path, each "  N  text\n" with '>'
 * instead of the first blank on line itself, tabs and control bytes made
 * harmless. -1 when the file cannot be read or has fewer than line lines. */
int source_excerpt(const char *path, int64_t line, int ctx, strbuf *out, strbuf *err);

#endif
