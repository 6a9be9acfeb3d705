"""The quick ways to give inputs, end to end on real packages: `--inputs random` (the spec made from the
package, written beside the session, repeatable), float32 .npy files for bfloat16 / float16 inputs
(rounded, with a warning that counts the changed values), torch.save files read by the runner, and
Fortran-order .npy files. Outputs are checked with `run --expect` against eager torch."""
import os
import sys

import numpy as np
import pytest
import torch
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import eager_outputs, events, load_session, run, wrapper_input_names  # noqa: E402


def outputs(path):
    return [t for e in events(load_session(path), "output") for t in e["tensors"]]


def test_random_inputs_run_a_dynamic_package_and_repeat(aotidbg, package, tmp_path):
    pkg = package("check2")   # x [b, 8] with b dynamic in 2..32, and w [8, 6]
    out = str(tmp_path / "r.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", "random", "--seed", "7", "--record", out, "--values", "64"])
    assert r.returncode == 0, r.stderr
    spec = out + ".inputs.yaml"
    assert f"written to {spec}" in r.stderr, r.stderr
    assert "float32 [2, 8] randn" in r.stderr and "float32 [8, 6] randn" in r.stderr, r.stderr
    assert "= 2 (compiled for 2 to 32): dim 0 of input 0" in r.stderr, r.stderr
    made = yaml.safe_load(open(spec))["inputs"]
    assert [i["shape"] for i in made] == [[2, 8], [8, 6]] and [i["seed"] for i in made] == [7, 8]
    assert any(n.startswith("--inputs random --seed 7") for n in load_session(out)["notes"])
    # the written spec runs the same inputs again; another seed gives other values
    again = str(tmp_path / "again.yaml")
    assert run([aotidbg, "run", pkg, "--inputs", spec, "--record", again, "--values", "64"]).returncode == 0
    assert outputs(again)[0]["values"] == outputs(out)[0]["values"]
    other = str(tmp_path / "other.yaml")
    assert run([aotidbg, "run", pkg, "--inputs", "random", "--record", other, "--values", "64"]).returncode == 0
    assert outputs(other)[0]["values"] != outputs(out)[0]["values"]
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--seed", "1", "--record", str(tmp_path / "x.yaml")])
    assert r.returncode == 2 and "--seed goes with --inputs random" in r.stderr


def test_random_integer_inputs_stay_inside_the_index_check(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")   # input 1 indexes a 6-row tensor: the kernel checks 0 <= tmp < 6
    out = str(tmp_path / "r.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", "random", "--seed", "3", "--record", out, "--values", "16"])
    assert r.returncode == 0, r.stderr
    assert "int64 [3] randint [0, 6): the index check 0 <= tmp" in r.stderr, r.stderr
    name = wrapper_input_names(pkg)[1]
    seen = [t for k in events(load_session(out), "kernel") for t in k["tensors"]
            if t["name"] == name and t["phase"] == "before"]
    assert seen and all(0 <= float(v) < 6 for v in seen[0]["values"]), seen
    # a bound that is a dynamic size: the gather's rows are input 0's dim 0, made 2
    pkg = package("router_gather")
    r = run([aotidbg, "run", pkg, "--inputs", "random", "--record", str(tmp_path / "g.yaml")])
    assert r.returncode == 0, r.stderr
    assert "int64 [2] randint [0, 2): the index check 0 <= tmp7 < ks1 in " in r.stderr, r.stderr
    assert ": dim 0 of input 0, made 2)" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def mlp(package, tmp_path_factory):
    d = tmp_path_factory.mktemp("torchsave")
    pkg = package("mlp_ln")
    inputs, _, files = eager_outputs(pkg, d)
    return dict(pkg=pkg, inputs=inputs, files=files, dir=d)


