"""Builds the benchmarks' deep model: 110 blocks of Linear -> LayerNorm+ReLU (an extern addmm and
a fused kernel each: 220 launches), compiled with AOTI and the printer.

usage: python3 tests/bench/deep_model.py OUTDIR DEVICE [WIDTH] [ROWS] [--eager]
Writes OUTDIR/deep.pt2 and OUTDIR/in.yaml (ROWS x WIDTH float32 randn, seed 1; default 32 x 64);
with --eager also provenance tracking in the package and the exported program OUTDIR/deep.ep.pt2
(for `run --eager`). Used by bench_nan_hunt.sh and bench_eager.sh.
"""
import sys

import torch


class Deep(torch.nn.Module):
    def __init__(self, n=110, d=64):
        super().__init__()
        self.l = torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(n))
        self.n = torch.nn.ModuleList(torch.nn.LayerNorm(d) for _ in range(n))

    def forward(self, x):
        for lin, norm in zip(self.l, self.n):
            x = torch.relu(norm(lin(x))) + x
        return x


def main(argv):
    eager = "--eager" in argv
    argv = [a for a in argv if a != "--eager"]
    out, dev = argv[0], argv[1]
    d = int(argv[2]) if len(argv) > 2 else 64
    b = int(argv[3]) if len(argv) > 3 else 32
    torch.manual_seed(0)
    m = Deep(d=d).eval().to(dev)
    ep = torch.export.export(m, (torch.randn(b, d, device=dev),))
    configs = {"aot_inductor.debug_intermediate_value_printer": "1"}
    if eager:
        configs["trace.provenance_tracking_level"] = 1
        torch.export.save(ep, f"{out}/deep.ep.pt2")
    torch._inductor.aoti_compile_and_package(ep, package_path=f"{out}/deep.pt2", inductor_configs=configs)
    with open(f"{out}/in.yaml", "w") as f:
        f.write(f"inputs:\n  - {{shape: [{b}, {d}], dtype: float32, device: {dev}, fill: randn, seed: 1}}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
