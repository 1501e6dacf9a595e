//===- dtype.h - Element types, devices and layouts -------------------------===//
//
// The integer values are c10's (c10::ScalarType, c10::DeviceType,
// c10::Layout): a compiled model caches them from the constant getters and
// passes them back, so they must agree with what torch's codegen assumes.
// ScalarType is aoti/c10_dtypes.h's, whose rows give each code's size and
// name (shared with the backend).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_DTYPE_H
#define AOTI_SHIMS_DTYPE_H

#include "error.h"

#include "aoti/c10_dtypes.h"

#include <cstddef>
#include <cstdint>

namespace aoti::shims {

// c10::ScalarType, with the table of its names and sizes (aoti/c10_dtypes.h).
using c10_dtypes::ScalarType;

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
