//===- ops/cuda/convolution.cpp - aten::convolution on cuDNN ---------------===//
//
// One cuDNN call per convolution, with cuDNN's legacy (v7-style) API:
//   convolution             cudnnConvolutionForward      (x = input, y = out)
//   transposed convolution  cudnnConvolutionBackwardData (dy = input,
//                           dx = out): a transposed convolution is the
//                           gradient of a convolution with respect to its
//                           input, and torch's transposed weight
//                           [C_in, C_out/g, k...] is exactly that forward
//                           convolution's filter [K, C/g, k...]
//   bias                    cudnnAddTensor (a [1, C, 1, 1(, 1)] tensor
//                           broadcast onto the output), or, for a dtype
//                           cuDNN refuses there, a small kernel of ours
//                           (bias_add.cu)
// A 1-d convolution runs as a 2-d one over [N, C, 1, L] (as torch does).
// A transposed convolution whose output_padding reaches its stride (allowed
// when below the dilation) has no cuDNN form: it runs unpadded into a
// temporary, and out is copied from the window at `padding` (torch uses its
// slow kernels there).
//
// Layout. cuDNN's filter descriptor has no strides, only NCHW or NHWC, and its
// NHWC kernels want NHWC activations too, so everything runs in one layout:
// NHWC when the output is channels-last (which ops/convolution.cpp decided
// exactly as torch would), NCHW otherwise. Input and weight are used in place
// when they are dense in that layout (strides of size-1 dimensions do not
// matter); otherwise they are first copied into it (as torch's
// cudnn_convolution does with input.contiguous(memory_format)). The output is
// written in place.
//
// Algorithm. cudnnGetConvolution{Forward,BackwardData}Algorithm_v7 ranks the
// algorithms by cuDNN's heuristics (torch's default, benchmark=False); the
// first one whose workspace can be allocated and that runs is used.
//
// Plans. Everything that depends only on the problem is built once and kept
// in a ConvPlan per problem: the tensor, filter and convolution descriptors,
// the bias descriptor, the chosen algorithm and math type, and the workspace
// size. The key is what the descriptors are made of: device, dtype, layout
// (NCHW or NHWC, which fixes every operand's strides after the copies
// below), transposed, groups, and the cuDNN-view sizes of input, weight and
// output, padding, stride and dilation. A repeated call is then: key, one
// lookup under a mutex, cudnnSetStream only when the thread's stream
// changed, the workspace from the stream-ordered pool, one cuDNN call (and
// the bias). Before the plans, every call rebuilt five descriptors and asked
// cuDNN for the workspace size (which in cuDNN 9's v7 emulation is itself a
// heuristics query); on the H200 a call of a 1x1 convolution cost 6.8x
// eager's (docs/shims.md). Plans are shared by all threads: after they are
// made, cuDNN only reads the descriptors. The cache holds at most
// kMaxConvPlans plans and is emptied when full: a model has tens of distinct
// convolutions, a plan is a few hundred bytes of host memory, and only a
// model with dynamic shapes could otherwise grow it without end; emptying is
// simpler than an LRU order and costs a dynamic-shape model one replan per
// shape. A plan that fails to run (cuDNN may refuse its algorithm for
// another operand's alignment) is replaced by a fresh ranking.
// The workspace comes from the shims' stream-ordered allocator and is freed,
// stream-ordered, after the call is enqueued. Everything runs on the calling
// thread's current stream, through one cudnnHandle per thread and device
// (cudnn_handle.h, shared with the cuDNN attention).
//
// Arithmetic. float32 convolutions run with CUDNN_FMA_MATH: true float32
// FMAs, never TF32 (torch.backends.cudnn.allow_tf32 is False in the zoo, and
// CUDNN_DEFAULT_MATH would let cuDNN use TF32 on Ampere and later).
// float16 and bfloat16 accumulate in float32 (the descriptor's compute type)
// and may use tensor cores.
//
// The v7 API is deprecated in cuDNN 9 but fully supported; the warnings are
// silenced for this file only. In a build with cudnn-frontend, forward
// convolutions without bias run through cuDNN's graph API instead
// (convolution_graph.cpp) wherever it takes them; this path keeps the rest
// (bias, transposed, refused or misaligned problems) and every call under
// AOTI_SHIMS_CUDA_CONV=legacy.
//
//===----------------------------------------------------------------------===//
#include "ops/convolution.h"

