//===- link/Scripts.h - The small scripts a link line names ---------------===//
//
// Three text formats decide what a link reads and exports, and the model
// reads the part of each that matters:
//   * input scripts: a "library" that is text, such as glibc's libc.so:
//     INPUT(...), GROUP(...), AS_NEEDED(...), SEARCH_DIR(...). A script with
//     SECTIONS or assignments is a full linker script and is not modelled;
//   * version scripts: which names stay global and which become local;
//   * dynamic lists (--dynamic-list, --export-dynamic-symbol-list): which
//     names an executable exports.
// `extern "C++"` patterns match demangled names.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LINKSCRIPTS_H
#define AOTI_AUDIT_LINKSCRIPTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

struct InputScript {
  struct Entry {
    std::string Name;      // a path, or a library name when IsLibrary
    bool IsLibrary = false; // written -lNAME
    bool AsNeeded = false;
  };
  /// GROUP(...) entries form one group; INPUT(...) entries do not.
  struct Command {
    bool Group = false;
    std::vector<Entry> Entries;
  };
  std::vector<Command> Commands;
  std::vector<std::string> SearchDirs;
};

/// Parses an input script. An error says why the text is not one (not a
/// script at all, or a full linker script the model does not read).
llvm::Expected<InputScript> parseInputScript(llvm::StringRef Text,
                                             llvm::StringRef Path);

/// A list of symbol patterns: names, globs, demangled C++ patterns.
class SymbolPatternList {
public:
  void add(llvm::StringRef Text, bool Cxx);
  bool empty() const { return Exact.empty() && Globs.empty(); }
  /// 0: no match; 1: matched by `*` alone; 2: by another glob; 3: by name.
  int matchStrength(llvm::StringRef Name) const;
  bool matches(llvm::StringRef Name) const { return matchStrength(Name) > 0; }

private:
  struct Glob {
    llvm::GlobPattern P;
    bool Star = false;
    bool Cxx = false;
  };
  std::vector<std::pair<std::string, bool>> Exact; // (name, C++)
  std::vector<Glob> Globs;
  /// The globs' text: a GlobPattern keeps a StringRef into it (its literal
  /// prefix), so the list owns the text, at a stable address.
  std::vector<std::shared_ptr<const std::string>> GlobText;
};

struct VersionScript {
  SymbolPatternList Global;
  SymbolPatternList Local;
  /// Local when a local pattern matches more specifically than any global
  /// one (a name beats a glob, a glob beats `*`; a tie goes to global).
  bool makesLocal(llvm::StringRef Name) const;
  bool mentionsGlobal(llvm::StringRef Name) const {
    return Global.matches(Name);
  }
};

llvm::Expected<VersionScript> parseVersionScript(llvm::StringRef Text,
                                                 llvm::StringRef Path);
/// `{ name; glob*; extern "C++" { ns::f*; }; };`
llvm::Expected<SymbolPatternList> parseDynamicList(llvm::StringRef Text,
                                                   llvm::StringRef Path);

} // namespace aoti::audit

#endif
