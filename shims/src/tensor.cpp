//===- tensor.cpp - Tensor, Storage and layout arithmetic ------------------===//
#include "tensor.h"

#include "cuda_api.h"
#include "host_memory.h"

#include <algorithm>
#include <numeric>

namespace aoti::shims {
namespace {

// A sanity bound, not a design limit: it stops a garbage ndim from turning
// into a multi-gigabyte read of the caller's sizes array.
constexpr int64_t kMaxDims = 64;

void releaseHostStorage(void *data, size_t nbytes, Device) noexcept {
  releaseHost(data, nbytes);
}

void releaseCudaStorage(void *data, size_t, Device device) noexcept {
  cuda::release(data, device);
}

Expected<std::shared_ptr<Storage>> allocateStorage(size_t nbytes,
                                                   const Device &device) {
  if (device.isCpu()) {
    void *data = nullptr;
    if (nbytes != 0) {
      data = allocateHost(nbytes);
      if (!data)
        return Error::failure("out of host memory allocating ", nbytes,
                              " bytes");
    }
    return std::make_shared<Storage>(data, nbytes, device,
                                     &releaseHostStorage);
  }
  Expected<void *> data = cuda::allocate(device.index, nbytes);
  if (!data)
    return data.takeError();
  return std::make_shared<Storage>(*data, nbytes, device,
                                   &releaseCudaStorage);
}

bool multiplyOverflows(int64_t a, int64_t b, int64_t *result) {
  return __builtin_mul_overflow(a, b, result);
}

bool addOverflows(int64_t a, int64_t b, int64_t *result) {
  return __builtin_add_overflow(a, b, result);
}

// Bytes covered by elements [0, offset + span) of `type`, overflow-checked.
Expected<int64_t> storageBytes(int64_t offset, int64_t span, ScalarType type) {
  int64_t elements = 0;
  int64_t bytes = 0;
  if (addOverflows(offset, span, &elements) ||
      multiplyOverflows(elements, static_cast<int64_t>(elementSize(type)),
                        &bytes))
    return Error::failure("tensor byte size overflows int64");
  return bytes;
}

} // namespace

std::string describe(const Device &device) {
  switch (device.type) {
  case DeviceType::CPU:
    return "cpu";
  case DeviceType::CUDA:
    return "cuda:" + std::to_string(device.index);
  default:
    return "device type " + std::to_string(static_cast<int32_t>(device.type));
  }
}

Expected<Device> resolveDevice(int32_t deviceType, int32_t deviceIndex) {
  if (deviceType == static_cast<int32_t>(DeviceType::CPU)) {
    if (deviceIndex != -1 && deviceIndex != 0)
      return Error::failure("CPU device index must be -1 or 0, got ",
                            deviceIndex);
    return Device{DeviceType::CPU, deviceIndex};
  }
  if (deviceType == static_cast<int32_t>(DeviceType::CUDA)) {
    Expected<int32_t> index = cuda::resolveDeviceIndex(deviceIndex);
    if (!index)
      return index.takeError();
    return Device{DeviceType::CUDA, *index};
  }
  return Error::failure("unsupported device type ", deviceType,
                        " (supported: cpu 0, cuda 1)");
}

Expected<Shape> readShape(int64_t ndim, const int64_t *sizes,
                          const int64_t *strides) {
  if (ndim < 0 || ndim > kMaxDims)
    return Error::failure("ndim ", ndim, " out of range [0, ", kMaxDims, "]");
  if (ndim > 0 && !sizes)
    return Error::failure("sizes pointer is null for ndim ", ndim);
  Shape shape;
  shape.sizes.assign(sizes, sizes + ndim);
  for (int64_t i = 0; i < ndim; ++i)
    if (shape.sizes[i] < 0)
      return Error::failure("size ", shape.sizes[i], " of dimension ", i,
                            " is negative");
  if (!strides) {
    shape.strides = contiguousStrides(shape.sizes);
    return shape;
  }
  shape.strides.assign(strides, strides + ndim);
  for (int64_t i = 0; i < ndim; ++i)
    if (shape.strides[i] < 0)
      return Error::failure("stride ", shape.strides[i], " of dimension ", i,
                            " is negative (not supported)");
  return shape;
}

std::vector<int64_t> contiguousStrides(std::span<const int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

Expected<int64_t> spanElements(std::span<const int64_t> sizes,
                               std::span<const int64_t> strides) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end())
    return int64_t{0};
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t step = 0;
    if (multiplyOverflows(sizes[i] - 1, strides[i], &step) ||
        addOverflows(last, step, &last))
      return Error::failure("tensor extent overflows int64");
  }
  return last + 1;
}

bool isContiguous(std::span<const int64_t> sizes,
                  std::span<const int64_t> strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0)
      return true;
    if (sizes[i] == 1)
      continue;
    if (strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
}

