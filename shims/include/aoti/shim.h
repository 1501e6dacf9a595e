/*
 * aoti/shim.h - the aoti_torch_* C ABI that AOTInductor models call into.
 *
 * A model compiled by torch 2.11 with `aot_inductor.link_libtorch = False`
 * leaves every aoti_torch_* function undefined and expects the host process
 * to provide them in its global symbol scope. This header declares the subset
 * that libaoti_shims implements, with exactly the signatures of torch 2.11's
 * torch/csrc/inductor/aoti_torch/c/shim.h (and the generated c_shim_cpu.h and
 * c_shim_cuda.h for the op fallbacks), so a model built against torch's
 * header binds to these definitions unchanged.
 *
 * Conventions, shared with torch:
 *  - Functions returning AOTITorchError return 0 on success and non-zero on
 *    failure. On failure, outputs are left untouched and the reason can be
 *    read with aoti_shims_last_error() on the same thread.
 *  - AtenTensorHandle values returned through a `ret` pointer are new,
 *    owning handles; release each with aoti_torch_delete_tensor_object().
 *    A handle shares its storage (refcounted) with the handles it was made
 *    from, so views stay valid after the original is deleted.
 *  - Pointers returned by getters (sizes, strides, data) are borrowed and
 *    stay valid while the handle lives.
 *  - Nothing here throws; no C++ exception ever crosses this boundary.
 *
 * Differences from torch, by design:
 *  - The handle is our own small tensor, not at::Tensor*. Never mix these
 *    shims with libtorch in one process: both define the same names.
 *  - aoti_torch_check() cannot unwind the model the way torch's (throwing)
 *    implementation does; a failed check is printed and recorded as the
 *    thread's last error, and execution continues.
 *  - aoti_torch_item_float16/bfloat16 return the raw 16 bits through a
 *    uint16_t* (same ABI as torch's c10::Half* / c10::BFloat16*).
 *  - In a build without CUDA (AOTI_CUDA=OFF) every CUDA shim is still
 *    defined, so the exported symbol set does not depend on the build, but
 *    returns an error saying that CUDA support was not compiled in.
 */
#ifndef AOTI_SHIM_H
#define AOTI_SHIM_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#if defined(_WIN32)
#define AOTI_SHIMS_API
#else
#define AOTI_SHIMS_API __attribute__((__visibility__("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Types                                                                     */
/* ------------------------------------------------------------------------ */

typedef int32_t AOTITorchError;
#ifndef AOTI_TORCH_SUCCESS
#define AOTI_TORCH_SUCCESS 0
#endif
#ifndef AOTI_TORCH_FAILURE
#define AOTI_TORCH_FAILURE 1
#endif

/* Opaque handles; the structs are never defined for users. */
struct AtenTensorOpaque;
typedef struct AtenTensorOpaque* AtenTensorHandle;
struct CUDAGuardOpaque;
typedef struct CUDAGuardOpaque* CUDAGuardHandle;
struct CUDAStreamGuardOpaque;
typedef struct CUDAStreamGuardOpaque* CUDAStreamGuardHandle;
/* A random generator, as torch's random fallbacks take one (optionally:
 * a null pointer, or a pointer to a null handle, is the default generator).
 * libaoti_shims has no generator objects: it draws from one process-wide
 * generator (aoti_shims_manual_seed below; docs/ops/random.md). */
struct AtenGeneratorOpaque;
typedef struct AtenGeneratorOpaque* AtenGeneratorHandle;

/* The value type of aoti_torch_item_complex64 (layout of c10::complex<float>). */
typedef struct AotiComplex64 {
  float real;
  float imag;
} AotiComplex64;

/* ------------------------------------------------------------------------ */
/* libaoti_shims' own API (not part of torch's ABI)                          */
/* ------------------------------------------------------------------------ */

/* The message of the most recent failing call on this thread, or "" if none
 * failed yet. Successful calls leave it unchanged (like errno). The pointer
 * is valid until the next shim call on this thread. Never null. */
