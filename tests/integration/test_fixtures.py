"""The recorded sessions under sessions/ (real CPU and H200 runs) load, replay, and
still say what they said when they were recorded: the route of every error, and
the facts the GPU check script demands of them. `replay FILE --dump` (read a
slice at a time, each slice freed once printed) prints what the whole load
prints (`replay - --dump`, stdin, loads whole), for every session and cuts of them."""
import glob
import os
import re
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


def whole_and_streamed(aotidbg, path, steps=("1", "7", "")):
    """`replay - --dump < path` (the whole load) against `replay path --dump`
    read AOTIDBG_DUMP_STEP events at a time ("" the default): the same exit
    code, stdout byte for byte, and stderr (the whole load's says /dev/stdin
    where the other says path)."""
    with open(path, "rb") as f:
        whole = run([aotidbg, "replay", "-", "--dump"], stdin=f, text=False)
    for step in steps:
        env = dict(os.environ, AOTIDBG_DUMP_STEP=step)
        streamed = run([aotidbg, "replay", path, "--dump"], env=env, text=False)
        assert streamed.returncode == whole.returncode, (path, step, streamed.stderr)
        assert streamed.stdout == whole.stdout, (path, step)
        assert streamed.stderr == whole.stderr.replace(b"/dev/stdin", path.encode()), (path, step)
    return whole


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: os.path.relpath(p, ROOT))
def test_streamed_dump_is_the_whole_loads(aotidbg, path):
    w = whole_and_streamed(aotidbg, path)
    assert w.returncode == 0 and b"\nevents: " in w.stdout


