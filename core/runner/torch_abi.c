/* torch_abi.c — dtype table, device codes and CUDA runtime lookup (torch_abi.h). */
#define _GNU_SOURCE
#include "torch_abi.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aoti_abi.h"
#include "compat.h"

/* The first ten in the order of tabi_init's linked getters; the rest are
 * looked up by name. Names and sizes come from host_stats (one table). */
static dtype_entry dtypes[] = {
    {.kind = DK_F32},  {.kind = DK_F16}, {.kind = DK_BF16}, {.kind = DK_F64},     {.kind = DK_I64},
    {.kind = DK_I32},  {.kind = DK_I16}, {.kind = DK_I8},   {.kind = DK_U8},      {.kind = DK_BOOL},
    {.kind = DK_F8E4M3}, {.kind = DK_F8E5M2}, {.kind = DK_U16}, {.kind = DK_U32}, {.kind = DK_U64},
    {.kind = DK_C64},  {.kind = DK_C128},
};
#define NDTYPES (sizeof dtypes / sizeof *dtypes)

static int32_t dev_cpu, dev_cuda;
static cuda_rt cuda;
static int inited;

static void *find_cuda_sym(void *lib, const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && lib) p = dlsym(lib, name);
    return p;
}

void tabi_init(void)
{
    if (inited) return;
    inited = 1;
    for (size_t i = 0; i < NDTYPES; i++) {
        dtypes[i].name = stats_kind_name(dtypes[i].kind);
        dtypes[i].itemsize = stats_kind_size(dtypes[i].kind);
    }
    dev_cpu = aoti_torch_device_type_cpu();
    dev_cuda = aoti_torch_device_type_cuda();
    int32_t (*getters[])(void) = {aoti_torch_dtype_float32, aoti_torch_dtype_float16, aoti_torch_dtype_bfloat16,
                                  aoti_torch_dtype_float64, aoti_torch_dtype_int64, aoti_torch_dtype_int32,
                                  aoti_torch_dtype_int16, aoti_torch_dtype_int8, aoti_torch_dtype_uint8,
                                  aoti_torch_dtype_bool};
    for (size_t i = 0; i < sizeof getters / sizeof *getters; i++) {
        dtypes[i].code = getters[i]();
        dtypes[i].present = 1;
    }
    /* optional in older builds: look them up rather than link them */
    for (size_t i = sizeof getters / sizeof *getters; i < NDTYPES; i++) {
        char sym[64];
        snprintf(sym, sizeof sym, "aoti_torch_dtype_%s", dtypes[i].name);
        int32_t (*g)(void) = (int32_t (*)(void))dlsym(RTLD_DEFAULT, sym);
        if (g) {
            dtypes[i].code = g();
            dtypes[i].present = 1;
        }
    }
    /* libtorch_cuda pulls in libcudart; it may sit in the global scope or only
     * as a dependency: try the scope first, then a loaded copy by soname. */
    void *lib = NULL;
    if (!dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize")) {
        static const char *sonames[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
        for (size_t i = 0; i < 4 && !lib; i++) lib = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
    }
    cuda.device_synchronize = (int (*)(void))find_cuda_sym(lib, "cudaDeviceSynchronize");
    cuda.get_last_error = (int (*)(void))find_cuda_sym(lib, "cudaGetLastError");
    cuda.get_error_string = (const char *(*)(int))find_cuda_sym(lib, "cudaGetErrorString");
    cuda.get_device_count = (int (*)(int *))find_cuda_sym(lib, "cudaGetDeviceCount");
    cuda.get_device_properties = (int (*)(void *, int))find_cuda_sym(lib, "cudaGetDeviceProperties");
    cuda.device_get_attribute = (int (*)(int *, int, int))find_cuda_sym(lib, "cudaDeviceGetAttribute");
    cuda.memcpy = (int (*)(void *, const void *, size_t, int))find_cuda_sym(lib, "cudaMemcpy");
    cuda.event_create = (int (*)(void **))find_cuda_sym(lib, "cudaEventCreate");
    cuda.event_record = (int (*)(void *, void *))find_cuda_sym(lib, "cudaEventRecord");
    cuda.event_synchronize = (int (*)(void *))find_cuda_sym(lib, "cudaEventSynchronize");
    cuda.event_elapsed_time = (int (*)(float *, void *, void *))find_cuda_sym(lib, "cudaEventElapsedTime");
    cuda.launch_host_func = (int (*)(void *, void (*)(void *), void *))find_cuda_sym(lib, "cudaLaunchHostFunc");
    /* looked up once here, not per tensor: dlsym over libtorch's scopes is not free */
    cuda.current_stream = (int32_t (*)(int32_t, void **))dlsym(RTLD_DEFAULT, "aoti_torch_get_current_cuda_stream");
}

int32_t tabi_device_cpu(void) { return dev_cpu; }
int32_t tabi_device_cuda(void) { return dev_cuda; }
const cuda_rt *tabi_cuda(void) { return &cuda; }

int tabi_torch_has_cuda(void)
{
    void *h = dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);   /* drops only the reference NOLOAD added */
    return h != NULL;
}

