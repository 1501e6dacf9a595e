//===- link/Undefined.cpp - The undefined references the link reports ----===//
//
// ELF. A strong reference from a linked object to a name nothing defines
// is an error (for a shared library only with -z defs); the linker's own
// names (_GLOBAL_OFFSET_TABLE_, __start_SECTION, ...) are defined when
// referred to; under --gc-sections only references from live sections
// count. --require-defined names must be defined. An executable also
// fails on a shared library's undefined references
// (--no-allow-shlib-undefined), checked only for a library whose own
// DT_NEEDED are all on the line.
//
// ld64. Undefined references are errors for every output kind, weak
// references included, unless -undefined says otherwise (-U NAME for one
// name).
//
// Nothing is reported when the driver's implicit inputs (libc, crt files)
// were not read: they may define what is missing.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit::linker {

/// Names the linker itself defines when something refers to them.
bool isLinkerDefined(StringRef N) {
  static const StringSet<> Names = {
      "_GLOBAL_OFFSET_TABLE_", "_DYNAMIC", "__ehdr_start",
      "__executable_start", "_etext", "etext", "__etext", "_edata", "edata",
      "_end", "end", "__bss_start", "__init_array_start", "__init_array_end",
      "__fini_array_start", "__fini_array_end", "__preinit_array_start",
      "__preinit_array_end", "__GNU_EH_FRAME_HDR", "_PROCEDURE_LINKAGE_TABLE_",
      "__rela_iplt_start", "__rela_iplt_end", "__rel_iplt_start",
      "__rel_iplt_end", "_TLS_MODULE_BASE_", "__global_pointer$",
      "__dso_handle"};
  return Names.contains(N) || N.starts_with("__start_") ||
         N.starts_with("__stop_");
}

/// What ld64 and ld64.lld define themselves.
bool isLd64Defined(StringRef N) {
  static const StringSet<> Names = {
      "__mh_execute_header", "__mh_dylib_header", "__mh_bundle_header",
      "___dso_handle", "__dyld_private", "dyld_stub_binder"};
  return Names.contains(N) || N.starts_with("section$start$") ||
         N.starts_with("section$end$") || N.starts_with("segment$start$") ||
         N.starts_with("segment$end$") || N.starts_with("_objc_msgSend$");
}

bool Replay::definedByAnySharedInput(StringRef Name) const {
  for (const LinkInput &I : In)
    if (I.isShared())
      for (const Symbol *D : I.Bin->findExportedDefinitions(Name))
        if (!D->VersionHidden)
          return true;
  return false;
}

bool Replay::allNeededOnLine(int Lib) {
  auto [It, New] = NeededKnown.try_emplace(Lib, true);
  if (!New)
    return It->second;
  StringSet<> Names;
  for (const LinkInput &I : In) {
    if (!I.isShared())
      continue;
    Names.insert(I.Bin->soname());
    Names.insert(sys::path::filename(I.Path));
  }
  for (const Dependency &D : In[Lib].Bin->dependencies())
    if (!Names.contains(D.Name))
      It->second = false;
  return It->second;
}

// --- ELF ------------------------------------------------------------------

void ElfPolicy::reportUndefined(Replay &Rp,
                                const std::set<unsigned> &LiveUndefined) {
  const LinkCommandLine &L = Rp.L;
  LinkResult &R = Rp.R;
  bool Shared = L.OutputKind == LinkOutputKind::SharedLibrary;
  // Undefined references from regular objects.
  if (Rp.implicitInputsRead()) {
    for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
      const LinkSymbol &S = R.Symbols[Idx];
      if (S.St != LinkSymbol::State::Undefined &&
          S.St != LinkSymbol::State::Lazy)
        continue;
      if (isLinkerDefined(S.Name))
        continue;
      if (L.GcSections && !LiveUndefined.count(Idx))
        continue;
      if (Shared && !L.NoUndefined)
        continue;
      for (const SymbolRef &Ref : S.StrongRefs)
        if (Ref.Object >= 0) {
          R.Undefined.push_back({S.Name, Ref.Object, -1, false});
          break;
        }
    }
  }
  for (const std::string &N : L.RequireDefined) {
    const LinkSymbol *S = R.find(N);
    if (!S || (S->St != LinkSymbol::State::Defined &&
               S->St != LinkSymbol::State::Shared))
      R.Undefined.push_back({N, -1, -1, true});
  }
  // --no-allow-shlib-undefined, the default for executables: checked for
  // a library whose own DT_NEEDED are all on the line (lld's rule; GNU ld
  // searches further, which this does not model).
  if (!Shared && L.AllowShlibUndefined != true) {
    for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
      const LinkSymbol &S = R.Symbols[Idx];
      if (S.St != LinkSymbol::State::Undefined &&
          S.St != LinkSymbol::State::Lazy)
        continue;
      if (isLinkerDefined(S.Name))
        continue;
      // A library --as-needed dropped still resolves other libraries'
      // references: the linker reads it as their DT_NEEDED.
      if (Rp.definedByAnySharedInput(S.Name))
        continue;
      for (const SymbolRef &Ref : S.StrongRefs)
        if (Ref.SharedInput >= 0 && Rp.allNeededOnLine(Ref.SharedInput)) {
          R.Undefined.push_back({S.Name, -1, Ref.SharedInput, false});
          break;
        }
    }
  }
}

// --- ld64 -----------------------------------------------------------------

void Ld64Policy::reportUndefined(Replay &Rp,
                                 const std::set<unsigned> &LiveUndefined) {
  const LinkCommandLine &L = Rp.L;
  LinkResult &R = Rp.R;
  if (L.UndefinedTreatment != "error" || !Rp.implicitInputsRead())
    return;
  StringSet<> Allowed;
  for (const std::string &N : L.AllowedUndefined)
    Allowed.insert(N);
  for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
    const LinkSymbol &S = R.Symbols[Idx];
    if (S.St != LinkSymbol::State::Undefined &&
        S.St != LinkSymbol::State::Lazy)
      continue;
    if (isLd64Defined(S.Name) || Allowed.contains(S.Name))
      continue;
    if (L.GcSections && !LiveUndefined.count(Idx) &&
        !(Rp.executableOutput() && S.Name == Rp.entry()))
      continue;
    bool Reported = false;
    for (const SymbolRef &Ref : S.StrongRefs) {
      if (Ref.Object >= 0 || Ref.Option) {
        R.Undefined.push_back({S.Name, Ref.Object, -1,
                               Ref.Object < 0 /*-u or the entry point*/});
        Reported = true;
        break;
      }
    }
    // Unlike ELF, a weak reference (weak_import) must be defined somewhere
    // on the line too: only dyld lets it bind to null.
    if (!Reported && !S.WeakRefs.empty())
      R.Undefined.push_back({S.Name, S.WeakRefs.front(), -1, false});
  }
}

} // namespace aoti::audit::linker
