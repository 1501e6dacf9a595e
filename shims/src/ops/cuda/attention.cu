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
// That is the per-key kernel. The chunked ("row") kernel differs only in
// how a warp walks a tile: 32 keys at a time, lane t computing the whole
// score of key t (q broadcast from shared memory), then one warp max, one
// expf per lane, one warp sum and a shuffle per key for the P·V update:
// the same online softmax with a 32-key step.
//
// Both re-read every K/V tile once per 8 query rows and do one FMA per
// shared-memory read. The default, tiled kernel (below, before the
// launchers) shares each K/V tile among 64 (or 32) query rows and
// register-blocks both products: a thread computes a 4 x 4 block of
// scores (4 x 2 above head dim 64) with 8 float4 reads per 4 dims (64
// FMAs), then adds P·V for its 4 rows x D/16 output columns the same way, with the same online softmax per row
// at a 64-key (or 32-key) step. The chunked kernel runs where a device
// cannot give a block the tiled kernel's shared memory, and both older
// kernels stay as cross-checks (AOTI_SHIMS_CUDA_ATTENTION=row, per-key;
// all are tested).
//
// Grouped-query attention reads key/value head h / (heads / kv_heads) in
// place. Every operand is read through its own strides; nothing is copied.
// Causal blocks stop loading tiles past their last row's limit.
// CUDA cores only (no tensor cores): float32 maths for every dtype.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/attention_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include <atomic>

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

// The end of both warp-per-row kernels: the warp of query row i writes
// out[b, h, i, :] = acc / rowSum (zeros for a fully masked row; lane holds
// elements lane + 32 c), and its lane 0 the row's logsumexp: +inf on the
// padding rows past the queries (active false), -inf for a fully masked row.
template <typename T, int PerLane>
__device__ __forceinline__ void writeRow(const AttentionArgs &a, int64_t b,
                                         int64_t h, int64_t i, int lane,
                                         bool active,
                                         const float (&acc)[PerLane],
                                         float rowMax, float rowSum) {
  const int64_t Ev = a.valueDim;
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

  writeRow<T, PerLane>(a, b, h, i, lane, active, acc, rowMax, rowSum);
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

  writeRow<T, PerLane>(a, b, h, i, lane, active, acc, rowMax, rowSum);
}

// --- The tiled kernel (AttentionKernel::Tiled, the default) -----------------
//
// A block of 16 x G threads owns 4 G query rows of one (batch, head): G = 16
// row groups (256 threads, 64 rows), or G = 8 (128 threads, 32 rows) when
// 64-row blocks would leave SMs idle (short sequences, few heads). It walks
// the keys in tiles of TiledShape::kTileKeys (64, or 32 for head dims above
// 64), every operand converted to float32 in shared
// memory, rows padded to D + 4 floats so that float4 reads of 8 consecutive
// rows hit 32 distinct banks:
//   Q [rows x D] once; per key tile K [keys x D], V [keys x D], P [rows x keys].
// Thread t is (ty, tx) = (t / 16, t % 16) and owns rows ty + G r (r < 4),
// key columns tx + 16 c of the score tile and value columns
// (tx + 16 c) * W + w of the output (W = 4, or 2 for D = 32): a 4 x 4
// (or 4 x 2) register block of S = Q K^T built from float4 reads of Q and
// K rows (8 shared loads per 64 FMAs), then, per row, the same online
// softmax as the other kernels with a key-tile step: tile max by a 16-lane
// shuffle, m' = max(m, tile max), c = exp(m - m'), p = exp(s - m'),
// l = l c + sum p, acc = acc c + P V; P goes through shared memory so that
// P V is a second register-blocked product (float4 reads of P and V). Each
// thread keeps l only over its own key columns; the 16 partial sums of a
// row are added once at the end. Head dims are bucketed (D = 32, 64, 128,
// 256); dims past E or Ev are zeros in shared memory and contribute nothing.
// Rows past Lq and keys past Lk or the causal limit score -inf (p = 0), so
// the full-tile loops need no bounds. Loads are float4 (4 halves for the
// half types) when an operand's last stride is 1 and its rows are aligned,
// element by element through the strides otherwise. Causal grids walk their
// row tiles last-first, so the longest blocks start first.
constexpr int kRowsPerThread = 4;

