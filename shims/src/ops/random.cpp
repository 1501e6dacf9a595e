//===- ops/random.cpp - The random fallbacks: generator, checks, entries --===//
//
// The process-wide generator and torch 2.11's random fallbacks, once for
// both devices (docs/ops/random.md has the whole design):
//
// Generator. One Philox4x32-10 stream for the process and both devices: a
// 64-bit seed (the key) and a 64-bit offset (the counter), under a mutex.
// A call reserves all the counters it draws before any work starts
// (reserveDraws), one per element, so its values depend on the seed and on
// the calls before it, not on threads, streams or launch shapes; and the
// same sequence of calls gives the same values on the CPU and on CUDA. The
// seed is aoti_shims_manual_seed's, else AOTI_SHIMS_SEED's (read once, at
// the first random call), else torch's default seed.
//
// Arguments, as torch's kernels check them:
//  - factories (rand, randn, randint, randperm): sizes >= 0; dtype (default
//    float32, int64 for randint and randperm); layout strided; a device
//    argument of the entry point's type (none: the CPU, or CUDA's current
//    device); pin_memory only for the CPU (accepted, not pinned). Results
//    are contiguous, as torch.empty(size) is;
//  - a generator argument must be None (a null pointer, or a pointer to a
//    null handle): no torch.Generator exists without LibTorch;
//  - randint's [low, high) is checked and adjusted per dtype as random_
//    does (check_from_to_in_range, and update_from/update_to for floating
//    dtypes); randint.low_out writes `out` in place, whose sizes must be
//    `size` (torch would resize it; a compiled model passes it right);
//  - the in-place bernoulli_ and randint.low_out refuse a self/out whose
//    elements overlap (a stride-0 dimension), as torch does;
//  - result strides are the meta functions': uniform's are self's own
//    (torch._decomp uniform: prims' uniform with stride=x.stride()),
//    normal_functional's and exponential's empty_like(self)'s; dropout's
//    mask is empty_like(input, bool), its output empty_like(input) when
//    train is true and p != 0, else input's own strides (the decomposition
//    returns input; it reads train None as false, the kernels as true).
//
//===----------------------------------------------------------------------===//
#include "ops/random.h"

#include "aoti/shim.h"
#include "copy.h"
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "ops/cpu/float16.h"
#include "tensor.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

// --- The generator ----------------------------------------------------------

struct Generator {
  std::mutex mutex;
  bool settled = false; // the seed is known (environment read or set)
  uint64_t seed = kDefaultRandomSeed;
  uint64_t offset = 0;
  std::string environmentError; // non-empty: AOTI_SHIMS_SEED is malformed
};

// Never destroyed: a model may draw during static destruction.
Generator &generator() {
  static Generator *state = new Generator;
  return *state;
}

// Reads AOTI_SHIMS_SEED the first time; `state.mutex` is held.
void settle(Generator &state) {
  if (state.settled)
    return;
  state.settled = true;
  Expected<std::optional<uint64_t>> seed =
      seedFromEnvironment(std::getenv("AOTI_SHIMS_SEED"));
  if (!seed)
    state.environmentError = seed.takeError().message();
  else if (*seed)
    state.seed = **seed;
}

// --- Arguments --------------------------------------------------------------

std::string listText(std::span<const int64_t> values) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < values.size(); ++i)
    os << (i ? ", " : "") << values[i];
  os << "]";
  return os.str();
}

Error requireDefaultGenerator(const AtenGeneratorHandle *generatorArg) {
  if (!generatorArg || !*generatorArg)
    return Error::success();
  return Error::failure(
      "'generator' is a torch.Generator, which cannot exist without LibTorch: "
      "libaoti_shims draws from its own process-wide generator "
      "(aoti_shims_manual_seed); pass None");
}

bool isFloating(ScalarType type) { return isFloatingType(type); }

Error requireFloating(ScalarType type, const char *name, const char *op) {
  if (isFloating(type))
    return Error::success();
  return Error::failure("'", name, "' has dtype ", dtypeName(type), "; ", op,
                        " needs a floating dtype (float16, bfloat16, "
                        "float32, float64)");
}

// What random_(from, to) writes: every integer type, bool and the floats.
bool isRandomIntegerDtype(ScalarType type) {
  return type == ScalarType::Bool || isAtenIntegralType(type) ||
         isBarebonesUnsignedType(type) || isFloatingType(type);
}

