//===- CpuIsa.h - The CPU a model was compiled for, against this one -*- C++ -*-===//
//
// Inductor compiles a CPU model's kernels for one vector instruction set and
// records it in the model's metadata as AOTI_CPU_ISA: "AVX2", "AVX512",
// "AVX512 AVX512_VNNI", "AVX512 AVX512_VNNI AMX_TILE" on x86 (the upper-cased
// name of torch._inductor.cpu_vec_isa's pick), "INVALID_VEC_ISA" for scalar
// kernels. Run on a CPU without those instructions, the model dies of SIGILL
// in its first kernel. Each name stands for the compiler flags inductor
// built with (cpu_vec_isa.py's _arch_flags): AVX2 is -mavx2 -mfma -mf16c,
// AVX512 -mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma, AVX512_VNNI adds
// -mavx512vnni, AMX_TILE -mamx-tile (and -mamx-bf16 -mamx-int8, which every
// AMX CPU has). Those features are checked against what this CPU reports;
// names this file does not know, and every name off x86, check nothing.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_CPUISA_H
#define AOTI_BACKEND_LIB_CPUISA_H

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace aoti::backend {

/// The x86 features this CPU has, of those an AOTI_CPU_ISA can require,
/// by their GCC names ("avx2", "avx512bw", "amx-tile", ...). Empty off x86.
std::set<std::string> hostCpuFeatures();

/// The features the ISA string requires that Host lacks, in a fixed order.
std::vector<std::string> missingCpuFeatures(std::string_view Isa,
                                            const std::set<std::string> &Host);

} // namespace aoti::backend

#endif
