// A library that defines one aoti_torch_* shim again, as a second shim
// provider (or a stray copy) in a host would. It returns the right value, so
// the run still succeeds; which definition binds is what the matrix checks.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) int32_t aoti_torch_dtype_float32(void) {
  return 6;
}
