"""`aotidbg run` on real AOTI packages (issue 2's checks).

For each model in tests/models/model_core.py, compiled by torch with the
printer at level 1: the kernels the runner reports are exactly the launches
whose printer calls appear in wrapper.cpp, in order; every recorded tensor's
statistics match torch's for the same values; the inputs recorded are the
inputs fed; the outputs match the eager model. Then the faults: wrong input
count, wrong dtype, a runner that segfaults mid-run and one that hangs (both
injected by an LD_PRELOAD library wrapping a real libtorch op the model
calls), a bare .so, and bad usage.
"""
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import (check_stats, events, extract_so, load_session, run, torch_stats,  # noqa: E402
                             wrapper_input_names, wrapper_launches, write_spec)

CORE_MODELS = ["mlp_ln", "conv_block", "encoder"]
ALL_VALUES = "1000000"


def model_io(pkg):
    base = pkg[:-len(".pt2")]
    inputs = torch.load(base + ".inputs.pt")
    expected = torch.load(base + ".expected.pt")
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    return tuple(inputs), tuple(expected)


@pytest.fixture(scope="module")
def recorded(aotidbg, runner, package, tmp_path_factory):
    """Runs every core model once; the tests below read the sessions."""
    out = {}
    for name in CORE_MODELS:
        pkg = package(name)
        d = tmp_path_factory.mktemp(name)
        inputs, expected = model_io(pkg)
        spec = write_spec(str(d), inputs)
        sess_path = os.path.join(str(d), "s.yaml")
        r = run([aotidbg, "run", pkg, "--inputs", spec, "--values", ALL_VALUES, "--record", sess_path])
        out[name] = dict(pkg=pkg, inputs=inputs, expected=expected, proc=r, path=sess_path,
                         sess=load_session(sess_path) if os.path.exists(sess_path) else None)
    return out


@pytest.mark.parametrize("name", CORE_MODELS)
def test_runs_to_the_end(recorded, name):
    r = recorded[name]
    assert r["proc"].returncode == 0, r["proc"].stderr
    assert "ran to the end" in r["proc"].stderr
    sess = r["sess"]
    assert sess is not None
    assert not events(sess, "error"), events(sess, "error")
    assert not events(sess, "runner-exit")
    assert all(k["status"] == "ok" for k in events(sess, "kernel"))


@pytest.mark.parametrize("name", CORE_MODELS)
def test_kernels_are_the_wrapper_launches(recorded, name):
    r = recorded[name]
    want = wrapper_launches(r["pkg"])
    assert want, "the package has no printer calls: was it built with the printer at level 1?"
    kernels = events(r["sess"], "kernel")
    assert [k["name"] for k in kernels] == want
    assert [k["index"] for k in kernels] == list(range(len(want)))
    for k in kernels:
        if k["name"].startswith("cpp_"):
            assert k["type"] == "cpp"
        elif k["name"].startswith("aoti_torch_"):
            assert k["type"] == "extern"
        assert {t["phase"] for t in k["tensors"]} <= {"before", "after"}
        assert any(t["phase"] == "before" for t in k["tensors"])
        assert any(t["phase"] == "after" for t in k["tensors"])


@pytest.mark.parametrize("name", CORE_MODELS)
def test_every_tensor_stats_match_torch(recorded, name):
    """Stats of every recorded tensor against torch's stats of its values."""
    r = recorded[name]
    problems, checked = [], 0
    for k in events(r["sess"], "kernel") + events(r["sess"], "output"):
        for t in k["tensors"]:
            assert t["values_complete"], (k.get("name"), t["name"])
            vals = torch.tensor([float(v) for v in t["values"]], dtype=torch.float64)
            numel = 1
            for d in t["shape"]:
                numel *= d
            assert vals.numel() == numel, (t["name"], t["shape"])
            problems += check_stats(t["stats"], torch_stats(vals), f"{k.get('name', 'output')}/{t['name']}/{t['phase']}")
            checked += 1
    assert checked > 0
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("name", CORE_MODELS)
def test_inputs_recorded_are_the_inputs_fed(recorded, name):
    r = recorded[name]
    names = wrapper_input_names(r["pkg"])
    assert len(names) == len(r["inputs"])
    seen = 0
    for k in events(r["sess"], "kernel"):
        for t in k["tensors"]:
            if t["name"] in names and t["phase"] == "before":
                fed = r["inputs"][names.index(t["name"])]
                assert t["shape"] == list(fed.shape)
                assert t["strides"] == list(fed.stride())
                assert t["device"] == "cpu"
                got = torch.tensor([float(v) for v in t["values"]], dtype=torch.float64).reshape(fed.shape)
                assert torch.equal(got, fed.to(torch.float64)), t["name"]
                assert not check_stats(t["stats"], torch_stats(fed), t["name"])
                seen += 1
    assert seen > 0


