// eager_graph.cpp — the exported program interpreted with libtorch (eager_graph.h).
#include "eager_graph.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/grad_mode.h>
#include <ATen/Parallel.h>
#include <ATen/ScalarOps.h>
#include <caffe2/serialize/inline_container.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// Thrown for what the Python helper may still do (EG_UNSUPPORTED) and for a bad plan (EG_BAD_PLAN);
// anything else torch throws while an op runs is the program's failure (EG_FAILED).
struct eg_error : std::runtime_error {
    int code;
    eg_error(int c, const std::string &m) : std::runtime_error(m), code(c) {}
};

struct dtype_row {
    const char *name;
    at::ScalarType type;
    int serde;   // torch/_export/serde/schema.py ScalarType
};

static const dtype_row dtypes[] = {
    {"uint8", at::kByte, 1},          {"int8", at::kChar, 2},           {"int16", at::kShort, 3},
    {"int32", at::kInt, 4},           {"int64", at::kLong, 5},          {"float16", at::kHalf, 6},
    {"float32", at::kFloat, 7},       {"float64", at::kDouble, 8},      {"complex32", at::kComplexHalf, 9},
    {"complex64", at::kComplexFloat, 10}, {"complex128", at::kComplexDouble, 11}, {"bool", at::kBool, 12},
    {"bfloat16", at::kBFloat16, 13},  {"uint16", at::kUInt16, 28},      {"float8_e4m3fn", at::kFloat8_e4m3fn, 29},
    {"float8_e5m2", at::kFloat8_e5m2, 30}, {"float8_e4m3fnuz", at::kFloat8_e4m3fnuz, 31},
    {"float8_e5m2fnuz", at::kFloat8_e5m2fnuz, 32}, {"uint32", at::kUInt32, 34}, {"uint64", at::kUInt64, 35},
};

static at::ScalarType dtype_by_name(const std::string &n)
{
    for (const auto &d : dtypes)
        if (n == d.name) return d.type;
    throw eg_error(EG_UNSUPPORTED, "dtype '" + n + "'");
}

static at::ScalarType dtype_by_serde(int64_t v)
{
    for (const auto &d : dtypes)
        if (v == d.serde) return d.type;
    throw eg_error(EG_UNSUPPORTED, "serialized ScalarType " + std::to_string(v));
}

static c10::MemoryFormat memory_format_by_serde(int64_t v)
{
    switch (v) {
    case 1: return c10::MemoryFormat::Contiguous;
    case 2: return c10::MemoryFormat::ChannelsLast;
    case 3: return c10::MemoryFormat::ChannelsLast3d;
    case 4: return c10::MemoryFormat::Preserve;
    }
    throw eg_error(EG_UNSUPPORTED, "serialized MemoryFormat " + std::to_string(v));
}

static c10::Layout layout_by_serde(int64_t v)
{
    switch (v) {
    case 1: return c10::kSparse;
    case 2: return c10::kSparseCsr;
    case 3: return c10::kSparseCsc;
    case 4: return c10::kSparseBsr;
    case 5: return c10::kSparseBsc;
    case 6: return c10::kMkldnn;
    case 7: return c10::kStrided;
    }
    throw eg_error(EG_UNSUPPORTED, "serialized Layout " + std::to_string(v));
}

// numpy's descr of what save_npy writes (bfloat16 and float8 are widened to float32 first).
static const char *npy_descr(at::ScalarType t)
{
    switch (t) {
    case at::kFloat: return "<f4";
    case at::kDouble: return "<f8";
    case at::kHalf: return "<f2";
    case at::kLong: return "<i8";
    case at::kInt: return "<i4";
    case at::kShort: return "<i2";
    case at::kChar: return "|i1";
    case at::kByte: return "|u1";
    case at::kBool: return "|b1";
    case at::kUInt16: return "<u2";
    case at::kUInt32: return "<u4";
    case at::kUInt64: return "<u8";
    case at::kComplexFloat: return "<c8";
    case at::kComplexDouble: return "<c16";
    default: return nullptr;
    }
}

