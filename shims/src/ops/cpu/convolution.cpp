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
// Which kernel. oneDNN picks an implementation per layout. Asked for the
// tensors' own layouts it runs its direct jit kernels on channels-last data
// and im2col + jit gemm on NCHW data. Only when that choice is its reference
// loops (an odd layout) is the primitive recreated with `any` layouts, which
// lets oneDNN choose its blocked formats (e.g. nChw16c), and the operands
// reordered into them and the result back. Doing that for NCHW too was
// measured slower: per call, the three reorders cost more than blocked
// beats gemm (bench/shims/conv_bench; figures in docs/shims.md).
//
// Per call, only the execution is paid: the chosen primitive descriptor and
// primitive are cached per shape, layout, parameters and thread count
// (below; oneDNN's own cache would still redo the descriptor every call),
// each calling thread keeps one stream, and oneDNN runs on OpenMP's threads,
// cpuThreadCount() of them (ops/cpu/parallel.h), set for the call.
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
#include "ops/cpu/parallel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

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
  if (p.transposed) {
    using Op = dnnl::deconvolution_forward;
    const auto algo = dnnl::algorithm::deconvolution_direct;
    Op::desc desc = bias ? Op::desc(kind, algo, src, weights, *bias, dst,
                                    p.stride, dilates, p.padding, padRight)
                         : Op::desc(kind, algo, src, weights, dst, p.stride,
                                    dilates, p.padding, padRight);
    Op::primitive_desc pd(desc, cpuEngine(), /*allow_empty=*/true);
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
  Op::primitive_desc pd(desc, cpuEngine(), /*allow_empty=*/true);
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

// The primitive for the operands' own layouts, or, where oneDNN would run
// its reference loops there, the one it picks for `any` layouts (see the
// file comment). Empty when oneDNN has none.
std::optional<Primitive> choosePrimitive(const ConvProblem &problem,
                                         const memory::desc &srcUser,
                                         const memory::desc &weightUser,
                                         const memory::desc *biasPtr,
                                         const memory::desc &dstUser,
                                         memory::data_type type) {
  std::optional<Primitive> primitive =
      makePrimitive(problem, srcUser, weightUser, biasPtr, dstUser);
  if (!primitive || isReferenceImplementation(*primitive)) {
    const auto any = memory::format_tag::any;
    std::optional<Primitive> blocked = makePrimitive(
        problem, memory::desc(srcUser.dims(), type, any),
        memory::desc(weightUser.dims(), type, any), biasPtr,
        memory::desc(dstUser.dims(), type, any));
    if (blocked && (!primitive || !isReferenceImplementation(*blocked)))
      primitive = std::move(blocked);
  }
  return primitive;
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
                     memory::data_type type) {
  const ConvParams &p = problem.params;
  std::string key;
  key.reserve(512);
  const int64_t header[] = {static_cast<int64_t>(type), p.transposed ? 1 : 0,
                            p.groups, problem.bias ? 1 : 0,
                            ::aoti::shims::cpu::cpuThreadCount()};
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

std::shared_ptr<const Primitive> remember(const std::string &key,
                                          Primitive primitive) {
  auto shared = std::make_shared<const Primitive>(std::move(primitive));
  PrimitiveCache &cache = primitiveCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.entries.size() >= kCacheEntries)
    cache.entries.clear();
  cache.entries.emplace(key, shared);
  return shared;
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

  const std::string key = cacheKey(problem, out, type);
  std::shared_ptr<const Primitive> primitive = cachedPrimitive(key);
  if (!primitive) {
    std::optional<Primitive> chosen =
        choosePrimitive(problem, srcUser, weightUser, biasPtr, dstUser, type);
    if (!chosen)
      return Error::failure(
          "oneDNN has no ", dtypeName(out.dtype()), " convolution for this CPU (",
          dtypeName(out.dtype()),
          out.dtype() == ScalarType::Float32
              ? ""
              : " needs AVX-512 (bfloat16) or AVX512-FP16 (float16) in oneDNN 2.6",
          ")");
    primitive = remember(key, std::move(*chosen));
  }

  dnnl::engine &engine = cpuEngine();
  // One stream per calling thread: creating one per call costs an
  // allocation, and a stream is not to be shared between threads.
  thread_local dnnl::stream stream(engine);
  const dnnl::primitive_desc_base &pd = primitive->pd;
  // A user memory, and the primitive's own when its layout differs.
  // An input in the primitive's layout: the user's memory, or a reordered
  // copy of it.
  auto readable = [&](const memory::desc &user, const memory::desc &wanted,
                      const Tensor &t) {
    memory userMemory(user, engine, t.data());
    if (wanted == user)
      return userMemory;
    memory internal(wanted, engine);
    dnnl::reorder(userMemory, internal).execute(stream, userMemory, internal);
    return internal;
  };
  memory srcRun = readable(srcUser, pd.src_desc(), *problem.input);
  memory weightRun = readable(weightUser, pd.weights_desc(), *problem.weight);
  memory dstMem(dstUser, engine, out.data());
  const bool dstInPlace = pd.dst_desc() == dstUser;
  memory dstRun = dstInPlace ? dstMem : memory(pd.dst_desc(), engine);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, srcRun},
                                       {DNNL_ARG_WEIGHTS, weightRun},
                                       {DNNL_ARG_DST, dstRun}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS, memory(*biasDesc, engine, bias->data()));
  primitive->primitive.execute(stream, args);
  if (!dstInPlace)
    dnnl::reorder(dstRun, dstMem).execute(stream, dstRun, dstMem);
  stream.wait();
  return Error::success();
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
  ::aoti::shims::cpu::OmpThreads threads;
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