AOTI_SHIMS_API const char* aoti_shims_last_error(void);
/* Resets this thread's last error to "". */
AOTI_SHIMS_API void aoti_shims_clear_last_error(void);
/* 1 when this build of the library contains CUDA support, 0 otherwise. */
AOTI_SHIMS_API int32_t aoti_shims_has_cuda(void);

/* The CUDA fallbacks that check data (an index against its size, offsets,
 * a sorter: index_Tensor, index_put, index_reduce, masked_scatter, scatter,
 * scatter_reduce, segment_reduce, searchsorted, histc, _embedding_bag) do
 * not wait for the GPU to check it, as torch's kernels do not: a bad value
 * is not dereferenced (the element is skipped), and the first problem met
 * is recorded on its device (docs/ops/checks.md). This reports it: waits
 * for the calling thread's current stream on device `device_index` (-1:
 * the current device), then returns AOTI_TORCH_FAILURE with the problem as
 * aoti_shims_last_error() and forgets it, or AOTI_TORCH_SUCCESS when none
 * was recorded (always, in a build without CUDA). With the environment
 * variable AOTI_SHIMS_CUDA_CHECKS=sync those fallbacks check synchronously
 * instead, each failing with the message itself (for debugging). */
AOTI_SHIMS_API AOTITorchError aoti_shims_cuda_check_errors(int32_t device_index);

/* The random fallbacks (rand, randn, randint, randperm, bernoulli_,
 * uniform, normal_functional, exponential, native_dropout, and the seeds an
 * inductor graph draws for its own RNG through randint_low_out) draw from
 * one Philox4x32-10 generator per process, shared by the CPU and CUDA: the
 * same seed and the same sequence of calls give the same values on either
 * device (docs/ops/random.md). Its seed is, in order: the last
 * aoti_shims_manual_seed(); else the environment variable AOTI_SHIMS_SEED
 * (an unsigned 64-bit integer, decimal or 0x-hex), read once at the first
 * random call (a malformed value makes every random op fail until a seed is
 * set); else 67280421310721, torch's default seed.
 *
 * aoti_shims_manual_seed sets the seed and rewinds the generator to its
 * first value (torch.manual_seed). Thread-safe. */
AOTI_SHIMS_API void aoti_shims_manual_seed(uint64_t seed);
/* The seed the generator runs under (torch.initial_seed). */
AOTI_SHIMS_API uint64_t aoti_shims_initial_seed(void);

/* ------------------------------------------------------------------------ */
/* Constants. Values match c10's enums (see docs/shims.md).                  */
/* ------------------------------------------------------------------------ */

AOTI_SHIMS_API int32_t aoti_torch_device_type_cpu(void);         /* 0 */
AOTI_SHIMS_API int32_t aoti_torch_device_type_cuda(void);        /* 1 */
AOTI_SHIMS_API int32_t aoti_torch_device_type_meta(void);        /* 14 */
AOTI_SHIMS_API int32_t aoti_torch_device_type_xpu(void);         /* 12 */
AOTI_SHIMS_API int32_t aoti_torch_device_type_mps(void);         /* 13 */
AOTI_SHIMS_API int32_t aoti_torch_device_type_privateuse1(void); /* 20 */

AOTI_SHIMS_API int32_t aoti_torch_dtype_uint8(void);           /* 0 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_int8(void);            /* 1 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_int16(void);           /* 2 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_int32(void);           /* 3 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_int64(void);           /* 4 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float16(void);         /* 5 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float32(void);         /* 6 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float64(void);         /* 7 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_complex32(void);       /* 8 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_complex64(void);       /* 9 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_complex128(void);      /* 10 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_bool(void);            /* 11 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_bfloat16(void);        /* 15 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float8_e5m2(void);     /* 23 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float8_e4m3fn(void);   /* 24 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float8_e5m2fnuz(void); /* 25 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_float8_e4m3fnuz(void); /* 26 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_uint16(void);          /* 27 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_uint32(void);          /* 28 */
AOTI_SHIMS_API int32_t aoti_torch_dtype_uint64(void);          /* 29 */

