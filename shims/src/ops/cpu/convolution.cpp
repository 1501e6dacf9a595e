//===- ops/cpu/convolution.cpp - aten::convolution on oneDNN ---------------===//
//
// A CPU convolution is one oneDNN primitive: convolution_forward for a
// convolution, deconvolution_forward for a transposed one (1-d, 2-d and 3-d
// alike; oneDNN takes ncw/nchw/ncdhw-shaped tensors of any strides).
//
// Operands are described to oneDNN with their own strides (memory::desc from
// dims and strides), so channels-last, sliced or offset tensors are read in
// place. Only a tensor that is not dense (broadcast or overlapping strides,
// which oneDNN cannot describe) is first copied to a contiguous temporary.
// The output is written in place in the layout ops/convolution.cpp chose.
//
// Weights. torch's weight is [O, I/g, k...] (convolution) or [I, O/g, k...]
// (transposed); oneDNN wants [O, I, k...] or, grouped, [g, O/g, I/g, k...]
// for both. The same memory is described with permuted, split strides.
//
// Which kernel. oneDNN picks an implementation per layout, so the layouts
// it is asked for are the choice. Three candidates:
//   own              every operand in its own layout: im2col + jit gemm on
//                    NCHW; on channels-last data usually only oneDNN's
//                    reference loops, its direct kernels wanting blocked
//                    weights;
//   blocked-weights  activations in their own layout, weights in oneDNN's
//                    choice (reordered every call): the direct jit kernels
//                    on channels-last data, which is how an inductor CPU
//                    model passes its convolutions;
//   blocked          every operand in oneDNN's choice (nChw8c / nChw16c,
//                    direct kernels), the input reordered in and the
//                    result out every call, as eager PyTorch does for NCHW.
// Nothing here knows that a weight is a constant, so its reorder is paid
// per call. No candidate wins everywhere (bench/shims/cpu_ops_vs_torch.py
// on ResNet-18's NCHW calls, 2 threads, AVX2: blocked 0.68x im2col + gemm
// on the 64-channel 3x3 and 0.63x on the 3-channel 7x7 stem, im2col + gemm
// 0.7x blocked on the strided 1x1s and 0.89x on the 512-channel 3x3), and
// the crossover moves with the ISA and the thread count. So, by default
// (AOTI_SHIMS_CPU_CONV=auto), the first call of a shape times each
// candidate that oneDNN runs without its reference loops and whose layouts
// differ from an earlier one's, on the call's own operands (a warm-up, then
// the faster of two runs, reorders included; a warm-up of 20 ms or more
// counts alone), and keeps the fastest for every later call of that shape.
// That call's output is the kept one's result, bit for bit what later calls
// give; the choice costs it up to three executions per candidate.
// AOTI_SHIMS_CPU_CONV=own, blocked-weights or blocked pins one (benchmarks,
// A/B runs); where that one does not exist or is oneDNN's reference loops,
// the first real candidate in the order above runs instead.
//
// Per call, only the execution is paid: the chosen primitive descriptor and
// primitive are cached per shape, layout, parameters, thread count and
// AOTI_SHIMS_CPU_CONV (below; oneDNN's own cache would still redo the
// descriptor every call), each calling thread keeps one stream, and oneDNN
// runs on OpenMP's threads, cpuThreadCount() of them (ops/cpu/parallel.h),
// set for the call.
//
// Threads. A host may run models on several threads at once, so a cached
// primitive runs on any of them, concurrently. oneDNN's own scratchpad
// allows neither (its default build shares one scratchpad per creating
// thread among all of that thread's primitives), so the primitives take
// theirs from the caller (scratchpad_mode::user): each execution brings a
// block of its own, from the host memory cache like the reorder
// temporaries. Without it, ResNet-18 run by two threads at once gave wrong
// values on 6 of 16 runs (the strided 1x1 kernels gather their input into
// the scratchpad). Two threads making a shape's first call together may
// time and choose differently; the first choice kept is the one both
// return.
//
// Arithmetic. float32 computes in float32 (no implicit down-conversion:
// oneDNN's default fpmath mode is strict). bfloat16 (and float16 where the
// CPU has AVX512-FP16) accumulate in float32 inside oneDNN. A dtype that
// oneDNN cannot run on this CPU is refused with a message saying so.
//
// dilation is d - 1 in oneDNN's convention. Transposed: the right padding is
// padding - output_padding. oneDNN 2.6 refuses a negative one, so where
// output_padding > padding the convolution runs that many positions short
// into a temporary, and the missing tail (which no input reaches) gets only
// the bias (shortTransposed).
//
//===----------------------------------------------------------------------===//
#include "ops/convolution.h"

