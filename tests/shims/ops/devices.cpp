//===- ops/devices.cpp - The CUDA runtime calls of the family tests --------===//
//
// Kept out of the family test files, which see the C ABI only.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"

#ifdef AOTI_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace aoti::test {

#ifdef AOTI_TEST_HAVE_CUDA
CudaStream::CudaStream() {
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            cudaSuccess);
  stream_ = stream;
}
CudaStream::~CudaStream() {
  if (!stream_)
    return;
  auto stream = static_cast<cudaStream_t>(stream_);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}
#else
CudaStream::CudaStream() { ADD_FAILURE() << "CUDA stream in a build without CUDA"; }
CudaStream::~CudaStream() = default;
#endif

} // namespace aoti::test
