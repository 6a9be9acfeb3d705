/* host_facts.h — what the box a model runs on offers: its CUDA driver and
 * GPUs, its CPU's flags, the debug variables in its environment and, when
 * asked, whether a model .so loads against its libtorch.
 *
 * Owner: core/host/host_facts.c. The checklist reads these instead of asking
 * the machine it runs on, so `aotidbg check --remote` judges the GPU box:
 * host_facts_probe() fills them here (the runner does it on the GPU box) and
 * host_facts_format()/host_facts_parse() carry them over the protocol as
 * "key\tvalue\n" lines (FACTS, protocol.h). Nothing here loads CUDA's runtime
 * or libtorch: CUDA is probed through dlopen("libcuda.so.1").
 * Ownership: a host_facts owns its strings (fixed buffers and one malloc'd
 * flags line); host_facts_release() frees them. Errors: parse returns -1 with
 * err naming the line; probing never fails (the facts say what was missing). */
#ifndef AOTIDBG_HOST_FACTS_H
#define AOTIDBG_HOST_FACTS_H
#include "strbuf.h"

/* What dlopen("libcuda.so.1") says about this machine. */
typedef struct {
    int driver_found;          /* libcuda.so.1 loaded and its symbols resolved */
    int init_ok;               /* cuInit(0) == 0 */
    int driver_version;        /* cuDriverGetVersion, 0 unknown */
    int device_count;
    int cc_major[16], cc_minor[16];  /* per device index, first 16 */
    char error[160];           /* why not usable; empty when usable */
} cuda_probe;

/* The debug variables the checklist reports (flag.* rows), in this order,
 * NULL-terminated (also the list --deterministic sets to 1). */
#define HOST_NENV 3
extern const char *const host_env_names[HOST_NENV + 1];

typedef struct {
    cuda_probe cuda;
    char *cpu_flags;           /* /proc/cpuinfo's first "flags" value; NULL when unreadable */
    char env[HOST_NENV][64];   /* values of host_env_names; "" when unset */
    char hostname[128];
    char runner[128];          /* "aotidbg-runner 0.1.0 (protocol 2, torch 2.11.0)"; "" when local */
    int so_checked;            /* 1 when so_error below says how the .so loaded */
    char so_error[512];        /* "" when it loaded; else the loader's message */
} host_facts;

/* Probes this machine (cuda_probe_run, /proc/cpuinfo, getenv, gethostname). */
void host_facts_probe(host_facts *hf);
void cuda_probe_run(cuda_probe *cp);
/* /proc/cpuinfo's first "flags" value (all cores share it), malloc'd; NULL when unreadable. */
char *host_cpu_flags_read(void);
/* "key\tvalue\n" lines; values have tabs and newlines replaced by spaces. */
void host_facts_format(const host_facts *hf, strbuf *out);
/* Fills hf from host_facts_format's text; unknown keys are skipped (a newer
 * runner may say more). -1 with err on a malformed line. */
int host_facts_parse(host_facts *hf, const char *text, strbuf *err);
void host_facts_release(host_facts *hf);

#endif
