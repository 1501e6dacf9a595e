//===- cuda_test.cpp - The CUDA shims on a real GPU ------------------------===//
//
// Allocation, copies in every direction and layout, guards, streams and the
// cuBLAS fallbacks checked against a CPU reference, for float32, float16 and
// bfloat16. Every test skips (does not fail) when no CUDA device is visible.
// Every CUDA call made by the test itself is checked, with its error string.
//
// Run: build/bin/shims_cuda_test   (see docs/shims.md)
//
//===----------------------------------------------------------------------===//
#include "shims_test_util.h"
#include "cuda_test_util.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

using aoti::test::TensorHandle;
using aoti::test::emptyCpu;
using aoti::test::extentOf;
using aoti::test::sizesOf;
using aoti::test::stridesOf;

namespace {

constexpr int32_t kCuda = 1;

class ShimCuda : public aoti::test::CudaDeviceTest {};

// --- Host-side values in each dtype -----------------------------------------

struct DtypeInfo {
  int32_t code;
  size_t size;
  const char *name;
};

DtypeInfo float32() { return {aoti_torch_dtype_float32(), 4, "float32"}; }
DtypeInfo float16() { return {aoti_torch_dtype_float16(), 2, "float16"}; }
DtypeInfo bfloat16() { return {aoti_torch_dtype_bfloat16(), 2, "bfloat16"}; }

void encode(const DtypeInfo &type, float value, void *out) {
  if (type.size == 4) {
    std::memcpy(out, &value, 4);
  } else if (type.code == aoti_torch_dtype_float16()) {
    __half h = __float2half(value);
    std::memcpy(out, &h, 2);
  } else {
    __nv_bfloat16 b = __float2bfloat16(value);
    std::memcpy(out, &b, 2);
  }
}

float decode(const DtypeInfo &type, const void *in) {
  if (type.size == 4) {
    float value;
    std::memcpy(&value, in, 4);
    return value;
  }
  if (type.code == aoti_torch_dtype_float16()) {
    __half h;
    std::memcpy(&h, in, 2);
    return __half2float(h);
  }
  __nv_bfloat16 b;
  std::memcpy(&b, in, 2);
  return __bfloat162float(b);
}

int64_t numelOf(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

// Offset (in elements) of the row-major linear index `linear` under strides.
int64_t offsetOf(int64_t linear, const std::vector<int64_t> &sizes,
                 const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

// A CUDA tensor of `sizes`/`strides` holding `values` (row-major logical
// order), uploaded through aoti_torch_copy_ from a host tensor of the same
// layout (which exercises the strided host-to-device paths).
TensorHandle upload(const std::vector<float> &values,
                    const std::vector<int64_t> &sizes,
                    const std::vector<int64_t> &strides, const DtypeInfo &type) {
  const int64_t n = numelOf(sizes);
  EXPECT_EQ(static_cast<int64_t>(values.size()), n);
  std::vector<uint8_t> host(std::max<int64_t>(extentOf(sizes, strides), 1) *
                            type.size);
  for (int64_t i = 0; i < n; ++i)
    encode(type, values[i], host.data() + offsetOf(i, sizes, strides) * type.size);
  TensorHandle hostTensor;
  EXPECT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), static_cast<int64_t>(sizes.size()), sizes.data(),
      strides.data(), 0, type.code, 0, 0, hostTensor.out()));
  TensorHandle device;
  EXPECT_SHIM_OK(aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()),
                                          sizes.data(), strides.data(),
                                          type.code, kCuda, 0, device.out()));
  EXPECT_SHIM_OK(aoti_torch_copy_(device.get(), hostTensor.get(), 0));
  return device;
}

// The values of a CUDA tensor in row-major logical order, through copy_ into
// a contiguous host tensor (device-to-host with device-side compaction).
std::vector<float> download(const TensorHandle &device, const DtypeInfo &type) {
  const std::vector<int64_t> sizes = sizesOf(device);
  const int64_t n = numelOf(sizes);
  std::vector<uint8_t> host(std::max<int64_t>(n, 1) * type.size);
  TensorHandle hostTensor;
  EXPECT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), static_cast<int64_t>(sizes.size()), sizes.data(), nullptr, 0,
      type.code, 0, 0, hostTensor.out()));
  EXPECT_SHIM_OK(aoti_torch_copy_(hostTensor.get(), device.get(), 0));
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = decode(type, host.data() + i * type.size);
  return values;
}

