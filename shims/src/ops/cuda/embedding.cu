//===- ops/cuda/embedding.cu - _embedding_bag on a CUDA device ------------===//
//
// Our own kernel, shaped as torch's CUDA kernel so that its results match
// it: one thread per (bag, feature), in blocks of 32 features by 8 bags,
// grid-stride over the bags. A thread walks its bag's indices in order
// (bag 0 from 0, bag b from offsets[b], each to the next offset and the
// last to the end of indices) and, skipping padding_idx:
//  - sum/mean: accumulates weight[index, feature] (times the index's
//    per-sample weight) in float (double for float64), divides a mean by
//    the bag's count when it is not 0, and stores once;
//  - max: keeps the first value and every strictly greater one, with its
//    index; an empty bag stores 0 and index -1.
// Every thread of a bag writes the bag's count to bag_size (the same
// value); the feature-0 thread writes offset2bag for the bag's indices.
// All is deterministic: no atomics, each output element has one writer.
// Memory traffic is one read of each selected weight element; reads of a
// warp are 32 consecutive features of one row, coalesced when weight's
// rows are contiguous. The (bag 0, feature 0) thread zeroes bag_size's
// slot past the last bag (there with include_last_offset), so one launch
// is the whole call; offset2bag is zeroed instead when there is no bag to
// cover the indices.
//
// The checks are the kernel's own and never wait (ops/checks.h): the
// feature-0 thread of bag b >= 1 checks offsets[b] (the offsets torch's
// kernel reads) against [0, indices.numel()] and offsets[b - 1], and every
// thread checks each index it reads against [0, num_weights). A bad one is
// recorded; a bag's bounds are clamped into [0, indices.numel()] with end
// >= begin, and an index out of range is skipped (not counted), so nothing
// is read out of bounds. With AOTI_SHIMS_CUDA_CHECKS=sync the record is
// read back after the launch (one synchronisation) and the call fails.
//
//===----------------------------------------------------------------------===//
#include "ops/embedding.h"

#include "ops/cuda/checks.cuh"
#include "ops/cuda/element.cuh"

#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

struct BagArgs {
  int64_t numIndices, numBags, features, numWeights;
  int64_t bagSizeCount; // bag_size's length: numBags, or one more
  int64_t stride0, stride1;
  int64_t paddingIdx;
  int32_t mode;
};

template <typename W> struct AccOf {
  using type = float;
};
template <> struct AccOf<double> {
  using type = double;
};

constexpr unsigned kFeatureThreads = 32, kBagThreads = 8;

template <typename W, typename I, typename O>
__global__ void bagKernel(W *output, I *offset2bag, I *bagSize, I *maxIndices,
                          const W *weight, const I *indices, const O *offsets,
                          const W *perSampleWeights, BagArgs a,
                          DeviceCheck *check) {
  using Acc = typename AccOf<W>::type;
  const int64_t chunksPerBag = (a.features + blockDim.x - 1) / blockDim.x;
  const int64_t chunks = a.numBags * chunksPerBag;
  if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0)
    for (int64_t b = a.numBags; b < a.bagSizeCount; ++b)
      bagSize[b] = 0;
  for (int64_t chunk = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
       chunk < chunks; chunk += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t feature = (chunk % chunksPerBag) * blockDim.x + threadIdx.x;
    if (feature >= a.features)
      continue;
    const int64_t bag = chunk / chunksPerBag;
    int64_t begin = bag == 0 ? 0 : static_cast<int64_t>(offsets[bag]);
    int64_t end =
        bag < a.numBags - 1 ? static_cast<int64_t>(offsets[bag + 1]) : a.numIndices;
    if (feature == 0 && bag >= 1 &&
        (begin < 0 || begin > a.numIndices ||
         (bag >= 2 && begin < static_cast<int64_t>(offsets[bag - 1]))))
      recordCheck(check, CheckKind::EmbeddingOffset, begin, bag, a.numIndices);
    begin = begin < 0 ? 0 : (begin > a.numIndices ? a.numIndices : begin);
    end = end < begin ? begin : (end > a.numIndices ? a.numIndices : end);
    const W *column = weight + feature * a.stride1;
    Acc acc = 0;
    int64_t count = 0;
    int64_t argmax = -1;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t row = static_cast<int64_t>(indices[i]);
      if (feature == 0)
        offset2bag[i] = static_cast<I>(bag);
      if (row < 0 || row >= a.numWeights) {
        recordCheck(check, CheckKind::EmbeddingIndex, row);
        continue;
      }
      if (row == a.paddingIdx)
        continue;
      const Acc value = static_cast<Acc>(load(column[row * a.stride0]));
      if (a.mode == static_cast<int32_t>(BagMode::Max)) {
        if (count == 0 || value > acc) {
          acc = value;
          argmax = row;
        }
      } else if (perSampleWeights) {
        acc += static_cast<Acc>(load(perSampleWeights[i])) * value;
      } else {
        acc += value;
      }
      ++count;
    }
    if (a.mode == static_cast<int32_t>(BagMode::Mean) && count != 0)
      acc = acc / static_cast<Acc>(count);
    output[bag * a.features + feature] = store<W>(acc);
    bagSize[bag] = static_cast<I>(count);
    if (a.mode == static_cast<int32_t>(BagMode::Max))
      maxIndices[bag * a.features + feature] = static_cast<I>(argmax);
  }
}

