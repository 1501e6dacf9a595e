//===- errors_test.cpp - Every bad call fails cleanly with a message -------===//
#include "shims_test_util.h"

#include <functional>
#include <thread>

using aoti::test::TensorHandle;
using aoti::test::emptyCpu;

namespace {

struct NamedCall {
  const char *name;
  std::function<AOTITorchError()> call;
};

TEST(ShimErrors, EveryShimRejectsANullTensorHandle) {
  void *ptr = nullptr;
  const void *cptr = nullptr;
  int64_t i64 = 0;
  int64_t *p64 = nullptr;
  int32_t i32 = 0;
  bool flag = false;
  float f = 0;
  AtenTensorHandle out = nullptr;
  TensorHandle valid = emptyCpu({1}, {1}, aoti_torch_dtype_float32());
  const int64_t sizes[] = {1};
  const int64_t strides[] = {1};
  AtenTensorHandle v = valid.get();
  const std::vector<NamedCall> calls = {
      {"delete", [&] { return aoti_torch_delete_tensor_object(nullptr); }},
      {"new_handle", [&] { return aoti_torch_new_tensor_handle(nullptr, &out); }},
      {"assign_out", [&] { return aoti_torch_assign_tensors_out(nullptr, &out); }},
      {"assign src", [&] { return aoti_torch_assign_tensors(nullptr, v); }},
      {"assign dst", [&] { return aoti_torch_assign_tensors(v, nullptr); }},
      {"reinterpret", [&] { return aoti_torch__reinterpret_tensor(nullptr, 1, sizes, strides, 0, &out); }},
      {"as_strided", [&] { return aoti_torch_as_strided(nullptr, sizes, strides, &out); }},
      {"alloc_from_pool", [&] { return aoti_torch__alloc_from_pool(nullptr, 0, 6, 1, sizes, strides, &out); }},
      {"data_ptr", [&] { return aoti_torch_get_data_ptr(nullptr, &ptr); }},
      {"mutable_data_ptr", [&] { return aoti_torch_get_mutable_data_ptr(nullptr, &ptr); }},
      {"const_data_ptr", [&] { return aoti_torch_get_const_data_ptr(nullptr, &cptr); }},
      {"storage_size", [&] { return aoti_torch_get_storage_size(nullptr, &i64); }},
      {"storage_numel", [&] { return aoti_torch_get_storage_numel(nullptr, &i64); }},
      {"storage_offset", [&] { return aoti_torch_get_storage_offset(nullptr, &i64); }},
      {"dim", [&] { return aoti_torch_get_dim(nullptr, &i64); }},
      {"numel", [&] { return aoti_torch_get_numel(nullptr, &i64); }},
      {"sizes", [&] { return aoti_torch_get_sizes(nullptr, &p64); }},
      {"strides", [&] { return aoti_torch_get_strides(nullptr, &p64); }},
      {"size", [&] { return aoti_torch_get_size(nullptr, 0, &i64); }},
      {"stride", [&] { return aoti_torch_get_stride(nullptr, 0, &i64); }},
      {"dtype", [&] { return aoti_torch_get_dtype(nullptr, &i32); }},
      {"device_type", [&] { return aoti_torch_get_device_type(nullptr, &i32); }},
      {"device_index", [&] { return aoti_torch_get_device_index(nullptr, &i32); }},
      {"layout", [&] { return aoti_torch_get_layout(nullptr, &i32); }},
      {"is_contiguous", [&] { return aoti_torch_is_contiguous(nullptr, &flag); }},
      {"is_defined", [&] { return aoti_torch_is_defined(nullptr, &flag); }},
      {"item", [&] { return aoti_torch_item_float32(nullptr, &f); }},
      {"clone", [&] { return aoti_torch_clone(nullptr, &out); }},
      {"clone_preserve_strides", [&] { return aoti_torch_clone_preserve_strides(nullptr, &out); }},
      {"copy_ self", [&] { return aoti_torch_copy_(nullptr, v, 0); }},
      {"copy_ src", [&] { return aoti_torch_copy_(v, nullptr, 0); }},
      {"tensor_copy_", [&] { return aoti_torch_tensor_copy_(nullptr, v); }},
      {"mm out", [&] { return aoti_torch_cuda_mm_out(nullptr, v, v); }},
      {"mm self", [&] { return aoti_torch_cuda_mm_out(v, nullptr, v); }},
      {"mm mat2", [&] { return aoti_torch_cuda_mm_out(v, v, nullptr); }},
      {"addmm self", [&] { return aoti_torch_cuda_addmm_out(v, nullptr, v, v, 1, 1); }},
      {"addmm mat1", [&] { return aoti_torch_cuda_addmm_out(v, v, nullptr, v, 1, 1); }},
      {"bmm", [&] { return aoti_torch_cuda_bmm_out(v, v, nullptr); }},
  };
  for (const NamedCall &c : calls) {
    aoti_shims_clear_last_error();
    EXPECT_NE(c.call(), AOTI_TORCH_SUCCESS) << c.name;
    EXPECT_NE(std::string(aoti_shims_last_error()).find("is null"),
              std::string::npos)
        << c.name << ": " << aoti_shims_last_error();
  }
  EXPECT_EQ(out, nullptr);
}

TEST(ShimErrors, EveryShimRejectsANullOutputPointer) {
  TensorHandle t = emptyCpu({2}, {1}, aoti_torch_dtype_float32());
  AtenTensorHandle h = t.get();
  const int64_t sizes[] = {2};
  const int64_t strides[] = {1};
  float blob[2];
  const std::vector<NamedCall> calls = {
      {"empty_strided", [&] { return aoti_torch_empty_strided(1, sizes, strides, 6, 0, 0, nullptr); }},
      {"from_blob", [&] { return aoti_torch_create_tensor_from_blob(blob, 1, sizes, strides, 0, 6, 0, 0, nullptr); }},
      {"from_blob_v2", [&] { return aoti_torch_create_tensor_from_blob_v2(blob, 1, sizes, strides, 0, 6, 0, 0, nullptr, 0, nullptr, 0); }},
      {"scalar_to_tensor", [&] { return aoti_torch_scalar_to_tensor_float32(1.0f, nullptr); }},
      {"new_handle", [&] { return aoti_torch_new_tensor_handle(h, nullptr); }},
      {"assign_out", [&] { return aoti_torch_assign_tensors_out(h, nullptr); }},
      {"reinterpret", [&] { return aoti_torch__reinterpret_tensor(h, 1, sizes, strides, 0, nullptr); }},
      {"as_strided", [&] { return aoti_torch_as_strided(h, sizes, strides, nullptr); }},
      {"alloc_from_pool", [&] { return aoti_torch__alloc_from_pool(h, 0, 6, 1, sizes, strides, nullptr); }},
      {"data_ptr", [&] { return aoti_torch_get_data_ptr(h, nullptr); }},
      {"const_data_ptr", [&] { return aoti_torch_get_const_data_ptr(h, nullptr); }},
      {"storage_size", [&] { return aoti_torch_get_storage_size(h, nullptr); }},
      {"storage_offset", [&] { return aoti_torch_get_storage_offset(h, nullptr); }},
      {"dim", [&] { return aoti_torch_get_dim(h, nullptr); }},
      {"numel", [&] { return aoti_torch_get_numel(h, nullptr); }},
      {"sizes", [&] { return aoti_torch_get_sizes(h, nullptr); }},
      {"strides", [&] { return aoti_torch_get_strides(h, nullptr); }},
      {"size", [&] { return aoti_torch_get_size(h, 0, nullptr); }},
      {"dtype", [&] { return aoti_torch_get_dtype(h, nullptr); }},
      {"device_type", [&] { return aoti_torch_get_device_type(h, nullptr); }},
      {"device_index", [&] { return aoti_torch_get_device_index(h, nullptr); }},
      {"layout", [&] { return aoti_torch_get_layout(h, nullptr); }},
      {"is_contiguous", [&] { return aoti_torch_is_contiguous(h, nullptr); }},
      {"clone", [&] { return aoti_torch_clone(h, nullptr); }},
      {"clone_preserve_strides", [&] { return aoti_torch_clone_preserve_strides(h, nullptr); }},
      {"create_cuda_guard", [&] { return aoti_torch_create_cuda_guard(0, nullptr); }},
      {"create_cuda_stream_guard", [&] { return aoti_torch_create_cuda_stream_guard(nullptr, 0, nullptr); }},
      {"get_current_cuda_stream", [&] { return aoti_torch_get_current_cuda_stream(0, nullptr); }},
  };
  for (const NamedCall &c : calls) {
    aoti_shims_clear_last_error();
    EXPECT_NE(c.call(), AOTI_TORCH_SUCCESS) << c.name;
    EXPECT_NE(std::string(aoti_shims_last_error()).find("is null"),
              std::string::npos)
        << c.name << ": " << aoti_shims_last_error();
  }
}

TEST(ShimErrors, BadShapesAreRejected) {
  AtenTensorHandle out = nullptr;
  const int64_t negativeSize[] = {2, -1};
  const int64_t negativeStride[] = {-1, 1};
  const int64_t ok[] = {2, 2};
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(2, negativeSize, ok, 6, 0, 0, &out),
                    "is negative");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(2, ok, negativeStride, 6, 0, 0, &out),
                    "is negative");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(-1, ok, ok, 6, 0, 0, &out),
                    "out of range");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(1000, ok, ok, 6, 0, 0, &out),
                    "out of range");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(2, nullptr, ok, 6, 0, 0, &out),
                    "sizes pointer is null");
  const int64_t huge[] = {int64_t{1} << 62, int64_t{1} << 62};
  const int64_t hugeStrides[] = {int64_t{1} << 62, 1};
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(2, huge, hugeStrides, 6, 0, 0, &out),
                    "overflows");
  EXPECT_EQ(out, nullptr);
}

