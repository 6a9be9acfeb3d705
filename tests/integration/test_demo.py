"""The bundled demo model: `aotidbg tutorial live-demo` compiles it on first use
(with a clear message when python3 or torch is missing) and reuses the cache.
"""
import os
import re
import shutil

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
