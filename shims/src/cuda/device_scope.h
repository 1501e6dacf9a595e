//===- device_scope.h - CUDA status checks and a current-device scope ------===//
#ifndef AOTI_SHIMS_CUDA_DEVICE_SCOPE_H
#define AOTI_SHIMS_CUDA_DEVICE_SCOPE_H

#include "error.h"

#include <cuda_runtime_api.h>

#include <utility>

namespace aoti::shims::cuda {

/// Success, or a failure naming `what` and the CUDA error. A failure also
/// clears the runtime's per-thread last error: a model checks
/// cudaGetLastError() after its own launches and must not see ours.
inline Error checkCuda(cudaError_t status, const char *what) {
  if (status == cudaSuccess)
    return Error::success();
  (void)cudaGetLastError();
  return Error::failure(what, " failed: ", cudaGetErrorName(status), ": ",
                        cudaGetErrorString(status));
}

/// Makes a device current for a scope, and the previous one current again
/// when the scope ends. Check takeStatus() before relying on it.
class ScopedDevice {
public:
  explicit ScopedDevice(int32_t device) : status_(enter(device)) {}
  ~ScopedDevice() {
    if (restore_ && cudaSetDevice(previous_) != cudaSuccess)
      (void)cudaGetLastError();
  }
  ScopedDevice(const ScopedDevice &) = delete;
  ScopedDevice &operator=(const ScopedDevice &) = delete;

  /// The outcome of entering the scope; call once.
  Error takeStatus() { return std::move(status_); }

private:
  // Makes `device` current, remembering the one to restore. (Initialises
  // status_, so the members it sets are declared before it.)
  Error enter(int32_t device) {
    int current = 0;
    if (Error err = checkCuda(cudaGetDevice(&current), "cudaGetDevice"))
      return err;
    previous_ = current;
    if (current == device)
      return Error::success();
    if (Error err = checkCuda(cudaSetDevice(device), "cudaSetDevice"))
      return err;
    restore_ = true;
    return Error::success();
  }

  int previous_ = 0;
  bool restore_ = false;
  Error status_;
};

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_CUDA_DEVICE_SCOPE_H
