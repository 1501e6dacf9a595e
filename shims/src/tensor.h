//===- tensor.h - The tensor behind AtenTensorHandle -----------------------===//
//
// A Tensor is a strided view (sizes, strides, offset, all in elements) of a
// Storage: a block of host or device memory shared by reference count. The
// Storage either owns its memory (and frees it with its deleter when the last
// view goes) or borrows it (tensors made with from_blob; never freed).
//
// AtenTensorHandle is a heap-allocated Tensor. Copying a Tensor copies the
// view and shares the Storage, which is exactly what new_tensor_handle,
// _reinterpret_tensor and friends need: a view keeps memory alive after the
// handle it was made from is deleted.
//
// The sizes and strides of a Tensor never change after it is made (only
// aoti_torch_assign_tensors replaces a whole Tensor), so the pointers handed
// out by aoti_torch_get_sizes/get_strides stay valid while the handle lives.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_TENSOR_H
#define AOTI_SHIMS_TENSOR_H

#include "dtype.h"
#include "error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace aoti::shims {

/// A device type and index. CPU tensors keep the index they were made with
/// (-1 or 0, as c10 allows); CUDA tensors always have a real index >= 0.
struct Device {
  DeviceType type = DeviceType::CPU;
  int32_t index = -1;

  bool isCpu() const { return type == DeviceType::CPU; }
  bool isCuda() const { return type == DeviceType::CUDA; }
  /// Same memory space: every CPU index is the same host memory.
  bool sameMemory(const Device &other) const {
    return type == other.type && (isCpu() || index == other.index);
  }
};

/// "cpu" or "cuda:N", for messages.
std::string describe(const Device &device);

/// Validates a (device_type, device_index) pair from the C ABI. A CUDA index
/// of -1 becomes the current device.
Expected<Device> resolveDevice(int32_t deviceType, int32_t deviceIndex);

/// A block of memory and how to release it.
class Storage {
public:
  /// Releases `data`, `nbytes` allocated on `device`. Must not throw.
  using Deleter = void (*)(void *data, size_t nbytes, Device device) noexcept;

  /// A null `deleter` makes a borrowing Storage.
  Storage(void *data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter) {}
  ~Storage() {
    if (deleter_)
      deleter_(data_, nbytes_, device_);
  }
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;

  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Device &device() const { return device_; }
  bool owning() const { return deleter_ != nullptr; }

private:
  void *data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
};

/// Sizes and strides as read from the C ABI, validated.
struct Shape {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

/// Reads `ndim` sizes and strides. Null `strides` means row-major contiguous.
/// Fails on negative ndim/sizes/strides or null sizes.
Expected<Shape> readShape(int64_t ndim, const int64_t *sizes,
                          const int64_t *strides);

/// Row-major contiguous strides for `sizes`.
std::vector<int64_t> contiguousStrides(std::span<const int64_t> sizes);

/// Number of elements addressed from the first element up to and including
/// the last one: 0 for an empty tensor, else 1 + sum((size-1)*stride).
/// Fails on overflow.
Expected<int64_t> spanElements(std::span<const int64_t> sizes,
                               std::span<const int64_t> strides);

/// Row-major contiguous, ignoring strides of size-1 dimensions.
bool isContiguous(std::span<const int64_t> sizes,
                  std::span<const int64_t> strides);

/// Every element at a distinct offset and no gaps: a permutation of a
/// contiguous layout. Such a tensor occupies exactly numel elements from its
/// first one, so two of them with equal sizes and strides can be copied
/// as raw bytes.
bool isNonOverlappingAndDense(std::span<const int64_t> sizes,
                              std::span<const int64_t> strides);

class Tensor {
public:
  /// A view of `storage`, checked to lie inside it.
  static Expected<Tensor> make(std::shared_ptr<Storage> storage,
                               ScalarType dtype, std::span<const int64_t> sizes,
                               std::span<const int64_t> strides,
                               int64_t storageOffset);

  /// A tensor owning new, uninitialised memory big enough for the layout.
  static Expected<Tensor> empty(std::span<const int64_t> sizes,
                                std::span<const int64_t> strides,
                                ScalarType dtype, const Device &device);

