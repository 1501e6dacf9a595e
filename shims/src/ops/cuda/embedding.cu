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
// rows are contiguous. bag_size is zeroed first (its slot past the last
// bag, there with include_last_offset, stays 0) and so is offset2bag when
// there is no bag to cover the indices.
//
// checkEmbeddingBag: one kernel flags the first index outside [0,
// numWeights) and the first used offset (offsets[1..numBags-1], the ones
// torch's kernel reads) out of range or below its predecessor; the host
// reads the flags back, waiting for the stream.
//
//===----------------------------------------------------------------------===//
#include "ops/embedding.h"

#include "ops/cuda/element.cuh"

#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

template <typename I> __device__ inline int64_t at(const void *data, int64_t k) {
  return static_cast<int64_t>(static_cast<const I *>(data)[k]);
}

__device__ inline int64_t indexAt(const void *data, bool wide, int64_t k) {
  return wide ? at<int64_t>(data, k) : at<int32_t>(data, k);
}

struct CheckArgs {
  const void *indices;
  const void *offsets;
  bool indicesWide, offsetsWide;
  int64_t numIndices, numBags, numWeights;
};

// flags[0]: ~(first bad index position); flags[1]: ~(first bad offset).
__global__ void checkKernel(CheckArgs a, unsigned long long *flags) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t total = a.numIndices > a.numBags ? a.numIndices : a.numBags;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       k < total; k += step) {
    if (k < a.numIndices) {
      const int64_t v = indexAt(a.indices, a.indicesWide, k);
      if (v < 0 || v >= a.numWeights)
        atomicMax(flags, ~static_cast<unsigned long long>(k));
    }
    if (k >= 1 && k < a.numBags) {
      const int64_t o = indexAt(a.offsets, a.offsetsWide, k);
      const bool bad = o < 0 || o > a.numIndices ||
                       (k >= 2 && o < indexAt(a.offsets, a.offsetsWide, k - 1));
      if (bad)
        atomicMax(flags + 1, ~static_cast<unsigned long long>(k));
    }
  }
}

struct BagArgs {
  int64_t numIndices, numBags, features;
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
                          const W *perSampleWeights, BagArgs a) {
  using Acc = typename AccOf<W>::type;
  const int64_t chunksPerBag = (a.features + blockDim.x - 1) / blockDim.x;
  const int64_t chunks = a.numBags * chunksPerBag;
  for (int64_t chunk = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
       chunk < chunks; chunk += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t feature = (chunk % chunksPerBag) * blockDim.x + threadIdx.x;
    if (feature >= a.features)
      continue;
    const int64_t bag = chunk / chunksPerBag;
    const int64_t begin = bag == 0 ? 0 : static_cast<int64_t>(offsets[bag]);
    const int64_t end =
        bag < a.numBags - 1 ? static_cast<int64_t>(offsets[bag + 1]) : a.numIndices;
    const W *column = weight + feature * a.stride1;
    Acc acc = 0;
    int64_t count = 0;
    int64_t argmax = -1;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t row = static_cast<int64_t>(indices[i]);
      if (feature == 0)
        offset2bag[i] = static_cast<I>(bag);
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
                 const Tensor *psw, const BagArgs &a) {
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
      psw ? static_cast<const W *>(psw->data()) : nullptr, a);
  return on.launched("_embedding_bag kernel launch");
}

template <typename W, typename I>
Error launchWithOffsets(const OnStream &on, const Tensor &output,
                        const Tensor &offset2bag, const Tensor &bagSize,
                        const Tensor &maxIndices, const Tensor &weight,
                        const Tensor &indices, const Tensor &offsets,
                        const Tensor *psw, const BagArgs &a) {
  if (offsets.dtype() == ScalarType::Int32)
    return launchBags<W, I, int32_t>(on, output, offset2bag, bagSize,
                                     maxIndices, weight, indices, offsets, psw, a);
  return launchBags<W, I, int64_t>(on, output, offset2bag, bagSize, maxIndices,
                                   weight, indices, offsets, psw, a);
}

} // namespace

