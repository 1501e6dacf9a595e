//===- ops/cuda/element.cuh - Element types and launches of CUDA op kernels ===//
//
// The CUDA half of ops/cpu/element.h, for ops/cuda/*.cu: visitDtype() turns
// a ScalarType into the kernel's element type on the host, once per call,
// with the CUDA types of the 16-bit floats (__half, __nv_bfloat16) and Bool
// (a byte; any non-zero byte is true). load() widens an element to
// Compute<T> (float for the 16-bit floats), store() narrows back with
// round-to-nearest-even.
//
// OnStream is where a family's kernels run: the tensor's device made
// current for the call's duration, and that device's current stream (the
// one a model's stream guard set; cuda_api.h). blocksFor() (cuda/grid.h)
// sizes a grid-stride launch.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_ELEMENT_CUH
#define AOTI_SHIMS_OPS_CUDA_ELEMENT_CUH

#include "cuda/device_scope.h"
#include "cuda/grid.h"
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace aoti::shims::ops::cuda {

struct Bool {
  unsigned char byte;
};

template <typename T> struct ComputeOf {
  using type = T;
};
template <> struct ComputeOf<__half> {
  using type = float;
};
template <> struct ComputeOf<__nv_bfloat16> {
  using type = float;
};
template <> struct ComputeOf<Bool> {
  using type = bool;
};
template <typename T> using Compute = typename ComputeOf<T>::type;

template <typename T> __host__ __device__ inline Compute<T> load(const T &x) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(x);
  else if constexpr (std::is_same_v<T, Bool>)
    return x.byte != 0;
  else
    return x;
}

/// As ops/cpu/element.h's store().
template <typename T, typename V> __host__ __device__ inline T store(V value) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(static_cast<float>(value));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(value));
  else if constexpr (std::is_same_v<T, Bool>)
    return Bool{static_cast<unsigned char>(value != V(0) ? 1 : 0)};
  else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<V>)
    return static_cast<T>(static_cast<long long>(value));
  else
    return static_cast<T>(value);
}

template <typename V> __host__ __device__ inline bool isNan(V value) {
  if constexpr (std::is_floating_point_v<V>)
    return value != value;
  else
    return false;
}

/// As ops/cpu/element.h's visitDtype(), with the CUDA element types.
template <typename Visitor>
Error visitDtype(ScalarType type, const char *op, Visitor &&visitor) {
  switch (type) {
  case ScalarType::Bool:
    return visitor.template operator()<Bool>();
  case ScalarType::UInt8:
    return visitor.template operator()<uint8_t>();
  case ScalarType::Int8:
    return visitor.template operator()<int8_t>();
  case ScalarType::Int16:
    return visitor.template operator()<int16_t>();
  case ScalarType::Int32:
    return visitor.template operator()<int32_t>();
  case ScalarType::Int64:
    return visitor.template operator()<int64_t>();
  case ScalarType::UInt16:
    return visitor.template operator()<uint16_t>();
  case ScalarType::UInt32:
    return visitor.template operator()<uint32_t>();
  case ScalarType::UInt64:
    return visitor.template operator()<uint64_t>();
  case ScalarType::Float16:
    return visitor.template operator()<__half>();
  case ScalarType::BFloat16:
    return visitor.template operator()<__nv_bfloat16>();
  case ScalarType::Float32:
    return visitor.template operator()<float>();
  case ScalarType::Float64:
    return visitor.template operator()<double>();
  default:
    return Error::failure(op, " has no CUDA kernel for ", dtypeName(type));
  }
}

/// The device of `tensor` made current, and its current stream.
class OnStream {
public:
  explicit OnStream(const Tensor &tensor)
      : device_(tensor.device().index), scope_(device_),
        stream_(static_cast<cudaStream_t>(shims::cuda::currentStream(device_))) {}
  /// The outcome of making the device current; call once, before launching.
  Error takeStatus() { return scope_.takeStatus(); }
  cudaStream_t stream() const { return stream_; }
  int32_t device() const { return device_; }
  /// The launch just enqueued, or the failure that stopped it.
  Error launched(const char *kernel) const {
    return shims::cuda::checkCuda(cudaGetLastError(), kernel);
  }

private:
  int32_t device_;
  shims::cuda::ScopedDevice scope_;
  cudaStream_t stream_;
};

// Grid-stride launches (cuda/grid.h).
using shims::cuda::blocksFor;
using shims::cuda::kThreadsPerBlock;

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_ELEMENT_CUH