static bool widened(at::ScalarType t)
{
    return t == at::kBFloat16 || t == at::kFloat8_e4m3fn || t == at::kFloat8_e5m2 || t == at::kFloat8_e4m3fnuz ||
           t == at::kFloat8_e5m2fnuz;
}

static void write_all(int fd, const void *p, size_t n, const std::string &path)
{
    const char *c = static_cast<const char *>(p);
    while (n) {
        ssize_t w = ::write(fd, c, n);
        if (w <= 0) throw eg_error(EG_FAILED, "cannot write " + path);
        c += w;
        n -= static_cast<size_t>(w);
    }
}

// Writes path through a temporary name (never half a file); direct: path itself, in a folder no
// one reads until it is renamed into place (eg_interp's staging folder).
static void write_file(const std::string &path, const std::string &head, const void *data, size_t n,
                       bool direct = false)
{
    static const std::string suffix = "." + std::to_string(getpid()) + ".tmp";
    std::string tmp = direct ? path : path + suffix;
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw eg_error(EG_FAILED, "cannot write " + tmp);
    try {
        write_all(fd, head.data(), head.size(), tmp);
        write_all(fd, data, n, tmp);
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::close(fd) != 0 || (!direct && ::rename(tmp.c_str(), path.c_str()) != 0)) {
        ::unlink(tmp.c_str());
        throw eg_error(EG_FAILED, "cannot write " + path);
    }
}

// A .npy, version 1.0, as numpy.save writes it (header padded to 64 bytes).
static void save_npy(const at::Tensor &value, const std::string &path, bool direct)
{
    at::Tensor t = value.detach();
    if (widened(t.scalar_type())) t = t.to(at::kFloat);
    t = t.to(at::kCPU).contiguous();
    const char *descr = npy_descr(t.scalar_type());
    if (!descr) throw eg_error(EG_UNSUPPORTED, std::string("writing a ") + c10::toString(t.scalar_type()) + " value");
    std::string shape = "(";
    for (int64_t d = 0; d < t.dim(); d++) shape += std::to_string(t.size(d)) + (t.dim() == 1 ? "," : d + 1 < t.dim() ? ", " : "");
    shape += ")";
    std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string head("\x93NUMPY\x01\x00", 8);
    head += static_cast<char>(dict.size() & 0xff);
    head += static_cast<char>(dict.size() >> 8);
    head += dict;
    write_file(path, head, t.data_ptr(), static_cast<size_t>(t.numel()) * t.element_size(), direct);
}

// aotidbg_eager.py's largest(): the largest finite |value| (0 when none).
static double largest(const at::Tensor &value)
{
    if (!value.numel() || value.is_complex()) return 0.0;
    at::Tensor t = value.detach();
    // ids and indices (token ids up to the vocabulary) are no magnitude a kernel's rounding grows
    // with: counted, they widened the tolerance of every call that names an embedding
    if (!t.is_floating_point()) return 0.0;
    double m = t.abs().amax().item<double>();
    if (std::isfinite(m)) return m;
    at::Tensor a = t.to(at::kDouble).abs();
    a = a.masked_select(at::isfinite(a));
    return a.numel() ? a.max().item<double>() : 0.0;
}

// The plan run node by node: the values so far, what is written, where the time went.
struct eg_interp {
    const eg_plan *p;
    c10::Device device{c10::kCPU};
    bool float64 = false;
    std::string out_dir;
    // where the files go: out_dir/nodes, or, when that is not there yet, a staging folder beside it
    // renamed to it once every file is written (one rename, not one per file; never half a set)
    std::string write_dir;
    bool staged = false;
    std::unordered_set<std::string> keep;
    std::unordered_map<std::string, at::Tensor> values;
    std::map<std::string, double> absmax;   // ordered: a stable absmax.json
    size_t written = 0;
    bool reuse = false;   // a finished earlier run's files (same key: same values) are kept, as the helper does
    double t_ops = 0, t_record = 0, t_absmax = 0;   // seconds in the ops, in absmax and the .npy files

