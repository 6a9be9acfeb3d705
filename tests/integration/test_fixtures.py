"""The recorded sessions under sessions/ (real CPU and H200 runs) load, replay, and
still say what they said when they were recorded: the route of every error, and
the facts the GPU check script demands of them."""
import glob
import os
import sys

import pytest
import yaml

from conftest import ROOT, run

SESSIONS = sorted(glob.glob(os.path.join(ROOT, "sessions", "cpu", "*.yaml")) +
                  glob.glob(os.path.join(ROOT, "sessions", "cuda", "*.yaml")) +
                  glob.glob(os.path.join(ROOT, "sessions", "tutorials", "*.yaml")))
SESSIONS = [p for p in SESSIONS if not p.endswith(".inputs.yaml")]


def test_there_are_recorded_sessions():
    names = {os.path.basename(p) for p in SESSIONS}
    assert {"encoder.yaml", "cuda_mlp.yaml", "cuda_oob_blocking.yaml"} <= names


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: os.path.relpath(p, ROOT))
def test_replays(aotidbg, path):
    p = run([aotidbg, "replay", path, "--dump"])
    assert p.returncode == 0, p.stderr
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    kernels = [e for e in doc["events"] if e["kind"] == "kernel"]
    assert f"events: {len(doc['events'])} ({len(kernels)} kernel" in p.stdout
    for i, e in enumerate(doc["events"]):   # the dump numbers every event, kernels or not
        if e["kind"] == "kernel":
            assert f"#{i} kernel {e['name']} " in p.stdout and f" index={e['index']} " in p.stdout


@pytest.mark.parametrize("path", [p for p in SESSIONS if "/cuda/" in p], ids=os.path.basename)
def test_route_of_a_recorded_session_is_stable(aotidbg, path):
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    errors = [e for e in doc["events"] if e["kind"] == "error" and e.get("route")]
    if not errors:
        pytest.skip("no routed error in this session")
    p = run([aotidbg, "route", path, "--format", "yaml"])
    assert p.returncode == 0, p.stderr
    assert yaml.safe_load(p.stdout)["route"] == errors[0]["route"]


def test_gpu_sessions_pass_their_checks():
    sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
    p = run([sys.executable, os.path.join(ROOT, "tests", "gpu", "check_run_sessions.py"),
             os.path.join(ROOT, "sessions", "cuda")])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "all checks passed" in p.stdout
