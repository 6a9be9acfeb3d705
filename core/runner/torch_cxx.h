/* torch_cxx.h — the things libtorch offers only through C++, behind a C API:
 *
 *  - torch's own model runner (torch::inductor::AOTIModelContainerRunner, from
 *    the registry AOTIModelPackageLoader uses). It loads the model .so, makes
 *    the proxy executor from <so stem>.json (fallback ops without a C shim,
 *    custom ops: torch's OSSProxyExecutor is not exported, so this is the one
 *    way to get it) and creates the container, exactly as
 *    torch._inductor.aoti_load_package does. We keep the object and borrow its
 *    container and proxy-executor handles; our C code runs the container.
 *  - the std::unordered_map<std::string, AtenTensorHandle> that the
 *    container's V1 constant-buffer API takes (the C-ABI "Pairs" variants are
 *    newer than torch 2.11).
 *  - torch.save files (torch::pickle_load): tensors given as inputs.
 *
 * Handles are passed as void * so that this header needs neither aoti_abi.h
 * (whose C prototypes clash with torch's headers in the C++ file) nor torch.
 * Errors: 0 / -1 with a message in err (C++ exceptions never cross into C:
 * tcxx_guarded below is where every C++ file of the runner turns one into
 * that message).
 * Ownership: a tcxx_runner owns the container; tcxx_runner_free() deletes it.
 * Threads: the runner's main (model) thread only. */
#ifndef AOTIDBG_TORCH_CXX_H
#define AOTIDBG_TORCH_CXX_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tcxx_runner tcxx_runner;

/* device: "cpu", "cuda", "cuda:N"; cubin_dir may be NULL. *container gets
 * the AOTInductorModelContainerHandle, *proxy the AOTIProxyExecutorHandle
 * (NULL when the package has no <stem>.json). */
int tcxx_runner_create(const char *so_path, const char *device, const char *cubin_dir, tcxx_runner **out,
                       void **container, void **proxy, char *err, size_t errlen);
void tcxx_runner_free(tcxx_runner *r);

/* Calls fn (AOTInductorModelContainerUpdate[UserManaged]ConstantBuffer of the
 * model .so) with a map of names[i] -> handles[i]. */
int tcxx_update_constants(void *fn, void *container, const char *const *names, void *const *handles, size_t n,
                          int use_inactive, int validate_full, char *err, size_t errlen);

/* Calls fn (AOTInductorModelContainerExtractConstantsMap of the model .so,
 * the map form older torch has) and hands each (original FQN, tensor handle)
 * to each(ctx). 0, or -1 with err. */
int tcxx_extract_constants(void *fn, void *container, void (*each)(void *ctx, const char *fqn, void *handle),
                           void *ctx, char *err, size_t errlen);

/* A tensor from a torch.save file (torch::pickle_load on its bytes): the file's
 * one tensor, or with key the entry of a dict (a string key) or of a list or
 * tuple (an index, "0"); its dtype (our name: "float32") and shape must be
 * dtype and shape[ndim]. Its values, row-major, are copied into buf (nbytes).
 * Messages name the file `shown` (the user's name for the copy at path).
 * 0, or -1 with what the file holds and what to do in err. */
int tcxx_load_input(const char *path, const char *shown, const char *key, const char *dtype, int ndim, const int64_t *shape, void *buf,
                    size_t nbytes, char *err, size_t errlen);

#ifdef __cplusplus
}

#include <cstdio>
#include <exception>
#include <string>

/* For the runner's C++ files behind C APIs (torch_cxx.cpp, dist_group.cpp).
 * tcxx_put: s into err, cut to errlen bytes (nothing when errlen is 0).
 * tcxx_guarded: body() (0, or -1 having put why), with a C++ exception turned
 * into -1 and its what() in err, after "PREFIX: " when prefix is not empty;
 * one that is no std::exception says "unknown C++ exception from FROM". */
inline void tcxx_put(char *err, size_t errlen, const std::string &s)
{
    if (errlen) std::snprintf(err, errlen, "%s", s.c_str());
}

template <class Body>
int tcxx_guarded(char *err, size_t errlen, const std::string &prefix, const char *from, Body &&body)
{
    const std::string lead = prefix.empty() ? "" : prefix + ": ";
    try {
        return body();
    } catch (const std::exception &e) {
        tcxx_put(err, errlen, lead + e.what());
    } catch (...) {
        tcxx_put(err, errlen, lead + "unknown C++ exception from " + from);
    }
    return -1;
}
#endif
#endif