// Values that are exact in every dtype tested (multiples of 1/4 in [-2, 2]),
// so products and sums are exact in float32 and only the output rounds.
std::vector<float> pattern(int64_t n, int seed) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(((i * 7 + seed * 13) % 17) - 8) / 4.0f;
  return values;
}

std::vector<int64_t> rowMajor(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

void expectClose(const std::vector<float> &actual,
                 const std::vector<double> &expected, const DtypeInfo &type,
                 const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  // Relative error of one rounding to the output type, plus a little.
  const double rel = type.code == aoti_torch_dtype_float32() ? 1e-6
                     : type.code == aoti_torch_dtype_float16() ? 1.0 / 1024
                                                               : 1.0 / 128;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double tolerance = std::abs(expected[i]) * rel + 1e-3;
    if (!(std::abs(actual[i] - expected[i]) <= tolerance) && reported++ < 5)
      ADD_FAILURE() << what << " [" << type.name << "] element " << i
                    << ": got " << actual[i] << ", expected " << expected[i];
  }
}

// --- Allocation --------------------------------------------------------------

TEST_F(ShimCuda, EmptyStridedAllocatesDeviceMemory) {
  const int64_t sizes[] = {3, 5};
  const int64_t strides[] = {1, 4}; // column-major with padding: extent 19
  TensorHandle t;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, strides,
                                          aoti_torch_dtype_float32(), kCuda, 0,
                                          t.out()));
  int32_t type = -1, index = -1;
  int64_t bytes = 0;
  void *data = nullptr;
  EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &type));
  EXPECT_SHIM_OK(aoti_torch_get_device_index(t.get(), &index));
  EXPECT_SHIM_OK(aoti_torch_get_storage_size(t.get(), &bytes));
  EXPECT_SHIM_OK(aoti_torch_get_data_ptr(t.get(), &data));
  EXPECT_EQ(type, kCuda);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(bytes, 19 * 4);
  ASSERT_NE(data, nullptr);
  cudaPointerAttributes attributes{};
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, data));
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, 0);
  ASSERT_CUDA_OK(cudaMemset(data, 0, 19 * 4));
}

TEST_F(ShimCuda, DeviceIndexMinusOneMeansTheCurrentDevice) {
  const int64_t sizes[] = {4};
  TensorHandle t;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                          aoti_torch_dtype_float32(), kCuda, -1,
                                          t.out()));
  int32_t index = -1;
  EXPECT_SHIM_OK(aoti_torch_get_device_index(t.get(), &index));
  EXPECT_EQ(index, 0);
}

