"""A package whose weights go through constant folding at run time
(aot_inductor.use_runtime_constant_folding), for --eager's weight comparison
(tests/integration/test_eager_usual.py): the container makes a folded
constant from w_pre and b at its first run, which no program weight matches.

eager_folded: x @ (relu(w_pre.t()) + b) + lin(x); its own program (`same`)
and `wpre` (row 2 of w_pre scaled by 3).
"""
import copy

import torch
from torch import nn


class Folded(nn.Module):
    def __init__(self):
        super().__init__()
        self.w_pre = nn.Parameter(torch.randn(8, 8))
        self.b = nn.Parameter(torch.randn(8))
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        w = torch.relu(self.w_pre.t()) + self.b
        return x @ w + self.lin(x)


def eager_folded():
    torch.manual_seed(14)
    m = Folded().eval()
    changed = copy.deepcopy(m)
    with torch.no_grad():
        changed.w_pre[2].mul_(3.0)
    return {
        "module": m,
        "inputs": (torch.randn(4, 8),),
        "dynamic": None,
        "configs": {"aot_inductor.use_runtime_constant_folding": True},
        "programs": {"same": m, "wpre": changed},
    }


MODELS = {"eager_folded": eager_folded}
