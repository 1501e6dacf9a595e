#!/usr/bin/env python3
"""`aoti-audit dups` against the real static linkers.

Every case compiles its objects and archives now, with the real compiler and
`ar`, runs `aoti-audit dups --format json` on the link inputs, and then links
the same inputs twice with each linker (gcc + GNU ld, clang + lld):

  plain  objects, then the shared libraries under --as-needed, then the
         archives inside --start-group/--end-group (the link Dups.h calls
         "plain"; in this order GNU ld resolves like lld);
  whole  the same with --whole-archive and --no-as-needed.

A link "hits" a duplicate when it fails with a multiple-definition error, or
when two of the clashing definitions end up in it: the link map (-Wl,-Map)
names every object and archive member the link took, `readelf -d` the shared
libraries it kept (DT_NEEDED). A case passes only when, for both
linkers,
  * the report's `latent` is the opposite of "the plain link hits it",
  * the whole link hits it (what "latent" promises),
  * and the report says what the case is about (kind, definitions, ...).

Usage: dups_cases.py --audit PATH [--case NAME] [--list] [--keep]
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402
from harness import Failure, expect  # noqa: E402

LINKERS = {
    "bfd": ["gcc", "-fuse-ld=bfd"],
    "lld": ["clang-19", "-fuse-ld=lld"],
}

CASES = harness.Cases()
case = CASES.add


class Build(harness.Workdir):
    """Compiles, archives, links and audits inside one case directory."""

    def __init__(self, audit, root):
        super().__init__(root)
        self.audit = audit

    def src(self, name, text):
        """Writes `name`; the name, relative to the case directory."""
        self.write(name, text)
        return name

    def obj(self, name, text, *flags):
        """name.c (or name.cpp when text says `// c++`) -> name.o"""
        cxx = text.lstrip().startswith("// c++")
        src = self.src(name + (".cpp" if cxx else ".c"), text)
        self.run("c++" if cxx else "cc", "-c", "-fPIC", "-O1", *flags, src, "-o", name + ".o")
        return name + ".o"

    def ar(self, lib, *objs, flags="rcs"):
        self.run("ar", flags, lib, *objs)
        return lib

    def so(self, lib, *objs):
        self.run("cc", "-shared", "-Wl,-soname," + lib, "-o", lib, *objs)
        return lib

    def dups(self, *args, rc=None):
        r = self.run(self.audit, "dups", "--format", "json", *args, check=False)
        if rc is not None and r.returncode != rc:
            raise Failure("dups %s exited %d, expected %d:\n%s%s" %
                          (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
        if r.returncode == 2:
            return r, None
        try:
            return r, json.loads(r.stdout)
        except ValueError:
            raise Failure("dups printed no JSON:\n%s%s" % (r.stdout, r.stderr))

    def text(self, *args):
        return self.run(self.audit, "dups", "--color", "never", *args, check=False)

    def link(self, linker, inputs, whole, sym, out="a.out", order=None):
        """Links the inputs; returns (ok, output, link map, NEEDED)."""
        objs = [i for i in inputs if i.endswith(".o")]
        ars = [i for i in inputs if i.endswith(".a")]
        sos = [i for i in inputs if ".so" in i]
        if order is not None:  # an explicit command line, no group
            line = ["./" + i if ".so" in i else i for i in order]
        else:
            # Shared libraries before the archives, so that GNU ld too lets
            # their references extract members (lld does in any order).
            line = list(objs)
            line += ["-Wl,--no-as-needed" if whole else "-Wl,--as-needed"] + ["./" + s for s in sos]
            if ars:
                line += (["-Wl,--whole-archive"] if whole else ["-Wl,--start-group"]) + ars + \
                        (["-Wl,--no-whole-archive"] if whole else ["-Wl,--end-group"])
        mapfile = os.path.join(self.root, out + ".map")
        if os.path.exists(mapfile):
            os.unlink(mapfile)
        r = self.run(*LINKERS[linker], "-o", out, *line, "-Wl,-Map=" + mapfile, check=False)
        output = r.stdout + r.stderr
        linkmap = open(mapfile).read() if os.path.exists(mapfile) else ""
        needed = set()
        if r.returncode == 0:
            d = self.run("readelf", "-d", out).stdout
            needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", d))
        return r.returncode == 0, output, linkmap, needed


def in_map(linkmap, name):
    """Whether the link map lists input sections of this object or member."""
    return re.search(r"(^|[\s/])" + re.escape(name) + r"(:|\s|$)", linkmap, re.M) is not None


def one(report, name):
    found = [d for d in report["duplicates"] if d["name"] == name]
    expect(len(found) == 1, "expected one duplicate %s, report has %s" %
           (name, [d["name"] for d in report["duplicates"]]))
    return found[0]


def display(d):
    return d["file"] + ("(%s)" % d["member"] if d["member"] else "")


def hits(b, linker, inputs, whole, dup, sym):
    """Whether a link of the inputs takes two of the duplicate's clashing definitions."""
    ok, output, linkmap, needed = b.link(linker, inputs, whole, sym)
    if not ok:
        multiple = "multiple definition of `%s'" % sym in output or \
                   "duplicate symbol: %s" % sym in output
        expect(multiple, "%s link failed for another reason:\n%s" % (linker, output))
        return True
    defs = dup["definitions"]
    if dup["kind"] == "strong-strong":
        defs = [d for d in defs if d["strength"] == "strong"]
    count = 0
    for d in defs:
        if d["origin"] == "shared-library":
            count += os.path.basename(d["file"]) in needed
        else:
            count += in_map(linkmap, display(d))
    return count >= 2


