#!/usr/bin/env python3
"""AOTI015 fallback-not-implemented, against ld.so and the shims' exports.

A host links a shim library (it exports many aoti_torch_*), and each model
calls one ATen fallback op that library lacks. ld.so is the oracle that the
model fails on exactly that name. The audit must report AOTI015 for it, not
AOTI001, name the aten op, give the compile-time way around it where torch has
one, and name the provider: "aoti::shims implements it" exactly when this
build's libaoti_shims.so exports the name, which the test reads with binutils'
nm (not the llvm-nm the build used); when it does not, why, from torch
2.11's list (shims/coverage/): an op not implemented yet (with its family),
a backward op, or a name torch never emits. It also checks that the generated
share/aoti/shim-fallbacks.md lists exactly the ops the library exports. A host
with no shim library in scope keeps AOTI001.

Usage: fallback_rule.py --audit PATH [--shims libaoti_shims.so --fallbacks-md FILE]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--audit", required=True)
ap.add_argument("--shims", default="", help="this build's libaoti_shims.so")
ap.add_argument("--fallbacks-md", default="", help="the generated shim-fallbacks.md")
args = ap.parse_args()
passed = failed = 0


def expect(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, str(detail)[:1500]))


HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (!dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) { printf("FAILED %s\n", dlerror()); return 1; }
  printf("LOADED\n");
  return 0;
}
"""
# A shim library: ten aoti_torch_* exports, none of them the ops below.
SHIM_NAMES = ["aoti_torch_get_sizes", "aoti_torch_get_strides", "aoti_torch_get_dtype",
              "aoti_torch_get_device_type", "aoti_torch_get_device_index", "aoti_torch_get_storage_offset",
              "aoti_torch_empty_strided", "aoti_torch_delete_tensor_object", "aoti_torch_dtype_float32",
              "aoti_torch_device_type_cuda"]
SHIMS_C = "".join("int %s(void) { return %d; }\n" % (n, i) for i, n in enumerate(SHIM_NAMES))

# name -> (aten op, what the fix must say besides the provider)
OPS = {
    "aoti_torch_cuda_convolution": ("convolution", 'max_autotune_conv_backends": "TRITON"'),
    "aoti_torch_cuda_mm_out": ("mm_out", 'max_autotune_gemm_backends": "TRITON"'),
    "aoti_torch_cuda_addmm_out": ("addmm_out", 'max_autotune_gemm_backends": "TRITON"'),
    "aoti_torch_cuda_bmm_out": ("bmm_out", 'max_autotune_gemm_backends": "TRITON"'),
    "aoti_torch_cuda__scaled_dot_product_efficient_attention":
        ("_scaled_dot_product_efficient_attention", "sdpa_kernel(torch.nn.attention.SDPBackend.MATH)"),
    "aoti_torch_cpu_cummax": ("cummax", None),
}


def exported_fallbacks(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if re.search(r" aoti_torch_(cpu|cuda)_\w+$", l)}


ours = exported_fallbacks(args.shims) if args.shims else None

# torch 2.11's list (shims/coverage/torch-2.11.tsv): symbol -> (kind, op).
TORCH_TSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shims", "coverage",
                         "torch-2.11.tsv")
torch_list = {}
for line in open(TORCH_TSV):
    if not line.startswith("#"):
        f = line.rstrip("\n").split("\t")
        torch_list[f[0]] = (f[3], f[2])
families = dict(line.rstrip("\n").split("\t") for line in open(os.path.join(os.path.dirname(TORCH_TSV),
                                                                         "families.tsv"))
                if not line.startswith("#"))
# What the fix says of a name aoti::shims lacks, by what torch's list says of it.
WHY = {}
if ours is not None:
    open_ops = sorted(s for s, (k, _) in torch_list.items() if k == "forward" and s not in ours)
    if open_ops:
        name = open_ops[0]
        op = torch_list[name][1]
        OPS[name] = (op, None)
        WHY[name] = "does not implement it yet (it is in torch 2.11's list, op family `%s`" % families[op]
    OPS["aoti_torch_cuda_convolution_backward"] = ("convolution_backward", None)
    WHY["aoti_torch_cuda_convolution_backward"] = "computes a gradient, which aoti::shims leaves out"
    OPS["aoti_torch_cuda_frobnicate"] = ("frobnicate", None)
    WHY["aoti_torch_cuda_frobnicate"] = "torch 2.11's fallback list has no `aoti_torch_cuda_frobnicate`"

