//===- ops/cpu/embedding.cpp - _embedding_bag on the host -----------------===//
//
// Our own loops, bag by bag, features innermost: for each index of the
// bag that is not padding_idx, its row of weight (any strides) is
// combined into a row of accumulators in the order of the indices, as
// torch's CPU kernels do:
//  - sum: acc += row (times the index's per-sample weight), accumulated in
//    float for float16/bfloat16/float32 and in double for float64 (torch
//    reduces the 16-bit types in a float buffer too, and float32 in float);
//  - mean: the sum stored in weight's dtype, then divided by the bag's
//    count (at least 1) in that dtype's arithmetic, as torch's CPU kernel
//    divides its output in place (a 16-bit result is rounded twice);
//  - max: the first non-padding row, then every strictly greater value
//    (so the first maximum wins ties, and a NaN is kept only when it comes
//    first), with the index it came from; an empty bag gives 0.
// offset2bag is the bag of each index: the number of bag starts at or
// before it, less one (torch's index_add/cumsum of offsets computes the
// same). The cost is O(indices * features) time, O(features) memory.
//
//===----------------------------------------------------------------------===//
#include "ops/embedding.h"

#include "ops/cpu/element.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

std::vector<int64_t> readIndices(const Tensor &t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == ScalarType::Int32) {
    const int32_t *data = static_cast<const int32_t *>(t.data());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = data[i];
  } else {
    const int64_t *data = static_cast<const int64_t *>(t.data());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = data[i];
  }
  return v;
}

template <typename A> void writeAux(const Tensor &t, int64_t at, int64_t value) {
  static_cast<A *>(t.data())[at] = static_cast<A>(value);
}

void writeIndex(const Tensor &t, int64_t at, int64_t value) {
  if (t.dtype() == ScalarType::Int32)
    writeAux<int32_t>(t, at, value);
  else
    writeAux<int64_t>(t, at, value);
}

template <typename W>
Error bagsOf(const Tensor &output, const Tensor &offset2bag,
             const Tensor &bagSize, const Tensor &maxIndices,
             const Tensor &weight, const Tensor &indices, const Tensor &offsets,
             const Tensor *perSampleWeights, const EmbeddingBag &b) {
  using C = Compute<W>;
  using Acc = std::conditional_t<std::is_same_v<W, double>, double, float>;
  const std::vector<int64_t> idx = readIndices(indices);
  const std::vector<int64_t> off = readIndices(offsets);
  const W *w = static_cast<const W *>(weight.data());
  const int64_t s0 = weight.strides()[0], s1 = weight.strides()[1];
  const W *psw = perSampleWeights
                     ? static_cast<const W *>(perSampleWeights->data())
                     : nullptr;
  W *out = static_cast<W *>(output.data());
  const int64_t d = b.features;
  std::vector<Acc> acc(static_cast<size_t>(d));
  std::vector<int64_t> argmax(static_cast<size_t>(d));

  for (int64_t bag = 0; bag < b.numBags; ++bag) {
    const int64_t begin = off[bag];
    const int64_t end = bag + 1 < b.numBags ? off[bag + 1] : b.numIndices;
    std::fill(acc.begin(), acc.end(), Acc(0));
    std::fill(argmax.begin(), argmax.end(), int64_t(0));
    int64_t count = 0;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t row = idx[i];
      if (row == b.paddingIdx)
        continue;
      const W *r = w + row * s0;
      if (b.mode == BagMode::Max) {
        for (int64_t f = 0; f < d; ++f) {
          const Acc value = static_cast<Acc>(load(r[f * s1]));
          if (count == 0 || value > acc[f]) {
            acc[f] = value;
            argmax[f] = row;
          }
        }
      } else {
        const Acc scale = psw ? static_cast<Acc>(load(psw[i])) : Acc(1);
        for (int64_t f = 0; f < d; ++f)
          acc[f] += psw ? static_cast<Acc>(load(r[f * s1])) * scale
                        : static_cast<Acc>(load(r[f * s1]));
      }
      ++count;
    }
    W *o = out + bag * d;
    for (int64_t f = 0; f < d; ++f) {
      W value = store<W>(acc[f]);
      if (b.mode == BagMode::Mean)
        value = store<W>(load(value) / static_cast<C>(count > 0 ? count : 1));
      o[f] = value;
    }
    if (bagSize.numel() > 0)
      writeIndex(bagSize, bag, b.countBags ? count : 0);
    if (b.mode == BagMode::Max)
      for (int64_t f = 0; f < d; ++f)
        writeIndex(maxIndices, bag * d + f, argmax[f]);
    else if (maxIndices.numel() > 0)
      writeIndex(maxIndices, bag, b.maxIndicesAreCounts ? count : 0);
  }
  // _forward_only's bag_size has a slot past the last bag with
  // include_last_offset; torch's CPU kernel zeroes it.
  for (int64_t k = b.numBags; k < bagSize.numel(); ++k)
    writeIndex(bagSize, k, 0);
  if (offset2bag.numel() > 0) {
    int64_t starts = 0; // bags starting at or before index i
    for (int64_t i = 0; i < b.numIndices; ++i) {
      while (starts < b.numBags && off[starts] <= i)
        ++starts;
      writeIndex(offset2bag, i, starts - 1);
    }
  }
  return Error::success();
}

} // namespace

Error checkEmbeddingBag(const Tensor &indices, const Tensor &offsets,
                        const EmbeddingBag &b) {
  const std::vector<int64_t> off = readIndices(offsets);
  if (!off.empty()) {
    if (off.front() != 0)
      return Error::failure("offsets[0] has to be 0, i.e., the first sequence "
                            "in the mini-batch has to start from position 0. "
                            "However, got ", off.front());
    if (off.back() > b.numIndices)
      return Error::failure("offsets[-1] can not be greater than input's "
                            "length ", b.numIndices, " but got offsets[-1] of ",
                            off.back());
  }
  for (size_t j = 0; j < off.size(); ++j) {
    if (off[j] < 0 || off[j] > b.numIndices)
      return Error::failure("offsets[", j, "] = ", off[j], " is outside [0, ",
                            b.numIndices, "]");
    if (j > 0 && off[j] < off[j - 1])
      return Error::failure("offsets must not decrease: offsets[", j, "] = ",
                            off[j], " follows offsets[", j - 1, "] = ",
                            off[j - 1]);
  }
  for (int64_t v : readIndices(indices))
    if (v < 0 || v >= b.numWeights)
      return Error::failure("embedding_bag: Expected idx >= 0 && idx < "
                            "num_embeddings but found idx to be ", v);
  return Error::success();
}

Error embeddingBag(const Tensor &output, const Tensor &offset2bag,
                   const Tensor &bagSize, const Tensor &maxIndices,
                   const Tensor &weight, const Tensor &indices,
                   const Tensor &offsets, const Tensor *perSampleWeights,
                   const EmbeddingBag &bag) {
  return visitDtype(weight.dtype(), "_embedding_bag", [&]<typename W>() -> Error {
    if constexpr (std::is_same_v<W, Half> || std::is_same_v<W, BHalf> ||
                  std::is_same_v<W, float> || std::is_same_v<W, double>)
      return bagsOf<W>(output, offset2bag, bagSize, maxIndices, weight,
                       indices, offsets, perSampleWeights, bag);
    else
      return Error::failure("_embedding_bag has no CPU kernel for ",
                            dtypeName(weight.dtype()));
  });
}

} // namespace aoti::shims::ops::cpu
