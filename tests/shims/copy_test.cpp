//===- copy_test.cpp - clone, clone_preserve_strides and copy_ on the CPU --===//
#include "shims_test_util.h"

#include "copy.h" // internals: planCopy

#include <cstring>

using aoti::test::TensorHandle;
using aoti::test::dataOf;
using aoti::test::emptyCpu;
using aoti::test::sizesOf;
using aoti::test::stridesOf;

namespace {

// A row-major rows x cols float32 tensor holding 0, 1, 2, ...
TensorHandle iota2d(int64_t rows, int64_t cols) {
  TensorHandle t = emptyCpu({rows, cols}, {cols, 1}, aoti_torch_dtype_float32());
  float *data = dataOf<float>(t);
  for (int64_t i = 0; i < rows * cols; ++i)
    data[i] = static_cast<float>(i);
  return t;
}

// Element (i, j) of a 2-d float32 tensor, through its strides.
float at(const TensorHandle &t, int64_t i, int64_t j) {
  std::vector<int64_t> strides = stridesOf(t);
  return dataOf<float>(t)[i * strides[0] + j * strides[1]];
}

TensorHandle transposed(const TensorHandle &t) {
  std::vector<int64_t> sizes = sizesOf(t);
  std::vector<int64_t> strides = stridesOf(t);
  const int64_t newSizes[] = {sizes[1], sizes[0]};
  const int64_t newStrides[] = {strides[1], strides[0]};
  TensorHandle view;
  EXPECT_SHIM_OK(aoti_torch__reinterpret_tensor(t.get(), 2, newSizes,
                                                newStrides, 0, view.out()));
  return view;
}

TEST(ShimCopy, CloneOfATransposedViewIsContiguous) {
  TensorHandle a = iota2d(3, 4);
  TensorHandle t = transposed(a);
  TensorHandle c;
  ASSERT_SHIM_OK(aoti_torch_clone(t.get(), c.out()));
  EXPECT_EQ(sizesOf(c), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(stridesOf(c), (std::vector<int64_t>{3, 1}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(c, i, j), static_cast<float>(j * 4 + i));
  EXPECT_NE(dataOf<float>(c), dataOf<float>(a));
}

TEST(ShimCopy, ClonePreserveStridesKeepsStridesAndDropsTheOffset) {
  TensorHandle a = iota2d(4, 6);
  // Rows 1..2, every other column: offset 6, strides (6, 2).
  const int64_t sizes[] = {2, 3};
  const int64_t strides[] = {6, 2};
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(a.get(), 2, sizes, strides, 6,
                                                view.out()));
  TensorHandle c;
  ASSERT_SHIM_OK(aoti_torch_clone_preserve_strides(view.get(), c.out()));
  EXPECT_EQ(stridesOf(c), (std::vector<int64_t>{6, 2}));
  int64_t offset = -1;
  EXPECT_SHIM_OK(aoti_torch_get_storage_offset(c.get(), &offset));
  EXPECT_EQ(offset, 0);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(c, i, j), at(view, i, j));
}

TEST(ShimCopy, CopyBetweenTransposedLayouts) {
  TensorHandle src = iota2d(5, 7);
  TensorHandle dstBase = emptyCpu({7, 5}, {5, 1}, aoti_torch_dtype_float32());
  TensorHandle dst = transposed(dstBase); // 5x7 with strides (1, 5)
  ASSERT_SHIM_OK(aoti_torch_copy_(dst.get(), src.get(), 0));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j)
      EXPECT_EQ(at(dst, i, j), at(src, i, j));
}

