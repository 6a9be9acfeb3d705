"""The eager reference (issue 18): `aotidbg run PKG --eager PROGRAM.pt2`.

Real CPU packages (tests/models/model_eager.py) against real exported
programs, run eagerly by the runner with libtorch (`aotidbg-runner
--eager-ref`, the common path) or by core/prepare/aotidbg_eager.py (the
fallback), and compared kernel by kernel in the runner:
- a package against its own program: no kernel departs, exit 0;
- a stale package against a changed program (one layer's weights changed):
  the first kernel that departs is the first kernel that reads the changed
  weight, as the package's own kernel_information.json and the program's
  graph say; --break-on diverge stops there and exits 1;
- a float16 package: its small numeric differences from eager float16 stay
  within the default tolerances;
- the reference is computed once: a second run starts no Python;
- both ways give the same manifest and the same values on one model; a
  program the runner cannot interpret (symbolic shapes) falls back to Python
  and says so;
- bad programs, options and a failing helper get clear errors.
"""
import json
import os
import zipfile

import pytest

from aotidbg_testlib import events, load_session, write_spec
from conftest import MODELS_DIR, run

pytestmark = pytest.mark.usefixtures("eager_map_names")

SPEC = "inputs:\n  - {shape: [%s], dtype: %s, device: cpu, fill: randn, seed: 3}\n"


@pytest.fixture(scope="module")
def blocks(package):
    pkg = package("eager_blocks")
    return pkg, {s: os.path.join(MODELS_DIR, f"eager_blocks.{s}.ep.pt2") for s in ("same", "ln1", "fc2")}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """One folder for the module's sessions: their references are cached in it once."""
    d = tmp_path_factory.mktemp("eager")
    (d / "in.yaml").write_text(SPEC % ("4, 16", "float32"))
    return d


def eager_run(aotidbg, pkg, program, work, name, *extra, env=None):
    out = work / name
    r = run([aotidbg, "run", pkg, "--inputs", str(work / "in.yaml"), "--eager", program, "--record", str(out),
             *extra], env=env)
    return r, out


def kernel_checks(sess):
    return [(k["index"], k["name"], k.get("eager") or []) for k in events(sess, "kernel")]


def first_reader(pkg, program, fqn):
    """The kernel_information.json handle of the first kernel call that reads
    weight fqn: the first call whose pre_grad_nodes hold a user of the
    weight's placeholder in the program's graph."""
    import torch
    ep = torch.export.load(program)
    ph = [n for n, p in ep.graph_signature.inputs_to_parameters.items() if p == fqn]
    assert len(ph) == 1, ep.graph_signature.inputs_to_parameters
    node = next(n for n in ep.graph.nodes if n.name == ph[0])
    users = {u.name for u in node.users}
    with zipfile.ZipFile(pkg) as z:
        name = next(n for n in z.namelist() if n.endswith("/kernel_information.json"))
        info = json.loads(z.read(name))
    for handle, entry in info.items():   # calls in code-generation order
        if users & set(entry.get("pre_grad_nodes") or []):
            return handle
    raise AssertionError(f"no call of {pkg} reads {fqn} ({users})")


def test_own_program_nothing_departs(aotidbg, blocks, work):
    pkg, progs = blocks
    r, out = eager_run(aotidbg, pkg, progs["same"], work, "same.yaml", "--break-on", "diverge")
    assert r.returncode == 0, r.stderr
    assert "no departure from" in r.stderr, r.stderr
    assert "computed by the runner with libtorch" in r.stderr, r.stderr   # no Python in the common case
    sess = load_session(out)
    assert sess["end_state"] == "complete"
    assert sess["eager"]["program"] == os.path.realpath(progs["same"])
    assert sess["eager"]["computed_by"] == "runner"
    assert sess["eager"]["refs"] >= len(sess["provenance"]["calls"]) > 3
    assert not events(sess, "divergence")
    checks = kernel_checks(sess)
    assert all(c for _, _, c in checks), "every kernel call names a node with provenance"
    for idx, name, cs in checks:
        for c in cs:
            assert c["verdict"] == "close", (idx, name, c)
            assert c["compared"] > 0 and c["differing"] == 0 and c["tensor"].startswith("buf"), c
            assert c["max_abs"] <= c["atol"] + c["rtol"] * 10, c


