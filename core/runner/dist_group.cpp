// dist_group.cpp — the runner's process group through c10d's C++ API (dist_group.h).
// Made the way torch.distributed.init_process_group makes the default group:
// a TCPStore on rank 0's address, a ProcessGroup over a prefix of it, one backend.
#include "dist_group.h"
#include "torch_cxx.h"

#include <torch/csrc/distributed/c10d/GroupRegistry.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifdef AOTIDBG_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef AOTIDBG_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split_names(const char *names)
{
    std::vector<std::string> out;
    std::stringstream ss(names ? names : "");
    for (std::string n; std::getline(ss, n, ',');)
        if (!n.empty()) out.push_back(n);
    return out;
}

c10::intrusive_ptr<c10d::Backend> make_backend(const dgroup_config *c, const c10::intrusive_ptr<c10d::Store> &store,
                                               std::chrono::milliseconds timeout, c10::DeviceType *dev,
                                               c10d::ProcessGroup::BackendType *type)
{
#ifdef AOTIDBG_WITH_NCCL
    if (c->cuda) {
        auto opts = c10d::ProcessGroupNCCL::Options::create();
        opts->timeout = timeout;
        *dev = c10::DeviceType::CUDA;
        *type = c10d::ProcessGroup::BackendType::NCCL;
        return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, c->rank, c->world_size, opts);
    }
#endif
#ifdef AOTIDBG_WITH_GLOO
    auto opts = c10d::ProcessGroupGloo::Options::create_default(timeout);
    *dev = c10::DeviceType::CPU;
    *type = c10d::ProcessGroup::BackendType::GLOO;
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, c->rank, c->world_size, opts);
#else
    (void)c, (void)store, (void)timeout, (void)dev, (void)type;
    throw std::runtime_error("this runner was built without gloo's headers: it cannot make a CPU process group "
                             "(install libgloo-dev and rebuild it)");
#endif
}

// The registry keeps groups by weak reference: the runner holds the group for its life.
c10::intrusive_ptr<c10d::ProcessGroup> the_group;

} // namespace

// 1 when this runner can make NCCL groups (built with NCCL's headers).
static int dgroup_has_nccl(void)
{
#ifdef AOTIDBG_WITH_NCCL
    return 1;
#else
    return 0;
#endif
}

extern "C" int dgroup_init(const dgroup_config *c, char *err, size_t errlen)
{
    if (c->cuda && !dgroup_has_nccl()) {
        tcxx_put(err, errlen, "this runner was built without NCCL's headers: it cannot make a CUDA process group "
                         "(rebuild it where nccl.h is found, or run the ranks on cpu)");
        return -1;
    }
    std::vector<std::string> names = split_names(c->names);
    if (names.empty()) {
        tcxx_put(err, errlen, "no process group name was given");
        return -1;
    }
    return tcxx_guarded(err, errlen, "", "c10d", [&] {
        auto timeout = std::chrono::milliseconds(c->timeout_ms > 0 ? c->timeout_ms : 60000);
        c10d::TCPStoreOptions so;
        so.port = static_cast<std::uint16_t>(c->master_port);
        so.isServer = c->rank == 0;
        so.numWorkers = static_cast<std::size_t>(c->world_size);
        so.waitWorkers = true;
        so.timeout = timeout;
        auto tcp = c10::make_intrusive<c10d::TCPStore>(c->master_addr, so);
        auto pg_store = c10::make_intrusive<c10d::PrefixStore>(names[0] + "/", tcp);
        auto pg = c10::make_intrusive<c10d::ProcessGroup>(pg_store, c->rank, c->world_size);
        c10::DeviceType dev = c10::DeviceType::CPU;
        auto type = c10d::ProcessGroup::BackendType::GLOO;
        auto backend_store = c10::make_intrusive<c10d::PrefixStore>(c->cuda ? "cuda/" : "cpu/", pg_store);
        auto backend = make_backend(c, backend_store, timeout, &dev, &type);
        pg->setDefaultBackend(type);
        pg->setBackend(dev, type, backend);
        pg->setGroupName(names[0]);
        for (const auto &n : names) c10d::register_process_group(n, pg);
        the_group = pg;
        return 0;
    });
}
