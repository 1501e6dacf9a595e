//===- WrapperSource.h - Reading the generated wrapper ----------*- C++ -*-===//
//
// AOTInductor writes its wrapper source (<hash>.cpp) next to the .so. The
// backend reads the input checks it generates to convert host data to the
// dtype a model wants before upload.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_WRAPPERSOURCE_H
#define AOTI_BACKEND_LIB_WRAPPERSOURCE_H

#include "aoti/backend/Tensor.h"

#include <string_view>
#include <vector>

namespace aoti::backend {

/// Input dtypes and static shapes as declared by the check_input_<i>
/// functions AOTInductor generates into the wrapper source. One entry per
/// input found; best effort, for converting host data before upload.
std::vector<TensorSpec> declaredInputs(std::string_view WrapperSource);

} // namespace aoti::backend

#endif
