//===- ops/checks.h - How the CUDA fallbacks check data without waiting ---===//
//
// Some arguments can only be checked by reading data: an index against the
// size it indexes, offsets against each other, a sorter's entries. On the
// CPU the entry points refuse them before writing anything. On CUDA a
// check that read the verdict back would synchronise the stream at every
// call: most of the time of a small call, and an error inside a CUDA graph
// capture (aoti-run --cuda-graph). torch's CUDA kernels check with device
// asserts and never wait; ours never wait either, by default:
//
//  - the kernel that would dereference a bad value does not: it skips the
//    element (or leaves the output as each op's comment says) and records
//    the first problem met in the device's DeviceCheck (cuda_api.h: one
//    per device, in device memory, for the life of the process);
//  - the problem is reported by aoti_shims_cuda_check_errors(device)
//    (aoti/shim.h), which waits for the current stream, returns the
//    recorded problem as a failure with the message the synchronous check
//    gives, and clears it;
//  - with the environment variable AOTI_SHIMS_CUDA_CHECKS=sync (read at
//    every call) each of these ops instead reads the record back before it
//    returns (one synchronisation) and fails with that message, as the
//    CPU does: for debugging. A problem recorded earlier and not yet
//    reported is reported by the next such call.
//
// Ops whose result's size depends on the data (nonzero, masked_select,
// boolean-mask indexing, repeat_interleave without output_size) read their
// count back in either mode, as torch does; that is the one
// synchronisation they make.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CHECKS_H
#define AOTI_SHIMS_OPS_CHECKS_H

#include "cuda_api.h"
#include "error.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace aoti::shims::ops {

/// What a DeviceCheck records (its `kind`), with the meaning of its value
/// and details.
enum class CheckKind : int32_t {
  None = 0,
  IndexOutOfBounds,      // index, scatter: value; dim, size
  IndexReduceOutOfRange, // value; dim, size
  MaskedScatterSource,   // value: true elements of mask; source.numel()
  SegmentNegativeLength, // value
  SegmentLengthsPastEnd, // ; data.size(axis)
  SegmentLengthsSum,     // ; data.size(axis)
  SegmentOffsetOutside,  // value; data.size(axis)
  SegmentOffsetsFall,    // value; the offset before it
  SorterOutOfRange,      // value; boundaries.size(-1)
  EmbeddingIndex,        // value
  EmbeddingOffset,       // value; position k, indices.numel()
  HistcNotFinite,        // ; low and high, as the bits of doubles
  HistcEmptyRange,       // ; low and high, as the bits of doubles
};

/// Whether the CUDA fallbacks check synchronously: AOTI_SHIMS_CUDA_CHECKS
/// is "sync". Read at every call, so that a test or a debugging session
/// can switch it; any other value, or none, is the default (record, report
/// later).
inline bool cudaChecksSync() {
  const char *mode = std::getenv("AOTI_SHIMS_CUDA_CHECKS");
  return mode && std::strcmp(mode, "sync") == 0;
}

namespace detail {
inline double doubleFromBits(int64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
inline std::string shown(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}
} // namespace detail

/// The failure a recorded DeviceCheck stands for, worded as the
/// synchronous check words it.
inline Error describeCheck(const shims::cuda::DeviceCheck &check) {
  const int64_t v = check.value, a = check.detail[0], b = check.detail[1];
  switch (static_cast<CheckKind>(check.kind)) {
  case CheckKind::IndexOutOfBounds:
    return Error::failure("index ", v, " is out of bounds for dimension ", a,
                          " with size ", b);
  case CheckKind::IndexReduceOutOfRange:
    return Error::failure("index out of range in self: index ", v,
                          " but dimension ", a, " has size ", b);
  case CheckKind::MaskedScatterSource:
    return Error::failure("Number of elements of source < number of ones in "
                          "mask (source has ",
                          a, ", mask has ", v, ")");
  case CheckKind::SegmentNegativeLength:
    return Error::failure("lengths contains negative value!");
  case CheckKind::SegmentLengthsPastEnd:
    return Error::failure("segment_reduce(): lengths run past "
                          "data.size(axis) = ",
                          a);
  case CheckKind::SegmentLengthsSum:
    return Error::failure("segment_reduce(): Expected all rows of lengths "
                          "along axis to sum to data.size(lengths.dim()-1) "
                          "when !unsafe.");
  case CheckKind::SegmentOffsetOutside:
    return Error::failure("segment_reduce(): offsets hold ", v, ", outside [0, ",
                          a, "] (data.size(axis))");
  case CheckKind::SegmentOffsetsFall:
    return Error::failure("segment_reduce(): offsets must not decrease (", a,
                          " then ", v, ")");
  case CheckKind::SorterOutOfRange:
    return Error::failure("torch.searchsorted(): sorter index out of range "
                          "(sorter holds ",
                          v, ", outside [0, ", a, "))");
  case CheckKind::EmbeddingIndex:
    return Error::failure("embedding_bag: Expected idx >= 0 && idx < "
                          "num_embeddings but found idx to be ",
                          v);
  case CheckKind::EmbeddingOffset:
    return Error::failure("offsets[", a, "] = ", v, " is outside [0, ", b,
                          "] or below offsets[", a - 1,
                          "] (offsets must not decrease)");
  case CheckKind::HistcNotFinite:
    return Error::failure("torch.histc: range of [",
                          detail::shown(detail::doubleFromBits(a)), ", ",
                          detail::shown(detail::doubleFromBits(b)),
                          "] is not finite");
  case CheckKind::HistcEmptyRange:
    return Error::failure("torch.histc: max must be larger than min (range [",
                          detail::shown(detail::doubleFromBits(a)), ", ",
                          detail::shown(detail::doubleFromBits(b)), "])");
  case CheckKind::None:
    break;
  }
  return Error::failure("a CUDA kernel recorded an unknown problem (kind ",
                        check.kind, ", value ", v, ")");
}

/// The problem recorded on `device` and not reported yet, as a failure
/// (success when there is none); clears it. Waits for the current stream
/// of the device.
inline Error takeCheckFailure(int32_t device) {
  Expected<shims::cuda::DeviceCheck> check =
      shims::cuda::takeDeviceCheck(device);
  if (!check)
    return check.takeError();
  if (check->set == 0)
    return Error::success();
  return describeCheck(*check);
}

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CHECKS_H