d = tempfile.mkdtemp(prefix="aoti-fallback-")
try:
    def sh(*cmd):
        subprocess.run(cmd, cwd=d, check=True, capture_output=True)

    open(os.path.join(d, "host.c"), "w").write(HOST_C)
    open(os.path.join(d, "shims.c"), "w").write(SHIMS_C)
    open(os.path.join(d, "two.c"), "w").write(SHIMS_C.split("\n")[0] + "\n")
    os.makedirs(os.path.join(d, "lib"))
    os.makedirs(os.path.join(d, "few"))
    sh("gcc", "-shared", "-fPIC", "shims.c", "-o", "lib/libshimlike.so")
    sh("gcc", "-shared", "-fPIC", "two.c", "-o", "few/libshimlike.so")
    sh("gcc", "host.c", "-o", "host", "-Llib", "-Wl,--no-as-needed", "-lshimlike",
       "-Wl,-rpath," + os.path.join(d, "lib"), "-ldl")
    sh("gcc", "host.c", "-o", "host_few", "-Lfew", "-Wl,--no-as-needed", "-lshimlike",
       "-Wl,-rpath," + os.path.join(d, "few"), "-ldl")

    for name, (op, way) in OPS.items():
        src = "int aoti_torch_get_sizes(void); int %s(void);\n" \
              "int run(void) { return aoti_torch_get_sizes() + %s(); }\n" % (name, name)
        open(os.path.join(d, name + ".c"), "w").write(src)
        model = os.path.join(d, name + ".so")
        sh("gcc", "-shared", "-fPIC", name + ".c", "-o", model)
        real = subprocess.run([os.path.join(d, "host"), model], capture_output=True, text=True).stdout
        expect("%s: ld.so fails on exactly it" % name, "undefined symbol: %s" % name in real, real)

        r = subprocess.run([args.audit, "check", "--host", os.path.join(d, "host"), "--format", "json", model],
                           capture_output=True, text=True)
        rep = json.loads(r.stdout) if r.stdout else {"findings": [], "plugins": [{"symbols": []}]}
        expect("%s: exits 1" % name, r.returncode == 1, r.stderr)
        mine = [f for f in rep["findings"] if f["symbol"] == name]
        expect("%s: one finding, AOTI015" % name, [f["rule"] for f in mine] == ["AOTI015"], mine)
        sym = [s for s in rep["plugins"][0]["symbols"] if s["name"] == name]
        expect("%s: reason fallback-not-implemented" % name,
               sym and sym[0]["status"] == "missing" and sym[0].get("reason") == "fallback-not-implemented", sym)
        if not mine:
            continue
        f = mine[0]
        expect("%s: names the op and the library" % name, "`%s`" % op in f["message"]
               and "libshimlike.so" in f["message"] and "does not implement" in f["message"], f["message"])
        if way:
            expect("%s: the compile-time way" % name, way in f["fix"], f["fix"])
        if ours is not None:
            if name in ours:
                expect("%s: aoti::shims implements it (nm says so)" % name,
                       "aoti::shims implements it" in f["fix"], f["fix"])
            else:
                expect("%s: no known provider (nm says aoti::shims lacks it)" % name,
                       "no known provider implements it" in f["fix"], f["fix"])
                if name in WHY:
                    expect("%s: why, from torch's list" % name, WHY[name] in f["fix"], f["fix"])

        # No shim library in scope: the old answer stands.
        r = subprocess.run([args.audit, "check", "--host", os.path.join(d, "host_few"), "--format", "json", model],
                           capture_output=True, text=True)
        rep = json.loads(r.stdout)
        expect("%s: without a shim library in scope, AOTI001" % name,
               [f["rule"] for f in rep["findings"] if f["symbol"] == name] == ["AOTI001"], rep["findings"])

    # Not a fallback op (shim.h's device API) keeps AOTI001 even with shims in scope.
    open(os.path.join(d, "guard.c"), "w").write(
        "int aoti_torch_cuda_guard_set_index(void); int g(void) { return aoti_torch_cuda_guard_set_index(); }\n")
    sh("gcc", "-shared", "-fPIC", "guard.c", "-o", "guard.so")
    r = subprocess.run([args.audit, "check", "--host", os.path.join(d, "host"), "--format", "json",
                        os.path.join(d, "guard.so")], capture_output=True, text=True)
    rep = json.loads(r.stdout)
    expect("guard_set_index is no fallback op: AOTI001", [f["rule"] for f in rep["findings"]] == ["AOTI001"],
           rep["findings"])
finally:
    shutil.rmtree(d, ignore_errors=True)

# The generated table lists exactly the ops the library exports.
if args.fallbacks_md and ours is not None:
    rows = set(re.findall(r"^\| (?:cpu|cuda) \| [a-z_]* \| `[^`]*` \| `(aoti_torch_\w+)` \|$",
                          open(args.fallbacks_md).read(), re.M))
    non_ops = {n for n in ours if re.match(r"aoti_torch_cuda_(guard_set_index|caching_allocator_)", n)}
    expect("shim-fallbacks.md lists exactly the exported ops", rows == ours - non_ops,
           "only in the table: %s; only exported: %s" % (sorted(rows - ours), sorted(ours - non_ops - rows)))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
