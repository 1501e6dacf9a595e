//===- ops/index_test.cpp - index, index_put, index_reduce ----------------===//
//
// Every case runs on both devices (ops/devices.h). The references are
// computed here with plain loops on the values the test made:
//  - advanced indexing: refIndex() expands masks to their true positions,
//    broadcasts the index tensors, moves the broadcast dimensions to the
//    front when the indexed dimensions are not adjacent, and maps every
//    result element (row-major) to the element of self it reads; index
//    reads it, index_put writes (or adds) there in row-major order;
//  - index_reduce: per index position in order, per slice element, the
//    reduction in double with the value rounded to the dtype after each
//    step (integers wrapped to their width).
// The expected result strides of index come from torch 2.11's own
// meta_index_Tensor (torch/_meta_registrations.py and torch/_prims_common,
// run on stand-ins that carry only sizes and strides); index_put's are
// empty_like's (self's when dense, else ATen's infer_dense_strides).
// The data-dependent ops are in ops/index_select_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "ops/index_test_util.h"

#include <optional>

namespace aoti::test {
namespace {

// --- Indices and the reference of advanced indexing ------------------------

// One entry of the indices argument: None, an integer index tensor or a mask.
struct Ix {
  enum Kind { None, Int, Mask } kind = None;
  std::vector<int64_t> shape;
  std::vector<int64_t> values; // row-major; 0/1 for masks
  Dtype type = int64Type();
  std::optional<Layout> layout; // strides/offset of the index tensor
};

Ix none() { return {}; }
Ix ints(std::vector<int64_t> shape, std::vector<int64_t> values,
        Dtype type = int64Type()) {
  return {Ix::Int, std::move(shape), std::move(values), type, std::nullopt};
}
Ix mask(std::vector<int64_t> shape, std::vector<int64_t> values,
        Dtype type = boolType()) {
  return {Ix::Mask, std::move(shape), std::move(values), type, std::nullopt};
}

// The result shape of advanced indexing and, for each result element in
// row-major order, the row-major index of the self element it reads.
struct RefIndex {
  std::vector<int64_t> shape;
  std::vector<int64_t> source;
};

RefIndex refIndex(const std::vector<int64_t> &selfSizes,
                  const std::vector<Ix> &ix) {
  std::vector<std::optional<Ix>> e; // integer indices or None, per dim
  for (const Ix &x : ix) {
    if (x.kind == Ix::None) {
      e.push_back(std::nullopt);
    } else if (x.kind == Ix::Int) {
      e.push_back(x);
    } else {
      std::vector<std::vector<int64_t>> columns(x.shape.size());
      for (int64_t i = 0; i < numelOf(x.shape); ++i)
        if (x.values[i]) {
          const std::vector<int64_t> c = coordsOf(i, x.shape);
          for (size_t j = 0; j < c.size(); ++j)
            columns[j].push_back(c[j]);
        }
      for (auto &col : columns)
        e.push_back(ints({static_cast<int64_t>(col.size())}, col));
    }
  }
  e.resize(selfSizes.size());
  std::vector<int64_t> b;
  for (const auto &x : e) {
    if (!x)
      continue;
    const size_t n = std::max(b.size(), x->shape.size());
    std::vector<int64_t> out(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
      const int64_t sx =
          i < x->shape.size() ? x->shape[x->shape.size() - 1 - i] : 1;
      out[n - 1 - i] = sb == 1 ? sx : sb;
    }
    b = out;
  }
  int first = -1, last = -1;
  for (size_t d = 0; d < e.size(); ++d)
    if (e[d]) {
      if (first < 0)
        first = static_cast<int>(d);
      last = static_cast<int>(d);
    }
  bool adjacent = true;
  for (int d = first; d >= 0 && d <= last; ++d)
    if (!e[d])
      adjacent = false;
  RefIndex ref;
  // Result dims: the None dims before the indexed ones (all of them when
  // nothing is indexed), B, then the other None dims.
  const bool noIndex = first < 0;
  auto before = [&](size_t d) {
    return noIndex || (adjacent && static_cast<int>(d) < first);
  };
  std::vector<int64_t> position(e.size()); // result dim of each None dim
  const int64_t bStart = noIndex || !adjacent ? 0 : first;
  for (size_t d = 0; d < e.size(); ++d)
    if (!e[d] && before(d)) {
      position[d] = static_cast<int64_t>(ref.shape.size());
      ref.shape.push_back(selfSizes[d]);
    }
  if (!noIndex)
    ref.shape.insert(ref.shape.end(), b.begin(), b.end());
  for (size_t d = 0; d < e.size(); ++d)
    if (!e[d] && !before(d)) {
      position[d] = static_cast<int64_t>(ref.shape.size());
      ref.shape.push_back(selfSizes[d]);
    }
  const std::vector<int64_t> selfStrides = contiguousStridesOf(selfSizes);
  for (int64_t i = 0; i < numelOf(ref.shape); ++i) {
    const std::vector<int64_t> rc = coordsOf(i, ref.shape);
    int64_t at = 0;
    for (size_t d = 0; d < e.size(); ++d) {
      int64_t c = 0;
      if (!e[d]) {
        c = rc[static_cast<size_t>(position[d])];
      } else {
        const Ix &x = *e[d];
        int64_t k = 0, stride = 1;
        for (size_t j = x.shape.size(); j-- > 0;) {
          const size_t bd = b.size() - x.shape.size() + j;
          const int64_t cj = x.shape[j] == 1 ? 0 : rc[bStart + bd];
          k += cj * stride;
          stride *= x.shape[j];
        }
        c = x.values[k];
        if (c < 0)
          c += selfSizes[d];
      }
      at += c * selfStrides[d];
    }
    ref.source.push_back(at);
  }
  return ref;
}

// The indices argument on the device under test.
struct IndexArgs {
  std::vector<TensorHandle> owned;
  std::vector<AtenTensorHandle> raw;
  std::vector<const AtenTensorHandle *> ptrs;
};

IndexArgs makeIndexArgs(const std::vector<Ix> &ix, int32_t device) {
  IndexArgs args;
  args.raw.resize(ix.size(), nullptr);
  for (size_t i = 0; i < ix.size(); ++i) {
    if (ix[i].kind == Ix::None) {
      args.ptrs.push_back(nullptr);
      continue;
    }
    std::vector<double> v(ix[i].values.begin(), ix[i].values.end());
    const Layout layout = ix[i].layout ? *ix[i].layout : Layout{ix[i].shape};
    args.owned.push_back(makeTensor(v, layout, ix[i].type, device));
    args.raw[i] = args.owned.back().get();
    args.ptrs.push_back(&args.raw[i]);
  }
  return args;
}

// --- index_Tensor ----------------------------------------------------------

class IndexOps : public OpTest {
protected:
  using IndexFn = AOTITorchError (*)(AtenTensorHandle,
                                     const AtenTensorHandle **, int64_t,
                                     AtenTensorHandle *);
  IndexFn entry() const {
    return onCuda() ? aoti_torch_cuda_index_Tensor
                    : aoti_torch_cpu_index_Tensor;
  }
  // index(self, ix) against refIndex; `strides` (when given) against the
  // result's.
  void check(const std::vector<double> &values, const Layout &layout,
             const Dtype &type, const std::vector<Ix> &ix,
             const std::vector<int64_t> *strides, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    IndexArgs args = makeIndexArgs(ix, device());
    TensorHandle ret;
    ASSERT_SHIM_OK(entry()(self.get(), args.ptrs.data(),
                           static_cast<int64_t>(ix.size()), ret.out()));
    const RefIndex ref = refIndex(layout.sizes, ix);
    EXPECT_EQ(sizesOf(ret), ref.shape);
    if (strides)
      EXPECT_EQ(stridesOf(ret), *strides);
    EXPECT_EQ(dtypeOf(ret), type.code);
    EXPECT_EQ(deviceTypeOf(ret), device());
    std::vector<double> expected;
    for (int64_t s : ref.source)
      expected.push_back(asDtype(type, values[static_cast<size_t>(s)]));
    expectSameValues(readTensor(ret, type), expected, what);
  }
};

TEST_P(IndexOps, IntegerIndicesWrapAndBroadcast) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(3 * 4, 1);
  check(v, {{3, 4}}, f, {ints({3}, {2, 0, -1})}, nullptr, "rows, negative");
  check(v, {{3, 4}}, f, {none(), ints({2}, {1, -4}, int32Type())}, nullptr,
        "int32 columns");
  check(v, {{3, 4}}, f, {ints({2, 1}, {0, 2}), ints({3}, {3, 0, -2})}, nullptr,
        "two broadcast indices");
  check(v, {{3, 4}}, f, {ints({}, {1})}, nullptr, "0-d index drops a dim");
  check(v, {{3, 4}}, f, {ints({}, {-1}), ints({}, {2})}, nullptr,
        "two 0-d indices: a scalar");
  const std::vector<double> w = patternValues(2 * 3 * 4, 2);
  check(w, {{2, 3, 4}}, f, {ints({2, 1}, {1, 0}), none(), ints({3}, {0, 3, 1})},
        nullptr, "not adjacent: broadcast dims first");
  check(w, {{2, 3, 4}}, f, {none(), ints({2, 2}, {0, 2, 1, 1}), ints({}, {3})},
        nullptr, "adjacent after a None");
}

TEST_P(IndexOps, ResultStridesAreMetaIndexTensors) {
  // Expected strides from torch 2.11's meta_index_Tensor on these shapes.
  struct Case {
    Layout self;
    std::vector<Ix> ix;
    std::vector<int64_t> strides;
  };
  const std::vector<Case> cases = {
      {{{3, 4}}, {ints({2}, {1, 2})}, {4, 1}},
      {{{3, 4}, {1, 3}}, {none(), ints({2}, {0, 3})}, {2, 1}},
      {{{3, 4}, {1, 3}}, {ints({2}, {2, 0})}, {4, 1}},
      {{{2, 3, 4}}, {none(), ints({5}, {0, 1, 2, 1, 0})}, {20, 4, 1}},
      {{{2, 3, 4}, {1, 8, 2}},
       {ints({5}, {0, 1, 1, 0, 1}), none(), ints({5}, {3, 2, 1, 0, 3})},
       {3, 1}},
      {{{2, 3, 4}, {12, 1, 3}},
       {none(), ints({2, 2}, {0, 1, 2, 1})},
       {16, 8, 4, 1}},
      {{{2, 3, 4}, {1, 2, 6}}, {none(), none(), ints({2}, {3, 1})}, {2, 4, 1}},
      {{{2, 3, 4}, {1, 8, 2}}, {none(), ints({}, {2}), none()}, {1, 2}},
      {{{2, 3, 4}, {1, 8, 2}}, {ints({}, {1}), none(), ints({}, {2})}, {1}},
      {{{2, 3, 4, 5}, {60, 1, 15, 3}},
       {none(), none(), ints({7}, {0, 1, 2, 3, 0, 1, 2})},
       {105, 1, 3, 21}},
      {{{2, 3, 4, 5}, {60, 1, 15, 3}},
       {none(), ints({7}, {0, 1, 2, 0, 1, 2, 0})},
       {140, 20, 5, 1}},
      {{{2, 3, 4, 5}, {60, 1, 15, 3}},
       {ints({7}, {0, 1, 0, 1, 0, 1, 0})},
       {60, 1, 15, 3}},
      {{{3, 4}}, {mask({3, 4}, {1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1})}, {1}},
      {{{3, 4}, {1, 3}}, {mask({3}, {1, 0, 1})}, {4, 1}},
      {{{2, 3, 4}, {1, 2, 6}}, {mask({2, 3}, {1, 0, 1, 0, 1, 1})}, {4, 1}},
      {{{4, 3}, {1, 4}},
       {ints({2, 1}, {3, 0}), ints({1, 3}, {2, 0, 1})},
       {3, 1}},
      {{{3, 1, 4}, {4, 7, 1}}, {none(), none(), ints({2}, {3, 0})}, {2, 6, 1}},
      {{{4, 5}, {0, 1}}, {ints({3}, {3, 0, 1})}, {5, 1}},
      {{{4, 5}, {1, 0}}, {none(), ints({3}, {4, 0, 2})}, {3, 1}},
  };
  const Dtype f = float32Type();
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    std::vector<double> values = patternValues(numelOf(c.self.sizes), 3);
    if (!c.self.strides.empty() &&
        std::find(c.self.strides.begin(), c.self.strides.end(), 0) !=
            c.self.strides.end()) {
      // A broadcast self: equal values along its stride-0 dimension.
      const std::vector<int64_t> st = c.self.strides;
      for (int64_t k = 0; k < numelOf(c.self.sizes); ++k)
        values[k] = patternValues(32, 3)[offsetOf(k, c.self.sizes, st)];
    }
    check(values, c.self, f, c.ix, &c.strides, "case " + std::to_string(i));
  }
}

