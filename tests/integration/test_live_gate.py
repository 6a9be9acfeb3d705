"""The checklist gate before a live run: a FAIL row keeps the runner from
starting (the checklist pane says why), --force runs anyway.
"""

import pytest

from aotidbg_testlib import frames as _frames
from conftest import run


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
    assert r.returncode == 2   # bad input: only an input row failed (and the step could not run)
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
