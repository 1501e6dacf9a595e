//===- ops/pooling_fixture.h - The pooling tests' fixture and layouts -----===//
//
// What tests/shims/ops/pooling_test.cpp's cases share: the layouts they
// make inputs in (channels-last, transposed, with gaps and an offset), the
// tolerance of each dtype, the entry points of the running device, and the
// checks of a max or average pooling call against ops/pooling_reference.h
// (values, indices, and the results' sizes, strides, dtype and device).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_POOLING_FIXTURE_H
#define AOTI_TESTS_SHIMS_OPS_POOLING_FIXTURE_H

#include "ops/devices.h"
#include "ops/pooling_reference.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

#include <string>
#include <utility>
#include <vector>

namespace aoti::test::pooling {

using Ints = std::vector<int64_t>;

inline Ints channelsLastStridesOf(const Ints &sizes) {
  Ints strides(sizes.size());
  int64_t m = 1;
  Ints order = {1};
  for (size_t d = sizes.size() - 1; d >= 2; --d)
    order.push_back(static_cast<int64_t>(d));
  order.push_back(0);
  for (int64_t d : order) {
    strides[d] = m;
    m *= sizes[d];
  }
  return strides;
}

inline Layout channelsLast(const Ints &sizes) {
  return {sizes, channelsLastStridesOf(sizes)};
}

// A view with a gap after every row and plane, 3 elements in.
inline Layout gappy(const Ints &sizes) {
  Ints padded = sizes;
  for (int64_t &s : padded)
    s += 1;
  return {sizes, contiguousStridesOf(padded), 3};
}

// The last two dimensions swapped in memory (a transposed view).
inline Layout transposed(const Ints &sizes) {
  Ints swapped = sizes;
  std::swap(swapped[sizes.size() - 1], swapped[sizes.size() - 2]);
  Ints strides = contiguousStridesOf(swapped);
  std::swap(strides[sizes.size() - 1], strides[sizes.size() - 2]);
  return {sizes, strides};
}

inline double tolerance(const Dtype &type) {
  if (type.code == aoti_torch_dtype_float16())
    return 1.0 / 1024;
  if (type.code == aoti_torch_dtype_bfloat16())
    return 1.0 / 128;
  if (type.code == aoti_torch_dtype_float32())
    return 1e-6;
  return 1e-12;
}

inline bool isFloatType(const Dtype &type) {
  return type.code == aoti_torch_dtype_float32() ||
         type.code == aoti_torch_dtype_float64() ||
         type.code == aoti_torch_dtype_float16() ||
         type.code == aoti_torch_dtype_bfloat16();
}

inline void expectClose(const std::vector<double> &actual,
                 const std::vector<double> &expected, double relTol,
                 const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const bool ok = std::isnan(expected[i])
                        ? std::isnan(actual[i])
                        : actual[i] == expected[i] ||
                              std::fabs(actual[i] - expected[i]) <=
                                  relTol * std::fabs(expected[i]);
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i]
                    << ", expected " << expected[i];
  }
}

