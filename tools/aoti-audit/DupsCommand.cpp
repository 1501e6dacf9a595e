//===- DupsCommand.cpp - aoti-audit dups ----------------------------------===//
//
// The front-end of the duplicate-definition check: options, the baseline
// (a sorted text file, one line per definition of a known duplicate, so that a
// review diff shows exactly which definition appeared or went away), and the
// two output formats. Facts come from audit/Dups.h, findings from rules/dups/.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ConfigOptions.h"
#include "Output.h"
#include "Sarif.h"

#include "aoti/audit/Error.h"
#include "aoti/audit/dups/Dups.h"
#include "aoti/rules/Rule.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <set>

using namespace llvm;
using namespace aoti::audit;
using namespace aoti::rules;

namespace aoti::tool {
namespace {

struct DupsArgs {
  std::vector<std::string> Inputs;
  std::vector<std::string> Prefixes;
  bool All = false;
  bool Cxx = false;
  std::string Baseline;
  std::string WriteBaseline;
  std::string Format = "text";
  std::string Color = "auto";
  unsigned Jobs = 0;
  bool Stats = false;
  bool Verbose = false;
  ConfigArgs Config;
};

constexpr const char *DupsHelp = R"(Finds names that two or more link inputs define: the extern "C" shim
function a second file defines again, which nothing notices until both
archives are force-linked. Every definition is listed with its binding and
whether a plain link of the inputs already pulls it in, or the duplicate is
latent (it bites under --whole-archive, link_whole, -force_load, or when both
shared libraries are loaded).

An INPUT is an object, an archive, a shared library, a GNU ld input script
(libm.a, libc.so: the files it names are read), a directory (searched
recursively for binaries; other files there are skipped, --verbose lists
them) or @FILE, a file listing inputs one per line.

Rules: AOTI101 strong-duplicate (error), AOTI102 strong-weak-duplicate
(warning), AOTI103 weak-duplicate (note), AOTI104 common-duplicate (warning),
AOTI105 libtorch-shim-clash (error). Names every ELF link defines itself
(_edata, _end, __bss_start, _init, _fini, ...) are not duplicates.

Examples:
  aoti-audit dups build/lib
  aoti-audit dups --prefix aoti_torch_ --prefix aoti_shims_ libshims.a libcuda_shims.a
  aoti-audit dups --all --cxx --format json @inputs.txt > dups.json
  aoti-audit dups --format sarif build/lib > dups.sarif
  aoti-audit dups --write-baseline ci/dups.baseline build/lib
  aoti-audit dups --baseline ci/dups.baseline build/lib

The nearest .aoti-audit.toml (or --config FILE) sets the default prefixes,
rule severities and suppressions (docs/config.md).

Exit status: 0 no error-severity duplicate (none that is not in --baseline;
always 0 with --write-baseline), 1 new error-severity duplicates, 2 bad usage
or an input named on the line (or in an @FILE or a linker script) that cannot
be read: the others are still reported, as nm does, but the answer is not
complete, and --write-baseline writes nothing.)";

// --- Baseline -------------------------------------------------------------------

/// One line per definition: "AOTI101 NAME FILE(MEMBER)". Files are named by
/// their file name only, so that the baseline does not depend on where the
/// build tree is.
std::string baselineLine(const Finding &F, const DuplicateDefinition &D) {
  std::string Where = sys::path::filename(D.File).str();
  if (!D.Member.empty())
    Where += ("(" + D.Member + ")").str();
  return F.Rule + " " + F.Symbol + " " + Where;
}

std::vector<std::string> baselineLines(const Finding &F, const Duplicate &D) {
  std::vector<std::string> L;
  for (const DuplicateDefinition &DD : D.Definitions)
    L.push_back(baselineLine(F, DD));
  return L;
}

constexpr StringRef BaselineHeader =
    "# aoti-audit dups baseline, schema 1: known duplicate definitions.\n"
    "# One line per definition: RULE NAME FILE[(MEMBER)], sorted. A duplicate\n"
    "# fails `aoti-audit dups --baseline` only when one of its lines is missing\n"
    "# here. Regenerate with `aoti-audit dups --write-baseline FILE INPUT...`.\n";

Expected<std::set<std::string>> readBaseline(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return fileError(Path, Buf.getError());
  std::set<std::string> Lines;
  SmallVector<StringRef, 0> Split;
  (*Buf)->getBuffer().split(Split, '\n');
  for (size_t I = 0; I != Split.size(); ++I) {
    StringRef L = Split[I].trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    SmallVector<StringRef, 3> Fields;
    L.split(Fields, ' ', 2, /*KeepEmpty=*/false);
    if (Fields.size() != 3 || !Fields[0].starts_with("AOTI"))
      return makeError(Path + ":" + Twine(I + 1) +
                       ": not a baseline line (expected RULE NAME FILE): '" +
                       L + "'");
    Lines.insert(L.str());
  }
  return Lines;
}

Error writeBaseline(StringRef Path, const std::set<std::string> &Lines) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC)
    return fileError(Path, EC);
  OS << BaselineHeader;
  for (const std::string &L : Lines) // std::set: sorted, byte order
    OS << L << "\n";
  OS.close();
  if (OS.has_error())
    return fileError(Path, OS.error());
  return Error::success();
}

