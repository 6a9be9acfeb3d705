// torch_cxx.cpp — torch's model runner and constant maps behind a C API (torch_cxx.h).
// The one C++ file of the runner: libtorch offers these only as C++.
#include "torch_cxx.h"

#include <torch/csrc/inductor/aoti_runner/model_container_runner.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <ATen/ATen.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

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
    return tcxx_guarded(err, errlen, "", "torch's model runner", [&] {
        auto &reg = torch::inductor::getAOTIModelRunnerRegistry();
        auto it = reg.find(key);
        if (it == reg.end()) {
            tcxx_put(err, errlen,
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
    });
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
    return tcxx_guarded(err, errlen, "", "the model's constant update", [&] {
        std::unordered_map<std::string, AtenTensorHandle> map;
        for (size_t i = 0; i < n; i++) map.emplace(names[i], static_cast<AtenTensorHandle>(handles[i]));
        AOTIRuntimeError rc = reinterpret_cast<update_fn>(fn)(static_cast<AOTInductorModelContainerHandle>(container),
                                                             reinterpret_cast<AOTInductorConstantMapHandle>(&map),
                                                             use_inactive != 0, validate_full != 0);
        if (rc == 0) return 0;
        tcxx_put(err, errlen, "the model refused the constants (see the runner's stderr)");
        return -1;
    });
}

extern "C" int tcxx_extract_constants(void *fn, void *container, void (*each)(void *ctx, const char *fqn, void *handle),
                                      void *ctx, char *err, size_t errlen)
{
    using extract_fn = AOTIRuntimeError (*)(AOTInductorModelContainerHandle, AOTInductorConstantMapHandle, bool);
    return tcxx_guarded(err, errlen, "", "the model's constants map", [&] {
        std::unordered_map<std::string, AtenTensorHandle> map;
        AOTIRuntimeError rc = reinterpret_cast<extract_fn>(fn)(static_cast<AOTInductorModelContainerHandle>(container),
                                                              reinterpret_cast<AOTInductorConstantMapHandle>(&map),
                                                              false);
        if (rc == 0) {
            for (const auto &kv : map) each(ctx, kv.first.c_str(), kv.second);
            return 0;
        }
        tcxx_put(err, errlen, "the model could not list its constants (see the runner's stderr)");
        return -1;
    });
}

// ---- torch.save files as inputs ---------------------------------------------

namespace {

struct dtype_name {
    at::ScalarType t;
    const char *name;
};
const dtype_name input_dtypes[] = {
    {at::kFloat, "float32"}, {at::kDouble, "float64"}, {at::kHalf, "float16"}, {at::kBFloat16, "bfloat16"},
    {at::kLong, "int64"},    {at::kInt, "int32"},      {at::kShort, "int16"},  {at::kChar, "int8"},
    {at::kByte, "uint8"},    {at::kBool, "bool"},      {at::kComplexFloat, "complex64"},
    {at::kComplexDouble, "complex128"},
};

std::string name_of(at::ScalarType t)
{
    for (const auto &d : input_dtypes)
        if (d.t == t) return d.name;
    return c10::toString(t);
}

std::string describe(const at::Tensor &t)
{
    std::string s = name_of(t.scalar_type()) + " [";
    for (int64_t d = 0; d < t.dim(); d++) s += (d ? ", " : "") + std::to_string(t.size(d));
    return s + "]";
}

// What the file holds, for messages: "a tuple of 3 (0: float32 [4, 8], 1: ...)".
std::string contents(const c10::IValue &v)
{
    if (v.isTensor()) return "one tensor, " + describe(v.toTensor());
    std::string s;
    size_t n = 0;
    auto item = [&](const std::string &k, const c10::IValue &e) {
        if (n++ < 8) s += (n > 1 ? ", " : "") + k + ": " + (e.isTensor() ? describe(e.toTensor()) : e.tagKind());
    };
    if (v.isTuple() || v.isList()) {
        auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toList().vec();
        for (size_t i = 0; i < elems.size(); i++) item(std::to_string(i), elems[i]);
        return std::string(v.isTuple() ? "a tuple" : "a list") + " of " + std::to_string(elems.size()) + " (" + s +
               (n > 8 ? ", ..." : "") + ")";
    }
    if (v.isGenericDict()) {
        for (const auto &kv : v.toGenericDict())
            item(kv.key().isString() ? "'" + kv.key().toStringRef() + "'" : kv.key().tagKind(), kv.value());
        return "a dict of " + std::to_string(n) + " (" + s + (n > 8 ? ", ..." : "") + ")";
    }
    return "a " + v.tagKind();
}

// The tensor key names in v (nullptr: v's one tensor); throws with what to do.
at::Tensor pick(const c10::IValue &v, const char *key)
{
    if (!key) {
        if (v.isTensor()) return v.toTensor();
        if (v.isTuple() || v.isList()) {
            auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toList().vec();
            if (elems.size() == 1 && elems[0].isTensor()) return elems[0].toTensor();
        }
        if (v.isGenericDict() && v.toGenericDict().size() == 1 && v.toGenericDict().begin()->value().isTensor())
            return v.toGenericDict().begin()->value().toTensor();
        throw std::runtime_error("holds " + contents(v) + "; add 'key: N' (a list or tuple index) or 'key: NAME' "
                                 "(a dict key) to this input to pick one");
    }
    if (v.isGenericDict()) {
        for (const auto &kv : v.toGenericDict())
            if (kv.key().isString() && kv.key().toStringRef() == key) {
                if (kv.value().isTensor()) return kv.value().toTensor();
                throw std::runtime_error(std::string("entry '") + key + "' is a " + kv.value().tagKind() +
                                         ", not a tensor; it holds " + contents(v));
            }
        throw std::runtime_error(std::string("has no key '") + key + "'; it holds " + contents(v));
    }
    if (v.isTuple() || v.isList()) {
        auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toList().vec();
        char *end = nullptr;
        errno = 0;
        long long i = std::strtoll(key, &end, 10);
        if (errno || !*key || *end || i < 0 || (size_t)i >= elems.size())
            throw std::runtime_error(std::string("key '") + key + "' is not an index from 0 to " +
                                     std::to_string(elems.size() ? elems.size() - 1 : 0) + "; it holds " + contents(v));
        if (elems[(size_t)i].isTensor()) return elems[(size_t)i].toTensor();
        throw std::runtime_error("item " + std::to_string(i) + " is a " + elems[(size_t)i].tagKind() +
                                 ", not a tensor; it holds " + contents(v));
    }
    throw std::runtime_error(std::string("holds ") + contents(v) + ", which has no entry '" + key +
                             "': drop 'key' from this input");
}

} // namespace

extern "C" int tcxx_load_input(const char *path, const char *shown, const char *key, const char *dtype, int ndim, const int64_t *shape,
                               void *buf, size_t nbytes, char *err, size_t errlen)
{
    std::string what = std::string(shown) + (key ? std::string(" (key '") + key + "')" : "");
    return tcxx_guarded(err, errlen, what, "libtorch", [&] {
        FILE *f = std::fopen(path, "rb");
        if (!f) {
            tcxx_put(err, errlen, std::string(shown) + ": cannot open it: " + std::strerror(errno) +
                             "; check the file's path in the inputs spec");
            return -1;
        }
        std::vector<char> data;
        char chunk[1 << 16];
        for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) data.insert(data.end(), chunk, chunk + n);
        bool bad = std::ferror(f);
        std::fclose(f);
        if (bad) {
            tcxx_put(err, errlen, std::string(shown) + ": read failed; check the file and try again");
            return -1;
        }
        at::Tensor t;
        try {
            c10::IValue v = torch::jit::pickle_load(data);
            t = pick(v, key);
        } catch (const std::runtime_error &e) {
            tcxx_put(err, errlen, what + ": " + e.what());
            return -1;
        } catch (const c10::Error &e) {
            tcxx_put(err, errlen, std::string(shown) + ": libtorch could not read it as a torch.save file (" +
                                 e.what_without_backtrace() + "); save it again with torch.save(tensor, path)");
            return -1;
        }
        bool same = name_of(t.scalar_type()) == (dtype ? dtype : "") && t.dim() == ndim;
        for (int d = 0; same && d < ndim; d++) same = t.size(d) == shape[d];
        if (!same) {
            std::string want = std::string(dtype ? dtype : "?") + " [";
            for (int d = 0; d < ndim; d++) want += (d ? ", " : "") + std::to_string(shape[d]);
            tcxx_put(err, errlen, what + " holds " + describe(t) + ", the spec says " + want +
                                 "]; fix the spec's dtype and shape, or save the tensor as the model takes it");
            return -1;
        }
        t = t.detach().to(at::kCPU).contiguous();
        if ((size_t)t.nbytes() != nbytes) {
            tcxx_put(err, errlen, what + ": " + std::to_string(t.nbytes()) + " bytes, the spec needs " +
                                      std::to_string(nbytes) + "; save the tensor as the model takes it");
            return -1;
        }
        if (nbytes) std::memcpy(buf, t.data_ptr(), nbytes);
        return 0;
    });
}