TEST(ShimCopy, CopyBroadcastsTheSource) {
  TensorHandle row = emptyCpu({3}, {1}, aoti_torch_dtype_float32());
  float *r = dataOf<float>(row);
  r[0] = 1;
  r[1] = 2;
  r[2] = 3;
  TensorHandle dst = emptyCpu({4, 3}, {3, 1}, aoti_torch_dtype_float32());
  ASSERT_SHIM_OK(aoti_torch_copy_(dst.get(), row.get(), 0));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(dst, i, j), static_cast<float>(j + 1));

  TensorHandle column = emptyCpu({4, 1}, {1, 1}, aoti_torch_dtype_float32());
  for (int i = 0; i < 4; ++i)
    dataOf<float>(column)[i] = static_cast<float>(10 * i);
  ASSERT_SHIM_OK(aoti_torch_copy_(dst.get(), column.get(), 0));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(dst, i, j), static_cast<float>(10 * i));
}

TEST(ShimCopy, CopyHandlesEveryElementSize) {
  for (int32_t dtype :
       {aoti_torch_dtype_uint8(), aoti_torch_dtype_float16(),
        aoti_torch_dtype_int32(), aoti_torch_dtype_int64(),
        aoti_torch_dtype_complex128()}) {
    const size_t item = aoti_torch_dtype_element_size(dtype);
    TensorHandle src = emptyCpu({3, 4}, {4, 1}, dtype);
    auto *bytes = dataOf<uint8_t>(src);
    for (size_t i = 0; i < 12 * item; ++i)
      bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    TensorHandle dst = emptyCpu({3, 4}, {1, 3}, dtype);
    ASSERT_SHIM_OK(aoti_torch_copy_(dst.get(), src.get(), 0));
    TensorHandle back = emptyCpu({3, 4}, {4, 1}, dtype);
    ASSERT_SHIM_OK(aoti_torch_tensor_copy_(dst.get(), back.get()));
    EXPECT_EQ(std::memcmp(dataOf<uint8_t>(back), bytes, 12 * item), 0)
        << "dtype " << dtype;
  }
}

TEST(ShimCopy, CopyRefusesMismatchedDtypesShapesAndOverlappingOutputs) {
  TensorHandle f = emptyCpu({4}, {1}, aoti_torch_dtype_float32());
  TensorHandle i = emptyCpu({4}, {1}, aoti_torch_dtype_int32());
  TensorHandle five = emptyCpu({5}, {1}, aoti_torch_dtype_float32());
  TensorHandle one = emptyCpu({1}, {1}, aoti_torch_dtype_float32());
  EXPECT_SHIM_FAILS(aoti_torch_copy_(f.get(), i.get(), 0), "dtype mismatch");
  EXPECT_SHIM_FAILS(aoti_torch_copy_(f.get(), five.get(), 0),
                    "does not broadcast");
  // A stride-0 destination would write several elements to one address.
  const int64_t sizes[] = {4};
  const int64_t strides[] = {0};
  TensorHandle expanded;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(one.get(), 1, sizes, strides,
                                                0, expanded.out()));
  EXPECT_SHIM_FAILS(aoti_torch_copy_(expanded.get(), f.get(), 0), "stride 0");
}

TEST(ShimCopy, PlanMergesContiguousRunsAndDropsUnitDimensions) {
  using aoti::shims::planCopy;
  const int64_t sizes[] = {2, 1, 3, 4};
  const int64_t contiguous[] = {12, 12, 4, 1};
  aoti::shims::CopyPlan flat = planCopy(sizes, contiguous, contiguous);
  EXPECT_EQ(flat.sizes, (std::vector<int64_t>{24}));
  EXPECT_EQ(flat.dstStrides, (std::vector<int64_t>{1}));

  const int64_t transposedLast[] = {12, 12, 1, 3};
  aoti::shims::CopyPlan mixed = planCopy(sizes, contiguous, transposedLast);
  EXPECT_EQ(mixed.sizes, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(mixed.srcStrides, (std::vector<int64_t>{12, 1, 3}));

  const int64_t scalarSizes[] = {1, 1};
  const int64_t any[] = {5, 9};
  aoti::shims::CopyPlan scalar = planCopy(scalarSizes, any, any);
  EXPECT_EQ(scalar.numel(), 1);
}

} // namespace
