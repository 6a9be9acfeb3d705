"""The two-rank model of tests/gpu/run_ranks_gpu.sh and run_ranks_live_gpu.sh: an all_reduce
between a matmul and a gather and the scaling after it.

  python3 ranks_model.py compile BACKEND DEV PKG   # the package (a one-rank world) and each rank's inputs
  RANK=K ... python3 ranks_model.py eager BACKEND DEV OUT%d.npy   # one rank of torch.distributed, eagerly
"""
import os, sys, tempfile, numpy as np, torch, torch.distributed as dist
import torch.distributed._functional_collectives as funcol
class AllReduce(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8) / 8 ** 0.5)
    def forward(self, x, idx):
        h = torch.relu(x @ self.w)[idx]
        h = funcol.all_reduce(h, "sum", dist.group.WORLD)
        h = h * 2.0 + 1.0
        return h, h.sum(dim=1)
def module(dev):
    torch.manual_seed(33)
    return AllReduce().eval().to(dev)
def inputs(rank, dev):
    g = torch.Generator().manual_seed(100 + rank)
    return torch.randn(4, 8, generator=g).to(dev), torch.tensor([3, 0, 1, 2], device=dev)
if __name__ == "__main__":
    mode, backend, dev, out = sys.argv[1:5]
    if mode == "compile":
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "s"), 1)
        dist.init_process_group(backend, store=store, rank=0, world_size=1)
        d = dev if dev == "cpu" else "cuda:0"
        ep = torch.export.export(module(d), inputs(0, d))
        torch._inductor.aoti_compile_and_package(ep, package_path=out,
            inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
        for r in range(2):
            x, idx = inputs(r, "cpu")
            np.save(out + f".x{r}.npy", x.numpy())
            np.save(out + f".idx{r}.npy", idx.numpy())
            np.save(out + f".bad{r}.npy", np.array([3, 0, 9, 2]))
    else:   # eager: one rank of torch.distributed
        rank = int(os.environ["RANK"])
        d = dev if dev == "cpu" else f"cuda:{rank}"
        if d != "cpu":
            torch.cuda.set_device(rank)
        dist.init_process_group(backend)
        with torch.no_grad():
            outs = module(d)(*inputs(rank, d))
        np.save(out % rank, np.concatenate([o.cpu().double().flatten().numpy() for o in outs]))
        dist.destroy_process_group()
