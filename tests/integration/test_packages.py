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
    leaves = torch.utils._pytree.tree_leaves
    return tuple(leaves(tuple(inputs))), tuple(leaves(expected))


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
    """A printer package with no kernel at all: it was called "built without the printer"
    (and re-instrumented, which failed); now the mode is the printer's and the words are facts."""
    pkg = package("pkg_nokernel")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
    assert not events(sess, "kernel") and sess["mode"] == "printer"
    mode_row = [c for c in sess["checks"] if c["id"] == "run.mode"][0]
    assert "the model launches no kernel" in mode_row["source"]
    text = p.stderr + " ".join(e["text"] for e in events(sess, "log"))
    assert "built without" not in text and "re-instrument" not in text
    assert "no printer hook fired in this run" in text


# ---- kernels inside torch.cond / while_loop subgraphs -----------------------------
# The printer does not instrument subgraphs; re-instrumentation adds hooks to the
# launches it does not reach (build/tests/test_reinstrument --build, the same code
# `aotidbg run` uses), each tagged with its branch, and the runner reports them.

def reinstrumented(package, name, tmp_path):
    import hashlib
    import subprocess
    import zipfile
    from conftest import BUILD
    pkg = package(name)
    with zipfile.ZipFile(pkg) as z:
        z.extractall(tmp_path / "x")
    so = next(os.path.join(r, f) for r, _, fs in os.walk(tmp_path / "x") for f in fs if f.endswith(".wrapper.so"))
    sha = hashlib.sha256(open(pkg, "rb").read()).hexdigest()
    env = dict(os.environ, AOTIDBG_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([os.path.join(BUILD, "tests", "test_reinstrument"), "--build", os.path.dirname(so), sha],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("so ", 1)[1].strip(), os.path.dirname(so)


def wire_run(runner, so, cubin, inputs, tmp_path, flags=0, every=None):
    """every: a list that gets every message the runner sent."""
    from runner_wire import DONE, ERROR, KERNEL, LOADED, RUN, TENSOR, Runner, control_msg, frame, load_msg
    from test_runner_proto import file_inputs
    r = Runner(runner)
    r.recv()
    r.send(load_msg(so, cubin, flags=flags))
    assert r.until(LOADED, DONE)[-1]["type"] == LOADED, r.msgs
    r.send(*file_inputs(inputs, tmp_path), control_msg(), frame(RUN))
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    r.finish()
    if every is not None:
        every.extend(msgs)
    kernels = [(m["name"], m["branch"]) for m in msgs if m["type"] == KERNEL and m["phase"] == 1]
    outs = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1]
    return kernels, outs


def check_outs(outs, expected):
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        got = np.array(o["values"], dtype=np.float64).reshape(tuple(e.shape))
        np.testing.assert_allclose(got, e.detach().double().numpy(), rtol=1e-5, atol=1e-6)


def test_cond_kernels_of_both_branches_with_their_branch(runner, package, tmp_path):
    """Before: only the main graph's kernels appeared (the printer skips subgraphs).
    Now each branch's kernels run with their branch named; the printer's own stay."""
    import model_control
    so, cubin = reinstrumented(package, "ctl_cond", tmp_path)
    inputs, expected = example(package("ctl_cond"))
    main = [k for k in wrapper_launches(package("ctl_cond"))]
    assert len(main) == 2   # the predicate and x * 3: all the printer sees
    kernels, outs = wire_run(runner, so, cubin, inputs, tmp_path)
    check_outs(outs, expected)
    assert [k for k in kernels if not k[1]] == [(main[0], ""), (main[1], "")]
    assert [k[0] for k in kernels if k[1] == "true_graph_0"] == ["aoti_torch_cpu_addmm_out", kernels[2][0]]
    assert kernels[1][1] == "true_graph_0" and kernels[2][0].startswith("cpp_fused")
    # the other branch: flag sums to < 0
    torch.manual_seed(0)
    other = (inputs[0], -torch.ones(3))
    kernels, outs = wire_run(runner, so, cubin, other, tmp_path)
    with torch.no_grad():
        check_outs(outs, model_control.ctl_cond()["module"](*other))
    branches = [b for _, b in kernels]
    assert branches == ["", "false_graph_0", ""], kernels


def test_while_loop_kernels_each_iteration(runner, package, tmp_path):
    """3 iterations: the cond graph's kernel 4 times, the body's 3 times, in order."""
    so, cubin = reinstrumented(package, "ctl_while", tmp_path)
    inputs, expected = example(package("ctl_while"))
    kernels, outs = wire_run(runner, so, cubin, inputs, tmp_path)
    check_outs(outs, expected)
    branches = [b for _, b in kernels]
    assert branches == ["while_loop_cond_graph_0", "while_loop_body_graph_0"] * 3 + ["while_loop_cond_graph_0"]


def test_round_stats_reads_no_values_after_the_first_round(runner, package, tmp_path):
    """LOAD flag ROUND_STATS (4): a kernel in round 1 or later says STATS_ONLY (KERNEL flags 1)
    and its tensors come with statistics and no values; round 0's and the main graph's keep
    theirs, as do all of them without the flag. The outputs are whole either way."""
    from runner_wire import KERNEL, TENSOR
    so, cubin = reinstrumented(package, "ctl_while", tmp_path)
    inputs, expected = example(package("ctl_while"))
    for flags in (4, 0):
        msgs = []
        kernels, outs = wire_run(runner, so, cubin, inputs, tmp_path, flags=flags, every=msgs)
        check_outs(outs, expected)
        seen, rounds, flag_of = {}, {}, {}
        for m in msgs:
            if m["type"] == KERNEL and m["phase"] == 0:
                rounds[m["branch"]] = rounds.get(m["branch"], -1) + 1 if m["branch"] else -1
                seen[m["index"]] = rounds[m["branch"]]
                flag_of[m["index"]] = m["flags"]
        for m in msgs:
            if m["type"] == TENSOR and m["kernel"] >= 0:
                later = flags and seen[m["kernel"]] >= 1
                assert ("stats" in m) and (not m["values"]) == bool(later), (flags, m["kernel"], m["name"])
        assert {i for i, f in flag_of.items() if f & 1} == {i for i, k in seen.items() if flags and k >= 1}
        assert any(k >= 1 for k in seen.values())


# ---- weights kept apart from the .so, handed over as CONSTANT messages -------------

def pickle_constants(pkg, dest):
    """What torch's load_pt2(load_weights_from_disk=True) reads, found with zipfile:
    weights_config.json (fqn -> [file, shape, stride, offset]) and each
    data/weights/<file>'s storage record, written out raw."""
    import io
    import json
    import zipfile
    from runner_wire import constant_msg
    z = zipfile.ZipFile(pkg)
    (cfg,) = [n for n in z.namelist() if n.endswith("weights_config.json")]
    root = cfg.split("/")[0]
    msgs = []
    for fqn, (fname, shape, stride, offset) in json.loads(z.read(cfg)).items():
        inner = zipfile.ZipFile(io.BytesIO(z.read(f"{root}/data/weights/{fname}")))
        (rec,) = [n for n in inner.namelist() if "/data/" in n and "/.data/" not in n]
        path = os.path.join(dest, fname + ".storage")
        with open(path, "wb") as f:
            f.write(inner.read(rec))
        msgs.append(constant_msg(fqn, path, 0, shape, stride, offset))
    return msgs


def test_pickle_weights_through_constant_messages(runner, package, tmp_path):
    """The runner takes each weight as load_pt2 gives them (user-managed, every
    constant required): outputs equal eager. torch's aoti_load_package, which does
    not load them, dies with SIGSEGV on this package."""
    from runner_wire import DONE, ERROR, LOADED, RUN, TENSOR, Runner, control_msg, frame, load_msg
    from test_runner_proto import file_inputs
    import zipfile
    pkg = package("pkg_pickle")
    with zipfile.ZipFile(pkg) as z:
        z.extractall(tmp_path / "x")
    so = next(os.path.join(r, f) for r, _, fs in os.walk(tmp_path / "x") for f in fs if f.endswith(".wrapper.so"))
    inputs, expected = example(pkg)
    consts = pickle_constants(pkg, tmp_path)

    def go(extra):
        r = Runner(runner)
        r.recv()
        r.send(load_msg(so, os.path.dirname(so)))
        assert r.until(LOADED, DONE)[-1]["type"] == LOADED, r.msgs
        r.send(*file_inputs(inputs, tmp_path), *extra, control_msg(), frame(RUN))
        msgs = r.until(DONE)
        r.finish()
        return msgs
    msgs = go(consts)
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    check_outs([m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1], expected)
    # a weight too short, and one the model does not have: named errors, never a crash
    short = os.path.join(tmp_path, "short.storage")
    open(short, "wb").write(b"\0" * 16)
    from runner_wire import constant_msg
    msgs = go([constant_msg("lin.weight", short, 0, [4, 8], [8, 1])])
    errs = " ".join(m["text"] for m in msgs if m["type"] == ERROR)
    assert msgs[-1]["status"] == 1 and "weight lin.weight" in errs and "holds 16 bytes, but the tensor needs 128" in errs
    msgs = go([constant_msg("no.such", short, 0, [1], [1])])
    errs = " ".join(m["text"] for m in msgs if m["type"] == ERROR)
    assert "weight no.such: the model has no constant of that name; it has: lin.weight" in errs, errs


# ---- the user's names -------------------------------------------------------------

def test_info_names_inputs_and_outputs(aotidbg, package):
    """in_spec_/out_spec_ hold x, mask, out, aux; every view used to show arg*_1 / outputN."""
    p = run([aotidbg, "info", package("names_kw")])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    inputs = [l.split() for l in lines if l.startswith("    ") and "float32" in l]
    assert [(i[1], i[2]) for i in inputs] == [("x", "arg0_1"), ("mask", "arg1_1")], lines
    assert "    0 out (output0)" in lines and "    1 aux (output1)" in lines


def test_info_counts_kernels_the_printer_does_not_reach(aotidbg, package):
    p = run([aotidbg, "info", package("ctl_cond")])
    assert "kernels:             2 (from printer) + 3 the printer does not reach (3 inside " \
           "torch.cond/while_loop subgraphs, 0 proxy-executor calls, 0 main-graph calls whose arguments the " \
           "printer does not print (views, output handles))" in p.stdout, p.stdout
    p = run([aotidbg, "info", package("pkg_nokernel")])
    assert "printer level:       - (the model launches no kernel)" in p.stdout, p.stdout


# ---- the checklist's weights row, every form ---------------------------------------

def check_rows(aotidbg, pkg):
    import yaml
    p = run([aotidbg, "check", pkg, "--format", "yaml"])
    doc = yaml.safe_load(p.stdout)
    return p.returncode, {r["id"]: r for r in doc["checks"]}


def rewritten(src, dst, change):
    """A copy of the package with some entries' bytes changed (change(name, data) -> data or None to drop)."""
    import zipfile
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            data = change(info.filename, zi.read(info))
            if data is not None:
                zo.writestr(info, data)
    return dst


def test_weights_row_in_every_form(aotidbg, package, tmp_path):
    """PASS for the forms torch writes and aotidbg loads; FAIL (the run refused, never a crash)
    for a truncated blob, a missing or short pickled weight, and a package without weights."""
    import io
    rc, rows = check_rows(aotidbg, package("pkg_blob"))
    w = rows["package.weights"]
    assert w["status"] == "PASS" and "(binary_blob)" in w["expected"] and "128 bytes (the model needs 128)" in w["got"]
    rc, rows = check_rows(aotidbg, package("pkg_pickle"))
    assert rows["package.weights"]["status"] == "PASS" and "load_weights_from_disk=True" in rows["package.weights"]["got"]
    rc, rows = check_rows(aotidbg, package("pkg_alias"))
    assert rows["package.weights"]["got"] == "the model has no weights"
    rc, rows = check_rows(aotidbg, package("mlp_ln"))
    assert rows["package.weights"]["status"] == "PASS" and rows["package.weights"]["got"] == "embedded in the .so"

    def fails_with(pkg, text):
        rc, rows = check_rows(aotidbg, pkg)
        w = rows["package.weights"]
        assert rc == 1 and w["status"] == "FAIL" and text in w["got"], w
        p = run([aotidbg, "run", pkg, "--inputs", write_spec(tmp_path, example(package("pkg_blob"))[0]),
                 "--record", str(tmp_path / "refused.yaml")])
        assert p.returncode == 1 and "package.weights" in p.stderr and "signal" not in p.stderr, p.stderr

    fails_with(rewritten(package("pkg_blob"), str(tmp_path / "short_blob.pt2"),
                         lambda n, d: d[:40] if n.endswith(".blob") else d), "holds 40 bytes, but the model's 1 weights need 128")
    fails_with(rewritten(package("pkg_pickle"), str(tmp_path / "no_weight0.pt2"),
                         lambda n, d: None if n.endswith("data/weights/weight_0") else d), "weight_0 (weight lin.weight) is missing")
    short = io.BytesIO()
    torch.save(torch.zeros(3), short)
    fails_with(rewritten(package("pkg_pickle"), str(tmp_path / "short_weight0.pt2"),
                         lambda n, d: short.getvalue() if n.endswith("data/weights/weight_0") else d),
               "weight lin.weight: weight_0 holds 12 bytes, the tensor needs 128")
    fails_with(package("pkg_noweights"), "holds none of the model's 1 weights")


def test_torch_version_row(aotidbg, package, tmp_path):
    """torch records no version; a package that says which torch built it (as
    aotidbg_prepare.py records it) is compared with this machine's torch."""
    import json
    rc, rows = check_rows(aotidbg, package("pkg_alias"))
    assert rows["package.torch-version"]["status"] == "INFO"
    assert rows["package.torch-version"]["got"].startswith("not recorded")

    def with_version(v):
        def change(n, d):
            if n.endswith(".wrapper_metadata.json"):
                m = json.loads(d)
                m["AOTI_TORCH_VERSION"] = v
                return json.dumps(m).encode()
            return d
        return rewritten(package("pkg_alias"), str(tmp_path / f"v{v}.pt2"), change)
    here = torch.__version__
    rc, rows = check_rows(aotidbg, with_version(here))
    assert rows["package.torch-version"]["status"] == "PASS", rows["package.torch-version"]
    rc, rows = check_rows(aotidbg, with_version("2.11.0+cu130"))
    r = rows["package.torch-version"]
    major_minor = ".".join(here.split(".")[:2])
    assert r["status"] == "WARN" and r["expected"] == "torch 2.11.0+cu130 (built by)" and here in r["got"], r
    assert 'pip install "torch==2.11.*"' in r["fix"] and f"rebuild it with torch {major_minor}" in r["fix"]


def test_hidden_kernels_row(aotidbg, package):
    rc, rows = check_rows(aotidbg, package("ctl_cond"))
    r = rows["package.hidden-kernels"]
    assert r["status"] == "INFO" and r["expected"] == "2 launch(es) hooked by the printer"
    assert r["got"] == ("3 more it does not reach: 3 inside torch.cond/while_loop subgraphs, 0 proxy-executor "
                        "calls, 0 main-graph calls whose arguments the printer does not print (views, output handles)")
    rc, rows = check_rows(aotidbg, package("pkg_unique"))
    assert rows["package.hidden-kernels"]["got"].endswith(
        "0 inside torch.cond/while_loop subgraphs, 1 proxy-executor calls, 0 main-graph calls whose arguments the "
        "printer does not print (views, output handles)")
    rc, rows = check_rows(aotidbg, package("mlp_ln"))
    assert "package.hidden-kernels" not in rows


# ---- end to end through `aotidbg run` ------------------------------------------------

def test_run_cond_reinstruments_what_the_printer_misses(aotidbg, package, tmp_path):
    """A printer package with torch.cond: run re-instruments the branches by default (CPU),
    the session's kernels name their branch; with --no-reinstrument the session says how
    many launches it could not see, and why."""
    pkg = package("ctl_cond")
    inputs, expected = example(pkg)
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, expected)
    assert sess["mode"] == "reinstrument" and "hidden_kernels" not in sess
    ks = events(sess, "kernel")
    assert [k.get("branch") for k in ks] == [None, "true_graph_0", "true_graph_0", None]
    assert ks[1]["name"] == "aoti_torch_cpu_addmm_out" and all(k["tensors"] for k in ks)
    p, sess = run_pkg(aotidbg, pkg, tmp_path, "--no-reinstrument")
    assert p.returncode == 0 and sess["mode"] == "printer"
    assert sess["hidden_kernels"] == 3 and "--no-reinstrument kept them hidden" in sess["hidden_why"]
    assert [k["name"] for k in events(sess, "kernel")] == wrapper_launches(pkg)