@pytest.mark.parametrize("name", CORE_MODELS)
def test_outputs_match_eager(recorded, name):
    r = recorded[name]
    outs = events(r["sess"], "output")
    assert len(outs) == 1
    tensors = outs[0]["tensors"]
    assert len(tensors) == len(r["expected"])
    for t, want in zip(tensors, r["expected"]):
        assert t["phase"] == "output"
        assert t["shape"] == list(want.shape)
        got = torch.tensor([float(v) for v in t["values"]], dtype=torch.float64).reshape(want.shape)
        torch.testing.assert_close(got, want.to(torch.float64), rtol=1e-4, atol=1e-5)
        # the stats torch computes on the eager output agree too (float32 kernels differ in the last bits)
        w = torch_stats(want)
        for key in ("min", "max", "mean"):
            assert abs(t["stats"][key] - w[key]) <= 1e-4 * max(abs(w["max"]), abs(w["min"]), 1.0), key


def test_session_header(recorded):
    sess = recorded["mlp_ln"]["sess"]
    assert str(sess["format_version"]).startswith("1.")
    assert sess["device"] == "cpu"
    flags = sess.get("flags") or {}
    assert flags.get("AOTI_RUNTIME_CHECK_INPUTS") in ("0", "1")
    assert len(sess["inputs"]) == 2


# ---- break points ------------------------------------------------------------

def test_break_on_kernel_name(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    launches = wrapper_launches(pkg)
    target = launches[-1]
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--break-on", f"kernel={target}", "--record", out])
    assert r.returncode == 0, r.stderr
    assert "stopped at the kernel break" in r.stderr
    sess = load_session(out)
    kernels = events(sess, "kernel")
    assert [k["name"] for k in kernels] == launches
    assert kernels[-1]["status"] == "pending"
    assert all(k["status"] == "ok" for k in kernels[:-1])
    assert not events(sess, "output")


def test_break_on_nan(aotidbg, package, tmp_path):
    """An all-NaN input: --break-on nan stops at the first kernel whose outputs
    hold NaN (exit 1); without it the run goes on, marks kernels nan, and ends
    saying that the output is all NaN and how to find where it starts (exit 0:
    wrong numbers are not a failed model; --break-on nan makes them one)."""
    pkg = package("conv_block")
    spec = tmp_path / "spec.yaml"
    spec.write_text("inputs:\n  - {shape: [2, 3, 8, 8], dtype: float32, fill: full, value: .nan}\n")
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--break-on", "nan", "--record", out])
    assert r.returncode == 1, r.stderr
    assert "stopped at the first NaN/Inf, kernel 0" in r.stderr
    kernels = events(load_session(out), "kernel")
    assert len(kernels) == 1 and kernels[0]["status"] == "nan"
    nan_after = [t for t in kernels[0]["tensors"] if t["phase"] == "after" and t["stats"]["nan"] > 0]
    assert nan_after
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", out])
    assert r.returncode == 0, r.stderr
    assert "ran to the end (outputs recorded), but an output is all NaN/Inf" in r.stderr
    assert "output0: all 256 of its 256 elements are NaN or Inf (nan 256" in r.stderr and "hunt-nan" in r.stderr
    sess = load_session(out)
    assert sess["end_state"] == "complete"
    # the live UI says it too when the run reaches the end (c stops at the first NaN, c again ends it)
    lr = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(tmp_path / "l.yaml"), "--headless", "120x30",
              "--keys", "c c", "--dump-screen"], cwd=str(tmp_path))
    assert lr.returncode == 0, lr.stderr
    assert "output output0 is all NaN/Inf: hunt-nan (F) finds where it starts" in lr.stdout, lr.stdout
    assert [k["name"] for k in events(sess, "kernel")] == wrapper_launches(pkg)
    assert all(k["status"] == "nan" for k in events(sess, "kernel"))
    assert events(sess, "output")[0]["tensors"][0]["stats"]["nan"] == events(sess, "output")[0]["tensors"][0]["stats"]["numel"]


