"""A package for the eager reference built the usual way (tests/integration/test_eager.py).

eager_gpt: a 6-layer nanoGPT (d=64, 4 heads, seq 16, batch 2, float32), with
the printer on and no provenance tracking: CPU cpp_fused_* calls name no
graph node, every Linear is an addmm on a 2-D view of a 3-D node, and the
residual stream is one buffer updated in place. Programs beside it: `same`
(the program it was compiled from) and `fc3` (row 17 of blocks.3.fc.weight
changed: the first kernel that reads it is the addmm of block 3's MLP).

eager_gpt_bf16: the same in bfloat16 (its own program only: fused kernels
round once where eager rounds per op, within the default tolerances).

eager_convbn: a conv-bn-relu net (three convolutions, batch norms, a pooled
linear head), its own program and `bn1` (blocks.1.bn.weight changed).

eager_kv: one attention block reading and updating a key/value cache held as
buffers (index_copy into the cache, attention over it): its own program.
"""
import copy

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=96, d=64, heads=4, layers=6, seq=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def changed_row(module, fqn, row, scale):
    """A copy of module with row `row` of weight fqn multiplied by scale."""
    m = copy.deepcopy(module)
    with torch.no_grad():
        m.get_parameter(fqn)[row].mul_(scale)
    return m


def eager_gpt():
    torch.manual_seed(11)
    m = GPT().eval()
    return {
        "module": m,
        "inputs": (torch.randint(0, 96, (2, 16)),),
        "dynamic": None,
        "programs": {"same": m, "fc3": changed_row(m, "blocks.3.fc.weight", 17, -2.0)},
    }


def eager_gpt_bf16():
    torch.manual_seed(11)
    m = GPT().eval().to(torch.bfloat16)
    return {
        "module": m,
        "inputs": (torch.randint(0, 96, (2, 16)),),
        "dynamic": None,
        "programs": {"same": m},
    }


class ConvBN(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([ConvBN(3, 8), ConvBN(8, 16), ConvBN(16, 16)])
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x.mean(dim=(2, 3)))


def eager_convbn():
    torch.manual_seed(12)
    m = ConvNet().eval()
    with torch.no_grad():
        for b in m.blocks:   # trained-looking statistics
            b.bn.running_mean.uniform_(-0.2, 0.2)
            b.bn.running_var.uniform_(0.5, 1.5)
    return {
        "module": m,
        "inputs": (torch.randn(2, 3, 16, 16),),
        "dynamic": None,
        "programs": {"same": m, "bn1": changed_row(m, "blocks.1.bn.weight", 3, 1.5)},
    }


class KVBlock(nn.Module):
    def __init__(self, d=32, heads=2, cache=16):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("k_cache", torch.zeros(1, heads, cache, d // heads))
        self.register_buffer("v_cache", torch.zeros(1, heads, cache, d // heads))

    def forward(self, x, pos):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        y = nn.functional.scaled_dot_product_attention(q, self.k_cache, self.v_cache)
        return x + self.proj(y.transpose(1, 2).reshape(b, t, d))


def eager_kv():
    torch.manual_seed(13)
    m = KVBlock().eval()
    return {
        "module": m,
        "inputs": (torch.randn(1, 4, 32), torch.arange(4)),
        "dynamic": None,
        "programs": {"same": m},
    }


MODELS = {"eager_gpt": eager_gpt, "eager_gpt_bf16": eager_gpt_bf16, "eager_convbn": eager_convbn,
          "eager_kv": eager_kv}
