//===- host_memory.cpp - A cache of freed host blocks ---------------------===//
//
// Why. A CPU model allocates its intermediates through
// aoti_torch_empty_strided on every run and frees them before the run ends.
// Blocks of a few hundred KiB and up are ones the C library maps from the
// kernel (mmap) or carves from the top of its heap, and it gives them back
// (munmap, or a heap trim) when they are freed, so the next run touches
// fresh pages: one page fault and one zeroed 4 KiB page each. Measured with
// aoti-run on the zoo's ResNet-18 (2 threads, 2-core development machine):
// about 4,600 page faults per run, and the run 10% faster with none (glibc
// tunables that stop the returns, which a library cannot impose on its
// host); eager PyTorch's CPU allocator faults the same way. The CPU
// convolution's temporaries (oneDNN reorders, ops/cpu/convolution.cpp) had
// the same cost on every call.
//
// How. Blocks of kHostCacheMinBytes and more are rounded up to a size class
// and, when freed, kept on a free list per class; an allocation of the same
// class takes one from there. Classes are 8 per power of two (a block is at
// most 12.5% larger than asked; at least 4 KiB granularity), so the
// rounding is a function of the size alone and releaseHost needs no record
// of live blocks. A model's runs ask for the same sizes every time, so from
// the second run on its intermediates are all reused.
//
// Bound. The kept blocks total at most the limit: AOTI_SHIMS_CPU_CACHE_MB
// (a whole number of MiB; 0 turns the cache off), default 2 GiB. A freed
// block that would go over it first evicts kept blocks, largest classes
// first, and is given back itself only if it alone is over the limit.
// emptyHostCache() gives everything back.
//
// Under AddressSanitizer a kept block is poisoned, and a reused block is
// unpoisoned only for the bytes asked, so a use after free or an overrun
// into the class's slack is still reported. Smaller blocks go straight to
// the C library, whose own free lists reuse them without the kernel.
//
// The cache is one mutex-guarded map (uncontended: allocations come from
// the thread that runs the model) and is never destroyed, so a tensor freed
// during static destruction still has somewhere to go.
//
//===----------------------------------------------------------------------===//
#include "host_memory.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define AOTI_SHIMS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AOTI_SHIMS_ASAN 1
#endif
#endif
#if defined(AOTI_SHIMS_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace aoti::shims {
namespace {

constexpr std::align_val_t kAlignment{kHostAlignment};

void poison(void *data, size_t nbytes) {
#if defined(AOTI_SHIMS_ASAN)
  __asan_poison_memory_region(data, nbytes);
#else
  (void)data;
  (void)nbytes;
#endif
}

void unpoison(void *data, size_t nbytes) {
#if defined(AOTI_SHIMS_ASAN)
  __asan_unpoison_memory_region(data, nbytes);
#else
  (void)data;
  (void)nbytes;
#endif
}

// The size class of a cacheable block: nbytes rounded up to a multiple of
// 2^(floor(log2(nbytes)) - 3), and of at least 4 KiB.
size_t sizeClass(size_t nbytes) {
  const int log2 =
      63 - __builtin_clzll(static_cast<unsigned long long>(nbytes));
  const size_t step =
      std::max<size_t>(size_t{1} << std::max(log2 - 3, 0), size_t{4} << 10);
  return (nbytes + step - 1) / step * step;
}

// Requests over this fail at once: no address space is that large, and
// rounding one up (to a size class here, to the alignment in the C++
// library's aligned new) could wrap around to a tiny block.
constexpr size_t kMaxHostBytes = SIZE_MAX >> 2;

// Whether a block of nbytes goes through the cache.
bool cacheable(size_t nbytes) { return nbytes >= kHostCacheMinBytes; }

size_t limitFromEnvironment() {
  const char *value = std::getenv("AOTI_SHIMS_CPU_CACHE_MB");
  std::optional<size_t> limit = hostCacheLimitFrom(
      value ? std::optional<std::string_view>(value) : std::nullopt);
  return limit ? *limit : kHostCacheDefaultLimit;
}

class HostCache {
public:
  void *take(size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(capacity);
    if (it == free_.end() || it->second.empty()) {
      ++allocated_;
      return nullptr;
    }
    void *data = it->second.back();
    it->second.pop_back();
    cachedBytes_ -= capacity;
    ++reused_;
    return data;
  }

