//===- Tensor.cpp - Element types and host tensors ------------------------===//
#include "aoti/backend/Tensor.h"

#include "aoti/c10_dtypes.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace aoti::backend {

namespace {
using c10_dtypes::DtypeInfo;
using c10_dtypes::findDtype;

/// The dtypes the backend reads, writes and converts (the enumerators of
/// DType); their codes, names and sizes are the shared table's.
constexpr DType Handled[] = {
    DType::UInt8,   DType::Int8,    DType::Int16,   DType::Int32,
    DType::Int64,   DType::Float16, DType::Float32, DType::Float64,
    DType::Bool,    DType::BFloat16, DType::UInt16,
};

// DType's codes are aoti/c10_dtypes.h's ScalarType, repeated because
// aoti/backend/Tensor.h is public and does not include that header: each
// must be the code of the enumerator of the same name (which has a row).
constexpr bool isC10(DType T, c10_dtypes::ScalarType C) {
  return static_cast<int32_t>(T) == c10_dtypes::codeOf(C);
}
static_assert(isC10(DType::UInt8, c10_dtypes::ScalarType::UInt8) &&
                  isC10(DType::Int8, c10_dtypes::ScalarType::Int8) &&
                  isC10(DType::Int16, c10_dtypes::ScalarType::Int16) &&
                  isC10(DType::Int32, c10_dtypes::ScalarType::Int32) &&
                  isC10(DType::Int64, c10_dtypes::ScalarType::Int64) &&
                  isC10(DType::Float16, c10_dtypes::ScalarType::Float16) &&
                  isC10(DType::Float32, c10_dtypes::ScalarType::Float32) &&
                  isC10(DType::Float64, c10_dtypes::ScalarType::Float64) &&
                  isC10(DType::Bool, c10_dtypes::ScalarType::Bool) &&
                  isC10(DType::BFloat16, c10_dtypes::ScalarType::BFloat16) &&
                  isC10(DType::UInt16, c10_dtypes::ScalarType::UInt16),
              "DType's codes are c10's, as aoti/c10_dtypes.h names them");

const DtypeInfo &info(DType T) {
  if (const DtypeInfo *I = findDtype(static_cast<int32_t>(T)))
    return *I;
  return c10_dtypes::kDtypes[0]; // unreachable for valid enumerators
}
} // namespace

std::optional<DType> dtypeFromCode(int32_t Code) {
  for (DType T : Handled)
    if (static_cast<int32_t>(T) == Code)
      return T;
  return std::nullopt;
}

std::string_view dtypeName(DType T) { return info(T).name; }
size_t elementSize(DType T) { return info(T).size; }

std::optional<DType> parseDType(std::string_view Name) {
  for (DType T : Handled) {
    const DtypeInfo &I = info(T);
    if (I.name == Name || (I.shortName && I.shortName == Name))
      return T;
  }
  return std::nullopt;
}

bool isFloatingPoint(DType T) {
  return T == DType::Float16 || T == DType::Float32 || T == DType::Float64 ||
         T == DType::BFloat16;
}

std::optional<int64_t> numelOf(const std::vector<int64_t> &Shape) {
  int64_t N = 1;
  for (int64_t D : Shape) {
    if (D < 0)
      return std::nullopt;
    if (D != 0 && N > std::numeric_limits<int64_t>::max() / D)
      return std::nullopt;
    N *= D;
  }
  return N;
}

std::string shapeString(const std::vector<int64_t> &Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    S += std::to_string(Shape[I]);
  }
  return S + "]";
}

HostTensor::HostTensor(DType T, std::vector<int64_t> Dims)
    : Type(T), Shape(std::move(Dims)) {
  Data.resize(static_cast<size_t>(numelOf(Shape).value_or(0)) * elementSize(Type));
}

int64_t HostTensor::numel() const { return numelOf(Shape).value_or(0); }

