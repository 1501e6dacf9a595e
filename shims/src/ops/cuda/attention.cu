//===- cuda/attention.cu - Scaled dot-product attention forward kernel -----===//
//
// A flash-attention-style forward pass in CUDA cores, float32 arithmetic for
// every element type (written here: cuDNN's SDPA needs its graph-API
// frontend, and no other library at hand has attention):
//
//   grid (ceil(rows / 8), heads, batch); block = 8 warps; one warp owns one
//   query row i and keeps, per lane, its share of q[i] (dims lane, lane+32,
//   ...) and of the output accumulator in registers (1, 2, 4 or 8 of each,
//   a template parameter chosen from the head dims, at most 256).
//   The block walks the keys in tiles: all 256 threads load a tile of K and
//   V (converted to float32) into shared memory, then each warp, per key j:
//     s   = scale * <q_i, k_j>   (lane products, butterfly shuffle sum: every
//                                 lane ends with the same bits)
//         + mask bias; keys past the causal limit end the row's walk
//     online softmax: m' = max(m, s); c = exp(m - m'); p = exp(s - m')
//     l = l * c + p;   acc = acc * c + p * v_j;   m = m'
//   and finally out[i] = acc / l, lse[i] = m + log(l) (natural log; the
//   scores already include the scale). A fully masked row gives out = 0 and
//   lse = -inf; logsumexp padding rows get +inf, as the efficient kernel's.
//
// That is the per-key kernel. The default, chunked kernel differs only in
// how a warp walks a tile: 32 keys at a time, lane t computing the whole
// score of key t (q broadcast from shared memory), then one warp max, one
// expf per lane, one warp sum and a shuffle per key for the P·V update:
// the same online softmax with a 32-key step. The per-key kernel stays as
// a cross-check (AOTI_SHIMS_CUDA_ATTENTION=per-key; both are tested).
//
// Grouped-query attention reads key/value head h / (heads / kv_heads) in
// place. Every operand is read through its own strides; nothing is copied.
// Causal blocks stop loading tiles past their last row's limit.
// Correctness first: CUDA cores only (no tensor cores), one row per warp.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/attention_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

namespace aoti::shims::ops {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int64_t kMaxKeyTile = 64;
constexpr int64_t kSharedBytes = 48 * 1024; // no opt-in needed

template <typename T> __device__ float toFloat(T value);
template <> __device__ float toFloat<float>(float value) { return value; }
template <> __device__ float toFloat<__half>(__half value) {
  return __half2float(value);
}
template <> __device__ float toFloat<__nv_bfloat16>(__nv_bfloat16 value) {
  return __bfloat162float(value);
}

template <typename T> __device__ T fromFloat(float value);
template <> __device__ float fromFloat<float>(float value) { return value; }
template <> __device__ __half fromFloat<__half>(float value) {
  return __float2half_rn(value);
}
template <> __device__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float value) {
  return __float2bfloat16_rn(value);
}

__device__ float maskBias(const AttentionArgs &a, int64_t offset) {
  switch (a.maskKind) {
  case AttentionMask::Bool:
    return static_cast<const unsigned char *>(a.mask)[offset]
               ? 0.0f
               : -CUDART_INF_F;
  case AttentionMask::Float32:
    return static_cast<const float *>(a.mask)[offset];
  case AttentionMask::Float16:
    return __half2float(static_cast<const __half *>(a.mask)[offset]);
  case AttentionMask::BFloat16:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(a.mask)[offset]);
  default:
    return 0.0f;
  }
}

