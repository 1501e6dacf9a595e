//===- ops/devices.cpp - The CUDA runtime calls of the family tests --------===//
//
// Kept out of the family test files, which see the C ABI only: the
// streams of the stream-guard tests, and the graphs of the capture tests.
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

CudaGraphCapture::CudaGraphCapture(void *stream) : stream_(stream) {
  const cudaError_t status = cudaStreamBeginCapture(
      static_cast<cudaStream_t>(stream), cudaStreamCaptureModeGlobal);
  EXPECT_EQ(status, cudaSuccess) << cudaGetErrorString(status);
  capturing_ = status == cudaSuccess;
}

CudaGraphCapture::~CudaGraphCapture() {
  if (capturing_) {
    // A test that stopped early: end the capture, keep nothing.
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph);
    if (graph)
      (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
  }
  if (exec_)
    EXPECT_EQ(cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_)),
              cudaSuccess);
  if (graph_)
    EXPECT_EQ(cudaGraphDestroy(static_cast<cudaGraph_t>(graph_)), cudaSuccess);
}

bool CudaGraphCapture::finish() {
  if (!capturing_) {
    ADD_FAILURE() << "no capture to finish";
    return false;
  }
  capturing_ = false;
  cudaGraph_t graph = nullptr;
  cudaError_t status =
      cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph);
  graph_ = graph;
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    ADD_FAILURE() << "the capture failed (a call synchronised, or made "
                     "another call a capture forbids): "
                  << cudaGetErrorString(status);
    return false;
  }
  cudaGraphExec_t exec = nullptr;
  status = cudaGraphInstantiate(&exec, graph, 0);
  exec_ = exec;
  EXPECT_EQ(status, cudaSuccess) << cudaGetErrorString(status);
  return status == cudaSuccess;
}

bool CudaGraphCapture::replay() {
  if (!exec_) {
    ADD_FAILURE() << "no graph to replay";
    return false;
  }
  auto stream = static_cast<cudaStream_t>(stream_);
  cudaError_t status =
      cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), stream);
  if (status == cudaSuccess)
    status = cudaStreamSynchronize(stream);
  EXPECT_EQ(status, cudaSuccess) << cudaGetErrorString(status);
  return status == cudaSuccess;
}
#else
CudaStream::CudaStream() { ADD_FAILURE() << "CUDA stream in a build without CUDA"; }
CudaStream::~CudaStream() = default;
CudaGraphCapture::CudaGraphCapture(void *stream) : stream_(stream) {
  ADD_FAILURE() << "CUDA graph in a build without CUDA";
}
CudaGraphCapture::~CudaGraphCapture() = default;
bool CudaGraphCapture::finish() { return false; }
bool CudaGraphCapture::replay() { return false; }
#endif

} // namespace aoti::test
