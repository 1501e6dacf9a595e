//===- LinkCommand.cpp - aoti-audit link ----------------------------------===//
#include "Commands.h"
#include "ConfigOptions.h"
#include "Output.h"
#include "Sarif.h"

#include "aoti/audit/link/BuildSystem.h"
#include "aoti/audit/link/Model.h"
#include "aoti/rules/Rule.h"

#include "llvm/Demangle/Demangle.h"
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

struct LinkArgs {
  std::vector<std::string> RequireFrom;
  std::vector<std::string> RequireLists;
  std::vector<std::string> Plugins;
  std::vector<std::string> Prefixes;
  std::string Flavor;
  std::string Format = "text";
  std::string Color = "auto";
  std::string Cwd;
  bool NoDriverQuery = false;
  std::string CMakeBuildDir;
  std::vector<std::string> Ninja;
  std::vector<std::string> Command;
  ConfigArgs Config;
};

constexpr const char *LinkHelp = R"(Predicts, before anything is linked or loaded, what a link line pulls in
from its archives and what the output exports. The command is the one the
build runs, after `--`: a compiler driver (g++, clang++, with -Wl, options and
@response files) or a linker (ld, ld.lld, ld64.lld). The real input files are
read: objects, archives in command-line order, -l search, --whole-archive,
groups, -u, --as-needed, export flags, version scripts and --gc-sections; for
Mach-O (ld64: -arch, an Apple -target) -force_load, -all_load, export lists,
-dead_strip, -undefined and -bundle_loader.

Required symbols (the shims) are every name under --prefix that the line's
inputs define, or those of --require-from archives, a --require list, or
what a --plugin model leaves undefined. Each one is exported, defined but not
exported, or not pulled in -- with the member, the reason and the exact fix
for this line, proved by replaying the link with the fix. Also reported: the
strong duplicates the link hits, those force-linking would add, and undefined
references.

GNU ld's left-to-right archive rule and lld's (and ld64's) remember-everything
rule are both modelled; the flavor comes from the command (-fuse-ld=, the
linker's name, ld64's options) unless --flavor says otherwise. A driver is asked for its implicit
inputs (`DRIVER -###`: crt files, default -L directories, libc, libstdc++,
defaults such as --as-needed); --no-driver-query leaves them out.

Examples:
  aoti-audit link -- g++ main.o -o runner -L. -lshims
  aoti-audit link --require-from libshims.a -- clang++ -fuse-ld=lld main.o libshims.a
  aoti-audit link --plugin model.so --format json -- ld -o runner crt1.o main.o -lshims -lc
  aoti-audit link --plugin model.so --format sarif -- ld -o runner crt1.o main.o -lshims -lc
  aoti-audit link -- clang++ -target arm64-apple-macos11 -isysroot SDK main.o libshims.a
  aoti-audit link --cmake-build-dir build
  aoti-audit link --ninja build runner

The nearest .aoti-audit.toml (or --config FILE) sets the default prefixes,
rule severities and suppressions (docs/config.md).

Exit status: 0 every required symbol is exported and the link succeeds, 1 an
error was found, 2 bad usage or an unreadable input.)";

// --- JSON -------------------------------------------------------------------

json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(jsonText(S));
  return A;
}

json::Array extractedJson(const LinkFacts &F, const LinkResult &R) {
  json::Array A;
  for (const LinkedObject &O : R.Objects) {
    if (O.Member < 0 && !F.Inputs[O.Input].Lazy)
      continue;
    json::Object E;
    E["archive"] = jsonText(F.inputName(int(O.Input)));
    E["member"] = O.Member >= 0 ? json::Value(F.Inputs[O.Input].Ar->members()[O.Member].Name)
                                : json::Value(nullptr);
    E["object"] = jsonText(F.objectName(R, int(&O - R.Objects.data())));
    E["reason"] = toString(O.Why.Reason);
    E["symbol"] = O.Why.Symbol.empty() ? json::Value(nullptr) : jsonText(O.Why.Symbol);
    if (O.Why.ByObject >= 0)
      E["by"] = jsonText(F.objectName(R, O.Why.ByObject));
    else if (O.Why.ByInput >= 0)
      E["by"] = jsonText(F.inputName(O.Why.ByInput));
    else
      E["by"] = nullptr;
    A.push_back(std::move(E));
  }
  return A;
}