def agree(b, inputs, dup, sym=None, whole_hits=True):
    """The linker oracle for `latent`, with both linkers."""
    sym = sym or dup["name"]
    for linker in LINKERS:
        plain = hits(b, linker, inputs, False, dup, sym)
        expect(plain == (not dup["latent"]),
               "%s: the plain link %s, but the report says latent=%s" %
               (linker, "hits it" if plain else "does not hit it", dup["latent"]))
        if whole_hits:
            expect(hits(b, linker, inputs, True, dup, sym),
                   "%s: the whole-archive link does not hit it" % linker)


MAIN_REFS = "int %s(void);\n" \
            "int main(void) { return %s; }\n"


def main_calling(*names):
    return "".join("int %s(void);\n" % n for n in names) + \
           "int main(void) { return %s; }\n" % " + ".join(n + "()" for n in names)


# --- strong duplicates --------------------------------------------------------

@case
def two_archives_latent(b):
    """Strong/strong across two archives; the link needs only one: latent."""
    b.ar("libcpu.a", b.obj("cpu", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                  "int aoti_torch_cpu_only(void) { return 1; }\n"))
    b.ar("libcuda.a", b.obj("cuda", "int aoti_torch_get_device_type(void) { return 1; }\n"
                                    "int aoti_torch_cuda_only(void) { return 2; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_get_device_type")), "libcpu.a", "libcuda.a"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(d["kind"] == "strong-strong" and d["severity"] == "error", d)
    expect([display(x) for x in d["definitions"]] == ["libcpu.a(cpu.o)", "libcuda.a(cuda.o)"], d)
    expect(d["latent"] and not d["interposition"], d)
    expect({x["pulled_in"] for x in d["definitions"]} == {"maybe"}, d)
    agree(b, inputs, d)


@case
def two_archives_hit(b):
    """Strong/strong across two archives; the link needs a symbol from each: not latent."""
    b.ar("libcpu.a", b.obj("cpu", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                  "int aoti_torch_cpu_only(void) { return 1; }\n"))
    b.ar("libcuda.a", b.obj("cuda", "int aoti_torch_get_device_type(void) { return 1; }\n"
                                    "int aoti_torch_cuda_only(void) { return 2; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_cpu_only", "aoti_torch_cuda_only")),
              "libcpu.a", "libcuda.a"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(not d["latent"], d)
    expect({x["pulled_in"] for x in d["definitions"]} == {"always"}, d)
    agree(b, inputs, d)


@case
def within_one_archive(b):
    """Two members of one archive: latent until both members are needed."""
    b.ar("libshims.a",
         b.obj("tensor", "int aoti_torch_get_device_type(void) { return 0; }\n"
                         "int aoti_torch_new_tensor(void) { return 1; }\n"),
         b.obj("cuda_tensor", "int aoti_torch_get_device_type(void) { return 1; }\n"
                              "int aoti_torch_cuda_stream(void) { return 2; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_new_tensor")), "libshims.a"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect([display(x) for x in d["definitions"]] ==
           ["libshims.a(cuda_tensor.o)", "libshims.a(tensor.o)"], d)
    expect(d["latent"], d)
    pulled = {display(x): x["pulled_in"] for x in d["definitions"]}
    expect(pulled == {"libshims.a(tensor.o)": "always", "libshims.a(cuda_tensor.o)": "never"}, pulled)
    agree(b, inputs, d)
    inputs[0] = b.obj("main2", main_calling("aoti_torch_new_tensor", "aoti_torch_cuda_stream"))
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(not d["latent"], d)
    agree(b, inputs, d)


@case
def archive_without_index(b):
    """An archive without a symbol index (ar rcS): every member is read."""
    b.ar("libnoidx.a", b.obj("x", "int aoti_torch_x(void) { return 0; }\n"),
         b.obj("y", "int aoti_torch_x(void) { return 1; }\n"), flags="rcS")
    expect("Archive index" not in b.run("nm", "-s", "libnoidx.a").stdout, "ar rcS wrote an index")
    _, rep = b.dups("libnoidx.a", rc=1)
    d = one(rep, "aoti_torch_x")
    expect(len(d["definitions"]) == 2 and d["latent"], d)


