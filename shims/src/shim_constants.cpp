//===- shim_constants.cpp - dtype, device type and layout getters ----------===//
//
// Models call these during dlopen (their static initialisers cache the
// values), so they must not depend on anything being set up.
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include "dtype.h"
#include "error.h"

using aoti::shims::DeviceType;
using aoti::shims::Layout;
using aoti::shims::ScalarType;

namespace {
template <typename Enum> constexpr int32_t code(Enum value) {
  return static_cast<int32_t>(value);
}
} // namespace

extern "C" {

int32_t aoti_torch_device_type_cpu(void) { return code(DeviceType::CPU); }
int32_t aoti_torch_device_type_cuda(void) { return code(DeviceType::CUDA); }
int32_t aoti_torch_device_type_meta(void) { return code(DeviceType::Meta); }
int32_t aoti_torch_device_type_xpu(void) { return code(DeviceType::XPU); }
int32_t aoti_torch_device_type_mps(void) { return code(DeviceType::MPS); }
int32_t aoti_torch_device_type_privateuse1(void) {
  return code(DeviceType::PrivateUse1);
}

int32_t aoti_torch_dtype_uint8(void) { return code(ScalarType::UInt8); }
int32_t aoti_torch_dtype_int8(void) { return code(ScalarType::Int8); }
int32_t aoti_torch_dtype_int16(void) { return code(ScalarType::Int16); }
int32_t aoti_torch_dtype_int32(void) { return code(ScalarType::Int32); }
int32_t aoti_torch_dtype_int64(void) { return code(ScalarType::Int64); }
int32_t aoti_torch_dtype_float16(void) { return code(ScalarType::Float16); }
int32_t aoti_torch_dtype_float32(void) { return code(ScalarType::Float32); }
int32_t aoti_torch_dtype_float64(void) { return code(ScalarType::Float64); }
int32_t aoti_torch_dtype_complex32(void) { return code(ScalarType::Complex32); }
int32_t aoti_torch_dtype_complex64(void) { return code(ScalarType::Complex64); }
int32_t aoti_torch_dtype_complex128(void) {
  return code(ScalarType::Complex128);
}
int32_t aoti_torch_dtype_bool(void) { return code(ScalarType::Bool); }
int32_t aoti_torch_dtype_bfloat16(void) { return code(ScalarType::BFloat16); }
int32_t aoti_torch_dtype_float8_e5m2(void) {
  return code(ScalarType::Float8_e5m2);
}
int32_t aoti_torch_dtype_float8_e4m3fn(void) {
  return code(ScalarType::Float8_e4m3fn);
}
int32_t aoti_torch_dtype_float8_e5m2fnuz(void) {
  return code(ScalarType::Float8_e5m2fnuz);
}
int32_t aoti_torch_dtype_float8_e4m3fnuz(void) {
  return code(ScalarType::Float8_e4m3fnuz);
}
int32_t aoti_torch_dtype_uint16(void) { return code(ScalarType::UInt16); }
int32_t aoti_torch_dtype_uint32(void) { return code(ScalarType::UInt32); }
int32_t aoti_torch_dtype_uint64(void) { return code(ScalarType::UInt64); }

size_t aoti_torch_dtype_element_size(int32_t dtype) {
  size_t size = 0;
  aoti::shims::runShim("aoti_torch_dtype_element_size", [&] {
    aoti::shims::Expected<ScalarType> type = aoti::shims::toScalarType(dtype);
    if (!type)
      return type.takeError();
    size = aoti::shims::elementSize(*type);
    return aoti::shims::Error::success();
  });
  return size;
}

int32_t aoti_torch_layout_strided(void) { return code(Layout::Strided); }
int32_t aoti_torch_layout_sparse_coo(void) { return code(Layout::SparseCoo); }
int32_t aoti_torch_layout_sparse_csr(void) { return code(Layout::SparseCsr); }
int32_t aoti_torch_layout__mkldnn(void) { return code(Layout::Mkldnn); }
int32_t aoti_torch_layout_sparse_csc(void) { return code(Layout::SparseCsc); }
int32_t aoti_torch_layout_sparse_bsr(void) { return code(Layout::SparseBsr); }
int32_t aoti_torch_layout_sparse_bsc(void) { return code(Layout::SparseBsc); }
int32_t aoti_torch_layout_jagged(void) { return code(Layout::Jagged); }

} // extern "C"