@pytest.mark.parametrize("which,fqn", [("ln1", "blocks.1.ln.weight"), ("fc2", "blocks.2.fc.weight")])
def test_stale_package_departs_at_the_first_reader_of_the_changed_weight(aotidbg, blocks, work, which, fqn):
    pkg, progs = blocks
    want_handle = first_reader(pkg, progs[which], fqn)
    r, out = eager_run(aotidbg, pkg, progs[which], work, f"{which}.yaml", "--break-on", "diverge")
    assert r.returncode == 1, r.stderr
    assert "departs from eager at kernel" in r.stderr, r.stderr
    sess = load_session(out)
    assert sess["end_state"] == "stopped"
    div = events(sess, "divergence")
    assert len(div) == 1, div
    d = div[0]
    kernels = events(sess, "kernel")
    k = kernels[d["kernel"]]
    assert k["name"] == d["name"]
    assert sess["provenance"]["calls"][k["call"]]["handle"] == want_handle
    assert d["kernel"] == len(kernels) - 1, "the run stopped right after it"
    # every kernel before it matched the changed program
    for before in kernels[:d["kernel"]]:
        assert before["eager"] and all(c["verdict"] == "close" for c in before["eager"]), before
    c = d["check"]
    assert c["verdict"] == "differs" and c["differing"] > 0 and c["first"] >= 0
    assert abs(c["got"] - c["want"]) > c["atol"] + c["rtol"] * abs(c["want"])
    assert d["at"].startswith("[") and d["where"].endswith(".py:" + d["where"].rsplit(":", 1)[1])
    assert "model_eager.py" in d["where"] and "self.ln(self.fc(x))" in d["code"]


def test_without_break_the_run_goes_on_and_exits_0(aotidbg, blocks, work):
    pkg, progs = blocks
    r, out = eager_run(aotidbg, pkg, progs["fc2"], work, "fc2-all.yaml")
    assert r.returncode == 0, r.stderr
    sess = load_session(out)
    assert sess["end_state"] == "complete"
    assert len(events(sess, "divergence")) == 1   # the first one only
    verdicts = [c["verdict"] for _, _, cs in kernel_checks(sess) for c in cs]
    assert "differs" in verdicts and verdicts[-1] == "differs"   # it carries on to the output


def test_the_reference_is_computed_once(aotidbg, blocks, work):
    pkg, progs = blocks
    env = dict(os.environ, AOTIDBG_PYTHON="/bin/false")   # no Python may start now
    r, out = eager_run(aotidbg, pkg, progs["same"], work, "again.yaml", env=env)
    assert r.returncode == 0, r.stderr
    assert "cached" in r.stderr, r.stderr
    assert load_session(out)["eager"]["dir"] == load_session(work / "same.yaml")["eager"]["dir"]
    assert os.path.isdir(os.path.join(work, ".aotidbg-eager"))


def manifest(sess):
    """The reference's manifest, and its folder."""
    d = sess["eager"]["dir"]
    (m,) = [f for f in os.listdir(d) if f.startswith("manifest-")]
    with open(os.path.join(d, m)) as f:
        return json.load(f), d


OPS_SPEC = SPEC % ("4, 16", "float32") + "  - {shape: [4], dtype: int64, device: cpu, fill: randn, seed: 4}\n"


@pytest.mark.parametrize("model,f64", [("eager_blocks", False), ("eager_blocks", True), ("eager_ops", False)],
                         ids=["float32", "float64", "ops"])
