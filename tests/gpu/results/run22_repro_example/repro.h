// repro.h — .npy files in and out, and the bit-for-bit check (written by aotidbg repro).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <sys/stat.h>

namespace repro {

struct Tensor {
    std::string name, descr;          // numpy's descr: "<f4", "|b1", ...
    std::vector<int64_t> shape;
    std::vector<unsigned char> bytes;
    bool has_expected = false;
    void *data_ptr() { return bytes.empty() ? nullptr : bytes.data(); }
    std::vector<int64_t> sizes() const { return shape; }
    size_t itemsize() const { return (size_t)std::atoi(descr.c_str() + 2); }
};

[[noreturn]] inline void die(const std::string &what)
{
    std::fprintf(stderr, "repro: %s\n", what.c_str());
    std::exit(2);
}

// A .npy file (format 1.x or 2.x, C order) into t.
inline bool read_npy(const std::string &path, Tensor &t)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char magic[10];
    if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "\x93NUMPY", 6)) die(path + ": not a .npy file");
    uint32_t hlen = 0;
    if (magic[6] == 1) {
        unsigned char b[2];
        if (std::fread(b, 1, 2, f) != 2) die(path + ": cut short");
        hlen = b[0] | (b[1] << 8);
    } else {
        unsigned char b[4];
        if (std::fread(b, 1, 4, f) != 4) die(path + ": cut short");
        hlen = b[0] | (b[1] << 8) | (b[2] << 16) | ((uint32_t)b[3] << 24);
    }
    std::string h(hlen, ' ');
    if (std::fread(&h[0], 1, hlen, f) != hlen) die(path + ": cut short");
    size_t d = h.find("'descr': '");
    size_t s = h.find("'shape': (");
    if (d == std::string::npos || s == std::string::npos || h.find("'fortran_order': True") != std::string::npos)
        die(path + ": a header this launcher does not read");
    t.descr = h.substr(d + 10, h.find('\'', d + 10) - (d + 10));
    t.shape.clear();
    size_t numel = 1;
    for (const char *p = h.c_str() + s + 10; *p && *p != ')';) {
        char *e;
        long long v = std::strtoll(p, &e, 10);
        if (e == p) { p++; continue; }
        t.shape.push_back(v);
        numel *= (size_t)v;
        p = e;
    }
    t.bytes.assign(numel * t.itemsize(), 0);
    if (!t.bytes.empty() && std::fread(t.bytes.data(), 1, t.bytes.size(), f) != t.bytes.size())
        die(path + ": its data is cut short");
    std::fclose(f);
    return true;
}

inline void write_npy(const std::string &path, const Tensor &t)
{
    std::string dims;
    for (size_t i = 0; i < t.shape.size(); i++)
        dims += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : i + 1 < t.shape.size() ? ", " : "");
    std::string h = "{'descr': '" + t.descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) die("cannot write " + path);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(h.size() & 0xff),
                             (unsigned char)(h.size() >> 8)};
    std::fwrite(pre, 1, 10, f);
    std::fwrite(h.data(), 1, h.size(), f);
    if (!t.bytes.empty()) std::fwrite(t.bytes.data(), 1, t.bytes.size(), f);
    if (std::fclose(f)) die("cannot write " + path);
}

// in/NAME.npy as the kernel saw it before the launch; a tensor only written
// by the kernel (no in/ file) starts as zeros shaped like expected/NAME.npy.
inline Tensor load(const char *name)
{
    Tensor t, e;
    t.name = name;
    bool have_in = read_npy(std::string("in/") + name + ".npy", t);
    t.has_expected = read_npy(std::string("expected/") + name + ".npy", e);
    if (!have_in && !t.has_expected) die(std::string("neither in/ nor expected/ has ") + name + ".npy");
    if (!have_in) {
        t.descr = e.descr;
        t.shape = e.shape;
        t.bytes.assign(e.bytes.size(), 0);
    }
    return t;
}

inline std::string element(const Tensor &t, size_t i)
{
    const unsigned char *p = t.bytes.data() + i * t.itemsize();
    char buf[96];
    const std::string &d = t.descr;
    if (d == "<f4") { float v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%.9g", v); }
    else if (d == "<f8") { double v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "%.17g", v); }
    else if (d == "<i8") { int64_t v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "%lld", (long long)v); }
    else if (d == "<i4") { int32_t v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%d", v); }
    else {
        std::string hex = "0x";
        for (size_t k = t.itemsize(); k-- > 0;) { std::snprintf(buf, sizeof buf, "%02x", p[k]); hex += buf; }
        return hex + " (bits)";
    }
    return buf;
}

// Writes out/NAME.npy for every tensor that has an expected/ file and compares
// them bit for bit: 0 all equal, 1 the first difference is printed.
inline int finish(const std::vector<Tensor *> &ts)
{
    mkdir("out", 0777);
    int rc = 0;
    size_t compared = 0;
    for (Tensor *t : ts) {
        if (!t->has_expected) continue;
        write_npy("out/" + t->name + ".npy", *t);
        Tensor e;
        read_npy("expected/" + t->name + ".npy", e);
        compared++;
        if (e.bytes.size() != t->bytes.size()) {
            std::printf("%s: %zu bytes, the captured output has %zu\n", t->name.c_str(), t->bytes.size(), e.bytes.size());
            rc = 1;
            continue;
        }
        size_t n = t->itemsize() ? t->bytes.size() / t->itemsize() : 0;
        size_t nan = 0;
        for (size_t i = 0; i < n && (t->descr == "<f4" || t->descr == "<f8"); i++) {
            double v;
            if (t->descr == "<f4") { float f; std::memcpy(&f, t->bytes.data() + 4 * i, 4); v = f; }
            else std::memcpy(&v, t->bytes.data() + 8 * i, 8);
            nan += v != v;
        }
        if (nan) std::printf("%s: %zu NaN of %zu elements\n", t->name.c_str(), nan, n);
        for (size_t i = 0; i < n; i++)
            if (std::memcmp(t->bytes.data() + i * t->itemsize(), e.bytes.data() + i * t->itemsize(), t->itemsize())) {
                std::printf("%s: element %zu (flat) differs: got %s, the run had %s\n", t->name.c_str(), i,
                            element(*t, i).c_str(), element(e, i).c_str());
                rc = 1;
                break;
            }
    }
    if (!rc) std::printf("repro: %zu output%s equal to the captured ones bit for bit (out/)\n", compared, compared == 1 ? "" : "s");
    return rc;
}

}  // namespace repro