    static double now();
    void record(const std::string &name, at::Tensor t);
    at::Tensor tensor(const std::string &name, const std::string &node);
    void load_inputs();
    void load_constants(caffe2::serialize::PyTorchStreamReader &reader);
    c10::IValue argument(const proto_eager_arg &a, const std::string &node);
    // A number where the schema wants a Tensor (`x + 1e-6` is add.Tensor(x, 1e-06) in the program):
    // a wrapped-number tensor, as Python's argument parser makes it (it promotes like a scalar).
    static c10::IValue as_schema(c10::IValue v, const c10::TypePtr &type);
    void run_node(const eg_node &n);
    void write_absmax();
    void publish();
    void discard();
};

double eg_interp::now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void eg_interp::record(const std::string &name, at::Tensor t)
{
    double t0 = now();
    if (float64 && t.is_floating_point() && t.scalar_type() != at::kDouble) t = t.to(at::kDouble);
    absmax[name] = largest(t);
    t_absmax += now() - t0;
    if (keep.count(name)) {
        std::string path = write_dir + "/" + name + ".npy";
        if (!reuse || ::access(path.c_str(), R_OK) != 0) save_npy(t, path, staged);
        written++;
    }
    values[name] = std::move(t);
    t_record += now() - t0;
}

at::Tensor eg_interp::tensor(const std::string &name, const std::string &node)
{
    auto it = values.find(name);
    if (it == values.end()) throw eg_error(EG_BAD_PLAN, "node " + node + ": no value named " + name);
    return it->second;
}

void eg_interp::load_inputs()
{
    for (size_t i = 0; i < p->ninputs; i++) {
        const eg_input &s = p->inputs[i];
        std::vector<int64_t> shape(s.shape, s.shape + s.ndim);
        at::Tensor t = at::from_blob(const_cast<void *>(s.host), shape,
                                     at::TensorOptions().dtype(dtype_by_name(s.dtype)))
                           .clone();
        record(s.placeholder, t.to(device));
    }
}

void eg_interp::load_constants(caffe2::serialize::PyTorchStreamReader &reader)
{
    std::unordered_map<std::string, at::Tensor> records;   // one read per storage
    for (size_t i = 0; i < p->nconstants; i++) {
        const eg_constant &c = p->constants[i];
        at::ScalarType dt = dtype_by_name(c.dtype);
        std::vector<int64_t> shape(c.shape, c.shape + c.ndim), strides(c.strides, c.strides + c.ndim);
        at::Tensor w;
        if (!reader.hasRecord(c.record)) throw eg_error(EG_BAD_PLAN, std::string("no record ") + c.record);
        auto it = records.find(c.record);
        if (it == records.end()) {
            size_t n = reader.getRecordSize(c.record);
            at::Tensor bytes = at::empty({static_cast<int64_t>(n)}, at::kByte);
            if (n) reader.getRecord(c.record, bytes.data_ptr(), n);
            it = records.emplace(c.record, bytes).first;
        }
        const at::Tensor &bytes = it->second;
        int64_t esize = static_cast<int64_t>(c10::elementSize(dt)), nbytes = bytes.numel();
        if (nbytes == 0) {
            w = at::zeros(shape, at::TensorOptions().dtype(dt));
        } else {
            if (nbytes % esize) throw eg_error(EG_BAD_PLAN, std::string(c.record) + ": size is not a multiple of " +
                                                                 std::to_string(esize));
            int64_t reach = c.storage_offset + 1;
            bool empty = false;
            for (int d = 0; d < c.ndim; d++) {
                if (shape[d] == 0) empty = true;
                reach += (shape[d] - 1) * strides[d];
            }
            if (!empty && (c.storage_offset < 0 || reach > nbytes / esize))
                throw eg_error(EG_UNSUPPORTED, std::string(c.placeholder) + ": its view reaches past " + c.record);
            w = bytes.view(dt).as_strided(shape, strides, c.storage_offset);
        }
        w = w.to(device);
        if (float64 && w.is_floating_point()) w = w.to(at::kDouble);
        record(c.placeholder, w);
    }
}

