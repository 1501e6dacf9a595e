//===- shim_runtime.cpp - Grad mode and diagnostics ------------------------===//
#include "aoti/shim.h"

#include "cuda_api.h"
#include "error.h"
#include "ops/checks.h"

#include <cstdio>

namespace {
// Per thread, as in torch; models save, clear and restore it around a run.
thread_local bool gradModeEnabled = true;

const char *orEmpty(const char *text) { return text ? text : ""; }
} // namespace

extern "C" {

bool aoti_torch_grad_mode_is_enabled(void) { return gradModeEnabled; }

void aoti_torch_grad_mode_set_enabled(bool enabled) {
  gradModeEnabled = enabled;
}

void aoti_torch_warn(const char *func, const char *file, uint32_t line,
                     const char *msg) {
  std::fprintf(stderr, "Warning: %s (%s at %s:%u)\n", orEmpty(msg),
               orEmpty(func), orEmpty(file), line);
}

void aoti_torch_check(bool cond, const char *func, const char *file,
                      uint32_t line, const char *msg) {
  if (cond)
    return;
  // torch throws here; an exception must not cross the C ABI, so the failed
  // check is reported and recorded, and the caller carries on.
  char message[768];
  std::snprintf(message, sizeof(message), "check failed: %s (%s at %s:%u)",
                orEmpty(msg), orEmpty(func), orEmpty(file), line);
  std::fprintf(stderr, "aoti_torch_check: %s\n", message);
  aoti::shims::recordError("aoti_torch_check", message);
}

int32_t aoti_shims_has_cuda(void) {
  return aoti::shims::cuda::compiledIn() ? 1 : 0;
}

AOTITorchError aoti_shims_cuda_check_errors(int32_t device_index) {
  if (!aoti::shims::cuda::compiledIn())
    return AOTI_TORCH_SUCCESS;
  return aoti::shims::runShim(__func__, [&]() -> aoti::shims::Error {
    aoti::shims::Expected<int32_t> device =
        aoti::shims::cuda::resolveDeviceIndex(device_index);
    if (!device)
      return device.takeError();
    return aoti::shims::ops::takeCheckFailure(*device);
  });
}

} // extern "C"
