#!/usr/bin/env python3
"""The convolution shims against torch itself, where torch is installed.

For each case, on the CPU and (when torch sees a GPU) on CUDA:
  - the output strides of aoti_torch_{cpu,cuda}_convolution must equal the
    strides torch's fake convolution gives (FakeTensorMode, as inductor uses
    when it compiles the fallback call), and
  - the values must match torch's eager aten.convolution on the same tensors
    (TF32 off, as in the zoo).
The shims are called through ctypes on libaoti_shims.so, over the storage of
real torch tensors, so both see identical inputs (any strides, offsets).

Run: python3 tests/shims/conv_vs_torch.py build/lib/libaoti_shims.so
Exit status 0 when every case agrees, 1 otherwise, 2 on bad usage, 77
without torch: ctest `shims.conv_vs_torch` (SKIP_RETURN_CODE 77) reports it
Skipped there, not passed, and ci/gpu-test.sh's 'oracle' phase runs it on
the GPU machine, which has torch. tests/shims/torch_oracle.py is the same
oracle for the other op families; convolution is only here.
"""
import ctypes
import sys

try:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
except ImportError as e:
    # Not a pass: nothing was compared. 77 is the SKIP_RETURN_CODE.
    print(f"SKIP: conv_vs_torch needs torch with FakeTensorMode ({e}); nothing checked")
    sys.exit(77)

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False

DTYPE_CODES = {torch.float32: 6, torch.float16: 5, torch.bfloat16: 15}
I64P = ctypes.POINTER(ctypes.c_int64)


def load(path):
    lib = ctypes.CDLL(path)
    lib.aoti_torch_create_tensor_from_blob.argtypes = [
        ctypes.c_void_p, ctypes.c_int64, I64P, I64P, ctypes.c_int64,
        ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)]
    for name in ("aoti_torch_cpu_convolution", "aoti_torch_cuda_convolution"):
        getattr(lib, name).argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
            I64P, ctypes.c_int64, I64P, ctypes.c_int64, I64P, ctypes.c_int64,
            ctypes.c_int32, I64P, ctypes.c_int64, ctypes.c_int64,
            ctypes.POINTER(ctypes.c_void_p)]
    lib.aoti_torch_get_dim.argtypes = [ctypes.c_void_p, I64P]
    lib.aoti_torch_get_strides.argtypes = [ctypes.c_void_p, ctypes.POINTER(I64P)]
    lib.aoti_torch_get_sizes.argtypes = [ctypes.c_void_p, ctypes.POINTER(I64P)]
    lib.aoti_torch_get_data_ptr.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.aoti_torch_delete_tensor_object.argtypes = [ctypes.c_void_p]
    lib.aoti_shims_last_error.restype = ctypes.c_char_p
    return lib


def ints(values):
    return (ctypes.c_int64 * max(len(values), 1))(*values)


def handle(lib, t):
    """A shim handle over torch tensor t's storage (same strides and offset)."""
    h = ctypes.c_void_p()
    base = t.data_ptr() - t.storage_offset() * t.element_size()
    rc = lib.aoti_torch_create_tensor_from_blob(
        ctypes.c_void_p(base), t.dim(), ints(t.shape), ints(t.stride()),
        t.storage_offset(), DTYPE_CODES[t.dtype], 1 if t.is_cuda else 0,
        t.device.index or 0, ctypes.byref(h))
    assert rc == 0, lib.aoti_shims_last_error()
    return h


def strided(sizes, layout, dtype, device, gen):
    """A tensor of `sizes` in `layout`: contiguous, channels_last, strided
    (every other element of the last dimension) or offset (storage offset 3)."""
    if layout == "channels_last":
        perm = [0] + list(range(2, len(sizes))) + [1]
        t = torch.randn([sizes[i] for i in perm], generator=gen).to(dtype)
        inverse = [perm.index(i) for i in range(len(sizes))]
        return t.permute(inverse).to(device)
    if layout == "strided":
        wide = list(sizes[:-1]) + [sizes[-1] * 2]
        return torch.randn(wide, generator=gen).to(dtype).to(device)[..., ::2]
    if layout == "offset":
        n = 1
        for s in sizes:
            n *= s
        flat = torch.randn(n + 3, generator=gen).to(dtype).to(device)
        return flat[3:].view(sizes)
    return torch.randn(sizes, generator=gen).to(dtype).to(device)


