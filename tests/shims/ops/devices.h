//===- ops/devices.h - Every family test runs its cases on every device ----===//
//
// A family's test file (tests/shims/ops/<family>_test.cpp) writes its cases
// once, as TEST_P of a fixture parameterized by OpDevice, and instantiates
// them with
//
//   INSTANTIATE_TEST_SUITE_P(, TopkTest, testing::ValuesIn(devicesUnderTest()),
//                            deviceName);
//
// so that they run as TopkTest.*/Cpu everywhere and as TopkTest.*/Cuda
// where this build has CUDA and a GPU is visible. gtest evaluates the list
// when the tests are listed, on the machine that runs them: ctest's
// discovery (DISCOVERY_MODE PRE_TEST) then registers the CUDA cases exactly
// where they can run, and none is counted as passed without a GPU. A GPU
// run sets AOTI_TEST_REQUIRE_CUDA=1, which makes a missing GPU fail the
// listing instead of dropping the CUDA cases (ci/gpu-test.sh does).
//
// Tensors are made and read through the public C ABI only (ops_test_util.h),
// so the same case code serves both devices.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_DEVICES_H
#define AOTI_TESTS_SHIMS_OPS_DEVICES_H

#include "ops_test_util.h"
#include "torch_fallbacks.h" // every entry point, as torch declares it

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace aoti::test {

struct OpDevice {
  const char *name; // "Cpu", "Cuda": the instantiation's prefix
  int32_t type;     // aoti_torch_device_type_*()
  bool isCuda() const { return type == aoti_torch_device_type_cuda(); }
};

inline void PrintTo(const OpDevice &device, std::ostream *os) {
  *os << device.name;
}

/// Whether a CUDA tensor can be made: CUDA compiled in and a device visible.
inline bool cudaDeviceVisible() {
  if (!aoti_shims_has_cuda())
    return false;
  const int64_t sizes[] = {1};
  AtenTensorHandle probe = nullptr;
  if (aoti_torch_empty_strided(1, sizes, nullptr, aoti_torch_dtype_float32(),
                               aoti_torch_device_type_cuda(), 0,
                               &probe) != AOTI_TORCH_SUCCESS)
    return false;
  aoti_torch_delete_tensor_object(probe);
  return true;
}

/// The devices this run tests: the CPU, and CUDA where it can run.
inline std::vector<OpDevice> devicesUnderTest() {
  std::vector<OpDevice> devices = {{"Cpu", aoti_torch_device_type_cpu()}};
  if (cudaDeviceVisible()) {
    devices.push_back({"Cuda", aoti_torch_device_type_cuda()});
  } else if (const char *require = std::getenv("AOTI_TEST_REQUIRE_CUDA");
             require && std::string(require) == "1") {
    std::fprintf(stderr,
                 "AOTI_TEST_REQUIRE_CUDA=1 but no CUDA tensor can be made: "
                 "%s\n",
                 aoti_shims_has_cuda() ? aoti_shims_last_error()
                                       : "this build has no CUDA");
    std::abort();
  }
  return devices;
}

/// The CUDA device alone, where it can run: for what only a GPU can show
/// (a stream guard's stream, a CPU entry point refusing a CUDA tensor). Such
/// a suite also says GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST, as it
/// has no instance without a GPU.
inline std::vector<OpDevice> cudaDevicesUnderTest() {
  std::vector<OpDevice> devices = devicesUnderTest();
  devices.erase(devices.begin());
  return devices;
}

inline std::string deviceName(const testing::TestParamInfo<OpDevice> &info) {
  return info.param.name;
}

/// A non-blocking CUDA stream for a test's stream guard, made and destroyed
/// through the CUDA runtime the shims use (the test links it in CUDA
/// builds); null, and every test using it skipped, without CUDA.
class CudaStream {
public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream &) = delete;
  CudaStream &operator=(const CudaStream &) = delete;
  void *get() const { return stream_; }

private:
  void *stream_ = nullptr;
};

/// Captures what is enqueued on `stream` (which a stream guard made
/// current) while it lives into a CUDA graph, in cudaStreamCaptureModeGlobal:
/// any synchronisation, or any other call unsafe during a capture, fails
/// the call that makes it and invalidates the capture, which finish() then
/// reports. The graph's allocations (the results of the calls captured)
/// are valid once replay() has run; free them before this goes. Without
/// CUDA every step fails the test.
class CudaGraphCapture {
public:
  explicit CudaGraphCapture(void *stream);
  ~CudaGraphCapture();
  CudaGraphCapture(const CudaGraphCapture &) = delete;
  CudaGraphCapture &operator=(const CudaGraphCapture &) = delete;
  /// Ends the capture and instantiates the graph; false (after a test
  /// failure saying why) when the capture failed.
  bool finish();
  /// Launches the graph on the stream once and waits for it.
  bool replay();

private:
  void *stream_ = nullptr;
  void *graph_ = nullptr;
  void *exec_ = nullptr;
  bool capturing_ = false;
};

/// AOTI_SHIMS_CUDA_CHECKS=sync for a scope (the CUDA fallbacks then refuse
/// bad indices synchronously, with the CPU's messages: docs/ops/checks.md),
/// and the previous setting back after it.
class SyncCudaChecks {
public:
  SyncCudaChecks() {
    if (const char *old = std::getenv("AOTI_SHIMS_CUDA_CHECKS")) {
      hadValue_ = true;
      previous_ = old;
    }
    setenv("AOTI_SHIMS_CUDA_CHECKS", "sync", 1);
  }
  ~SyncCudaChecks() {
    if (hadValue_)
      setenv("AOTI_SHIMS_CUDA_CHECKS", previous_.c_str(), 1);
    else
      unsetenv("AOTI_SHIMS_CUDA_CHECKS");
  }
  SyncCudaChecks(const SyncCudaChecks &) = delete;
  SyncCudaChecks &operator=(const SyncCudaChecks &) = delete;

private:
  bool hadValue_ = false;
  std::string previous_;
};

/// What the CUDA fallbacks recorded on device 0 and did not report yet
/// (aoti_shims_cuda_check_errors), or "" when nothing; forgets it.
inline std::string takeCudaCheckError() {
  aoti_shims_clear_last_error();
  if (aoti_shims_cuda_check_errors(0) == AOTI_TORCH_SUCCESS)
    return "";
  return aoti_shims_last_error();
}

/// The fixture of a family's cases: the device under test, and tensors on it.
class OpTest : public testing::TestWithParam<OpDevice> {
protected:
  int32_t device() const { return GetParam().type; }
  bool onCuda() const { return GetParam().isCuda(); }
  TensorHandle tensor(const std::vector<double> &values, const Layout &layout,
                      const Dtype &type) const {
    return makeTensor(values, layout, type, device());
  }
};

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_OPS_DEVICES_H
