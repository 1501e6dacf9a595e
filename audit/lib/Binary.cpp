//===- Binary.cpp - The format-neutral model of a binary file -------------===//
//
// The lazy parts of the model: symbol tables read on first use through the
// reader's sources, and export lookups that go through the file's own hash
// table when the reader offers one, else a sorted index built once. Nothing
// here knows a format: what differs between formats (names, machine names)
// comes from the format's FormatInfo.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Binary.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace aoti::audit {

bool isLibTorchFile(StringRef Path) {
  StringRef F = sys::path::filename(Path);
  return F.starts_with("libtorch") || F.starts_with("libc10");
}

StaticSymbolSource::~StaticSymbolSource() = default;
DynamicSymbolSource::~DynamicSymbolSource() = default;

const std::vector<Symbol> &Binary::dynamicSymbols() const {
  std::call_once(DynOnce, [this] {
    if (DynSource)
      DynSource->loadAll(const_cast<Binary *>(this)->DynSyms);
  });
  return DynSyms;
}

Binary::Binary(std::string Path, BinaryFormat Format)
    : Path(std::move(Path)), Format(Format) {}
Binary::~Binary() = default;

StringRef Binary::fileName() const { return sys::path::filename(Path); }

const std::vector<Symbol> &Binary::staticSymbols() const {
  std::call_once(StaticOnce, [this] {
    if (StaticSource)
      StaticSource->load(*this, StaticSyms);
  });
  return StaticSyms;
}

void Binary::buildExportIndex() const {
  const std::vector<Symbol> &Syms = dynamicSymbols();
  ExportIndex.reserve(Syms.size());
  for (uint32_t I = 0, E = Syms.size(); I != E; ++I)
    if (Syms[I].isExportedDefinition())
      ExportIndex.emplace_back(Syms[I].Name, I);
  std::sort(ExportIndex.begin(), ExportIndex.end());
}

std::vector<const Symbol *>
Binary::findExportedDefinitions(StringRef Name) const {
  if (DynSource && DynSource->hasHashTable()) {
    std::lock_guard<std::mutex> Lock(LookupMutex);
    auto [It, New] = LookupCache.try_emplace(Name);
    if (New) {
      std::vector<Symbol> Found;
      DynSource->lookup(Name, Found);
      for (Symbol &S : Found)
        if (S.isExportedDefinition()) {
          LookedUp.push_back(S);
          It->second.push_back(&LookedUp.back());
        }
    }
    return It->second;
  }
  std::call_once(IndexOnce, [this] { buildExportIndex(); });
  std::vector<const Symbol *> Out;
  auto It = std::lower_bound(
      ExportIndex.begin(), ExportIndex.end(), Name,
      [](const std::pair<StringRef, uint32_t> &E, StringRef N) {
        return E.first < N;
      });
  for (; It != ExportIndex.end() && It->first == Name; ++It)
    Out.push_back(&DynSyms[It->second]);
  return Out;
}

StringRef toString(SymbolBinding B) {
  switch (B) {
  case SymbolBinding::Local: return "local";
  case SymbolBinding::Global: return "global";
  case SymbolBinding::Weak: return "weak";
  case SymbolBinding::Unique: return "unique";
  }
  return "?";
}

StringRef toString(SymbolVisibility V) {
  switch (V) {
  case SymbolVisibility::Default: return "default";
  case SymbolVisibility::Protected: return "protected";
  case SymbolVisibility::Hidden: return "hidden";
  case SymbolVisibility::Internal: return "internal";
  }
  return "?";
}

StringRef toString(SymbolType T) {
  switch (T) {
  case SymbolType::NoType: return "notype";
  case SymbolType::Function: return "function";
  case SymbolType::Object: return "object";
  case SymbolType::IFunc: return "ifunc";
  case SymbolType::TLS: return "tls";
  case SymbolType::Common: return "common";
  case SymbolType::Section: return "section";
  case SymbolType::File: return "file";
  case SymbolType::Other: return "other";
  }
  return "?";
}

StringRef toString(FileKind K) {
  switch (K) {
  case FileKind::Executable: return "executable";
  case FileKind::SharedLibrary: return "shared library";
  case FileKind::Bundle: return "bundle";
  case FileKind::Relocatable: return "relocatable object";
  case FileKind::Other: return "other";
  }
  return "?";
}

StringRef toString(BinaryFormat F) { return formatInfo(F).Name; }

std::string describeMachine(const MachineId &M, BinaryFormat F) {
  return formatv("{0}-bit {1}{2}", M.Is64 ? 64 : 32,
                 formatInfo(F).MachineName(M),
                 M.LittleEndian ? "" : " big-endian");
}

} // namespace aoti::audit
