"""aotidbg repro: one kernel launch as a standalone folder that CMake builds and
that checks itself (core/cli/cmd_repro.h). Each case runs a real package through
the real runner to one launch, builds the folder with cmake and runs it: the
outputs must equal what the run captured bit for bit (numpy compares them
again here), a kernel that failed must fail the same way, and the launcher must
not link Python. Kinds: a fused reduction with weights (layer norm), an index
assert (embedding fed id 137), an extern call (addmm through the C shim), a
NaN kernel (log of negatives), a softmax reduction, a kernel inside a
while_loop iteration (NAME@K)."""
import glob
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import run

CMAKE = shutil.which("cmake")
pytestmark = pytest.mark.skipif(CMAKE is None, reason="cmake is needed to build a repro")


def spec(tmp_path, rows):
    p = tmp_path / "inputs.yaml"
    p.write_text("inputs:\n" + "".join(f"  - {r}\n" for r in rows))
    return str(p)


def make(aotidbg, pkg, inputs, kernel, out):
    r = run([aotidbg, "repro", pkg, "--inputs", inputs, "--kernel", kernel, "-o", str(out)], timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"written to {out}" in r.stdout
    return r


def build_and_run(out):
    b = subprocess.run([CMAKE, "-S", str(out), "-B", str(out / "build")], capture_output=True, text=True)
    assert b.returncode == 0, b.stdout + b.stderr
    b = subprocess.run([CMAKE, "--build", str(out / "build")], capture_output=True, text=True)
    assert b.returncode == 0, b.stdout + b.stderr
    exe = str(out / "build" / "repro")
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    assert "libpython" not in libs, libs   # torch lives under site-packages; Python itself must not be linked
    needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    assert "(NEEDED)" in needed and "libpython" not in needed, needed   # nor asked for by name
    return subprocess.run([exe], capture_output=True, text=True, timeout=120), libs


def capture(out):
    rows = [line.split("\t") for line in (out / "capture.txt").read_text().splitlines()]
    return {r[0]: r[1:] for r in rows if r[0] in ("kernel", "status")}, [r for r in rows if r[0] == "tensor"]


def check_equal(out):
    """out/ against expected/, element by element, bits included (NaN too)."""
    files = sorted(glob.glob(str(out / "expected" / "*.npy")))
    assert files
    for f in files:
        want = np.load(f)
        got = np.load(str(out / "out" / os.path.basename(f)))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), f
    return files


