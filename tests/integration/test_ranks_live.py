"""Live --ranks N (lockstep, side by side) and the joint replay of the rank files:
real runners in a real gloo group (c10d's TCPStore and ProcessGroupGloo in each),
driven through the UI headless (frames) and in a terminal (tmux).

The model is test_ranks.py's (ranks_allreduce: mm, a fused relu+index, the functional
all_reduce and its wait_tensor, a fused epilogue); rank 1's index input can be put out
of range so that rank 1 fails before the collective and rank 0 waits in it.
"""
import os
import re
import shlex
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from aotidbg_testlib import events, frames, load_session, run  # noqa: E402
from test_ranks import write_inputs  # noqa: E402

WAIT = "aoti_torch_cpu__c10d_functional_wait_tensor"
REDUCE = "aoti_torch_cpu__c10d_functional_all_reduce_"


def _live(aotidbg, pkg, tmp_path, keys, *extra, bad_rank=None, name="s"):
    specs, _ = write_inputs(tmp_path, 2, bad_rank=bad_rank)
    rec = tmp_path / f"{name}.yaml"
    r = run([aotidbg, pkg, "--ranks", "2", "--inputs", specs, "--record", str(rec), *extra,
             "--headless", "160x40", "--keys", keys], cwd=str(tmp_path), timeout=240)
    return r, [tmp_path / f"{name}.rank{k}.yaml" for k in range(2)]