#include "copy.h"
#include "cuda/cuda_internal.h"
#include "cuda/device_scope.h"
#include "cuda_api.h"
#include "ops/cuda/bias_add.h"
#include "ops/cuda/cudnn_handle.h"
#ifdef AOTI_SHIMS_HAVE_CUDNN_FRONTEND
#include "ops/cuda/convolution_graph.h"
#endif

#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace aoti::shims::ops::cuda {
namespace {

namespace rt = aoti::shims::cuda;

Error check(cudnnStatus_t status, const char *what) {
  return checkCudnn(status, what);
}

// The thread's handle for `device` (current), bound to its current stream.
Expected<cudnnHandle_t> handleFor(int32_t device) {
  return cudnnHandleFor(device);
}

// Owning wrappers of cuDNN's descriptors.
struct TensorDescDeleter {
  void operator()(cudnnTensorStruct *d) const {
    (void)cudnnDestroyTensorDescriptor(d);
  }
};
struct FilterDescDeleter {
  void operator()(cudnnFilterStruct *d) const {
    (void)cudnnDestroyFilterDescriptor(d);
  }
};
struct ConvDescDeleter {
  void operator()(cudnnConvolutionStruct *d) const {
    (void)cudnnDestroyConvolutionDescriptor(d);
  }
};
using TensorDesc = std::unique_ptr<cudnnTensorStruct, TensorDescDeleter>;
using FilterDesc = std::unique_ptr<cudnnFilterStruct, FilterDescDeleter>;
using ConvDesc = std::unique_ptr<cudnnConvolutionStruct, ConvDescDeleter>;

cudnnDataType_t dataType(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
    return CUDNN_DATA_HALF;
  case ScalarType::BFloat16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

// Sizes of a 1-d operand viewed as 2-d ([N, C, L] -> [N, C, 1, L]).
std::vector<int64_t> asCudnnSizes(std::span<const int64_t> sizes) {
  std::vector<int64_t> result;
  result.reserve(sizes.size() + 1);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes.size() == 3 && d == 2)
      result.push_back(1);
    result.push_back(sizes[d]);
  }
  return result;
}

