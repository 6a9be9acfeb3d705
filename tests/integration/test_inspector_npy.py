"""The inspector's .npy reference (issue 7 item 1): `ref-npy PATH` and
`--ref-npy KERNEL:TENSOR=PATH` on a real AOTI CPU run.

runner_nan is Linear(8, 8) -> log -> Linear(8, 4). Its first addmm kernel
writes l1(x); the test recomputes l1(x) with torch from the module and the
input the runner fed (the recorded before-tensor), saves it as .npy (as
float64, so a +0.5 perturbation is exact), and checks the inspector's line:
identical for the true values, the perturbed index and error otherwise."""
import os

import numpy as np
import pytest
import torch
import yaml

from conftest import run

SPEC = "inputs:\n  - {shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 3}\n"
PERTURB = (2, 5)


def _fmt(v):
    return "%.4g" % v     # the inspector's fmt_double for finite values


@pytest.fixture(scope="module")
def rec(aotidbg, package, tmp_path_factory):
    """One recorded run and what the test knows about it from torch."""
    import model_runner
    d = tmp_path_factory.mktemp("npy")
    pkg = package("runner_nan")
    (d / "spec.yaml").write_text(SPEC)
    s = d / "s.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(d / "spec.yaml"), "--record", str(s), "--values", "4096"])
    assert r.returncode == 0, r.stderr
    ks = [e for e in yaml.safe_load(s.read_text())["events"] if e.get("kind") == "kernel"]
    k = next(i for i, e in enumerate(ks) if "addmm" in e["name"])
    after = [t for t in ks[k]["tensors"] if t["phase"] == "after"]
    before = {t["name"]: t for t in ks[k]["tensors"] if t["phase"] == "before"}
    x = next(t for t in before.values() if t["name"].startswith("arg") and t["shape"] == [4, 8])
    # the kernel's output: the after-tensor of shape [4, 8] it wrote (not the input it read)
    out_row, out = next((i, t) for i, t in enumerate(after) if t["shape"] == [4, 8] and t["name"] != x["name"])
    assert out["values_complete"] and len(out["values"]) == 32
    module = model_runner.runner_nan()["module"]
    with torch.no_grad():
        y = module.l1(torch.tensor(x["values"], dtype=torch.float32).reshape(4, 8)).double().numpy()
    np.save(d / "true.npy", y)
    bad = y.copy()
    bad[PERTURB] += 0.5
    np.save(d / "ref.npy", bad)
    return {"dir": d, "session": s, "pkg": pkg, "kernel": k, "name": out["name"], "row": out_row, "y": y,
            "bad": bad, "nkernels": len(ks)}


def _select(rec):
    """Script lines selecting the kernel's output in the inspector's after view."""
    lines = [f"goto {rec['kernel']}", "pane-inspector", "view after"]
    if rec["row"]:
        lines.append(f"down {rec['row']}")
    return lines


def _replay(aotidbg, rec, lines, *extra):
    script = rec["dir"] / "script.txt"
    script.write_text("\n".join(lines) + "\n")
    return run([aotidbg, "replay", str(rec["session"]), "--headless", "160x40", "--script", str(script),
                "--dump-screen", *extra], cwd=str(rec["dir"]))


def _want_diff(rec, name="ref.npy"):
    i, j = PERTURB
    rel = 0.5 / abs(rec["bad"][i, j])
    return f"vs {name}: first diff at [{i}, {j}] (1/32 differ), max abs err 0.5, max rel err {_fmt(rel)}"


def test_ref_npy_first_diff_and_identical(aotidbg, rec):
    # torch's own l1(x): the same values the kernel wrote
    r = _replay(aotidbg, rec, _select(rec) + [f"ref-npy {rec['dir'] / 'true.npy'}", "zoom"])
    assert r.returncode == 0, r.stderr
    assert "vs true.npy: identical (32 values)" in r.stdout, r.stdout
    # one element off by 0.5: its index and the error
    r = _replay(aotidbg, rec, _select(rec) + [f"ref-npy {rec['dir'] / 'ref.npy'}", "zoom"])
    assert r.returncode == 0, r.stderr
    assert _want_diff(rec) in r.stdout, r.stdout
    # attaching another file to the same tensor replaces it; no PATH detaches it
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy ref.npy", "ref-npy true.npy", "zoom"])
    assert "vs true.npy: identical" in r.stdout and "vs ref.npy" not in r.stdout, r.stdout
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy ref.npy", "ref-npy"])
    assert r.returncode == 0, r.stderr
    assert "vs ref.npy" not in r.stdout, r.stdout
    assert f"after {rec['name']} at kernel #{rec['kernel']} has no .npy reference now" in r.stdout, r.stdout
    # the attachment belongs to that tensor: another kernel shows no line
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy ref.npy", f"goto {rec['kernel'] + 1}", "pane-inspector",
                                              "zoom"])
    assert "vs ref.npy" not in r.stdout, r.stdout


