"""The model zoo: real architectures with random weights, and the packages built from them.

Each entry builds a real architecture from torchvision, timm or transformers
with random weights (nothing is downloaded: the GPU machine has no network),
in eval mode, with example inputs of a realistic size. Transformers keep the
real head dimensions and grouped-query ratios of the model they are named
after but only 2 layers and modest widths and vocabularies, so that exporting
stays in seconds; convolutional networks keep their real depth (the number of
distinct convolution shapes is what the fallbacks must cover). transformers
models run with attn_implementation="sdpa", so their attention lowers to
scaled_dot_product_attention and the packages call its fallbacks.

A package is one (model, options, dtype, device); its tag is
"model.options.dtype.device". options "default" is torch's defaults with
aot_inductor.link_libtorch=False; "executorch" is ExecuTorch's CUDA options
(Triton GEMMs and convolutions, 1-d convolutions rewritten as 2-d ones, weights
in a binary blob); "simd" is torch's defaults with the CPU kernels vectorized
(cpp.vec_isa_ok, which a LibTorch-free build otherwise leaves off). The sets:

    default     every model, torch's default options, CUDA, float32 and bfloat16
    executorch  every model, ExecuTorch's options, CUDA, float32 and bfloat16
    cpu         every model, torch's default options, CPU, float32
    cpu-simd    every model, "simd" options, CPU, float32
    all         the four

The catalogue is plain data: importing this module does not import torch, so
run.py reads it on a machine without torch. Builders import what they need.

    python3 zoo.py --list [--set S[,S...]] [--filter REGEX]

prints the selected packages, one "model options dtype device" a line,
costliest first (the export phase starts the slowest exports first).
"""
import argparse
import os
import re
import sys

F32, BF16 = "float32", "bfloat16"

# Per-run timing, the same for eager (export.py, eager.py) and aoti-run (run.py).
ITERS = {"cuda": (100, 10), "cpu": (30, 5)}  # (timed iterations, warmup)

# CPU packages run with this many threads, eager (torch.set_num_threads) and
# compiled alike: inductor bakes torch.get_num_threads() at export time into
# the package's "#pragma omp parallel num_threads(N)", and run.py gives
# aoti-run the same count for its BLAS/oneDNN fallbacks (OMP_NUM_THREADS).
# 8 of the GPU machine's 16 cores: the rest absorbs the noise of the system.
# ZOO_CPU_THREADS changes it (export and run read it from info.json).
CPU_THREADS = int(os.environ.get("ZOO_CPU_THREADS", "8"))

# Tolerances per dtype for package-vs-eager, as |a - e| <= atol + rtol*|e| with
# atol = ATOL * scale, scale = max |e| over the package's float outputs.
# The compiled model computes the same maths in another order (fused
# pointwise chains, Triton or BLAS reductions with other blockings, no TF32 on
# either side), so differences are rounding differences; those are relative
# to the magnitude of the summands, which the output's magnitude stands for
# (LayerNorm-ed transformers ~ 1-5, calibrated convnets' logits ~ 0.03-2), so
# an element near zero is judged against the tensor's scale, not its own.
#   float32: rounding (2^-24 = 6e-8) grows with the reduction length K ~ 1e3-1e4
#     and the depth (up to ~50 layers): a few 1e-6 relative per layer in the
#     worst case; 1e-4 of the scale absolute, 1e-3 relative leaves a 10x margin
#     and still catches any wrong op (a wrong op is off by O(1) relative).
#   bfloat16: eager rounds every op's output to bf16 (2^-8 = 3.9e-3 relative
#     spacing), inductor keeps fused chains in float32 and rounds once, so the
#     two differ by a few bf16 ulps per layer: 4e-2 is ~10 ulps.
RTOL = {F32: 1e-3, BF16: 4e-2}
ATOL = {F32: 1e-4, BF16: 4e-2}

# A second judge for low-precision packages, the one torch's own accuracy
# checks use for them (torch._dynamo.utils.same with an fp64 reference):
# eager's bfloat16 result and the package's are two roundings of one exact
# answer, so the package is as right as eager when its RMS error against a
# float64 run of the same (bfloat16-rounded) weights and inputs is at most
# REF_MULTIPLIER times eager's own, plus REF_SLACK of the output scale.
# Elementwise tolerances cannot say this for deep networks: after 50
# bfloat16 layers eager's own error may exceed any tolerance that still
# catches a wrong op. A wrong op is caught here too: it is off by O(1)
# relative, far beyond twice eager's rounding error.
REF_MULTIPLIER = 2.0
REF_SLACK = 1e-3

