//===- CheckCommand.cpp - aoti-audit check --------------------------------===//
//
// The front-end of `check`: CLI11 fills the library's CheckOptions in place,
// openCheckHost() reads the host once and says which slices to audit (one,
// or every slice of a universal host without the audit machine's), and for
// each slice analyzeCheck() gives the facts and the rules the findings, which
// the configuration then re-grades. Only the printing is this file's: text
// per plugin, the versioned JSON report (docs/check.md), or SARIF; a
// per-slice audit tags each finding with its slice.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ConfigOptions.h"
#include "Output.h"
#include "Sarif.h"

#include "aoti/audit/Check.h"
#include "aoti/audit/Reader.h"
#include "aoti/rules/MissingCause.h"
#include "aoti/rules/Rule.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <map>
#include <memory>

using namespace llvm;
using namespace aoti::audit;
using namespace aoti::rules;

namespace aoti::tool {
namespace {

/// The command line: the library's options, which CLI11 fills in place,
/// and how the report is printed.
struct CheckArgs {
  CheckOptions Options;
  std::string Format = "text";
  std::string Color = "auto";
  ConfigArgs Config;
};

constexpr const char *CheckHelp = R"(Predicts what dlopen(PLUGIN, RTLD_NOW | RTLD_LOCAL) inside HOST binds each
of the plugin's undefined symbols to, without running anything. Every
aoti_torch_* reference (every --prefix) must bind to exactly one provider.

Each symbol gets a status: bound, missing, ambiguous, version-mismatch or
weak-unresolved. Every failure names its cause and the fix: a symbol the host
defines but does not export, an archive member the link left behind, hidden
visibility, a provider outside the plugin's scope, a missing library or
version, two providers, LibTorch in the same process.

Examples:
  aoti-audit check --host build/bin/runner model.so
  aoti-audit check --host build/bin/runner model.pt2 models/
  aoti-audit check --host runner --archive libaoti_shims.a model.so
  aoti-audit check --host runner --all --env LD_LIBRARY_PATH=/opt/lib model.so
  aoti-audit check --host runner --format json model.so > report.json
  aoti-audit check --host runner --format sarif model.so > audit.sarif
  aoti-audit check --host runner --config ci/aoti-audit.toml model.so
  aoti-audit check --host runner.app/Contents/MacOS/runner --arch arm64 \
      --env DYLD_LIBRARY_PATH=/opt/lib model.dylib

A Mach-O host is audited the way dyld loads it: install names, @rpath,
@loader_path, @executable_path, DYLD_LIBRARY_PATH, DYLD_FALLBACK_LIBRARY_PATH,
two-level namespace ordinals, -undefined dynamic_lookup (docs/macho.md).

The nearest .aoti-audit.toml (or --config FILE) sets the default prefixes,
rule severities and suppressions (docs/config.md).

Exit status: 0 the plugins load, 1 an error was found, 2 bad usage or an
unreadable input.)";

json::Value symbolJson(const CheckFacts &F, const SymbolFacts &S) {
  json::Object O;
  O["name"] = jsonText(S.Ref->Name);
  O["status"] = toString(S.Status);
  O["required"] = S.Required;
  if (!S.Ref->Version.empty())
    O["version"] = jsonText(S.Ref->Version);
  if (!S.Providers.empty())
    O["provider"] = jsonText(F.Process->object(S.Providers.front().Object).Path);
  else
    O["provider"] = nullptr;
  json::Array Candidates;
  for (const Binding &B : S.Providers)
    Candidates.push_back(jsonText(F.Process->object(B.Object).Path));
  O["candidates"] = std::move(Candidates);
  if (S.Status == SymbolStatus::Missing) {
    rules::MissingCause Cause = rules::missingCause(S);
    O["reason"] = Cause.Name;
    json::Array Ev;
    for (const DefinitionSite *Site : Cause.Evidence) {
      const DefinitionSite &D = *Site;
      json::Object E;
      E["file"] = jsonText(D.File);
      if (!D.Member.empty())
        E["member"] = jsonText(D.Member);
      if (D.Sym) {
        E["binding"] = toString(D.Sym->Binding);
        E["visibility"] = toString(D.Sym->Visibility);
      }
      Ev.push_back(std::move(E));
    }
    O["evidence"] = std::move(Ev);
  }
  return O;
}

bool clean(const std::vector<Finding> &Fs, StringRef Plugin) {
  for (const Finding &Fd : Fs)
    if (Fd.Sev == Severity::Error && (Fd.Plugin.empty() || Fd.Plugin == Plugin))
      return false;
  return true;
}

json::Array pluginsJson(const CheckFacts &F, const std::vector<Finding> &Fs) {
  json::Array Plugins;
  for (const PluginFacts &P : F.Plugins) {
    json::Object PO;
    PO["path"] = jsonText(P.Path);
    if (!P.Package.empty()) {
      PO["package"] = jsonText(P.Package);
      PO["member"] = jsonText(P.Member);
      PO["model"] = jsonText(P.Model);
    }
    PO["loads"] = loaderAccepts(F, P);
    PO["ok"] = clean(Fs, P.Path);
    json::Array Syms;
    for (const SymbolFacts &S : P.Symbols)
      Syms.push_back(symbolJson(F, S));
    PO["symbols"] = std::move(Syms);
    Plugins.push_back(std::move(PO));
  }
  return Plugins;
}

/// The audit of one slice of the host (the only one, for most hosts).
struct SliceReport {
  std::string Arch; // empty: not a per-slice audit
  std::unique_ptr<CheckFacts> Facts;
  std::vector<Finding> Findings;
};

/// One slice: the report as it has always been. Several (a universal host
/// without the audit machine's slice): the first slice's plugins at the
/// top, every slice's findings tagged with their "arch", and "slices".
void printJson(const std::vector<SliceReport> &Rs, const ActiveConfig &Config) {
  json::Object Root;
  Root["schema_version"] = 1;
  Root["host"] = jsonText(Rs.front().Facts->Options.Host);
  Root["plugins"] = pluginsJson(*Rs.front().Facts, Rs.front().Findings);
  json::Array Findings, Slices;
  for (const SliceReport &R : Rs) {
    json::Array Mine;
    for (const Finding &Fd : R.Findings) {
      json::Value V = findingJson(Fd, /*WithPlugin=*/true);
      if (!R.Arch.empty())
        V.getAsObject()->try_emplace("arch", R.Arch);
      Findings.push_back(V);
      Mine.push_back(std::move(V));
    }
    if (R.Arch.empty())
      continue;
    json::Object S;
    S["arch"] = R.Arch;
    S["plugins"] = pluginsJson(*R.Facts, R.Findings);
    S["findings"] = std::move(Mine);
    Slices.push_back(std::move(S));
  }
  Root["findings"] = std::move(Findings);
  if (!Slices.empty())
    Root["slices"] = std::move(Slices);
  if (Config.active())
    Root["config"] = Config.json();
  outs() << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
}

void printText(const CheckFacts &F, const std::vector<Finding> &Fs,
               bool Color) {
  raw_ostream &OS = outs();
  std::vector<const Finding *> HostLevel;
  for (const Finding &Fd : Fs)
    if (Fd.Plugin.empty())
      HostLevel.push_back(&Fd);
  OS << "host " << F.Options.Host << "\n";
  if (!HostLevel.empty())
    printFindingsText(OS, HostLevel, Color);

  unsigned Failing = 0;
  for (const PluginFacts &P : F.Plugins) {
    std::vector<const Finding *> Mine;
    for (const Finding &Fd : Fs)
      if (Fd.Plugin == P.Path)
        Mine.push_back(&Fd);
    unsigned Required = 0, Bound = 0, Other = 0;
    std::map<std::string, unsigned> ByProvider;
    for (const SymbolFacts &S : P.Symbols) {
      (S.Required ? Required : Other)++;
      if (S.Status == SymbolStatus::Bound) {
        ++Bound;
        if (S.Required)
          ++ByProvider[std::string(
              sys::path::filename(F.Process->object(S.Providers[0].Object).Path))];
      }
    }
    bool Loads = loaderAccepts(F, P), Ok = clean(Fs, P.Path);
    Failing += !Ok;
    OS << "plugin " << P.Path << ": ";
    if (Color)
      OS.changeColor(Ok ? raw_ostream::GREEN : raw_ostream::RED, true);
    OS << (Ok ? (Loads ? "OK, loads"
                       : "fails to load, every error suppressed by the configuration")
           : Loads ? "loads, but breaks a rule"
                   : "fails to load");
    if (Color)
      OS.resetColor();
    OS << formatv(" ({0} of {1} symbols bound", Bound, P.Symbols.size());
    if (!ByProvider.empty()) {
      OS << "; required ones from ";
      bool First = true;
      for (const auto &[Name, N] : ByProvider) {
        OS << (First ? "" : ", ") << Name << ": " << N;
        First = false;
      }
    }
    OS << ")\n";
    printFindingsText(OS, Mine, Color);
  }
  unsigned Errors = 0, Warnings = 0, Notes = 0;
  for (const Finding &Fd : Fs)
    (Fd.Sev == Severity::Error ? Errors
     : Fd.Sev == Severity::Warning ? Warnings
                                   : Notes)++;
  OS << formatv("{0} plugin(s), {1} with errors; {2} error(s), {3} "
                "warning(s), {4} note(s)\n",
                F.Plugins.size(), Failing, Errors, Warnings, Notes);
}

} // namespace

