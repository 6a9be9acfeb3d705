"""Inputs specs end to end: every fill kind reaches the real model as the
spec says (checked on the input tensor the runner recorded at the model's
first kernel), tensor files (.npy, .safetensors) arrive bit for bit, and bad
specs or files stop `aotidbg run` with exit 2 and a message naming
file:line:col or the input index."""
import json
import os
import struct
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import (check_stats, events, load_session, run, torch_stats,  # noqa: E402
                             wrapper_input_names)

SHAPE = [2, 3, 8, 8]   # conv_block's one input
NUMEL = 2 * 3 * 8 * 8


def recorded_input(aotidbg, pkg, tmp_path, spec_text, extra=()):
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text)
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--values", str(NUMEL), "--record", out] + list(extra))
    assert r.returncode == 0, r.stderr
    name = wrapper_input_names(pkg)[0]
    for k in events(load_session(out), "kernel"):
        for t in k["tensors"]:
            if t["name"] == name and t["phase"] == "before":
                return t
    raise AssertionError(f"input {name} was never recorded")


def values(t):
    return torch.tensor([float(v) for v in t["values"]], dtype=torch.float64).reshape(t["shape"])


def test_fill_zeros_ones_full(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    t = recorded_input(aotidbg, pkg, tmp_path, f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: zeros}}\n")
    assert t["stats"]["zeros"] == NUMEL and t["stats"]["max"] == 0
    t = recorded_input(aotidbg, pkg, tmp_path, f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: ones}}\n")
    assert t["stats"]["min"] == 1 and t["stats"]["max"] == 1 and t["stats"]["zeros"] == 0
    t = recorded_input(aotidbg, pkg, tmp_path,
                       f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: full, value: -2.5}}\n")
    assert torch.equal(values(t), torch.full(SHAPE, -2.5, dtype=torch.float64))


def test_fill_arange(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    t = recorded_input(aotidbg, pkg, tmp_path, f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: arange}}\n")
    want = torch.arange(NUMEL, dtype=torch.float64).reshape(SHAPE)
    assert torch.equal(values(t), want)
    assert not check_stats(t["stats"], torch_stats(want), "arange")


def test_fill_randn_is_seeded(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    spec = f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: randn, seed: 5}}\n"
    a = values(recorded_input(aotidbg, pkg, tmp_path, spec))
    b = values(recorded_input(aotidbg, pkg, tmp_path, spec))
    c = values(recorded_input(aotidbg, pkg, tmp_path, spec.replace("seed: 5", "seed: 6")))
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    # looks like a standard normal sample
    assert abs(float(a.mean())) < 0.25 and 0.75 < float(a.std()) < 1.25


def test_fill_file_npy_exact(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    x.flat[7] = 0.0
    os.makedirs(tmp_path / "data")
    np.save(tmp_path / "data" / "x.npy", x)
    t = recorded_input(aotidbg, pkg, tmp_path,
                       f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: file, file: data/x.npy}}\n")
    assert torch.equal(values(t), torch.from_numpy(x).double())
    assert t["stats"]["zeros"] == 1


def write_safetensors(path, tensors):
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, arr in tensors.items():
        b = arr.tobytes()
        header[name] = {"dtype": {"float32": "F32", "int64": "I64"}[str(arr.dtype)], "shape": list(arr.shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def test_fill_file_safetensors_key(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    other = np.arange(5, dtype=np.int64)
    write_safetensors(tmp_path / "w.safetensors", {"other": other, "x": x})
    t = recorded_input(aotidbg, pkg, tmp_path, f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: file, "
                                               f"file: w.safetensors, key: x}}\n")
    assert torch.equal(values(t), torch.from_numpy(x).double())


@pytest.mark.parametrize("spec,msg", [
    ("inputs:\n  - {shape: [2, 3, 8, 8], dtype: float33}\n", "spec.yaml:2:34: input 0: dtype: found 'float33'"),
    ("inputs:\n  - {shape: [2, 3, 8], dtype: float32, fill: full}\n", "spec.yaml:2:46: input 0: fill: full needs"),
    ("inputs:\n  - shape: [2, 3, 8, 8]\n    dtype: float32\n    dtype: int8\n", "spec.yaml:4:5: duplicate key 'dtype'"),
    ("inputs:\n  - {shape: [2, 3, 8, 8], dtype: float32, fill: file, file: missing.npy}\n",
     "input 0: cannot open"),
])
def test_bad_spec_is_exit_2(aotidbg, package, tmp_path, spec, msg):
    pkg = package("conv_block")
    (tmp_path / "spec.yaml").write_text(spec)
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "spec.yaml"), "--record", str(tmp_path / "s.yaml")])
    assert r.returncode == 2, r.stderr
    assert msg in r.stderr


