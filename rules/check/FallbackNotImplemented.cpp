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
// the shims is known here without an edit. The same file carries torch
// 2.11's fallback list with each op's family (shims/coverage/), so the fix
// can say what kind of gap it is: an op of torch's list that aoti::shims
// does not implement yet, a backward op (out of the shims' scope), or a
// name torch 2.11 never emits (another torch, or a custom op).
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

std::optional<bool> projectShimsExport(StringRef Name) {
#define AOTI_SHIM_EXPORT(N) N,
#define AOTI_TORCH_FALLBACK(N, F, K)
  static const char *const Names[] = {
#include "ShimFallbacks.inc"
      nullptr};
#undef AOTI_TORCH_FALLBACK
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

std::optional<TorchFallback> torchFallback(StringRef Name) {
  struct Row {
    const char *Name, *Family, *Kind;
  };
#define AOTI_SHIM_EXPORT(N)
#define AOTI_TORCH_FALLBACK(N, F, K) {N, F, K},
  static const Row Rows[] = {
#include "ShimFallbacks.inc"
      {nullptr, nullptr, nullptr}};
#undef AOTI_TORCH_FALLBACK
#undef AOTI_SHIM_EXPORT
  static const StringMap<TorchFallback> Map = [] {
    StringMap<TorchFallback> M;
    for (const Row *R = Rows; R->Name; ++R)
      M[R->Name] = TorchFallback{R->Family, R->Kind};
    return M;
  }();
  auto It = Map.find(Name);
  if (It == Map.end())
    return std::nullopt;
  return It->second;
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

/// Why aoti::shims lacks Name, and what to do, from torch's list.
std::string whyNotOurs(StringRef Name, StringRef Op) {
  std::optional<TorchFallback> T = torchFallback(Name);
  if (!T)
    return "torch 2.11's fallback list has no " + fixtext::quote(Name) +
           ", so the model was compiled by another torch version or calls "
           "a custom op; aoti::shims implements torch 2.11's entries: "
           "export the model with torch 2.11, or implement the op in the "
           "shim library";
  if (T->Kind == "backward")
    return fixtext::quote(Op) +
           " computes a gradient, which aoti::shims leaves out (it runs "
           "inference): export the model in eval mode under torch.no_grad() "
           "so that no backward op is compiled";
  if (T->Kind != "forward")
    return "aoti::shims has no sparse layout: export the model without "
           "the to_sparse conversion";
  return "aoti::shims does not implement it yet (it is in torch 2.11's "
         "list, op family " + fixtext::quote(T->Family) +
         "; docs/shims.md's coverage table says what is done): implement " +
         fixtext::quote(Name) +
         " in the shim library, or export the model so that it does not "
         "call the op";
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
        : Ours ? "no known provider implements it: " + whyNotOurs(Name, Op)
               : "no known provider implements it (this aoti-audit was built "
                 "without the shims, so it cannot say whether aoti::shims "
                 "does)";
    std::string Way = compileTimeWay(Op);
    Fd.Fix = Way.empty() ? Provider : Way + "; or: " + Provider;
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