def test_ref_npy_shape_mismatch(aotidbg, rec):
    np.save(rec["dir"] / "t84.npy", rec["y"].reshape(8, 4).astype(np.float32))
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy t84.npy", "zoom"])
    assert r.returncode == 0, r.stderr
    assert "vs t84.npy: identical (32 values); shapes differ (tensor [4, 8], file [8, 4])" in r.stdout, r.stdout
    np.save(rec["dir"] / "half.npy", rec["bad"][:2])
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy half.npy", "zoom"])
    assert "vs half.npy: identical (16 values, sampled); shapes differ (tensor [4, 8], file [2, 8])" in r.stdout, \
        r.stdout


@pytest.mark.parametrize("name,make,want", [
    ("uint32.npy", lambda p: np.save(p, np.zeros((4, 8), np.uint32)), ".npy dtype '<u4' is not supported"),
    ("strings.npy", lambda p: np.save(p, np.array(["a", "b"])), "is not supported"),
    ("cut.npy", lambda p: open(p, "wb").write(_npy_bytes()[:-7]), ".npy data is cut off"),
    ("text.npy", lambda p: open(p, "w").write("1 2 3\n"), "not a .npy file"),
    ("missing.npy", lambda p: None, "missing.npy: cannot open it"),
])
def test_ref_npy_bad_file(aotidbg, rec, name, make, want):
    p = rec["dir"] / name
    make(p)
    r = _replay(aotidbg, rec, _select(rec) + [f"ref-npy {name}"])
    # a failing action: a message on the message line and on stderr, exit 1 as for any failed action
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert f"ref-npy: {name}: " in r.stdout and want in r.stdout, r.stdout
    assert f"aotidbg: action 'ref-npy {name}': ref-npy: {name}: " in r.stderr, r.stderr
    # later actions still run, and no line was attached
    r = _replay(aotidbg, rec, _select(rec) + [f"ref-npy {name}", "zoom"])
    assert f"vs {name}" not in r.stdout and f"inspector: #{rec['kernel']}" in r.stdout, r.stdout


def _npy_bytes():
    import io
    b = io.BytesIO()
    np.save(b, np.arange(32, dtype=np.float32).reshape(4, 8))
    return b.getvalue()


def test_ref_npy_needs_a_selected_tensor(aotidbg, rec):
    r = _replay(aotidbg, rec, ["ref-npy ref.npy"])     # kernel 0 selected, inspector row 0: fine
    assert r.returncode == 0, r.stderr
    empty = rec["dir"] / "empty.yaml"
    empty.write_text("format_version: \"1.0\"\nevents: []\n")
    r = run([aotidbg, "replay", str(empty), "--headless", "100x30", "--keys", "ref-npy:ref.npy", "--dump-screen"],
            cwd=str(rec["dir"]))
    assert r.returncode == 1 and "select a tensor in the inspector" in r.stderr, (r.stdout, r.stderr)


def test_ref_npy_option(aotidbg, rec):
    k, name = rec["kernel"], rec["name"]
    keys = f"goto:{k} pane-inspector view:after" + (f" down:{rec['row']}" if rec["row"] else "") + " zoom"
    base = [aotidbg, "replay", str(rec["session"]), "--headless", "160x40", "--keys", keys, "--dump-screen"]
    r = run(base + ["--ref-npy", f"{k}:{name}=ref.npy"], cwd=str(rec["dir"]))
    assert r.returncode == 0, r.stderr
    assert _want_diff(rec) in r.stdout, r.stdout
    r = run(base + [f"--ref-npy={k}:after:{name}=true.npy", "--ref-npy", f"{k}:before:{name}=ref.npy"],
            cwd=str(rec["dir"]))
    assert r.returncode == 0, r.stderr
    assert "vs true.npy: identical (32 values)" in r.stdout, r.stdout
    # the next kernel reads the same buffer before it runs (the log's input): before:NAME
    nxt = yaml.safe_load(rec["session"].read_text())["events"]
    nk = [e for e in nxt if e.get("kind") == "kernel"][k + 1]
    bnames = [t["name"] for t in nk["tensors"] if t["phase"] == "before"]
    same = next(i for i, t in enumerate(t for t in nk["tensors"] if t["phase"] == "before")
                if t["values"] == [float(v) for v in rec["y"].astype(np.float32).ravel()])
    keys2 = f"goto:{k + 1} pane-inspector view:before" + (f" down:{same}" if same else "") + " zoom"
    r = run([aotidbg, "replay", str(rec["session"]), "--headless", "160x40", "--keys", keys2, "--dump-screen",
             "--ref-npy", f"{k + 1}:before:{bnames[same]}=ref.npy"], cwd=str(rec["dir"]))
    assert r.returncode == 0, r.stderr
    assert _want_diff(rec) in r.stdout, r.stdout


