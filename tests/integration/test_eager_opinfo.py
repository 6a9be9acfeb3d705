"""--eager over OpInfo ops (issue 24: a peer's test suite as tests).

The sweep over PyTorch's OpInfo database (tests/models/sweep_eager_opinfo.py; its table is
tests/data/sweep_eager_opinfo.tsv) for the ops it found failing and a few representative
passing ones (tests/models/model_eager_opinfo.py says which and why), one package per dtype
(float32, bfloat16) through the real runner:
- against its own program: no op departs, every op's every kernel is compared (a node close
  or differing there), but for cholesky's proxy-executor call, which the run names as not
  compared and why (exit 3);
- against the perturbed program (each op's buffer scaled by 1.5 and shifted by 0.5): every op
  departs, first at the first kernel that reads its buffer (the call table's weights; a 0-d
  buffer Inductor inlines into the code: the op's first kernel).
The per-op judgement is the sweep's own (analyse, first_readers): the table and this test
apply one rule.
"""
import os

import numpy as np
import pytest

from aotidbg_testlib import events, load_session
from conftest import MODELS_DIR, run

import model_eager_opinfo
import sweep_eager_opinfo as sweep

pytestmark = pytest.mark.usefixtures("eager_map_names")

DTYPES = ["float32", "bfloat16"]


@pytest.fixture(scope="module", params=DTYPES)
def runs(request, package, aotidbg, tmp_path_factory):
    import torch
    name = f"eager_opinfo_{request.param}"
    pkg = package(name)
    d = tmp_path_factory.mktemp(name)
    xs = torch.load(os.path.join(MODELS_DIR, name + ".inputs.pt"))
    lines = ["inputs:"]
    for i, x in enumerate(xs):   # bfloat16 values as float32 files (exact), read back as bfloat16
        np.save(d / f"in{i}.npy", (x.float() if x.dtype == torch.bfloat16 else x).numpy())
        lines.append(f"  - {{shape: {list(x.shape)}, dtype: {str(x.dtype).split('.')[-1]}, device: cpu, "
                     f"fill: file, file: in{i}.npy}}")
    (d / "in.yaml").write_text("\n".join(lines) + "\n")
    out = {}
    for which in ("same", "perturbed"):
        prog = os.path.join(MODELS_DIR, f"{name}.{which}.ep.pt2")
        r = run([aotidbg, "run", pkg, "--inputs", str(d / "in.yaml"), "--eager", prog, "--record",
                 str(d / f"{which}.yaml")])
        # 3: part compared (the proxy-executor call, LIMITS); the perturbed run departs and exits 0
        limited = which == "same" and any(n in LIMITS for n in model_eager_opinfo.ops_for(request.param))
        assert r.returncode == (3 if limited else 0), r.stderr
        assert "computed by the runner with libtorch" in r.stderr, r.stderr
        out[which] = (r.stderr, load_session(d / f"{which}.yaml"))
    owner, _ = sweep.node_owner(os.path.join(MODELS_DIR, f"{name}.same.ep.pt2"), torch)
    same = torch.export.load(os.path.join(MODELS_DIR, f"{name}.same.ep.pt2")).state_dict
    pert = torch.export.load(os.path.join(MODELS_DIR, f"{name}.perturbed.ep.pt2")).state_dict
    changed = {int(k.split(".")[1]): k.split(".")[2] for k in same if not torch.equal(same[k], pert[k])}
    return request.param, out, owner, changed


# ops whose own kernel is not compared, and what the run says instead
LIMITS = {"cholesky": "not compared: proxy-executor call"}


def test_own_program_no_op_departs_and_every_kernel_is_compared(runs):
    dtype, out, owner, _ = runs
    OPS = model_eager_opinfo.ops_for(dtype)
    err, sess = out["same"]
    assert not events(sess, "divergence"), events(sess, "divergence")
    assert "no departure from" in err and "compared" in err, err
    per, stray = sweep.analyse(sess, owner, len(OPS))
    # the proxy-executor launch names no node: it is no op's, and the run says why
    limited = [n for n in LIMITS if n in OPS]
    assert len(stray) == len(limited) and all(any("aten::" + n in x for x in stray) for n in limited), stray
    for name in limited:
        assert LIMITS[name] in err and "aten::" + name in err, err
    for i, name in enumerate(OPS):
        p = per[i]
        if name in LIMITS:
            continue
        assert p["kernels"], f"{name} {dtype}: no kernel of its own"
        assert not p["departs"], f"{name} {dtype}: departs at {p['departs']}"
        assert p["compared"] == p["kernels"], f"{name} {dtype}: not compared: {p['why']}"


def test_perturbed_program_every_op_departs_at_its_first_reader(runs):
    dtype, out, owner, changed = runs
    OPS = model_eager_opinfo.ops_for(dtype)
    err, sess = out["perturbed"]
    assert "departs from eager at kernel" in err, err
    assert sorted(changed) == list(range(len(OPS))), changed   # every op's buffer was perturbed
    per, _ = sweep.analyse(sess, owner, len(OPS))
    first = sweep.first_readers(sess, len(OPS), [changed[i] for i in range(len(OPS))])
    kernels = events(sess, "kernel")
    for i, name in enumerate(OPS):
        want = first[i] if first[i] is not None else per[i]["kernels"][0]   # an inlined 0-d buffer
        assert per[i]["departs"], f"{name} {dtype}: no departure (checks: " + str(
            [c for k in per[i]["kernels"] for c in kernels[k].get("eager") or [] if owner.get(c["node"]) == i]) + ")"
        assert per[i]["departs"][0] == want, (name, dtype, per[i]["departs"], want)
        if name == "add":
            assert first[i] is None, "add's 0-d buffer is a weight now: pick another inlined-buffer op"
