#!/usr/bin/env python3
"""Loader agreement tests: aoti-audit check against the real glibc loader.

Every case builds a host and a plugin with a real compiler and linker, runs the
host (which dlopen()s the plugin with RTLD_NOW | RTLD_LOCAL and prints the
result), records what ld.so bound each symbol to (LD_DEBUG=bindings), then
runs `aoti-audit check --format json` on the same files and environment. A
case passes only when

  * the audit's load verdict is the loader's (and a failure the loader names
    -- an undefined symbol, a missing library, a missing version -- is one
    the audit reports),
  * every symbol the loader bound is bound by the audit to the same file, and
  * the audit reports what the case is about (its `expect`), so a case cannot
    pass by testing nothing.

Each case runs with two toolchains: gcc + GNU ld, and clang + lld.

Usage: loader_cases.py --audit PATH [--toolchain gnu|llvm] [--case NAME] [--list] [--keep]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402

HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
/* argv[1]: the plugin, opened RTLD_NOW | RTLD_LOCAL.
   argv[2..]: "G:lib" opened RTLD_GLOBAL first, "L:lib" RTLD_LOCAL first. */
int main(int argc, char **argv) {
  for (int i = 2; i < argc; ++i) {
    int global = strncmp(argv[i], "G:", 2) == 0;
    if (!dlopen(argv[i] + 2, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL))) {
      printf("PRELOAD-FAILED %s\n", dlerror());
      return 3;
    }
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("FAILED %s\n", dlerror());
    return 1;
  }
  printf("LOADED\n");
  return 0;
}
"""

SHIMS_C = r"""
int aoti_torch_get_sizes(void *t, long **s) { (void)t; *s = 0; return 0; }
int aoti_torch_dtype_float32(void) { return 6; }
"""

PLUGIN_C = r"""
int aoti_torch_get_sizes(void *, long **);
int aoti_torch_dtype_float32(void);
int model_run(void) { long *s; return aoti_torch_get_sizes(0, &s) + aoti_torch_dtype_float32(); }
"""

SHIM_NAMES = ["aoti_torch_get_sizes", "aoti_torch_dtype_float32"]

# A model compiled with SIMD CPU kernels also imports SLEEF's vector math from
# its host (the name is what binds; the signature here is a stand-in).
SIMD_PLUGIN_C = PLUGIN_C + r"""
float Sleef_expf8_u10(float);
float model_exp(float x) { return Sleef_expf8_u10(x); }
"""
VECTOR_MATH_C = "float Sleef_expf8_u10(float x) { return x; }\n"


class Toolchain:
    def __init__(self, name, cc, fuse):
        self.name, self.cc, self.fuse = name, cc, fuse


TOOLCHAINS = {
    "gnu": Toolchain("gnu", "gcc", "-fuse-ld=bfd"),
    "llvm": Toolchain("llvm", "clang-19", "-fuse-ld=lld"),
}