/* Bytes per element of `dtype`; 0 (and a last error) if it is unsupported. */
AOTI_SHIMS_API size_t aoti_torch_dtype_element_size(int32_t dtype);

AOTI_SHIMS_API int32_t aoti_torch_layout_strided(void);    /* 0 */
AOTI_SHIMS_API int32_t aoti_torch_layout_sparse_coo(void); /* 1 */
AOTI_SHIMS_API int32_t aoti_torch_layout_sparse_csr(void); /* 2 */
AOTI_SHIMS_API int32_t aoti_torch_layout__mkldnn(void);    /* 3 */
AOTI_SHIMS_API int32_t aoti_torch_layout_sparse_csc(void); /* 4 */
AOTI_SHIMS_API int32_t aoti_torch_layout_sparse_bsr(void); /* 5 */
AOTI_SHIMS_API int32_t aoti_torch_layout_sparse_bsc(void); /* 6 */
AOTI_SHIMS_API int32_t aoti_torch_layout_jagged(void);     /* 7 */

/* ------------------------------------------------------------------------ */
/* Grad mode, diagnostics                                                    */
/* ------------------------------------------------------------------------ */

/* Thread-local, true by default (as in torch). Only recorded: nothing here
 * computes gradients. */
AOTI_SHIMS_API bool aoti_torch_grad_mode_is_enabled(void);
AOTI_SHIMS_API void aoti_torch_grad_mode_set_enabled(bool enabled);

/* Prints "Warning: <msg> (<func> at <file>:<line>)" to stderr. */
AOTI_SHIMS_API void aoti_torch_warn(const char* func, const char* file,
                                    uint32_t line, const char* msg);
/* When `cond` is false: prints the message to stderr and records it as this
 * thread's last error. See the note at the top of this file. */
AOTI_SHIMS_API void aoti_torch_check(bool cond, const char* func,
                                     const char* file, uint32_t line,
                                     const char* msg);

/* ------------------------------------------------------------------------ */
/* Creating and deleting tensors                                             */
/* ------------------------------------------------------------------------ */

/* A new tensor owning freshly allocated, uninitialised memory: 64-byte
 * aligned host memory, or stream-ordered device memory (cudaMallocAsync on
 * the device's current stream). Strides must be non-negative. A CUDA
 * device_index of -1 means the current device. */
AOTI_SHIMS_API AOTITorchError aoti_torch_empty_strided(
    int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr,
    int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle* ret_new_tensor);

/* A tensor over caller-owned memory, which is never freed by the shims.
 * `data` is the start of the storage; the tensor's first element is at
 * data + storage_offset * element_size. */
AOTI_SHIMS_API AOTITorchError aoti_torch_create_tensor_from_blob(
    void* data, int64_t ndim, const int64_t* sizes_ptr,
    const int64_t* strides_ptr, int64_t storage_offset, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle* ret);

/* As above. Only the strided layout is supported; opaque metadata (used by
 * torch for MKLDNN tensors) is ignored. */
AOTI_SHIMS_API AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void* data, int64_t ndim, const int64_t* sizes_ptr,
    const int64_t* strides_ptr, int64_t storage_offset, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle* ret,
    int32_t layout, const uint8_t* opaque_metadata,
    int64_t opaque_metadata_size);

