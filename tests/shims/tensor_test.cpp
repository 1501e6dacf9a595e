//===- tensor_test.cpp - Creating, viewing and inspecting CPU tensors ------===//
#include "shims_test_util.h"

#include "tensor.h" // internals: Storage, for ownership checks

#include <cstring>
#include <numeric>

using aoti::test::TensorHandle;
using aoti::test::dataOf;
using aoti::test::emptyCpu;
using aoti::test::sizesOf;
using aoti::test::stridesOf;

namespace {

const aoti::shims::Storage &storageOf(AtenTensorHandle handle) {
  return *reinterpret_cast<aoti::shims::Tensor *>(handle)->storage();
}

long storageUseCount(AtenTensorHandle handle) {
  return reinterpret_cast<aoti::shims::Tensor *>(handle)->storage().use_count();
}

TEST(ShimTensor, EmptyStridedHasTheRequestedLayout) {
  TensorHandle t = emptyCpu({2, 3, 4}, {12, 4, 1}, aoti_torch_dtype_float32());
  EXPECT_EQ(sizesOf(t), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(stridesOf(t), (std::vector<int64_t>{12, 4, 1}));
  int64_t value = -1;
  int32_t small = -1;
  bool flag = false;
  EXPECT_SHIM_OK(aoti_torch_get_dim(t.get(), &value));
  EXPECT_EQ(value, 3);
  EXPECT_SHIM_OK(aoti_torch_get_numel(t.get(), &value));
  EXPECT_EQ(value, 24);
  EXPECT_SHIM_OK(aoti_torch_get_storage_offset(t.get(), &value));
  EXPECT_EQ(value, 0);
  EXPECT_SHIM_OK(aoti_torch_get_storage_size(t.get(), &value));
  EXPECT_EQ(value, 24 * 4);
  EXPECT_SHIM_OK(aoti_torch_get_storage_numel(t.get(), &value));
  EXPECT_EQ(value, 24);
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &small));
  EXPECT_EQ(small, aoti_torch_dtype_float32());
  EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &small));
  EXPECT_EQ(small, aoti_torch_device_type_cpu());
  EXPECT_SHIM_OK(aoti_torch_get_device_index(t.get(), &small));
  EXPECT_EQ(small, 0);
  EXPECT_SHIM_OK(aoti_torch_get_layout(t.get(), &small));
  EXPECT_EQ(small, aoti_torch_layout_strided());
  EXPECT_SHIM_OK(aoti_torch_is_contiguous(t.get(), &flag));
  EXPECT_TRUE(flag);
  EXPECT_SHIM_OK(aoti_torch_is_defined(t.get(), &flag));
  EXPECT_TRUE(flag);
  EXPECT_TRUE(storageOf(t.get()).owning());
}

TEST(ShimTensor, EmptyStridedAllocatesTheStridedExtent) {
  // A transposed 3x5 float64 view of 5 rows of 8 (padding of 3 per row):
  // the last element is at 2*1 + 4*8 = 34, so 35 elements.
  TensorHandle t = emptyCpu({3, 5}, {1, 8}, aoti_torch_dtype_float64());
  int64_t bytes = 0;
  EXPECT_SHIM_OK(aoti_torch_get_storage_size(t.get(), &bytes));
  EXPECT_EQ(bytes, 35 * 8);
  bool contiguous = true;
  EXPECT_SHIM_OK(aoti_torch_is_contiguous(t.get(), &contiguous));
  EXPECT_FALSE(contiguous);
}

TEST(ShimTensor, HostMemoryIsAlignedAndWritable) {
  TensorHandle t = emptyCpu({1000}, {1}, aoti_torch_dtype_uint8());
  auto *data = dataOf<uint8_t>(t);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  std::memset(data, 0xab, 1000);
  EXPECT_EQ(data[999], 0xab);
}

TEST(ShimTensor, AllDataPointerGettersAgree) {
  TensorHandle base = emptyCpu({8}, {1}, aoti_torch_dtype_int64());
  const int64_t sizes[] = {4};
  const int64_t strides[] = {1};
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 1, sizes, strides,
                                                3, view.out()));
  void *data = nullptr;
  void *mutableData = nullptr;
  const void *constData = nullptr;
  EXPECT_SHIM_OK(aoti_torch_get_data_ptr(view.get(), &data));
  EXPECT_SHIM_OK(aoti_torch_get_mutable_data_ptr(view.get(), &mutableData));
  EXPECT_SHIM_OK(aoti_torch_get_const_data_ptr(view.get(), &constData));
  EXPECT_EQ(data, dataOf<int64_t>(base) + 3);
  EXPECT_EQ(mutableData, data);
  EXPECT_EQ(constData, data);
}

