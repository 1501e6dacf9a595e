//===- MultipleDefinition.cpp - AOTI206 -----------------------------------===//
//
// Two strong definitions of one name among the objects the link takes (the
// ones on the line and the members it extracts) stop the link. Definitions in
// shared libraries, weak and common ones never collide; nor does a member the
// link never extracts (AOTI207 is about those).
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &MultipleDefinition::info() const {
  static const RuleInfo I{Id, Name,
                          Severity::Error,
                          "two objects the link takes define the same strong "
                          "symbol: the link fails"};
  return I;
}

void MultipleDefinition::check(const LinkFacts &F,
                                   std::vector<Finding> &Out) const {
  for (const audit::MultipleDefinition &M : F.Result.MultipleDefinitions) {
    Finding Fd = make();
    Fd.Symbol = M.Symbol;
    std::string Shown = fixtext::linkerSpelling(F, M.Symbol); // as ld does
    std::string A = F.objectName(F.Result, M.First);
    std::string B = F.objectName(F.Result, M.Second);
    Fd.File = B;
    Fd.Message = formatv("{0} is defined in both {1} and {2}; {3} stops with "
                         "\"{4}\"",
                         fixtext::quote(Shown), A, B, fixtext::linkerName(F),
                         F.Line.Flavor != LinkFlavor::GNU
                             ? "duplicate symbol: " + Shown
                             : "multiple definition of `" + Shown + "'")
                     .str();
    Fd.Fix = "keep one definition: drop one object or member from the link, "
             "rename one, or make one `static` (or weak, if both are meant "
             "to be interchangeable)";
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
