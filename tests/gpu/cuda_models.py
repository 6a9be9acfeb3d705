"""Compiles the CUDA (and one CPU) packages recorded on the GPU box.

usage: python3 tests/gpu/cuda_models.py OUTDIR
Writes OUTDIR/<name>.pt2 plus inputs specs (OUTDIR/<name>.<case>.inputs.yaml with
.npy files beside them) for the cases the sessions and walkthroughs need.
Each compile is timed; timings go to OUTDIR/compile_times.tsv.
"""
import os
import sys
import time

import numpy as np
import torch

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
times = open(os.path.join(OUT, "compile_times.tsv"), "w")
PRINTER = {"aot_inductor.debug_intermediate_value_printer": "1"}
# AOTIDBG_GPU_MODELS=gather,nan,mlp picks groups (default: all), to re-record a few quickly.
GROUPS = set(filter(None, os.environ.get("AOTIDBG_GPU_MODELS", "mlp,gather,nan,embed").split(",")))


def spec(name, case, tensors, device="cuda"):
    """Writes an inputs spec whose items read .npy files made from `tensors`."""
    lines = ["inputs:"]
    for i, t in enumerate(tensors):
        f = f"{name}.{case}.in{i}.npy"
        np.save(os.path.join(OUT, f), t.cpu().numpy())
        shape = ", ".join(str(d) for d in t.shape)
        dtype = str(t.dtype).replace("torch.", "")
        lines.append(f"  - {{shape: [{shape}], dtype: {dtype}, device: {device}, fill: file, file: {f}}}")
    with open(os.path.join(OUT, f"{name}.{case}.inputs.yaml"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def compile_pkg(name, module, inputs, dynamic=None, configs=None):
    t0 = time.time()
    ep = torch.export.export(module, inputs, dynamic_shapes=dynamic)
    path = torch._inductor.aoti_compile_and_package(
        ep, package_path=os.path.join(OUT, name + ".pt2"), inductor_configs=configs or {})
    dt = time.time() - t0
    times.write(f"{name}\t{dt:.1f}\n")
    times.flush()
    print(f"compiled {name} in {dt:.1f}s", flush=True)
    return path


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.n, self.l2 = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)

    def forward(self, x, idx):
        h = self.n(torch.relu(self.l1(x)))
        return self.l2(h)[:, idx].softmax(-1)


class Gather(torch.nn.Module):
    """out = table[idx] * 2 + 1: the index load is bounds-checked against table's dynamic size."""
    def forward(self, table, idx):
        return table[idx] * 2.0 + 1.0


class NanChain(torch.nn.Module):
    """mm -> log -> mm: log of the negative values mm makes gives NaN one kernel later."""
    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(16, 16))
        self.w2 = torch.nn.Parameter(torch.randn(16, 4))

    def forward(self, x):
        y = x @ self.w1
        z = torch.log(y + 0.5)
        return torch.tanh(z @ self.w2)


torch.manual_seed(0)
dev = "cuda"
with torch.no_grad():
  if "mlp" in GROUPS:
      m = MLP().eval().to(dev)
      x, idx = torch.randn(4, 16, device=dev), torch.tensor([0, 3, 5], device=dev)
      compile_pkg("cuda_mlp", m, (x, idx), dynamic={"x": {0: torch.export.Dim("batch", min=2, max=64)}, "idx": None},
                  configs=PRINTER)
      spec("cuda_mlp", "ok", [x, idx])
      spec("cuda_mlp", "oncpu", [x, idx], device="cpu")
      spec("cuda_mlp", "batch1", [torch.randn(1, 16, device=dev), idx])          # below the dynamic bound
      spec("cuda_mlp", "wrongidx", [x, idx], device="cuda:1")                     # a GPU that is not there

      cm = MLP().eval()
      cx = torch.randn(4, 16)
      compile_pkg("cpu_mlp", cm, (cx, idx.cpu()), dynamic={"x": {0: torch.export.Dim("batch", min=2, max=64)}, "idx": None},
                  configs=PRINTER)
      spec("cpu_mlp", "oncuda", [cx, idx.cpu()], device="cuda")
      spec("cpu_mlp", "ok", [cx, idx.cpu()], device="cpu")

  if "gather" in GROUPS:
      g = Gather().eval().to(dev)
      table, gi = torch.randn(8, 4, device=dev), torch.tensor([1, 2, 7], device=dev)
      dyn = {"table": {0: torch.export.Dim("rows", min=0, max=1024)}, "idx": {0: torch.export.Dim("n", min=1, max=1024)}}
      compile_pkg("cuda_gather", g, (table, gi), dynamic=dyn, configs=PRINTER)
      spec("cuda_gather", "ok", [table, gi])
      spec("cuda_gather", "empty", [torch.randn(0, 4, device=dev), gi])          # size-0 dim: every index is out of bounds
      compile_pkg("cuda_gather_noprinter", g, (table, gi), dynamic=dyn, configs={})
      spec("cuda_gather_noprinter", "empty", [torch.randn(0, 4, device=dev), gi])
      compile_pkg("cuda_gather_noassert", g, (table, gi), dynamic=dyn,
                  configs=dict(PRINTER, **{"assert_indirect_indexing": False}))
      spec("cuda_gather_noassert", "far", [table, torch.tensor([1, 2, 1 << 40], device=dev)])

  if "embed" in GROUPS:
      # index out of bounds down to the element (issue 17): tests/models/model_oob.py's embedding
      # (a 100-row weight: the Triton kernel's bound is the literal 100) fed the id 137 at [1, 2]
      import importlib.util
      spec_ = importlib.util.spec_from_file_location(
          "model_oob", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../models/model_oob.py"))
      mo = importlib.util.module_from_spec(spec_)
      spec_.loader.exec_module(mo)
      b = mo.oob_embedding()
      e = b["module"].to(dev)
      ids = b["inputs"][0].to(dev)
      compile_pkg("cuda_embed", e, (ids,), configs=PRINTER)
      spec("cuda_embed", "bad", [torch.tensor([[1, 5, 7, 2], [9, 3, 137, 8]], device=dev)])

  if "nan" in GROUPS:
      n = NanChain().eval().to(dev)
      xn = torch.randn(8, 16, device=dev)
      compile_pkg("cuda_nan", n, (xn,), configs=PRINTER)
      spec("cuda_nan", "ok", [xn])
times.close()
