#!/usr/bin/env python3
"""aoti-audit check on real AOTInductor models (torch 2.11, made on an H200).

aoti-run links the project's shims with aoti::shims_static: every aoti_torch_*
a LibTorch-free model needs must be bound, exactly once, to aoti-run itself.
The LibTorch-linked build must instead fail: its libtorch*.so are not here.
With --all, the models' other needs are checked against this machine: the
models were built against glibc 2.38, so on an older glibc the audit must
say "version `GLIBC_2.38' not found", as ld.so would."""
import glob
import json
import os
import platform
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402

ap = harness.parser(__doc__, cases=False)
ap.add_argument("--host", required=True)
ap.add_argument("--models", required=True)
ap.add_argument("--cuda", choices=["ON", "OFF"], required=True,
                help="whether the host was built with the CUDA runtime")
args = ap.parse_args()
expect = harness.Checks()


def check(*extra):
    r = harness.run([args.audit, "check", "--host", args.host, "--format", "json", *extra],
                    check=False)
    return r.returncode, json.loads(r.stdout) if r.stdout else None


host = os.path.realpath(args.host)
free = [m for m in sorted(glob.glob(os.path.join(args.models, "*", "*.so")))
        if "linked" not in m]
expect("fixtures present", len(free) >= 3, str(free))
for m in free:
    name = os.path.basename(os.path.dirname(m))
    rc, rep = check(m)
    syms = rep["plugins"][0]["symbols"]
    # This machine may lack what the model needs beyond the shims (a newer
    # glibc, the driver's libcuda.so.1): the audit must say so, and nothing
    # else may be wrong.
    others = [f for f in rep["findings"] if f["severity"] == "error"
              and not (f["rule"] == "AOTI007" and "GLIBC_" in f["message"])
              and not (f["rule"] == "AOTI008" and "libcuda.so" in f["message"])]
    expect("%s: no error but the machine's glibc/driver" % name, not others, json.dumps(others[:2]))
    expect("%s: exit status" % name, rc == (1 if rep["findings"] else 0), str(rc))
    expect("%s: needs shims" % name, len(syms) >= 20, str(len(syms)))
    bad = [s["name"] for s in syms
           if s["status"] != "bound" or os.path.realpath(s["provider"]) != host]
    expect("%s: every shim bound to aoti-run" % name, not bad, str(bad))

    rc, rep = check("--all", m)
    rules = {f["rule"] for f in rep["findings"]}
    glibc = tuple(int(x) for x in platform.libc_ver()[1].split(".")[:2])
    if glibc < (2, 38):
        expect("%s: --all finds GLIBC_2.38" % name,
               any(f["rule"] == "AOTI007" and "GLIBC_2.38" in f["message"] for f in rep["findings"]),
               str(rules))
    cuda = [s for s in rep["plugins"][0]["symbols"] if s["name"].startswith("cuda")]
    if args.cuda == "ON":
        expect("%s: cuda* runtime symbols bound" % name,
               cuda and all(s["status"] == "bound" for s in cuda),
               str([(s["name"], s["status"]) for s in cuda][:3]))
    else:
        # A runner built without CUDA cannot run a CUDA model: the audit says so.
        expect("%s: cuda* runtime symbols missing from a CPU-only host" % name,
               cuda and all(s["status"] == "missing" for s in cuda) and rc == 1,
               str([(s["name"], s["status"]) for s in cuda][:3]))

# The same models packed as aoti_compile_and_package packs them (a .pt2 zip
# with the library in <name>/data/aotinductor/model/): each package must get
# the verdict of its library, under the name PACKAGE.pt2!MEMBER.
with harness.scratch("aoti-real-models-") as d:
    for m in free:
        name = os.path.basename(os.path.dirname(m))
        pkg = os.path.join(d, name + ".pt2")
        member = "%s/data/aotinductor/model/%s" % (name, os.path.basename(m))
        with zipfile.ZipFile(pkg, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(glob.glob(os.path.join(os.path.dirname(m), "*"))):
                z.write(f, "%s/data/aotinductor/model/%s" % (name, os.path.basename(f)))
        rc_so, rep_so = check(m)
        rc_pkg, rep_pkg = check(pkg)
        p = rep_pkg["plugins"] if rep_pkg else []
        expect("%s.pt2: one model, named PACKAGE!MEMBER" % name,
               [x["path"] for x in p] == [pkg + "!" + member], [x["path"] for x in p])
        expect("%s.pt2: the verdict of its library" % name, rc_pkg == rc_so and p and
               p[0]["loads"] == rep_so["plugins"][0]["loads"] and
               [(s["name"], s["status"]) for s in p[0]["symbols"]] ==
               [(s["name"], s["status"]) for s in rep_so["plugins"][0]["symbols"]], str(rc_pkg))
    rc, rep = check(d)
    expect("a directory of the packages: every model", rep and len(rep["plugins"]) == len(free), str(rc))

linked = glob.glob(os.path.join(args.models, "mlp-linked", "*.so"))
if linked:
    rc, rep = check(linked[0])
    expect("libtorch-linked model fails here", rc == 1 and
           any(f["rule"] == "AOTI008" and "libtorch" in f["message"] for f in rep["findings"]),
           json.dumps(rep["findings"][:1]))
sys.exit(expect.finish())
