#!/usr/bin/env python3
"""Mach-O cases: `aoti-audit check` and `dups` on macOS hosts and models.

Nothing here can run dyld, so every fixture is made at test time -- real
objects, dylibs, bundles and executables from clang-19 -target
{arm64,x86_64}-apple-macos11 and ld64.lld-19 (a small .tbd stands in for
libSystem), and exact cases as yaml2obj-19 documents (machoyaml.py) -- and
the oracle is LLVM's own dumpers: every fixture a case builds is
cross-checked (oracle.py) against llvm-objdump-19 --macho --exports-trie
--bind --lazy-bind --chained-fixups and llvm-nm-19 -m, and the audit's
verdict is checked against what dyld's rules (docs/macho.md) say the case
is about.

Usage: macho_cases.py --audit PATH --dump PATH [--case NAME] [--list] [--keep]
Exit status: 0 all passed, 1 a case failed, 77 a tool is missing.
"""
import json
import os
import shutil
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "pylib"))
import harness  # noqa: E402
import machoyaml as my  # noqa: E402
import oracle  # noqa: E402
from harness import Failure  # noqa: E402

TOOLS = ["clang-19", "ld64.lld-19", "yaml2obj-19", "llvm-objdump-19", "llvm-nm-19",
         "llvm-lipo-19", "llvm-ar-19"]

LIBSYSTEM_TBD = """--- !tapi-tbd
tbd-version: 4
targets: [ arm64-macos, x86_64-macos ]
install-name: '/usr/lib/libSystem.B.dylib'
current-version: 1319
exports:
  - targets: [ arm64-macos, x86_64-macos ]
    symbols: [ dyld_stub_binder, _malloc, _free, _printf ]
...
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
HOST_C = "int main(void) { return 0; }\n"
SHIMS = ["_aoti_torch_get_sizes", "_aoti_torch_dtype_float32"]


class Case(harness.Workdir):
    """A directory, the tools, and the fixtures to cross-check."""

    def __init__(self, root, name, args):
        super().__init__(os.path.join(root, name))
        os.makedirs(self.root)
        self.args = args
        self.fixtures = []  # (path, arch) to cross-check
        self.archives = []
        self.tbd = self.write("libSystem.tbd", LIBSYSTEM_TBD)

    def sh(self, *cmd, ok=True):
        return self.run(*cmd, check=ok)

    def cc(self, name, source, arch="arm64", flags=(), version="11"):
        src = self.write(name + ".c", source)
        out = self.path(name + f".{arch}.o")
        self.sh("clang-19", "-target", f"{arch}-apple-macos{version}", "-c", "-O1",
                *flags, src, "-o", out)
        self.fixtures.append((out, None))
        return out

    def ld(self, out, *args, arch="arm64", version="11.0", check=True):
        o = self.path(out)
        os.makedirs(os.path.dirname(o), exist_ok=True)
        self.sh("ld64.lld-19", "-arch", arch, "-platform_version", "macos", version,
                version, *args, self.tbd, "-o", o)
        if check:
            self.fixtures.append((o, None))
        return o

    def yaml(self, out, image):
        doc = self.write(out + ".yaml", image.yaml())
        o = self.path(out)
        os.makedirs(os.path.dirname(o), exist_ok=True)
        self.sh("yaml2obj-19", doc, "-o", o)
        self.fixtures.append((o, None))
        return o

    def ar(self, out, *objs):
        o = self.path(out)
        self.sh("llvm-ar-19", "rcs", o, *objs)
        self.archives.append(o)
        return o

    def lipo(self, out, *slices):
        o = self.path(out)
        self.sh("llvm-lipo-19", "-create", *slices, "-output", o)
        for a in self.sh("llvm-lipo-19", "-archs", o).stdout.split():
            self.fixtures.append((o, a))
        return o

    def check(self, host, *plugins, extra=(), rc=None):
        p = self.sh(self.args.audit, "check", "--host", host, "--format", "json",
                    *extra, *plugins, ok=False)
        if p.returncode == 2:
            raise Failure(f"aoti-audit check exited 2: {p.stderr.strip()}")
        if rc is not None and p.returncode != rc:
            raise Failure(f"aoti-audit check exited {p.returncode}, expected {rc}:\n"
                          f"{p.stdout}{p.stderr}")
        return Report(json.loads(p.stdout), p.returncode)

    def check_fails(self, host, *plugins, extra=(), message=""):
        p = self.sh(self.args.audit, "check", "--host", host, *extra, *plugins, ok=False)
        if p.returncode != 2 or message not in p.stderr:
            raise Failure(f"expected exit 2 with {message!r}, got {p.returncode}: "
                          f"{p.stdout}{p.stderr}")
        return p.stderr


class Report:
    def __init__(self, doc, rc):
        self.doc, self.rc = doc, rc

    def plugin(self, i=0):
        return self.doc["plugins"][i]

    def symbol(self, name, i=0):
        for s in self.plugin(i)["symbols"]:
            if s["name"] == name:
                return s
        raise Failure(f"no symbol {name} in the report: {[s['name'] for s in self.plugin(i)['symbols']]}")

    def expect_status(self, name, status, provider=None, reason=None, i=0):
        s = self.symbol(name, i)
        if s["status"] != status:
            raise Failure(f"{name}: status {s['status']}, expected {status}: {s}")
        if provider is not None and os.path.basename(s["provider"] or "") != provider:
            raise Failure(f"{name}: provider {s['provider']}, expected {provider}")
        if reason is not None and s.get("reason") != reason:
            raise Failure(f"{name}: reason {s.get('reason')}, expected {reason}")

    def expect_finding(self, rule, fix_has=(), message_has=()):
        for f in self.doc["findings"]:
            if f["rule"] == rule and all(t in f["fix"] for t in fix_has) and \
                    all(t in f["message"] for t in message_has):
                return f
        raise Failure(f"no {rule} finding with fix {fix_has} / message {message_has}: "
                      f"{json.dumps(self.doc['findings'], indent=1)}")

    def expect_no_finding(self, rule):
        for f in self.doc["findings"]:
            if f["rule"] == rule:
                raise Failure(f"unexpected {rule}: {f}")

    def expect_loads(self, loads=True, i=0):
        if self.plugin(i)["loads"] != loads:
            raise Failure(f"plugin loads={self.plugin(i)['loads']}, expected {loads}: "
                          f"{json.dumps(self.doc['findings'], indent=1)}")


CASES = harness.Cases()
case = CASES.add


def shims_host(c, *flags, arch="arm64"):
    """A host that links the shims' object directly."""
    return c.ld(f"host.{arch}", c.cc("host", HOST_C, arch), c.cc("shims", SHIMS_C, arch),
                *flags, arch=arch)


