//===- LibraryNotFound.cpp - AOTI008 --------------------------------------===//
//
// A DT_NEEDED library that the search does not find: the host would not
// start, or the plugin's dlopen fails with "cannot open shared object file".
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &LibraryNotFound::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "a needed library is not found by the loader's "
                          "search"};
  return I;
}

void LibraryNotFound::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  auto Emit = [&](const MissingLibrary &M, StringRef Plugin) {
    const LoadedObject &Req = F.Process->object(M.Requester);
    Finding Fd = make();
    Fd.Plugin = Plugin.str();
    Fd.File = Req.Path;
    std::string Skipped;
    for (const std::string &S : M.Skipped)
      Skipped += "; skipped " + S;
    const fixtext::Vocabulary &V = fixtext::vocabularyFor(*Req.Bin);
    std::string Requester = fixtext::quote(fixtext::base(Req.Path));
    Fd.Message = fixtext::phrase(V.LibraryNotFoundMessage,
                                 fixtext::quote(M.Name), Requester,
                                 M.Tried.size(), Skipped,
                                 Plugin.empty() ? ": the host would not start"
                                                : V.PluginLibraryNotFound);
    Fd.Fix = fixtext::phrase(V.LibraryNotFoundFix, M.Name,
                             fixtext::quote(M.Name), fixtext::base(M.Name),
                             Requester);
    Out.push_back(std::move(Fd));
  };
  for (const MissingLibrary &M : F.HostMissingLibraries)
    Emit(M, "");
  for (const PluginFacts &P : F.Plugins)
    for (const MissingLibrary &M : P.MissingLibraries)
      Emit(M, P.Path);
}

} // namespace aoti::rules::check
