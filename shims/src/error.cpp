//===- error.cpp - The thread-local last error ----------------------------===//
//
// The message lives in a fixed thread-local buffer rather than a std::string
// so that recording an error can never itself fail: the interesting error is
// often "out of memory".
//
//===----------------------------------------------------------------------===//
#include "error.h"

#include <cstdio>
#include <cstdlib>

namespace aoti::shims {
namespace {

constexpr size_t kMaxMessage = 1024;
thread_local char lastError[kMaxMessage] = "";

// AOTI_SHIMS_LOG_ERRORS=1 also prints every failure to stderr; a model turns a
// failed shim into a bare "run failed", so this is the quickest way to see why.
bool logErrors() {
  static const bool enabled = [] {
    const char *value = std::getenv("AOTI_SHIMS_LOG_ERRORS");
    return value && *value && *value != '0';
  }();
  return enabled;
}

} // namespace

void recordError(const char *function, const char *message) noexcept {
  std::snprintf(lastError, kMaxMessage, "%s: %s", function, message);
  if (logErrors())
    std::fprintf(stderr, "aoti_shims: error: %s\n", lastError);
}

} // namespace aoti::shims

extern "C" {

const char *aoti_shims_last_error(void) { return aoti::shims::lastError; }

void aoti_shims_clear_last_error(void) { aoti::shims::lastError[0] = '\0'; }

} // extern "C"
