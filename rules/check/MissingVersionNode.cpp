//===- MissingVersionNode.cpp - AOTI007 -----------------------------------===//
//
// An object requires a version node (.gnu.version_r) that the library it
// names does not define (.gnu.version_d). ld.so refuses the whole object:
// "version `GLIBC_2.38' not found". A model built on a newer glibc than the
// host runs on fails this way although every name exists.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &MissingVersionNode::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "an object needs a symbol version its library does "
                          "not define; the loader refuses to load it"};
  return I;
}

/// The newest "PREFIX_x.y[.z]" node a library defines, for the message.
static std::string newestLike(const Binary &Lib, StringRef Wanted) {
  StringRef Family = Wanted.take_until([](char C) { return C == '_'; });
  auto Key = [](StringRef V) {
    SmallVector<unsigned, 4> Parts;
    V = V.drop_until([](char C) { return C == '_'; }).drop_front();
    SmallVector<StringRef, 4> Fields;
    V.split(Fields, '.');
    for (StringRef F : Fields) {
      unsigned N = 0;
      if (F.getAsInteger(10, N))
        return SmallVector<unsigned, 4>();
      Parts.push_back(N);
    }
    return Parts;
  };
  StringRef Best;
  SmallVector<unsigned, 4> BestKey;
  for (const VersionDefinition &D : Lib.versionDefinitions()) {
    if (D.IsBase || !D.Name.starts_with(Family) ||
        D.Name.size() <= Family.size() || D.Name[Family.size()] != '_')
      continue;
    auto K = Key(D.Name);
    if (!K.empty() && (Best.empty() || std::lexicographical_compare(
                                           BestKey.begin(), BestKey.end(),
                                           K.begin(), K.end()))) {
      Best = D.Name;
      BestKey = K;
    }
  }
  return Best.str();
}

void MissingVersionNode::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  auto Emit = [&](const audit::MissingVersionNode &V, StringRef Plugin) {
    const LoadedObject &Req = F.Process->object(V.Requester);
    Finding Fd = make();
    if (V.Weak)
      Fd.Sev = Severity::Warning;
    Fd.Plugin = Plugin.str();
    Fd.File = Req.Path;
    std::string ProviderPath =
        V.Provider >= 0 ? F.Process->object(V.Provider).Path : V.Library;
    std::string Newest =
        V.Provider >= 0 ? newestLike(*F.Process->object(V.Provider).Bin, V.Version)
                        : std::string();
    if (V.HashMismatch) {
      // The name is there; the hash the requirement records is not the one
      // the definition records. ld.so compares both.
      Fd.Message = formatv("{0} requires version {1} of {2}; {3} defines a "
                           "node of that name, but with another hash (vd_hash "
                           "is not the requirement's vna_hash), so the loader "
                           "refuses to load it (\"version `{4}' not found\")",
                           fixtext::quote(fixtext::base(Req.Path)),
                           fixtext::quote(V.Version), V.Library,
                           fixtext::quote(ProviderPath), V.Version)
                       .str();
      Fd.Fix = formatv("one of the two files was edited or written by a tool "
                       "that got the ELF hash of {0} wrong: rebuild {1} and "
                       "{2} with a standard linker, and do not patch version "
                       "sections",
                       V.Version, fixtext::quote(fixtext::base(Req.Path)),
                       fixtext::quote(fixtext::base(ProviderPath)))
                   .str();
      Out.push_back(std::move(Fd));
      return;
    }
    Fd.Message = formatv("{0} requires version {1} of {2}, which {3} does not "
                         "define{4}: the loader refuses to load it (\"version "
                         "`{5}' not found\")",
                         fixtext::quote(fixtext::base(Req.Path)),
                         fixtext::quote(V.Version), V.Library,
                         fixtext::quote(ProviderPath),
                         Newest.empty() ? "" : " (its newest is " + Newest + ")",
                         V.Version)
                     .str();
    Fd.Fix = formatv("build {0} against the oldest {1} it must run with (an "
                     "older toolchain or a sysroot), or run it where {1} "
                     "provides {2}",
                     fixtext::quote(fixtext::base(Req.Path)), V.Library,
                     V.Version)
                 .str();
    Out.push_back(std::move(Fd));
  };
  for (const audit::MissingVersionNode &V : F.HostMissingVersions)
    Emit(V, "");
  for (const PluginFacts &P : F.Plugins)
    for (const audit::MissingVersionNode &V : P.MissingVersions)
      Emit(V, P.Path);
}

} // namespace aoti::rules::check
