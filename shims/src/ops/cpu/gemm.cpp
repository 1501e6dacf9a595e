//===- ops/cpu/gemm.cpp - mm, addmm, bmm and baddbmm through OpenBLAS ------===//
//
// float32 runs sgemm (ops/cpu/parallel.h: OpenBLAS's cblas_sgemm, or
// oneDNN's where OpenBLAS does not know the CPU), float64 cblas_dgemm, one
// single-threaded call per tile of the output, the tiles shared out to the
// CPU fallbacks' OpenMP threads (ops/cpu/parallel.h: the model's own team,
// cpuThreadCount() of them). OpenBLAS's own threads are not used: its
// pthread pool would run beside the model's OpenMP team and spin against it.
// Tiling (tile()): whole matrices per thread when the batch alone gives every
// thread one; else each matrix is cut into the rows x columns grid of about
// the thread count with the least operand data per tile (rows of A plus
// columns of B it reads), column tiles 16 elements aligned, and no tile
// under 2^18 multiply-adds (smaller calls use fewer threads, or just the
// caller). K is never split, so each element is the same OpenBLAS sum on any
// thread count. A tile's addend block is written into C by the thread that
// computes it, just before its GEMM (beta = the call's beta).
//
// cblas takes either storage order, so a strided matrix X
// (rows x cols, row stride rs, column stride cs) is read in place when one
// of its strides is 1:
//   cs == 1, rs >= cols:  row-major with leading dimension rs;
//   rs == 1, cs >= rows:  column-major with leading dimension cs.
// (A dimension of size 1 never moves the address, so its stride is free.)
// The call's order is the output's form; an operand stored in the other
// form is the transpose of a matrix in the call's form, so it is passed
// with CblasTrans. Operands in neither form (broadcast, both strides > 1)
// are copied to a contiguous temporary first. The output is computed into a
// contiguous temporary, then copied into out, when it is in neither form,
// when its batches overlap, or when it shares memory with an input (so an
// operand is never overwritten while it is still being read); addmm's
// in-place form (out is self) is the one overlap used in place.
//
// cblas computes C = alpha * op(A) op(B) + beta * C, so C first receives the
// addend, broadcast (per tile, above). With beta == 0, C is not read
// (BLAS semantics), so a NaN already in out does not propagate; torch's CPU
// addmm behaves the same. An empty inner dimension gives beta * addend (or
// zeros) without calling cblas.
//
// float16 and bfloat16 have no cblas routine: each operand is converted to a
// float32 tensor (ops/cpu/float16.h), the float32 path computes the result
// in float32, and it is rounded back into out once at the end, which is what
// torch's CPU kernels do too (they accumulate half types in float32).
//
//===----------------------------------------------------------------------===//
#include "ops/gemm.h"

#include "copy.h"
#include "ops/cpu/float16.h"
#include "ops/cpu/parallel.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

bool fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

// The leading dimension under which a rows x cols matrix with strides
// (rs, cs) is row-major, if it is.
std::optional<int64_t> rowMajorLd(int64_t rows, int64_t cols, int64_t rs,
                                  int64_t cs) {
  const int64_t width = std::max<int64_t>(cols, 1);
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= width))
    return rows == 1 ? width : rs;
  return std::nullopt;
}

// Column-major is row-major of the transpose.
std::optional<int64_t> colMajorLd(int64_t rows, int64_t cols, int64_t rs,
                                  int64_t cs) {
  return rowMajorLd(cols, rows, cs, rs);
}

struct Matrix {
  int64_t rows, cols, rs, cs, batchStride;
};

Matrix matrixOf(const Tensor &t) {
  const size_t n = static_cast<size_t>(t.dim());
  return {t.sizes()[n - 2], t.sizes()[n - 1], t.strides()[n - 2],
          t.strides()[n - 1], n == 3 ? t.strides()[0] : 0};
}

// How one cblas call in `order` reads an operand.
struct Operand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

