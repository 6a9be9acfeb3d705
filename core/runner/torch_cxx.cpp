// torch_cxx.cpp — torch's model runner and constant maps behind a C API (torch_cxx.h).
// The one C++ file of the runner: libtorch offers these only as C++.
#include "torch_cxx.h"

#include <torch/csrc/inductor/aoti_runner/model_container_runner.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>

namespace {

using torch::inductor::AOTIModelContainerRunner;

// The container and proxy-executor handles are protected members of torch's
// runner; naming them through a derived class gives member pointers that
// apply to any runner object (no cast of the object itself).
struct Peek : AOTIModelContainerRunner {
    static AOTInductorModelContainerHandle container(AOTIModelContainerRunner &r)
    {
        return r.*(&Peek::container_handle_);
    }
    static AOTIProxyExecutorHandle proxy(AOTIModelContainerRunner &r) { return r.*(&Peek::proxy_executor_handle_); }
};

void put(char *err, size_t errlen, const std::string &s)
{
    if (errlen) std::snprintf(err, errlen, "%s", s.c_str());
}

} // namespace

struct tcxx_runner {
    std::unique_ptr<AOTIModelContainerRunner> r;
};

extern "C" int tcxx_runner_create(const char *so_path, const char *device, const char *cubin_dir, tcxx_runner **out,
                                  void **container, void **proxy, char *err, size_t errlen)
{
    *out = nullptr;
    std::string dev = device ? device : "cpu";
    std::string key = dev.substr(0, dev.find(':'));   // the registry is keyed by device type
    try {
        auto &reg = torch::inductor::getAOTIModelRunnerRegistry();
        auto it = reg.find(key);
        if (it == reg.end()) {
            put(err, errlen,
                "this torch has no AOTI model runner for device type '" + key +
                    "' (a CPU-only torch asked for cuda?)");
            return -1;
        }
        auto t = std::make_unique<tcxx_runner>();
        t->r = it->second(so_path, 1, dev, cubin_dir ? cubin_dir : "", false);
        *container = Peek::container(*t->r);
        *proxy = Peek::proxy(*t->r);
        *out = t.release();
        return 0;
    } catch (const std::exception &e) {
        put(err, errlen, e.what());
    } catch (...) {
        put(err, errlen, "unknown C++ exception from torch's model runner");
    }
    return -1;
}

extern "C" void tcxx_runner_free(tcxx_runner *r)
{
    try {
        delete r;
    } catch (...) {   // a failing container delete: nothing left to do about it
    }
}

extern "C" int tcxx_update_constants(void *fn, void *container, const char *const *names, void *const *handles,
                                     size_t n, int use_inactive, int validate_full, char *err, size_t errlen)
{
    using update_fn = AOTIRuntimeError (*)(AOTInductorModelContainerHandle, AOTInductorConstantMapHandle, bool, bool);
    try {
        std::unordered_map<std::string, AtenTensorHandle> map;
        for (size_t i = 0; i < n; i++) map.emplace(names[i], static_cast<AtenTensorHandle>(handles[i]));
        AOTIRuntimeError rc = reinterpret_cast<update_fn>(fn)(static_cast<AOTInductorModelContainerHandle>(container),
                                                             reinterpret_cast<AOTInductorConstantMapHandle>(&map),
                                                             use_inactive != 0, validate_full != 0);
        if (rc == 0) return 0;
        put(err, errlen, "the model refused the constants (see the runner's stderr)");
    } catch (const std::exception &e) {
        put(err, errlen, e.what());
    }
    return -1;
}

extern "C" int tcxx_extract_constants(void *fn, void *container, void (*each)(void *ctx, const char *fqn, void *handle),
                                      void *ctx, char *err, size_t errlen)
{
    using extract_fn = AOTIRuntimeError (*)(AOTInductorModelContainerHandle, AOTInductorConstantMapHandle, bool);
    try {
        std::unordered_map<std::string, AtenTensorHandle> map;
        AOTIRuntimeError rc = reinterpret_cast<extract_fn>(fn)(static_cast<AOTInductorModelContainerHandle>(container),
                                                              reinterpret_cast<AOTInductorConstantMapHandle>(&map),
                                                              false);
        if (rc == 0) {
            for (const auto &kv : map) each(ctx, kv.first.c_str(), kv.second);
            return 0;
        }
        put(err, errlen, "the model could not list its constants (see the runner's stderr)");
    } catch (const std::exception &e) {
        put(err, errlen, e.what());
    }
    return -1;
}
