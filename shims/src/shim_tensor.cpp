//===- shim_tensor.cpp - Creating, viewing and inspecting tensors ----------===//
//
// The C entry points: each validates its arguments, calls into Tensor, and
// turns the outcome into an AOTITorchError through runShim().
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include "error.h"
#include "tensor.h"

using namespace aoti::shims;

namespace {

// Reads the tensor behind `handle` and a non-null out-pointer, then stores
// get(tensor) (a value or an Expected) into *out.
template <typename T, typename Getter>
AOTITorchError getField(const char *function, AtenTensorHandle handle, T *out,
                        Getter get) {
  return runShim(function, [&]() -> Error {
    Expected<Tensor *> tensor = fromHandle(handle, "tensor");
    if (!tensor)
      return tensor.takeError();
    if (Error err = requireOutput(out, "ret"))
      return err;
    Expected<T> value = get(**tensor);
    if (!value)
      return value.takeError();
    *out = *value;
    return Error::success();
  });
}

// A dimension index, negative counting from the end, checked against ndim.
Expected<size_t> dimensionIndex(const Tensor &tensor, int64_t d) {
  const int64_t ndim = tensor.dim();
  const int64_t wrapped = d < 0 ? d + ndim : d;
  if (wrapped < 0 || wrapped >= ndim)
    return Error::failure("dimension ", d, " out of range for a ", ndim,
                          "-d tensor");
  return static_cast<size_t>(wrapped);
}

// What a new tensor is made of, as the constructors' C arguments give it.
struct NewTensor {
  Shape shape;
  ScalarType dtype;
  Device device;
};

// Reads and checks those arguments: the shape, then the dtype, then the
// device (the first bad one is the failure).
Expected<NewTensor> readNewTensor(int64_t ndim, const int64_t *sizes,
                                  const int64_t *strides, int32_t dtype,
                                  int32_t deviceType, int32_t deviceIndex) {
  Expected<Shape> shape = readShape(ndim, sizes, strides);
  if (!shape)
    return shape.takeError();
  Expected<ScalarType> type = toScalarType(dtype);
  if (!type)
    return type.takeError();
  Expected<Device> device = resolveDevice(deviceType, deviceIndex);
  if (!device)
    return device.takeError();
  return NewTensor{std::move(*shape), *type, *device};
}

Error makeFromBlob(void *data, int64_t ndim, const int64_t *sizes,
                   const int64_t *strides, int64_t storageOffset,
                   int32_t dtype, int32_t deviceType, int32_t deviceIndex,
                   AtenTensorHandle *ret) {
  if (Error err = requireOutput(ret, "ret"))
    return err;
  Expected<NewTensor> spec =
      readNewTensor(ndim, sizes, strides, dtype, deviceType, deviceIndex);
  if (!spec)
    return spec.takeError();
  Expected<Tensor> tensor =
      Tensor::fromBlob(data, spec->shape.sizes, spec->shape.strides,
                       storageOffset, spec->dtype, spec->device);
  if (!tensor)
    return tensor.takeError();
  *ret = toHandle(std::move(*tensor));
  return Error::success();
}

// A view of self's storage with the given layout and absolute offset.
Error makeView(const Tensor &self, ScalarType dtype, const Shape &shape,
               int64_t storageOffset, AtenTensorHandle *ret) {
  Expected<Tensor> view = Tensor::make(self.storage(), dtype, shape.sizes,
                                       shape.strides, storageOffset);
  if (!view)
    return view.takeError();
  *ret = toHandle(std::move(*view));
  return Error::success();
}

// Scalar types for the scalar_to_tensor family.
template <typename T> Error scalarToTensor(ScalarType dtype, T value,
                                           AtenTensorHandle *ret) {
  if (Error err = requireOutput(ret, "ret_new_tensor"))
    return err;
  Expected<Tensor> tensor =
      Tensor::emptyContiguous({}, dtype, Device{DeviceType::CPU, -1});
  if (!tensor)
    return tensor.takeError();
  *static_cast<T *>(tensor->data()) = value;
  *ret = toHandle(std::move(*tensor));
  return Error::success();
}

// A second handle to the tensor behind `from` (the same storage, sizes,
// strides and offset) in *out: aoti_torch_new_tensor_handle and
// aoti_torch_assign_tensors_out are this one operation under two names. The
// names are the C arguments', for the messages.
Error newHandle(AtenTensorHandle from, const char *fromName,
                AtenTensorHandle *out, const char *outName) {
  Expected<Tensor *> tensor = fromHandle(from, fromName);
  if (!tensor)
    return tensor.takeError();
  if (Error err = requireOutput(out, outName))
    return err;
  *out = toHandle(**tensor);
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr,
                                        const int64_t *strides_ptr,
                                        int32_t dtype, int32_t device_type,
                                        int32_t device_index,
                                        AtenTensorHandle *ret_new_tensor) {
  return runShim(__func__, [&]() -> Error {
    if (Error err = requireOutput(ret_new_tensor, "ret_new_tensor"))
      return err;
    Expected<NewTensor> spec = readNewTensor(ndim, sizes_ptr, strides_ptr,
                                             dtype, device_type, device_index);
    if (!spec)
      return spec.takeError();
    Expected<Tensor> tensor = Tensor::empty(spec->shape.sizes,
                                            spec->shape.strides, spec->dtype,
                                            spec->device);
    if (!tensor)
      return tensor.takeError();
    *ret_new_tensor = toHandle(std::move(*tensor));
    return Error::success();
  });
}

AOTITorchError aoti_torch_create_tensor_from_blob(
    void *data, int64_t ndim, const int64_t *sizes_ptr,
    const int64_t *strides_ptr, int64_t storage_offset, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle *ret) {
  return runShim(__func__, [&] {
    return makeFromBlob(data, ndim, sizes_ptr, strides_ptr, storage_offset,
                        dtype, device_type, device_index, ret);
  });
}

AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void *data, int64_t ndim, const int64_t *sizes_ptr,
    const int64_t *strides_ptr, int64_t storage_offset, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle *ret,
    int32_t layout, const uint8_t * /*opaque_metadata*/,
    int64_t /*opaque_metadata_size*/) {
  return runShim(__func__, [&]() -> Error {
    if (layout != static_cast<int32_t>(Layout::Strided))
      return Error::failure("unsupported layout ", layout,
                            " (only strided, 0, is supported)");
    return makeFromBlob(data, ndim, sizes_ptr, strides_ptr, storage_offset,
                        dtype, device_type, device_index, ret);
  });
}

