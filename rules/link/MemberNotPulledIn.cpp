//===- MemberNotPulledIn.cpp - AOTI201 ------------------------------------===//
//
// A required name is defined in an archive member the link leaves out. A
// static link extracts a member only to satisfy a reference, and nothing
// calls most shims: they are meant for a plugin that is loaded later.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &MemberNotPulledIn::info() const {
  static const RuleInfo I{Id, Name,
                          Severity::Error,
                          "the link line leaves out the archive member that "
                          "defines a required symbol"};
  return I;
}

void MemberNotPulledIn::check(const LinkFacts &F,
                                  std::vector<Finding> &Out) const {
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::NotPulledIn)
      continue;
    const LinkInput &In = F.Inputs[Q.Input];
    std::string Archive = F.inputName(Q.Input);
    std::string Where =
        Q.Member >= 0 ? Archive + "(" + In.Ar->members()[Q.Member].Name + ")"
                      : Archive + " (between --start-lib and --end-lib)";
    std::string Written = fixtext::quote(fixtext::written(F, Q.Input));
    std::string Reason;
    switch (Q.Why) {
    case RequiredSymbol::NotPulled::ReferencedAfter:
      Reason = formatv("{0} refers to it, but comes after {1} on the line, "
                       "and GNU ld does not go back to an archive it has read",
                       fixtext::quote(F.objectName(F.Result, Q.LaterReference)),
                       Written)
                   .str();
      break;
    case RequiredSymbol::NotPulled::WeakOnly:
      Reason = "only weak references name it, and a weak reference never "
               "pulls a member out of an archive";
      break;
    default:
      Reason = F.Result.Flavor == LinkFlavor::GNU
                   ? formatv("nothing referenced {0} before {1} was read",
                             fixtext::quote(Q.Name), Written)
                         .str()
                   : formatv("nothing on the link line refers to {0}, and "
                             "{1} links a member only to satisfy a "
                             "reference",
                             fixtext::quote(Q.Name), fixtext::linkerName(F))
                         .str();
      break;
    }
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = Where;
    Fd.Message = formatv("{0} is defined in {1}, which the link leaves out: "
                         "{2}",
                         fixtext::quote(Q.Name), Where, Reason)
                     .str();
    Fd.Fix = fixtext::pullInAndExport(F, Q.Input);
    if (!F.AddedByFix.empty())
      Fd.Fix += formatv(" (this adds {0} multiple definition(s), see AOTI207)",
                        F.AddedByFix.size())
                    .str();
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
