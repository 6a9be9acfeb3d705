"""The H200 device_us check's CPU half (issue 16 item 2): tests/gpu/check_device_us.py's
matching and verdicts on made-up traces (they must be able to fail), and
tests/bench/plain_loader.cpp's --profile built against this libtorch and run on a real
CPU package (kineto chrome traces; CUDA kernels are absent on a CPU build)."""
import json
import os
import subprocess
import sys

import pytest
import yaml

from aotidbg_testlib import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tests", "gpu", "check_device_us.py")
BUILD = os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build"))


FIRST_CALL = ("first call of a kernel not launched through cuLaunchKernel (a library call: cuBLAS, cuDNN, ATen): "
              "not timed, its first call may load modules and synchronize")


def write_session(path, kernels):
    events = [{"kind": "kernel", "index": i, "name": n, "type": t, "status": "ok", "duration_us": 50,
               "device_us": d, "tensors": []} for i, (n, t, d) in enumerate(kernels)]
    for e, (_, t, d) in zip(events, kernels):
        if d < 0:
            e["device_note"] = (FIRST_CALL if t == "extern" else
                                "the host synchronized while the stream was held: not timed")
    path.write_text(yaml.safe_dump({"format_version": "1.0", "mode": "printer", "device": "cuda",
                                    "events": events}))


def write_trace(path, kernels):
    """A chrome trace as kineto writes it: one "kernel" event per GPU kernel."""
    ev, ts = [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 0, "dur": 1}], 100.0
    for name, dur in kernels:
        ev.append({"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur})
        ts += dur + 3
    path.write_text(json.dumps({"traceEvents": ev}))


# The session's launches: Triton kernels by name; the extern mm is the kernels between them.
LAUNCHES = [("triton_poi_embed_0", "triton", 4.0), ("aoti_torch_cuda_mm_out", "extern", 30.0),
            ("triton_red_norm_1", "triton", 6.0), ("aoti_torch_cuda_mm_out", "extern", 31.0),
            ("triton_red_norm_1", "triton", 6.5)]
PROFILED = [("triton_poi_embed_0", 4.5), ("sm90_gemm_bf16", 22.0), ("splitk_reduce", 7.0),
            ("triton_red_norm_1", 6.2), ("sm90_gemm_bf16", 24.0), ("splitk_reduce", 7.5),
            ("triton_red_norm_1", 6.1)]


def check(tmp_path, launches, profiled):
    sess = tmp_path / "s.yaml"
    write_session(sess, launches)
    traces = []
    for i in range(3):
        t = tmp_path / f"tr.{i}.json"
        write_trace(t, profiled)
        traces.append(str(t))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, CHECK, str(sess), str(out)] + traces, capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert (out / "device_us.txt").read_text().strip() == r.stdout.strip()
    return r


def test_check_agrees_launch_by_launch_and_by_name(tmp_path):
    r = check(tmp_path, LAUNCHES, PROFILED)
    assert r.returncode == 0, r.stdout
    assert "PASS every launch timed: 5 of 5" in r.stdout
    assert "PASS device_us vs torch profiler on 3 kernels" in r.stdout
    assert "PASS cold run launch by launch: 5 of 5" in r.stdout
    # the extern call is the gemm and the split-k reduce between the Triton kernels
    assert "aoti_torch_cuda_mm_out" in r.stdout and "29.0" in r.stdout


def test_check_fails_on_a_kernel_off_and_an_untimed_launch(tmp_path):
    off = list(LAUNCHES)
    off[2] = ("triton_red_norm_1", "triton", 12.0)   # twice the profiler's: off by more than 2 us
    off[4] = ("triton_red_norm_1", "triton", 12.5)
    off[0] = ("triton_poi_embed_0", "triton", -1)
    r = check(tmp_path, off, PROFILED)
    assert r.returncode == 1
    assert "FAIL every launch timed: 4 of 5" in r.stdout
    assert "untimed #0 triton_poi_embed_0: device_us -1 (the host synchronized" in r.stdout
    assert "FAIL device_us vs torch profiler on" in r.stdout and "off on triton_red_norm_1" in r.stdout
    assert "FAIL cold run launch by launch: 2 of 4" in r.stdout


def test_check_takes_a_library_first_call_noted(tmp_path):
    first = list(LAUNCHES)
    first[1] = ("aoti_torch_cuda_mm_out", "extern", -1)   # the runner does not time a library's first call
    r = check(tmp_path, first, PROFILED)
    assert r.returncode == 0, r.stdout
    assert "PASS every launch timed: 4 of 5 kernel events have device_us (+1 library calls noted)" in r.stdout
    assert "untimed #1 aoti_torch_cuda_mm_out: device_us -1 (first call of a kernel not launched" in r.stdout


@pytest.mark.slow
def test_plain_loader_profiles_a_cpu_package(aotidbg, package, tmp_path):
    """plain_loader --profile builds against this (CPU) libtorch and writes kineto traces;
    the check then says what a CPU box can: every launch timed, no GPU kernels to compare."""
    plain = os.path.join(BUILD, "bench", "plain_loader")
    r = run(["bash", os.path.join(ROOT, "tests", "bench", "build_plain_loader.sh"), plain])
    assert r.returncode == 0, r.stdout + r.stderr
    pkg = package("mlp_ln")
    prefix = str(tmp_path / "tr")
    r = run([plain, "--profile", prefix, "--iters", "2", pkg, "float32:6x16:randn", "int64:3:arange"])
    assert r.returncode == 0, r.stderr
    assert f"profiled 3 {prefix}" in r.stdout
    traces = [f"{prefix}.{i}.json" for i in range(3)]
    for t in traces:
        ev = json.load(open(t))["traceEvents"]
        assert any(e.get("cat") == "cpu_op" for e in ev), t
    r = run([plain, "--iters", "2", pkg])
    assert r.returncode != 0
    r = run([plain, "--bogus", pkg])
    assert r.returncode == 2 and "unknown option" in r.stderr
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [6, 16], dtype: float32, device: cpu, fill: randn}\n"
                    "  - {shape: [3], dtype: int64, device: cpu, fill: arange}\n")
    sess = tmp_path / "s.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(sess)])
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, CHECK, str(sess), str(tmp_path / "out")] + traces,
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "PASS every launch timed" in r.stdout
    assert "FAIL no kernel in the traces" in r.stdout