// --- Output ---------------------------------------------------------------------

/// A duplicate together with its finding and baseline state.
struct Report {
  const Duplicate *Dup;
  const Finding *Find;
  bool Known = false; // every definition is in the baseline
};

/// Writes S as a JSON string. Symbol and file names are almost always
/// printable ASCII with nothing to escape, and a big report holds megabytes
/// of them: those are copied as they are; anything else goes through
/// llvm::json, which escapes and repairs invalid UTF-8.
void jsonString(raw_ostream &OS, StringRef S) {
  static constexpr std::array<bool, 256> Plain = [] {
    std::array<bool, 256> T{};
    for (int C = 0x20; C < 0x7f; ++C)
      T[C] = C != '"' && C != '\\';
    return T;
  }();
  if (llvm::all_of(S, [](char C) { return Plain[static_cast<unsigned char>(C)]; })) {
    OS << '"' << S << '"';
    return;
  }
  OS << jsonText(S);
}

/// One duplicate as one JSON object, written directly: tens of thousands of
/// them make up nearly all of a big report. Each definition is one line.
void duplicateJson(raw_ostream &OS, const Report &R, bool HaveBaseline,
                   bool Indent) {
  const Duplicate &D = *R.Dup;
  // Keys and enum words are written as StringRefs: no strlen, no escaping.
  auto Key = [&](StringRef K) {
    OS << ',' << '"' << K << StringRef("\":");
  };
  auto Str = [&](StringRef K, StringRef V) {
    Key(K);
    jsonString(OS, V);
  };
  auto Word = [&](StringRef K, StringRef V) {
    Key(K);
    OS << '"' << V << '"';
  };
  auto Bool = [&](StringRef K, bool V) {
    Key(K);
    OS << (V ? StringRef("true") : StringRef("false"));
  };
  OS << StringRef("{\"name\":");
  jsonString(OS, D.Name);
  if (D.isCxx())
    Str("demangled", D.Demangled);
  Word("kind", toString(D.Kind));
  Str("rule", R.Find->Rule);
  Str("rule_name", R.Find->RuleName);
  Word("severity", toString(R.Find->Sev));
  Bool("latent", D.Latent);
  Bool("interposition", D.Interposition);
  if (HaveBaseline)
    Bool("baselined", R.Known);
  Str("message", R.Find->Message);
  Str("fix", R.Find->Fix);
  Key("definitions");
  OS << '[';
  StringRef LastFile;
  std::string LastFileJson;
  for (size_t I = 0; I != D.Definitions.size(); ++I) {
    const DuplicateDefinition &DD = D.Definitions[I];
    if (I)
      OS << ',';
    if (Indent)
      OS << StringRef("\n      ");
    OS << StringRef("{\"file\":");
    // Definitions come sorted by file, so a file's name is escaped once.
    if (I == 0 || DD.File.data() != LastFile.data()) {
      LastFile = DD.File;
      LastFileJson.clear();
      raw_string_ostream S(LastFileJson);
      jsonString(S, DD.File);
    }
    OS << LastFileJson;
    Key("member");
    if (DD.Member.empty())
      OS << StringRef("null");
    else
      jsonString(OS, DD.Member);
    Word("binding", toString(DD.Binding));
    Word("strength", toString(DD.Strength));
    Word("type", toString(DD.Type));
    Word("visibility", toString(DD.Visibility));
    Word("origin", toString(DD.Origin));
    Word("pulled_in", toString(DD.Pulled));
    if (!DD.Version.empty())
      Str("version", DD.Version);
    if (!DD.Confirmed)
      Bool("confirmed", false);
    OS << '}';
  }
  if (Indent)
    OS << StringRef("\n    ");
  OS << ']';
  if (!D.SharedVariants.empty()) {
    Key("shared_variants");
    OS << '[';
    for (size_t I = 0; I != D.SharedVariants.size(); ++I) {
      if (I)
        OS << ',';
      jsonString(OS, D.SharedVariants[I]);
    }
    OS << ']';
  }
  OS << '}';
}