TEST_P(IndexOps, BoolAndUint8Masks) {
  const Dtype f = float64Type();
  const std::vector<double> v = patternValues(3 * 4, 4);
  check(v, {{3, 4}}, f, {mask({3, 4}, {0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1})},
        nullptr, "full mask");
  check(v, {{3, 4}}, f, {none(), mask({4}, {1, 0, 0, 1}, uint8Type())}, nullptr,
        "uint8 column mask");
  check(v, {{3, 4}}, f, {mask({3}, {0, 1, 1}), ints({1}, {-1})}, nullptr,
        "mask then index");
  check(v, {{3, 4}}, f, {mask({3, 4}, std::vector<int64_t>(12, 0))}, nullptr,
        "all false: empty result");
  check(v, {{3, 4}}, f, {mask({}, {1})}, nullptr, "0-d mask indexes nothing");
  const std::vector<double> w = patternValues(2 * 3 * 4, 5);
  check(w, {{2, 3, 4}}, f, {mask({2}, {1, 1}), none(), mask({4}, {0, 1, 0, 1})},
        nullptr, "two masks, not adjacent");
}

TEST_P(IndexOps, EveryDtypeMovesUnchanged) {
  for (const Dtype &t : allDtypes()) {
    const std::vector<double> v = valuesFor(t, 4 * 5, 6);
    check(v, {{4, 5}}, t, {ints({3}, {3, 0, 3})}, nullptr,
          std::string(t.name) + " rows");
    check(v, {{4, 5}, {1, 4}}, t, {none(), mask({5}, {1, 0, 1, 1, 0})}, nullptr,
          std::string(t.name) + " transposed, masked");
  }
}