OPTIONS = ("default", "executorch", "simd")
SETS = {
    "default": [("default", "cuda", (F32, BF16))],
    "executorch": [("executorch", "cuda", (F32, BF16))],
    "cpu": [("default", "cpu", (F32,))],
    "cpu-simd": [("simd", "cpu", (F32,))],
}
SETS["all"] = SETS["default"] + SETS["executorch"] + SETS["cpu"] + SETS["cpu-simd"]


def inductor_configs(options):
    """Inductor options of a package. Names checked against torch 2.11's
    torch/_inductor/config.py (max_autotune*, and aot_inductor.*)."""
    cfg = {"aot_inductor.link_libtorch": False}
    if options == "default":
        return cfg
    if options == "simd":
        # torch's ISA probe links its test library without LibTorch when
        # link_libtorch=False, fails on SLEEF's undefined symbols, and so
        # compiles every LibTorch-free CPU package scalar. This skips the
        # probe: the kernels use AVX2/AVX-512 through at::vec and import
        # Sleef_* from the host (libaoti_shims links SLEEF; docs/shims.md).
        cfg["cpp.vec_isa_ok"] = True
        return cfg
    if options == "executorch":
        cfg.update({
            "max_autotune": True,
            "max_autotune_gemm_backends": "TRITON",
            "max_autotune_conv_backends": "TRITON",
            "aot_inductor.package_constants_in_so": False,
            "aot_inductor.package_constants_on_disk_format": "binary_blob",
            "aot_inductor.embed_kernel_binary": True,
        })
        return cfg
    raise KeyError(options)


def decompositions(options):
    """The decomposition table a package's exported program is run through
    before it is compiled ({} for none). ExecuTorch's CUDA backend rewrites
    every aten.conv1d as a conv2d over a height of 1 (its
    get_decomposition_table, with torch._inductor.decomposition.conv1d_to_conv2d)
    because inductor's Triton convolution template is 2-d only: with
    max_autotune_conv_backends="TRITON" a 1-d convolution has no choice at all
    and the compile fails with NoValidChoicesError (Whisper's encoder and
    wav2vec2 did, 2026-12-04). Imports torch: call it where torch is."""
    if options != "executorch":
        return {}
    import torch
    from torch._inductor.decomposition import conv1d_to_conv2d
    return {torch.ops.aten.conv1d.default: conv1d_to_conv2d}


# --------------------------------------------------------------------------
# Builders. Each returns (module, inputs): the module in float32 on the CPU,
# the inputs a tuple of CPU tensors (float32 or int64). build() seeds, casts
# and moves them.


def _tensors(out):
    """Flattens a model's output (tuple, list, ModelOutput) to a tuple of tensors."""
    import torch
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, torch.Tensor):
        return (out,)
    flat = []
    for o in out:
        if o is None:
            continue
        flat.extend(_tensors(o))
    return tuple(flat)


def _wrap(model, names=None, **fixed):
    """A module taking positional tensors (named `names` for the model) and
    returning a tuple of tensors: what torch.export and aoti-run see."""
    import torch.nn as nn

    class TupleOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def forward(self, *args):
            if names:
                out = self.m(**dict(zip(names, args)), **fixed)
            else:
                out = self.m(*args, **fixed)
            return _tensors(out)

    return TupleOut()


def _image(batch=2, size=224):
    import torch
    return (torch.randn(batch, 3, size, size),)


def _tv(fn, **kw):
    def build():
        import torchvision.models as tvm
        return _wrap(getattr(tvm, fn)(weights=None, **kw)), _image()
    return build


def _timm(name, **kw):
    def build():
        import timm
        m = timm.create_model(name, pretrained=False, **kw)
        # timm calls F.scaled_dot_product_attention only where fused_attn is
        # set, and leaves it off by default for Swin's windowed attention
        # ("experimental"): set it, so the zoo exercises SDPA with a float mask.
        for mod in m.modules():
            if hasattr(mod, "fused_attn"):
                mod.fused_attn = True
        return _wrap(m), _image()
    return build


def _vit_b16_2l():
    from torchvision.models.vision_transformer import VisionTransformer
    # ViT-B/16's widths (768 = 12 heads x 64, MLP 3072) with 2 of its 12 layers.
    m = VisionTransformer(image_size=224, patch_size=16, num_layers=2, num_heads=12,
                          hidden_dim=768, mlp_dim=3072)
    # torchvision zero-initialises the classifier (fine-tuning starts there):
    # its outputs would be all zeros, and a check against zeros proves nothing.
    import torch.nn as nn
    nn.init.normal_(m.heads.head.weight, std=0.02)
    return _wrap(m), _image()


