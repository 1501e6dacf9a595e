//===- link/CompilerDriver.cpp - gcc's and clang's flags as linker words -===//
//
// The first layer of the command line: what a user writes to gcc or clang
// (`-Wl,`, `-Xlinker`, `-rdynamic`, `-static`, `-fuse-ld=`, and the driver
// spellings of ld64 options) translated into linker words, remembering
// which word of the original command each input came from (so a fix can
// wrap exactly that word). The words go to the option table of the linker
// the driver runs (GnuOptions.cpp, Ld64Options.cpp). When the driver can
// be asked (`-###`) its own linker line is read instead, and these words
// only map its inputs back to the user's.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit::linker {

namespace {

bool isSourceFile(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return StringSwitch<bool>(Ext)
      .Cases(".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", true)
      .Cases(".s", ".S", ".i", ".ii", ".f", ".f90", ".cu", ".sx", true)
      .Default(false);
}

/// Driver options whose value is the next word (and that the linker does not
/// need).
bool driverOptionTakesValue(StringRef A) {
  return StringSwitch<bool>(A)
      .Cases("-x", "-MF", "-MT", "-MQ", "-include", "-imacros", "-isystem",
             true)
      .Cases("-idirafter", "-iquote", "-iprefix", "-iwithprefix", "-isysroot",
             true)
      .Cases("-target", "-arch", "-Xclang", "-Xassembler", "-Xpreprocessor",
             true)
      .Cases("--param", "-aux-info", "-D", "-U", "-I", "-specs", "-B", true)
      .Cases("-dumpdir", "-dumpbase", "-dumpbase-ext", "-Xcuda-fatbinary",
             true)
      .Cases("-Xcuda-ptxas", "-ccc-gcc-name", "--serialize-diagnostics", true)
      .Default(false);
}

} // namespace

DriverView translateDriver(ArrayRef<std::string> Argv) {
  DriverView V;
  auto Emit = [&](std::string W, int Tok) {
    V.Words.push_back(std::move(W));
    V.WordToken.push_back(Tok);
  };
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    int Tok = int(I);
    bool HasNext = I + 1 < Argv.size();
    if (A.consume_front("-Wl,")) {
      SmallVector<StringRef, 8> Parts;
      A.split(Parts, ',');
      for (StringRef P : Parts)
        Emit(P.str(), Parts.size() == 1 ? Tok : -1);
      continue;
    }
    if (A == "-Xlinker") {
      if (HasNext)
        Emit(Argv[++I], -1);
      continue;
    }
    if (A == "-l" || A == "-L" || A == "-u" || A == "-e" || A == "-T" ||
        A == "-z") {
      if (HasNext) {
        Emit((A + Argv[I + 1]).str(), A == "-l" ? -1 : Tok);
        ++I;
      }
      continue;
    }
    if (A == "-o") {
      if (HasNext)
        V.Output = Argv[++I];
      continue;
    }
    if (A.starts_with("-l") || A.starts_with("-L")) {
      Emit(A.str(), Tok);
      continue;
    }
    if (A.starts_with("-u") && A.size() > 2 && !A.starts_with("-undef")) {
      Emit(("-u" + A.drop_front(2)).str(), Tok);
      continue;
    }
    if (A == "-target" || A.starts_with("--target=")) {
      StringRef T = A == "-target" ? (HasNext ? StringRef(Argv[++I]) : "")
                                   : A.drop_front(9);
      V.Apple |= T.contains("apple") || T.contains("darwin") ||
                 T.contains("macos");
      continue;
    }
    if (A == "-arch") {
      V.Apple = true;
      if (HasNext) {
        Emit("-arch", -1);
        Emit(Argv[++I], -1);
      }
      continue;
    }
    // Driver spellings of ld64 options (clang and Apple's gcc pass them on).
    if (A == "-dynamiclib") {
      V.Shared = true;
      continue;
    }
    if (A == "-bundle") {
      V.Bundle = true;
      continue;
    }
    if (A == "-isysroot") {
      if (HasNext) {
        Emit("-syslibroot", -1);
        Emit(Argv[++I], -1);
      }
      continue;
    }
    if (A == "-force_load" || A == "-bundle_loader" || A == "-undefined" ||
        A == "-framework" || A == "-exported_symbols_list" ||
        A == "-unexported_symbols_list" || A == "-weak_framework" ||
        A == "-needed_framework" || A == "-exported_symbol" ||
        A == "-unexported_symbol") {
      Emit(A.str(), Tok);
      if (HasNext) {
        ++I;
        Emit(Argv[I], int(I));
      }
      continue;
    }
    if (A == "-all_load" || A == "-ObjC" || A == "-dead_strip" ||
        A == "-flat_namespace" || A == "-export_dynamic") {
      Emit(A.str(), Tok);
      continue;
    }
    if (A.starts_with("-F") && A.size() > 2) {
      Emit(A.str(), Tok);
      continue;
    }
    if (A == "-rdynamic") {
      Emit("--export-dynamic", Tok);
      continue;
    }
    if (A == "-shared") {
      V.Shared = true;
      continue;
    }
    if (A == "-static") {
      V.Static = true;
      continue;
    }
    if (A == "-static-pie") {
      V.StaticPie = true;
      continue;
    }
    if (A == "-pie") {
      V.Pie = true;
      continue;
    }
    if (A == "-no-pie" || A == "-nopie") {
      V.NoPie = true;
      continue;
    }
    if (A == "-nostdlib") {
      V.NoStdLib = true;
      continue;
    }
    if (A == "-nodefaultlibs") {
      V.NoDefaultLibs = true;
      continue;
    }
    if (A == "-nostartfiles") {
      V.NoStartFiles = true;
      continue;
    }
    if (A.consume_front("-fuse-ld=")) {
      V.FuseLd = A.str();
      continue;
    }
    if (A.consume_front("--ld-path=")) {
      V.LdPath = A.str();
      continue;
    }
    if (A.starts_with("--sysroot=") || A == "-Bstatic" || A == "-Bdynamic") {
      Emit(A.str(), Tok);
      continue;
    }
    if (A == "--sysroot") {
      if (HasNext)
        Emit("--sysroot=" + Argv[++I], -1);
      continue;
    }
    if (driverOptionTakesValue(A)) {
      ++I;
      continue;
    }
    if (A.starts_with("-"))
      continue; // compile and code generation flags
    if (isSourceFile(A)) {
      V.Sources.push_back(A.str());
      continue;
    }
    Emit(A.str(), Tok);
  }
  return V;
}

} // namespace aoti::audit::linker
