//===- ops/cpu/element.h - Element types of the CPU op kernels -------------===//
//
// A CPU kernel is a template over the C++ type of its elements; visitDtype()
// turns a tensor's ScalarType into that type once, outside the loops:
//
//   return visitDtype(self.dtype(), "topk", [&]<typename T>() {
//     return topkRows<T>(...);
//   });
//
// The 16-bit floating types have no C++ arithmetic type here, so they are
// structs of their bits (Half, BHalf) that a kernel reads and writes through
// load() and store(), which compute in float (torch's CPU kernels compute
// them in float too). bool is Bool, its byte: any non-zero byte is true,
// which reading it as a C++ bool would not promise. Compute<T> is the type
// load() returns: float for the 16-bit floats, bool for Bool, T otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CPU_ELEMENT_H
#define AOTI_SHIMS_OPS_CPU_ELEMENT_H

#include "dtype.h"
#include "error.h"
#include "ops/cpu/float16.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace aoti::shims::ops::cpu {

struct Half {
  uint16_t bits;
};
struct BHalf {
  uint16_t bits;
};
struct Bool {
  uint8_t byte;
};

template <typename T> struct ComputeOf {
  using type = T;
};
template <> struct ComputeOf<Half> {
  using type = float;
};
template <> struct ComputeOf<BHalf> {
  using type = float;
};
template <> struct ComputeOf<Bool> {
  using type = bool;
};
template <typename T> using Compute = typename ComputeOf<T>::type;

template <typename T> constexpr bool kIsFloating =
    std::is_floating_point_v<Compute<T>>;

template <typename T> inline Compute<T> load(const T &x) {
  if constexpr (std::is_same_v<T, Half>)
    return float16ToFloat(x.bits);
  else if constexpr (std::is_same_v<T, BHalf>)
    return bfloat16ToFloat(x.bits);
  else if constexpr (std::is_same_v<T, Bool>)
    return x.byte != 0;
  else
    return x;
}

/// `value` as element type T: rounded to nearest even for the 16-bit floats,
/// true as 1 for Bool, otherwise a C++ conversion (a floating value becomes
/// an unsigned integer through int64, as c10 converts, so negative values
/// wrap instead of being undefined).
template <typename T, typename V> inline T store(V value) {
  if constexpr (std::is_same_v<T, Half>)
    return Half{floatToFloat16(static_cast<float>(value))};
  else if constexpr (std::is_same_v<T, BHalf>)
    return BHalf{floatToBFloat16(static_cast<float>(value))};
  else if constexpr (std::is_same_v<T, Bool>)
    return Bool{static_cast<uint8_t>(value != V(0) ? 1 : 0)};
  else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<V>)
    return static_cast<T>(static_cast<int64_t>(value));
  else
    return static_cast<T>(value);
}

/// NaN test that is false for every non-floating type.
template <typename V> inline bool isNan(V value) {
  if constexpr (std::is_floating_point_v<V>)
    return std::isnan(value);
  else
    return false;
}

/// Calls `visitor.template operator()<T>()` with T the element type of
/// `type`, and returns what it returns (an Error). A dtype without an
/// element type here (complex, float8) is a failure naming `op`.
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
    return visitor.template operator()<Half>();
  case ScalarType::BFloat16:
    return visitor.template operator()<BHalf>();
  case ScalarType::Float32:
    return visitor.template operator()<float>();
  case ScalarType::Float64:
    return visitor.template operator()<double>();
  default:
    return Error::failure(op, " has no CPU kernel for ", dtypeName(type));
  }
}

} // namespace aoti::shims::ops::cpu

#endif // AOTI_SHIMS_OPS_CPU_ELEMENT_H
