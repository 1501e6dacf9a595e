//===- NotDefined.cpp - AOTI205 -------------------------------------------===//
//
// A required name that no input on the line defines at all: not an object,
// not an archive member, not a shared library.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &NotDefined::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "no input on the link line defines a required "
                          "symbol"};
  return I;
}

void NotDefined::check(const LinkFacts &F,
                           std::vector<Finding> &Out) const {
  std::string From;
  for (const std::string &S : F.RequiredFrom)
    From += (From.empty() ? "" : ", ") + F.displayPath(S);
  // Name what was read: a wrong or empty file where the shim archive
  // should be is the usual cause.
  std::string Read;
  unsigned Shown = 0, Total = 0;
  for (unsigned I = 0; I < F.Inputs.size(); ++I) {
    if (F.Inputs[I].InputKind == LinkInput::Kind::Missing)
      continue;
    if (++Total <= 4)
      Read += (Shown++ ? ", " : "") + F.inputName(int(I));
  }
  if (Total > Shown)
    Read += formatv(" and {0} more", Total - Shown).str();
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::NotDefined)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.displayPath(F.Line.Output);
    Fd.Message = formatv("nothing on the link line defines {0}{1}",
                         fixtext::quote(Q.Name),
                         From.empty() ? std::string()
                                      : " (required by " + From + ")")
                     .str();
    if (Total)
      Fd.Message += "; the line's inputs: " + Read;
    Fd.Fix = "add the shim archive (or the object or library that defines "
             "it) to the link line, force-linked";
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