def _ids(batch, seq, vocab):
    import torch
    return torch.randint(0, vocab, (batch, seq), dtype=torch.int64)


def _padded_mask(batch, seq, pad):
    """An attention mask whose last row ends in `pad` padding tokens: the SDPA
    call then gets a real mask, not None."""
    import torch
    m = torch.ones(batch, seq, dtype=torch.int64)
    m[-1, seq - pad:] = 0
    return m


def _hf(cls_name, config_name, config, inputs, names, **fixed):
    def build():
        import transformers
        cfg = getattr(transformers, config_name)(attn_implementation="sdpa", **config)
        m = getattr(transformers, cls_name)(cfg)
        return _wrap(m, names, **fixed), inputs()
    return build


def _encoder_inputs():
    return (_ids(2, 128, 8192), _padded_mask(2, 128, 32))


def _decoder_inputs():
    return (_ids(1, 128, 16000),)


def _seq2seq_inputs():
    return (_ids(2, 64, 8192), _ids(2, 32, 8192))


def _whisper_encoder():
    import torch
    import transformers
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    # Whisper-base's encoder widths (512 = 8 heads x 64, FFN 2048, 80 mel bins)
    # with 2 of its 6 layers and 200 positions (4 s of audio, 400 frames)
    # instead of 1500, which the encoder requires of its input length.
    cfg = transformers.WhisperConfig(d_model=512, encoder_layers=2, encoder_attention_heads=8,
                                     encoder_ffn_dim=2048, decoder_layers=2, decoder_attention_heads=8,
                                     decoder_ffn_dim=2048, num_mel_bins=80, max_source_positions=200,
                                     vocab_size=8192, attn_implementation="sdpa")
    return _wrap(WhisperEncoder(cfg)), (torch.randn(1, 80, 400),)


def _wav2vec2():
    import torch
    import transformers
    # wav2vec2-base: the real 7-layer conv feature encoder (512 channels, group
    # norm) and convolutional position embedding, 768 = 12 heads x 64, 2 of 12
    # transformer layers; 1 s of 16 kHz audio.
    cfg = transformers.Wav2Vec2Config(hidden_size=768, num_hidden_layers=2, num_attention_heads=12,
                                      intermediate_size=3072, attn_implementation="sdpa")
    return _wrap(transformers.Wav2Vec2Model(cfg)), (torch.randn(1, 16000),)


class Entry:
    """A model of the zoo: builder, dtypes it is built in, export cost (a
    guess in seconds, only to start the slowest first), what it exercises."""

    def __init__(self, name, build, dtypes, cost, what):
        self.name, self.build, self.dtypes, self.cost, self.what = name, build, dtypes, cost, what