json::Array requiredJson(const LinkFacts &F, const LinkResult &R,
                         const std::vector<RequiredSymbol> &Req) {
  json::Array A;
  for (const RequiredSymbol &Q : Req) {
    json::Object O;
    O["name"] = jsonText(Q.Name);
    O["status"] = toString(Q.Status);
    if (Q.Object >= 0)
      O["defined_by"] = jsonText(F.objectName(R, Q.Object));
    else if (Q.Input >= 0 && Q.Status == RequiredStatus::NotPulledIn)
      O["defined_by"] =
          Q.Member >= 0
              ? F.inputName(Q.Input) + "(" +
                    F.Inputs[Q.Input].Ar->members()[Q.Member].Name + ")"
              : F.inputName(Q.Input);
    else if (Q.Input >= 0)
      O["defined_by"] = jsonText(F.inputName(Q.Input));
    else
      O["defined_by"] = nullptr;
    if (Q.Status == RequiredStatus::Exported)
      O["exported_because"] = toString(Q.ExportedBy);
    if (Q.Status == RequiredStatus::NotPulledIn)
      O["reason"] = toString(Q.Why);
    A.push_back(std::move(O));
  }
  return A;
}

json::Object resultJson(const LinkFacts &F, const LinkResult &R) {
  json::Object O;
  O["flavor"] = toString(R.Flavor);
  O["output_kind"] = toString(R.OutputKind);
  O["dynamic"] = R.Dynamic;
  O["extracted"] = extractedJson(F, R);
  O["exports"] = strings(R.exportedNames());
  O["defined"] = strings(R.definedNames());
  json::Array MD;
  for (const MultipleDefinition &M : R.MultipleDefinitions)
    MD.push_back(json::Object{{"symbol", jsonText(M.Symbol)},
                              {"first", jsonText(F.objectName(R, M.First))},
                              {"second", jsonText(F.objectName(R, M.Second))}});
  O["multiple_definitions"] = std::move(MD);
  json::Array U;
  for (const UndefinedReference &X : R.Undefined) {
    json::Object E;
    E["symbol"] = jsonText(X.Symbol);
    E["referenced_by"] =
        X.ByObject >= 0        ? jsonText(F.objectName(R, X.ByObject))
        : X.BySharedInput >= 0 ? jsonText(F.inputName(X.BySharedInput))
                               : json::Value(nullptr);
    E["from_shared_library"] = X.BySharedInput >= 0;
    U.push_back(std::move(E));
  }
  O["undefined"] = std::move(U);
  json::Array Needed;
  for (size_t I = 0; I < F.Inputs.size(); ++I)
    if (I < R.Needed.size() && R.Needed[I])
      Needed.push_back(jsonText(F.inputName(int(I))));
  O["needed"] = std::move(Needed);
  return O;
}

bool hasErrors(const std::vector<Finding> &Fs) {
  for (const Finding &Fd : Fs)
    if (Fd.Sev == Severity::Error)
      return true;
  return false;
}