def test_runner_and_python_give_the_same_reference(aotidbg, package, tmp_path, model, f64):
    """The same program and inputs through both ways: the same calls, references,
    dtypes, shapes and scales, and the same values bit for bit (both call the
    same ATen kernels on the CPU). eager_ops (tests/models/model_eager_ops.py)
    holds the argument and result kinds the runner maps; nothing departs there."""
    import numpy as np
    pkg = package(model)
    prog = os.path.join(MODELS_DIR, f"{model}.{'ln1' if model == 'eager_blocks' else 'same'}.ep.pt2")
    (tmp_path / "in.yaml").write_text(OPS_SPEC if model == "eager_ops" else SPEC % ("4, 16", "float32"))
    got = {}
    for way in ("runner", "python"):
        (tmp_path / way).mkdir()
        out = tmp_path / way / "s.yaml"
        r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", prog,
                 "--record", str(out), *(["--eager-float64"] if f64 else [])],
                env=dict(os.environ, AOTIDBG_EAGER_WITH=way))
        assert r.returncode == 0, r.stderr
        if model == "eager_ops":
            assert "no departure from" in r.stderr, r.stderr
        got[way] = manifest(load_session(out))
    (a, ad), (b, bd) = got["runner"], got["python"]
    assert a["computed_by"] == "runner" and b["computed_by"] == "python"
    assert [(c["kernel"], c["occurrence"], c["missing"]) for c in a["calls"]] == \
           [(c["kernel"], c["occurrence"], c["missing"]) for c in b["calls"]]
    n = 0
    for ca, cb in zip(a["calls"], b["calls"]):
        assert [(x["node"], x["dtype"], x["shape"]) for x in ca["refs"]] == \
               [(x["node"], x["dtype"], x["shape"]) for x in cb["refs"]], (ca, cb)
        for x, y in zip(ca["refs"], cb["refs"]):
            assert x["scale"] == pytest.approx(y["scale"], rel=1e-12), (x, y)
            va, vb = np.load(os.path.join(ad, x["file"])), np.load(os.path.join(bd, y["file"]))
            assert va.dtype == vb.dtype and np.array_equal(va, vb), x["node"]
            assert va.dtype == np.float64 or not f64, x["node"]
            n += 1
    assert n >= len(a["calls"]) > 3


def test_the_fork_of_the_model_runner_computes_what_its_own_process_does(aotidbg, blocks, tmp_path):
    """The reference computed in a fork of the model's runner (libtorch started once, the
    default) and by `aotidbg-runner --eager-ref` started on its own (AOTIDBG_EAGER_FORK=0):
    the runner.log says which did, the files are the same bit for bit, no staging folder is
    left, and the verdicts are the same."""
    pkg, progs = blocks
    (tmp_path / "in.yaml").write_text(SPEC % ("4, 16", "float32"))
    got = {}
    for way in ("fork", "own"):
        (tmp_path / way).mkdir()
        out = tmp_path / way / "s.yaml"
        env = dict(os.environ, AOTIDBG_EAGER_WITH="runner", **({"AOTIDBG_EAGER_FORK": "0"} if way == "own" else {}))
        r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", progs["ln1"],
                 "--record", str(out)], env=env)
        assert r.returncode == 0, r.stderr
        sess = load_session(out)
        m, d = manifest(sess)
        with open(os.path.join(d, "runner.log")) as f:
            log = f.read()
        assert ("in a fork of the model's runner" in log) == (way == "fork"), log
        assert sorted(os.listdir(d)) == sorted(["nodes", "runner.log", "inputs.json"] +
                                               [f for f in os.listdir(d) if f.split("-")[0] in
                                                ("plan", "calls", "manifest")]), os.listdir(d)
        files = {}
        for f in sorted(os.listdir(os.path.join(d, "nodes"))):
            assert f.endswith(".npy") or f == "absmax.json", f
            with open(os.path.join(d, "nodes", f), "rb") as fh:
                files[f] = fh.read()
        verdicts = [(i, n, [c["verdict"] for c in cs]) for i, n, cs in kernel_checks(sess)]
        got[way] = (m, files, verdicts, len(events(sess, "divergence")))
    assert got["fork"] == got["own"]
    assert len(got["fork"][1]) > 4 and got["fork"][3] >= 1   # ln1 departs: the compare ran on them


