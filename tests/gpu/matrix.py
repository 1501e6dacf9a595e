"""The link agreement matrix: does aoti-audit predict what really happens?

    python3 matrix.py MODELS_DIR CARRY OUT_DIR

For each way of building the runner (built on the CPU machine into
CARRY/bin, except the LibTorch row, linked here where LibTorch is), this runs

  * aoti-audit check --host RUNNER --all --format json MODEL.so
  * RUNNER MODEL.so ...               (the backend's own symbol check first)
  * LD_DEBUG=bindings RUNNER --no-precheck MODEL.so ...  (what ld.so does)

and compares: the load verdict, the set of missing symbols (audit against
the backend's check, and dlopen's first complaint), and for every symbol the
model bound, the provider the audit says wins against the one LD_DEBUG shows.
A row agrees when all three do. Exits 1 unless every row agrees.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROWS = [
    ("right", "aoti-run", "whole-archive shims, --export-dynamic, shared cudart"),
    ("no-whole-archive", "aoti-run-no-whole-archive", "plain archive: unreferenced members dropped"),
    ("no-export-dynamic", "aoti-run-no-export-dynamic", "shims defined but not in .dynsym"),
    ("static-cudart", "aoti-run-static-cudart", "cudart_static, --exclude-libs: cuda* not exported"),
    ("dup-ahead", "aoti-run-dup-ahead", "libbackend_dup_shim.so ahead of libaoti_shims.so"),
    ("dup-behind-exe", "aoti-run-dup-behind-exe", "the same library beside exported shims"),
    ("libtorch-ahead", "aoti-run-libtorch", "libtorch_cpu/cuda linked ahead of libaoti_shims.so"),
]

BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")


def sh(cmd, env=None, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def real(p):
    return os.path.realpath(p) if p else p


def link_libtorch_runner(carry, out):
    """The LibTorch row: LibTorch's libraries ahead of the shared shims."""
    try:
        import torch  # only for its library directory
    except ImportError as e:
        return 1, f"no LibTorch here: {e}"
    tl = os.path.join(os.path.dirname(torch.__file__), "lib")
    cudalib = "/usr/local/cuda/targets/x86_64-linux/lib"
    obj = os.path.join(carry, "obj")
    # aoti-run-partial.o is aoti-run's objects with the backend, the audit
    # library and the LLVM members it uses, pre-linked (ld -r) on the CPU
    # machine: LLVM's archives are not on this one.
    cmd = ["g++", "-o", out, f"{obj}/aoti-run-partial.o", "-l:libzstd.so.1", "-l:libz.so.1",
           "-Wl,--no-as-needed", f"-L{tl}", "-ltorch_cpu", "-ltorch_cuda", "-lc10_cuda", "-lc10",
           f"{carry}/lib/libaoti_shims.so.0", "-Wl,--as-needed", f"{carry}/lib/libzip.so.4",
           f"-L{cudalib}", "-lcudart", "-ldl", f"-Wl,-rpath,{tl}", "-Wl,--allow-shlib-undefined"]
    rc, o, e = sh(cmd)
    return rc, (o + e)[-2000:]


def missing_from_message(msg):
    # "  name" or "  name (version V)" lines after "... not defined in this process:"
    names = set()
    if "not defined in this process" in msg:
        for line in msg.split("\n")[1:]:
            if line.startswith("  "):
                names.add(line.strip().split(" ")[0])
    return names


