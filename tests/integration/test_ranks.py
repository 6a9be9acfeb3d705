"""aotidbg run --ranks N: one runner per rank in a real gloo process group (c10d's
TCPStore and ProcessGroupGloo inside each runner), checked against the same model
run eagerly by torch.distributed on gloo in real processes.

Models: ranks_allreduce (tests/models/model_ranks.py) and ranks_scaled
(model_ranks_scaled.py: an input that should be the same on every rank, after the
all_reduce). A hanging rank comes from a preloaded library (built with g++ here)
that wraps libtorch's aoti_torch_cpu_mm_out and never returns on the rank
H33_HANG_RANK names. Several hosts are two loopback addresses of one real sshd
(sshd_harness.py).
"""
import os
import socket
import subprocess
import sys

import time

import numpy as np
import pytest
import torch
import yaml

sys.path.insert(0, os.path.dirname(__file__))
from aotidbg_testlib import events, load_session, run  # noqa: E402
import sshd_harness  # noqa: E402

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


# A run these tests give no --timeout of their own gets this one: a rank that hangs (in a kernel,
# or in the rendezvous: the group's timeout is 2 s less) then fails the test with the ranks' own
# summary well before run()'s 300 s, instead of a bare TimeoutExpired.
RUN_TIMEOUT = "120"


def run_ranks(aotidbg, pkg, tmp_path, n, specs, *extra):
    rec = tmp_path / "s.yaml"
    limit = [] if "--timeout" in extra else ["--timeout", RUN_TIMEOUT]
    p = run([aotidbg, "run", "--ranks", str(n), pkg, "--inputs", specs, "--values", "64", "--record", str(rec)]
            + limit + list(extra))
    sessions = [load_session(str(tmp_path / f"s.rank{r}.yaml")) for r in range(n)]
    return p, sessions


def outputs(sess):
    out = events(sess, "output")
    assert out, "no output event"
    return [np.array(t["values"], dtype=np.float64).reshape(t["shape"]) for t in out[0]["tensors"]]


def first_wait(sess):
    return next(i for i, e in enumerate(events(sess, "kernel")) if e.get("collective") == "wait_tensor")


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
    # compared by value: every after-tensor of every kernel from the wait on (--values 1024 by default)
    after = sum(1 for e in events(sessions[0], "kernel")[first_wait(sessions[0]):] for t in e["tensors"]
                if t["phase"] == "after")
    assert f"values of {after} after-tensors (every element of {after}," in p.stderr, p.stderr
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
                         (["--remote", "gpu1,gpu2"], "several hosts go with --ranks N")):
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


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_a_rank_that_ends_before_joining_stops_the_others(aotidbg, package, tmp_path):
    """Rank 0 cannot read its inputs: it never starts the store, so rank 1 would wait for it in the
    rendezvous until the group's timeout (118 s here); the front end stops it 3 s after rank 0 ended."""
    pkg = package("ranks_allreduce")
    specs, _ = write_inputs(tmp_path, 2)
    specs = ",".join([str(tmp_path / "missing.yaml"), specs.split(",")[1]])
    t0 = time.monotonic()
    p = run([aotidbg, "run", "--ranks", "2", pkg, "--inputs", specs, "--timeout", RUN_TIMEOUT,
             "--record", str(tmp_path / "s.yaml")])
    took = time.monotonic() - t0
    assert p.returncode != 0, p.stderr
    assert "rank 0: aotidbg run: " in p.stderr and "missing.yaml" in p.stderr, p.stderr
    assert "aotidbg run: rank 0 ended (exit code 2) before it joined the process group: rank 1 would wait" \
        in p.stderr, p.stderr
    assert "rank 0: no session" in p.stderr and "rank 1: interrupted (SIGTERM)" in p.stderr, p.stderr
    assert took < 60, (took, p.stderr)   # not the group's 118 s
    s1 = load_session(str(tmp_path / "s.rank1.yaml"))
    assert s1["end_state"].startswith("interrupted") and not events(s1, "kernel")


HANG_LIB = r"""
// Wraps libtorch's mm: on the rank H33_HANG_RANK names it never returns (a rank that hangs
// before the collective); on the others it calls through.
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
typedef void *H;
typedef int32_t (*mm_fn)(H, H, H);
extern "C" int32_t aoti_torch_cpu_mm_out(H out, H self, H mat2)
{
    const char *r = getenv("RANK"), *h = getenv("H33_HANG_RANK");
    if (r && h && !strcmp(r, h))
        for (;;) pause();
    return ((mm_fn)dlsym(RTLD_NEXT, "aoti_torch_cpu_mm_out"))(out, self, mat2);
}
"""