TEST(ShimTensor, NullStridesMeanContiguous) {
  const int64_t sizes[] = {2, 3, 4};
  TensorHandle t;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(3, sizes, nullptr,
                                          aoti_torch_dtype_int32(), 0, 0,
                                          t.out()));
  EXPECT_EQ(stridesOf(t), (std::vector<int64_t>{12, 4, 1}));
}

TEST(ShimTensor, ZeroDimensionalTensorHasNonNullSizesAndOneElement) {
  TensorHandle t;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(0, nullptr, nullptr,
                                          aoti_torch_dtype_float32(), 0, -1,
                                          t.out()));
  int64_t *sizes = nullptr;
  int64_t *strides = nullptr;
  int64_t numel = 0;
  EXPECT_SHIM_OK(aoti_torch_get_sizes(t.get(), &sizes));
  EXPECT_SHIM_OK(aoti_torch_get_strides(t.get(), &strides));
  EXPECT_SHIM_OK(aoti_torch_get_numel(t.get(), &numel));
  EXPECT_NE(sizes, nullptr);
  EXPECT_NE(strides, nullptr);
  EXPECT_EQ(numel, 1);
  int32_t index = 0;
  EXPECT_SHIM_OK(aoti_torch_get_device_index(t.get(), &index));
  EXPECT_EQ(index, -1);
}

TEST(ShimTensor, EmptyTensorHasNoStorage) {
  TensorHandle t = emptyCpu({4, 0, 3}, {0, 3, 1}, aoti_torch_dtype_float32());
  int64_t bytes = -1;
  int64_t numel = -1;
  EXPECT_SHIM_OK(aoti_torch_get_storage_size(t.get(), &bytes));
  EXPECT_SHIM_OK(aoti_torch_get_numel(t.get(), &numel));
  EXPECT_EQ(bytes, 0);
  EXPECT_EQ(numel, 0);
  bool contiguous = false;
  EXPECT_SHIM_OK(aoti_torch_is_contiguous(t.get(), &contiguous));
  EXPECT_TRUE(contiguous);
}

TEST(ShimTensor, SizesAndStridesPointersStayPutWhileTheHandleLives) {
  TensorHandle t = emptyCpu({2, 3}, {3, 1}, aoti_torch_dtype_float32());
  int64_t *sizes = nullptr;
  int64_t *strides = nullptr;
  ASSERT_SHIM_OK(aoti_torch_get_sizes(t.get(), &sizes));
  ASSERT_SHIM_OK(aoti_torch_get_strides(t.get(), &strides));
  // Make and drop other handles and views; the pointers must not move.
  for (int i = 0; i < 10; ++i) {
    TensorHandle view;
    ASSERT_SHIM_OK(aoti_torch_new_tensor_handle(t.get(), view.out()));
    TensorHandle other = emptyCpu({7, 7, 7}, {49, 7, 1},
                                  aoti_torch_dtype_float32());
    int64_t *again = nullptr;
    ASSERT_SHIM_OK(aoti_torch_get_sizes(t.get(), &again));
    EXPECT_EQ(again, sizes);
    ASSERT_SHIM_OK(aoti_torch_get_strides(t.get(), &again));
    EXPECT_EQ(again, strides);
  }
  EXPECT_EQ(sizes[0], 2);
  EXPECT_EQ(sizes[1], 3);
  EXPECT_EQ(strides[0], 3);
  EXPECT_EQ(strides[1], 1);
}

TEST(ShimTensor, GetSizeAndStrideAcceptNegativeDimensions) {
  TensorHandle t = emptyCpu({2, 3, 4}, {12, 4, 1}, aoti_torch_dtype_float32());
  int64_t value = 0;
  EXPECT_SHIM_OK(aoti_torch_get_size(t.get(), 0, &value));
  EXPECT_EQ(value, 2);
  EXPECT_SHIM_OK(aoti_torch_get_size(t.get(), -1, &value));
  EXPECT_EQ(value, 4);
  EXPECT_SHIM_OK(aoti_torch_get_stride(t.get(), 1, &value));
  EXPECT_EQ(value, 4);
  EXPECT_SHIM_OK(aoti_torch_get_stride(t.get(), -3, &value));
  EXPECT_EQ(value, 12);
}

