//===- link/Driver.cpp - Parsing a link command ---------------------------===//
//
// parseLinkCommand turns an argv into LinkCommandLine in three layers, as
// lld's driver reads its flavour's option table:
//
//   1. the compiler driver (CompilerDriver.cpp): what a user writes to gcc or
//      clang (`-Wl,`, `-Xlinker`, `-rdynamic`, `-static`, `-fuse-ld=`,
//      `-target *-apple-*`) translated into linker words, remembering which
//      word of the original command each input came from (so a fix can wrap
//      exactly that word);
//   2. the flavour: ld64 when the linker is ld64 or ld64.lld or the words
//      are ld64's (-arch, -platform_version), else GNU ld or lld by the
//      linker's name, -fuse-ld= or --ld-path=;
//   3. the linker words, read by that flavour's option table: GNU ld and
//      lld share one (GnuOptions.cpp: long options with one dash or two),
//      ld64 has its own (Ld64Options.cpp: one dash, values in the next
//      words).
//
// For a driver, the linker words that are actually used are the driver's own
// (`DRIVER -### ARGS`, Subprocess.cpp): they carry the crt files, default -L
// directories and libraries, and defaults such as --as-needed. The hand
// translation is the fallback when the driver cannot be asked, and the map
// back to the user's words in both cases.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit {

using namespace linker;

namespace {

/// The option table of the flavour: ld64's words are not GNU ld's.
std::unique_ptr<LinkerOptions> optionsFor(bool Ld64, LinkCommandLine &L) {
  return Ld64 ? ld64Options(L, L.Cwd) : gnuOptions(L, L.Cwd);
}

} // namespace