  /// As empty() with contiguous strides.
  static Expected<Tensor> emptyContiguous(std::span<const int64_t> sizes,
                                          ScalarType dtype,
                                          const Device &device);

  /// A tensor over caller-owned memory, which it never frees. `data` is the
  /// start of the storage, which is assumed just big enough for the view.
  static Expected<Tensor> fromBlob(void *data, std::span<const int64_t> sizes,
                                   std::span<const int64_t> strides,
                                   int64_t storageOffset, ScalarType dtype,
                                   const Device &device);

  int64_t dim() const { return ndim_; }
  std::span<const int64_t> sizes() const { return {dims_.data(), dimCount()}; }
  std::span<const int64_t> strides() const {
    return {dims_.data() + ndim_, dimCount()};
  }
  /// Never null, also for 0-d tensors (the C getters promise that).
  const int64_t *sizesData() const { return dims_.data(); }
  const int64_t *stridesData() const { return dims_.data() + ndim_; }
  int64_t numel() const;
  int64_t storageOffset() const { return storageOffset_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemSize() const { return elementSize(dtype_); }
  const Device &device() const { return storage_->device(); }
  const std::shared_ptr<Storage> &storage() const { return storage_; }
  /// The first element's address: storage data + offset * element size.
  void *data() const;
  bool isContiguous() const { return shims::isContiguous(sizes(), strides()); }
  bool isNonOverlappingAndDense() const {
    return shims::isNonOverlappingAndDense(sizes(), strides());
  }

private:
  Tensor(std::shared_ptr<Storage> storage, ScalarType dtype,
         std::span<const int64_t> sizes, std::span<const int64_t> strides,
         int64_t storageOffset);
  size_t dimCount() const { return static_cast<size_t>(ndim_); }

  std::shared_ptr<Storage> storage_;
  // Sizes then strides, plus one spare slot so data() is never null.
  std::vector<int64_t> dims_;
  int64_t ndim_;
  int64_t storageOffset_;
  ScalarType dtype_;
};

// --- Unwrapping the handles a C entry point is given ----------------------
//
// Every entry point turns its AtenTensorHandle arguments into Tensors the
// same way: a null handle is a failure that names the C parameter, and
// torch's optional tensors (a pointer to a handle, either of which may be
// null for None) are absent rather than wrong. One argument:
//   Expected<Tensor *> self = fromHandle(selfHandle, "self");
// several, in the order of the C signature (a failure names the first bad
// one):
//   Expected<std::array<Tensor *, 3>> tensors = fromHandles(
//       {{input, "input"}, {weight, "weight"}, optionalTensorArg(bias, "bias")});
//   if (!tensors) return tensors.takeError();
//   auto [in, w, b] = *tensors; // b null when no bias was given

/// The tensor behind a handle, or a failure naming the null argument.
Expected<Tensor *> fromHandle(AtenTensorHandle handle, const char *name);

/// A tensor argument of a C entry point: its handle and C parameter name.
struct TensorArg {
  AtenTensorHandle handle;
  const char *name;
  /// False for an optional argument that was not given: its tensor is null.
  bool given = true;
};

/// An optional tensor argument as torch passes it: a pointer to a handle,
/// None when either is null.
inline TensorArg optionalTensorArg(const AtenTensorHandle *handle,
                                   const char *name) {
  const bool given = handle && *handle;
  return {given ? *handle : nullptr, name, given};
}

/// The tensors behind `args`, in order (null for an optional one not
/// given), or the failure for the first null handle.
template <size_t N>
Expected<std::array<Tensor *, N>> fromHandles(const TensorArg (&args)[N]) {
  std::array<Tensor *, N> tensors{};
  for (size_t i = 0; i < N; ++i) {
    if (!args[i].given)
      continue;
    Expected<Tensor *> tensor = fromHandle(args[i].handle, args[i].name);
    if (!tensor)
      return tensor.takeError();
    tensors[i] = *tensor;
  }
  return tensors;
}

/// Heap-allocates `tensor` and returns it as a new owning handle.
AtenTensorHandle toHandle(Tensor tensor);

} // namespace aoti::shims

#endif // AOTI_SHIMS_TENSOR_H