template <int D, int RowGroups> struct TiledShape {
  static constexpr int kThreads = 16 * RowGroups;
  static constexpr int kTileRows = kRowsPerThread * RowGroups;
  static constexpr int kKeysPerThread = D > 64 ? 2 : 4;
  static constexpr int kTileKeys = 16 * kKeysPerThread;
  static constexpr int kRowStride = D + 4;            // floats, Q/K/V tiles
  static constexpr int kProbStride = kTileKeys + 16;  // two rows: 16 banks apart
  static constexpr int kValueWidth = D >= 64 ? 4 : 2; // W
  static constexpr int kValueChunks = D / (16 * kValueWidth);
  static constexpr int kValueCols = kValueChunks * kValueWidth;
  static constexpr int64_t kSharedFloats =
      int64_t{kTileRows + 2 * kTileKeys} * kRowStride +
      int64_t{kTileRows} * kProbStride;
  static constexpr int64_t kSharedBytes = kSharedFloats * 4;
};
constexpr int64_t kTiledMaxSharedBytes = TiledShape<256, 16>::kSharedBytes;
static_assert(kTiledMaxSharedBytes <= 227 * 1024,
              "every bucket fits a Hopper block's shared memory");

// Which operands take float4 loads (bits of TiledLoads).
enum TiledLoads : unsigned { kVectorQuery = 1, kVectorKey = 2, kVectorValue = 4 };

template <typename T> __device__ float4 loadFour(const T *p) {
  // Four consecutive elements, 4 * sizeof(T)-aligned (the caller checked).
  if constexpr (sizeof(T) == 4) {
    return *reinterpret_cast<const float4 *>(p);
  } else {
    const uint2 raw = *reinterpret_cast<const uint2 *>(p);
    const T *e = reinterpret_cast<const T *>(&raw);
    return float4{toFloat(e[0]), toFloat(e[1]), toFloat(e[2]),
                       toFloat(e[3])};
  }
}

// Fills a Rows x D float tile (row stride D + 4) from rows [0, count) of an
// operand whose row r, dim d is base[r * rowStride + d * dimStride]; dims
// from `dims` on and rows from `count` on are zeros.
template <typename T, int D, int Rows, int Threads>
__device__ void loadTile(float *tile, const T *base, int64_t rowStride,
                         int64_t dimStride, int64_t count, int64_t dims,
                         bool vector) {
  constexpr int kChunksPerRow = D / 4;
  for (int idx = static_cast<int>(threadIdx.x); idx < Rows * kChunksPerRow;
       idx += Threads) {
    const int row = idx / kChunksPerRow;
    const int d = (idx - row * kChunksPerRow) * 4;
    float4 v{0.0f, 0.0f, 0.0f, 0.0f};
    if (row < count && d < dims) {
      const T *p = base + row * rowStride + d * dimStride;
      if (vector) { // dims % 4 == 0: the whole chunk is in range
        v = loadFour(p);
      } else {
        v.x = toFloat(p[0]);
        v.y = d + 1 < dims ? toFloat(p[dimStride]) : 0.0f;
        v.z = d + 2 < dims ? toFloat(p[2 * dimStride]) : 0.0f;
        v.w = d + 3 < dims ? toFloat(p[3 * dimStride]) : 0.0f;
      }
    }
    *reinterpret_cast<float4 *>(tile + row * (D + 4) + d) = v;
  }
}

template <int Width> struct ValueChunk {
  float v[Width];
};

template <int Width>
__device__ ValueChunk<Width> loadValueChunk(const float *p) {
  ValueChunk<Width> chunk;
  if constexpr (Width == 4) {
    const float4 f = *reinterpret_cast<const float4 *>(p);
    chunk.v[0] = f.x;
    chunk.v[1] = f.y;
    chunk.v[2] = f.z;
    chunk.v[3] = f.w;
  } else {
    const float2 f = *reinterpret_cast<const float2 *>(p);
    chunk.v[0] = f.x;
    chunk.v[1] = f.y;
  }
  return chunk;
}