// The per-key kernel (AttentionKernel::PerKey): a warp scores one key at a
// time. PerLane: head-dim elements of q and of the accumulator each lane
// keeps, ceil(max(E, Ev) / 32) rounded up to 1, 2, 4 or 8.
template <typename T, int PerLane>
__global__ void __launch_bounds__(kThreads)
    attentionKernel(AttentionArgs a, int64_t keyTile) {
  extern __shared__ float shared[];
  const int64_t E = a.headDim;
  const int64_t Ev = a.valueDim;
  float *keys = shared;               // keyTile x E
  float *values = shared + keyTile * E; // keyTile x Ev

  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int64_t b = blockIdx.z;
  const int64_t h = blockIdx.y;
  const int64_t kh = h / (a.heads / a.kvHeads);
  const int64_t firstRow = static_cast<int64_t>(blockIdx.x) * kWarps;
  const int64_t i = firstRow + warp;
  const bool active = i < a.queryLen;

  const T *query = static_cast<const T *>(a.query);
  const T *key = static_cast<const T *>(a.key);
  const T *value = static_cast<const T *>(a.value);
  const int64_t queryRow =
      b * a.queryStrides[0] + h * a.queryStrides[1] + i * a.queryStrides[2];
  const int64_t keyBase = b * a.keyStrides[0] + kh * a.keyStrides[1];
  const int64_t valueBase = b * a.valueStrides[0] + kh * a.valueStrides[1];
  const int64_t maskRow =
      b * a.maskStrides[0] + h * a.maskStrides[1] + i * a.maskStrides[2];

  float q[PerLane];
  float acc[PerLane];
#pragma unroll
  for (int c = 0; c < PerLane; ++c) {
    const int64_t d = lane + 32 * c;
    q[c] = active && d < E ? toFloat(query[queryRow + d * a.queryStrides[3]])
                           : 0.0f;
    acc[c] = 0.0f;
  }
  float rowMax = -CUDART_INF_F;
  float rowSum = 0.0f;

  // The keys this block needs, and the ones row i may see.
  int64_t keyEnd = a.keyLen;
  int64_t rowLimit = a.keyLen;
  if (a.causal) {
    const int64_t lastRow = min(firstRow + kWarps, a.queryLen) - 1;
    keyEnd = max(int64_t{0}, min(a.keyLen, lastRow + a.causalOffset + 1));
    rowLimit = max(int64_t{0}, min(a.keyLen, i + a.causalOffset + 1));
  }

  for (int64_t j0 = 0; j0 < keyEnd; j0 += keyTile) {
    const int64_t tile = min(keyTile, keyEnd - j0);
    __syncthreads(); // every warp is done with the previous tile
    for (int64_t idx = threadIdx.x; idx < tile * E; idx += kThreads) {
      const int64_t t = idx / E;
      const int64_t d = idx - t * E;
      keys[idx] = toFloat(key[keyBase + (j0 + t) * a.keyStrides[2] +
                              d * a.keyStrides[3]]);
    }
    for (int64_t idx = threadIdx.x; idx < tile * Ev; idx += kThreads) {
      const int64_t t = idx / Ev;
      const int64_t d = idx - t * Ev;
      values[idx] = toFloat(value[valueBase + (j0 + t) * a.valueStrides[2] +
                                  d * a.valueStrides[3]]);
    }
    __syncthreads();
    if (!active)
      continue;
    const int64_t rowTile = min(tile, rowLimit - j0);
    for (int64_t t = 0; t < rowTile; ++t) {
      float partial = 0.0f;
#pragma unroll
      for (int c = 0; c < PerLane; ++c) {
        const int64_t d = lane + 32 * c;
        if (d < E)
          partial += q[c] * keys[t * E + d];
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1)
        partial += __shfl_xor_sync(0xffffffffu, partial, offset);
      float s = partial * a.scale;
      if (a.maskKind != AttentionMask::None)
        s += maskBias(a, maskRow + (j0 + t) * a.maskStrides[3]);
      if (s == -CUDART_INF_F)
        continue; // a masked key contributes nothing
      const float newMax = fmaxf(rowMax, s);
      const float correction = expf(rowMax - newMax);
      const float p = expf(s - newMax);
      rowSum = rowSum * correction + p;
#pragma unroll
      for (int c = 0; c < PerLane; ++c) {
        const int64_t d = lane + 32 * c;
        if (d < Ev)
          acc[c] = acc[c] * correction + p * values[t * Ev + d];
      }
      rowMax = newMax;
    }
  }

  if (active) {
    T *out = static_cast<T *>(a.out);
    const int64_t outRow =
        b * a.outStrides[0] + h * a.outStrides[1] + i * a.outStrides[2];
    const float reciprocal = rowSum > 0.0f ? 1.0f / rowSum : 0.0f;
#pragma unroll
    for (int c = 0; c < PerLane; ++c) {
      const int64_t d = lane + 32 * c;
      if (d < Ev)
        out[outRow + d * a.outStrides[3]] = fromFloat<T>(acc[c] * reciprocal);
    }
  }
  if (a.logsumexp && lane == 0 && i < a.logsumexpRows) {
    const float lse = !active         ? CUDART_INF_F
                      : rowSum > 0.0f ? rowMax + logf(rowSum)
                                      : -CUDART_INF_F;
    a.logsumexp[b * a.logsumexpStrides[0] + h * a.logsumexpStrides[1] +
                i * a.logsumexpStrides[2]] = lse;
  }
}

