"""--eager swept over PyTorch's OpInfo database (a tool run by hand; not in the suite).

    AOTIDBG_BUILD_DIR=build python3 tests/models/sweep_eager_opinfo.py OUT_DIR [--ops add,mm,...]
        [--limit N] [--dtypes float32,bfloat16]

For each op of torch.testing._internal.common_methods_invocations.op_db that has a CPU sample
of the dtype: a module whose first tensor argument is its input and whose other tensor
arguments are buffers, packaged with AOTI the usual way (printer on, no provenance), then
  own        `aotidbg run --eager` against its own program: expects exit 0 (no departure,
             every kernel compared) or 3 (no departure, part compared), and its coverage;
  perturbed  against a program whose first buffer is scaled by 1.5 (ops with a second tensor
             argument): expects a departure (a run without --break-on exits 0 after one), at
             the first kernel that reads the buffer where the call table says which.
One line per (op, dtype) in OUT_DIR/summary.tsv: op, dtype, own exit, compared K/N, perturbed
exit, departing kernel, first reader, verdict (ok / FAIL why / skip why). Ops AOTI cannot
compile, or whose sample is not plain tensors and numbers, are skipped with the reason.
"""
import argparse
import os
import re
import subprocess
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests/integration"))


def module_for(op, sample, torch):
    """(module, input) for one sample: its first tensor is the input, other tensors buffers."""
    args = [sample.input] + list(sample.args)
    kwargs = dict(sample.kwargs)
    tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    if not tensors or any(isinstance(a, (list, tuple)) and any(isinstance(b, torch.Tensor) for b in a)
                          for a in args) or any(isinstance(v, torch.Tensor) for v in kwargs.values()):
        return None, None, "sample is not plain tensors and numbers"
    first = tensors[0]

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for i in tensors[1:]:
                self.register_buffer(f"b{i}", args[i].clone())

        def forward(self, x):
            a = [x if i == first else getattr(self, f"b{i}") if i in tensors else v for i, v in enumerate(args)]
            r = op.op(*a, **kwargs)
            return r if isinstance(r, torch.Tensor) else tuple(t for t in r if isinstance(t, torch.Tensor))

    return M().eval(), args[first].clone(), ""


def spec_yaml(x, d, torch):
    """The sample's values as a .npy input; bfloat16 (no .npy dtype) as the runner's randn fill."""
    from aotidbg_testlib import write_spec
    if x.dtype == torch.bfloat16:
        path = os.path.join(d, "in.yaml")
        with open(path, "w") as f:
            f.write(f"inputs:\n  - {{shape: {list(x.shape)}, dtype: bfloat16, device: cpu, fill: randn, seed: 1}}\n")
        return path
    return write_spec(d, [x], name="in.yaml")


def run(aotidbg, pkg, inputs, prog, rec, *extra):
    r = subprocess.run([aotidbg, "run", pkg, "--inputs", inputs, "--eager", prog, "--record", rec, *extra],
                       capture_output=True, text=True, timeout=600)
    return r.returncode, r.stderr


def one(op, dtype, out, aotidbg, torch):
    from aotidbg_testlib import events, load_session
    samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
    if not samples:
        return "skip no sample"
    m, x, why = module_for(op, samples[0], torch)
    if m is None:
        return "skip " + why
    d = os.path.join(out, f"{op.name.replace('.', '_')}-{str(dtype).split('.')[-1]}")
    os.makedirs(d, exist_ok=True)
    try:
        ep = torch.export.export(m, (x,))
        torch._inductor.aoti_compile_and_package(
            ep, package_path=os.path.join(d, "m.pt2"),
            inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
        torch.export.save(ep, os.path.join(d, "same.ep.pt2"))
    except Exception as e:
        return f"skip AOTI: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
    spec_yaml(x, d, torch)
    rc, err = run(aotidbg, os.path.join(d, "m.pt2"), os.path.join(d, "in.yaml"), os.path.join(d, "same.ep.pt2"),
                  os.path.join(d, "own.yaml"))
    mm = re.search(r"compared (\d+) of (\d+) kernels", err)
    cov = f"{mm.group(1)}/{mm.group(2)}" if mm else "?"
    verdict = "ok"
    if rc not in (0, 3) or not mm:
        verdict = f"FAIL own exit {rc}: {err.strip().splitlines()[-1][:120] if err.strip() else ''}"
    bufs = [n for n, _ in m.named_buffers()]
    prc, at, first = "-", "-", "-"
    if bufs and verdict == "ok":
        with torch.no_grad():
            b = getattr(m, bufs[0])
            if b.is_floating_point() and b.numel():
                b.mul_(1.5).add_(0.5)
                torch.export.save(torch.export.export(m, (x,)), os.path.join(d, "perturbed.ep.pt2"))
                prc, err2 = run(aotidbg, os.path.join(d, "m.pt2"), os.path.join(d, "in.yaml"),
                                os.path.join(d, "perturbed.ep.pt2"), os.path.join(d, "perturbed.yaml"))
                sess = load_session(os.path.join(d, "perturbed.yaml"))
                div = events(sess, "divergence")
                at = div[0]["kernel"] if div else "none"
                calls = sess["provenance"]["calls"] if sess.get("provenance") else []
                readers = [k["index"] for k in events(sess, "kernel") if k.get("call", -1) >= 0
                           and any(w.endswith(bufs[0]) for w in calls[k["call"]].get("weights") or [])]
                first = readers[0] if readers else "?"
                if not div:
                    verdict = f"FAIL perturbed exit {prc}, no departure"
                elif readers and at != first:
                    verdict = f"FAIL departs at {at}, first reader {first}"
    return "\t".join(map(str, [rc, cov, prc, at, first, verdict]))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--ops", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    a = ap.parse_args(argv)
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    aotidbg = os.path.join(os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build")), "aotidbg")
    want = [o for o in a.ops.split(",") if o]
    ops = [o for o in op_db if (not want or o.name in want) and not o.variant_test_name]
    if a.limit:
        ops = ops[:a.limit]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "summary.tsv"), "w") as f:
        f.write("op\tdtype\town_exit\tcompared\tperturbed_exit\tdeparts_at\tfirst_reader\tverdict\n")
        for op in ops:
            for dn in a.dtypes.split(","):
                dtype = getattr(torch, dn)
                if dtype not in op.supported_dtypes("cpu"):
                    continue
                try:
                    line = one(op, dtype, a.out, aotidbg, torch)
                except Exception as e:
                    line = f"FAIL tool: {type(e).__name__}: {e}"[:200]
                    traceback.print_exc()
                row = f"{op.name}\t{dn}\t{line}"
                print(row, flush=True)
                f.write(row + "\n")
                f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