// Dense strides of `sizes` (4-d or 5-d) in NCHW or NHWC order.
std::vector<int64_t> layoutStrides(std::span<const int64_t> sizes, bool nhwc) {
  const size_t n = sizes.size();
  std::vector<size_t> order; // innermost first
  if (nhwc) {
    order.push_back(1);
    for (size_t d = n; d-- > 2;)
      order.push_back(d);
    order.push_back(0);
  } else {
    for (size_t d = n; d-- > 0;)
      order.push_back(d);
  }
  std::vector<int64_t> strides(n);
  int64_t stride = 1;
  for (size_t d : order) {
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

// Whether a tensor with cuDNN-view sizes `sizes` and its own strides (1-d:
// without the inserted dimension) is dense in the layout whose strides are
// `wanted`; dimensions of size 1 match any stride.
bool denseIn(const Tensor &t, std::span<const int64_t> sizes,
             std::span<const int64_t> wanted) {
  std::vector<int64_t> own(t.strides().begin(), t.strides().end());
  if (own.size() == 3)
    own.insert(own.begin() + 2, wanted[2]); // size 1: free
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1 && own[d] != wanted[d])
      return false;
  return true;
}

// `t` in place when it is dense in the layout, else a copy in that layout
// (kept alive in `keep`, freed stream-ordered after the call is enqueued).
Expected<const Tensor *> inLayout(const Tensor &t, bool nhwc,
                                  std::optional<Tensor> &keep) {
  const std::vector<int64_t> sizes = asCudnnSizes(t.sizes());
  std::vector<int64_t> wanted = layoutStrides(sizes, nhwc);
  if (denseIn(t, sizes, wanted))
    return &t;
  if (t.dim() == 3)
    wanted.erase(wanted.begin() + 2);
  Expected<Tensor> copy = Tensor::empty(t.sizes(), wanted, t.dtype(),
                                        t.device());
  if (!copy)
    return copy.takeError();
  if (Error err = copyTensor(*copy, t, /*nonBlocking=*/true))
    return err;
  keep = std::move(*copy);
  return &*keep;
}

bool fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

Expected<std::vector<int>> toInts(std::span<const int64_t> values,
                                  const char *what) {
  std::vector<int> result;
  for (int64_t v : values) {
    if (!fitsInt(v))
      return Error::failure(what, " value ", v, " does not fit cuDNN's int");
    result.push_back(static_cast<int>(v));
  }
  return result;
}

Expected<TensorDesc> tensorDesc(std::span<const int64_t> sizes,
                                std::span<const int64_t> strides,
                                cudnnDataType_t type) {
  cudnnTensorDescriptor_t raw = nullptr;
  if (Error err = check(cudnnCreateTensorDescriptor(&raw),
                        "cudnnCreateTensorDescriptor"))
    return err;
  TensorDesc desc(raw);
  Expected<std::vector<int>> dims = toInts(sizes, "tensor size");
  if (!dims)
    return dims.takeError();
  Expected<std::vector<int>> steps = toInts(strides, "tensor stride");
  if (!steps)
    return steps.takeError();
  if (Error err = check(cudnnSetTensorNdDescriptor(
                            raw, type, static_cast<int>(dims->size()),
                            dims->data(), steps->data()),
                        "cudnnSetTensorNdDescriptor"))
    return err;
  return desc;
}

// The descriptor of a bias [C] broadcast onto an output of `outSizes`: a
// dense [1, C, 1, 1(, 1)].
Expected<TensorDesc> biasDesc(std::span<const int64_t> outSizes,
                              cudnnDataType_t type) {
  std::vector<int64_t> sizes(outSizes.size(), 1);
  sizes[1] = outSizes[1];
  return tensorDesc(sizes, layoutStrides(sizes, false), type);
}

// What the heuristics chose for one problem.
struct AlgoChoice {
  int algo;
  cudnnMathType_t math;
};

// Everything a call of one convolution problem needs besides its data
// pointers (see "Plans" above). Immutable once in the cache, except for
// biasByKernel, which a call may set.
struct ConvPlan {
  bool transposed = false;
  TensorDesc x, y, bias;
  FilterDesc w;
  ConvDesc conv;
  AlgoChoice choice{};
  size_t workspaceBytes = 0;
  // cudnnAddTensor refused this dtype and layout once: the bias goes
  // straight to our kernel.
  std::atomic<bool> biasByKernel{false};
};

constexpr size_t kMaxConvPlans = 1024;

// The process's plans, by problem key (see "Plans" above).
class PlanCache {
public:
  std::shared_ptr<ConvPlan> find(const std::vector<int64_t> &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = plans_.find(key);
    return it == plans_.end() ? nullptr : it->second;
  }
  void put(const std::vector<int64_t> &key, std::shared_ptr<ConvPlan> plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (plans_.size() >= kMaxConvPlans && !plans_.count(key))
      plans_.clear(); // a plan in use stays alive through its shared_ptr
    plans_[key] = std::move(plan);
  }
private:
  std::mutex mutex_;
  std::map<std::vector<int64_t>, std::shared_ptr<ConvPlan>> plans_;
};
PlanCache &planCache() {
  static PlanCache *cache = new PlanCache; // outlives every thread's last call
  return *cache;
}

// out += bias, broadcast over [1, C, 1, 1(, 1)]; `sizes` and `strides` are
// out's in cuDNN's view, `bDesc` and `yDesc` describe bias and out.
// `biasByKernel` says (and learns) that cuDNN does not add this dtype.
Error addBias(cudnnHandle_t handle, cudnnTensorDescriptor_t bDesc,
              cudnnTensorDescriptor_t yDesc, const Tensor &bias,
              const Tensor &out, std::span<const int64_t> sizes,
              std::span<const int64_t> strides,
              std::atomic<bool> &biasByKernel) {
  if (!biasByKernel.load(std::memory_order_relaxed)) {
    const float one = 1.0f;
    const cudnnStatus_t status = cudnnAddTensor(handle, &one, bDesc,
                                                bias.data(), &one, yDesc,
                                                out.data());
    if (status != CUDNN_STATUS_NOT_SUPPORTED)
      return check(status, "cudnnAddTensor (bias)");
    biasByKernel.store(true, std::memory_order_relaxed);
  }
  // cuDNN does not add this dtype: our kernel, on the same stream. `out` is
  // dense, NCHW (channel stride = spatial size) or NHWC (channel stride 1).
  cudaStream_t stream = nullptr;
  if (Error err = check(cudnnGetStream(handle, &stream), "cudnnGetStream"))
    return err;
  int64_t numel = 1, spatial = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    numel *= sizes[d];
    if (d >= 2)
      spatial *= sizes[d];
  }
  const bool nhwc = strides[1] == 1 && sizes[1] > 1;
  const BiasType biasType = out.dtype() == ScalarType::Float16 ? BiasType::Float16
                            : out.dtype() == ScalarType::BFloat16
                                ? BiasType::BFloat16
                                : BiasType::Float32;
  return rt::checkCuda(launchAddBias(out.data(), bias.data(), numel, sizes[1],
                                     nhwc ? 1 : spatial, biasType, stream),
                       "bias kernel launch");
}

