//===- model_dump.cpp - Print the neutral model of a file as JSON ---------===//
//
// Test helper: what the Mach-O reader made of a file, so macho_cases.py can
// compare it with llvm-objdump and llvm-nm. Not installed.
//
//   model_dump [--arch A] [--static] FILE
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Reader.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

using namespace llvm;
using namespace aoti::audit;

// Names and paths are bytes from the file (mutated ones in the robustness
// case); llvm::json wants UTF-8.
static json::Value text(StringRef S) {
  return json::isUTF8(S) ? json::Value(S.str()) : json::Value(json::fixUTF8(S));
}

static json::Value symbolJson(const Symbol &S) {
  json::Object O;
  O["name"] = text(S.Name);
  O["defined"] = S.Defined;
  O["binding"] = toString(S.Binding);
  O["visibility"] = toString(S.Visibility);
  O["type"] = toString(S.Type);
  if (S.ReExport)
    O["reexport"] = true;
  if (!S.ImportName.empty())
    O["import_name"] = text(S.ImportName);
  if (S.LibraryOrdinal >= 0)
    O["ordinal"] = S.LibraryOrdinal;
  if (!S.SourceLibrary.empty())
    O["library"] = text(S.SourceLibrary);
  return O;
}

static json::Value binaryJson(const Binary &B, bool Static) {
  json::Object O;
  O["path"] = text(B.path());
  O["format"] = toString(B.format());
  O["kind"] = toString(B.kind());
  O["arch"] = B.archName();
  O["install_name"] = text(B.soname());
  O["two_level"] = B.twoLevelNamespace();
  O["interpreter"] = text(B.interpreter());
  json::Array Deps;
  for (const Dependency &D : B.dependencies()) {
    static const char *Kinds[] = {"needed", "weak", "reexport", "upward"};
    Deps.push_back(json::Object{{"name", text(D.Name)}, {"kind", Kinds[unsigned(D.DepKind)]}});
  }
  O["dependencies"] = std::move(Deps);
  json::Array RPath;
  for (StringRef R : B.rpath())
    RPath.push_back(text(R));
  O["rpath"] = std::move(RPath);
  json::Array Dyn;
  for (const Symbol &S : B.dynamicSymbols())
    Dyn.push_back(symbolJson(S));
  O["dynamic"] = std::move(Dyn);
  O["has_static_table"] = B.hasStaticSymbolTable();
  if (Static) {
    json::Array St;
    for (const Symbol &S : B.staticSymbols())
      St.push_back(symbolJson(S));
    O["static"] = std::move(St);
    json::Array Link;
    for (const Symbol &S : B.linkSymbols())
      Link.push_back(text(S.Name));
    O["link"] = std::move(Link);
  }
  return O;
}

int main(int argc, char **argv) {
  ReadOptions Opts;
  bool Static = false;
  const char *Path = nullptr;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--arch") && I + 1 < argc)
      Opts.Arch = argv[++I];
    else if (!std::strcmp(argv[I], "--static"))
      Static = true;
    else
      Path = argv[I];
  }
  if (!Path) {
    errs() << "usage: model_dump [--arch A] [--static] FILE\n";
    return 2;
  }
  auto In = readInput(Path, Opts);
  if (!In) {
    errs() << "model_dump: error: " << toString(In.takeError()) << "\n";
    return 2;
  }
  if (In->Bin) {
    outs() << formatv("{0:2}", binaryJson(*In->Bin, Static)) << "\n";
    return 0;
  }
  json::Array Members;
  for (size_t I = 0; I != In->Ar->members().size(); ++I) {
    auto M = In->Ar->member(I);
    if (!M) {
      errs() << "model_dump: error: " << toString(M.takeError()) << "\n";
      return 2;
    }
    Members.push_back(binaryJson(*M, Static));
  }
  json::Array Index;
  for (const Archive::IndexEntry &E : In->Ar->symbolIndex())
    Index.push_back(json::Object{{"name", text(E.Name)}, {"member", E.MemberIndex}});
  outs() << formatv("{0:2}", json::Value(json::Object{{"archive", text(In->Ar->path())},
                                                       {"members", std::move(Members)},
                                                       {"index", std::move(Index)}}))
         << "\n";
  return 0;
}