def test_file_shape_mismatch_names_input(aotidbg, package, tmp_path):
    pkg = package("conv_block")
    np.save(tmp_path / "x.npy", np.zeros([2, 3, 8, 9], dtype=np.float32))
    (tmp_path / "spec.yaml").write_text(f"inputs:\n  - {{shape: {SHAPE}, dtype: float32, fill: file, file: x.npy}}\n")
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "spec.yaml"), "--record", str(tmp_path / "s.yaml")])
    assert r.returncode == 2, r.stderr
    assert "input 0:" in r.stderr and "has shape [2, 3, 8, 9], the spec says [2, 3, 8, 8]" in r.stderr


# ---- issue 19: `check` sees what `run` sees in a spec, with the spec's file:line -----------

@pytest.mark.parametrize("cmd", ["check", "run", "live"])
def test_spec_file_checked_by_every_command(aotidbg, package, tmp_path, cmd):
    """A `fill: file` whose file is missing or of the wrong shape stops check, run and
    the live UI alike (exit 2), naming the spec's file:line:col of the `file:`."""
    pkg = package("conv_block")
    np.save(tmp_path / "x.npy", np.zeros([2, 3, 8, 9], dtype=np.float32))
    spec = tmp_path / "spec.yaml"
    argv = {"check": [aotidbg, "check", pkg, "--inputs", str(spec)],
            "run": [aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(tmp_path / "s.yaml")],
            "live": [aotidbg, pkg, "--inputs", str(spec), "--record", str(tmp_path / "s.yaml"),
                     "--headless", "80x24"]}[cmd]
    spec.write_text(f"inputs:\n  - {{shape: {SHAPE}, dtype: float32,\n     fill: file, file: x.npy}}\n")
    r = run(argv)
    assert r.returncode == 2, r.stderr
    assert f"{spec}:3:24: input 0: " in r.stderr and "has shape [2, 3, 8, 9], the spec says [2, 3, 8, 8]" \
        in r.stderr, r.stderr
    line = f"  - {{shape: {SHAPE}, dtype: float32, fill: file, file: gone.npy}}"
    spec.write_text(f"inputs:\n{line}\n")
    r = run(argv)
    col = line.index("gone.npy") + 1
    assert r.returncode == 2 and f"{spec}:2:{col}: input 0: cannot open" in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "s.yaml")


@pytest.mark.parametrize("cmd", ["check", "run", "live"])
def test_folder_as_spec_says_so(aotidbg, package, tmp_path, cmd):
    pkg = package("conv_block")
    argv = {"check": [aotidbg, "check", pkg], "run": [aotidbg, "run", pkg, "--record", str(tmp_path / "s.yaml")],
            "live": [aotidbg, pkg, "--headless", "80x24"]}[cmd]
    r = run(argv + ["--inputs", str(tmp_path)])
    assert r.returncode == 2, r.stderr
    assert f"{tmp_path} is a folder; --inputs takes an inputs spec file" in r.stderr, r.stderr
    assert "read error" not in r.stderr


def test_torch_dtype_names_are_read_as_ours(aotidbg, package, tmp_path):
    """`dtype: torch.float32` (torch's spelling) is read as float32, as the manual says,
    and the session and the checklist show the name it was read as."""
    pkg = package("conv_block")
    t = recorded_input(aotidbg, pkg, tmp_path, f"inputs:\n  - {{shape: {SHAPE}, dtype: torch.float32, fill: ones}}\n")
    assert t["dtype"] == "float32"
    sess = load_session(str(tmp_path / "s.yaml"))
    assert sess["inputs"][0]["dtype"] == "float32"
    r = run([aotidbg, "check", pkg, "--inputs", str(tmp_path / "spec.yaml"), "--format", "yaml"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "got: float32" in r.stdout or 'got: "float32"' in r.stdout, r.stdout
    man = open(os.path.join(os.path.dirname(__file__), "..", "..", "man", "aotidbg.1")).read()
    assert "torch.float32" in man
