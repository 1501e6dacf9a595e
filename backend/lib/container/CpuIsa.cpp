//===- CpuIsa.cpp - The CPU a model was compiled for, against this one ----===//
//
// See CpuIsa.h. This CPU's features come from GCC's __builtin_cpu_supports,
// which also checks that the operating system saves the AVX and AVX-512
// registers; AMX, which GCC 12 does not name, from CPUID leaf 7 (EDX bit 24)
// and XCR0's tile state bits (17 and 18).
//
//===----------------------------------------------------------------------===//
#include "CpuIsa.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace aoti::backend {
namespace {

// Each AOTI_CPU_ISA word and the features its compiler flags enable.
const std::pair<std::string_view, std::vector<std::string>> Requirements[] = {
    {"AVX2", {"avx2", "fma", "f16c"}},
    {"AVX512", {"avx512f", "avx512dq", "avx512vl", "avx512bw", "fma"}},
    {"AVX512_VNNI", {"avx512vnni"}},
    {"AMX_TILE", {"amx-tile"}},
};

#if defined(__x86_64__) || defined(__i386__)
bool hasAmxTile() {
  unsigned Eax, Ebx, Ecx, Edx;
  if (!__get_cpuid_count(7, 0, &Eax, &Ebx, &Ecx, &Edx) || !(Edx & (1u << 24)))
    return false;
  if (!__get_cpuid(1, &Eax, &Ebx, &Ecx, &Edx) || !(Ecx & (1u << 27))) // OSXSAVE
    return false;
  unsigned Lo, Hi;
  __asm__("xgetbv" : "=a"(Lo), "=d"(Hi) : "c"(0));
  return (Lo & (3u << 17)) == (3u << 17); // XTILECFG and XTILEDATA
}
#endif

} // namespace

std::set<std::string> hostCpuFeatures() {
  std::set<std::string> F;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  auto Add = [&F](const char *Name, bool Has) {
    if (Has)
      F.insert(Name);
  };
  Add("avx2", __builtin_cpu_supports("avx2"));
  Add("fma", __builtin_cpu_supports("fma"));
  Add("f16c", __builtin_cpu_supports("f16c"));
  Add("avx512f", __builtin_cpu_supports("avx512f"));
  Add("avx512dq", __builtin_cpu_supports("avx512dq"));
  Add("avx512vl", __builtin_cpu_supports("avx512vl"));
  Add("avx512bw", __builtin_cpu_supports("avx512bw"));
  Add("avx512vnni", __builtin_cpu_supports("avx512vnni"));
  Add("amx-tile", hasAmxTile());
#endif
  return F;
}

std::vector<std::string> missingCpuFeatures(std::string_view Isa,
                                            const std::set<std::string> &Host) {
#if defined(__x86_64__) || defined(__i386__)
  std::vector<std::string> Missing;
  std::istringstream Words{std::string(Isa)};
  for (std::string Word; Words >> Word;) {
    for (char &C : Word)
      C = static_cast<char>(std::toupper(static_cast<unsigned char>(C)));
    for (const auto &[Name, Features] : Requirements) {
      if (Word != Name)
        continue;
      for (const std::string &Feature : Features)
        if (!Host.count(Feature) &&
            std::find(Missing.begin(), Missing.end(), Feature) == Missing.end())
          Missing.push_back(Feature);
    }
  }
  return Missing;
#else
  (void)Isa;
  (void)Host;
  return {};
#endif
}

} // namespace aoti::backend
