"""Packages for the eager reference (tests/integration/test_eager.py, issue 18).

eager_blocks: three residual blocks (Linear, LayerNorm, ReLU) and a head in
float32, compiled with provenance (kernel_information.json), with three
exported programs beside it: `same` (the program the package comes from),
`ln1` (blocks.1.ln.weight changed: the first kernel that reads it is a fused
C++ layer-norm kernel) and `fc2` (blocks.2.fc.weight changed: an extern
addmm reads it). The package compared with `ln1` or `fc2` is a stale package
against a changed model; with `same`, nothing departs.

eager_half: a float16 block model (Linear, LayerNorm, GELU, residual), whose
fused kernels round differently from eager's op-by-op float16 and stay within
the default tolerances.
"""
import copy

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width, act):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.ln = nn.LayerNorm(width)
        self.act = act

    def forward(self, x):
        return self.act(self.ln(self.fc(x))) + x


class Blocks(nn.Module):
    def __init__(self, width=16, n=3, act=torch.relu, out=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, act) for _ in range(n)])
        self.head = nn.Linear(width, out)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(torch.tanh(x))


def changed(module, fqn, scale):
    """A copy of module with the weight fqn multiplied by scale (a retrained layer)."""
    m = copy.deepcopy(module)
    with torch.no_grad():
        m.get_parameter(fqn).mul_(scale)
    return m


def eager_blocks():
    torch.manual_seed(5)
    m = Blocks().eval()
    return {
        "module": m,
        "inputs": (torch.randn(4, 16),),
        "dynamic": None,
        "configs": {"trace.provenance_tracking_level": 1},
        "programs": {"same": m, "ln1": changed(m, "blocks.1.ln.weight", 1.5),
                     "fc2": changed(m, "blocks.2.fc.weight", -1.0)},
    }


def eager_half():
    torch.manual_seed(6)
    m = Blocks(width=32, act=nn.functional.gelu, out=8).eval().half()
    return {
        "module": m,
        "inputs": (torch.randn(8, 32).half(),),
        "dynamic": None,
        "configs": {"trace.provenance_tracking_level": 1},
        "programs": {"same": m},
    }


MODELS = {"eager_blocks": eager_blocks, "eager_half": eager_half}
