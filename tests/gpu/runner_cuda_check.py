"""CUDA checks of aotidbg-runner, for the GPU box (run by tests/bench/gpu_runner_bench.sh).

usage: python3 tests/gpu/runner_cuda_check.py RUNNER OUTDIR

Compiles small CUDA packages (printer level 1) with the box's torch, drives the
runner over its protocol socket (tests/integration/runner_wire.py) and checks:
HELLO sees the GPU; a CUDA run's outputs equal eager torch and its statistics
equal torch's; stepping works on CUDA; break-on-NaN; and in blocking mode an
out-of-bounds gather index is reported as "CUDA error: ..." against the
faulting kernel, with KERNEL status error, DONE 1 and a clean exit (no
signal, no hang). Non-blocking behaviour of the same fault is logged only.
Packages built WITHOUT the printer: kernels come from interposed
cuLaunchKernel (KERNEL source "interpose"), stepping stops before a launch,
an asynchronous fault is ERROR "CUDA error: ... (code N)" + DONE 1 (never
"the model ran"), and blocking mode names the faulting Triton kernel. Load
failures (CUDA package on cpu, CPU package on cuda) carry the model's own
message. AOTIDBG_RUNNER_PROFILE=1 breakdowns are saved as OUTDIR/profile_*.txt.
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


def build(name, module, inputs, configs=PRINTER):
    pkg = os.path.join(OUT, name + ".pt2")
    t0 = time.time()
    ep = torch.export.export(module, inputs)
    torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=configs)
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


def session(so, cubin, frames, ctl, flags=0, env=None):
    r = Runner(RUNNER, env)
    hello = r.recv()
    r.send(load_msg(so, cubin, device="cuda", flags=flags))
    loaded = r.until(LOADED, DONE)[-1]
    assert loaded["type"] == LOADED, r.msgs
    r.loaded = loaded
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
    got = torch.tensor(out["values"], dtype=torch.float64).reshape(want.shape)
    assert torch.allclose(got, want.double(), rtol=1e-3, atol=1e-4)
    ts = torch_stats(want)
    for k in ("numel", "finite", "nan", "zeros"):
        assert out["stats"][k] == ts[k], (k, out["stats"][k], ts[k])
    for k in ("min", "max", "mean", "std"):
        assert math.isclose(out["stats"][k], ts[k], rel_tol=1e-5, abs_tol=1e-6), (k, out["stats"][k], ts[k])
    ks = [m for m in msgs if m["type"] == KERNEL and m["phase"] == 1]
    assert ks and all(k["source"] == "printer" for k in ks), ks
    cuda_tensors = [m for m in msgs if m["type"] == TENSOR and m["device"].startswith("cuda")]
    assert r.loaded["n_inputs"] == 1 and r.loaded["n_outputs"] == 1 and all(r.loaded["names"]), r.loaded
    return {"kernels": [k["name"] for k in ks], "tensor_events": len(cuda_tensors), "rc": rc,
            "loaded": {k: r.loaded[k] for k in ("n_inputs", "n_outputs", "names")}}


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
    assert bad[0]["name"].startswith("triton_"), bad[0]
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


# ---- packages built without the printer: interposed launches (brief h1b items 1 and 3)
np_so, np_dir = build("rc_gather_noprinter", Gather().eval(), (table, good_idx), configs={})


def run_all(r, timeout=120):
    msgs = []
    try:
        while True:
            m = r.recv(timeout=timeout)
            if m is None:
                break
            msgs.append(m)
            if m["type"] == DONE:
                break
    finally:
        rc, err = r.finish(timeout=timeout)
    return msgs, rc, err


@check("noprinter_kernels_interposed")
def _():
    r, _ = session(np_so, np_dir, raw_inputs("rc_np_ok", [table, good_idx]), control_msg())
    assert r.loaded["n_inputs"] == 2 and r.loaded["n_outputs"] == 1 and all(r.loaded["names"]), r.loaded
    msgs, rc, err = run_all(r)
    assert msgs[-1]["type"] == DONE and msgs[-1]["status"] == 0, ([m for m in msgs if m["type"] == ERROR], err[-2000:])
    ks = [m for m in msgs if m["type"] == KERNEL]
    assert ks and all(k["source"] == "interpose" for k in ks), ks
    assert any(k["name"].startswith("triton_") for k in ks), ks
    after = [k for k in ks if k["phase"] == 1]
    assert len(after) == len(ks) // 2 and all(k["status"] == "ok" for k in after), ks
    out = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1][0]
    with torch.no_grad():
        want = Gather()(table, good_idx).cpu()
    got = torch.tensor(out["values"], dtype=torch.float64).reshape(want.shape)
    assert torch.allclose(got, want.double(), rtol=1e-5, atol=1e-6)
    assert rc == 0, err[-2000:]
    return {"kernels": [k["name"] for k in after], "rc": rc}


@check("noprinter_stepping_stops_before_launch")
def _():
    r, _ = session(np_so, np_dir, raw_inputs("rc_np_ok", [table, good_idx]), control_msg(STEP))
    st = r.until(STOPPED)[-1]
    assert st["reason"] == STOP_START, st
    r.send(control_msg(STEP))
    got = r.until(STOPPED)
    st = got[-1]
    assert (st["kernel"], st["phase"], st["reason"]) == (0, 0, STOP_STEP), st
    k0 = [m for m in got if m["type"] == KERNEL and m["index"] == 0]
    assert k0 and k0[0]["phase"] == 0 and k0[0]["source"] == "interpose", k0
    r.send(control_msg(CONTINUE))
    msgs, rc, err = run_all(r)
    assert msgs[-1]["type"] == DONE and msgs[-1]["status"] == 0 and rc == 0, (msgs[-3:], err[-2000:])
    return {"kernel0": k0[0]["name"], "rc": rc}


@check("noprinter_async_oob_is_error")
def _():
    bad = torch.tensor([0, 3, 100, 2], device="cuda")
    r, _ = session(np_so, np_dir, raw_inputs("rc_np_oob", [table, bad]), control_msg())
    t0 = time.time()
    msgs, rc, err = run_all(r)
    with open(os.path.join(OUT, "noprinter_async_oob.stderr"), "w") as f:
        f.write(err)
    errs = [m for m in msgs if m["type"] == ERROR]
    assert errs and errs[0]["text"].startswith("CUDA error:") and "(code " in errs[0]["text"], (errs, err[-2000:])
    assert msgs[-1]["type"] == DONE and msgs[-1]["status"] == 1, msgs[-3:]
    assert not [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1], "outputs sent after a CUDA fault"
    assert rc == 1, f"runner exit {rc} (negative = signal)"
    return {"text": errs[0]["text"][:300], "rc": rc, "seconds": round(time.time() - t0, 2)}


@check("noprinter_blocking_oob_names_kernel")
def _():
    bad = torch.tensor([0, 3, 100, 2], device="cuda")
    r, _ = session(np_so, np_dir, raw_inputs("rc_np_oob", [table, bad]), control_msg(), flags=1)
    msgs, rc, err = run_all(r)
    with open(os.path.join(OUT, "noprinter_blocking_oob.stderr"), "w") as f:
        f.write(err)
    errs = [m for m in msgs if m["type"] == ERROR]
    assert errs and errs[0]["text"].startswith("CUDA error:"), (errs, err[-2000:])
    k = errs[0]["kernel"]
    bad_k = [m for m in msgs if m["type"] == KERNEL and m["phase"] == 1 and m["status"] == "error"]
    assert bad_k and bad_k[0]["index"] == k and bad_k[0]["source"] == "interpose", bad_k
    assert bad_k[0]["name"].startswith("triton_") and bad_k[0]["name"] in errs[0]["text"], (bad_k, errs)
    assert msgs[-1]["type"] == DONE and msgs[-1]["status"] == 1
    assert rc == 1, f"runner exit {rc} (negative = signal)"
    return {"kernel_index": k, "kernel": bad_k[0]["name"], "text": errs[0]["text"][:300], "rc": rc}


def load_only(so, cubin, device):
    r = Runner(RUNNER)
    r.recv()
    r.send(load_msg(so, cubin, device=device))
    msgs = r.until(LOADED, DONE)
    if msgs[-1]["type"] == LOADED:
        r.send(frame(QUIT))
    rc, err = r.finish()
    return msgs, rc, err


@check("load_failures_carry_model_message")
def _():
    got = {}
    # a CUDA package created on cpu: must fail with the model's words, not "see stderr"
    msgs, rc, err = load_only(mlp_so, mlp_dir, "cpu")
    errs = [m["text"] for m in msgs if m["type"] == ERROR]
    got["cuda_pkg_on_cpu"] = {"errors": [e[:300] for e in errs], "rc": rc}
    if errs:
        assert "see the runner's stderr" not in errs[0] and "see stderr" not in errs[0], (errs, err[-2000:])
    # a CPU package run on cuda (DESIGN 6: "Expected out tensor to have device cuda:0, but got cpu instead")
    cpu_so, cpu_dir = build("rc_mlp_cpu", Mlp().eval(), (torch.randn(8, 16),))
    r, _ = session(cpu_so, cpu_dir, raw_inputs("rc_mlp_cpu", [x]), control_msg())
    msgs, rc, err = run_all(r)
    errs = [m["text"] for m in msgs if m["type"] == ERROR]
    got["cpu_pkg_on_cuda"] = {"errors": [e[:300] for e in errs], "done": [m["status"] for m in msgs
                                                                          if m["type"] == DONE], "rc": rc}
    for e in errs:
        assert "see stderr" not in e and "see the runner's stderr" not in e, (errs, err[-2000:])
    return got


@check("profile_breakdown")
def _():
    out = {}
    for name, so, d, ins in (("printer", mlp_so, mlp_dir, [x]), ("noprinter", np_so, np_dir, [table, good_idx])):
        r, _ = session(so, d, raw_inputs("rc_prof_" + name, ins), control_msg(),
                       env={"AOTIDBG_RUNNER_PROFILE": "1"})
        msgs, rc, err = run_all(r)
        lines = [ln for ln in err.splitlines() if "profile:" in ln]
        with open(os.path.join(OUT, f"profile_{name}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        assert msgs[-1]["status"] == 0 and lines, err[-2000:]
        out[name] = lines[:12]
    return out


with open(os.path.join(OUT, "runner_cuda_check.json"), "w") as f:
    json.dump(results, f, indent=1)
sys.exit(0 if all(v["ok"] for v in results.values()) else 1)
