"""while_loop iterations: each launch knows its round, --break-on iteration=K and kernel=NAME@K
stop there, and a NaN planted in round K is found at round K. Real CPU packages:
tests/models/model_control.py's ctl_while (rounds = its first input) and
tests/models/model_loop.py's loop_nan (rounds and the NaN's round are inputs)."""
import os

import pytest
import torch

from aotidbg_testlib import events, load_session, run, write_spec


def run_loop(aotidbg, pkg, tmp_path, inputs, *extra):
    spec = write_spec(tmp_path, inputs)
    out = os.path.join(tmp_path, "s.yaml")
    p = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out, *extra])
    return p, (load_session(out) if os.path.exists(out) else None)


def kernels(sess):
    return events(sess, "kernel")


@pytest.mark.parametrize("rounds", [0, 1, 6])
def test_each_launch_knows_its_iteration(aotidbg, package, tmp_path, rounds):
    pkg = package("ctl_while")
    p, sess = run_loop(aotidbg, pkg, tmp_path, (torch.tensor(rounds), torch.randn(2, 8)))
    assert p.returncode == 0, p.stderr
    ks = kernels(sess)
    folds = events(sess, "fold")
    cond = [k for k in ks if k.get("branch") == "while_loop_cond_graph_0"]
    body = [k for k in ks if k.get("branch") == "while_loop_body_graph_0"]
    # repeated iterations are folded: the first and the last kept whole, the rest counted
    folded = [i for f in folds for i in range(f["from_iteration"], f["to_iteration"] + 1)]
    assert sorted(folded + [k["iteration"] for k in cond]) == list(range(rounds + 1))
    assert sorted(folded + [k["iteration"] for k in body]) == list(range(rounds))
    assert {0, rounds} <= {k["iteration"] for k in cond} and (rounds < 1 or rounds - 1 in
                                                              {k["iteration"] for k in body})
    assert len(cond) + len(body) == len(ks)
    # every launch is accounted for: kept indices and folded ranges tile 0..2*rounds
    idx = sorted([k["index"] for k in ks] + [i for f in folds for i in range(f["first_kernel"], f["last_kernel"] + 1)])
    assert idx == list(range(2 * rounds + 1))
    for f in folds:
        assert f["launches"] == f["last_kernel"] - f["first_kernel"] + 1 == 2 * (f["to_iteration"] - f["from_iteration"] + 1)
        assert [fk["name"] for fk in f["kernels"]] == [cond[0]["name"], body[0]["name"]]
        assert all(fk["launches"] == f["launches"] // 2 for fk in f["kernels"])
    dump = run([aotidbg, "replay", os.path.join(tmp_path, "s.yaml"), "--dump"])
    assert f"branch=while_loop_cond_graph_0 iteration={rounds}" in dump.stdout
    for f in folds:   # our own reader reads the fold back
        assert (f"fold loop=while_loop_0 from_iteration={f['from_iteration']} to_iteration={f['to_iteration']} "
                f"first_kernel={f['first_kernel']} last_kernel={f['last_kernel']} launches={f['launches']}") in dump.stdout
    assert bool(folds) == (rounds >= 3)


def test_break_on_iteration_and_kernel_at(aotidbg, package, tmp_path):
    pkg = package("ctl_while")
    ins = (torch.tensor(6), torch.randn(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", "iteration=3")
    ks = kernels(sess)
    assert ks[-1]["iteration"] == 3 and all(k.get("iteration", -1) < 3 for k in ks[:-1]), p.stderr
    assert "in iteration 3 of while_loop_cond_graph_0" in p.stderr
    body = next(k["name"] for k in ks if k.get("branch") == "while_loop_body_graph_0")
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", f"kernel={body}@4")
    last = kernels(sess)[-1]
    assert (last["name"], last["iteration"]) == (body, 4), p.stderr
    assert load_session(os.path.join(tmp_path, "s.yaml"))["end_state"] == "stopped"
    p, _ = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", f"kernel={body}@9")
    assert p.returncode == 2 and f"kernel={body}@9 matched no kernel" in p.stderr
    for bad in ("iteration=-1", "iteration=x", "kernel=@3", f"kernel={body}@"):
        p, _ = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", bad)
        assert p.returncode == 2 and "--break-on" in p.stderr and "iteration" in p.stderr, (bad, p.stderr)


@pytest.mark.parametrize("rounds,bad", [(200, 150), (60, 7)])
def test_nan_found_at_its_iteration(aotidbg, package, tmp_path, rounds, bad):
    pkg = package("loop_nan")
    ins = (torch.tensor(rounds), torch.tensor(bad), torch.rand(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", "nan")
    assert p.returncode == 1, p.stderr
    (nan,) = events(sess, "nan")
    k = next(k for k in kernels(sess) if k["index"] == nan["kernel"])
    assert k["iteration"] == bad and k["branch"] == "while_loop_body_graph_0"
    # the rounds before it repeat and fold; the NaN's round and the one before it stay whole
    (fold,) = events(sess, "fold")
    assert fold["from_iteration"] == 1 and fold["to_iteration"] == bad - 2, fold
    assert {bad - 1, bad} <= {k.get("iteration") for k in kernels(sess)}
    assert f"in iteration {bad} of while_loop_body_graph_0" in p.stderr
    assert f"(iteration {bad} of while_loop_body_graph_0)" in p.stderr