bool isNonOverlappingAndDense(std::span<const int64_t> sizes,
                              std::span<const int64_t> strides) {
  // Sort the dimensions by stride; dense means each stride is the product of
  // the sizes of the dimensions below it. Size-1 dimensions never move the
  // address, so their strides do not matter.
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t dim : order) {
    if (sizes[dim] == 0)
      return true;
    if (sizes[dim] == 1)
      continue;
    if (strides[dim] != expected)
      return false;
    expected *= sizes[dim];
  }
  return true;
}

Tensor::Tensor(std::shared_ptr<Storage> storage, ScalarType dtype,
               std::span<const int64_t> sizes, std::span<const int64_t> strides,
               int64_t storageOffset)
    : storage_(std::move(storage)), ndim_(static_cast<int64_t>(sizes.size())),
      storageOffset_(storageOffset), dtype_(dtype) {
  dims_.reserve(2 * sizes.size() + 1);
  dims_.insert(dims_.end(), sizes.begin(), sizes.end());
  dims_.insert(dims_.end(), strides.begin(), strides.end());
  dims_.push_back(0);
}

Expected<Tensor> Tensor::make(std::shared_ptr<Storage> storage,
                              ScalarType dtype, std::span<const int64_t> sizes,
                              std::span<const int64_t> strides,
                              int64_t storageOffset) {
  if (storageOffset < 0)
    return Error::failure("storage offset ", storageOffset, " is negative");
  Expected<int64_t> span = spanElements(sizes, strides);
  if (!span)
    return span.takeError();
  // An empty view addresses nothing, so any offset is fine (as in ATen).
  if (*span > 0) {
    Expected<int64_t> needed = storageBytes(storageOffset, *span, dtype);
    if (!needed)
      return needed.takeError();
    if (static_cast<uint64_t>(*needed) > storage->nbytes())
      return Error::failure("view needs ", *needed,
                            " bytes of storage but the storage has ",
                            storage->nbytes());
  }
  return Tensor(std::move(storage), dtype, sizes, strides, storageOffset);
}

Expected<Tensor> Tensor::empty(std::span<const int64_t> sizes,
                               std::span<const int64_t> strides,
                               ScalarType dtype, const Device &device) {
  Expected<int64_t> span = spanElements(sizes, strides);
  if (!span)
    return span.takeError();
  Expected<int64_t> nbytes = storageBytes(0, *span, dtype);
  if (!nbytes)
    return nbytes.takeError();
  Expected<std::shared_ptr<Storage>> storage =
      allocateStorage(static_cast<size_t>(*nbytes), device);
  if (!storage)
    return storage.takeError();
  return Tensor(std::move(*storage), dtype, sizes, strides, 0);
}

Expected<Tensor> Tensor::emptyContiguous(std::span<const int64_t> sizes,
                                         ScalarType dtype,
                                         const Device &device) {
  return empty(sizes, contiguousStrides(sizes), dtype, device);
}

Expected<Tensor> Tensor::fromBlob(void *data, std::span<const int64_t> sizes,
                                  std::span<const int64_t> strides,
                                  int64_t storageOffset, ScalarType dtype,
                                  const Device &device) {
  if (storageOffset < 0)
    return Error::failure("storage offset ", storageOffset, " is negative");
  Expected<int64_t> span = spanElements(sizes, strides);
  if (!span)
    return span.takeError();
  if (!data && *span > 0)
    return Error::failure("data pointer is null for a non-empty tensor");
  Expected<int64_t> nbytes =
      *span > 0 ? storageBytes(storageOffset, *span, dtype) : int64_t{0};
  if (!nbytes)
    return nbytes.takeError();
  auto storage = std::make_shared<Storage>(data, static_cast<size_t>(*nbytes),
                                           device, /*deleter=*/nullptr);
  return Tensor(std::move(storage), dtype, sizes, strides, storageOffset);
}

int64_t Tensor::numel() const {
  int64_t count = 1;
  for (int64_t size : sizes())
    count *= size;
  return count;
}

void *Tensor::data() const {
  auto *base = static_cast<char *>(storage_->data());
  if (!base)
    return nullptr;
  return base + storageOffset_ * static_cast<int64_t>(itemSize());
}

Expected<Tensor *> fromHandle(AtenTensorHandle handle, const char *name) {
  if (!handle)
    return Error::failure("tensor handle '", name, "' is null");
  // A handle is a Tensor allocated by toHandle(); the opaque struct it
  // points to is never defined.
  return reinterpret_cast<Tensor *>(handle);
}

AtenTensorHandle toHandle(Tensor tensor) {
  return reinterpret_cast<AtenTensorHandle>(new Tensor(std::move(tensor)));
}

} // namespace aoti::shims