TEST_P(IndexOps, StridedOffsetAndEmptyInputs) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(3 * 4, 7);
  check(v, {{3, 4}, {20, 3}, 5}, f, {ints({2}, {2, 1}), ints({2}, {0, 3})},
        nullptr, "gaps and offset");
  Ix strided = ints({3}, {1, 2, 0});
  strided.layout = Layout{{3}, {2}, 1};
  check(v, {{3, 4}}, f, {none(), strided}, nullptr, "strided index tensor");
  Ix broadcastIndex = ints({4}, {2, 2, 2, 2});
  broadcastIndex.layout = Layout{{4}, {0}};
  check(v, {{3, 4}}, f, {broadcastIndex}, nullptr, "stride-0 index tensor");
  check({}, {{0, 3}}, f, {none(), ints({2}, {1, 2})}, nullptr, "empty self");
  check(v, {{3, 4}}, f, {ints({0}, {})}, nullptr, "empty index");
  check({}, {{0, 3}}, f, {ints({0}, {})}, nullptr, "empty index, empty dim");
  check(v, {{3, 4}}, f, {none(), none()}, nullptr, "only None: a copy");
}

TEST_P(IndexOps, BadArgumentsAreRefused) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const TensorHandle self =
      tensor(patternValues(12, 1), {{3, 4}}, float32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  auto run = [&](const std::vector<Ix> &ix) {
    IndexArgs args = makeIndexArgs(ix, device());
    return entry()(self.get(), args.ptrs.data(),
                   static_cast<int64_t>(ix.size()), &ret);
  };
  EXPECT_SHIM_FAILS(run({ints({1}, {3})}),
                    "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_SHIM_FAILS(run({none(), ints({2}, {0, -5})}),
                    "index -5 is out of bounds for dimension 1 with size 4");
  EXPECT_SHIM_FAILS(run({ints({2}, {0, 1}), ints({3}, {0, 1, 2})}),
                    "shape mismatch: indexing tensors could not be broadcast "
                    "together with shapes [2], [3]");
  EXPECT_SHIM_FAILS(run({none(), none(), ints({1}, {0})}),
                    "too many indices for tensor of dimension 2 (got 3)");
  EXPECT_SHIM_FAILS(run({mask({3, 3}, std::vector<int64_t>(9, 1))}),
                    "The shape of the mask [3, 3] at index 1 does not match");
  EXPECT_SHIM_FAILS(run({none(), mask({4, 1}, {1, 1, 1, 1})}),
                    "too many indices for tensor of dimension 2");
  Ix floats = ints({1}, {0}, float32Type());
  EXPECT_SHIM_FAILS(run({floats}), "tensors used as indices must be long, int, "
                                   "byte or bool tensors");
  EXPECT_SHIM_FAILS(run({ints({1}, {0}, int8Type())}),
                    "tensors used as indices must be long");
  EXPECT_SHIM_FAILS(entry()(self.get(), nullptr, 0, &ret),
                    "at least one index must be provided");
  const TensorHandle empty = tensor({}, {{0, 4}}, float32Type());
  {
    IndexArgs args = makeIndexArgs({ints({1}, {0})}, device());
    EXPECT_SHIM_FAILS(entry()(empty.get(), args.ptrs.data(), 1, &ret),
                      "index is out of bounds for dimension with size 0");
    EXPECT_SHIM_FAILS(entry()(nullptr, args.ptrs.data(), 1, &ret),
                      "'self' is null");
    EXPECT_SHIM_FAILS(entry()(self.get(), args.ptrs.data(), 1, nullptr),
                      "output pointer 'ret0' is null");
  }
  const TensorHandle scalar = tensor({1.5}, {{}}, float32Type());
  {
    IndexArgs args = makeIndexArgs({ints({1}, {0})}, device());
    EXPECT_SHIM_FAILS(entry()(scalar.get(), args.ptrs.data(), 1, &ret),
                      "too many indices for tensor of dimension 0 (got 1)");
  }
  EXPECT_EQ(ret, sentinel);
}