// The default kernel: the same grid, tiles and online softmax, but a warp
// scores 32 keys at once, one per lane (its own dot product over the whole
// head dim, q read from shared memory as a broadcast, key rows padded to
// E + 1 floats so the 32 lanes hit 32 banks), so the softmax's max, sum and
// exponentials cost one warp reduction and one expf per lane per 32 keys
// instead of per key. Each key's probability then reaches every lane with
// one shuffle for the P·V update.
template <typename T, int PerLane>
__global__ void __launch_bounds__(kThreads)
    attentionChunkedKernel(AttentionArgs a, int64_t keyTile) {
  extern __shared__ float shared[];
  const int64_t E = a.headDim;
  const int64_t Ev = a.valueDim;
  const int64_t keyStride = E + 1;
  float *keys = shared;                         // keyTile x (E + 1)
  float *values = keys + keyTile * keyStride;   // keyTile x Ev
  float *queries = values + keyTile * Ev;       // kWarps x E

  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int64_t b = blockIdx.z;
  const int64_t h = blockIdx.y;
  const int64_t kh = h / (a.heads / a.kvHeads);
  const int64_t firstRow = static_cast<int64_t>(blockIdx.x) * kWarps;
  const int64_t i = firstRow + warp;
  const bool active = i < a.queryLen;

  const T *query = static_cast<const T *>(a.query);
  const T *key = static_cast<const T *>(a.key);
  const T *value = static_cast<const T *>(a.value);
  const int64_t queryRow =
      b * a.queryStrides[0] + h * a.queryStrides[1] + i * a.queryStrides[2];
  const int64_t keyBase = b * a.keyStrides[0] + kh * a.keyStrides[1];
  const int64_t valueBase = b * a.valueStrides[0] + kh * a.valueStrides[1];
  const int64_t maskRow =
      b * a.maskStrides[0] + h * a.maskStrides[1] + i * a.maskStrides[2];

  float *q = queries + warp * E;
  if (active)
    for (int64_t d = lane; d < E; d += 32)
      q[d] = toFloat(query[queryRow + d * a.queryStrides[3]]);
  float acc[PerLane];
#pragma unroll
  for (int c = 0; c < PerLane; ++c)
    acc[c] = 0.0f;
  float rowMax = -CUDART_INF_F;
  float rowSum = 0.0f;

  int64_t keyEnd = a.keyLen;
  int64_t rowLimit = a.keyLen;
  if (a.causal) {
    const int64_t lastRow = min(firstRow + kWarps, a.queryLen) - 1;
    keyEnd = max(int64_t{0}, min(a.keyLen, lastRow + a.causalOffset + 1));
    rowLimit = max(int64_t{0}, min(a.keyLen, i + a.causalOffset + 1));
  }

  for (int64_t j0 = 0; j0 < keyEnd; j0 += keyTile) {
    const int64_t tile = min(keyTile, keyEnd - j0);
    // Every warp is done with the previous tile; on the first pass this
    // also publishes each warp's q row.
    __syncthreads();
    for (int64_t idx = threadIdx.x; idx < tile * E; idx += kThreads) {
      const int64_t t = idx / E;
      const int64_t d = idx - t * E;
      keys[t * keyStride + d] = toFloat(
          key[keyBase + (j0 + t) * a.keyStrides[2] + d * a.keyStrides[3]]);
    }
    for (int64_t idx = threadIdx.x; idx < tile * Ev; idx += kThreads) {
      const int64_t t = idx / Ev;
      const int64_t d = idx - t * Ev;
      values[idx] = toFloat(value[valueBase + (j0 + t) * a.valueStrides[2] +
                                  d * a.valueStrides[3]]);
    }
    __syncthreads();
    if (!active)
      continue;
    const int64_t rowTile = min(tile, rowLimit - j0);
    for (int64_t t0 = 0; t0 < rowTile; t0 += 32) {
      const int64_t t = t0 + lane;
      float s = -CUDART_INF_F;
      if (t < rowTile) {
        const float *k = keys + t * keyStride;
        float dot = 0.0f;
        for (int64_t d = 0; d < E; ++d)
          dot += q[d] * k[d];
        s = dot * a.scale;
        if (a.maskKind != AttentionMask::None)
          s += maskBias(a, maskRow + (j0 + t) * a.maskStrides[3]);
      }
      float chunkMax = s;
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1)
        chunkMax = fmaxf(chunkMax,
                         __shfl_xor_sync(0xffffffffu, chunkMax, offset));
      if (chunkMax == -CUDART_INF_F)
        continue; // every key of the chunk masked (the same on all lanes)
      const float newMax = fmaxf(rowMax, chunkMax);
      const float correction = expf(rowMax - newMax);
      const float p = s == -CUDART_INF_F ? 0.0f : expf(s - newMax);
      float chunkSum = p;
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1)
        chunkSum += __shfl_xor_sync(0xffffffffu, chunkSum, offset);
      rowSum = rowSum * correction + chunkSum;
#pragma unroll
      for (int c = 0; c < PerLane; ++c)
        acc[c] *= correction;
      const int count = static_cast<int>(min(int64_t{32}, rowTile - t0));
      for (int u = 0; u < count; ++u) {
        const float pu = __shfl_sync(0xffffffffu, p, u);
        const float *v = values + (t0 + u) * Ev;
#pragma unroll
        for (int c = 0; c < PerLane; ++c) {
          const int64_t d = lane + 32 * c;
          if (d < Ev)
            acc[c] += pu * v[d];
        }
      }
      rowMax = newMax;
    }
  }

  if (active) {
    T *out = static_cast<T *>(a.out);
    const int64_t outRow =
        b * a.outStrides[0] + h * a.outStrides[1] + i * a.outStrides[2];
    const float reciprocal = rowSum > 0.0f ? 1.0f / rowSum : 0.0f;
#pragma unroll
    for (int c = 0; c < PerLane; ++c) {
      const int64_t d = lane + 32 * c;
      if (d < Ev)
        out[outRow + d * a.outStrides[3]] = fromFloat<T>(acc[c] * reciprocal);
    }
  }
  if (a.logsumexp && lane == 0 && i < a.logsumexpRows) {
    const float lse = !active         ? CUDART_INF_F
                      : rowSum > 0.0f ? rowMax + logf(rowSum)
                                      : -CUDART_INF_F;
    a.logsumexp[b * a.logsumexpStrides[0] + h * a.logsumexpStrides[1] +
                i * a.logsumexpStrides[2]] = lse;
  }
}