AOTITorchError aoti_torch_scalar_to_tensor_float32(float value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Float32, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_float64(double value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Float64, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_uint8(uint8_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::UInt8, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_uint16(uint16_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::UInt16, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_uint32(uint32_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::UInt32, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_uint64(uint64_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::UInt64, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_int8(int8_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Int8, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_int16(int16_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Int16, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_int32(int32_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Int32, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_int64(int64_t value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Int64, value, ret); });
}
AOTITorchError aoti_torch_scalar_to_tensor_bool(bool value, AtenTensorHandle *ret) {
  return runShim(__func__, [&] { return scalarToTensor(ScalarType::Bool, value, ret); });
}

AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> self = fromHandle(tensor, "tensor");
    if (!self)
      return self.takeError();
    delete *self;
    return Error::success();
  });
}

AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                            AtenTensorHandle *new_handle) {
  return runShim(__func__, [&] {
    return newHandle(orig_handle, "orig_handle", new_handle, "new_handle");
  });
}

AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src,
                                             AtenTensorHandle *ret_dst) {
  return runShim(__func__,
                 [&] { return newHandle(src, "src", ret_dst, "ret_dst"); });
}

AOTITorchError aoti_torch_assign_tensors(AtenTensorHandle src,
                                         AtenTensorHandle dst) {
  return runShim(__func__, [&]() -> Error {
    Expected<std::array<Tensor *, 2>> tensors =
        fromHandles({{src, "src"}, {dst, "dst"}});
    if (!tensors)
      return tensors.takeError();
    auto [source, target] = *tensors;
    *target = *source;
    return Error::success();
  });
}

AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self,
                                              int64_t ndim,
                                              const int64_t *sizes_ptr,
                                              const int64_t *strides_ptr,
                                              int64_t storage_offset,
                                              AtenTensorHandle *ret_new_tensor) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> base = fromHandle(self, "self");
    if (!base)
      return base.takeError();
    if (Error err = requireOutput(ret_new_tensor, "ret_new_tensor"))
      return err;
    Expected<Shape> shape = readShape(ndim, sizes_ptr, strides_ptr);
    if (!shape)
      return shape.takeError();
    // The offset is relative to self's (torch's codegen relies on that when
    // it carves views out of a view).
    int64_t offset = 0;
    if (__builtin_add_overflow((*base)->storageOffset(), storage_offset,
                               &offset))
      return Error::failure("storage offset overflows int64");
    return makeView(**base, (*base)->dtype(), *shape, offset, ret_new_tensor);
  });
}

