"""Issue 10: debugging a package as shipped.

A real CPU package built with the printer OFF (shipped_p0) is re-instrumented
by core/package/reinstrument.c (driven through build/test_reinstrument --build) and
its copy is run; the same model built with printer level 1 (shipped_p1) is
run the same way. Both runs go through torch's own aoti_torch_save_tensor_handle
(libtorch's implementation: it logs each call in order and saves the tensor),
so the comparison uses nothing of ours on the running side: same kernels,
same order, same tensors, same statistics. The user's package is never
modified, the second build hits the cache in under a second, and missing
compiler / torch headers are named.

Also: core/prepare/aotidbg_prepare.py rebuilds a real exported program with
the printer, the NaN asserts and the input checks.
"""
import hashlib
import os
import re
import subprocess
import sys
import time
import zipfile

import pytest

from conftest import BUILD, ROOT, run, tool

DRIVER = "test_reinstrument"
RUN_MODEL = r"""
import sys, glob, torch
so, inputs = sys.argv[1], sys.argv[2]
r = torch._C._aoti.AOTIModelContainerRunnerCpu(so, 1)
outs = r.run(list(torch.load(inputs)))
torch.save(outs, "outputs.pt")
"""
SAVED = re.compile(r"Saved tensor to (\S+)")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def extract(pkg, dest):
    with zipfile.ZipFile(pkg) as z:
        z.extractall(dest)
    (model_dir,) = [os.path.join(r, "") for r, d, f in os.walk(dest)
                    if r.endswith(os.path.join("data", "aotinductor", "model"))]
    return model_dir.rstrip("/")


def tree_digest(folder):
    out = {}
    for r, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(r, f)
            out[os.path.relpath(p, folder)] = sha256(p)
    return out


def stats(t):
    import torch
    t = t.detach().double().flatten()
    fin = t[torch.isfinite(t)]
    return (t.numel(), int(torch.isnan(t).sum()), int((t == 0).sum()),
            float(fin.min()) if fin.numel() else None, float(fin.max()) if fin.numel() else None,
            float(fin.mean()) if fin.numel() else None)


def run_model(so, inputs, cwd):
    """Runs a model .so with libtorch's own printer hooks; returns the ordered
    events [(phase, kernel, tensor)] and {event: tensor} and the outputs."""
    import torch
    os.makedirs(cwd, exist_ok=True)
    r = run([sys.executable, "-c", RUN_MODEL, so, inputs], cwd=cwd)
    assert r.returncode == 0, r.stderr[-3000:]
    files = SAVED.findall(r.stdout)
    assert files, r.stdout[-2000:]
    events, tensors = [], {}
    for path in files:
        base = os.path.basename(path)
        m = re.match(r"(?:aoti_torch)?(before_launch|after_launch)_(.+)_cpu\.pt$", base)
        assert m, base
        events.append((m.group(1), m.group(2)))
        tensors[m.group(2), m.group(1)] = torch.load(path)
    return events, tensors, torch.load(os.path.join(cwd, "outputs.pt"))


@pytest.fixture(scope="module")
def driver():
    # tests/CMakeLists.txt puts unit-test executables under BUILD/tests/
    path = os.path.join(BUILD, "tests", DRIVER)
    return path if os.path.exists(path) else tool(DRIVER)