# ---- faults --------------------------------------------------------------------

def test_no_inputs_spec_says_how_many(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--record", out])
    assert r.returncode == 2, r.stderr
    assert "this model takes 2 inputs; give --inputs SPEC" in r.stderr
    # the spec it suggests (from wrapper.cpp) is one the model accepts
    lines = r.stderr.splitlines()
    start = lines.index("inputs:")
    spec = tmp_path / "suggested.yaml"
    spec.write_text("\n".join(lines[start:start + 3]) + "\n")
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", out])
    assert r.returncode == 0, (spec.read_text(), r.stderr)
    sess = load_session(out)
    assert sess["printer_level"] == 1
    assert [k["name"] for k in events(sess, "kernel")] == wrapper_launches(pkg)


def test_wrong_input_count(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs[:1])
    out = str(tmp_path / "s.yaml")
    # the checklist catches it before anything runs: bad input, 2, as when forced past it
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out])
    assert r.returncode == 2, r.stderr
    assert "the checklist fails, so the model was not run" in r.stderr and "input.count" in r.stderr
    sess = load_session(out)
    assert any(c["id"] == "input.count" and c["status"] == "FAIL" for c in sess["checks"])
    assert not events(sess, "kernel") and not events(sess, "log")   # no runner was started
    # forced past the checklist, the runner's input count stops it before the model is called
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--force", "--record", out])
    assert r.returncode == 2, r.stderr
    assert "gives 1 input, the model takes 2" in r.stderr
    sess = load_session(out)
    errs = events(sess, "error")
    assert errs and "the model takes 2" in errs[0]["text"]
    assert not events(sess, "kernel")


def test_wrong_dtype_deterministic(aotidbg, package, tmp_path):
    """float64 where the model was compiled for float32: the checklist refuses
    it; forced past it, with --deterministic the model's own input check
    (AOTI_RUNTIME_CHECK_INPUTS=1) names the input."""
    pkg = package("conv_block")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), [inputs[0].double()])
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out])
    assert r.returncode == 2, r.stderr   # only an input row failed: bad input
    name = wrapper_input_names(pkg)[0]
    assert f"input.0.dtype: input 0 ({name}) dtype: expected float32, got float64" in r.stderr
    assert not events(load_session(out), "kernel")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--deterministic", "--force", "--record", out])
    assert r.returncode == 1, r.stderr
    sess = load_session(out)
    assert sess["flags"]["AOTI_RUNTIME_CHECK_INPUTS"] == "1"
    assert sess["flags"]["CUDA_LAUNCH_BLOCKING"] == "1"
    text = "\n".join(e["text"] for e in events(sess, "error"))
    assert "unmatched dtype" in text, (text, r.stderr)
    assert events(sess, "error")[-1]["route"] == "input-mismatch"   # routed by core/router/routes.yaml
    assert events(sess, "error")[-1]["fields"]["input_index"] == "0"
    assert "the model failed" in r.stderr
    assert not events(sess, "kernel")


