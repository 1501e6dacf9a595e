//===- cpu/attention.cpp - Scaled dot-product attention on the host --------===//
//
// Exact (not online) softmax, blocked by query rows, in float32 whatever the
// element type:
//   keys and values: float32 rows (unit column stride) are read in place;
//     any other layout or dtype is packed into contiguous float32 once per
//     (batch, key/value head), for all the query heads that share it
//     (grouped-query attention copies nothing else);
//   for each (batch b, query head h, block of up to 64 query rows), the
//   work items, shared out to the threads:
//       pack Q rows; S = scale * Q K^T            (SGEMM)
//       per row: apply the causal limit and the mask, subtract the row max,
//       exponentiate, sum (the softmax denominator l; lse = max + log l);
//       the max and the exponentials 8 lanes at a time with SLEEF's exp
//       where the CPU has AVX2 (ops/cpu/vector_math.h)
//       O = P V                                   (SGEMM)
//       out[i] = O[i] / l, converted and stored through out's strides.
// Threads (ops/cpu/parallel.h): OpenMP's, cpuThreadCount() of them, when a
// call has at least 4M multiply-adds (BERT-base's has 25M), else the calling
// thread alone. Items are (b, h, row block) rather than (b, kv head) so
// that multi-query and grouped-query models (1 or 2 key/value heads) still
// fill every thread. The GEMMs are sgemm (ops/cpu/parallel.h: OpenBLAS, or
// oneDNN where OpenBLAS does not know the CPU), single-threaded (the
// parallelism is ours), when the build has OpenBLAS (AOTI_SHIMS_HAVE_OPENBLAS,
// as for the GEMM fallbacks), else plain loops, on packed operands so that
// odd strides and dtypes never reach BLAS. Memory: the packed keys and
// values (at most the inputs' size in float32) and O(64 x (Lk + E + Ev))
// floats per thread.
//
//===----------------------------------------------------------------------===//
#include "ops/attention.h"

#include "ops/cpu/parallel.h"
#include "ops/cpu/vector_math.h"

#ifdef AOTI_SHIMS_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace aoti::shims::ops {
namespace {

constexpr int64_t kRowBlock = 64;

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) // inf or NaN
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// Round to nearest, ties to even, as torch's conversion does.
uint16_t floatToHalf(float value) {
  const uint32_t bits = floatToBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) // inf or NaN
    return sign | (magnitude > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (magnitude >= 0x477ff000) // >= 65520 rounds to infinity
    return sign | 0x7c00;
  if (magnitude < 0x38800000) { // below 2^-14: a subnormal half (or zero)
    // Exact scaling by a power of two, then the default (nearest-even)
    // rounding; 1024 comes out as the smallest normal's encoding.
    const float scaled = bitsToFloat(magnitude) * 0x1p24f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t half = ((((magnitude >> 23) - 127 + 15) << 10) |
                   ((magnitude & 0x7fffff) >> 13));
  const uint32_t rest = magnitude & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // a carry into the exponent is still the right encoding
  return sign | static_cast<uint16_t>(half);
}

uint16_t floatToBFloat16(float value) {
  const uint32_t bits = floatToBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40); // quiet NaN
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float loadElement(const void *base, int64_t offset, AttentionElement type) {
  switch (type) {
  case AttentionElement::Float32:
    return static_cast<const float *>(base)[offset];
  case AttentionElement::Float16:
    return halfToFloat(static_cast<const uint16_t *>(base)[offset]);
  case AttentionElement::BFloat16:
    return bitsToFloat(
        uint32_t{static_cast<const uint16_t *>(base)[offset]} << 16);
  }
  return 0.0f;
}

void storeElement(void *base, int64_t offset, AttentionElement type,
                  float value) {
  switch (type) {
  case AttentionElement::Float32:
    static_cast<float *>(base)[offset] = value;
    return;
  case AttentionElement::Float16:
    static_cast<uint16_t *>(base)[offset] = floatToHalf(value);
    return;
  case AttentionElement::BFloat16:
    static_cast<uint16_t *>(base)[offset] = floatToBFloat16(value);
    return;
  }
}

// The additive bias the mask gives score (b, h, i, j): 0 or -inf for a
// boolean mask.
float maskBias(const AttentionArgs &a, int64_t offset) {
  switch (a.maskKind) {
  case AttentionMask::None:
    return 0.0f;
  case AttentionMask::Bool:
    return static_cast<const uint8_t *>(a.mask)[offset]
               ? 0.0f
               : -std::numeric_limits<float>::infinity();
  case AttentionMask::Float32:
    return loadElement(a.mask, offset, AttentionElement::Float32);
  case AttentionMask::Float16:
    return loadElement(a.mask, offset, AttentionElement::Float16);
  case AttentionMask::BFloat16:
    return loadElement(a.mask, offset, AttentionElement::BFloat16);
  }
  return 0.0f;
}

// row[j] += the mask's bias for keys j < limit of one query row. The common
// masks, float32 or boolean along contiguous keys, without a call per key.
void addMask(const AttentionArgs &a, int64_t maskRow, int64_t limit,
             float *row) {
  const int64_t stride = a.maskStrides[3];
  if (a.maskKind == AttentionMask::None)
    return;
  if (a.maskKind == AttentionMask::Float32 && stride == 1) {
    const float *m = static_cast<const float *>(a.mask) + maskRow;
    for (int64_t j = 0; j < limit; ++j)
      row[j] += m[j];
    return;
  }
  if (a.maskKind == AttentionMask::Bool && stride == 1) {
    const uint8_t *m = static_cast<const uint8_t *>(a.mask) + maskRow;
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < limit; ++j)
      row[j] += m[j] ? 0.0f : -inf;
    return;
  }
  for (int64_t j = 0; j < limit; ++j)
    row[j] += maskBias(a, maskRow + j * stride);
}

