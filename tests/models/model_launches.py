"""Packages for "every launch accounted for" and "anomalies that mean something"
(tests/integration/test_launches.py).

launch_gpt:    a 2-block GPT-style decoder (token and position embedding,
               causal scaled_dot_product_attention, MLP), printer OFF: the
               attention is an extern fallback call whose arguments are
               reinterpret_tensor_wrapper views; re-instrumentation must hook it.
launch_convbn: conv -> batchnorm -> relu twice (eval, not frozen): the
               convolutions are extern calls whose outputs must be recorded.
launch_masked: a correct transformer block whose attention uses an additive
               -inf causal mask and masked_fill padding: -inf everywhere in the
               mask (it returns its masked scores too), no NaN anywhere;
               --break-on nan runs it to the end, --break-on nonfinite stops.
launch_kvcache: a kv-cache block that writes k/v at positions `pos` (a keyword
               input) into an 8-slot cache; fed a position past the cache (19)
               the generated kernel's index check fails inside an OpenMP region
               and the runner dies of SIGABRT.
"""
import torch

HASH_PER_MODEL = False   # the builders share module classes: the file hash rebuilds on any edit


class Block(torch.nn.Module):
    def __init__(self, d, heads, causal=True):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, 4 * d)
        self.out = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class Gpt(torch.nn.Module):
    def __init__(self, vocab=64, d=32, t=8, layers=2, heads=2):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(t, d)
        self.blocks = torch.nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def launch_gpt():
    torch.manual_seed(0)
    return {"module": Gpt().eval(), "inputs": (torch.randint(0, 64, (2, 8)),),
            "configs": {"aot_inductor.debug_intermediate_value_printer": "0"}}


class ConvBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 4, 3, padding=1)
        self.b2 = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.b2(self.c2(torch.relu(self.b1(self.c1(x))))))


def launch_convbn():
    torch.manual_seed(0)
    m = ConvBn().eval()
    with torch.no_grad():
        for bn in (m.b1, m.b2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 1.5)
    return {"module": m, "inputs": (torch.randn(1, 3, 8, 8),)}


class Masked(torch.nn.Module):
    def __init__(self, d=16, t=6):
        super().__init__()
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.register_buffer("causal", torch.triu(torch.full((t, t), float("-inf")), diagonal=1))

    def forward(self, x, pad):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        s = q @ k.transpose(-1, -2) / 4.0 + self.causal
        s = s.masked_fill(pad[:, None, :], float("-inf"))
        return self.proj(torch.softmax(s, dim=-1) @ v), s   # the masked scores too, as models returning logits do


def launch_masked():
    torch.manual_seed(0)
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, 4:] = True   # the last two tokens of the second sequence are padding (never the first: a row stays finite)
    m = Masked().eval()
    return {"module": m, "inputs": (torch.randn(2, 6, 16), pad), "programs": {"same": m}}


class KvCache(torch.nn.Module):
    def __init__(self, d=512, slots=8):
        super().__init__()
        self.kv = torch.nn.Linear(d, 2 * d)
        self.register_buffer("k_cache", torch.zeros(slots, d))
        self.register_buffer("v_cache", torch.zeros(slots, d))

    def forward(self, x, *, pos):
        k, v = self.kv(x).chunk(2, dim=-1)
        kc = self.k_cache.index_put((pos,), k)
        vc = self.v_cache.index_put((pos,), v)
        return torch.softmax(x @ kc.t(), dim=-1) @ vc


def launch_kvcache():
    torch.manual_seed(0)
    return {"module": KvCache().eval(), "inputs": (torch.randn(4, 512),), "kwargs": {"pos": torch.tensor([0, 1, 2, 3])}}


MODELS = {"launch_gpt": launch_gpt, "launch_convbn": launch_convbn, "launch_masked": launch_masked,
          "launch_kvcache": launch_kvcache}