@pytest.fixture(scope="module")
def hang_runner(runner, tmp_path_factory):
    d = tmp_path_factory.mktemp("h33hang")
    src, lib, wrap = d / "hang.cpp", d / "libh33hang.so", d / "hanging-runner"
    src.write_text(HANG_LIB)
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-ldl"], check=True)
    real = os.environ.get("AOTIDBG_RUNNER") or runner
    wrap.write_text(f'#!/bin/sh\nLD_PRELOAD="{lib}" exec "{real}" "$@"\n')
    wrap.chmod(0o755)
    return str(wrap)


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_a_rank_that_hangs_is_named_within_the_timeout(aotidbg, package, hang_runner, tmp_path):
    pkg = package("ranks_allreduce")
    specs, _ = write_inputs(tmp_path, 2)
    rec, timeout = tmp_path / "s.yaml", 10
    t0 = time.monotonic()
    p = run([aotidbg, "run", "--ranks", "2", pkg, "--inputs", specs, "--timeout", str(timeout), "--record", str(rec)],
            env=dict(os.environ, AOTIDBG_RUNNER=hang_runner, H33_HANG_RANK="1"))
    took = time.monotonic() - t0
    assert p.returncode == 1, p.stderr
    # the wall clock includes two libtorch loads, slow on a loaded box: a loose bound on it, and the
    # timeout itself checked on rank 0's own clock (its wait_tensor's start to the error)
    assert took < timeout + 90, took
    s0, s1 = (load_session(str(tmp_path / f"s.rank{r}.yaml")) for r in range(2))
    assert s1["end_state"] == "timeout" and s0["end_state"] == "failed"
    k0, k1 = events(s0, "kernel")[-1], events(s1, "kernel")[-1]
    assert k0["collective"] == "wait_tensor" and k0["status"] == "error", k0
    assert k1["name"] == "aoti_torch_cpu_mm_out" and k1["status"] != "ok" and not k1.get("collective"), k1
    assert (f"rank 0 was in the collective all_reduce (kernel {k0['index'] - 1}, in its wait_tensor at kernel "
            f"{k0['index']}, group 0, ranks 0,1) waiting for rank 1 (timeout at kernel {k1['index']} "
            "aoti_torch_cpu_mm_out)") in p.stderr, p.stderr
    # c10d's own words (gloo's timeout), from rank 0's error event, on one line of the summary
    err_ev = [e for e in events(s0, "error") if e["kernel"] == k0["index"]][0]
    assert err_ev["t_ms"] - k0["t_ms"] < timeout * 1000, (k0["t_ms"], err_ev["t_ms"])
    err = err_ev["text"]
    gloo = err.split("the shim call's exception: ", 1)[1]
    assert "Timed out" in gloo and f"    c10d: {gloo}\n" in p.stderr, p.stderr
    for r, s in enumerate((s0, s1)):   # every rank's session is kept and replays
        assert all(e.get("rank") == r for e in s["events"])
        d = run([aotidbg, "replay", str(tmp_path / f"s.rank{r}.yaml"), "--dump"])
        assert d.returncode == 0, d.stderr


def scaled_inputs(tmp_path, w_of_rank1=None):
    specs = []
    w = torch.randn(8, generator=torch.Generator().manual_seed(7))
    for r in range(2):
        x = tmp_path / f"sx{r}.npy"
        np.save(x, torch.randn(4, 8, generator=torch.Generator().manual_seed(200 + r)).numpy())
        wf = tmp_path / f"sw{r}.npy"
        np.save(wf, (w if r == 0 or w_of_rank1 is None else w_of_rank1).numpy())
        spec = tmp_path / f"sin{r}.yaml"
        spec.write_text("inputs:\n"
                        f"  - {{shape: [4, 8], dtype: float32, fill: file, file: {x}}}\n"
                        f"  - {{shape: [8], dtype: float32, fill: file, file: {wf}}}\n")
        specs.append(str(spec))
    return ",".join(specs), w


