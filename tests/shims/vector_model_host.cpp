//===- vector_model_host.cpp - Does a SIMD CPU model load in this host? ----===//
//
// dlopen()s vector_model.cpp's plugin with RTLD_NOW | RTLD_LOCAL, as a model
// runner does, so the real loader decides whether the host's global scope
// defines the plugin's Sleef_* reference. Built three ways (CMakeLists.txt):
// linked with aoti::shims_static, with aoti::shims, and with neither (the
// control: there the load must fail, naming the symbol).
//
// Usage: vector_model_host PLUGIN --expect=loads|fails
// Where the plugin loads and the CPU has AVX2 and FMA, it also runs it:
// SLEEF's exp must be within its 1-ulp bound of std::exp (2 ulp allowed for
// the float rounding of the reference).
//
//===----------------------------------------------------------------------===//
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3 || std::strncmp(argv[2], "--expect=", 9) != 0) {
    std::fprintf(stderr, "usage: vector_model_host PLUGIN --expect=loads|fails\n");
    return 2;
  }
  const std::string expect = argv[2] + 9;
  if (expect != "loads" && expect != "fails")
    return 2;
  void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    const char *why = dlerror();
    std::printf("dlopen failed: %s\n", why);
    // A control that fails for another reason proves nothing.
    return expect == "fails" && std::strstr(why, "Sleef_expf8_u10") ? 0 : 1;
  }
  std::printf("dlopen succeeded\n");
  if (expect == "fails")
    return 1;
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::printf("no AVX2+FMA on this CPU: bound, not run\n");
    return 0;
  }
  auto *error = reinterpret_cast<double (*)()>(
      dlsym(plugin, "aoti_test_vector_exp_error"));
  if (!error)
    return 1;
  const double ulps = error();
  std::printf("Sleef_expf8_u10 vs std::exp: %.2f ulp at most\n", ulps);
  return ulps <= 2.0 ? 0 : 1;
}