// --- index_put -------------------------------------------------------------

class IndexPutOps : public OpTest {
protected:
  using PutFn = AOTITorchError (*)(AtenTensorHandle, const AtenTensorHandle **,
                                   int64_t, AtenTensorHandle, int32_t,
                                   AtenTensorHandle *);
  PutFn entry() const {
    return onCuda() ? aoti_torch_cuda_index_put : aoti_torch_cpu_index_put;
  }
  void check(const std::vector<double> &values, const Layout &layout,
             const Dtype &type, const std::vector<Ix> &ix,
             const std::vector<double> &put, const Layout &putLayout,
             bool accumulate, const std::vector<int64_t> &strides,
             const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle putValues = tensor(put, putLayout, type);
    IndexArgs args = makeIndexArgs(ix, device());
    TensorHandle ret;
    ASSERT_SHIM_OK(entry()(self.get(), args.ptrs.data(),
                           static_cast<int64_t>(ix.size()), putValues.get(),
                           accumulate, ret.out()));
    EXPECT_EQ(sizesOf(ret), layout.sizes);
    EXPECT_EQ(stridesOf(ret), strides);
    EXPECT_EQ(dtypeOf(ret), type.code);
    const RefIndex ref = refIndex(layout.sizes, ix);
    std::vector<double> expected;
    for (double x : values)
      expected.push_back(asDtype(type, x));
    const std::vector<int64_t> &ps = putLayout.sizes;
    for (size_t i = 0; i < ref.source.size(); ++i) {
      // The value broadcast to the result's shape.
      const std::vector<int64_t> rc =
          coordsOf(static_cast<int64_t>(i), ref.shape);
      int64_t k = 0, stride = 1;
      for (size_t j = ps.size(); j-- > 0;) {
        const int64_t c = ps[j] == 1 ? 0 : rc[ref.shape.size() - ps.size() + j];
        k += c * stride;
        stride *= ps[j];
      }
      double &target = expected[static_cast<size_t>(ref.source[i])];
      const double v = asDtype(type, put[static_cast<size_t>(k)]);
      target = !accumulate ? v
               : type.code == aoti_torch_dtype_bool()
                   ? (target != 0 || v != 0 ? 1 : 0)
                   : asDtype(type, target + v);
    }
    expectSameValues(readTensor(ret, type), expected, what);
    // self is untouched.
    std::vector<double> selfExpected;
    for (double x : values)
      selfExpected.push_back(asDtype(type, x));
    expectSameValues(readTensor(self, type), selfExpected, what + " (self)");
  }
};

TEST_P(IndexPutOps, PutsAndDuplicatesLastWins) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(3 * 4, 1);
  const std::vector<int64_t> dense = {4, 1};
  check(v, {{3, 4}}, f, {ints({2}, {2, 0})}, patternValues(8, 2), {{2, 4}},
        false, dense, "rows");
  check(v, {{3, 4}}, f, {ints({2}, {2, 0})}, {1.5}, {{}}, false, dense,
        "a 0-d value broadcast");
  check(v, {{3, 4}}, f, {none(), ints({3}, {1, -1, 1})}, {0.5, 0.25, -1}, {{3}},
        false, dense, "duplicate columns: the last wins");
  check(v, {{3, 4}}, f,
        {ints({5}, {1, 1, 2, 1, 0}), ints({5}, {3, 3, 0, 3, 0})},
        patternValues(5, 3), {{5}}, false, dense, "duplicate points");
  check(v, {{3, 4}}, f, {mask({3, 4}, {1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1})},
        {2.0}, {{1}}, false, dense, "mask put");
  const std::vector<double> w = patternValues(2 * 3 * 4, 4);
  check(w, {{2, 3, 4}}, f, {ints({2}, {1, 0}), none(), ints({2}, {3, 3})},
        patternValues(6, 5), {{2, 3}}, false, {12, 4, 1}, "not adjacent");
  // Enough puts to span many CUDA blocks, every target hit 3 times.
  std::vector<int64_t> many;
  for (int i = 0; i < 3 * 1000; ++i)
    many.push_back((i * 7) % 1000);
  check(patternValues(1000, 6), {{1000}}, f, {ints({3000}, many)},
        patternValues(3000, 7), {{3000}}, false, {1}, "3000 puts");
}

