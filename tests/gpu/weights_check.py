"""Where a real model's weights are, and Fortran-order files, through aoti-run.

    python3 weights_check.py AOTI_RUN OUT_DIR [--device cuda|cpu]

Exports the mlp of models.py LibTorch-free four ways and runs each through
aoti-run against eager results:

  in_so        package_constants_in_so=True            runs, matches (exit 0)
  binary_blob  package_constants_in_so=False, "binary_blob"  runs, matches (0)
  no_weights   package_constants_in_so=False, no format   refused (exit 2,
               "the model's weights are missing", the FQNs, the hint)
  pickled      package_constants_in_so=False, "pickle_weights"  refused (2,
               "pickled under data/weights/")

and the in_so model with its input and expectation saved in Fortran order
(np.asfortranarray; the expectation transposed and saved as .T of a
C-order array). Records each package's file list. Writes OUT_DIR/weights_check.json; exits 1 if any case fails.
"""
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402

FREE = {"aot_inductor.link_libtorch": False}
VARIANTS = {
    "in_so": {**FREE, "aot_inductor.package_constants_in_so": True},
    "binary_blob": {**FREE, "aot_inductor.package_constants_in_so": False,
                    "aot_inductor.package_constants_on_disk_format": "binary_blob"},
    "no_weights": {**FREE, "aot_inductor.package_constants_in_so": False},
    "pickled": {**FREE, "aot_inductor.package_constants_in_so": False,
                "aot_inductor.package_constants_on_disk_format": "pickle_weights"},
}
WANT = {
    "in_so": (0, "result: ok"),
    "binary_blob": (0, "result: ok"),
    "no_weights": (2, "the model's weights are missing"),
    "pickled": (2, "pickled under data/weights/"),
}


def main():
    aoti_run, out_dir = sys.argv[1], sys.argv[2]
    device = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--device" else "cuda"
    os.makedirs(out_dir, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    m, inputs, dyn, _ = models.build("mlp")
    m = m.to(device).eval()
    inputs = tuple(t.to(device) for t in inputs)
    results, failures = [], 0
    with torch.no_grad():
        ep = torch.export.export(m, inputs, dynamic_shapes=dyn)
        want = m(*inputs)
    x = inputs[0].cpu().numpy()
    y = want.cpu().numpy()
    np.save(f"{out_dir}/x.npy", x)
    np.save(f"{out_dir}/y.npy", y)
    np.save(f"{out_dir}/x_fortran.npy", np.asfortranarray(x))
    np.save(f"{out_dir}/y_fortran.npy", np.ascontiguousarray(y.T).T)  # x.T of a C array
    fqns = [n for n, _ in m.named_parameters()]

    def check(case, cmd, want_rc, want_texts):
        nonlocal failures
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        text = p.stdout + p.stderr
        ok = p.returncode == want_rc and all(t in text for t in want_texts)
        failures += not ok
        results.append({"case": case, "rc": p.returncode, "want_rc": want_rc, "ok": ok,
                        "want": want_texts, "output": text[-2000:]})
        print(f"{'ok  ' if ok else 'FAIL'} {case}: exit {p.returncode}")

    for variant, cfg in VARIANTS.items():
        path = os.path.join(out_dir, f"{variant}.pt2")
        try:
            torch._inductor.aoti_compile_and_package(ep, package_path=path, inductor_configs=cfg)
        except Exception as e:  # an option torch refuses is a result too
            results.append({"case": variant, "ok": False, "error": f"export failed: {e}"})
            failures += 1
            continue
        rc, text = WANT[variant]
        texts = [text] + ([fqns[0], "package_constants_in_so=True", "binary_blob"]
                          if rc == 2 else [])
        check(variant, [aoti_run, path, "-i", f"{out_dir}/x.npy", "-e", f"{out_dir}/y.npy",
                        "--rtol", "1e-4", "--atol", "1e-4"], rc, texts)
        with zipfile.ZipFile(path) as z:
            results[-1]["files"] = z.namelist()
    check("fortran-order input and expectation",
          [aoti_run, os.path.join(out_dir, "in_so.pt2"), "-i", f"{out_dir}/x_fortran.npy",
           "-e", f"{out_dir}/y_fortran.npy", "--rtol", "1e-4", "--atol", "1e-4"], 0,
          ["result: ok"])
    with open(os.path.join(out_dir, "weights_check.json"), "w") as f:
        json.dump({"results": results, "failures": failures}, f, indent=1)
    print(f"{len(results)} cases, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
