//===- dtype.cpp - Element type table --------------------------------------===//
#include "dtype.h"

namespace aoti::shims {
namespace {

struct DtypeInfo {
  ScalarType type;
  size_t size;
  const char *name;
};

constexpr DtypeInfo kDtypes[] = {
    {ScalarType::UInt8, 1, "uint8"},
    {ScalarType::Int8, 1, "int8"},
    {ScalarType::Int16, 2, "int16"},
    {ScalarType::Int32, 4, "int32"},
    {ScalarType::Int64, 8, "int64"},
    {ScalarType::Float16, 2, "float16"},
    {ScalarType::Float32, 4, "float32"},
    {ScalarType::Float64, 8, "float64"},
    {ScalarType::Complex32, 4, "complex32"},
    {ScalarType::Complex64, 8, "complex64"},
    {ScalarType::Complex128, 16, "complex128"},
    {ScalarType::Bool, 1, "bool"},
    {ScalarType::BFloat16, 2, "bfloat16"},
    {ScalarType::Float8_e5m2, 1, "float8_e5m2"},
    {ScalarType::Float8_e4m3fn, 1, "float8_e4m3fn"},
    {ScalarType::Float8_e5m2fnuz, 1, "float8_e5m2fnuz"},
    {ScalarType::Float8_e4m3fnuz, 1, "float8_e4m3fnuz"},
    {ScalarType::UInt16, 2, "uint16"},
    {ScalarType::UInt32, 4, "uint32"},
    {ScalarType::UInt64, 8, "uint64"},
};

const DtypeInfo *find(int32_t code) {
  for (const DtypeInfo &info : kDtypes)
    if (static_cast<int32_t>(info.type) == code)
      return &info;
  return nullptr;
}

} // namespace

Expected<ScalarType> toScalarType(int32_t code) {
  if (const DtypeInfo *info = find(code))
    return info->type;
  return Error::failure("unsupported dtype ", code,
                        " (supported: the codes of aoti_torch_dtype_*)");
}

size_t elementSize(ScalarType type) {
  return find(static_cast<int32_t>(type))->size;
}

const char *dtypeName(ScalarType type) {
  return find(static_cast<int32_t>(type))->name;
}

} // namespace aoti::shims