def dynamic_lookup_plugin(c, arch="arm64", *flags):
    return c.ld(f"model.{arch}.so", "-bundle", "-undefined", "dynamic_lookup",
                c.cc("plugin", PLUGIN_C, arch), *flags, arch=arch)


# --- the host exports the shims, or does not --------------------------------

@case
def host_exports_shims(c):
    """A host linking the shims exports them; an -undefined dynamic_lookup model binds there (0xFE)."""
    host, model = shims_host(c), dynamic_lookup_plugin(c)
    r = c.check(host, model, rc=0)
    r.expect_loads()
    for s in SHIMS:
        r.expect_status(s, "bound", provider="host.arm64")


@case
def host_dead_stripped(c):
    """-dead_strip removes a main executable's unreferenced shims: undefined, with the -export_dynamic fix."""
    host = shims_host(c, "-dead_strip")
    r = c.check(host, dynamic_lookup_plugin(c), rc=1)
    r.expect_loads(False)
    r.expect_status(SHIMS[0], "missing", reason="not-defined")
    r.expect_finding("AOTI001", fix_has=("-Wl,-export_dynamic", "-dead_strip"))


@case
def host_unexported(c):
    """-unexported_symbol leaves the shims private externs: AOTI004 with the export-list fix."""
    host = shims_host(c, "-unexported_symbol", "_aoti_torch_*")
    r = c.check(host, dynamic_lookup_plugin(c), rc=1)
    r.expect_status(SHIMS[0], "missing", reason="hidden")
    r.expect_finding("AOTI004", message_has=("private external",),
                     fix_has=("-exported_symbols_list", "_aoti_torch_*", "-Wl,-export_dynamic"))


@case
def host_exported_symbols_list(c):
    """An -exported_symbols_list naming only _main hides the shims too."""
    lst = c.write("exports.txt", "_main\n")
    host = shims_host(c, "-exported_symbols_list", lst)
    r = c.check(host, dynamic_lookup_plugin(c), rc=1)
    r.expect_status(SHIMS[1], "missing", reason="hidden")
    r.expect_finding("AOTI004", fix_has=("-exported_symbols_list",))


@case
def missing_force_load(c):
    """The shims in an archive the host links without -force_load: AOTI003 with -Wl,-force_load."""
    lib = c.ar("libaoti_shims.a", c.cc("shims", SHIMS_C))
    host = c.ld("host", c.cc("host", HOST_C), lib)
    r = c.check(host, dynamic_lookup_plugin(c), extra=("--archive", lib), rc=1)
    r.expect_status(SHIMS[0], "missing", reason="not-linked")
    r.expect_finding("AOTI003", fix_has=("-Wl,-force_load,", "-Wl,-export_dynamic"))


@case
def force_load(c):
    """The same archive with -force_load: every shim is in the host and exported."""
    lib = c.ar("libaoti_shims.a", c.cc("shims", SHIMS_C))
    host = c.ld("host", c.cc("host", HOST_C), "-force_load", lib)
    r = c.check(host, dynamic_lookup_plugin(c), extra=("--archive", lib), rc=0)
    for s in SHIMS:
        r.expect_status(s, "bound", provider="host")