c10::IValue eg_interp::argument(const proto_eager_arg &a, const std::string &node)
{
    auto names = [&](bool optional) {
        c10::List<std::optional<at::Tensor>> opt;
        c10::List<at::Tensor> plain;
        for (uint32_t i = 0; i < a.nnames; i++) {
            if (optional) opt.push_back(*a.names[i] ? std::optional<at::Tensor>(tensor(a.names[i], node)) : std::nullopt);
            else plain.push_back(tensor(a.names[i], node));
        }
        return optional ? c10::IValue(opt) : c10::IValue(plain);
    };
    switch (a.kind) {
    case EAGER_ARG_NONE: return c10::IValue();
    case EAGER_ARG_TENSOR: return a.nnames ? c10::IValue(tensor(a.names[0], node)) : c10::IValue();
    case EAGER_ARG_OPT_TENSOR:
        return a.nnames && *a.names[0] ? c10::IValue(tensor(a.names[0], node)) : c10::IValue();
    case EAGER_ARG_TENSORS: return names(false);
    case EAGER_ARG_OPT_TENSORS: return names(true);
    case EAGER_ARG_INT: return a.nints ? c10::IValue(a.ints[0]) : c10::IValue();
    case EAGER_ARG_INTS: return c10::IValue(c10::List<int64_t>(std::vector<int64_t>(a.ints, a.ints + a.nints)));
    case EAGER_ARG_FLOAT: return a.nfloats ? c10::IValue(a.floats[0]) : c10::IValue();
    case EAGER_ARG_FLOATS:
        return c10::IValue(c10::List<double>(std::vector<double>(a.floats, a.floats + a.nfloats)));
    case EAGER_ARG_BOOL: return a.nints ? c10::IValue(a.ints[0] != 0) : c10::IValue();
    case EAGER_ARG_BOOLS: {
        c10::List<bool> l;
        for (uint32_t i = 0; i < a.nints; i++) l.push_back(a.ints[i] != 0);
        return c10::IValue(l);
    }
    case EAGER_ARG_STRING: return c10::IValue(std::string(a.text));
    case EAGER_ARG_STRINGS: {
        c10::List<std::string> l;
        for (uint32_t i = 0; i < a.nnames; i++) l.push_back(a.names[i]);
        return c10::IValue(l);
    }
    case EAGER_ARG_SCALAR_TYPE:
        if (!a.nints) break;
        // --float64 widens results, as the helper's fx interpreter does; an explicit cast stays one
        return c10::IValue(dtype_by_serde(a.ints[0]));
    case EAGER_ARG_MEMORY_FORMAT:
        if (!a.nints) break;
        return c10::IValue(memory_format_by_serde(a.ints[0]));
    case EAGER_ARG_LAYOUT:
        if (!a.nints) break;
        return c10::IValue(layout_by_serde(a.ints[0]));
    case EAGER_ARG_DEVICE:
        return c10::IValue(device);   // the program moved to the reference's device (move_to_device_pass)
    }
    throw eg_error(EG_BAD_PLAN, "node " + node + ": argument " + a.name + " has no value");
}

// A number where the schema wants a Tensor (`x + 1e-6` is add.Tensor(x, 1e-06) in the program):
// a wrapped-number tensor, as Python's argument parser makes it (it promotes like a scalar).
c10::IValue eg_interp::as_schema(c10::IValue v, const c10::TypePtr &type)
{
    if (!(v.isDouble() || v.isInt() || v.isBool())) return v;
    c10::TypePtr t = type;
    if (auto opt = t->cast<c10::OptionalType>()) t = opt->getElementType();
    if (t->kind() != c10::TypeKind::TensorType) return v;
    at::Tensor w = c10::scalar_to_tensor(v.toScalar());
    w.unsafeGetTensorImpl()->set_wrapped_number(true);
    return c10::IValue(w);
}

