//===- Compare.h - Checking results against expectations -------*- C++ -*-===//
#ifndef AOTI_BACKEND_COMPARE_H
#define AOTI_BACKEND_COMPARE_H

#include "aoti/backend/Tensor.h"

#include <cstdint>
#include <string>

namespace aoti::backend {

struct Tolerance {
  double RTol = 1e-5;
  double ATol = 1e-8;
};

struct Comparison {
  bool Match = false;
  /// Why the tensors cannot be compared element-wise (shape or kind of
  /// dtype differ); empty when they were compared.
  std::string Incompatible;
  int64_t Mismatched = 0;
  int64_t Compared = 0;
  double MaxAbsError = 0;
  double MaxRelError = 0;
  /// Flat index of the first mismatch, -1 if none.
  int64_t FirstMismatch = -1;
};

/// Element-wise |actual - expected| <= atol + rtol * |expected|, computed in
/// double. Floating-point results may be compared with expectations of any
/// floating-point type (a bfloat16 output against float32 eager results).
/// Integer and bool results must equal integer or bool expectations exactly;
/// tolerances do not apply to them. NaN matches only NaN; an infinity only
/// the same infinity. Shapes must be equal.
Comparison compare(const HostTensor &Actual, const HostTensor &Expected,
                   Tolerance Tol);

} // namespace aoti::backend

#endif