def test_run_pickle_weights_and_names_and_aliases(aotidbg, package, tmp_path):
    """pickle_weights (torch's aoti_load_package crashes on it) runs like load_pt2 runs it;
    the user's names reach the session; aliased outputs say what they are."""
    pkg = package("pkg_pickle")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
    pkg = package("names_kw")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    assert sess["package"]["input_names"] == ["x", "mask"] and sess["package"]["output_names"] == ["out", "aux"]
    assert [o.get("user_name") for o in outputs(sess)] == ["out", "aux"]
    (k,) = events(sess, "kernel")
    assert {t["name"]: t.get("user_name") for t in k["tensors"] if t["name"].startswith("arg")} == \
        {"arg0_1": "x", "arg1_1": "mask"}
    dump = run([aotidbg, "replay", "--dump", str(tmp_path / "s.yaml")]).stdout
    assert "input_names: [x, mask]" in dump and "user_name=out" in dump
    pkg = package("pkg_alias")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert [o.get("alias_of") for o in outputs(sess)] == [None, "output0", "input 0"]


def test_inputs_spec_names_inputs(aotidbg, package, tmp_path):
    """A spec may name its inputs (the user's names, or AOTI's) in any order; the starter
    spec run prints names them; wrong names are errors naming the spec and the input."""
    pkg = package("names_kw")
    p = run([aotidbg, "run", pkg, "--record", str(tmp_path / "none.yaml")])
    assert p.returncode == 2 and "- {name: x, shape: [3, 4]" in p.stderr and "# mask (arg1_1)" in p.stderr
    x, mask = example(pkg)[0]
    spec = tmp_path / "named.yaml"
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "m.npy", mask.numpy())
    spec.write_text("inputs:\n  - {name: mask, shape: [3, 4], dtype: float32, fill: file, file: m.npy}\n"
                    "  - {name: arg0_1, shape: [3, 4], dtype: float32, fill: file, file: x.npy}\n")
    out = str(tmp_path / "s.yaml")
    p = run([aotidbg, "run", pkg, "--inputs", str(spec), "--values", "1000", "--record", out])
    assert p.returncode == 0, p.stderr
    sess = load_session(out)
    assert [i["name"] for i in sess["inputs"]] == ["arg0_1", "mask"]
    assert_outputs_match(sess, example(pkg)[1])
    assert run([aotidbg, "check", pkg, "--inputs", str(spec)]).returncode == 0
    spec.write_text("inputs:\n  - {name: mask, shape: [3, 4], dtype: float32}\n  - {name: y, shape: [3, 4], dtype: float32}\n")
    for cmd in (["run", pkg, "--inputs", str(spec), "--record", out], ["check", pkg, "--inputs", str(spec)]):
        p = run([aotidbg, *cmd])
        assert p.returncode == 2 and "input 'y': the model has no input of that name; it takes x, mask" in p.stderr


