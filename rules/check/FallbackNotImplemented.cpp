//===- FallbackNotImplemented.cpp - AOTI015 -------------------------------===//
//
// A model calls an ATen fallback (aoti_torch_<cpu|cuda>_<op>: inductor emits
// one for an op it does not generate code for), and the object in scope that
// implements the shims (it exports many aoti_torch_*; Check.cpp) does not
// define it. "Link an implementation of aoti_torch_*" (AOTI001) is no help
// there: one is linked, and it lacks the op. The fix is either to compile the
// model so that inductor generates the op itself, where torch has a switch
// for it, or to link a shim library that implements the op.
//
// Which ops this project's shims implement is read from the built
// libaoti_shims.so: cmake/AotiShimFallbacks.cmake lists its exports into
// ShimFallbacks.inc after every link of the library, so a fallback added to
// the shims is known here without an edit.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

std::optional<bool> projectShimsExport(StringRef Name) {
#define AOTI_SHIM_EXPORT(N) N,
  static const char *const Names[] = {
#include "ShimFallbacks.inc"
      nullptr};
#undef AOTI_SHIM_EXPORT
  if (!AOTI_SHIM_EXPORTS_KNOWN)
    return std::nullopt;
  static const StringSet<> Set = [] {
    StringSet<> S;
    for (const char *const *N = Names; *N; ++N)
      S.insert(*N);
    return S;
  }();
  return Set.contains(Name);
}

const RuleInfo &FallbackNotImplemented::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the model calls an ATen fallback op that the shim "
                          "library in scope does not implement"};
  return I;
}

namespace {

bool isOneOf(StringRef Op, std::initializer_list<StringRef> Bases) {
  for (StringRef B : Bases)
    if (Op == B || Op == (B + "_out").str())
      return true;
  return false;
}

/// The inductor setting that makes it generate Op itself, or empty.
std::string compileTimeWay(StringRef Op) {
  if (Op.contains("convolution"))
    return "compile the model so that inductor generates the convolution "
           "itself: aoti_compile_and_package(..., inductor_configs={"
           "\"max_autotune\": True, \"max_autotune_conv_backends\": "
           "\"TRITON\"})";
  if (isOneOf(Op, {"mm", "addmm", "bmm"}))
    return "compile the model so that inductor generates the matmul itself: "
           "aoti_compile_and_package(..., inductor_configs={\"max_autotune\": "
           "True, \"max_autotune_gemm_backends\": \"TRITON\"})";
  if (Op.starts_with("_scaled_dot_product_"))
    return "export the model with scaled_dot_product_attention decomposed "
           "into matmuls and softmax: run torch.export under `with "
           "torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):`";
  return "";
}

} // namespace

void FallbackNotImplemented::check(const CheckFacts &F,
                                   std::vector<Finding> &Out) const {
  forEachMissing(F, MissingReason::UnimplementedFallback,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    StringRef Name = S.Ref->Name;
    StringRef Op = fallbackOp(Name);
    const LoadedObject &Shim = F.Process->object(unsigned(S.ShimProvider));
    std::string Where =
        S.ShimProvider == 0
            ? "the shim library linked into " + fixtext::quote(fixtext::base(Shim.Path))
            : "the shim library in scope, " + fixtext::quote(fixtext::base(Shim.Path)) + ",";
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = Name.str();
    Fd.File = Shim.Path;
    Fd.Message = formatv("{0} is the {1} fallback for the ATen op {2}; {3} "
                         "does not implement it",
                         fixtext::quote(Name),
                         fallbackDevice(Name) == "cuda" ? "CUDA" : "CPU",
                         fixtext::quote(Op), Where)
                     .str();
    std::optional<bool> Ours = projectShimsExport(Name);
    std::string Provider =
        Ours && *Ours
            ? "aoti::shims implements it: link aoti::shims_static (or "
              "aoti::shims) in place of " + fixtext::quote(fixtext::base(Shim.Path))
        : Ours ? "no known provider implements it (aoti::shims does not): "
                 "implement " + fixtext::quote(Name) +
                     " in the shim library, or export the model so that it "
                     "does not call the op"
               : "no known provider implements it (this aoti-audit was built "
                 "without the shims, so it cannot say whether aoti::shims "
                 "does)";
    std::string Way = compileTimeWay(Op);
    Fd.Fix = Way.empty() ? Provider : Way + "; or: " + Provider;
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