#include "copy.h"
#include "host_memory.h"
#include "ops/cpu/parallel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

using dnnl::memory;

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::data_type dataType(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
    return memory::data_type::f16;
  case ScalarType::BFloat16:
    return memory::data_type::bf16;
  default:
    return memory::data_type::f32;
  }
}

memory::dims dimsOf(std::span<const int64_t> values) {
  return memory::dims(values.begin(), values.end());
}

// The weight as oneDNN reads it (see the file comment).
memory::desc weightDesc(const Tensor &weight, const ConvParams &params,
                        memory::data_type type) {
  auto sizes = weight.sizes();
  auto strides = weight.strides();
  const int64_t g = params.groups;
  // The two leading dimensions as oneDNN's (out, in) and their strides.
  int64_t out, in, outStride, inStride, groupStride;
  if (params.transposed) {
    out = sizes[1];
    in = sizes[0] / g;
    outStride = strides[1];
    inStride = strides[0];
    groupStride = in * strides[0];
  } else {
    out = sizes[0] / g;
    in = sizes[1];
    outStride = strides[0];
    inStride = strides[1];
    groupStride = out * strides[0];
  }
  memory::dims dims, steps;
  if (g > 1) {
    dims.push_back(g);
    steps.push_back(groupStride);
  }
  dims.insert(dims.end(), {out, in});
  steps.insert(steps.end(), {outStride, inStride});
  for (size_t d = 2; d < sizes.size(); ++d) {
    dims.push_back(sizes[d]);
    steps.push_back(strides[d]);
  }
  return memory::desc(dims, type, steps);
}

// The oneDNN primitive descriptor for `problem` with the given descriptors
// (the operands' own, or `any`). Empty when oneDNN has no implementation.
struct Primitive {
  dnnl::primitive_desc_base pd;
  dnnl::primitive primitive;
};

std::optional<Primitive> makePrimitive(const ConvProblem &problem,
                                       const memory::desc &src,
                                       const memory::desc &weights,
                                       const memory::desc *bias,
                                       const memory::desc &dst) {
  const ConvParams &p = problem.params;
  memory::dims dilates, padRight;
  for (int64_t i = 0; i < p.spatialDims; ++i) {
    dilates.push_back(p.dilation[i] - 1);
    padRight.push_back(p.transposed ? p.padding[i] - p.outputPadding[i]
                                    : p.padding[i]);
  }
  const auto kind = dnnl::prop_kind::forward_inference;
  // The scratchpad is execute()'s: the primitive is shared by every calling
  // thread (the cache below), and oneDNN's own scratchpad may serve one
  // thread only.
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (p.transposed) {
    using Op = dnnl::deconvolution_forward;
    const auto algo = dnnl::algorithm::deconvolution_direct;
    Op::desc desc = bias ? Op::desc(kind, algo, src, weights, *bias, dst,
                                    p.stride, dilates, p.padding, padRight)
                         : Op::desc(kind, algo, src, weights, dst, p.stride,
                                    dilates, p.padding, padRight);
    Op::primitive_desc pd(desc, attr, cpuEngine(), /*allow_empty=*/true);
    if (!pd)
      return std::nullopt;
    return Primitive{pd, Op(pd)};
  }
  using Op = dnnl::convolution_forward;
  const auto algo = dnnl::algorithm::convolution_direct;
  Op::desc desc = bias ? Op::desc(kind, algo, src, weights, *bias, dst,
                                  p.stride, dilates, p.padding, padRight)
                       : Op::desc(kind, algo, src, weights, dst, p.stride,
                                  dilates, p.padding, padRight);
  Op::primitive_desc pd(desc, attr, cpuEngine(), /*allow_empty=*/true);
  if (!pd)
    return std::nullopt;
  return Primitive{pd, Op(pd)};
}

// Whether oneDNN's choice for the operands' own layouts is its reference
// implementation (plain loops).
bool isReferenceImplementation(const Primitive &primitive) {
  const std::string impl = primitive.pd.impl_info_str();
  return impl.rfind("ref", 0) == 0;
}

