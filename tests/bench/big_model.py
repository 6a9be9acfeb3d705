"""Builds the load benchmarks' big packages: a llama-style decoder compiled with AOTI.

usage: python3 tests/bench/big_model.py OUTDIR cpu    # ~538 MB of float32 weights, CPU
       python3 tests/bench/big_model.py OUTDIR cuda   # ~1.2B bfloat16 parameters (2.4 GB), CUDA

Writes OUTDIR/llama_<kind>.pt2 (printer level 1, weights in the .so, as AOTI packages them
by default) and OUTDIR/llama_<kind>.inputs.yaml (the token ids, for aotidbg --inputs and the
plain loader), and prints the package path. A package is rebuilt only when this file or torch
changes (tests/models/make_models.py's stamp), so the benchmark's second run starts at once.
"""
import importlib.util
import hashlib
import os
import sys

import torch
from torch import nn

SHAPES = {   # vocab, dim, layers, heads, ffn, tokens, dtype, tied (the head reuses the embedding)
    # 32000*768*2 + 12*(4*768^2 + 3*768*2048) = 134.1M float32 parameters = 537 MB
    "cpu": (32000, 768, 12, 12, 2048, 16, torch.float32, False),
    # Llama-3.2-1B's proportions: 128256*2048 + 16*(4*2048^2 + 3*2048*7168) = 1.24B bfloat16 = 2.47 GB
    "cuda": (128256, 2048, 16, 16, 7168, 16, torch.bfloat16, True),
}


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w


class Block(nn.Module):
    def __init__(self, dim, heads, ffn):
        super().__init__()
        self.heads = heads
        self.n1, self.n2 = RMSNorm(dim), RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.gate_up = nn.Linear(dim, 2 * ffn, bias=False)
        self.down = nn.Linear(ffn, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)

        def rope(u):
            u1, u2 = u.chunk(2, -1)
            return torch.cat((u1 * cos - u2 * sin, u2 * cos + u1 * sin), -1)

        a = nn.functional.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        g, u = self.gate_up(self.n2(x)).chunk(2, -1)
        return x + self.down(nn.functional.silu(g) * u)


class Llama(nn.Module):
    def __init__(self, vocab, dim, layers, heads, ffn, tokens, tied):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        if tied:
            self.head.weight = self.emb.weight
        half = dim // heads // 2
        ang = torch.arange(tokens)[:, None] * (10000.0 ** (-torch.arange(half) / half))[None]
        self.register_buffer("cos", ang.cos(), persistent=True)
        self.register_buffer("sin", ang.sin(), persistent=True)

    def forward(self, ids):
        x = self.emb(ids)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        for blk in self.blocks:
            x = blk(x, cos, sin)
        return self.head(self.norm(x)[:, -1])


def builder(kind):
    vocab, dim, layers, heads, ffn, tokens, dtype, tied = SHAPES[kind]

    def build():
        torch.manual_seed(0)
        with torch.device(kind):   # on the GPU, 1.2B parameters initialise in a second
            m = Llama(vocab, dim, layers, heads, ffn, tokens, tied).to(dtype).eval()
        ids = torch.randint(0, vocab, (1, tokens), device=kind)
        return {"module": m, "inputs": (ids,), "dynamic": None}
    return build


def main(argv):
    if len(argv) != 3 or argv[2] not in SHAPES:
        raise SystemExit(__doc__)
    outdir, kind = argv[1], argv[2]
    os.makedirs(outdir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("make_models", os.path.join(here, "..", "models", "make_models.py"))
    mm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mm)
    with open(os.path.abspath(__file__), "rb") as f:
        src_hash = hashlib.sha256(f.read() + kind.encode()).hexdigest()
    name = f"llama_{kind}"
    pkg = mm.build(outdir, name, builder(kind), src_hash)
    tokens = SHAPES[kind][5]
    with open(os.path.join(outdir, name + ".inputs.yaml"), "w") as f:
        f.write(f"inputs:\n  - {{shape: [1, {tokens}], dtype: int64, device: {kind}, fill: arange}}\n")
    print(pkg, flush=True)


if __name__ == "__main__":
    main(sys.argv)
