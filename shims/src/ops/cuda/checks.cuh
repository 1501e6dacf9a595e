//===- ops/cuda/checks.cuh - Recording a bad argument inside a kernel -----===//
//
// The device half of ops/checks.h: a kernel that meets a value it must not
// dereference calls recordCheck() on the device's DeviceCheck (passed in
// as an argument: checkWordFor() looks it up), and carries on without it.
// The first thread to claim the word fills it in; later problems are
// dropped until the word is read and cleared. A word already set is seen
// with one plain load, so a tensor full of bad values costs no contention.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_CHECKS_CUH
#define AOTI_SHIMS_OPS_CUDA_CHECKS_CUH

#include "cuda_api.h"
#include "ops/checks.h"
#include "ops/cuda/element.cuh"

#include <cstdint>

namespace aoti::shims::ops::cuda {

using shims::cuda::DeviceCheck;

__device__ inline void recordCheck(DeviceCheck *word, CheckKind kind,
                                   long long value, long long a = 0,
                                   long long b = 0) {
  if (*reinterpret_cast<volatile unsigned *>(&word->set) != 0u)
    return;
  if (atomicCAS(reinterpret_cast<unsigned *>(&word->set), 0u, 1u) != 0u)
    return;
  word->kind = static_cast<int32_t>(kind);
  word->value = value;
  word->detail[0] = a;
  word->detail[1] = b;
}

/// The DeviceCheck of the device `on` launches on.
inline Expected<DeviceCheck *> checkWordFor(const OnStream &on) {
  return shims::cuda::deviceCheckWord(on.device());
}

/// In the synchronous mode (ops/checks.h), the verdict of what was enqueued
/// on `on`'s stream so far (one synchronisation); else success, at once.
inline Error verdictIfSync(const OnStream &on) {
  if (!cudaChecksSync())
    return Error::success();
  return takeCheckFailure(on.device());
}

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_CHECKS_CUH