AOTITorchError aoti_torch_as_strided(AtenTensorHandle self,
                                     const int64_t *sizes_ptr,
                                     const int64_t *strides_ptr,
                                     AtenTensorHandle *ret) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> base = fromHandle(self, "self");
    if (!base)
      return base.takeError();
    if (Error err = requireOutput(ret, "ret"))
      return err;
    Expected<Shape> shape = readShape((*base)->dim(), sizes_ptr, strides_ptr);
    if (!shape)
      return shape.takeError();
    return makeView(**base, (*base)->dtype(), *shape, (*base)->storageOffset(),
                    ret);
  });
}

AOTITorchError aoti_torch__alloc_from_pool(AtenTensorHandle self,
                                           int64_t offset_bytes, int32_t dtype,
                                           int64_t ndim,
                                           const int64_t *sizes_ptr,
                                           const int64_t *strides_ptr,
                                           AtenTensorHandle *ret_new_tensor) {
  return runShim(__func__, [&]() -> Error {
    Expected<Tensor *> pool = fromHandle(self, "self");
    if (!pool)
      return pool.takeError();
    if (Error err = requireOutput(ret_new_tensor, "ret_new_tensor"))
      return err;
    Expected<ScalarType> type = toScalarType(dtype);
    if (!type)
      return type.takeError();
    Expected<Shape> shape = readShape(ndim, sizes_ptr, strides_ptr);
    if (!shape)
      return shape.takeError();
    const int64_t item = static_cast<int64_t>(elementSize(*type));
    int64_t byteOffset = 0;
    if (offset_bytes < 0 ||
        __builtin_mul_overflow((*pool)->storageOffset(),
                               static_cast<int64_t>((*pool)->itemSize()),
                               &byteOffset) ||
        __builtin_add_overflow(byteOffset, offset_bytes, &byteOffset))
      return Error::failure("offset_bytes ", offset_bytes, " is out of range");
    if (byteOffset % item != 0)
      return Error::failure("byte offset ", byteOffset,
                            " is not a multiple of the ", dtypeName(*type),
                            " element size ", item);
    return makeView(**pool, *type, *shape, byteOffset / item, ret_new_tensor);
  });
}

AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor,
                                       void **ret_data_ptr) {
  return getField(__func__, tensor, ret_data_ptr,
                  [](const Tensor &t) -> Expected<void *> { return t.data(); });
}

AOTITorchError aoti_torch_get_mutable_data_ptr(AtenTensorHandle tensor,
                                               void **ret_data_ptr) {
  return getField(__func__, tensor, ret_data_ptr,
                  [](const Tensor &t) -> Expected<void *> { return t.data(); });
}

AOTITorchError aoti_torch_get_const_data_ptr(AtenTensorHandle tensor,
                                             const void **ret_data_ptr) {
  return getField(
      __func__, tensor, ret_data_ptr,
      [](const Tensor &t) -> Expected<const void *> { return t.data(); });
}

AOTITorchError aoti_torch_get_storage_size(AtenTensorHandle tensor,
                                           int64_t *ret_size) {
  return getField(__func__, tensor, ret_size,
                  [](const Tensor &t) -> Expected<int64_t> {
                    return static_cast<int64_t>(t.storage()->nbytes());
                  });
}

