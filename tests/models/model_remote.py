"""Models for the remote benchmark (tests/bench/bench_remote.py).

remote_chain: 50 rounds of relu(x @ w_i) on [16, 64] with its own small weight
              each round: 100 cheap kernels (an extern mm and a fused relu per
              round), so a run's time is the transport's, not the arithmetic's.
"""
import torch
from torch import nn


class Chain(nn.Module):
    def __init__(self, rounds=50, width=64):
        super().__init__()
        self.w = nn.ParameterList([nn.Parameter(torch.randn(width, width) / width ** 0.5) for _ in range(rounds)])

    def forward(self, x):
        for w in self.w:
            x = torch.relu(x @ w)
        return x


def remote_chain():
    torch.manual_seed(20)
    return {"module": Chain().eval(), "inputs": (torch.randn(16, 64),), "dynamic": None}


MODELS = {"remote_chain": remote_chain}