/// The frame through json::OStream, each duplicate written by
/// duplicateJson(). Indented for a terminal, compact for a pipe or a file.
void printJson(const DupsFacts &F, const std::vector<Report> &Rs,
               bool HaveBaseline, size_t Gone, const ActiveConfig &Config) {
  outs().flush();
  outs().SetBufferSize(1 << 20); // megabytes of output: fewer write(2)s
  bool Indent = outs().is_displayed();
  json::OStream J(outs(), /*IndentSize=*/Indent ? 2 : 0);
  J.object([&] {
    J.attribute("schema_version", 1);
    J.attributeArray("duplicates", [&] {
      for (const Report &R : Rs)
        J.rawValue([&](raw_ostream &OS) {
          duplicateJson(OS, R, HaveBaseline, Indent);
        });
    });
    if (Config.active())
      J.attribute("config", Config.json());
    J.attributeObject("stats", [&] {
      J.attribute("inputs", int64_t(F.Files.size()));
      J.attribute("objects", int64_t(F.Stats.Objects));
      J.attribute("archives", int64_t(F.Stats.Archives));
      J.attribute("shared_libraries", int64_t(F.Stats.SharedLibraries));
      J.attribute("skipped_executables", int64_t(F.Stats.SkippedExecutables));
      J.attribute("skipped_files", int64_t(F.Stats.SkippedFiles));
      J.attribute("index_entries", int64_t(F.Stats.IndexEntries));
      J.attribute("members_opened", int64_t(F.Stats.MembersOpened));
      if (HaveBaseline)
        J.attribute("baseline_lines_gone", int64_t(Gone));
    });
    J.attributeArray("warnings", [&] {
      for (const std::string &W : F.Warnings)
        J.value(W);
    });
    J.attributeArray("unreadable", [&] {
      for (const std::string &U : F.Unreadable)
        J.value(U);
    });
  });
  outs() << "\n";
}

void printDefinitions(raw_ostream &OS, const Duplicate &D) {
  size_t Width = 0;
  for (const DuplicateDefinition &DD : D.Definitions)
    Width = std::max(Width, DD.displayName().size());
  for (const DuplicateDefinition &DD : D.Definitions) {
    std::string Name = DD.displayName();
    OS << "    " << Name << std::string(Width - Name.size() + 2, ' ')
       << toString(DD.Strength);
    if (DD.Binding == SymbolBinding::Unique)
      OS << " (gnu-unique)";
    if (DD.Type != SymbolType::Common)
      OS << " " << toString(DD.Type);
    if (DD.Visibility != SymbolVisibility::Default)
      OS << ", " << toString(DD.Visibility);
    if (!DD.Version.empty())
      OS << ", version " << DD.Version;
    if (!DD.Confirmed)
      OS << " (from the archive index; the member could not be read)";
    OS << "; pulled in: " << toString(DD.Pulled) << "\n";
  }
  for (const std::string &S : D.SharedVariants)
    OS << "    (" << S << " exports it too: the shared build of an archive "
       << "above, not counted)\n";
}