TEST_P(IndexPutOps, AccumulateSumsDuplicates) {
  for (const Dtype &t : allDtypes()) {
    const std::vector<double> v = valuesFor(t, 3 * 4, 1);
    check(v, {{3, 4}}, t,
          {ints({6}, {1, 1, 2, 1, 0, 1}), ints({6}, {3, 3, 0, 3, 0, -1})},
          valuesFor(t, 6, 2), {{6}}, true, {4, 1},
          std::string(t.name) + " accumulate");
  }
  std::vector<int64_t> many;
  for (int i = 0; i < 3000; ++i)
    many.push_back((i * 7) % 1000);
  check(patternValues(1000, 6), {{1000}}, float32Type(), {ints({3000}, many)},
        patternValues(3000, 7), {{3000}}, true, {1}, "3000 accumulated puts");
  check({100, 100}, {{2}}, int8Type(), {ints({3}, {0, 0, 1})}, {100, 100, 27},
        {{3}}, true, {1}, "int8 wraps");
}

TEST_P(IndexPutOps, IndexAndValueLayouts) {
  const Dtype f = float64Type();
  const std::vector<double> v = patternValues(2 * 3 * 4, 1);
  check(v, {{2, 3, 4}}, f,
        {ints({2}, {1, 0}, int32Type()), none(), ints({2, 1}, {3, -1})},
        patternValues(12, 2), {{2, 2, 3}, {1, 2, 4}}, true, {12, 4, 1},
        "int32 and int64, not adjacent, transposed values");
  check(v, {{2, 3, 4}}, f,
        {none(), mask({3, 4}, {1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1})},
        patternValues(2, 3), {{2, 1}}, true, {12, 4, 1},
        "mask after a None, values broadcast along the mask");
  std::vector<double> row = patternValues(4, 4), rows;
  for (int i = 0; i < 9; ++i)
    rows.insert(rows.end(), row.begin(), row.end());
  check(v, {{2, 3, 4}}, f, {ints({3}, {1, 1, 0})}, rows, {{3, 3, 4}, {0, 0, 1}},
        false, {12, 4, 1}, "stride-0 values");
  Ix strided = ints({3}, {2, 0, 2});
  strided.layout = Layout{{3}, {3}, 2};
  check(v, {{2, 3, 4}}, f, {none(), strided}, patternValues(2 * 3 * 4, 5),
        {{2, 3, 4}}, true, {12, 4, 1}, "strided index tensor, accumulate");
  check({1.25}, {{}}, f, {}, {2.5}, {{}}, false, {}, "0-d self, no index");
  check(v, {{2, 3, 4}}, f, {}, patternValues(4, 6), {{4}}, true, {12, 4, 1},
        "no index: values broadcast over self, accumulated");
}

TEST_P(IndexPutOps, ResultKeepsEmptyLikeStrides) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(3 * 4, 1);
  check(v, {{3, 4}, {1, 3}}, f, {ints({1}, {1})}, {9}, {{}}, false, {1, 3},
        "transposed self: its strides");
  check(v, {{3, 4}, {8, 2}, 1}, f, {ints({1}, {2})}, {9}, {{}}, false, {4, 1},
        "gaps: dense in the same order");
  check(v, {{3, 4}, {1, 6}}, f, {none(), ints({1}, {0})}, {9}, {{}}, false,
        {1, 3}, "transposed with gaps");
  std::vector<double> rows;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      rows.push_back(patternValues(4, 2)[j]);
  check(rows, {{3, 4}, {0, 1}}, f, {ints({1}, {1})}, {9}, {{}}, false, {4, 1},
        "broadcast self becomes dense");
  check({}, {{0, 4}}, f, {none(), ints({1}, {1})}, {9}, {{}}, false, {4, 1},
        "empty self");
}

TEST_P(IndexPutOps, BadArgumentsAreRefused) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const TensorHandle self =
      tensor(patternValues(12, 1), {{3, 4}}, float32Type());
  const TensorHandle good = tensor({1}, {{}}, float32Type());
  const TensorHandle wrongType = tensor({1}, {{}}, float64Type());
  const TensorHandle wrongShape =
      tensor(patternValues(3, 1), {{3}}, float32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  IndexArgs rows = makeIndexArgs({ints({2}, {0, 1})}, device());
  EXPECT_SHIM_FAILS(
      entry()(self.get(), rows.ptrs.data(), 1, wrongType.get(), 0, &ret),
      "Index put requires the source and destination dtypes "
      "match, got float32 for the destination and float64");
  EXPECT_SHIM_FAILS(
      entry()(self.get(), rows.ptrs.data(), 1, wrongShape.get(), 0, &ret),
      "shape mismatch: value tensor of shape [3] cannot be "
      "broadcast to indexing result of shape [2, 4]");
  IndexArgs bad = makeIndexArgs({ints({1}, {7})}, device());
  EXPECT_SHIM_FAILS(
      entry()(self.get(), bad.ptrs.data(), 1, good.get(), 1, &ret),
      "index 7 is out of bounds for dimension 0 with size 3");
  EXPECT_SHIM_FAILS(entry()(self.get(), bad.ptrs.data(), 1, nullptr, 0, &ret),
                    "'values' is null");
  EXPECT_EQ(ret, sentinel);
}

