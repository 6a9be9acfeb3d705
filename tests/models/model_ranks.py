"""Models with collectives, for `aotidbg run --ranks N` (tests/integration/test_ranks.py).

ranks_allreduce: relu(x @ w)[idx] (rows picked by an int64 index: an index outside
                 0..3 fails that rank's kernel before the collective), summed over the
                 ranks with the functional all_reduce of the default group, then
                 h * 2 + 1 and a row sum: kernels before, the collective (an extern
                 call on every rank), kernels after.
The compile runs inside a world of one (gloo, a FileStore): AOTI records the group
by its name ("0", the default group), and the package calls the collective on any
world the runner joins.
"""
import contextlib
import os
import tempfile

import torch
from torch import nn


class AllReduce(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.w = nn.Parameter(torch.randn(width, width) / width ** 0.5)

    def forward(self, x, idx):
        import torch.distributed as dist
        import torch.distributed._functional_collectives as funcol
        h = torch.relu(x @ self.w)[idx]
        h = funcol.all_reduce(h, "sum", dist.group.WORLD)
        h = h * 2.0 + 1.0
        return h, h.sum(dim=1)


@contextlib.contextmanager
def one_rank_world():
    import torch.distributed as dist
    if dist.is_initialized():
        yield
        return
    with tempfile.TemporaryDirectory() as tmp:
        store = dist.FileStore(os.path.join(tmp, "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        try:
            yield
        finally:
            dist.destroy_process_group()


def ranks_allreduce():
    torch.manual_seed(33)
    return {"module": AllReduce().eval(), "inputs": (torch.randn(4, 8), torch.tensor([3, 0, 1, 2])), "dynamic": None,
            "guard": one_rank_world}


MODELS = {"ranks_allreduce": ranks_allreduce}
