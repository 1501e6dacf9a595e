"""libaoti_shims from Python, through ctypes: every fallback typed from torch's list.

    sys.path.insert(0, "<repo>/tests/pylib"); from aoti_shims import Shims
    S = Shims("build/lib/libaoti_shims.so")
    h = S.wrap(torch_tensor)            # a shim tensor over the same memory, no copy
    S.call("aoti_torch_cpu_topk", h, 2, -1, 1, 1, byref(v), byref(i))
    values = S.to_torch(v, "cpu")       # a torch copy, with the shim tensor's strides
    S.free(h, v, i)

The entry points' C signatures are read from shims/coverage/torch-2.11.tsv,
the facts the build checks every definition against, so a call here passes
exactly what a model passes. Used by bench/gpu/fallbacks_vs_eager.py (speed
against eager) and tests/shims/torch_oracle.py (results against torch).
"""
import ctypes
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TSV = os.path.join(HERE, "..", "..", "shims", "coverage", "torch-2.11.tsv")

C_TYPES = {
    "AtenTensorHandle": ctypes.c_void_p,
    "AtenTensorHandle*": ctypes.POINTER(ctypes.c_void_p),
    "const AtenTensorHandle*": ctypes.POINTER(ctypes.c_void_p),
    "const AtenTensorHandle**": ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)),
    "AtenGeneratorHandle*": ctypes.c_void_p,
    "int64_t": ctypes.c_int64,
    "int32_t": ctypes.c_int32,
    "double": ctypes.c_double,
    "int64_t*": ctypes.POINTER(ctypes.c_int64),
    "const int64_t*": ctypes.POINTER(ctypes.c_int64),
    "int32_t*": ctypes.POINTER(ctypes.c_int32),
    "const int32_t*": ctypes.POINTER(ctypes.c_int32),
    "double*": ctypes.POINTER(ctypes.c_double),
    "const char*": ctypes.c_char_p,
    "const char**": ctypes.POINTER(ctypes.c_char_p),
    "const double**": ctypes.c_void_p,
}


class Shims:
    """libaoti_shims through ctypes: entry points typed from torch's list."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        self.lib.aoti_shims_last_error.restype = ctypes.c_char_p
        self.lib.aoti_torch_create_tensor_from_blob.argtypes = [
            ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64),
            ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)]
        self.lib.aoti_torch_delete_tensor_object.argtypes = [ctypes.c_void_p]
        for name in ("get_data_ptr",):
            getattr(self.lib, "aoti_torch_" + name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        for name in ("get_sizes", "get_strides"):
            getattr(self.lib, "aoti_torch_" + name).argtypes = [
                ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))]
        for name in ("get_dim",):
            getattr(self.lib, "aoti_torch_" + name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)]
        self.lib.aoti_torch_get_dtype.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32)]
        self.signatures = {}
        for line in open(TSV):
            if line.startswith("#"):
                continue
            symbol, _, _, kind, _, params = line.rstrip("\n").split("\t")
            if kind != "forward" or not hasattr(self.lib, symbol):
                continue
            types = []
            for p in params.split(", "):
                t = p.rsplit(" ", 1)[0]
                types.append(C_TYPES[t])
            fn = getattr(self.lib, symbol)
            fn.argtypes = types
            fn.restype = ctypes.c_int32
            self.signatures[symbol] = fn

    def call(self, symbol, *args):
        rc = self.signatures[symbol](*args)
        if rc != 0:
            raise RuntimeError(f"{symbol}: {self.lib.aoti_shims_last_error().decode()}")

    def wrap(self, t):
        """A shim tensor over torch tensor t's memory (the caller deletes it)."""
        import torch
        codes = {torch.float32: 6, torch.float64: 7, torch.float16: 5, torch.bfloat16: 15, torch.int64: 4,
                 torch.int32: 3, torch.int16: 2, torch.int8: 1, torch.uint8: 0, torch.bool: 11}
        sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
        strides = (ctypes.c_int64 * max(t.dim(), 1))(*t.stride())
        h = ctypes.c_void_p()
        base = t.untyped_storage().data_ptr()
        dev = 1 if t.is_cuda else 0
        rc = self.lib.aoti_torch_create_tensor_from_blob(
            ctypes.c_void_p(base), t.dim(), sizes, strides, t.storage_offset(), codes[t.dtype], dev,
            t.device.index or 0, ctypes.byref(h))
        if rc != 0:
            raise RuntimeError(self.lib.aoti_shims_last_error().decode())
        return h

    def to_torch(self, h, device):
        """A torch copy of shim tensor h (read through its data pointer)."""
        import torch
        dims = ctypes.c_int64()
        self.lib.aoti_torch_get_dim(h, ctypes.byref(dims))
        sizes, strides = ctypes.POINTER(ctypes.c_int64)(), ctypes.POINTER(ctypes.c_int64)()
        self.lib.aoti_torch_get_sizes(h, ctypes.byref(sizes))
        self.lib.aoti_torch_get_strides(h, ctypes.byref(strides))
        code = ctypes.c_int32()
        self.lib.aoti_torch_get_dtype(h, ctypes.byref(code))
        ptr = ctypes.c_void_p()
        self.lib.aoti_torch_get_data_ptr(h, ctypes.byref(ptr))
        dtypes = {6: torch.float32, 7: torch.float64, 5: torch.float16, 15: torch.bfloat16, 4: torch.int64,
                  3: torch.int32, 2: torch.int16, 1: torch.int8, 0: torch.uint8, 11: torch.bool}
        n = dims.value
        shape = [sizes[i] for i in range(n)]
        stride = [strides[i] for i in range(n)]
        dt = dtypes[code.value]
        span = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
        if span == 0:
            return torch.empty(shape, dtype=dt, device=device)
        nbytes = span * torch.empty((), dtype=dt).element_size()
        if device == "cuda":
            # The device bytes as a torch tensor through the CUDA array
            # interface (no second CUDA runtime), then copied.
            class Bytes:
                __cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr.value, False),
                                            "version": 3, "strides": None}
            torch.cuda.synchronize()
            flat = torch.as_tensor(Bytes(), device="cuda").clone()
        else:
            flat = torch.frombuffer(bytearray(ctypes.string_at(ptr, nbytes)), dtype=torch.uint8)
        return flat.view(dt).as_strided(shape, stride).clone()

    def layout(self, h):
        """(sizes, strides, dtype code) of shim tensor h."""
        dims = ctypes.c_int64()
        self.lib.aoti_torch_get_dim(h, ctypes.byref(dims))
        sizes, strides = ctypes.POINTER(ctypes.c_int64)(), ctypes.POINTER(ctypes.c_int64)()
        self.lib.aoti_torch_get_sizes(h, ctypes.byref(sizes))
        self.lib.aoti_torch_get_strides(h, ctypes.byref(strides))
        code = ctypes.c_int32()
        self.lib.aoti_torch_get_dtype(h, ctypes.byref(code))
        n = dims.value
        return [sizes[i] for i in range(n)], [strides[i] for i in range(n)], code.value

    def free(self, *handles):
        for h in handles:
            if h:
                self.lib.aoti_torch_delete_tensor_object(h)



def outs(n):
    """n out-parameter handles."""
    return [ctypes.c_void_p() for _ in range(n)]
