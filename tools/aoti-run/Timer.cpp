//===- Timer.cpp - Per-run latency for aoti-run ---------------------------===//
#include "Timer.h"

#include <chrono>

#include <malloc.h>

#ifdef AOTI_RUN_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace aoti::run {

using backend::Error;
using backend::ErrorKind;
using backend::Expected;
using backend::Status;

namespace {

class HostContext final : public DeviceContext {
public:
  void *stream() const override { return nullptr; }
  void start() override { T0 = std::chrono::steady_clock::now(); }
  Expected<double> stop() override {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0)
        .count();
  }
  Status synchronize() override { return Status::success(); }
  Expected<std::unique_ptr<CapturedRun>>
  capture(const std::function<Status()> &) override {
    return Error(ErrorKind::InvalidArgument, "CUDA graphs need a CUDA device");
  }

private:
  std::chrono::steady_clock::time_point T0;
};

#ifdef AOTI_RUN_HAVE_CUDA
Error cudaError(const char *What, cudaError_t E) {
  return Error(ErrorKind::RunFailed, std::string(What) + ": " + cudaGetErrorString(E));
}

class CudaGraphRun final : public CapturedRun {
public:
  CudaGraphRun(cudaGraph_t G, cudaGraphExec_t E, cudaStream_t S) : Graph(G), Exec(E), Stream(S) {}
  ~CudaGraphRun() override {
    cudaGraphExecDestroy(Exec);
    cudaGraphDestroy(Graph);
  }
  Status replay() override {
    if (cudaError_t E = cudaGraphLaunch(Exec, Stream); E != cudaSuccess)
      return cudaError("replaying the CUDA graph", E);
    return Status::success();
  }

private:
  cudaGraph_t Graph;
  cudaGraphExec_t Exec;
  cudaStream_t Stream;
};

class CudaContext final : public DeviceContext {
public:
  ~CudaContext() override {
    if (Begin)
      cudaEventDestroy(Begin);
    if (End)
      cudaEventDestroy(End);
    if (Stream)
      cudaStreamDestroy(Stream);
  }
  Status init(int Index) {
    if (cudaError_t E = cudaSetDevice(Index); E != cudaSuccess)
      return cudaError(("cannot use CUDA device " + std::to_string(Index)).c_str(), E);
    if (cudaError_t E = cudaStreamCreate(&Stream); E != cudaSuccess)
      return cudaError("cannot create a CUDA stream", E);
    if (cudaError_t E = cudaEventCreate(&Begin); E != cudaSuccess)
      return cudaError("cannot create a CUDA event", E);
    if (cudaError_t E = cudaEventCreate(&End); E != cudaSuccess)
      return cudaError("cannot create a CUDA event", E);
    return Status::success();
  }
  void *stream() const override { return Stream; }
  void start() override { cudaEventRecord(Begin, Stream); }
  Expected<double> stop() override {
    cudaEventRecord(End, Stream);
    if (cudaError_t E = cudaEventSynchronize(End); E != cudaSuccess)
      return cudaError("waiting for the run", E);
    float Ms = 0;
    if (cudaError_t E = cudaEventElapsedTime(&Ms, Begin, End); E != cudaSuccess)
      return cudaError("reading the run's time", E);
    return static_cast<double>(Ms);
  }
  Status synchronize() override {
    if (cudaError_t E = cudaStreamSynchronize(Stream); E != cudaSuccess)
      return cudaError("waiting for the stream", E);
    return Status::success();
  }
  Expected<std::unique_ptr<CapturedRun>>
  capture(const std::function<Status()> &Body) override {
    if (Status S = synchronize(); !S)
      return S.takeError();
    if (cudaError_t E = cudaStreamBeginCapture(Stream, cudaStreamCaptureModeRelaxed);
        E != cudaSuccess)
      return cudaError("cannot start a CUDA graph capture", E);
    Status Ran = Body();
    cudaGraph_t Graph = nullptr;
    // Always end the capture, so the stream leaves capture mode.
    cudaError_t Ended = cudaStreamEndCapture(Stream, &Graph);
    if (!Ran) {
      if (Graph)
        cudaGraphDestroy(Graph);
      (void)cudaGetLastError();
      return Ran.takeError();
    }
    if (Ended != cudaSuccess) {
      (void)cudaGetLastError();
      return cudaError("the run cannot be captured into a CUDA graph", Ended);
    }
    cudaGraphExec_t Exec = nullptr;
    if (cudaError_t E =
            cudaGraphInstantiateWithFlags(&Exec, Graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
        E != cudaSuccess) {
      cudaGraphDestroy(Graph);
      return cudaError("cannot instantiate the captured CUDA graph", E);
    }
    return std::unique_ptr<CapturedRun>(std::make_unique<CudaGraphRun>(Graph, Exec, Stream));
  }

private:
  cudaStream_t Stream = nullptr;
  cudaEvent_t Begin = nullptr, End = nullptr;
};
#endif

} // namespace

long long deviceMemoryInUse(const backend::Device &D) {
#ifdef AOTI_RUN_HAVE_CUDA
  if (D.Type != backend::DeviceType::CUDA || cudaSetDevice(D.Index) != cudaSuccess)
    return -1;
  size_t Free = 0, Total = 0;
  if (cudaMemGetInfo(&Free, &Total) != cudaSuccess)
    return -1;
  return static_cast<long long>(Total - Free);
#else
  (void)D;
  return -1;
#endif
}

long long hostHeapInUse() {
  struct mallinfo2 I = mallinfo2();
  return static_cast<long long>(I.uordblks + I.hblkhd);
}

Expected<std::unique_ptr<DeviceContext>> makeDeviceContext(const backend::Device &D) {
  if (D.Type == backend::DeviceType::CPU)
    return std::unique_ptr<DeviceContext>(std::make_unique<HostContext>());
#ifdef AOTI_RUN_HAVE_CUDA
  auto C = std::make_unique<CudaContext>();
  if (Status S = C->init(D.Index); !S)
    return S.takeError();
  return std::unique_ptr<DeviceContext>(std::move(C));
#else
  return Error(ErrorKind::InvalidArgument,
               "this aoti-run was built without CUDA and cannot run on " + D.str());
#endif
}

} // namespace aoti::run