TEST(ShimTensor, FromBlobBorrowsAndAddsTheOffsetToTheDataPointer) {
  std::vector<float> buffer(20);
  std::iota(buffer.begin(), buffer.end(), 0.0f);
  const int64_t sizes[] = {2, 3};
  const int64_t strides[] = {3, 1};
  {
    TensorHandle t;
    ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
        buffer.data(), 2, sizes, strides, /*storage_offset=*/5,
        aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, t.out()));
    EXPECT_EQ(dataOf<float>(t), buffer.data() + 5);
    EXPECT_EQ(*dataOf<float>(t), 5.0f);
    int64_t value = 0;
    EXPECT_SHIM_OK(aoti_torch_get_storage_offset(t.get(), &value));
    EXPECT_EQ(value, 5);
    EXPECT_SHIM_OK(aoti_torch_get_storage_size(t.get(), &value));
    EXPECT_EQ(value, (5 + 6) * 4);
    EXPECT_FALSE(storageOf(t.get()).owning());
  }
  // Deleting the handle must not have freed or touched the buffer.
  EXPECT_EQ(buffer[5], 5.0f);
  buffer[0] = 42.0f;
}

TEST(ShimTensor, FromBlobV2BorrowsToo) {
  std::vector<int64_t> buffer(6, 7);
  const int64_t sizes[] = {6};
  const int64_t strides[] = {1};
  TensorHandle t;
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob_v2(
      buffer.data(), 1, sizes, strides, 0, aoti_torch_dtype_int64(),
      aoti_torch_device_type_cpu(), 0, t.out(), aoti_torch_layout_strided(),
      nullptr, 0));
  EXPECT_EQ(dataOf<int64_t>(t), buffer.data());
  EXPECT_FALSE(storageOf(t.get()).owning());
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch_new_tensor_handle(t.get(), view.out()));
  t.reset();
  view.reset();
  EXPECT_EQ(buffer[5], 7);
}

TEST(ShimTensor, ViewKeepsOwnedStorageAliveAfterTheOriginalIsDeleted) {
  TensorHandle original = emptyCpu({4, 4}, {4, 1}, aoti_torch_dtype_int32());
  int32_t *data = dataOf<int32_t>(original);
  for (int i = 0; i < 16; ++i)
    data[i] = i;
  TensorHandle copy, assigned, view;
  ASSERT_SHIM_OK(aoti_torch_new_tensor_handle(original.get(), copy.out()));
  ASSERT_SHIM_OK(aoti_torch_assign_tensors_out(original.get(), assigned.out()));
  const int64_t sizes[] = {2};
  const int64_t strides[] = {4};
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(original.get(), 1, sizes,
                                                strides, 5, view.out()));
  EXPECT_EQ(storageUseCount(original.get()), 4);
  original.reset();
  EXPECT_EQ(storageUseCount(view.get()), 3);
  copy.reset();
  assigned.reset();
  EXPECT_EQ(storageUseCount(view.get()), 1);
  // Still readable: elements 5 and 9 of the original.
  EXPECT_EQ(dataOf<int32_t>(view)[0], 5);
  EXPECT_EQ(dataOf<int32_t>(view)[4], 9);
}

// Counts calls of a Storage deleter.
int releasedCount = 0;
void countRelease(void *, size_t, aoti::shims::Device) noexcept { ++releasedCount; }

TEST(ShimTensor, OwnedStorageIsReleasedExactlyOnceWithTheLastHandle) {
  using namespace aoti::shims;
  releasedCount = 0;
  alignas(8) static float memory[16];
  const int64_t sizes[] = {16};
  const int64_t strides[] = {1};
  Expected<Tensor> tensor =
      Tensor::make(std::make_shared<Storage>(memory, sizeof(memory), Device{},
                                             &countRelease),
                   ScalarType::Float32, sizes, strides, 0);
  ASSERT_TRUE(static_cast<bool>(tensor));
  AtenTensorHandle first = toHandle(std::move(*tensor));
  AtenTensorHandle second = nullptr;
  AtenTensorHandle view = nullptr;
  ASSERT_SHIM_OK(aoti_torch_new_tensor_handle(first, &second));
  const int64_t viewSizes[] = {4};
  ASSERT_SHIM_OK(aoti_torch_as_strided(first, viewSizes, strides, &view));
  ASSERT_SHIM_OK(aoti_torch_delete_tensor_object(first));
  ASSERT_SHIM_OK(aoti_torch_delete_tensor_object(second));
  EXPECT_EQ(releasedCount, 0);
  ASSERT_SHIM_OK(aoti_torch_delete_tensor_object(view));
  EXPECT_EQ(releasedCount, 1);
}