class Build(harness.Workdir):
    """Compiles and links inside one case directory."""

    def __init__(self, tc, root):
        super().__init__(root)
        self.tc = tc

    def obj(self, name, src, *flags):
        out = self.path(name)
        self.run(self.tc.cc, "-c", "-fPIC", "-O1", *flags, self.write(name + ".c", src), "-o", out)
        return out

    def archive(self, name, *objs):
        out = self.path(name)
        self.run("ar", "rcs", out, *objs)
        return out

    def shared(self, name, src, *flags, soname=None):
        out = self.path(name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        args = [self.tc.cc, self.tc.fuse, "-shared", "-fPIC", "-O1", "-Wl,--no-as-needed",
                self.write(name + ".c", src), "-o", out]
        args += ["-Wl,-soname," + (soname or os.path.basename(name))]
        self.run(*args, *flags)
        return out

    def host(self, name, *flags, as_needed=False):
        # Debian's gcc passes --as-needed by default, lld's driver does not:
        # say which one a case means.
        out = self.path(name)
        mode = "-Wl,--as-needed" if as_needed else "-Wl,--no-as-needed"
        self.run(self.tc.cc, self.tc.fuse, "-O1", self.write(name + ".c", HOST_C), "-o", out, mode, *flags, "-ldl")
        return out


class Scenario:
    def __init__(self, host, plugin, env=None, audit_args=(), host_args=(), expect=None):
        self.host, self.plugin = host, plugin
        self.env = env or {}
        self.audit_args = list(audit_args)
        self.host_args = list(host_args)
        # symbol -> (status, rule or None); "*" -> rule expected somewhere
        self.expect = expect or {}


CASES = harness.Cases()
case = CASES.add


def shims_archive(b, *flags):
    return b.archive("libshims.a", b.obj("shims.o", SHIMS_C, *flags))


def plugin(b, *flags, name="model.so"):
    return b.shared(name, PLUGIN_C, *flags)


def all_shims(status, rule=None):
    return {s: (status, rule) for s in SHIM_NAMES}


# --- the cases; the docstring is the one line that says what each is -------

@case
def exported_whole_archive(b):
    """host force-links the shim archive and exports it: binds to the host"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def not_exported(b):
    """host force-links the shims but lacks --export-dynamic: AOTI002"""
    a = shims_archive(b)
    h = b.host("host", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI002"))


@case
def not_exported_no_pie(b):
    """a non-PIE host still has a .dynsym, but not the shims: AOTI002"""
    a = shims_archive(b)
    h = b.host("host", "-no-pie", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI002"))


@case
def archive_not_whole(b):
    """host links the shim archive plainly: the members are dropped, AOTI003"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", a)
    return Scenario(h, plugin(b), audit_args=["--archive", a], expect=all_shims("missing", "AOTI003"))


@case
def archive_not_given(b):
    """the same host audited without --archive: nothing defines them, AOTI001"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", a)
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI001"))


@case
def export_dynamic_symbol(b):
    """--export-dynamic-symbol exports just the shims: bound"""
    a = shims_archive(b)
    flags = ["-Wl,--whole-archive", a, "-Wl,--no-whole-archive"]
    flags += ["-Wl,--export-dynamic-symbol=" + s for s in SHIM_NAMES]
    h = b.host("host", *flags)
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def shared_shims_rpath(b):
    """shims in a shared library found through the host's DT_RPATH: bound"""
    b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib", "-lshims", "-Wl,--disable-new-dtags,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def shared_shims_runpath(b):
    """shims found through the host's DT_RUNPATH: bound"""
    b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib", "-lshims", "-Wl,--enable-new-dtags,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def shared_shims_ld_library_path(b):
    """shims found through LD_LIBRARY_PATH: bound"""
    b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib", "-lshims")
    return Scenario(h, plugin(b), env={"LD_LIBRARY_PATH": b.path("lib")}, expect=all_shims("bound"))


@case
def shared_shims_not_found(b):
    """the host's shim library is on no search path: it does not start, AOTI008"""
    b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib", "-lshims")
    return Scenario(h, plugin(b), expect={"*": ("AOTI008", "libshims.so")})


@case
def as_needed_drops_library(b):
    """--as-needed drops the host's DT_NEEDED on libshims.so (nothing calls it): AOTI005"""
    s = b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib", "-lshims", "-Wl,-rpath," + b.path("lib"), as_needed=True)
    return Scenario(h, plugin(b), audit_args=["--candidate", s], expect=all_shims("missing", "AOTI005"))


