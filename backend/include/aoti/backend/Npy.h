//===- Npy.h - A strict reader and writer for NumPy .npy files --*- C++ -*-===//
//
// Format versions 1.0, 2.0 and 3.0; little-endian data only. C-order and
// Fortran-order arrays are read (a Fortran-order one, as np.save writes x.T,
// is reordered into C order); files are always written in C order.
// Accepted dtypes: <f4 <f2 <f8 <i8 <i4 <i2 |i1 |u1 <u2 |b1, and <V2 / |V2 read
// as bfloat16 (how a raw two-byte bfloat16 array is saved without ml_dtypes).
// The payload must be exactly as long as the header's shape says.
//
// bfloat16 tensors are written as <f4 (exactly: every bfloat16 is a float32),
// so the files load with plain NumPy.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_NPY_H
#define AOTI_BACKEND_NPY_H

#include "aoti/backend/Error.h"
#include "aoti/backend/Tensor.h"

#include <span>
#include <string>

namespace aoti::backend {

Expected<HostTensor> parseNpy(std::span<const std::byte> Bytes,
                              const std::string &NameForErrors);
Expected<HostTensor> readNpy(const std::string &Path);
std::string serializeNpy(const HostTensor &T);
Status writeNpy(const std::string &Path, const HostTensor &T);

} // namespace aoti::backend

#endif
