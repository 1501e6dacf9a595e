//===- attention_kernel_emulation_test.cpp - CUDA attention kernels on CPU -===//
//
// Runs the two CUDA attention kernels of shims/src/ops/cuda/attention.cu,
// compiled as host C++, on CPU threads: one std::thread per CUDA thread of
// a block, __syncthreads() as a 256-way std::barrier, warp shuffles as a
// 32-way exchange through memory, dynamic shared memory as one array. The
// grid's blocks run one after another. What this proves without a GPU: the
// kernels' indexing, tiling, masking, online softmax and warp-uniform
// control flow (a divergent shuffle or barrier would deadlock here) give
// the reference's results, for every PerLane instantiation and dtype.
// What it cannot prove: anything about the real device (expf's ulp
// error, memory model, launch limits): shims_cuda_test does that on a GPU.
//
//===----------------------------------------------------------------------===//
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <math_constants.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <thread>
#include <vector>

// --- A CUDA execution model on host threads -------------------------------
#undef __global__
#undef __device__
#undef __shared__
#undef __launch_bounds__
#define __global__
#define __device__
#define __shared__
#define __launch_bounds__(...)

namespace emulation {
thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local uint3 gridDim;
std::barrier<> *blockBarrier = nullptr;
struct Warp {
  std::barrier<> barrier{32};
  float slots[32];
};
Warp *warps = nullptr;

float exchange(float value, int sourceLane) {
  Warp &warp = warps[threadIdx.x / 32];
  const int lane = static_cast<int>(threadIdx.x % 32);
  warp.slots[lane] = value;
  warp.barrier.arrive_and_wait();
  const float result = warp.slots[sourceLane & 31];
  warp.barrier.arrive_and_wait();
  return result;
}
} // namespace emulation