TEST(ShimErrors, AHostAllocationFailureIsAnErrorNotACrash) {
  const int64_t sizes[] = {int64_t{1} << 60};
  const int64_t strides[] = {1};
  AtenTensorHandle out = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(1, sizes, strides,
                                             aoti_torch_dtype_uint8(), 0, 0,
                                             &out),
                    "out of host memory");
  EXPECT_EQ(out, nullptr);
}

TEST(ShimErrors, UnsupportedDtypesDevicesAndLayoutsAreRejected) {
  const int64_t sizes[] = {2};
  const int64_t strides[] = {1};
  float blob[2];
  AtenTensorHandle out = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(1, sizes, strides, 12, 0, 0, &out),
                    "unsupported dtype 12");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(1, sizes, strides, 6,
                                             aoti_torch_device_type_meta(), 0,
                                             &out),
                    "unsupported device type 14");
  EXPECT_SHIM_FAILS(aoti_torch_empty_strided(1, sizes, strides, 6, 0, 1, &out),
                    "CPU device index must be -1 or 0");
  EXPECT_SHIM_FAILS(aoti_torch_create_tensor_from_blob_v2(
                        blob, 1, sizes, strides, 0, 6, 0, 0, &out,
                        aoti_torch_layout__mkldnn(), nullptr, 0),
                    "unsupported layout 3");
  EXPECT_SHIM_FAILS(aoti_torch_create_tensor_from_blob(nullptr, 1, sizes,
                                                       strides, 0, 6, 0, 0,
                                                       &out),
                    "data pointer is null");
  EXPECT_EQ(out, nullptr);
}

