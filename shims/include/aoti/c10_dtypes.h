//===- c10_dtypes.h - c10's element types: code, name, size -----*- C++ -*-===//
//
// The one table of the c10::ScalarType codes this project knows: the code a
// model gets from aoti_torch_dtype_<name>() and compares its tensors against,
// torch's name for it, a short spelling for command lines and the element
// size. The shims answer the dtype getters, aoti_torch_dtype_element_size
// and every dtype message from it; the backend (aoti-run) names, sizes and
// parses the dtypes of the tensors it reads and writes with it.
//
// It is a header of constexpr data, installed with the shims' C header,
// rather than a library: the backend links the shims and already compiles
// against their include directory, so the table adds no target to build,
// export or install, and the dependency keeps its one direction (backend ->
// shims). The codes are written once, as the enumerators of ScalarType; the
// rows name them. The shims' ScalarType is this enum; the backend's DType
// (aoti/backend/Tensor.h, a public header that does not include this one)
// lists the dense numeric subset it converts, and backend/lib checks each of
// its codes against the enumerator of the same name here.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_C10_DTYPES_H
#define AOTI_C10_DTYPES_H

#include <cstddef>
#include <cstdint>

namespace aoti::c10_dtypes {

/// c10::ScalarType: every dtype with a fixed element size (not the quantized
/// ones), by torch's C++ name.
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

/// The code of `type`, as the C ABI passes it.
constexpr int32_t codeOf(ScalarType type) { return static_cast<int32_t>(type); }

struct DtypeInfo {
  int32_t code;          ///< c10::ScalarType
  const char *name;      ///< torch's name: "float32"
  const char *shortName; ///< "f32", or null where aoti-run takes none
  size_t size;           ///< bytes per element
};

/// A row for every enumerator of ScalarType, in the order of their codes.
inline constexpr DtypeInfo kDtypes[] = {
    {codeOf(ScalarType::UInt8), "uint8", "u8", 1},
    {codeOf(ScalarType::Int8), "int8", "i8", 1},
    {codeOf(ScalarType::Int16), "int16", "i16", 2},
    {codeOf(ScalarType::Int32), "int32", "i32", 4},
    {codeOf(ScalarType::Int64), "int64", "i64", 8},
    {codeOf(ScalarType::Float16), "float16", "f16", 2},
    {codeOf(ScalarType::Float32), "float32", "f32", 4},
    {codeOf(ScalarType::Float64), "float64", "f64", 8},
    {codeOf(ScalarType::Complex32), "complex32", nullptr, 4},
    {codeOf(ScalarType::Complex64), "complex64", nullptr, 8},
    {codeOf(ScalarType::Complex128), "complex128", nullptr, 16},
    {codeOf(ScalarType::Bool), "bool", "b8", 1},
    {codeOf(ScalarType::BFloat16), "bfloat16", "bf16", 2},
    {codeOf(ScalarType::Float8_e5m2), "float8_e5m2", nullptr, 1},
    {codeOf(ScalarType::Float8_e4m3fn), "float8_e4m3fn", nullptr, 1},
    {codeOf(ScalarType::Float8_e5m2fnuz), "float8_e5m2fnuz", nullptr, 1},
    {codeOf(ScalarType::Float8_e4m3fnuz), "float8_e4m3fnuz", nullptr, 1},
    {codeOf(ScalarType::UInt16), "uint16", "u16", 2},
    {codeOf(ScalarType::UInt32), "uint32", nullptr, 4},
    {codeOf(ScalarType::UInt64), "uint64", nullptr, 8},
};

/// The row for `code`, or null when the table has none.
constexpr const DtypeInfo *findDtype(int32_t code) {
  for (const DtypeInfo &info : kDtypes)
    if (info.code == code)
      return &info;
  return nullptr;
}

} // namespace aoti::c10_dtypes

#endif // AOTI_C10_DTYPES_H
