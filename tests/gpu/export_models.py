"""Export one model with AOTInductor and write what the GPU test needs.

    python3 export_models.py NAME VARIANT OUTDIR

writes OUTDIR/NAME[.variant]/ with model.pt2, the package extracted under pkg/,
inputs as in_<i>.npy and eager results as expect_<i>.npy (bfloat16 stored as
float32, which aoti-run converts), extra input sets as <set>_in_<i>.npy, and
info.json (dtypes, shapes, tolerances, export time).
"""
import json
import os
import sys
import time
import zipfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def save(path, t):
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    np.save(path, np.ascontiguousarray(t.numpy()))


def main():
    name, variant, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    tag = name if variant == "free" or name.endswith(variant) else f"{name}.{variant}"
    tag = tag.replace("_default", "-default")
    d = os.path.join(outdir, tag)
    os.makedirs(d, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    m, inputs, dyn, extra = models.build(name)
    m = m.cuda().eval()
    inputs = models.to_device(inputs)
    with torch.no_grad():
        ep = torch.export.export(m, inputs, dynamic_shapes=dyn)
        t0 = time.time()
        pkg = torch._inductor.aoti_compile_and_package(
            ep, package_path=os.path.join(d, "model.pt2"),
            inductor_configs=models.inductor_configs(variant))
        export_s = time.time() - t0
        with zipfile.ZipFile(pkg) as z:
            z.extractall(os.path.join(d, "pkg"))
            names = z.namelist()

        def outputs_of(ins):
            out = m(*ins)
            return out if isinstance(out, tuple) else (out,)

        sets = {"": inputs}
        sets.update({k: models.to_device(v) for k, v in extra.items()})
        info = {"name": name, "variant": variant, "export_s": round(export_s, 1),
                "torch": torch.__version__, "files": names, "sets": {}}
        for set_name, ins in sets.items():
            prefix = f"{set_name}_" if set_name else ""
            outs = outputs_of(ins)
            for i, t in enumerate(ins):
                save(os.path.join(d, f"{prefix}in_{i}.npy"), t)
            for i, t in enumerate(outs):
                save(os.path.join(d, f"{prefix}expect_{i}.npy"), t)
            info["sets"][set_name or "default"] = {
                "inputs": [[str(t.dtype).split(".")[-1], list(t.shape)] for t in ins],
                "outputs": [[str(t.dtype).split(".")[-1], list(t.shape)] for t in outs],
            }
        dtypes = {o[0] for s in info["sets"].values() for o in s["outputs"]}
        rtol = max(models.TOLERANCE[t][0] for t in dtypes)
        atol = max(models.TOLERANCE[t][1] for t in dtypes)
        info["rtol"], info["atol"] = rtol, atol
    with open(os.path.join(d, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"exported {tag} in {export_s:.1f}s: {len(names)} files")


if __name__ == "__main__":
    main()