FAULT_LIB = r"""
/* Wraps libtorch's addmm: the model .so resolves it through the global scope,
 * where an LD_PRELOAD library comes before libtorch. The Nth call faults. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
typedef void *H;
typedef int32_t (*addmm_fn)(H, H, H, H, double, double);
static int calls;
int32_t aoti_torch_cpu_addmm_out(H out, H self, H m1, H m2, double beta, double alpha)
{
    const char *mode = getenv("H2_FAULT");
    int at = atoi(getenv("H2_FAULT_AT") ? getenv("H2_FAULT_AT") : "2");
    if (++calls == at && mode) {
        if (mode[0] == 's')
            *(volatile int *)(uintptr_t)8 = 1;
        if (mode[0] == 'f')
            return 1;   /* AOTI_TORCH_FAILURE: the model's error check throws */
        if (mode[0] == 'a') {   /* a device-side assert's words on stderr, then the failure */
            const char *t = getenv("H2_FAULT_TEXT");
            if (t)
                write(2, t, strlen(t));
            return 1;
        }
        for (;;)
            pause();
    }
    addmm_fn real = (addmm_fn)dlsym(RTLD_NEXT, "aoti_torch_cpu_addmm_out");
    return real(out, self, m1, m2, beta, alpha);
}
"""


@pytest.fixture(scope="module")
def fault_lib(runner, tmp_path_factory):
    """A runner wrapper that preloads the fault library into the runner only
    (never into aotidbg itself, which may be an ASan build); `exec` keeps the
    pid, so the front end sees the runner's own death."""
    d = tmp_path_factory.mktemp("fault")
    src, lib, wrap = d / "fault.c", d / "libh2fault.so", d / "faulty-runner"
    src.write_text(FAULT_LIB)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-ldl"], check=True)
    real = os.environ.get("AOTIDBG_RUNNER") or runner
    wrap.write_text(f'#!/bin/sh\nLD_PRELOAD="{lib}" exec "{real}" "$@"\n')
    wrap.chmod(0o755)
    return str(wrap)


def fault_env(wrapper, mode):
    env = dict(os.environ)
    env["AOTIDBG_RUNNER"] = wrapper
    env["H2_FAULT"] = mode
    env["H2_FAULT_AT"] = "2"
    return env


def test_runner_segfault_mid_run(aotidbg, package, fault_lib, tmp_path):
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    launches = wrapper_launches(pkg)
    second_addmm = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out], env=fault_env(fault_lib, "segv"))
    assert r.returncode == 1, r.stderr   # not death by signal: the front end survived
    assert "the runner died by signal 11 (SIGSEGV)" in r.stderr
    sess = load_session(out)
    kernels = events(sess, "kernel")
    # every kernel before the crash is on disk, completed; the crashing one is pending
    assert [k["name"] for k in kernels] == launches[:second_addmm + 1]
    assert all(k["status"] == "ok" for k in kernels[:-1])
    assert kernels[-1]["status"] == "pending"
    ex = events(sess, "runner-exit")
    assert len(ex) == 1 and ex[0]["how"] == "signal" and ex[0]["signal"] == signal.SIGSEGV
    assert sess["events"][-1]["kind"] == "runner-exit"


@pytest.mark.parametrize("break_on_error", [False, True])
def test_kernel_failure_mid_run(aotidbg, package, fault_lib, tmp_path, break_on_error):
    """A real libtorch op returning failure inside kernel 2: the model fails,
    the error is recorded against that kernel, exit 1; --break-on error stops there."""
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    launches = wrapper_launches(pkg)
    second_addmm = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    extra = ["--break-on", "error"] if break_on_error else []
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out] + extra, env=fault_env(fault_lib, "fail"))
    assert r.returncode == 1, r.stderr
    assert ("stopped at the first error" if break_on_error else "the model failed") in r.stderr
    sess = load_session(out)
    kernels = events(sess, "kernel")
    assert [k["name"] for k in kernels] == launches[:second_addmm + 1]
    assert kernels[-1]["status"] == "error"
    errs = events(sess, "error")
    assert errs and errs[0]["kernel"] == second_addmm
    assert not events(sess, "output")
    assert not events(sess, "runner-exit")   # the runner itself ended in order


