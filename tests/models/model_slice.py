"""A package with 3-d after-tensors for the inspector's value grid over 2-D
slices (tests/integration/test_value_grid.py).

slice3d: x of shape [3, 4, 5] (every dim a different size, so a swapped
         axis shows) -> sin(x) * 2 + x (finite) and log(x) (NaN where x < 0,
         for the hunt's "cursor on the first bad value").
"""
import torch
from torch import nn


class Slice3d(nn.Module):
    def forward(self, x):
        return torch.sin(x) * 2 + x, torch.log(x)


def slice3d():
    torch.manual_seed(7)
    return {"module": Slice3d().eval(), "inputs": (torch.randn(3, 4, 5),), "dynamic": None}


MODELS = {"slice3d": slice3d}