TEST(ShimTensor, ReinterpretAddsItsOffsetToTheTensorsOwn) {
  TensorHandle base = emptyCpu({100}, {1}, aoti_torch_dtype_float32());
  float *data = dataOf<float>(base);
  for (int i = 0; i < 100; ++i)
    data[i] = static_cast<float>(i);
  const int64_t sizes[] = {50};
  const int64_t strides[] = {1};
  TensorHandle first, second;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 1, sizes, strides,
                                                10, first.out()));
  const int64_t sizes2[] = {2, 3};
  const int64_t strides2[] = {3, 1};
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(first.get(), 2, sizes2,
                                                strides2, 7, second.out()));
  int64_t offset = 0;
  EXPECT_SHIM_OK(aoti_torch_get_storage_offset(second.get(), &offset));
  EXPECT_EQ(offset, 17);
  EXPECT_EQ(dataOf<float>(second), data + 17);
  EXPECT_EQ(dataOf<float>(second)[0], 17.0f);
  EXPECT_EQ(sizesOf(second), (std::vector<int64_t>{2, 3}));
}

TEST(ShimTensor, ReinterpretOutsideTheStorageFails) {
  TensorHandle base = emptyCpu({10}, {1}, aoti_torch_dtype_float32());
  const int64_t sizes[] = {5};
  const int64_t strides[] = {1};
  TensorHandle view;
  EXPECT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 1, sizes, strides,
                                                5, view.out()));
  EXPECT_SHIM_FAILS(aoti_torch__reinterpret_tensor(base.get(), 1, sizes,
                                                   strides, 6, view.out()),
                    "bytes of storage");
  EXPECT_SHIM_FAILS(aoti_torch__reinterpret_tensor(base.get(), 1, sizes,
                                                   strides, -1, view.out()),
                    "negative");
}

TEST(ShimTensor, AsStridedKeepsTheOffset) {
  TensorHandle base = emptyCpu({12}, {1}, aoti_torch_dtype_int16());
  const int64_t sizes[] = {4};
  const int64_t strides[] = {1};
  TensorHandle shifted;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 1, sizes, strides,
                                                2, shifted.out()));
  const int64_t newSizes[] = {3};
  const int64_t newStrides[] = {3};
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch_as_strided(shifted.get(), newSizes, newStrides,
                                       view.out()));
  int64_t offset = 0;
  EXPECT_SHIM_OK(aoti_torch_get_storage_offset(view.get(), &offset));
  EXPECT_EQ(offset, 2);
  EXPECT_EQ(stridesOf(view), (std::vector<int64_t>{3}));
}

TEST(ShimTensor, AllocFromPoolReinterpretsBytes) {
  TensorHandle pool = emptyCpu({64}, {1}, aoti_torch_dtype_uint8());
  const int64_t sizes[] = {2, 2};
  const int64_t strides[] = {2, 1};
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch__alloc_from_pool(pool.get(), 16,
                                             aoti_torch_dtype_float32(), 2,
                                             sizes, strides, view.out()));
  EXPECT_EQ(dataOf<uint8_t>(view), dataOf<uint8_t>(pool) + 16);
  int64_t offset = 0;
  EXPECT_SHIM_OK(aoti_torch_get_storage_offset(view.get(), &offset));
  EXPECT_EQ(offset, 4);
  int32_t dtype = 0;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(view.get(), &dtype));
  EXPECT_EQ(dtype, aoti_torch_dtype_float32());
  EXPECT_SHIM_FAILS(aoti_torch__alloc_from_pool(pool.get(), 2,
                                                aoti_torch_dtype_float32(), 2,
                                                sizes, strides, view.out()),
                    "not a multiple");
}

