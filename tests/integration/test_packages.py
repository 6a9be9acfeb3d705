"""Every package torch builds and runs, aotidbg runs (issue 15): weights in each on-disk
form, outputs that alias, ops through the proxy executor. Real CPU packages
(tests/models/model_packages.py) run with `aotidbg run`; every output is compared
with eager torch's, and the kernels with the printer calls in the package."""
import os

import numpy as np
import pytest

from aotidbg_testlib import events, load_session, run, wrapper_launches, write_spec

torch = pytest.importorskip("torch")


def example(pkg):
    base = pkg[: -len(".pt2")]
    inputs = torch.load(base + ".inputs.pt")
    expected = torch.load(base + ".expected.pt")
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    return tuple(inputs), tuple(expected)


def run_pkg(aotidbg, pkg, tmp_path, *extra, inputs=None):
    """`aotidbg run` with the package's example inputs (exact values, .npy files)."""
    ins = inputs if inputs is not None else example(pkg)[0]
    spec = write_spec(tmp_path, ins)
    out = os.path.join(tmp_path, "s.yaml")
    p = run([aotidbg, "run", pkg, "--inputs", spec, "--values", "100000", "--record", out, *extra])
    sess = load_session(out) if os.path.exists(out) else None
    return p, sess


def outputs(sess):
    (ev,) = events(sess, "output")
    return ev["tensors"]


def assert_outputs_match(sess, expected):
    outs = outputs(sess)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        assert o["shape"] == list(e.shape), o["name"]
        assert o["values_complete"], o["name"]
        got = np.array(o["values"], dtype=np.float64).reshape(tuple(e.shape))
        np.testing.assert_allclose(got, e.detach().double().numpy(), rtol=1e-5, atol=1e-6, err_msg=o["name"])


def kernel_names(sess):
    return [e["name"] for e in events(sess, "kernel")]


def test_binary_blob_weights_load_like_torch(aotidbg, package, tmp_path):
    """The runner died with SIGSEGV at the first kernel: the blob was never loaded."""
    pkg = package("pkg_blob")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
    assert kernel_names(sess) == wrapper_launches(pkg)
    logs = " ".join(e["text"] for e in events(sess, "log"))
    assert "weights: 128 bytes from" in logs and ".blob" in logs   # 8x4 + 4 + 4 floats, 64-aligned


def test_binary_blob_truncated_is_an_error_not_a_crash(aotidbg, package, tmp_path):
    """A blob shorter than the model's weights: a clear error naming the file and sizes."""
    import zipfile
    src = package("pkg_blob")
    pkg = os.path.join(tmp_path, "pkg_blob.pt2")
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(pkg, "w") as zo:
        for info in zi.infolist():
            data = zi.read(info)
            zo.writestr(info, data[:40] if info.filename.endswith(".blob") else data)
    p, sess = run_pkg(aotidbg, pkg, tmp_path, "--force", inputs=example(src)[0])
    assert p.returncode == 1, p.stderr
    err = " ".join(e["text"] for e in events(sess, "error"))
    assert "holds 40 bytes, but the model needs 128" in err, err
    assert "signal" not in p.stderr


def test_outputs_alias_each_other_and_an_input(aotidbg, package, tmp_path):
    """output1 is output0's handle and output2 the input's: each is read, each freed once."""
    pkg = package("pkg_alias")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    inputs, expected = example(pkg)
    assert_outputs_match(sess, expected)
    got = [np.array(o["values"]) for o in outputs(sess)]
    assert (got[0] == got[1]).all() and np.allclose(got[2], inputs[0].flatten().numpy())


def test_fallback_op_runs_through_the_proxy_executor(aotidbg, package, tmp_path):
    """aten::_unique2 has no C shim: AOTI calls it through the proxy executor,
    which the runner now builds from <key>.wrapper.json as torch's runner does."""
    pkg = package("pkg_unique")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert not events(sess, "error")
    assert_outputs_match(sess, example(pkg)[1])


def test_no_kernel_is_not_called_built_without_the_printer(aotidbg, package, tmp_path):
    """A printer package with no kernel at all: the runner states what happened and does
    not claim the printer is missing."""
    pkg = package("pkg_nokernel")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
    assert not events(sess, "kernel")
    text = " ".join(e["text"] for e in events(sess, "log") if "aotidbg-runner" in e["text"])
    assert "built without" not in text and "no printer hook fired in this run" in text
