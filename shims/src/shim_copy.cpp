//===- shim_copy.cpp - clone, copy_ and item -------------------------------===//
#include "aoti/shim.h"

#include "copy.h"
#include "cuda_api.h"
#include "error.h"
#include "tensor.h"

#include <cstring>
#include <type_traits>

using namespace aoti::shims;

namespace {

// Reads the one element of a one-element tensor of dtype `expected`.
template <typename T>
Error readItem(AtenTensorHandle handle, ScalarType expected, T *out) {
  static_assert(std::is_trivially_copyable_v<T>);
  Expected<Tensor *> tensor = fromHandle(handle, "tensor");
  if (!tensor)
    return tensor.takeError();
  if (Error err = requireOutput(out, "ret_value"))
    return err;
  const Tensor &t = **tensor;
  if (t.numel() != 1)
    return Error::failure("item needs a tensor with one element, this one has ",
                          t.numel());
  if (t.dtype() != expected)
    return Error::failure("tensor has dtype ", dtypeName(t.dtype()),
                          ", not ", dtypeName(expected));
  if (t.device().isCpu()) {
    std::memcpy(out, t.data(), sizeof(T));
    return Error::success();
  }
  if (Error err = cuda::copyBytes(out, t.data(), sizeof(T), t.device().index))
    return err;
  return cuda::synchronize(t.device().index);
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle *ret) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> source = fromHandle(self, "self");
    if (!source)
      return source.takeError();
    if (Error err = requireOutput(ret, "ret"))
      return err;
    Expected<Tensor> copy = cloneContiguous(**source);
    if (!copy)
      return copy.takeError();
    *ret = toHandle(std::move(*copy));
    return Error::success();
  });
}

AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self,
                                                 AtenTensorHandle *ret) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> source = fromHandle(self, "self");
    if (!source)
      return source.takeError();
    if (Error err = requireOutput(ret, "ret"))
      return err;
    const Tensor &src = **source;
    Expected<Tensor> copy =
        Tensor::empty(src.sizes(), src.strides(), src.dtype(), src.device());
    if (!copy)
      return copy.takeError();
    if (Error err = copyTensor(*copy, src, /*nonBlocking=*/false))
      return err;
    *ret = toHandle(std::move(*copy));
    return Error::success();
  });
}

AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                int32_t non_blocking) {
  return runShim(__func__, [&]() -> Error {
    Expected<std::array<Tensor *, 2>> tensors =
        fromHandles({{self, "self"}, {src, "src"}});
    if (!tensors)
      return tensors.takeError();
    auto [dst, source] = *tensors;
    return copyTensor(*dst, *source, non_blocking != 0);
  });
}

AOTITorchError aoti_torch_tensor_copy_(AtenTensorHandle src,
                                       AtenTensorHandle dst) {
  return runShim(__func__, [&]() -> Error {
    Expected<std::array<Tensor *, 2>> tensors =
        fromHandles({{src, "src"}, {dst, "dst"}});
    if (!tensors)
      return tensors.takeError();
    auto [source, target] = *tensors;
    return copyTensor(*target, *source, /*nonBlocking=*/false);
  });
}

AOTITorchError aoti_torch_item_float16(AtenTensorHandle tensor, uint16_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Float16, ret_value); });
}
AOTITorchError aoti_torch_item_bfloat16(AtenTensorHandle tensor, uint16_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::BFloat16, ret_value); });
}
AOTITorchError aoti_torch_item_float32(AtenTensorHandle tensor, float *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Float32, ret_value); });
}
AOTITorchError aoti_torch_item_float64(AtenTensorHandle tensor, double *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Float64, ret_value); });
}
AOTITorchError aoti_torch_item_uint8(AtenTensorHandle tensor, uint8_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::UInt8, ret_value); });
}
AOTITorchError aoti_torch_item_uint16(AtenTensorHandle tensor, uint16_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::UInt16, ret_value); });
}
AOTITorchError aoti_torch_item_uint32(AtenTensorHandle tensor, uint32_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::UInt32, ret_value); });
}
AOTITorchError aoti_torch_item_uint64(AtenTensorHandle tensor, uint64_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::UInt64, ret_value); });
}
AOTITorchError aoti_torch_item_int8(AtenTensorHandle tensor, int8_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Int8, ret_value); });
}
AOTITorchError aoti_torch_item_int16(AtenTensorHandle tensor, int16_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Int16, ret_value); });
}
AOTITorchError aoti_torch_item_int32(AtenTensorHandle tensor, int32_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Int32, ret_value); });
}
AOTITorchError aoti_torch_item_int64(AtenTensorHandle tensor, int64_t *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Int64, ret_value); });
}
AOTITorchError aoti_torch_item_bool(AtenTensorHandle tensor, bool *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Bool, ret_value); });
}
AOTITorchError aoti_torch_item_complex64(AtenTensorHandle tensor, AotiComplex64 *ret_value) {
  return runShim(__func__, [&] { return readItem(tensor, ScalarType::Complex64, ret_value); });
}

} // extern "C"
