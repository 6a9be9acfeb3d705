"""The value-budget model (issue 7 item 2): a few kernels over 64x64 float32
tensors (4096 elements each), so a run with --values keeps far more values
than a small --values-budget allows and later tensors get cut.

values_budget: Linear -> ReLU -> Linear -> tanh*2 -> Linear -> softmax.
"""
import torch
from torch import nn


class BudgetNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(64, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, 64)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        h = torch.tanh(self.l2(h)) * 2
        return torch.softmax(self.l3(h), dim=-1)


def values_budget():
    torch.manual_seed(7)
    return {"module": BudgetNet().eval(), "inputs": (torch.randn(64, 64),), "dynamic": None}


MODELS = {"values_budget": values_budget}