TEST_F(ShimCuda, MemoryComesFromTheDefaultPoolAndStaysCached) {
  const int64_t sizes[] = {1 << 20};
  {
    TensorHandle t;
    ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                            aoti_torch_dtype_float32(), kCuda,
                                            0, t.out()));
  }
  int supported = 0;
  ASSERT_CUDA_OK(
      cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  if (!supported)
    GTEST_SKIP() << "device 0 has no stream-ordered allocator";
  cudaMemPool_t pool = nullptr;
  ASSERT_CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t threshold = 0;
  ASSERT_CUDA_OK(cudaMemPoolGetAttribute(
      pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  EXPECT_EQ(threshold, std::numeric_limits<uint64_t>::max());
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  uint64_t reserved = 0;
  ASSERT_CUDA_OK(cudaMemPoolGetAttribute(
      pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  EXPECT_GE(reserved, uint64_t{4} << 20) << "freed memory went back to the driver";
}

TEST_F(ShimCuda, ManyAllocationsAndFreesOnAUserStream) {
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  for (int i = 0; i < 200; ++i) {
    const int64_t sizes[] = {1024 + i};
    TensorHandle t;
    ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                            aoti_torch_dtype_float32(), kCuda,
                                            0, t.out()));
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

// --- Copies --------------------------------------------------------------------

TEST_F(ShimCuda, ContiguousRoundTripMatchesRawCudaMemcpy) {
  const int64_t n = 10000;
  std::vector<float> values = pattern(n, 1);
  TensorHandle device = upload(values, {n}, {1}, float32());
  void *data = nullptr;
  ASSERT_SHIM_OK(aoti_torch_get_data_ptr(device.get(), &data));
  std::vector<float> raw(n);
  ASSERT_CUDA_OK(cudaMemcpy(raw.data(), data, n * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(raw, values);
  EXPECT_EQ(download(device, float32()), values);
}

TEST_F(ShimCuda, StridedCopiesInEveryDirection) {
  const std::vector<int64_t> sizes = {6, 9};
  const std::vector<float> values = pattern(54, 2);
  const std::vector<std::vector<int64_t>> layouts = {
      {9, 1}, {1, 6}, {12, 1}, {1, 8}, {20, 2}};
  for (const auto &layout : layouts) {
    TensorHandle device = upload(values, sizes, layout, float32());
    EXPECT_EQ(stridesOf(device), layout);
    EXPECT_EQ(download(device, float32()), values)
        << "layout " << layout[0] << "," << layout[1];
    // Device to device, into every other layout.
    for (const auto &other : layouts) {
      TensorHandle target;
      ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes.data(), other.data(),
                                              aoti_torch_dtype_float32(), kCuda,
                                              0, target.out()));
      ASSERT_SHIM_OK(aoti_torch_copy_(target.get(), device.get(), 0));
      EXPECT_EQ(download(target, float32()), values)
          << layout[0] << "," << layout[1] << " -> " << other[0] << ","
          << other[1];
    }
  }
}

TEST_F(ShimCuda, BroadcastCopiesFromHostAndDevice) {
  const std::vector<float> row = {1, 2, 3, 4};
  std::vector<float> expected;
  for (int i = 0; i < 3; ++i)
    expected.insert(expected.end(), row.begin(), row.end());
  std::vector<float> hostRow = row;
  const int64_t rowSizes[] = {4};
  TensorHandle hostTensor;
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      hostRow.data(), 1, rowSizes, nullptr, 0, aoti_torch_dtype_float32(), 0, 0,
      hostTensor.out()));
  const int64_t sizes[] = {3, 4};
  TensorHandle fromHost;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_float32(), kCuda, 0,
                                          fromHost.out()));
  ASSERT_SHIM_OK(aoti_torch_copy_(fromHost.get(), hostTensor.get(), 0));
  EXPECT_EQ(download(fromHost, float32()), expected);

  TensorHandle deviceRow = upload(row, {4}, {1}, float32());
  TensorHandle fromDevice;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_float32(), kCuda, 0,
                                          fromDevice.out()));
  ASSERT_SHIM_OK(aoti_torch_copy_(fromDevice.get(), deviceRow.get(), 0));
  EXPECT_EQ(download(fromDevice, float32()), expected);
}

TEST_F(ShimCuda, StridedDeviceCopiesOfEveryElementSize) {
  for (int32_t dtype : {aoti_torch_dtype_uint8(), aoti_torch_dtype_int16(),
                        aoti_torch_dtype_int32(), aoti_torch_dtype_int64(),
                        aoti_torch_dtype_complex128()}) {
    const size_t item = aoti_torch_dtype_element_size(dtype);
    const std::vector<int64_t> sizes = {5, 7};
    std::vector<uint8_t> bytes(35 * item);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<uint8_t>(i * 31 + 3);
    TensorHandle host;
    ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
        bytes.data(), 2, sizes.data(), nullptr, 0, dtype, 0, 0, host.out()));
    const int64_t colMajor[] = {1, 5};
    TensorHandle device, back;
    ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes.data(), colMajor, dtype,
                                            kCuda, 0, device.out()));
    ASSERT_SHIM_OK(aoti_torch_copy_(device.get(), host.get(), 0));
    ASSERT_SHIM_OK(aoti_torch_clone(device.get(), back.out()));
    std::vector<uint8_t> result(bytes.size());
    TensorHandle hostResult;
    ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
        result.data(), 2, sizes.data(), nullptr, 0, dtype, 0, 0,
        hostResult.out()));
    ASSERT_SHIM_OK(aoti_torch_copy_(hostResult.get(), back.get(), 0));
    EXPECT_EQ(result, bytes) << "dtype " << dtype;
  }
}

