"""One run, two front ends (issue 19): `aotidbg run` and the live UI go through the
same run service (core/run/run_service.c), so for one package and the same options
they choose the same mode, see the same kernels and write the same session header;
live mode takes every option `run` takes.

The printer-less package is shipped_p0 (tests/models: the model of shipped_p1 built
with the printer off): on CPU both front ends re-instrument a private copy of it
(one build, shared through AOTIDBG_CACHE_DIR).
"""
import os
import re
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import events, load_session, run, wrapper_launches, write_spec  # noqa: E402

HEADLESS = ["--headless", "120x40"]


def header(sess):
    """Top-level keys and package keys of a session, without the events."""
    keys = {k for k in sess if k != "events"}
    return keys, set(sess.get("package") or {})


@pytest.fixture(scope="module")
def shipped(package, tmp_path_factory):
    d = tmp_path_factory.mktemp("onerun")
    p0, p1 = package("shipped_p0"), package("shipped_p1")
    inputs = tuple(torch.load(p0[:-len(".pt2")] + ".inputs.pt"))
    spec = write_spec(str(d), inputs)
    env = dict(os.environ, AOTIDBG_CACHE_DIR=str(d / "cache"))
    return dict(p0=p0, p1=p1, spec=spec, env=env, dir=d)


def test_printer_less_package_live_records_what_run_records(aotidbg, shipped):
    d, env = shipped["dir"], shipped["env"]
    r = run([aotidbg, "run", shipped["p0"], "--inputs", shipped["spec"], "--values", "4096", "--record",
             str(d / "run.yaml")], env=env)
    assert r.returncode == 0, r.stderr
    r = run([aotidbg, shipped["p0"], "--inputs", shipped["spec"], "--record", str(d / "live.yaml"), *HEADLESS,
             "--keys", "c", "--dump-screen"], env=env, cwd=str(d))
    assert r.returncode == 0, r.stderr
    assert re.search(r"kernels \(4\)( by \w+)? \[reinstrument: rebuilt copy\]", r.stdout), r.stdout
    assert "| finished |" in r.stdout, r.stdout
    s_run, s_live = load_session(str(d / "run.yaml")), load_session(str(d / "live.yaml"))
    want = wrapper_launches(shipped["p1"])
    for s in (s_run, s_live):
        assert s["mode"] == "reinstrument" and s["printer_level"] == 0
        assert [k["name"] for k in events(s, "kernel")] == want
        assert {k["source"] for k in events(s, "kernel")} == {"reinstrument"}
        assert s["end_state"] == "complete"
        assert {c["id"] for c in s["checks"]} >= {"run.mode", "flag.printer-level", "device.compile-vs-load"}
    assert header(s_live) == header(s_run)
    for key in ("tool_version", "host", "torch_version", "device", "printer_level", "mode"):
        assert s_live[key] == s_run[key], key
    assert s_live["package"] == s_run["package"]
    assert s_live["package"]["cpu_isa"]
    # the same tensors: statistics of every after-tensor agree
    for a, b in zip(events(s_run, "kernel"), events(s_live, "kernel")):
        ta = {(t["name"], t["phase"]): t["stats"] for t in a["tensors"] if t["phase"] == "after"}
        tb = {(t["name"], t["phase"]): t["stats"] for t in b["tensors"] if t["phase"] == "after"}
        assert ta == tb, a["name"]


def test_live_takes_the_run_options(aotidbg, shipped):
    """--no-reinstrument, --deterministic, --timeout, --values and --break-on parse in
    live mode as in run, and act the same."""
    d, env = shipped["dir"], shipped["env"]
    r = run([aotidbg, shipped["p0"], "--inputs", shipped["spec"], "--record", str(d / "none.yaml"),
             "--no-reinstrument", "--deterministic", "--timeout", "30", "--values", "16", *HEADLESS,
             "--keys", "c", "--dump-screen"], env=env, cwd=str(d))
    assert r.returncode == 0, r.stderr
    s = load_session(str(d / "none.yaml"))
    assert s["mode"] == "none" and not events(s, "kernel") and events(s, "output")
    assert s["flags"]["CUDA_LAUNCH_BLOCKING"] == "1" and s["flags"]["AOTI_RUNTIME_CHECK_INPUTS"] == "1"
    assert all(len(t["values"]) <= 16 for t in events(s, "output")[0]["tensors"])
    assert "has no printer calls and was not re-instrumented" in r.stderr, r.stderr
    # --break-on kernel=NAME: c stops before its first launch, as run does
    p1, names = shipped["p1"], wrapper_launches(shipped["p1"])
    target = names[-1]
    r = run([aotidbg, p1, "--inputs", shipped["spec"], "--record", str(d / "brk.yaml"), "--break-on",
             f"kernel={target}", *HEADLESS, "--keys", "c", "--dump-screen"], cwd=str(d))
    assert r.returncode == 0, r.stderr
    assert f"#{len(names) - 1} {target}" in r.stdout and "| stopped |" in r.stdout, r.stdout
    s = load_session(str(d / "brk.yaml"))
    assert s["end_state"] == "stopped"
    assert [k["name"] for k in events(s, "kernel")] == names
    # a bad value is refused with run's own message
    r = run([aotidbg, p1, "--inputs", shipped["spec"], "--timeout", "soon", *HEADLESS])
    assert r.returncode == 2 and "--timeout needs seconds (0 = never), got 'soon'" in r.stderr, r.stderr


def test_live_and_run_help_list_the_same_run_options(aotidbg):
    live = run([aotidbg, "x.pt2", "--help"]).stdout
    run_help = run([aotidbg, "run", "--help"]).stdout
    for opt in ("--inputs", "--device", "--record", "--break-on", "--deterministic", "--blocking", "--timeout",
                "--values", "--values-budget", "--force", "--reinstrument", "--no-reinstrument"):
        assert opt in live and opt in run_help, opt