void eg_interp::run_node(const eg_node &n)
{
    std::string name = n.name, target = n.target;
    // torch.ops.<ns>.<op>.<overload>
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
        size_t dot = target.find('.', at);
        parts.push_back(target.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
        if (dot == std::string::npos) break;
        at = dot + 1;
    }
    if (parts.size() != 5 || parts[0] != "torch" || parts[1] != "ops")
        throw eg_error(EG_UNSUPPORTED, "node " + name + ": target " + target + " is not an operator overload");
    std::string op = parts[2] + "::" + parts[3], overload = parts[4] == "default" ? "" : parts[4];
    auto handle = c10::Dispatcher::singleton().findSchema({op, overload});
    if (!handle)
        throw eg_error(EG_UNSUPPORTED, "node " + name + ": " + target + " is not registered in this libtorch "
                                       "(a custom op?)");
    const c10::FunctionSchema &schema = handle->schema();
    std::unordered_map<std::string, const proto_eager_arg *> given;
    for (uint32_t i = 0; i < n.nargs; i++) given[n.args[i].name] = &n.args[i];
    torch::jit::Stack stack;
    for (const auto &arg : schema.arguments()) {
        auto it = given.find(arg.name());
        if (it != given.end()) {
            stack.push_back(as_schema(argument(*it->second, name), arg.type()));
            given.erase(it);
        } else if (arg.default_value()) {
            stack.push_back(*arg.default_value());
        } else {
            throw eg_error(EG_UNSUPPORTED, "node " + name + ": " + target + " needs argument " + arg.name() +
                                               ", which the program does not give");
        }
    }
    if (!given.empty())
        throw eg_error(EG_UNSUPPORTED, "node " + name + ": " + target + " has no argument " + given.begin()->first +
                                           " in this libtorch");
    bool is_view = op == "aten::view" && overload.empty();
    torch::jit::Stack args = is_view ? stack : torch::jit::Stack();
    try {
        double t0 = now();
        handle->callBoxed(&stack);
        t_ops += now() - t0;
    } catch (const std::exception &e) {
        // the program's view on a tensor another path laid out otherwise (float64 attention takes
        // the math path, whose output is transposed): reshape gives the same values
        if (!is_view || args.size() != 2)
            throw eg_error(EG_FAILED, "node " + name + " (" + target + ") failed: " + e.what());
        stack.clear();
        stack.push_back(at::reshape(args[0].toTensor(), args[1].toIntVector()));
    }
    for (uint32_t i = 0; i < n.nouts; i++) {
        const proto_eager_out &o = n.outs[i];
        if (o.ret >= stack.size())
            throw eg_error(EG_BAD_PLAN, "node " + name + ": output " + o.name + " names return " +
                                            std::to_string(o.ret) + " of " + std::to_string(stack.size()));
        const c10::IValue &r = stack[o.ret];
        if (o.elem < 0) {
            if (r.isTensor()) record(o.name, r.toTensor());
            else if (!r.isNone())
                throw eg_error(EG_UNSUPPORTED, "node " + name + ": output " + o.name + " is a " + r.tagKind());
        } else {
            if (!r.isTensorList() || static_cast<size_t>(o.elem) >= r.toTensorList().size())
                throw eg_error(EG_BAD_PLAN, "node " + name + ": output " + o.name + " is not in a tensor list");
            record(o.name, r.toTensorList().get(static_cast<size_t>(o.elem)));
        }
    }
}