inline int32_t dtypeOf(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

// The entry points' C types.
using MaxPoolFn = AOTITorchError (*)(AtenTensorHandle, const int64_t *, int64_t,
                                     const int64_t *, int64_t, const int64_t *,
                                     int64_t, const int64_t *, int64_t, int32_t,
                                     AtenTensorHandle *, AtenTensorHandle *);
using AvgPoolFn = AOTITorchError (*)(AtenTensorHandle, const int64_t *, int64_t,
                                     const int64_t *, int64_t, const int64_t *,
                                     int64_t, int32_t, int32_t, int64_t *,
                                     AtenTensorHandle *);
using AdaptiveMaxFn = AOTITorchError (*)(AtenTensorHandle, const int64_t *,
                                         int64_t, AtenTensorHandle *,
                                         AtenTensorHandle *);
using AdaptiveAvgFn = AOTITorchError (*)(AtenTensorHandle, const int64_t *,
                                         int64_t, AtenTensorHandle *);
using FractionalFn = AOTITorchError (*)(AtenTensorHandle, const int64_t *,
                                        int64_t, const int64_t *, int64_t,
                                        AtenTensorHandle, AtenTensorHandle *,
                                        AtenTensorHandle *);

struct Window {
  Ints kernel;
  Ints stride = {};
  Ints pad = {0};
  Ints dilation = {1};
  bool ceil = false;
};

// A list of n values from torch's 1-or-n form.
inline Ints expand(const Ints &list, int n, const Ints &fallback = {}) {
  if (list.empty())
    return fallback;
  return list.size() == 1 ? Ints(n, list[0]) : list;
}

class PoolingOps : public OpTest {
protected:
  MaxPoolFn maxPoolFn(int spatial) const {
    if (spatial == 2)
      return onCuda() ? aoti_torch_cuda_max_pool2d_with_indices
                      : aoti_torch_cpu_max_pool2d_with_indices;
    return onCuda() ? aoti_torch_cuda_max_pool3d_with_indices
                    : aoti_torch_cpu_max_pool3d_with_indices;
  }
  AvgPoolFn avgPoolFn(int spatial) const {
    if (spatial == 2)
      return onCuda() ? aoti_torch_cuda_avg_pool2d : aoti_torch_cpu_avg_pool2d;
    return onCuda() ? aoti_torch_cuda_avg_pool3d : aoti_torch_cpu_avg_pool3d;
  }
  AdaptiveMaxFn adaptiveMaxFn(int spatial) const {
    if (spatial == 2)
      return onCuda() ? aoti_torch_cuda_adaptive_max_pool2d
                      : aoti_torch_cpu_adaptive_max_pool2d;
    return onCuda() ? aoti_torch_cuda_adaptive_max_pool3d
                    : aoti_torch_cpu_adaptive_max_pool3d;
  }
  AdaptiveAvgFn adaptiveAvgFn(int spatial) const {
    if (spatial == 2)
      return onCuda() ? aoti_torch_cuda__adaptive_avg_pool2d
                      : aoti_torch_cpu__adaptive_avg_pool2d;
    return onCuda() ? aoti_torch_cuda__adaptive_avg_pool3d
                    : aoti_torch_cpu__adaptive_avg_pool3d;
  }
  FractionalFn fractionalFn(int spatial) const {
    if (spatial == 2)
      return onCuda() ? aoti_torch_cuda_fractional_max_pool2d
                      : aoti_torch_cpu_fractional_max_pool2d;
    return onCuda() ? aoti_torch_cuda_fractional_max_pool3d
                    : aoti_torch_cpu_fractional_max_pool3d;
  }

  AOTITorchError maxPool(int spatial, const TensorHandle &self, const Window &w,
                         TensorHandle &values, TensorHandle &indices) {
    return maxPoolFn(spatial)(
        self.get(), w.kernel.data(), static_cast<int64_t>(w.kernel.size()),
        w.stride.data(), static_cast<int64_t>(w.stride.size()), w.pad.data(),
        static_cast<int64_t>(w.pad.size()), w.dilation.data(),
        static_cast<int64_t>(w.dilation.size()), w.ceil, values.out(),
        indices.out());
  }
  AOTITorchError avgPool(int spatial, const TensorHandle &self, const Window &w,
                         bool countIncludePad, const int64_t *divisor,
                         TensorHandle &out) {
    return avgPoolFn(spatial)(
        self.get(), w.kernel.data(), static_cast<int64_t>(w.kernel.size()),
        w.stride.data(), static_cast<int64_t>(w.stride.size()), w.pad.data(),
        static_cast<int64_t>(w.pad.size()), w.ceil, countIncludePad,
        const_cast<int64_t *>(divisor), out.out());
  }

  // Checks a result's sizes, strides (channels-last or contiguous), dtype
  // and device.
  void expectLayout(const TensorHandle &t, const Ints &sizes, bool cl,
                    int32_t dtype, const std::string &what) {
    EXPECT_EQ(sizesOf(t), sizes) << what;
    EXPECT_EQ(stridesOf(t), cl ? channelsLastStridesOf(sizes)
                               : contiguousStridesOf(sizes))
        << what << (cl ? " (channels-last)" : " (contiguous)");
    EXPECT_EQ(dtypeOf(t), dtype) << what;
    int32_t deviceType = -1;
    EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &deviceType));
    EXPECT_EQ(deviceType, device()) << what;
  }

  // max_pool{2,3}d_with_indices on `layout` against the reference; `out`:
  // the expected pooled spatial sizes; `cl`: channels-last results.
  void checkMaxPool(int spatial, const std::vector<double> &values,
                    const Layout &layout, const Dtype &type, const Window &w,
                    const Ints &out, bool cl, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle v, i;
    ASSERT_SHIM_OK(maxPool(spatial, self, w, v, i));
    Problem p{layout.sizes, spatial, out};
    expectLayout(v, p.outSizes(), cl, type.code, what + " values");
    expectLayout(i, p.outSizes(), cl, aoti_torch_dtype_int64(),
                 what + " indices");
    const Ints kernel = expand(w.kernel, spatial);
    const MaxResult ref = referenceMax(
        values, p,
        dilatedWindows(p, kernel, expand(w.stride, spatial, kernel),
                       expand(w.pad, spatial), expand(w.dilation, spatial)),
        isFloatType(type) ? -HUGE_VAL : -1e300,
        onCuda() && spatial == 2 && cl);
    expectClose(readTensor(v, type), ref.values, 0, what + " values");
    const std::vector<double> idx = readTensor(i, int64Type());
    expectClose(idx,
                std::vector<double>(ref.indices.begin(), ref.indices.end()), 0,
                what + " indices");
  }

  void checkAvgPool(int spatial, const std::vector<double> &values,
                    const Layout &layout, const Dtype &type, const Window &w,
                    bool countIncludePad, const int64_t *divisor,
                    const Ints &out, bool cl, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle result;
    ASSERT_SHIM_OK(avgPool(spatial, self, w, countIncludePad, divisor, result));
    Problem p{layout.sizes, spatial, out};
    expectLayout(result, p.outSizes(), cl, type.code, what);
    const Ints k = expand(w.kernel, spatial);
    const Ints s = expand(w.stride, spatial, k);
    const Ints pad = expand(w.pad, spatial);
    const WindowFn window = dilatedWindows(p, k, s, pad, Ints(spatial, 1));
    auto divide = [&](int64_t flat, const Positions &positions) -> double {
      if (divisor)
        return static_cast<double>(*divisor);
      if (!countIncludePad)
        return static_cast<double>(positions.size());
      double count = 1;
      for (int d = spatial - 1; d >= 0; --d) {
        count *= static_cast<double>(
            paddedCount(flat % out[d], k[d], s[d], pad[d], p.in(d)));
        flat /= out[d];
      }
      return count;
    };
    const bool integer = type.code == aoti_torch_dtype_int64();
    expectClose(readTensor(result, type),
                referenceAverage(values, p, window, divide, integer),
                integer ? 0 : tolerance(type), what);
  }
};

} // namespace aoti::test::pooling

#endif // AOTI_TESTS_SHIMS_OPS_POOLING_FIXTURE_H