def main():
    models_dir, carry, out_dir = sys.argv[1:4]
    model_dir = os.path.join(models_dir, "mlp")
    (so,) = glob.glob(os.path.join(model_dir, "pkg", "*", "data", "aotinductor", "model", "*.so"))
    so = real(so)
    info = json.load(open(os.path.join(model_dir, "info.json")))
    run_args = ["-i", f"{model_dir}/in_0.npy", "-e", f"{model_dir}/expect_0.npy",
                "--rtol", str(info["rtol"]), "--atol", str(info["atol"]), "--format", "json"]
    audit = os.path.join(carry, "bin", "aoti-audit")
    ldp = os.environ.get("LD_LIBRARY_PATH", "")
    env = dict(os.environ)
    bindir = "/tmp/aoti-matrix-bin"
    os.makedirs(bindir, exist_ok=True)
    lt_rc, lt_log = link_libtorch_runner(carry, os.path.join(bindir, "aoti-run-libtorch"))

    table, report = [], []
    for row, exe, what in ROWS:
        runner = os.path.join(bindir if row == "libtorch-ahead" else os.path.join(carry, "bin"), exe)
        r = {"row": row, "runner": runner, "what": what}
        if not os.path.exists(runner):
            r["error"] = "runner not built" + (f": {lt_log}" if row == "libtorch-ahead" else "")
            r["agree"] = False
            report.append(r)
            continue
        # 1. The prediction.
        arc, aout, aerr = sh([audit, "check", "--host", runner, "--all", "--format", "json",
                              "--env", f"LD_LIBRARY_PATH={ldp}", so])
        r["audit_rc"] = arc
        try:
            adoc = json.loads(aout)
        except json.JSONDecodeError:
            r["error"] = f"audit output is not JSON (rc {arc}): {aerr[-800:]}"
            r["agree"] = False
            report.append(r)
            continue
        syms = {s["name"]: s for p in adoc["plugins"] for s in p["symbols"]}
        # Every non-weak reference must bind ("required" in the JSON marks the
        # --prefix names that must also have exactly one provider).
        a_missing = {n for n, s in syms.items() if s["status"] in ("missing", "version-mismatch")}
        a_ambiguous = {n: s.get("provider") for n, s in syms.items() if s["status"] == "ambiguous"}
        a_loads = not a_missing
        r["audit"] = {"loads": a_loads, "missing": sorted(a_missing), "ambiguous": a_ambiguous,
                      "findings": [(f["rule"], f["severity"], f.get("symbol")) for f in adoc.get("findings", [])]}

        # 2. The backend's own check, then a full run.
        rc, out, err = sh([runner, so] + run_args, env=env)
        try:
            doc = json.loads(out)
        except json.JSONDecodeError:
            doc = {"status": "crash", "error": {"message": err[-800:]}}
        msg = doc.get("error", {}).get("message", "")
        b_missing = missing_from_message(msg)
        r["backend"] = {"rc": rc, "status": doc.get("status"), "missing": sorted(b_missing),
                        "message": msg[:600]}

        # 3. What ld.so does, without the backend's check.
        dbg = os.path.join("/tmp", f"ld-debug-{row}")
        for f in glob.glob(dbg + ".*"):
            os.remove(f)
        denv = dict(env, LD_DEBUG="bindings", LD_DEBUG_OUTPUT=dbg)
        drc, dout, derr = sh([runner, so, "--no-precheck"] + run_args, env=denv)
        try:
            ddoc = json.loads(dout)
        except json.JSONDecodeError:
            ddoc = {"status": "crash", "error": {"message": derr[-800:]}}
        dmsg = ddoc.get("error", {}).get("message", "")
        m = re.search(r"undefined symbol: (\S+?)(,|$| )", dmsg)
        dl_failed = "dlopen failed" in dmsg
        bound = {}
        for f in glob.glob(dbg + ".*"):
            with open(f, errors="replace") as fh:
                for line in fh:
                    if "binding file " + so not in line:
                        continue
                    b = BINDING.search(line)
                    if b and real(b.group(1)) == so:
                        bound.setdefault(b.group(3), real(b.group(2)))
            os.remove(f)
        r["ld_so"] = {"rc": drc, "status": ddoc.get("status"), "dlopen_failed": dl_failed,
                      "undefined": m.group(1) if m else None, "bound": len(bound)}
        real_loads = not dl_failed and doc.get("status") not in ("crash",) and \
            doc.get("error", {}).get("kind") not in ("missing symbols", "load failed")

        # 4. Agreement.
        disagree = {}
        for name, provider in bound.items():
            s = syms.get(name)
            if s is None:  # the model's own definitions
                continue
            want = real(s.get("provider"))
            if want != provider:
                disagree[name] = {"audit": want, "ld.so": provider}
        verdict_ok = a_loads == real_loads
        missing_ok = a_missing == b_missing and (m is None or m.group(1) in a_missing)
        providers_ok = not disagree
        r["agree"] = verdict_ok and missing_ok and providers_ok
        r["checks"] = {"verdict": verdict_ok, "missing": missing_ok, "providers": providers_ok,
                       "provider_disagreements": dict(list(disagree.items())[:10])}
        dup = "aoti_torch_dtype_float32"
        r["dtype_float32_provider"] = {"audit": real(syms.get(dup, {}).get("provider")), "ld.so": bound.get(dup)}
        report.append(r)

    with open(os.path.join(out_dir, "matrix.json"), "w") as f:
        json.dump(report, f, indent=1)

    def short(p):
        return os.path.basename(p) if p else "-"

    print(f"{'row':17} {'audit':>5} {'predicts':9} {'miss':>4} {'amb':>3} | {'backend':8} {'miss':>4} "
          f"{'dlopen says':28} {'run':>4} | {'bound':>5} {'diff':>4} | {'dtype_float32 from (audit / ld.so)':44} agree")
    for r in report:
        if "audit" not in r:
            print(f"{r['row']:17} ERROR {r.get('error', '')[:150]}")
            continue
        a, b, l = r["audit"], r["backend"], r["ld_so"]
        dup = r["dtype_float32_provider"]
        print(f"{r['row']:17} {r['audit_rc']:>5} {'loads' if a['loads'] else 'fails':9} {len(a['missing']):>4} "
              f"{len(a['ambiguous']):>3} | {b['status'] or '-':8} {len(b['missing']):>4} "
              f"{(l['undefined'] or ('ok' if not l['dlopen_failed'] else '?'))[:28]:28} {b['rc']:>4} | "
              f"{l['bound']:>5} {len(r['checks']['provider_disagreements']):>4} | "
              f"{short(dup['audit']) + ' / ' + short(dup['ld.so']):44} {'yes' if r['agree'] else 'NO'}")
    for r in report:
        if not r.get("agree"):
            print(f"--- {r['row']} disagrees: {json.dumps(r.get('checks', r.get('error')))[:1500]}")
            if "audit" in r:
                print(f"    audit missing: {r['audit']['missing']}\n    backend missing: {r['backend']['missing']}"
                      f"\n    backend message: {r['backend']['message'][:400]}")
    n = sum(1 for r in report if r.get("agree"))
    print(f"{n}/{len(report)} rows agree")
    sys.exit(0 if n == len(report) else 1)


if __name__ == "__main__":
    main()
