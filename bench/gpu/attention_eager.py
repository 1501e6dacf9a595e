"""Eager torch's fused attention kernels at the shapes of attention_cuda_bench.

    python3 attention_eager.py

Times torch.ops.aten._scaled_dot_product_{efficient,flash,cudnn}_attention
the way build/bin/shims_attention_cuda_bench times the shims' fallbacks: a
CUDA event before and after one call on the current stream, synchronised
after each call; prints the median in microseconds per shape, variant and
dtype (the same names as the C++ benchmark). A variant torch refuses for a
shape or dtype (flash and cuDNN take no float32) prints its error instead.
"""
import statistics

import torch

SHAPES = [
    ("bert_base", 1, 12, 12, 128, 64, False),
    ("vit_b16", 1, 12, 12, 197, 64, False),
    ("gpt2_1024", 1, 12, 12, 1024, 64, True),
    ("llama_gqa_2048", 1, 32, 8, 2048, 128, True),
    ("whisper_tiny_enc", 1, 6, 6, 1500, 64, False),
    ("whisper_large_enc", 1, 20, 20, 1500, 64, False),
]


def call(variant, q, k, v, causal):
    aten = torch.ops.aten
    if variant == "efficient":
        return aten._scaled_dot_product_efficient_attention(q, k, v, None, False, 0.0, causal)
    if variant == "flash":
        return aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal)
    return aten._scaled_dot_product_cudnn_attention(q, k, v, None, False, 0.0, causal, False)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, b, h, hk, length, e, causal in SHAPES:
        for variant in ("efficient", "flash", "cudnn"):
            for dtype, dname in ((torch.bfloat16, "bf16"), (torch.float32, "f32")):
                q = torch.randn(b, h, length, e, device="cuda", dtype=dtype)
                k = torch.randn(b, hk, length, e, device="cuda", dtype=dtype)
                v = torch.randn(b, hk, length, e, device="cuda", dtype=dtype)
                label = f"{name}/{variant}/{dname}"
                try:
                    for _ in range(5):
                        call(variant, q, k, v, causal)
                    times = []
                    start = torch.cuda.Event(enable_timing=True)
                    stop = torch.cuda.Event(enable_timing=True)
                    for _ in range(50):
                        start.record()
                        call(variant, q, k, v, causal)
                        stop.record()
                        stop.synchronize()
                        times.append(start.elapsed_time(stop) * 1e3)
                    print(f"{label:40s} {statistics.median(times):10.1f} us")
                except RuntimeError as err:
                    print(f"{label:40s} refused: {str(err).splitlines()[0]}")


if __name__ == "__main__":
    main()
