"""CUDA checks of aotidbg-runner, for the GPU box (run by tests/bench/gpu_runner_bench.sh).

usage: python3 tests/gpu/runner_cuda_check.py RUNNER OUTDIR

Compiles small CUDA packages (printer level 1) with the box's torch, drives the
runner over its protocol socket (tests/integration/runner_wire.py) and checks:
HELLO sees the GPU; a CUDA run's outputs equal eager torch and its statistics
equal torch's; stepping works on CUDA; break-on-NaN; and in blocking mode an
out-of-bounds gather index is reported as "CUDA error: ..." against the
faulting kernel, with KERNEL status error, DONE 1 and a clean exit (no
signal, no hang). Non-blocking behaviour of the same fault is logged only.
Writes OUTDIR/runner_cuda_check.json and prints one line per check; exits 1
when any check failed.
"""
import json
import math
import os
import sys
import time
import traceback
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import torch  # noqa: E402
from runner_wire import *  # noqa: E402,F403

RUNNER, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
PRINTER = {"aot_inductor.debug_intermediate_value_printer": "1"}
results = {}


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.ln, self.l2 = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.l2(torch.relu(self.ln(self.l1(x)))) * 2.0


class Gather(torch.nn.Module):
    def forward(self, table, idx):
        return torch.relu(torch.index_select(table, 0, idx)) * 2.0 + 1.0


class NanNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(8, 8), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.l2(torch.log(self.l1(x)))


def build(name, module, inputs):
    pkg = os.path.join(OUT, name + ".pt2")
    t0 = time.time()
    ep = torch.export.export(module, inputs)
    torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=PRINTER)
    d = os.path.join(OUT, "x_" + name)
    with zipfile.ZipFile(pkg) as z:
        z.extractall(d)
    so = next(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".wrapper.so"))
    print(f"built {name} in {time.time() - t0:.1f}s", flush=True)
    return so, os.path.dirname(so)


def raw_inputs(name, tensors):
    frames = []
    for i, t in enumerate(tensors):
        path = os.path.join(OUT, f"{name}.in{i}.raw")
        t = t.detach().cpu().contiguous()
        with open(path, "wb") as f:
            f.write(t.view(torch.uint8).numpy().tobytes())
        frames.append(input_msg(i, DTYPE_NAME[t.dtype], list(t.shape), "file", raw=path, device="cuda"))
    return frames


def session(so, cubin, frames, ctl, flags=0):
    r = Runner(RUNNER)
    hello = r.recv()
    r.send(load_msg(so, cubin, device="cuda", flags=flags))
    loaded = r.until(LOADED, DONE)[-1]
    assert loaded["type"] == LOADED, r.msgs
    r.send(*frames, ctl, frame(RUN))
    return r, hello


def check(name):
    def wrap(fn):
        t0 = time.time()
        try:
            detail = fn()
            results[name] = {"ok": True, "detail": detail}
        except Exception as e:  # record and go on: one script, every check
            results[name] = {"ok": False, "detail": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
        results[name]["seconds"] = round(time.time() - t0, 2)
        print(("PASS " if results[name]["ok"] else "FAIL ") + name + ": " + str(results[name]["detail"]),
              flush=True)
        return fn
    return wrap


def torch_stats(t):
    f = t.double().flatten()
    fin = f[torch.isfinite(f)]
    return {"numel": f.numel(), "finite": fin.numel(), "nan": int(torch.isnan(f).sum()),
            "zeros": int((f == 0).sum()), "min": float(fin.min()), "max": float(fin.max()),
            "mean": float(fin.mean()), "std": float(fin.std())}


torch.manual_seed(0)
mlp = Mlp().eval().cuda()
x = torch.randn(8, 16, device="cuda")
mlp_so, mlp_dir = build("rc_mlp", mlp, (x,))
table = torch.randn(16, 8, device="cuda")
good_idx = torch.tensor([0, 3, 15, 2], device="cuda")
gat_so, gat_dir = build("rc_gather", Gather().eval(), (table, good_idx))
nan = NanNet().eval().cuda()
xn = torch.randn(4, 8, device="cuda")
nan_so, nan_dir = build("rc_nan", nan, (xn,))


@check("hello_sees_gpu")
def _():
    r = Runner(RUNNER)
    h = r.recv()
    r.finish()
    assert h["ncuda"] >= 1 and h["gpu"] and "." in h["cc"], h
    return {k: h[k] for k in ("ncuda", "gpu", "cc", "torch")}


@check("cuda_run_matches_torch")
def _():
    r, _ = session(mlp_so, mlp_dir, raw_inputs("rc_mlp", [x]), control_msg())
    msgs = r.until(DONE)
    rc, err = r.finish()
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    out = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1][0]
    assert out["device"] == "cuda:0", out["device"]
    with torch.no_grad():
        want = mlp(x).cpu()
    got = torch.tensor(out["values"]).reshape(want.shape)
    assert torch.allclose(got, want.double(), rtol=1e-3, atol=1e-4)
    ts = torch_stats(want)
    for k in ("numel", "finite", "nan", "zeros"):
        assert out["stats"][k] == ts[k], (k, out["stats"][k], ts[k])
    for k in ("min", "max", "mean", "std"):
        assert math.isclose(out["stats"][k], ts[k], rel_tol=1e-5, abs_tol=1e-6), (k, out["stats"][k], ts[k])
    ks = [m for m in msgs if m["type"] == KERNEL and m["phase"] == 1]
    cuda_tensors = [m for m in msgs if m["type"] == TENSOR and m["device"].startswith("cuda")]
    return {"kernels": [k["name"] for k in ks], "tensor_events": len(cuda_tensors), "rc": rc}