BOTH = (F32, BF16)
MODELS = [
    # Vision: real depth; batch 2 at 224x224.
    Entry("resnet18", _tv("resnet18"), (F32,), 60, "torchvision; conv, batchnorm, maxpool"),
    Entry("resnet50", _tv("resnet50"), BOTH, 120, "torchvision; bottleneck convs"),
    Entry("mobilenet_v3_large", _tv("mobilenet_v3_large"), (F32,), 100,
          "torchvision; depthwise convs (groups), hardswish, squeeze-excitation"),
    Entry("efficientnet_b0", _tv("efficientnet_b0"), BOTH, 120, "torchvision; depthwise convs, SiLU, SE"),
    Entry("convnext_tiny", _tv("convnext_tiny"), BOTH, 100, "torchvision; 7x7 depthwise convs, LayerNorm, GELU"),
    Entry("densenet121", _tv("densenet121"), (F32,), 200, "torchvision; 120 convs, concatenation"),
    Entry("regnet_y_400mf", _tv("regnet_y_400mf"), (F32,), 120, "torchvision; grouped convs, SE"),
    Entry("vit_b16", _vit_b16_2l, BOTH, 60, "torchvision ViT-B/16, 2 of 12 layers; nn.MultiheadAttention -> SDPA"),
    Entry("deit_tiny", _timm("deit_tiny_patch16_224", depth=2), (F32,), 50,
          "timm DeiT-Ti, 2 of 12 layers (3 heads x 64); F.scaled_dot_product_attention"),
    Entry("swin_tiny", _timm("swin_tiny_patch4_window7_224", depths=(2, 2, 2, 2)), BOTH, 120,
          "timm Swin-T, depths (2,2,2,2) not (2,2,6,2); windowed SDPA with a bias and shift mask"),
    # Audio.
    Entry("whisper_encoder", _whisper_encoder, BOTH, 60, "transformers Whisper-base encoder; conv1d + SDPA"),
    Entry("wav2vec2", _wav2vec2, BOTH, 80, "transformers wav2vec2-base; conv1d feature encoder, group norm, SDPA"),
    # Text encoders: batch 2, 128 tokens, the second row padded (a real mask).
    Entry("bert", _hf("BertModel", "BertConfig",
                      dict(vocab_size=8192, hidden_size=768, num_hidden_layers=2, num_attention_heads=12,
                           intermediate_size=3072),
                      _encoder_inputs, ("input_ids", "attention_mask"), use_cache=False), BOTH, 60,
          "BERT-base widths (12 heads x 64), 2 layers; SDPA with a padding mask"),
    Entry("distilbert", _hf("DistilBertModel", "DistilBertConfig",
                            dict(vocab_size=8192, dim=768, n_layers=2, n_heads=12, hidden_dim=3072),
                            _encoder_inputs, ("input_ids", "attention_mask")), BOTH, 50,
          "DistilBERT widths, 2 layers; SDPA with a padding mask"),
    # Decoders: batch 1, 128 tokens, causal.
    Entry("gpt2", _hf("GPT2Model", "GPT2Config",
                      dict(vocab_size=16000, n_positions=1024, n_embd=768, n_layer=2, n_head=12),
                      _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 60,
          "GPT-2 small widths (12 heads x 64), 2 layers; causal SDPA"),
    Entry("llama", _hf("LlamaForCausalLM", "LlamaConfig",
                       dict(vocab_size=16000, hidden_size=1024, num_attention_heads=8, num_key_value_heads=2,
                            head_dim=128, intermediate_size=2816, num_hidden_layers=2,
                            max_position_embeddings=2048),
                       _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 70,
          "Llama head dim 128, GQA 4:1 (8 q / 2 kv heads), RoPE, RMSNorm, SwiGLU, LM head"),
    Entry("mistral", _hf("MistralForCausalLM", "MistralConfig",
                         dict(vocab_size=16000, hidden_size=1024, num_attention_heads=8, num_key_value_heads=2,
                              head_dim=128, intermediate_size=3584, num_hidden_layers=2,
                              max_position_embeddings=4096, sliding_window=4096),
                         _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 70,
          "Mistral-7B's head dim 128 and GQA 4:1, sliding window 4096, LM head"),
    Entry("qwen2", _hf("Qwen2ForCausalLM", "Qwen2Config",
                       dict(vocab_size=16000, hidden_size=896, num_attention_heads=14, num_key_value_heads=2,
                            intermediate_size=4864, num_hidden_layers=2, tie_word_embeddings=True,
                            max_position_embeddings=2048),
                       _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 70,
          "Qwen2-0.5B widths (14 q / 2 kv heads x 64, GQA 7:1, qkv bias), 2 of 24 layers, tied LM head"),
    Entry("gemma", _hf("GemmaForCausalLM", "GemmaConfig",
                       dict(vocab_size=16000, hidden_size=1024, num_attention_heads=4, num_key_value_heads=1,
                            head_dim=256, intermediate_size=4096, num_hidden_layers=2,
                            max_position_embeddings=2048),
                       _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 70,
          "Gemma-2B's head dim 256 and multi-query attention (1 kv head), GeGLU, tied LM head"),
    Entry("phi", _hf("PhiModel", "PhiConfig",
                     dict(vocab_size=16000, hidden_size=640, num_attention_heads=8, intermediate_size=2560,
                          num_hidden_layers=2, partial_rotary_factor=0.4, max_position_embeddings=2048),
                     _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 60,
          "Phi-2's head dim 80 and partial rotary (0.4), parallel attention/MLP, 2 layers"),
    Entry("falcon", _hf("FalconModel", "FalconConfig",
                        dict(vocab_size=16000, hidden_size=512, num_attention_heads=8, num_hidden_layers=2,
                             multi_query=True, parallel_attn=True, new_decoder_architecture=False,
                             alibi=False),
                        _decoder_inputs, ("input_ids",), use_cache=False), BOTH, 60,
          "Falcon-7B's multi-query attention (head dim 64, 1 kv head), parallel attention/MLP"),
    # Encoder-decoders: encoder 64 tokens, decoder 32 tokens, batch 2.
    Entry("t5", _hf("T5Model", "T5Config",
                    dict(vocab_size=8192, d_model=512, d_kv=64, d_ff=2048, num_layers=2,
                         num_decoder_layers=2, num_heads=8),
                    _seq2seq_inputs, ("input_ids", "decoder_input_ids"), use_cache=False), BOTH, 70,
          "T5-small widths, 2+2 layers; relative position bias, cross-attention"),
    Entry("bart", _hf("BartModel", "BartConfig",
                      dict(vocab_size=8192, d_model=768, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                           decoder_ffn_dim=3072, max_position_embeddings=1024),
                      _seq2seq_inputs, ("input_ids", "decoder_input_ids"), use_cache=False), BOTH, 70,
          "BART-base widths, 2+2 layers; causal SDPA and cross-attention SDPA"),
]
BY_NAME = {e.name: e for e in MODELS}


def tag(model, options, dtype, device):
    return f"{model}.{options}.{dtype}.{device}"


def packages(sets="default", filter_re=None):
    """The selected packages as (model, options, dtype, device), costliest first.

    sets: comma-separated names of SETS; filter_re: a regex searched in each tag."""
    out = []
    for s in sets.split(","):
        if s not in SETS:
            raise ValueError(f"unknown zoo set '{s}' (sets: {', '.join(SETS)})")
        for options, device, dtypes in SETS[s]:
            for e in MODELS:
                for dtype in dtypes:
                    if dtype in e.dtypes:
                        out.append((e.name, options, dtype, device))
    rx = re.compile(filter_re) if filter_re else None
    out = [p for p in dict.fromkeys(out) if rx is None or rx.search(tag(*p))]

    def cost(p):
        # Autotuning multiplies the work; CPU kernels are C++ compiled with -O3.
        return BY_NAME[p[0]].cost * (3 if p[1] == "executorch" else 2 if p[3] == "cpu" else 1)

    return sorted(out, key=cost, reverse=True)


def calibrate_batchnorm(m, inputs):
    """Sets every BatchNorm's running statistics to those of one forward pass
    over `inputs`, as training would have. With its initial statistics (mean
    0, variance 1) a random network's activations shrink or grow layer after
    layer: MobileNetV3's outputs were 1e-9 and EfficientNet's 1e-14 (their
    depthwise convolutions are initialised for a fan-out 9x their fan-in),
    which any wrong result would match within tolerance. Calibrated, every
    layer's output has about unit variance, as in a trained network."""
    import torch
    bns = [x for x in m.modules() if isinstance(x, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    momenta = [bn.momentum for bn in bns]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # a cumulative average: after one batch, that batch's statistics
    m.train()
    with torch.no_grad():
        m(*inputs)
    for bn, mom in zip(bns, momenta):
        bn.momentum = mom


def build(name, dtype, device):
    """(module, inputs) of a model, seeded, BatchNorm calibrated, in eval mode,
    in `dtype` on `device`. Integer inputs (token ids, masks) keep their dtype."""
    import torch
    torch.manual_seed(0)
    m, inputs = BY_NAME[name].build()
    calibrate_batchnorm(m, inputs)
    dt = getattr(torch, dtype)
    m = m.to(device=device, dtype=dt).eval()
    inputs = tuple(t.to(device=device, dtype=dt) if t.is_floating_point() else t.to(device) for t in inputs)
    return m, inputs


def time_eager(fn, device, iters, warmup):
    """Per-run latency of fn() in ms: {p50, p90, mean, min, iters, warmup}, timed
    the way aoti-run times a run: on CUDA an event before and after each run on
    the current stream, synchronised after each run, so host overhead counts;
    on the CPU the wall time of each run."""
    import time
    import torch
    for _ in range(warmup):
        fn()
    ms = []
    if device == "cuda":
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(iters):
            start.record()
            fn()
            end.record()
            end.synchronize()
            ms.append(start.elapsed_time(end))
    else:
        for _ in range(iters):
            t0 = time.perf_counter()
            fn()
            ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()

    def pct(p):
        return ms[min(len(ms) - 1, int(round(p / 100 * (len(ms) - 1))))]

    return {"p50": pct(50), "p90": pct(90), "mean": sum(ms) / len(ms), "min": ms[0],
            "iters": iters, "warmup": warmup}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the selected packages")
    ap.add_argument("--set", default="default", help="comma-separated: " + ", ".join(SETS))
    ap.add_argument("--filter", default=None, help='regex on "model.options.dtype.device"')
    a = ap.parse_args()
    try:
        sel = packages(a.set, a.filter)
    except (ValueError, re.error) as e:
        print(f"zoo.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    if a.list:
        for p in sel:
            print(" ".join(p))
    else:
        for e in MODELS:
            print(f"{e.name:20} {','.join(e.dtypes):18} {e.what}")


if __name__ == "__main__":
    main()
