"""Fault injection (issue 9): the model segfaults, aborts, throws, runs out of
memory, hangs past --timeout, and the runner is killed with SIGKILL (from
inside, and from outside while stopped at a break). Real runs of real CPU
packages; the faults come from a preloaded library (built with g++, so it can
throw a C++ exception) that wraps libtorch's aoti_torch_cpu_addmm_out, which
the model .so resolves through the global scope. For each fault:
`aotidbg run` exits 1 (never a signal) and says what happened; the session on
disk loads (`replay --dump`) and holds every kernel event of a clean run up to
the faulting kernel; the error / runner-exit event says how it ended; the
router names a route; a second run of the same package exits 0.
Also: the live TUI survives a segfaulting model and restarts; the GPU faults
recorded on the H200 (sessions/cuda/) route to the kernel that faulted; and
(slow) the runner under valgrind has no definite leak in our code.
"""
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import events, load_session, run, wrapper_launches, write_spec  # noqa: E402

pytestmark = pytest.mark.usefixtures("nothing_outlives_the_test")   # no runner outlives its test

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUTES = {"triton-index-oob", "device-mismatch", "input-mismatch", "illegal-memory-access", "nan-inf",
          "wrong-output", "dynamic-shape", "custom-op", "missing-artifact", "abi-mismatch", "compile-error",
          "out-of-memory", "crash", "unknown", "cpp-index-oob"}

FAULT_LIB = r"""
// Wraps libtorch's addmm; the H9_FAULT_AT-th call (default 2) faults as H9_FAULT says.
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdexcept>
typedef void *H;
typedef int32_t (*addmm_fn)(H, H, H, H, double, double);
static int calls;
extern "C" int32_t aoti_torch_cpu_addmm_out(H out, H self, H m1, H m2, double beta, double alpha)
{
    const char *mode = getenv("H9_FAULT");
    int at = atoi(getenv("H9_FAULT_AT") ? getenv("H9_FAULT_AT") : "2");
    if (++calls == at && mode) {
        switch (mode[0]) {
        case 's': *(volatile int *)(uintptr_t)8 = 1; break;
        case 'a': abort();
        case 't': throw std::runtime_error("h9 fault: exception thrown inside aoti_torch_cpu_addmm_out");
        // the text of torch's CPU allocator when an allocation fails
        case 'o': throw std::runtime_error("DefaultCPUAllocator: not enough memory: you tried to allocate "
                                           "274877906944 bytes.");
        case 'k': kill(getpid(), SIGKILL); break;
        case 'h': for (;;) pause();
        }
    }
    addmm_fn real = (addmm_fn)dlsym(RTLD_NEXT, "aoti_torch_cpu_addmm_out");
    return real(out, self, m1, m2, beta, alpha);
}
"""


@pytest.fixture(scope="module")
def fault_runner(runner, tmp_path_factory):
    d = tmp_path_factory.mktemp("h9fault")
    src, lib, wrap = d / "fault.cpp", d / "libh9fault.so", d / "faulty-runner"
    src.write_text(FAULT_LIB)
    subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-ldl"], check=True)
    real = os.environ.get("AOTIDBG_RUNNER") or runner
    # exec keeps the pid: the front end sees the runner's own death
    wrap.write_text(f'#!/bin/sh\nLD_PRELOAD="{lib}" exec "{real}" "$@"\n')
    wrap.chmod(0o755)
    return str(wrap)


def fault_env(wrapper, mode):
    return dict(os.environ, AOTIDBG_RUNNER=wrapper, H9_FAULT=mode, H9_FAULT_AT="2")


