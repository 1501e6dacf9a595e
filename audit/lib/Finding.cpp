//===- Finding.cpp --------------------------------------------------------===//
#include "aoti/audit/Finding.h"

using namespace llvm;

namespace aoti::audit {

StringRef toString(Severity S) {
  switch (S) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "?";
}

} // namespace aoti::audit
