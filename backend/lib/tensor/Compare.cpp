//===- Compare.cpp - Checking results against expectations ----------------===//
#include "aoti/backend/Compare.h"

#include <cmath>

namespace aoti::backend {

Comparison compare(const HostTensor &Actual, const HostTensor &Expected,
                   Tolerance Tol) {
  Comparison C;
  if (Actual.Shape != Expected.Shape) {
    C.Incompatible = "shape " + shapeString(Actual.Shape) + " differs from the expected " +
                     shapeString(Expected.Shape);
    return C;
  }
  const bool FloatA = isFloatingPoint(Actual.Type);
  const bool FloatE = isFloatingPoint(Expected.Type);
  if (FloatA != FloatE) {
    C.Incompatible = "dtype " + std::string(dtypeName(Actual.Type)) +
                     " cannot be compared with the expected " +
                     std::string(dtypeName(Expected.Type));
    return C;
  }
  const int64_t N = Actual.numel();
  C.Compared = N;
  for (int64_t I = 0; I < N; ++I) {
    const double A = Actual.valueAt(I), E = Expected.valueAt(I);
    bool Ok;
    if (!FloatA) {
      Ok = A == E;
    } else if (std::isnan(A) || std::isnan(E)) {
      Ok = std::isnan(A) && std::isnan(E);
    } else if (std::isinf(A) || std::isinf(E)) {
      Ok = A == E;
    } else {
      const double Abs = std::fabs(A - E);
      Ok = Abs <= Tol.ATol + Tol.RTol * std::fabs(E);
      if (Abs > C.MaxAbsError)
        C.MaxAbsError = Abs;
      if (E != 0 && Abs / std::fabs(E) > C.MaxRelError)
        C.MaxRelError = Abs / std::fabs(E);
    }
    if (!Ok) {
      if (C.FirstMismatch < 0)
        C.FirstMismatch = I;
      ++C.Mismatched;
    }
    if (!FloatA && A != E) {
      const double Abs = std::fabs(A - E);
      if (Abs > C.MaxAbsError)
        C.MaxAbsError = Abs;
    }
  }
  C.Match = C.Mismatched == 0;
  return C;
}

} // namespace aoti::backend