// The geometry of one problem in cuDNN's view (1-d as 2-d).
struct ConvGeometry {
  cudnnDataType_t type;
  bool nhwc;
  std::vector<int64_t> inSizes, wSizes, outSizes, outStrides;
  std::vector<int64_t> pad, stride, dilation;
};

std::vector<int64_t> planKey(const ConvGeometry &g, const ConvParams &p,
                             int32_t device) {
  std::vector<int64_t> key{device, static_cast<int64_t>(g.type), g.nhwc,
                           p.transposed, p.groups};
  for (const std::vector<int64_t> *part :
       std::initializer_list<const std::vector<int64_t> *>{
           &g.inSizes, &g.wSizes, &g.outSizes, &g.pad, &g.stride,
           &g.dilation}) {
    key.push_back(static_cast<int64_t>(part->size())); // unambiguous
    key.insert(key.end(), part->begin(), part->end());
  }
  return key;
}

// The descriptors of a new plan (no algorithm chosen yet).
Expected<std::shared_ptr<ConvPlan>> describe(const ConvGeometry &g,
                                             const ConvParams &p) {
  auto plan = std::make_shared<ConvPlan>();
  plan->transposed = p.transposed;
  Expected<TensorDesc> xDesc =
      tensorDesc(g.inSizes, layoutStrides(g.inSizes, g.nhwc), g.type);
  if (!xDesc)
    return xDesc.takeError();
  plan->x = std::move(*xDesc);
  Expected<TensorDesc> yDesc = tensorDesc(g.outSizes, g.outStrides, g.type);
  if (!yDesc)
    return yDesc.takeError();
  plan->y = std::move(*yDesc);
  Expected<TensorDesc> bDesc = biasDesc(g.outSizes, g.type);
  if (!bDesc)
    return bDesc.takeError();
  plan->bias = std::move(*bDesc);

  cudnnFilterDescriptor_t rawFilter = nullptr;
  if (Error err = check(cudnnCreateFilterDescriptor(&rawFilter),
                        "cudnnCreateFilterDescriptor"))
    return err;
  plan->w.reset(rawFilter);
  Expected<std::vector<int>> filterDims = toInts(g.wSizes, "weight size");
  if (!filterDims)
    return filterDims.takeError();
  if (Error err = check(
          cudnnSetFilterNdDescriptor(
              rawFilter, g.type, g.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
              static_cast<int>(filterDims->size()), filterDims->data()),
          "cudnnSetFilterNdDescriptor"))
    return err;

  Expected<std::vector<int>> padI = toInts(g.pad, "padding");
  Expected<std::vector<int>> strideI = toInts(g.stride, "stride");
  Expected<std::vector<int>> dilationI = toInts(g.dilation, "dilation");
  if (!padI)
    return padI.takeError();
  if (!strideI)
    return strideI.takeError();
  if (!dilationI)
    return dilationI.takeError();
  if (!fitsInt(p.groups))
    return Error::failure("groups ", p.groups, " does not fit cuDNN's int");
  cudnnConvolutionDescriptor_t rawConv = nullptr;
  if (Error err = check(cudnnCreateConvolutionDescriptor(&rawConv),
                        "cudnnCreateConvolutionDescriptor"))
    return err;
  plan->conv.reset(rawConv);
  // Half types accumulate in float32 (torch does the same).
  if (Error err = check(cudnnSetConvolutionNdDescriptor(
                            rawConv, static_cast<int>(padI->size()),
                            padI->data(), strideI->data(), dilationI->data(),
                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                        "cudnnSetConvolutionNdDescriptor"))
    return err;
  if (Error err = check(cudnnSetConvolutionGroupCount(
                            rawConv, static_cast<int>(p.groups)),
                        "cudnnSetConvolutionGroupCount"))
    return err;
  const bool isFloat32 = g.type == CUDNN_DATA_FLOAT;
  if (Error err = check(cudnnSetConvolutionMathType(
                            rawConv, isFloat32 ? CUDNN_FMA_MATH
                                               : CUDNN_TENSOR_OP_MATH),
                        "cudnnSetConvolutionMathType"))
    return err;
  return plan;
}

// The heuristics' ranking of the algorithms that support the plan's problem.
Expected<std::vector<AlgoChoice>> rank(cudnnHandle_t handle,
                                       const ConvPlan &plan) {
  std::vector<AlgoChoice> candidates;
  int returned = 0;
  if (plan.transposed) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    if (Error err = check(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                              handle, plan.w.get(), plan.x.get(),
                              plan.conv.get(), plan.y.get(),
                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned,
                              perf),
                          "cudnnGetConvolutionBackwardDataAlgorithm_v7"))
      return err;
    for (int i = 0; i < returned; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS)
        candidates.push_back({static_cast<int>(perf[i].algo), perf[i].mathType});
  } else {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    if (Error err = check(cudnnGetConvolutionForwardAlgorithm_v7(
                              handle, plan.x.get(), plan.w.get(),
                              plan.conv.get(), plan.y.get(),
                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
                              perf),
                          "cudnnGetConvolutionForwardAlgorithm_v7"))
      return err;
    for (int i = 0; i < returned; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS)
        candidates.push_back({static_cast<int>(perf[i].algo), perf[i].mathType});
  }
  return candidates;
}

