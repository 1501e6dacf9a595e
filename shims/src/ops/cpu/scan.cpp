//===- ops/cpu/scan.cpp - cumsum on the host -------------------------------===//
//
// Our own loops: no library we use (OpenBLAS, oneDNN) has a strided prefix
// sum over arbitrary dtypes. Each line (see ops/scan.h) is summed in order,
// from its first element to its last, exactly as ATen's CPU kernel does:
//   acc = 0; for j: acc += Out(self[j]); out[j] = Out(acc)
// where Out(x) converts to the result dtype first (ATen sums
// self.to(result dtype)) and acc has torch's CPU accumulation type for the
// result dtype: double for float32 and float64, float for float16 and
// bfloat16 (ops/cpu/float16.h converts), int64 for the integer types
// (wrapping on overflow, as two's complement does in ATen). Same order and
// same accumulator: results equal torch's CPU cumsum bit for bit.
//
// The input dtype and the result dtype are both template parameters, so
// the inner loop has no per-element dispatch.
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "ops/cpu/float16.h"

#include <cstdint>
#include <type_traits>

namespace aoti::shims::ops::cpu {
namespace {

// The two 16-bit float types, by their bits, and bool by its byte (any
// non-zero byte is true; reading it as a C++ bool would assume 0 or 1).
struct Half {
  uint16_t bits;
};
struct BHalf {
  uint16_t bits;
};
struct Bool8 {
  uint8_t byte;
};

// Element value as a C++ arithmetic type.
template <typename T> auto widen(T x) {
  if constexpr (std::is_same_v<T, Half>)
    return float16ToFloat(x.bits);
  else if constexpr (std::is_same_v<T, BHalf>)
    return bfloat16ToFloat(x.bits);
  else if constexpr (std::is_same_v<T, Bool8>)
    return x.byte != 0;
  else
    return x;
}

// An arithmetic value converted to element type Out, as c10's conversions do
// (a floating value becomes an unsigned integer through int64, so negative
// values wrap instead of being undefined).
template <typename Out, typename V> Out narrow(V v) {
  if constexpr (std::is_same_v<Out, Half>)
    return Half{floatToFloat16(static_cast<float>(v))};
  else if constexpr (std::is_same_v<Out, BHalf>)
    return BHalf{floatToBFloat16(static_cast<float>(v))};
  else if constexpr (std::is_integral_v<Out> && std::is_floating_point_v<V>)
    return static_cast<Out>(static_cast<int64_t>(v));
  else
    return static_cast<Out>(v);
}

// torch's CPU accumulation type of a result dtype.
template <typename Out> struct Accumulator {
  using type = int64_t;
};
template <> struct Accumulator<float> {
  using type = double;
};
template <> struct Accumulator<double> {
  using type = double;
};
template <> struct Accumulator<Half> {
  using type = float;
};
template <> struct Accumulator<BHalf> {
  using type = float;
};

template <typename Acc, typename V> Acc add(Acc acc, V value) {
  if constexpr (std::is_integral_v<Acc>)
    return static_cast<Acc>(static_cast<uint64_t>(acc) +
                            static_cast<uint64_t>(static_cast<Acc>(value)));
  else
    return acc + static_cast<Acc>(value);
}

template <typename In, typename Out>
Error scanLines(const Tensor &out, const Tensor &self, const ScanLines &l) {
  using Acc = typename Accumulator<Out>::type;
  const In *src = static_cast<const In *>(self.data());
  Out *dst = static_cast<Out *>(out.data());
  const size_t outer = l.outerSizes.size();
  std::vector<int64_t> index(outer, 0);
  int64_t srcLine = 0, dstLine = 0;
  for (int64_t line = 0; line < l.lines; ++line) {
    Acc acc = 0;
    for (int64_t j = 0; j < l.length; ++j) {
      const Out value = narrow<Out>(widen(src[srcLine + j * l.selfStride]));
      acc = add(acc, widen(value));
      dst[dstLine + j * l.outStride] = narrow<Out>(acc);
    }
    // Next line: an odometer over the outer dimensions.
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < l.outerSizes[d]) {
        srcLine += l.selfOuterStrides[d];
        dstLine += l.outOuterStrides[d];
        break;
      }
      srcLine -= (l.outerSizes[d] - 1) * l.selfOuterStrides[d];
      dstLine -= (l.outerSizes[d] - 1) * l.outOuterStrides[d];
      index[d] = 0;
    }
  }
  return Error::success();
}

template <typename In>
Error scanFrom(const Tensor &out, const Tensor &self, const ScanLines &l) {
  switch (out.dtype()) {
  case ScalarType::UInt8:
    return scanLines<In, uint8_t>(out, self, l);
  case ScalarType::Int8:
    return scanLines<In, int8_t>(out, self, l);
  case ScalarType::Int16:
    return scanLines<In, int16_t>(out, self, l);
  case ScalarType::Int32:
    return scanLines<In, int32_t>(out, self, l);
  case ScalarType::Int64:
    return scanLines<In, int64_t>(out, self, l);
  case ScalarType::Float16:
    return scanLines<In, Half>(out, self, l);
  case ScalarType::BFloat16:
    return scanLines<In, BHalf>(out, self, l);
  case ScalarType::Float32:
    return scanLines<In, float>(out, self, l);
  case ScalarType::Float64:
    return scanLines<In, double>(out, self, l);
  default:
    return Error::failure("cumsum cannot produce ", dtypeName(out.dtype()));
  }
}

} // namespace

Error cumsum(const Tensor &out, const Tensor &self, const ScanLines &lines) {
  switch (self.dtype()) {
  case ScalarType::Bool:
    return scanFrom<Bool8>(out, self, lines);
  case ScalarType::UInt8:
    return scanFrom<uint8_t>(out, self, lines);
  case ScalarType::Int8:
    return scanFrom<int8_t>(out, self, lines);
  case ScalarType::Int16:
    return scanFrom<int16_t>(out, self, lines);
  case ScalarType::Int32:
    return scanFrom<int32_t>(out, self, lines);
  case ScalarType::Int64:
    return scanFrom<int64_t>(out, self, lines);
  case ScalarType::UInt16:
    return scanFrom<uint16_t>(out, self, lines);
  case ScalarType::UInt32:
    return scanFrom<uint32_t>(out, self, lines);
  case ScalarType::UInt64:
    return scanFrom<uint64_t>(out, self, lines);
  case ScalarType::Float16:
    return scanFrom<Half>(out, self, lines);
  case ScalarType::BFloat16:
    return scanFrom<BHalf>(out, self, lines);
  case ScalarType::Float32:
    return scanFrom<float>(out, self, lines);
  case ScalarType::Float64:
    return scanFrom<double>(out, self, lines);
  default:
    return Error::failure("cumsum cannot read ", dtypeName(self.dtype()));
  }
}

} // namespace aoti::shims::ops::cpu
