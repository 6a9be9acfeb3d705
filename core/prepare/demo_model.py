"""The bundled demo model for `aotidbg tutorial` (live-demo entry).

A tiny CPU model, compiled with AOTInductor on first use, with the
intermediate-value printer at level 1 so every kernel can be stepped:
an embedding lookup (an index), layer norm and a two-layer MLP.

usage: python3 demo_model.py OUTDIR
Writes OUTDIR/demo.pt2 and OUTDIR/demo.inputs.yaml (written privately, then
renamed into place, so a cancelled build leaves nothing half-made).
Exit codes: 0 built, 2 bad usage, 3 torch is missing, 1 the compile failed.
"""
import os
import shutil
import tempfile
import sys
import time

INPUTS_YAML = """\
# inputs of the aotidbg demo model (see demo_model.py)
inputs:
  - {shape: [4], dtype: int64, device: cpu, fill: arange}
  - {shape: [4, 16], dtype: float32, device: cpu, fill: randn, seed: 0}
"""


def say(msg):
    print(f"demo: {msg}", flush=True)


def build(outdir):
    t0 = time.time()
    say("importing torch")
    try:
        import torch
    except ImportError as e:
        print(f"demo: torch is not installed for {sys.executable} ({e}); "
              "install it (pip install torch) to compile the demo model", file=sys.stderr, flush=True)
        return 3

    class Demo(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(16, 16)
            self.norm = torch.nn.LayerNorm(16)
            self.fc1 = torch.nn.Linear(16, 32)
            self.fc2 = torch.nn.Linear(32, 8)

        def forward(self, ids, x):
            h = self.norm(self.emb(ids) + x)
            return self.fc2(torch.relu(self.fc1(h)))

    torch.manual_seed(0)
    model = Demo().eval()
    inputs = (torch.arange(4, dtype=torch.int64), torch.randn(4, 16))
    say("exporting the model")
    ep = torch.export.export(model, inputs)
    os.makedirs(outdir, exist_ok=True)
    tag = f".{os.getpid()}.tmp"
    pkg = os.path.join(outdir, "demo.pt2")
    spec = os.path.join(outdir, "demo.inputs.yaml")
    say("compiling with AOTInductor (printer level 1); the first compile takes about a minute")
    # Built under its final name in a private folder (AOTI names the archive's root folder after
    # the file), then renamed into place.
    private = tempfile.mkdtemp(prefix=".demo.", dir=outdir)
    try:
        built = os.path.join(private, "demo.pt2")
        torch._inductor.aoti_compile_and_package(
            ep, package_path=built,
            inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
        with open(spec + tag, "w") as f:
            f.write(INPUTS_YAML)
        os.replace(spec + tag, spec)
        os.replace(built, pkg)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    say(f"built {pkg} in {time.time() - t0:.0f} s")
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return build(argv[1])
    except Exception as e:  # the UI shows the last line: make it say what failed
        print(f"demo: compiling the demo model failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