// The sum (or max) over the 16 lanes that share a row group: lanes differ
// in tx = lane % 16 only within one half of the warp.
__device__ float halfWarpMax(float value) {
#pragma unroll
  for (int offset = 8; offset > 0; offset >>= 1)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}
__device__ float halfWarpSum(float value) {
#pragma unroll
  for (int offset = 8; offset > 0; offset >>= 1)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// Two 256-thread blocks of at most 128 registers a thread share an SM (the
// 256 bucket's accumulators need more: one); 128-thread blocks twice as many.
template <typename T, int D, int RowGroups>
__global__ void __launch_bounds__(16 * RowGroups,
                                  (D <= 128 ? 2 : 1) * (16 / RowGroups))
    attentionTiledKernel(AttentionArgs a, unsigned vectorLoads) {
  using Shape = TiledShape<D, RowGroups>;
  constexpr int kThreadsHere = Shape::kThreads;
  constexpr int kTileRows = Shape::kTileRows;
  constexpr int kKeys = Shape::kTileKeys;
  constexpr int kCols = Shape::kKeysPerThread;
  constexpr int kStride = Shape::kRowStride;
  constexpr int kWidth = Shape::kValueWidth;
  constexpr int kChunks = Shape::kValueChunks;
  extern __shared__ float shared[];
  float *queries = shared;                        // kTileRows x kStride
  float *keys = queries + kTileRows * kStride;    // kKeys x kStride
  float *values = keys + kKeys * kStride;         // kKeys x kStride
  float *probs = values + kKeys * kStride;        // kTileRows x kProbStride

  const int tx = static_cast<int>(threadIdx.x % 16);
  const int ty = static_cast<int>(threadIdx.x / 16);
  const int64_t b = blockIdx.z;
  const int64_t h = blockIdx.y;
  const int64_t kh = h / (a.heads / a.kvHeads);
  const int64_t rowTile = a.causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int64_t firstRow = rowTile * kTileRows;
  const int64_t lseBase = b * a.logsumexpStrides[0] + h * a.logsumexpStrides[1];

  if (firstRow >= a.queryLen) { // a block of logsumexp padding only
    const int64_t i = firstRow + threadIdx.x;
    if (a.logsumexp && threadIdx.x < kTileRows && i < a.logsumexpRows)
      a.logsumexp[lseBase + i * a.logsumexpStrides[2]] = CUDART_INF_F;
    return; // the whole block: no barrier is left waiting
  }
  const int64_t rows = min(int64_t{kTileRows}, a.queryLen - firstRow);

  const T *query = static_cast<const T *>(a.query);
  const T *key = static_cast<const T *>(a.key);
  const T *value = static_cast<const T *>(a.value);
  loadTile<T, D, kTileRows, kThreadsHere>(
      queries,
      query + b * a.queryStrides[0] + h * a.queryStrides[1] +
          firstRow * a.queryStrides[2],
      a.queryStrides[2], a.queryStrides[3], rows, a.headDim,
      (vectorLoads & kVectorQuery) != 0);
  const T *keyBase = key + b * a.keyStrides[0] + kh * a.keyStrides[1];
  const T *valueBase = value + b * a.valueStrides[0] + kh * a.valueStrides[1];

  int64_t row[kRowsPerThread];
  int64_t maskRow[kRowsPerThread];
  float acc[kRowsPerThread][Shape::kValueCols];
  float rowMax[kRowsPerThread];
  float rowSum[kRowsPerThread]; // over this thread's key columns only
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    row[r] = firstRow + ty + RowGroups * r;
    maskRow[r] = b * a.maskStrides[0] + h * a.maskStrides[1] +
                 row[r] * a.maskStrides[2];
    rowMax[r] = -CUDART_INF_F;
    rowSum[r] = 0.0f;
#pragma unroll
    for (int v = 0; v < Shape::kValueCols; ++v)
      acc[r][v] = 0.0f;
  }

  int64_t keyEnd = a.keyLen;
  if (a.causal)
    keyEnd = max(int64_t{0},
                 min(a.keyLen, firstRow + rows - 1 + a.causalOffset + 1));

  for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeys) {
    const int64_t tile = min(int64_t{kKeys}, keyEnd - j0);
    // Every thread is done with the previous tile's K, V and P; on the
    // first pass this also publishes the Q tile.
    __syncthreads();
    loadTile<T, D, kKeys, kThreadsHere>(keys, keyBase + j0 * a.keyStrides[2],
                          a.keyStrides[2], a.keyStrides[3], tile, a.headDim,
                          (vectorLoads & kVectorKey) != 0);
    loadTile<T, D, kKeys, kThreadsHere>(values, valueBase + j0 * a.valueStrides[2],
                          a.valueStrides[2], a.valueStrides[3], tile,
                          a.valueDim, (vectorLoads & kVectorValue) != 0);
    __syncthreads();

    // S = Q K^T for this thread's 4 rows x kCols keys.
    float s[kRowsPerThread][kCols];
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r)
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        s[r][c] = 0.0f;
#pragma unroll 16
    for (int d = 0; d < D; d += 4) {
      float4 q[kRowsPerThread];
      float4 k[kCols];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r)
        q[r] = *reinterpret_cast<const float4 *>(
            queries + (ty + RowGroups * r) * kStride + d);
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        k[c] = *reinterpret_cast<const float4 *>(
            keys + (tx + 16 * c) * kStride + d);
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          s[r][c] = fmaf(q[r].x, k[c].x, s[r][c]);
          s[r][c] = fmaf(q[r].y, k[c].y, s[r][c]);
          s[r][c] = fmaf(q[r].z, k[c].z, s[r][c]);
          s[r][c] = fmaf(q[r].w, k[c].w, s[r][c]);
        }
    }

    // Online softmax, one row at a time (every lane of the row's 16 takes
    // part in the shuffles, whatever its columns hold).
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      const int64_t i = row[r];
      const int64_t rowLimit =
          a.causal ? min(j0 + tile, i + a.causalOffset + 1) : j0 + tile;
      float tileMax = -CUDART_INF_F;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int64_t j = j0 + tx + 16 * c;
        float score = -CUDART_INF_F;
        if (i < a.queryLen && j < rowLimit) {
          score = s[r][c] * a.scale;
          if (a.maskKind != AttentionMask::None)
            score += maskBias(a, maskRow[r] + j * a.maskStrides[3]);
        }
        s[r][c] = score;
        tileMax = fmaxf(tileMax, score);
      }
      tileMax = halfWarpMax(tileMax);
      const float newMax = fmaxf(rowMax[r], tileMax);
      float *p = probs + (ty + RowGroups * r) * Shape::kProbStride;
      if (newMax == -CUDART_INF_F) {
        // Nothing visible yet: l and acc stay 0 (and exp(-inf - -inf)
        // would be NaN).
#pragma unroll
        for (int c = 0; c < kCols; ++c)
          p[tx + 16 * c] = 0.0f;
        continue;
      }
      const float correction = expf(rowMax[r] - newMax);
      float sum = 0.0f;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const float pc =
            s[r][c] == -CUDART_INF_F ? 0.0f : expf(s[r][c] - newMax);
        p[tx + 16 * c] = pc;
        sum += pc;
      }
      rowSum[r] = rowSum[r] * correction + sum;
