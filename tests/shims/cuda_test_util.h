//===- cuda_test_util.h - What every GPU test of the shims shares ----------===//
//
// ASSERT_CUDA_OK checks a CUDA call the test itself makes, with its error's
// name and string. CudaDeviceTest is the fixture of every GPU suite: it skips
// (does not fail) when no CUDA device is visible, runs on device 0, and after
// each test waits for the device and checks for a pending error, so that an
// asynchronous failure is reported by the test that caused it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_CUDA_TEST_UTIL_H
#define AOTI_TESTS_SHIMS_CUDA_TEST_UTIL_H

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#define ASSERT_CUDA_OK(call)                                                   \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    ASSERT_EQ(status_, cudaSuccess)                                            \
        << #call << ": " << cudaGetErrorName(status_) << ": "                  \
        << cudaGetErrorString(status_);                                        \
  } while (0)

namespace aoti::test {

class CudaDeviceTest : public testing::Test {
protected:
  void SetUp() override {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      GTEST_SKIP() << "no CUDA device visible ("
                   << (status == cudaSuccess ? "0 devices"
                                             : cudaGetErrorString(status))
                   << ")";
    }
    deviceCount_ = count;
    ASSERT_CUDA_OK(cudaSetDevice(0));
  }
  void TearDown() override {
    if (deviceCount_ == 0)
      return;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
  int deviceCount_ = 0;
};

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_CUDA_TEST_UTIL_H