def test_error_routed_with_the_runner_stderr(aotidbg, package, fault_lib, tmp_path):
    """The failing op first prints what a device-side assert prints (one line
    per thread), then fails: the model's ERROR text says only which call
    failed, so the route comes from the stderr lines routed with it (repeats
    collapsed), and the package is consulted for the condition."""
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    launches = wrapper_launches(pkg)
    second_addmm = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    assert_lines = "".join(f"/tmp/torchinductor_root/jz/cjzeel.py:30: unknown: block: [0,0,0], thread: [{t},0,0] "
                           "Assertion `index out of bounds: 0 <= tmp4 < ks0` failed.\n" for t in range(32))
    env = dict(fault_env(fault_lib, "assert"), H2_FAULT_TEXT=assert_lines)
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out], env=env)
    assert r.returncode == 1, r.stderr
    sess = load_session(out)
    errs = events(sess, "error")
    assert len(errs) == 1 and errs[0]["kernel"] == second_addmm, errs
    e = errs[0]
    assert "API call failed" in e["text"] and "Assertion" not in e["text"]
    assert e["route"] == "triton-index-oob", e
    f = e["fields"]
    assert (f["tmp"], f["bound"], f["count"]) == ("tmp4", "ks0", "32"), f
    assert "no kernel in the package checks" in f["trace_error"]   # mlp_ln has no such check
    assert sum("Assertion" in l["text"] for l in events(sess, "log")) == 32