@pytest.fixture(scope="module")
def clean(aotidbg, package, tmp_path_factory):
    """A clean run of mlp_ln: the kernel list every faulted run must be a prefix of."""
    pkg = package("mlp_ln")
    d = tmp_path_factory.mktemp("h9clean")
    base = pkg[:-len(".pt2")]
    spec = write_spec(str(d), tuple(torch.load(base + ".inputs.pt")))
    out = str(d / "clean.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out])
    assert r.returncode == 0, r.stderr
    kernels = [k["name"] for k in events(load_session(out), "kernel")]
    assert kernels == wrapper_launches(pkg)
    second_addmm = [i for i, k in enumerate(kernels) if k == "aoti_torch_cpu_addmm_out"][1]
    return dict(pkg=pkg, spec=spec, kernels=kernels, fault_at=second_addmm)


def check_session(aotidbg, clean, out):
    """The file on disk loads in our own reader and holds the clean run's kernels up to the fault."""
    d = run([aotidbg, "replay", out, "--dump"])
    assert d.returncode == 0, d.stderr
    sess = load_session(out)
    kernels = events(sess, "kernel")
    k = clean["fault_at"]
    assert [e["name"] for e in kernels] == clean["kernels"][:k + 1]
    assert all(e["status"] == "ok" for e in kernels[:k])
    return sess, kernels


def route_of(aotidbg, out):
    r = run([aotidbg, "route", out, "--format", "yaml"])
    assert r.returncode == 0, r.stderr
    line = r.stdout.splitlines()[0]
    assert line.startswith("route: ")
    route = line.split(": ", 1)[1]
    assert route in ROUTES
    return route


def check_restart(aotidbg, clean, tmp_path):
    out = str(tmp_path / "again.yaml")
    r = run([aotidbg, "run", clean["pkg"], "--inputs", clean["spec"], "--record", out])
    assert r.returncode == 0, r.stderr
    assert [k["name"] for k in events(load_session(out), "kernel")] == clean["kernels"]


# mode, what `run` says, how the session ends, expected route (None: any fixed id)
SIGNAL_FAULTS = [
    pytest.param("segv", "the runner died by signal 11 (SIGSEGV)", signal.SIGSEGV, "crash", id="segfault"),
    pytest.param("abort", "the runner died by signal 6 (SIGABRT)", signal.SIGABRT, "crash", id="abort"),
    pytest.param("kill", "the runner died by signal 9 (SIGKILL)", signal.SIGKILL, None, id="sigkill-inside"),
]


@pytest.mark.parametrize("mode,said,sig,route", SIGNAL_FAULTS)
def test_runner_dies_by_signal(aotidbg, clean, fault_runner, tmp_path, mode, said, sig, route):
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", clean["pkg"], "--inputs", clean["spec"], "--record", out],
            env=fault_env(fault_runner, mode))
    assert r.returncode == 1, r.stderr          # not death by signal: the front end survived
    assert said in r.stderr
    assert f"kernel {clean['fault_at']} (aoti_torch_cpu_addmm_out)" in r.stderr
    sess, kernels = check_session(aotidbg, clean, out)
    assert kernels[-1]["status"] == "pending"   # the kernel that was running when it died
    ex = events(sess, "runner-exit")
    assert len(ex) == 1 and ex[0]["how"] == "signal" and ex[0]["signal"] == sig
    assert sess["events"][-1]["kind"] == "runner-exit"
    check_restart(aotidbg, clean, tmp_path)
    got = route_of(aotidbg, out)
    if route:
        assert got == route


@pytest.mark.parametrize("mode,text,route", [
    ("throw", "h9 fault: exception thrown inside aoti_torch_cpu_addmm_out", None),
    ("oom", "DefaultCPUAllocator: not enough memory", "out-of-memory"),
], ids=["cxx-exception", "out-of-memory"])
def test_op_throws(aotidbg, clean, fault_runner, tmp_path, mode, text, route):
    """A C++ exception out of the op: AOTI's CONVERT_EXCEPTION_TO_ERROR_CODE catches it,
    the model fails in order, the runner lives on to report it."""
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", clean["pkg"], "--inputs", clean["spec"], "--record", out],
            env=fault_env(fault_runner, mode))
    assert r.returncode == 1, r.stderr
    assert "the model failed" in r.stderr and text in r.stderr
    sess, kernels = check_session(aotidbg, clean, out)
    assert kernels[-1]["status"] == "error"
    errs = events(sess, "error")
    assert errs and errs[0]["kernel"] == clean["fault_at"] and text in errs[0]["text"]
    assert not events(sess, "runner-exit")     # the runner itself ended in order
    if route:
        assert errs[0]["route"] == route
        assert f"route: {route}" in r.stderr
    assert route_of(aotidbg, out) == (route or route_of(aotidbg, out))
    check_restart(aotidbg, clean, tmp_path)


def test_hang_past_timeout(aotidbg, clean, fault_runner, tmp_path):
    out = str(tmp_path / "s.yaml")
    t0 = time.monotonic()
    r = run([aotidbg, "run", clean["pkg"], "--inputs", clean["spec"], "--timeout", "2", "--record", out],
            env=fault_env(fault_runner, "hang"), timeout=60)
    assert r.returncode == 1, r.stderr
    assert time.monotonic() - t0 < 30
    assert "(timeout)" in r.stderr
    sess, kernels = check_session(aotidbg, clean, out)
    assert kernels[-1]["status"] == "pending"
    ex = events(sess, "runner-exit")
    assert len(ex) == 1 and ex[0]["how"] == "timeout"
    route_of(aotidbg, out)
    check_restart(aotidbg, clean, tmp_path)


