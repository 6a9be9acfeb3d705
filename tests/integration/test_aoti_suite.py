"""PyTorch's own AOTInductor test models (tests/models/model_aoti_suite.py), each built
as a package with the printer and run with `aotidbg run` on every input set the upstream
test uses; every output is compared with eager torch, and the kernels with what the
package launches. The models compile once into the shared models cache; the runs are
one `aotidbg run` (two processes) per input set.

Kernel count: for a package without control flow every printer launch of wrapper.cpp
runs once, in order, so the session's kernels are exactly wrapper_launches(); with
torch.cond / while_loop, the main graph's launches all appear (branch "") in order and
the rest are launches inside subgraphs, each naming its branch when re-instrumented.
"""
import json
import os
import struct

import numpy as np
import pytest

from aotidbg_testlib import events, load_session, run, wrapper_cpp, wrapper_launches

torch = pytest.importorskip("torch")

import model_aoti_suite  # noqa: E402  (conftest puts tests/models on the path)

SUITE = sorted(model_aoti_suite.MODELS)
ST_DTYPE = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
            torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
            torch.bool: "BOOL"}
NAME = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
        torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
        torch.bool: "bool"}


def leaves(x):
    return [t for t in torch.utils._pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def write_inputs(tmp, tensors):
    """One .safetensors file (any dtype, bfloat16 too) and a spec naming each input by key."""
    header, blobs, off = {}, [], 0
    for i, t in enumerate(tensors):
        b = t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[str(i)] = {"dtype": ST_DTYPE[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    path = os.path.join(tmp, "inputs.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    lines = ["inputs:"] + [f"  - {{shape: {list(t.shape)}, dtype: {NAME[t.dtype]}, device: cpu, fill: file, "
                           f"file: {path}, key: '{i}'}}" for i, t in enumerate(tensors)]
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write("\n".join(lines) + "\n")
    return spec


def has_subgraphs(pkg):
    return "// subgraph: " in wrapper_cpp(pkg)


@pytest.mark.parametrize("name", SUITE)
def test_aoti_model(name, aotidbg, package, tmp_path):
    pkg = package(name)
    runs = torch.load(pkg[: -len(".pt2")] + ".runs.pt", weights_only=False)
    launches = wrapper_launches(pkg)
    control = has_subgraphs(pkg)
    for n, (args, expected) in enumerate(runs):
        d = tmp_path / f"run{n}"
        d.mkdir()
        ins, want = leaves(args), leaves(expected)
        out = str(d / "s.yaml")
        cmd = [aotidbg, "run", pkg, "--values", "100000", "--record", out]
        if ins:
            cmd += ["--inputs", write_inputs(str(d), ins)]
        p = run(cmd)
        assert p.returncode == 0, f"{name} run {n}: {p.stderr[-3000:]}"
        sess = load_session(out)
        (ev,) = events(sess, "output")
        got = ev["tensors"]
        assert len(got) == len(want), f"{name} run {n}: {len(got)} outputs, eager has {len(want)}"
        for i, (o, e) in enumerate(zip(got, want)):
            assert o["shape"] == list(e.shape) and o["dtype"] == NAME[e.dtype], f"{name} run {n} output {i}: {o}"
            if not e.numel():
                continue   # an empty tensor has no values to keep
            assert o["values_complete"], f"{name} run {n} output {i}"
            g = np.array(o["values"], dtype=np.float64).reshape(tuple(e.shape))
            tol = 2e-2 if e.dtype in (torch.bfloat16, torch.float16) else 1e-4
            np.testing.assert_allclose(g, e.detach().double().numpy(), rtol=tol, atol=tol,
                                       err_msg=f"{name} run {n} output {i}")
        kernels = events(sess, "kernel")
        main = [k["name"] for k in kernels if not k.get("branch")]
        if not control:
            assert main == launches, f"{name} run {n}: kernels {main}, package launches {launches}"
        else:   # the printer's launches are the main graph's; the branches add theirs
            assert [k for k in main if k in launches] == launches, f"{name} run {n}: {main} vs {launches}"
