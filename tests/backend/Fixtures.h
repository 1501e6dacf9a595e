//===- Fixtures.h - Files the backend tests load ----------------*- C++ -*-===//
#ifndef AOTI_TESTS_BACKEND_FIXTURES_H
#define AOTI_TESTS_BACKEND_FIXTURES_H

#include "aoti/backend/Tensor.h"

#include <string>

namespace aoti::testing {

/// The built plugins the fixtures are made from.
struct Plugins {
  std::string Model;        ///< the fake model
  std::string MissingModel; ///< the fake model with two imports nobody defines
  std::string NotAModel;    ///< an ELF .so without the container entry points
  std::string InSoModel;    ///< the fake model with its weights in the .so
  std::string NoWeightsModel; ///< the fake model exported without weights
};

/// Writes into Dir (created if needed), relative names:
///   so/m.wrapper.so + _metadata.json (cpu) + _weights.blob    a good .so model
///   model.pt2         the same, zipped under a top folder "some_model/"
///   cuda.pt2          metadata says cuda
///   amx.pt2, scalar.pt2  cpu, AOTI_CPU_ISA "AVX512 AVX512_VNNI AMX_TILE" or
///                     "INVALID_VEC_ISA"
///   threads.pt2       cpu, with a kernel source of num_threads(4096) regions
///   noblob/m.wrapper.so, short/m.wrapper.so (20-byte blob)
///   missing/m.wrapper.so, notamodel.so, garbage.bin, nomodel.pt2
///   inso/m.wrapper.so, inso.pt2          weights in the .so, no blob
///   noweights/m.wrapper.so, noweights.pt2  exported without weights
///   pickled.pt2       without weights in the .so, pickled under data/weights/
///   x.npy (float32 [3,4]), x_i64.npy, x_3x5.npy, x_f64.npy
///   expect_y.npy, expect_row.npy, wrong_y.npy, truncated.npy,
///   x_fortran.npy, expect_y_fortran.npy (x and y saved in Fortran order)
/// Returns an error message, empty on success.
std::string writeFixtures(const std::string &Dir, const Plugins &P);

/// T saved as NumPy saves a Fortran-order array (np.save(p, a.T) of a
/// C-order a): 'fortran_order': True, element (i0, ..., in-1) at flat index
/// i0 + d0 * (i1 + d1 * (...)). Computed by division, independently of the
/// reader's walk.
std::string fortranOrderNpy(const aoti::backend::HostTensor &T);

/// w and b in the blob, and the input: y = x * w + b.
extern const float FixtureW[4];
extern const float FixtureB[4];
float fixtureX(int Row, int Col);

} // namespace aoti::testing

#endif