// Enqueues the plan's convolution of `input` and `weight` into `result` with
// the plan's algorithm and a workspace of the plan's size.
Error execute(cudnnHandle_t handle, const ConvPlan &plan, const Tensor &input,
              const Tensor &weight, const Tensor &result) {
  const int32_t device = result.device().index;
  void *workspace = nullptr;
  if (plan.workspaceBytes > 0) {
    Expected<void *> memory = rt::allocate(device, plan.workspaceBytes);
    if (!memory)
      return memory.takeError();
    workspace = *memory;
  }
  const float one = 1.0f, zero = 0.0f;
  const cudnnStatus_t status =
      plan.transposed
          ? cudnnConvolutionBackwardData(
                handle, &one, plan.w.get(), weight.data(), plan.x.get(),
                input.data(), plan.conv.get(),
                static_cast<cudnnConvolutionBwdDataAlgo_t>(plan.choice.algo),
                workspace, plan.workspaceBytes, &zero, plan.y.get(),
                result.data())
          : cudnnConvolutionForward(
                handle, &one, plan.x.get(), input.data(), plan.w.get(),
                weight.data(), plan.conv.get(),
                static_cast<cudnnConvolutionFwdAlgo_t>(plan.choice.algo),
                workspace, plan.workspaceBytes, &zero, plan.y.get(),
                result.data());
  if (workspace)
    rt::release(workspace, result.device());
  return check(status, plan.transposed ? "cudnnConvolutionBackwardData"
                                       : "cudnnConvolutionForward");
}