Error checkEmbeddingBag(const Tensor &indices, const Tensor &offsets,
                        const EmbeddingBag &bag) {
  const int64_t total =
      bag.numIndices > bag.numBags ? bag.numIndices : bag.numBags;
  if (total == 0)
    return Error::success();
  OnStream on(indices);
  if (Error err = on.takeStatus())
    return err;
  const int64_t two = 2;
  Expected<Tensor> flags = Tensor::emptyContiguous(
      std::span<const int64_t>(&two, 1), ScalarType::Int64, indices.device());
  if (!flags)
    return flags.takeError();
  auto *flagData = static_cast<unsigned long long *>(flags->data());
  if (Error err = shims::cuda::zeroBytes(flagData, 2 * sizeof(int64_t), on.device()))
    return err;
  CheckArgs a{indices.data(), offsets.data(),
              indices.dtype() == ScalarType::Int64,
              offsets.dtype() == ScalarType::Int64, bag.numIndices,
              bag.numBags, bag.numWeights};
  checkKernel<<<blocksFor(total), kThreadsPerBlock, 0, on.stream()>>>(a, flagData);
  if (Error err = on.launched("_embedding_bag check launch"))
    return err;
  unsigned long long found[2] = {0, 0};
  if (Error err = shims::cuda::copyBytes(found, flagData, sizeof(found), on.device()))
    return err;
  if (Error err = shims::cuda::synchronize(on.device()))
    return err;
  // The offending value, read back from its tensor.
  auto valueAt = [&](const Tensor &t, int64_t k) -> Expected<int64_t> {
    const char *p = static_cast<const char *>(t.data()) + k * t.itemSize();
    int64_t value = 0;
    int32_t narrow = 0;
    const bool wide = t.dtype() == ScalarType::Int64;
    if (Error err = shims::cuda::copyBytes(wide ? static_cast<void *>(&value)
                                                : static_cast<void *>(&narrow),
                                           p, t.itemSize(), on.device()))
      return err;
    if (Error err = shims::cuda::synchronize(on.device()))
      return err;
    return wide ? value : static_cast<int64_t>(narrow);
  };
  if (found[1] != 0) {
    const int64_t k = static_cast<int64_t>(~found[1]);
    Expected<int64_t> v = valueAt(offsets, k);
    if (!v)
      return v.takeError();
    return Error::failure("offsets[", k, "] = ", *v,
                          " is outside [0, ", bag.numIndices,
                          "] or below offsets[", k - 1, "] (offsets must not "
                          "decrease)");
  }
  if (found[0] != 0) {
    Expected<int64_t> v = valueAt(indices, static_cast<int64_t>(~found[0]));
    if (!v)
      return v.takeError();
    return Error::failure("embedding_bag: Expected idx >= 0 && idx < "
                          "num_embeddings but found idx to be ", *v);
  }
  return Error::success();
}

Error embeddingBag(const Tensor &output, const Tensor &offset2bag,
                   const Tensor &bagSize, const Tensor &maxIndices,
                   const Tensor &weight, const Tensor &indices,
                   const Tensor &offsets, const Tensor *perSampleWeights,
                   const EmbeddingBag &bag) {
  OnStream on(weight);
  if (Error err = on.takeStatus())
    return err;
  if (Error err = shims::cuda::zeroBytes(bagSize.data(),
                                         bagSize.numel() * bagSize.itemSize(),
                                         on.device()))
    return err;
  if (bag.numBags == 0 || bag.features == 0) {
    // No (bag, feature) thread runs: torch leaves offset2bag and bag_size
    // unset then; ours are zeros. output and max_indices are empty.
    return shims::cuda::zeroBytes(offset2bag.data(),
                                  offset2bag.numel() * offset2bag.itemSize(),
                                  on.device());
  }
  BagArgs a{bag.numIndices, bag.numBags,  bag.features,
            weight.strides()[0], weight.strides()[1], bag.paddingIdx,
            static_cast<int32_t>(bag.mode)};
  return visitDtype(weight.dtype(), "_embedding_bag", [&]<typename W>() -> Error {
    if constexpr (!kIsWeightType<W>) {
      return Error::failure("_embedding_bag has no CUDA kernel for ",
                            dtypeName(weight.dtype()));
    } else {
      if (indices.dtype() == ScalarType::Int32)
        return launchWithOffsets<W, int32_t>(on, output, offset2bag, bagSize,
                                             maxIndices, weight, indices,
                                             offsets, perSampleWeights, a);
      return launchWithOffsets<W, int64_t>(on, output, offset2bag, bagSize,
                                           maxIndices, weight, indices, offsets,
                                           perSampleWeights, a);
    }
  });
}

} // namespace aoti::shims::ops::cuda
