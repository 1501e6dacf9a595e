//===- host_memory_test.cpp - The cache of freed host blocks --------------===//
//
// host_memory.cpp keeps freed blocks of 64 KiB and more for reuse, bounded
// by AOTI_SHIMS_CPU_CACHE_MB. Checked here: a freed block comes back for an
// allocation of its size class and not for another class, small blocks are
// never kept, the bound holds (evicting the largest blocks first), the
// environment's value is parsed as documented, the cache is what CPU
// tensors made through the C ABI use, and under AddressSanitizer a kept
// block is still reported when used after its release or past its size.
//
// ctest runs each test in a process of its own; the counters are read as
// differences all the same.
//
//===----------------------------------------------------------------------===//
#include "host_memory.h"
#include "shims_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using aoti::shims::allocateHost;
using aoti::shims::emptyHostCache;
using aoti::shims::hostCacheStats;
using aoti::shims::kHostCacheMinBytes;
using aoti::shims::releaseHost;
using aoti::shims::setHostCacheLimit;
using aoti::test::TensorHandle;

constexpr size_t kMiB = size_t{1} << 20;

bool aligned64(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

// Restores the bound the environment gave, however the test ends.
struct LimitScope {
  size_t saved = hostCacheStats().limitBytes;
  explicit LimitScope(size_t bytes) { setHostCacheLimit(bytes); }
  ~LimitScope() {
    emptyHostCache();
    setHostCacheLimit(saved);
  }
};

TEST(HostCache, AFreedBlockComesBackForItsSizeClass) {
  LimitScope scope(64 * kMiB);
  // 1 MiB - 1000 bytes rounds up to 1 MiB (steps of 64 KiB there), the
  // class of 1 MiB itself.
  void *first = allocateHost(kMiB - 1000);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(aligned64(first));
  std::memset(first, 1, kMiB - 1000); // all of it is usable
  releaseHost(first, kMiB - 1000);
  const auto before = hostCacheStats();
  EXPECT_GE(before.cachedBlocks, 1u);
  void *second = allocateHost(kMiB);
  EXPECT_EQ(second, first);
  const auto after = hostCacheStats();
  EXPECT_EQ(after.reused, before.reused + 1);
  EXPECT_EQ(after.cachedBlocks, before.cachedBlocks - 1);
  std::memset(second, 2, kMiB);
  releaseHost(second, kMiB);
}

TEST(HostCache, AnotherSizeClassGetsAnotherBlock) {
  LimitScope scope(64 * kMiB);
  void *block = allocateHost(kMiB);
  releaseHost(block, kMiB);
  const auto before = hostCacheStats();
  // 1.25 MiB + 1 is two classes up; half a MiB is below.
  void *larger = allocateHost(kMiB + kMiB / 4 + 1);
  void *smaller = allocateHost(kMiB / 2);
  EXPECT_NE(larger, block);
  EXPECT_NE(smaller, block);
  EXPECT_EQ(hostCacheStats().reused, before.reused);
  EXPECT_EQ(hostCacheStats().allocated, before.allocated + 2);
  releaseHost(larger, kMiB + kMiB / 4 + 1);
  releaseHost(smaller, kMiB / 2);
}

TEST(HostCache, SmallBlocksAreNotKept) {
  LimitScope scope(64 * kMiB);
  const auto before = hostCacheStats();
  void *small = allocateHost(kHostCacheMinBytes - 1);
  ASSERT_NE(small, nullptr);
  EXPECT_TRUE(aligned64(small));
  releaseHost(small, kHostCacheMinBytes - 1);
  const auto after = hostCacheStats();
  EXPECT_EQ(after.cachedBytes, before.cachedBytes);
  EXPECT_EQ(after.allocated, before.allocated);
}

TEST(HostCache, TheBoundHoldsAndTheLargestGoFirst) {
  LimitScope scope(3 * kMiB);
  void *a = allocateHost(kMiB);
  void *b = allocateHost(2 * kMiB);
  void *c = allocateHost(kMiB);
  void *huge = allocateHost(4 * kMiB);
  releaseHost(a, kMiB);
  releaseHost(b, 2 * kMiB);
  EXPECT_EQ(hostCacheStats().cachedBytes, 3 * kMiB);
  // Keeping c needs 1 MiB: the 2 MiB block goes.
  releaseHost(c, kMiB);
  auto stats = hostCacheStats();
  EXPECT_EQ(stats.cachedBytes, 2 * kMiB);
  EXPECT_EQ(stats.cachedBlocks, 2u);
  // Over the bound alone: given back, nothing else evicted.
  releaseHost(huge, 4 * kMiB);
  EXPECT_EQ(hostCacheStats().cachedBytes, 2 * kMiB);
  // A smaller bound evicts at once; emptying gives everything back.
  setHostCacheLimit(kMiB);
  EXPECT_EQ(hostCacheStats().cachedBytes, kMiB);
  emptyHostCache();
  stats = hostCacheStats();
  EXPECT_EQ(stats.cachedBytes, 0u);
  EXPECT_EQ(stats.cachedBlocks, 0u);
  EXPECT_EQ(stats.limitBytes, kMiB);
}

// A size near SIZE_MAX must fail, not round up past it into a tiny block.
TEST(HostCache, AnImpossibleSizeFailsInsteadOfWrapping) {
  for (size_t nbytes :
       {SIZE_MAX, SIZE_MAX - 4096, SIZE_MAX / 2 + 1, SIZE_MAX / 4 + 1})
    EXPECT_EQ(allocateHost(nbytes), nullptr) << nbytes;
}

TEST(HostCache, ABoundOfZeroKeepsNothing) {
  LimitScope scope(0);
  void *block = allocateHost(kMiB);
  releaseHost(block, kMiB);
  EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
}

TEST(HostCache, TheEnvironmentsValue) {
  using aoti::shims::hostCacheLimitFrom;
  EXPECT_EQ(hostCacheLimitFrom(std::nullopt), std::nullopt);
  EXPECT_EQ(hostCacheLimitFrom("0"), 0u);
  EXPECT_EQ(hostCacheLimitFrom("16"), 16 * kMiB);
  EXPECT_EQ(hostCacheLimitFrom("4096"), size_t{4096} * kMiB);
  for (const char *bad :
       {"", "-1", "1.5", "16M", " 16", "1e3", "9999999999999"})
    EXPECT_EQ(hostCacheLimitFrom(bad), std::nullopt) << "'" << bad << "'";
  // The bound in force is the environment's (ctest runs this test once
  // more with AOTI_SHIMS_CPU_CACHE_MB=0) or the default.
  const char *env = std::getenv("AOTI_SHIMS_CPU_CACHE_MB");
  const std::optional<size_t> fromEnv = hostCacheLimitFrom(
      env ? std::optional<std::string_view>(env) : std::nullopt);
  EXPECT_EQ(hostCacheStats().limitBytes,
            fromEnv ? *fromEnv : aoti::shims::kHostCacheDefaultLimit);
}

// What a model's runs see: each run's intermediates are the last run's
// blocks (unless the environment turned the cache off).
TEST(HostCache, TensorsThroughTheCAbiReuseBlocks) {
  const bool off = hostCacheStats().limitBytes == 0;
  const int64_t sizes[] = {256, 1024}; // 1 MiB of float32
  void *firstData = nullptr;
  {
    TensorHandle t;
    ASSERT_SHIM_OK(
        aoti_torch_empty_strided(2, sizes, nullptr, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, t.out()));
    ASSERT_SHIM_OK(aoti_torch_get_data_ptr(t.get(), &firstData));
    EXPECT_TRUE(aligned64(firstData));
  }
  TensorHandle again;
  ASSERT_SHIM_OK(
      aoti_torch_empty_strided(2, sizes, nullptr, aoti_torch_dtype_float32(),
                               aoti_torch_device_type_cpu(), 0, again.out()));
  void *secondData = nullptr;
  ASSERT_SHIM_OK(aoti_torch_get_data_ptr(again.get(), &secondData));
  if (off)
    EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
  else
    EXPECT_EQ(secondData, firstData);
}

#if defined(__SANITIZE_ADDRESS__)
#define AOTI_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AOTI_TEST_ASAN 1
#endif
#endif

#if defined(AOTI_TEST_ASAN)
TEST(HostCacheDeathTest, AKeptBlockIsStillUseAfterFree) {
  LimitScope scope(64 * kMiB);
  EXPECT_DEATH(
      {
        volatile char *block = static_cast<char *>(allocateHost(kMiB));
        releaseHost(const_cast<char *>(block), kMiB);
        block[10] = 1;
      },
      "use-after-poison");
}

TEST(HostCacheDeathTest, TheClassSlackIsPoisoned) {
  LimitScope scope(64 * kMiB);
  EXPECT_DEATH(
      {
        void *warm = allocateHost(kMiB);
        releaseHost(warm, kMiB);
        // The same 1 MiB block, reused for 100 bytes less: its last 100
        // bytes are the class's slack.
        volatile char *block = static_cast<char *>(allocateHost(kMiB - 100));
        block[kMiB - 101] = 1; // the last byte asked for: fine
        block[kMiB - 100] = 1;
      },
      "use-after-poison");
}
#endif

} // namespace
