"""NaN/Inf down to the element, uninitialised before-tensors, stops that show what a kernel is about
to consume, and save-npy (issue 17), on real CPU packages.

`provenance` (tests/models/model_provenance.py, compiled with provenance tracking): the fused kernel
of the last block computes `torch.log(h - 10.0)` of values below 10, so its output gains NaN; the
run names the first bad element, the kernel's inputs at that position, where it comes from and the
op and model line that make it. `runner_nan` (Linear -> log -> Linear) fed an input holding NaN at
x[1, 2]: the first addmm's output gains NaN because its input already held it. Each is checked
from `aotidbg run` (the session's nan event, the summary), `route S.yaml`, `replay --dump` and the
TUI (router pane, goto-element, the hunt's report); the expected values come from the session's own
tensors, the model file's lines and wrapper.cpp's kernel signatures."""
import re

import numpy as np
import pytest
import yaml

from aotidbg_testlib import frames, wrapper_cpp
from conftest import ROOT, run

MODEL = f"{ROOT}/tests/models/model_provenance.py"


def model_line(text):
    """1-based line of the model file holding text."""
    lines = open(MODEL, encoding="utf-8").read().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if text in line)


def record(aotidbg, pkg, spec_text, path, *extra):
    spec = path.parent / (path.stem + ".inputs.yaml")
    spec.write_text(spec_text)
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(path), *extra])
    return r, spec


@pytest.fixture(scope="module")
def prov(aotidbg, package, tmp_path_factory):
    """The provenance model run twice: values kept (64 per tensor), and statistics only."""
    d = tmp_path_factory.mktemp("prov")
    np.save(d / "ids.npy", np.array([[1, 5, 7, 99]]))
    spec = f"inputs:\n  - {{shape: [1, 4], dtype: int64, device: cpu, fill: file, file: {d / 'ids.npy'}}}\n"
    pkg = package("provenance")
    out = {}
    for name, extra in (("values", ["--values", "64"]), ("stats", [])):
        r, _ = record(aotidbg, pkg, spec, d / f"{name}.yaml", *extra)
        assert r.returncode == 0, r.stderr
        out[name] = (d / f"{name}.yaml", r)
    return pkg, out


def events(path, kind):
    return [e for e in yaml.safe_load(path.read_text())["events"] if e.get("kind") == kind]


def flat_of(at, shape):
    idx = [int(v) for v in at.strip("[]").split(",")]
    return int(np.ravel_multi_index(idx, shape))


def test_run_records_the_element_inputs_and_op(prov):
    _, runs = prov
    s, r = runs["values"]
    kernels = events(s, "kernel")
    nans = events(s, "nan")
    assert len(nans) == 1, nans
    ev = nans[0]
    k = next(k for k in kernels if k["index"] == ev["kernel"])
    # the first kernel whose output gains NaN: the one computing the log
    first = next(k for k in kernels if k["status"] == "nan")
    assert k is first and "log" in k["name"], (k["name"], first["name"])
    out = next(t for t in k["tensors"] if t["phase"] == "after" and t["name"] == ev["tensor"])
    vals = np.array(out["values"], dtype=float)
    first_bad = int(np.argmax(~np.isfinite(vals)))
    assert flat_of(ev["at"], out["shape"]) == first_bad
    assert ev["value"] == "nan" and np.isnan(vals[first_bad])
    idx = np.unravel_index(first_bad, out["shape"])
    # every before-tensor at the matching position, its value from the session's own values
    befores = [t for t in k["tensors"] if t["phase"] == "before"]
    assert len(ev["inputs"]) == len(befores)
    seen_broadcast = 0
    for t, text in zip(befores, ev["inputs"]):
        assert text.startswith(t["name"]), (t["name"], text)
        if "uninitialised" in text:
            continue
        shape = t["shape"]
        if shape == out["shape"]:
            i = idx
        elif len(shape) == len(out["shape"]) and all(a in (1, b) for a, b in zip(shape, out["shape"])):
            i = tuple(0 if a == 1 else j for a, j in zip(shape, idx))
            assert text.endswith("(broadcast)"), text
            seen_broadcast += 1
        else:
            assert "does not line up" in text, text
            continue
        v = t["values"][int(np.ravel_multi_index(i, shape))]
        want = f"{t['name']}[{', '.join(str(int(j)) for j in i)}] = {float(f'{v:.4g}'):.4g}"
        assert text.startswith(want), (text, want)
    assert seen_broadcast, ev["inputs"]   # the [1, 4, 1] layer-norm statistics broadcast
    assert ev["from"] == "computed here: every input it reads is finite"
    # the op that makes it, at the model's own line
    assert ev["ops"] == [f"log at model_provenance.py:{model_line('torch.log(h - 10.0)')}: h = torch.log(h - 10.0)"]
    # NaN, +Inf and -Inf told apart: the kind first, then the counts over what the kernel wrote
    nan_n = sum(t["stats"]["nan"] for t in k["tensors"] if t["phase"] == "after")
    assert (f"NaN first at kernel #{k['index']} {k['name']}: {ev['tensor']}{ev['at']} = nan ({nan_n} NaN, 0 +Inf, "
            f"0 -Inf); log at") in r.stderr, r.stderr


