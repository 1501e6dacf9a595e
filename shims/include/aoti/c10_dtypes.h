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
// shims). Each side keeps its own enum of the codes it handles (the shims
// all of these, the backend the dense numeric ones it converts) and looks
// the rest up here.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_C10_DTYPES_H
#define AOTI_C10_DTYPES_H

#include <cstddef>
#include <cstdint>

namespace aoti::c10_dtypes {

struct DtypeInfo {
  int32_t code;          ///< c10::ScalarType
  const char *name;      ///< torch's name: "float32"
  const char *shortName; ///< "f32", or null where aoti-run takes none
  size_t size;           ///< bytes per element
};

/// Every dtype with a fixed element size (not the quantized ones).
inline constexpr DtypeInfo kDtypes[] = {
    {0, "uint8", "u8", 1},
    {1, "int8", "i8", 1},
    {2, "int16", "i16", 2},
    {3, "int32", "i32", 4},
    {4, "int64", "i64", 8},
    {5, "float16", "f16", 2},
    {6, "float32", "f32", 4},
    {7, "float64", "f64", 8},
    {8, "complex32", nullptr, 4},
    {9, "complex64", nullptr, 8},
    {10, "complex128", nullptr, 16},
    {11, "bool", "b8", 1},
    {15, "bfloat16", "bf16", 2},
    {23, "float8_e5m2", nullptr, 1},
    {24, "float8_e4m3fn", nullptr, 1},
    {25, "float8_e5m2fnuz", nullptr, 1},
    {26, "float8_e4m3fnuz", nullptr, 1},
    {27, "uint16", "u16", 2},
    {28, "uint32", nullptr, 4},
    {29, "uint64", nullptr, 8},
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