AOTITorchError aoti_torch_get_storage_numel(AtenTensorHandle tensor,
                                            int64_t *ret_numel) {
  return getField(__func__, tensor, ret_numel,
                  [](const Tensor &t) -> Expected<int64_t> {
                    return static_cast<int64_t>(t.storage()->nbytes() /
                                                t.itemSize());
                  });
}

AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor,
                                             int64_t *ret_storage_offset) {
  return getField(
      __func__, tensor, ret_storage_offset,
      [](const Tensor &t) -> Expected<int64_t> { return t.storageOffset(); });
}

AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t *ret_dim) {
  return getField(__func__, tensor, ret_dim,
                  [](const Tensor &t) -> Expected<int64_t> { return t.dim(); });
}

AOTITorchError aoti_torch_get_numel(AtenTensorHandle tensor,
                                    int64_t *ret_numel) {
  return getField(
      __func__, tensor, ret_numel,
      [](const Tensor &t) -> Expected<int64_t> { return t.numel(); });
}

AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor,
                                    int64_t **ret_sizes) {
  // The ABI hands out a mutable pointer; callers only read through it.
  return getField(__func__, tensor, ret_sizes,
                  [](const Tensor &t) -> Expected<int64_t *> {
                    return const_cast<int64_t *>(t.sizesData());
                  });
}

AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor,
                                      int64_t **ret_strides) {
  return getField(__func__, tensor, ret_strides,
                  [](const Tensor &t) -> Expected<int64_t *> {
                    return const_cast<int64_t *>(t.stridesData());
                  });
}

AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d,
                                   int64_t *ret_size) {
  return getField(__func__, tensor, ret_size,
                  [d](const Tensor &t) -> Expected<int64_t> {
                    Expected<size_t> index = dimensionIndex(t, d);
                    if (!index)
                      return index.takeError();
                    return t.sizes()[*index];
                  });
}

AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d,
                                     int64_t *ret_stride) {
  return getField(__func__, tensor, ret_stride,
                  [d](const Tensor &t) -> Expected<int64_t> {
                    Expected<size_t> index = dimensionIndex(t, d);
                    if (!index)
                      return index.takeError();
                    return t.strides()[*index];
                  });
}

AOTITorchError aoti_torch_get_dtype(AtenTensorHandle tensor,
                                    int32_t *ret_dtype) {
  return getField(__func__, tensor, ret_dtype,
                  [](const Tensor &t) -> Expected<int32_t> {
                    return static_cast<int32_t>(t.dtype());
                  });
}

AOTITorchError aoti_torch_get_device_type(AtenTensorHandle tensor,
                                          int32_t *ret_device_type) {
  return getField(__func__, tensor, ret_device_type,
                  [](const Tensor &t) -> Expected<int32_t> {
                    return static_cast<int32_t>(t.device().type);
                  });
}

AOTITorchError aoti_torch_get_device_index(AtenTensorHandle tensor,
                                           int32_t *ret_device_index) {
  return getField(
      __func__, tensor, ret_device_index,
      [](const Tensor &t) -> Expected<int32_t> { return t.device().index; });
}

AOTITorchError aoti_torch_get_layout(AtenTensorHandle tensor,
                                     int32_t *ret_layout) {
  return getField(__func__, tensor, ret_layout,
                  [](const Tensor &) -> Expected<int32_t> {
                    return static_cast<int32_t>(Layout::Strided);
                  });
}

AOTITorchError aoti_torch_is_contiguous(AtenTensorHandle tensor,
                                        bool *ret_is_contiguous) {
  return getField(
      __func__, tensor, ret_is_contiguous,
      [](const Tensor &t) -> Expected<bool> { return t.isContiguous(); });
}

AOTITorchError aoti_torch_is_defined(AtenTensorHandle tensor,
                                     bool *ret_is_defined) {
  // Every handle made here holds a tensor; torch's "undefined tensor" does
  // not exist in this implementation.
  return getField(__func__, tensor, ret_is_defined,
                  [](const Tensor &) -> Expected<bool> { return true; });
}

} // extern "C"