// C[M x N] = alpha * A[M x K] * op(B), row-major, where op(B) is B[K x N]
// or, with transB, B[N x K] transposed. C is overwritten.
void gemm(bool transB, int64_t M, int64_t N, int64_t K, float alpha,
          const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
          int64_t ldc) {
  if (M == 0 || N == 0)
    return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    return;
  }
#ifdef AOTI_SHIMS_HAVE_OPENBLAS
  ops::cpu::sgemm(false, transB, static_cast<int>(M), static_cast<int>(N),
                    static_cast<int>(K), alpha, A, static_cast<int>(lda), B,
                    static_cast<int>(ldb), 0.0f, C, static_cast<int>(ldc));
#else
  // Plain loops, unit-stride innermost: a build without OpenBLAS still runs
  // attention, only slower.
  for (int64_t i = 0; i < M; ++i) {
    float *c = C + i * ldc;
    const float *a = A + i * lda;
    if (transB) {
      for (int64_t j = 0; j < N; ++j) {
        const float *b = B + j * ldb;
        float sum = 0.0f;
        for (int64_t k = 0; k < K; ++k)
          sum += a[k] * b[k];
        c[j] = alpha * sum;
      }
    } else {
      std::fill(c, c + N, 0.0f);
      for (int64_t k = 0; k < K; ++k) {
        const float scaled = alpha * a[k];
        const float *b = B + k * ldb;
        for (int64_t j = 0; j < N; ++j)
          c[j] += scaled * b[j];
      }
    }
  }
#endif
}

// Packs rows [row0, row0 + rows) of a [.., L, D] slice at `base` (element
// offset) into dst (rows x D, contiguous, float32).
void packRows(const void *data, AttentionElement type, int64_t base,
              int64_t rowStride, int64_t colStride, int64_t row0, int64_t rows,
              int64_t cols, float *dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t rowBase = base + (row0 + r) * rowStride;
    float *out = dst + r * cols;
    if (type == AttentionElement::Float32 && colStride == 1) {
      std::memcpy(out, static_cast<const float *>(data) + rowBase,
                  static_cast<size_t>(cols) * sizeof(float));
      continue;
    }
    for (int64_t c = 0; c < cols; ++c)
      out[c] = loadElement(data, rowBase + c * colStride, type);
  }
}

} // namespace