// bernoulli_'s self (AT_DISPATCH_ALL_TYPES_AND3(Bool, BFloat16, Half)) and
// randperm's result (ALL_TYPES_AND2(Half, BFloat16)).
bool isBernoulliSelfDtype(ScalarType type) {
  return !isBarebonesUnsignedType(type) && isRandomIntegerDtype(type);
}
bool isRandpermDtype(ScalarType type) {
  return type != ScalarType::Bool && isBernoulliSelfDtype(type);
}

/// Fails when `tensor` has a dimension of stride 0 (and size > 1): writing
/// it would write some memory twice.
Error requireNoOverlap(const Tensor &tensor, const char *name) {
  for (int64_t d = 0; d < tensor.dim(); ++d)
    if (tensor.sizes()[d] > 1 && tensor.strides()[d] == 0)
      return Error::failure(
          "'", name, "' has stride 0 in dimension ", d,
          ": some of its elements share one memory location, and writing "
          "them in place is not supported (clone it first)");
  return Error::success();
}

struct Factory {
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
};

/// A factory's size, dtype, layout, device and pin_memory arguments, as
/// the entry point of `entry` reads them.
Expected<Factory> readFactory(DeviceType entry, const int64_t *size,
                              int64_t sizeLen, const int32_t *dtype,
                              ScalarType fallback, const int32_t *layout,
                              const int32_t *device, int32_t deviceIndex,
                              const int32_t *pinMemory) {
  Factory f;
  if (sizeLen < 0 || (sizeLen > 0 && !size))
    return Error::failure("'size' is null or has a negative length ", sizeLen);
  f.sizes.assign(size, size + sizeLen);
  for (int64_t s : f.sizes)
    if (s < 0)
      return Error::failure("Trying to create tensor with negative dimension ",
                            s, ": ", listText(f.sizes));
  f.dtype = fallback;
  if (dtype) {
    Expected<ScalarType> type = toScalarType(*dtype);
    if (!type)
      return Error::failure("'dtype': ", type.takeError().message());
    f.dtype = *type;
  }
  if (layout && *layout != static_cast<int32_t>(Layout::Strided))
    return Error::failure("'layout' is ", *layout,
                          "; only strided tensors (layout 0) are supported");
  if (device && *device != static_cast<int32_t>(entry))
    return Error::failure("'device' has type ", *device, " but this is the ",
                          entry == DeviceType::CUDA ? "CUDA" : "CPU",
                          " entry point");
  // Without a device argument torch ignores device_index_.
  Expected<Device> resolved =
      resolveDevice(static_cast<int32_t>(entry), device ? deviceIndex : -1);
  if (!resolved)
    return Error::failure("'device': ", resolved.takeError().message());
  f.device = *resolved;
  if (pinMemory && *pinMemory && entry != DeviceType::CPU)
    return Error::failure("'pin_memory' is true for a CUDA tensor; only CPU "
                          "tensors can be pinned");
  return f;
}