@pytest.fixture(scope="module")
def shipped(package, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reinstrument")
    p0, p1 = package("shipped_p0"), package("shipped_p1")
    return {"tmp": tmp, "p0": p0, "p1": p1,
            "dir0": extract(p0, tmp / "x0"), "dir1": extract(p1, tmp / "x1"),
            "inputs": os.path.join(os.path.dirname(p0), "shipped_p0.inputs.pt"),
            "expected": os.path.join(os.path.dirname(p0), "shipped_p0.expected.pt")}


def same(a, b):
    """Equal dicts of numbers, NaN equal to NaN (std of one element is NaN)."""
    import math
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def build(driver, model_dir, sha, cache, extra_env=None):
    env = dict(os.environ, AOTIDBG_CACHE_DIR=str(cache))
    env.update(extra_env or {})
    t0 = time.monotonic()
    r = run([driver, "--build", model_dir, sha], env=env)
    return r, time.monotonic() - t0


@pytest.fixture(scope="module")
def built(driver, shipped):
    """One real rebuild for the module (about 10 s on CI)."""
    sha = sha256(shipped["p0"])
    tree = tree_digest(shipped["dir0"])
    r, secs = build(driver, shipped["dir0"], sha, shipped["tmp"] / "cache")
    return {"r": r, "secs": secs, "sha": sha, "tree": tree}


def test_reinstrumented_run_matches_printer_level_1(built, shipped):
    import torch
    tmp = shipped["tmp"]
    pkg_sha_before, tree_before, r = built["sha"], built["tree"], built["r"]
    assert r.returncode == 0, r.stderr
    stages = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("progress ")]
    assert stages[0] == "instrument" and stages[-1] == "done" and "link" in stages, r.stdout
    fractions = [float(l.split()[2]) for l in r.stdout.splitlines() if l.startswith("progress ")]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    so = r.stdout.splitlines()[-1].split(" ", 1)[1]
    assert so.startswith(str(tmp / "cache" / pkg_sha_before))
    # the user's package is untouched
    assert sha256(shipped["p0"]) == pkg_sha_before
    assert tree_digest(shipped["dir0"]) == tree_before

    # the package as shipped gives no events at all
    plain_so = [os.path.join(shipped["dir0"], f) for f in os.listdir(shipped["dir0"])
                if f.endswith(".wrapper.so")][0]
    os.makedirs(tmp / "plain", exist_ok=True)
    r0 = run([sys.executable, "-c", RUN_MODEL, plain_so, shipped["inputs"]], cwd=str(tmp / "plain"))
    assert r0.returncode == 0, r0.stderr[-2000:]
    assert not SAVED.findall(r0.stdout)

    so1 = [os.path.join(shipped["dir1"], f) for f in os.listdir(shipped["dir1"])
           if f.endswith(".wrapper.so")][0]
    ev_re, t_re, out_re = run_model(so, shipped["inputs"], str(tmp / "run_re"))
    ev_p1, t_p1, out_p1 = run_model(so1, shipped["inputs"], str(tmp / "run_p1"))
    # same kernels, same order, same tensors named
    assert ev_re == ev_p1
    kernels = []
    for phase, key in ev_re:
        if phase == "before_launch":
            k = key.rsplit("_", 1)[0] if re.search(r"_(buf|arg)\d+(_\d+)?$", key) else key
            kernels.append(k)
    assert any(k.startswith("cpp_fused") for k in kernels)
    assert any(k.startswith("aoti_torch_cpu_") for k in kernels)
    # same values and statistics for every saved tensor
    assert t_re.keys() == t_p1.keys()
    # A buffer's "before" value is defined only once something wrote it: an
    # output buffer fresh from empty_strided holds whatever memory it got (two
    # runs of the same printer build differ there too). Compare every "after"
    # tensor, and "before" tensors that are model inputs or were written by an
    # earlier kernel.
    written, defined = set(), set()
    for phase, key in ev_re:
        name = re.search(r"((?:buf|arg)\d+(?:_\d+)?)$", key).group(1)
        if phase == "after_launch":
            written.add(name)
            defined.add((key, phase))
        elif name.startswith("arg") or name in written:
            defined.add((key, phase))
    assert len(defined) >= len(t_re) // 2
    for key in sorted(defined):
        assert t_re[key].shape == t_p1[key].shape, key
        assert stats(t_re[key]) == stats(t_p1[key]), key
        assert torch.equal(t_re[key], t_p1[key]), key
    # and the re-instrumented model still computes the model: eager outputs
    expected = torch.load(shipped["expected"])
    for got, want in zip(out_re, expected):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_second_build_hits_the_cache(driver, built, shipped):
    assert built["r"].returncode == 0, built["r"].stderr
    first = built["secs"]
    r, second = build(driver, shipped["dir0"], built["sha"], shipped["tmp"] / "cache")
    assert r.returncode == 0, r.stderr
    assert "progress cached 1.00" in r.stdout
    assert second < 1.0, second
    assert second < first


