"""The user's input and output names, for tests/integration/test_packages.py (issue 15).

names_kw: forward(x, mask) exported with both as keyword arguments, returning
          {"out": ..., "aux": ...}: in_spec_ holds the names x and mask,
          out_spec_ out and aux (AOTI itself calls them arg0_1/arg1_1, output0/1).
"""
import torch
from torch import nn


class Named(nn.Module):
    def forward(self, x, mask):
        y = torch.where(mask > 0, x * 2, x - 1)
        return {"out": y.relu(), "aux": y.sum(0)}


def names_kw():
    torch.manual_seed(5)
    return {"module": Named().eval(), "inputs": (),
            "kwargs": {"x": torch.randn(3, 4), "mask": torch.randn(3, 4)}, "dynamic": None}


MODELS = {"names_kw": names_kw}
