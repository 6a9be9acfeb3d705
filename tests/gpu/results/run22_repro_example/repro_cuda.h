// repro_cuda.h — the CUDA driver functions a Triton launcher needs, from libcuda.so.1 (written by aotidbg repro).
#pragma once
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>

namespace repro {
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;

struct Driver {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                             void **, void **);
    CUresult (*CtxSynchronize)(void);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
};

inline Driver &driver()
{
    static Driver d;
    static bool done;
    if (done) return d;
    done = true;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { std::fprintf(stderr, "repro: cannot load libcuda.so.1 (the CUDA driver): %s\n", dlerror()); std::exit(2); }
#define REPRO_SYM(n, s) *(void **)&d.n = dlsym(lib, s); if (!d.n) { std::fprintf(stderr, "repro: libcuda.so.1 has no %s\n", s); std::exit(2); }
    REPRO_SYM(Init, "cuInit") REPRO_SYM(DeviceGet, "cuDeviceGet")
    REPRO_SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") REPRO_SYM(CtxSetCurrent, "cuCtxSetCurrent")
    REPRO_SYM(ModuleLoadData, "cuModuleLoadData") REPRO_SYM(ModuleGetFunction, "cuModuleGetFunction")
    REPRO_SYM(FuncSetAttribute, "cuFuncSetAttribute") REPRO_SYM(MemAlloc, "cuMemAlloc_v2")
    REPRO_SYM(MemcpyHtoD, "cuMemcpyHtoD_v2") REPRO_SYM(MemcpyDtoH, "cuMemcpyDtoH_v2")
    REPRO_SYM(LaunchKernel, "cuLaunchKernel") REPRO_SYM(CtxSynchronize, "cuCtxSynchronize")
    REPRO_SYM(GetErrorName, "cuGetErrorName") REPRO_SYM(GetErrorString, "cuGetErrorString")
#undef REPRO_SYM
    return d;
}

// Ends with the CUDA error (exit 1: the kernel failed) when r is one.
inline void check(CUresult r, const char *what)
{
    if (!r) return;
    const char *name = "?", *text = "?";
    driver().GetErrorName(r, &name);
    driver().GetErrorString(r, &text);
    std::fprintf(stderr, "repro: %s: CUDA error: %s (%s, code %d)\n", what, text, name, r);
    std::exit(1);
}
}  // namespace repro
