/* stack_trace.h — the Python stack traces AOTInductor records per kernel
 * (kernel_information.json `stack_traces`, an ExportedProgram node's
 * meta["stack_trace"]), read as frames, and the user's line picked out.
 *
 * A trace is Python's traceback text, outermost frame first:
 *     File "model.py", line 19, in forward\n    h = b(h)\n  File "...
 * The user's line is the innermost frame outside torch's own library code
 * (torch/nn/modules/linear.py and the like): the model file, or a model
 * library such as transformers, which is what the user edits.
 *
 * Owner: core/model/stack_trace.c. Frames are spans into the caller's text
 * (nothing is allocated; they live as long as the text). Untrusted text:
 * anything that is not a frame line is skipped; line numbers are range-checked.
 * No errors: a text with no frame gives 0 frames. Thread-safe (no state). */
#ifndef AOTIDBG_STACK_TRACE_H
#define AOTIDBG_STACK_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

typedef struct {
    const char *file; int file_len;   /* the path as Python printed it */
    int64_t line;                     /* 1-based; 0 when not given */
    const char *func; int func_len;   /* "forward"; len 0 when not given */
    const char *code; int code_len;   /* the source line, trimmed; len 0 when not given */
    int in_torch;                     /* the frame is torch's own code */
} st_frame;

/* The frames of text, outermost first; past max, the innermost max. Returns how many. */
size_t stack_trace_frames(const char *text, st_frame *out, size_t max);
/* Index of the user's frame: the innermost outside torch, else the innermost; -1 when n == 0. */
int stack_trace_user(const st_frame *f, size_t n);
/* The base name of a frame's file ("model.py"), as a span of its path. */
const char *st_frame_base(const st_frame *f, int *len);

/* The user's lines of a kernel call: one frame per stack trace (the user's
 * frame of each), duplicates (same file and line) dropped, in the order of
 * the traces; at most max. Returns how many. */
size_t kernel_call_sites(const kernel_call *c, st_frame *out, size_t max);

/* The graph nodes a call names, best first: its source-node comment, else
 * its pre_grad_nodes, else its post_grad_nodes. *which gets "nodes",
 * "pre-grad nodes" or "post-grad nodes"; NULL and *n == 0 when none. */
const char *const *kernel_call_nodes(const kernel_call *c, size_t *n, const char **which);
/* Where a call comes from, short, for lists: the user's line ("model.py:9",
 * "+N" when its traces name N more lines), else its nodes ("[linear, relu]").
 * Appends to out (nothing when the call says nothing); at most max bytes. */
void kernel_call_where(const kernel_call *c, strbuf *out, size_t max);
/* The model layer a call belongs to, from the weights it passes: the first
 * weight's module path up to its first numeric part ("blocks.0.fc.weight" ->
 * "blocks.0"), else its first part ("head.weight" -> "head"). Writes a
 * NUL-terminated key to buf; returns its length, 0 when the call passes none. */
size_t kernel_call_layer(const kernel_call *c, char *buf, size_t n);
/* The same for one weight's name p; *numbered (when not NULL) is 1 when the
 * key ends at a numeric part (a layer of a repeated stack: "blocks.0"). */
size_t kernel_param_layer(const char *p, char *buf, size_t n, int *numbered);

#endif