// The layouts a primitive is asked for (the file comment).
enum class Layouts {
  Own,            // every operand in its own layout
  BlockedWeights, // activations in their own, weights in oneDNN's choice
  Blocked,        // every operand in oneDNN's choice
};
constexpr Layouts kAllLayouts[] = {Layouts::Own, Layouts::BlockedWeights,
                                   Layouts::Blocked};

// AOTI_SHIMS_CPU_CONV: nullopt for auto, else the layouts pinned. Read per
// call (cheap next to a convolution) so that a test can switch it.
Expected<std::optional<Layouts>> requestedLayouts() {
  const char *value = std::getenv("AOTI_SHIMS_CPU_CONV");
  if (!value || !*value || std::strcmp(value, "auto") == 0)
    return std::optional<Layouts>();
  if (std::strcmp(value, "own") == 0)
    return std::optional<Layouts>(Layouts::Own);
  if (std::strcmp(value, "blocked-weights") == 0)
    return std::optional<Layouts>(Layouts::BlockedWeights);
  if (std::strcmp(value, "blocked") == 0)
    return std::optional<Layouts>(Layouts::Blocked);
  return Error::failure("AOTI_SHIMS_CPU_CONV=", value,
                        ": expected auto, own, blocked-weights or blocked "
                        "(or unset)");
}

struct Candidate {
  Layouts layouts;
  Primitive primitive;
};

// The primitives oneDNN has for the problem, one per Layouts in
// kAllLayouts' order, without those whose operand layouts an earlier one
// already has (for example a channels-last problem whose weights oneDNN
// takes as given), and without reference implementations unless there is
// nothing else.
std::vector<Candidate> candidatesFor(const ConvProblem &problem,
                                     const memory::desc &srcUser,
                                     const memory::desc &weightUser,
                                     const memory::desc *biasPtr,
                                     const memory::desc &dstUser,
                                     memory::data_type type) {
  const auto any = memory::format_tag::any;
  const memory::desc srcAny(srcUser.dims(), type, any);
  const memory::desc weightAny(weightUser.dims(), type, any);
  const memory::desc dstAny(dstUser.dims(), type, any);
  std::vector<Candidate> real, reference;
  for (Layouts layouts : kAllLayouts) {
    const bool blockedWeights = layouts != Layouts::Own;
    const bool blockedActivations = layouts == Layouts::Blocked;
    std::optional<Primitive> primitive = makePrimitive(
        problem, blockedActivations ? srcAny : srcUser,
        blockedWeights ? weightAny : weightUser, biasPtr,
        blockedActivations ? dstAny : dstUser);
    if (!primitive)
      continue;
    auto sameLayouts = [&](const Candidate &c) {
      return c.primitive.pd.src_desc() == primitive->pd.src_desc() &&
             c.primitive.pd.weights_desc() == primitive->pd.weights_desc() &&
             c.primitive.pd.dst_desc() == primitive->pd.dst_desc();
    };
    if (std::any_of(real.begin(), real.end(), sameLayouts) ||
        std::any_of(reference.begin(), reference.end(), sameLayouts))
      continue;
    (isReferenceImplementation(*primitive) ? reference : real)
        .push_back({layouts, std::move(*primitive)});
  }
  if (real.empty() && !reference.empty())
    real.push_back(std::move(reference.front()));
  return real;
}

// --- The primitive cache ------------------------------------------------------
// Creating a primitive descriptor walks oneDNN's implementation list and
// sizes its kernels (tens to hundreds of microseconds per convolution);
// oneDNN's own cache only skips the primitive's creation after that. A
// model calls the same few shapes every run, so the chosen descriptor and
// primitive are kept per key: everything that decides them (dtype, every
// operand's sizes and strides, the parameters, the thread count). Bounded:
// past kCacheEntries distinct keys the cache starts over.

constexpr size_t kCacheEntries = 1024;

void appendKey(std::string &key, std::span<const int64_t> values) {
  const int64_t count = static_cast<int64_t>(values.size());
  key.append(reinterpret_cast<const char *>(&count), sizeof count);
  key.append(reinterpret_cast<const char *>(values.data()),
             values.size() * sizeof(int64_t));
}

