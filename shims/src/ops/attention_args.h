//===- attention_args.h - One attention problem, as plain data -------------===//
//
// What ops/attention.cpp decodes from the C arguments and hands to the CPU or
// CUDA implementation: raw pointers, element kinds and strides (in elements)
// of every operand, already checked and broadcast. Plain data with no library
// includes, so that nvcc (C++17) parses it without the rest of the shims.
//
// The function computed, for b < batch, h < heads, i < queryLen:
//   s[j]   = scale * <query[b,h,i,:], key[b,h/group,j,:]> + bias(b,h,i,j)
//            (bias: the float mask, or 0 / -inf for a boolean mask)
//   s[j]   = -inf where causal and j > i + causalOffset
//   out[b,h,i,:]   = sum_j softmax(s)[j] * value[b,h/group,j,:]
//   lse[b,h,i]     = log(sum_j exp(s[j]))       (natural log)
// with group = heads / kvHeads (grouped-query attention reads a shared K/V
// head, never a copy). A row with every key masked has out = 0 and
// lse = -inf.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_ATTENTION_ARGS_H
#define AOTI_SHIMS_OPS_ATTENTION_ARGS_H

#include <cstdint>

namespace aoti::shims::ops {

/// How query, key, value and out elements are stored.
enum class AttentionElement : int32_t { Float32 = 0, Float16 = 1, BFloat16 = 2 };

/// How the mask is stored, and what it means.
enum class AttentionMask : int32_t {
  None = 0,
  Bool = 1,     // one byte, non-zero = attend, zero = -inf
  Float32 = 2,  // added to the scaled scores
  Float16 = 3,
  BFloat16 = 4,
};

struct AttentionArgs {
  int64_t batch;
  int64_t heads;
  int64_t kvHeads; // divides heads
  int64_t queryLen;
  int64_t keyLen;
  int64_t headDim;  // query and key
  int64_t valueDim; // value and out
  float scale;
  bool causal;
  int64_t causalOffset; // 0: top-left (torch), keyLen - queryLen: bottom-right

  AttentionElement element;
  const void *query;
  int64_t queryStrides[4];
  const void *key;
  int64_t keyStrides[4];
  const void *value;
  int64_t valueStrides[4];

  AttentionMask maskKind;
  const void *mask;        // null when maskKind is None
  int64_t maskStrides[4];  // [b, h, i, j]; 0 along broadcast dimensions

  void *out;
  int64_t outStrides[4];

  float *logsumexp; // null: not wanted
  int64_t logsumexpStrides[3];
  // Rows [queryLen, logsumexpRows) of logsumexp are padding, set to +inf
  // (the efficient kernel pads its logsumexp to a multiple of 32).
  int64_t logsumexpRows;
};

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_ATTENTION_ARGS_H