// Makes a plan for a problem not in the cache (or whose cached plan failed):
// tries the heuristics' candidates in order and keeps the first that runs.
// The convolution has been enqueued into `result` when this succeeds.
Expected<std::shared_ptr<ConvPlan>> planAndRun(cudnnHandle_t handle,
                                               const ConvGeometry &g,
                                               const ConvParams &p,
                                               const Tensor &input,
                                               const Tensor &weight,
                                               const Tensor &result) {
  Expected<std::shared_ptr<ConvPlan>> made = describe(g, p);
  if (!made)
    return made.takeError();
  ConvPlan &plan = **made;
  Expected<std::vector<AlgoChoice>> candidates = rank(handle, plan);
  if (!candidates)
    return candidates.takeError();
  Error last = Error::failure("cuDNN found no algorithm for this convolution");
  for (AlgoChoice choice : *candidates) {
    // float32 never takes a tensor-op (TF32) variant.
    if (g.type == CUDNN_DATA_FLOAT)
      choice.math = CUDNN_FMA_MATH;
    if (Error err = check(cudnnSetConvolutionMathType(plan.conv.get(),
                                                      choice.math),
                          "cudnnSetConvolutionMathType"))
      return err;
    size_t bytes = 0;
    const cudnnStatus_t sized =
        p.transposed
            ? cudnnGetConvolutionBackwardDataWorkspaceSize(
                  handle, plan.w.get(), plan.x.get(), plan.conv.get(),
                  plan.y.get(),
                  static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algo),
                  &bytes)
            : cudnnGetConvolutionForwardWorkspaceSize(
                  handle, plan.x.get(), plan.w.get(), plan.conv.get(),
                  plan.y.get(),
                  static_cast<cudnnConvolutionFwdAlgo_t>(choice.algo), &bytes);
    if (Error err = check(sized, "cudnnGetConvolutionWorkspaceSize")) {
      last = std::move(err);
      continue;
    }
    plan.choice = choice;
    plan.workspaceBytes = bytes;
    if (Error err = execute(handle, plan, input, weight, result)) {
      last = std::move(err);
      continue;
    }
    return made;
  }
  return last;
}

