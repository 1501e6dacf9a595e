//===- Dups.cpp - The facts behind `aoti-audit dups` ----------------------===//
//
// Six passes, shaped so that the expensive part -- parsing archive members
// -- happens only for members that define a name somebody else defines too:
//
//  1. Read every input, several at once (one input per task; an Archive
//     caches its members and is not thread-safe, so no two threads share
//     one). An archive with a symbol index contributes its index entries
//     as-is -- name and member, nothing parsed. A loose object contributes
//     its global definitions, a shared library its exported ones.
//  2. Merge every definition into one table, name -> definitions. The names'
//     hashes were computed in pass 1, in parallel.
//  3. A name with definitions in two or more places, that the options ask
//     about, is a candidate. Only now are archive members opened (again one
//     archive per task) to learn each candidate definition's binding and
//     type. An index entry the member does not back (a stale index) is
//     dropped.
//  4. Each candidate becomes a Duplicate unless, once the shared builds of
//     archives are set aside (libfoo.so next to libfoo.a: a link takes one
//     or the other), fewer than two definitions are left.
//  5. Only if some duplicate has a definition in an archive member or a
//     shared library: walk the references from the loose objects to find
//     out which members and libraries a plain link pulls in (Dups.h says
//     what "a plain link" means). Members are opened here only when they are
//     pulled in, to follow their own references.
//  6. C++ names of the duplicates are demangled, in parallel. (With
//     prefixes a mangled name is demangled in pass 3 already: the prefix is
//     matched against the demangled name.)
//
// Before pass 1 the command line is expanded: @files, directories (only
// the binaries in them; other files are skipped and counted) and GNU ld
// input scripts, which are replaced by the files they name (libm.a is
// GROUP(libm-2.36.a libmvec.a)). An input named on the line that cannot be
// read is reported and the others are still analysed, as nm does; one found
// in a directory is skipped.
//
// Everything is built in its final order -- duplicates by name, each one's
// definitions by file and member -- by sorting small handles before the
// facts are made, never the facts themselves.
//
// This file runs the passes and names the facts' values; Passes.h says which
// file holds each pass.
//
#include "Passes.h"

#include <chrono>

using namespace llvm;

namespace aoti::audit {

StringRef toString(DuplicateKind K) {
  switch (K) {
  case DuplicateKind::StrongStrong: return "strong-strong";
  case DuplicateKind::StrongWeak: return "strong-weak";
  case DuplicateKind::WeakWeak: return "weak-weak";
  case DuplicateKind::Common: return "common";
  }
  return "?";
}

StringRef toString(DefinitionOrigin O) {
  switch (O) {
  case DefinitionOrigin::Object: return "object";
  case DefinitionOrigin::ArchiveMember: return "archive-member";
  case DefinitionOrigin::SharedLibrary: return "shared-library";
  }
  return "?";
}

StringRef toString(DefinitionStrength S) {
  switch (S) {
  case DefinitionStrength::Strong: return "strong";
  case DefinitionStrength::Weak: return "weak";
  case DefinitionStrength::Common: return "common";
  }
  return "?";
}

StringRef toString(PullIn P) {
  switch (P) {
  case PullIn::Always: return "always";
  case PullIn::Maybe: return "maybe";
  case PullIn::Never: return "never";
  }
  return "?";
}

std::string DuplicateDefinition::displayName() const {
  std::string S;
  S.reserve(File.size() + Member.size() + 2);
  S.append(File.data(), File.size());
  if (!Member.empty()) {
    S += '(';
    S.append(Member.data(), Member.size());
    S += ')';
  }
  return S;
}

namespace dups {
namespace {

/// Adds the seconds since the last lap to the stats under a name.
class PassTimer {
public:
  explicit PassTimer(DupsStats &S) : S(S) {}
  void lap(const char *Pass) {
    auto Now = std::chrono::steady_clock::now();
    S.PassSeconds.emplace_back(Pass,
                               std::chrono::duration<double>(Now - Last).count());
    Last = Now;
  }

private:
  DupsStats &S;
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
};

} // namespace

void DupsAnalyzer::run() {
  PassTimer T(F.Stats);
  buildTable();
  T.lap("table");
  confirmCandidates();
  T.lap("confirm");
  buildDuplicates();
  T.lap("duplicates");
  computePullIn();
  T.lap("pull-in");
  finish();
  T.lap("latent");
  demangle();
  T.lap("demangle");
}

} // namespace dups

using namespace dups;

Expected<std::unique_ptr<DupsFacts>> analyzeDups(DupsOptions Options) {
  auto F = std::make_unique<DupsFacts>();
  F->Options = std::move(Options);
  if (F->Options.Inputs.empty())
    return createStringError(inconvertibleErrorCode(), "no inputs");

  InputExpander X;
  for (const std::string &Arg : F->Options.Inputs)
    X.add(Arg);
  std::vector<InputPath> Paths = X.take();
  F->Unreadable = std::move(X.Problems);
  F->Skipped = std::move(X.Skipped);

  unsigned Jobs = F->Options.Jobs ? F->Options.Jobs
                                  : std::max(1u, std::thread::hardware_concurrency());
  std::vector<LoadedInput> Inputs(Paths.size());
  std::vector<size_t> Order(Paths.size());
  for (size_t I = 0; I != Paths.size(); ++I) {
    Inputs[I].Where = std::move(Paths[I]);
    sys::fs::file_size(Inputs[I].Where.Path, Inputs[I].Size);
    Order[I] = I;
  }
  // Largest first, so that one big archive does not finish last alone.
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Inputs[A].Size > Inputs[B].Size;
  });
  auto ReadStart = std::chrono::steady_clock::now();
  parallelFor(Order, Jobs, [&](size_t I) { loadInput(Inputs[I]); });
  F->Stats.PassSeconds.emplace_back(
      "read", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            ReadStart)
                  .count());

  // A named input that cannot be read is an error the command reports; one
  // found in a directory is skipped (a directory is whatever it holds).
  for (const LoadedInput &L : Inputs)
    if (L.Failure) {
      if (L.Where.FromDirectory)
        F->Skipped.push_back({L.Where.Path, *L.Failure});
      else
        F->Unreadable.push_back(*L.Failure);
    }
  llvm::erase_if(Inputs, [&](const LoadedInput &L) {
    if (L.Kind != InputKind::Skipped)
      return false;
    F->Stats.SkippedExecutables += !L.Failure;
    return true;
  });
  F->Stats.SkippedFiles = F->Skipped.size();
  std::sort(F->Skipped.begin(), F->Skipped.end(),
            [](const SkippedFile &A, const SkippedFile &B) {
              return A.Path < B.Path;
            });
  for (const LoadedInput &L : Inputs) {
    F->Files.push_back(L.Where.Path);
    F->Stats.Objects += L.Kind == InputKind::Object;
    F->Stats.Archives += L.Kind == InputKind::Archive;
    F->Stats.SharedLibraries += L.Kind == InputKind::SharedLibrary;
    if (L.Kind == InputKind::Archive && L.In.Ar->hasSymbolIndex())
      F->Stats.IndexEntries += L.In.Ar->symbolIndex().size();
  }

  DupsAnalyzer(*F, Inputs, Jobs).run();

  for (LoadedInput &L : Inputs) {
    F->Stats.MembersOpened += std::count(L.Opened.begin(), L.Opened.end(), true);
    for (std::string &W : L.Warnings)
      F->Warnings.push_back(std::move(W));
    F->Read.push_back(std::move(L.In));
  }
  return F;
}

} // namespace aoti::audit
