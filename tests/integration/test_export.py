"""`aotidbg export` (chrome trace and CSV) and the kernel time table of `replay --dump`:
on a real CPU run of mlp_ln and on sessions recorded on the H200."""
import csv
import io
import json
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import events, load_session, run, write_spec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA_OOB = os.path.join(ROOT, "sessions", "cuda", "cuda_oob_blocking.yaml")
CUDA_TIMED = os.path.join(ROOT, "sessions", "cuda", "cuda_memcheck_clean.yaml")   # recorded on the H200
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "bool": 1,
            "uint8": 1, "int8": 1}
DEVICE_TIMES = os.path.join(ROOT, "tests", "screens", "device_times.yaml")


@pytest.fixture(scope="module")
def recorded(aotidbg, package, tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    pkg = package("mlp_ln")
    inputs = tuple(torch.load(pkg[:-len(".pt2")] + ".inputs.pt"))
    spec = write_spec(str(d), inputs)
    rec = str(d / "run.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", rec])
    assert r.returncode == 0, r.stderr
    return rec


def trace_of(aotidbg, session, tmp_path):
    out = tmp_path / "trace.json"
    r = run([aotidbg, "export", session, "--format", "chrome-trace", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())["traceEvents"]


def slices(trace, track_name):
    tid = [e["tid"] for e in trace if e["ph"] == "M" and e["name"] == "thread_name"
           and e["args"]["name"].startswith(track_name)]
    assert len(tid) == 1, track_name
    return [e for e in trace if e["ph"] == "X" and e["tid"] == tid[0]]


def test_chrome_trace_has_a_slice_per_kernel_with_its_times(aotidbg, recorded, tmp_path):
    sess = load_session(recorded)
    kernels = events(sess, "kernel")
    assert kernels
    trace = trace_of(aotidbg, recorded, tmp_path)
    ks = slices(trace, "kernels")
    assert [e["name"] for e in ks] == [k["name"] for k in kernels]
    for e, k in zip(ks, kernels):
        assert e["args"]["index"] == k["index"]
        assert e["args"]["status"] == k["status"]
        assert e["dur"] == pytest.approx(k["duration_us"], rel=1e-6)
        assert e["ts"] == pytest.approx(k["t_ms"] * 1000, rel=1e-6)
    timed = [k for k in kernels if k.get("device_us", -1) >= 0]
    dev = slices(trace, "device time")
    assert [e["name"] for e in dev] == [k["name"] for k in timed]
    assert [e["dur"] for e in dev] == pytest.approx([k["device_us"] for k in timed])
    # the hooks' time between kernels is on its own track, never overlapping a kernel (cJSON
    # writes 15 significant digits: a slice that starts where a kernel ends may read 1e-9 us early)
    for h in slices(trace, "host"):
        assert not any(k["ts"] + 1e-6 < h["ts"] < k["ts"] + k["dur"] - 1e-6 for k in ks)


def test_chrome_trace_marks_the_error_of_a_recorded_cuda_session(aotidbg, tmp_path):
    sess = load_session(CUDA_OOB)
    err = events(sess, "error")
    assert err and err[0]["route"] == "triton-index-oob"
    trace = trace_of(aotidbg, CUDA_OOB, tmp_path)
    inst = [e for e in trace if e["ph"] == "i"]
    assert any(e["name"] == "triton-index-oob" and e["args"]["text"] == err[0]["text"] for e in inst)
    assert len(slices(trace, "kernels")) == len(events(sess, "kernel"))


def test_csv_is_one_row_per_kernel_event(aotidbg, recorded):
    r = run([aotidbg, "export", recorded, "--format", "csv"])
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    kernels = events(load_session(recorded), "kernel")
    assert [row["name"] for row in rows] == [k["name"] for k in kernels]
    assert [int(row["index"]) for row in rows] == [k["index"] for k in kernels]
    for row, k in zip(rows, kernels):
        after = [t for t in k["tensors"] if t["phase"] == "after"]
        assert int(row["nan"]) == sum(t["stats"]["nan"] for t in after)
        assert int(row["bytes_read"]) > 0
        if k.get("device_us", -1) > 0:
            moved = int(row["bytes_read"]) + int(row["bytes_written"])
            assert float(row["GB_per_s"]) == pytest.approx(moved / (k["device_us"] * 1e3), rel=1e-4)


def test_dump_has_the_kernel_time_table_longest_first(aotidbg):
    r = run([aotidbg, "replay", DEVICE_TIMES, "--dump"])
    assert r.returncode == 0, r.stderr
    table = r.stdout[r.stdout.index("kernel times:"):]
    sess = load_session(DEVICE_TIMES)
    timed = sorted((k for k in events(sess, "kernel") if k.get("device_us", -1) >= 0),
                   key=lambda k: -k["device_us"])
    assert f"device time known for {len(timed)}" in table
    order = [table.index(f" {k['name']} ") for k in timed]
    assert order == sorted(order), table
    total = sum(k["device_us"] for k in timed)
    assert f"{100 * timed[0]['device_us'] / total:.1f}%" in table


def numel(t):
    n = 1
    for d in t["shape"]:
        n *= d
    return n


def test_csv_gb_per_s_on_h200_device_times(aotidbg):
    """GB/s on real H200 device times: bytes over device time, against the H200's 4.8 TB/s;
    kernels with no device time have none, and the bytes never exceed what their tensors hold."""
    r = run([aotidbg, "export", CUDA_TIMED, "--format", "csv"])
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    kernels = events(load_session(CUDA_TIMED), "kernel")
    assert len(rows) == len(kernels)
    timed = [(row, k) for row, k in zip(rows, kernels) if k.get("device_us", -1) > 0]
    assert timed and len(timed) < len(kernels)   # some timed, some (library calls) not
    total = sum(k["device_us"] for _, k in timed)
    for row, k in zip(rows, kernels):
        held = {}
        for t in k["tensors"]:
            held[(t["name"], t["phase"])] = numel(t) * ITEMSIZE[t["dtype"]]
        read, written = int(row["bytes_read"]), int(row["bytes_written"])
        assert row["bytes_known"] == "1"
        assert read <= sum(v for (n, ph), v in held.items() if ph == "before")
        assert written <= sum(v for (n, ph), v in held.items() if ph == "after")
        assert read + written > 0, k["name"]
        if k.get("device_us", -1) > 0:
            gbps = (read + written) / (k["device_us"] * 1e3)
            assert float(row["GB_per_s"]) == pytest.approx(gbps, rel=1e-4)
            assert float(row["of_peak_pct"]) == pytest.approx(100 * gbps / 4800, rel=1e-3)
            assert float(row["share_pct"]) == pytest.approx(100 * k["device_us"] / total, rel=1e-4)
        else:
            assert row["GB_per_s"] == row["of_peak_pct"] == row["share_pct"] == ""
    d = run([aotidbg, "replay", CUDA_TIMED, "--dump"])
    assert "peak 4800 GB/s (datasheet: H200)" in d.stdout
    # a CPU session names no GPU: the peak is said to be unknown, never guessed
    c = run([aotidbg, "replay", DEVICE_TIMES, "--dump"])
    assert "peak unknown (no GPU named: a CPU run)" in c.stdout and "of peak" not in c.stdout


def test_the_runtimes_peak_beats_the_datasheet(aotidbg, tmp_path):
    """A session whose runner reported the GPU's peak (gpu_peak_gbps: memory clock x bus
    width) is compared against that, not the datasheet's 4800 GB/s."""
    text = open(CUDA_TIMED).read()
    assert '\ngpu: "NVIDIA H200' in text
    reported = tmp_path / "reported.yaml"
    reported.write_text(text.replace('\ngpu: "NVIDIA H200 (sm_9.0)"\n',
                                     '\ngpu: "NVIDIA H200 (sm_9.0)"\ngpu_peak_gbps: 4915.2\n', 1))
    d = run([aotidbg, "replay", str(reported), "--dump"])
    assert d.returncode == 0, d.stderr
    assert "gpu_peak_gbps: 4915.2" in d.stdout
    assert "peak 4915 GB/s (runtime: memory clock x bus width)" in d.stdout
    r = run([aotidbg, "export", str(reported), "--format", "csv"])
    for row in csv.DictReader(io.StringIO(r.stdout)):
        if row["GB_per_s"]:
            assert float(row["of_peak_pct"]) == pytest.approx(100 * float(row["GB_per_s"]) / 4915.2, rel=1e-3)


def test_chrome_trace_has_a_slice_per_while_loop_iteration(aotidbg, package, tmp_path):
    """ctl_while run for 3 rounds: a slice per kernel, and one per round on the loop track
    (round K holds its cond check and its body; the last check, round 3, alone)."""
    spec = write_spec(str(tmp_path), (torch.tensor(3), torch.randn(2, 8)))
    rec = str(tmp_path / "loop.yaml")
    r = run([aotidbg, "run", package("ctl_while"), "--inputs", spec, "--record", rec])
    assert r.returncode == 0, r.stderr
    s = load_session(rec)
    kernels, folds = events(s, "kernel"), events(s, "fold")
    trace = trace_of(aotidbg, rec, tmp_path)
    ks = [e for e in slices(trace, "kernels") if not e["name"].endswith("(folded)")]
    assert [e["name"] for e in ks] == [k["name"] for k in kernels]
    # repeated rounds are folded (one slice each fold); the rounds kept are on the loop track
    assert len(slices(trace, "kernels")) - len(ks) == len(folds)
    kept = sorted({k["iteration"] for k in kernels if k.get("iteration", -1) >= 0})
    folded = {i for f in folds for i in range(f["from_iteration"], f["to_iteration"] + 1)}
    assert set(kept) | folded == {0, 1, 2, 3} and not set(kept) & folded
    rounds = slices(trace, "while_loop iterations")
    assert [e["args"]["iteration"] for e in rounds] == kept
    for e in rounds:
        inside = [k for k in kernels if k.get("iteration") == e["args"]["iteration"]]
        assert e["args"]["kernels"] == len(inside)
        first = min(inside, key=lambda k: k["t_ms"])
        assert e["ts"] == pytest.approx(first["t_ms"] * 1000, rel=1e-6)
        # the round's slice spans its kernels' slices
        mine = [s for s in ks if s["ts"] >= e["ts"] - 1e-6 and s["ts"] + s["dur"] <= e["ts"] + e["dur"] + 1e-6]
        assert len(mine) == len(inside)


def test_bad_session_and_unwritable_output(aotidbg, recorded, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format_version: [\n")
    r = run([aotidbg, "export", str(bad)])
    assert r.returncode == 2 and "bad.yaml:" in r.stderr
    r = run([aotidbg, "export", recorded, "--format", "svg"])
    assert r.returncode == 2 and "chrome-trace or csv" in r.stderr
    r = run([aotidbg, "export", recorded, "-o", str(tmp_path / "no-such-dir" / "t.json")])
    assert r.returncode == 1 and "t.json" in r.stderr
    # an existing file is replaced whole, never left half-written
    out = tmp_path / "t.csv"
    out.write_text("old")
    assert run([aotidbg, "export", recorded, "--format", "csv", "-o", str(out)]).returncode == 0
    assert out.read_text().startswith("index,name,")
    assert sorted(os.listdir(tmp_path)) == sorted(["bad.yaml", "t.csv"])
