/* checklist.h — the device/shape checklist: every detectable mismatch between
 * a package, this machine and the inputs, before anything runs.
 *
 * Owner: core/check/checklist.c. Produces check_row rows (model.h) with PASS, WARN,
 * FAIL or INFO, the evidence (expected, got, source) and a one-line fix.
 * Row ids are stable (scripts and tests match them):
 *   artifact.api, package.model, package.metadata, package.so, package.wrapper-cpp,
 *   package.cubins, package.weights, package.custom-ops, package.symbols,
 *   package.torch-version, package.hidden-kernels,
 *   device.compile-vs-load, device.cuda-available, device.index,
 *   device.compute-capability, device.cpu-isa,
 *   input.spec, input.count, input.N.dtype, input.N.device, input.N.rank,
 *   input.N.dim.D, input.N.strides,
 *   flag.printer-level, flag.nan-asserts, flag.AOTI_RUNTIME_CHECK_INPUTS,
 *   flag.CUDA_LAUNCH_BLOCKING, flag.PYTORCH_NO_CUDA_MEMORY_CACHING
 * Nothing here loads CUDA's runtime or libtorch: CUDA is probed through
 * dlopen("libcuda.so.1") and libtorch is only read as ELF files. Device, CPU
 * and environment rows judge the box in opts.host when given (host_facts.h).
 * Ownership: a checklist owns its rows and strings (its arena and array);
 * release with checklist_free(). Errors: 0 / -1 with a message in err only
 * for a failure to check at all; a failed check is a FAIL row, not an error. */
#ifndef AOTIDBG_CHECKLIST_H
#define AOTIDBG_CHECKLIST_H
#include <stddef.h>
#include "arena.h"
#include "model.h"
#include "package.h"
#include "strbuf.h"
#include "host_facts.h"   /* cuda_probe, cuda_probe_run */
#include "wrapper_scan.h"

typedef struct {
    const char *device;        /* requested load device ("cpu", "cuda", "cuda:N"); NULL: the package's */
    const char *model;         /* model name in the package; NULL: the default one */
    const input_spec *inputs;  /* NULL: no spec given, per-input rows are skipped */
    size_t ninputs;
    const char *torch_lib;     /* libtorch folder; NULL: $TORCH_DIR or python3's torch; "none": skip */
    const host_facts *host;    /* the box the model runs on (--remote: the runner's FACTS); NULL:
                                  this machine, probed as needed */
    int blocking;              /* the run blocks after each launch itself (--blocking): no advice to set
                                  CUDA_LAUNCH_BLOCKING */
} checklist_opts;

typedef struct {
    arena arena;
    size_t nrows, cap;
    check_row *rows;
    const char *device;        /* the load device the rows were computed for (arena) */
} checklist;


void checklist_init(checklist *cl);
/* Runs every row for package p (opened, not necessarily extracted). */
int checklist_run(checklist *cl, package_t *p, const checklist_opts *o, strbuf *err);
/* The input rows alone, against a scanned wrapper.cpp (used by checklist_run;
 * exposed for tests). load_device: "cpu", "cuda:0", ...; src: "wrapper.cpp". */
void checklist_inputs(checklist *cl, const wrapper_scan *ws, const char *src, const input_spec *in, size_t n,
                      const char *load_device);
int checklist_has_fail(const checklist *cl);
/* A spec naming its inputs (inputs.h inputs_order_by_name) put in the model's
 * order, by the names in the model's wrapper.cpp; -1 with err when a name is
 * wrong. Nothing to do (0) for a spec naming none or a package without a wrapper. */
int checklist_order_inputs(package_t *p, const char *model, session *s, const char *spec, strbuf *err);
/* The gate before a run: runs the checklist, copies its rows into s->checks
 * (when s is not NULL) and returns 1 when a row FAILs, with one line per FAIL
 * row in why ("id: subject: expected X, got Y; fix: ..."); 0 when nothing
 * failed. The caller refuses to start on 1 unless the user passed --force. */
int checklist_gate(package_t *p, const checklist_opts *o, session *s, strbuf *why);
const check_row *checklist_find(const checklist *cl, const char *id);
size_t checklist_count(const checklist *cl, check_status st);
/* Copies the rows into s->checks (s's arena). */
void checklist_to_session(const checklist *cl, session *s);
void checklist_format_text(const checklist *cl, strbuf *out);
void checklist_format_yaml(const checklist *cl, strbuf *out);
void checklist_free(checklist *cl);

/* Folder of libtorch's shared libraries: $TORCH_DIR(/lib), else the one
 * aotidbg-runner was built against (when present here), else python3's
 * torch/lib (found without importing torch). Static storage; NULL if none. */
const char *checklist_torch_lib_dir(void);

#endif
