/* input_build.c — model inputs from specs (input_build.h). */
#include "input_build.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_stats.h"
#include "torch_abi.h"
#include "torch_cxx.h"

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t sat_i64(double x, double lo, double hi)
{
    if (x != x) return 0;
    if (x <= lo) return (int64_t)lo;
    if (x >= hi) return (int64_t)hi;
    return (int64_t)x;
}

static void store(void *buf, uint64_t i, dtype_kind k, double x)
{
    switch (k) {
    case DK_F32: ((float *)buf)[i] = (float)x; break;
    case DK_F64: ((double *)buf)[i] = x; break;
    case DK_F16: ((uint16_t *)buf)[i] = stats_double_to_half(x); break;
    case DK_BF16: ((uint16_t *)buf)[i] = stats_double_to_bf16(x); break;
    case DK_I64: ((int64_t *)buf)[i] = x != x ? 0 : x >= 9223372036854775807.0 ? INT64_MAX
                                                   : x <= -9223372036854775808.0 ? INT64_MIN : (int64_t)x;
        break;
    case DK_I32: ((int32_t *)buf)[i] = (int32_t)sat_i64(x, -2147483648.0, 2147483647.0); break;
    case DK_I16: ((int16_t *)buf)[i] = (int16_t)sat_i64(x, -32768, 32767); break;
    case DK_I8: ((int8_t *)buf)[i] = (int8_t)sat_i64(x, -128, 127); break;
    case DK_U8: ((uint8_t *)buf)[i] = (uint8_t)sat_i64(x, 0, 255); break;
    case DK_BOOL: ((uint8_t *)buf)[i] = x != 0; break;
    default: break;   /* float8 and uint16/32/64 inputs are refused earlier */
    }
}