def test_complex_inputs_outputs_values_and_statistics(aotidbg, package, tmp_path):
    """complex64/complex128 inputs from .npy, complex outputs with (re, im) values equal to eager,
    statistics over |z|, a+bj in the dump and the value grid, save-npy writing a complex .npy."""
    pkg = package("pkg_complex")
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 0, p.stderr
    outs, want = outputs(sess), example(pkg)[1]
    assert [o["dtype"] for o in outs] == ["complex64", "float32", "complex128"]
    for o, e in zip(outs, want):
        assert o["values_complete"] and o["shape"] == list(e.shape), o["name"]
        got = np.array(o["values"], dtype=np.float64)
        if e.is_complex():
            got = got[0::2] + 1j * got[1::2]
            mag = e.abs().double()
            st = o["stats"]
            assert st["numel"] == e.numel() and st["nan"] == 0 and st["zeros"] == int((e == 0).sum())
            assert st["max"] == pytest.approx(float(mag.max()), rel=1e-6)
            assert st["min"] == pytest.approx(float(mag.min()), abs=1e-7)
            assert st["mean"] == pytest.approx(float(mag.mean()), rel=1e-6)
        np.testing.assert_allclose(got.reshape(tuple(e.shape)), e.numpy(), rtol=1e-5, atol=1e-6, err_msg=o["name"])
    z0 = events(sess, "kernel")[0]["tensors"][0]    # input z: its planted 0+0j is one zero, not two
    assert z0["dtype"] == "complex64" and z0["stats"]["zeros"] == 1
    # a NaN in either part counts once; an Inf part makes the element +/-Inf
    ins = list(example(pkg)[0])
    z = ins[0].clone()
    z[1, 1] = complex(float("nan"), 1.0)
    z[2, 2] = complex(1.0, float("-inf"))
    p, bad = run_pkg(aotidbg, pkg, tmp_path, inputs=(z, ins[1], ins[2]))
    assert p.returncode == 0, p.stderr
    st = outputs(bad)[0]["stats"]
    assert (st["nan"] + st["posinf"] + st["neginf"], st["finite"]) == (2, 10), st
    dump = run([aotidbg, "replay", os.path.join(tmp_path, "s.yaml"), "--dump"]).stdout
    assert "complex64" in dump and " nan+1j " in dump
    out = os.path.join(tmp_path, "w.npy")
    r = run([aotidbg, "replay", os.path.join(tmp_path, "s.yaml"), "--headless", "150x40", "--keys",
             f"goto:1 pane-inspector grid-goto:0,1 save-npy:{out}", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    k1 = events(bad, "kernel")[1]["tensors"][0]
    v = k1["values"]
    a = np.load(out)
    assert a.dtype == np.complex64 and a.shape == tuple(k1["shape"])
    np.testing.assert_array_equal(a.ravel().real, np.array(v[0::2], dtype=np.float32))
    np.testing.assert_array_equal(a.ravel().imag, np.array(v[1::2], dtype=np.float32))
    assert "histogram of |z|" in r.stdout and f"= {v[2]:.4g}" in r.stdout and "|z| min 0 max" in r.stdout
    # the inputs spec makes complex inputs itself too: randn/ones/arange
    spec = os.path.join(tmp_path, "fill.yaml")
    with open(spec, "w") as f:
        f.write("inputs:\n  - {shape: [4, 3], dtype: complex64, fill: arange}\n"
                "  - {shape: [4, 3], dtype: float32, fill: zeros}\n  - {shape: [5], dtype: cdouble, fill: randn}\n")
    rec = os.path.join(tmp_path, "f.yaml")
    p = run([aotidbg, "run", pkg, "--inputs", spec, "--values", "1000", "--record", rec])
    assert p.returncode == 0, p.stderr
    o = outputs(load_session(rec))
    w = np.array(o[0]["values"])
    np.testing.assert_allclose(w[0::2] + 1j * w[1::2], np.arange(12.0) ** 2)   # (i+0j)^2 + 0
    u = np.array(o[2]["values"])
    assert np.all(u[1::2] != 0) and o[2]["dtype"] == "complex128"              # randn fills both parts


def test_two_models_in_one_package(aotidbg, package, tmp_path):
    """package_aoti(path, {"a": ..., "b": ...}): info lists both, --model picks one for info, check,
    run and live; without --model every command stops with the names to pick from."""
    pkg = package("pkg_two")
    out = run([aotidbg, "info", pkg]).stdout
    assert "models:   2" in out and "\nmodel a\n" in out and "\nmodel b\n" in out
    b = run([aotidbg, "info", pkg, "--model", "b"])
    assert b.returncode == 0 and "\nmodel b\n" in b.stdout and "model a" not in b.stdout
    assert "inputs:              2" in b.stdout
    r = run([aotidbg, "info", pkg, "--model", "c"])
    assert r.returncode == 2 and "no model 'c'; pick one with --model NAME: a, b" in r.stderr
    c = run([aotidbg, "check", pkg])
    assert c.returncode != 0 and "none is called 'model'; pick one with --model NAME: a, b" in c.stdout
    assert "rerun with --model NAME, NAME one of: a, b" in c.stdout
    assert run([aotidbg, "check", pkg, "--model", "a"]).returncode == 0
    p, _ = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode != 0 and "pick one with --model NAME: a, b" in p.stderr
    x = example(pkg)[0][0]
    y = torch.randn(4, 5)
    p, sess = run_pkg(aotidbg, pkg, tmp_path, "--model", "b", inputs=(x, y))
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, (x * y - 2,))
    assert sess["package"]["model"] == "b"
    p, sess = run_pkg(aotidbg, pkg, tmp_path, "--model", "a")
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
    spec = write_spec(tmp_path, (x, y), name="b.yaml")
    live = run([aotidbg, pkg, "--model", "b", "--inputs", spec, "--headless", "120x30", "--keys", "c", "--dump-screen"],
               cwd=str(tmp_path))   # live mode records a session in the current folder
    assert live.returncode == 0, live.stderr
    assert "cpp_fused_mul_sub_0" in live.stdout
    live = run([aotidbg, pkg, "--inputs", spec, "--headless", "120x30", "--keys", "q"], cwd=str(tmp_path))
    assert live.returncode != 0 and "pick one with --model NAME: a, b" in live.stdout + live.stderr


def cpp_only_row(aotidbg, pkg):
    import yaml
    c = run([aotidbg, "check", pkg, "--format", "yaml"])
    return {r["id"]: r for r in yaml.safe_load(c.stdout)["checks"]}["package.so"]


def test_package_cpp_only_says_what_it_holds_and_how_to_build_it(aotidbg, package, tmp_path):
    """aot_inductor.package_cpp_only=True: sources + CMakeLists.txt, no .so. A FAIL row and a clear
    error (never a crash) with the commands to build and run it."""
    pkg = package("pkg_cpp_only")
    info = run([aotidbg, "info", pkg])
    assert info.returncode == 0 and "none: package_cpp_only (sources + CMakeLists.txt" in info.stdout
    row = cpp_only_row(aotidbg, pkg)
    assert row["status"] == "FAIL" and "package_cpp_only" in row["got"]
    assert "wrapper.cpp, CMakeLists.txt" in row["fix"] and "cmake --build" in row["fix"]
    import yaml
    rows = {r["id"]: r for r in yaml.safe_load(run([aotidbg, "check", pkg, "--format", "yaml"]).stdout)["checks"]}
    w = rows["package.weights"]["got"]   # no .so yet: the weights are not "embedded in the .so"
    assert w != "embedded in the .so" and "no .so yet" in w, w
    assert "(in the .so)" not in rows["package.weights"]["expected"]
    assert "0 weight file(s) in the archive" in info.stdout
    assert "(in the .so)" not in info.stdout and "(in the .so its CMakeLists.txt builds)" in info.stdout
    p, sess = run_pkg(aotidbg, pkg, tmp_path)
    assert p.returncode == 2 and sess is None and "package_cpp_only=True" in p.stderr and "cmake -S" in p.stderr


def test_package_cpp_only_commands_build_what_aotidbg_runs(aotidbg, package, tmp_path):
    """The checklist's commands, run as written (CMake >= 3.27 on PATH), build a .so that aotidbg
    runs with every output equal to eager."""
    import re
    import shutil
    import subprocess
    pkg = package("pkg_cpp_only")
    row = cpp_only_row(aotidbg, pkg)
    cmake = shutil.which("cmake")
    ver = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout if cmake else ""
    m = re.search(r"version (\d+)\.(\d+)", ver)
    if not m or (int(m.group(1)), int(m.group(2))) < (3, 27):
        pytest.skip(f"the commands need CMake >= 3.27 (found {ver.split(chr(10))[0] or 'none'})")
    cmds = row["fix"].split("then debug that: ")[1].split(" && aotidbg run ")[0]
    cmds = cmds.replace("/tmp/aoti_build", str(tmp_path / "b"))
    r = subprocess.run(["bash", "-c", cmds], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    so = str(tmp_path / "b" / "build" / "libaoti_model.so")
    p, sess = run_pkg(aotidbg, so, tmp_path, "--device", "cpu", inputs=example(pkg)[0])
    assert p.returncode == 0, p.stderr
    assert_outputs_match(sess, example(pkg)[1])