std::optional<Operand> asOperand(const Tensor &t, CBLAS_ORDER order) {
  const Matrix x = matrixOf(t);
  std::optional<int64_t> rowLd = rowMajorLd(x.rows, x.cols, x.rs, x.cs);
  std::optional<int64_t> colLd = colMajorLd(x.rows, x.cols, x.rs, x.cs);
  std::optional<int64_t> same = order == CblasRowMajor ? rowLd : colLd;
  std::optional<int64_t> other = order == CblasRowMajor ? colLd : rowLd;
  std::optional<Operand> result;
  if (same)
    result = Operand{CblasNoTrans, *same};
  else if (other)
    result = Operand{CblasTrans, *other};
  if (result && !fitsInt(result->ld))
    result.reset();
  return result;
}

// The order and leading dimension of an output cblas can write in place.
struct Output {
  CBLAS_ORDER order;
  int64_t ld;
};

std::optional<Output> asOutput(const Tensor &t) {
  const Matrix x = matrixOf(t);
  std::optional<Output> form;
  if (std::optional<int64_t> ld = rowMajorLd(x.rows, x.cols, x.rs, x.cs))
    form = Output{CblasRowMajor, *ld};
  else if (std::optional<int64_t> ldc = colMajorLd(x.rows, x.cols, x.rs, x.cs))
    form = Output{CblasColMajor, *ldc};
  if (!form || !fitsInt(form->ld))
    return std::nullopt;
  // Batches written one after another must not overlap.
  if (t.dim() == 3 && t.sizes()[0] > 1) {
    Expected<int64_t> matrixSpan =
        spanElements(t.sizes().subspan(1), t.strides().subspan(1));
    if (!matrixSpan || x.batchStride < *matrixSpan)
      return std::nullopt;
  }
  return form;
}

// float32 goes through cpu::sgemm (OpenBLAS, or oneDNN where OpenBLAS does
// not know the CPU: ops/cpu/parallel.h), which is row-major: a column-major
// product is the row-major product of the transposes, C^T = op(B)^T op(A)^T.
void gemmCall(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
              int m, int n, int k, double alpha, const float *a, int lda,
              const float *b, int ldb, double beta, float *c, int ldc) {
  const bool transA = ta != CblasNoTrans, transB = tb != CblasNoTrans;
  if (order == CblasRowMajor)
    sgemm(transA, transB, m, n, k, static_cast<float>(alpha), a, lda, b, ldb,
          static_cast<float>(beta), c, ldc);
  else
    sgemm(transB, transA, n, m, k, static_cast<float>(alpha), b, ldb, a, lda,
          static_cast<float>(beta), c, ldc);
}

void gemmCall(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
              int m, int n, int k, double alpha, const double *a, int lda,
              const double *b, int ldb, double beta, double *c, int ldc) {
  cblas_dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// C[p, i, j] *= beta for every element (zeroes it when beta is 0, whatever
// it held): the result when the inner dimension is empty.
template <typename T> void scaleStrided(const Tensor &c, double beta) {
  const Matrix x = matrixOf(c);
  const int64_t batch = c.dim() == 3 ? c.sizes()[0] : 1;
  T *base = static_cast<T *>(c.data());
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < x.rows; ++i)
      for (int64_t j = 0; j < x.cols; ++j) {
        T &value = base[p * x.batchStride + i * x.rs + j * x.cs];
        value = beta == 0.0 ? T(0) : static_cast<T>(beta * value);
      }
}

// An operand cblas can read in `order`: the tensor itself or a contiguous
// copy held by `keepAlive`.
Expected<Operand> readable(const Tensor &t, CBLAS_ORDER order,
                           std::optional<Tensor> &keepAlive,
                           const Tensor *&source) {
  source = &t;
  if (std::optional<Operand> form = asOperand(t, order))
    return *form;
  Expected<Tensor> copy = cloneContiguous(t);
  if (!copy)
    return copy.takeError();
  keepAlive = std::move(*copy);
  source = &*keepAlive;
  std::optional<Operand> form = asOperand(*keepAlive, order);
  if (!form)
    return Error::failure("matrix too large for cblas (leading dimension "
                          "exceeds INT_MAX)");
  return *form;
}

// --- Splitting one call into tiles, one per thread --------------------------