json::Value linkJson(const LinkFacts &F, const std::vector<Finding> &Fs) {
  const LinkCommandLine &L = F.Line;
  json::Object O;
  O["target"] = F.Request.Context.Target.empty()
                    ? json::Value(nullptr)
                    : jsonText(F.Request.Context.Target);
  O["ok"] = !hasErrors(Fs);
  O["command"] = strings(L.Argv);
  O["cwd"] = jsonText(L.Cwd);
  O["program"] = jsonText(L.Program);
  O["flavor_reason"] = jsonText(L.FlavorReason);
  O["output"] = jsonText(F.displayPath(L.Output));
  O["driver_queried"] = L.DriverQueried;
  O["approximations"] = strings(L.Approximations);
  O["ignored_options"] = strings(L.Ignored);
  json::Array Inputs;
  for (size_t I = 0; I < F.Inputs.size(); ++I) {
    const LinkInput &In = F.Inputs[I];
    json::Object E;
    E["path"] = In.Path.empty() ? json::Value(nullptr) : jsonText(In.Path);
    E["as_written"] = jsonText(In.AsWritten);
    E["kind"] = toString(In.InputKind);
    E["written_by_user"] = In.Arg >= 0 && L.Args[In.Arg].Written;
    E["whole_archive"] = In.WholeArchive;
    E["as_needed"] = In.AsNeeded;
    E["group"] = In.Group;
    if (!In.Script.empty())
      E["script"] = jsonText(In.Script);
    if (!In.Missing.empty())
      E["missing"] = jsonText(In.Missing);
    Inputs.push_back(std::move(E));
  }
  O["inputs"] = std::move(Inputs);
  json::Object R = resultJson(F, F.Result);
  for (auto &KV : R)
    O[KV.first] = std::move(KV.second);
  O["required_from"] = strings(F.RequiredFrom);
  O["required"] = requiredJson(F, F.Result, F.Required);
  json::Array Probs;
  for (const InputProblem &P : F.Result.Problems)
    Probs.push_back(jsonText(P.Message));
  O["problems"] = std::move(Probs);
  if (F.Fixed) {
    json::Object Fx;
    json::Array WA;
    for (unsigned I : F.FixWholeArchive)
      WA.push_back(jsonText(F.Inputs[I].AsWritten));
    Fx["whole_archive"] = std::move(WA);
    json::Array KeepShared;
    for (unsigned I : F.FixNoAsNeeded)
      KeepShared.push_back(jsonText(F.Inputs[I].AsWritten));
    Fx["no_as_needed"] = std::move(KeepShared);
    Fx["export_dynamic"] = F.FixExportDynamic;
    Fx["command"] = F.FixedArgv.empty() ? json::Value(nullptr)
                                        : json::Value(strings(F.FixedArgv));
    if (!F.FixedArgvWhyNot.empty())
      Fx["why_no_command"] = jsonText(F.FixedArgvWhyNot);
    unsigned Exported = 0;
    for (const RequiredSymbol &Q : F.FixedRequired)
      Exported += Q.Status == RequiredStatus::Exported ||
                  Q.Status == RequiredStatus::FromSharedLibrary;
    Fx["required_exported"] = Exported;
    Fx["required_total"] = F.FixedRequired.size();
    json::Array Added;
    for (const MultipleDefinition &M : F.AddedByFix)
      Added.push_back(json::Object{{"symbol", jsonText(M.Symbol)},
                                   {"first", jsonText(F.objectName(*F.Fixed, M.First))},
                                   {"second", jsonText(F.objectName(*F.Fixed, M.Second))}});
    Fx["adds_multiple_definitions"] = std::move(Added);
    Fx["replay"] = resultJson(F, *F.Fixed);
    O["fix"] = std::move(Fx);
  } else {
    O["fix"] = nullptr;
  }
  if (F.GnuReplay) {
    json::Object G = resultJson(F, *F.GnuReplay);
    G["required"] = requiredJson(F, *F.GnuReplay, F.GnuRequired);
    O["gnu_replay"] = std::move(G);
  }
  json::Array Findings;
  for (const Finding &Fd : Fs)
    Findings.push_back(findingJson(Fd, /*WithPlugin=*/false));
  O["findings"] = std::move(Findings);
  return O;
}

// --- text -------------------------------------------------------------------

void printText(raw_ostream &OS, const LinkFacts &F,
               const std::vector<Finding> &Fs, bool Color) {
  const LinkCommandLine &L = F.Line;
  const LinkResult &R = F.Result;
  bool Ok = !hasErrors(Fs);
  OS << "link " << F.displayPath(L.Output);
  if (!F.Request.Context.Target.empty())
    OS << " (target " << F.Request.Context.Target << ")";
  OS << ": ";
  if (Color)
    OS.changeColor(Ok ? raw_ostream::GREEN : raw_ostream::RED, true);
  OS << (Ok ? "ok" : "fails the audit");
  if (Color)
    OS.resetColor();
  unsigned Members = 0;
  for (const LinkedObject &O : R.Objects)
    Members += O.Member >= 0;
  OS << formatv("\n  {0} rule ({1}); {2} input(s), {3} archive member(s) "
                "pulled in; {4}, exports {5} name(s)\n",
                L.Flavor == LinkFlavor::GNU   ? "GNU ld"
                : L.Flavor == LinkFlavor::LLD ? "lld"
                                              : "ld64",
                L.FlavorReason,
                F.Inputs.size(), Members, toString(R.OutputKind),
                R.exportedNames().size());

  std::map<RequiredStatus, unsigned> Count;
  for (const RequiredSymbol &Q : F.Required)
    ++Count[Q.Status];
  OS << "  required: " << F.Required.size() << " symbol(s)";
  if (!F.RequiredFrom.empty()) {
    OS << " from ";
    for (size_t I = 0; I < F.RequiredFrom.size(); ++I)
      OS << (I ? ", " : "") << F.displayPath(F.RequiredFrom[I]);
  }
  if (!Count.empty()) {
    OS << ":";
    bool First = true;
    for (const auto &[S, N] : Count) {
      OS << (First ? " " : ", ") << N << " " << toString(S);
      First = false;
    }
  }
  OS << "\n";

  std::vector<const Finding *> Ptrs;
  for (const Finding &Fd : Fs)
    Ptrs.push_back(&Fd);
  printFindingsText(OS, Ptrs, Color);

  if (F.Fixed && !Fs.empty()) {
    unsigned Exported = 0;
    for (const RequiredSymbol &Q : F.FixedRequired)
      Exported += Q.Status == RequiredStatus::Exported ||
                  Q.Status == RequiredStatus::FromSharedLibrary;
    OS << formatv("  with the fix: {0} of {1} required symbol(s) exported",
                  Exported, F.FixedRequired.size());
    if (!F.AddedByFix.empty())
      OS << formatv(", {0} new multiple definition(s)", F.AddedByFix.size());
    OS << "\n";
    if (!F.FixedArgv.empty())
      OS << "    fixed link line: " << joinShellWords(F.FixedArgv) << "\n";
    // What the members the fix force-links need in turn: the fixed line
    // still fails until something defines these (JSON:
    // fix.replay.undefined).
    const std::vector<UndefinedReference> &Left = F.Fixed->Undefined;
    if (!Left.empty()) {
      std::vector<std::string> Names;
      for (const UndefinedReference &U : Left)
        if (!llvm::is_contained(Names, U.Symbol))
          Names.push_back(U.Symbol);
      constexpr size_t Named = 8;
      OS << formatv("    but the fixed line still fails to link: {0} undefined "
                    "reference(s): ",
                    Names.size());
      for (size_t I = 0; I != Names.size() && I != Named; ++I) {
        StringRef N = Names[I];
        std::string D = N.starts_with("_Z")
                            ? llvm::demangle(std::string_view(N.data(), N.size()))
                            : N.str();
        OS << (I ? ", " : "") << "`" << D << "`";
      }
      if (Names.size() > Named)
        OS << formatv(" and {0} more", Names.size() - Named);
      OS << "; add what defines them to the line as well\n";
    }
  }
  for (const std::string &A : L.Approximations)
    OS << "  note: " << A << "\n";
  for (const std::string &N : R.Notes)
    OS << "  note: " << N << "\n";
}

} // namespace

