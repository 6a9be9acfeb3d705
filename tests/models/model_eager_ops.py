"""A package for the eager reference's two ways (tests/integration/test_eager.py, issue 18).

eager_ops: one float32 CPU model whose exported program holds the argument and
result kinds the runner's interpreter maps (core/runner/eager_graph.cpp): a
weight and a buffer, an int64 input (embedding), ops returning several tensors
(split_with_sizes: a Tensor[] result; max.dim: two), lists of tensors (cat),
optional tensor lists (index), dtypes, devices and layouts (arange, zeros,
_to_copy), views (view, permute, unbind), a string argument (gelu's approximate),
and a number where the op's schema wants a Tensor (add.Tensor(x, 1e-3)).
Compiled with provenance, so each kernel names the graph nodes it computes.
"""
import torch
from torch import nn


class Ops(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 16)
        self.emb = nn.Embedding(16, 8)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 32))

    def forward(self, x, ids):
        h = self.fc(x) * self.scale
        a, b = h.split([20, 12], dim=-1)
        c = self.fc2(torch.cat([a.relu(), nn.functional.gelu(b, approximate="tanh")], dim=-1))
        m, idx = c.max(dim=-1, keepdim=True)
        e = self.emb(ids.to(torch.int32))
        z = torch.zeros(4, 16, 2) + c.view(4, 2, 16).permute(0, 2, 1)
        s = self.fc3(torch.softmax(z, dim=1).reshape(4, 32))
        g = c[torch.arange(4), idx.squeeze(-1) % 8]
        w = (torch.where(c > 0.5, c, torch.zeros_like(c)) + 1e-3).mean(dim=-1)
        q, k = c.view(4, 2, 16).unbind(1)
        return s + nn.functional.layer_norm(c, (32,))[:, :16], m * e.sum(), w, g, q * k


def eager_ops():
    torch.manual_seed(8)
    m = Ops().eval()
    return {
        "module": m,
        "inputs": (torch.randn(4, 16), torch.randint(0, 16, (4,))),
        "dynamic": None,
        "configs": {"trace.provenance_tracking_level": 1},
        "programs": {"same": m},
    }


MODELS = {"eager_ops": eager_ops}