// --- index_reduce ----------------------------------------------------------

class IndexReduceOps : public OpTest {
protected:
  using ReduceFn = AOTITorchError (*)(AtenTensorHandle, int64_t,
                                      AtenTensorHandle, AtenTensorHandle,
                                      const char *, int32_t,
                                      AtenTensorHandle *);
  ReduceFn entry() const {
    return onCuda() ? aoti_torch_cuda_index_reduce
                    : aoti_torch_cpu_index_reduce;
  }
  // The reference: rows of self (along dim) reduced with rows of source in
  // index order, each step rounded to the dtype.
  std::vector<double> reference(const std::vector<double> &self,
                                const std::vector<int64_t> &sizes, int64_t dim,
                                const std::vector<int64_t> &index,
                                const std::vector<double> &source,
                                const std::string &reduce, bool includeSelf,
                                const Dtype &t) {
    std::vector<double> out;
    for (double x : self)
      out.push_back(asDtype(t, x));
    const std::vector<int64_t> s =
        sizes.empty() ? std::vector<int64_t>{1} : sizes;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d)
      outer *= s[d];
    for (size_t d = static_cast<size_t>(dim) + 1; d < s.size(); ++d)
      inner *= s[d];
    const int64_t size = s[dim];
    const int64_t n = static_cast<int64_t>(index.size());
    std::vector<double> count(out.size(), includeSelf ? 1 : 0);
    const double inf = HUGE_VAL;
    const bool fl = isFloat(t);
    double lowest = -inf, highest = inf;
    if (!fl) {
      if (t.code == aoti_torch_dtype_uint8())
        lowest = 0;
      if (t.code == aoti_torch_dtype_int8())
        lowest = -128, highest = 127;
      if (t.code == aoti_torch_dtype_int16())
        lowest = -32768, highest = 32767;
      if (t.code == aoti_torch_dtype_int32())
        lowest = -2147483648.0, highest = 2147483647.0;
      if (t.code == aoti_torch_dtype_uint8())
        highest = 255;
      if (t.code == aoti_torch_dtype_int64())
        lowest = -9223372036854775808.0, highest = 9223372036854775807.0;
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < inner; ++k) {
        if (!includeSelf)
          for (int64_t i = 0; i < n; ++i) {
            double &x = out[(o * size + index[i]) * inner + k];
            x = reduce == "prod"   ? 1
                : reduce == "mean" ? 0
                : reduce == "amax" ? lowest
                                   : highest;
          }
        for (int64_t i = 0; i < n; ++i) {
          const size_t at =
              static_cast<size_t>((o * size + index[i]) * inner + k);
          const double v = asDtype(t, source[(o * n + i) * inner + k]);
          double &x = out[at];
          if (reduce == "prod")
            x = asDtype(t, x * v);
          else if (reduce == "mean")
            x = asDtype(t, x + v), count[at] += 1;
          else if (std::isnan(x) || std::isnan(v))
            x = std::isnan(x) ? x : v;
          else
            x = reduce == "amax" ? std::max(x, v) : std::min(x, v);
        }
      }
    if (reduce == "mean")
      for (size_t at = 0; at < out.size(); ++at) {
        const double c = count[at] == 0 ? 1 : count[at];
        out[at] = fl ? asDtype(t, out[at] / c) : std::floor(out[at] / c);
      }
    return out;
  }
  void check(const std::vector<int64_t> &sizes, int64_t dim,
             const std::vector<int64_t> &index, const std::string &reduce,
             bool includeSelf, const Dtype &t, const std::string &what,
             const Layout *sourceLayout = nullptr, int seed = 1,
             const Dtype &indexType = int64Type()) {
    SCOPED_TRACE(what);
    const int64_t rank = static_cast<int64_t>(sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    std::vector<int64_t> sourceSizes = sizes;
    if (!sourceSizes.empty())
      sourceSizes[d] = static_cast<int64_t>(index.size());
    const std::vector<double> self = valuesFor(t, numelOf(sizes), seed);
    const std::vector<double> source =
        valuesFor(t, numelOf(sourceSizes), seed + 1);
    TensorHandle selfT = tensor(self, {sizes}, t);
    TensorHandle sourceT =
        tensor(source, sourceLayout ? *sourceLayout : Layout{sourceSizes}, t);
    TensorHandle indexT =
        tensor(std::vector<double>(index.begin(), index.end()),
               {{static_cast<int64_t>(index.size())}}, indexType);
    TensorHandle ret;
    ASSERT_SHIM_OK(entry()(selfT.get(), dim, indexT.get(), sourceT.get(),
                           reduce.c_str(), includeSelf, ret.out()));
    EXPECT_EQ(sizesOf(ret), sizes);
    EXPECT_EQ(stridesOf(ret), contiguousStridesOf(sizes));
    EXPECT_EQ(dtypeOf(ret), t.code);
    expectSameValues(
        readTensor(ret, t),
        reference(self, sizes, d, index, source, reduce, includeSelf, t), what);
  }
};

TEST_P(IndexReduceOps, EveryReductionAndDtype) {
  const std::vector<Dtype> types = {
      float32Type(), float64Type(), float16Type(), bfloat16Type(), int64Type(),
      int32Type(),   int16Type(),   int8Type(),    uint8Type()};
  for (const Dtype &t : types)
    for (const char *reduce : {"prod", "mean", "amax", "amin"})
      for (bool includeSelf : {true, false})
        check({4, 3}, 0, {3, 0, 3, 3, 1}, reduce, includeSelf, t,
              std::string(t.name) + " " + reduce +
                  (includeSelf ? "" : " excluding self"));
}

