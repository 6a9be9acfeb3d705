"""Long loops, for tests/integration/test_loop.py: a while_loop whose round count and the round
that plants a NaN are inputs, so one package serves 200 rounds or 200000.

loop_nan: (n, k, x) -> (i, y): i counts 0..n; each round y = sin(y) + 1, plus NaN in the round
          where i == k (k >= n: never). Cond graph and body graph each launch kernels every round.
loop_wide: loop_nan's loop over a [64, 128] float32 y (8192 elements a tensor): what reading values
           costs a long loop (tests/bench/bench_loop.py --live).
"""
import torch
from torch import nn


class LoopNan(nn.Module):
    def forward(self, n, k, x):
        def cond_fn(i, y):
            return i < n

        def body_fn(i, y):
            bad = torch.where(i == k, torch.full_like(y, float("nan")), torch.zeros_like(y))
            return i + 1, torch.sin(y) + 1 + bad
        return torch._higher_order_ops.while_loop(cond_fn, body_fn, (torch.zeros_like(n), x))


def loop_nan():
    torch.manual_seed(5)
    return {"module": LoopNan().eval(), "inputs": (torch.tensor(200), torch.tensor(150), torch.randn(2, 8)),
            "dynamic": None}


def loop_wide():
    torch.manual_seed(6)
    return {"module": LoopNan().eval(), "inputs": (torch.tensor(200), torch.tensor(150), torch.randn(64, 128)),
            "dynamic": None}


MODELS = {f.__name__: f for f in (loop_nan, loop_wide)}