void printText(const DupsFacts &F, const std::vector<Report> &Rs,
               bool HaveBaseline, size_t Gone, bool Color) {
  raw_ostream &OS = outs();
  unsigned Shown = 0, Known = 0, Errors = 0, Warnings = 0, Notes = 0;
  for (const Report &R : Rs) {
    if (R.Known) {
      ++Known;
      continue;
    }
    ++Shown;
    const Finding &Fd = *R.Find;
    (Fd.Sev == Severity::Error     ? Errors
     : Fd.Sev == Severity::Warning ? Warnings
                                   : Notes)++;
    printSeverity(OS, Fd.Sev, Color);
    if (Color)
      OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    OS << "[" << Fd.Rule << "] " << Fd.RuleName;
    if (Color)
      OS.resetColor();
    OS << ": " << Fd.Message << "\n";
    if (R.Dup->isCxx())
      OS << "    symbol " << R.Dup->Name << "\n";
    printDefinitions(OS, *R.Dup);
    if (Color)
      OS.changeColor(raw_ostream::GREEN, /*Bold=*/false);
    OS << "  fix: ";
    if (Color)
      OS.resetColor();
    OS << Fd.Fix << "\n";
  }
  OS << formatv("{0} input(s): {1} archive(s), {2} object(s), {3} shared "
                "librar{4}; ",
                F.Files.size(), F.Stats.Archives, F.Stats.Objects,
                F.Stats.SharedLibraries,
                F.Stats.SharedLibraries == 1 ? "y" : "ies");
  if (HaveBaseline)
    OS << formatv("{0} new duplicate(s), {1} known from the baseline", Shown,
                  Known);
  else
    OS << formatv("{0} duplicate(s)", Shown);
  OS << formatv(": {0} error(s), {1} warning(s), {2} note(s)\n", Errors,
                Warnings, Notes);
  if (F.Stats.SkippedFiles)
    OS << formatv("{0} file(s) in the directories skipped: not objects, "
                  "archives or shared libraries (--verbose lists them)\n",
                  F.Stats.SkippedFiles);
  if (!F.Unreadable.empty())
    OS << formatv("{0} input(s) could not be read (above); this report "
                  "covers the others\n",
                  F.Unreadable.size());
  if (HaveBaseline && Gone)
    OS << formatv("{0} baseline line(s) no longer found (fixed); refresh the "
                  "baseline with --write-baseline\n",
                  Gone);
}

} // namespace