def test_statistics_alone_name_the_element(prov):
    """--values 0: the position comes from the statistics (every element), the inputs' values are not kept."""
    _, runs = prov
    full, _ = runs["values"]
    s, _ = runs["stats"]
    a, b = events(full, "nan")[0], events(s, "nan")[0]
    assert (b["kernel"], b["tensor"], b["at"], b["value"]) == (a["kernel"], a["tensor"], a["at"], a["value"])
    assert any(t.endswith(": value not kept") for t in b["inputs"]), b["inputs"]
    assert b["from"] == a["from"]   # the inputs' statistics are there: finite everywhere


def test_route_and_dump_show_it(prov, aotidbg):
    _, runs = prov
    s, _ = runs["values"]
    ev = events(s, "nan")[0]
    y = run([aotidbg, "route", str(s), "--format", "yaml"])
    assert y.returncode == 0, y.stderr
    doc = yaml.safe_load(y.stdout)
    f = doc["fields"]
    assert doc["route"] == "nan-inf"
    assert (f["kernel_index"], f["bad_tensor"], f["bad_at"], f["bad_value"]) == (str(ev["kernel"]), ev["tensor"],
                                                                                 ev["at"], "nan")
    assert f["inputs_at"] == "; ".join(ev["inputs"]) and f["suspect_ops"] == "; ".join(ev["ops"])
    # the op's line leads: the source line is the log's, not the fused kernel's first
    assert re.search(r"model_provenance\.py:%d$" % model_line("torch.log(h - 10.0)"), f["source_line"])
    assert f["source_code"] == "h = torch.log(h - 10.0)"
    assert "goto-element" in y.stdout   # the first next step
    dump = run([aotidbg, "replay", str(s), "--dump"]).stdout
    assert f"nan kernel={ev['kernel']} tensor={ev['tensor']} at={ev['at']} value=nan" in dump
    assert f"    op {ev['ops'][0]}" in dump
    for text in ev["inputs"]:
        assert f"    input {text}" in dump


def test_a_session_from_before_routes_the_same(prov, aotidbg, tmp_path):
    """A file without the nan event (recorded before it existed) gets the same fields, found when routed."""
    _, runs = prov
    s, _ = runs["values"]
    text = s.read_text()
    old = tmp_path / "old.yaml"
    old.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith("- {kind: nan")))
    assert "kind: nan" not in old.read_text()
    new = yaml.safe_load(run([aotidbg, "route", str(s), "--format", "yaml"]).stdout)["fields"]
    got = yaml.safe_load(run([aotidbg, "route", str(old), "--format", "yaml"]).stdout)["fields"]
    for k in ("bad_tensor", "bad_at", "bad_value", "inputs_at", "suspect_ops", "nan_from", "source_line"):
        assert got.get(k) == new.get(k), k


