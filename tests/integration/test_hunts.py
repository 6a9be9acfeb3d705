"""Hunts on real runs: hunt-nan stops at the kernel that made the NaN (replay and
live), hunt-diverge finds the first kernel that differs from a reference session.
"""
import re

import pytest

from aotidbg_testlib import NAN_SPEC, kernel_tensor as _tensor, record_session as _record, session_kernels as _kernels
from conftest import run


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
