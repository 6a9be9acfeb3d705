"""`aotidbg run --expect OUT.npy`: the run's outputs against expected values, for CI (mlp_ln on CPU,
its eager outputs as the expected files)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import eager_outputs, load_session, run, write_spec  # noqa: E402


@pytest.fixture(scope="module")
def mlp(package, tmp_path_factory):
    d = tmp_path_factory.mktemp("expect")
    pkg = package("mlp_ln")
    inputs, outs, files = eager_outputs(pkg, d)
    return dict(pkg=pkg, spec=write_spec(str(d), inputs), files=files, outs=outs, dir=d)


def expect_run(aotidbg, mlp, files, *extra, name="s.yaml"):
    args = [aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--record", str(mlp["dir"] / name)]
    for f in files:
        args += ["--expect", f]
    return run(args + list(extra))


def test_eager_outputs_match(aotidbg, mlp):
    r = expect_run(aotidbg, mlp, mlp["files"])
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(" matches: all ") == len(mlp["files"]), r.stderr
    for f, t in zip(mlp["files"], mlp["outs"]):
        assert f"against {f}: matches: all {t.numel()} elements" in r.stderr
    notes = load_session(str(mlp["dir"] / "s.yaml")).get("notes") or []
    assert any(n.startswith("--expect: output 0") and "matches" in n for n in notes), notes


def test_a_changed_value_fails_naming_the_element(aotidbg, mlp):
    want = np.load(mlp["files"][0])
    idx = tuple(d - 1 for d in want.shape)   # the last element
    want[idx] += 1.0
    bad = str(mlp["dir"] / "bad0.npy")
    np.save(bad, want)
    r = expect_run(aotidbg, mlp, [bad] + mlp["files"][1:], name="bad.yaml")
    assert r.returncode == 1, r.stderr
    at = "[" + ", ".join(str(i) for i in idx) + "]"
    assert f"against {bad}: differs at {at}: got " in r.stderr, r.stderr
    assert "1 of " in r.stderr   # one value differs
    # exact comparison: the eager output against itself is equal, the changed one is not
    r = expect_run(aotidbg, mlp, [bad], "--expect-tolerance", "0,0", name="exact.yaml")
    assert r.returncode == 1 and "atol 0, rtol 0" in r.stderr


def test_shape_count_and_bad_files(aotidbg, mlp):
    wrong = str(mlp["dir"] / "wrong.npy")
    np.save(wrong, np.zeros((3, 5), dtype=np.float32))
    r = expect_run(aotidbg, mlp, [wrong], name="w.yaml")
    assert r.returncode == 1 and "differs in shape: the output is [" in r.stderr, r.stderr
    r = expect_run(aotidbg, mlp, mlp["files"] + mlp["files"][:1], name="more.yaml")
    assert r.returncode == 1 and "has fewer outputs than --expect files" in r.stderr, r.stderr
    r = expect_run(aotidbg, mlp, [str(mlp["dir"] / "missing.npy")], name="m.yaml")
    assert r.returncode == 2 and "missing.npy" in r.stderr and "output 0" in r.stderr
    junk = mlp["dir"] / "junk.npy"
    junk.write_bytes(b"not a numpy file")
    r = expect_run(aotidbg, mlp, [str(junk)], name="j.yaml")
    assert r.returncode == 2 and "junk.npy" in r.stderr
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--record", str(mlp["dir"] / "t.yaml"),
             "--expect", mlp["files"][0], "--expect-tolerance", "nope"])
    assert r.returncode == 2 and "--expect-tolerance needs ATOL,RTOL" in r.stderr