def test_repro_fused_reduction_with_weights(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    inputs = spec(tmp_path, ["{shape: [6, 16], dtype: float32, device: cpu, fill: randn, seed: 1}",
                             "{shape: [3], dtype: int64, device: cpu, fill: arange}"])
    out = tmp_path / "ln"
    make(aotidbg, pkg, inputs, "cpp_fused_native_layer_norm_relu_0", out)
    head, tensors = capture(out)
    assert head["kernel"][1] == "cpp_fused_native_layer_norm_relu_0" and head["status"] == ["ok"]
    # the weights the kernel reads are captured too, from the model's constants
    assert {"ln_weight", "ln_bias"} <= {t[2] for t in tensors if t[1] == "before"}
    assert "void  cpp_fused_native_layer_norm_relu_0(" in (out / "kernel.cpp").read_text()
    cm = (out / "CMakeLists.txt").read_text()
    root = cm.split('set(TORCH_ROOT "')[1].split('"')[0]   # where the kernel's headers come from
    assert os.path.exists(os.path.join(root, "include", "torch", "csrc", "inductor", "cpp_prefix.h"))
    r, libs = build_and_run(out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "equal to the captured ones bit for bit" in r.stdout
    assert "libtorch" not in libs   # a layer norm needs no SLEEF: the repro stands alone
    check_equal(out)
    assert f'repro: "{out}"' in (out / "session.yaml").read_text()
    r = run([aotidbg, "replay", str(out / "session.yaml"), "--dump"])   # the key reads back, unwarned
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    # the UI's `repro` action on the selected kernel says the command that makes it
    r = run([aotidbg, "replay", str(out / "session.yaml"), "--headless", "200x30", "--ascii", "--keys", "repro",
             "--dump-screen"])
    assert f"repro of kernel 0 aoti_torch_cpu_addmm_out: aotidbg repro {pkg} --inputs SPEC --kernel 0" in r.stdout
    # the check can fail: one changed input bit is a difference, named
    x = np.load(out / "in" / "buf4.npy")
    x.flat[0] += 1.0
    np.save(out / "in" / "buf4.npy", x)
    r = subprocess.run([str(out / "build" / "repro")], capture_output=True, text=True)
    assert r.returncode == 1 and "differs: got" in r.stdout, r.stdout


def test_repro_index_assert_fails_the_same_way(aotidbg, package, tmp_path):
    pkg = package("oob_embedding")
    inputs = spec(tmp_path, ["{shape: [2, 4], dtype: int64, device: cpu, fill: full, value: 137}"])
    out = tmp_path / "oob"
    make(aotidbg, pkg, inputs, "0", out)
    head, _ = capture(out)
    assert head["status"] == ["error"]
    readme = (out / "README").read_text()
    assert "FAILED in the run" in readme and "index out of bounds: 0 <= tmp" in readme
    r, libs = build_and_run(out)
    assert r.returncode == 1
    msg = readme.split("FAILED in the run:\n  ")[1].splitlines()[0]   # the run's own message
    assert f"repro: the kernel failed: {msg}" in r.stderr, r.stderr
    assert "libtorch" not in libs


@pytest.mark.slow
def test_repro_extern_nan_softmax_while(aotidbg, package, tmp_path):
    """The slower kinds: an extern call (its launcher links libtorch), a NaN kernel,
    a softmax, and the third iteration of a while_loop body (re-instrumented)."""
    mlp = spec(tmp_path, ["{shape: [6, 16], dtype: float32, device: cpu, fill: randn, seed: 1}",
                          "{shape: [3], dtype: int64, device: cpu, fill: arange}"])
    out = tmp_path / "addmm"
    make(aotidbg, package("mlp_ln"), mlp, "aoti_torch_cpu_addmm_out@1", out)
    assert "aoti_torch_cpu_addmm_out(" in (out / "main.cpp").read_text()
    r, libs = build_and_run(out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "libtorch_cpu" in libs and "links libtorch" in (out / "README").read_text()
    check_equal(out)

    nan = spec(tmp_path, ["{shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 4}"])
    out = tmp_path / "nan"
    make(aotidbg, package("runner_nan"), nan, "2", out)
    head, _ = capture(out)
    assert head["kernel"][1].startswith("cpp_fused_log") and head["status"] == ["nan"]
    # it is the kernel where NaN first appears in the run (the repro run's own session says so)
    import yaml
    ks = [e for e in yaml.safe_load((out / "session.yaml").read_text())["events"] if e.get("kind") == "kernel"]
    first = next(k["index"] for k in ks if any(t["phase"] == "after" and t["stats"]["nan"] for t in k["tensors"]))
    assert first == 2, [(k["index"], k["name"]) for k in ks]
    r, _ = build_and_run(out)
    assert r.returncode == 0 and "NaN of" in r.stdout, r.stdout + r.stderr
    files = check_equal(out)
    assert any(np.isnan(np.load(str(out / "out" / os.path.basename(f)))).any() for f in files)

    vb = spec(tmp_path, ["{shape: [64, 64], dtype: float32, device: cpu, fill: randn, seed: 3}"])
    out = tmp_path / "softmax"
    make(aotidbg, package("values_budget"), vb, "5", out)
    head, _ = capture(out)
    assert "softmax" in head["kernel"][1]
    r, _ = build_and_run(out)
    assert r.returncode == 0, r.stdout + r.stderr
    check_equal(out)

    wl = spec(tmp_path, ["{shape: [], dtype: int64, device: cpu, fill: full, value: 3}",
                         "{shape: [2, 8], dtype: float32, device: cpu, fill: randn, seed: 2}"])
    out = tmp_path / "while"
    make(aotidbg, package("ctl_while"), wl, "cpp_fused_add_sin_sub_1@2", out)
    head, tensors = capture(out)
    assert head["kernel"][2] == "while_loop_body_graph_0"
    counter = next(t for t in tensors if t[1] == "before" and t[4] == "int64" and "arg0_1" in t[2])
    assert int(np.load(str(out / counter[3]))) == 1   # iteration 2 of 3: the counter is down to 1
    r, _ = build_and_run(out)
    assert r.returncode == 0, r.stdout + r.stderr
    check_equal(out)


def test_repro_refusals(aotidbg, package, tmp_path):
    pkg = package("oob_embedding")
    inputs = spec(tmp_path, ["{shape: [2, 4], dtype: int64, device: cpu, fill: arange}"])
    out = tmp_path / "none"
    r = run([aotidbg, "repro", pkg, "--inputs", inputs, "--kernel", "cpp_no_such_kernel", "-o", str(out)])
    assert r.returncode == 2
    assert "no launch cpp_no_such_kernel in this run (1 kernel launch" in r.stderr, r.stderr
    assert sorted(os.listdir(out)) == ["session.yaml"]   # nothing half-written is left
    r = run([aotidbg, "repro", pkg, "--inputs", inputs, "--kernel", "0", "-o", str(out)])
    assert r.returncode == 2 and "is not empty" in r.stderr
    r = run([aotidbg, "repro", pkg, "--kernel", "x@y", "-o", str(tmp_path / "bad")])
    assert r.returncode == 2 and "--kernel takes N, NAME or NAME@K" in r.stderr
    r = run([aotidbg, "repro", pkg, "--kernel", "0"])
    assert r.returncode == 2 and "-o DIR is required" in r.stderr


def test_live_repro_action_makes_the_folder(aotidbg, package, tmp_path):
    """Live: `repro` on the selected kernel runs the package again to that launch
    (a runner of its own, through the run service) and writes the folder; the
    live session records it."""
    pkg = package("mlp_ln")
    inputs = spec(tmp_path, ["{shape: [6, 16], dtype: float32, device: cpu, fill: randn, seed: 1}",
                             "{shape: [3], dtype: int64, device: cpu, fill: arange}"])
    out, rec = tmp_path / "rk", str(tmp_path / "live.yaml")
    r = run([aotidbg, pkg, "--inputs", inputs, "--record", rec, "--headless", "300x40", "--ascii", "--dump-screen",
             "--keys", f"step step repro:{out}"], cwd=str(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    assert (f"repro of cpp_fused_native_layer_norm_relu_0 (cpp, launch 1, status ok) written to {out} run it: "
            f"cmake -S {out}") in r.stdout, r.stdout[-1500:]
    head, _ = capture(out)
    assert head["kernel"][1] == "cpp_fused_native_layer_norm_relu_0" and head["status"] == ["ok"]
    assert (out / "CMakeLists.txt").exists() and (out / "kernel.cpp").exists()
    assert f'repro: "{out}"' in open(rec).read()   # the live session says a repro was made
    assert f'repro: "{out}"' in (out / "session.yaml").read_text()
    # a folder that is not empty is refused, and said
    r = run([aotidbg, pkg, "--inputs", inputs, "--record", str(tmp_path / "l2.yaml"), "--headless", "300x40",
             "--ascii", "--dump-screen", "--keys", f"step repro:{out}"], cwd=str(tmp_path), timeout=300)
    assert "is not empty: give a new folder" in r.stdout + r.stderr, r.stdout[-1500:] + r.stderr
    assert "repro:" not in open(str(tmp_path / "l2.yaml")).read()


def test_repro_refuses_an_argument_it_cannot_capture(aotidbg, package, tmp_path):
    """A call whose argument is no tensor the printer handed over and has no
    definition in wrapper.cpp (here written into a copy of the package's
    wrapper.cpp; the model .so is the real one and runs as shipped): refused,
    naming the argument and why, exit 2, nothing but the run's session left."""
    import re
    import zipfile
    src, pkg = package("mlp_ln"), str(tmp_path / "edited.pt2")
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(pkg, "w") as o:
        for i in z.infolist():
            d = z.read(i.filename)
            if i.filename.endswith(".wrapper.cpp"):
                t = d.decode()
                m = re.search(r"\n\s*cpp_fused_native_layer_norm_relu_0\(", t)
                d = (t[:m.end()] + "(const float*)(mystery_ptr), " + t[m.end():]).encode()
            o.writestr(i, d)
    inputs = spec(tmp_path, ["{shape: [6, 16], dtype: float32, device: cpu, fill: randn, seed: 1}",
                             "{shape: [3], dtype: int64, device: cpu, fill: arange}"])
    out = tmp_path / "ed"
    r = run([aotidbg, "repro", pkg, "--inputs", inputs, "--kernel", "cpp_fused_native_layer_norm_relu_0", "-o",
             str(out)])
    assert r.returncode == 2, r.stderr
    assert ("cannot make a repro of cpp_fused_native_layer_norm_relu_0 (launch 1): argument mystery_ptr: its value "
            "is not known here") in r.stderr, r.stderr
    assert sorted(os.listdir(out)) == ["session.yaml"]
