"""Packages for the provenance tests (tests/integration/test_provenance.py).

provenance: a small layered model compiled with provenance tracking on
(trace.provenance_tracking_level 1), so the package carries
kernel_information.json: an embedding, three residual blocks (Linear,
LayerNorm, ReLU) run in a loop, a log (NaN for most inputs: h - 10 < 0) and
a head. Every kernel's stack traces point into this file; the blocks' kernels
pass the weights blocks.N.*, which is how the kernel list groups them.
The test reads this file's lines to check the source lines aotidbg shows.
"""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, x):
        return torch.relu(self.ln(self.fc(x))) + x


class Layered(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.blocks = nn.ModuleList([Block() for _ in range(3)])
        self.head = nn.Linear(16, 4)

    def forward(self, idx):
        h = self.emb(idx)
        for b in self.blocks:
            h = b(h)
        h = torch.log(h - 10.0)
        return self.head(h)


def provenance():
    torch.manual_seed(3)
    return {
        "module": Layered().eval(),
        "inputs": (torch.tensor([[1, 5, 7, 99]], dtype=torch.int64),),
        "dynamic": None,
        "configs": {"trace.provenance_tracking_level": 1},
    }


MODELS = {"provenance": provenance}