def test_a_program_the_runner_cannot_do_falls_back_to_python(aotidbg, blocks, tmp_path):
    """The same weights behind a reshape to the batch size, exported with a
    dynamic batch: the program computes with a symbolic int (sym_size), which
    the runner does not interpret; it says so, Python computes the reference,
    nothing departs. (A dynamic batch alone is fine for the runner: it runs the
    graph on the concrete inputs.)"""
    import importlib.util
    import torch
    from conftest import ROOT
    pkg, progs = blocks
    spec = importlib.util.spec_from_file_location("model_eager", os.path.join(ROOT, "tests/models/model_eager.py"))
    model_eager = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model_eager)
    blocks_m = model_eager.Blocks().eval()
    blocks_m.load_state_dict(torch.export.load(progs["same"]).state_dict)

    class Flat(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = blocks_m

        def forward(self, x):
            return self.m(x.reshape(x.shape[0], -1))

    batch = torch.export.Dim("batch", min=2, max=64)
    dyn = torch.export.export(Flat().eval(), (torch.randn(4, 16),), dynamic_shapes=({0: batch},))
    prog = str(tmp_path / "dynamic.ep.pt2")
    torch.export.save(dyn, prog)
    (tmp_path / "in.yaml").write_text(SPEC % ("4, 16", "float32"))
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", prog, "--break-on", "diverge",
             "--record", str(tmp_path / "dyn.yaml")])
    assert r.returncode == 0, r.stderr
    assert "computed by Python (aotidbg_eager.py) because the runner could not:" in r.stderr, r.stderr
    assert "symbolic" in r.stderr, r.stderr
    sess = load_session(tmp_path / "dyn.yaml")
    assert not events(sess, "divergence") and sess["eager"]["computed_by"] == "python"
    # its weights are still compared (read without its graph), each with the package's constant of its
    # name under the wrapper's module ("m.fc1.weight" for "fc1.weight"), and that is said
    w = sess["eager"]["weights"]
    nopkg = [d for d in w["differ"] if d["verdict"] == "no-package"]   # a constant its kernels inline
    assert w["compared"] == w["equal"] == w["program"] - len(nopkg) > 0, w
    assert all(d["verdict"] == "equal" and d["note"] == "matched to the package's " + d["fqn"][2:]
               for d in w["differ"] if d not in nopkg) and len(w["differ"]) == w["program"], w
    assert "the program's weights equal the package's (%d compared byte for byte)" % w["compared"] in r.stderr
    assert "%d matched by name under other modules (m.blocks.0.fc.weight: blocks.0.fc.weight)" % w["compared"] \
        in r.stderr, r.stderr
    # asked for the runner only (and a folder without that reference), the same program is an error that says why
    (tmp_path / "only").mkdir()
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", prog,
             "--record", str(tmp_path / "only" / "only.yaml")], env=dict(os.environ, AOTIDBG_EAGER_WITH="runner"))
    assert r.returncode == 2 and "AOTIDBG_EAGER_WITH=runner" in r.stderr and "symbolic" in r.stderr, r.stderr


def test_tolerance_option(aotidbg, blocks, work):
    pkg, progs = blocks
    r, out = eager_run(aotidbg, pkg, progs["fc2"], work, "loose.yaml", "--break-on", "diverge",
                       "--tolerance", "100,100")
    assert r.returncode == 0, r.stderr
    sess = load_session(out)
    assert sess["eager"]["atol"] == 100 and sess["eager"]["rtol"] == 100
    assert not events(sess, "divergence")


def test_file_inputs_are_the_runners_bytes(aotidbg, blocks, tmp_path):
    import torch
    pkg, progs = blocks
    torch.manual_seed(11)
    spec = write_spec(tmp_path, [torch.randn(4, 16)])
    out = tmp_path / "file.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--eager", progs["same"], "--break-on", "diverge",
             "--record", str(out)])
    assert r.returncode == 0, r.stderr
    sess = load_session(out)
    assert not events(sess, "divergence")
    assert all(c["verdict"] == "close" for _, _, cs in kernel_checks(sess) for c in cs)
    ref = sess["eager"]["dir"]
    assert os.path.getsize(os.path.join(ref, "input-0.raw")) == 4 * 16 * 4


def test_float16_differences_stay_within_the_defaults(aotidbg, package, tmp_path):
    pkg = package("eager_half")
    (tmp_path / "in.yaml").write_text(SPEC % ("8, 32", "float16"))
    out = tmp_path / "half.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager",
             os.path.join(MODELS_DIR, "eager_half.same.ep.pt2"), "--break-on", "diverge", "--record", str(out)])
    assert r.returncode == 0, r.stderr
    sess = load_session(out)
    assert not events(sess, "divergence")
    checks = [c for _, _, cs in kernel_checks(sess) for c in cs]
    assert checks and all(c["verdict"] == "close" for c in checks), checks
    # the fused kernels really do round differently from eager float16
    assert any(c["max_abs"] > 0 for c in checks), checks
    assert all(c["rtol"] == pytest.approx(1e-3) for c in checks)