def test_torch_save_inputs_match_eager(aotidbg, mlp):
    d, (x, idx) = mlp["dir"], mlp["inputs"]
    torch.save({"x": x, "idx": idx}, d / "dict.pt")
    torch.save(x, d / "x.pt")
    spec = d / "a.yaml"   # one tensor, then a dict entry by key
    spec.write_text(f"inputs:\n  - {{shape: [6, 16], dtype: float32, fill: file, file: {d / 'x.pt'}}}\n"
                    f"  - {{shape: [3], dtype: int64, fill: file, file: {d / 'dict.pt'}, key: idx}}\n")
    expects = [a for f in mlp["files"] for a in ("--expect", f)]
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(d / "s.yaml")] + expects)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(" matches: all ") == len(mlp["files"]), r.stderr
    # a changed file: the outputs differ, exit 1
    torch.save(x + 1.0, d / "x.pt")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(d / "c.yaml")] + expects)
    assert r.returncode == 1 and "differs at" in r.stderr, r.stderr


def test_torch_save_tuple_needs_a_key(aotidbg, mlp):
    d, (x, idx) = mlp["dir"], mlp["inputs"]
    torch.save((x, idx), d / "pair.pt")
    spec = d / "pair.yaml"
    spec.write_text(f"inputs:\n  - {{shape: [6, 16], dtype: float32, fill: file, file: {d / 'pair.pt'}}}\n"
                    f"  - {{shape: [3], dtype: int64, fill: file, file: {d / 'pair.pt'}, key: 1}}\n")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(d / "p.yaml")])
    assert r.returncode == 2, r.stderr   # bad input (man/aotidbg.1 EXIT STATUS), not a failed model
    assert f"input 0: {d / 'pair.pt'}: holds a tuple of 2 (0: float32 [6, 16], 1: int64 [3]); add 'key: N'" \
        in r.stderr, r.stderr
    spec.write_text(f"inputs:\n  - {{shape: [6, 16], dtype: float64, fill: file, file: {d / 'pair.pt'}, key: 0}}\n"
                    f"  - {{shape: [3], dtype: int64, fill: file, file: {d / 'pair.pt'}, key: 1}}\n")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(d / "q.yaml"), "--force"])
    assert r.returncode == 2, r.stderr
    assert f"input 0: {d / 'pair.pt'} (key '0') holds float32 [6, 16], the spec says float64 [6, 16]; fix the " \
        "spec's dtype and shape" in r.stderr, r.stderr
    assert load_session(str(d / "q.yaml"))["end_state"] == "failed"


@pytest.mark.parametrize("row,says", [
    # a key the dict does not have
    ("{shape: [3], dtype: int64, fill: file, file: DICT, key: ids}", "input 1: DICT (key 'ids'): has no key 'ids'; it holds a dict of 2"),
    # an index past the tuple's count
    ("{shape: [3], dtype: int64, fill: file, file: PAIR, key: 2}",
     "input 1: PAIR (key '2'): key '2' is not an index from 0 to 1; it holds a tuple of 2"),
    # another shape than the model's (the checklist would stop it: --force lets the runner read the file)
    ("{shape: [4], dtype: int64, fill: file, file: DICT, key: idx}",
     "input 1: DICT (key 'idx') holds int64 [3], the spec says int64 [4]; fix the spec's dtype and shape"),
])
def test_torch_save_that_does_not_match_is_bad_input(aotidbg, mlp, row, says):
    """A torch.save file whose contents are not what the spec says (key, count, shape): exit 2 with
    the input's index, what the file holds and what to do; the model never ran."""
    d, (x, idx) = mlp["dir"], mlp["inputs"]
    torch.save({"x": x, "idx": idx}, d / "dict2.pt")
    torch.save((x, idx), d / "pair2.pt")
    row = row.replace("DICT", str(d / "dict2.pt")).replace("PAIR", str(d / "pair2.pt"))
    spec = d / "bad.yaml"
    spec.write_text(f"inputs:\n  - {{shape: [6, 16], dtype: float32, fill: file, file: {d / 'dict2.pt'}, key: x}}\n"
                    f"  - {row}\n")
    out = d / "bad.s.yaml"
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(out), "--force"])
    assert r.returncode == 2, r.stderr
    says = says.replace("DICT", str(d / "dict2.pt")).replace("PAIR", str(d / "pair2.pt"))
    assert says in r.stderr, r.stderr
    assert not events(load_session(str(out)), "kernel")   # the model never ran
    (d / "old.pt").write_bytes(b"\x80\x02not a zip")
    spec.write_text(f"inputs:\n  - {{shape: [6, 16], dtype: float32, fill: file, file: {d / 'old.pt'}}}\n")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", str(spec), "--record", str(d / "o.yaml")])
    assert r.returncode == 2 and "input 0: " in r.stderr and "not a zip archive" in r.stderr, r.stderr


