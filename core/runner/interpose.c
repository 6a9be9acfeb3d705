/* interpose.c — CUDA launch interposition: kernel boundaries for CUDA packages
 * built without the intermediate-value printer, with no rebuild (issue 10).
 *
 * How: AOTI's CUDA wrapper launches every Triton kernel through the driver
 * API: loadKernel() calls cuModuleLoad/cuModuleGetFunction and launchKernel()
 * calls cuLaunchKernel (torch/_inductor/codegen/cuda/device_op_overrides.py,
 * torch 2.11-2.13; no cuLaunchKernelEx yet: triton_heuristics.py notes that
 * as a TODO). The model .so imports those symbols, and the runner executable
 * is linked with -rdynamic, so our definitions below win in global symbol
 * resolution; we forward to the real ones from dlopen("libcuda.so.1").
 * cuLaunchKernelEx is interposed as well, for the torch that adopts it.
 *
 * Naming: cuFuncGetName (CUDA >= 12.3; dlsym, may be absent); before that,
 * the name the model passed to cuModuleGetFunction, which we record.
 *
 * Blocking mode: after each launch cuCtxSynchronize() and check; on an error
 * the callback gets phase INTERPOSE_FAILED with the kernel's name, and
 * interpose_last_error() says "<kernel>: CUDA_ERROR_X: <cuGetErrorString>".
 * The launch then returns the error, so the model's CUDA_DRIVER_CHECK fails
 * at the kernel that faulted instead of at some later call.
 *
 * Environment (works with no wiring): AOTIDBG_INTERPOSE=1 logs launches to
 * stderr, AOTIDBG_INTERPOSE_BLOCKING=1 synchronizes and checks after each.
 *
 * API (declare these where they are wired; see the h8 report):
 *   void interpose_set_callback(void (*cb)(const char *kernel_name, int phase, void *ctx), void *ctx);
 *       phase 0 before the launch, 1 after it (after the sync when blocking),
 *       2 the launch or the sync failed, 3 the launch returned (before that
 *       sync: the kernel is queued). NULL: launches pass straight through.
 *   int interpose_set_blocking(int on);        returns the previous setting
 *   const char *interpose_last_error(void);    "" when none; static storage
 *   long long interpose_launch_count(void);    launches seen since start
 *   int interpose_available(void);             1 when libcuda's cuLaunchKernel was found
 *   void interpose_set_timer(void (*start)(void *stream, int loaded), void (*stop)(void *stream, int ok));
 *       called right around the real launch, nothing else between (after the
 *       phase-0 callback, before phase 3 and any blocking sync), on the
 *       launch's stream: the device timer's events (device_timer.h). Before
 *       start the function is loaded (cuFuncLoad, CUDA >= 12.4), so a lazily
 *       loaded function does not load (and synchronize) inside the pair;
 *       loaded is 0 when that could not be done and this is the function's
 *       first launch. NULL: no timing.
 *   int interpose_empty_kernel(void *stream);  launches an empty kernel (PTX, JIT-compiled
 *       once) on stream straight through libcuda, unseen by the callback and the
 *       timer: the device timer's calibration. 0 queued, else a CUresult.
 * Kernels seen this way carry no tensors: the front end marks them with
 * kernel_event.source = "interpose".
 *
 * Compiles without CUDA headers: the few driver types are declared here.
 * Threads: the table of names is guarded by a mutex; the callback runs on
 * the launching thread. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;                       /* enum cudaError_enum; 0 is CUDA_SUCCESS */
typedef struct CUfunc_st *CUfunction;
typedef struct CUmod_st *CUmodule;
typedef struct CUstream_st *CUstream;
/* cuda.h's CUlaunchConfig: only hStream is read (the attributes are forwarded untouched) */
typedef struct CUlaunchConfig_st {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_INITIALIZED 3
#define INTERPOSE_BEFORE 0
#define INTERPOSE_AFTER 1
#define INTERPOSE_FAILED 2
#define INTERPOSE_QUEUED 3

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*get_function_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*func_get_name_fn)(const char **, CUfunction);
typedef CUresult (*func_is_loaded_fn)(int *, CUfunction);   /* CUfunctionLoadingState: 1 loaded */
typedef CUresult (*func_load_fn)(CUfunction);
typedef CUresult (*module_load_data_fn)(CUmodule *, const void *);
typedef CUresult (*sync_fn)(void);
typedef CUresult (*err_str_fn)(CUresult, const char **);
typedef CUresult (*param_info_fn)(CUfunction, size_t, size_t *, size_t *);   /* CUDA >= 12.4 */

