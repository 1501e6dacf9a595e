//===- MadeLocal.cpp - AOTI204 --------------------------------------------===//
//
// Some definitions can never be exported, whatever the export flags: hidden
// or internal visibility (the most constraining visibility of any object
// wins), a version script's `local:`, and --exclude-libs for members of the
// named archives.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &MadeLocal::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "a required symbol is hidden or made local, so no "
                          "export flag can export it"};
  return I;
}

void MadeLocal::check(const LinkFacts &F, std::vector<Finding> &Out) const {
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::MadeLocal)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.objectName(F.Result, Q.Object);
    std::string Q1 = fixtext::quote(Q.Name);
    switch (Q.LocalBy) {
    case LinkSymbol::Local::Visibility:
      Fd.Message = fixtext::phrase(fixtext::vocabularyFor(F).MadeHiddenMessage,
                                   Q1, Fd.File);
      Fd.Fix = fixtext::defaultVisibility("the shims", true);
      break;
    case LinkSymbol::Local::VersionScript: {
      std::string Scripts;
      for (const std::string &S : F.Line.VersionScripts)
        Scripts += (Scripts.empty() ? "" : ", ") + F.displayPath(S);
      Fd.Message = formatv("the version script ({0}) makes {1} local", Scripts,
                           Q1)
                       .str();
      Fd.Fix = formatv("list `{0}` under `global:` in {1}",
                       fixtext::prefixGlob(F), Scripts)
                   .str();
      break;
    }
    case LinkSymbol::Local::ExcludeLibs:
      Fd.Message = formatv("--exclude-libs hides the symbols of {0}, {1} "
                           "among them",
                           F.inputName(Q.Input), Q1)
                       .str();
      Fd.Fix = formatv("take {0} out of --exclude-libs",
                       sys::path::filename(F.Inputs[Q.Input].Path))
                   .str();
      break;
    case LinkSymbol::Local::ExportList: {
      if (F.Line.NoExportedSymbols) {
        Fd.Message = formatv("-no_exported_symbols keeps {0} (and every other "
                             "global) out of the export trie",
                             Q1)
                         .str();
        Fd.Fix = "drop -no_exported_symbols";
        break;
      }
      std::string Lists;
      for (const std::string &S : F.Line.ExportedSymbolsLists)
        Lists += (Lists.empty() ? "" : ", ") + F.displayPath(S);
      for (const std::string &S : F.Line.ExportedSymbols)
        Lists += (Lists.empty() ? "-exported_symbol " : ", -exported_symbol ") +
                 S;
      Fd.Message = formatv("the export list ({0}) does not name {1}: ld64 "
                           "makes it a private external",
                           Lists, Q1)
                       .str();
      Fd.Fix = F.Line.ExportedSymbolsLists.empty()
                   ? formatv("add `-exported_symbol '{0}'`",
                             fixtext::prefixGlob(F))
                         .str()
                   : formatv("add the line `{0}` to {1}",
                             fixtext::prefixGlob(F),
                             F.displayPath(F.Line.ExportedSymbolsLists.front()))
                         .str();
      break;
    }
    case LinkSymbol::Local::Unexported: {
      std::string Lists;
      for (const std::string &S : F.Line.UnexportedSymbolsLists)
        Lists += (Lists.empty() ? "" : ", ") + F.displayPath(S);
      for (const std::string &S : F.Line.UnexportedSymbols)
        Lists += (Lists.empty() ? "-unexported_symbol " : ", -unexported_symbol ") +
                 S;
      Fd.Message = formatv("{0} names {1}: ld64 makes it a private external",
                           Lists, Q1)
                       .str();
      Fd.Fix = formatv("take the pattern that matches {0} out of {1}", Q1,
                       Lists)
                   .str();
      break;
    }
    case LinkSymbol::Local::No:
      continue;
    }
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
