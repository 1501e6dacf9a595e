//===- Sarif.h - Findings as a SARIF 2.1.0 log ----------------------------===//
//
// One emitter for every command: a SARIF log with one run, whose tool lists
// every rule the binary knows (so a viewer can describe a rule that did not
// fire today) and whose results are the findings. The rule descriptions come
// from docs/rules/<ID>.md, embedded at build time (Sarif.cmake).
//
// What maps where, and why (docs/sarif.md has the full table):
//   Finding.File    -> locations[0].physicalLocation.artifactLocation.uri;
//                      an archive member "lib.a(m.o)" is the archive's uri
//                      plus a logicalLocations entry {kind: "member"}.
//   Finding.Message -> message.text, which always names the symbol.
//   Finding.Fix     -> message.text ("fix: ...") and properties.fix. Not
//                      fixes[]: SARIF 2.1.0 requires a fix to carry concrete
//                      artifactChanges (byte replacements), and a link-line
//                      change to a build file we never saw has none.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TOOLS_AOTI_AUDIT_SARIF_H
#define AOTI_TOOLS_AOTI_AUDIT_SARIF_H

#include "aoti/rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace aoti::rules {
struct RuleInfo;
}

namespace aoti::tool {

/// A finding the configuration suppressed: a result with a suppression
/// whose justification is the reason (code scanning shows it as dismissed).
struct SarifSuppressed {
  const rules::Finding *F = nullptr;
  std::string Justification;
};

/// A configuration problem (an unused suppression): a
/// toolConfigurationNotification of the run's invocation.
struct SarifNotification {
  std::string Message;
  std::string File; // the configuration file
  unsigned Line = 0;
};

/// What a run says about itself besides its findings.
struct SarifRun {
  llvm::StringRef Command;            // "check", "dups", "link"
  llvm::StringRef ToolVersion;        // AOTI_VERSION
  std::vector<SarifSuppressed> Suppressed = {};
  std::vector<SarifNotification> Notifications = {};
};

/// The SARIF level of a severity: "error", "warning", "note".
llvm::StringRef sarifLevel(rules::Severity S);

/// The paragraphs of a rule page that SARIF shows, taken from the page text.
struct RulePageText {
  std::string FirstParagraph; // the first paragraph of "What it finds"
  std::string HowToFix;       // the first paragraph of "How to fix"
  std::string Markdown;       // both sections, as written
};
RulePageText parseRulePage(llvm::StringRef Markdown);

/// The embedded page of a rule, or an empty StringRef for a rule that has none.
llvm::StringRef embeddedRulePage(llvm::StringRef Id);

/// A uri-reference for a path: percent-encoded; an absolute path becomes a
/// file:// URI, a relative one stays relative.
std::string sarifUri(llvm::StringRef Path);

/// Splits "dir/lib.a(member.o)" into the archive and the member, and
/// "dir/model.pt2!data/aotinductor/m/x.so" into the package and the library
/// inside; a path that names no member comes back whole with an empty member.
std::pair<llvm::StringRef, llvm::StringRef> splitArchiveMember(llvm::StringRef File);

/// The whole log: {"$schema", "version": "2.1.0", "runs": [one run]}.
llvm::json::Value sarifLog(llvm::ArrayRef<rules::Finding> Findings,
                           llvm::ArrayRef<const rules::RuleInfo *> Rules,
                           const SarifRun &Run);

/// sarifLog() over allRules(), printed with two-space indentation.
void printSarif(llvm::raw_ostream &OS, llvm::ArrayRef<rules::Finding> Findings,
                const SarifRun &Run);

} // namespace aoti::tool

#endif