// Keys per shared-memory tile: as many as fit (at most kMaxKeyTile), a
// multiple of 32 when at least 32 fit, so that chunks fill whole warps.
int64_t keyTileFor(int64_t bytesPerKey, int64_t fixedBytes) {
  int64_t keyTile =
      bytesPerKey > 0 ? (kSharedBytes - fixedBytes) / bytesPerKey : kMaxKeyTile;
  keyTile = keyTile > kMaxKeyTile ? kMaxKeyTile : keyTile;
  if (keyTile >= 32)
    keyTile -= keyTile % 32;
  return keyTile < 1 ? 1 : keyTile;
}

// tests/shims/attention_kernel_emulation_test.cpp compiles this file as
// host C++ to run the kernels above on CPU threads; it has no <<<>>>.
#ifndef AOTI_SHIMS_ATTENTION_EMULATION

template <typename T, int PerLane>
cudaError_t launch(const AttentionArgs &args, AttentionKernel kernel,
                   cudaStream_t stream) {
  const int64_t rows = args.queryLen > args.logsumexpRows
                           ? args.queryLen
                           : args.logsumexpRows;
  const dim3 grid(static_cast<unsigned>((rows + kWarps - 1) / kWarps),
                  static_cast<unsigned>(args.heads),
                  static_cast<unsigned>(args.batch));
  const int64_t floatBytes = static_cast<int64_t>(sizeof(float));
  if (kernel == AttentionKernel::PerKey) {
    const int64_t perKey = (args.headDim + args.valueDim) * floatBytes;
    const int64_t keyTile = keyTileFor(perKey, 0);
    attentionKernel<T, PerLane>
        <<<grid, kThreads, static_cast<size_t>(keyTile * perKey), stream>>>(
            args, keyTile);
  } else {
    const int64_t perKey = (args.headDim + 1 + args.valueDim) * floatBytes;
    const int64_t queryBytes = kWarps * args.headDim * floatBytes;
    const int64_t keyTile = keyTileFor(perKey, queryBytes);
    attentionChunkedKernel<T, PerLane>
        <<<grid, kThreads, static_cast<size_t>(keyTile * perKey + queryBytes),
           stream>>>(args, keyTile);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t launchForHeadDim(const AttentionArgs &args, AttentionKernel kernel,
                             cudaStream_t stream) {
  const int64_t widest =
      args.headDim > args.valueDim ? args.headDim : args.valueDim;
  if (widest <= 32)
    return launch<T, 1>(args, kernel, stream);
  if (widest <= 64)
    return launch<T, 2>(args, kernel, stream);
  if (widest <= 128)
    return launch<T, 4>(args, kernel, stream);
  static_assert(kMaxCudaHeadDim == 256, "PerLane 8 covers 256 dims");
  return launch<T, 8>(args, kernel, stream);
}

} // namespace

cudaError_t launchAttentionKernel(const AttentionArgs &args,
                                  AttentionKernel kernel,
                                  cudaStream_t stream) {
  switch (args.element) {
  case AttentionElement::Float32:
    return launchForHeadDim<float>(args, kernel, stream);
  case AttentionElement::Float16:
    return launchForHeadDim<__half>(args, kernel, stream);
  case AttentionElement::BFloat16:
    return launchForHeadDim<__nv_bfloat16>(args, kernel, stream);
  }
  return cudaErrorInvalidValue;
}

#else
} // namespace
#endif // AOTI_SHIMS_ATTENTION_EMULATION

} // namespace aoti::shims::ops