namespace {

// One key/value head of one batch entry as the GEMMs read it: rows of E
// (keys) and Ev (values) floats, ldk / ldv apart.
struct KvHead {
  const float *keys;
  int64_t ldk;
  const float *values;
  int64_t ldv;
};

// A [.., L, D] slice the GEMMs can read in place: float32 with unit column
// stride and a row stride cblas takes.
bool readableInPlace(AttentionElement type, int64_t rowStride,
                     int64_t colStride, int64_t cols) {
  return type == AttentionElement::Float32 && (colStride == 1 || cols <= 1) &&
         rowStride >= std::max<int64_t>(cols, 1) &&
         rowStride <= std::numeric_limits<int>::max();
}

// Per-thread buffers: one block of query rows, its scores and outputs.
struct Workspace {
  std::vector<float> queries, scores, outputs;
  std::vector<float> denominators, lses;
  Workspace(int64_t ldq, int64_t lds, int64_t ldv)
      : queries(static_cast<size_t>(kRowBlock * ldq)),
        scores(static_cast<size_t>(kRowBlock * lds)),
        outputs(static_cast<size_t>(kRowBlock * ldv)),
        denominators(kRowBlock), lses(kRowBlock) {}
};

// Query rows [i0, i0 + rows) of head h of batch b, against its key/value
// head kv.
void attendBlock(const AttentionArgs &a, int64_t b, int64_t h, int64_t i0,
                 const KvHead &kv, Workspace &w) {
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t Lq = a.queryLen;
  const int64_t Lk = a.keyLen;
  const int64_t E = a.headDim;
  const int64_t Ev = a.valueDim;
  // Leading dimensions of the packed buffers; BLAS wants them >= 1.
  const int64_t ldq = std::max<int64_t>(E, 1);
  const int64_t lds = std::max<int64_t>(Lk, 1);
  const int64_t ldo = std::max<int64_t>(Ev, 1);
  const int64_t rows = std::min(kRowBlock, Lq - i0);

  packRows(a.query, a.element, b * a.queryStrides[0] + h * a.queryStrides[1],
           a.queryStrides[2], a.queryStrides[3], i0, rows, E,
           w.queries.data());
  gemm(/*transB=*/true, rows, Lk, E, a.scale, w.queries.data(), ldq, kv.keys,
       kv.ldk, w.scores.data(), lds);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    float *row = w.scores.data() + r * lds;
    const int64_t maskRow =
        b * a.maskStrides[0] + h * a.maskStrides[1] + i * a.maskStrides[2];
    // Keys past the causal limit are masked; limit <= Lk.
    const int64_t limit =
        a.causal ? std::clamp<int64_t>(i + a.causalOffset + 1, 0, Lk) : Lk;
    addMask(a, maskRow, limit, row);
    const float rowMax = cpu::maxOf(row, limit);
    float sum = 0.0f;
    if (rowMax == -inf) { // every key masked
      std::fill(row, row + Lk, 0.0f);
    } else {
      sum = cpu::expShiftedSum(row, limit, rowMax);
      std::fill(row + limit, row + Lk, 0.0f);
    }
    w.denominators[r] = sum;
    w.lses[r] = sum > 0.0f ? rowMax + std::log(sum) : -inf;
  }
  gemm(/*transB=*/false, rows, Ev, Lk, 1.0f, w.scores.data(), lds, kv.values,
       kv.ldv, w.outputs.data(), ldo);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    const float reciprocal =
        w.denominators[r] > 0.0f ? 1.0f / w.denominators[r] : 0.0f;
    const int64_t outRow =
        b * a.outStrides[0] + h * a.outStrides[1] + i * a.outStrides[2];
    const float *o = w.outputs.data() + r * ldo;
    if (a.element == AttentionElement::Float32 && a.outStrides[3] == 1) {
      float *dst = static_cast<float *>(a.out) + outRow;
      for (int64_t c = 0; c < Ev; ++c)
        dst[c] = o[c] * reciprocal;
    } else {
      for (int64_t c = 0; c < Ev; ++c)
        storeElement(a.out, outRow + c * a.outStrides[3], a.element,
                     o[c] * reciprocal);
    }
    if (a.logsumexp)
      a.logsumexp[b * a.logsumexpStrides[0] + h * a.logsumexpStrides[1] +
                  i * a.logsumexpStrides[2]] = w.lses[r];
  }
}

// Below this many multiply-adds a call runs on the calling thread alone:
// waking the team would cost more than it saves.
constexpr int64_t kParallelMacs = int64_t{1} << 22;

} // namespace