static int read_raw(const input_spec *spec, int index, void *buf, uint64_t nbytes, strbuf *err)
{
    const char *path = spec->file;
    if (!path || !*path) {
        strbuf_addf(err, "input %d: fill is file but no raw file was given", index);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        strbuf_addf(err, "input %d: cannot open %s: %s; check the file's path in the inputs spec", index, path,
                    strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != nbytes) {
        strbuf_addf(err, "input %d: %s holds %lld bytes, but shape and dtype %s need %llu "
                    "(numel x itemsize); check the shape in the inputs spec", index, path,
                    (long long)st.st_size, spec->dtype, (unsigned long long)nbytes);
        close(fd);
        return -1;
    }
    uint64_t off = 0;
    while (off < nbytes) {
        ssize_t n = read(fd, (char *)buf + off, nbytes - off > (1u << 30) ? (1u << 30) : nbytes - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            strbuf_addf(err, "input %d: reading %s failed after %llu bytes", index, path, (unsigned long long)off);
            close(fd);
            return -1;
        }
        off += (uint64_t)n;
    }
    close(fd);
    return 0;
}

/* A complex input: its parts, as a float32/float64 tensor of 2*numel. zeros,
 * ones, full and arange set the real parts (imaginary 0); randn draws both
 * parts with variance 1/2 each, as torch.randn does for complex dtypes. */
static int complex_fill(const input_spec *spec, dtype_kind part, void *buf, uint64_t numel)
{
    switch (spec->fill) {
    case FILL_ZEROS:
        memset(buf, 0, numel * 2 * stats_kind_size(part));
        return 0;
    case FILL_ONES:
    case FILL_FULL:
    case FILL_ARANGE:
        for (uint64_t i = 0; i < numel; i++) {
            double re = spec->fill == FILL_ONES ? 1.0 : spec->fill == FILL_FULL ? spec->value : (double)i;
            store(buf, 2 * i, part, re);
            store(buf, 2 * i + 1, part, 0.0);
        }
        return 0;
    case FILL_RANDN: {
        uint64_t s = spec->seed;
        for (uint64_t i = 0; i < numel; i++) {
            double u1 = (double)((splitmix64(&s) >> 11) + 1) * 0x1.0p-53;
            double u2 = (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
            double r = sqrt(-log(u1)), th = 6.283185307179586 * u2;   /* sqrt(-2 ln u) / sqrt(2) */
            store(buf, 2 * i, part, r * cos(th));
            store(buf, 2 * i + 1, part, r * sin(th));
        }
        return 0;
    }
    default:
        return -1;
    }
}

int input_fill(const input_spec *spec, int index, void *buf, uint64_t numel, strbuf *err)
{
    const dtype_entry *dt = tabi_dtype_by_name(spec->dtype ? spec->dtype : "");
    if (!dt) {
        strbuf_addf(err, "input %d: unknown dtype '%s'", index, spec->dtype ? spec->dtype : "");
        return -1;
    }
    dtype_kind k = dt->kind;
    if ((k == DK_C64 || k == DK_C128) && spec->fill != FILL_FILE)
        return complex_fill(spec, k == DK_C64 ? DK_F32 : DK_F64, buf, numel);
    int is_float = k == DK_F32 || k == DK_F64 || k == DK_F16 || k == DK_BF16;
    switch (spec->fill) {
    case FILL_ZEROS:
        memset(buf, 0, numel * dt->itemsize);
        return 0;
    case FILL_ONES:
    case FILL_FULL: {
        double v = spec->fill == FILL_ONES ? 1.0 : spec->value;
        for (uint64_t i = 0; i < numel; i++) store(buf, i, k, v);
        return 0;
    }
    case FILL_ARANGE:
        for (uint64_t i = 0; i < numel; i++) store(buf, i, k, k == DK_BOOL ? (double)(i & 1) : (double)i);
        return 0;
    case FILL_RANDN: {
        uint64_t s = spec->seed;
        if (!is_float) {
            for (uint64_t i = 0; i < numel; i++) {
                uint64_t r = splitmix64(&s);
                store(buf, i, k, k == DK_BOOL ? (double)(r >> 63) : (double)(r >> 60));
            }
            return 0;
        }
        for (uint64_t i = 0; i < numel; i += 2) {
            double u1 = (double)((splitmix64(&s) >> 11) + 1) * 0x1.0p-53;
            double u2 = (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
            double r = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
            store(buf, i, k, r * cos(th));
            if (i + 1 < numel) store(buf, i + 1, k, r * sin(th));
        }
        return 0;
    }
    case FILL_RANDINT: {
        uint64_t s = spec->seed, span = (uint64_t)spec->high - (uint64_t)spec->low;
        if (spec->high <= spec->low) {
            strbuf_addf(err, "input %d: randint range [%lld, %lld) is empty", index, (long long)spec->low,
                        (long long)spec->high);
            return -1;
        }
        for (uint64_t i = 0; i < numel; i++)   /* modulo bias under 2^-40 for spans below 2^24 */
            store(buf, i, k, (double)(spec->low + (int64_t)(splitmix64(&s) % span)));
        return 0;
    }
    case FILL_FILE:
        if (spec->file_format == INPUT_FILE_TORCH) {
            char e[1024];
            const char *shown = spec->file_shown && *spec->file_shown ? spec->file_shown : spec->file;
            if (tcxx_load_input(spec->file, shown, spec->key && *spec->key ? spec->key : NULL, spec->dtype,
                                spec->ndim, spec->shape, buf, numel * dt->itemsize, e, sizeof e) == 0)
                return 0;
            strbuf_addf(err, "input %d: %s", index, e);
            return INPUT_BAD_FILE;
        }
        return read_raw(spec, index, buf, numel * dt->itemsize, err) ? INPUT_BAD_FILE : 0;
    }
    strbuf_addf(err, "input %d: unknown fill %d", index, (int)spec->fill);
    return -1;
}

int input_build(const input_spec *spec, int index, int default_cuda_index, built_input *out, strbuf *err)
{
    memset(out, 0, sizeof *out);
    const dtype_entry *dt = tabi_dtype_by_name(spec->dtype ? spec->dtype : "");
    if (!dt || dt->kind == DK_F8E4M3 || dt->kind == DK_F8E5M2 || dt->kind == DK_U16 || dt->kind == DK_U32 ||
        dt->kind == DK_U64) {
        strbuf_addf(err, "input %d: dtype '%s' is not one aotidbg can make (float32 float16 bfloat16 float64 "
                    "int64 int32 int16 int8 uint8 bool complex64 complex128)", index, spec->dtype ? spec->dtype : "");
        return -1;
    }
    int32_t dev_type, dev_index;
    if (tabi_parse_device(spec->device && *spec->device ? spec->device : "cpu", default_cuda_index, &dev_type,
                          &dev_index)) {
        strbuf_addf(err, "input %d: device '%s' is not cpu, cuda or cuda:N", index, spec->device);
        return -1;
    }
    if (spec->ndim < 0 || spec->ndim > TENSOR_MAX_DIMS) {
        strbuf_addf(err, "input %d: %d dims (at most %d)", index, spec->ndim, TENSOR_MAX_DIMS);
        return -1;
    }
    /* contiguous strides use max(size, 1), as torch does */
    uint64_t prod = 1;
    int64_t strides[TENSOR_MAX_DIMS];
    int zero = 0, toobig = 0;
    for (int d = spec->ndim - 1; d >= 0; d--) {
        int64_t n = spec->shape[d];
        if (n < 0) {
            strbuf_addf(err, "input %d: dim %d is %lld (negative)", index, d, (long long)n);
            return -1;
        }
        strides[d] = (int64_t)prod;
        uint64_t m = n ? (uint64_t)n : 1;
        if (!n) zero = 1;
        if (prod > INPUT_MAX_BYTES / m) toobig = 1;
        else prod *= m;
    }
    uint64_t numel = zero ? 0 : prod;
    if (toobig || numel > INPUT_MAX_BYTES / dt->itemsize) {
        strbuf_addf(err, "input %d: shape needs more than %llu GiB; aotidbg refuses inputs that large", index,
                    INPUT_MAX_BYTES >> 30);
        return -1;
    }
    uint64_t nbytes = numel * dt->itemsize;
    void *host = malloc(nbytes ? nbytes : 1);
    if (!host) {
        strbuf_addf(err, "input %d: out of host memory for %llu bytes", index, (unsigned long long)nbytes);
        return -1;
    }
    int filled = input_fill(spec, index, host, numel, err);
    if (filled) {
        free(host);
        return filled;
    }
    AtenTensorHandle blob = NULL;
    if (aoti_torch_create_tensor_from_blob(host, spec->ndim, spec->shape, strides, 0, dt->code, tabi_device_cpu(),
                                           0, &blob)) {
        strbuf_addf(err, "input %d: torch refused to wrap a host buffer (see stderr)", index);
        free(host);
        return -1;
    }
    if (dev_type == tabi_device_cpu()) {
        out->h = blob;
        out->host = host;
        return 0;
    }
    AtenTensorHandle dev = NULL;
    if (aoti_torch_empty_strided(spec->ndim, spec->shape, strides, dt->code, dev_type, dev_index, &dev)) {
        strbuf_addf(err, "input %d: allocating %llu bytes on %s failed (see stderr: no such device, or out of "
                    "memory)", index, (unsigned long long)nbytes, spec->device);
        aoti_torch_delete_tensor_object(blob);
        free(host);
        return -1;
    }
    if (aoti_torch_copy_(dev, blob, 0)) {
        strbuf_addf(err, "input %d: copying to %s failed (see stderr)", index, spec->device);
        aoti_torch_delete_tensor_object(dev);
        aoti_torch_delete_tensor_object(blob);
        free(host);
        return -1;
    }
    aoti_torch_delete_tensor_object(blob);   /* copy_ from pageable memory has completed */
    free(host);
    out->h = dev;
    return 0;
}
