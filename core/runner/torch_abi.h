/* torch_abi.h — the runner's view of torch dtypes, devices and the CUDA
 * runtime, resolved once at start-up.
 *
 * dtype codes come from libtorch's aoti_torch_dtype_*() getters (never
 * hard-coded); float8 getters and the CUDA runtime are looked up with dlsym so
 * one binary works with CPU-only torch and with torch builds that lack them.
 * Everything here is process-global and read-only after tabi_init(). */
#ifndef AOTIDBG_TORCH_ABI_H
#define AOTIDBG_TORCH_ABI_H
#include <stddef.h>
#include <stdint.h>
#include "host_stats.h"

typedef struct {
    const char *name;        /* canonical name: "float32", "bfloat16", "float8_e4m3fn", ... */
    dtype_kind kind;
    size_t itemsize;
    int32_t code;            /* torch's code, from its getter */
    int present;             /* 0 when this torch build has no getter for it */
} dtype_entry;

/* The CUDA runtime functions the runner uses; members are NULL when absent
 * (CPU-only torch). Return values are cudaError_t (0 = success). */
typedef struct {
    int (*device_synchronize)(void);
    int (*get_last_error)(void);
    const char *(*get_error_string)(int err);
    int (*get_device_count)(int *count);
    int (*get_device_properties)(void *prop, int device);
    int (*device_get_attribute)(int *value, int attr, int device);
    /* cudaMemcpy(dst, src, bytes, kind); kind 2 = cudaMemcpyDeviceToHost */
    int (*memcpy)(void *dst, const void *src, size_t bytes, int kind);
    /* aoti_torch_get_current_cuda_stream(device_index, &stream) from libtorch_cuda */
    int32_t (*current_stream)(int32_t device_index, void **stream);
    /* events and host functions, for a kernel's own time (device_timer.c);
     * cudaEvent_t and cudaStream_t are pointers */
    int (*event_create)(void **event);
    int (*event_record)(void *event, void *stream);
    int (*event_synchronize)(void *event);
    int (*event_elapsed_time)(float *ms, void *start, void *end);
    int (*launch_host_func)(void *stream, void (*fn)(void *), void *data);
} cuda_rt;

void tabi_init(void);
int32_t tabi_device_cpu(void);
int32_t tabi_device_cuda(void);
const dtype_entry *tabi_dtype_by_code(int32_t code);     /* NULL if not one we handle */
const dtype_entry *tabi_dtype_by_name(const char *name); /* NULL if unknown or not in this build */
const cuda_rt *tabi_cuda(void);
/* 1 when libtorch_cuda is loaded (a CUDA build of torch), else 0. */
int tabi_torch_has_cuda(void);
/* Visible CUDA devices (0 without a CUDA runtime). Fills name/cc when count > 0. */
int tabi_cuda_info(char *name, size_t name_len, char *cc, size_t cc_len);
/* Device 0's peak memory bandwidth in GB/s: 2 (double data rate) x its memory
 * clock x its bus width, as the runtime reports them; -1 when it does not. */
double tabi_cuda_peak_gbps(void);
/* "CUDA error: <string> (code N)" for the last error of a synchronize, or 0 when fine.
 * Returns the nonzero code and writes the text into buf. */
int tabi_cuda_sync_check(char *buf, size_t len);
/* Parses "cpu", "cuda", "cuda:N" into a torch device type and index
 * (plain "cuda" takes default_index). -1 when malformed. */
int tabi_parse_device(const char *s, int default_index, int32_t *type, int32_t *index);

#endif