@pytest.mark.parametrize("spec,want", [
    ("1buf1=ref.npy", "no ':' after the kernel index"),
    ("x:buf1=ref.npy", "KERNEL must be a kernel index (0, 1, ...)"),
    ("1:buf1", "no '=PATH'"),
    ("1:=ref.npy", "the tensor name is empty"),
    ("1:buf1=", "the PATH after '=' is empty"),
])
def test_ref_npy_option_usage_errors(aotidbg, rec, spec, want):
    r = run([aotidbg, "replay", str(rec["session"]), "--headless", "80x24", "--ref-npy", spec])
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert f"aotidbg replay: --ref-npy '{spec}': {want}; expected KERNEL:TENSOR=PATH" in r.stderr, r.stderr
    assert r.stdout == ""


def test_ref_npy_option_bad_inputs(aotidbg, rec):
    k, name = rec["kernel"], rec["name"]
    r = run([aotidbg, "replay", str(rec["session"]), "--headless", "80x24", "--ref-npy", f"{k}:nosuch=ref.npy"],
            cwd=str(rec["dir"]))
    assert r.returncode == 2 and f"the session has no after tensor nosuch at kernel #{k}" in r.stderr, r.stderr
    r = run([aotidbg, "replay", str(rec["session"]), "--headless", "80x24", "--ref-npy",
             f"{rec['nkernels']}:{name}=ref.npy"], cwd=str(rec["dir"]))
    assert r.returncode == 2 and f"({rec['nkernels']} kernels)" in r.stderr, r.stderr
    np.save(rec["dir"] / "c.npy", np.zeros(3, np.dtype(">f4")))
    r = run([aotidbg, "replay", str(rec["session"]), "--headless", "80x24", "--ref-npy", f"{k}:{name}=c.npy"],
            cwd=str(rec["dir"]))
    assert r.returncode == 2 and "aotidbg: --ref-npy: c.npy: .npy dtype '>f4' is not supported" in r.stderr, \
        r.stderr
    # a complex file against a real tensor: loaded, and the line says nothing lines up
    np.save(rec["dir"] / "z.npy", np.zeros((4, 8), np.complex64))
    r = _replay(aotidbg, rec, _select(rec) + ["ref-npy z.npy", "zoom"])
    assert r.returncode == 0 and "vs z.npy: nothing to compare (one is complex, the other is not)" in r.stdout, \
        r.stdout


def test_ref_npy_live(aotidbg, rec):
    """Live: the file is attached before the kernel exists; after the run the line is there."""
    k, name = rec["kernel"], rec["name"]
    # c stops at the log's NaN, c again runs to the end; then select kernel k by moving the list's cursor
    # (goto in live mode runs to a kernel)
    keys = ("c c pane-kernels top" + (f" down:{k}" if k else "") + " pane-inspector view:after" +
            (f" down:{rec['row']}" if rec["row"] else "") + " zoom")
    r = run([aotidbg, rec["pkg"], "--inputs", str(rec["dir"] / "spec.yaml"), "--record",
             str(rec["dir"] / "live.yaml"), "--ref-npy", f"{k}:{name}=ref.npy", "--headless", "160x40", "--keys",
             keys, "--dump-screen"], cwd=str(rec["dir"]))
    assert r.returncode == 0, r.stderr
    assert _want_diff(rec) in r.stdout, r.stdout
    assert os.path.exists(rec["dir"] / "live.yaml")


def test_ref_eager_judges_by_the_checks_tolerance(aotidbg, package, tmp_path):
    """ref-eager attaches the eager node's .npy: the line under "after vs eager N: departs at
    [i, j] (n/m)" counts with the same tolerance, so it names the same element and count
    (an exact diff of every rounding said "first diff at [0, 0]" with most values differing)."""
    import re
    from conftest import MODELS_DIR
    pkg = package("eager_blocks")
    prog = os.path.join(MODELS_DIR, "eager_blocks.ln1.ep.pt2")   # blocks.1.ln.weight changed
    (tmp_path / "in.yaml").write_text("inputs:\n  - {shape: [4, 16], dtype: float32, device: cpu, fill: randn, seed: 3}\n")
    out = tmp_path / "ln1.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", prog, "--break-on", "diverge",
             "--values", "4096", "--record", str(out)], cwd=str(tmp_path))
    assert r.returncode == 1, r.stderr   # it departs: the break the options asked for
    r = run([aotidbg, "replay", str(out), "--headless", "220x44", "--keys", "hunt-diverge q ref-eager", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    check = re.search(r"after vs eager (\w+): departs at (\[[\d, ]+\]) \((\d+/\d+)\)", r.stdout)
    line = re.search(r"vs (\w+)\.npy \(eager's tolerance: atol \S+, rtol \S+\): departs at (\[[\d, ]+\]) \((\d+/\d+)\)",
                     r.stdout)
    assert check and line, r.stdout
    # the file is the node's (nodes/NODE.npy) or, under the compiler's record, its buffer's (record/BUF.npy)
    assert line.group(1) == check.group(1) or re.fullmatch(r"buf\d+", line.group(1)), (check.groups(), line.groups())
    assert check.groups()[1:] == line.groups()[1:], (check.groups(), line.groups())
