//===- CudaModules.h - The CUDA modules a model loads, and their unloading --===//
//
// AOTInductor's generated code loads every Triton kernel with cuModuleLoad or
// cuModuleLoadData the first time a model instance runs it, keeps the
// CUfunction in that instance (AOTInductorModelKernels, owned by the model),
// and never unloads the module. Each container created and deleted therefore
// leaves its modules behind in the driver: host memory (about 40 KB a kernel
// on an H200) and device memory, for as long as the process lives.
//
// A host built with CUDA defines cuModuleLoad and cuModuleLoadData itself
// (CudaModules.cpp) and exports them, so the model's references bind here
// first; each forwards to libcuda and, while a ModuleCapture is active on
// the calling thread, records the module. Model::Impl captures around every
// call into its container and unloads what it recorded once the container
// is deleted, when no CUfunction of them can be used any more.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_CUDAMODULES_H
#define AOTI_BACKEND_CUDAMODULES_H

#include <vector>

namespace aoti::backend::detail {

/// Records the modules loaded on this thread while it lives. Nests.
class ModuleCapture {
public:
  explicit ModuleCapture(std::vector<void *> &Into);
  ~ModuleCapture();
  ModuleCapture(const ModuleCapture &) = delete;
  ModuleCapture &operator=(const ModuleCapture &) = delete;

private:
  std::vector<void *> *Previous;
};

/// cuModuleUnload on each, then clears the list. Returns how many the driver
/// refused (a module already unloaded by the model itself).
unsigned unloadModules(std::vector<void *> &Modules);

/// Whether this build tracks modules at all (a build with CUDA).
bool tracksModules();

} // namespace aoti::backend::detail

#endif