def _rank_lines(screen):
    """The ranks strip's rank lines: {rank: line}."""
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^[> ] rank (\d+) .*$", screen, re.M)}


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_step_moves_every_rank(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    r, recs = _live(aotidbg, pkg, tmp_path, "s s s s s")
    assert r.returncode == 0, r.stderr
    f = frames(r.stdout)
    assert [x[0] for x in f] == ["start", "s", "s", "s", "s", "s"]
    # each step moves both ranks to their next kernel, in lockstep (the first: to the first kernel)
    for i, (_, screen) in enumerate(f[1:]):
        lines = _rank_lines(screen)
        assert sorted(lines) == [0, 1], screen
        for k in (0, 1):
            assert re.search(rf"rank {k}  stopped\s+at #{i} ", lines[k]), lines[k]
        assert f"| rank 0: stopped | k {i}/{i + 1}" in screen, screen
    # the strip says which kernel is a collective, with its op and group
    assert f"at #2 {REDUCE} (all_reduce, group 0)" in _rank_lines(f[3][1])[1]
    assert f"at #3 {WAIT} (wait_tensor, group 0)" in _rank_lines(f[4][1])[0]
    # one session per rank, every event with its rank
    for k, rec in enumerate(recs):
        s = load_session(str(rec))
        assert s["rank"] == k and s["world_size"] == 2 and s["end_state"] == "stopped"
        assert all(e.get("rank") == k for e in s["events"])
        ks = events(s, "kernel")
        assert [e["index"] for e in ks] == [0, 1, 2, 3, 4]
        assert [e.get("collective") for e in ks if e.get("collective")] == ["all_reduce", "wait_tensor"]
    assert "rank 0: session saved to" in r.stderr and "rank 1: session saved to" in r.stderr


STEPS_INTO_THE_COLLECTIVE = "s s s s s"   # to kernel 0, 1 (rank 1 fails there), 2, 3, and into the wait


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_collective_shows_the_rank_waiting_and_for_whom(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    r, recs = _live(aotidbg, pkg, tmp_path, STEPS_INTO_THE_COLLECTIVE + " rank:1 }", bad_rank=1)
    assert r.returncode == 1, r.stderr   # rank 1's model failed
    f = frames(r.stdout)
    assert [x[0] for x in f][:6] == ["start", "s", "s", "s", "s", "s"]
    # rank 1 fails in its fused index kernel; rank 0 steps on to the collective
    lines = _rank_lines(f[3][1])
    assert re.search(r"rank 1  failed \(stopped at the error\) in #1 cpp_fused", lines[1]), lines[1]
    assert re.search(rf"rank 0  stopped\s+at #2 {REDUCE} \(all_reduce, group 0\)", lines[0]), lines[0]
    # the last step: rank 0 waits for rank 1 (the UI did not wait on it): inside the wait_tensor, or,
    # on a slow box (ASan), still in the all_reduce when the frame is drawn, before #3 is announced
    lines = _rank_lines(f[5][1])
    m = re.search(r"rank 0  running\s+waiting for rank 1 in all_reduce #2 \(group 0, ranks 0,1\); in #([23]) (\S+)",
                  lines[0])
    assert m and m.group(2) == {"3": WAIT, "2": REDUCE}[m.group(1)], lines[0]
    assert ("| rank 0: running | k 3/4" if m.group(1) == "3" else "| rank 0: running | k ") in f[5][1], f[5][1]
    # :rank 1 shows rank 1 in the kernel list and the inspector; } goes round to rank 0
    g = dict(f)
    assert "| rank 1: failed |" in g["rank:1"] and "k 1/2" in g["rank:1"], g["rank:1"]
    assert "inspector: #1 cpp_fused" in g["rank:1"] and "> rank 1 " in g["rank:1"]
    assert "| rank 0: running |" in g["}"] and "> rank 0 " in g["}"], g["}"]
    s0, s1 = (load_session(str(p)) for p in recs)
    assert s1["end_state"] == "failed" and s0["end_state"] == "killed"   # quitting ended the waiting rank
    assert events(s0, "kernel")[-1]["name"] == WAIT and events(s0, "kernel")[-1]["status"] == "pending"


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_continue_holds_the_others_at_one_ranks_error(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    r, recs = _live(aotidbg, pkg, tmp_path, "c", bad_rank=1)
    assert r.returncode == 1, r.stderr
    f = dict(frames(r.stdout))
    lines = _rank_lines(f["c"])
    assert re.search(r"rank 1  failed \(stopped at the error\) in #1 cpp_fused", lines[1]), lines[1]
    # rank 0 got into the collective and waits there (not paused: a pause would stop it later, unasked),
    # or was paused at a kernel start before it
    assert re.search(r"rank 0  running\s+waiting for rank 1 in all_reduce #2 ", lines[0]) or \
        re.search(r"rank 0  stopped\s+at #[0-3] ", lines[0]), lines[0]
    assert re.search(r"rank 1 stopped at kernel #1 \(its error\): the (others wait for it in a collective|"
                     r"other ranks pause at their next kernel start)", f["c"]), f["c"]


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_kernel_break_holds_both_ranks(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    r, recs = _live(aotidbg, pkg, tmp_path, "c s break:1 r c c", "--break-on", f"kernel={WAIT}")
    assert r.returncode == 0, r.stderr
    f = frames(r.stdout)
    assert [x[0] for x in f] == ["start", "c", "s", "break:1", "r", "c", "c"]
    # c: both ranks run through the all_reduce and stop before the wait_tensor
    for k, line in _rank_lines(f[1][1]).items():
        assert re.search(rf"rank {k}  stopped\s+at #3 {WAIT}", line), line
    for k, line in _rank_lines(f[2][1]).items():   # s: both to the epilogue
        assert re.search(rf"rank {k}  stopped\s+at #4 ", line), line
    # an index breakpoint after a restart: both stop before kernel 1, then the kernel= break holds both again
    for k, line in _rank_lines(f[5][1]).items():
        assert re.search(rf"rank {k}  stopped\s+at #1 ", line), line
    assert "restarted: 2 fresh runners" in f[4][1]
    for k, line in _rank_lines(f[6][1]).items():
        assert re.search(rf"rank {k}  stopped\s+at #3 {WAIT}", line), line
    for rec in recs:
        assert load_session(str(rec))["end_state"] == "stopped"


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_nan_stop_of_one_rank_holds_the_other(aotidbg, package, tmp_path):
    import numpy as np
    pkg = package("ranks_allreduce")
    specs, xs = write_inputs(tmp_path, 2)
    x = np.load(xs[1])
    x[1, 2] = np.nan   # rank 1's mm output holds NaN; rank 0's values are finite until the all_reduce
    np.save(xs[1], x)
    rec = tmp_path / "n.yaml"
    r = run([aotidbg, pkg, "--ranks", "2", "--inputs", specs, "--record", str(rec), "--break-on", "nan",
             "--headless", "160x40", "--keys", "c"], cwd=str(tmp_path), timeout=240)
    f = dict(frames(r.stdout))
    lines = _rank_lines(f["c"])
    assert re.search(r"rank 1  stopped\s+after #0 aoti_torch_cpu_mm_out", lines[1]), lines[1]
    assert "rank 1 stopped at kernel #0 (NaN/Inf)" in f["c"], f["c"]
    # rank 0 is held: paused at its next kernel start before the collective, or waiting in it for rank 1
    assert re.search(r"rank 0  stopped\s+at #[0-3] ", lines[0]) or \
        re.search(r"rank 0  running\s+waiting for rank 1 in all_reduce #2 ", lines[0]), lines[0]
    s0 = load_session(str(tmp_path / "n.rank0.yaml"))
    # its wait_tensor cannot end before rank 1 launched the all_reduce (the all_reduce itself is asynchronous)
    assert not any(e["status"] == "ok" and e["index"] >= 3 for e in events(s0, "kernel")), "rank 0 went on"


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_a_rank_that_ends_before_joining_ends_the_others(aotidbg, package, tmp_path):
    """Rank 1's runner ends at its start (a wrapper around the real runner exits when RANK is 1,
    as a runner that crashes before LOAD): rank 0 would wait for it in c10d's rendezvous for the
    group's timeout, a day in live; the UI ends it 3 s later (RUN_RANKS_UNJOINED_GRACE_S) and
    says why, as `run --ranks` does."""
    pkg = package("ranks_allreduce")
    real = os.path.join(os.path.dirname(aotidbg), "aotidbg-runner")
    wrapper = tmp_path / "runner.sh"
    wrapper.write_text(f'#!/bin/sh\n[ "$RANK" = 1 ] && exit 3\nexec {shlex.quote(real)} "$@"\n')
    wrapper.chmod(0o755)
    specs, _ = write_inputs(tmp_path, 2)
    r = run([aotidbg, pkg, "--ranks", "2", "--inputs", specs, "--record", str(tmp_path / "s.yaml"),
             "--headless", "160x40", "--dump-screen"], cwd=str(tmp_path), timeout=240,
            env=dict(os.environ, AOTIDBG_RUNNER=str(wrapper)))
    assert r.returncode == 1, r.stderr
    assert "rank 1 ended before it joined the process group: rank 0 would wait for it in the rendezvous " \
        "(c10d's store) until the group's timeout; ended it" in r.stdout, r.stdout[-1500:]
    lines = _rank_lines(r.stdout)
    assert "runner killed" in lines[0] and "exited 3" in lines[1], lines
    assert load_session(tmp_path / "s.rank0.yaml")["end_state"] == "killed"
    assert load_session(tmp_path / "s.rank1.yaml")["end_state"] == "exited 3"
    # r restarts both: rank 1's fresh runner ends unjoined again, and rank 0 is ended again
    r = run([aotidbg, pkg, "--ranks", "2", "--inputs", specs, "--record", str(tmp_path / "r.yaml"),
             "--headless", "160x40", "--keys", "r", "--dump-screen"], cwd=str(tmp_path), timeout=240,
            env=dict(os.environ, AOTIDBG_RUNNER=str(wrapper)))
    assert r.returncode == 1, r.stderr
    assert "rank 1 ended before it joined the process group: rank 0 would wait" in r.stdout, r.stdout[-1500:]
    assert "runner killed" in _rank_lines(r.stdout)[0]


@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_joint_replay_shows_both_ranks(aotidbg, package, tmp_path):
    pkg = package("ranks_allreduce")
    r, recs = _live(aotidbg, pkg, tmp_path, STEPS_INTO_THE_COLLECTIVE, bad_rank=1, name="b")
    assert r.returncode == 1, r.stderr
    # given in any order, the files open in rank order, side by side
    rp = run([aotidbg, "replay", str(recs[1]), str(recs[0]), "--headless", "160x40", "--keys", "G }"])
    assert rp.returncode == 0, rp.stderr
    f = dict(frames(rp.stdout))
    lines = _rank_lines(f["G"])
    assert lines[0].startswith("> rank 0  killed") and "waiting for rank 1 in all_reduce #2 (group 0, ranks 0,1)" \
        in lines[0], lines[0]
    assert f"#3 {WAIT} pending" in lines[0], lines[0]
    assert "rank 1  failed" in lines[1] and "no kernel #3 (2 ran); ended in #1 cpp_fused" in lines[1], lines[1]
    assert "| rank 0: killed | k 3/4" in f["G"]
    assert "| rank 1: failed |" in f["}"] and "> rank 1 " in f["}"], f["}"]
    # --dump: each rank in rank order, the kernels side by side, where each ended and whom it waited for
    d = run([aotidbg, "replay", str(recs[1]), str(recs[0]), "--dump"])
    assert d.returncode == 0, d.stderr
    out = d.stdout
    assert out.index(f"=== rank 0 of 2: {recs[0]} ===") < out.index(f"=== rank 1 of 2: {recs[1]} ===") \
        < out.index("=== ranks side by side ===")
    assert re.search(r"^kernel #1 cpp_fused\S*:  rank 0 ok  rank 1 error$", out, re.M), out
    assert f"kernel #3 {WAIT} collective wait_tensor:  rank 0 pending  rank 1 -" in out
    assert re.search(rf"^rank 0: killed, 4 kernels, in kernel #3 {WAIT}, waiting in all_reduce \(group 0, "
                     r"ranks 0,1\) for rank 1$", out, re.M), out
    assert re.search(r"^rank 1: failed, 2 kernels, in kernel #1 cpp_fused\S*$", out, re.M), out
    # files that are not the ranks of one run are refused (exit 2)
    bad = run([aotidbg, "replay", str(recs[1]), str(recs[1]), "--dump"])
    assert bad.returncode == 2 and "are both rank 1" in bad.stderr, bad.stderr
    one = tmp_path / "one.yaml"
    one.write_text(recs[0].read_text().replace("\nrank: 0\n", "\n"))
    bad = run([aotidbg, "replay", str(one), str(recs[1])])
    assert bad.returncode == 2 and "not a session of a --ranks run" in bad.stderr, bad.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.usefixtures("nothing_outlives_the_test")
def test_live_ranks_in_a_terminal(aotidbg, package, tmp_path):
    """The terminal loop polls every rank's runner: keys step both ranks, and a rank's
    news shows without a key (rank 0 waits for rank 1, which fails)."""
    from test_terminal import Tmux
    pkg = package("ranks_allreduce")
    specs, _ = write_inputs(tmp_path, 2, bad_rank=1)
    t = Tmux(w=160, h=40)
    try:
        # the pane's shell starts with an empty environment: hand on the runner, caches and libraries
        keep = " ".join(f"{k}={shlex.quote(v)}" for k, v in os.environ.items()
                        if k.startswith(("AOTIDBG_", "TORCH", "CCACHE", "XDG_", "ASAN_", "UBSAN_"))
                        or k in ("HOME", "PATH", "LD_LIBRARY_PATH", "CC", "CXX"))
        t.send(f"cd {tmp_path} && env {keep} TERM=xterm-256color LANG=C.UTF-8 {aotidbg} {pkg} --ranks 2 "
               f"--inputs {specs} --record t.yaml; echo AOTIDBG-EXIT-$?", "Enter")
        # the strip is up (the ranks may be past starting already, stopped before their first kernel)
        t.wait_for(["ranks (2, rank 0 shown", "  rank 1  "], timeout=120)
        t.send("s")   # the first step: to the first kernel
        t.wait_for(["rank 0  stopped  at #0 ", "rank 1  stopped  at #0 "], timeout=120)
        t.send("s")
        screen = t.wait_for(["rank 0  stopped  at #1 ", "rank 1  stopped  at #1 "])
        assert "| rank 0: stopped | k 1/2" in screen, screen
        t.send("c")
        t.wait_for(["waiting for rank 1 in all_reduce #2", "rank 1  failed (stopped at the error)"])
        t.send("}")
        t.wait_for("| rank 1: failed (stopped at the error) |")
        t.send("q")
        t.wait_for("AOTIDBG-EXIT-1", timeout=30)
    finally:
        t.close()
    assert load_session(str(tmp_path / "t.rank1.yaml"))["end_state"] == "failed"
