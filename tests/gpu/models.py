"""The models the GPU test exports, and the inputs each is checked on.

Each entry builds an eager module and example inputs on the GPU. Kept small on
purpose: the test is about loading and binding, not about throughput.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class ConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Attention(nn.Module):
    """Single-head self-attention written out (no SDPA: its fallback is a LibTorch op)."""

    def __init__(self, dim=64):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = torch.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1)
        return self.proj(att @ v)


class EmbedArgmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.head = nn.Linear(32, 100)

    def forward(self, ids):
        logits = self.head(self.emb(ids))
        return logits, logits.argmax(dim=-1)


class Views(nn.Module):
    """Outputs that alias the input: AOTInductor returns views of the input handle."""

    def forward(self, x):
        y = x + 1
        return x.view(-1), x[1:], x.t(), y, y.view(4, 8)


def _seeded():
    torch.manual_seed(0)


def build(name):
    """Return (module, example_inputs, dynamic_shapes, extra_input_sets)."""
    _seeded()
    dev = "cuda"
    if name in ("mlp", "mlp_nogemm"):
        m = Mlp()
        return m, (torch.randn(8, 64),), None, {}
    if name == "convbn":
        m = ConvBn()
        # Non-trivial running statistics so the folded batchnorm matters.
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
        m.bn.weight.data.uniform_(0.5, 1.5)
        m.bn.bias.data.uniform_(-0.2, 0.2)
        return m, (torch.randn(4, 3, 16, 16),), None, {}
    if name == "attn_bf16":
        m = Attention().to(torch.bfloat16)
        return m, (torch.randn(2, 16, 64, dtype=torch.bfloat16),), None, {}
    if name == "embed_argmax":
        m = EmbedArgmax()
        return m, (torch.randint(0, 100, (4, 10), dtype=torch.int64),), None, {}
    if name == "views":
        return Views(), (torch.randn(8, 4),), None, {}
    if name == "dynbatch":
        m = Mlp()
        batch = Dim("batch", min=2, max=1024)
        return m, (torch.randn(8, 64),), ({0: batch},), {"b5": (torch.randn(5, 64),),
                                                          "b300": (torch.randn(300, 64),)}
    raise KeyError(name)


ALL = ["mlp", "convbn", "attn_bf16", "embed_argmax", "views", "dynbatch", "mlp_nogemm"]
# Models also built LibTorch-linked for the torch-runner benchmark.
BENCH = ["mlp", "convbn", "attn_bf16", "embed_argmax"]

# Tolerances per dtype for the model-vs-eager check (rtol, atol). float32 GEMMs
# run as Triton templates in full fp32 (tf32 is off in eager and compiled code);
# bfloat16 results differ by accumulation order, bounded by a few bf16 ulps.
TOLERANCE = {"float32": (1e-4, 1e-4), "bfloat16": (2e-2, 2e-2), "int64": (0, 0)}


def inductor_configs(variant):
    """Inductor options. 'free' is the LibTorch-free set from docs (ExecuTorch's)."""
    free = {
        "aot_inductor.link_libtorch": False,
        "max_autotune": True,
        "max_autotune_gemm_backends": "TRITON",
        "max_autotune_conv_backends": "TRITON",
        "aot_inductor.embed_kernel_binary": True,
        "aot_inductor.package_constants_in_so": False,
        "aot_inductor.package_constants_on_disk_format": "binary_blob",
    }
    if variant == "free":
        return free
    if variant == "nogemm":
        # LibTorch-free, but GEMMs left to ATen: needs aoti_torch_cuda_addmm_out,
        # and kernels loaded from cubin files.
        return {
            "aot_inductor.link_libtorch": False,
            "aot_inductor.embed_kernel_binary": False,
            "aot_inductor.package_constants_in_so": False,
            "aot_inductor.package_constants_on_disk_format": "binary_blob",
        }
    if variant == "linked_default":
        # torch's defaults (LibTorch-linked, cuBLAS GEMMs, cubin files): a
        # build torch's runners were expected to load when "linked" crashed.
        return {}
    if variant == "linked":
        # Same kernels, linked against LibTorch, weights inside the .so: what
        # torch's own runner loads.
        cfg = dict(free)
        cfg["aot_inductor.link_libtorch"] = True
        cfg["aot_inductor.package_constants_in_so"] = True
        del cfg["aot_inductor.package_constants_on_disk_format"]
        return cfg
    raise KeyError(variant)


def to_device(inputs):
    return tuple(t.cuda() for t in inputs)
