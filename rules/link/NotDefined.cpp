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

namespace aoti::rules {

const RuleInfo &LinkNotDefined::info() const {
  static const RuleInfo I{"AOTI205", "link-not-defined", Severity::Error,
                          "no input on the link line defines a required "
                          "symbol"};
  return I;
}

void LinkNotDefined::check(const LinkFacts &F,
                           std::vector<Finding> &Out) const {
  std::string From;
  for (const std::string &S : F.RequiredFrom)
    From += (From.empty() ? "" : ", ") + F.displayPath(S);
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::NotDefined)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.displayPath(F.Line.Output);
    Fd.Message = formatv("nothing on the link line defines {0}{1}",
                         linkfix::quote(Q.Name),
                         From.empty() ? std::string()
                                      : " (required by " + From + ")")
                     .str();
    Fd.Fix = "add the shim archive (or the object or library that defines "
             "it) to the link line, force-linked";
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules
