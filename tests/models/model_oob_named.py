"""The index out of bounds traced to the element and to the model line, with the user's names
(issue 17; tests/integration/test_oob_element.py, test_nan_element.py and the 07 walkthrough).

oob_named: an item tower (an embedding of a 100-row table, then a Linear and relu) exported with
its input as the keyword argument `ids`, so the package's in_spec_ names it, and compiled with
provenance tracking, so each kernel names its line in this file. Fed an id of 137 the lookup's
`0 <= tmpN < 100` check fails.
"""
import torch
from torch import nn


class ItemTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.items = nn.Embedding(100, 16)
        self.proj = nn.Linear(16, 8)

    def forward(self, ids):
        h = self.items(ids)
        return torch.relu(self.proj(h))


def oob_named():
    torch.manual_seed(7)
    return {"module": ItemTower().eval(), "inputs": (),
            "kwargs": {"ids": torch.tensor([[3, 14, 15, 92], [65, 35, 89, 79]])}, "dynamic": None,
            "configs": {"trace.provenance_tracking_level": 1}}


MODELS = {"oob_named": oob_named}