def test_float16_input_from_float32_npy(aotidbg, package, tmp_path):
    pkg = package("eager_half")   # one float16 input [8, 32]
    (x,), _, files = eager_outputs(pkg, tmp_path)
    np.save(tmp_path / "exact.npy", x.float().numpy())   # every value a float16: exact
    spec = tmp_path / "s.yaml"
    spec.write_text("inputs:\n  - {shape: [8, 32], dtype: float16, fill: file, file: exact.npy}\n")
    args = [aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(tmp_path / "a.yaml")]
    r = run(args + [a for f in files for a in ("--expect", f)] + ["--expect-tolerance", "2e-3,1e-2"])
    assert r.returncode == 0, r.stderr   # compiled float16 against eager float16: a rounding apart
    assert "float32 values converted to float16 exactly (all 256 representable)" in r.stderr, r.stderr
    near = x.float().numpy() + np.float32(1e-4)   # most values now fall between two float16s
    np.save(tmp_path / "exact.npy", near)
    changed = int((torch.from_numpy(near).half().float().numpy() != near).sum())
    r = run(args)
    assert r.returncode == 0, r.stderr
    assert f"warning: input 0: " in r.stderr and f"rounded to float16: {changed} of 256 changed" in r.stderr, r.stderr


def test_bfloat16_input_from_float32_npy(aotidbg, package, tmp_path):
    pkg = package("aoti_empty_cat_dtype_promotion")   # x bfloat16 [4, 10], y float32 [4, 0]
    (x, y), _, files = eager_outputs(pkg, tmp_path)
    np.save(tmp_path / "x.npy", x.float().numpy())
    np.save(tmp_path / "y.npy", y.numpy())
    spec = tmp_path / "s.yaml"
    spec.write_text("inputs:\n  - {shape: [4, 10], dtype: bfloat16, fill: file, file: x.npy}\n"
                    "  - {shape: [4, 0], dtype: float32, fill: file, file: y.npy}\n")
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(tmp_path / "a.yaml")] +
            [a for f in files for a in ("--expect", f)])
    assert r.returncode == 0, r.stderr
    assert "converted to bfloat16 exactly (all 40 representable)" in r.stderr, r.stderr


def test_fortran_order_npy_gives_the_c_order_output(aotidbg, package, tmp_path):
    pkg = package("conv_block")   # one float32 input [2, 3, 8, 8]
    x = np.random.default_rng(5).standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "c.npy", x)
    np.save(tmp_path / "f.npy", np.asfortranarray(x))
    got = []
    for name in ("c", "f"):
        spec = tmp_path / f"{name}.yaml"
        spec.write_text(f"inputs:\n  - {{shape: [2, 3, 8, 8], dtype: float32, fill: file, file: {name}.npy}}\n")
        out = str(tmp_path / f"{name}.s.yaml")
        r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", out, "--values", "100000"])
        assert r.returncode == 0, r.stderr
        got.append([t["values"] for t in outputs(out)])
    assert got[0] == got[1] and got[0][0]


def test_live_ui_starts_on_random_inputs(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    r = run([aotidbg, pkg, "--inputs", "random", "--seed", "2", "--headless", "100x30", "--keys", "c",
             "--dump-screen"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    sessions = sorted(p.name for p in tmp_path.glob("aotidbg-session-*.yaml") if ".inputs." not in p.name)
    assert len(sessions) == 1 and (tmp_path / (sessions[0] + ".inputs.yaml")).exists(), sessions
    assert "randint [0, 6): the index check" in r.stderr, r.stderr
    assert load_session(str(tmp_path / sessions[0]))["end_state"] == "complete"