TEST(ShimErrors, OutOfRangeDimensionsAreRejected) {
  TensorHandle t = emptyCpu({2, 3}, {3, 1}, aoti_torch_dtype_float32());
  int64_t value = 0;
  EXPECT_SHIM_FAILS(aoti_torch_get_size(t.get(), 2, &value),
                    "dimension 2 out of range for a 2-d tensor");
  EXPECT_SHIM_FAILS(aoti_torch_get_stride(t.get(), -3, &value),
                    "dimension -3 out of range");
}

TEST(ShimErrors, CudaCallsFailCleanlyWithoutAUsableDevice) {
  // Index 1000 is out of range on any machine, with or without CUDA support
  // compiled in, and with or without a GPU.
  CUDAGuardHandle guard = nullptr;
  CUDAStreamGuardHandle streamGuard = nullptr;
  void *stream = nullptr;
  AtenTensorHandle out = nullptr;
  const int64_t sizes[] = {2};
  const int64_t strides[] = {1};
  const std::vector<NamedCall> calls = {
      {"create_cuda_guard", [&] { return aoti_torch_create_cuda_guard(1000, &guard); }},
      {"create_cuda_stream_guard", [&] { return aoti_torch_create_cuda_stream_guard(nullptr, 1000, &streamGuard); }},
      {"get_current_cuda_stream", [&] { return aoti_torch_get_current_cuda_stream(1000, &stream); }},
      {"empty_strided cuda", [&] { return aoti_torch_empty_strided(1, sizes, strides, 6, 1, 1000, &out); }},
      {"from_blob cuda", [&] { return aoti_torch_create_tensor_from_blob(&out, 1, sizes, strides, 0, 6, 1, 1000, &out); }},
      {"delete_cuda_guard null", [&] { return aoti_torch_delete_cuda_guard(nullptr); }},
      {"cuda_guard_set_index null", [&] { return aoti_torch_cuda_guard_set_index(nullptr, 0); }},
      {"delete_cuda_stream_guard null", [&] { return aoti_torch_delete_cuda_stream_guard(nullptr); }},
  };
  for (const NamedCall &c : calls) {
    aoti_shims_clear_last_error();
    EXPECT_NE(c.call(), AOTI_TORCH_SUCCESS) << c.name;
    EXPECT_STRNE(aoti_shims_last_error(), "") << c.name;
  }
  EXPECT_EQ(guard, nullptr);
  EXPECT_EQ(streamGuard, nullptr);
  EXPECT_EQ(out, nullptr);
}

