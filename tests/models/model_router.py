"""Packages for the error router's tests (tests/integration/test_route.py).

router_gather: gathers rows of a table whose row count is dynamic, with
indices given as a second input. With a dynamic table size the generated
kernel checks `0 <= tmpN < ksM` against a symbolic size, exactly the
condition a triton-index-oob assert prints; the test maps it back to the
input index and dimension through the real wrapper.cpp.
"""
import torch


class Gather(torch.nn.Module):
    def forward(self, table, idx):
        rows = torch.index_select(table, 0, idx)
        return torch.relu(rows) * 2.0


def router_gather():
    table = torch.randn(16, 8)
    idx = torch.tensor([0, 3, 5, 15, 2, 7], dtype=torch.int64)
    rows = torch.export.Dim("rows", min=2, max=4096)
    n = torch.export.Dim("n", min=2, max=4096)
    return {
        "module": Gather().eval(),
        "inputs": (table, idx),
        "dynamic": {"table": {0: rows}, "idx": {0: n}},
    }


MODELS = {"router_gather": router_gather}
