//===- link_probe.cpp - Are the shims in this process's global scope? ------===//
//
// A model binds its undefined aoti_torch_* references to the host's global
// scope when it is loaded. This program stands in for such a model: it never
// calls a shim, and looks every one of them up by name at run time, the way
// the dynamic loader would. Built three ways (see CMakeLists.txt):
//
//   shims_linked_right   aoti::shims_static (whole archive + --export-dynamic)
//   shims_linked_shared  aoti::shims (libaoti_shims.so as DT_NEEDED)
//   shims_linked_wrong   the bare archive: nothing references a member, so
//                        the linker takes none and the scope has no shims
//
// Usage: link_probe --expect=all|none [--library=PATH]
// With --library, the names are looked up in PATH opened with dlopen
// (RTLD_LOCAL) instead of the global scope.
//
//===----------------------------------------------------------------------===//
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Every function declared in aoti/shim.h, extracted at configure time.
const char *const kShimNames[] = {
#include "shim_names.inc"
};

int usage() {
  std::fprintf(stderr, "usage: link_probe --expect=all|none [--library=PATH]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string expect;
  const char *library = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--expect=", 9) == 0)
      expect = argv[i] + 9;
    else if (std::strncmp(argv[i], "--library=", 10) == 0)
      library = argv[i] + 10;
    else
      return usage();
  }
  if (expect != "all" && expect != "none")
    return usage();

  void *scope = RTLD_DEFAULT;
  if (library) {
    scope = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!scope) {
      std::fprintf(stderr, "dlopen(%s) failed: %s\n", library, dlerror());
      return 1;
    }
  }

  std::vector<const char *> found, missing;
  for (const char *name : kShimNames)
    (dlsym(scope, name) ? found : missing).push_back(name);

  const size_t total = sizeof(kShimNames) / sizeof(kShimNames[0]);
  std::printf("%zu of %zu shims found in %s\n", found.size(), total,
              library ? library : "the global scope");
  const bool ok = expect == "all" ? missing.empty() : found.empty();
  if (!ok) {
    const std::vector<const char *> &wrong = expect == "all" ? missing : found;
    std::printf("expected %s, but these were %s:\n", expect.c_str(),
                expect == "all" ? "missing" : "found");
    for (const char *name : wrong)
      std::printf("  %s\n", name);
  }
  return ok ? 0 : 1;
}