@case
def transitive_dependency(b):
    """host -> libmid.so -> libshims.so: the shims reach the global scope"""
    b.shared("lib/libshims.so", SHIMS_C)
    b.shared("lib/libmid.so", "int mid(void) { return 1; }", "-Llib", "-lshims", "-Wl,--no-as-needed")
    h = b.host("host", "-Llib", "-Wl,--no-as-needed", "-lmid", "-Wl,-rpath-link," + b.path("lib"),
               "-Wl,--disable-new-dtags,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def plugin_needs_shims_origin(b):
    """the plugin's own DT_NEEDED on libshims.so via $ORIGIN: local scope, bound"""
    b.shared("models/libshims.so", SHIMS_C)
    p = plugin(b, "-Lmodels", "-lshims", "-Wl,-rpath,$ORIGIN", name="models/model.so")
    h = b.host("host")
    return Scenario(h, p, expect=all_shims("bound"))


@case
def rpath_inherited(b):
    """libmid needs libshims; only the host's DT_RPATH names its directory: inherited, bound"""
    b.shared("deep/libshims.so", SHIMS_C)
    b.shared("mid/libmid.so", "int mid(void) { return 1; }", "-Ldeep", "-lshims", "-Wl,--no-as-needed")
    h = b.host("host", "-Lmid", "-Wl,--no-as-needed", "-lmid", "-Wl,-rpath-link," + b.path("deep"),
               "-Wl,--disable-new-dtags,-rpath," + b.path("mid") + ":" + b.path("deep"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def runpath_not_inherited(b):
    """the same with DT_RUNPATH: not inherited, libshims.so not found, AOTI008"""
    b.shared("deep/libshims.so", SHIMS_C)
    b.shared("mid/libmid.so", "int mid(void) { return 1; }", "-Ldeep", "-lshims", "-Wl,--no-as-needed")
    h = b.host("host", "-Lmid", "-Wl,--no-as-needed", "-lmid", "-Wl,-rpath-link," + b.path("deep"),
               "-Wl,--enable-new-dtags,-rpath," + b.path("mid") + ":" + b.path("deep"))
    return Scenario(h, plugin(b), expect={"*": ("AOTI008", "libshims.so")})


@case
def version_script_local(b):
    """a version script makes the shims local in libshims.so: AOTI004"""
    vs = b.write("shims.map", "{ global: keep_me; local: *; };\n")
    b.shared("lib/libshims.so", SHIMS_C + "int keep_me(void) { return 0; }\n", "-Wl,--version-script=" + vs)
    h = b.host("host", "-Llib", "-lshims", "-Wl,--no-as-needed", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI004"))


@case
def hidden_visibility(b):
    """libshims.so built with -fvisibility=hidden: AOTI004"""
    b.shared("lib/libshims.so", SHIMS_C + "int keep_me(void) __attribute__((visibility(\"default\")));\nint keep_me(void) { return 0; }\n",
             "-fvisibility=hidden")
    h = b.host("host", "-Llib", "-Wl,--no-as-needed", "-lshims", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI004"))


@case
def protected_visibility(b):
    """protected shims are exported: bound"""
    src = SHIMS_C.replace("int aoti", "__attribute__((visibility(\"protected\"))) int aoti")
    b.shared("lib/libshims.so", src)
    h = b.host("host", "-Llib", "-Wl,--no-as-needed", "-lshims", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def weak_reference(b):
    """a weak undefined reference nothing defines: weak-unresolved, still loads"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    src = PLUGIN_C + "extern int aoti_torch_optional(void) __attribute__((weak));\n" \
                     "int probe(void) { return aoti_torch_optional ? aoti_torch_optional() : 0; }\n"
    p = b.shared("model.so", src)
    exp = all_shims("bound")
    exp["aoti_torch_optional"] = ("weak-unresolved", "AOTI012")
    return Scenario(h, p, expect=exp)


@case
def version_node_missing(b):
    """the plugin was linked against a libver.so with VER_2; the host ships one with VER_1 only: AOTI007"""
    b.write("v2.map", "VER_1 { global: ver_one; }; VER_2 { global: ver_two; } VER_1;\n")
    b.write("v1.map", "VER_1 { global: ver_one; };\n")
    b.shared("new/libver.so", "int ver_one(void){return 1;} int ver_two(void){return 2;}", "-Wl,--version-script=v2.map")
    b.shared("old/libver.so", "int ver_one(void){return 1;}", "-Wl,--version-script=v1.map")
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive",
               "-Lold", "-Wl,--no-as-needed", "-lver", "-Wl,-rpath," + b.path("old"))
    p = b.shared("model.so", PLUGIN_C + "int ver_two(void); int use(void){return ver_two();}", "-Lnew", "-lver")
    return Scenario(h, p, expect={"*": ("AOTI007", "VER_2")})


@case
def symbol_version_mismatch(b):
    """the plugin wants ver_fn@VER_2; the host's libver.so defines ver_fn@VER_1 and VER_2 for another symbol: AOTI006"""
    b.write("new.map", "VER_1 { }; VER_2 { global: ver_fn; } VER_1;\n")
    b.write("old.map", "VER_1 { global: ver_fn; }; VER_2 { global: other; } VER_1;\n")
    b.shared("new/libver.so", "int ver_fn(void){return 2;}", "-Wl,--version-script=new.map")
    b.shared("old/libver.so", "int ver_fn(void){return 1;} int other(void){return 0;}", "-Wl,--version-script=old.map")
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive",
               "-Lold", "-Wl,--no-as-needed", "-lver", "-Wl,-rpath," + b.path("old"))
    p = b.shared("model.so", PLUGIN_C + "int ver_fn(void); int use(void){return ver_fn();}", "-Lnew", "-lver")
    return Scenario(h, p, audit_args=["--all"], expect={"ver_fn": ("version-mismatch", "AOTI006")})


@case
def two_providers(b):
    """the host and a library it links both export the shims: ambiguous, AOTI009; the host wins"""
    a = shims_archive(b)
    b.shared("lib/libother.so", SHIMS_C)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive",
               "-Llib", "-Wl,--no-as-needed", "-lother", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("ambiguous", "AOTI009"))


@case
def libtorch_clash(b):
    """a library named like LibTorch also provides the shims: AOTI010"""
    b.shared("torch/libtorch_cpu.so", SHIMS_C)
    b.shared("lib/libaoti_shims.so", SHIMS_C)
    h = b.host("host", "-Ltorch", "-Llib", "-Wl,--no-as-needed", "-ltorch_cpu", "-laoti_shims",
               "-Wl,-rpath," + b.path("torch") + ":" + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("ambiguous", "AOTI010"))


@case
def simd_model_without_vector_math(b):
    """a SIMD model imports Sleef_*; the host exports only the shims: AOTI001 without --all"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, b.shared("model.so", SIMD_PLUGIN_C),
                    expect={**all_shims("bound"), "Sleef_expf8_u10": ("missing", "AOTI001")})


@case
def simd_model_vector_math_twice(b):
    """Sleef_* from two libraries (as from LibTorch and libsleef): bound, not ambiguous"""
    a = shims_archive(b)
    b.shared("lib/libsleef.so", VECTOR_MATH_C)
    b.shared("lib/libmath2.so", VECTOR_MATH_C)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive",
               "-Llib", "-Wl,--no-as-needed", "-lsleef", "-lmath2", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, b.shared("model.so", SIMD_PLUGIN_C),
                    expect={**all_shims("bound"), "Sleef_expf8_u10": ("bound", None)})


@case
def ifunc_provider(b):
    """the shims are IFUNCs resolved at load time: definitions, bound"""
    src = r"""
static int sizes_impl(void *t, long **s) { (void)t; *s = 0; return 0; }
static int f32_impl(void) { return 6; }
static void *resolve_sizes(void) { return (void *)sizes_impl; }
static void *resolve_f32(void) { return (void *)f32_impl; }
int aoti_torch_get_sizes(void *, long **) __attribute__((ifunc("resolve_sizes")));
int aoti_torch_dtype_float32(void) __attribute__((ifunc("resolve_f32")));
"""
    b.shared("lib/libshims.so", src)
    h = b.host("host", "-Llib", "-Wl,--no-as-needed", "-lshims", "-Wl,-rpath," + b.path("lib"))
    return Scenario(h, plugin(b), expect=all_shims("bound"))


@case
def ld_preload(b):
    """LD_PRELOAD=libshims.so puts the shims in the global scope: bound"""
    s = b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host")
    return Scenario(h, plugin(b), env={"LD_PRELOAD": s}, expect=all_shims("bound"))


@case
def rtld_global_preload(b):
    """the host dlopen()s libshims.so RTLD_GLOBAL before the model (--preload): bound"""
    s = b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host")
    return Scenario(h, plugin(b), host_args=["G:" + s], audit_args=["--preload", s], expect=all_shims("bound"))


@case
def rtld_local_elsewhere(b):
    """libshims.so opened RTLD_LOCAL is outside the model's scope: AOTI005"""
    s = b.shared("lib/libshims.so", SHIMS_C)
    h = b.host("host")
    return Scenario(h, plugin(b), host_args=["L:" + s], audit_args=["--candidate", s],
                    expect=all_shims("missing", "AOTI005"))


@case
def wrong_class_skipped(b):
    """a 32-bit libshims.so first on LD_LIBRARY_PATH is skipped; the 64-bit one binds"""
    b.run("clang-19", "--target=i386-linux-gnu", "-fuse-ld=lld", "-nostdlib", "-shared", "-fPIC",
          b.write("shims32.c", SHIMS_C), "-o", b.path("lib32/libshims.so"), "-Wl,-soname,libshims.so") \
        if os.makedirs(b.path("lib32"), exist_ok=True) is None else None
    b.shared("lib64/libshims.so", SHIMS_C)
    h = b.host("host", "-Llib64", "-Wl,--no-as-needed", "-lshims")
    return Scenario(h, plugin(b), env={"LD_LIBRARY_PATH": b.path("lib32") + ":" + b.path("lib64")},
                    expect=all_shims("bound"))


@case
def plugin_dependency_missing(b):
    """the plugin needs a library that is nowhere: dlopen fails, AOTI008"""
    b.shared("gone/libgone.so", "int gone(void){return 0;}")
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    p = b.shared("model.so", PLUGIN_C + "int gone(void); int g(void){return gone();}", "-Lgone", "-lgone")
    os.remove(b.path("gone/libgone.so"))
    return Scenario(h, p, expect={"*": ("AOTI008", "libgone.so")})


def patch_verdef_hash(path, version, delta=1):
    """Changes vd_hash of the node named `version` in .gnu.version_d, the
    way a broken tool (or an edit) leaves a file: the name still matches,
    the hash does not. Only ELF64 little-endian, which every case builds."""
    import struct
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        verdef = [s for s in secs if s[1] == 0x6FFFFFFD][0]
        strtab = secs[verdef[6]]
        off = verdef[4]
        while True:
            _, _, _, _, vd_hash, vd_aux, vd_next = struct.unpack_from("<HHHHIII", data, off)
            name_off, = struct.unpack_from("<I", data, off + vd_aux)
            start = strtab[4] + name_off
            name = bytes(data[start:data.index(0, start)]).decode()
            if name == version:
                struct.pack_into("<I", data, off + 8, (vd_hash + delta) & 0xFFFFFFFF)
                f.seek(0)
                f.write(data)
                return
            if vd_next == 0:
                raise RuntimeError("%s defines no version %s" % (path, version))
            off += vd_next


@case
def version_hash_mismatch(b):
    """the host's libver.so defines VER_2 under the right name but another vd_hash: ld.so compares both, AOTI007"""
    b.write("v2.map", "VER_1 { global: ver_one; }; VER_2 { global: ver_two; } VER_1;\n")
    b.shared("lib/libver.so", "int ver_one(void){return 1;} int ver_two(void){return 2;}", "-Wl,--version-script=v2.map")
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive",
               "-Llib", "-Wl,--no-as-needed", "-lver", "-Wl,-rpath," + b.path("lib"))
    p = b.shared("model.so", PLUGIN_C + "int ver_two(void); int use(void){return ver_two();}", "-Llib", "-lver")
    patch_verdef_hash(b.path("lib/libver.so"), "VER_2")
    return Scenario(h, p, expect={"*": ("AOTI007", "VER_2")})


# A library whose only definitions of the name are non-default (hidden)
# versions: V1 is version index 2, V2 index 3.
VERSIONED_MAP = "V1 { global: keep_v1; %s local: *; }; V2 { global: keep_v2; %s } V1;\n"
VERSIONED_USER_C = "int aoti_torch_versioned(void); int use(void){return aoti_torch_versioned();}\n"


def hidden_versions(b, *versions):
    """libver.so defining aoti_torch_versioned@VERSION (hidden) for each
    version, and a host linking it; the plugin is linked against an
    unversioned libver.so, so its reference carries no version."""
    # The script must name the symbol in its node, or `local: *` hides it.
    named = tuple("aoti_torch_versioned;" if v in versions else "" for v in ("V1", "V2"))
    b.write("ver.map", VERSIONED_MAP % named)
    src = "int keep_v1(void){return 0;} int keep_v2(void){return 0;}\n"
    for v in versions:
        src += "int impl_%s(void){return 1;}\n__asm__(\".symver impl_%s, aoti_torch_versioned@%s\");\n" % (v, v, v)
    b.shared("lib/libver.so", src, "-Wl,--version-script=" + b.path("ver.map"))
    b.shared("plain/libver.so", "int aoti_torch_versioned(void){return 0;}")
    h = b.host("host", "-Llib", "-Wl,--no-as-needed", "-lver", "-Wl,-rpath," + b.path("lib"))
    p = b.shared("model.so", VERSIONED_USER_C, "-Lplain", "-lver")
    return h, p


@case
def unversioned_ref_hidden_index2(b):
    """an unversioned reference; the only definition is hidden aoti_torch_versioned@V1 (index 2): ld.so takes it"""
    h, p = hidden_versions(b, "V1")
    return Scenario(h, p, expect={"aoti_torch_versioned": ("bound", None)})


@case
def unversioned_ref_hidden_index3(b):
    """an unversioned reference; the only definition is hidden aoti_torch_versioned@V2 (index 3): never taken, AOTI006"""
    h, p = hidden_versions(b, "V2")
    return Scenario(h, p, expect={"aoti_torch_versioned": ("version-mismatch", "AOTI006")})


@case
def unversioned_ref_hidden_both(b):
    """hidden @V1 (index 2) and @V2 (index 3): ld.so takes index 2"""
    h, p = hidden_versions(b, "V1", "V2")
    return Scenario(h, p, expect={"aoti_torch_versioned": ("bound", None)})


def executable_plugin(b, *flags):
    src = PLUGIN_C + "int main(void) { return model_run(); }\n"
    out = b.path("model")
    a = shims_archive(b)
    b.run(b.tc.cc, b.tc.fuse, "-O1", "-rdynamic", *flags, b.write("model_main.c", src), "-o", out,
          "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return h, out


@case
def plugin_is_pie(b):
    """the 'plugin' is a PIE executable (DF_1_PIE): glibc's dlopen refuses it, AOTI013"""
    h, p = executable_plugin(b, "-pie", "-fPIE")
    return Scenario(h, p, expect={"*": ("AOTI013", "cannot dynamically load position-independent executable")})


@case
def plugin_is_fixed_executable(b):
    """the 'plugin' is a non-PIE executable (ET_EXEC): glibc's dlopen refuses it, AOTI013"""
    h, p = executable_plugin(b, "-no-pie", "-fno-PIE")
    return Scenario(h, p, expect={"*": ("AOTI013", "cannot dynamically load executable")})


@case
def plugin_nodlopen(b):
    """the plugin is linked -z nodlopen (DF_1_NOOPEN): dlopen refuses it, AOTI013"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b, "-Wl,-z,nodlopen"), expect={"*": ("AOTI013", "shared object cannot be dlopen()ed")})


@case
def plugin_needs_executable(b):
    """the plugin has a DT_NEEDED on a PIE executable: ld.so refuses the dependency, AOTI013"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    helper = b.path("helperexe")
    b.run(b.tc.cc, b.tc.fuse, "-rdynamic", b.write("helper.c", "int helper(void){return 1;}\nint main(void){return 0;}\n"),
          "-o", helper)
    # GNU ld refuses to link against an executable ("cannot use executable
    # file as input to a link"); lld links it, as any ET_DYN file.
    p = b.shared("model.so", PLUGIN_C + "int helper(void); int use(void){return helper();}", "-fuse-ld=lld", "./helperexe")
    return Scenario(h, p, expect={"*": ("AOTI013", "helperexe")})


@case
def ld_preload_executable(b):
    """LD_PRELOAD names a PIE executable: ld.so refuses it, warns and ignores it; the host starts, bound"""
    a = shims_archive(b)
    h = b.host("host", "-rdynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    exe = b.path("other")
    b.run(b.tc.cc, b.tc.fuse, b.write("other.c", "int main(void){return 0;}\n"), "-o", exe)
    return Scenario(h, plugin(b), env={"LD_PRELOAD": exe}, expect=all_shims("bound"))


@case
def static_pie_host(b):
    """a static-pie host that force-links the shims: static dlopen never sees them, AOTI014"""
    a = shims_archive(b)
    if b.tc.name == "llvm":
        # lld puts the shims in the static-pie's .dynsym: they are there and
        # still not seen. clang needs -fPIE for a static-pie that starts.
        flags = ["-fPIE", "-Wl,--export-dynamic"]
    else:
        # GNU ld 2.40's static-pie with --export-dynamic crashes in
        # _dl_relocate_static_pie before main; gcc drops -rdynamic for it.
        flags = ["-rdynamic"]
    h = b.host("host", "-static-pie", *flags, "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI014"))


@case
def static_host(b):
    """a static (non-PIE) host with the shims exported: provides nothing, AOTI014"""
    a = shims_archive(b)
    h = b.host("host", "-static", "-Wl,--export-dynamic", "-Wl,--whole-archive", a, "-Wl,--no-whole-archive")
    return Scenario(h, plugin(b), expect=all_shims("missing", "AOTI014"))


# --- running ----------------------------------------------------------------

BIND_RE = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")


def real_run(sc, root):
    env = dict(os.environ)
    for k in ("LD_LIBRARY_PATH", "LD_PRELOAD"):
        env.pop(k, None)
    env.update(sc.env)
    env["LD_DEBUG"] = "bindings"
    r = subprocess.run([sc.host, sc.plugin] + sc.host_args, cwd=root, env=env, capture_output=True, text=True)
    plugin_real = os.path.realpath(sc.plugin)
    bound = {}
    for m in BIND_RE.finditer(r.stderr):
        src, dst, sym = m.groups()
        if os.path.realpath(os.path.join(root, src)) == plugin_real:
            bound[sym] = os.path.realpath(os.path.join(root, dst)) if dst != sc.host else os.path.realpath(sc.host)
    out = r.stdout + r.stderr
    loaded = "LOADED" in r.stdout
    m = re.search(r"(FAILED .*|error while loading shared libraries: .*)", out)
    return loaded, (m.group(1) if m else ""), bound


def audit_run(audit, sc, root):
    cmd = [audit, "check", "--host", sc.host, "--format", "json"] + sc.audit_args
    for k, v in sc.env.items():
        cmd += ["--env", "%s=%s" % (k, v)]
    cmd.append(sc.plugin)
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("aoti-audit exited %d: %s" % (r.returncode, r.stderr))
    return r.returncode, json.loads(r.stdout)


def judge(sc, loaded, error, bound, rc, report):
    """Returns a list of disagreements (empty: the case passes)."""
    problems = []
    plugin = report["plugins"][0]
    findings = report["findings"]
    syms = {s["name"]: s for s in plugin["symbols"]}
    if not loaded and not error:
        problems.append("the host gave no loader verdict (it crashed or did not start): no oracle")
    if plugin["loads"] != loaded:
        problems.append("loader %s (%s), audit says loads=%s" % ("loaded" if loaded else "failed", error, plugin["loads"]))
    m = re.search(r"undefined symbol: (\w+)", error)
    if m and m.group(1) in syms and syms[m.group(1)]["status"] not in ("missing", "version-mismatch"):
        problems.append("loader: undefined %s; audit: %s" % (m.group(1), syms[m.group(1)]["status"]))
    m = re.search(r"(lib[\w.+-]+\.so[\w.]*): cannot open shared object", error)
    if m and not any(f["rule"] == "AOTI008" and m.group(1) in f["message"] for f in findings):
        problems.append("loader could not open %s; audit has no AOTI008 for it" % m.group(1))
    m = re.search(r"version `([^']+)' not found", error)
    if m and not any(f["rule"] == "AOTI007" and m.group(1) in f["message"] for f in findings):
        problems.append("loader: version %s not found; audit has no AOTI007 for it" % m.group(1))
    for sym, dst in bound.items():
        s = syms.get(sym)
        if s is None:
            continue  # not under the audited prefix
        prov = s.get("provider")
        if prov is None or os.path.realpath(prov) != dst:
            problems.append("%s: loader bound it to %s, audit to %s" % (sym, dst, prov))
    for sym, (status, rule) in sc.expect.items():
        if sym == "*":
            if not any(f["rule"] == status and rule in f["message"] for f in findings):
                problems.append("expected a %s finding mentioning %s" % (status, rule))
            continue
        s = syms.get(sym)
        if s is None or s["status"] != status:
            problems.append("%s: expected %s, audit says %s" % (sym, status, s and s["status"]))
        if rule and not any(f["rule"] == rule and f["symbol"] == sym for f in findings):
            problems.append("%s: expected a %s finding" % (sym, rule))
    errors = any(f["severity"] == "error" for f in findings)
    if (rc == 1) != errors:
        problems.append("exit status %d does not match the findings" % rc)
    return problems


def main():
    ap = harness.parser(__doc__, audit_required=False)
    ap.add_argument("--toolchain", choices=sorted(TOOLCHAINS), action="append")
    args = ap.parse_args()
    if args.list:
        for c in CASES:
            print(c.__name__)
        return 0
    chains = args.toolchain or sorted(TOOLCHAINS)
    cases = harness.select(CASES, args.case)
    if cases is None:
        return 2
    tally = harness.Tally()
    w = max(len(c.__name__) for c in cases)
    for tcname in chains:
        tc = TOOLCHAINS[tcname]
        for c in cases:
            problems = []
            # A case that disagrees keeps its files for a look.
            with harness.scratch("aoti-loader-%s-%s-" % (tcname, c.__name__),
                                 keep=lambda: args.keep or problems) as root:
                try:
                    sc = c(Build(tc, root))
                    loaded, error, bound = real_run(sc, root)
                    rc, report = audit_run(args.audit, sc, root)
                    problems = judge(sc, loaded, error, bound, rc, report)
                except Exception as e:  # a broken case is a failed case
                    loaded, problems = False, ["case error: %s" % e]
                tally.row(problems, "%-5s %-*s %-6s %s%s" % (
                    tcname, w, c.__name__, "loads" if loaded else "fails",
                    "agree" if not problems else "DISAGREE",
                    "  " + (c.__doc__ or "") if problems else ""))
    print("%d passed, %d failed" % (tally.passed, tally.failed))
    return tally.status()

if __name__ == "__main__":
    sys.exit(main())