def test_nan_that_came_in_with_an_input(aotidbg, package, tmp_path):
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    x[1, 2] = np.nan
    np.save(tmp_path / "x.npy", x)
    s = tmp_path / "in.yaml"
    r, _ = record(aotidbg, package("runner_nan"),
                  f"inputs:\n  - {{shape: [4, 8], dtype: float32, device: cpu, fill: file, file: {tmp_path / 'x.npy'}}}\n",
                  s, "--values", "64")
    assert r.returncode == 0, r.stderr
    ev = events(s, "nan")[0]
    k = next(k for k in events(s, "kernel") if k["index"] == ev["kernel"])
    assert "addmm" in k["name"] and ev["at"] == "[1, 0]"   # the matmul's row 1: every element reads x[1, :]
    m = re.match(r"input (\w+) already holds NaN/Inf from \[1, 2\] \(a model input or weight", ev["from"])
    assert m, ev["from"]
    x_in = next(t for t in k["tensors"] if t["phase"] == "before" and t["name"] == m.group(1))
    assert x_in["shape"] == [4, 8] and np.isnan(x_in["values"][1 * 8 + 2])
    assert re.search(rf"NaN first at kernel #{k['index']} {k['name']}: {ev['tensor']}\[1, 0\] = nan \(\d+ NaN, "
                     rf"\d+ \+Inf, \d+ -Inf\); input {m.group(1)}", r.stderr), r.stderr


def test_uninitialised_before_tensors_follow_the_kernel_signatures(prov, aotidbg):
    """A before-tensor is marked uninitialised only when wrapper.cpp passes it to the kernel as an
    out_ptr (or an in_out_ptr no call touched before) and no earlier call passed it."""
    pkg, runs = prov
    s, _ = runs["values"]
    doc = yaml.safe_load(s.read_text())
    w = wrapper_cpp(pkg)
    decls = {m.group(1): [p.split()[-1].lstrip("*") for p in m.group(2).split(",")]
             for m in re.finditer(r'extern "C"\s+void\s+(cpp_fused_\w+)\(([^)]*)\)', w)}
    marked = 0
    for call in doc["provenance"]["calls"]:
        fresh = call.get("fresh", [])
        launch = w.splitlines()[call["line"] - 1:call["line"] + 40]
        stmt = next(line for line in launch if re.match(r"\s*(AOTI_TORCH_ERROR_CODE_CHECK\()?%s\(" % call["kernel"],
                                                         line))
        args = re.findall(r"\((\w+)\.data_ptr\(\)\)|[(,]\s*(buf\d+)\b", stmt)
        names = [a or b for a, b in args]
        for name in fresh:
            if call["kernel"] in decls:
                role = decls[call["kernel"]][names.index(name)]
                assert role.startswith(("out_ptr", "in_out_ptr")), (call["kernel"], name, role)
            else:   # an extern _out op: its first argument
                assert call["kernel"].endswith("_out") and names[0] == name, (call, names)
            # no call statement before this launch passes it (the printer's saves do not count)
            before = w.split(stmt)[0].split("::run_impl(")[-1].splitlines()
            for line in before:
                if re.match(r"\s*(AOTI_TORCH_ERROR_CODE_CHECK\()?(cpp_fused_|call_triton_|aoti_torch_)\w*\(", line) and \
                        "save_tensor_handle" not in line and "empty_strided" not in line:
                    assert not re.search(r"\b%s\b" % name, line), (name, line)
            marked += 1
    assert marked >= 5
    dump = run([aotidbg, "replay", str(s), "--dump"]).stdout
    for call in doc["provenance"]["calls"]:
        for name in call.get("fresh", []):
            assert re.search(r"    before %s \[.*uninitialised" % name, dump), name
    # an input the kernel reads is never marked
    assert not re.search(r"    before arg\d+_1 .*uninitialised", dump)


