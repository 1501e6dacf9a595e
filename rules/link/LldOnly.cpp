//===- LldOnly.cpp - AOTI209 ----------------------------------------------===//
//
// lld (and mold) resolve a reference against any archive on the line, before
// or after it, and let every shared library's references count; GNU ld and
// gold take from an archive only what is undefined when it is read, and drop
// an --as-needed library nothing needs at that point, references and all. A
// link line that gets its shims only under lld's rules breaks the day someone
// builds with the default linker. (lld's --warn-backrefs reports the first
// kind.)
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &LldOnly::info() const {
  static const RuleInfo I{Id, Name, Severity::Warning,
                          "the link gets a required symbol only under lld's "
                          "archive rules; GNU ld would leave it out"};
  return I;
}

void LldOnly::check(const LinkFacts &F,
                                     std::vector<Finding> &Out) const {
  if (!F.GnuReplay || F.GnuRequired.size() != F.Required.size())
    return;
  for (size_t I = 0; I < F.Required.size(); ++I) {
    const RequiredSymbol &Lld = F.Required[I];
    const RequiredSymbol &Gnu = F.GnuRequired[I];
    if (Gnu.Status != RequiredStatus::NotPulledIn || Lld.Object < 0)
      continue;
    const LinkedObject &O = F.Result.Objects[Lld.Object];
    if (O.Member < 0 && !F.Inputs[O.Input].Lazy)
      continue;
    Finding Fd = make();
    Fd.Symbol = Lld.Name;
    Fd.File = F.objectName(F.Result, Lld.Object);
    std::string W = fixtext::quote(fixtext::written(F, int(O.Input)));
    std::string Why;
    if (O.Why.ByInput >= 0 && size_t(O.Why.ByInput) < F.GnuReplay->Read.size() &&
        !F.GnuReplay->Read[O.Why.ByInput])
      Why = formatv("{0} refers to it, and GNU ld drops {0} (--as-needed, "
                    "and nothing needs it when it is read), references and "
                    "all",
                    fixtext::quote(F.inputName(O.Why.ByInput)))
                .str();
    else if (O.Why.ByObject >= 0)
      Why = formatv("{0} refers to it from after {1}, and GNU ld does not go "
                    "back to an archive it has read",
                    fixtext::quote(F.objectName(F.Result, O.Why.ByObject)), W)
                .str();
    else if (O.Why.ByInput >= 0)
      Why = formatv("{0} refers to it from after {1}, and GNU ld does not go "
                    "back to an archive it has read",
                    fixtext::quote(F.inputName(O.Why.ByInput)), W)
                .str();
    else
      Why = "GNU ld reads the line once, left to right";
    Fd.Message = formatv("ld.lld takes {0} from {1}, GNU ld and gold would "
                         "not: {2}",
                         fixtext::quote(Lld.Name), Fd.File, Why)
                     .str();
    Fd.Fix = formatv("force-link {0} (or put it after everything that refers "
                     "to it), so the line links the same with every linker",
                     W)
                 .str();
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