def test_ranks_that_should_agree_and_do_not_are_flagged_at_the_first_kernel(aotidbg, package, tmp_path):
    pkg = package("ranks_scaled")
    specs, w = scaled_inputs(tmp_path)
    p, sessions = run_ranks(aotidbg, pkg, tmp_path, 2, specs)
    assert p.returncode == 0, p.stderr
    assert "ranks agree from the first collective's wait on: equal on all 2 ranks" in p.stderr, p.stderr
    np.testing.assert_array_equal(outputs(sessions[0])[0], outputs(sessions[1])[0])

    w1 = w.clone()
    w1[5] += 0.5   # rank 1 loaded another weight
    specs, _ = scaled_inputs(tmp_path, w1)
    p, sessions = run_ranks(aotidbg, pkg, tmp_path, 2, specs)
    assert p.returncode == 1, p.stderr
    # the first kernel from the wait on with a written after-tensor that differs, from the sessions' values
    ks = [events(s, "kernel") for s in sessions]
    at = None
    for i in range(first_wait(sessions[0]), len(ks[0])):
        for a, b in zip(ks[0][i]["tensors"], ks[1][i]["tensors"]):
            before = {t["name"]: t for t in ks[0][i]["tensors"] if t["phase"] == "before"}
            written = a["name"] not in before or before[a["name"]].get("values") != a["values"]
            if a["phase"] == "after" and written and a["values"] != b["values"]:
                at = at or (i, a)
        if at:
            break
    assert at, "the sessions do not differ"
    i, a = at
    b = [t for t in ks[1][i]["tensors"] if t["phase"] == "after" and t["name"] == a["name"]][0]
    first = next(j for j, (x, y) in enumerate(zip(a["values"], b["values"])) if x != y)
    idx = np.unravel_index(first, a["shape"])
    where = "[" + ", ".join(str(int(v)) for v in idx) + "]"
    assert (f"ranks diverge at kernel {ks[0][i]['index']} {ks[0][i]['name']}: rank 1's {a['name']} at {where}: "
            f"{b['values'][first]:.9g} on rank 1, {a['values'][first]:.9g} on rank 0") in p.stderr, p.stderr
    # and the input that came in different is named with the element rank 1 was given
    w_name = [t["name"] for t in ks[0][i]["tensors"] if t["phase"] == "before" and t["shape"] == [8]][0]
    assert (f"going in, rank 1's {w_name} at [5]: {float(w1[5]):.9g} on rank 1, {float(w[5]):.9g} on rank 0"
            in p.stderr), p.stderr
    assert "compared: " in p.stderr and "values of" in p.stderr


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    if not sshd_harness.available():
        pytest.skip("needs openssh-server (.ci/setup.sh)")
    s = sshd_harness.Sshd(str(tmp_path_factory.mktemp("sshd")), also=("127.0.0.2",))
    yield s
    s.stop()


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_ranks_on_two_hosts_through_ssh(aotidbg, package, runner, two_hosts, tmp_path):
    """Rank K on the Kth of two "hosts" (127.0.0.1 and 127.0.0.2 of one real sshd), each through
    --remote's ssh and agent; the store on rank 0's host; outputs as torch.distributed's."""
    pkg = package("ranks_allreduce")
    specs, xs = write_inputs(tmp_path, 2)
    real = os.environ.get("AOTIDBG_RUNNER") or runner
    rec = tmp_path / "s.yaml"
    p = run([aotidbg, "run", "--ranks", "2", "--remote", ",".join(two_hosts.targets), "--remote-runner", real, pkg,
             "--inputs", specs, "--timeout", "60", "--record", str(rec)], env=two_hosts.env())
    assert p.returncode == 0, p.stderr
    sessions = [load_session(str(tmp_path / f"s.rank{r}.yaml")) for r in range(2)]
    check_ranks(sessions, 2)
    want = eager_ranks(tmp_path, xs)
    for r, s in enumerate(sessions):
        for g, w in zip(outputs(s), want[r]):
            np.testing.assert_allclose(g, w.double().numpy(), rtol=1e-5, atol=1e-5)
        assert any(f"aotidbg --remote {two_hosts.targets[r]};" in n for n in s["notes"]), s["notes"]
        joined = [e["text"] for e in events(s, "log") if "joined process group" in e["text"]]
        assert joined and "store 127.0.0.1:" in joined[0], joined   # rank 0's host, as rank 1 reaches it
        assert f"rank {r} on {two_hosts.targets[r]}: complete" in p.stderr, p.stderr
    assert "ranks agree from the first collective's wait on" in p.stderr
