//===- shims_test_util.h - Helpers shared by the shim tests ----------------===//
#ifndef AOTI_TESTS_SHIMS_TEST_UTIL_H
#define AOTI_TESTS_SHIMS_TEST_UTIL_H

#include "aoti/shim.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// Asserts that a shim call succeeded, printing the library's message if not.
#define ASSERT_SHIM_OK(call)                                                   \
  ASSERT_EQ((call), AOTI_TORCH_SUCCESS) << aoti_shims_last_error()
#define EXPECT_SHIM_OK(call)                                                   \
  EXPECT_EQ((call), AOTI_TORCH_SUCCESS) << aoti_shims_last_error()

// Expects a shim call to fail with a last error containing `text`.
#define EXPECT_SHIM_FAILS(call, text)                                          \
  do {                                                                         \
    aoti_shims_clear_last_error();                                             \
    EXPECT_NE((call), AOTI_TORCH_SUCCESS);                                     \
    EXPECT_NE(std::string(aoti_shims_last_error()).find(text),                 \
              std::string::npos)                                               \
        << "last error: " << aoti_shims_last_error();                          \
  } while (0)

namespace aoti::test {

// Owns one AtenTensorHandle.
class TensorHandle {
public:
  TensorHandle() = default;
  explicit TensorHandle(AtenTensorHandle handle) : handle_(handle) {}
  TensorHandle(TensorHandle &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  TensorHandle &operator=(TensorHandle &&other) noexcept {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    return *this;
  }
  ~TensorHandle() { reset(); }

  AtenTensorHandle get() const { return handle_; }
  AtenTensorHandle *out() {
    reset();
    return &handle_;
  }
  AtenTensorHandle release() { return std::exchange(handle_, nullptr); }
  void reset() {
    if (handle_)
      EXPECT_EQ(aoti_torch_delete_tensor_object(handle_), AOTI_TORCH_SUCCESS);
    handle_ = nullptr;
  }

private:
  AtenTensorHandle handle_ = nullptr;
};

inline TensorHandle emptyCpu(const std::vector<int64_t> &sizes,
                             const std::vector<int64_t> &strides,
                             int32_t dtype) {
  TensorHandle t;
  EXPECT_EQ(aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()),
                                     sizes.data(), strides.data(), dtype,
                                     aoti_torch_device_type_cpu(), 0, t.out()),
            AOTI_TORCH_SUCCESS)
      << aoti_shims_last_error();
  return t;
}

template <typename T> T *dataOf(const TensorHandle &t) {
  void *data = nullptr;
  EXPECT_EQ(aoti_torch_get_data_ptr(t.get(), &data), AOTI_TORCH_SUCCESS);
  return static_cast<T *>(data);
}

inline std::vector<int64_t> sizesOf(const TensorHandle &t) {
  int64_t dim = 0;
  int64_t *sizes = nullptr;
  EXPECT_EQ(aoti_torch_get_dim(t.get(), &dim), AOTI_TORCH_SUCCESS);
  EXPECT_EQ(aoti_torch_get_sizes(t.get(), &sizes), AOTI_TORCH_SUCCESS);
  return std::vector<int64_t>(sizes, sizes + dim);
}

inline std::vector<int64_t> stridesOf(const TensorHandle &t) {
  int64_t dim = 0;
  int64_t *strides = nullptr;
  EXPECT_EQ(aoti_torch_get_dim(t.get(), &dim), AOTI_TORCH_SUCCESS);
  EXPECT_EQ(aoti_torch_get_strides(t.get(), &strides), AOTI_TORCH_SUCCESS);
  return std::vector<int64_t>(strides, strides + dim);
}

// Elements from the first to the last one a layout addresses (0 when it is
// empty): how much storage a view of `sizes` and `strides` needs past its
// storage offset.
inline int64_t extentOf(const std::vector<int64_t> &sizes,
                        const std::vector<int64_t> &strides) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0)
      return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return last + 1;
}

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_TEST_UTIL_H
