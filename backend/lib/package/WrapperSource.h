//===- WrapperSource.h - Reading the generated wrapper ----------*- C++ -*-===//
//
// AOTInductor writes its wrapper source (<hash>.cpp) next to the .so. The
// backend reads the input checks it generates to convert host data to the
// dtype a model wants before upload, and the OpenMP team size a CPU model's
// kernel source (<hash>.kernel.cpp) was generated with.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_WRAPPERSOURCE_H
#define AOTI_BACKEND_LIB_WRAPPERSOURCE_H

#include "aoti/backend/Tensor.h"

#include <optional>
#include <string_view>
#include <vector>

namespace aoti::backend {

/// Input dtypes and static shapes as declared by the check_input_<i>
/// functions AOTInductor generates into the wrapper source. One entry per
/// input found; best effort, for converting host data before upload.
std::vector<TensorSpec> declaredInputs(std::string_view WrapperSource);

/// The largest N of the `#pragma omp parallel num_threads(N)` clauses in a
/// CPU model's generated kernels: inductor writes torch.get_num_threads() of
/// the exporting process into each parallel region, so that is how many
/// threads its kernels run on wherever it runs. nullopt when there is none.
std::optional<int> kernelThreadCount(std::string_view KernelSource);

} // namespace aoti::backend

#endif