def test_missing_torch_headers_are_named(driver, shipped, tmp_path):
    r, _ = build(driver, shipped["dir0"], sha256(shipped["p0"]), tmp_path / "c",
                 {"TORCH_DIR": str(tmp_path / "no-torch-here")})
    assert r.returncode == 1
    assert "torch headers not found" in r.stderr and "TORCH_DIR" in r.stderr


def test_missing_compiler_is_named(driver, shipped, tmp_path):
    r, _ = build(driver, shipped["dir0"], sha256(shipped["p0"]), tmp_path / "c",
                 {"AOTIDBG_CXX": "/nonexistent/g++-99"})
    assert r.returncode == 1
    assert "not installed here" in r.stderr and "g++-99" in r.stderr


def test_printer_level_1_package_is_refused(driver, shipped, tmp_path):
    r, _ = build(driver, shipped["dir1"], sha256(shipped["p1"]), tmp_path / "c")
    assert r.returncode == 1
    assert "already hooks every kernel launch" in r.stderr


def test_hostile_link_command_is_refused(driver, shipped, tmp_path):
    import shutil
    d = tmp_path / "evil"
    shutil.copytree(shipped["dir0"], d)
    (wrapper,) = [p for p in d.iterdir() if p.name.endswith(".wrapper.cpp")]
    text = wrapper.read_text()
    text = re.sub(r"(// Link cmd\n// )g\+\+", r"\1/bin/sh -c touch", text)
    wrapper.write_text(text)
    r, _ = build(driver, str(d), "ab" * 32, tmp_path / "c")
    assert r.returncode == 1
    assert "refusing to run" in r.stderr


def test_prepare_rebuilds_exported_program(package, tmp_path):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    import model_shipped
    spec = model_shipped.shipped_p0()
    ep = torch.export.export(spec["module"], spec["inputs"], dynamic_shapes=spec["dynamic"])
    exported = tmp_path / "exported.pt2"
    torch.export.save(ep, str(exported))
    out = tmp_path / "prepared.pt2"
    r = run([sys.executable, os.path.join(ROOT, "core", "prepare", "aotidbg_prepare.py"),
             str(exported), "-o", str(out), "--nan-asserts", "--check-inputs"])
    assert r.returncode == 0, r.stderr[-3000:]
    assert "input checks compiled in" in r.stdout
    assert "provenance" in r.stdout   # provenance tracking is on by default
    with zipfile.ZipFile(out) as z:
        (w,) = [n for n in z.namelist() if n.endswith(".wrapper.cpp")]
        src = z.read(w).decode()
        assert any(n.endswith("/kernel_information.json") for n in z.namelist())
    assert "aoti_torch_save_tensor_handle(" in src
    assert "aoti_torch_check_inf_and_nan(" in src
    assert "// [Provenance debug handles] " in src
    # a compiled package is not an exported program: a clear refusal, exit 2
    r = run([sys.executable, os.path.join(ROOT, "core", "prepare", "aotidbg_prepare.py"),
             package("shipped_p0"), "-o", str(tmp_path / "x.pt2")])
    assert r.returncode == 2
    assert "already a compiled AOTI package" in r.stderr


