"""aotidbg run --ranks N: one runner per rank in a real gloo process group (c10d's
TCPStore and ProcessGroupGloo inside each runner), checked against the same model
run eagerly by torch.distributed on gloo in real processes.

All tests share one compiled model (ranks_allreduce, tests/models/model_ranks.py).
"""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from aotidbg_testlib import events, load_session, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The eager two-rank result: the builder's module, its all_reduce on a real gloo group.
EAGER = r"""
import os, sys, torch, torch.distributed as dist
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "models"))
import model_ranks
rank, world, out = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), sys.argv[2]
dist.init_process_group("gloo", rank=rank, world_size=world)
spec = model_ranks.ranks_allreduce()
x = torch.from_numpy(__import__("numpy").load(sys.argv[3 + rank]))
idx = torch.tensor([3, 0, 1, 2])
with torch.no_grad():
    outs = spec["module"](x, idx)
torch.save([o.clone() for o in outs], out % rank)
dist.destroy_process_group()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_inputs(tmp_path, n, bad_rank=None):
    specs, xs = [], []
    for r in range(n):
        g = torch.Generator().manual_seed(100 + r)
        x = tmp_path / f"x{r}.npy"
        np.save(x, torch.randn(4, 8, generator=g).numpy())
        idx = tmp_path / f"idx{r}.npy"
        np.save(idx, np.array([3, 0, 1, 2] if r != bad_rank else [3, 0, 9, 2], dtype=np.int64))
        spec = tmp_path / f"in{r}.yaml"
        spec.write_text("inputs:\n"
                        f"  - {{shape: [4, 8], dtype: float32, fill: file, file: {x}}}\n"
                        f"  - {{shape: [4], dtype: int64, fill: file, file: {idx}}}\n")
        specs.append(str(spec))
        xs.append(str(x))
    return ",".join(specs), xs


def eager_ranks(tmp_path, xs):
    """Each rank's outputs, from torch.distributed on gloo in len(xs) real processes."""
    port, out = free_port(), str(tmp_path / "eager%d.pt")
    procs = []
    for r in range(len(xs)):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(len(xs)), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, "-c", EAGER, ROOT, out] + xs, env=env))
    assert all(p.wait(timeout=300) == 0 for p in procs)
    return [torch.load(out % r) for r in range(len(xs))]


def run_ranks(aotidbg, pkg, tmp_path, n, specs, *extra):
    rec = tmp_path / "s.yaml"
    p = run([aotidbg, "run", "--ranks", str(n), pkg, "--inputs", specs, "--values", "64", "--record", str(rec)]
            + list(extra))
    sessions = [load_session(str(tmp_path / f"s.rank{r}.yaml")) for r in range(n)]
    return p, sessions


def outputs(sess):
    out = events(sess, "output")
    assert out, "no output event"
    return [np.array(t["values"], dtype=np.float64).reshape(t["shape"]) for t in out[0]["tensors"]]


def check_ranks(sessions, n):
    for r, s in enumerate(sessions):
        assert s["rank"] == r and s["world_size"] == n
        assert all(e.get("rank") == r for e in s["events"]), f"rank {r}: an event without its rank"
        coll = [e for e in events(s, "kernel") if e.get("collective")]
        assert [e["collective"] for e in coll] == ["all_reduce", "wait_tensor"], coll
        assert all(e["group"] == "0" and e["participants"] == ",".join(map(str, range(n))) for e in coll)
        assert all(e["status"] == "ok" for e in coll)


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_ranks_outputs_equal_torch_distributed(aotidbg, package, tmp_path, n):
    pkg = package("ranks_allreduce")
    specs, xs = write_inputs(tmp_path, n)
    p, sessions = run_ranks(aotidbg, pkg, tmp_path, n, specs)
    assert p.returncode == 0, p.stderr
    check_ranks(sessions, n)
    want = eager_ranks(tmp_path, xs)
    for r, s in enumerate(sessions):
        got = outputs(s)
        assert len(got) == len(want[r])
        for g, w in zip(got, want[r]):
            np.testing.assert_allclose(g, w.double().numpy(), rtol=1e-5, atol=1e-5)
    # the ranks' inputs differ, their reduced outputs do not
    assert not np.array_equal(np.load(xs[0]), np.load(xs[1]))
    np.testing.assert_array_equal(outputs(sessions[0])[0], outputs(sessions[1])[0])
    assert "ranks agree from the first collective's wait on" in p.stderr
    for r in range(n):
        assert f"rank {r}: complete" in p.stderr


def test_ranks_one_spec_for_all_and_bad_spec_count(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    specs, _ = write_inputs(tmp_path, 2)
    p, sessions = run_ranks(aotidbg, pkg, tmp_path, 2, specs.split(",")[0])
    assert p.returncode == 0, p.stderr
    a, b = outputs(sessions[0]), outputs(sessions[1])
    np.testing.assert_array_equal(a[0], b[0])
    bad = run([aotidbg, "run", "--ranks", "3", pkg, "--inputs", specs, "--record", str(tmp_path / "b.yaml")])
    assert bad.returncode == 2 and "--inputs gives 2 specs for 3 ranks" in bad.stderr
    for extra, words in ((["--ranks", "0"], "--ranks needs a number of ranks from 1 to 64"),
                         (["--ranks", "2", "--remote", "gpu1"], "does not take --remote")):
        bad = run([aotidbg, "run", pkg, "--record", str(tmp_path / "c.yaml")] + extra)
        assert bad.returncode == 2 and words in bad.stderr, bad.stderr


def test_a_rank_that_fails_is_named_with_the_collective_the_others_wait_in(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    specs, _ = write_inputs(tmp_path, 2, bad_rank=1)
    p, sessions = run_ranks(aotidbg, pkg, tmp_path, 2, specs, "--timeout", "30")
    assert p.returncode == 1, p.stderr
    assert sessions[1]["end_state"] != "complete" and sessions[0]["end_state"] != "complete"
    k0 = events(sessions[0], "kernel")[-1]
    # the functional all_reduce is asynchronous: rank 0 waits in its wait_tensor
    assert k0["collective"] in ("all_reduce", "wait_tensor") and k0["status"] != "ok", k0
    assert not any(e.get("collective") for e in events(sessions[1], "kernel"))
    assert "rank 0 was in the collective all_reduce" in p.stderr and "waiting for rank 1" in p.stderr, p.stderr