template <typename W> constexpr bool kIsWeightType =
    std::is_same_v<W, __half> || std::is_same_v<W, __nv_bfloat16> ||
    std::is_same_v<W, float> || std::is_same_v<W, double>;

template <typename W, typename I, typename O>
Error launchBags(const OnStream &on, const Tensor &output,
                 const Tensor &offset2bag, const Tensor &bagSize,
                 const Tensor &maxIndices, const Tensor &weight,
                 const Tensor &indices, const Tensor &offsets,
                 const Tensor *psw, const BagArgs &a, DeviceCheck *check) {
  const int64_t chunks =
      a.numBags * ((a.features + kFeatureThreads - 1) / kFeatureThreads);
  int64_t grid = (chunks + kBagThreads - 1) / kBagThreads;
  if (grid > 4096)
    grid = 4096;
  if (grid < 1)
    grid = 1;
  bagKernel<W, I, O><<<static_cast<unsigned>(grid),
                       dim3(kFeatureThreads, kBagThreads), 0, on.stream()>>>(
      static_cast<W *>(output.data()), static_cast<I *>(offset2bag.data()),
      static_cast<I *>(bagSize.data()),
      maxIndices.numel() > 0 ? static_cast<I *>(maxIndices.data()) : nullptr,
      static_cast<const W *>(weight.data()),
      static_cast<const I *>(indices.data()),
      static_cast<const O *>(offsets.data()),
      psw ? static_cast<const W *>(psw->data()) : nullptr, a, check);
  return on.launched("_embedding_bag kernel launch");
}

template <typename W, typename I>
Error launchWithOffsets(const OnStream &on, const Tensor &output,
                        const Tensor &offset2bag, const Tensor &bagSize,
                        const Tensor &maxIndices, const Tensor &weight,
                        const Tensor &indices, const Tensor &offsets,
                        const Tensor *psw, const BagArgs &a,
                        DeviceCheck *check) {
  if (offsets.dtype() == ScalarType::Int32)
    return launchBags<W, I, int32_t>(on, output, offset2bag, bagSize,
                                     maxIndices, weight, indices, offsets, psw,
                                     a, check);
  return launchBags<W, I, int64_t>(on, output, offset2bag, bagSize, maxIndices,
                                   weight, indices, offsets, psw, a, check);
}

} // namespace

Error embeddingBag(const Tensor &output, const Tensor &offset2bag,
                   const Tensor &bagSize, const Tensor &maxIndices,
                   const Tensor &weight, const Tensor &indices,
                   const Tensor &offsets, const Tensor *perSampleWeights,
                   const EmbeddingBag &bag) {
  OnStream on(weight);
  if (Error err = on.takeStatus())
    return err;
  if (bag.numBags == 0 || bag.features == 0) {
    // No (bag, feature) thread runs: torch leaves offset2bag and bag_size
    // unset then; ours are zeros. output and max_indices are empty. No
    // index or offset is read, so none is checked.
    if (Error err = shims::cuda::zeroBytes(
            bagSize.data(), bagSize.numel() * bagSize.itemSize(), on.device()))
      return err;
    return shims::cuda::zeroBytes(offset2bag.data(),
                                  offset2bag.numel() * offset2bag.itemSize(),
                                  on.device());
  }
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  BagArgs a{bag.numIndices,      bag.numBags,
            bag.features,        bag.numWeights,
            bagSize.numel(),     weight.strides()[0],
            weight.strides()[1], bag.paddingIdx,
            static_cast<int32_t>(bag.mode)};
  Error launched =
      visitDtype(weight.dtype(), "_embedding_bag", [&]<typename W>() -> Error {
        if constexpr (!kIsWeightType<W>) {
          return Error::failure("_embedding_bag has no CUDA kernel for ",
                                dtypeName(weight.dtype()));
        } else {
          if (indices.dtype() == ScalarType::Int32)
            return launchWithOffsets<W, int32_t>(
                on, output, offset2bag, bagSize, maxIndices, weight, indices,
                offsets, perSampleWeights, a, *check);
          return launchWithOffsets<W, int64_t>(
              on, output, offset2bag, bagSize, maxIndices, weight, indices,
              offsets, perSampleWeights, a, *check);
        }
      });
  if (launched)
    return launched;
  return verdictIfSync(on);
}

} // namespace aoti::shims::ops::cuda
