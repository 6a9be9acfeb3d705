"""The TUI's follow-up features on real runs: the bundled demo model compiled
on first use (tutorial live-demo), the checklist gate before a live run,
router actions, the run's mode, hunts and the reference diff.
"""
import os
import re
import shutil
import subprocess

import pytest

from aotidbg_testlib import frames as _frames
from conftest import run


# ---- 1. the bundled demo model ---------------------------------------------

def test_demo_without_python_says_so(aotidbg, tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), AOTIDBG_PYTHON=str(tmp_path / "no-python3"))
    r = run([aotidbg, "tutorial", "live-demo", "--headless", "80x24", "--dump-screen"], env=env, cwd=str(tmp_path))
    assert r.returncode == 1
    assert "no-python3 was not found" in r.stderr and "python3 and torch" in r.stderr, r.stderr


def test_demo_without_torch_says_so(aotidbg, tmp_path):
    # a python3 that cannot import torch: -S -I drops site-packages
    py = tmp_path / "py-no-torch"
    py.write_text(f"#!/bin/sh\nexec {shutil.which('python3')} -S -I \"$@\"\n")
    py.chmod(0o755)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), AOTIDBG_PYTHON=str(py))
    r = run([aotidbg, "tutorial", "live-demo", "--headless", "80x24", "--dump-screen"], env=env, cwd=str(tmp_path))
    assert r.returncode == 1
    assert "torch is missing" in r.stderr and "pip install torch" in r.stderr, r.stderr


@pytest.mark.slow
def test_demo_compiled_on_first_use_then_cached(aotidbg, tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    env.pop("AOTIDBG_PYTHON", None)
    # the menu lists it, marked as compiled on first use
    r = run([aotidbg, "tutorial", "--list"], env=env)
    assert "live-demo" in r.stdout
    r = run([aotidbg, "tutorial", "live-demo", "--headless", "100x30", "--keys", "s s c"], env=env,
            cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    # progress lines while the child compiles (elapsed seconds, its own output)
    assert re.search(r"aotidbg: \[ *\d+ s\] demo: compiling with AOTInductor", r.stderr), r.stderr
    assert (cache / "aotidbg" / "demo" / "demo.pt2").exists()
    frames = _frames(r.stdout)
    assert "| stopped |" in frames[1][1] and "inspector: #0 " in frames[1][1]
    assert "| finished |" in frames[-1][1], frames[-1][1]
    # a second start uses the cache: no compile
    r = run([aotidbg, "tutorial", "live-demo", "--headless", "100x30", "--keys", "c", "--dump-screen"],
            env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "compiling" not in r.stderr
    assert "| finished |" in r.stdout


# ---- 2. the checklist gate before a live run -------------------------------

BAD_DTYPE = """inputs:
  - {shape: [6, 16], dtype: float64, device: cpu, fill: randn, seed: 0}
  - {shape: [3], dtype: int64, device: cpu, fill: arange}
"""
GOOD = BAD_DTYPE.replace("float64", "float32")


@pytest.mark.slow
def test_live_gate_blocks_on_fail_and_force_overrides(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    spec = tmp_path / "bad.yaml"
    spec.write_text(BAD_DTYPE)
    rec = tmp_path / "gated.yaml"
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec), "--headless", "100x30",
             "--keys", "s", ], cwd=str(tmp_path))
    assert r.returncode == 1   # the step could not run
    frames = _frames(r.stdout)
    start = frames[0][1]
    assert "blocked by a checklist FAIL (--force overrides)" in start, start
    assert "not started: checklist FAIL: input.0.dtype" in start and "--force" in start
    assert "checklist (" in start and "1 failed" in start
    assert "no kernel yet" in frames[1][1]          # s did nothing
    assert "--force" in r.stderr
    text = rec.read_text()   # the rows are recorded in the session
    assert "input.0.dtype" in text and "FAIL" in text and "kind: kernel" not in text
    # --force: the runner starts (and the note says it was forced)
    rec2 = tmp_path / "forced.yaml"
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec2), "--force", "--headless", "100x30",
             "--keys", "c", "--dump-screen"], cwd=str(tmp_path))
    assert "blocked" not in r.stdout, r.stdout
    assert "--force" in rec2.read_text()
    # a good spec: no gate, the run starts at the first kernel
    spec.write_text(GOOD)
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(tmp_path / "ok.yaml"), "--headless", "100x30",
             "--keys", "s", "--dump-screen"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "| stopped |" in r.stdout and "0 failed" in r.stdout


