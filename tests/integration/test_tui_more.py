"""The TUI's follow-up features on real runs: the bundled demo model compiled
on first use (tutorial live-demo), the checklist gate before a live run,
router actions, the run's mode, hunts and the reference diff.
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import run


def _frames(stdout):
    out, cur = [], None
    for line in stdout.splitlines():
        if line.startswith("=== ") and line.endswith(" ==="):
            cur = [line[4:-4], []]
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    return [(label, "\n".join(lines)) for label, lines in out]


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