@check("cuda_stepping")
def _():
    r, _ = session(mlp_so, mlp_dir, raw_inputs("rc_mlp", [x]), control_msg(STEP))
    st = r.until(STOPPED)[-1]
    assert st["reason"] == STOP_START
    for i in range(2):
        r.send(control_msg(STEP))
        st = r.until(STOPPED)[-1]
        assert (st["kernel"], st["reason"]) == (i, STOP_STEP), st
    r.send(control_msg(CONTINUE))
    assert r.until(DONE)[-1]["status"] == 0
    return {"rc": r.finish()[0]}


@check("cuda_break_on_nan")
def _():
    r, _ = session(nan_so, nan_dir, raw_inputs("rc_nan", [xn]), control_msg(CONTINUE, flags=BREAK_NAN))
    got = r.until(STOPPED, DONE)
    st = got[-1]
    assert st["type"] == STOPPED and st["reason"] == STOP_NAN, st
    k = [m for m in got if m["type"] == KERNEL and m["index"] == st["kernel"] and m["phase"] == 1][0]
    r.send(frame(QUIT))
    rc, _ = r.finish()
    return {"kernel": k["name"], "status": k["status"], "rc": rc}


def oob_run(flags):
    bad = torch.tensor([0, 3, 100, 2], device="cuda")
    r, _ = session(gat_so, gat_dir, raw_inputs("rc_gather_oob", [table, bad]), control_msg(), flags=flags)
    t0 = time.time()
    msgs = []
    try:
        while True:
            m = r.recv(timeout=120)
            if m is None:
                break
            msgs.append(m)
            if m["type"] == DONE:
                break
    finally:
        rc, err = r.finish(timeout=120)
    return msgs, rc, err, time.time() - t0


@check("blocking_oob_reports_kernel")
def _():
    msgs, rc, err, dt = oob_run(flags=1)
    errs = [m for m in msgs if m["type"] == ERROR]
    assert errs and errs[0]["text"].startswith("CUDA error:"), (errs, err[-2000:])
    k = errs[0]["kernel"]
    bad = [m for m in msgs if m["type"] == KERNEL and m["phase"] == 1 and m["status"] == "error"]
    assert bad and bad[0]["index"] == k, bad
    assert msgs[-1]["type"] == DONE and msgs[-1]["status"] == 1
    assert rc == 1, f"runner exit {rc} (negative = signal)"
    with open(os.path.join(OUT, "blocking_oob.stderr"), "w") as f:
        f.write(err)
    return {"kernel_index": k, "kernel": bad[0]["name"], "text": errs[0]["text"], "rc": rc, "seconds": round(dt, 2)}


@check("nonblocking_oob_logged")
def _():
    msgs, rc, err, dt = oob_run(flags=0)
    with open(os.path.join(OUT, "nonblocking_oob.stderr"), "w") as f:
        f.write(err)
    errs = [m["text"][:300] for m in msgs if m["type"] == ERROR]
    done = [m["status"] for m in msgs if m["type"] == DONE]
    return {"errors": errs, "done": done, "rc": rc, "seconds": round(dt, 2)}


with open(os.path.join(OUT, "runner_cuda_check.json"), "w") as f:
    json.dump(results, f, indent=1)
sys.exit(0 if all(v["ok"] for v in results.values()) else 1)