static struct {
    pthread_once_t once;
    void *lib;
    launch_fn launch, launch_ptsz;
    launch_ex_fn launch_ex;
    get_function_fn get_function;
    func_get_name_fn func_get_name;
    func_is_loaded_fn func_is_loaded;
    func_load_fn func_load;
    module_load_data_fn module_load_data;
    sync_fn ctx_sync;
    err_str_fn err_name, err_string;
    param_info_fn param_info;
} real = {PTHREAD_ONCE_INIT};

static void (*user_cb)(const char *, int, void *);
static void (*timer_start)(void *, int);
static void (*timer_stop)(void *, int);
static void *user_ctx;
static int blocking;
static long long launches;
static char last_error[1024];
/* The launch being made, while the callback's BEFORE runs (interpose_write_launch). */
static struct {
    CUfunction f;
    const char *name;
    unsigned grid[3], block[3], shmem;
    void **params;
    int valid;
} cur;

static void set_current(CUfunction f, const char *name, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shmem, void **params)
{
    cur = (__typeof__(cur)){f, name, {gx, gy, gz}, {bx, by, bz}, shmem, params, 1};
}

/* CUfunction -> the name it was fetched under (open addressing, grows). */
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { CUfunction f; char *name; int launched; } *names;
static size_t names_cap, names_len;

static void load_real(void)
{
    real.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!real.lib) return;
    /* dlsym on the handle searches libcuda itself, never our definitions. */
    real.launch = (launch_fn)dlsym(real.lib, "cuLaunchKernel");
    real.launch_ptsz = (launch_fn)dlsym(real.lib, "cuLaunchKernel_ptsz");
    real.launch_ex = (launch_ex_fn)dlsym(real.lib, "cuLaunchKernelEx");
    real.get_function = (get_function_fn)dlsym(real.lib, "cuModuleGetFunction");
    real.func_get_name = (func_get_name_fn)dlsym(real.lib, "cuFuncGetName");
    real.func_is_loaded = (func_is_loaded_fn)dlsym(real.lib, "cuFuncIsLoaded");
    real.func_load = (func_load_fn)dlsym(real.lib, "cuFuncLoad");
    real.module_load_data = (module_load_data_fn)dlsym(real.lib, "cuModuleLoadData");
    real.ctx_sync = (sync_fn)dlsym(real.lib, "cuCtxSynchronize");
    real.err_name = (err_str_fn)dlsym(real.lib, "cuGetErrorName");
    real.err_string = (err_str_fn)dlsym(real.lib, "cuGetErrorString");
    real.param_info = (param_info_fn)dlsym(real.lib, "cuFuncGetParamInfo");
}

/* Until the runner wires a callback, AOTIDBG_INTERPOSE=1 logs every launch
 * to stderr ("aotidbg-interpose: launch <kernel>") and AOTIDBG_INTERPOSE_BLOCKING=1
 * turns on blocking mode: enough to name a faulting kernel with no wiring. */
static void env_log_cb(const char *kernel, int phase, void *ctx)
{
    (void)ctx;
    if (phase == INTERPOSE_BEFORE) fprintf(stderr, "aotidbg-interpose: launch %s\n", kernel);
    else if (phase == INTERPOSE_FAILED) fprintf(stderr, "aotidbg-interpose: FAILED %s\n", last_error);
}

static void load_env(void)
{
    const char *v = getenv("AOTIDBG_INTERPOSE");
    if (v && *v && *v != '0' && !user_cb) user_cb = env_log_cb;
    v = getenv("AOTIDBG_INTERPOSE_BLOCKING");
    if (v && *v && *v != '0') blocking = 1;
}

static void load_all(void)
{
    load_env();
    load_real();
}

static void ensure_real(void) { pthread_once(&real.once, load_all); }