CommandFn addLinkCommand(CLI::App &App) {
  auto Args = std::make_shared<LinkArgs>();
  CLI::App *Cmd = App.add_subcommand(
      "link", "Will this link line define and export every shim?");
  Cmd->footer(LinkHelp);
  // Repeatable options take one value per occurrence: CLI11 would otherwise
  // let `--` end their values and parse the link command as our options.
  Cmd->add_option("--require-from", Args->RequireFrom,
                  "Every global definition (under --prefix) of this archive is required")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::ExistingFile);
  Cmd->add_option("--require", Args->RequireLists,
                  "A file of required names, one per line (# comments)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::ExistingFile);
  Cmd->add_option("--plugin", Args->Plugins,
                  "A model .so, .pt2 package (every .so inside) or directory of "
                  ".pt2: what it leaves undefined under --prefix is required")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::ExistingPath);
  addPrefixOptions(*Cmd, Args->Prefixes, PrefixValues::OnePerOption,
                   "Names that are shims (default: aoti_torch_; '' for all)");
  Cmd->add_option("--flavor", Args->Flavor,
                  "Archive rule: gnu (ld.bfd, gold) or lld (lld, mold); "
                  "ld64 for a Mach-O line; default: from the command")
      ->check(CLI::IsMember({"gnu", "lld", "ld64"}));
  addOutputOptions(*Cmd, Args->Format, Args->Color);
  Cmd->add_option("--cwd", Args->Cwd,
                  "Directory the link command runs in (default: here)")
      ->check(CLI::ExistingDirectory);
  Cmd->add_flag("--no-driver-query", Args->NoDriverQuery,
                "Do not run `DRIVER -###`; leave the driver's implicit inputs out");
  auto *CMake = Cmd->add_option("--cmake-build-dir", Args->CMakeBuildDir,
                                "Lint every target of this CMake build that links a "
                                "shim archive (CMake File API)")
                    ->check(CLI::ExistingDirectory);
  auto *Ninja = Cmd->add_option("--ninja", Args->Ninja,
                                "DIR TARGET: lint the command ninja links TARGET with")
                    ->expected(2);
  Ninja->excludes(CMake);
  addConfigOptions(*Cmd, Args->Config);
  Cmd->add_option("command", Args->Command, "The link command, after `--`");

  return [Args]() -> int {
    auto Config = ActiveConfig::load(Args->Config);
    if (!Config) {
      printError(toString(Config.takeError()));
      return ExitBadInput;
    }
    LinkRequest Base;
    Base.RequireFrom = Args->RequireFrom;
    Base.RequireNames = Args->RequireLists;
    Base.Plugins = Args->Plugins;
    if (!Args->Prefixes.empty())
      Base.Prefixes = Args->Prefixes;
    else if (!Config->prefixes().empty())
      Base.Prefixes = Config->prefixes();
    Base.Parse.Cwd = Args->Cwd;
    Base.Parse.QueryDriver = !Args->NoDriverQuery;
    if (!Args->Flavor.empty())
      Base.Parse.Flavor = Args->Flavor == "lld"    ? LinkFlavor::LLD
                          : Args->Flavor == "ld64" ? LinkFlavor::LD64
                                                   : LinkFlavor::GNU;

    std::vector<LinkRequest> Requests;
    bool FromCMake = !Args->CMakeBuildDir.empty();
    if (FromCMake + !Args->Ninja.empty() + !Args->Command.empty() != 1) {
      printError("give exactly one of: a link command after `--`, "
                 "--cmake-build-dir DIR, --ninja DIR TARGET");
      return ExitBadInput;
    }
    if (FromCMake) {
      auto Links = readCMakeLinks(Args->CMakeBuildDir);
      if (!Links) {
        printError(toString(Links.takeError()));
        return ExitBadInput;
      }
      if (Links->NeedsCMakeRun) {
        printError(formatv("no CMake File API reply in {0} yet: the query "
                           "{1} is in place; re-run cmake on that build "
                           "directory (cmake {0}), then run this again",
                           Args->CMakeBuildDir, Links->QueryPath)
                       .str());
        return ExitBadInput;
      }
      for (BuildSystemLink &BL : Links->Links) {
        LinkRequest R = Base;
        R.Argv = std::move(BL.Argv);
        R.Parse.Cwd = BL.Cwd;
        R.Context = std::move(BL.Context);
        Requests.push_back(std::move(R));
      }
    } else if (!Args->Ninja.empty()) {
      auto BL = readNinjaLink(Args->Ninja[0], Args->Ninja[1]);
      if (!BL) {
        printError(toString(BL.takeError()));
        return ExitBadInput;
      }
      LinkRequest R = Base;
      R.Argv = std::move(BL->Argv);
      R.Parse.Cwd = BL->Cwd;
      R.Context = std::move(BL->Context);
      Requests.push_back(std::move(R));
    } else {
      LinkRequest R = Base;
      R.Argv = Args->Command;
      Requests.push_back(std::move(R));
    }

    bool Json = Args->Format == "json";
    bool Sarif = Args->Format == "sarif";
    std::vector<Finding> AllFindings; // --format sarif: one log for every link
    bool Color = useColor(outs(), Args->Color);
    json::Array Links;
    std::vector<std::string> Skipped;
    bool AnyErrors = false;
    for (LinkRequest &R : Requests) {
      std::string Target = R.Context.Target;
      auto Facts = analyzeLink(std::move(R));
      if (!Facts) {
        std::string Msg = toString(Facts.takeError());
        if (!Target.empty())
          Msg = "target " + Target + ": " + Msg;
        printError(Msg);
        return ExitBadInput;
      }
      // A build-tree lint looks only at targets that link a shim archive.
      if (FromCMake && (*Facts)->ShimArchives.empty()) {
        Skipped.push_back(Target);
        continue;
      }
      std::vector<Finding> Fs = rules::runLinkRules(**Facts);
      Config->apply(Fs);
      AnyErrors |= hasErrors(Fs);
      if (Json)
        Links.push_back(linkJson(**Facts, Fs));
      else if (Sarif)
        AllFindings.insert(AllFindings.end(), Fs.begin(), Fs.end());
      else
        printText(outs(), **Facts, Fs, Color);
    }
    if (Sarif) {
      SarifRun Run{"link", AOTI_VERSION};
      Config->addToSarif(Run);
      printSarif(outs(), AllFindings, Run);
    } else if (Json) {
      json::Object Root;
      Root["schema_version"] = 1;
      Root["links"] = std::move(Links);
      if (FromCMake)
        Root["skipped_targets"] = strings(Skipped);
      if (Config->active())
        Root["config"] = Config->json();
      outs() << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    } else if (FromCMake) {
      outs() << formatv("{0} target(s) link no shim archive (no member "
                        "defines a name under the prefixes): ",
                        Skipped.size());
      for (size_t I = 0; I < Skipped.size(); ++I)
        outs() << (I ? ", " : "") << Skipped[I];
      outs() << "\n";
    }
    if (!Sarif && !Json)
      Config->printText(outs(), Color);
    return AnyErrors ? ExitFindings : ExitOk;
  };
}

} // namespace aoti::tool