TEST(ShimErrors, MatmulFallbacksNeedCudaTensorsOfAFloatDtype) {
  TensorHandle a = emptyCpu({2, 2}, {2, 1}, aoti_torch_dtype_float32());
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(a.get(), a.get(), a.get()),
                    "need CUDA tensors");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_addmm_out(a.get(), a.get(), a.get(),
                                              a.get(), 1.0, 1.0),
                    "need CUDA tensors");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_bmm_out(a.get(), a.get(), a.get()),
                    "need CUDA tensors");
}

TEST(ShimErrors, TheLastErrorIsPerThreadAndNamesTheShim) {
  aoti_shims_clear_last_error();
  EXPECT_STREQ(aoti_shims_last_error(), "");
  int64_t dim = 0;
  EXPECT_NE(aoti_torch_get_dim(nullptr, &dim), AOTI_TORCH_SUCCESS);
  const std::string mine = aoti_shims_last_error();
  EXPECT_EQ(mine.rfind("aoti_torch_get_dim: ", 0), 0u) << mine;

  std::string other = "unset";
  std::thread([&] { other = aoti_shims_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(mine, aoti_shims_last_error());

  // Success leaves the last error alone.
  TensorHandle t = emptyCpu({1}, {1}, aoti_torch_dtype_float32());
  EXPECT_SHIM_OK(aoti_torch_get_dim(t.get(), &dim));
  EXPECT_EQ(mine, aoti_shims_last_error());
}

TEST(ShimRuntime, GradModeIsPerThreadAndOnByDefault) {
  EXPECT_TRUE(aoti_torch_grad_mode_is_enabled());
  aoti_torch_grad_mode_set_enabled(false);
  EXPECT_FALSE(aoti_torch_grad_mode_is_enabled());
  bool inOtherThread = false;
  std::thread([&] { inOtherThread = aoti_torch_grad_mode_is_enabled(); }).join();
  EXPECT_TRUE(inOtherThread);
  aoti_torch_grad_mode_set_enabled(true);
  EXPECT_TRUE(aoti_torch_grad_mode_is_enabled());
}

TEST(ShimRuntime, WarnPrintsToStderr) {
  testing::internal::CaptureStderr();
  aoti_torch_warn("f", "model.cpp", 12, "careful");
  aoti_torch_warn(nullptr, nullptr, 0, nullptr);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Warning: careful (f at model.cpp:12)"), std::string::npos)
      << err;
}

TEST(ShimRuntime, AFailedCheckIsPrintedAndRecorded) {
  aoti_shims_clear_last_error();
  testing::internal::CaptureStderr();
  aoti_torch_check(true, "f", "model.cpp", 1, "never shown");
  EXPECT_STREQ(aoti_shims_last_error(), "");
  aoti_torch_check(false, "f", "model.cpp", 7, "sizes differ");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("sizes differ"), std::string::npos) << err;
  EXPECT_EQ(err.find("never shown"), std::string::npos) << err;
  EXPECT_NE(std::string(aoti_shims_last_error()).find("check failed: sizes differ"),
            std::string::npos);
}

TEST(ShimRuntime, HasCudaMatchesTheBuild) {
#ifdef AOTI_TEST_HAVE_CUDA
  EXPECT_EQ(aoti_shims_has_cuda(), 1);
#else
  EXPECT_EQ(aoti_shims_has_cuda(), 0);
#endif
}

} // namespace
