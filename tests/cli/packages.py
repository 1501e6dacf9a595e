#!/usr/bin/env python3
"""aoti-audit check on .pt2 packages and directories of them.

A .pt2 (what torch._inductor.aoti_compile_and_package writes) is a zip whose
model folders hold the model libraries. Each case packs real shared libraries,
built here with the real compiler and linker, into real zips (deflated, as
torch writes them), and the oracle is ld.so: every member, extracted the way
aoti-run extracts it, is dlopen()ed by a real host. The audit of the package
must give each member the loader's verdict, under the name
PACKAGE.pt2!path/inside.so in text, JSON and SARIF alike; a directory stands
for every .pt2 under it; what is not a model package exits 2. The audit reads
members in memory: it runs with TMPDIR pointing nowhere.

Usage: packages.py --audit PATH
"""
import json
import os
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402

HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("FAILED %s\n", dlerror()); return 1; }
  printf("LOADED\n");
  return 0;
}
"""
SHIMS_C = "int aoti_torch_get_sizes(void *t, long **s) { (void)t; *s = 0; return 0; }\n" \
          "int aoti_torch_dtype_float32(void) { return 6; }\n"
GOOD_C = "int aoti_torch_get_sizes(void *, long **); int aoti_torch_dtype_float32(void);\n" \
         "int run(void) { long *s; return aoti_torch_get_sizes(0, &s) + aoti_torch_dtype_float32(); }\n"
BAD_C = GOOD_C + "int aoti_torch_nothing(void); int more(void) { return aoti_torch_nothing(); }\n"

args = harness.parser(__doc__, cases=False).parse_args()
checks = harness.Checks()


def expect(name, cond, detail=""):
    return checks(name, cond, str(detail)[:2000])


with harness.scratch("aoti-packages-") as d:
    w = harness.Workdir(d)

    for name, src in (("host.c", HOST_C), ("shims.c", SHIMS_C), ("good.c", GOOD_C), ("bad.c", BAD_C)):
        w.write(name, src)
    w.run("gcc", "-c", "-fPIC", "shims.c", "-o", "shims.o")
    w.run("ar", "rcs", "libshims.a", "shims.o")
    w.run("gcc", "-rdynamic", "host.c", "-o", "host", "-Wl,--whole-archive", "libshims.a",
          "-Wl,--no-whole-archive", "-ldl")
    w.run("gcc", "-shared", "-fPIC", "good.c", "-o", "good.so")
    w.run("gcc", "-shared", "-fPIC", "bad.c", "-o", "bad.so")
    host = os.path.join(d, "host")

    os.makedirs(os.path.join(d, "models", "sub"))
    one = os.path.join(d, "models", "one.pt2")
    two = os.path.join(d, "models", "sub", "two.pt2")
    # torch's layout: <archive name>/data/aotinductor/<model name>/<hash>.so
    members = {
        one: {"one/data/aotinductor/model/cgood.so": "good.so"},
        two: {"two/data/aotinductor/a/ca.so": "good.so", "two/data/aotinductor/b/cb.so": "bad.so"},
    }
    for pkg, files in members.items():
        with zipfile.ZipFile(pkg, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(os.path.basename(pkg)[:-4] + "/version", "1\n")
            for inside, built in files.items():
                z.write(os.path.join(d, built), inside)
                z.writestr(inside[:-3] + "_metadata.json", "{}")

    # The oracle: each member extracted, as aoti-run does, and dlopen()ed.
    truth = {}
    for pkg, files in members.items():
        for inside in files:
            out = os.path.join(d, "extracted", inside)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with zipfile.ZipFile(pkg) as z, open(out, "wb") as f:
                f.write(z.read(inside))
            r = harness.run([host, out], check=False)
            truth[pkg + "!" + inside] = "LOADED" in r.stdout
    expect("oracle: the good models load, the bad one does not",
           truth == {one + "!one/data/aotinductor/model/cgood.so": True,
                     two + "!two/data/aotinductor/a/ca.so": True,
                     two + "!two/data/aotinductor/b/cb.so": False}, truth)

    env = dict(os.environ, TMPDIR=os.path.join(d, "no-such-dir"))

    def audit(*argv):
        return w.run(args.audit, *argv, check=False, env=env)

    def report(*plugins):
        r = audit("check", "--host", host, "--format", "json", *plugins)
        try:
            return r.returncode, json.loads(r.stdout), r.stderr
        except ValueError:
            return r.returncode, None, r.stderr

    # One package, one model.
    rc, rep, err = report(one)
    expect("one.pt2: exits 0", rc == 0, err)
    if rep:
        p = rep["plugins"]
        expect("one.pt2: one model, named PACKAGE!MEMBER", [x["path"] for x in p] ==
               [one + "!one/data/aotinductor/model/cgood.so"], p)
        expect("one.pt2: package and member fields", p and p[0].get("package") == one and
               p[0].get("member") == "one/data/aotinductor/model/cgood.so", p)
        expect("one.pt2: shims bound to the host", p and all(
            s["status"] == "bound" and os.path.realpath(s["provider"]) == os.path.realpath(host)
            for s in p[0]["symbols"]) and len(p[0]["symbols"]) == 2, p)

    # Two models in one package: each gets the loader's verdict.
    rc, rep, err = report(two)
    expect("two.pt2: exits 1", rc == 1, err)
    if rep:
        got = {x["path"]: x["loads"] for x in rep["plugins"]}
        want = {k: v for k, v in truth.items() if k.startswith(two)}
        expect("two.pt2: every model, the loader's verdicts", got == want, got)
        bad = two + "!two/data/aotinductor/b/cb.so"
        expect("two.pt2: the finding names the member", any(
            f["plugin"] == bad and f["symbol"] == "aoti_torch_nothing" and f["rule"] == "AOTI001"
            for f in rep["findings"]), rep["findings"])
        expect("two.pt2: each plugin names its model", sorted(
            (x["member"], x.get("model")) for x in rep["plugins"]) ==
            [("two/data/aotinductor/a/ca.so", "a"), ("two/data/aotinductor/b/cb.so", "b")],
            rep["plugins"])
        expect("two.pt2: no finding for the good member", not any(
            f["plugin"] != bad for f in rep["findings"]), rep["findings"])

    r = audit("check", "--host", host, two)
    expect("text names the member", "plugin %s!two/data/aotinductor/b/cb.so: fails to load" % two in r.stdout
           and "plugin %s!two/data/aotinductor/a/ca.so: OK, loads" % two in r.stdout, r.stdout)

    r = audit("check", "--host", host, "--format", "sarif", two)
    try:
        results = json.loads(r.stdout)["runs"][0]["results"]
    except (ValueError, KeyError, IndexError):
        results = None
    expect("sarif: the member's findings carry its name", results and all(
        x["properties"]["plugin"] == two + "!two/data/aotinductor/b/cb.so" for x in results), r.stdout[:800])

    # A directory: every .pt2 under it, sorted; plain .so files beside them too.
    rc, rep, err = report(os.path.join(d, "models"), os.path.join(d, "good.so"))
    if rep:
        got = [x["path"] for x in rep["plugins"]]
        expect("directory: every package's models in path order, then the plain .so",
               got == sorted(truth) + [os.path.join(d, "good.so")], got)
        expect("directory: the loader's verdicts",
               all(x["loads"] == truth.get(x["path"], True) for x in rep["plugins"]), rep["plugins"])
        expect("directory: a plain .so has no package field",
               "package" not in rep["plugins"][-1], rep["plugins"][-1])
    else:
        expect("directory: JSON", False, err)

    # link --plugin takes the same: what every model in the package needs is
    # required of the link line, named by member. The line links no shims, so
    # the real linker's verdict does not matter; the required names do.
    w.write("main.c", "int main(void) { return 0; }\n")
    w.run("gcc", "-c", "main.c", "-o", "main.o")
    r = audit("link", "--no-driver-query", "--format", "json", "--plugin", two, "--",
              "gcc", "main.o", "-o", "runner")
    try:
        lrep = json.loads(r.stdout)
        links = lrep["links"][0]
    except (ValueError, KeyError, IndexError):
        links = None
    expect("link --plugin two.pt2: required from each member", links is not None and links.get("required_from") ==
           [two + "!two/data/aotinductor/a/ca.so", two + "!two/data/aotinductor/b/cb.so"], r.stdout[:1500] + r.stderr)
    r_so = audit("link", "--no-driver-query", "--format", "json", "--plugin", os.path.join(d, "bad.so"), "--",
                 "gcc", "main.o", "-o", "runner")
    same = "aoti_torch_nothing" in r.stdout and "aoti_torch_nothing" in r_so.stdout
    expect("link --plugin two.pt2 requires what the extracted bad.so requires", same, r.stdout[:800])

    # What is not a model package is refused, naming it (exit 2).
    nomodel = os.path.join(d, "nomodel.pt2")
    with zipfile.ZipFile(nomodel, "w") as z:
        z.writestr("x/data/aotinductor/model/weights.blob", "0")
    truncated = os.path.join(d, "truncated.pt2")
    data = open(two, "rb").read()
    open(truncated, "wb").write(data[:len(data) // 2])
    notelf = os.path.join(d, "notelf.pt2")
    with zipfile.ZipFile(notelf, "w") as z:
        z.writestr("x/data/aotinductor/model/m.so", "not a library")
    # A .so outside data/aotinductor/<model>/ is no model library.
    outside = os.path.join(d, "outside.pt2")
    with zipfile.ZipFile(outside, "w") as z:
        z.write(os.path.join(d, "good.so"), "x/lib/good.so")
    # Two roots that each give a model named "model": which is meant is ambiguous.
    tworoots = os.path.join(d, "tworoots.pt2")
    with zipfile.ZipFile(tworoots, "w") as z:
        z.write(os.path.join(d, "good.so"), "a/data/aotinductor/model/ca.so")
        z.write(os.path.join(d, "good.so"), "b/data/aotinductor/model/cb.so")
    # A deflated library whose directory declares 4 GiB - 16: more than deflate
    # can make of its few compressed bytes, refused before any allocation.
    bomb = os.path.join(d, "bomb.pt2")
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(os.path.join(d, "good.so"), "x/data/aotinductor/model/m.so")
    data = bytearray(open(bomb, "rb").read())
    for sig, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        i = data.find(sig)
        data[i + at:i + at + 4] = (0xFFFFFFF0).to_bytes(4, "little")
    open(bomb, "wb").write(bytes(data))
    empty = os.path.join(d, "empty-dir")
    os.makedirs(empty)
    for name, path, says in (("zip without a .so", nomodel, "not an AOTInductor package"),
                             (".so outside a model folder", outside, "not an AOTInductor package"),
                             ("two roots", tworoots, "two folders hold a model named model"),
                             ("declared size past deflate's", bomb,
                              "bomb.pt2!x/data/aotinductor/model/m.so: declares 4294967280 bytes"),
                             ("truncated zip", truncated, "truncated.pt2"),
                             ("member that is not ELF", notelf, "notelf.pt2!x/data/aotinductor/model/m.so"),
                             ("directory without packages", empty, "without a .pt2")):
        r = audit("check", "--host", host, path)
        expect("%s exits 2" % name, r.returncode == 2, "rc=%d %s" % (r.returncode, r.stdout))
        expect("%s says why" % name, says in r.stderr, r.stderr)

sys.exit(checks.finish())
