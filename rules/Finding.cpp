//===- Finding.cpp --------------------------------------------------------===//
#include "aoti/rules/Finding.h"

using namespace llvm;

namespace aoti::rules {

StringRef toString(Severity S) {
  switch (S) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "?";
}

} // namespace aoti::rules