# ---- 3-5. router actions, hunts and the reference on real runs -------------

NAN_SPEC = "inputs:\n  - {shape: [4, 8], dtype: float32, device: cpu, fill: %s}\n"


def _record(aotidbg, pkg, spec_text, path, tmp_path):
    spec = tmp_path / (path.stem + ".inputs.yaml")
    spec.write_text(spec_text)
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(path), "--values", "4096"])
    assert r.returncode == 0, r.stderr
    return spec


def _kernels(path):
    import yaml
    doc = yaml.safe_load(path.read_text())
    return [e for e in doc["events"] if e.get("kind") == "kernel"]


def _tensor(k, name, phase):
    for t in k.get("tensors", []):
        if t["name"] == name and t["phase"] == phase:
            return t
    return None


@pytest.mark.slow
def test_hunt_nan_replay_and_live(aotidbg, package, tmp_path):
    """runner_nan is Linear -> log -> Linear: the hunt stops at the log kernel,
    at the first element whose input (the log's before-tensor) is <= 0."""
    pkg = package("runner_nan")
    rec = tmp_path / "nan.yaml"
    spec = _record(aotidbg, pkg, NAN_SPEC % "randn, seed: 0", rec, tmp_path)
    ks = _kernels(rec)
    log_k = next(i for i, k in enumerate(ks) if "log" in k["name"])
    out = next(t for t in ks[log_k]["tensors"] if t["phase"] == "after" and
               _tensor(ks[log_k], t["name"], "before") is not None and t["shape"] == [4, 8])
    before = _tensor(ks[log_k], out["name"], "before")["values"]
    first = next(i for i, v in enumerate(before) if v <= 0)     # log of <= 0: NaN or -inf
    want_idx = f"[{first // 8}, {first % 8}]"
    r = run([aotidbg, "replay", str(rec), "--headless", "100x30", "--keys", "hunt-nan", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert f"hunt-nan: kernel #{log_k} {ks[log_k]['name']}, tensor {out['name']}, first bad index {want_idx}" \
        in r.stdout, r.stdout
    assert "produced by #" in r.stdout         # the report walks back to the producer
    # producer: from the bad tensor back to the kernel that wrote the log's input
    r = run([aotidbg, "replay", str(rec), "--headless", "100x30", "--keys", "hunt-nan q producer",
             "--dump-screen"])
    m = re.search(r"was produced by kernel #(\d+) (\S+)", r.stdout)
    assert m and int(m.group(1)) < log_k and "addmm" in m.group(2), r.stdout
    # live: the runner continues to the first NaN, then the same report
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(tmp_path / "live.yaml"), "--headless",
             "100x30", "--keys", "hunt-nan", "--dump-screen"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"hunt-nan: kernel #{log_k} {ks[log_k]['name']}, tensor {out['name']}, first bad index {want_idx}" \
        in r.stdout, r.stdout


@pytest.mark.slow
def test_hunt_diverge_against_reference(aotidbg, package, tmp_path):
    """Two runs of runner_nan whose inputs differ in one element x[2, 5]: the
    first Linear's output differs from row 2 on, so the first differing index
    of the first kernel that reads x is [2, 0]."""
    import numpy as np
    pkg = package("runner_nan")
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    np.save(tmp_path / "a.npy", x)
    x2 = x.copy()
    x2[2, 5] += 1.0
    np.save(tmp_path / "b.npy", x2)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    _record(aotidbg, pkg, NAN_SPEC % f"file, file: {tmp_path / 'a.npy'}", a, tmp_path)
    spec_b = _record(aotidbg, pkg, NAN_SPEC % f"file, file: {tmp_path / 'b.npy'}", b, tmp_path)
    ks = _kernels(b)
    reader = next(i for i, k in enumerate(ks) if any(t["phase"] == "before" and t["shape"] == [4, 8] and
                                                      t["name"].startswith("arg") for t in k["tensors"]))
    r = run([aotidbg, "replay", str(b), "--reference", str(a), "--headless", "100x30", "--keys",
             "hunt-diverge:1e-6", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert f"hunt-diverge: kernel #{reader} {ks[reader]['name']}" in r.stdout, r.stdout
    assert "first bad index [2, 0]" in r.stdout, r.stdout
    # the inspector's line against the reference, on the diverging tensor
    r = run([aotidbg, "replay", str(b), "--reference", str(a), "--headless", "120x40", "--keys",
             "hunt-diverge:1e-6 q", "--dump-screen"])
    assert "vs ref: first diff at [2, 0]" in r.stdout, r.stdout
    # the same run against itself: nothing diverges
    r = run([aotidbg, "replay", str(a), "--reference", str(a), "--headless", "100x30", "--keys",
             "hunt-diverge", "--dump-screen"])
    assert "every after-tensor matches the reference" in r.stdout
    # live with a reference: runs to the end, then the same answer
    r = run([aotidbg, pkg, "--inputs", str(spec_b), "--reference", str(a), "--record", str(tmp_path / "l.yaml"),
             "--headless", "100x30", "--keys", "hunt-diverge:1e-6", "--dump-screen"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "first bad index [2, 0]" in r.stdout, r.stdout


@pytest.mark.slow
def test_open_source_and_router_keys(aotidbg, package, tmp_path):
    pkg = package("runner_nan")
    rec = tmp_path / "nan.yaml"
    _record(aotidbg, pkg, NAN_SPEC % "randn, seed: 0", rec, tmp_path)
    ks = _kernels(rec)
    log_k = next(i for i, k in enumerate(ks) if "log" in k["name"])
    name = ks[log_k]["name"]
    r = run([aotidbg, "replay", str(rec), "--headless", "120x40", "--keys",
             f"goto:{log_k} open-source", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    # the view shows one file and says which; the line is the kernel's body, not its declaration
    m = re.search(rf"source: {name} - (kernel|wrapper)\.cpp line (\d+) \(body\)", r.stdout)
    assert m, r.stdout
    import zipfile
    with zipfile.ZipFile(pkg) as z:
        (n,) = [n for n in z.namelist() if n.endswith(f".{m.group(1)}.cpp")]
        lines = z.read(n).decode().split("\n")
    line = int(m.group(2))
    assert name in lines[line - 1] and lines[line - 1].lstrip().startswith("extern")
    after = "\n".join(lines[line - 1:])
    assert after.index("{") < after.index(";"), after[:300]   # a definition, not `...);`
    # search inside the view, then q closes it and the panes are back
    r = run([aotidbg, "replay", str(rec), "--headless", "120x40", "--keys",
             f"goto:{log_k} open-source search:in_out_ptr0 q", "--dump-screen"])
    assert "3 kernels (" in r.stdout and "source:" not in r.stdout


@pytest.mark.slow
def test_live_rerun_blocking_and_break_nan(aotidbg, package, tmp_path):
    pkg = package("runner_nan")
    spec = tmp_path / "in.yaml"
    spec.write_text(NAN_SPEC % "randn, seed: 0")
    rec = tmp_path / "rb.yaml"
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec), "--headless", "100x30",
             "--keys", "s s R s break-nan c"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    frames = _frames(r.stdout)
    assert [f[0] for f in frames] == ["start", "s", "s", "R", "s", "break-nan", "c"]
    assert "inspector: #1 " in frames[2][1]
    assert "rerun with blocking launches" in frames[3][1]
    assert "inspector: #0 " in frames[4][1] and "| stopped |" in frames[4][1]   # from the first kernel again
    assert "break on NaN/Inf: on" in frames[5][1]
    assert "| stopped |" in frames[6][1] and "NaN" in frames[6][1]              # stopped at the NaN
    assert 'CUDA_LAUNCH_BLOCKING: "1"' in rec.read_text()