def test_usage_errors(aotidbg, blocks, work, tmp_path):
    pkg, progs = blocks
    spec = str(work / "in.yaml")
    cases = [
        (["--break-on", "diverge"], "--break-on diverge goes with --eager"),
        (["--tolerance", "1e-3,1e-3"], "--tolerance goes with --eager"),
        (["--eager", progs["same"], "--tolerance", "1e-3"], "--tolerance needs ATOL,RTOL"),
        (["--eager", progs["same"], "--eager-device", "tpu"], "--eager-device takes cpu, cuda or cuda:N"),
        (["--eager", str(tmp_path / "missing.pt2")], "missing.pt2: No such file"),
    ]
    for extra, want in cases:
        r = run([aotidbg, "run", pkg, "--inputs", spec, "--record", str(tmp_path / "u.yaml"), *extra])
        assert r.returncode == 2, (extra, r.stderr)
        assert want in r.stderr, (extra, r.stderr)


def test_a_package_is_not_a_program(aotidbg, blocks, tmp_path):
    pkg, _ = blocks
    (tmp_path / "in.yaml").write_text(SPEC % ("4, 16", "float32"))
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", pkg, "--record",
             str(tmp_path / "bad.yaml")])
    assert r.returncode == 2, r.stderr
    assert "not compared: the eager reference failed" in r.stderr and "not a torch.export.save file" in r.stderr
    assert "the runner could not either: " in r.stderr and "no models/*.json" in r.stderr, r.stderr
    sess = load_session(tmp_path / "bad.yaml")
    assert any("eager reference failed" in e["text"] for e in events(sess, "error"))
    assert not events(sess, "output")
    assert sess["end_state"] == "no-reference"   # its own end state, not "killed"


def test_tui_hunt_and_inspector_against_eager(aotidbg, blocks, work):
    """Replay of the stale run: hunt-diverge (no --reference) finds the
    divergence event's kernel, the inspector shows the tensor against its eager
    node, ref-eager attaches the node's value; live: the same hunt runs to it."""
    pkg, progs = blocks
    if not (work / "ln1.yaml").exists():   # the stale-package test records it, when it runs first
        eager_run(aotidbg, pkg, progs["ln1"], work, "ln1.yaml", "--break-on", "diverge")
    sess = load_session(work / "ln1.yaml")
    d = events(sess, "divergence")[0]
    want = f"hunt-diverge: kernel #{d['kernel']} {d['name']}, tensor {d['check']['tensor']}, first bad index {d['at']}"
    r = run([aotidbg, "replay", str(work / "ln1.yaml"), "--headless", "140x44", "--keys", "hunt-diverge",
             "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert want in r.stdout, r.stdout
    assert "departs from the eager program" in r.stdout and f"node {d['check']['node']}" in r.stdout, r.stdout
    r = run([aotidbg, "replay", str(work / "ln1.yaml"), "--headless", "160x44", "--keys",
             "hunt-diverge q ref-eager", "--dump-screen"])
    assert f"after vs eager {d['check']['node']}: departs at {d['at']}" in r.stdout, r.stdout
    assert "DIV" in r.stdout, r.stdout
    assert f"vs {d['check']['node']}.npy (statistics only" in r.stdout, r.stdout   # the run kept no values
    # live: the runner continues to the first departure and stops there
    r = run([aotidbg, pkg, "--inputs", str(work / "in.yaml"), "--eager", progs["ln1"], "--record",
             str(work / "live.yaml"), "--headless", "140x44", "--keys", "hunt-diverge", "--dump-screen"],
            cwd=str(work))
    assert want in r.stdout, r.stdout


def test_walkthrough_is_a_real_stale_run():
    """sessions/tutorials/07 is a run of the eager_blocks package against the
    program whose blocks.1.ln.weight changed: it stopped at the first kernel that
    passes that weight, every kernel before it close."""
    from conftest import ROOT
    sess = load_session(os.path.join(ROOT, "sessions", "tutorials", "07-stale-vs-eager.yaml"))
    assert sess["eager"]["program"].endswith("eager_blocks.ln1.ep.pt2") and len(sess["package"]["sha256"]) == 64
    assert sess["end_state"] == "stopped"
    (d,) = events(sess, "divergence")
    kernels = events(sess, "kernel")
    call = sess["provenance"]["calls"][kernels[d["kernel"]]["call"]]
    assert "blocks.1.ln.weight" in call["weights"], call
    assert all(c["verdict"] == "close" for k in kernels[:d["kernel"]] for c in k["eager"])
    assert not any("blocks.1.ln.weight" in sess["provenance"]["calls"][k["call"]]["weights"]
                   for k in kernels[:d["kernel"]])
