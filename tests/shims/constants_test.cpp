//===- constants_test.cpp - Every constant getter returns c10's value ------===//
#include "shims_test_util.h"

namespace {

TEST(ShimConstants, DeviceTypes) {
  EXPECT_EQ(aoti_torch_device_type_cpu(), 0);
  EXPECT_EQ(aoti_torch_device_type_cuda(), 1);
  EXPECT_EQ(aoti_torch_device_type_xpu(), 12);
  EXPECT_EQ(aoti_torch_device_type_mps(), 13);
  EXPECT_EQ(aoti_torch_device_type_meta(), 14);
  EXPECT_EQ(aoti_torch_device_type_privateuse1(), 20);
}

TEST(ShimConstants, Dtypes) {
  EXPECT_EQ(aoti_torch_dtype_uint8(), 0);
  EXPECT_EQ(aoti_torch_dtype_int8(), 1);
  EXPECT_EQ(aoti_torch_dtype_int16(), 2);
  EXPECT_EQ(aoti_torch_dtype_int32(), 3);
  EXPECT_EQ(aoti_torch_dtype_int64(), 4);
  EXPECT_EQ(aoti_torch_dtype_float16(), 5);
  EXPECT_EQ(aoti_torch_dtype_float32(), 6);
  EXPECT_EQ(aoti_torch_dtype_float64(), 7);
  EXPECT_EQ(aoti_torch_dtype_complex32(), 8);
  EXPECT_EQ(aoti_torch_dtype_complex64(), 9);
  EXPECT_EQ(aoti_torch_dtype_complex128(), 10);
  EXPECT_EQ(aoti_torch_dtype_bool(), 11);
  EXPECT_EQ(aoti_torch_dtype_bfloat16(), 15);
  EXPECT_EQ(aoti_torch_dtype_float8_e5m2(), 23);
  EXPECT_EQ(aoti_torch_dtype_float8_e4m3fn(), 24);
  EXPECT_EQ(aoti_torch_dtype_float8_e5m2fnuz(), 25);
  EXPECT_EQ(aoti_torch_dtype_float8_e4m3fnuz(), 26);
  EXPECT_EQ(aoti_torch_dtype_uint16(), 27);
  EXPECT_EQ(aoti_torch_dtype_uint32(), 28);
  EXPECT_EQ(aoti_torch_dtype_uint64(), 29);
}

TEST(ShimConstants, Layouts) {
  EXPECT_EQ(aoti_torch_layout_strided(), 0);
  EXPECT_EQ(aoti_torch_layout_sparse_coo(), 1);
  EXPECT_EQ(aoti_torch_layout_sparse_csr(), 2);
  EXPECT_EQ(aoti_torch_layout__mkldnn(), 3);
  EXPECT_EQ(aoti_torch_layout_sparse_csc(), 4);
  EXPECT_EQ(aoti_torch_layout_sparse_bsr(), 5);
  EXPECT_EQ(aoti_torch_layout_sparse_bsc(), 6);
  EXPECT_EQ(aoti_torch_layout_jagged(), 7);
}

TEST(ShimConstants, ElementSizes) {
  const std::pair<int32_t, size_t> expected[] = {
      {aoti_torch_dtype_uint8(), 1},        {aoti_torch_dtype_int8(), 1},
      {aoti_torch_dtype_int16(), 2},        {aoti_torch_dtype_int32(), 4},
      {aoti_torch_dtype_int64(), 8},        {aoti_torch_dtype_float16(), 2},
      {aoti_torch_dtype_float32(), 4},      {aoti_torch_dtype_float64(), 8},
      {aoti_torch_dtype_complex32(), 4},    {aoti_torch_dtype_complex64(), 8},
      {aoti_torch_dtype_complex128(), 16},  {aoti_torch_dtype_bool(), 1},
      {aoti_torch_dtype_bfloat16(), 2},     {aoti_torch_dtype_float8_e5m2(), 1},
      {aoti_torch_dtype_float8_e4m3fn(), 1}, {aoti_torch_dtype_float8_e5m2fnuz(), 1},
      {aoti_torch_dtype_float8_e4m3fnuz(), 1}, {aoti_torch_dtype_uint16(), 2},
      {aoti_torch_dtype_uint32(), 4},       {aoti_torch_dtype_uint64(), 8},
  };
  for (const auto &[dtype, size] : expected)
    EXPECT_EQ(aoti_torch_dtype_element_size(dtype), size) << "dtype " << dtype;
}

TEST(ShimConstants, ElementSizeOfUnsupportedDtypeIsZeroWithError) {
  // 12 is c10's QInt8: quantized dtypes are not supported.
  for (int32_t dtype : {-1, 12, 13, 16, 22, 30, 1000}) {
    aoti_shims_clear_last_error();
    EXPECT_EQ(aoti_torch_dtype_element_size(dtype), 0u) << "dtype " << dtype;
    EXPECT_NE(std::string(aoti_shims_last_error()).find("unsupported dtype"),
              std::string::npos);
  }
}

} // namespace
