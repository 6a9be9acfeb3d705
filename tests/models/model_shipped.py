"""The issue-10 models: one model built twice, as shipped (printer off) and
with the intermediate-value printer at level 1, so a re-instrumented run of
the first can be compared kernel by kernel with the second.

shipped_p0:  Linear -> LayerNorm -> ReLU -> Linear, rows picked by an int64
             index input, dynamic batch; printer OFF (what users ship).
shipped_p1:  the same module, same weights, printer level 1.
"""
import torch
from torch import nn


class Shipped(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.ln = nn.LayerNorm(24)
        self.fc2 = nn.Linear(24, 6)

    def forward(self, x, idx):
        h = torch.relu(self.ln(self.fc1(x)))
        y = self.fc2(h)
        return y[idx] * 2.0, h.sum(-1)


def _spec(printer):
    torch.manual_seed(10)
    m = Shipped().eval()
    x = torch.randn(5, 12)
    idx = torch.tensor([4, 0, 2], dtype=torch.int64)
    batch = torch.export.Dim("batch", min=2, max=64)
    return {"module": m, "inputs": (x, idx), "dynamic": {"x": {0: batch}, "idx": None},
            "configs": {"aot_inductor.debug_intermediate_value_printer": printer}}


def shipped_p0():
    return _spec("0")


def shipped_p1():
    return _spec("1")


MODELS = {"shipped_p0": shipped_p0, "shipped_p1": shipped_p1}