using emulation::blockIdx;
using emulation::gridDim;
using emulation::threadIdx;
inline void __syncthreads() { emulation::blockBarrier->arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float value, int laneMask) {
  return emulation::exchange(value,
                             static_cast<int>(threadIdx.x % 32) ^ laneMask);
}
inline float __shfl_sync(unsigned, float value, int sourceLane) {
  return emulation::exchange(value, sourceLane);
}
inline float __int_as_float(int bits) { // math_constants.h's CUDART_INF_F
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
inline int64_t min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t max(int64_t a, int64_t b) { return a > b ? a : b; }

#define AOTI_SHIMS_ATTENTION_EMULATION 1
#include "ops/cuda/attention.cu"

// The kernels' dynamic shared memory (the .cu declares it extern): as much
// as the largest of them takes, aligned for the tiled kernel's float4s.
namespace aoti::shims::ops {
namespace {
constexpr int64_t kEmulatedSharedBytes =
    kSharedBytes > kTiledMaxSharedBytes ? kSharedBytes : kTiledMaxSharedBytes;
alignas(16) float shared[kEmulatedSharedBytes / sizeof(float)];
} // namespace
} // namespace aoti::shims::ops

// --- The test ----------------------------------------------------------------
#include "attention_test_util.h"

using namespace aoti::test;
using namespace aoti::test::attention;
namespace ops = aoti::shims::ops;

namespace {

// Runs `body` as a grid of blocks of kThreads host threads.
template <typename Body>
void runGrid(unsigned gx, unsigned gy, unsigned gz, Body body,
             int kThreads = ops::kThreads) {
  std::barrier<> block(kThreads);
  std::vector<emulation::Warp> warps(kThreads / 32);
  emulation::blockBarrier = &block;
  emulation::warps = warps.data();
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x) {
        std::vector<std::thread> threads;
        threads.reserve(kThreads);
        for (int t = 0; t < kThreads; ++t)
          threads.emplace_back([&, t] {
            threadIdx = uint3{static_cast<unsigned>(t), 0, 0};
            blockIdx = uint3{x, y, z};
            gridDim = uint3{gx, gy, gz};
            body();
          });
        for (std::thread &thread : threads)
          thread.join();
      }
}

template <typename T, int PerLane>
void runKernel(const ops::AttentionArgs &args, ops::AttentionKernel kernel) {
  const int64_t rows = std::max(args.queryLen, args.logsumexpRows);
  const unsigned gx =
      static_cast<unsigned>((rows + ops::kWarps - 1) / ops::kWarps);
  const int64_t floatBytes = sizeof(float);
  if (kernel == ops::AttentionKernel::PerKey) {
    const int64_t keyTile =
        ops::keyTileFor((args.headDim + args.valueDim) * floatBytes, 0);
    runGrid(gx, args.heads, args.batch, [&] {
      ops::attentionKernel<T, PerLane>(args, keyTile);
    });
  } else {
    const int64_t keyTile = ops::keyTileFor(
        (args.headDim + 1 + args.valueDim) * floatBytes,
        ops::kWarps * args.headDim * floatBytes);
    runGrid(gx, args.heads, args.batch, [&] {
      ops::attentionChunkedKernel<T, PerLane>(args, keyTile);
    });
  }
}

template <typename T, int D, int RowGroups>
void runTiled(const ops::AttentionArgs &args) {
  using Shape = ops::TiledShape<D, RowGroups>;
  const unsigned gx =
      static_cast<unsigned>(ops::tiledRowTiles(args, Shape::kTileRows));
  const unsigned loads = ops::tiledLoads<T>(args);
  runGrid(
      gx, args.heads, args.batch,
      [&] { ops::attentionTiledKernel<T, D, RowGroups>(args, loads); },
      Shape::kThreads);
}

template <typename T, int RowGroups>
void runTiledForHeadDim(const ops::AttentionArgs &args) {
  switch (ops::tiledHeadDim(args)) {
  case 32:
    return runTiled<T, 32, RowGroups>(args);
  case 64:
    return runTiled<T, 64, RowGroups>(args);
  case 128:
    return runTiled<T, 128, RowGroups>(args);
  default:
    return runTiled<T, 256, RowGroups>(args);
  }
}

template <typename T>
void runForHeadDim(const ops::AttentionArgs &args,
                   ops::AttentionKernel kernel) {
  // The launcher picks the tile height by the device's SM count; here each
  // is run on its own.
  if (kernel == ops::AttentionKernel::TiledRows64)
    return runTiledForHeadDim<T, 16>(args);
  if (kernel == ops::AttentionKernel::TiledRows32)
    return runTiledForHeadDim<T, 8>(args);
  const int64_t widest = std::max(args.headDim, args.valueDim);
  if (widest <= 32)
    runKernel<T, 1>(args, kernel);
  else if (widest <= 64)
    runKernel<T, 2>(args, kernel);
  else if (widest <= 128)
    runKernel<T, 4>(args, kernel);
  else
    runKernel<T, 8>(args, kernel);
}

// Small on purpose: every emulated block is 256 threads meeting at
// barriers, about half a second of a loaded 2-core machine.
struct Case {
  int64_t B = 1, H = 1, Hk = 1, Lq = 8, Lk = 45, E = 64, Ev = 64;
  Dtype dtype = Dtype::Float32;
  Layout layout = Layout::Transposed;
  bool causal = false;
  int64_t causalOffset = 0;
  std::vector<int64_t> maskSizes;
  Dtype maskDtype = Dtype::Bool;
  int64_t lseRows = 0; // 0: Lq
  int64_t offset = 3;  // q, k and v's storage offset (3: no float4 loads)
  std::optional<double> scale;
};

void copy4(const std::vector<int64_t> &from, int64_t (&to)[4]) {
  for (size_t d = 0; d < 4; ++d)
    to[d] = from[d];
}

const char *nameOf(ops::AttentionKernel kernel) {
  return kernel == ops::AttentionKernel::TiledRows64   ? "tiled-64"
         : kernel == ops::AttentionKernel::TiledRows32 ? "tiled-32"
         : kernel == ops::AttentionKernel::Chunked     ? "row"
                                                       : "per-key";
}

// Runs `kernel` on the case and checks it against the reference; returns
// the tiled kernel's float4-load bits for the case's operands.
unsigned expectKernelMatches(const Case &c, ops::AttentionKernel kernel) {
  SCOPED_TRACE(std::string(nameOf(kernel)) + " Lq" + std::to_string(c.Lq) +
               " H" + std::to_string(c.H) + "/" + std::to_string(c.Hk) +
               " " + nameOf(c.dtype) + " E" + std::to_string(c.E) + " Ev" +
               std::to_string(c.Ev) + " Lk" + std::to_string(c.Lk) +
               (c.causal ? " causal" : "") +
               (c.maskSizes.empty() ? "" : " masked"));
  Values gen(5);
  Operand q =
      makeOperand({c.B, c.H, c.Lq, c.E}, c.layout, c.offset, c.dtype, gen);
  Operand k =
      makeOperand({c.B, c.Hk, c.Lk, c.E}, c.layout, c.offset, c.dtype, gen);
  Operand v =
      makeOperand({c.B, c.Hk, c.Lk, c.Ev}, c.layout, c.offset, c.dtype, gen);
  std::optional<Operand> mask;
  if (!c.maskSizes.empty())
    mask = makeOperand(c.maskSizes, rowMajorStrides(c.maskSizes), 1,
                       c.maskDtype, gen);
  const std::vector<int64_t> outSizes = {c.B, c.H, c.Lq, c.Ev};
  const std::vector<int64_t> outStrides = rowMajorStrides(outSizes);
  std::vector<uint8_t> out(static_cast<size_t>(c.B * c.H * c.Lq * c.Ev) *
                               sizeOf(c.dtype),
                           0xff);
  const int64_t lseRows = c.lseRows ? c.lseRows : c.Lq;
  std::vector<float> lse(static_cast<size_t>(c.B * c.H * lseRows), NAN);

  ops::AttentionArgs args{};
  args.batch = c.B;
  args.heads = c.H;
  args.kvHeads = c.Hk;
  args.queryLen = c.Lq;
  args.keyLen = c.Lk;
  args.headDim = c.E;
  args.valueDim = c.Ev;
  args.scale = static_cast<float>(c.scale ? *c.scale
                                           : 1.0 / std::sqrt(double(c.E)));
  args.causal = c.causal;
  args.causalOffset = c.causalOffset;
  args.element = c.dtype == Dtype::Float32   ? ops::AttentionElement::Float32
                 : c.dtype == Dtype::Float16 ? ops::AttentionElement::Float16
                                             : ops::AttentionElement::BFloat16;
  args.query = q.storage.data() + q.offset * sizeOf(c.dtype);
  args.key = k.storage.data() + k.offset * sizeOf(c.dtype);
  args.value = v.storage.data() + v.offset * sizeOf(c.dtype);
  copy4(q.strides, args.queryStrides);
  copy4(k.strides, args.keyStrides);
  copy4(v.strides, args.valueStrides);
  args.maskKind = ops::AttentionMask::None;
  if (mask) {
    args.maskKind = c.maskDtype == Dtype::Bool ? ops::AttentionMask::Bool
                                               : ops::AttentionMask::Float32;
    args.mask = mask->storage.data() + mask->offset * sizeOf(c.maskDtype);
    // Broadcast strides, as ops/attention.cpp computes them for this shape.
    const size_t lead = 4 - c.maskSizes.size();
    const std::vector<int64_t> strides = rowMajorStrides(c.maskSizes);
    for (size_t d = 0; d < 4; ++d)
      args.maskStrides[d] =
          d < lead || c.maskSizes[d - lead] == 1 ? 0 : strides[d - lead];
  }
  args.out = out.data();
  copy4(outStrides, args.outStrides);
  args.logsumexp = lse.data();
  args.logsumexpStrides[0] = c.H * lseRows;
  args.logsumexpStrides[1] = lseRows;
  args.logsumexpStrides[2] = 1;
  args.logsumexpRows = lseRows;

  unsigned loads = 0;
  switch (c.dtype) {
  case Dtype::Float32:
    runForHeadDim<float>(args, kernel);
    loads = ops::tiledLoads<float>(args);
    break;
  case Dtype::Float16:
    runForHeadDim<__half>(args, kernel);
    loads = ops::tiledLoads<__half>(args);
    break;
  default:
    runForHeadDim<__nv_bfloat16>(args, kernel);
    loads = ops::tiledLoads<__nv_bfloat16>(args);
    break;
  }

  Problem p;
  p.query = &q;
  p.key = &k;
  p.value = &v;
  p.mask = mask ? &*mask : nullptr;
  p.causal = c.causal;
  p.causalOffset = c.causalOffset;
  p.scale = c.scale;
  const Reference ref = reference(p);
  expectClose(gather(out.data(), c.dtype, outSizes, outStrides), ref.out,
              outputTolerance(c.dtype), "out");
  std::vector<double> lseValues(lse.begin(), lse.end());
  expectClose(lseValues, paddedLse(ref.lse, c.B * c.H, c.Lq, lseRows),
              lseTolerance(), "logsumexp");
  return loads;
}

} // namespace