TEST_F(ShimCuda, NonBlockingCopyCompletesOnTheCurrentStream) {
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  const std::vector<float> values = pattern(4096, 3);
  TensorHandle device = upload(values, {4096}, {1}, float32());
  std::vector<float> host(4096, -1.0f);
  const int64_t sizes[] = {4096};
  TensorHandle hostTensor;
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), 1, sizes, nullptr, 0, aoti_torch_dtype_float32(), 0, 0,
      hostTensor.out()));
  ASSERT_SHIM_OK(aoti_torch_copy_(hostTensor.get(), device.get(), 1));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(host, values);
  device.reset();
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST_F(ShimCuda, ClonePreserveStridesAndItem) {
  const std::vector<float> values = pattern(12, 4);
  TensorHandle device = upload(values, {3, 4}, {1, 3}, float32());
  TensorHandle copy;
  ASSERT_SHIM_OK(aoti_torch_clone_preserve_strides(device.get(), copy.out()));
  EXPECT_EQ(stridesOf(copy), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(download(copy, float32()), values);

  const int64_t one[] = {1};
  const int64_t unit[] = {1};
  TensorHandle element;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(device.get(), 1, one, unit, 3,
                                                element.out()));
  float value = 0;
  ASSERT_SHIM_OK(aoti_torch_item_float32(element.get(), &value));
  // Storage element 3 of a column-major 3x4 is logical (0, 1).
  EXPECT_EQ(value, values[1]);
}

TEST_F(ShimCuda, CopyBetweenTwoDevices) {
  if (deviceCount_ < 2)
    GTEST_SKIP() << "needs two devices";
  const std::vector<float> values = pattern(30, 5);
  TensorHandle first = upload(values, {5, 6}, {1, 5}, float32());
  const int64_t sizes[] = {5, 6};
  TensorHandle second;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_float32(), kCuda, 1,
                                          second.out()));
  ASSERT_SHIM_OK(aoti_torch_copy_(second.get(), first.get(), 0));
  EXPECT_EQ(download(second, float32()), values);
}

// --- Guards and streams ---------------------------------------------------------

TEST_F(ShimCuda, DeviceGuardSetsAndRestoresTheDevice) {
  CUDAGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_guard(0, &guard));
  int device = -1;
  ASSERT_CUDA_OK(cudaGetDevice(&device));
  EXPECT_EQ(device, 0);
  if (deviceCount_ >= 2) {
    ASSERT_SHIM_OK(aoti_torch_cuda_guard_set_index(guard, 1));
    ASSERT_CUDA_OK(cudaGetDevice(&device));
    EXPECT_EQ(device, 1);
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_guard(guard));
  ASSERT_CUDA_OK(cudaGetDevice(&device));
  EXPECT_EQ(device, 0);
  EXPECT_SHIM_FAILS(aoti_torch_create_cuda_guard(deviceCount_, &guard),
                    "out of range");
}

TEST_F(ShimCuda, StreamGuardsNestAndAreThreadLocal) {
  void *current = reinterpret_cast<void *>(1);
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &current));
  EXPECT_EQ(current, nullptr) << "default is the legacy default stream";

  cudaStream_t outer = nullptr, inner = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreate(&outer));
  ASSERT_CUDA_OK(cudaStreamCreate(&inner));
  CUDAStreamGuardHandle outerGuard = nullptr, innerGuard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(outer, 0, &outerGuard));
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &current));
  EXPECT_EQ(current, outer);
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(-1, &current));
  EXPECT_EQ(current, outer);

  void *seenByOtherThread = reinterpret_cast<void *>(1);
  std::thread([&] {
    EXPECT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &seenByOtherThread));
  }).join();
  EXPECT_EQ(seenByOtherThread, nullptr);

  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(inner, 0, &innerGuard));
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &current));
  EXPECT_EQ(current, inner);
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(innerGuard));
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &current));
  EXPECT_EQ(current, outer);
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(outerGuard));
  ASSERT_SHIM_OK(aoti_torch_get_current_cuda_stream(0, &current));
  EXPECT_EQ(current, nullptr);
  ASSERT_CUDA_OK(cudaStreamDestroy(inner));
  ASSERT_CUDA_OK(cudaStreamDestroy(outer));
}

// --- cuBLAS fallbacks ------------------------------------------------------------