def runner_pid(front_pid):
    """The runner is the front end's child."""
    with open(f"/proc/{front_pid}/task/{front_pid}/children") as f:
        kids = [int(x) for x in f.read().split()]
    return kids[0] if kids else None


def test_sigkill_from_outside_mid_run(aotidbg, clean, fault_runner, tmp_path):
    """kill -9 of the runner while the model is inside kernel fault_at (it hangs there)."""
    out = str(tmp_path / "s.yaml")
    p = subprocess.Popen([aotidbg, "run", clean["pkg"], "--inputs", clean["spec"], "--timeout", "0",
                          "--record", out], env=fault_env(fault_runner, "hang"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    pid = None
    while time.monotonic() - t0 < 60 and p.poll() is None:
        # the kernel before the fault is on disk: the runner is about to hang in the next one
        # (as an event: the header's provenance names every kernel before any runs)
        name = clean["kernels"][clean["fault_at"] - 1]
        if os.path.exists(out) and any(line.startswith("- {kind: kernel") and f"name: {name}," in line
                                       for line in open(out)):
            pid = runner_pid(p.pid)
            break
        time.sleep(0.05)
    assert pid, "the runner never reached the second addmm"
    time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    assert "the runner died by signal 9 (SIGKILL)" in err
    sess, kernels = check_session(aotidbg, clean, out)
    ex = events(sess, "runner-exit")
    assert len(ex) == 1 and ex[0]["how"] == "signal" and ex[0]["signal"] == signal.SIGKILL
    # issue 19: the death is how the run ended, in the file, the dump and every pane of the replay
    assert sess["end_state"] == "signal 9 (SIGKILL)"
    assert "end_state: signal 9 (SIGKILL)" in err
    d = run([aotidbg, "replay", out, "--dump"])
    assert d.returncode == 0 and "end_state: signal 9 (SIGKILL)" in d.stdout, d.stdout
    died = f"the runner died: signal 9 (SIGKILL) during kernel #{clean['fault_at']} {kernels[-1]['name']}"
    r = run([aotidbg, "replay", out, "--headless", "160x50", "--keys", "pane-kernels bottom", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    screen = r.stdout
    status = screen.rstrip().splitlines()[-1]
    assert "| signal 9 (SIGKILL) |" in status, status
    row = next(line for line in screen.splitlines()
               if re.search(rf"\s{clean['fault_at']}\s+{kernels[-1]['name'][:16]}", line))   # names may be clipped
    assert "died" in row and "SIGKILL" in row and "pending" not in row, row
    assert re.search(r"kernels \(%d\).* - runner died: signal 9 \(SIGKILL\)" % len(kernels), screen), screen
    assert died.replace("the runner", "runner") in screen, screen   # a router row (routed: SIGKILL may be anything)
    assert "no errors in this run" not in screen
    assert "failed) - runner died: signal 9 (SIGKILL)" in screen, screen
    assert "runner died: signal 9 (SIGKILL) in this kernel: no after-tensors" in screen, screen
    # a file from before end_state said how a run ended claims complete: its runner-exit wins everywhere
    old = tmp_path / "old.yaml"
    text = re.sub(r"(?m)^counts:\n(  .*\n)+", "", open(out).read())   # no counts: in a file that old either
    old.write_text(re.sub(r"^end_state: .*$", "end_state: complete", text, count=1, flags=re.M))
    d = run([aotidbg, "replay", str(old), "--dump"])
    assert d.returncode == 0 and "end_state: signal 9 (SIGKILL)" in d.stdout, d.stdout
    assert "end_state: complete" not in d.stdout
    r = run([aotidbg, "replay", str(old), "--headless", "160x50", "--dump-screen"])
    assert "| signal 9 (SIGKILL) |" in r.stdout.rstrip().splitlines()[-1], r.stdout
    route_of(aotidbg, out)
    check_restart(aotidbg, clean, tmp_path)


def test_live_tui_survives_a_segfaulting_model(aotidbg, clean, fault_runner, tmp_path):
    """Headless live UI: continue (the runner dies at the second addmm), restart
    (a fresh runner, which dies again at the same place), continue. The UI
    lives through both deaths, says so, saves a session that loads and says how
    it ended, and exits 1 as `aotidbg run` does for a failed model."""
    r = run([aotidbg, clean["pkg"], "--inputs", clean["spec"], "--headless", "120x40",
             "--keys", "continue restart continue"], env=fault_env(fault_runner, "segv"), cwd=str(tmp_path),
            timeout=120)
    assert r.returncode == 1, r.stderr
    out = r.stdout + r.stderr
    frames = out.split("=== ")
    assert len(frames) >= 4, out[-2000:]
    assert "runner died" in frames[1] or "runner died" in frames[-3], out[-3000:]
    assert "restarted: a fresh runner" in out
    assert "runner died" in frames[-1]
    saved = [f for f in os.listdir(tmp_path) if f.startswith("aotidbg-session-") and f.endswith(".yaml")]
    assert len(saved) == 1, out[-500:]
    path = str(tmp_path / saved[0])
    assert run([aotidbg, "replay", path, "--dump"]).returncode == 0
    sess = load_session(path)
    ex = events(sess, "runner-exit")
    assert ex and ex[-1]["how"] == "signal" and ex[-1]["signal"] == signal.SIGSEGV
    assert sess["end_state"] == "signal 11 (SIGSEGV)"
    assert "runner died: signal 11 (SIGSEGV)" in frames[-1]
    assert [k["name"] for k in events(sess, "kernel")] == clean["kernels"][:clean["fault_at"] + 1]


# ---- GPU faults recorded on the H200 (sessions/cuda/, see tests/gpu/) ------------

@pytest.mark.parametrize("name,route", [("cuda_oob_blocking", "triton-index-oob"),
                                        ("cuda_ima_blocking", "illegal-memory-access")],
                         ids=["device-side-assert", "illegal-memory-access"])
def test_recorded_gpu_fault(aotidbg, name, route):
    """With blocking launches the first failing kernel is the faulting one: the
    session holds it (status error), the error names it and the route, and the
    router run afresh on the file agrees."""
    path = os.path.join(ROOT, "sessions", "cuda", name + ".yaml")
    assert run([aotidbg, "replay", path, "--dump"]).returncode == 0
    sess = load_session(path)
    kernels = events(sess, "kernel")
    errs = events(sess, "error")
    assert kernels and errs
    bad = [k for k in kernels if k["status"] == "error"]
    assert len(bad) == 1 and bad[0] is kernels[-1]          # nothing recorded past the fault
    assert all(k["status"] == "ok" for k in kernels[:-1])   # every event before it is there
    assert [k["index"] for k in kernels] == list(range(len(kernels)))
    assert errs[0]["kernel"] == bad[0]["index"]
    assert errs[0]["route"] == route
    assert route_of(aotidbg, path) == route


# ---- leak check (slow): the runner under valgrind on a real CPU model ------------

NOVEC_MODEL = r"""
import sys, torch
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.l1, s.ln, s.l2 = torch.nn.Linear(16, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)
    def forward(s, x):
        return s.l2(torch.relu(s.ln(s.l1(x))))
torch.manual_seed(0)
ep = torch.export.export(M().eval(), (torch.randn(6, 16),))
# valgrind stops at AVX-512: no vector ISA and a baseline -march
torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1], inductor_configs={
    "cpp.simdlen": 0, "cpp.march": "x86-64-v2", "aot_inductor.debug_intermediate_value_printer": "1"})
"""


@pytest.mark.slow
def test_runner_has_no_definite_leak_under_valgrind(aotidbg, tmp_path):
    import shutil
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed")
    pkg = str(tmp_path / "novec.pt2")
    r = run([sys.executable, "-c", NOVEC_MODEL, pkg], timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    spec = write_spec(str(tmp_path), (torch.randn(6, 16),))
    env = dict(os.environ, LEAKCHECK_ARGS="--force")   # the checklist refuses INVALID_VEC_ISA (see report)
    out = tmp_path / "leak"
    r = run([os.path.join(ROOT, "tests", "bench", "leakcheck_runner.sh"), os.path.dirname(aotidbg), pkg, spec,
             str(out)], env=env, timeout=600)
    print(r.stdout)
    assert "LEAK SUMMARY" in (out / "valgrind.log").read_text()   # valgrind really checked at exit
    assert r.returncode != 2, r.stdout
    assert "definite leaks in our code: 0 " in r.stdout and r.returncode == 0, r.stdout


def test_live_status_says_failed(aotidbg, clean, fault_runner, tmp_path):
    """A model that fails in order (an op throws) in the live UI: the status bar says
    failed, the session's end_state too, and the UI exits 1 as `aotidbg run` does."""
    rec = tmp_path / "live.yaml"
    r = run([aotidbg, clean["pkg"], "--inputs", clean["spec"], "--record", str(rec), "--headless", "120x40",
             "--keys", "c c"], env=fault_env(fault_runner, "throw"), timeout=120)
    assert r.returncode == 1, r.stderr
    frames = r.stdout.split("=== ")
    # c stops at the error (live breaks on errors), c again lets the model return its failure
    assert "| failed (stopped at the error) |" in frames[-2], frames[-2][-300:]
    assert "| failed |" in frames[-1], frames[-1][-300:]
    assert load_session(str(rec))["end_state"] == "failed"
