//===- dtype.cpp - Element types, from the shared c10 table ----------------===//
//
// The codes, names and sizes are aoti/c10_dtypes.h's, which the backend reads
// too; this file only turns a missing row into the shims' error.
//
//===----------------------------------------------------------------------===//
#include "dtype.h"

#include "aoti/c10_dtypes.h"

namespace aoti::shims {

using c10_dtypes::DtypeInfo;
using c10_dtypes::findDtype;

Expected<ScalarType> toScalarType(int32_t code) {
  if (const DtypeInfo *info = findDtype(code))
    return static_cast<ScalarType>(info->code);
  return Error::failure("unsupported dtype ", code,
                        " (supported: the codes of aoti_torch_dtype_*)");
}

size_t elementSize(ScalarType type) {
  return findDtype(static_cast<int32_t>(type))->size;
}

const char *dtypeName(ScalarType type) {
  return findDtype(static_cast<int32_t>(type))->name;
}

bool isFloatingType(ScalarType type) {
  return type == ScalarType::Float16 || type == ScalarType::BFloat16 ||
         type == ScalarType::Float32 || type == ScalarType::Float64;
}

bool isAtenIntegralType(ScalarType type) {
  return type == ScalarType::UInt8 || type == ScalarType::Int8 ||
         type == ScalarType::Int16 || type == ScalarType::Int32 ||
         type == ScalarType::Int64;
}

bool isBarebonesUnsignedType(ScalarType type) {
  return type == ScalarType::UInt16 || type == ScalarType::UInt32 ||
         type == ScalarType::UInt64;
}

} // namespace aoti::shims
