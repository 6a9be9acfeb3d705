"""Control flow, for tests/integration/test_packages.py (issue 15): kernels inside
subgraphs, which the intermediate-value printer does not instrument.

ctl_cond:  torch.cond on flag.sum() > 0: the true branch is a Linear (an extern
           addmm) then relu + 1 (a cpp kernel), the false branch sigmoid * 2;
           a kernel before (the predicate) and one after (x * 3) in the main graph.
ctl_while: torch while_loop counting `it` down to 0, y = sin(y) + 1 each round:
           its cond graph and body graph each launch one kernel per iteration.
"""
import torch
from torch import nn


class Cond(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, flag):
        def t(x):
            return torch.relu(self.lin(x)) + 1

        def f(x):
            return torch.sigmoid(x) * 2
        return torch.cond(flag.sum() > 0, t, f, (x,)), x * 3


def ctl_cond():
    torch.manual_seed(3)
    return {"module": Cond().eval(), "inputs": (torch.randn(2, 4), torch.ones(3)), "dynamic": None}


class While(nn.Module):
    def forward(self, it, x):
        def cond_fn(i, y):
            return i > 0

        def body_fn(i, y):
            return i - 1, torch.sin(y) + 1
        return torch._higher_order_ops.while_loop(cond_fn, body_fn, (it, x))


def ctl_while():
    torch.manual_seed(4)
    return {"module": While().eval(), "inputs": (torch.tensor(3), torch.randn(2, 8)), "dynamic": None}


MODELS = {f.__name__: f for f in (ctl_cond, ctl_while)}