#pragma unroll
      for (int v = 0; v < Shape::kValueCols; ++v)
        acc[r][v] *= correction;
      rowMax[r] = newMax;
    }
    __syncthreads();

    // acc += P V over the whole tile (P is 0 and V zeros past its end).
#pragma unroll 4
    for (int k = 0; k < kKeys; k += 4) {
      float pr[kRowsPerThread][4];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const float4 f = *reinterpret_cast<const float4 *>(
            probs + (ty + RowGroups * r) * Shape::kProbStride + k);
        pr[r][0] = f.x;
        pr[r][1] = f.y;
        pr[r][2] = f.z;
        pr[r][3] = f.w;
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const float *vRow = values + (k + u) * kStride;
#pragma unroll
        for (int chunk = 0; chunk < kChunks; ++chunk) {
          const ValueChunk<kWidth> v =
              loadValueChunk<kWidth>(vRow + (tx + 16 * chunk) * kWidth);
#pragma unroll
          for (int r = 0; r < kRowsPerThread; ++r)
#pragma unroll
            for (int w = 0; w < kWidth; ++w)
              acc[r][chunk * kWidth + w] =
                  fmaf(pr[r][u], v.v[w], acc[r][chunk * kWidth + w]);
        }
      }
    }
  }

  T *out = static_cast<T *>(a.out);
