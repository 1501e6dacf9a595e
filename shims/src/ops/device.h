//===- ops/device.h - How an op family is split between devices -----------===//
//
// Every fallback op family has the same four parts (docs/shims.md, "Adding
// a fallback op"):
//
//   ops/<family>.h         the problem each op hands to a device, and the
//                          device functions: ops::cpu::<op>, ops::cuda::<op>
//   ops/<family>.cpp       the C entry points aoti_torch_{cpu,cuda}_<op>:
//                          decode and check the arguments the way torch's
//                          meta functions do, allocate the results, call
//                          the device function
//   ops/cpu/<family>.cpp   the CPU implementation
//   ops/cuda/<family>.cu   the CUDA implementation (.cpp when the family
//                          launches no kernel of its own, only a library's)
//
// The entry points are written once, device-neutral, so every build exports
// the same symbols. A build without CUDA compiles no ops/cuda/ file; there
// AOTI_SHIMS_CUDA_OP turns each CUDA declaration into a definition that
// fails saying so. That is the one place such a build is handled: no CUDA
// tensor can exist in it, so the entry points' device checks refuse a CUDA
// call before it gets here, and the stand-in only keeps the link whole.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_DEVICE_H
#define AOTI_SHIMS_OPS_DEVICE_H

#include "cuda_api.h"
#include "error.h"
#include "tensor.h"

/// Declares the CUDA implementation `Ret Name(Params...)` of an op, in
/// namespace aoti::shims::ops::cuda:
///   AOTI_SHIMS_CUDA_OP(Error, cumsum, const Tensor &out, const Tensor &self,
///                      const ScanLines &lines);
#ifdef AOTI_SHIMS_HAVE_CUDA
#define AOTI_SHIMS_CUDA_OP(Ret, Name, ...) Ret Name(__VA_ARGS__)
#else
#define AOTI_SHIMS_CUDA_OP(Ret, Name, ...)                                     \
  _Pragma("GCC diagnostic push")                                               \
  _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                     \
  inline Ret Name(__VA_ARGS__) { return ::aoti::shims::cuda::notCompiledIn(); } \
  _Pragma("GCC diagnostic pop") static_assert(true)
#endif

namespace aoti::shims::ops {

/// Fails unless `tensor`, the argument `name`, is on a device of `type`:
/// "'self' is on cpu; this topk needs a CUDA tensor".
inline Error requireDevice(const Tensor &tensor, const char *name,
                           DeviceType type, const char *op) {
  if (tensor.device().type == type)
    return Error::success();
  return Error::failure("'", name, "' is on ", describe(tensor.device()),
                        "; this ", op, " needs a ",
                        type == DeviceType::CUDA ? "CUDA" : "CPU", " tensor");
}

/// Fails unless `tensor`, the argument `name`, is on `device` (the same
/// memory: any CPU index, or the same CUDA device).
inline Error requireSameDevice(const Tensor &tensor, const char *name,
                               const Device &device, const char *other) {
  if (tensor.device().sameMemory(device))
    return Error::success();
  return Error::failure("'", name, "' is on ", describe(tensor.device()),
                        " but '", other, "' is on ", describe(device));
}

/// A dimension argument counted from the end when negative, checked against
/// a `rank`-d tensor (a 0-d tensor takes 0 and -1, as torch wraps them).
inline Expected<int64_t> wrapDim(int64_t dim, int64_t rank, const char *name) {
  const int64_t r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r)
    return Error::failure(name, " ", dim, " is out of range for a ", rank,
                          "-d 'self' (expected [", -r, ", ", r - 1, "])");
  return dim < 0 ? dim + r : dim;
}

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_DEVICE_H