def test_streamed_dump_of_cut_and_hand_edited_files(aotidbg, tmp_path):
    """Cuts (a cut-off notice, or file:line:col and exit 2 with nothing on
    stdout), a file without end_state whose runner-exit is followed by log
    events (the end state comes from the exit the slices freed), and a
    provenance: key moved after the events (its kernels' source lines)."""
    rcs = set()
    for name in ("cpu/encoder.yaml", "cpu/ranks_hang.rank1.yaml", "tutorials/07-stale-vs-eager.yaml"):
        data = open(os.path.join(ROOT, "sessions", name), "rb").read()
        for k in range(1, 12):
            cut = str(tmp_path / f"cut{k}.yaml")
            with open(cut, "wb") as f:
                f.write(data[:len(data) * k // 12 + k * 13])
            w = whole_and_streamed(aotidbg, cut, steps=("1", ""))
            rcs.add(w.returncode)
            if w.returncode == 2:
                assert w.stdout == b"" and b": found " in w.stderr
    assert rcs == {0, 2}
    lines = open(os.path.join(ROOT, "sessions", "cpu", "ranks_hang.rank1.yaml"), encoding="utf-8").read().splitlines()
    noend = [ln.replace("how: timeout", "how: signal").replace("signal: 0, stderr", "signal: 11, stderr")
             for ln in lines if not ln.startswith("end_state:")]
    noend += ['- {kind: log, t_ms: 10020, rank: 1, stream: stderr, text: "after the exit"}'] * 3
    p = str(tmp_path / "noend.yaml")
    open(p, "w", encoding="utf-8").write("\n".join(noend) + "\n")
    assert b"end_state: signal 11 (SIGSEGV)\n" in whole_and_streamed(aotidbg, p).stdout
    lines = open(os.path.join(ROOT, "sessions", "tutorials", "07-stale-vs-eager.yaml"), encoding="utf-8").read().splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("provenance:"))
    j = next(k for k in range(i + 1, len(lines)) if lines[k] and not lines[k].startswith(" "))
    p = str(tmp_path / "prov_after.yaml")
    open(p, "w", encoding="utf-8").write("\n".join(lines[:i] + lines[j:] + lines[i:j]) + "\n")
    assert b"\n    at " in whole_and_streamed(aotidbg, p).stdout


def with_counts(path, out, events=None, kernels=None):
    """path's text with a counts: key before its events: line (the list's
    own counts unless given); returns those and the lines."""
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    ne = len(doc["events"] or [])
    nk = sum(1 for e in doc["events"] or [] if e["kind"] == "kernel")
    lines = open(path, encoding="utf-8").read().splitlines()
    i = lines.index(next(ln for ln in lines if ln.startswith("events:")))
    ne, nk = ne if events is None else events, nk if kernels is None else kernels
    lines[i:i] = ["counts:", f"  events: {ne}", f"  kernels: {nk}"]
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    return ne, nk, lines


def test_counted_dump_prints_as_it_reads(aotidbg, tmp_path):
    """A file whose final save wrote counts: prints its header and events:
    line before reading the events (dump_counted): the same bytes as the
    whole load, and as the file without the key, for every session; a file
    whose counts or late key belie the text printed first: exit 2 and what
    was wrong on stderr, while the whole load only warns; a cut one (inside
    an event, or at one's end with fewer events than counts: says): exit 0
    and its truncated line after the events."""
    for path in SESSIONS:
        p = str(tmp_path / "counted.yaml")
        with_counts(path, p)
        w = whole_and_streamed(aotidbg, p, steps=("1", ""))
        assert w.returncode == 0 and w.stdout == run([aotidbg, "replay", path, "--dump"], text=False).stdout, path
    src = os.path.join(ROOT, "sessions", "cpu", "encoder.yaml")
    p = str(tmp_path / "lie.yaml")
    ne, nk, lines = with_counts(src, p, events=None, kernels=None)
    with_counts(src, p, events=ne - 1)   # more events than it says: not a cut
    s = run([aotidbg, "replay", p, "--dump"], env=dict(os.environ, AOTIDBG_DUMP_STEP="1"))
    assert s.returncode == 2 and f"\nevents: {ne - 1} ({nk} kernels)\n" in s.stdout, s.stderr
    assert f"counts: says {ne - 1} events ({nk} kernels); the file holds {ne} ({nk} kernels)" in s.stderr
    assert "its counts: key is wrong" in s.stderr
    with open(p, "rb") as f:
        w = run([aotidbg, "replay", "-", "--dump"], stdin=f)
    assert w.returncode == 0 and f"\nevents: {ne} ({nk} kernels)\n" in w.stdout and "counts: says" in w.stderr
    data = "\n".join(lines).encode()
    cut = str(tmp_path / "cut.yaml")
    open(cut, "wb").write(data[:len(data) * 3 // 4])
    s = run([aotidbg, "replay", cut, "--dump"])
    read = len(re.findall(r"^#\d+ ", s.stdout, re.M))
    assert s.returncode == 0 and "cut off after event" in s.stderr and f"\nevents: {ne} ({nk} kernels)\n" in s.stdout
    assert 0 < read < ne and f"\ntruncated: yes (the file was cut off; the last event may be missing; " \
        f"the end_state: and events: lines above are the file's, the run's end is cut-off, {read} events (" \
        in s.stdout, s.stdout[-600:]
    assert "counts: says" not in s.stderr   # a cut file's counts cannot be checked: the cut warning says it
    # cut at an event's end, the YAML whole: fewer events than counts: says is a cut too
    k = max(i for i, ln in enumerate(lines) if ln.startswith("- {kind: "))
    edge = str(tmp_path / "edge.yaml")
    open(edge, "w", encoding="utf-8").write("\n".join(lines[:k]) + "\n")
    for cmd in ([aotidbg, "replay", edge, "--dump"], [aotidbg, "replay", "-", "--dump"]):
        with open(edge, "rb") as f:
            s = run(cmd, stdin=f)
        assert s.returncode == 0 and f"the file holds {ne - 1} of the {ne} events its counts: key says" in s.stderr
        assert "\nend_state: cut-off\n" in s.stdout or "the run's end is cut-off" in s.stdout, s.stdout[-600:]
    j = next(k for k, ln in enumerate(lines) if ln.startswith("end_state:"))
    late = str(tmp_path / "late.yaml")
    open(late, "w", encoding="utf-8").write("\n".join(lines[:j] + lines[j + 1:] + [lines[j]]) + "\n")
    s = run([aotidbg, "replay", late, "--dump"])
    assert s.returncode == 2 and "a top-level key comes after the events" in s.stderr


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