Expected<LinkCommandLine> parseLinkCommand(ArrayRef<std::string> ArgvIn,
                                           const LinkParseOptions &Opts) {
  LinkCommandLine L;
  if (!Opts.Cwd.empty()) {
    L.Cwd = Opts.Cwd;
  } else {
    SmallString<256> Cur;
    sys::fs::current_path(Cur);
    L.Cwd = std::string(Cur);
  }
  std::vector<std::string> Argv(ArgvIn.begin(), ArgvIn.end());
  while (!Argv.empty() && isLauncher(Argv.front())) {
    Argv.erase(Argv.begin());
    while (!Argv.empty() && StringRef(Argv.front()).contains('=') &&
           !StringRef(Argv.front()).starts_with("-"))
      Argv.erase(Argv.begin()); // env NAME=VALUE
  }
  if (Argv.empty())
    return makeError("no link command given (write it after `--`)");
  if (Error E = expandResponseFiles(Argv, L.Cwd, &L.ResponseFiles))
    return E;
  L.Argv = Argv;
  L.Program = Argv.front();
  auto Kind = classifyProgram(L.Program);
  if (!Kind)
    return makeError(
        formatv("{0} is neither a compiler driver (gcc, g++, clang, clang++, "
                "cc, c++) nor a linker (ld, ld.bfd, ld.gold, ld.lld, mold)",
                L.Program));
  L.Kind = *Kind;

  // The option table of the linker that runs; chosen once it is known.
  std::unique_ptr<LinkerOptions> P;
  if (L.Kind == LinkCommandKind::Linker) {
    std::vector<std::string> Words(Argv.begin() + 1, Argv.end());
    std::vector<int> Tokens;
    for (size_t I = 1; I < Argv.size(); ++I)
      Tokens.push_back(int(I));
    bool Ld64 = looksLikeLd64(Argv);
    P = optionsFor(Ld64, L);
    if (Error E = P->parse(std::move(Words), std::move(Tokens), true))
      return E;
    P->finish(false);
    L.Flavor = Ld64 ? LinkFlavor::LD64 : *flavorOfLinkerName(L.Program);
    L.FlavorReason =
        formatv("the command runs {0}{1}", sys::path::filename(L.Program),
                Ld64 && flavorOfLinkerName(L.Program) != LinkFlavor::LD64
                    ? " with ld64's options (-arch, -platform_version)"
                    : "")
            .str();
  } else {
    DriverView V = translateDriver(Argv);
    if (!V.Sources.empty())
      return makeError(formatv("the command compiles {0}; lint the command "
                               "that links the objects",
                               V.Sources.front()));
    // The flavor the user asked for.
    std::optional<LinkFlavor> Asked;
    if (!V.LdPath.empty()) {
      Asked = flavorOfLinkerName(V.LdPath);
      L.FlavorReason = "--ld-path=" + V.LdPath;
    } else if (!V.FuseLd.empty()) {
      Asked = flavorOfLinkerName(V.FuseLd.find('/') == std::string::npos
                                     ? "ld." + V.FuseLd
                                     : V.FuseLd);
      L.FlavorReason = "-fuse-ld=" + V.FuseLd;
    }

    bool Queried = false;
    bool Ld64 = V.Apple;
    if (Opts.QueryDriver) {
      std::vector<std::string> QArgs{"-###"};
      QArgs.insert(QArgs.end(), Argv.begin() + 1, Argv.end());
      int RC = 0;
      auto Out = runAndCapture(L.Program, QArgs, L.Cwd, &RC);
      if (Out && RC == 0) {
        auto Line = linkerLineFromDriver(*Out, L.Program);
        if (!Line)
          return Line.takeError();
        // Map the driver's words back to the user's: inputs by value, in
        // order, so `-lshims` in the driver's line is the user's `-lshims`.
        Ld64 = looksLikeLd64(*Line);
        LinkCommandLine Mine;
        Mine.Cwd = L.Cwd;
        if (Error E = optionsFor(Ld64, Mine)->parse(V.Words, V.WordToken, true))
          return E;
        std::vector<std::string> LinkerWords(Line->begin() + 1, Line->end());
        P = optionsFor(Ld64, L);
        if (Error E = P->parse(std::move(LinkerWords), {}, false))
          return E;
        std::vector<bool> Used(Mine.Args.size(), false);
        for (LinkArg &A : L.Args) {
          if (A.ArgKind != LinkArg::Kind::File &&
              A.ArgKind != LinkArg::Kind::Library &&
              A.ArgKind != LinkArg::Kind::ForceLoad)
            continue;
          for (size_t I = 0; I < Mine.Args.size(); ++I) {
            if (Used[I] || Mine.Args[I].ArgKind != A.ArgKind ||
                Mine.Args[I].Value != A.Value)
              continue;
            Used[I] = true;
            A.Written = true;
            A.Token = Mine.Args[I].Token;
            break;
          }
        }
        if (Ld64) {
          Asked = LinkFlavor::LD64;
          L.FlavorReason =
              formatv("{0} runs {1} for an Apple target",
                      sys::path::filename(L.Program),
                      sys::path::filename((*Line)[0]))
                  .str();
        } else if (!Asked) {
          auto F = flavorOfLinkerName((*Line)[0]);
          Asked = F;
          L.FlavorReason =
              formatv("{0} runs {1}", sys::path::filename(L.Program),
                      sys::path::filename((*Line)[0]))
                  .str();
          if (programStem((*Line)[0]) == "collect2") {
            Asked = LinkFlavor::GNU;
            L.FlavorReason = formatv("{0} links with GNU ld by default",
                                     sys::path::filename(L.Program))
                                 .str();
          }
        }
        Queried = true;
        L.DriverQueried = true;
      } else {
        std::string Why = Out ? formatv("exit status {0}: {1}", RC,
                                        StringRef(*Out).trim().take_front(300))
                                    .str()
                              : toString(Out.takeError());
        L.Approximations.push_back(
            formatv("`{0} -###` failed ({1}); driver flags were translated "
                    "by hand",
                    L.Program, Why)
                .str());
      }
    }
    if (!Queried) {
      P = optionsFor(Ld64, L);
      if (Error E = P->parseTranslated(V))
        return E;
      if (Ld64) {
        Asked = LinkFlavor::LD64;
        L.FlavorReason = formatv("{0} targets an Apple platform",
                                 sys::path::filename(L.Program))
                             .str();
      }
    }
    if (V.Output != "a.out" || L.Output == "a.out")
      L.Output = V.Output;
    P->finish(V.Static && !V.StaticPie);
    L.Flavor = Asked.value_or(LinkFlavor::GNU);
    if (L.FlavorReason.empty())
      L.FlavorReason = formatv("{0} links with GNU ld by default",
                               sys::path::filename(L.Program))
                           .str();
  }
  if (Opts.Flavor) {
    // ld64's words are not GNU ld's: the flavor of a line is its own.
    if ((*Opts.Flavor == LinkFlavor::LD64) != L.isMachO())
      return makeError(
          L.isMachO()
              ? formatv("--flavor {0}: the command is an ld64 link (Mach-O); "
                        "its archives are resolved as lld does already",
                        toString(*Opts.Flavor))
                    .str()
              : "--flavor ld64: the command is not an ld64 link (no -arch, "
                "no Apple target)");
    L.Flavor = *Opts.Flavor;
    L.FlavorReason = "--flavor";
  }
  if (L.Output.empty())
    L.Output = "a.out";
  L.Output = absolute(L.Cwd, L.Output);
  return L;
}

} // namespace aoti::audit