// A matrix operand: sizes plus strides (empty strides: row-major).
struct Operand {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

std::vector<int64_t> stridesFor(const Operand &op) {
  return op.strides.empty() ? rowMajor(op.sizes) : op.strides;
}

// out[b] = a[b] @ b[b] for row-major logical values, in double.
std::vector<double> reference(const std::vector<float> &a,
                              const std::vector<float> &b, int64_t batch,
                              int64_t m, int64_t k, int64_t n) {
  std::vector<double> out(batch * m * n, 0.0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += static_cast<double>(a[(p * m + i) * k + q]) *
                 b[(p * k + q) * n + j];
        out[(p * m + i) * n + j] = sum;
      }
  return out;
}

// A CUDA tensor of `op`'s layout filled with NaN, so stale output shows.
TensorHandle nanTensor(const Operand &op, const DtypeInfo &type) {
  std::vector<float> nan(numelOf(op.sizes),
                         std::numeric_limits<float>::quiet_NaN());
  return upload(nan, op.sizes, stridesFor(op), type);
}

struct MatmulCase {
  const char *name;
  int64_t m, k, n;
  std::vector<int64_t> aStrides, bStrides, outStrides; // empty: row-major
};

const std::vector<MatmulCase> &mmCases() {
  static const std::vector<MatmulCase> cases = {
      {"row-major", 7, 13, 5, {}, {}, {}},
      {"a column-major", 7, 13, 5, {1, 7}, {}, {}},
      {"b column-major, out column-major", 7, 13, 5, {}, {1, 13}, {1, 7}},
      {"all column-major", 7, 13, 5, {1, 7}, {1, 13}, {1, 7}},
      {"padded leading dimensions", 7, 13, 5, {16, 1}, {1, 16}, {8, 1}},
      {"out with gaps in both strides", 7, 13, 5, {}, {}, {10, 2}},
      {"a strided in both dimensions", 7, 13, 5, {26, 2}, {}, {}},
      {"vector times vector", 1, 9, 1, {}, {}, {}},
      {"row vector times matrix", 1, 9, 6, {}, {}, {}},
      {"matrix times column vector, strided", 6, 9, 1, {}, {3, 1}, {4, 1}},
      {"larger", 64, 96, 80, {}, {}, {}},
  };
  return cases;
}

class ShimCudaMatmul : public ShimCuda,
                       public testing::WithParamInterface<DtypeInfo> {};

TEST_P(ShimCudaMatmul, MmMatchesTheReferenceForEveryLayout) {
  const DtypeInfo type = GetParam();
  for (const MatmulCase &c : mmCases()) {
    SCOPED_TRACE(c.name);
    const std::vector<float> a = pattern(c.m * c.k, 1);
    const std::vector<float> b = pattern(c.k * c.n, 2);
    Operand aOp{{c.m, c.k}, c.aStrides}, bOp{{c.k, c.n}, c.bStrides},
        outOp{{c.m, c.n}, c.outStrides};
    TensorHandle da = upload(a, aOp.sizes, stridesFor(aOp), type);
    TensorHandle db = upload(b, bOp.sizes, stridesFor(bOp), type);
    TensorHandle out = nanTensor(outOp, type);
    ASSERT_SHIM_OK(aoti_torch_cuda_mm_out(out.get(), da.get(), db.get()));
    EXPECT_EQ(stridesOf(out), stridesFor(outOp)) << "out must keep its layout";
    expectClose(download(out, type), reference(a, b, 1, c.m, c.k, c.n), type,
                c.name);
  }
}

TEST_P(ShimCudaMatmul, MmWithABroadcastOperand) {
  const DtypeInfo type = GetParam();
  // a is one row repeated (row stride 0): cuBLAS cannot read it in place.
  const std::vector<float> row = pattern(11, 3);
  TensorHandle rowTensor = upload(row, {1, 11}, {11, 1}, type);
  const int64_t sizes[] = {4, 11};
  const int64_t strides[] = {0, 1};
  TensorHandle da;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(rowTensor.get(), 2, sizes,
                                                strides, 0, da.out()));
  std::vector<float> a;
  for (int i = 0; i < 4; ++i)
    a.insert(a.end(), row.begin(), row.end());
  const std::vector<float> b = pattern(11 * 3, 4);
  TensorHandle db = upload(b, {11, 3}, {3, 1}, type);
  TensorHandle out = nanTensor({{4, 3}, {}}, type);
  ASSERT_SHIM_OK(aoti_torch_cuda_mm_out(out.get(), da.get(), db.get()));
  expectClose(download(out, type), reference(a, b, 1, 4, 11, 3), type,
              "broadcast a");
}

