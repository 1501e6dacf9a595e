//===- ProcessScope.cpp - Would this process satisfy a model's imports? ---===//
//
// glibc binds a reference from an object opened RTLD_LOCAL by searching the
// global scope (the executable, its DT_NEEDED closure, RTLD_GLOBAL objects)
// and then the object's own local scope (itself and its DT_NEEDED closure).
// dlsym(RTLD_DEFAULT) asks the first question and dlsym on a handle to each
// of the object's DT_NEEDED libraries the second, with the loader's own
// answers: no model of ld.so is needed. Versioned references are looked up
// with dlvsym so that "needs GLIBC_2.38 on a 2.36 system" is caught too.
//
//===----------------------------------------------------------------------===//
#include "container/DynamicImports.h"

#include <dlfcn.h>

namespace aoti::backend {

namespace {

// The model's DT_NEEDED libraries, opened as its own dlopen would open them.
// They are deliberately never closed: the model's dlopen needs them next,
// and unloading a driver library such as libcuda.so.1 between the check and
// the load gains nothing and is not always safe.
std::vector<void *> openNeeded(const std::vector<std::string> &Names) {
  std::vector<void *> Handles;
  for (const std::string &N : Names)
    if (void *H = dlopen(N.c_str(), RTLD_LAZY | RTLD_LOCAL))
      Handles.push_back(H);
  return Handles;
}

bool defines(void *Scope, const ImportedSymbol &S) {
  dlerror();
  void *P = S.Version.empty() ? dlsym(Scope, S.Name.c_str())
                              : dlvsym(Scope, S.Name.c_str(), S.Version.c_str());
  // A defined symbol may have the value 0 (an absolute symbol); dlerror tells
  // "not found" apart from that.
  return P != nullptr || dlerror() == nullptr;
}

} // namespace

std::vector<UnresolvedSymbol> findUnresolved(const DynamicImports &D) {
  const std::vector<void *> Local = openNeeded(D.Needed);
  std::vector<UnresolvedSymbol> Missing;
  for (const ImportedSymbol &S : D.Imports) {
    if (S.Weak || defines(RTLD_DEFAULT, S))
      continue;
    bool Found = false;
    for (void *H : Local)
      if ((Found = defines(H, S)))
        break;
    if (!Found)
      Missing.push_back({S.Name, S.Version});
  }
  return Missing;
}

} // namespace aoti::backend