/* Wraps a scalar in a new 0-dimensional CPU tensor. */
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_float32(float value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_float64(double value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_uint8(uint8_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_uint16(uint16_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_uint32(uint32_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_uint64(uint64_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_int8(int8_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_int16(int16_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_int32(int32_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_int64(int64_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIMS_API AOTITorchError aoti_torch_scalar_to_tensor_bool(bool value, AtenTensorHandle* ret_new_tensor);

/* Releases one handle. The storage goes when its last handle goes. */
AOTI_SHIMS_API AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);

/* A new handle with the same storage, sizes, strides and offset. */
AOTI_SHIMS_API AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                                           AtenTensorHandle* new_handle);
/* Same as aoti_torch_new_tensor_handle (a shallow copy into *ret_dst). */
AOTI_SHIMS_API AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src,
                                                            AtenTensorHandle* ret_dst);
/* Makes `dst` another view of `src`'s storage (its old storage is released). */
AOTI_SHIMS_API AOTITorchError aoti_torch_assign_tensors(AtenTensorHandle src, AtenTensorHandle dst);

/* A view of self's storage. storage_offset is ADDED to self's own offset.
 * The view must lie inside the storage. */
AOTI_SHIMS_API AOTITorchError aoti_torch__reinterpret_tensor(
    AtenTensorHandle self, int64_t ndim, const int64_t* sizes_ptr,
    const int64_t* strides_ptr, int64_t storage_offset,
    AtenTensorHandle* ret_new_tensor);

/* A view of self's storage with self's dimension count and offset. */
AOTI_SHIMS_API AOTITorchError aoti_torch_as_strided(AtenTensorHandle self,
                                                    const int64_t* sizes_ptr,
                                                    const int64_t* strides_ptr,
                                                    AtenTensorHandle* ret);

/* A view of `dtype` elements starting `offset_bytes` past self's data. */
AOTI_SHIMS_API AOTITorchError aoti_torch__alloc_from_pool(
    AtenTensorHandle self, int64_t offset_bytes, int32_t dtype, int64_t ndim,
    const int64_t* sizes_ptr, const int64_t* strides_ptr,
    AtenTensorHandle* ret_new_tensor);

/* ------------------------------------------------------------------------ */
/* Getters                                                                   */
/* ------------------------------------------------------------------------ */

/* Address of the first element: storage data + offset * element size. */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor, void** ret_data_ptr);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_mutable_data_ptr(AtenTensorHandle tensor, void** ret_data_ptr);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_const_data_ptr(AtenTensorHandle tensor, const void** ret_data_ptr);
/* Bytes in the underlying storage. */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_storage_size(AtenTensorHandle tensor, int64_t* ret_size);
/* Elements of this dtype that fit in the underlying storage. */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_storage_numel(AtenTensorHandle tensor, int64_t* ret_numel);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor, int64_t* ret_storage_offset);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t* ret_dim);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_numel(AtenTensorHandle tensor, int64_t* ret_numel);
/* Borrowed arrays of get_dim() entries; never null, even for 0-d tensors. */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor, int64_t** ret_sizes);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor, int64_t** ret_strides);
/* One dimension; d may be negative (counted from the end). */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d, int64_t* ret_size);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d, int64_t* ret_stride);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_dtype(AtenTensorHandle tensor, int32_t* ret_dtype);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_device_type(AtenTensorHandle tensor, int32_t* ret_device_type);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_device_index(AtenTensorHandle tensor, int32_t* ret_device_index);
AOTI_SHIMS_API AOTITorchError aoti_torch_get_layout(AtenTensorHandle tensor, int32_t* ret_layout);
/* Row-major contiguity, ignoring the strides of size-1 dimensions. */
AOTI_SHIMS_API AOTITorchError aoti_torch_is_contiguous(AtenTensorHandle tensor, bool* ret_is_contiguous);
AOTI_SHIMS_API AOTITorchError aoti_torch_is_defined(AtenTensorHandle tensor, bool* ret_is_defined);

/* The single element of a one-element tensor (CPU or CUDA). The tensor's
 * dtype must be the one named by the function; nothing is converted. */
