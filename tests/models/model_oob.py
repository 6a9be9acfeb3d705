"""Packages for index-out-of-bounds down to the element (issue 17, tests/integration/test_oob_element.py
and the 07 walkthrough).

oob_embedding: an embedding of a 100-row table (a weight: the kernel's bound is the literal 100) then
relu; the ids are the input. Fed an id of 137 (or -150: after Python's wrap of negative indices still
below 0) the generated kernel's `0 <= tmpN < 100` check fails.

oob_scatter: index_put and scatter past the rows of an 8-row tensor (the bound is the literal 8), each
fed its own index input, so one bad input makes one kernel fail.
"""
import torch


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 16)

    def forward(self, ids):
        h = self.emb(ids)
        return torch.relu(h) * 2.0


class Scatters(torch.nn.Module):
    def forward(self, base, put_idx, scat_idx, src):
        put = base.clone()
        put[put_idx] = 1.0
        sc = torch.zeros_like(base).scatter_(0, scat_idx, src)
        return put + 1.0, sc * 3.0


def oob_embedding():
    torch.manual_seed(0)
    return {"module": Embed().eval(), "inputs": (torch.tensor([[1, 5, 7, 2], [9, 3, 4, 8]]),), "dynamic": None}


def oob_scatter():
    base = torch.randn(8, 4)
    put_idx = torch.tensor([0, 3, 5], dtype=torch.int64)
    scat_idx = torch.tensor([[0, 1, 2, 3], [4, 5, 6, 7]], dtype=torch.int64)
    src = torch.randn(2, 4)
    return {"module": Scatters().eval(), "inputs": (base, put_idx, scat_idx, src), "dynamic": None}


MODELS = {"oob_embedding": oob_embedding, "oob_scatter": oob_scatter}
