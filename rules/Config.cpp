//===- Config.cpp - .aoti-audit.toml --------------------------------------===//
//
// Parsed with toml++ (Debian's libtomlplusplus-dev), header-only and
// without exceptions: a parse error is a value here, as everywhere in the
// library.
//
//===----------------------------------------------------------------------===//
#include "aoti/rules/Config.h"
#include "aoti/audit/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

using namespace llvm;

namespace aoti::rules {

namespace {

class ConfigParser {
public:
  ConfigParser(StringRef Path, ArrayRef<KnownRule> Rules)
      : Path(Path), Rules(Rules) {}

  Expected<AuditConfig> parse(StringRef Text) {
    toml::parse_result R =
        toml::parse(std::string_view(Text.data(), Text.size()),
                    std::string_view(Path.data(), Path.size()));
    if (!R)
      return error(R.error().source().begin.line,
                   std::string(R.error().description()));
    AuditConfig C;
    C.Path = Path.str();
    for (auto &&[Key, Value] : R.table()) {
      std::string_view K = Key.str();
      unsigned Line = Key.source().begin.line;
      Error E = Error::success();
      if (K == "prefixes")
        E = readPrefixes(Value, Line, C);
      else if (K == "severity")
        E = readSeverities(Value, Line, C);
      else if (K == "suppress")
        E = readSuppressions(Value, Line, C);
      else
        E = error(Line, formatv("unknown key '{0}' (expected prefixes, "
                                "severity or [[suppress]])",
                                StringRef(K.data(), K.size()))
                            .str());
      if (E)
        return E;
    }
    return C;
  }

private:
  Error error(unsigned Line, const Twine &Msg) const {
    return audit::makeError(Path + ":" + Twine(Line) + ": " + Msg);
  }

  static unsigned lineOf(const toml::node &N) { return N.source().begin.line; }

  /// The id of a rule named by id or by name.
  std::optional<StringRef> ruleId(StringRef Name) const {
    for (const KnownRule &R : Rules)
      if (Name.equals_insensitive(R.Id) || Name == R.Name)
        return R.Id;
    return std::nullopt;
  }

  Error unknownRule(unsigned Line, StringRef Name) const {
    return error(Line, formatv("no rule '{0}' (`aoti-audit rules` lists them)",
                               Name)
                           .str());
  }

  Error readPrefixes(const toml::node &V, unsigned Line, AuditConfig &C) {
    const toml::array *A = V.as_array();
    if (!A)
      return error(Line, "prefixes must be an array of strings");
    for (const toml::node &E : *A) {
      std::optional<std::string> S = E.value<std::string>();
      if (!S)
        return error(lineOf(E), "prefixes must be an array of strings");
      C.Prefixes.push_back(std::move(*S));
    }
    return Error::success();
  }

  Error readSeverities(const toml::node &V, unsigned Line, AuditConfig &C) {
    const toml::table *T = V.as_table();
    if (!T)
      return error(Line, "severity must be a table: [severity] RULE = \"LEVEL\"");
    for (auto &&[Key, Level] : *T) {
      StringRef Name(Key.str().data(), Key.str().size());
      unsigned L = Key.source().begin.line;
      std::optional<StringRef> Id = ruleId(Name);
      if (!Id)
        return unknownRule(L, Name);
      std::optional<std::string> S = Level.value<std::string>();
      std::optional<Severity> Sev;
      if (S && *S == "error")
        Sev = Severity::Error;
      else if (S && *S == "warning")
        Sev = Severity::Warning;
      else if (S && *S == "note")
        Sev = Severity::Note;
      else if (!S || *S != "off")
        return error(L, formatv("severity of {0} must be \"error\", "
                                "\"warning\", \"note\" or \"off\"",
                                Name)
                            .str());
      C.Severities[Id->str()] = Sev;
    }
    return Error::success();
  }

  Error readGlob(const toml::table &T, StringRef Key, std::string &Out) {
    const toml::node *N = T.get(std::string_view(Key.data(), Key.size()));
    if (!N)
      return Error::success();
    std::optional<std::string> S = N->value<std::string>();
    if (!S)
      return error(lineOf(*N), formatv("{0} must be a string", Key).str());
    if (Expected<GlobPattern> G = GlobPattern::create(*S); !G)
      return error(lineOf(*N), formatv("{0} = \"{1}\": {2}", Key, *S,
                                       toString(G.takeError()))
                                   .str());
    Out = std::move(*S);
    return Error::success();
  }