std::string cacheKey(const ConvProblem &problem, const Tensor &out,
                     memory::data_type type, int64_t layouts) {
  const ConvParams &p = problem.params;
  std::string key;
  key.reserve(512);
  const int64_t header[] = {static_cast<int64_t>(type), p.transposed ? 1 : 0,
                            p.groups, problem.bias ? 1 : 0,
                            ::aoti::shims::ops::cpu::cpuThreadCount(), layouts};
  appendKey(key, header);
  for (const Tensor *t : {problem.input, problem.weight, problem.bias, &out})
    if (t) {
      appendKey(key, t->sizes());
      appendKey(key, t->strides());
    }
  for (const std::vector<int64_t> *list :
       {&p.stride, &p.padding, &p.dilation, &p.outputPadding})
    appendKey(key, *list);
  return key;
}

struct PrimitiveCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const Primitive>> entries;
};

PrimitiveCache &primitiveCache() {
  // The engine first, so that it is destroyed after the cached primitives.
  cpuEngine();
  static PrimitiveCache cache;
  return cache;
}

std::shared_ptr<const Primitive> cachedPrimitive(const std::string &key) {
  PrimitiveCache &cache = primitiveCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.entries.find(key);
  return it == cache.entries.end() ? nullptr : it->second;
}

// Keeps `primitive` for `key` unless another thread got there first; returns
// the one kept.
std::shared_ptr<const Primitive> remember(const std::string &key,
                                          Primitive primitive) {
  auto shared = std::make_shared<const Primitive>(std::move(primitive));
  PrimitiveCache &cache = primitiveCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.entries.size() >= kCacheEntries)
    cache.entries.clear();
  return cache.entries.emplace(key, std::move(shared)).first->second;
}

// A tensor oneDNN can describe: itself if dense, else a contiguous copy
// (kept alive in `keep`).
Expected<const Tensor *> describable(const Tensor &t,
                                     std::optional<Tensor> &keep) {
  if (t.isNonOverlappingAndDense())
    return &t;
  Expected<Tensor> copy = cloneContiguous(t);
  if (!copy)
    return copy.takeError();
  keep = std::move(*copy);
  return &*keep;
}

// What one execution reads and writes: the operands' addresses and their
// descriptors as the user holds them.
struct Operands {
  void *src, *weights, *bias, *dst;
  memory::desc srcDesc, weightDesc;
  const memory::desc *biasDesc;
  memory::desc dstDesc;
};

// A temporary in one of the primitive's layouts, from the shims' host
// memory (host_memory.h), which keeps such blocks for the next call instead
// of letting each call fault in fresh pages.
class Temporary {
public:
  Temporary() = default;
  Temporary(const Temporary &) = delete;
  Temporary &operator=(const Temporary &) = delete;
  ~Temporary() { releaseHost(data_, bytes_); }

  // A memory of `desc` over a new block, or an error when there is none.
  Expected<memory> allocate(const memory::desc &desc,
                            const dnnl::engine &engine) {
    bytes_ = desc.get_size();
    data_ = bytes_ ? allocateHost(bytes_) : nullptr;
    if (bytes_ && !data_)
      return Error::failure("out of host memory allocating ", bytes_,
                            " bytes for a oneDNN reorder");
    return memory(desc, engine, data_);
  }

private:
  void *data_ = nullptr;
  size_t bytes_ = 0;
};