def test_tui_router_pane_goto_element_and_hunt(prov, aotidbg):
    _, runs = prov
    s, _ = runs["values"]
    ev = events(s, "nan")[0]
    # the router pane: the run's nan event as a nan-inf row, the element under the route
    r = run([aotidbg, "replay", str(s), "--headless", "120x50", "--ascii", "--keys", "pane-router zoom",
             "--dump-screen"])
    assert r.returncode == 0, r.stderr
    words = " ".join(r.stdout.replace("|", " ").split())
    assert "error router (1)" in r.stdout and "nan-inf" in r.stdout
    assert f"first bad {ev['tensor']}{ev['at']} = nan; log at model_provenance.py:" in words
    # goto-element: that kernel selected, the inspector's grid cursor on the element
    r = run([aotidbg, "replay", str(s), "--headless", "120x50", "--ascii", "--keys",
             "pane-router goto-element", "--dump-screen"])
    screen = frames(r.stdout)[-1][1]
    assert f"inspector: #{ev['kernel']} " in screen
    assert f"{ev['at']} = nan" in screen   # the grid's header names the cursor's element
    assert f"{ev['tensor']}{ev['at']} = nan (after of kernel #{ev['kernel']}" in r.stdout
    h = run([aotidbg, "replay", str(s), "--headless", "120x50", "--ascii", "--keys", "hunt-nan", "--dump-screen"])
    assert "where it comes from: computed here" in h.stdout
    assert f"log at model_provenance.py:{model_line('torch.log(h - 10.0)')}" in h.stdout
    assert "not an input: uninitialised" in h.stdout


def test_a_stop_before_a_kernel_holds_its_before_tensors(aotidbg, package, tmp_path, prov):
    """run --break-on kernel=NAME stops before NAME: the session already holds the tensors the
    kernel is about to consume (as many as the printer saves there), the same a full run records."""
    _, runs = prov
    full, _ = runs["values"]
    kernels = events(full, "kernel")
    target = next(k for k in kernels if k["name"].startswith("cpp_fused_add_native_layer_norm"))
    spec = full.parent / "values.inputs.yaml"
    s = tmp_path / "stop.yaml"
    r = run([aotidbg, "run", package("provenance"), "--inputs", str(spec), "--record", str(s), "--values", "64",
             "--break-on", f"kernel={target['name']}"])
    assert r.returncode == 0, r.stderr
    assert "stopped at the kernel break" in r.stderr
    last = events(s, "kernel")[-1]
    assert last["status"] == "pending" and last["index"] == target["index"]
    want = [t for t in target["tensors"] if t["phase"] == "before"]
    got = last["tensors"]
    call = yaml.safe_load(s.read_text())["provenance"]["calls"][last["call"]]
    assert len(got) == call["before"] == len(want) > 0
    for g, w in zip(got, want):
        assert (g["name"], g["phase"], g["shape"]) == (w["name"], "before", w["shape"])
        if "uninitialised" not in run([aotidbg, "replay", str(s), "--dump"]).stdout.split(f"before {g['name']} ")[1][:200]:
            assert g["values"] == w["values"], g["name"]


def test_save_npy_writes_what_the_session_holds(prov, aotidbg, tmp_path):
    _, runs = prov
    s, _ = runs["values"]
    ev = events(s, "nan")[0]
    k = next(k for k in events(s, "kernel") if k["index"] == ev["kernel"])
    out = tmp_path / "bad.npy"
    r = run([aotidbg, "replay", str(s), "--headless", "250x40", "--keys", f"pane-router goto-element save-npy:{out}",
             "--dump-screen"])
    assert r.returncode == 0, r.stderr
    t = next(t for t in k["tensors"] if t["phase"] == "after" and t["name"] == ev["tensor"])
    a = np.load(out)
    assert a.shape == tuple(t["shape"]) and a.dtype == np.float32
    np.testing.assert_array_equal(a.ravel(), np.array(t["values"], dtype=np.float32))
    assert f"-> {out}: all {a.size} values" in r.stdout
    # statistics only: nothing written, and the message says why
    s2, _ = runs["stats"]
    out2 = tmp_path / "none.npy"
    r = run([aotidbg, "replay", str(s2), "--headless", "250x40", "--keys", f"pane-router goto-element save-npy:{out2}",
             "--dump-screen"])
    assert not out2.exists()
    assert "only statistics were kept" in r.stdout
