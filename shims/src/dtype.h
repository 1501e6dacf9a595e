//===- dtype.h - Element types, devices and layouts -------------------------===//
//
// The integer values are c10's (c10::ScalarType, c10::DeviceType,
// c10::Layout): a compiled model caches them from the constant getters and
// passes them back, so they must agree with what torch's codegen assumes.
// ScalarType names exactly the rows of aoti/c10_dtypes.h, where the sizes
// and names are (shared with the backend).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_DTYPE_H
#define AOTI_SHIMS_DTYPE_H

#include "error.h"

#include <cstddef>
#include <cstdint>

namespace aoti::shims {

enum class ScalarType : int32_t {
  UInt8 = 0,
  Int8 = 1,
  Int16 = 2,
  Int32 = 3,
  Int64 = 4,
  Float16 = 5,
  Float32 = 6,
  Float64 = 7,
  Complex32 = 8,
  Complex64 = 9,
  Complex128 = 10,
  Bool = 11,
  BFloat16 = 15,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

enum class DeviceType : int32_t {
  CPU = 0,
  CUDA = 1,
  XPU = 12,
  MPS = 13,
  Meta = 14,
  PrivateUse1 = 20,
};

enum class Layout : int32_t {
  Strided = 0,
  SparseCoo = 1,
  SparseCsr = 2,
  Mkldnn = 3,
  SparseCsc = 4,
  SparseBsr = 5,
  SparseBsc = 6,
  Jagged = 7,
};

/// The dtype named by `code`, if this library can hold tensors of it (every
/// dtype with a fixed element size; not the quantized ones).
Expected<ScalarType> toScalarType(int32_t code);

/// Bytes per element.
size_t elementSize(ScalarType type);

/// The torch name, e.g. "float32", for messages.
const char *dtypeName(ScalarType type);

// Classes of dtypes, named as ATen's dispatch macros name them; an op's own
// list (its AT_DISPATCH_* line) is built from these.

/// float16, bfloat16, float32, float64: the floating dtypes the shims
/// compute in (not complex, not float8).
bool isFloatingType(ScalarType type);
/// uint8, int8, int16, int32, int64: ATen's AT_INTEGRAL_TYPES.
bool isAtenIntegralType(ScalarType type);
/// uint16, uint32, uint64: c10's "barebones" unsigned types, which few
/// kernels take.
bool isBarebonesUnsignedType(ScalarType type);

} // namespace aoti::shims

#endif // AOTI_SHIMS_DTYPE_H