TEST_P(IndexReduceOps, DimsLayoutsAndShapes) {
  const Dtype f = float32Type();
  for (const char *reduce : {"prod", "mean", "amax", "amin"}) {
    const std::string r = reduce;
    check({2, 5, 3}, 1, {4, 0, 4, 2}, r, true, f, r + " dim 1");
    check({2, 5, 3}, -1, {2, 2, 0}, r, false, f, r + " dim -1");
    check({6}, 0, {5, 0, 5, 5, 1, 2, 0}, r, true, f, r + " 1-d");
    check({}, 0, {0}, r, true, f, r + " 0-d");
    check({}, -1, {0}, r, false, f, r + " 0-d, dim -1", nullptr, 1,
          int32Type());
    const Layout transposed{{3, 3}, {1, 3}};
    check({3, 4}, 1, {1, 3, 1}, r, true, f, r + " transposed source",
          &transposed, 2, int32Type());
  }
  check({3, 0}, 0, {2, 2}, "mean", true, f, "empty slices");
  check({3, 4}, 0, {}, "prod", false, f, "no index");
  // Enough (position, slice element) pairs to span many CUDA blocks.
  std::vector<int64_t> many;
  for (int i = 0; i < 900; ++i)
    many.push_back((i * 11) % 30);
  check({30, 40}, 0, many, "mean", true, float64Type(), "900 rows into 30");
}

TEST_P(IndexReduceOps, NanPropagatesAndIntegerMeanFloors) {
  SCOPED_TRACE("nan");
  const Dtype f = float32Type();
  const double nan = std::nan("");
  TensorHandle self = tensor({1, nan, 3, 4}, {{4}}, f);
  TensorHandle source = tensor({nan, 5, 2}, {{3}}, f);
  TensorHandle index = tensor({0, 1, 3}, {{3}}, int64Type());
  for (const char *reduce : {"amax", "amin"}) {
    TensorHandle ret;
    ASSERT_SHIM_OK(entry()(self.get(), 0, index.get(), source.get(), reduce, 1,
                           ret.out()));
    const std::vector<double> got = readTensor(ret, f);
    EXPECT_TRUE(std::isnan(got[0])) << reduce;
    EXPECT_TRUE(std::isnan(got[1])) << reduce;
    EXPECT_EQ(got[2], 3) << reduce;
    EXPECT_EQ(got[3], std::string(reduce) == "amax" ? 4 : 2) << reduce;
  }
  TensorHandle ints = tensor({-7, 7, 0}, {{3}}, int32Type());
  TensorHandle addends = tensor({0, 0, -1}, {{3}}, int32Type());
  TensorHandle at = tensor({0, 1, 2}, {{3}}, int64Type());
  TensorHandle ret;
  ASSERT_SHIM_OK(
      entry()(ints.get(), 0, at.get(), addends.get(), "mean", 1, ret.out()));
  expectSameValues(readTensor(ret, int32Type()), {-4, 3, -1},
                   "floor division of the sums by 2");
}

TEST_P(IndexReduceOps, BadArgumentsAreRefused) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const Dtype f = float32Type();
  TensorHandle self = tensor(patternValues(12, 1), {{4, 3}}, f);
  TensorHandle source = tensor(patternValues(6, 2), {{2, 3}}, f);
  TensorHandle index = tensor({0, 3}, {{2}}, int64Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  auto run = [&](const TensorHandle &s, int64_t dim, const TensorHandle &i,
                 const TensorHandle &src, const char *reduce) {
    return entry()(s.get(), dim, i.get(), src.get(), reduce, 1, &ret);
  };
  EXPECT_SHIM_FAILS(run(self, 0, index, source, "sum"),
                    "index_reduce(): Expected reduce to be one of prod, mean, "
                    "amax or amin but got sum.");
  EXPECT_SHIM_FAILS(run(self, 2, index, source, "prod"),
                    "dim 2 is out of range for a 2-d 'self'");
  TensorHandle badIndex = tensor({0, 4}, {{2}}, int64Type());
  EXPECT_SHIM_FAILS(run(self, 0, badIndex, source, "prod"),
                    "index out of range in self");
  TensorHandle negative = tensor({0, -1}, {{2}}, int64Type());
  EXPECT_SHIM_FAILS(run(self, 0, negative, source, "amax"),
                    "index out of range in self");
  TensorHandle floatIndex = tensor({0, 1}, {{2}}, f);
  EXPECT_SHIM_FAILS(run(self, 0, floatIndex, source, "prod"),
                    "index_reduce_(): Expected dtype int32/int64 for index");
  TensorHandle index2d = tensor({0, 1}, {{1, 2}}, int64Type());
  EXPECT_SHIM_FAILS(run(self, 0, index2d, source, "prod"),
                    "index_reduce_(): Index is supposed to be a vector");
  TensorHandle doubles = tensor(patternValues(6, 2), {{2, 3}}, float64Type());
  EXPECT_SHIM_FAILS(run(self, 0, index, doubles, "prod"),
                    "index_reduce_(): self (float32) and source (float64) must "
                    "have the same scalar type");
  TensorHandle three = tensor({0, 1, 2}, {{3}}, int64Type());
  EXPECT_SHIM_FAILS(run(self, 0, three, source, "prod"),
                    "index_reduce_(): Number of indices (3) should be equal to "
                    "source.size(dim): (2), for dim: 0");
  TensorHandle narrow = tensor(patternValues(4, 2), {{2, 2}}, f);
  EXPECT_SHIM_FAILS(run(self, 0, index, narrow, "prod"),
                    "source tensor shape must match self tensor shape, "
                    "excluding the specified dimension. Got self.shape = [4, "
                    "3] source.shape = [2, 2]");
  TensorHandle bools = tensor({1, 0, 1, 1}, {{2, 2}}, boolType());
  TensorHandle boolSource = tensor({1, 0, 1, 1}, {{2, 2}}, boolType());
  EXPECT_SHIM_FAILS(run(bools, 0, index, boolSource, "amax"),
                    "'self' has dtype bool, which index_reduce does not "
                    "support");
  EXPECT_SHIM_FAILS(
      entry()(self.get(), 0, index.get(), source.get(), nullptr, 1, &ret),
      "Expected reduce to be one of prod, mean, amax or amin");
  EXPECT_EQ(ret, sentinel);
}