void eg_interp::write_absmax()
{
    std::string j = "{";
    char num[64];
    for (const auto &kv : absmax) {
        std::snprintf(num, sizeof num, "%.17g", kv.second);
        j += (j.size() > 1 ? ", \"" : "\"") + kv.first + "\": " + num;
    }
    j += "}\n";
    write_file(write_dir + "/absmax.json", "", j.data(), j.size(), staged);
}

// The staging folder becomes nodes; when another run made nodes meanwhile (the same key: the same
// values), each file moves into it, absmax.json (which says the set is whole) last.
void eg_interp::publish()
{
    if (!staged) return;
    std::string nodes = out_dir + "/nodes";
    if (::rename(write_dir.c_str(), nodes.c_str()) == 0) return;
    std::vector<std::string> names;
    for (const auto &kv : absmax)
        if (keep.count(kv.first)) names.push_back(kv.first + ".npy");
    names.push_back("absmax.json");
    for (const auto &n : names)
        if (::rename((write_dir + "/" + n).c_str(), (nodes + "/" + n).c_str()) != 0 && errno != ENOENT) {
            discard();
            throw eg_error(EG_FAILED, "cannot move " + write_dir + "/" + n + " into " + nodes);
        }
    ::rmdir(write_dir.c_str());
}

// A failed run's staging folder goes.
void eg_interp::discard()
{
    if (!staged) return;
    for (const auto &kv : absmax) ::unlink((write_dir + "/" + kv.first + ".npy").c_str());
    ::unlink((write_dir + "/absmax.json").c_str());
    ::rmdir(write_dir.c_str());
}

extern "C" int eg_run(const eg_plan *p, size_t *computed, char *err, size_t errlen)
{
    *computed = 0;
    eg_interp in;
    try {
        const eg_plan &r = *p;
        in.p = p;
        in.device = c10::Device(std::string(*r.device ? r.device : "cpu"));
        in.float64 = r.float64 != 0;
        in.out_dir = r.out_dir;
        for (uint32_t i = 0; i < r.nkeep; i++) in.keep.insert(r.keep[i]);
        in.write_dir = in.out_dir + "/nodes";
        if (::access(in.write_dir.c_str(), F_OK) != 0) {
            std::string stage = in.out_dir + "/nodes." + std::to_string(getpid()) + ".tmp";
            in.staged = ::mkdir(stage.c_str(), 0755) == 0;
            if (in.staged) in.write_dir = stage;
        }
        if (!in.staged) ::mkdir(in.write_dir.c_str(), 0755);
        in.reuse = !in.staged && ::access((in.out_dir + "/nodes/absmax.json").c_str(), R_OK) == 0;
        at::NoGradGuard no_grad;
        if (in.device.is_cpu()) {   // the model's runner loads meanwhile: half the cores each
            unsigned n = std::thread::hardware_concurrency();
            at::set_num_threads(static_cast<int>(n > 2 ? n / 2 : 1));
        }
        caffe2::serialize::PyTorchStreamReader reader(std::string(r.program));
        in.load_inputs();
        in.load_constants(reader);
        for (size_t i = 0; i < p->nnodes; i++) in.run_node(p->nodes[i]);
        if (in.device.is_cuda()) at::zeros({1}, at::TensorOptions().device(in.device)).cpu();   // surfaces async errors
        in.write_absmax();
        in.publish();
        *computed = in.written;
        if (getenv("AOTIDBG_RUNNER_PROFILE"))
            std::fprintf(stderr, "aotidbg-runner --eager-ref: %zu nodes: ops %.3f s, absmax %.3f s, .npy files %.3f s\n",
                         p->nnodes, in.t_ops, in.t_absmax, in.t_record - in.t_absmax);
        return EG_OK;
    } catch (const eg_error &e) {
        std::snprintf(err, errlen, "%s", e.what());
        in.discard();
        return e.code;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "%s", e.what());
    } catch (...) {
        std::snprintf(err, errlen, "unknown C++ exception");
    }
    in.discard();
    return EG_FAILED;
}