const dtype_entry *tabi_dtype_by_code(int32_t code)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].present && dtypes[i].code == code) return &dtypes[i];
    return NULL;
}

const dtype_entry *tabi_dtype_by_name(const char *name)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].present && !strcmp(dtypes[i].name, name)) return &dtypes[i];
    return NULL;
}

int tabi_cuda_info(char *name, size_t name_len, char *cc, size_t cc_len)
{
    int n = 0;
    if (name_len) name[0] = 0;
    if (cc_len) cc[0] = 0;
    if (!cuda.get_device_count || cuda.get_device_count(&n) != 0 || n <= 0) {
        if (cuda.get_last_error) cuda.get_last_error();   /* clear "no device" */
        return 0;
    }
    if (cuda.get_device_properties) {
        /* cudaDeviceProp's layout changes between CUDA versions, but `char
         * name[256]` is its first member in all of them; the buffer is far
         * larger than any version's struct. */
        char *prop = calloc(1, 16384);
        if (prop && cuda.get_device_properties(prop, 0) == 0) snprintf(name, name_len, "%.255s", prop);
        free(prop);
    }
    int major = 0, minor = 0;
    /* cudaDevAttrComputeCapabilityMajor = 75, ...Minor = 76 (stable enum values) */
    if (cuda.device_get_attribute && cuda.device_get_attribute(&major, 75, 0) == 0 &&
        cuda.device_get_attribute(&minor, 76, 0) == 0)
        snprintf(cc, cc_len, "%d.%d", major, minor);
    return n;
}

double tabi_cuda_peak_gbps(void)
{
    int khz = 0, bits = 0;
    /* cudaDevAttrMemoryClockRate = 36 (kHz), cudaDevAttrGlobalMemoryBusWidth = 37 (bits) */
    if (!cuda.device_get_attribute || cuda.device_get_attribute(&khz, 36, 0) != 0 ||
        cuda.device_get_attribute(&bits, 37, 0) != 0 || khz <= 0 || bits <= 0) {
        if (cuda.get_last_error) cuda.get_last_error();   /* clear what the query left */
        return -1;
    }
    return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;
}

int tabi_cuda_sync_check(char *buf, size_t len)
{
    if (!cuda.device_synchronize) return 0;
    int e = cuda.device_synchronize();
    if (e == 0 && cuda.get_last_error) e = cuda.get_last_error();
    if (e != 0) {
        const char *s = cuda.get_error_string ? cuda.get_error_string(e) : NULL;
        snprintf(buf, len, "CUDA error: %s (code %d)", s ? s : "unknown error", e);
    }
    return e;
}

int tabi_parse_device(const char *s, int default_index, int32_t *type, int32_t *index)
{
    if (!strcmp(s, "cpu")) {
        *type = dev_cpu;
        *index = 0;
        return 0;
    }
    if (!starts_with(s, "cuda")) return -1;
    *type = dev_cuda;
    if (s[4] == 0) {
        *index = default_index;
        return 0;
    }
    if (s[4] != ':' || !s[5] || strlen(s + 5) > 4) return -1;
    int v = 0;
    for (const char *p = s + 5; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
    }
    *index = v;
    return 0;
}