# (name, input sizes, input layout, weight sizes, weight layout, stride,
#  padding, dilation, transposed, output_padding, groups, bias)
CASES = [
    ("conv1d", [2, 3, 11], "contiguous", [4, 3, 3], "contiguous", [1], [1], [1], False, [0], 1, True),
    ("conv1d permuted input", [2, 8, 10], "channels_last", [4, 8, 3], "contiguous", [1], [0], [1], False, [0], 1, True),
    ("conv1d permuted weight", [2, 8, 10], "contiguous", [4, 8, 3], "channels_last", [1], [0], [1], False, [0], 1, False),
    ("conv2d", [2, 3, 9, 8], "contiguous", [5, 3, 3, 3], "contiguous", [1, 1], [1, 1], [1, 1], False, [0, 0], 1, True),
    ("conv2d asym", [1, 4, 13, 10], "contiguous", [6, 4, 3, 2], "contiguous", [2, 1], [0, 2], [1, 2], False, [0, 0], 1, True),
    ("conv2d groups", [2, 6, 8, 8], "contiguous", [4, 3, 3, 3], "contiguous", [1, 1], [1, 1], [1, 1], False, [0, 0], 2, True),
    ("depthwise", [2, 8, 10, 10], "contiguous", [16, 1, 3, 3], "contiguous", [2, 2], [1, 1], [1, 1], False, [0, 0], 8, True),
    ("depthwise CL", [2, 8, 10, 10], "channels_last", [16, 1, 3, 3], "contiguous", [2, 2], [1, 1], [1, 1], False, [0, 0], 8, True),
    ("CL input", [2, 8, 7, 9], "channels_last", [6, 8, 3, 3], "contiguous", [1, 1], [1, 1], [1, 1], False, [0, 0], 1, True),
    ("CL weight", [1, 4, 6, 6], "contiguous", [8, 4, 3, 3], "channels_last", [2, 2], [0, 0], [1, 1], False, [0, 0], 1, True),
    ("N C 1 1 CL", [2, 8, 1, 1], "channels_last", [4, 8, 1, 1], "contiguous", [1, 1], [0, 0], [1, 1], False, [0, 0], 1, True),
    ("strided", [2, 3, 6, 5], "strided", [4, 3, 2, 2], "strided", [1, 1], [0, 0], [1, 1], False, [0, 0], 1, True),
    ("offset", [1, 2, 5, 5], "offset", [3, 2, 3, 3], "offset", [1, 1], [1, 1], [1, 1], False, [0, 0], 1, True),
    ("conv3d", [1, 2, 5, 6, 7], "contiguous", [3, 2, 3, 3, 3], "contiguous", [1, 2, 1], [1, 1, 0], [1, 1, 2], False, [0, 0, 0], 1, True),
    ("conv3d CL3d small", [1, 4, 3, 4, 5], "channels_last", [2, 4, 2, 2, 2], "contiguous", [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1, True),
    ("conv3d CL3d batch 2", [2, 4, 3, 4, 5], "channels_last", [2, 4, 2, 2, 2], "contiguous", [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1, True),
    ("conv3d CL3d groups", [1, 4, 3, 4, 5], "channels_last", [4, 2, 2, 2, 2], "contiguous", [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 2, True),
    ("transposed1d", [2, 4, 7], "contiguous", [4, 3, 3], "contiguous", [2], [1], [1], True, [1], 1, True),
    ("transposed2d", [2, 4, 5, 6], "contiguous", [4, 3, 3, 2], "contiguous", [2, 3], [1, 0], [2, 1], True, [1, 2], 2, True),
    ("transposed3d", [1, 3, 3, 4, 3], "contiguous", [3, 2, 2, 3, 2], "contiguous", [2, 1, 2], [0, 1, 1], [1, 1, 1], True, [1, 0, 0], 1, False),
    ("transposed CL", [1, 4, 5, 5], "channels_last", [4, 2, 3, 3], "contiguous", [2, 2], [1, 1], [1, 1], True, [1, 1], 1, True),
    ("transposed big output_padding", [1, 4, 5, 5], "channels_last", [4, 2, 3, 3], "contiguous", [1, 1], [0, 0], [2, 2], True, [1, 1], 1, True),
    ("transposed big output_padding padded", [1, 4, 5, 5], "contiguous", [4, 2, 3, 3], "contiguous", [1, 1], [1, 0], [2, 2], True, [1, 1], 1, True),
]


def run(lib, device, dtype):
    tol = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 5e-2}[dtype]
    failures = 0
    entry = lib.aoti_torch_cuda_convolution if device == "cuda" else lib.aoti_torch_cpu_convolution
    for (name, isz, ilay, wsz, wlay, stride, pad, dil, tr, op, groups, has_bias) in CASES:
        gen = torch.Generator().manual_seed(0)
        x = strided(isz, ilay, dtype, device, gen)
        w = strided(wsz, wlay, dtype, device, gen)
        out_ch = wsz[1] * groups if tr else wsz[0]
        b = torch.randn(out_ch, generator=gen).to(dtype).to(device) if has_bias else None
        label = f"{device} {str(dtype)[6:]} {name}"
        try:
            want = torch.ops.aten.convolution(x, w, b, stride, pad, dil, tr, op, groups)
        except RuntimeError as e:
            print(f"SKIP {label}: torch refuses it ({str(e).splitlines()[0]})")
            continue
        with FakeTensorMode() as mode:
            fx, fw = mode.from_tensor(x), mode.from_tensor(w)
            fb = mode.from_tensor(b) if b is not None else None
            fake = torch.ops.aten.convolution(fx, fw, fb, stride, pad, dil, tr, op, groups)
            fake_strides = list(fake.stride())
        hx, hw = handle(lib, x), handle(lib, w)
        hb = ctypes.c_void_p(handle(lib, b).value) if b is not None else ctypes.c_void_p()
        out = ctypes.c_void_p()
        rc = entry(hx, hw, ctypes.byref(hb), ints(stride), len(stride), ints(pad), len(pad),
                   ints(dil), len(dil), int(tr), ints(op), len(op), groups, ctypes.byref(out))
        if rc != 0:
            failures += 1
            print(f"FAIL {label}: {lib.aoti_shims_last_error().decode()}")
            continue
        dim = ctypes.c_int64()
        lib.aoti_torch_get_dim(out, ctypes.byref(dim))
        sp, stp, dp = I64P(), I64P(), ctypes.c_void_p()
        lib.aoti_torch_get_sizes(out, ctypes.byref(sp))
        lib.aoti_torch_get_strides(out, ctypes.byref(stp))
        lib.aoti_torch_get_data_ptr(out, ctypes.byref(dp))
        sizes = [sp[i] for i in range(dim.value)]
        strides = [stp[i] for i in range(dim.value)]
        problems = []
        if sizes != list(want.shape):
            problems.append(f"sizes {sizes} != torch {list(want.shape)}")
        if strides != fake_strides:
            problems.append(f"strides {strides} != torch's fake {fake_strides}")
        if not problems:
            if device == "cuda":
                torch.cuda.synchronize()
            span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
            elem = torch.empty(0, dtype=dtype).element_size()
            if device == "cpu":
                buf = (ctypes.c_byte * (span * elem)).from_address(dp.value)
                flat = torch.frombuffer(buf, dtype=dtype)
            else:
                flat = _cuda_view(dp.value, span, dtype)
            got = torch.as_strided(flat, sizes, strides)
            err = (got.float() - want.float()).abs().max().item()
            scale = want.float().abs().max().item() + 1
            if err > tol * scale:
                problems.append(f"max error {err:.3g} > {tol * scale:.3g}")
        for h in (hx, hw, out) + ((hb,) if b is not None else ()):
            lib.aoti_torch_delete_tensor_object(h)
        if problems:
            failures += 1
            print(f"FAIL {label}: " + "; ".join(problems))
        else:
            print(f"ok   {label}: strides {strides}")
    return failures


def _cuda_view(ptr, numel, dtype):
    """A 1-d CUDA tensor over `numel` elements at device pointer `ptr`
    (through __cuda_array_interface__; the shim keeps the memory alive)."""
    typestr = {torch.float32: "<f4", torch.float16: "<f2", torch.bfloat16: "<f2"}[dtype]

    class Holder:
        __cuda_array_interface__ = {"shape": (numel,), "typestr": typestr,
                                    "data": (ptr, False), "version": 3}
    t = torch.as_tensor(Holder(), device="cuda")
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    lib = load(sys.argv[1])
    failures = 0
    for dtype in (torch.float32, torch.bfloat16):
        failures += run(lib, "cpu", dtype)
    if torch.cuda.is_available():
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            failures += run(lib, "cuda", dtype)
    else:
        print("conv_vs_torch: no GPU visible to torch; CUDA cases not run")
    print(f"conv_vs_torch: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
