"""Exports a Llama-family decoder as a prefill and a decode model in one package.

The decoder is transformers' LlamaForCausalLM built from a config (the zoo's
Llama widths: head dim 128, 8 query and 2 key/value heads, RoPE, RMSNorm,
SwiGLU; random weights from a seed). StaticLlama runs its modules with a
static KV cache: one buffer per layer for keys and one for values, written in
place with index_copy_ at the positions given, and attention over the whole
cache under a causal mask taken at those positions. Both models return the
greedy next token and the position after the last one, so the outputs of one
step are the inputs of the next, on the device:

  prefill(tokens [1, T], positions [T])  T dynamic, 2 .. max_seq
  decode (tokens [1, 1], positions [1])
    -> next_token int64 [1, 1], next_position int64 [1]

Both are exported LibTorch-free with torch's defaults otherwise
(aot_inductor.link_libtorch=False) and packaged with package_aoti under
data/aotinductor/prefill/ and decode/. They hold the same parameters and
caches; the runner shares them (aoti::backend::ConstantPool), as ExecuTorch's
CUDA backend shares its prefill and decode methods' weights.

Then it writes the reference: the prompt as prompt.npy and the tokens eager
transformers' generate() picks greedily (its own dynamic cache, not this
file's), as expected.npy, and, as a check of StaticLlama itself, the tokens
its eager prefill and decode loop give.

  python export_llama.py OUT_DIR [--device cuda] [--steps 32] [--prompt-len 12] [--tiny]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CONFIG = dict(vocab_size=16000, hidden_size=1024, num_attention_heads=8, num_key_value_heads=2,
              head_dim=128, intermediate_size=2816, num_hidden_layers=2,
              max_position_embeddings=2048, attention_bias=False,
              tie_word_embeddings=False)


# A decoder of the same architecture small enough to keep as a test fixture.
TINY = dict(CONFIG, vocab_size=512, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
            head_dim=16, intermediate_size=128)


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rope_theta(c):
    """RoPE's base, where this transformers keeps it (rope_parameters from 4.56)."""
    params = getattr(c, "rope_parameters", None) or {}
    return params.get("rope_theta") or getattr(c, "rope_theta", 10000.0)


class StaticLlama(nn.Module):
    def __init__(self, hf, max_seq):
        super().__init__()
        self.hf = hf
        c = hf.config
        self.q_heads, self.kv_heads, self.head_dim = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        for i in range(c.num_hidden_layers):
            self.register_buffer(f"k_cache_{i}", torch.zeros(1, self.kv_heads, max_seq, self.head_dim))
            self.register_buffer(f"v_cache_{i}", torch.zeros(1, self.kv_heads, max_seq, self.head_dim))
        self.register_buffer("causal", torch.tril(torch.ones(max_seq, max_seq, dtype=torch.bool)),
                             persistent=False)
        inv_freq = 1.0 / (rope_theta(c) ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, tokens, positions):
        m = self.hf.model
        t = tokens.shape[1]
        x = m.embed_tokens(tokens)
        freqs = positions.to(torch.float32)[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        mask = self.causal[positions][None, None]  # [1, 1, T, max_seq]
        group = self.q_heads // self.kv_heads
        for i, layer in enumerate(m.layers):
            a = layer.self_attn
            h = layer.input_layernorm(x)
            q = a.q_proj(h).view(1, t, self.q_heads, self.head_dim).transpose(1, 2)
            k = a.k_proj(h).view(1, t, self.kv_heads, self.head_dim).transpose(1, 2)
            v = a.v_proj(h).view(1, t, self.kv_heads, self.head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            kc, vc = getattr(self, f"k_cache_{i}"), getattr(self, f"v_cache_{i}")
            kc.index_copy_(2, positions, k)
            vc.index_copy_(2, positions, v)
            o = F.scaled_dot_product_attention(q, kc.repeat_interleave(group, dim=1),
                                               vc.repeat_interleave(group, dim=1), attn_mask=mask)
            x = x + a.o_proj(o.transpose(1, 2).reshape(1, t, self.q_heads * self.head_dim))
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        logits = self.hf.lm_head(m.norm(x[:, -1:]))
        return logits.argmax(-1), positions[-1:] + 1


def eager_loop(model, prompt, steps):
    """StaticLlama's own prefill and decode, eager."""
    tok, pos = model(prompt, torch.arange(prompt.shape[1], device=prompt.device))
    out = [tok]
    for _ in range(steps - 1):
        tok, pos = model(tok, pos)
        out.append(tok)
    return torch.cat(out, dim=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--prompt-len", type=int, default=12)
    ap.add_argument("--max-seq", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tiny", action="store_true", help="the fixture's widths (TINY)")
    a = ap.parse_args()
    from transformers import LlamaConfig, LlamaForCausalLM
    from torch._inductor.package import package_aoti

    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(a.seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(a.device)
    config = TINY if a.tiny else CONFIG
    hf = LlamaForCausalLM(LlamaConfig(**config)).to(dev).eval()
    prompt = torch.randint(0, config["vocab_size"], (1, a.prompt_len), device=dev)

    with torch.no_grad():
        ref = hf.generate(prompt, max_new_tokens=a.steps, min_new_tokens=a.steps, do_sample=False,
                          eos_token_id=None, pad_token_id=0)[:, a.prompt_len:]
        mine = eager_loop(StaticLlama(hf, a.max_seq).to(dev).eval(), prompt, a.steps)

    cfg = {"aot_inductor.link_libtorch": False, "aot_inductor.package": True}
    files = {}
    model = StaticLlama(hf, a.max_seq).to(dev).eval()
    seq = torch.export.Dim("seq", min=2, max=a.max_seq)
    with torch.no_grad():
        for name, args, shapes in [
            ("prefill", (prompt, torch.arange(a.prompt_len, device=dev)), ({1: seq}, {0: seq})),
            # A fresh example, not a slice of the prompt: the model checks its
            # inputs' strides against its example's, size-1 dimensions included
            # (prompt[:, :1] has strides (T, 1), which the next token has not).
            ("decode", (torch.full((1, 1), int(prompt[0, 0]), device=dev),
                        torch.zeros(1, dtype=torch.long, device=dev)), None),
        ]:
            ep = torch.export.export(model, args, dynamic_shapes=shapes, strict=False)
            files[name] = torch._inductor.aot_compile(ep.module(), args, options=cfg)
    pkg = os.path.join(a.out, "llama.pt2")
    package_aoti(pkg, files)
    np.save(os.path.join(a.out, "prompt.npy"), prompt.cpu().numpy())
    np.save(os.path.join(a.out, "expected.npy"), ref.cpu().numpy())
    summary = {"package": pkg, "prompt_len": a.prompt_len, "steps": a.steps, "device": a.device,
               "config": config, "max_seq": a.max_seq,
               "static_cache_eager_matches_generate": bool(torch.equal(ref, mine))}
    with open(os.path.join(a.out, "export.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary))
    return 0 if summary["static_cache_eager_matches_generate"] else 1


if __name__ == "__main__":
    sys.exit(main())
