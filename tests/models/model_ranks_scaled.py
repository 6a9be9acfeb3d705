"""A model whose ranks should agree after an all_reduce and do not when their inputs say so,
for `aotidbg run --ranks N`'s agreement check (tests/integration/test_ranks.py).

ranks_scaled: relu(x) summed over the ranks with the functional all_reduce of the default
              group, then h * w + 1 and a row sum: w is an input, meant to be the same on
              every rank (a weight each rank loads); a rank given another w computes
              other values from the same reduced h, and the ranks diverge at that kernel.
Compiled inside a world of one, as model_ranks.py's model is.
"""
import torch
from torch import nn

from model_ranks import one_rank_world


class AllReduceScaled(nn.Module):
    def forward(self, x, w):
        import torch.distributed as dist
        import torch.distributed._functional_collectives as funcol
        h = torch.relu(x)
        h = funcol.all_reduce(h, "sum", dist.group.WORLD)
        y = h * w + 1.0
        return y, y.sum(dim=1)


def ranks_scaled():
    torch.manual_seed(34)
    return {"module": AllReduceScaled().eval(), "inputs": (torch.randn(4, 8), torch.randn(8)), "dynamic": None,
            "guard": one_rank_world}


MODELS = {"ranks_scaled": ranks_scaled}