def test_through_the_runner_same_kernels_and_stats(built, shipped, runner, tmp_path):
    """The acceptance check of issue 10 through aotidbg-runner (h1): the
    re-instrumented shipped package and the printer-level-1 build, fed the same
    input bytes, report the same kernels in the same order with the same
    statistics (every "after" tensor, and "before" tensors once defined)."""
    import torch
    from test_runner_proto import DONE, KERNEL, TENSOR, control_msg, file_inputs, start
    assert built["r"].returncode == 0, built["r"].stderr
    so_re = built["r"].stdout.splitlines()[-1].split(" ", 1)[1]
    so_p1 = [os.path.join(shipped["dir1"], f) for f in os.listdir(shipped["dir1"])
             if f.endswith(".wrapper.so")][0]
    inputs = torch.load(shipped["inputs"])

    def one(so, cubin, d):
        os.makedirs(d, exist_ok=True)
        r, _ = start(runner, so, cubin, file_inputs(inputs, d), control_msg())
        msgs = r.until(DONE)
        code, err = r.finish()
        assert msgs[-1]["status"] == 0 and code == 0, err[-2000:]
        return msgs

    got = one(so_re, shipped["dir0"], str(tmp_path / "re"))
    want = one(so_p1, shipped["dir1"], str(tmp_path / "p1"))
    kg = [(m["index"], m["name"], m["phase"]) for m in got if m["type"] == KERNEL]
    kw = [(m["index"], m["name"], m["phase"]) for m in want if m["type"] == KERNEL]
    assert kg == kw and len(kg) >= 8
    tg = [m for m in got if m["type"] == TENSOR]
    tw = [m for m in want if m["type"] == TENSOR]
    assert [(t["kernel"], t["phase"], t["name"], t["shape"], t["dtype"]) for t in tg] == \
           [(t["kernel"], t["phase"], t["name"], t["shape"], t["dtype"]) for t in tw]
    written = set()
    compared = 0
    for a, b in zip(tg, tw):
        defined = a["phase"] == 1 or a["kernel"] == -1 or a["name"].startswith("arg") or a["name"] in written
        if a["phase"] == 1:
            written.add(a["name"])
        if not defined:
            continue   # an output buffer before its kernel: uninitialised memory in both builds
        assert same(a["stats"], b["stats"]), (a["kernel"], a["name"], a["phase"])
        assert a["values"] == b["values"], (a["kernel"], a["name"], a["phase"])
        compared += 1
    assert compared >= len(tg) // 2


def test_constants_blob_and_truncated_so(driver, shipped, tmp_path):
    """The weights come out of the shipped .so: the blob is exactly the bytes
    between the two symbols (as nm reports them), and a damaged .so is
    refused with a message, never a crash."""
    so = [os.path.join(shipped["dir0"], f) for f in os.listdir(shipped["dir0"])
          if f.endswith(".wrapper.so")][0]
    r = run([driver, "--consts", so])
    assert r.returncode == 0, r.stderr
    _, size, section, tail = r.stdout.split()
    syms = {}
    for line in run(["nm", "-D", so]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("_binary_constants_bin_"):
            syms[parts[2]] = int(parts[0], 16)
    assert int(size) == syms["_binary_constants_bin_end"] - syms["_binary_constants_bin_start"] > 0
    assert section == ".lrodata" and tail == "0"
    data = open(so, "rb").read()
    for cut in (0, 10, 64, 700, len(data) // 2, len(data) - 64):
        bad = tmp_path / f"cut{cut}.so"
        bad.write_bytes(data[:cut])
        r = run([driver, "--consts", str(bad)])
        assert r.returncode in (0, 1), (cut, r.returncode, r.stderr)
        if r.returncode == 1:
            assert str(bad) in r.stderr


def test_incomplete_package_is_named(driver, shipped, tmp_path):
    import shutil
    d = tmp_path / "nokernel"
    shutil.copytree(shipped["dir0"], d)
    for p in d.iterdir():
        if p.name.endswith(".kernel.cpp"):
            p.unlink()
    r, _ = build(driver, str(d), "cd" * 32, tmp_path / "c")
    assert r.returncode == 1
    assert "kernel.cpp" in r.stderr and "kernel.o" in r.stderr