// Runs `primitive` once on `operands`: reorders each input whose layout
// differs from the primitive's into a temporary, executes, reorders the
// result into dst if it was computed elsewhere, and waits.
Error execute(const Primitive &primitive, const Operands &operands) {
  dnnl::engine &engine = cpuEngine();
  // One stream per calling thread: creating one per call costs an
  // allocation, and a stream is not to be shared between threads.
  thread_local dnnl::stream stream(engine);
  const dnnl::primitive_desc_base &pd = primitive.pd;
  Temporary srcBlock, weightBlock, dstBlock, scratchBlock;
  // An operand in the primitive's layout: the user's memory, or a
  // temporary (an input's reordered into it).
  auto inLayout = [&](const memory::desc &user, const memory::desc &wanted,
                      void *data, Temporary &block,
                      bool reorderIn) -> Expected<memory> {
    memory userMemory(user, engine, data);
    if (wanted == user)
      return userMemory;
    Expected<memory> internal = block.allocate(wanted, engine);
    if (internal && reorderIn)
      dnnl::reorder(userMemory, *internal)
          .execute(stream, userMemory, *internal);
    return internal;
  };
  Expected<memory> srcRun = inLayout(operands.srcDesc, pd.src_desc(),
                                     operands.src, srcBlock, true);
  if (!srcRun)
    return srcRun.takeError();
  Expected<memory> weightRun =
      inLayout(operands.weightDesc, pd.weights_desc(), operands.weights,
               weightBlock, true);
  if (!weightRun)
    return weightRun.takeError();
  Expected<memory> dstRun = inLayout(operands.dstDesc, pd.dst_desc(),
                                     operands.dst, dstBlock, false);
  if (!dstRun)
    return dstRun.takeError();
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, *srcRun},
                                       {DNNL_ARG_WEIGHTS, *weightRun},
                                       {DNNL_ARG_DST, *dstRun}};
  if (operands.biasDesc)
    args.emplace(DNNL_ARG_BIAS,
                 memory(*operands.biasDesc, engine, operands.bias));
  if (pd.scratchpad_desc().get_size()) {
    Expected<memory> scratch = scratchBlock.allocate(pd.scratchpad_desc(),
                                                     engine);
    if (!scratch)
      return scratch.takeError();
    args.emplace(DNNL_ARG_SCRATCHPAD, *scratch);
  }
  primitive.primitive.execute(stream, args);
  if (pd.dst_desc() != operands.dstDesc) {
    memory dstMem(operands.dstDesc, engine, operands.dst);
    dnnl::reorder(*dstRun, dstMem).execute(stream, *dstRun, dstMem);
  }
  stream.wait();
  return Error::success();
}

// How long one execution takes: the faster of two timed runs after a
// warm-up (page faults of the temporaries, cold caches), in seconds. A
// warm-up of kLongExecution or more is the figure itself: at that length the
// first touches are noise, and the choice should not cost a long
// convolution three runs per candidate.
constexpr double kLongExecution = 0.02;

Expected<double> timedRuns(const Primitive &primitive,
                           const Operands &operands) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (Error err = execute(primitive, operands))
      return err;
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (i == 0 && took.count() >= kLongExecution)
      return took.count();
    if (i > 0)
      best = std::min(best, took.count());
  }
  return best;
}

Error run(const ConvProblem &original, const Tensor &out) {
  std::optional<Tensor> inputCopy, weightCopy, biasCopy;
  Expected<const Tensor *> input = describable(*original.input, inputCopy);
  if (!input)
    return input.takeError();
  Expected<const Tensor *> weight = describable(*original.weight, weightCopy);
  if (!weight)
    return weight.takeError();
  const Tensor *bias = nullptr;
  if (original.bias) {
    Expected<const Tensor *> dense = describable(*original.bias, biasCopy);
    if (!dense)
      return dense.takeError();
    bias = *dense;
  }
  ConvProblem problem = original;
  problem.input = *input;
  problem.weight = *weight;
  problem.bias = bias;

  const memory::data_type type = dataType(out.dtype());
  const memory::desc srcUser(dimsOf(problem.input->sizes()), type,
                             dimsOf(problem.input->strides()));
  const memory::desc weightUser = weightDesc(*problem.weight, problem.params,
                                             type);
  const memory::desc dstUser(dimsOf(out.sizes()), type, dimsOf(out.strides()));
  std::optional<memory::desc> biasDesc;
  if (bias)
    biasDesc.emplace(dimsOf(bias->sizes()), type, dimsOf(bias->strides()));
  const memory::desc *biasPtr = biasDesc ? &*biasDesc : nullptr;

  Expected<std::optional<Layouts>> pinned = requestedLayouts();
  if (!pinned)
    return pinned.takeError();
  const std::string key = cacheKey(
      problem, out, type, *pinned ? 1 + static_cast<int64_t>(**pinned) : 0);
  const Operands operands{problem.input->data(), problem.weight->data(),
                          bias ? bias->data() : nullptr, out.data(),
                          srcUser, weightUser, biasPtr, dstUser};
  if (std::shared_ptr<const Primitive> primitive = cachedPrimitive(key))
    return execute(*primitive, operands);

  std::vector<Candidate> candidates = candidatesFor(
      problem, srcUser, weightUser, biasPtr, dstUser, type);
  if (candidates.empty())
    return Error::failure(
        "oneDNN has no ", dtypeName(out.dtype()), " convolution for this CPU (",
        dtypeName(out.dtype()),
        out.dtype() == ScalarType::Float32
            ? ""
            : " needs AVX-512 (bfloat16) or AVX512-FP16 (float16) in oneDNN 2.6",
        ")");
  size_t chosen = 0;
  if (*pinned) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (candidates[i].layouts == **pinned)
        chosen = i;
  } else if (candidates.size() > 1) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates.size(); ++i) {
      Expected<double> seconds = timedRuns(candidates[i].primitive, operands);
      if (!seconds)
        return seconds.takeError();
      if (*seconds < best) {
        best = *seconds;
        chosen = i;
      }
    }
  }
  // out gets the kept primitive's result (candidates may differ in the last
  // bits), as every later call of this shape will: the chosen one's, whose
  // result the last one timed left there already, unless another thread's
  // first call of the shape chose first.
  const bool resultInOut =
      !*pinned && candidates.size() > 1 && chosen + 1 == candidates.size();
  const dnnl_primitive_t mine = candidates[chosen].primitive.primitive.get();
  std::shared_ptr<const Primitive> kept =
      remember(key, std::move(candidates[chosen].primitive));
  if (resultInOut && kept->primitive.get() == mine)
    return Error::success();
  return execute(*kept, operands);
}