TEST_P(ShimCudaMatmul, MmWithAnEmptyInnerDimensionIsZero) {
  const DtypeInfo type = GetParam();
  const int64_t aSizes[] = {3, 0};
  const int64_t bSizes[] = {0, 4};
  TensorHandle da, db;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, aSizes, nullptr, type.code, kCuda,
                                          0, da.out()));
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, bSizes, nullptr, type.code, kCuda,
                                          0, db.out()));
  TensorHandle out = nanTensor({{3, 4}, {}}, type);
  ASSERT_SHIM_OK(aoti_torch_cuda_mm_out(out.get(), da.get(), db.get()));
  EXPECT_EQ(download(out, type), std::vector<float>(12, 0.0f));
}

TEST_P(ShimCudaMatmul, AddmmWithABroadcastBias) {
  const DtypeInfo type = GetParam();
  const int64_t m = 9, k = 17, n = 6;
  const std::vector<float> a = pattern(m * k, 5);
  const std::vector<float> b = pattern(k * n, 6);
  const std::vector<float> bias = pattern(n, 7);
  TensorHandle da = upload(a, {m, k}, {k, 1}, type);
  TensorHandle db = upload(b, {k, n}, {1, k}, type); // a transposed weight
  TensorHandle dbias = upload(bias, {n}, {1}, type);
  const double beta = 0.5, alpha = 2.0;
  std::vector<double> expected = reference(a, b, 1, m, k, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      expected[i * n + j] = beta * bias[j] + alpha * expected[i * n + j];
  for (const std::vector<int64_t> &outStrides :
       {std::vector<int64_t>{n, 1}, std::vector<int64_t>{1, m},
        std::vector<int64_t>{2 * n, 2}}) {
    TensorHandle out = nanTensor({{m, n}, outStrides}, type);
    ASSERT_SHIM_OK(aoti_torch_cuda_addmm_out(out.get(), dbias.get(), da.get(),
                                             db.get(), beta, alpha));
    expectClose(download(out, type), expected, type,
                "addmm out strides " + std::to_string(outStrides[0]) + "," +
                    std::to_string(outStrides[1]));
  }
}

TEST_P(ShimCudaMatmul, AddmmWithBetaZeroIgnoresANanBias) {
  const DtypeInfo type = GetParam();
  const std::vector<float> a = pattern(4 * 5, 8);
  const std::vector<float> b = pattern(5 * 3, 9);
  TensorHandle da = upload(a, {4, 5}, {5, 1}, type);
  TensorHandle db = upload(b, {5, 3}, {3, 1}, type);
  TensorHandle bias = nanTensor({{4, 3}, {}}, type);
  TensorHandle out = nanTensor({{4, 3}, {}}, type);
  ASSERT_SHIM_OK(aoti_torch_cuda_addmm_out(out.get(), bias.get(), da.get(),
                                           db.get(), 0.0, 1.0));
  expectClose(download(out, type), reference(a, b, 1, 4, 5, 3), type,
              "beta 0");
}

TEST_P(ShimCudaMatmul, AddmmInPlaceOnSelf) {
  const DtypeInfo type = GetParam();
  const std::vector<float> a = pattern(3 * 4, 10);
  const std::vector<float> b = pattern(4 * 2, 11);
  const std::vector<float> c = pattern(3 * 2, 12);
  TensorHandle da = upload(a, {3, 4}, {4, 1}, type);
  TensorHandle db = upload(b, {4, 2}, {2, 1}, type);
  TensorHandle dc = upload(c, {3, 2}, {2, 1}, type);
  ASSERT_SHIM_OK(aoti_torch_cuda_addmm_out(dc.get(), dc.get(), da.get(),
                                           db.get(), 1.0, 1.0));
  std::vector<double> expected = reference(a, b, 1, 3, 4, 2);
  for (size_t i = 0; i < expected.size(); ++i)
    expected[i] += c[i];
  expectClose(download(dc, type), expected, type, "in place");
}

TEST_P(ShimCudaMatmul, BmmForSeveralLayouts) {
  const DtypeInfo type = GetParam();
  const int64_t batch = 3, m = 5, k = 7, n = 4;
  const std::vector<float> a = pattern(batch * m * k, 13);
  const std::vector<float> b = pattern(batch * k * n, 14);
  const std::vector<double> expected = reference(a, b, batch, m, k, n);
  struct Layouts {
    const char *name;
    std::vector<int64_t> a, b, out;
  };
  const std::vector<Layouts> cases = {
      {"row-major", {m * k, k, 1}, {k * n, n, 1}, {m * n, n, 1}},
      {"transposed operands", {m * k, 1, m}, {k * n, 1, k}, {m * n, n, 1}},
      {"column-major out", {m * k, k, 1}, {k * n, n, 1}, {m * n, 1, m}},
      {"batch-major last", {k, batch * k, 1}, {n, batch * n, 1}, {n, batch * n, 1}},
  };
  for (const Layouts &l : cases) {
    SCOPED_TRACE(l.name);
    TensorHandle da = upload(a, {batch, m, k}, l.a, type);
    TensorHandle db = upload(b, {batch, k, n}, l.b, type);
    TensorHandle out = nanTensor({{batch, m, n}, l.out}, type);
    ASSERT_SHIM_OK(aoti_torch_cuda_bmm_out(out.get(), da.get(), db.get()));
    expectClose(download(out, type), expected, type, l.name);
  }
}

TEST_P(ShimCudaMatmul, BmmWithABatchBroadcastOperand) {
  const DtypeInfo type = GetParam();
  const int64_t batch = 4, m = 3, k = 5, n = 2;
  const std::vector<float> a = pattern(batch * m * k, 15);
  const std::vector<float> shared = pattern(k * n, 16);
  std::vector<float> b;
  for (int64_t p = 0; p < batch; ++p)
    b.insert(b.end(), shared.begin(), shared.end());
  TensorHandle da = upload(a, {batch, m, k}, {m * k, k, 1}, type);
  TensorHandle one = upload(shared, {1, k, n}, {k * n, n, 1}, type);
  const int64_t sizes[] = {batch, k, n};
  const int64_t strides[] = {0, n, 1};
  TensorHandle db;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(one.get(), 3, sizes, strides,
                                                0, db.out()));
  TensorHandle out = nanTensor({{batch, m, n}, {}}, type);
  ASSERT_SHIM_OK(aoti_torch_cuda_bmm_out(out.get(), da.get(), db.get()));
  expectClose(download(out, type), reference(a, b, batch, m, k, n), type,
              "batch broadcast");
}