def test_break_on_index(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--break-on", "index=1", "--record", out])
    assert r.returncode == 0, r.stderr
    assert "stopped at the index break, kernel 1" in r.stderr
    kernels = events(load_session(out), "kernel")
    assert [k["index"] for k in kernels] == [0, 1] and kernels[1]["status"] == "pending"


def test_runner_hang_times_out(aotidbg, package, fault_lib, tmp_path):
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    launches = wrapper_launches(pkg)
    second_addmm = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    t0 = time.monotonic()
    p = subprocess.Popen([aotidbg, "run", pkg, "--inputs", spec, "--timeout", "3", "--record", out],
                         env=fault_env(fault_lib, "hang"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    # while the runner hangs, the file on disk already holds the kernels before it
    seen_on_disk = False
    while p.poll() is None and time.monotonic() - t0 < 60:
        if os.path.exists(out):
            with open(out) as f:
                if launches[1] in f.read():
                    seen_on_disk = True
                    break
        time.sleep(0.05)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    assert seen_on_disk
    assert time.monotonic() - t0 < 30
    assert "timeout" in err
    sess = load_session(out)
    assert [k["name"] for k in events(sess, "kernel")] == launches[:second_addmm + 1]
    ex = events(sess, "runner-exit")
    assert len(ex) == 1 and ex[0]["how"] == "timeout"


def test_interrupt_leaves_a_session(aotidbg, package, fault_lib, tmp_path):
    """SIGTERM to the front end while the runner hangs: exit 1, runner gone, file complete."""
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    p = subprocess.Popen([aotidbg, "run", pkg, "--inputs", spec, "--timeout", "0", "--record", out],
                         env=fault_env(fault_lib, "hang"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        if os.path.exists(out) and any(line.startswith("- {kind: kernel") and "aoti_torch_cpu_addmm_out" in line
                                       for line in open(out)):   # an event: the header names kernels too
            break
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 1, err
    sess = load_session(out)
    assert events(sess, "runner-exit")[-1]["how"] == "killed"


# ---- old artifacts and usage ---------------------------------------------------

def test_bare_so_needs_device_and_runs(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    so = extract_so(pkg, str(tmp_path))
    inputs, expected = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", so, "--inputs", spec, "--record", out])
    assert r.returncode == 2
    assert "--device" in r.stderr
    r = run([aotidbg, "run", so, "--inputs", spec, "--device", "cpu", "--values", ALL_VALUES, "--record", out])
    assert r.returncode == 0, r.stderr
    assert "aoti_compile_and_package" in r.stderr and "aoti_load_package" in r.stderr
    sess = load_session(out)
    t = events(sess, "output")[0]["tensors"][0]
    got = torch.tensor(t["values"], dtype=torch.float64).reshape(expected[0].shape)
    torch.testing.assert_close(got, expected[0].double(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("args,msg", [
    ([], "--record OUT.yaml is required"),
    (["--record", "X", "--break-on", "sometimes"], "--break-on takes error, nan, inf, nonfinite, diverge, kernel=NAME[@K], iteration=K or index=N"),
    (["--record", "X", "--device", "tpu"], "--device takes cpu, cuda or cuda:N"),
    (["--record", "X", "--timeout", "soon"], "--timeout needs seconds"),
    (["--record", "X", "--values", "-1"], "--values needs a count"),
    (["--record", "X", "--frobnicate"], "unknown option '--frobnicate'"),
])
def test_usage_errors(aotidbg, package, tmp_path, args, msg):
    pkg = package("conv_block")
    r = run([aotidbg, "run", pkg] + args, cwd=str(tmp_path))
    assert r.returncode == 2
    assert msg in r.stderr


def test_help(aotidbg):
    r = run([aotidbg, "run", "--help"])
    assert r.returncode == 0
    assert "--record OUT.yaml" in r.stdout and "--break-on" in r.stdout


def test_missing_package(aotidbg, tmp_path):
    r = run([aotidbg, "run", str(tmp_path / "nope.pt2"), "--record", str(tmp_path / "s.yaml")])
    assert r.returncode == 2
    assert "nope.pt2" in r.stderr


# ---- mode, printer level, routed errors (follow-up of the first H200 run) -------

def checks_by_id(sess):
    return {c["id"]: c for c in sess.get("checks") or []}


def test_printer_off_package_is_reinstrumented(aotidbg, package, tmp_path):
    """shipped_p0 (printer off) through `aotidbg run`: a re-instrumented copy
    runs (mode reinstrument, kernel source reinstrument) and reports the same
    kernels, in order, with the same tensors, as the same model built with
    the printer at level 1 (shipped_p1); a second run hits the cache."""
    p0, p1 = package("shipped_p0"), package("shipped_p1")
    inputs, expected = model_io(p0)
    spec = write_spec(str(tmp_path), inputs)
    env = dict(os.environ, AOTIDBG_CACHE_DIR=str(tmp_path / "cache"))
    out0, out1 = str(tmp_path / "p0.yaml"), str(tmp_path / "p1.yaml")
    r = run([aotidbg, "run", p0, "--inputs", spec, "--values", ALL_VALUES, "--record", out0], env=env)
    assert r.returncode == 0, r.stderr
    assert "re-instrumenting" in r.stderr and "done (100%)" in r.stderr, r.stderr
    r1 = run([aotidbg, "run", p1, "--inputs", spec, "--values", ALL_VALUES, "--record", out1], env=env)
    assert r1.returncode == 0, r1.stderr
    s0, s1 = load_session(out0), load_session(out1)
    assert (s0["mode"], s0["printer_level"]) == ("reinstrument", 0)
    assert (s1["mode"], s1["printer_level"]) == ("printer", 1)
    assert checks_by_id(s0)["run.mode"]["got"] == "reinstrument"
    assert checks_by_id(s0)["run.mode"]["status"] == "INFO"
    assert checks_by_id(s1)["run.mode"]["got"] == "printer"
    assert "flag.printer-level" in checks_by_id(s0)   # the checklist rows are kept on a passing run
    k0, k1 = events(s0, "kernel"), events(s1, "kernel")
    assert [k["name"] for k in k0] == [k["name"] for k in k1] == wrapper_launches(p1)
    assert {k["source"] for k in k0} == {"reinstrument"} and {k["source"] for k in k1} == {"printer"}
    # every after tensor and every model input: the same statistics as printer level 1
    # (a buffer's before value is whatever memory it got until a kernel writes it)
    compared = 0
    for a, b in zip(k0, k1):
        ta = {(t["name"], t["phase"]): t for t in a["tensors"]}
        tb = {(t["name"], t["phase"]): t for t in b["tensors"]}
        assert ta.keys() == tb.keys(), a["name"]
        for key, t in ta.items():
            if key[1] == "after" or key[0].startswith("arg"):
                assert t["shape"] == tb[key]["shape"], key
                want = torch_stats(torch.tensor([float(v) for v in tb[key]["values"]], dtype=torch.float64))
                assert not check_stats(t["stats"], want, f"{a['name']}/{key}")
                assert t["values"] == tb[key]["values"], key
                compared += 1
    assert compared >= len(k0) * 2
    for got, want in zip(events(s0, "output")[0]["tensors"], expected):
        g = torch.tensor([float(v) for v in got["values"]], dtype=torch.float64).reshape(want.shape)
        torch.testing.assert_close(g, want.to(torch.float64), rtol=1e-4, atol=1e-5)
    # the second run takes the cached copy
    r = run([aotidbg, "run", p0, "--inputs", spec, "--record", out0], env=env)
    assert r.returncode == 0 and "cached" in r.stderr, r.stderr
    assert [k["name"] for k in events(load_session(out0), "kernel")] == wrapper_launches(p1)
    # --no-reinstrument: the shipped .so runs as is: outputs, no kernels, mode none
    r = run([aotidbg, "run", p0, "--inputs", spec, "--no-reinstrument", "--record", out0], env=env)
    assert r.returncode == 0, r.stderr
    s = load_session(out0)
    assert s["mode"] == "none" and not events(s, "kernel") and events(s, "output")
    assert checks_by_id(s)["run.mode"]["got"] == "none"


def test_reinstrument_failure_falls_back(aotidbg, package, tmp_path):
    """A cache folder that can't be made: the rebuild fails with its reason on
    stderr, and the shipped .so still runs (mode none, a note says why)."""
    p0 = package("shipped_p0")
    inputs, _ = model_io(p0)
    spec = write_spec(str(tmp_path), inputs)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = dict(os.environ, AOTIDBG_CACHE_DIR=str(blocker / "cache"))
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", p0, "--inputs", spec, "--record", out], env=env)
    assert r.returncode == 0, r.stderr
    assert "re-instrumenting failed" in r.stderr
    s = load_session(out)
    assert s["mode"] == "none" and events(s, "output")
    assert any("re-instrumenting failed" in n for n in s.get("notes") or [])


def test_input_mismatch_error_is_routed(aotidbg, package, tmp_path):
    """A wrong static dim forced past the checklist, with the model's own input
    checks on (--deterministic): the error event has the model's text, route
    input-mismatch, and fields naming the input, its dim and the shape fed."""
    pkg = package("shipped_p1")
    inputs, _ = model_io(pkg)
    x = torch.randn(inputs[0].shape[0], inputs[0].shape[1] + 1)
    spec = write_spec(str(tmp_path), [x, inputs[1]])
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--force", "--deterministic", "--record", out])
    assert r.returncode == 1, r.stderr
    errs = events(load_session(out), "error")
    assert len(errs) == 1, errs
    e = errs[0]
    assert "unmatched dim value at 1" in e["text"] and "see stderr" not in e["text"], e["text"]
    assert e["route"] == "input-mismatch"
    f = e["fields"]
    assert f["input_index"] == "0" and f["dim"] == "1"
    assert f["expected"] == str(inputs[0].shape[1]) and f["got"] == str(x.shape[1])
    assert f["input"] == wrapper_input_names(pkg)[0]
    assert f["input_shape"] == str(list(x.shape)) and f["dim_value"] == str(x.shape[1])


def test_cpp_bounds_assert_is_routed_to_the_input(aotidbg, package, tmp_path):
    """router_gather indexes a table whose row count is dynamic; indices past
    the end make its C++ kernel's bounds check fire (`0 <= tmpN < ksM`). The
    error is routed cpp-index-oob (a C++ kernel's check) and traced through the package's code
    to the table input's dimension 0, with the row count this run fed."""
    pkg = package("router_gather")
    rows = 20
    table = torch.randn(rows, 8)
    idx = torch.tensor([0, 3, rows + 5, 1], dtype=torch.int64)
    spec = write_spec(str(tmp_path), [table, idx])
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out])
    assert r.returncode == 1, r.stderr
    sess = load_session(out)
    errs = events(sess, "error")
    assert len(errs) == 1, errs
    e = errs[0]
    assert "index out of bounds" in e["text"]
    assert e["route"] == "cpp-index-oob", e
    f = e["fields"]
    kernel = events(sess, "kernel")[e["kernel"]]["name"]
    assert f["kernel"] == kernel and kernel in wrapper_launches(pkg)
    assert f"{f['tmp']} < {f['bound']}" in e["text"]
    # the bound is the table's row count: input 0, dim 0, as fed this run
    assert (f["input_index"], f["dim"]) == ("0", "0"), f
    assert f["input"] == wrapper_input_names(pkg)[0]
    assert f["dim_value"] == str(rows) and f["input_shape"] == str(list(table.shape))
    assert "trace_error" not in f
    # the summary names the route and the input, and where to see the steps
    assert f"route: cpp-index-oob (input 0 {f['input']}, dim 0 = {rows}); the steps: aotidbg route {out}" \
        in r.stderr, r.stderr
    # in range, the same package runs clean
    spec = write_spec(str(tmp_path), [table, torch.tensor([0, rows - 1], dtype=torch.int64)], name="ok.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out])
    assert r.returncode == 0, r.stderr
    assert not events(load_session(out), "error")


def test_route_a_recorded_session(aotidbg, package, tmp_path):
    """`aotidbg route S.yaml` on a session file routes its errors and log
    lines, with its package (recorded path) and its inputs: the same route,
    input and runtime size as the run recorded."""
    pkg = package("router_gather")
    table = torch.randn(7, 8)
    spec = write_spec(str(tmp_path), [table, torch.tensor([2, 9], dtype=torch.int64)])
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", os.path.abspath(pkg), "--inputs", spec, "--record", out])
    assert r.returncode == 1, r.stderr
    recorded = events(load_session(out), "error")[0]
    r = run([aotidbg, "route", out, "--format", "yaml"])
    assert r.returncode == 0, r.stderr
    import yaml
    got = yaml.safe_load(r.stdout)
    assert got["route"] == recorded["route"] == "cpp-index-oob"
    for key in ("kernel", "input", "input_index", "dim", "dim_value"):
        assert got["fields"][key] == recorded["fields"][key], key
    assert got["fields"]["dim_value"] == "7"


# ---- issue 19: what used to pass without a word ----------------------------------

def test_break_on_kernel_that_never_runs(aotidbg, package, tmp_path):
    """--break-on kernel=NAME with a name no kernel has: the run goes to the end, then
    says so, names the kernels it may have meant, and exits 2 (bad input)."""
    pkg = package("mlp_ln")
    inputs, _ = model_io(pkg)
    spec = write_spec(str(tmp_path), inputs)
    out = str(tmp_path / "s.yaml")
    launches = wrapper_launches(pkg)
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--break-on", "kernel=addmm", "--record", out])
    assert r.returncode == 2, r.stderr
    assert f"--break-on kernel=addmm matched no kernel of the {len(launches)} that ran" in r.stderr, r.stderr
    assert "did you mean: aoti_torch_cpu_addmm_out" in r.stderr
    assert load_session(out)["end_state"] == "complete"
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--break-on", "index=99", "--record", out])
    assert r.returncode == 2 and "--break-on index=99 matched no kernel" in r.stderr, r.stderr


@pytest.mark.parametrize("cmd", [[], ["run"]])
def test_session_file_given_as_package(aotidbg, tmp_path, cmd):
    """`aotidbg S.yaml` (and `run S.yaml`) points at replay instead of a zip error."""
    sess = os.path.join(os.path.dirname(__file__), "..", "..", "sessions", "cpu", "encoder.yaml")
    renamed = tmp_path / "recorded.session"
    renamed.write_bytes(open(sess, "rb").read())
    for path in (sess, str(renamed)):
        r = run([aotidbg, *cmd, path, "--record", str(tmp_path / "x.yaml")])
        assert r.returncode == 2, r.stderr
        assert f"{path} is a session file, not a package: `aotidbg replay {path}` opens it" in r.stderr, r.stderr
        assert "zip" not in r.stderr
