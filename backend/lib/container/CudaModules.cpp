//===- CudaModules.cpp - Forwarding cuModuleLoad*, recording the modules --===//
//
// See CudaModules.h. Built without CUDA, nothing is defined for the driver
// and the capture records nothing.
//
//===----------------------------------------------------------------------===//
#include "CudaModules.h"

#ifdef AOTI_BACKEND_HAVE_CUDA
#include <cuda.h>
#include <dlfcn.h>
#endif

namespace aoti::backend::detail {
namespace {
thread_local std::vector<void *> *Sink = nullptr;
} // namespace

ModuleCapture::ModuleCapture(std::vector<void *> &Into) : Previous(Sink) { Sink = &Into; }
ModuleCapture::~ModuleCapture() { Sink = Previous; }

#ifdef AOTI_BACKEND_HAVE_CUDA
namespace {

/// The driver's own entry point. libcuda is opened by name, not looked up
/// with RTLD_NEXT: a model brings it in with its own DT_NEEDED, in its local
/// scope, where RTLD_NEXT from the executable does not look.
template <typename Fn> Fn driver(const char *Name) {
  static void *Cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  return Cuda ? reinterpret_cast<Fn>(dlsym(Cuda, Name)) : nullptr;
}

/// Real(M, Rest...), and the module recorded when it loaded.
template <typename... Rest>
CUresult loadAndRecord(CUresult (*Real)(CUmodule *, Rest...), CUmodule *M, Rest... R) {
  if (!Real)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult Result = Real(M, R...);
  if (Result == CUDA_SUCCESS && M && *M && Sink)
    Sink->push_back(*M);
  return Result;
}

} // namespace

bool tracksModules() { return true; }

unsigned unloadModules(std::vector<void *> &Modules) {
  static auto *Unload = driver<decltype(&cuModuleUnload)>("cuModuleUnload");
  unsigned Refused = 0;
  for (void *M : Modules)
    if (!Unload || Unload(static_cast<CUmodule>(M)) != CUDA_SUCCESS)
      ++Refused;
  Modules.clear();
  return Refused;
}

} // namespace aoti::backend::detail

using aoti::backend::detail::driver;
using aoti::backend::detail::loadAndRecord;

// Exported by the host (it links with --export-dynamic), so a model's
// references bind here before they reach libcuda.
extern "C" CUresult CUDAAPI cuModuleLoad(CUmodule *M, const char *Path) {
  static auto *Real = driver<decltype(&cuModuleLoad)>("cuModuleLoad");
  return loadAndRecord(Real, M, Path);
}

extern "C" CUresult CUDAAPI cuModuleLoadData(CUmodule *M, const void *Image) {
  static auto *Real = driver<decltype(&cuModuleLoadData)>("cuModuleLoadData");
  return loadAndRecord(Real, M, Image);
}

#else

bool tracksModules() { return false; }

unsigned unloadModules(std::vector<void *> &Modules) {
  Modules.clear();
  return 0;
}

} // namespace aoti::backend::detail

#endif
