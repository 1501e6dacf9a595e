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
    Fd.Message = formatv("{0}, needed by {1}, is not found ({2} paths "
                         "tried{3}){4}",
                         fixtext::quote(M.Name),
                         fixtext::quote(fixtext::base(Req.Path)),
                         M.Tried.size(), Skipped,
                         Plugin.empty() ? ": the host would not start" : "")
                     .str();
    if (fixtext::isMachO(*Req.Bin)) {
      Fd.Message = formatv("{0}, loaded by {1}, is not found ({2} paths "
                           "tried{3}){4}",
                           fixtext::quote(M.Name),
                           fixtext::quote(fixtext::base(Req.Path)),
                           M.Tried.size(), Skipped,
                           Plugin.empty() ? ": the host would not start"
                                          : ": dlopen() fails with \"Library "
                                            "not loaded\"")
                       .str();
      Fd.Fix = formatv("put {0} where the load path leads, or load it as "
                       "@rpath/{1} and give {2} (or the executable) an "
                       "LC_RPATH to its directory (-Wl,-rpath,@loader_path/<dir>; "
                       "install_name_tool -change / -add_rpath fixes a built "
                       "file), or set DYLD_LIBRARY_PATH (audit with --env "
                       "DYLD_LIBRARY_PATH=... or --lib-path)",
                       fixtext::quote(M.Name), fixtext::base(M.Name),
                       fixtext::quote(fixtext::base(Req.Path)))
                   .str();
      Out.push_back(std::move(Fd));
      return;
    }
    Fd.Fix = formatv("add the directory that holds {0} to the RUNPATH of {1} "
                     "(-Wl,-rpath,'$ORIGIN/<dir>'), to LD_LIBRARY_PATH (audit "
                     "with --env LD_LIBRARY_PATH=... or --lib-path), or "
                     "install it where ld.so.cache lists it",
                     M.Name, fixtext::quote(fixtext::base(Req.Path)))
                 .str();
    Out.push_back(std::move(Fd));
  };
  for (const MissingLibrary &M : F.HostMissingLibraries)
    Emit(M, "");
  for (const PluginFacts &P : F.Plugins)
    for (const MissingLibrary &M : P.MissingLibraries)
      Emit(M, P.Path);
}

} // namespace aoti::rules::check