INSTANTIATE_TEST_SUITE_P(, IndexOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, IndexPutOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, IndexReduceOps,
                         testing::ValuesIn(devicesUnderTest()), deviceName);

TEST(IndexDevices, TheCudaEntryPointsRefuseACpuTensor) {
  TensorHandle self = makeTensor(patternValues(4, 1), {{4}}, float32Type(), 0);
  TensorHandle idx = makeTensor({0}, {{1}}, int64Type(), 0);
  AtenTensorHandle raw = idx.get();
  const AtenTensorHandle *ptrs[] = {&raw};
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_index_Tensor(self.get(), ptrs, 1, &ret),
                    "'self' is on cpu; this index needs a CUDA tensor");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_index_put(self.get(), ptrs, 1, self.get(), 0, &ret),
      "'self' is on cpu; this index_put needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_index_reduce(self.get(), 0, idx.get(),
                                                 self.get(), "prod", 1, &ret),
                    "'self' is on cpu; this index_reduce needs a CUDA tensor");
  EXPECT_EQ(ret, nullptr);
}

// What only a GPU can show.
class IndexOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, IndexOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(IndexOnCuda);

TEST_P(IndexOnCuda, CpuIndicesAndValuesServeACudaSelf) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(12, 1);
  TensorHandle self = tensor(v, {{3, 4}}, f);
  TensorHandle rows = makeTensor({2, 0}, {{2}}, int64Type(), 0);
  TensorHandle cols = makeTensor({1, 0, 1, 1}, {{4}}, boolType(), 0);
  AtenTensorHandle raw[] = {rows.get(), cols.get()};
  const AtenTensorHandle *ptrs[] = {&raw[0], &raw[1]};
  TensorHandle ret;
  ASSERT_SHIM_OK(aoti_torch_cuda_index_Tensor(self.get(), ptrs, 1, ret.out()));
  EXPECT_EQ(sizesOf(ret), (std::vector<int64_t>{2, 4}));
  const std::vector<double> got = readTensor(ret, f);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(got[j], roundTrip(f, v[8 + j]));
    EXPECT_EQ(got[4 + j], roundTrip(f, v[j]));
  }
  TensorHandle value = makeTensor({0.5}, {{}}, f, 0);
  TensorHandle put;
  const AtenTensorHandle *colPtrs[] = {nullptr, &raw[1]};
  ASSERT_SHIM_OK(aoti_torch_cuda_index_put(self.get(), colPtrs, 2, value.get(),
                                           0, put.out()));
  const std::vector<double> after = readTensor(put, f);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(after[i], (i % 4 == 1) ? roundTrip(f, v[i]) : 0.5) << i;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_index_Tensor(self.get(), ptrs, 1, ret.out()),
                    "'self' is on cuda:0; this index needs a CPU tensor");
}

TEST_P(IndexOnCuda, OnlyA0dValueMayStayOnTheCpu) {
  const Dtype f = float32Type();
  TensorHandle self = tensor(patternValues(12, 1), {{3, 4}}, f);
  TensorHandle rows = tensor({2, 0}, {{2}}, int64Type());
  TensorHandle values = makeTensor(patternValues(4, 2), {{4}}, f, 0);
  AtenTensorHandle raw = rows.get();
  const AtenTensorHandle *ptrs[] = {&raw};
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_index_put(self.get(), ptrs, 1, values.get(), 0, &ret),
      "'values' is on cpu but 'self' is on cuda:0");
  EXPECT_EQ(ret, nullptr);
}

TEST_P(IndexOnCuda, RunsOnTheStreamAGuardSets) {
  // A non-blocking stream of the test's own: the kernels, sorts and
  // read-backs must be ordered on it.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const Dtype f = float32Type();
    TensorHandle self = tensor(std::vector<double>(64, 0.0), {{64}}, f);
    std::vector<double> targets;
    for (int i = 0; i < 4096; ++i)
      targets.push_back((i * 5) % 64);
    TensorHandle index = tensor(targets, {{4096}}, int64Type());
    TensorHandle ones = tensor({1.0}, {{}}, f);
    AtenTensorHandle raw = index.get();
    const AtenTensorHandle *ptrs[] = {&raw};
    TensorHandle sums;
    ASSERT_SHIM_OK(aoti_torch_cuda_index_put(self.get(), ptrs, 1, ones.get(), 1,
                                             sums.out()));
    expectSameValues(readTensor(sums, f), std::vector<double>(64, 64.0),
                     "index_put accumulate");
    TensorHandle source = tensor(std::vector<double>(4096, 2.0), {{4096}}, f);
    TensorHandle means;
    ASSERT_SHIM_OK(aoti_torch_cuda_index_reduce(
        self.get(), 0, index.get(), source.get(), "mean", 0, means.out()));
    expectSameValues(readTensor(means, f), std::vector<double>(64, 2.0),
                     "index_reduce mean");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