@case
def universal_archive(c):
    """A lipo'd static library: --archive and dups read the slice --arch picks."""
    slices = [c.ar(f"libaoti_shims.{a}.a", c.cc("shims", SHIMS_C, a)) for a in ("arm64", "x86_64")]
    fat = c.path("libaoti_shims.a")
    c.sh("llvm-lipo-19", "-create", *slices, "-output", fat)
    host = c.ld("host", c.cc("host", HOST_C), slices[0])
    r = c.check(host, dynamic_lookup_plugin(c), extra=("--archive", fat), rc=1)
    r.expect_status(SHIMS[0], "missing", reason="not-linked")
    r.expect_finding("AOTI003", fix_has=("-Wl,-force_load,",))
    other = c.ar("libother.a", c.cc("other", SHIMS_C, "x86_64"))
    p = c.sh(c.args.audit, "dups", "--format", "json", fat, other, ok=False)
    if p.returncode != 1 or "_aoti_torch_get_sizes" not in p.stdout:
        raise Failure(f"dups on a universal archive: {p.returncode} {p.stdout[:800]}{p.stderr}")


@case
def bundle_loader(c):
    """A model linked with -bundle_loader imports from the main executable (ordinal 0xFF)."""
    host = shims_host(c)
    model = c.ld("model.so", "-bundle", "-bundle_loader", host, c.cc("plugin", PLUGIN_C))
    r = c.check(host, model, rc=0)
    r.expect_status(SHIMS[0], "bound", provider="host.arm64")
    # The same model in a host that hides them: bound by ordinal to the
    # executable, which does not export them.
    hidden = c.ld("hidden_host", c.cc("host", HOST_C), c.cc("shims", SHIMS_C),
                  "-unexported_symbol", "_aoti_torch_*")
    r = c.check(hidden, model, rc=1)
    r.expect_status(SHIMS[0], "missing", reason="hidden")


# --- finding the dylibs -----------------------------------------------------

def shims_dylib(c, out, install_name, arch="arm64", *flags):
    return c.ld(out, "-dylib", "-install_name", install_name, c.cc("shims", SHIMS_C, arch),
                *flags, arch=arch)


def two_level_plugin(c, out, *libs_and_flags, arch="arm64"):
    return c.ld(out, "-bundle", c.cc("plugin", PLUGIN_C, arch), *libs_and_flags, arch=arch)


@case
def rpath_of_executable(c):
    """@rpath/libshims.dylib, found through the executable's LC_RPATH @executable_path/lib."""
    lib = shims_dylib(c, "app/lib/libshims.dylib", "@rpath/libshims.dylib")
    model = two_level_plugin(c, "app/models/model.so", lib)
    host = c.ld("app/host", c.cc("host", HOST_C), "-rpath", "@executable_path/lib")
    r = c.check(host, model, rc=0)
    for s in SHIMS:
        r.expect_status(s, "bound", provider="libshims.dylib")


@case
def rpath_not_found(c):
    """The same without any LC_RPATH that leads to it: AOTI008 with the LC_RPATH fix."""
    lib = shims_dylib(c, "app/lib/libshims.dylib", "@rpath/libshims.dylib")
    model = two_level_plugin(c, "app/models/model.so", lib)
    host = c.ld("app/host", c.cc("host", HOST_C), "-rpath", "@executable_path/elsewhere")
    r = c.check(host, model, rc=1)
    r.expect_loads(False)
    r.expect_finding("AOTI008", message_has=("@rpath/libshims.dylib",),
                     fix_has=("LC_RPATH", "DYLD_LIBRARY_PATH"))


@case
def rpath_chain_and_reexport(c):
    """libmid re-exports @rpath/libshims.dylib and has no LC_RPATH: the model's LC_RPATH (next in the chain) finds it."""
    # ld64.lld finds libmid's re-export through libmid's own LC_RPATH, which
    # leads to a link-time copy that is gone when the model runs.
    linktime = shims_dylib(c, "build/libshims.dylib", "@rpath/libshims.dylib")
    shims_dylib(c, "app/models/shimdir/libshims.dylib", "@rpath/libshims.dylib")
    mid = c.ld("app/models/mid/libmid.dylib", "-dylib", "-install_name", "@rpath/libmid.dylib",
               "-reexport_library", linktime, "-rpath", "@loader_path/../../../build")
    model = two_level_plugin(c, "app/models/model.so", mid, "-rpath", "@loader_path/mid",
                             "-rpath", "@loader_path/shimdir")
    oracle.crosscheck(c.args.dump, linktime)
    os.remove(linktime)
    c.fixtures.remove((linktime, None))
    host = c.ld("app/host", c.cc("host", HOST_C))
    r = c.check(host, model, rc=0)
    for s in SHIMS:
        # Imported from libmid (ordinal 1), defined by what libmid re-exports.
        r.expect_status(s, "bound", provider="libshims.dylib")