/// empty_like(self)'s strides (memory_format=preserve): self's when it is
/// non-overlapping and dense, else ATen's infer_dense_strides: dense
/// strides in the order of self's (insertion sort from the innermost
/// dimension; a stride-0 dimension compares as ambiguous and stays put).
std::vector<int64_t> emptyLikeStrides(const Tensor &self) {
  const std::span<const int64_t> sizes = self.sizes(), strides = self.strides();
  if (self.isNonOverlappingAndDense())
    return {strides.begin(), strides.end()};
  const size_t rank = sizes.size();
  if (rank == 1)
    return {1};
  std::vector<size_t> perm(rank); // perm[0]: the innermost dimension
  for (size_t i = 0; i < rank; ++i)
    perm[i] = rank - 1 - i;
  auto order = [&](size_t a, size_t b) {
    if (strides[a] == 0 || strides[b] == 0)
      return 0;
    if (strides[a] != strides[b])
      return strides[a] < strides[b] ? -1 : 1;
    return sizes[a] > sizes[b] ? 1 : 0;
  };
  for (size_t i = 1; i < rank; ++i) {
    size_t moving = i;
    for (size_t j = i; j-- > 0;) {
      const int c = order(perm[j], perm[moving]);
      if (c > 0) {
        std::swap(perm[j], perm[moving]);
        moving = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> out(rank);
  int64_t step = 1;
  for (size_t i = 0; i < rank; ++i) {
    out[perm[i]] = step;
    if (sizes[perm[i]] > 1)
      step *= sizes[perm[i]];
  }
  return out;
}

// --- random_'s range per dtype ---------------------------------------------

// (int64)(T)value for a floating dtype, saturated to int64's range.
int64_t throughFloating(ScalarType type, int64_t value) {
  double rounded = static_cast<double>(value);
  const float f = static_cast<float>(value);
  if (type == ScalarType::Float32)
    rounded = f;
  else if (type == ScalarType::Float16)
    rounded = cpu::float16ToFloat(cpu::floatToFloat16(f));
  else if (type == ScalarType::BFloat16)
    rounded = cpu::bfloat16ToFloat(cpu::floatToBFloat16(f));
  if (rounded >= 0x1.0p63)
    return std::numeric_limits<int64_t>::max();
  if (rounded < -0x1.0p63)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(rounded);
}

int floatingDigits(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
    return 11;
  case ScalarType::BFloat16:
    return 8;
  case ScalarType::Float32:
    return 24;
  default:
    return 53;
  }
}

double floatingMax(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
    return 65504.0;
  case ScalarType::BFloat16:
    return 0x1.fep127;
  case ScalarType::Float32:
    return std::numeric_limits<float>::max();
  default:
    return std::numeric_limits<double>::max();
  }
}

int bitLength(int64_t magnitude) {
  int n = 0;
  while (magnitude >>= 1)
    ++n;
  return n;
}

/// [min, max] of an integer dtype or bool (uint64's max is int64's: the
/// bounds it is checked against are int64s).
std::pair<int64_t, int64_t> integerLimits(ScalarType type) {
  struct Row {
    ScalarType type;
    int64_t min, max;
  };
  static constexpr Row kRows[] = {{ScalarType::Bool, 0, 1},
                                  {ScalarType::UInt8, 0, 255},
                                  {ScalarType::Int8, -128, 127},
                                  {ScalarType::Int16, -32768, 32767},
                                  {ScalarType::UInt16, 0, 65535},
                                  {ScalarType::Int32, INT32_MIN, INT32_MAX},
                                  {ScalarType::UInt32, 0, UINT32_MAX},
                                  {ScalarType::UInt64, 0, INT64_MAX}};
  for (const Row &row : kRows)
    if (row.type == type)
      return {row.min, row.max};
  return {INT64_MIN, INT64_MAX}; // int64
}

/// Checks random_'s [from, to) for `type` and adjusts it as torch does;
/// returns the range to - from.
Expected<uint64_t> randomRange(ScalarType type, int64_t &from, int64_t &to) {
  if (from >= to)
    return Error::failure("random_ expects 'from' to be less than 'to', but "
                          "got from=",
                          from, " >= to=", to);
  if (isFloating(type)) {
    const double max = floatingMax(type);
    if (static_cast<double>(from) < -max || static_cast<double>(from) > max)
      return Error::failure("from is out of bounds for ", dtypeName(type));
    if (static_cast<double>(to - 1) < -max || static_cast<double>(to - 1) > max)
      return Error::failure("to - 1 is out of bounds for ", dtypeName(type));
    // update_from/update_to: move a bound the dtype rounds past inwards, so
    // that every value drawn converts to one in range.
    const int digits = floatingDigits(type);
    const int64_t fromPlus1 = throughFloating(type, from + 1);
    if (fromPlus1 < from)
      from = fromPlus1 +
             (int64_t{1} << (bitLength(std::abs(from + 1)) - digits + 1));
    const int64_t toMinus1 = throughFloating(type, to - 1);
    if (toMinus1 >= to)
      to =
          toMinus1 - (int64_t{1} << (bitLength(std::abs(to - 1)) - digits + 1));
    if (from >= to)
      return Error::failure("random_ expects 'from' casted to dtype to be "
                            "less than 'to' casted to dtype, but got from=",
                            from, " >= to=", to);
  } else {
    const auto [min, max] = integerLimits(type);
    if (from < min || from > max)
      return Error::failure("from is out of bounds for ", dtypeName(type));
    if (to - 1 < min || to - 1 > max)
      return Error::failure("to - 1 is out of bounds for ", dtypeName(type));
  }
  return static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
}

// --- Running a problem on its device ---------------------------------------

bool onCuda(const Tensor &t) { return t.device().isCuda(); }

/// Fills `out` from `spec`, drawing one counter per element.
Error fillInto(const Tensor &out, const FillSpec &spec) {
  Expected<random::ElementWalk<1>> walk =
      walkOf<1>(out.sizes(), {out.strides()});
  if (!walk)
    return walk.takeError();
  if (walk->numel == 0)
    return Error::success();
  Expected<random::Draws> draws =
      reserveDraws(static_cast<uint64_t>(walk->numel));
  if (!draws)
    return draws.takeError();
  const FillProblem problem{spec, *walk, *draws};
  return onCuda(out) ? ops::cuda::randomFill(out, problem)
                     : ops::cpu::randomFill(out, problem);
}

// --- The entry points' bodies ----------------------------------------------

Error runFactoryFill(DeviceType entry, Distribution kind, const char *op,
                     const int64_t *size, int64_t sizeLen,
                     const AtenGeneratorHandle *generatorArg,
                     const int32_t *dtype, const int32_t *layout,
                     const int32_t *device, int32_t deviceIndex,
                     const int32_t *pinMemory, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (Error err = requireDefaultGenerator(generatorArg))
    return err;
  Expected<Factory> f =
      readFactory(entry, size, sizeLen, dtype, ScalarType::Float32, layout,
                  device, deviceIndex, pinMemory);
  if (!f)
    return f.takeError();
  if (Error err = requireFloating(f->dtype, "dtype", op))
    return err;
  FillSpec spec;
  spec.kind = kind;
  spec.a = 0;
  spec.b = 1; // uniform [0, 1); normal mean 0, std 1
  Expected<Tensor> out = Tensor::emptyContiguous(f->sizes, f->dtype, f->device);
  if (!out)
    return out.takeError();
  if (Error err = fillInto(*out, spec))
    return err;
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runRandint(DeviceType entry, int64_t low, int64_t high,
                 const int64_t *size, int64_t sizeLen,
                 const AtenGeneratorHandle *generatorArg, const int32_t *dtype,
                 const int32_t *layout, const int32_t *device,
                 int32_t deviceIndex, const int32_t *pinMemory,
                 AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (Error err = requireDefaultGenerator(generatorArg))
    return err;
  Expected<Factory> f =
      readFactory(entry, size, sizeLen, dtype, ScalarType::Int64, layout,
                  device, deviceIndex, pinMemory);
  if (!f)
    return f.takeError();
  if (!isRandomIntegerDtype(f->dtype))
    return Error::failure("'dtype' ", dtypeName(f->dtype),
                          " is not a randint dtype (integers, bool, floats)");
  FillSpec spec;
  spec.kind = Distribution::Integer;
  Expected<uint64_t> range = randomRange(f->dtype, low, high);
  if (!range)
    return range.takeError();
  spec.low = low;
  spec.range = *range;
  Expected<Tensor> out = Tensor::emptyContiguous(f->sizes, f->dtype, f->device);
  if (!out)
    return out.takeError();
  if (Error err = fillInto(*out, spec))
    return err;
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runRandintOut(DeviceType entry, AtenTensorHandle outHandle, int64_t low,
                    int64_t high, const int64_t *size, int64_t sizeLen) {
  Expected<Tensor *> outOr = fromHandle(outHandle, "out");
  if (!outOr)
    return outOr.takeError();
  const Tensor &out = **outOr;
  if (Error err = requireDevice(out, "out", entry, "randint.low_out"))
    return err;
  if (sizeLen < 0 || (sizeLen > 0 && !size))
    return Error::failure("'size' is null or has a negative length ", sizeLen);
  const std::span<const int64_t> sizes(size, static_cast<size_t>(sizeLen));
  if (!std::equal(sizes.begin(), sizes.end(), out.sizes().begin(),
                  out.sizes().end()))
    return Error::failure("'out' has sizes ", listText(out.sizes()),
                          " but 'size' is ", listText(sizes),
                          "; the shims do not resize an out tensor");
  if (!isRandomIntegerDtype(out.dtype()))
    return Error::failure("'out' has dtype ", dtypeName(out.dtype()),
                          ", which randint does not write");
  if (Error err = requireNoOverlap(out, "out"))
    return err;
  FillSpec spec;
  spec.kind = Distribution::Integer;
  Expected<uint64_t> range = randomRange(out.dtype(), low, high);
  if (!range)
    return range.takeError();
  spec.low = low;
  spec.range = *range;
  return fillInto(out, spec);
}

Error runRandperm(DeviceType entry, int64_t n, const int32_t *dtype,
                  const int32_t *layout, const int32_t *device,
                  int32_t deviceIndex, const int32_t *pinMemory,
                  AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (n < 0)
    return Error::failure("n must be non-negative, got ", n);
  const int64_t sizes[] = {n};
  Expected<Factory> f = readFactory(entry, sizes, 1, dtype, ScalarType::Int64,
                                    layout, device, deviceIndex, pinMemory);
  if (!f)
    return f.takeError();
  if (!isRandpermDtype(f->dtype))
    return Error::failure("'dtype' ", dtypeName(f->dtype),
                          " is not a randperm dtype (integers but bool and "
                          "uint16/32/64, floats)");
  // check_supported_max_int_with_precision: n - 1 must fit the dtype, and a
  // floating dtype must hold every integer below n.
  const int64_t largest = n > 0 ? n - 1 : 0;
  if (!isFloating(f->dtype) && largest > integerLimits(f->dtype).second)
    return Error::failure("n is too large for result tensor type: '",
                          dtypeName(f->dtype), "'");
  if (f->dtype == ScalarType::Float16 && n > (int64_t{1} << 11) + 1)
    return Error::failure("n cannot be greater than 2049 for Half type.");
  if (f->dtype == ScalarType::Float32 && n > (int64_t{1} << 24) + 1)
    return Error::failure("n cannot be greater than 2^24+1 for Float type.");
  if (f->dtype == ScalarType::Float64 && n > (int64_t{1} << 53) + 1)
    return Error::failure("n cannot be greater than 2^53+1 for Double type.");
  Expected<Tensor> out = Tensor::emptyContiguous(f->sizes, f->dtype, f->device);
  if (!out)
    return out.takeError();
  if (n > 0) {
    Expected<random::Draws> draws = reserveDraws(static_cast<uint64_t>(n));
    if (!draws)
      return draws.takeError();
    const RandpermProblem problem{n, *draws};
    Error err = onCuda(*out) ? ops::cuda::randperm(*out, problem)
                             : ops::cpu::randperm(*out, problem);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

/// The self of an in-place bernoulli_, checked.
Expected<const Tensor *> bernoulliSelf(DeviceType entry,
                                       AtenTensorHandle selfHandle) {
  Expected<Tensor *> self = fromHandle(selfHandle, "self");
  if (!self)
    return self.takeError();
  if (Error err = requireDevice(**self, "self", entry, "bernoulli_"))
    return err;
  if (!isBernoulliSelfDtype((*self)->dtype()))
    return Error::failure("'self' has dtype ", dtypeName((*self)->dtype()),
                          ", which bernoulli_ does not write");
  if (Error err = requireNoOverlap(**self, "self"))
    return err;
  return const_cast<const Tensor *>(*self);
}

Error runBernoulliScalar(DeviceType entry, AtenTensorHandle selfHandle,
                         double p, const AtenGeneratorHandle *generatorArg) {
  Expected<const Tensor *> self = bernoulliSelf(entry, selfHandle);
  if (!self)
    return self.takeError();
  if (Error err = requireDefaultGenerator(generatorArg))
    return err;
  if (!(p >= 0 && p <= 1))
    return Error::failure("bernoulli_ expects p to be in [0, 1], but got p=",
                          p);
  FillSpec spec;
  spec.kind = Distribution::Bernoulli;
  spec.a = p;
  return fillInto(**self, spec);
}

Error runBernoulliTensor(DeviceType entry, AtenTensorHandle selfHandle,
                         AtenTensorHandle pHandle,
                         const AtenGeneratorHandle *generatorArg) {
  Expected<const Tensor *> selfOr = bernoulliSelf(entry, selfHandle);
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Tensor *> pOr = fromHandle(pHandle, "p");
  if (!pOr)
    return pOr.takeError();
  if (Error err = requireDefaultGenerator(generatorArg))
    return err;
  Tensor p = **pOr;
  if (Error err = requireFloating(p.dtype(), "p", "bernoulli_"))
    return err;
  // expand_inplace(self, p): p's sizes broadcast to self's, trailing
  // dimensions aligned.
  const int64_t rank = self.dim(), pRank = p.dim();
  if (pRank > rank)
    return Error::failure("'p' has ", pRank, " dimensions, more than self's ",
                          rank, ": it cannot be expanded to self's sizes ",
                          listText(self.sizes()));
  std::vector<int64_t> pStrides(static_cast<size_t>(rank), 0);
  for (int64_t d = 0; d < pRank; ++d) {
    const int64_t sd = d + rank - pRank;
    const int64_t ps = p.sizes()[d], ss = self.sizes()[sd];
    if (ps != ss && ps != 1)
      return Error::failure("The expanded size of the tensor (", ss,
                            ") must match the existing size (", ps,
                            ") at non-singleton dimension ", sd,
                            ".  Target sizes: ", listText(self.sizes()),
                            ".  Tensor sizes: ", listText(p.sizes()));
  }
  if (self.numel() == 0)
    return Error::success();
  // p on another device is copied to self's, as torch does (p_.to(...)).
  if (!p.device().sameMemory(self.device())) {
    Expected<Tensor> moved =
        Tensor::emptyContiguous(p.sizes(), p.dtype(), self.device());
    if (!moved)
      return moved.takeError();
    if (Error err = copyTensor(*moved, p, /*nonBlocking=*/false))
      return err;
    p = *moved;
  }
  for (int64_t d = 0; d < pRank; ++d) {
    const int64_t sd = d + rank - pRank;
    if (p.sizes()[d] == self.sizes()[sd])
      pStrides[static_cast<size_t>(sd)] = p.strides()[d];
  }
  // torch's CPU kernel refuses a probability outside [0, 1]; checked
  // before anything is drawn or written. (Its CUDA kernel asserts on the
  // device; reading p back here would synchronise, so CUDA takes p as it
  // is: above 1 always, below 0 or NaN never.)
  if (!onCuda(self))
    if (Error err = ops::cpu::checkProbabilities(p))
      return err;
  Expected<random::ElementWalk<2>> walk =
      walkOf<2>(self.sizes(), {self.strides(), pStrides});
  if (!walk)
    return walk.takeError();
  Expected<random::Draws> draws =
      reserveDraws(static_cast<uint64_t>(walk->numel));
  if (!draws)
    return draws.takeError();
  const BernoulliProblem problem{*walk, *draws};
  return onCuda(self) ? ops::cuda::bernoulli(self, p, problem)
                      : ops::cpu::bernoulli(self, p, problem);
}

/// uniform, normal_functional, exponential: a new tensor like self.
Error runFunctional(DeviceType entry, const char *op,
                    AtenTensorHandle selfHandle, const FillSpec &spec,
                    const AtenGeneratorHandle *generatorArg,
                    AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = fromHandle(selfHandle, "self");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDevice(self, "self", entry, op))
    return err;
  if (Error err = requireDefaultGenerator(generatorArg))
    return err;
  if (Error err = requireFloating(self.dtype(), "self", op))
    return err;
  const double max = floatingMax(self.dtype());
  switch (spec.kind) {
  case Distribution::Uniform:
    if (!(spec.a >= -max && spec.a <= max))
      return Error::failure("from is out of bounds for ",
                            dtypeName(self.dtype()));
    if (!(spec.b >= -max && spec.b <= max))
      return Error::failure("to is out of bounds for ",
                            dtypeName(self.dtype()));
    if (spec.a > spec.b)
      return Error::failure("uniform_ expects to return a [from, to) range, "
                            "but found from=",
                            spec.a, " > to=", spec.b);
    if (!(spec.b - spec.a <= max))
      return Error::failure("uniform_ expects to-from <= the largest ",
                            dtypeName(self.dtype()), ", but found to=", spec.b,
                            " and from=", spec.a);
    break;
  case Distribution::Normal:
    if (!(spec.b >= 0)) // torch: std >= 0 (an infinite std passes)
      return Error::failure("normal expects std >= 0.0, but found std ",
                            spec.b);
    break;
  case Distribution::Exponential:
    if (!(spec.a > 0 && std::isfinite(spec.a)))
      return Error::failure("exponential_ expects lambda > 0.0, but found "
                            "lambda=",
                            spec.a);
    break;
  default:
    break;
  }
  // uniform's meta keeps self's strides; the others' are empty_like(self).
  const std::vector<int64_t> strides =
      spec.kind == Distribution::Uniform
          ? std::vector<int64_t>(self.strides().begin(), self.strides().end())
          : emptyLikeStrides(self);
  Expected<Tensor> out =
      Tensor::empty(self.sizes(), strides, self.dtype(), self.device());
  if (!out)
    return out.takeError();
  if (Error err = fillInto(*out, spec))
    return err;
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runDropout(DeviceType entry, AtenTensorHandle inputHandle, double p,
                 const int32_t *train, AtenTensorHandle *ret0,
                 AtenTensorHandle *ret1) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (Error err = requireOutput(ret1, "ret1"))
    return err;
  Expected<Tensor *> inputOr = fromHandle(inputHandle, "input");
  if (!inputOr)
    return inputOr.takeError();
  const Tensor &input = **inputOr;
  if (Error err = requireDevice(input, "input", entry, "native_dropout"))
    return err;
  if (!(p >= 0 && p <= 1))
    return Error::failure("dropout probability has to be between 0 and 1, "
                          "but got ",
                          p);
  // torch's kernels: train None is training.
  const bool training = !train || *train != 0;
  if (training)
    if (Error err = requireFloating(input.dtype(), "input",
                                    "native_dropout in training"))
      return err;
  const std::vector<int64_t> likeStrides = emptyLikeStrides(input);
  // The strides are the decomposition's, which treats train None as false
  // ("if train and p != 0"; inductor compiles against it): input's own
  // unless an explicit train=True drops.
  const bool metaDrops = train && *train != 0 && p != 0;
  const std::vector<int64_t> outStrides =
      metaDrops ? likeStrides
                : std::vector<int64_t>(input.strides().begin(),
                                       input.strides().end());
  Expected<Tensor> out =
      Tensor::empty(input.sizes(), outStrides, input.dtype(), input.device());
  if (!out)
    return out.takeError();
  Expected<Tensor> mask = Tensor::empty(input.sizes(), likeStrides,
                                        ScalarType::Bool, input.device());
  if (!mask)
    return mask.takeError();
  if (input.numel() > 0) {
    DropoutProblem problem;
    Expected<random::ElementWalk<3>> walk = walkOf<3>(
        input.sizes(), {out->strides(), mask->strides(), input.strides()});
    if (!walk)
      return walk.takeError();
    problem.walk = *walk;
    problem.keep = 1.0 - p;
    problem.scale = problem.keep == 0 ? 0.0 : 1.0 / problem.keep;
    problem.mode = !training ? DropoutMode::Copy
                   : p == 1  ? DropoutMode::DropAll
                             : DropoutMode::Drop;
    if (training) {
      Expected<random::Draws> draws =
          reserveDraws(static_cast<uint64_t>(walk->numel));
      if (!draws)
        return draws.takeError();
      problem.draws = *draws;
    }
    Error err = onCuda(input) ? ops::cuda::dropout(*out, *mask, input, problem)
                              : ops::cpu::dropout(*out, *mask, input, problem);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  *ret1 = toHandle(std::move(*mask));
  return Error::success();
}

} // namespace

// --- The generator's interface ---------------------------------------------

namespace aoti::shims::ops {

Expected<std::optional<uint64_t>> seedFromEnvironment(const char *text) {
  if (!text || !*text)
    return std::optional<uint64_t>();
  std::string_view view(text);
  int base = 10;
  if (view.size() > 2 && view[0] == '0' && (view[1] == 'x' || view[1] == 'X')) {
    view.remove_prefix(2);
    base = 16;
  }
  uint64_t seed = 0;
  const char *end = view.data() + view.size();
  auto [ptr, ec] = std::from_chars(view.data(), end, seed, base);
  if (ec != std::errc() || ptr != end)
    return Error::failure("AOTI_SHIMS_SEED='", text,
                          "' is not a seed: expected an unsigned 64-bit "
                          "integer, decimal or 0x-hexadecimal");
  return std::optional<uint64_t>(seed);
}

Expected<random::Draws> reserveDraws(uint64_t count) {
  Generator &state = generator();
  std::lock_guard<std::mutex> lock(state.mutex);
  settle(state);
  if (!state.environmentError.empty())
    return Error::failure(state.environmentError,
                          " (or call aoti_shims_manual_seed)");
  const random::Draws draws{state.seed, state.offset};
  state.offset += count;
  return draws;
}

} // namespace aoti::shims::ops

extern "C" {

AOTI_SHIMS_API void aoti_shims_manual_seed(uint64_t seed) {
  Generator &state = generator();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.settled = true;
  state.environmentError.clear();
  state.seed = seed;
  state.offset = 0;
}

AOTI_SHIMS_API uint64_t aoti_shims_initial_seed(void) {
  Generator &state = generator();
  std::lock_guard<std::mutex> lock(state.mutex);
  settle(state);
  return state.seed;
}

// --- Entry points: two per op, one per device ------------------------------

#define AOTI_RANDOM_BOTH(NAME, PARAMS, CALL)                                   \
  AOTITorchError aoti_torch_cpu_##NAME PARAMS {                                \
    constexpr DeviceType entry = DeviceType::CPU;                              \
    return runShim(__func__, [&] { return CALL; });                            \
  }                                                                            \
  AOTITorchError aoti_torch_cuda_##NAME PARAMS {                               \
    constexpr DeviceType entry = DeviceType::CUDA;                             \
    return runShim(__func__, [&] { return CALL; });                            \
  }

AOTI_RANDOM_BOTH(rand,
                 (const int64_t *size, int64_t size_len_, int32_t *dtype,
                  int32_t *layout, int32_t *device, int32_t device_index_,
                  int32_t *pin_memory, AtenTensorHandle *ret0),
                 runFactoryFill(entry, Distribution::Uniform, "rand", size,
                                size_len_, nullptr, dtype, layout, device,
                                device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(rand_generator,
                 (const int64_t *size, int64_t size_len_,
                  AtenGeneratorHandle *generator, int32_t *dtype,
                  int32_t *layout, int32_t *device, int32_t device_index_,
                  int32_t *pin_memory, AtenTensorHandle *ret0),
                 runFactoryFill(entry, Distribution::Uniform, "rand", size,
                                size_len_, generator, dtype, layout, device,
                                device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randn,
                 (const int64_t *size, int64_t size_len_, int32_t *dtype,
                  int32_t *layout, int32_t *device, int32_t device_index_,
                  int32_t *pin_memory, AtenTensorHandle *ret0),
                 runFactoryFill(entry, Distribution::Normal, "randn", size,
                                size_len_, nullptr, dtype, layout, device,
                                device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randn_generator,
                 (const int64_t *size, int64_t size_len_,
                  AtenGeneratorHandle *generator, int32_t *dtype,
                  int32_t *layout, int32_t *device, int32_t device_index_,
                  int32_t *pin_memory, AtenTensorHandle *ret0),
                 runFactoryFill(entry, Distribution::Normal, "randn", size,
                                size_len_, generator, dtype, layout, device,
                                device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randint,
                 (int64_t high, const int64_t *size, int64_t size_len_,
                  int32_t *dtype, int32_t *layout, int32_t *device,
                  int32_t device_index_, int32_t *pin_memory,
                  AtenTensorHandle *ret0),
                 runRandint(entry, 0, high, size, size_len_, nullptr, dtype,
                            layout, device, device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randint_generator,
                 (int64_t high, const int64_t *size, int64_t size_len_,
                  AtenGeneratorHandle *generator, int32_t *dtype,
                  int32_t *layout, int32_t *device, int32_t device_index_,
                  int32_t *pin_memory, AtenTensorHandle *ret0),
                 runRandint(entry, 0, high, size, size_len_, generator, dtype,
                            layout, device, device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randint_low,
                 (int64_t low, int64_t high, const int64_t *size,
                  int64_t size_len_, int32_t *dtype, int32_t *layout,
                  int32_t *device, int32_t device_index_, int32_t *pin_memory,
                  AtenTensorHandle *ret0),
                 runRandint(entry, low, high, size, size_len_, nullptr, dtype,
                            layout, device, device_index_, pin_memory, ret0))
AOTI_RANDOM_BOTH(randint_low_out,
                 (AtenTensorHandle out, int64_t low, int64_t high,
                  const int64_t *size, int64_t size_len_),
                 runRandintOut(entry, out, low, high, size, size_len_))
AOTI_RANDOM_BOTH(randperm,
                 (int64_t n, int32_t *dtype, int32_t *layout, int32_t *device,
                  int32_t device_index_, int32_t *pin_memory,
                  AtenTensorHandle *ret0),
                 runRandperm(entry, n, dtype, layout, device, device_index_,
                             pin_memory, ret0))
AOTI_RANDOM_BOTH(bernoulli__Tensor,
                 (AtenTensorHandle self, AtenTensorHandle p,
                  AtenGeneratorHandle *generator),
                 runBernoulliTensor(entry, self, p, generator))
AOTI_RANDOM_BOTH(bernoulli__float,
                 (AtenTensorHandle self, double p,
                  AtenGeneratorHandle *generator),
                 runBernoulliScalar(entry, self, p, generator))
AOTI_RANDOM_BOTH(exponential,
                 (AtenTensorHandle self, double lambd,
                  AtenGeneratorHandle *generator, AtenTensorHandle *ret0),
                 runFunctional(entry, "exponential", self,
                               FillSpec{Distribution::Exponential, lambd, 0, 0,
                                        0},
                               generator, ret0))
AOTI_RANDOM_BOTH(normal_functional,
                 (AtenTensorHandle self, double mean, double std,
                  AtenGeneratorHandle *generator, AtenTensorHandle *ret0),
                 runFunctional(entry, "normal_functional", self,
                               FillSpec{Distribution::Normal, mean, std, 0, 0},
                               generator, ret0))
AOTI_RANDOM_BOTH(uniform,
                 (AtenTensorHandle self, double from, double to,
                  AtenGeneratorHandle *generator, AtenTensorHandle *ret0),
                 runFunctional(entry, "uniform", self,
                               FillSpec{Distribution::Uniform, from, to, 0, 0},
                               generator, ret0))
AOTI_RANDOM_BOTH(native_dropout,
                 (AtenTensorHandle input, double p, int32_t *train,
                  AtenTensorHandle *ret0, AtenTensorHandle *ret1),
                 runDropout(entry, input, p, train, ret0, ret1))

#undef AOTI_RANDOM_BOTH

} // extern "C"
