/* A model-like plugin: it leaves undefined exactly the aoti_torch_* shims
   that real LibTorch-free AOTInductor CUDA models need from their host
   (../shared/docs/aoti-abi.md), so the audit sees what it would see in a real
   model's .dynsym. The calls are never made; only the references matter. */
void aoti_torch_clone(void);
void aoti_torch_clone_preserve_strides(void);
void aoti_torch_create_cuda_stream_guard(void);
void aoti_torch_delete_cuda_stream_guard(void);
void aoti_torch_create_tensor_from_blob(void);
void aoti_torch_create_tensor_from_blob_v2(void);
void aoti_torch_delete_tensor_object(void);
void aoti_torch_empty_strided(void);
void aoti_torch_new_tensor_handle(void);
void aoti_torch_get_data_ptr(void);
void aoti_torch_get_sizes(void);
void aoti_torch_get_strides(void);
void aoti_torch_get_storage_offset(void);
void aoti_torch_get_storage_size(void);
void aoti_torch_get_dtype(void);
void aoti_torch_get_device_type(void);
void aoti_torch_grad_mode_is_enabled(void);
void aoti_torch_grad_mode_set_enabled(void);
void aoti_torch_warn(void);
void aoti_torch_device_type_cpu(void);
void aoti_torch_device_type_cuda(void);
void aoti_torch__reinterpret_tensor(void);
void aoti_torch_layout_strided(void);
void aoti_torch_dtype_float32(void);
void aoti_torch_dtype_bfloat16(void);
void aoti_torch_dtype_int64(void);

void model_never_called(void) {
  aoti_torch_clone();
  aoti_torch_clone_preserve_strides();
  aoti_torch_create_cuda_stream_guard();
  aoti_torch_delete_cuda_stream_guard();
  aoti_torch_create_tensor_from_blob();
  aoti_torch_create_tensor_from_blob_v2();
  aoti_torch_delete_tensor_object();
  aoti_torch_empty_strided();
  aoti_torch_new_tensor_handle();
  aoti_torch_get_data_ptr();
  aoti_torch_get_sizes();
  aoti_torch_get_strides();
  aoti_torch_get_storage_offset();
  aoti_torch_get_storage_size();
  aoti_torch_get_dtype();
  aoti_torch_get_device_type();
  aoti_torch_grad_mode_is_enabled();
  aoti_torch_grad_mode_set_enabled();
  aoti_torch_warn();
  aoti_torch_device_type_cpu();
  aoti_torch_device_type_cuda();
  aoti_torch__reinterpret_tensor();
  aoti_torch_layout_strided();
  aoti_torch_dtype_float32();
  aoti_torch_dtype_bfloat16();
  aoti_torch_dtype_int64();
}