@case
def loader_path(c):
    """@loader_path/deps/libshims.dylib is the model's own directory."""
    shims = shims_dylib(c, "m/deps/libshims.dylib", "@loader_path/deps/libshims.dylib")
    model = two_level_plugin(c, "m/model.so", shims)
    r = c.check(c.ld("host", c.cc("host", HOST_C)), model, rc=0)
    r.expect_status(SHIMS[1], "bound", provider="libshims.dylib")


@case
def executable_path(c):
    """@executable_path/Frameworks/libshims.dylib is the host's directory, whoever loads it."""
    shims = shims_dylib(c, "app/Frameworks/libshims.dylib",
                        "@executable_path/Frameworks/libshims.dylib")
    model = two_level_plugin(c, "models/model.so", shims)
    r = c.check(c.ld("app/host", c.cc("host", HOST_C)), model, rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")


@case
def dyld_insert_libraries(c):
    """DYLD_INSERT_LIBRARIES loads right after the executable: a flat lookup finds the shims there."""
    lib = shims_dylib(c, "inserted/libshims.dylib", "@rpath/libshims.dylib")
    host = c.ld("host", c.cc("host", HOST_C))
    model = dynamic_lookup_plugin(c)
    c.check(host, model, rc=1).expect_status(SHIMS[0], "missing")
    r = c.check(host, model, extra=("--env", "DYLD_INSERT_LIBRARIES=" + lib), rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")


@case
def dyld_library_path(c):
    """An absolute install name that does not exist, found by DYLD_LIBRARY_PATH (and the fallback path)."""
    shims = shims_dylib(c, "opt/libshims.dylib", "/nonexistent/lib/libshims.dylib")
    model = two_level_plugin(c, "model.so", shims)
    host = c.ld("host", c.cc("host", HOST_C))
    r = c.check(host, model, rc=1)
    r.expect_finding("AOTI008", message_has=("/nonexistent/lib/libshims.dylib",))
    r = c.check(host, model, extra=("--env", "DYLD_LIBRARY_PATH=" + c.path("opt")), rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")
    r = c.check(host, model, extra=("--env", "DYLD_FALLBACK_LIBRARY_PATH=" + c.path("opt")), rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")


@case
def sysroot_tree(c):
    """--sysroot: absolute install names are taken inside a copied tree."""
    shims = shims_dylib(c, "root/usr/local/opt/aoti/libshims.dylib",
                        "/usr/local/opt/aoti/libshims.dylib")
    model = two_level_plugin(c, "model.so", shims)
    host = c.ld("host", c.cc("host", HOST_C))
    c.check(host, model, rc=1).expect_finding("AOTI008")
    r = c.check(host, model, extra=("--sysroot", c.path("root")), rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")


@case
def shared_cache_and_sdk(c):
    """libSystem is not on disk: in the shared cache, assumed; with --sysroot SDK its .tbd decides."""
    src = "extern void *malloc(unsigned long); void *model_alloc(void) { return malloc(8); }\n"
    model = c.ld("model.so", "-bundle", c.cc("alloc", src))
    host = c.ld("host", c.cc("host", HOST_C))
    r = c.check(host, model, extra=("--all",), rc=0)
    r.expect_status("_malloc", "bound", provider="libSystem.B.dylib")
    sdk = c.path("sdk")
    os.makedirs(os.path.join(sdk, "usr/lib"))
    shutil.copy(c.tbd, os.path.join(sdk, "usr/lib/libSystem.B.tbd"))
    r = c.check(host, model, extra=("--all", "--sysroot", sdk), rc=0)
    r.expect_status("_malloc", "bound", provider="libSystem.B.tbd")
    with open(os.path.join(sdk, "usr/lib/libSystem.B.tbd"), "w") as f:
        f.write(LIBSYSTEM_TBD.replace("_malloc, ", ""))
    r = c.check(host, model, extra=("--all", "--sysroot", sdk), rc=1)
    r.expect_status("_malloc", "missing")


# --- what an import binds to ------------------------------------------------

@case
def weak_import_unresolved(c):
    """A weak_import the dylib at run time lacks binds to null: AOTI012, the model loads."""
    v2 = c.ld("build/libshims.dylib", "-dylib", "-install_name", "@rpath/libshims.dylib",
              c.cc("shims_v2", SHIMS_C + "int aoti_torch_new_api(void) { return 1; }\n"))
    src = PLUGIN_C + ("extern int aoti_torch_new_api(void) __attribute__((weak_import));\n"
                      "int model_new(void) { return aoti_torch_new_api ? aoti_torch_new_api() : 0; }\n")
    model = c.ld("app/model.so", "-bundle", c.cc("plugin_weak", src), v2, "-rpath", "@loader_path")
    shims_dylib(c, "app/libshims.dylib", "@rpath/libshims.dylib")  # v1: no new API
    r = c.check(c.ld("host", c.cc("host", HOST_C)), model, rc=0)
    r.expect_loads()
    r.expect_status("_aoti_torch_new_api", "weak-unresolved")
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")
    r.expect_finding("AOTI012")


@case
def weak_dylib_missing(c):
    """A missing LC_LOAD_WEAK_DYLIB is no error; the imports from it are weak and resolve to null."""
    opt = c.ld("build/libopt.dylib", "-dylib", "-install_name", "@rpath/libopt.dylib",
               c.cc("opt", "int aoti_torch_opt(void) { return 1; }\n"))
    src = "int aoti_torch_opt(void);\nint model_opt(void) { return aoti_torch_opt(); }\n"
    model = c.ld("model.so", "-bundle", c.cc("plugin_opt", src), "-weak_library", opt)
    r = c.check(c.ld("host", c.cc("host", HOST_C)), model, rc=0)
    r.expect_no_finding("AOTI008")
    r.expect_status("_aoti_torch_opt", "weak-unresolved")


@case
def flat_namespace(c):
    """A -flat_namespace model searches every image in load order, main executable first."""
    model = c.ld("model.so", "-bundle", "-flat_namespace", "-undefined", "suppress",
                 c.cc("plugin", PLUGIN_C))
    host = shims_host(c)
    r = c.check(host, model, rc=0)
    r.expect_status(SHIMS[0], "bound", provider="host.arm64")
    # A second provider in the flat namespace: two implementations of the ABI.
    lib = shims_dylib(c, "libshims.dylib", "@rpath/libshims.dylib")
    r = c.check(host, model, extra=("--preload", lib), rc=1)
    r.expect_status(SHIMS[0], "ambiguous")
    r.expect_finding("AOTI009")


@case
def dynamic_lookup_finds_loaded_dylib(c):
    """0xFE (dynamic lookup) imports bind to a dylib the host loads; not to one nothing loads."""
    lib = shims_dylib(c, "lib/libshims.dylib", "@rpath/libshims.dylib")
    host = c.ld("host", c.cc("host", HOST_C), lib, "-rpath", "@executable_path/lib")
    model = dynamic_lookup_plugin(c)
    r = c.check(host, model, rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")
    bare = c.ld("bare_host", c.cc("host", HOST_C))
    r = c.check(bare, model, extra=("--candidate", lib), rc=1)
    r.expect_status(SHIMS[0], "missing", reason="outside-scope")
    r.expect_finding("AOTI005", message_has=("flat lookup",), fix_has=("--preload",))


@case
def two_level_binds_to_its_library(c):
    """A two-level import names its dylib: the host's export of the same name does not help."""
    stub = c.ld("build/libshims.dylib", "-dylib", "-install_name", "@rpath/libshims.dylib",
                c.cc("shims", SHIMS_C))
    model = c.ld("app/model.so", "-bundle", c.cc("plugin", PLUGIN_C), stub, "-rpath", "@loader_path")
    c.ld("app/libshims.dylib", "-dylib", "-install_name", "@rpath/libshims.dylib",
         c.cc("empty", "int shims_version(void) { return 2; }\n"))
    r = c.check(shims_host(c), model, rc=1)
    r.expect_status(SHIMS[0], "missing", reason="outside-scope")
    r.expect_finding("AOTI005", message_has=("two-level namespace", "libshims.dylib"),
                     fix_has=("relink the plugin",))


@case
def chained_fixups(c):
    """A macOS 13 model with chained fixups (LC_DYLD_CHAINED_FIXUPS, LC_DYLD_EXPORTS_TRIE)."""
    model = c.ld("model.so", "-bundle", "-undefined", "dynamic_lookup", "-fixup_chains",
                 c.cc("plugin", PLUGIN_C, version="13"), version="13.0")
    lib = c.ld("libshims.dylib", "-dylib", "-install_name", "@rpath/libshims.dylib",
               "-fixup_chains", c.cc("shims", SHIMS_C, version="13"), version="13.0")
    host = c.ld("host", c.cc("host", HOST_C, version="13"), lib, "-rpath", "@executable_path",
                "-fixup_chains", version="13.0")
    r = c.check(host, model, rc=0)
    r.expect_status(SHIMS[0], "bound", provider="libshims.dylib")


@case
def fat_files(c):
    """Universal host and model: --arch picks the slice; a missing slice or a thin mismatch is exit 2."""
    hosts = [shims_host(c, arch=a) for a in ("arm64", "x86_64")]
    models = [dynamic_lookup_plugin(c, a) for a in ("arm64", "x86_64")]
    host, model = c.lipo("host.fat", *hosts), c.lipo("model.fat.so", *models)
    for extra in ((), ("--arch", "arm64"), ("--arch", "x86_64")):
        r = c.check(host, model, extra=extra, rc=0)
        r.expect_status(SHIMS[0], "bound", provider="host.fat")
    c.check_fails(host, model, extra=("--arch", "ppc64"), message="no ppc64 slice")
    c.check_fails(hosts[0], models[1], message="cannot be loaded into a Mach-O arm64 host")
    # A fat model whose slice for the host's architecture is missing.
    only_x86 = c.lipo("model.x86only.so", models[1])
    c.check_fails(hosts[0], only_x86, message="universal file has no arm64 slice")


@case
def universal_host_without_machine_slice(c):
    """A universal host without the audit machine's slice, no --arch: every slice is audited."""
    if oracle_machine() != "x86_64":
        return  # the case is about a host with no slice for this machine
    tbd = c.write("libSystem.watch.tbd", LIBSYSTEM_TBD.replace(
        "[ arm64-macos, x86_64-macos ]", "[ arm64-macos, arm64_32-watchos ]"))
    # arm64_32 (watchOS): the host exports the shims; arm64: it hides them.
    objs = {}
    for arch, target in (("arm64_32", "arm64_32-apple-watchos7"), ("arm64", "arm64-apple-macos11")):
        for name, src in (("host", HOST_C), ("shims", SHIMS_C), ("plugin", PLUGIN_C)):
            c.write(f"{name}.c", src)
            o = c.path(f"{name}.{arch}.o")
            c.sh("clang-19", "-target", target, "-c", "-O1", f"{name}.c", "-o", o)
            objs[(name, arch)] = o
    platform = {"arm64_32": ("watchos", "7.0"), "arm64": ("macos", "11.0")}
    hosts, models = [], []
    for arch in ("arm64_32", "arm64"):
        plat, ver = platform[arch]
        base = ["ld64.lld-19", "-arch", arch, "-platform_version", plat, ver, ver, tbd]
        hide = ["-unexported_symbol", "_aoti_torch_*"] if arch == "arm64" else []
        hosts.append(c.path(f"host.{arch}"))
        c.sh(*base, objs[("host", arch)], objs[("shims", arch)], *hide, "-o", hosts[-1])
        models.append(c.path(f"model.{arch}.so"))
        c.sh(*base, "-bundle", "-undefined", "dynamic_lookup", objs[("plugin", arch)], "-o",
             models[-1])
    host, model = c.path("host.watchfat"), c.path("model.watchfat.so")
    c.sh("llvm-lipo-19", "-create", *hosts, "-output", host)
    c.sh("llvm-lipo-19", "-create", *models, "-output", model)
    r = c.check(host, model, rc=1)
    slices = {s["arch"]: s for s in r.doc.get("slices", [])}
    if sorted(slices) != ["arm64", "arm64_32"]:
        raise Failure(f"expected both slices audited, got {sorted(slices)}")
    status = lambda arch, name: next(x for x in slices[arch]["plugins"][0]["symbols"]
                                     if x["name"] == name)
    if status("arm64_32", SHIMS[0])["status"] != "bound":
        raise Failure(f"arm64_32: {status('arm64_32', SHIMS[0])}")
    if status("arm64", SHIMS[0]).get("reason") != "hidden":
        raise Failure(f"arm64: {status('arm64', SHIMS[0])}")
    if not all(f.get("arch") == "arm64" for f in r.doc["findings"]) or not r.doc["findings"]:
        raise Failure(f"findings should all be the arm64 slice's: {r.doc['findings']}")
    # --arch picks one slice: the arm64_32 one passes alone.
    r = c.check(host, model, extra=("--arch", "arm64_32"), rc=0)
    if "slices" in r.doc:
        raise Failure("--arch audits one slice")
    text = c.sh(c.args.audit, "check", "--host", host, model, ok=False).stdout
    if "slice arm64_32" not in text or "slice arm64 " not in text:
        raise Failure(f"text output names each slice: {text}")


def oracle_machine():
    import platform
    m = platform.machine()
    return {"AMD64": "x86_64", "aarch64": "arm64"}.get(m, m)


# --- exact cases (yaml2obj) -------------------------------------------------

def yaml_host(c):
    h = my.MachO(my.MH_EXECUTE)
    h.dylib("/usr/lib/libSystem.B.dylib")
    h.export("__mh_execute_header", address=0)
    h.export("_main")
    h.rpaths.append("@executable_path/lib")
    return c.yaml("host", h)


@case
def yaml_reexports(c):
    """Trie re-exports (same name and renamed) and LC_REEXPORT_DYLIB, followed to the defining dylib."""
    inner = my.MachO(my.MH_DYLIB, install_name="@rpath/libinner.dylib")
    inner.export("_inner_name")
    inner.export("_deep", address=0x1008)
    inner.export("_resolved", flags=my.EXPORT_RESOLVER, address=0x1010, other=0x1020)
    c.yaml("lib/libinner.dylib", inner)
    outer = my.MachO(my.MH_DYLIB, install_name="@rpath/libouter.dylib")
    o = outer.dylib("@rpath/libinner.dylib", "LC_REEXPORT_DYLIB")
    outer.export("_renamed", flags=my.EXPORT_REEXPORT, other=o, import_name="_inner_name")
    outer.export("_gone", flags=my.EXPORT_REEXPORT, other=o)      # inner lacks it
    outer.export("_outer_weak", flags=my.EXPORT_WEAK, address=0x1000)
    c.yaml("lib/libouter.dylib", outer)
    model = my.MachO(my.MH_BUNDLE)
    lib = model.dylib("@rpath/libouter.dylib")
    model.imports("_renamed", lib)
    model.imports("_gone", lib)
    model.imports("_deep", lib, lazy=True)
    model.imports("_resolved", lib)
    model.imports("_outer_weak", lib)
    model.export("_model_run")
    m = c.yaml("model.so", model)
    r = c.check(yaml_host(c), m, extra=("--all",), rc=1)
    r.expect_status("_renamed", "bound", provider="libinner.dylib")
    r.expect_status("_deep", "bound", provider="libinner.dylib")
    r.expect_status("_resolved", "bound", provider="libinner.dylib")
    r.expect_status("_outer_weak", "bound", provider="libouter.dylib")
    r.expect_status("_gone", "missing")


@case
def yaml_ordinals(c):
    """Every kind of library ordinal, in bind opcodes and nlist: n, 0 (self), 0xFE, 0xFF; weak dylibs."""
    lib = my.MachO(my.MH_DYLIB, install_name="@rpath/libshims.dylib")
    lib.export("_aoti_torch_a")
    lib.export("_aoti_torch_b", address=0x1004)
    c.yaml("lib/libshims.dylib", lib)
    model = my.MachO(my.MH_BUNDLE)
    one = model.dylib("@rpath/libshims.dylib")
    weak = model.dylib("@rpath/libabsent.dylib", "LC_LOAD_WEAK_DYLIB")
    model.dylib("@rpath/libupward.dylib", "LC_LOAD_UPWARD_DYLIB")
    model.imports("_aoti_torch_a", one)
    model.imports("_aoti_torch_b", one, lazy=True)
    model.imports("_aoti_torch_opt", weak, weak=True)
    model.imports("_aoti_torch_needed", weak)          # not weak: missing
    model.imports("_main", my.MAIN)
    model.imports("_aoti_torch_flat", my.FLAT, weak=True)
    model.imports("_aoti_torch_self", my.SELF)
    model.export("_aoti_torch_self", address=0x1008)
    model.export("_model_run")
    m = c.yaml("model.so", model)
    c.yaml("lib/libupward.dylib", my.MachO(my.MH_DYLIB, install_name="@rpath/libupward.dylib"))
    r = c.check(yaml_host(c), m, extra=("--all",), rc=1)
    r.expect_status("_aoti_torch_a", "bound", provider="libshims.dylib")
    r.expect_status("_aoti_torch_b", "bound", provider="libshims.dylib")
    r.expect_status("_aoti_torch_opt", "weak-unresolved")
    r.expect_status("_aoti_torch_needed", "missing")
    r.expect_status("_main", "bound", provider="host")
    r.expect_status("_aoti_torch_flat", "weak-unresolved")
    r.expect_status("_aoti_torch_self", "bound", provider="model.so")
    r.expect_no_finding("AOTI008")  # the weak dylib may be missing


@case
def yaml_chained_fixups(c):
    """Chained-fixup imports (DYLD_CHAINED_IMPORT) with signed special ordinals and weak flags."""
    lib = my.MachO(my.MH_DYLIB, install_name="@rpath/libshims.dylib")
    lib.export("_aoti_torch_a")
    lib.chained = []
    c.yaml("lib/libshims.dylib", lib)
    model = my.MachO(my.MH_BUNDLE)
    one = model.dylib("@rpath/libshims.dylib")
    model.chained = [("_aoti_torch_a", one, False), ("_aoti_torch_b", -2, True),
                     ("_main", -1, False)]
    for n, o, w in [("_aoti_torch_a", one, False), ("_aoti_torch_b", my.FLAT, True),
                    ("_main", my.MAIN, False)]:
        model.undefined(n, o, w)
    model.export("_model_run")
    r = c.check(yaml_host(c), c.yaml("model.so", model), extra=("--all",), rc=0)
    r.expect_status("_aoti_torch_a", "bound", provider="libshims.dylib")
    r.expect_status("_aoti_torch_b", "weak-unresolved")
    r.expect_status("_main", "bound", provider="host")


@case
def yaml_flat_image(c):
    """An image without MH_TWOLEVEL and without bind info: its nlist imports are flat lookups."""
    lib = my.MachO(my.MH_DYLIB, install_name="@rpath/libshims.dylib")
    lib.export("_aoti_torch_a")
    c.yaml("lib/libshims.dylib", lib)
    model = my.MachO(my.MH_BUNDLE, two_level=False)
    model.dylib("@rpath/libshims.dylib")
    model.no_fixup_info = True
    model.undefined("_aoti_torch_a")
    model.undefined("_aoti_torch_missing")
    model.export("_model_run")
    r = c.check(yaml_host(c), c.yaml("model.so", model), rc=1)
    r.expect_status("_aoti_torch_a", "bound", provider="libshims.dylib")
    r.expect_status("_aoti_torch_missing", "missing", reason="not-defined")


@case
def yaml_malformed(c):
    """Bad input is a clear error and exit 2, never a crash."""
    model = my.MachO(my.MH_BUNDLE)
    model.dylib("@rpath/libshims.dylib")
    model.imports("_aoti_torch_a", 3)            # only one dylib load command
    m = c.yaml("bad_ordinal.so", model)
    c.fixtures.remove((m, None))                 # llvm-objdump rejects it too
    host = yaml_host(c)
    c.check_fails(host, m, message="bad library ordinal: 3")
    with open(m, "rb") as f:
        head = f.read(200)
    t = c.path("truncated.so")
    with open(t, "wb") as f:
        f.write(head)
    c.check_fails(host, t, message="truncated.so")
    c.check_fails(t, m, message="truncated.so")


@case
def mutated_files_never_crash(c):
    """Truncated and bit-flipped fixtures (seeded): exit 0, 1 or 2 with a message, never a signal."""
    import random
    rng = random.Random(20240601)
    lib = shims_dylib(c, "lib/libshims.dylib", "@rpath/libshims.dylib")
    host = c.ld("host", c.cc("host", HOST_C), lib, "-rpath", "@executable_path/lib")
    model = dynamic_lookup_plugin(c)
    chained = c.ld("chained.so", "-bundle", "-undefined", "dynamic_lookup", "-fixup_chains",
                   c.cc("plugin13", PLUGIN_C, version="13"), version="13.0")
    originals = {p: open(p, "rb").read() for p in (lib, host, model, chained)}
    for i in range(160):
        target = rng.choice(sorted(originals))
        data = bytearray(originals[target])
        if rng.random() < 0.3:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(min(len(data), 4096))] = rng.randrange(256)
        with open(target, "wb") as f:
            f.write(data)
        for cmd in ([c.args.dump, "--static", target],
                    [c.args.audit, "check", "--all", "--host", host, model]):
            p = c.sh(*cmd, ok=False)
            if p.returncode not in (0, 1, 2) or (p.returncode == 2 and "error" not in p.stderr):
                raise Failure(f"mutation {i} of {os.path.basename(target)}: {' '.join(cmd)} "
                              f"exited {p.returncode}: {p.stderr[-500:]}")
        with open(target, "wb") as f:
            f.write(originals[target])


@case
def objects_and_dups(c):
    """Mach-O objects and archives for dups: private externs, commons, a duplicate shim."""
    src = SHIMS_C + ("__attribute__((visibility(\"hidden\"))) int aoti_torch_hidden(void) { return 1; }\n"
                     "int aoti_torch_common_counter;\n"
                     "__attribute__((weak)) int aoti_torch_weak(void) { return 2; }\n")
    a = c.cc("shims_a", src, flags=("-fcommon",))
    b = c.cc("shims_b", SHIMS_C)
    x = c.cc("shims_x86", SHIMS_C, arch="x86_64")
    la, lb = c.ar("liba.a", a), c.ar("libb.a", b, x)
    p = c.sh(c.args.audit, "dups", "--format", "json", la, lb, ok=False)
    if p.returncode != 1:
        raise Failure(f"dups exited {p.returncode}: {p.stdout}{p.stderr}")
    doc = json.loads(p.stdout)
    names = {d.get("symbol") or d.get("name") for d in doc.get("findings", doc.get("duplicates", []))}
    if not any(n and "aoti_torch_get_sizes" in n for n in names):
        raise Failure(f"dups did not report the duplicate shim: {p.stdout[:2000]}")


def main():
    ap = harness.parser(__doc__)
    ap.add_argument("--dump", required=True, help="aoti_macho_model_dump")
    args = ap.parse_args()
    args.audit, args.dump = os.path.abspath(args.audit), os.path.abspath(args.dump)
    if args.list:
        for fn in CASES:
            print(f"{fn.__name__}: {fn.__doc__}")
        return 0
    cases = harness.select(CASES, args.case)
    if cases is None:
        return 2
    skip = harness.skip_unless(TOOLS)
    if skip:
        return skip
    tally = harness.Tally()
    facts = files = 0
    # The fixtures of a failed run stay for a look.
    with harness.scratch("aoti-macho-", keep=lambda: args.keep or tally.failed) as root:
        for fn in cases:
            c = Case(root, fn.__name__, args)
            try:
                fn(c)
                for path, arch in c.fixtures:
                    facts += oracle.crosscheck(args.dump, path, arch)
                    files += 1
                for path in c.archives:
                    facts += oracle.crosscheck_archive(args.dump, path)
                    files += 1
                problems = []
            except (Failure, oracle.Mismatch) as e:
                problems = [str(e)]
            except Exception:
                problems = [traceback.format_exc()]
            tally.row(problems, f"{fn.__name__}: {fn.__doc__}")
        print(f"{tally.passed} of {tally.runs} cases passed; {files} fixtures cross-checked "
              f"against llvm-objdump/llvm-nm ({facts} facts agree)")
    return tally.status()


if __name__ == "__main__":
    sys.exit(main())