// How GoogleTest prints a kernel parameter (in the test listing, and so in
// the ctest names, and in failures): by the AOTI_SHIMS_CUDA_ATTENTION value
// that forces it. Found by argument-dependent lookup, hence the namespace.
namespace aoti::shims::ops {
void PrintTo(AttentionKernel kernel, std::ostream *os) { *os << nameOf(kernel); }
} // namespace aoti::shims::ops

namespace {

// The instance's name: the kernel's enumerator.
std::string kernelInstanceName(
    const testing::TestParamInfo<ops::AttentionKernel> &info) {
  switch (info.param) {
  case ops::AttentionKernel::TiledRows64:
    return "TiledRows64";
  case ops::AttentionKernel::TiledRows32:
    return "TiledRows32";
  case ops::AttentionKernel::Chunked:
    return "Chunked";
  case ops::AttentionKernel::PerKey:
    return "PerKey";
  }
  return "Unknown";
}

// Each test runs once per kernel (GetParam()).
class AttentionKernelEmulation
    : public testing::TestWithParam<ops::AttentionKernel> {};

INSTANTIATE_TEST_SUITE_P(EveryKernel, AttentionKernelEmulation,
                         testing::Values(ops::AttentionKernel::TiledRows64,
                                         ops::AttentionKernel::TiledRows32,
                                         ops::AttentionKernel::Chunked,
                                         ops::AttentionKernel::PerKey),
                         kernelInstanceName);

TEST_P(AttentionKernelEmulation, EveryPerLaneAndDtype) {
  // PerLane 1, 4 (80: not a multiple of 32) and 8 (256: 19-key tiles) in
  // float32; PerLane 2 in the half types.
  const std::pair<Dtype, int64_t> cases[] = {
      {Dtype::Float32, 16}, {Dtype::Float32, 80}, {Dtype::Float32, 256},
      {Dtype::Float16, 64}, {Dtype::BFloat16, 64}};
  for (auto [dtype, e] : cases) {
    Case c;
    c.dtype = dtype;
    c.E = e;
    c.Ev = e;
    expectKernelMatches(c, GetParam());
  }
}

TEST_P(AttentionKernelEmulation, CausalBothAlignmentsAndPaddedLogsumexp) {
  Case c;
  c.Lq = 19; // three blocks, the last with 5 idle warps
  c.causal = true;
  c.lseRows = 32; // the efficient kernel's padding: +inf
  expectKernelMatches(c, GetParam());
  c.Lq = 12;
  c.Lk = 5;
  c.causalOffset = c.Lk - c.Lq; // flash's bottom-right: 7 empty rows
  c.lseRows = 0;
  expectKernelMatches(c, GetParam());
}

TEST_P(AttentionKernelEmulation, MasksGroupedHeadsAndValueDims) {
  Case c;
  c.B = 2;
  c.H = 2;
  c.Hk = 1;
  c.Lk = 70; // two tiles of 64 keys, the second partial
  c.E = 32;
  c.Ev = 48;
  c.maskSizes = {2, 1, 8, 70};
  expectKernelMatches(c, GetParam());
  c.maskSizes = {8, 70};
  c.maskDtype = Dtype::Float32;
  c.causal = true;
  expectKernelMatches(c, GetParam());
  c.maskSizes = {2, 1, 1, 70};
  c.maskDtype = Dtype::Bool;
  c.layout = Layout::Gapped;
  expectKernelMatches(c, GetParam());
}

// --- The tiled kernel's edges --------------------------------------------
// Its tiles are 64 or 32 query rows by 64 keys (32 above head dim 64);
// these cases put Lq and Lk on each side of those edges, every head-dim
// bucket on each side of its limit, and both load paths (float4 and per
// element), for both tile heights.

class TiledKernelEmulation : public AttentionKernelEmulation {};

INSTANTIATE_TEST_SUITE_P(TileHeights, TiledKernelEmulation,
                         testing::Values(ops::AttentionKernel::TiledRows64,
                                         ops::AttentionKernel::TiledRows32),
                         kernelInstanceName);

constexpr unsigned kAllVector = 7; // query, key and value take float4

TEST_P(TiledKernelEmulation, RowAndKeyTileEdges) {
  const std::pair<int64_t, int64_t> lengths[] = {
      {1, 1}, {1, 70}, {65, 1}, {64, 64}, {70, 129}, {130, 65}};
  for (auto [lq, lk] : lengths)
    for (bool aligned : {true, false}) {
      Case c;
      c.Lq = lq;
      c.Lk = lk;
      c.layout = aligned ? Layout::Contiguous : Layout::Gapped;
      c.offset = aligned ? 0 : 3;
      EXPECT_EQ(expectKernelMatches(c, GetParam()), aligned ? kAllVector : 0u);
    }
}

TEST_P(TiledKernelEmulation, HeadDimBucketEdges) {
  // (E, Ev): each bucket's limit and one past it (32, 64, 128, 256), dims
  // that are not a multiple of 4 (per-element loads, zero padding), and a
  // bucket chosen by Ev alone or by E alone.
  const std::pair<int64_t, int64_t> dims[] = {
      {32, 32}, {33, 33}, {64, 64}, {65, 65}, {128, 128},
      {129, 129}, {256, 256}, {6, 6}, {32, 100}, {100, 16}};
  for (auto [e, ev] : dims) {
    Case c;
    c.Lq = 70;
    c.Lk = 70;
    c.E = e;
    c.Ev = ev;
    c.layout = Layout::Contiguous;
    c.offset = 4;
    const unsigned loads = expectKernelMatches(c, GetParam());
    EXPECT_EQ(loads & 3u, e % 4 == 0 ? 3u : 0u) << "E " << e;
    EXPECT_EQ(loads & 4u, ev % 4 == 0 ? 4u : 0u) << "Ev " << ev;
  }
}

TEST_P(TiledKernelEmulation, CausalAlignmentsAndPadding) {
  struct {
    int64_t lq, lk, lseRows;
    bool bottomRight;
  } cases[] = {
      {70, 130, 96, false}, // top-left, more keys than queries
      {130, 70, 160, false}, // top-left, more queries: rows past 70 see all
      {70, 130, 0, true},   // bottom-right: every row sees 60 more keys
      {130, 70, 0, true},   // bottom-right: the first 60 rows see none
      {60, 60, 96, false},  // a block of logsumexp padding alone
  };
  for (const auto &k : cases) {
    Case c;
    c.Lq = k.lq;
    c.Lk = k.lk;
    c.causal = true;
    c.causalOffset = k.bottomRight ? k.lk - k.lq : 0;
    c.lseRows = k.lseRows;
    c.layout = Layout::Transposed;
    c.offset = 0;
    expectKernelMatches(c, GetParam());
  }
}

TEST_P(TiledKernelEmulation, MasksGroupedHeadsAndScale) {
  Case c;
  c.B = 1;
  c.H = 4;
  c.Hk = 2; // grouped-query: two query heads per key/value head
  c.Lq = 66;
  c.Lk = 67;
  c.E = 32;
  c.Ev = 32;
  c.layout = Layout::Transposed;
  c.offset = 0;
  c.maskSizes = {1, 4, 66, 67}; // full rank, boolean
  expectKernelMatches(c, GetParam());
  c.maskSizes = {66, 67}; // float, broadcast over batch and heads
  c.maskDtype = Dtype::Float32;
  c.causal = true;
  expectKernelMatches(c, GetParam());
  c.B = 2;
  c.H = 2;
  c.Hk = 1; // multi-query
  c.maskSizes = {2, 1, 1, 67}; // a padding mask
  c.maskDtype = Dtype::Bool;
  c.causal = false;
  c.scale = 0.3;
  expectKernelMatches(c, GetParam());
}

TEST_P(TiledKernelEmulation, HalfTypesOnBothLoadPaths) {
  for (Dtype dtype : {Dtype::Float16, Dtype::BFloat16})
    for (bool aligned : {true, false}) {
      Case c;
      c.dtype = dtype;
      c.Lq = 65;
      c.Lk = 80;
      c.E = 128;
      c.Ev = 128;
      c.layout = aligned ? Layout::Transposed : Layout::Gapped;
      c.offset = aligned ? 4 : 1;
      c.causal = !aligned;
      EXPECT_EQ(expectKernelMatches(c, GetParam()), aligned ? kAllVector : 0u);
    }
}

} // namespace