Error run(const ConvProblem &problem, const Tensor &out) {
  const ConvParams &p = problem.params;
  const bool nhwc = problem.outputFormat != MemoryFormat::Contiguous;
  const int32_t device = out.device().index;

  std::optional<Tensor> inputCopy, weightCopy, biasCopy;
  Expected<const Tensor *> input = inLayout(*problem.input, nhwc, inputCopy);
  if (!input)
    return input.takeError();
  Expected<const Tensor *> weight =
      inLayout(*problem.weight, nhwc, weightCopy);
  if (!weight)
    return weight.takeError();
  const Tensor *bias = problem.bias;
  if (bias && bias->strides()[0] != 1) {
    Expected<Tensor> copy = cloneContiguous(*bias);
    if (!copy)
      return copy.takeError();
    biasCopy = std::move(*copy);
    bias = &*biasCopy;
  }

  ConvGeometry g;
  g.type = dataType(out.dtype());
  g.nhwc = nhwc;
  g.inSizes = asCudnnSizes((*input)->sizes());
  g.wSizes = asCudnnSizes((*weight)->sizes());
  g.outSizes = asCudnnSizes(out.sizes());
  g.outStrides = layoutStrides(g.outSizes, nhwc);
  // A 1-d convolution gets a leading (pad 0, stride 1, dilation 1).
  g.pad = p.padding;
  g.stride = p.stride;
  g.dilation = p.dilation;
  if (p.spatialDims == 1) {
    g.pad.insert(g.pad.begin(), 0);
    g.stride.insert(g.stride.begin(), 1);
    g.dilation.insert(g.dilation.begin(), 1);
  }

  // The output is allocated in the layout; a degenerate shape whose strides
  // still differ (only size-1 dimensions can) is computed into a temporary.
  std::optional<Tensor> staged;
  if (!denseIn(out, g.outSizes, g.outStrides)) {
    std::vector<int64_t> strides = g.outStrides;
    if (out.dim() == 3)
      strides.erase(strides.begin() + 2);
    Expected<Tensor> temp =
        Tensor::empty(out.sizes(), strides, out.dtype(), out.device());
    if (!temp)
      return temp.takeError();
    staged = std::move(*temp);
  }
  const Tensor &result = staged ? *staged : out;

  rt::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  Expected<cudnnHandle_t> handle = handleFor(device);
  if (!handle)
    return handle.takeError();

#ifdef AOTI_SHIMS_HAVE_CUDNN_FRONTEND
  // The graph-API path where it takes the problem (convolution_graph.cpp).
  Expected<ConvPath> path = requestedConvPath();
  if (!path)
    return path.takeError();
  if (*path != ConvPath::Legacy && !p.transposed && !bias) {
    const ConvGraphProblem graphProblem{
        out.dtype(), device,     g.inSizes,  layoutStrides(g.inSizes, nhwc),
        g.wSizes,    layoutStrides(g.wSizes, nhwc), g.outSizes,
        g.outStrides, g.pad,     g.stride,   g.dilation};
    std::string whyNot;
    Expected<bool> ran =
        convolutionGraph(*handle, graphProblem, (*input)->data(),
                         (*weight)->data(), result.data(), whyNot);
    if (!ran)
      return ran.takeError();
    if (*ran)
      return staged ? copyTensor(out, *staged, /*nonBlocking=*/true)
                    : Error::success();
    if (*path == ConvPath::GraphOnly)
      return Error::failure("AOTI_SHIMS_CUDA_CONV=graph-only, but ", whyNot);
  }
#endif

  // The cached plan, or a new one; a cached plan that fails to run (cuDNN
  // may refuse its algorithm for another operand's alignment) is replaced.
  const std::vector<int64_t> key = planKey(g, p, device);
  std::shared_ptr<ConvPlan> plan = planCache().find(key);
  if (!plan || execute(*handle, *plan, **input, **weight, result)) {
    Expected<std::shared_ptr<ConvPlan>> made =
        planAndRun(*handle, g, p, **input, **weight, result);
    if (!made)
      return made.takeError();
    plan = std::move(*made);
    planCache().put(key, plan);
  }

  if (bias)
    if (Error err = addBias(*handle, plan->bias.get(), plan->y.get(), *bias,
                            result, g.outSizes, g.outStrides,
                            plan->biasByKernel))
      return err;
  if (staged)
    return copyTensor(out, *staged, /*nonBlocking=*/true);
  return Error::success();
}

