#!/usr/bin/env python3
"""Writes shims/coverage/torch-<version>.tsv: torch's C-shim fallback list.

Run once per torch release, on the wheel (nothing else reads the wheel):

    pip download --no-deps torch==2.11.0 -d /tmp/wheel
    python3 ci/extract_fallbacks.py /tmp/wheel/torch-2.11.0-*.whl \
        > shims/coverage/torch-2.11.tsv

It reads three headers of the wheel: the generated
torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h and c_shim_cuda.h (the
fallbacks inductor emits for an ATen op it does not generate code for) and
the hand-written c/shim_cpu.h (the oneDNN-backed CPU entries, such as
mkldnn_rnn_layer for nn.LSTM). Every `AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_<device>_<op>(...)` declaration becomes one row:

    symbol  device  op  kind  header  parameters

kind is `backward` for an op whose name says it computes a gradient
(`*_backward`), `sparse` for the `to_sparse` conversions (a layout the shims
do not have), else `forward`. parameters is the C parameter list exactly as
declared, whitespace collapsed: the ABI the shims must match, which the
build checks every definition against (shims/coverage/README.md).
"""
import re
import sys
import zipfile

HEADERS = [
    "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h",
    "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h",
    "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h",
]

DECLARATION = re.compile(
    r"AOTI_TORCH_EXPORT\s+AOTITorchError\s+(aoti_torch_(cpu|cuda)_(\w+))\s*\(([^)]*)\)\s*;"
)


def kind_of(op):
    if op.endswith("_backward") or "_backward_" in op:
        return "backward"
    if op in ("to_sparse", "_to_sparse"):
        return "sparse"
    return "forward"


def rows_of(header, text):
    # Comments may hold example declarations; drop them first.
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    for m in DECLARATION.finditer(text):
        symbol, device, op, params = m.groups()
        params = " ".join(params.split())
        yield symbol, device, op, kind_of(op), header.rsplit("/", 2)[-2] + "/" + header.rsplit("/", 1)[-1], params


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: extract_fallbacks.py TORCH_WHEEL > torch-VERSION.tsv")
    wheel = argv[1]
    version = None
    rows = {}
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            m = re.match(r"torch-([0-9][^/]*)\.dist-info/METADATA$", name)
            if m:
                version = m.group(1)
        for header in HEADERS:
            try:
                text = z.read(header).decode("utf-8")
            except KeyError:
                sys.exit(f"{wheel}: no {header}")
            for row in rows_of(header, text):
                if row[0] in rows:
                    sys.exit(f"{row[0]} is declared twice ({rows[row[0]][4]}, {row[4]})")
                rows[row[0]] = row
    if not rows:
        sys.exit(f"{wheel}: no fallback declarations found")
    out = sys.stdout
    out.write(f"# torch {version}'s C-shim fallbacks, extracted from {wheel.rsplit('/', 1)[-1]}\n")
    out.write("# by ci/extract_fallbacks.py; facts of torch's ABI, not to be edited by hand.\n")
    out.write("# symbol\tdevice\top\tkind\theader\tparameters\n")
    for symbol in sorted(rows):
        out.write("\t".join(rows[symbol]) + "\n")


if __name__ == "__main__":
    main(sys.argv)
