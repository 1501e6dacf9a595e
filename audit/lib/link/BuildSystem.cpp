//===- link/BuildSystem.cpp - CMake File API and ninja -t commands --------===//
#include "aoti/audit/link/BuildSystem.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace aoti::audit {

namespace {

std::string join(StringRef A, StringRef B) {
  if (B.empty())
    return A.str();
  if (sys::path::is_absolute(B))
    return B.str();
  SmallString<256> P(A);
  sys::path::append(P, B);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

Expected<json::Value> readJson(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError(Path + ": " + Buf.getError().message());
  auto V = json::parse((*Buf)->getBuffer());
  if (!V)
    return makeError(Path + ": " + toString(V.takeError()));
  return std::move(*V);
}

/// CMakeCache.txt entries, NAME -> value (the type is dropped).
std::map<std::string, std::string> readCache(StringRef BuildDir) {
  std::map<std::string, std::string> Out;
  auto Buf = MemoryBuffer::getFile(join(BuildDir, "CMakeCache.txt"), true);
  if (!Buf)
    return Out;
  SmallVector<StringRef, 256> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (StringRef L : Lines) {
    if (L.empty() || L[0] == '#' || L.starts_with("//"))
      continue;
    auto [Key, Value] = L.split('=');
    Key = Key.take_until([](char C) { return C == ':'; });
    Out[Key.str()] = Value.rtrim("\r").str();
  }
  return Out;
}

std::string str(const json::Object *O, StringRef Key) {
  if (!O)
    return "";
  if (auto S = O->getString(Key))
    return S->str();
  return "";
}

/// The object file CMake writes for Source: under the target's
/// CMakeFiles/<name>.dir/, the source path relative to the target's source
/// directory (".." spelled "__"), plus ".o".
std::string objectPath(StringRef TargetBuildDir, StringRef TargetName,
                       StringRef TargetSourceDir, StringRef Source) {
  SmallString<256> Rel;
  std::string Abs = join(TargetSourceDir, Source);
  StringRef S = Abs;
  if (S.consume_front(TargetSourceDir) && S.consume_front("/")) {
    Rel = S;
  } else {
    // Outside the source directory: a relative path with ".." as "__".
    SmallString<256> R;
    auto SrcIt = sys::path::begin(TargetSourceDir);
    auto AbsIt = sys::path::begin(Abs);
    auto SrcEnd = sys::path::end(TargetSourceDir);
    auto AbsEnd = sys::path::end(Abs);
    while (SrcIt != SrcEnd && AbsIt != AbsEnd && *SrcIt == *AbsIt) {
      ++SrcIt;
      ++AbsIt;
    }
    for (; SrcIt != SrcEnd; ++SrcIt)
      sys::path::append(R, "__");
    for (; AbsIt != AbsEnd; ++AbsIt)
      sys::path::append(R, *AbsIt);
    Rel = R;
  }
  SmallString<256> P(TargetBuildDir);
  sys::path::append(P, "CMakeFiles", (TargetName + ".dir").str(), Rel);
  P += ".o";
  return std::string(P);
}

} // namespace

Expected<CMakeLinks> readCMakeLinks(StringRef BuildDirIn) {
  SmallString<256> BuildDir(BuildDirIn);
  sys::fs::make_absolute(BuildDir);
  sys::path::remove_dots(BuildDir, true);
  if (!sys::fs::is_directory(BuildDir))
    return makeError(BuildDir + ": not a directory");
  if (!sys::fs::exists(join(BuildDir, "CMakeCache.txt")))
    return makeError(BuildDir + ": not a CMake build directory (no "
                              "CMakeCache.txt)");
  CMakeLinks Out;
  std::string Api = join(BuildDir, ".cmake/api/v1");
  std::string QueryDir = join(Api, "query");
  Out.QueryPath = join(QueryDir, "codemodel-v2");
  if (!sys::fs::exists(Out.QueryPath)) {
    if (std::error_code EC = sys::fs::create_directories(QueryDir))
      return makeError(QueryDir + ": " + EC.message());
    std::error_code EC;
    raw_fd_ostream Q(Out.QueryPath, EC);
    if (EC)
      return makeError(Out.QueryPath + ": " + EC.message());
  }

  // The newest reply index that answers the query.
  std::string ReplyDir = join(Api, "reply");
  std::vector<std::string> Indexes;
  std::error_code EC;
  for (sys::fs::directory_iterator It(ReplyDir, EC), End; !EC && It != End;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (Name.starts_with("index-") && Name.ends_with(".json"))
      Indexes.push_back(It->path());
  }
  std::sort(Indexes.begin(), Indexes.end());
  std::string CodemodelFile;
  if (!Indexes.empty()) {
    auto Index = readJson(Indexes.back());
    if (!Index)
      return Index.takeError();
    const json::Object *Reply =
        Index->getAsObject() ? Index->getAsObject()->getObject("reply")
                             : nullptr;
    const json::Object *CM = Reply ? Reply->getObject("codemodel-v2") : nullptr;
    CodemodelFile = str(CM, "jsonFile");
  }
  if (CodemodelFile.empty()) {
    Out.NeedsCMakeRun = true;
    return Out;
  }
  auto CMv = readJson(join(ReplyDir, CodemodelFile));
  if (!CMv)
    return CMv.takeError();
  const json::Object *CM = CMv->getAsObject();
  const json::Array *Configs = CM ? CM->getArray("configurations") : nullptr;
  if (!Configs || Configs->empty())
    return makeError(CodemodelFile + ": no configurations");

  auto Cache = readCache(BuildDir);
  std::string Generator = Cache["CMAKE_GENERATOR"];
  std::string BuildType = Cache["CMAKE_BUILD_TYPE"];
  std::string SourceTop = str(CM->getObject("paths"), "source");

  // Pick the configuration the cache builds (multi-config: the first).
  const json::Object *Config = Configs->front().getAsObject();
  for (const json::Value &C : *Configs)
    if (C.getAsObject() && str(C.getAsObject(), "name") == BuildType)
      Config = C.getAsObject();
  const json::Array *Targets = Config ? Config->getArray("targets") : nullptr;
  if (!Targets)
    return makeError(CodemodelFile + ": no targets");

  struct TargetInfo {
    std::string Name, Type;
    json::Value Json = nullptr;
  };
  std::vector<TargetInfo> All;
  std::map<std::string, std::string> ArchiveTargets;
  for (const json::Value &T : *Targets) {
    std::string File = str(T.getAsObject(), "jsonFile");
    auto TV = readJson(join(ReplyDir, File));
    if (!TV)
      return TV.takeError();
    const json::Object *TO = TV->getAsObject();
    std::string Name = str(TO, "name"), Type = str(TO, "type");
    if (Type == "STATIC_LIBRARY")
      if (const json::Array *Arts = TO ? TO->getArray("artifacts") : nullptr)
        for (const json::Value &A : *Arts)
          ArchiveTargets[join(BuildDir, str(A.getAsObject(), "path"))] = Name;
    All.push_back({std::move(Name), std::move(Type), std::move(*TV)});
  }

  for (const TargetInfo &T : All) {
    if (T.Type != "EXECUTABLE" && T.Type != "SHARED_LIBRARY" &&
        T.Type != "MODULE_LIBRARY")
      continue;
    const json::Object *TO = T.Json.getAsObject();
    const json::Object *Link = TO->getObject("link");
    if (!Link)
      continue;
    BuildSystemLink BL;
    BL.Target = T.Name;
    BL.Type = T.Type;
    BL.Cwd = std::string(BuildDir);
    BL.Context.System = LinkBuildContext::Kind::CMake;
    BL.Context.Target = T.Name;
    BL.Context.BuildDir = std::string(BuildDir);
    BL.Context.ArchiveTargets = ArchiveTargets;

    std::string Lang = str(Link, "language");
    std::string Compiler = Cache["CMAKE_" + Lang + "_COMPILER"];
    if (Compiler.empty())
      return makeError(formatv("{0}: CMakeCache.txt names no CMAKE_{1}_COMPILER",
                             T.Name, Lang));
    BL.Argv.push_back(Compiler);
    std::string Upper = StringRef(BuildType).upper();
    for (const std::string &Flags :
         {Cache["CMAKE_" + Lang + "_FLAGS"],
          Upper.empty() ? std::string()
                        : Cache["CMAKE_" + Lang + "_FLAGS_" + Upper]})
      for (std::string &W : splitShellWords(Flags))
        BL.Argv.push_back(std::move(W));

    std::vector<std::string> LinkFlags, Paths, Libraries;
    if (const json::Array *Frags = Link->getArray("commandFragments")) {
      for (const json::Value &FV : *Frags) {
        const json::Object *FO = FV.getAsObject();
        std::string Role = str(FO, "role");
        std::vector<std::string> Words = splitShellWords(str(FO, "fragment"));
        auto &Into = Role == "flags"         ? LinkFlags
                     : Role == "libraryPath" ? Paths
                                             : Libraries;
        if (Role == "frameworkPath")
          continue;
        for (std::string &W : Words)
          Into.push_back(std::move(W));
      }
    }
    for (std::string &W : LinkFlags)
      BL.Argv.push_back(std::move(W));
    if (T.Type != "EXECUTABLE")
      BL.Argv.push_back("-shared");

    // The target's objects.
    const json::Object *Paths2 = TO->getObject("paths");
    std::string TBuild = join(BuildDir, str(Paths2, "build"));
    std::string TSource = join(SourceTop, str(Paths2, "source"));
    if (const json::Array *Sources = TO->getArray("sources")) {
      for (const json::Value &SV : *Sources) {
        const json::Object *SO = SV.getAsObject();
        if (!SO || !SO->get("compileGroupIndex"))
          continue;
        std::string Src = join(SourceTop, str(SO, "path"));
        std::string Obj = objectPath(TBuild, T.Name, TSource, Src);
        if (!sys::fs::exists(Obj))
          BL.MissingObjects.push_back(Obj);
        BL.Argv.push_back(Obj);
      }
    }
    std::string Artifact = T.Name;
    if (const json::Array *Arts = TO->getArray("artifacts"))
      if (!Arts->empty())
        Artifact = str(Arts->front().getAsObject(), "path");
    BL.Argv.push_back("-o");
    BL.Argv.push_back(Artifact);
    for (std::string &W : Paths)
      BL.Argv.push_back(std::move(W));
    for (std::string &W : Libraries)
      BL.Argv.push_back(std::move(W));
    if (Generator.find("Makefiles") != std::string::npos)
      BL.Cwd = TBuild; // make links from the target's directory
    Out.Links.push_back(std::move(BL));
  }
  return Out;
}

Expected<BuildSystemLink> readNinjaLink(StringRef BuildDirIn, StringRef Target) {
  SmallString<256> BuildDir(BuildDirIn);
  sys::fs::make_absolute(BuildDir);
  sys::path::remove_dots(BuildDir, true);
  if (!sys::fs::exists(join(BuildDir, "build.ninja")))
    return makeError(BuildDir + ": no build.ninja");
  int RC = 0;
  auto Out = runAndCapture("ninja", {"-C", std::string(BuildDir), "-t",
                                     "commands", Target.str()},
                           BuildDir, &RC);
  if (!Out)
    return Out.takeError();
  if (RC != 0)
    return makeError(formatv("ninja -C {0} -t commands {1}: {2}", BuildDir,
                           Target, StringRef(*Out).trim()));
  SmallVector<StringRef, 64> Lines;
  StringRef(*Out).split(Lines, '\n', -1, false);
  while (!Lines.empty() && Lines.back().trim().empty())
    Lines.pop_back();
  if (Lines.empty())
    return makeError(formatv("ninja prints no commands for {0}", Target));
  BuildSystemLink BL;
  BL.Target = Target.str();
  BL.Cwd = std::string(BuildDir);
  BL.Argv = pickLinkCommand(Lines.back(), BL.Cwd);
  if (BL.Argv.empty())
    return makeError(formatv("the last command ninja runs for {0} is not a "
                           "link: {1}",
                           Target, Lines.back().take_front(200)));
  BL.Context.System = LinkBuildContext::Kind::Ninja;
  BL.Context.Target = Target.str();
  BL.Context.BuildDir = std::string(BuildDir);
  return BL;
}

} // namespace aoti::audit
