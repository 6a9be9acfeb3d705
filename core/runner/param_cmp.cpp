// param_cmp.cpp — a program weight against the package's constant, with libtorch (param_cmp.h).
#include "param_cmp.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <caffe2/serialize/inline_container.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

namespace {

struct dtype_row {
    const char *name;
    at::ScalarType type;
};

// our canonical dtype names (core/model/dtype.h)
const dtype_row dtypes[] = {
    {"uint8", at::kByte},          {"int8", at::kChar},           {"int16", at::kShort},
    {"int32", at::kInt},           {"int64", at::kLong},          {"float16", at::kHalf},
    {"float32", at::kFloat},       {"float64", at::kDouble},      {"complex32", at::kComplexHalf},
    {"complex64", at::kComplexFloat}, {"complex128", at::kComplexDouble}, {"bool", at::kBool},
    {"bfloat16", at::kBFloat16},   {"uint16", at::kUInt16},       {"float8_e4m3fn", at::kFloat8_e4m3fn},
    {"float8_e5m2", at::kFloat8_e5m2}, {"float8_e4m3fnuz", at::kFloat8_e4m3fnuz},
    {"float8_e5m2fnuz", at::kFloat8_e5m2fnuz}, {"uint32", at::kUInt32}, {"uint64", at::kUInt64},
};

bool dtype_by_name(const char *n, at::ScalarType *t)
{
    for (const auto &d : dtypes)
        if (!strcmp(n, d.name)) {
            *t = d.type;
            return true;
        }
    return false;
}

const char *dtype_name(at::ScalarType t)
{
    for (const auto &d : dtypes)
        if (d.type == t) return d.name;
    return c10::toString(t);
}

std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
std::string reader_path;

// ne, isnan and friends exist for these dtypes on CPU and CUDA; others are widened first
bool native_ops(at::ScalarType t)
{
    switch (t) {
    case at::kHalf: case at::kBFloat16: case at::kFloat: case at::kDouble: case at::kComplexFloat:
    case at::kComplexDouble: case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kBool:
        return true;
    default:
        return false;
    }
}

void add_range(std::string &s, int64_t lo, int64_t hi, int &n)
{
    if (n == 16) s += ", ...";
    if (n++ >= 16) return;
    if (!s.empty()) s += ", ";
    s += std::to_string(lo);
    if (hi > lo) s += "-" + std::to_string(hi);
}

void unread(pcmp_result *r, const std::string &why)
{
    r->verdict = PCMP_UNREAD;
    std::string w = why.substr(0, why.find('\n'));   // torch's first line; its C++ trace is not the user's
    snprintf(r->note, sizeof r->note, "%s", w.c_str());
}

void compare(const pcmp_weight *w, const at::Tensor &pk, pcmp_result *r)
{
    snprintf(r->pkg_dtype, sizeof r->pkg_dtype, "%s", dtype_name(pk.scalar_type()));
    r->pkg_ndim = static_cast<int>(pk.dim() > 16 ? 16 : pk.dim());
    for (int d = 0; d < r->pkg_ndim; d++) r->pkg_shape[d] = pk.size(d);
    at::ScalarType dt;
    if (!dtype_by_name(w->dtype, &dt)) return unread(r, std::string("dtype '") + w->dtype + "' is not one the runner knows");
    if (pk.scalar_type() != dt) {
        r->verdict = PCMP_DTYPE;
        return;
    }
    std::vector<int64_t> shape(w->shape, w->shape + w->ndim), strides(w->strides, w->strides + w->ndim);
    if (pk.sizes() != at::IntArrayRef(shape)) {
        r->verdict = PCMP_SHAPE;
        return;
    }
    if (!reader || reader_path != w->archive) {
        reader.reset();
        reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(std::string(w->archive));
        reader_path = w->archive;
    }
    if (!reader->hasRecord(w->record)) return unread(r, std::string("the program's archive has no record ") + w->record);
    size_t n = reader->getRecordSize(w->record);
    at::Tensor bytes = at::empty({static_cast<int64_t>(n)}, at::kByte);
    if (n) reader->getRecord(w->record, bytes.data_ptr(), n);
    int64_t esize = static_cast<int64_t>(c10::elementSize(dt)), numel = 1, reach = w->storage_offset + 1;
    for (int d = 0; d < w->ndim; d++) {
        numel *= shape[d];
        reach += (shape[d] - 1) * strides[d];
    }
    r->numel = static_cast<uint64_t>(numel);
    if (numel == 0) {
        r->verdict = PCMP_EQUAL;
        return;
    }
    if (static_cast<int64_t>(n) % esize || w->storage_offset < 0 || reach > static_cast<int64_t>(n) / esize)
        return unread(r, std::string("its view reaches past ") + w->record + " (" + std::to_string(n) + " bytes)");
    at::Tensor prog = bytes.view(dt).as_strided(shape, strides, w->storage_offset);
    if (pk.device().is_cpu() && pk.is_contiguous() && prog.is_contiguous() &&
        !memcmp(prog.data_ptr(), pk.data_ptr(), static_cast<size_t>(numel * esize))) {   // the usual answer
        r->verdict = PCMP_EQUAL;
        return;
    }
    at::Tensor a = prog.to(pk.device()).contiguous().reshape({-1}), b = pk.contiguous().reshape({-1});
    if (at::equal(a.view(at::kByte), b.view(at::kByte))) {   // byte for byte, on the constant's device
        r->verdict = PCMP_EQUAL;
        return;
    }
    if (!native_ops(dt)) {
        a = a.to(at::isComplexType(dt) ? at::kComplexFloat : at::kFloat);
        b = b.to(a.scalar_type());
    }
    bool fl = a.is_floating_point() || a.is_complex();
    at::Tensor mask = a.ne(b);
    if (fl) mask = mask.logical_and(a.isnan().logical_and(b.isnan()).logical_not());
    int64_t nd = mask.sum().item<int64_t>();
    if (nd == 0) {
        r->verdict = PCMP_EQUAL;
        snprintf(r->note, sizeof r->note, "the same values; the bytes differ only in the sign of zeros or in NaN payloads");
        return;
    }
    r->verdict = PCMP_DIFFERS;
    r->differing = static_cast<uint64_t>(nd);
    int64_t first = mask.to(at::kByte).argmax().item<int64_t>();
    r->has_first = 1;
    r->first = first;
    auto real = [](const at::Tensor &t) { return t.is_complex() ? at::real(t) : t; };
    r->value = real(a[first]).item<double>();
    r->pkg_value = real(b[first]).item<double>();
    at::Tensor fin = fl ? a.isfinite().logical_and(b.isfinite()) : at::ones_like(mask);
    at::Tensor both = mask.logical_and(fin);
    r->nonfinite = static_cast<uint64_t>(mask.logical_and(fin.logical_not()).sum().item<int64_t>());
    at::Tensor sa = a.masked_select(both), sb = b.masked_select(both);
    if (sa.numel()) {
        at::ScalarType wide = sa.is_complex() ? at::kComplexDouble : at::kDouble;
        r->max_abs = (sa.to(wide) - sb.to(wide)).abs().max().item<double>();
    }
    if (w->ndim >= 1) {
        at::Tensor rows = mask.reshape({shape[0], -1}).any(1).to(at::kCPU).contiguous();
        const bool *v = rows.data_ptr<bool>();
        std::string s;
        int nr = 0;
        r->lead = shape[0];
        r->lead_differ = 0;
        for (int64_t i = 0; i < shape[0]; i++) {
            if (!v[i]) continue;
            int64_t j = i;
            while (j + 1 < shape[0] && v[j + 1]) j++;
            r->lead_differ += j - i + 1;
            add_range(s, i, j, nr);
            i = j;
        }
        snprintf(r->ranges, sizeof r->ranges, "%s", s.c_str());
    }
}

}  // namespace

extern "C" void pcmp_compare(const pcmp_weight *w, void *pkg, pcmp_result *r)
{
    memset(r, 0, sizeof *r);
    r->lead = r->lead_differ = -1;
    r->max_abs = -1;
    try {
        at::NoGradGuard no_grad;
        compare(w, *reinterpret_cast<at::Tensor *>(pkg), r);
    } catch (const std::exception &e) {
        unread(r, e.what());
    }
}

extern "C" void pcmp_close(void)
{
    try {
        reader.reset();
    } catch (...) {
    }
    reader_path.clear();
}