AOTI_SHIMS_API AOTITorchError aoti_torch_item_float16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_bfloat16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_float32(AtenTensorHandle tensor, float* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_float64(AtenTensorHandle tensor, double* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_uint8(AtenTensorHandle tensor, uint8_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_uint16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_uint32(AtenTensorHandle tensor, uint32_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_uint64(AtenTensorHandle tensor, uint64_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_int8(AtenTensorHandle tensor, int8_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_int16(AtenTensorHandle tensor, int16_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_int32(AtenTensorHandle tensor, int32_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_int64(AtenTensorHandle tensor, int64_t* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_bool(AtenTensorHandle tensor, bool* ret_value);
AOTI_SHIMS_API AOTITorchError aoti_torch_item_complex64(AtenTensorHandle tensor, AotiComplex64* ret_value);

/* ------------------------------------------------------------------------ */
/* Copies                                                                    */
/* ------------------------------------------------------------------------ */

/* A new contiguous tensor with self's values. */
AOTI_SHIMS_API AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle* ret);
/* A new tensor with self's sizes, strides and values, at offset 0. */
AOTI_SHIMS_API AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self, AtenTensorHandle* ret);

/* Copies src's values into self. Same dtype; src broadcasts to self's shape.
 * Any strides; CPU<->CPU, CPU<->CUDA and CUDA<->CUDA. CUDA work runs on the
 * current stream of the CUDA device involved; with non_blocking == 0 the call
 * returns once the copy is complete. */
AOTI_SHIMS_API AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                               int32_t non_blocking);
/* Deprecated by torch: aoti_torch_copy_(dst, src, 0). */
AOTI_SHIMS_API AOTITorchError aoti_torch_tensor_copy_(AtenTensorHandle src, AtenTensorHandle dst);

/* ------------------------------------------------------------------------ */
/* CUDA: device and stream guards, current stream                            */
/* ------------------------------------------------------------------------ */

/* Makes device_index the current device until the guard is deleted, which
 * restores the device that was current when the guard was created. */
AOTI_SHIMS_API AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index,
                                                           CUDAGuardHandle* ret_guard);
AOTI_SHIMS_API AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard,
                                                              int32_t device_index);

/* Makes `stream` (a cudaStream_t; null is the legacy default stream) the
 * current stream of device_index, and device_index the current device, on
 * this thread until the guard is deleted; deleting restores both. */
AOTI_SHIMS_API AOTITorchError aoti_torch_create_cuda_stream_guard(void* stream, int32_t device_index,
                                                                  CUDAStreamGuardHandle* ret_guard);
AOTI_SHIMS_API AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard);

/* This thread's current stream of device_index (-1: the current device), as
 * a cudaStream_t. The default is the legacy default stream (null). CUDA
 * allocations and frees made by the shims are ordered on this stream. */
AOTI_SHIMS_API AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index, void** ret_stream);

/* ------------------------------------------------------------------------ */
/* Op fallbacks: GEMM (mm, addmm, bmm, baddbmm), CPU and CUDA                */
/* ------------------------------------------------------------------------ */

/* Signatures of torch 2.11's generated c_shim_cpu.h / c_shim_cuda.h. All
 * tensors on the entry point's device (one device), of one dtype: float32,
 * float64, float16 or bfloat16; any strides and offsets. `out` must already
 * have the result's shape. CPU: OpenBLAS (float32/float64; float16 and
 * bfloat16 are computed in float32 and rounded once). CUDA: cuBLAS on the
 * current stream (float32 in full float32, no TF32; half types accumulate in
 * float32). See docs/shims.md for tolerances and what is refused. */

/* out[M,N] = self[M,K] @ mat2[K,N]. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                    AtenTensorHandle mat2);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                     AtenTensorHandle mat2);
/* out = beta * self + alpha * (mat1 @ mat2); self broadcasts to [M,N]. With
 * beta = 0 self is not read (a NaN in it does not propagate). */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                       AtenTensorHandle mat1, AtenTensorHandle mat2,
                                                       double beta, double alpha);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        AtenTensorHandle mat1, AtenTensorHandle mat2,
                                                        double beta, double alpha);
/* out[B,M,N] = self[B,M,K] @ mat2[B,K,N]. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                     AtenTensorHandle mat2);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                      AtenTensorHandle mat2);
/* out = beta * self + alpha * (batch1 @ batch2); self broadcasts to [B,M,N]. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                         AtenTensorHandle batch1,
                                                         AtenTensorHandle batch2, double beta,
                                                         double alpha);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                          AtenTensorHandle batch1,
                                                          AtenTensorHandle batch2, double beta,
                                                          double alpha);

/* ------------------------------------------------------------------------ */
/* Op fallbacks: scan (cumsum), CPU and CUDA                                 */
/* ------------------------------------------------------------------------ */