// bfloat16 is the high half of a float32; rounding to nearest even keeps the
// sign and turns NaN payloads that would round to infinity into a quiet NaN.
uint16_t floatToBFloat16(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  if (std::isnan(F))
    return static_cast<uint16_t>((U >> 16) | 0x40);
  U += 0x7FFF + ((U >> 16) & 1);
  return static_cast<uint16_t>(U >> 16);
}

float bfloat16ToFloat(uint16_t B) {
  return std::bit_cast<float>(static_cast<uint32_t>(B) << 16);
}

uint16_t floatToHalf(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  uint32_t Sign = (U >> 16) & 0x8000;
  uint32_t Abs = U & 0x7FFFFFFF;
  if (Abs >= 0x7F800000) // inf or NaN
    return static_cast<uint16_t>(Sign | 0x7C00 | (Abs > 0x7F800000 ? 0x200 : 0));
  if (Abs >= 0x477FF000) // rounds to >= 65520: overflow to infinity
    return static_cast<uint16_t>(Sign | 0x7C00);
  if (Abs < 0x38800000) { // below the smallest normal half: subnormal or 0
    // Scale into the subnormal range with a float add, which rounds to
    // nearest even for us: 0.5f has its ulp at 2^-24, the half subnormal ulp.
    float Shifted = std::bit_cast<float>(Abs) + 0.5f;
    return static_cast<uint16_t>(Sign | (std::bit_cast<uint32_t>(Shifted) - 0x3F000000));
  }
  uint32_t Mant = Abs + 0xC8000FFF + ((Abs >> 13) & 1); // rebias, round
  return static_cast<uint16_t>(Sign | (Mant >> 13));
}

float halfToFloat(uint16_t H) {
  uint32_t Sign = static_cast<uint32_t>(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1F;
  uint32_t Mant = H & 0x3FF;
  if (Exp == 0x1F)
    return std::bit_cast<float>(Sign | 0x7F800000 | (Mant << 13));
  if (Exp == 0) {
    float F = std::ldexp(static_cast<float>(Mant), -24);
    return Sign ? -F : F;
  }
  return std::bit_cast<float>(Sign | ((Exp + 112) << 23) | (Mant << 13));
}

double HostTensor::valueAt(int64_t I) const {
  switch (Type) {
  case DType::UInt8: return data<uint8_t>()[I];
  case DType::Int8: return data<int8_t>()[I];
  case DType::Int16: return data<int16_t>()[I];
  case DType::UInt16: return data<uint16_t>()[I];
  case DType::Int32: return data<int32_t>()[I];
  case DType::Int64: return static_cast<double>(data<int64_t>()[I]);
  case DType::Float16: return halfToFloat(data<uint16_t>()[I]);
  case DType::BFloat16: return bfloat16ToFloat(data<uint16_t>()[I]);
  case DType::Float32: return data<float>()[I];
  case DType::Float64: return data<double>()[I];
  case DType::Bool: return data<uint8_t>()[I] ? 1.0 : 0.0;
  }
  return 0;
}

Expected<HostTensor> convert(const HostTensor &T, DType To) {
  if (T.Type == To)
    return T;
  if (!isFloatingPoint(T.Type) || !isFloatingPoint(To))
    return Error(ErrorKind::InvalidArgument,
                 "cannot convert " + std::string(dtypeName(T.Type)) + " to " +
                     std::string(dtypeName(To)) +
                     ": only floating-point types convert");
  HostTensor R(To, T.Shape);
  const int64_t N = T.numel();
  for (int64_t I = 0; I < N; ++I) {
    double V = T.valueAt(I);
    switch (To) {
    case DType::Float64: R.data<double>()[I] = V; break;
    case DType::Float32: R.data<float>()[I] = static_cast<float>(V); break;
    case DType::BFloat16:
      R.data<uint16_t>()[I] = floatToBFloat16(static_cast<float>(V));
      break;
    case DType::Float16:
      R.data<uint16_t>()[I] = floatToHalf(static_cast<float>(V));
      break;
    default: break;
    }
  }
  return R;
}

} // namespace aoti::backend
