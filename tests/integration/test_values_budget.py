"""The value budget (issue 7 item 2): `--values-budget SIZE` on a real AOTI
CPU package (tests/models/model_values_budget.py: 64x64 float32 tensors).

The same run three ways: no budget (--values-budget 0: every value kept),
the default budget (256 MiB: nothing cut on this model) and a small one
(128K = 16384 values, a reserve of 8K = one 1024-value sample). With the
small one, tensors are whole while they fit, then one keeps a prefix sample,
then none keep values; every cut tensor carries values_budget_cut and keeps
the statistics the unlimited run recorded. Then the end-of-run line, the
inspector in replay, `replay --dump`, and bad sizes (exit 2).
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import load_session, run, write_spec  # noqa: E402

BUDGET = 128 * 1024
SAMPLE = 1024


def tensors(sess):
    """Every recorded tensor in event order, with where it came from."""
    out = []
    for e in sess["events"]:
        if e["kind"] in ("kernel", "output"):
            for t in e.get("tensors") or []:
                out.append((e.get("index", -1) if e["kind"] == "kernel" else -1, e.get("name", "output"), t))
    return out


def stable(t):
    """Can this tensor be compared across runs? A 'before' buffer that the kernel
    is about to fill may be uninitialised memory, different in every run; what a
    kernel wrote ('after') and the outputs are the same in every run."""
    return t["phase"] != "before"


@pytest.fixture(scope="module")
def runs(aotidbg, runner, package, tmp_path_factory):
    pkg = package("values_budget")
    d = tmp_path_factory.mktemp("values_budget")
    inputs = torch.load(pkg[:-len(".pt2")] + ".inputs.pt")
    spec = write_spec(str(d), inputs)
    out = {"dir": d}
    for key, extra in (("none", ["--values-budget", "0"]), ("default", []),
                       ("small", ["--values-budget=128K"])):
        path = str(d / f"{key}.yaml")
        r = run([aotidbg, "run", pkg, "--inputs", spec, "--values", "100000", *extra, "--record", path])
        assert r.returncode == 0, (key, r.stderr)
        out[key] = dict(proc=r, path=path, sess=load_session(path))
    return out


def test_no_budget_keeps_every_value(runs):
    sess = runs["none"]["sess"]
    ts = tensors(sess)
    assert len(ts) > 8
    total = 0
    for _, _, t in ts:
        assert "values_budget_cut" not in t
        assert len(t["values"]) == t["stats"]["numel"] and t["values_complete"] is True
        total += len(t["values"])
    assert total * 8 > BUDGET * 2   # the small budget below has to cut
    assert "values_budget" not in sess   # 0: no limit, no header line
    assert "value budget" not in runs["none"]["proc"].stderr


def test_default_budget_is_256m_and_cuts_nothing_here(runs):
    sess = runs["default"]["sess"]
    assert sess["values_budget"] == 256 << 20
    for _, _, t in tensors(sess):
        assert "values_budget_cut" not in t
        assert len(t["values"]) == t["stats"]["numel"] and t["values_complete"] is True
    assert "value budget" not in runs["default"]["proc"].stderr


def test_small_budget_whole_then_sample_then_none(runs):
    sess = runs["small"]["sess"]
    assert sess["values_budget"] == BUDGET
    full = tensors(runs["none"]["sess"])
    small = tensors(sess)
    assert [(k, t["name"], t["phase"]) for k, _, t in small] == [(k, t["name"], t["phase"]) for k, _, t in full]
    states = []
    used = reserve = 0
    for (k, kname, t), (_, _, ft) in zip(small, full):
        vals = t.get("values") or []
        # statistics cover every element: the same as the run that kept everything
        assert t["stats"]["numel"] == ft["stats"]["numel"] == len(ft["values"])
        if stable(t):
            assert t["stats"] == ft["stats"], (k, t["name"])
        if t.get("values_budget_cut"):
            assert t.get("values_complete", False) is False
            assert len(vals) in (0, min(SAMPLE, len(ft["values"]))) and len(vals) < len(ft["values"])
            if stable(t):
                assert vals == ft["values"][:len(vals)]   # a prefix: the first rows
            reserve += 8 * len(vals)
            states.append("sample" if vals else "none")
        else:
            assert len(vals) == len(ft["values"]) and t["values_complete"] is True
            if stable(t):
                assert vals == ft["values"]
            used += 8 * len(vals)
            states.append("whole")
    assert used <= BUDGET and reserve <= BUDGET // 16
    assert used + reserve <= BUDGET + BUDGET // 16
    # in event order: whole tensors while they fit, then the one sample, then none
    first_cut = states.index("sample")
    assert first_cut > 0 and all(s == "whole" for s in states[:first_cut])
    assert states.count("sample") == 1 and "none" in states[first_cut:]
    assert used + 8 * len(full[first_cut][2]["values"]) > BUDGET   # it was cut because it did not fit
    assert small[-1][2].get("values_budget_cut")   # the output too
    assert sum(1 for _, _, t in small if t.get("values_budget_cut") and stable(t)) >= 8
    ncut = sum(1 for s in states if s != "whole")
    k, kname, _ = small[first_cut]
    line = (f"aotidbg: the value budget (128 KiB) was used up at kernel #{k} ({kname}); {ncut} tensors keep "
            "statistics and a sample of their values (--values-budget)")
    assert line in runs["small"]["proc"].stderr, runs["small"]["proc"].stderr
    runs["first_cut"] = (k, small[first_cut][2], full[first_cut][2])


def test_replay_inspector_and_dump_say_why(aotidbg, runs):
    if "first_cut" not in runs:
        pytest.skip("needs test_small_budget_whole_then_sample_then_none")
    k, t, ft = runs["first_cut"]
    path = runs["small"]["path"]
    before = [x for x in runs["small"]["sess"]["events"] if x.get("index") == k and x["kind"] == "kernel"][0]
    rows = [x for x in before["tensors"] if x["phase"] == t["phase"]]
    row = next(i for i, x in enumerate(rows) if x["name"] == t["name"])
    keys = f"goto:{k} pane-inspector view:{t['phase']}" + (f" down:{row}" if row else "") + " zoom"
    r = run([aotidbg, "replay", path, "--headless", "160x40", "--keys", keys, "--dump-screen"])
    assert r.returncode == 0, r.stderr
    numel = ft["stats"]["numel"]
    assert (f"values: first {SAMPLE} of {numel} kept (value budget 128 KiB used up; the statistics cover every "
            "element; raise --values-budget)") in r.stdout, r.stdout
    assert f"values ({SAMPLE} sampled: value budget)" in r.stdout, r.stdout
    # the unlimited session shows no such line
    r = run([aotidbg, "replay", runs["none"]["path"], "--headless", "160x40", "--keys", keys, "--dump-screen"])
    assert r.returncode == 0 and "value budget" not in r.stdout, r.stdout

    r = run([aotidbg, "replay", path, "--dump"])
    assert r.returncode == 0, r.stderr
    assert "\nvalues_budget: 131072\n" in r.stdout
    assert f"values_budget_cut: {SAMPLE} values kept (the value budget was used up)" in r.stdout
    assert "values_budget_cut: 0 values kept" in r.stdout
    r = run([aotidbg, "replay", runs["none"]["path"], "--dump"])
    assert r.returncode == 0 and "\nvalues_budget:" not in r.stdout and "values_budget_cut" not in r.stdout


@pytest.mark.parametrize("bad", ["lots", "-1", "12KB", "1.5M", "", "99999999999999999999", "8589934593G"])
def test_bad_budget_is_a_usage_error(aotidbg, package, runs, bad):
    pkg = package("values_budget")
    r = run([aotidbg, "run", pkg, "--values", "10", "--values-budget", bad, "--record",
             str(runs["dir"] / "bad.yaml")])
    assert r.returncode == 2, r.stderr
    assert "--values-budget needs a size in bytes" in r.stderr and f"got '{bad}'" in r.stderr, r.stderr
    assert not os.path.exists(runs["dir"] / "bad.yaml")
    r = run([aotidbg, pkg, "--values-budget", bad, "--headless", "80x24"])
    assert r.returncode == 2 and "--values-budget needs a size in bytes" in r.stderr, r.stderr


def test_missing_budget_value(aotidbg, package, runs):
    r = run([aotidbg, "run", package("values_budget"), "--record", str(runs["dir"] / "m.yaml"), "--values-budget"])
    assert r.returncode == 2 and "--values-budget needs a value" in r.stderr, r.stderr


def test_live_mode_budget(aotidbg, package, runs):
    """Live mode keeps up to 4096 values a tensor: with --values-budget 128K (16384 values) the
    first four tensors are whole, the fifth keeps a 1024-value sample (the 8K reserve), later
    ones none, and the inspector says so."""
    pkg = package("values_budget")
    d = runs["dir"]
    path = str(d / "live.yaml")
    keys = "c pane-kernels top down:1 pane-inspector view:before zoom"
    r = run([aotidbg, pkg, "--inputs", str(d / "spec.yaml"), "--record", path, "--values-budget", "128K",
             "--headless", "160x40", "--keys", keys, "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert "values: first 1024 of 4096 kept (value budget 128 KiB used up;" in r.stdout, r.stdout
    sess = load_session(path)
    assert sess["values_budget"] == BUDGET
    ts = [t for _, _, t in tensors(sess)]
    full = [t for _, _, t in tensors(runs["none"]["sess"])]
    assert len(ts) == len(full)
    kept = [len(t.get("values") or []) for t in ts]
    assert kept[:6] == [4096] * 4 + [1024, 0], kept
    assert not any(t.get("values_budget_cut") for t in ts[:4])
    assert all(t.get("values_budget_cut") for t in ts[4:] if t["stats"]["numel"] == 4096)
    assert all(t["stats"] == f["stats"] for t, f in zip(ts, full) if stable(t))
    assert 8 * sum(kept) <= BUDGET + BUDGET // 16