// A transposed convolution with some output_padding >= its stride has no
// cuDNN form (the output is longer than any convolution's input that gives
// `input` back). It is computed without padding, into the full-length
// result, of which out is the window starting at `padding`; output positions
// past the full result (output_padding > padding) receive no input and are
// zero before the bias.
Error croppedTransposed(const ConvProblem &problem, const Tensor &out) {
  ConvProblem full = problem;
  full.bias = nullptr;
  full.outputFormat = MemoryFormat::Contiguous;
  const ConvParams &p = problem.params;
  std::fill(full.params.padding.begin(), full.params.padding.end(), 0);
  std::fill(full.params.outputPadding.begin(), full.params.outputPadding.end(),
            0);
  std::vector<int64_t> fullSizes(out.sizes().begin(), out.sizes().end());
  std::vector<int64_t> window = fullSizes;
  bool zeroFirst = false;
  for (int64_t i = 0; i < p.spatialDims; ++i) {
    const size_t d = static_cast<size_t>(i + 2);
    fullSizes[d] = (problem.input->sizes()[d] - 1) * p.stride[i] +
                   p.dilation[i] * (problem.weight->sizes()[d] - 1) + 1;
    window[d] = std::max<int64_t>(
        0, std::min(out.sizes()[d], fullSizes[d] - p.padding[i]));
    zeroFirst |= p.outputPadding[i] > p.padding[i];
  }
  Expected<Tensor> temp =
      Tensor::emptyContiguous(fullSizes, out.dtype(), out.device());
  if (!temp)
    return temp.takeError();
  if (Error err = run(full, *temp))
    return err;
  const int32_t device = out.device().index;
  if (zeroFirst)
    if (Error err = rt::zeroBytes(
            out.data(), static_cast<size_t>(out.numel()) * out.itemSize(),
            device))
      return err;
  int64_t offset = temp->storageOffset();
  for (int64_t i = 0; i < p.spatialDims; ++i)
    offset += p.padding[i] * temp->strides()[static_cast<size_t>(i + 2)];
  Expected<Tensor> source = Tensor::make(temp->storage(), out.dtype(), window,
                                         temp->strides(), offset);
  if (!source)
    return source.takeError();
  Expected<Tensor> target = Tensor::make(out.storage(), out.dtype(), window,
                                         out.strides(), out.storageOffset());
  if (!target)
    return target.takeError();
  if (target->numel() > 0)
    if (Error err = copyTensor(*target, *source, /*nonBlocking=*/true))
      return err;
  if (!problem.bias)
    return Error::success();
  const Tensor *bias = problem.bias;
  std::optional<Tensor> biasCopy;
  if (bias->strides()[0] != 1) {
    Expected<Tensor> copy = cloneContiguous(*bias);
    if (!copy)
      return copy.takeError();
    biasCopy = std::move(*copy);
    bias = &*biasCopy;
  }
  rt::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  Expected<cudnnHandle_t> handle = handleFor(device);
  if (!handle)
    return handle.takeError();
  const std::vector<int64_t> sizes = asCudnnSizes(out.sizes());
  const std::vector<int64_t> strides = layoutStrides(sizes, false);
  const cudnnDataType_t type = dataType(out.dtype());
  Expected<TensorDesc> bDesc = biasDesc(sizes, type);
  if (!bDesc)
    return bDesc.takeError();
  Expected<TensorDesc> yDesc = tensorDesc(sizes, strides, type);
  if (!yDesc)
    return yDesc.takeError();
  std::atomic<bool> biasByKernel{false};
  return addBias(*handle, bDesc->get(), yDesc->get(), *bias, out, sizes,
                 strides, biasByKernel);
}

} // namespace

Error convolution(const ConvProblem &problem, const Tensor &out) {
  if (problem.params.transposed && problem.params.isOutputPaddingBig())
    return croppedTransposed(problem, out);
  return run(problem, out);
}

} // namespace aoti::shims::ops::cuda