  // Keeps the block, or returns false when it is not to be kept (over the
  // limit alone, or no memory for the free list's entry).
  bool keep(void *data, size_t capacity) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capacity > limit_)
      return false;
    evictUntil(limit_ - capacity);
    try {
      free_[capacity].push_back(data);
    } catch (const std::bad_alloc &) {
      return false;
    }
    cachedBytes_ += capacity;
    return true;
  }

  void empty() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    evictUntil(0);
  }

  void setLimit(size_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
    evictUntil(bytes);
  }

  HostCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    HostCacheStats s;
    s.cachedBytes = cachedBytes_;
    for (const auto &[capacity, blocks] : free_)
      s.cachedBlocks += blocks.size();
    s.reused = reused_;
    s.allocated = allocated_;
    s.limitBytes = limit_;
    return s;
  }

private:
  // Gives kept blocks back, largest classes first, until at most `bytes`
  // are kept. Called with the mutex held.
  void evictUntil(size_t bytes) noexcept {
    while (cachedBytes_ > bytes && !free_.empty()) {
      auto largest = std::prev(free_.end());
      std::vector<void *> &blocks = largest->second;
      while (!blocks.empty() && cachedBytes_ > bytes) {
        unpoison(blocks.back(), largest->first);
        ::operator delete(blocks.back(), kAlignment);
        blocks.pop_back();
        cachedBytes_ -= largest->first;
      }
      if (blocks.empty())
        free_.erase(largest);
    }
  }

  std::mutex mutex_;
  std::map<size_t, std::vector<void *>> free_;
  size_t cachedBytes_ = 0;
  size_t limit_ = limitFromEnvironment();
  uint64_t reused_ = 0, allocated_ = 0;
};

HostCache &cache() {
  static HostCache *instance = new HostCache; // never destroyed (above)
  return *instance;
}

} // namespace

std::optional<size_t> hostCacheLimitFrom(std::optional<std::string_view> mib) {
  // At most 12 digits, so that the MiB always fit in bytes.
  if (!mib || mib->size() > 12)
    return std::nullopt;
  size_t value = 0;
  const char *end = mib->data() + mib->size();
  auto [ptr, ec] = std::from_chars(mib->data(), end, value);
  if (mib->empty() || ec != std::errc() || ptr != end)
    return std::nullopt;
  return value << 20;
}

void *allocateHost(size_t nbytes) noexcept {
  if (nbytes > kMaxHostBytes)
    return nullptr;
  if (!cacheable(nbytes))
    return ::operator new(nbytes, kAlignment, std::nothrow);
  const size_t capacity = sizeClass(nbytes);
  if (void *data = cache().take(capacity)) {
    unpoison(data, nbytes);
    return data;
  }
  return ::operator new(capacity, kAlignment, std::nothrow);
}

void releaseHost(void *data, size_t nbytes) noexcept {
  if (!data)
    return;
  if (!cacheable(nbytes)) {
    ::operator delete(data, kAlignment);
    return;
  }
  const size_t capacity = sizeClass(nbytes);
  poison(data, capacity);
  if (cache().keep(data, capacity))
    return;
  unpoison(data, capacity);
  ::operator delete(data, kAlignment);
}

HostCacheStats hostCacheStats() { return cache().stats(); }

void emptyHostCache() { cache().empty(); }

void setHostCacheLimit(size_t bytes) { cache().setLimit(bytes); }

} // namespace aoti::shims