CommandFn addDupsCommand(CLI::App &App) {
  auto Args = std::make_shared<DupsArgs>();
  CLI::App *Cmd = App.add_subcommand(
      "dups", "Which names do several link inputs define? (pre-merge check)");
  Cmd->footer(DupsHelp);
  Cmd->add_option("inputs", Args->Inputs,
                  "Objects, archives, shared libraries, directories, @FILEs")
      ->required();
  addPrefixOptions(*Cmd, Args->Prefixes, PrefixValues::OnePerOption,
                   "Look at names with this prefix (repeatable; default: "
                   "aoti_torch_)",
                   &Args->All, "Look at every name, not only --prefix ones");
  Cmd->add_flag("--cxx", Args->Cxx,
                "Also look at mangled C++ names (shown demangled; prefixes "
                "match the demangled name)");
  Cmd->add_option("--baseline", Args->Baseline,
                  "Known duplicates: fail only on ones not listed here")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--write-baseline", Args->WriteBaseline,
                  "Record today's duplicates in FILE (sorted, one line per "
                  "definition) and exit 0");
  addOutputOptions(*Cmd, Args->Format, Args->Color);
  Cmd->add_flag("-v,--verbose", Args->Verbose,
                "List on stderr every file of the directories that is skipped, "
                "and why");
  Cmd->add_flag("--stats", Args->Stats,
                "Print inputs read, members opened and time per pass to stderr");
  Cmd->add_option("-j,--jobs", Args->Jobs,
                  "Inputs read at once (default: one per hardware thread)");
  addConfigOptions(*Cmd, Args->Config);

  return [Args]() -> int {
    auto Config = ActiveConfig::load(Args->Config);
    if (!Config) {
      printError(toString(Config.takeError()));
      return ExitBadInput;
    }
    DupsOptions O;
    O.Inputs = Args->Inputs;
    if (!Args->Prefixes.empty())
      O.Prefixes = Args->Prefixes;
    else if (!Config->prefixes().empty())
      O.Prefixes = Config->prefixes();
    O.All = Args->All;
    O.Cxx = Args->Cxx;
    O.Jobs = Args->Jobs;

    std::optional<std::set<std::string>> Baseline;
    if (!Args->Baseline.empty()) {
      auto B = readBaseline(Args->Baseline);
      if (!B) {
        printError(toString(B.takeError()));
        return ExitBadInput;
      }
      Baseline = std::move(*B);
    }

    auto Facts = analyzeDups(std::move(O));
    if (!Facts) {
      printError(toString(Facts.takeError()));
      return ExitBadInput;
    }
    // Each on its own line, each with the prefix.
    for (const std::string &U : (*Facts)->Unreadable)
      printError(U);
    bool Incomplete = !(*Facts)->Unreadable.empty();
    if (Incomplete && (*Facts)->Files.empty())
      return ExitBadInput; // nothing left to report on
    for (const std::string &W : (*Facts)->Warnings)
      WithColor::warning(errs(), "aoti-audit") << W << "\n";
    if (Args->Verbose)
      for (const SkippedFile &S : (*Facts)->Skipped)
        WithColor::note(errs(), "aoti-audit")
            << "skipped " << S.Path << ": " << S.Why << "\n";

    auto Start = std::chrono::steady_clock::now();
    auto Lap = [&](const char *What) {
      auto Now = std::chrono::steady_clock::now();
      if (Args->Stats)
        errs() << formatv("  {0,-10} {1,8:f3} s\n", What,
                          std::chrono::duration<double>(Now - Start).count());
      Start = Now;
    };
    if (Args->Stats) {
      const DupsStats &S = (*Facts)->Stats;
      errs() << formatv("dups: {0} inputs, {1} archive index entries, {2} "
                        "members opened, {3} duplicates, {4} files skipped, "
                        "{5} executables skipped\n",
                        (*Facts)->Files.size(), S.IndexEntries, S.MembersOpened,
                        (*Facts)->Duplicates.size(), S.SkippedFiles,
                        S.SkippedExecutables);
      for (const auto &[Pass, Seconds] : S.PassSeconds)
        errs() << formatv("  {0,-10} {1,8:f3} s\n", Pass, Seconds);
    }

    std::vector<Finding> Fs = rules::runDupsRules(**Facts);
    Config->apply(Fs);
    Lap("rules");
    StringMap<const Finding *> BySymbol;
    for (const Finding &Fd : Fs)
      BySymbol.try_emplace(Fd.Symbol, &Fd);

    std::vector<Report> Rs;
    std::set<std::string> Lines;
    for (const Duplicate &D : (*Facts)->Duplicates) {
      auto It = BySymbol.find(D.Name);
      if (It == BySymbol.end())
        continue; // no rule speaks about it
      Report R{&D, It->second};
      if (Baseline || !Args->WriteBaseline.empty()) {
        std::vector<std::string> L = baselineLines(*R.Find, D);
        if (Baseline)
          R.Known = std::all_of(L.begin(), L.end(), [&](const std::string &S) {
            return Baseline->count(S) != 0;
          });
        Lines.insert(L.begin(), L.end());
      }
      Rs.push_back(R);
    }
    Lap("baseline");
    size_t Gone = 0;
    if (Baseline)
      for (const std::string &S : *Baseline)
        Gone += !Lines.count(S);

    if (!Args->WriteBaseline.empty() && Incomplete)
      printError("the baseline is not written: some inputs could not be read");
    else if (!Args->WriteBaseline.empty())
      if (Error E = writeBaseline(Args->WriteBaseline, Lines)) {
        printError(toString(std::move(E)));
        return ExitBadInput;
      }

    if (Args->Format == "json")
      printJson(**Facts, Rs, Baseline.has_value(), Gone, *Config);
    else if (Args->Format == "sarif") {
      std::vector<Finding> New; // what the text shows: not in the baseline
      for (const Report &R : Rs)
        if (!R.Known)
          New.push_back(*R.Find);
      SarifRun Run{"dups", AOTI_VERSION};
      Config->addToSarif(Run);
      printSarif(outs(), New, Run);
    } else {
      bool Color = useColor(outs(), Args->Color);
      printText(**Facts, Rs, Baseline.has_value(), Gone, Color);
      Config->printText(outs(), Color);
    }
    outs().flush();
    Lap("output");
    int Status = ExitOk;
    if (Args->WriteBaseline.empty())
      for (const Report &R : Rs)
        if (R.Find->Sev == Severity::Error && !R.Known)
          Status = ExitFindings;
    if (Incomplete)
      Status = ExitBadInput; // an unreadable input outranks what was found
    // The process exits next: let it return the memory in one go instead of
    // freeing every member, symbol table and string (clang's -disable-free).
    (void)Facts->release();
    (void)new std::vector<Finding>(std::move(Fs));
    (void)new std::set<std::string>(std::move(Lines));
    return Status;
  };
}

} // namespace aoti::tool