TEST(ShimTensor, AssignTensorsMakesDstAViewOfSrc) {
  TensorHandle src = emptyCpu({3}, {1}, aoti_torch_dtype_float32());
  TensorHandle dst = emptyCpu({5, 5}, {5, 1}, aoti_torch_dtype_int64());
  ASSERT_SHIM_OK(aoti_torch_assign_tensors(src.get(), dst.get()));
  EXPECT_EQ(dataOf<float>(dst), dataOf<float>(src));
  EXPECT_EQ(sizesOf(dst), (std::vector<int64_t>{3}));
  EXPECT_EQ(storageUseCount(src.get()), 2);
}

TEST(ShimTensor, ScalarToTensorMakesZeroDimensionalCpuTensors) {
  TensorHandle f, i, b;
  ASSERT_SHIM_OK(aoti_torch_scalar_to_tensor_float32(2.5f, f.out()));
  ASSERT_SHIM_OK(aoti_torch_scalar_to_tensor_int64(-7, i.out()));
  ASSERT_SHIM_OK(aoti_torch_scalar_to_tensor_bool(true, b.out()));
  float fv = 0;
  int64_t iv = 0;
  bool bv = false;
  EXPECT_SHIM_OK(aoti_torch_item_float32(f.get(), &fv));
  EXPECT_SHIM_OK(aoti_torch_item_int64(i.get(), &iv));
  EXPECT_SHIM_OK(aoti_torch_item_bool(b.get(), &bv));
  EXPECT_EQ(fv, 2.5f);
  EXPECT_EQ(iv, -7);
  EXPECT_TRUE(bv);
  int64_t dim = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dim(f.get(), &dim));
  EXPECT_EQ(dim, 0);
}

template <typename T>
void checkItem(int32_t dtype, T value,
               AOTITorchError (*item)(AtenTensorHandle, T *)) {
  TensorHandle t = emptyCpu({1, 1}, {1, 1}, dtype);
  std::memcpy(dataOf<T>(t), &value, sizeof(T));
  T out{};
  EXPECT_SHIM_OK(item(t.get(), &out));
  EXPECT_EQ(std::memcmp(&out, &value, sizeof(T)), 0) << "dtype " << dtype;
}

TEST(ShimTensor, ItemReadsEverySupportedDtype) {
  checkItem<uint16_t>(aoti_torch_dtype_float16(), 0x3c00,
                      aoti_torch_item_float16);
  checkItem<uint16_t>(aoti_torch_dtype_bfloat16(), 0x3f80,
                      aoti_torch_item_bfloat16);
  checkItem<float>(aoti_torch_dtype_float32(), 1.5f, aoti_torch_item_float32);
  checkItem<double>(aoti_torch_dtype_float64(), -2.25, aoti_torch_item_float64);
  checkItem<uint8_t>(aoti_torch_dtype_uint8(), 200, aoti_torch_item_uint8);
  checkItem<uint16_t>(aoti_torch_dtype_uint16(), 60000, aoti_torch_item_uint16);
  checkItem<uint32_t>(aoti_torch_dtype_uint32(), 4000000000u,
                      aoti_torch_item_uint32);
  checkItem<uint64_t>(aoti_torch_dtype_uint64(), 1ull << 63,
                      aoti_torch_item_uint64);
  checkItem<int8_t>(aoti_torch_dtype_int8(), -100, aoti_torch_item_int8);
  checkItem<int16_t>(aoti_torch_dtype_int16(), -30000, aoti_torch_item_int16);
  checkItem<int32_t>(aoti_torch_dtype_int32(), -2000000000,
                     aoti_torch_item_int32);
  checkItem<int64_t>(aoti_torch_dtype_int64(), -(1ll << 40),
                     aoti_torch_item_int64);
  checkItem<bool>(aoti_torch_dtype_bool(), true, aoti_torch_item_bool);
  checkItem<AotiComplex64>(aoti_torch_dtype_complex64(), AotiComplex64{1, -2},
                           aoti_torch_item_complex64);
}

TEST(ShimTensor, ItemNeedsOneElementOfTheNamedDtype) {
  TensorHandle two = emptyCpu({2}, {1}, aoti_torch_dtype_float32());
  TensorHandle one = emptyCpu({1}, {1}, aoti_torch_dtype_float32());
  float f = 0;
  double d = 0;
  EXPECT_SHIM_FAILS(aoti_torch_item_float32(two.get(), &f), "one element");
  EXPECT_SHIM_FAILS(aoti_torch_item_float64(one.get(), &d),
                    "dtype float32, not float64");
  EXPECT_SHIM_FAILS(aoti_torch_item_float32(one.get(), nullptr), "null");
}

} // namespace
