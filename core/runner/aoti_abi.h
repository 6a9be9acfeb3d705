/* aoti_abi.h — C prototypes for the parts of libtorch's AOTI C shim and of
 * the AOTI model container API that the runner uses.
 *
 * torch ships these as C++ headers only (shim.h, interface.h use `using` and
 * <iostream>), but the exported symbols are plain C; these declarations match
 * torch/csrc/inductor/aoti_torch/c/shim.h and aoti_runtime/interface.h of
 * torch 2.11 and 2.13. Only symbols present in both are declared here and
 * linked directly; anything newer or optional (float8 dtype getters, the
 * container's AOTInductorGetLastError, the CUDA runtime) is looked up with
 * dlsym at run time (torch_abi.c, model_so.c).
 * Device and dtype codes are not ABI: use the getters, cached in torch_abi.c. */
#ifndef AOTIDBG_AOTI_ABI_H
#define AOTIDBG_AOTI_ABI_H
#include <stddef.h>
#include <stdint.h>

typedef struct AtenTensorOpaque *AtenTensorHandle;
typedef int32_t AOTITorchError;          /* 0 success, 1 failure */
typedef int32_t AOTIRuntimeError;        /* 0 success, 1 failure */
typedef struct AOTInductorModelContainerOpaque *AOTInductorModelContainerHandle;
typedef struct AOTInductorStreamOpaque *AOTInductorStreamHandle;
typedef struct AOTIProxyExecutorOpaque *AOTIProxyExecutorHandle;

/* ---- libtorch (linked) ---- */
int32_t aoti_torch_device_type_cpu(void);
int32_t aoti_torch_device_type_cuda(void);
int32_t aoti_torch_dtype_bfloat16(void);
int32_t aoti_torch_dtype_float16(void);
int32_t aoti_torch_dtype_float32(void);
int32_t aoti_torch_dtype_float64(void);
int32_t aoti_torch_dtype_uint8(void);
int32_t aoti_torch_dtype_int8(void);
int32_t aoti_torch_dtype_int16(void);
int32_t aoti_torch_dtype_int32(void);
int32_t aoti_torch_dtype_int64(void);
int32_t aoti_torch_dtype_bool(void);

AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);
AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor, void **ret_data_ptr);
AOTITorchError aoti_torch_get_storage_size(AtenTensorHandle tensor, int64_t *ret_size);   /* bytes */
AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor, int64_t *ret_storage_offset);
AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t *ret_dim);
AOTITorchError aoti_torch_get_numel(AtenTensorHandle tensor, int64_t *ret_numel);
AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor, int64_t **ret_sizes);
AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor, int64_t **ret_strides);
AOTITorchError aoti_torch_get_dtype(AtenTensorHandle tensor, int32_t *ret_dtype);
AOTITorchError aoti_torch_get_device_type(AtenTensorHandle tensor, int32_t *ret_device_type);
AOTITorchError aoti_torch_get_device_index(AtenTensorHandle tensor, int32_t *ret_device_index);
AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
                                        int32_t dtype, int32_t device_type, int32_t device_index,
                                        AtenTensorHandle *ret_new_tensor);
AOTITorchError aoti_torch_create_tensor_from_blob(void *data, int64_t ndim, const int64_t *sizes_ptr,
                                                  const int64_t *strides_ptr, int64_t storage_offset,
                                                  int32_t dtype, int32_t device_type, int32_t device_index,
                                                  AtenTensorHandle *ret);
AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle, AtenTensorHandle *new_handle);
AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking);

/* The printer hooks the model calls; the runner defines and exports them (hooks.c). */
void aoti_torch_save_tensor_handle(AtenTensorHandle self, const char *tensor_name, const char *launch_prefix,
                                   const char *kernel_name);
void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char *msg);

/* ---- the model .so (dlsym) ---- */
typedef AOTIRuntimeError (*aoti_create_with_device_fn)(AOTInductorModelContainerHandle *h, size_t num_models,
                                                       const char *device_str, const char *cubin_dir);
typedef AOTIRuntimeError (*aoti_delete_fn)(AOTInductorModelContainerHandle h);
typedef AOTIRuntimeError (*aoti_run_fn)(AOTInductorModelContainerHandle h, AtenTensorHandle *inputs,
                                        size_t n_inputs, AtenTensorHandle *outputs, size_t n_outputs,
                                        AOTInductorStreamHandle stream, AOTIProxyExecutorHandle proxy);
typedef AOTIRuntimeError (*aoti_get_count_fn)(AOTInductorModelContainerHandle h, size_t *ret);
typedef AOTIRuntimeError (*aoti_get_name_fn)(AOTInductorModelContainerHandle h, size_t idx, const char **ret);
typedef AOTIRuntimeError (*aoti_last_error_fn)(const char **msg);
/* External weights (package_constants_on_disk_format="binary_blob"), as torch's
 * AOTIModelContainerRunner::update_constant_buffer_from_blob calls them. */
/* Constants (weights) by index: names, the user's FQNs, dtypes, whether constant folding made them. */
typedef AOTIRuntimeError (*aoti_const_name_fn)(AOTInductorModelContainerHandle h, size_t idx, const char **name);
typedef AOTIRuntimeError (*aoti_const_i32_fn)(AOTInductorModelContainerHandle h, size_t idx, int32_t *ret);
typedef AOTIRuntimeError (*aoti_const_bool_fn)(AOTInductorModelContainerHandle h, size_t idx, _Bool *ret);
typedef AOTIRuntimeError (*aoti_blob_size_fn)(AOTInductorModelContainerHandle h, uint64_t *ret_size);
typedef AOTIRuntimeError (*aoti_from_blob_fn)(AOTInductorModelContainerHandle h, const uint8_t *weight_blob_ptr);

#endif