CommandFn addCheckCommand(CLI::App &App) {
  auto Args = std::make_shared<CheckArgs>();
  CheckOptions &O = Args->Options;
  CLI::App *Cmd = App.add_subcommand("check", "Will these plugins load in this host?");
  Cmd->footer(CheckHelp);
  Cmd->add_option("--host", O.Host, "The executable that dlopen()s the plugins")
      ->required()
      ->check(CLI::ExistingFile);
  Cmd->add_option("plugins", O.Plugins,
                  "Model .so files (plugins) to check; a .pt2 package stands "
                  "for every .so inside it, a directory for every .pt2 under it")
      ->required()
      ->check(CLI::ExistingPath);
  Cmd->add_option("--env", O.Environment,
                  "NAME=VALUE the host runs with (LD_LIBRARY_PATH, LD_PRELOAD; "
                  "DYLD_LIBRARY_PATH, DYLD_FALLBACK_LIBRARY_PATH, "
                  "DYLD_INSERT_LIBRARIES for a Mach-O host)");
  Cmd->add_option("--lib-path", O.LibraryPath,
                  "A directory searched like an LD_LIBRARY_PATH (Mach-O: "
                  "DYLD_LIBRARY_PATH) entry, after --env's");
  Cmd->add_option("--sysroot", O.Sysroot,
                  "Audit a copied file system: absolute paths are taken inside DIR")
      ->check(CLI::ExistingDirectory);
  Cmd->add_option("--arch", O.Arch,
                  "The slice of universal (fat) Mach-O files to audit (arm64, "
                  "x86_64); default: the host's, else the first");
  addPrefixOptions(*Cmd, O.Prefixes, PrefixValues::UpToNextOption,
                   "Names that must bind to exactly one provider "
                   "(default: aoti_torch_)",
                   &O.All,
                   "Check every undefined reference, not only --prefix "
                   "ones (a weak one that stays unbound is a note)");
  Cmd->add_option("--archive", O.Archives,
                  "A static archive the host links (explains members it left out)")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--preload", O.Preloads,
                  "A library the host dlopen()s with RTLD_GLOBAL before the model")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--candidate", O.Candidates,
                  "A library that is not loaded but might define what is missing")
      ->check(CLI::ExistingFile);
  addOutputOptions(*Cmd, Args->Format, Args->Color);
  addConfigOptions(*Cmd, Args->Config);

  return [Args, Cmd]() -> int {
    auto Config = ActiveConfig::load(Args->Config);
    if (!Config) {
      printError(toString(Config.takeError()));
      return ExitBadInput;
    }
    CheckOptions &O = Args->Options;
    // --prefix, else the configuration's, else the default.
    if (Cmd->count("--prefix") == 0 && !Config->prefixes().empty())
      O.Prefixes = Config->prefixes();
    // Read once; every slice it lists is audited on its own.
    auto Host = openCheckHost(O);
    if (!Host) {
      printError(toString(Host.takeError()));
      return ExitBadInput;
    }

    std::vector<SliceReport> Reports;
    for (const std::string &Arch : Host->Slices) {
      auto Facts = analyzeCheck(O, *Host, Arch);
      if (!Facts) {
        printError(toString(Facts.takeError()));
        return ExitBadInput;
      }
      if (Reports.empty()) // once, however many slices are audited
        for (const std::string &W : (*Facts)->ArchiveWarnings)
          printWarning(W);
      std::vector<Finding> Fs = rules::runCheckRules(**Facts);
      Config->apply(Fs);
      Reports.push_back(
          {Host->EverySlice ? Arch : "", std::move(*Facts), std::move(Fs)});
    }

    if (Args->Format == "json") {
      printJson(Reports, *Config);
    } else if (Args->Format == "sarif") {
      SarifRun Run{"check", AOTI_VERSION};
      Config->addToSarif(Run);
      std::vector<Finding> All;
      for (SliceReport &R : Reports)
        for (Finding &Fd : R.Findings) {
          if (!R.Arch.empty())
            Fd.Message = "[" + R.Arch + " slice] " + Fd.Message;
          All.push_back(Fd);
        }
      printSarif(outs(), All, Run);
    } else {
      bool Color = useColor(outs(), Args->Color);
      for (const SliceReport &R : Reports) {
        if (!R.Arch.empty())
          outs() << formatv("slice {0} (the host has no {1} slice, so every "
                            "slice is audited; --arch picks one)\n",
                            R.Arch, auditMachineArch());
        printText(*R.Facts, R.Findings, Color);
      }
      Config->printText(outs(), Color);
    }
    for (const SliceReport &R : Reports)
      for (const Finding &Fd : R.Findings)
        if (Fd.Sev == Severity::Error)
          return ExitFindings;
    return ExitOk;
  };
}

} // namespace aoti::tool
