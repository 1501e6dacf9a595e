//===- ReadInputs.cpp - Pass 1: each input read, its definitions listed ---===//
//
// Pass 1 runs once per input, several inputs at once (analyzeDups() hands one
// input to a task; an Archive caches its members and is not thread-safe, so
// no two threads share one). It is shaped to parse as little as it can:
//   * an archive with a symbol index contributes its index entries as-is,
//     name and member, nothing parsed (DefState::FromIndex; pass 3 confirms
//     the few that matter). Its object format is learnt later, and only if a
//     name needs it;
//   * an archive without an index (`ar q` without `s`) has every member read;
//   * a loose object contributes its global definitions (isLinkDefinition),
//     a shared library its exported ones (isSharedDefinition), less the
//     names every linker defines in every output (isLinkerDefined);
//   * an executable or a bundle is no link input: an error when named on the
//     command line, skipped when found in a directory.
// Each definition's name is hashed here (CachedHashStringRef), in parallel,
// so that pass 2 only merges. Archives and shared libraries also get their
// library stem ("libfoo" for libfoo.a and libfoo.so.1), which pairs the two
// builds of one library in pass 4.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit {
namespace dups {

bool isLinkDefinition(const Symbol &S) {
  return S.Defined && !S.isLocal() && !S.Name.empty() &&
         S.Type != SymbolType::Section && S.Type != SymbolType::File;
}


bool isSharedDefinition(const Symbol &S) {
  return S.isExportedDefinition() && !S.VersionHidden && !S.Name.empty();
}

namespace {

std::string libraryStem(StringRef FileName, bool Shared) {
  if (!Shared)
    return FileName.ends_with(".a") ? FileName.drop_back(2).str() : FileName.str();
  size_t So = FileName.find(".so");
  if (So != StringRef::npos &&
      (So + 3 == FileName.size() || FileName[So + 3] == '.'))
    return FileName.take_front(So).str();
  if (FileName.consume_back(".dylib") || FileName.consume_back(".tbd"))
    while (true) { // libfoo.1.2.dylib -> libfoo
      size_t Dot = FileName.rfind('.');
      if (Dot == StringRef::npos ||
          FileName.drop_front(Dot + 1).find_first_not_of("0123456789") !=
              StringRef::npos)
        break;
      FileName = FileName.take_front(Dot);
    }
  return FileName.str();
}

void addBinaryDefs(const Binary &B, uint32_t Member, std::vector<RawDef> &Out) {
  if (B.kind() == FileKind::Relocatable) {
    for (const Symbol &S : B.staticSymbols())
      if (isLinkDefinition(S))
        Out.push_back({CachedHashStringRef(S.Name), Member, DefState::Known, &S});
  } else {
    for (const Symbol &S : B.dynamicSymbols())
      if (isSharedDefinition(S) && !isLinkerDefined(B, S))
        Out.push_back({CachedHashStringRef(S.Name), Member, DefState::Known, &S});
  }
}

} // namespace

void loadInput(LoadedInput &L) {
  auto In = readInput(L.Where.Path);
  if (!In) {
    L.Failure = toString(In.takeError());
    return;
  }
  L.In = std::move(*In);
  if (const Archive *A = L.In.Ar.get()) {
    L.Kind = InputKind::Archive;
    L.LibraryStem = libraryStem(sys::path::filename(A->path()), false);
    auto Open = [&](uint32_t I) -> const Binary * {
      auto B = L.member(I);
      if (!B) {
        L.Warnings.push_back(toString(B.takeError()));
        return nullptr;
      }
      return &*B;
    };
    if (A->hasSymbolIndex()) {
      L.Defs.reserve(A->symbolIndex().size());
      for (const Archive::IndexEntry &E : A->symbolIndex())
        L.Defs.push_back({CachedHashStringRef(E.Name), E.MemberIndex,
                          DefState::FromIndex, nullptr});
      // The object format (Mach-O names carry '_') is learnt later, from
      // the first member, and only if a name needs it (formatOf()).
    } else {
      // No index (`ar q` without `s`): every member has to be read.
      for (uint32_t I = 0, E = A->members().size(); I != E; ++I)
        if (const Binary *B = Open(I)) {
          L.Format = B->format();
          L.FormatKnown = true;
          addBinaryDefs(*B, I, L.Defs);
        }
    }
    return;
  }
  const Binary &B = *L.In.Bin;
  L.Format = B.format();
  L.FormatKnown = true;
  switch (B.kind()) {
  case FileKind::Relocatable:
    L.Kind = InputKind::Object;
    break;
  case FileKind::SharedLibrary:
    // A section header, .symtab or version section that lies where ld.so
    // never looks: the library loads, but no link takes it, so its names
    // are no link's definitions.
    if (!B.linkerRefusal().empty()) {
      L.Failure = formatv("{0}: a linker refuses it: {1}", L.Where.Path,
                          B.linkerRefusal())
                      .str();
      return;
    }
    L.Kind = InputKind::SharedLibrary;
    L.LibraryStem = libraryStem(
        B.soname().empty() ? B.fileName() : sys::path::filename(B.soname()),
        true);
    break;
  case FileKind::Executable:
  case FileKind::Bundle:
    if (!L.Where.FromDirectory)
      L.Failure = formatv("{0}: is {1}, not a link input; dups reads objects, "
                          "archives and shared libraries",
                          L.Where.Path,
                          B.kind() == FileKind::Bundle ? "a bundle"
                                                       : "an executable")
                      .str();
    return;
  case FileKind::Other:
    L.Failure = formatv("{0}: is not an object, an archive or a shared library",
                        L.Where.Path)
                    .str();
    return;
  }
  addBinaryDefs(B, NoMember, L.Defs);
}

} // namespace dups

bool isLinkerDefined(const Binary &B, const Symbol &S) {
  if (B.format() != BinaryFormat::ELF || B.kind() == FileKind::Relocatable)
    return false;
  // GNU ld and lld define a version node's own name, absolute, in that
  // version (`NCURSES6_TINFO_5.0.19991023@@NCURSES6_TINFO_5.0.19991023`).
  if (!S.Version.empty() && S.Name == S.Version)
    return true;
  static const StringSet<> Names = {
      // The default linker scripts (`ld --verbose`, `ld -shared --verbose`)
      // and lld's built-in equivalents: end of text, data, bss.
      "__bss_start", "_edata", "edata", "_end", "end", "_etext", "etext",
      "__etext", "__executable_start", "__end__",
      // Defined by the linker for its own tables (usually hidden; some
      // linkers and old binutils export them).
      "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_", "_PROCEDURE_LINKAGE_TABLE_",
      "__ehdr_start", "__GNU_EH_FRAME_HDR", "_TLS_MODULE_BASE_",
      "__init_array_start", "__init_array_end", "__fini_array_start",
      "__fini_array_end", "__preinit_array_start", "__preinit_array_end",
      "__rela_iplt_start", "__rela_iplt_end",
      // crti.o (every gcc/clang link): the DT_INIT/DT_FINI entry points.
      "_init", "_fini",
      // crt1.o / Scrt1.o (executables) and crtbegin*.o / crtend*.o.
      "_start", "_IO_stdin_used", "__data_start", "data_start",
      "_dl_relocate_static_pie", "__dso_handle", "__TMC_END__"};
  return Names.contains(S.Name);
}

} // namespace aoti::audit
