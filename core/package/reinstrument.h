/* reinstrument.h — rebuild a private, instrumented copy of a package's model
 * .so from the sources the package carries, so a package built
 * without the intermediate-value printer still gives kernel-by-kernel events.
 *
 * How: the package's <key>.wrapper.cpp and <key>.kernel.cpp
 * end with the exact `// Compile cmd` / `// Link cmd` AOTI ran. We copy the
 * wrapper, insert around every kernel launch in run_impl the same calls the
 * printer at level 1 emits
 *     aoti_torch_save_tensor_handle(buf0, "buf0", "before_launch", "<kernel>");
 * (and "after_launch"), rewrite the commands' /tmp/torchinductor_* and torch
 * paths to our cache folder and this machine's torch, and run them (no shell).
 * The weights object (<hash>.weights.o) is not in the package: AOTI embeds the
 * constants blob between the symbols _binary_constants_bin_start/_end of the
 * .so (section .lrodata, or .ldata when buffers mutate); we copy those bytes
 * out of the shipped .so (its ELF symbol table) and assemble a replacement weights.o
 * with `.incbin`. Weights that AOTI appended to the end of the .so (mmap'd
 * weights, > 2 GB) are copied behind the rebuilt .so the same way, and the
 * proxy executor's node list (<stem>.json) is copied beside it.
 *
 * The user's package is never modified. The result lives in
 * $AOTIDBG_CACHE_DIR, else $XDG_CACHE_HOME/aotidbg/reinstrument, else
 * ~/.cache/aotidbg/reinstrument, under <sha256 of the package>/; a second call
 * with the same sha256 and the same local torch returns the cached .so.
 *
 * Errors: functions return 0 / -1 and append a message to `err` that names
 * the file and says what is missing (compiler, torch headers, an object the
 * package does not carry) and what to do. Untrusted input: sizes are capped,
 * the commands' programs and flags are checked before anything runs. */
#ifndef AOTIDBG_REINSTRUMENT_H
#define AOTIDBG_REINSTRUMENT_H
#include <stddef.h>
#include "strbuf.h"

#define REINSTRUMENT_VERSION       6   /* 2: <stem>.json beside the copy; 3: subgraphs, proxy calls; 4: views, output handles; 5: those of printed calls under the printer's name; 6: constants printed C++ kernels write */
#define REINSTRUMENT_MAX_SOURCE    (512U << 20)   /* wrapper.cpp / kernel.cpp */
#define REINSTRUMENT_MAX_CMD       (256U << 10)   /* one command line */
#define REINSTRUMENT_MAX_STATEMENT (1U << 20)     /* one kernel-launch statement */

/* Progress: stage is a short name ("instrument", "weights", "compile",
 * "link", "cached", "done"); fraction runs 0..1 over the whole build. */
typedef void (*reinstrument_progress_fn)(const char *stage, double fraction, void *ctx);

typedef struct {
    size_t launches;        /* kernel launches instrumented (or, counting only, that would be) */
    size_t hooks;           /* save calls inserted (before + after) */
    size_t cpp, extern_ops, triton, proxy;
    size_t printer;         /* launches the package's printer already hooks: left as they are */
    size_t subgraph;        /* instrumented launches inside torch.cond / while_loop subgraphs */
    size_t main_graph;      /* instrumented launches in the main graph, not proxy calls (with a printer:
                               calls it does not print, their arguments being views or output handles) */
    size_t outputs;         /* launches the printer hooks whose output handles it does not save (extern calls
                               that make their outputs: convolution, attention), or the constants they write
                               (C++ kernels updating a buffer in place); a rebuilt copy saves them */
} reinstrument_stats;

/* "N inside torch.cond/while_loop subgraphs, N proxy-executor calls, N
 * main-graph calls ..." for the launches st counts: the three add up to
 * st->launches. Appended to out. */
void reinstrument_hidden_why(const reinstrument_stats *st, strbuf *out);

typedef struct {
    /* extern node index -> op ("aten::_unique2"), from <stem>.json, naming the
     * proxy-executor calls; may be NULL (then "proxy_executor_call_<N>") */
    const char *const *proxy_ops;
    size_t nproxy_ops;
    /* called for every kernel launch of run_impl in order, those the printer
     * hooks too: the kernel's name as the hooks give it (not NUL-terminated),
     * its branch ("" the main graph) and hooked, 1 when the printer's own
     * hooks surround it (torch 2.11 on CUDA hooks Triton launches inside
     * subgraphs; 2.13 on CPU does not); may be NULL */
    void (*each_launch)(const char *kernel, size_t n, const char *branch, int hooked, void *ctx);
    void *ctx;
} reinstrument_opts;

/* Builds (or finds in the cache) the instrumented copy of the model in
 * model_dir (an extracted data/aotinductor/<model>/ folder). sha256 is the
 * package's hash (hex, 64 chars): the cache key. On success *out_so_path is
 * a malloc'd absolute path (caller frees). progress may be NULL. -1 also when
 * there is nothing to add (no launch, or the printer already hooks all). */
int reinstrument_build(const char *model_dir, const char *sha256,
                       reinstrument_progress_fn progress, void *ctx,
                       char **out_so_path, strbuf *err);

/* The text step alone: copies src (a wrapper.cpp) to out with hooks around
 * every kernel launch in run_impl that has none: all of them in a package
 * built without the printer; in one built with it, those the printer does
 * not reach (kernels inside torch.cond / while_loop subgraphs, proxy-executor
 * calls). A launch inside a subgraph passes "before_launch:<subgraph>" (and
 * "after_launch:<subgraph>"; nested ones "outer/inner") as the launch prefix,
 * so the hooks know its branch. out NULL: count only (st says what would be
 * done). -1 when run_impl is not found or a statement is over the caps.
 * o and st may be NULL. */
int reinstrument_source(const char *src, size_t len, const reinstrument_opts *o, strbuf *out,
                        reinstrument_stats *st, strbuf *err);

/* Reads the command that follows `// <which>\n// ` at the end of a
 * generated source (which: "Compile cmd" or "Link cmd") into cmd. */
int reinstrument_find_cmd(const char *src, size_t len, const char *which,
                          strbuf *cmd, strbuf *err);

/* Copies the constants blob (_binary_constants_bin_start.._end) out of an
 * AOTI model .so into blob; *section gets ".lrodata" or ".ldata" (static).
 * *mmap_tail gets the size of weights appended to the file's end (0 if none). */
int reinstrument_read_consts(const char *so_path, strbuf *blob, const char **section,
                             size_t *mmap_tail, strbuf *err);


/* This machine's torch install (the folder holding include/ and lib/): $TORCH_DIR,
 * else python3's torch, found without importing it; NULL when there is none with
 * the AOTI headers. Static storage, looked up once. */
const char *reinstrument_torch_root(void);

#endif