TEST_P(ShimCudaMatmul, MmRunsOnTheCurrentStream) {
  const DtypeInfo type = GetParam();
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  {
    const std::vector<float> a = pattern(32 * 48, 17);
    const std::vector<float> b = pattern(48 * 16, 18);
    TensorHandle da = upload(a, {32, 48}, {48, 1}, type);
    TensorHandle db = upload(b, {48, 16}, {16, 1}, type);
    TensorHandle out = nanTensor({{32, 16}, {}}, type);
    ASSERT_SHIM_OK(aoti_torch_cuda_mm_out(out.get(), da.get(), db.get()));
    expectClose(download(out, type), reference(a, b, 1, 32, 48, 16), type,
                "user stream");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST_P(ShimCudaMatmul, BadOperandsAreRejected) {
  const DtypeInfo type = GetParam();
  TensorHandle a = nanTensor({{3, 4}, {}}, type);
  TensorHandle b = nanTensor({{5, 2}, {}}, type);
  TensorHandle out = nanTensor({{3, 2}, {}}, type);
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(out.get(), a.get(), b.get()),
                    "inner dimensions differ");
  TensorHandle a3 = nanTensor({{2, 3, 4}, {}}, type);
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(out.get(), a3.get(), b.get()),
                    "expected 2-d");
  TensorHandle ints;
  const int64_t sizes[] = {3, 2};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_int32(), kCuda, 0,
                                          ints.out()));
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(ints.get(), a.get(), b.get()),
                    "dtype");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ShimCudaMatmul,
                         testing::Values(float32(), float16(), bfloat16()),
                         [](const testing::TestParamInfo<DtypeInfo> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