/* *ret0 = a new contiguous tensor with self's sizes: the running sum of self
 * along dim (negative counts from the end; a 0-d self takes 0 or -1). Its
 * dtype is *dtype when dtype is non-null, else int64 for an integral or bool
 * self, else self's dtype; self is converted to it before summing. Any
 * strides. Signature of torch 2.11's generated c_shim_cpu.h / c_shim_cuda.h.
 * CPU sums in order in torch's accumulation type (bit-identical to torch's
 * CPU kernel); CUDA runs one thread per line on the current stream. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self, int64_t dim,
                                                    int32_t* dtype, AtenTensorHandle* ret0);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_cumsum(AtenTensorHandle self, int64_t dim,
                                                     int32_t* dtype, AtenTensorHandle* ret0);

/* ------------------------------------------------------------------------ */
/* Fallback ops: convolution (aten::convolution; CPU on oneDNN, CUDA on     */
/* cuDNN). Signatures of torch 2.11's generated c_shim_cpu.h/c_shim_cuda.h. */
/* ------------------------------------------------------------------------ */

/* *ret0 = a new tensor: the 1-d, 2-d or 3-d (transposed) convolution of a
 * batched input [N, C, ...] with weight [O, C/groups, k...] (transposed:
 * [C, O/groups, k...]). bias may be null or point to null (no bias). Each
 * list has 1 or (weight dim - 2) values. float32, float16, bfloat16 (on the
 * CPU the half types only where oneDNN runs them). The output has the
 * strides torch's meta/fake convolution gives (contiguous, or channels-last
 * when input or weight is; see docs/shims.md). float32 on CUDA never uses
 * TF32. In a build without CUDA the CUDA one fails with a message. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias,
    const int64_t* stride, int64_t stride_len_, const int64_t* padding,
    int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_,
    int32_t transposed, const int64_t* output_padding,
    int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias,
    const int64_t* stride, int64_t stride_len_, const int64_t* padding,
    int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_,
    int32_t transposed, const int64_t* output_padding,
    int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0);
/* Attention fallbacks: scaled dot-product attention, forward only          */
/* ------------------------------------------------------------------------ */
/* torch 2.11's signatures (generated/c_shim_cuda.h, c_shim_cpu.h). query is
 * [B, H, Lq, E], key [B, Hk, Lk, E], value [B, Hk, Lk, Ev], any strides and
 * offsets, one of float32, float16, bfloat16 (accumulated in float32); Hk
 * may divide H (grouped-query attention). An optional tensor argument
 * (AtenTensorHandle*) is None when null; attn_bias/attn_mask is bool
 * (true = attend) or float (added to the scaled scores) and broadcasts to
 * [B, H, Lq, Lk]. scale null means 1/sqrt(E). dropout_p must be 0 (export
 * in eval mode). Every output is shaped and strided as torch's meta
 * function makes it; a null output pointer skips that output; ret pointers
 * for outputs that are None get a null handle. See docs/shims.md. */
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, double* scale,
    AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda__scaled_dot_product_flash_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p,
    int32_t is_causal, int32_t return_debug_mask, double* scale, AtenTensorHandle* ret0,
    AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3, int64_t* ret4,
    int64_t* ret5, AtenTensorHandle* ret6, AtenTensorHandle* ret7, AtenTensorHandle* ret8);
AOTI_SHIMS_API AOTITorchError aoti_torch_cuda__scaled_dot_product_cudnn_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, int32_t return_debug_mask,
    double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3, int64_t* ret4, int64_t* ret5, AtenTensorHandle* ret6,
    AtenTensorHandle* ret7, AtenTensorHandle* ret8);
AOTI_SHIMS_API AOTITorchError aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p,
    int32_t is_causal, AtenTensorHandle* attn_mask, double* scale, AtenTensorHandle* ret0,
    AtenTensorHandle* ret1);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTI_SHIM_H */
