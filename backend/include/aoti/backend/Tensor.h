//===- Tensor.h - Element types and host tensors ----------------*- C++ -*-===//
//
// DType carries torch's ScalarType codes, which are what the aoti_torch_dtype_*
// getters return and what a model compares its inputs against. HostTensor is a
// dense, C-order array in host memory: what .npy files hold and what the
// backend uploads to and downloads from the device.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_TENSOR_H
#define AOTI_BACKEND_TENSOR_H

#include "aoti/backend/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoti::backend {

enum class DType : int32_t {
  UInt8 = 0,
  Int8 = 1,
  Int16 = 2,
  Int32 = 3,
  Int64 = 4,
  Float16 = 5,
  Float32 = 6,
  Float64 = 7,
  Bool = 11,
  BFloat16 = 15,
  UInt16 = 27,
};

/// The DType for a torch ScalarType code, if the backend handles it.
std::optional<DType> dtypeFromCode(int32_t Code);
/// "float32", "bfloat16", ... (torch's names).
std::string_view dtypeName(DType T);
/// Parses a torch name ("float32") or a short one ("f32", "bf16", "i64").
std::optional<DType> parseDType(std::string_view Name);
size_t elementSize(DType T);
bool isFloatingPoint(DType T);

/// What is known about a tensor: a name, and where known a dtype and shape
/// (-1 for a dynamic dimension).
struct TensorSpec {
  std::string Name;
  std::optional<DType> Type;
  std::optional<std::vector<int64_t>> Shape;
};

/// A dense C-order tensor in host memory.
struct HostTensor {
  DType Type = DType::Float32;
  std::vector<int64_t> Shape;
  std::vector<std::byte> Data;

  HostTensor() = default;
  HostTensor(DType T, std::vector<int64_t> Dims);

  int64_t numel() const;
  size_t byteSize() const { return Data.size(); }
  template <typename T> T *data() { return reinterpret_cast<T *>(Data.data()); }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(Data.data());
  }
  /// Element I converted to double (bool as 0/1; 16-bit floats widened).
  double valueAt(int64_t I) const;
};

/// Number of elements of a shape; nullopt when a dimension is negative or
/// the product overflows.
std::optional<int64_t> numelOf(const std::vector<int64_t> &Shape);
/// "[2, 3, 4]".
std::string shapeString(const std::vector<int64_t> &Shape);

/// Converts between floating-point types (float32 <-> bfloat16/float16/
/// float64), rounding to nearest even. Other conversions are refused.
Expected<HostTensor> convert(const HostTensor &T, DType To);

uint16_t floatToBFloat16(float F);
float bfloat16ToFloat(uint16_t B);
uint16_t floatToHalf(float F);
float halfToFloat(uint16_t H);

} // namespace aoti::backend

#endif