// A transposed convolution whose output_padding exceeds its padding would
// need a negative right padding, which oneDNN 2.6 refuses. Those dimensions
// are computed with a right padding of 0, i.e. output_padding - padding
// positions short, into a temporary; out is first filled with the bias (or
// zeros: the missing positions receive no input) and the temporary copied
// into its leading window.
Error shortTransposed(const ConvProblem &problem, const Tensor &out) {
  ConvProblem inner = problem;
  ConvParams &p = inner.params;
  std::vector<int64_t> innerSizes(out.sizes().begin(), out.sizes().end());
  for (int64_t i = 0; i < p.spatialDims; ++i)
    if (p.outputPadding[i] > p.padding[i]) {
      innerSizes[static_cast<size_t>(i + 2)] -=
          p.outputPadding[i] - p.padding[i];
      p.outputPadding[i] = p.padding[i];
    }
  Expected<Tensor> innerOut =
      Tensor::emptyContiguous(innerSizes, out.dtype(), out.device());
  if (!innerOut)
    return innerOut.takeError();
  if (innerOut->numel() > 0)
    if (Error err = run(inner, *innerOut))
      return err;
  if (const Tensor *bias = problem.bias) {
    std::vector<int64_t> broadcast(out.sizes().size(), 0);
    broadcast[1] = bias->strides()[0];
    Expected<Tensor> biasView =
        Tensor::make(bias->storage(), bias->dtype(), out.sizes(), broadcast,
                     bias->storageOffset());
    if (!biasView)
      return biasView.takeError();
    if (Error err = copyTensor(out, *biasView, /*nonBlocking=*/false))
      return err;
  } else {
    // out is dense (allocated by the shim), so its numel elements start at
    // data().
    std::memset(out.data(), 0,
                static_cast<size_t>(out.numel()) * out.itemSize());
  }
  Expected<Tensor> window =
      Tensor::make(out.storage(), out.dtype(), innerSizes, out.strides(),
                   out.storageOffset());
  if (!window)
    return window.takeError();
  return copyTensor(*window, *innerOut, /*nonBlocking=*/false);
}

} // namespace

Error convolution(const ConvProblem &problem, const Tensor &out) {
  const ConvParams &p = problem.params;
  bool negativeRightPadding = false;
  for (int64_t i = 0; i < p.spatialDims; ++i)
    negativeRightPadding |= p.transposed && p.outputPadding[i] > p.padding[i];
  // oneDNN reads OpenMP's thread count of this thread (parallel.h).
  ::aoti::shims::ops::cpu::OmpThreads threads;
  // oneDNN's C++ API reports failures as dnnl::error; keep them inside.
  try {
    if (negativeRightPadding)
      return shortTransposed(problem, out);
    return run(problem, out);
  } catch (const dnnl::error &e) {
    return Error::failure("oneDNN failed: ", e.what(), " (status ",
                          static_cast<int>(e.status), ")");
  }
}

} // namespace aoti::shims::ops::cpu
