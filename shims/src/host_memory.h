//===- host_memory.h - Host memory for tensors and CPU temporaries --------===//
//
// Every host block the shims allocate (CPU tensors' storage, the CPU
// fallbacks' temporaries) comes from allocateHost and goes back through
// releaseHost. Large blocks are kept for reuse instead of being returned to
// the C library; host_memory.cpp explains why and how.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_HOST_MEMORY_H
#define AOTI_SHIMS_HOST_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace aoti::shims {

/// Host blocks are 64-byte aligned, enough for any vector load the model's
/// C++ kernels emit (torch's CPU allocator uses the same alignment).
inline constexpr size_t kHostAlignment = 64;

/// `nbytes` (> 0) of uninitialised host memory, or null when the system has
/// none to give. The block must go back through releaseHost with the same
/// size.
void *allocateHost(size_t nbytes) noexcept;

/// Returns a block from allocateHost(nbytes). Null is ignored.
void releaseHost(void *data, size_t nbytes) noexcept;

/// What the cache of freed blocks holds and has done, for tests and
/// benchmarks.
struct HostCacheStats {
  size_t cachedBytes = 0; ///< Freed blocks kept for reuse.
  size_t cachedBlocks = 0;
  uint64_t reused = 0;    ///< Allocations served from the cache.
  uint64_t allocated = 0; ///< Allocations of cacheable size from the system.
  size_t limitBytes = 0;  ///< The bound on cachedBytes (0: no caching).
};
HostCacheStats hostCacheStats();

/// Gives every cached block back to the system (a host that wants its
/// memory back between models; tests).
void emptyHostCache();

/// Replaces the cache's bound for the rest of the process (tests): blocks
/// over the new bound are given back at once. Without a call, the bound
/// comes from AOTI_SHIMS_CPU_CACHE_MB (host_memory.cpp).
void setHostCacheLimit(size_t bytes);

/// The bound that a value of AOTI_SHIMS_CPU_CACHE_MB gives (nullopt: unset),
/// or nullopt when the value is not a whole number of MiB (then the default
/// applies). Exposed so that tests can check the rule.
std::optional<size_t> hostCacheLimitFrom(std::optional<std::string_view> mib);

/// Blocks smaller than this are not cached: the C library's own free lists
/// already reuse them without touching the kernel.
inline constexpr size_t kHostCacheMinBytes = size_t{64} << 10;

/// The bound when AOTI_SHIMS_CPU_CACHE_MB is unset.
inline constexpr size_t kHostCacheDefaultLimit = size_t{2} << 30;

} // namespace aoti::shims

#endif // AOTI_SHIMS_HOST_MEMORY_H