#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int64_t i = row[r];
    const float sum = halfWarpSum(rowSum[r]);
    if (i < a.queryLen) {
      const int64_t outRow =
          b * a.outStrides[0] + h * a.outStrides[1] + i * a.outStrides[2];
      const float reciprocal = sum > 0.0f ? 1.0f / sum : 0.0f;
#pragma unroll
      for (int chunk = 0; chunk < kChunks; ++chunk)
#pragma unroll
        for (int w = 0; w < kWidth; ++w) {
          const int64_t d = (tx + 16 * chunk) * kWidth + w;
          if (d < a.valueDim)
            out[outRow + d * a.outStrides[3]] =
                fromFloat<T>(acc[r][chunk * kWidth + w] * reciprocal);
        }
    }
    if (a.logsumexp && tx == 0 && i < a.logsumexpRows) {
      const float lse = i >= a.queryLen ? CUDART_INF_F
                        : sum > 0.0f    ? rowMax[r] + logf(sum)
                                        : -CUDART_INF_F;
      a.logsumexp[lseBase + i * a.logsumexpStrides[2]] = lse;
    }
  }
}

// The float4 loads each operand can take: unit last stride, dims a multiple
// of 4, and every row start aligned to four elements.
template <typename T>
bool vectorizable(const void *data, const int64_t (&strides)[4],
                  int64_t dims) {
  const uintptr_t align = 4 * sizeof(T);
  return strides[3] == 1 && dims % 4 == 0 && strides[0] % 4 == 0 &&
         strides[1] % 4 == 0 && strides[2] % 4 == 0 &&
         reinterpret_cast<uintptr_t>(data) % align == 0;
}

template <typename T> unsigned tiledLoads(const AttentionArgs &a) {
  return (vectorizable<T>(a.query, a.queryStrides, a.headDim) ? kVectorQuery
                                                               : 0u) |
         (vectorizable<T>(a.key, a.keyStrides, a.headDim) ? kVectorKey : 0u) |
         (vectorizable<T>(a.value, a.valueStrides, a.valueDim) ? kVectorValue
                                                                : 0u);
}

// The head-dim bucket D of the tiled kernel: the widest of E and Ev,
// rounded up to 32, 64, 128 or 256.
int tiledHeadDim(const AttentionArgs &a) {
  const int64_t widest = a.headDim > a.valueDim ? a.headDim : a.valueDim;
  return widest <= 32 ? 32 : widest <= 64 ? 64 : widest <= 128 ? 128 : 256;
}

int64_t tiledRowTiles(const AttentionArgs &a, int64_t tileRows) {
  const int64_t rows =
      a.queryLen > a.logsumexpRows ? a.queryLen : a.logsumexpRows;
  return (rows + tileRows - 1) / tileRows;
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

template <typename T, int D, int RowGroups>
cudaError_t launchTiled(const AttentionArgs &args, cudaStream_t stream) {
  using Shape = TiledShape<D, RowGroups>;
  constexpr int64_t bytes = Shape::kSharedBytes;
  // Above 48 KB a kernel must opt in, per function and device: once each
  // (devices past 63 ask every call).
  static std::atomic<uint64_t> optedIn{0};
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess)
    return err;
  const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
  if (bytes > 48 * 1024 && (optedIn.load(std::memory_order_relaxed) & bit) == 0) {
    if (cudaError_t err = cudaFuncSetAttribute(
            attentionTiledKernel<T, D, RowGroups>,
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(bytes));
        err != cudaSuccess)
      return err;
    optedIn.fetch_or(bit, std::memory_order_relaxed);
  }
  const dim3 grid(
      static_cast<unsigned>(tiledRowTiles(args, Shape::kTileRows)),
      static_cast<unsigned>(args.heads), static_cast<unsigned>(args.batch));
  attentionTiledKernel<T, D, RowGroups>
      <<<grid, Shape::kThreads, static_cast<size_t>(bytes), stream>>>(
          args, tiledLoads<T>(args));
  return cudaGetLastError();
}