Error cpu::attention(const AttentionArgs &a) {
  const int64_t Lq = a.queryLen;
  const int64_t Lk = a.keyLen;
  const int64_t E = a.headDim;
  const int64_t Ev = a.valueDim;
  // cblas takes int dimensions.
  constexpr int64_t kMaxBlasDim = std::numeric_limits<int>::max();
  if (Lk > kMaxBlasDim || E > kMaxBlasDim || Ev > kMaxBlasDim)
    return Error::failure("sequence length ", Lk, " or head dims ", E, "/",
                          Ev, " exceed what cblas_sgemm takes (",
                          kMaxBlasDim, ")");
  const int64_t ldq = std::max<int64_t>(E, 1);
  const int64_t lds = std::max<int64_t>(Lk, 1);
  const int64_t ldv = std::max<int64_t>(Ev, 1);
  const int64_t group = a.heads / a.kvHeads;
  const int64_t macs = a.batch * a.heads * Lq * Lk * (E + Ev);
  const int threads =
      macs >= kParallelMacs ? ops::cpu::cpuThreadCount() : 1;
  const ops::cpu::SingleThreadedBlas blas;

  // Keys and values: read in place when they are float32 rows, else packed
  // to float32 once per (batch, key/value head) for all the query heads
  // that share them (grouped-query attention copies nothing else). Every
  // buffer is allocated here, outside the parallel regions, so that an
  // allocation failure is caught by the shim's guard, not inside a thread.
  const bool keysInPlace = readableInPlace(a.element, a.keyStrides[2],
                                           a.keyStrides[3], E);
  const bool valuesInPlace = readableInPlace(a.element, a.valueStrides[2],
                                             a.valueStrides[3], Ev);
  const int64_t kvItems = a.batch * a.kvHeads;
  std::vector<float> packedKeys, packedValues;
  if (!keysInPlace)
    packedKeys.resize(static_cast<size_t>(kvItems * Lk * ldq));
  if (!valuesInPlace)
    packedValues.resize(static_cast<size_t>(kvItems * Lk * ldv));
  std::vector<KvHead> kv(static_cast<size_t>(kvItems));
  for (int64_t item = 0; item < kvItems; ++item) {
    const int64_t b = item / a.kvHeads, kh = item % a.kvHeads;
    KvHead &head = kv[static_cast<size_t>(item)];
    if (keysInPlace)
      head = {static_cast<const float *>(a.key) + b * a.keyStrides[0] +
                  kh * a.keyStrides[1],
              a.keyStrides[2], nullptr, 0};
    else
      head = {packedKeys.data() + item * Lk * ldq, ldq, nullptr, 0};
    if (valuesInPlace) {
      head.values = static_cast<const float *>(a.value) +
                    b * a.valueStrides[0] + kh * a.valueStrides[1];
      head.ldv = a.valueStrides[2];
    } else {
      head.values = packedValues.data() + item * Lk * ldv;
      head.ldv = ldv;
    }
  }
  if (!keysInPlace || !valuesInPlace)
    ops::cpu::parallelFor(kvItems, threads, [&](int64_t item) {
      const int64_t b = item / a.kvHeads, kh = item % a.kvHeads;
      if (!keysInPlace)
        packRows(a.key, a.element, b * a.keyStrides[0] + kh * a.keyStrides[1],
                 a.keyStrides[2], a.keyStrides[3], 0, Lk, E,
                 packedKeys.data() + item * Lk * ldq);
      if (!valuesInPlace)
        packRows(a.value, a.element,
                 b * a.valueStrides[0] + kh * a.valueStrides[1],
                 a.valueStrides[2], a.valueStrides[3], 0, Lk, Ev,
                 packedValues.data() + item * Lk * ldv);
    });

  // Work items: (batch, query head, block of query rows), independent of
  // each other (each writes its own rows), shared out to the threads.
  const int64_t blocks = (Lq + kRowBlock - 1) / kRowBlock;
  const int64_t items = a.batch * a.heads * blocks;
  const int team = static_cast<int>(std::min<int64_t>(threads, items));
  std::vector<Workspace> workspaces;
  workspaces.reserve(static_cast<size_t>(std::max(team, 1)));
  for (int t = 0; t < std::max(team, 1); ++t)
    workspaces.emplace_back(ldq, lds, ldv);
  ops::cpu::parallelFor(items, team, [&](int64_t item) {
    const int64_t block = item % blocks;
    const int64_t h = (item / blocks) % a.heads;
    const int64_t b = item / (blocks * a.heads);
    const int thread = team > 1 ? ops::cpu::threadIndex() : 0;
    Workspace &w = workspaces[static_cast<size_t>(thread)];
    attendBlock(a, b, h, block * kRowBlock,
                kv[static_cast<size_t>(b * a.kvHeads + h / group)], w);
  });
  if (a.logsumexp)
    for (int64_t b = 0; b < a.batch; ++b)
      for (int64_t h = 0; h < a.heads; ++h)
        for (int64_t i = Lq; i < a.logsumexpRows; ++i)
          a.logsumexp[b * a.logsumexpStrides[0] + h * a.logsumexpStrides[1] +
                      i * a.logsumexpStrides[2]] =
              std::numeric_limits<float>::infinity();
  return Error::success();
}

} // namespace aoti::shims::ops