  Error readSuppressions(const toml::node &V, unsigned Line, AuditConfig &C) {
    const toml::array *A = V.as_array();
    if (!A)
      return error(Line, "suppress must be an array of tables: [[suppress]]");
    for (const toml::node &E : *A) {
      const toml::table *T = E.as_table();
      if (!T)
        return error(lineOf(E), "suppress must be an array of tables: [[suppress]]");
      Suppression S;
      S.Line = lineOf(E);
      for (auto &&[Key, Value] : *T) {
        std::string_view K = Key.str();
        if (K != "rule" && K != "symbol" && K != "file" && K != "plugin" &&
            K != "reason")
          return error(Key.source().begin.line,
                       formatv("unknown key '{0}' in [[suppress]] (expected "
                               "rule, symbol, file, plugin, reason)",
                               StringRef(K.data(), K.size()))
                           .str());
      }
      const toml::node *RuleNode = T->get("rule");
      std::optional<std::string> Rule =
          RuleNode ? RuleNode->value<std::string>() : std::nullopt;
      if (!Rule)
        return error(S.Line, "a [[suppress]] needs rule = \"AOTI...\"");
      std::optional<StringRef> Id = ruleId(*Rule);
      if (!Id)
        return unknownRule(lineOf(*RuleNode), *Rule);
      S.Rule = Id->str();
      const toml::node *ReasonNode = T->get("reason");
      std::optional<std::string> Reason =
          ReasonNode ? ReasonNode->value<std::string>() : std::nullopt;
      if (!Reason || StringRef(*Reason).trim().empty())
        return error(S.Line, "a [[suppress]] needs reason = \"why this is "
                             "accepted\"");
      S.Reason = std::move(*Reason);
      if (Error Err = readGlob(*T, "symbol", S.Symbol))
        return Err;
      if (Error Err = readGlob(*T, "file", S.File))
        return Err;
      if (Error Err = readGlob(*T, "plugin", S.Plugin))
        return Err;
      C.Suppressions.push_back(std::move(S));
    }
    return Error::success();
  }

  StringRef Path;
  ArrayRef<KnownRule> Rules;
};

/// Empty patterns match anything; a pattern without '/' also matches the
/// base name of a path.
bool globMatches(StringRef Pattern, StringRef Value) {
  if (Pattern.empty())
    return true;
  Expected<GlobPattern> G = GlobPattern::create(Pattern);
  if (!G) { // validated when read
    consumeError(G.takeError());
    return false;
  }
  if (G->match(Value))
    return true;
  if (Pattern.contains('/'))
    return false;
  // "lib.a(member.o)" is a path too: its base name is the archive's.
  StringRef Base = sys::path::filename(Value.take_until([](char C) { return C == '('; }));
  return G->match(Base) || G->match(sys::path::filename(Value));
}

} // namespace

std::optional<std::string> findConfig(StringRef StartDir) {
  SmallString<256> Dir(StartDir);
  if (sys::fs::make_absolute(Dir))
    return std::nullopt;
  while (true) {
    SmallString<256> Candidate(Dir);
    sys::path::append(Candidate, ConfigFileName);
    if (sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
    StringRef Parent = sys::path::parent_path(Dir);
    if (Parent.empty() || Parent == Dir)
      return std::nullopt;
    Dir.truncate(Parent.size()); // Parent is a prefix of Dir's own buffer
  }
}

Expected<AuditConfig> parseConfig(StringRef Text, StringRef Path,
                                  ArrayRef<KnownRule> Rules) {
  return ConfigParser(Path, Rules).parse(Text);
}

Expected<AuditConfig> loadConfig(StringRef Path, ArrayRef<KnownRule> Rules) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return audit::fileError(Path, Buf.getError());
  return parseConfig((*Buf)->getBuffer(), Path, Rules);
}

bool matches(const Suppression &S, const Finding &F) {
  if (S.Rule != F.Rule)
    return false;
  if (!S.Symbol.empty() && (F.Symbol.empty() || !globMatches(S.Symbol, F.Symbol)))
    return false;
  if (!S.File.empty() && !globMatches(S.File, F.File))
    return false;
  if (!S.Plugin.empty() && (F.Plugin.empty() || !globMatches(S.Plugin, F.Plugin)))
    return false;
  return true;
}

std::vector<SuppressedFinding> applyConfig(AuditConfig &Config,
                                           std::vector<Finding> &Findings) {
  std::vector<SuppressedFinding> Suppressed;
  std::vector<Finding> Kept;
  Kept.reserve(Findings.size());
  for (Finding &F : Findings) {
    if (auto It = Config.Severities.find(F.Rule); It != Config.Severities.end()) {
      if (!It->second)
        continue; // the rule is off
      F.Sev = *It->second;
    }
    Suppression *By = nullptr;
    for (Suppression &S : Config.Suppressions)
      if (matches(S, F)) {
        By = &S;
        break;
      }
    if (By) {
      ++By->Uses;
      Suppressed.push_back({std::move(F), By});
    } else {
      Kept.push_back(std::move(F));
    }
  }
  Findings = std::move(Kept);
  return Suppressed;
}

} // namespace aoti::rules