// Below this many multiply-adds a tile is not worth a thread of its own (a
// few microseconds of one core; OpenBLAS's own threshold is the same).
constexpr int64_t kMinTileMacs = int64_t{1} << 18;
// Column tiles start on 16-element (64-byte) boundaries, so two threads
// never write one cache line of a row-major C.
constexpr int64_t kColumnAlign = 16;

// Batch entry p, rows [i0, i1) and columns [j0, j1) of C.
struct Tile {
  int64_t p, i0, i1, j0, j1;
};

struct Tiling {
  int64_t batch, m, n, mStep, nStep, mTiles, nTiles;
  int threads;
  int64_t count() const { return batch * mTiles * nTiles; }
  Tile at(int64_t item) const {
    const int64_t jt = item % nTiles;
    const int64_t it = (item / nTiles) % mTiles;
    const int64_t p = item / (nTiles * mTiles);
    return {p, it * mStep, std::min(m, (it + 1) * mStep), jt * nStep,
            std::min(n, (jt + 1) * nStep)};
  }
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Whole matrices per thread when the batch alone gives every thread work;
// otherwise each matrix is cut into mTiles x nTiles blocks, the grid that
// gives the thread count with the least operand data per tile (rows of A
// plus columns of B it reads), no tile under kMinTileMacs.
Tiling tile(int64_t batch, int64_t m, int64_t n, int64_t k, int threads) {
  Tiling t{batch, m, n, m, n, 1, 1, 1};
  const int64_t wanted = std::min<int64_t>(
      threads, std::max<int64_t>(1, batch * m * n * k / kMinTileMacs));
  if (wanted > batch) {
    const int64_t perMatrix = ceilDiv(wanted, batch);
    int64_t best = -1;
    for (int64_t mt = 1; mt <= std::min(perMatrix, m); ++mt) {
      const int64_t nt = std::min(ceilDiv(perMatrix, mt), ceilDiv(n, kColumnAlign));
      const int64_t traffic = ceilDiv(m, mt) + ceilDiv(n, nt);
      if (best < 0 || traffic < best) {
        best = traffic;
        t.mTiles = mt;
        t.nTiles = nt;
      }
    }
    t.mStep = ceilDiv(m, t.mTiles);
    t.nStep = t.nTiles > 1 ? ceilDiv(ceilDiv(n, t.nTiles), kColumnAlign) *
                                 kColumnAlign
                           : n;
    t.mTiles = ceilDiv(m, t.mStep);
    t.nTiles = ceilDiv(n, t.nStep);
  }
  t.threads = static_cast<int>(std::min<int64_t>(wanted, t.count()));
  return t;
}

// The addend as C's shape reads it: element (p, i, j) at
// base[p * batchStride + i * rs + j * cs] (0 along broadcast dimensions).
struct Broadcast {
  const void *base;
  int64_t batchStride, rs, cs;
};

Expected<Broadcast> broadcastTo(const Tensor &addend, const Tensor &c) {
  const size_t nd = static_cast<size_t>(c.dim());
  const size_t ad = static_cast<size_t>(addend.dim());
  if (ad > nd)
    return Error::failure("the addend has more dimensions than the result");
  int64_t strides[3] = {0, 0, 0}; // batch, rows, columns
  for (size_t i = 0; i < ad; ++i) {
    const size_t dim = nd - ad + i;
    const int64_t size = addend.sizes()[i];
    if (size == c.sizes()[dim])
      strides[3 - nd + dim] = size == 1 ? 0 : addend.strides()[i];
    else if (size != 1)
      return Error::failure("the addend's size ", size,
                            " does not broadcast to ", c.sizes()[dim]);
  }
  return Broadcast{addend.data(), strides[0], strides[1], strides[2]};
}

// C's block of tile t (at c) = the addend's.
template <typename T>
void fillTile(const Broadcast &from, const Tile &t, const Matrix &mc, T *c) {
  const T *src = static_cast<const T *>(from.base) + t.p * from.batchStride;
  const int64_t cols = t.j1 - t.j0;
  for (int64_t i = t.i0; i < t.i1; ++i) {
    T *row = c + (i - t.i0) * mc.rs;
    const T *in = src + i * from.rs + t.j0 * from.cs;
    if (mc.cs == 1 && from.cs == 1) {
      std::memcpy(row, in, static_cast<size_t>(cols) * sizeof(T));
      continue;
    }
    for (int64_t j = 0; j < cols; ++j)
      row[j * mc.cs] = in[j * from.cs];
  }
}

template <typename T>
Error gemmTyped(const Tensor &out, const Tensor &a, const Tensor &b,
                const Tensor *addend, double beta, double alpha) {
  const size_t nd = static_cast<size_t>(out.dim());
  const int64_t batch = nd == 3 ? out.sizes()[0] : 1;
  const int64_t m = out.sizes()[nd - 2];
  const int64_t n = out.sizes()[nd - 1];
  const int64_t k = a.sizes()[nd - 1];
  if (batch == 0 || m == 0 || n == 0)
    return Error::success();
  if (!fitsInt(m) || !fitsInt(n) || !fitsInt(k))
    return Error::failure("matrix dimensions exceed INT_MAX (", m, "x", k,
                          " @ ", k, "x", n, ")");
  if (!addend)
    beta = 0.0;
  const bool inPlace = addend && beta != 0.0 && ops::sameView(*addend, out);

  // Where cblas writes: out, or a contiguous temporary copied to out last.
  std::optional<Tensor> staged;
  std::optional<Output> target = asOutput(out);
  if (!target || ops::overlaps(out, a) || ops::overlaps(out, b) ||
      (addend && beta != 0.0 && !inPlace && ops::overlaps(out, *addend))) {
    Expected<Tensor> temp =
        Tensor::emptyContiguous(out.sizes(), out.dtype(), out.device());
    if (!temp)
      return temp.takeError();
    staged = std::move(*temp);
    target = asOutput(*staged);
    if (!target)
      return Error::failure("output matrix too large for cblas");
  }
  const Tensor &result = staged ? *staged : out;
  // The addend is written into each tile of C by the thread that computes
  // the tile (while the tile is in its cache), unless it already is C.
  const Tensor *fill = beta != 0.0 && !(inPlace && !staged) ? addend : nullptr;

  if (k == 0) {
    if (fill)
      if (Error err = copyTensor(result, *fill, /*nonBlocking=*/false))
        return err;
    scaleStrided<T>(result, beta);
  } else {
    std::optional<Tensor> aCopy, bCopy;
    const Tensor *aSource = nullptr;
    const Tensor *bSource = nullptr;
    Expected<Operand> opA = readable(a, target->order, aCopy, aSource);
    if (!opA)
      return opA.takeError();
    Expected<Operand> opB = readable(b, target->order, bCopy, bSource);
    if (!opB)
      return opB.takeError();
    std::optional<Broadcast> fillView;
    if (fill) {
      Expected<Broadcast> view = broadcastTo(*fill, result);
      if (!view)
        return view.takeError();
      fillView = *view;
    }
    const Matrix ma = matrixOf(*aSource);
    const Matrix mb = matrixOf(*bSource);
    const Matrix mc = matrixOf(result);
    const T *aData = static_cast<const T *>(aSource->data());
    const T *bData = static_cast<const T *>(bSource->data());
    T *cData = static_cast<T *>(result.data());
    const Tiling tiling = tile(batch, m, n, k, cpuThreadCount());
    const SingleThreadedBlas blas;
    // Tile (p, rows [i0, i1), columns [j0, j1)) reads rows i0.. of A and
    // columns j0.. of B and writes only its own block of C: whatever order
    // an operand is stored in, a step along a logical row or column of it
    // moves its address by that dimension's stride.
    parallelFor(tiling.count(), tiling.threads, [&](int64_t item) {
      const Tile t = tiling.at(item);
      T *c = cData + t.p * mc.batchStride + t.i0 * mc.rs + t.j0 * mc.cs;
      if (fillView)
        fillTile(*fillView, t, mc, c);
      gemmCall(target->order, opA->trans, opB->trans,
               static_cast<int>(t.i1 - t.i0), static_cast<int>(t.j1 - t.j0),
               static_cast<int>(k), alpha,
               aData + t.p * ma.batchStride + t.i0 * ma.rs,
               static_cast<int>(opA->ld),
               bData + t.p * mb.batchStride + t.j0 * mb.cs,
               static_cast<int>(opB->ld), beta, c,
               static_cast<int>(target->ld));
    });
  }
  if (staged)
    return copyTensor(out, *staged, /*nonBlocking=*/false);
  return Error::success();
}

// Visits every element of a tensor of `sizes` in row-major order, calling
// f(dstOffset, srcOffset) with offsets in elements under the two strides.
template <typename F>
void forEachElement(std::span<const int64_t> sizes,
                    std::span<const int64_t> dstStrides,
                    std::span<const int64_t> srcStrides, F &&f) {
  for (int64_t size : sizes)
    if (size == 0)
      return;
  const size_t nd = sizes.size();
  std::vector<int64_t> index(nd, 0);
  int64_t dst = 0, src = 0;
  while (true) {
    f(dst, src);
    size_t d = nd;
    while (d > 0) {
      --d;
      if (++index[d] < sizes[d]) {
        dst += dstStrides[d];
        src += srcStrides[d];
        break;
      }
      dst -= (sizes[d] - 1) * dstStrides[d];
      src -= (sizes[d] - 1) * srcStrides[d];
      index[d] = 0;
      if (d == 0)
        return;
    }
    if (nd == 0)
      return;
  }
}

float halfToFloat(ScalarType type, uint16_t bits) {
  return type == ScalarType::Float16 ? float16ToFloat(bits)
                                     : bfloat16ToFloat(bits);
}

uint16_t floatToHalf(ScalarType type, float value) {
  return type == ScalarType::Float16 ? floatToFloat16(value)
                                     : floatToBFloat16(value);
}

// A float32 tensor of t's shape (and strides, so broadcast addends stay
// cheap) holding t's float16/bfloat16 values.
Expected<Tensor> widened(const Tensor &t) {
  Expected<Tensor> wide =
      Tensor::emptyContiguous(t.sizes(), ScalarType::Float32, t.device());
  if (!wide)
    return wide;
  float *dst = static_cast<float *>(wide->data());
  const uint16_t *src = static_cast<const uint16_t *>(t.data());
  forEachElement(t.sizes(), wide->strides(), t.strides(),
                 [&](int64_t d, int64_t s) {
                   dst[d] = halfToFloat(t.dtype(), src[s]);
                 });
  return wide;
}

Error gemmHalf(const Tensor &out, const Tensor &a, const Tensor &b,
               const Tensor *addend, double beta, double alpha) {
  Expected<Tensor> wideA = widened(a);
  if (!wideA)
    return wideA.takeError();
  Expected<Tensor> wideB = widened(b);
  if (!wideB)
    return wideB.takeError();
  std::optional<Tensor> wideAddend;
  if (addend && beta != 0.0) {
    Expected<Tensor> wide = widened(*addend);
    if (!wide)
      return wide.takeError();
    wideAddend = std::move(*wide);
  }
  Expected<Tensor> wideOut =
      Tensor::emptyContiguous(out.sizes(), ScalarType::Float32, out.device());
  if (!wideOut)
    return wideOut.takeError();
  if (Error err = gemmTyped<float>(*wideOut, *wideA, *wideB,
                                   wideAddend ? &*wideAddend : nullptr, beta,
                                   alpha))
    return err;
  const float *src = static_cast<const float *>(wideOut->data());
  uint16_t *dst = static_cast<uint16_t *>(out.data());
  forEachElement(out.sizes(), out.strides(), wideOut->strides(),
                 [&](int64_t d, int64_t s) {
                   dst[d] = floatToHalf(out.dtype(), src[s]);
                 });
  return Error::success();
}

} // namespace

Error gemm(const Tensor &out, const Tensor &a, const Tensor &b,
           const Tensor *addend, double beta, double alpha) {
  switch (out.dtype()) {
  case ScalarType::Float32:
    return gemmTyped<float>(out, a, b, addend, beta, alpha);
  case ScalarType::Float64:
    return gemmTyped<double>(out, a, b, addend, beta, alpha);
  case ScalarType::Float16:
  case ScalarType::BFloat16:
    return gemmHalf(out, a, b, addend, beta, alpha);
  default:
    return Error::failure("unsupported dtype ", dtypeName(out.dtype()));
  }
}

} // namespace aoti::shims::ops::cpu