template <int RowGroups> int64_t tiledSharedBytes(int headDim) {
  switch (headDim) {
  case 32:
    return TiledShape<32, RowGroups>::kSharedBytes;
  case 64:
    return TiledShape<64, RowGroups>::kSharedBytes;
  case 128:
    return TiledShape<128, RowGroups>::kSharedBytes;
  default:
    return TiledShape<256, RowGroups>::kSharedBytes;
  }
}

// The tiled variant for `kernel` on the current device: 16 row groups
// (64-row blocks) or 8 (32-row blocks), or 0 where the device cannot give
// a block its shared memory (145 KB for the 256 bucket's 64-row blocks:
// sm_80 and later; every bucket fits Hopper's 227 KB) and the row kernel
// runs instead. Tiled picks 32-row blocks when 64-row ones would not fill
// two blocks per SM (BERT's 128 tokens x 12 heads: 24 blocks of 64 rows
// on 132 SMs), trading some shared-memory reuse for busy SMs.
int tiledRowGroups(const AttentionArgs &args, AttentionKernel kernel) {
  int device = 0, optIn = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                             device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess)
    return 0;
  int groups = 16;
  if (kernel == AttentionKernel::TiledRows32)
    groups = 8;
  else if (kernel == AttentionKernel::Tiled &&
           tiledRowTiles(args, 64) * args.heads * args.batch < 2 * sms)
    groups = 8;
  const int64_t bytes = groups == 16 ? tiledSharedBytes<16>(tiledHeadDim(args))
                                     : tiledSharedBytes<8>(tiledHeadDim(args));
  return bytes <= optIn ? groups : 0;
}

template <typename T, int RowGroups>
cudaError_t launchTiledForHeadDim(const AttentionArgs &args,
                                  cudaStream_t stream) {
  switch (tiledHeadDim(args)) {
  case 32:
    return launchTiled<T, 32, RowGroups>(args, stream);
  case 64:
    return launchTiled<T, 64, RowGroups>(args, stream);
  case 128:
    return launchTiled<T, 128, RowGroups>(args, stream);
  default:
    static_assert(kMaxCudaHeadDim == 256, "the 256 bucket is the last");
    return launchTiled<T, 256, RowGroups>(args, stream);
  }
}

template <typename T>
cudaError_t launchElement(const AttentionArgs &args, AttentionKernel kernel,
                          cudaStream_t stream) {
  if (kernel == AttentionKernel::Tiled ||
      kernel == AttentionKernel::TiledRows64 ||
      kernel == AttentionKernel::TiledRows32) {
    switch (tiledRowGroups(args, kernel)) {
    case 16:
      return launchTiledForHeadDim<T, 16>(args, stream);
    case 8:
      return launchTiledForHeadDim<T, 8>(args, stream);
    default:
      kernel = AttentionKernel::Chunked;
      break;
    }
  }
  return launchForHeadDim<T>(args, kernel, stream);
}

} // namespace

cudaError_t launchAttentionKernel(const AttentionArgs &args,
                                  AttentionKernel kernel,
                                  cudaStream_t stream) {
  switch (args.element) {
  case AttentionElement::Float32:
    return launchElement<float>(args, kernel, stream);
  case AttentionElement::Float16:
    return launchElement<__half>(args, kernel, stream);
  case AttentionElement::BFloat16:
    return launchElement<__nv_bfloat16>(args, kernel, stream);
  }
  return cudaErrorInvalidValue;
}

#else
} // namespace
#endif // AOTI_SHIMS_ATTENTION_EMULATION

} // namespace aoti::shims::ops
