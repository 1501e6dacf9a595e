//===- cuda_unavailable.cpp - cuda_api.h for a build without CUDA ----------===//
//
// Compiled instead of cuda/*.cpp when AOTI_HAVE_CUDA is OFF. Every operation
// fails with the same message, so a CUDA model run on such a build says what
// is wrong instead of failing to load with an undefined symbol.
//
//===----------------------------------------------------------------------===//
#include "cuda_api.h"

namespace aoti::shims::cuda {
namespace {
Error unavailable() { return notCompiledIn(); }
} // namespace

bool compiledIn() { return false; }
Expected<int32_t> resolveDeviceIndex(int32_t) { return unavailable(); }
Expected<int32_t> currentDevice() { return unavailable(); }
Error setDevice(int32_t) { return unavailable(); }
void *currentStream(int32_t) { return nullptr; }
void setCurrentStream(int32_t, void *) {}
Expected<void *> allocate(int32_t, size_t) { return unavailable(); }
void release(void *, Device) noexcept {}
Error copyBytes(void *, const void *, size_t, int32_t) { return unavailable(); }
Error zeroBytes(void *, size_t, int32_t) { return unavailable(); }
Error synchronize(int32_t) { return unavailable(); }
Error stridedCopy(const CopyPlan &, void *, const void *, size_t, int32_t) {
  return unavailable();
}
Expected<DeviceCheck *> deviceCheckWord(int32_t) { return unavailable(); }
Expected<DeviceCheck> takeDeviceCheck(int32_t) { return unavailable(); }
} // namespace aoti::shims::cuda