@case
def archive_vs_object_hit(b):
    """An object and a member that defines another symbol the link needs: not latent."""
    b.ar("libshims.a", b.obj("shim", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                     "int aoti_torch_get_dtype(void) { return 6; }\n"))
    override = b.obj("override", "int aoti_torch_get_device_type(void) { return 1; }\n")
    inputs = [b.obj("main", main_calling("aoti_torch_get_device_type", "aoti_torch_get_dtype")),
              override, "libshims.a"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(not d["latent"], d)
    agree(b, inputs, d)


@case
def archive_vs_object_latent(b):
    """An object defines what the member defines, and nothing else is needed: latent."""
    b.ar("libshims.a", b.obj("shim", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                     "int aoti_torch_get_dtype(void) { return 6; }\n"))
    override = b.obj("override", "int aoti_torch_get_device_type(void) { return 1; }\n")
    inputs = [b.obj("main", main_calling("aoti_torch_get_device_type")), override, "libshims.a"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(d["latent"], d)
    pulled = {display(x): x["pulled_in"] for x in d["definitions"]}
    expect(pulled == {"override.o": "always", "libshims.a(shim.o)": "maybe"}, pulled)
    agree(b, inputs, d)


@case
def two_objects(b):
    """Two loose objects: every link of them fails, never latent."""
    inputs = [b.obj("main", main_calling("aoti_torch_f")),
              b.obj("a", "int aoti_torch_f(void) { return 0; }\n"),
              b.obj("b", "int aoti_torch_f(void) { return 1; }\n")]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_f")
    expect(not d["latent"] and d["kind"] == "strong-strong", d)
    agree(b, inputs, d)


@case
def hidden_objects_still_collide(b):
    """Hidden visibility does not matter between relocatable objects."""
    hidden = '__attribute__((visibility("hidden"))) int aoti_torch_h(void) { return %d; }\n'
    inputs = [b.obj("main", main_calling("aoti_torch_h")), b.obj("a", hidden % 0), b.obj("b", hidden % 1)]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_h")
    expect({x["visibility"] for x in d["definitions"]} == {"hidden"} and not d["latent"], d)
    agree(b, inputs, d)


@case
def member_pulled_by_shared_library(b):
    """A shared library the link needs references a member's symbol: the chain pulls it in."""
    b.so("libuser.so", b.obj("user", "int aoti_torch_helper(void);\n"
                                     "int aoti_user_entry(void) { return aoti_torch_helper(); }\n"))
    b.ar("libhelper.a", b.obj("helper", "int aoti_torch_helper(void) { return 1; }\n"
                                        "int aoti_torch_g(void) { return 2; }\n"))
    inputs = [b.obj("main", main_calling("aoti_user_entry", "aoti_torch_g")),
              b.obj("g", "int aoti_torch_g(void) { return 3; }\n"), "libhelper.a", "libuser.so"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_g")
    expect(not d["latent"], d)
    agree(b, inputs, d)


@case
def order_dependent(b):
    """A second provider of a referenced name is 'maybe': whether it collides depends on order."""
    b.ar("liba.a", b.obj("x", "int aoti_torch_d(void) { return 0; }\n"
                              "int aoti_torch_bar(void) { return 1; }\n"))
    b.ar("libb.a", b.obj("y", "int aoti_torch_d(void) { return 2; }\n"))
    main = b.obj("main", main_calling("aoti_torch_d", "aoti_torch_bar"))
    _, rep = b.dups(main, "liba.a", "libb.a", rc=1)
    d = one(rep, "aoti_torch_d")
    pulled = {display(x): x["pulled_in"] for x in d["definitions"]}
    expect(pulled == {"liba.a(x.o)": "always", "libb.a(y.o)": "maybe"} and d["latent"], pulled)
    for linker in LINKERS:
        ok_ab = b.link(linker, [], False, "aoti_torch_d", order=[main, "liba.a", "libb.a"])[0]
        ok_ba = b.link(linker, [], False, "aoti_torch_d", order=[main, "libb.a", "liba.a"])[0]
        expect(ok_ab and not ok_ba, "%s: expected liba.a first to link and libb.a first to fail "
               "(got %s, %s)" % (linker, ok_ab, ok_ba))


# --- shared libraries ---------------------------------------------------------

@case
def two_shared_latent(b):
    """Two shared libraries; the link needs neither beyond the duplicate: latent interposition."""
    b.so("libcpu.so", b.obj("cpu", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                   "int aoti_torch_cpu_only(void) { return 1; }\n"))
    b.so("libcuda.so", b.obj("cuda", "int aoti_torch_get_device_type(void) { return 1; }\n"
                                     "int aoti_torch_cuda_only(void) { return 2; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_get_device_type")), "libcpu.so", "libcuda.so"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(d["latent"] and d["interposition"], d)
    expect({x["origin"] for x in d["definitions"]} == {"shared-library"}, d)
    agree(b, inputs, d)


@case
def two_shared_hit(b):
    """Two shared libraries both needed: both loaded, the first one interposes the other."""
    b.so("libcpu.so", b.obj("cpu", "int aoti_torch_get_device_type(void) { return 10; }\n"
                                   "int aoti_torch_cpu_only(void) { return 0; }\n"))
    b.so("libcuda.so", b.obj("cuda", "int aoti_torch_get_device_type(void) { return 20; }\n"
                                     "int aoti_torch_cuda_only(void) { return 0; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_cpu_only", "aoti_torch_cuda_only",
                                         "aoti_torch_get_device_type")), "libcpu.so", "libcuda.so"]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(not d["latent"] and d["interposition"], d)
    agree(b, inputs, d)
    # Nothing failed; the loader silently picked the first one.
    r = b.run("./a.out", check=False, env=dict(os.environ, LD_LIBRARY_PATH="."))
    expect(r.returncode == 10, "expected libcpu.so's definition to win, exit %d" % r.returncode)


@case
def hidden_in_shared_library(b):
    """A hidden definition in a shared library is not exported: not a duplicate."""
    b.so("libpriv.so", b.obj("priv", '__attribute__((visibility("hidden"))) '
                                     'int aoti_torch_get_device_type(void) { return 0; }\n'
                                     'int aoti_torch_priv_only(void) { return aoti_torch_get_device_type(); }\n'))
    b.so("libpub.so", b.obj("pub", "int aoti_torch_get_device_type(void) { return 1; }\n"))
    _, rep = b.dups("libpriv.so", "libpub.so", rc=0)
    expect(rep["duplicates"] == [], rep["duplicates"])
    dyn = b.run("nm", "-D", "--defined-only", "libpriv.so").stdout
    expect("aoti_torch_get_device_type" not in dyn, "the oracle exports it after all")
    # The objects themselves still collide when linked statically.
    _, rep = b.dups("priv.o", "pub.o", rc=1)
    one(rep, "aoti_torch_get_device_type")


@case
def shared_build_of_archive(b):
    """libfoo.so built from libfoo.a's objects is the same library, not a duplicate of it."""
    o = b.obj("shim", "int aoti_torch_get_device_type(void) { return 0; }\n")
    b.ar("libaoti_shims.a", o)
    b.run("cc", "-shared", "-Wl,-soname,libaoti_shims.so.0", "-o", "libaoti_shims.so.0.1", o)
    os.symlink("libaoti_shims.so.0.1", os.path.join(b.root, "libaoti_shims.so"))
    _, rep = b.dups("libaoti_shims.a", "libaoti_shims.so", "libaoti_shims.so.0.1", rc=0)
    expect(rep["duplicates"] == [], rep["duplicates"])
    expect(rep["stats"]["shared_libraries"] == 1, "the symlink was read twice: %s" % rep["stats"])
    b.ar("libother.a", b.obj("other", "int aoti_torch_get_device_type(void) { return 1; }\n"))
    _, rep = b.dups("libaoti_shims.a", "libaoti_shims.so", "libother.a", rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect([display(x) for x in d["definitions"]] == ["libaoti_shims.a(shim.o)", "libother.a(other.o)"], d)
    expect(d["shared_variants"] == ["libaoti_shims.so"], d)


# --- weak and common ------------------------------------------------------------

@case
def strong_weak(b):
    """A strong and a weak definition: no link fails, the strong one wins."""
    b.ar("libdefault.a", b.obj("dflt", "__attribute__((weak)) int aoti_torch_alloc(void) { return 1; }\n"
                                       "int aoti_torch_default_only(void) { return 0; }\n"))
    b.ar("libfast.a", b.obj("fast", "int aoti_torch_alloc(void) { return 2; }\n"
                                    "int aoti_torch_fast_only(void) { return 0; }\n"))
    inputs = [b.obj("main", main_calling("aoti_torch_alloc", "aoti_torch_default_only",
                                         "aoti_torch_fast_only")), "libdefault.a", "libfast.a"]
    _, rep = b.dups(*inputs, rc=0)
    d = one(rep, "aoti_torch_alloc")
    expect(d["kind"] == "strong-weak" and d["severity"] == "warning" and d["rule"] == "AOTI102", d)
    expect(not d["latent"], d)
    agree(b, inputs, d)
    r = b.run("./a.out", check=False)
    expect(r.returncode == 2, "the strong definition did not win (exit %d)" % r.returncode)
    # Needing only the strong one's member: latent.
    inputs[0] = b.obj("main2", main_calling("aoti_torch_fast_only"))
    _, rep = b.dups(*inputs, rc=0)
    d = one(rep, "aoti_torch_alloc")
    expect(d["latent"], d)
    agree(b, inputs, d)


@case
def weak_weak(b):
    """Two weak definitions in loose objects: the first one wins, nothing fails."""
    weak = "__attribute__((weak)) int aoti_torch_w(void) { return %d; }\n"
    inputs = [b.obj("main", main_calling("aoti_torch_w")), b.obj("a", weak % 1), b.obj("b", weak % 2)]
    _, rep = b.dups(*inputs, rc=0)
    d = one(rep, "aoti_torch_w")
    expect(d["kind"] == "weak-weak" and d["severity"] == "note" and d["rule"] == "AOTI103", d)
    expect(not d["latent"], d)
    agree(b, inputs, d)


@case
def common_symbols(b):
    """Tentative definitions: merged under -fcommon, a strong duplicate under -fno-common."""
    inputs = [b.obj("main", "extern int aoti_torch_c;\nint main(void) { return aoti_torch_c; }\n"),
              b.obj("a", "int aoti_torch_c;\n", "-fcommon"), b.obj("b", "int aoti_torch_c;\n", "-fcommon")]
    _, rep = b.dups(*inputs, rc=0)
    d = one(rep, "aoti_torch_c")
    expect(d["kind"] == "common" and d["rule"] == "AOTI104" and d["severity"] == "warning", d)
    expect({x["strength"] for x in d["definitions"]} == {"common"} and not d["latent"], d)
    agree(b, inputs, d)
    inputs[1:] = [b.obj("a2", "int aoti_torch_c;\n", "-fno-common"),
                  b.obj("b2", "int aoti_torch_c;\n", "-fno-common")]
    _, rep = b.dups(*inputs, rc=1)
    d = one(rep, "aoti_torch_c")
    expect(d["kind"] == "strong-strong" and not d["latent"], d)
    agree(b, inputs, d)


# --- C and C++ --------------------------------------------------------------------

@case
def cxx_names(b):
    """Mangled C++ names only with --cxx, shown demangled; extern "C" foo is not foo(int)."""
    b.ar("liba.a", b.obj("a", "// c++\nint aoti_torch_cxx(int x) { return x; }\n"
                              'extern "C" int aoti_torch_plain(void) { return 0; }\n'))
    b.ar("libb.a", b.obj("b", "// c++\nint aoti_torch_cxx(int x) { return x + 1; }\n"
                              "int aoti_torch_plain(int x) { return x; }\n"))
    _, rep = b.dups("liba.a", "libb.a", rc=0)
    expect(rep["duplicates"] == [], "C++ names reported without --cxx: %s" % rep["duplicates"])
    _, rep = b.dups("--cxx", "liba.a", "libb.a", rc=1)
    expect([d["name"] for d in rep["duplicates"]] == ["_Z14aoti_torch_cxxi"], rep["duplicates"])
    d = rep["duplicates"][0]
    expect(d["demangled"] == "aoti_torch_cxx(int)", d)
    expect("aoti_torch_cxx(int)" in b.text("--cxx", "liba.a", "libb.a").stdout, "text output not demangled")
    # The linker agrees: whole-archive of both fails on the C++ name only.
    main = b.obj("main", "int main(void) { return 0; }\n")
    for linker in LINKERS:
        ok, output, _, _ = b.link(linker, [main, "liba.a", "libb.a"], True, "aoti_torch_plain")
        expect(not ok and "aoti_torch_cxx(int)" in output.replace("aoti_torch_cxx(int)'", "aoti_torch_cxx(int)"),
               "%s: expected only aoti_torch_cxx(int) to collide:\n%s" % (linker, output))
        expect("`aoti_torch_plain'" not in output and "symbol: aoti_torch_plain" not in output, output)


@case
def macho_archives(b):
    """Mach-O archives: C names carry a '_', prefixes still match; ld64.lld is the oracle."""
    for n, body in (("a", "int aoti_torch_x(void) { return 1; }\n"),
                    ("b", "int aoti_torch_x(void) { return 2; }\nint other(void) { return 0; }\n")):
        b.src(n + ".c", body)
        b.run("clang-19", "-target", "arm64-apple-macos11", "-c", n + ".c", "-o", n + ".o")
        b.run("llvm-ar-19", "rcs", "--format=darwin", "lib%s.a" % n, n + ".o")
    _, rep = b.dups("liba.a", "libb.a", rc=1)
    d = one(rep, "_aoti_torch_x")
    expect(d["kind"] == "strong-strong" and d["latent"], d)
    ld = ["ld64.lld-19", "-arch", "arm64", "-platform_version", "macos", "11.0", "11.0", "-dylib", "-o", "x.dylib"]
    expect(b.run(*ld, "liba.a", "libb.a", check=False).returncode == 0, "the plain ld64.lld link failed")
    r = b.run(*ld, "-all_load", "liba.a", "libb.a", check=False)
    expect(r.returncode != 0 and "duplicate symbol: _aoti_torch_x" in r.stderr, r.stderr)


# --- inputs, options, exit status ------------------------------------------------------

@case
def cxx_template_prefix(b):
    """--cxx: a prefix matches a template function's qualified name, not its return type."""
    tmpl = "// c++\nnamespace aoti { template <typename T> T aoti_torch_clamp(T v) { return %s; } }\n" \
           "int use_%s(int x) { return aoti::aoti_torch_clamp(x); }\n"
    inputs = [b.obj("t1", tmpl % ("v < 0 ? 0 : v", "a"), "-O0"), b.obj("t2", tmpl % ("v", "b"), "-O0")]
    _, rep = b.dups("--cxx", "--prefix", "aoti::aoti_torch_", *inputs, rc=0)
    d = one(rep, "_ZN4aoti16aoti_torch_clampIiEET_S1_")
    expect(d["demangled"] == "int aoti::aoti_torch_clamp<int>(int)" and d["kind"] == "weak-weak", d)
    expect(not d["latent"], d)
    # Weak copies never fail a link: the first one wins (an ODR violation here).
    main = b.obj("main", "int main(void) { return 0; }\n")
    for linker in LINKERS:
        expect(b.link(linker, [main] + inputs, False, d["name"])[0], "%s: link failed" % linker)


@case
def directories_and_input_lists(b):
    """A directory is searched recursively; @file lists inputs; a file is read once."""
    os.makedirs(os.path.join(b.root, "tree/lib/sub"))
    b.obj("a", "int aoti_torch_f(void) { return 0; }\n")
    b.obj("bb", "int aoti_torch_f(void) { return 1; }\n")
    b.ar("tree/lib/liba.a", "a.o")
    b.ar("tree/lib/sub/libb.a", "bb.o")
    b.src("tree/lib/notes.txt", "not a binary\n")
    b.run("cc", "-o", "tree/lib/tool", b.src("tool.c", "int main(void) { return 0; }\n"))
    _, by_dir = b.dups("tree", rc=1)
    expect([display(x) for x in one(by_dir, "aoti_torch_f")["definitions"]] ==
           ["tree/lib/liba.a(a.o)", "tree/lib/sub/libb.a(bb.o)"], by_dir)
    expect(by_dir["stats"]["skipped_executables"] == 1 and by_dir["stats"]["inputs"] == 2, by_dir["stats"])
    b.src("inputs.txt", "# the link inputs\ntree/lib/liba.a\n\n  tree/lib/sub/libb.a\ntree/lib\n")
    _, by_list = b.dups("@inputs.txt", rc=1)
    expect(by_list["duplicates"] == by_dir["duplicates"], "the @file gives another report")


@case
def cmake_build_tree(b):
    """A CMake build tree the File API answered: its JSON replies are skipped, not read as .tbd stubs."""
    os.makedirs(os.path.join(b.root, "proj"))
    b.src("proj/CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(p C)\n"
                                 "add_library(cpu STATIC cpu.c)\nadd_library(cuda STATIC cuda.c)\n")
    b.src("proj/cpu.c", "int aoti_torch_get_device_type(void) { return 0; }\n")
    b.src("proj/cuda.c", "int aoti_torch_get_device_type(void) { return 1; }\n")
    os.makedirs(os.path.join(b.root, "build/.cmake/api/v1/query"))
    b.src("build/.cmake/api/v1/query/codemodel-v2", "")
    b.run("cmake", "-S", "proj", "-B", "build", "-G", "Unix Makefiles")
    b.run("cmake", "--build", "build")
    replies = [f for _, _, fs in os.walk(os.path.join(b.root, "build/.cmake/api/v1/reply"))
               for f in fs if f.endswith(".json")]
    expect(replies, "cmake wrote no File API reply")
    r, rep = b.dups("build", rc=1)
    expect("error" not in r.stderr, r.stderr)
    d = one(rep, "aoti_torch_get_device_type")
    expect({os.path.basename(x["file"]) for x in d["definitions"]} >= {"libcpu.a", "libcuda.a"}, d)
    expect(rep["stats"]["skipped_files"] >= len(replies), rep["stats"])
    v = b.run(b.audit, "dups", "--verbose", "build", check=False)
    expect(all(("skipped build/.cmake/api/v1/reply/%s" % f) in v.stderr or f not in v.stderr
               for f in replies) and "index-" in v.stderr, v.stderr)
    inputs = [b.obj("main", main_calling("aoti_torch_get_device_type")), "build/libcpu.a", "build/libcuda.a"]
    agree(b, inputs, one(b.dups(*inputs, rc=1)[1], "aoti_torch_get_device_type"))
    # Named on the line, a JSON file is an unreadable input: its own error,
    # with the prefix, the others still reported, exit 2.
    index = os.path.join("build/.cmake/api/v1/reply", [f for f in replies if f.startswith("index-")][0])
    r = b.run(b.audit, "dups", "--format", "json", index, "build/libcpu.a", "build/libcuda.a",
              "missing.a", check=False)
    expect(r.returncode == 2, "exit %d" % r.returncode)
    errs = [l for l in r.stderr.splitlines() if l.strip()]
    expect(len(errs) == 2 and all(l.startswith("aoti-audit: error: ") for l in errs), r.stderr)
    expect("is not an ELF or Mach-O file" in r.stderr and "tapi" not in r.stderr, r.stderr)
    rep = json.loads(r.stdout)
    expect([x["name"] for x in rep["duplicates"]] == ["aoti_torch_get_device_type"] and
           len(rep["unreadable"]) == 2, rep)


@case
def system_library_directory(b):
    """dups over the system's library directory (JSON, scripts, executables among it) finishes."""
    multiarch = b.run("gcc", "-print-multiarch").stdout.strip()
    libdir = "/usr/lib/" + multiarch
    r = b.run(b.audit, "dups", "--format", "json", libdir, check=False)
    expect(r.returncode in (0, 1), "exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    rep = json.loads(r.stdout)
    expect(rep["stats"]["shared_libraries"] > 10 and rep["unreadable"] == [], rep["stats"])


@case
def linker_script_inputs(b):
    """A GNU ld input script (libm.a is GROUP(...)) is followed as the linker follows it."""
    b.ar("libfoo_real.a", b.obj("real", "int aoti_torch_real(void) { return 0; }\n"))
    b.ar("libfoo_extra.a", b.obj("extra", "int aoti_torch_get_dtype(void) { return 6; }\n"
                                          "int aoti_torch_extra(void) { return 1; }\n"))
    b.src("libfoo.a", "/* GNU ld script */\nGROUP ( libfoo_real.a AS_NEEDED ( libfoo_extra.a ) )\n")
    b.ar("libbar.a", b.obj("bar", "int aoti_torch_get_dtype(void) { return 7; }\n"
                                  "int aoti_torch_bar(void) { return 2; }\n"))
    main = b.obj("main", main_calling("aoti_torch_extra", "aoti_torch_bar"))
    _, rep = b.dups(main, "libfoo.a", "libbar.a", rc=1)
    d = one(rep, "aoti_torch_get_dtype")
    expect([display(x) for x in d["definitions"]] == ["libbar.a(bar.o)", "libfoo_extra.a(extra.o)"], d)
    expect(rep["stats"]["archives"] == 3, rep["stats"])
    agree(b, [main, "libfoo.a", "libbar.a"], d)
    # The system's own scripts: glibc's libm.a, as in the issue.
    libm = b.run("gcc", "-print-file-name=libm.a").stdout.strip()
    libz = b.run("gcc", "-print-file-name=libz.a").stdout.strip()
    if open(libm, "rb").read(8) != b"!<arch>\n" and os.path.isabs(libz):
        r, rep = b.dups(libm, libz, rc=0)
        expect(rep["stats"]["archives"] >= 3, rep["stats"])
    # A script naming a file that is not there: named as an error, the rest
    # still reported, exit 2 (as nm: what it can read, and a failure).
    b.src("libbroken.a", "GROUP ( libfoo_real.a libgone.a )\n")
    r = b.run(b.audit, "dups", "--format", "json", main, "libbroken.a", "libbar.a", "libfoo_extra.a",
              check=False)
    expect(r.returncode == 2 and "aoti-audit: error: libgone.a: cannot find it (named by the linker "
           "script libbroken.a)" in r.stderr, (r.returncode, r.stderr))
    expect([x["name"] for x in json.loads(r.stdout)["duplicates"]] == ["aoti_torch_get_dtype"], r.stdout)
    ok = b.run("gcc", "-o", "broken", main, "libbroken.a", "libbar.a", "libfoo_extra.a", check=False)
    expect(ok.returncode != 0 and "libgone.a" in ok.stderr, "the linker found libgone.a: " + ok.stderr)


@case
def linker_defined_names(b):
    """--all over shared libraries: the names every link defines itself are not duplicates."""
    vs = b.src("v.map", "V1 { global: *; };\n")
    b.run("cc", "-shared", "-fPIC", "-Wl,--version-script=" + vs, "-o", "libone.so",
          b.src("one.c", "int t_one(void) { return 1; }\nint t_both(void) { return 1; }\n"))
    b.run("cc", "-shared", "-fPIC", "-Wl,--version-script=" + vs, "-o", "libtwo.so",
          b.src("two.c", "int t_two(void) { return 2; }\nint t_both(void) { return 2; }\n"))
    def exports(lib):
        out = b.run("nm", "-D", "--defined-only", "-j", lib).stdout.split()
        return {n.split("@")[0] for n in out}
    # The oracle: the version node's own symbol is exported by both ...
    expect("V1" in exports("libone.so") & exports("libtwo.so"), "V1 is not exported")
    # ... and a link of both does not complain about it.
    main = b.obj("main", main_calling("t_one", "t_two"))
    for linker in LINKERS:
        ok, output, _, _ = b.link(linker, [main, "libone.so", "libtwo.so"], True, "t_both")
        expect(ok, "%s: %s" % (linker, output))
    # This toolchain's ld no longer exports _end and friends; the system's
    # libraries, built by others, do: two of them that both export _end,
    # _edata, __bss_start, _init and _fini.
    libdir = "/usr/lib/" + b.run("gcc", "-print-multiarch").stdout.strip()
    want = {"_end", "_edata", "__bss_start", "_init", "_fini"}
    found = []
    for f in sorted(os.listdir(libdir)):
        path = os.path.join(libdir, f)
        if ".so" in f and not os.path.islink(path) and os.path.isfile(path) and want <= exports(path):
            found.append(path)
            if len(found) == 2:
                break
    expect(len(found) == 2, "no two libraries in %s export %s" % (libdir, sorted(want)))
    _, rep = b.dups("--all", *found)
    reported = {d["name"] for d in rep["duplicates"]}
    expect(not (reported & want), "linker names reported: %s" % sorted(reported & want))
    _, rep = b.dups("--all", "libone.so", "libtwo.so", rc=1)
    expect([d["name"] for d in rep["duplicates"]] == ["t_both"], [d["name"] for d in rep["duplicates"]])


@case
def libtorch_clash(b):
    """LibTorch and another shim provider: AOTI105 explains the tensor-ABI clash, with a fix that applies."""
    os.makedirs(os.path.join(b.root, "torch"))
    b.run("cc", "-shared", "-fPIC", "-o", "torch/libtorch_cpu.so",
          b.src("torch.c", "int aoti_torch_get_device_type(void) { return 10; }\n"
                           "int aoti_torch_torch_only(void) { return 0; }\n"))
    b.ar("libaoti_shims.a", b.obj("shim", "int aoti_torch_get_device_type(void) { return 20; }\n"
                                          "int aoti_torch_shim_only(void) { return 0; }\n"))
    main = b.obj("main", main_calling("aoti_torch_torch_only", "aoti_torch_shim_only",
                                      "aoti_torch_get_device_type"))
    _, rep = b.dups(main, "torch/libtorch_cpu.so", "libaoti_shims.a", rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(d["rule"] == "AOTI105" and d["severity"] == "error", d)
    expect("AtenTensorHandle" in d["message"] and "libtorch_cpu.so" in d["message"], d["message"])
    expect("their own names" not in d["fix"] and "link_libtorch=True" in d["fix"], d["fix"])
    # The real thing: both link into one process without a word, and one
    # implementation silently serves the other's callers.
    r = b.run("gcc", "-o", "host", main, "-Wl,--no-as-needed", "./torch/libtorch_cpu.so",
              "libaoti_shims.a", "-Wl,-rpath,$ORIGIN/torch", check=False)
    expect(r.returncode == 0, r.stderr)
    run = b.run("./host", check=False)
    expect(run.returncode == 20, "expected the archive's definition to serve main (exit %d)" % run.returncode)
    # A name LibTorch shares with no shim provider stays what it was.
    _, rep = b.dups("torch/libtorch_cpu.so", rc=0)
    expect(rep["duplicates"] == [], rep)


@case
def bad_inputs(b):
    """Unreadable inputs: a clear message and exit status 2, never a crash."""
    b.src("notes.txt", "not a binary\n")
    b.src("empty.o", "")
    b.run("cc", "-o", "tool", b.src("tool.c", "int main(void) { return 0; }\n"))
    b.src("bad.a", "!<arch>\nthis is not a member header at all\n")
    for args, msg in [(["missing.a"], "missing.a: No such file or directory"),
                      (["notes.txt"], "notes.txt: is not an ELF or Mach-O file"),
                      (["empty.o"], "empty.o: is empty"),
                      (["tool"], "tool: is an executable, not a link input"),
                      (["bad.a"], "bad.a:"),
                      (["@nolist.txt"], "nolist.txt: cannot read input list"),
                      (["--baseline", "notes.txt", "empty.o"], "notes.txt:1: not a baseline line")]:
        r, _ = b.dups(*args, rc=2)
        expect(msg in r.stderr, "dups %s: expected %r in:\n%s" % (" ".join(args), msg, r.stderr))
        expect("Stack dump" not in r.stderr, r.stderr)


@case
def prefixes_and_all(b):
    """--prefix picks the names, --all takes every extern "C" name."""
    src = "int aoti_torch_f(void) { return %d; }\nint aoti_shims_g(void) { return 0; }\n" \
          "int other_h(void) { return 0; }\n"
    b.ar("liba.a", b.obj("a", src % 0))
    b.ar("libb.a", b.obj("b", src % 1))
    names = lambda rep: [d["name"] for d in rep["duplicates"]]
    expect(names(b.dups("liba.a", "libb.a")[1]) == ["aoti_torch_f"], "default prefix")
    expect(names(b.dups("--prefix", "aoti_shims_", "--prefix", "other_", "liba.a", "libb.a")[1]) ==
           ["aoti_shims_g", "other_h"], "--prefix")
    expect(names(b.dups("--all", "liba.a", "libb.a")[1]) == ["aoti_shims_g", "aoti_torch_f", "other_h"],
           "--all")
    r, _ = b.dups("--all", "--prefix", "x", "liba.a", rc=2)


# --- baseline ------------------------------------------------------------------------

def baseline_setup(b):
    b.ar("libcpu.a", b.obj("cpu", "int aoti_torch_get_device_type(void) { return 0; }\n"
                                  "__attribute__((weak)) int aoti_torch_w(void) { return 0; }\n"))
    b.ar("libcuda.a", b.obj("cuda", "int aoti_torch_get_device_type(void) { return 1; }\n"
                                    "__attribute__((weak)) int aoti_torch_w(void) { return 1; }\n"))


@case
def baseline_round_trip(b):
    """--write-baseline records today's duplicates; --baseline then passes; rewriting is stable."""
    baseline_setup(b)
    r, _ = b.dups("--write-baseline", "known.txt", "libcuda.a", "libcpu.a", rc=0)
    lines = [l for l in open(os.path.join(b.root, "known.txt")) if not l.startswith("#")]
    expect(lines == ["AOTI101 aoti_torch_get_device_type libcpu.a(cpu.o)\n",
                     "AOTI101 aoti_torch_get_device_type libcuda.a(cuda.o)\n",
                     "AOTI103 aoti_torch_w libcpu.a(cpu.o)\n",
                     "AOTI103 aoti_torch_w libcuda.a(cuda.o)\n"], lines)
    _, rep = b.dups("--baseline", "known.txt", "libcpu.a", "libcuda.a", rc=0)
    expect(all(d["baselined"] for d in rep["duplicates"]), rep)
    expect("0 new duplicate(s), 2 known" in b.text("--baseline", "known.txt", "libcpu.a", "libcuda.a").stdout,
           "text summary")
    # The same inputs elsewhere (another build directory, another order) give the same file.
    os.makedirs(os.path.join(b.root, "elsewhere"))
    for lib in ("libcpu.a", "libcuda.a"):
        shutil.copy(os.path.join(b.root, lib), os.path.join(b.root, "elsewhere", lib))
    b.dups("--write-baseline", "again.txt", os.path.join(b.root, "elsewhere"), rc=0)
    expect(open(os.path.join(b.root, "known.txt")).read() == open(os.path.join(b.root, "again.txt")).read(),
           "the baseline depends on paths or order")


@case
def baseline_new_duplicate_fails(b):
    """A duplicate not in the baseline fails; known ones are not shown."""
    baseline_setup(b)
    b.dups("--write-baseline", "known.txt", "libcpu.a", "libcuda.a", rc=0)
    b.ar("libextra.a", b.obj("extra", "int aoti_torch_get_sizes(void) { return 0; }\n"
                                      "int aoti_torch_other(void) { return 0; }\n"),
         b.obj("extra2", "int aoti_torch_get_sizes(void) { return 1; }\n"))
    _, rep = b.dups("--baseline", "known.txt", "libcpu.a", "libcuda.a", "libextra.a", rc=1)
    new = [d["name"] for d in rep["duplicates"] if not d["baselined"]]
    expect(new == ["aoti_torch_get_sizes"], new)
    out = b.text("--baseline", "known.txt", "libcpu.a", "libcuda.a", "libextra.a").stdout
    expect("aoti_torch_get_sizes" in out and "`aoti_torch_get_device_type`" not in out, out)


@case
def baseline_new_definition_fails(b):
    """A known duplicate that gains a definition is new again."""
    baseline_setup(b)
    b.dups("--write-baseline", "known.txt", "libcpu.a", "libcuda.a", rc=0)
    b.ar("librocm.a", b.obj("rocm", "int aoti_torch_get_device_type(void) { return 2; }\n"))
    _, rep = b.dups("--baseline", "known.txt", "libcpu.a", "libcuda.a", "librocm.a", rc=1)
    d = one(rep, "aoti_torch_get_device_type")
    expect(not d["baselined"] and len(d["definitions"]) == 3, d)


@case
def baseline_fixed_duplicate(b):
    """A duplicate that went away passes and is reported as gone from the baseline."""
    baseline_setup(b)
    b.dups("--write-baseline", "known.txt", "libcpu.a", "libcuda.a", rc=0)
    b.ar("libcuda.a", b.obj("cuda", "int aoti_torch_cuda_device_type(void) { return 1; }\n"), flags="rcs")
    b.run("rm", "libcuda.a")
    b.ar("libcuda.a", "cuda.o")
    _, rep = b.dups("--baseline", "known.txt", "libcpu.a", "libcuda.a", rc=0)
    expect(rep["duplicates"] == [] and rep["stats"]["baseline_lines_gone"] == 4, rep)
    expect("4 baseline line(s) no longer found" in
           b.text("--baseline", "known.txt", "libcpu.a", "libcuda.a").stdout, "text note")


def main():
    ap = harness.parser(__doc__, audit_required=False)
    args = ap.parse_args()
    if args.list:
        return harness.list_cases(CASES)
    if not args.audit:
        ap.error("--audit is required")
    selected = harness.select(CASES, args.case)
    if selected is None:
        return 2
    audit = os.path.abspath(args.audit)
    tally = harness.Tally()
    for c in selected:
        with harness.scratch("dups-%s-" % c.__name__, keep=args.keep) as root:
            try:
                c(Build(audit, root))
                problems = []
            except Failure as e:
                problems = [e]
            tally.row(problems, "%s: %s" % (c.__name__, c.__doc__.strip()))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