static size_t slot_of(CUfunction f, size_t cap)
{
    uintptr_t h = (uintptr_t)f;
    h ^= h >> 17; h *= 0x9E3779B97F4A7C15ull; h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

/* f's row, added when absent; -1 without memory. Call with names_mu held. */
static long row_of(CUfunction f)
{
    if ((names_len + 1) * 2 > names_cap) {
        size_t cap = names_cap ? names_cap * 2 : 256;
        __typeof__(names) n = calloc(cap, sizeof *n);
        if (!n) return -1;
        for (size_t i = 0; i < names_cap; i++)
            if (names[i].f) {
                size_t s = slot_of(names[i].f, cap);
                while (n[s].f) s = (s + 1) & (cap - 1);
                n[s] = names[i];
            }
        free(names);
        names = n;
        names_cap = cap;
    }
    size_t s = slot_of(f, names_cap);
    while (names[s].f && names[s].f != f) s = (s + 1) & (names_cap - 1);
    if (!names[s].f) {
        names_len++;
        names[s].f = f;
    }
    return (long)s;
}

static void remember(CUfunction f, const char *name)
{
    if (!f || !name) return;
    pthread_mutex_lock(&names_mu);
    long s = row_of(f);
    if (s >= 0) {
        free(names[s].name);
        names[s].name = strdup(name);
    }
    pthread_mutex_unlock(&names_mu);
}

/* Loads f if the driver loads lazily, so the launch itself does not (loading
 * may synchronize the context, which a held stream would block). 1 when f is
 * known loaded (or launched before: a launch loads it), 0 on its first launch
 * with a driver that cannot load it apart (no cuFuncLoad) and lazy loading. */
static int ensure_loaded(CUfunction f)
{
    if (real.func_load) {
        int st = 0;
        if (!real.func_is_loaded || real.func_is_loaded(&st, f) != CUDA_SUCCESS || st != 1)
            real.func_load(f);   /* an error here shows at the launch */
        return 1;
    }
    const char *ml = getenv("CUDA_MODULE_LOADING");
    if (ml && !strcmp(ml, "EAGER")) return 1;
    pthread_mutex_lock(&names_mu);
    long s = row_of(f);
    int before = s < 0 || names[s].launched;
    if (s >= 0) names[s].launched = 1;
    pthread_mutex_unlock(&names_mu);
    return before;
}

/* The real launch between the device timer's marks (interpose_set_timer). */
#define TIMED(stream, call)                                          \
    ({                                                               \
        if (timer_start) timer_start((void *)(stream), ensure_loaded(f)); \
        CUresult r_ = (call);                                        \
        if (timer_stop) timer_stop((void *)(stream), r_ == CUDA_SUCCESS); \
        r_;                                                          \
    })

/* The kernel's name into buf: cuFuncGetName, else the recorded one, else the handle. */
static const char *name_of(CUfunction f, char *buf, size_t n)
{
    const char *nm = NULL;
    if (real.func_get_name && real.func_get_name(&nm, f) == CUDA_SUCCESS && nm && *nm) {
        snprintf(buf, n, "%s", nm);
        return buf;
    }
    pthread_mutex_lock(&names_mu);
    if (names_cap) {
        size_t s = slot_of(f, names_cap);
        while (names[s].f && names[s].f != f) s = (s + 1) & (names_cap - 1);
        if (names[s].f == f && names[s].name) nm = names[s].name;
    }
    if (nm) snprintf(buf, n, "%s", nm);
    else snprintf(buf, n, "cufunction@%p", (void *)f);
    pthread_mutex_unlock(&names_mu);
    return buf;
}

static void set_error(const char *kernel, const char *what, CUresult r)
{
    const char *en = NULL, *es = NULL;
    if (real.err_name) real.err_name(r, &en);
    if (real.err_string) real.err_string(r, &es);
    snprintf(last_error, sizeof last_error, "%s: %s %s (%d): %s", kernel, what,
             en ? en : "CUDA error", r, es ? es : "no description");
}

/* Common tail of both launch entry points. */
static CUresult after_launch(const char *kernel, CUresult r)
{
    if (r != CUDA_SUCCESS) {
        set_error(kernel, "launch failed:", r);
        if (user_cb) user_cb(kernel, INTERPOSE_FAILED, user_ctx);
        return r;
    }
    if (user_cb) user_cb(kernel, INTERPOSE_QUEUED, user_ctx);
    if (blocking && real.ctx_sync) {
        CUresult s = real.ctx_sync();
        if (s != CUDA_SUCCESS) {
            set_error(kernel, "failed in blocking mode, cuCtxSynchronize:", s);
            if (user_cb) user_cb(kernel, INTERPOSE_FAILED, user_ctx);
            else fprintf(stderr, "aotidbg-runner: %s\n", last_error);
            return s;   /* the model's CUDA_DRIVER_CHECK fails at this kernel */
        }
    }
    if (user_cb) user_cb(kernel, INTERPOSE_AFTER, user_ctx);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    ensure_real();
    if (!real.get_function) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real.get_function(hfunc, hmod, name);
    if (r == CUDA_SUCCESS && hfunc) remember(*hfunc, name);
    return r;
}

/* Both launch spellings: pass straight through when nobody watches, else
 * name the kernel, count it and report before and after. `fn` is the real
 * entry point (NULL when libcuda lacks it: `entry` and `missing` say so). */
static CUresult launch_via(launch_fn fn, const char *entry, const char *missing, CUfunction f, unsigned gx,
                           unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                           CUstream stream, void **params, void **extra)
{
    if (!fn) {
        fprintf(stderr, "aotidbg-runner: %s called but libcuda.so.1 %s\n", entry, missing);
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (!user_cb && !blocking) return fn(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
    char kernel[512];
    name_of(f, kernel, sizeof kernel);
    __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    set_current(f, kernel, gx, gy, gz, bx, by, bz, shmem, params);
    if (user_cb) user_cb(kernel, INTERPOSE_BEFORE, user_ctx);
    cur.valid = 0;
    return after_launch(kernel, TIMED(stream, fn(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)));
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shmem, CUstream stream, void **params, void **extra)
{
    ensure_real();
    return launch_via(real.launch, "cuLaunchKernel", "was not found", f, gx, gy, gz, bx, by, bz, shmem, stream,
                      params, extra);
}

/* The per-thread-default-stream spelling (cuda.h maps cuLaunchKernel to it
 * under CUDA_API_PER_THREAD_DEFAULT_STREAM). */
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shmem, CUstream stream, void **params, void **extra)
{
    ensure_real();
    return launch_via(real.launch_ptsz, "cuLaunchKernel_ptsz", "has none", f, gx, gy, gz, bx, by, bz, shmem,
                      stream, params, extra);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    ensure_real();
    if (!real.launch_ex) {
        fprintf(stderr, "aotidbg-runner: cuLaunchKernelEx called but this driver has none\n");
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (!user_cb && !blocking) return real.launch_ex(config, f, params, extra);
    char kernel[512];
    name_of(f, kernel, sizeof kernel);
    __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    if (config)
        set_current(f, kernel, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                    config->blockDimY, config->blockDimZ, config->sharedMemBytes, params);
    if (user_cb) user_cb(kernel, INTERPOSE_BEFORE, user_ctx);
    cur.valid = 0;
    return after_launch(kernel, TIMED(config ? config->hStream : NULL, real.launch_ex(config, f, params, extra)));
}

void interpose_set_callback(void (*cb)(const char *kernel_name, int phase, void *ctx), void *ctx)
{
    ensure_real();   /* so a later first launch does not install the env logger over cb */
    user_ctx = ctx;
    user_cb = cb;
}

void interpose_set_timer(void (*start)(void *stream, int loaded), void (*stop)(void *stream, int ok))
{
    ensure_real();
    timer_start = start;
    timer_stop = stop;
}

int interpose_empty_kernel(void *stream)
{
    /* newest target first: a driver may no longer JIT old ones, an old GPU cannot run new ones */
    static const char *const ptx[] = {
        ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry aotidbg_empty()\n{\n\tret;\n}\n",
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry aotidbg_empty()\n{\n\tret;\n}\n",
        ".version 6.0\n.target sm_50\n.address_size 64\n.visible .entry aotidbg_empty()\n{\n\tret;\n}\n",
    };
    static CUfunction f;
    ensure_real();
    if (!real.launch || !real.module_load_data || !real.get_function) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; !f && i < sizeof ptx / sizeof ptx[0]; i++) {
        CUmodule m;
        r = real.module_load_data(&m, ptx[i]);
        if (r == CUDA_SUCCESS && real.get_function(&f, m, "aotidbg_empty") != CUDA_SUCCESS) f = NULL;
    }
    if (!f) return r ? r : CUDA_ERROR_NOT_INITIALIZED;
    return real.launch(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, NULL, NULL);
}

int interpose_set_blocking(int on)
{
    ensure_real();
    int was = blocking;
    blocking = on ? 1 : 0;
    return was;
}

const char *interpose_last_error(void) { return last_error; }

int interpose_write_launch(FILE *f)
{
    if (!cur.valid) return -1;
    fprintf(f, "function\t%s\ngrid\t%u\t%u\t%u\nblock\t%u\t%u\t%u\nshmem\t%u\n", cur.name, cur.grid[0],
            cur.grid[1], cur.grid[2], cur.block[0], cur.block[1], cur.block[2], cur.shmem);
    if (!real.param_info) {
        fputs("params\tunknown\tthis driver has no cuFuncGetParamInfo (CUDA 12.4 or later needed)\n", f);
        return 0;
    }
    if (!cur.params) {
        fputs("params\tunknown\tthe launch passed its arguments through `extra`, not kernelParams\n", f);
        return 0;
    }
    for (size_t i = 0; i < 4096; i++) {
        size_t off = 0, size = 0;
        if (real.param_info(cur.f, i, &off, &size) != CUDA_SUCCESS) break;   /* past the last one */
        fprintf(f, "param\t%zu\t%zu\t%zu\t", i, off, size);
        const unsigned char *b = cur.params[i];
        for (size_t k = 0; k < size && b; k++)
            fprintf(f, "%02x", b[k]);
        fputc('\n', f);
    }
    return 0;
}

long long interpose_launch_count(void) { return __atomic_load_n(&launches, __ATOMIC_RELAXED); }

int interpose_available(void)
{
    ensure_real();
    return real.launch != NULL;
}
