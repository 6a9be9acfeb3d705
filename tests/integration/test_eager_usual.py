"""--eager on packages built the usual way (printer on, no provenance, no
prepare step): tests/models/model_eager_gpt.py's 6-layer nanoGPT (float32 and
bfloat16), conv-bn net and kv-cache block, against real exported programs.

- against its own program nothing departs and at least 90% of the nanoGPT's
  kernel calls are compared (an addmm writes a 2-D view of a 3-D node; a
  cpp_fused_* call names no node and gets the graph values between its
  neighbours'); the summary says "compared K of N kernels";
- against a program with one weight row changed, the first departure is the
  first kernel that reads that weight, and the summary names the weight;
- the conv-bn net and the kv-cache block are compared in full (a kernel that lays out graph
  inputs, buffers a kernel updates in place);
- a pass that compared only part of the kernels exits 3 and lists them;
- --eager-float64 on the bfloat16 nanoGPT (attention, transposed views);
- the program's weights against the package's constants (the runner compares
  them before the model runs): the changed row is named (blocks.3.fc.weight,
  row 17; blocks.1.bn.weight, element 3), checked against torch's own
  comparison of the two programs' state dicts; the own program's weights
  equal the package's; what the package holds no constant for is said.
"""
import os
import re

import pytest

from aotidbg_testlib import events, load_session, wrapper_cpp
from conftest import MODELS_DIR, run

pytestmark = pytest.mark.usefixtures("eager_map_names")

SPECS = {
    "eager_gpt": "  - {shape: [2, 16], dtype: int64, device: cpu, fill: arange}\n",
    "eager_gpt_bf16": "  - {shape: [2, 16], dtype: int64, device: cpu, fill: arange}\n",
    "eager_convbn": "  - {shape: [2, 3, 16, 16], dtype: float32, device: cpu, fill: randn, seed: 3}\n",
    "eager_folded": "  - {shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 3}\n",
    "eager_kv": "  - {shape: [1, 4, 32], dtype: float32, device: cpu, fill: randn, seed: 3}\n"
                "  - {shape: [4], dtype: int64, device: cpu, fill: arange}\n",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """One folder for the module's sessions: their references are cached in it once."""
    d = tmp_path_factory.mktemp("eager_usual")
    for name, spec in SPECS.items():
        (d / f"{name}.yaml").write_text("inputs:\n" + spec)
    return d


def eager(aotidbg, package, work, model, program, tag, *extra):
    pkg = package(model)
    out = work / f"{model}-{tag}.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(work / f"{model}.yaml"), "--eager",
             os.path.join(MODELS_DIR, f"{model}.{program}.ep.pt2"), "--record", str(out), *extra])
    return r, load_session(out) if out.exists() else None


def weight_changes(model, program):
    """torch's own comparison of a changed program's weights with the package's program (the one it
    was compiled from): {fqn: (rows or elements of dim 0 that differ, elements that differ, numel,
    max |diff|)} for each that differs."""
    import torch
    same = torch.export.load(os.path.join(MODELS_DIR, f"{model}.same.ep.pt2")).state_dict
    other = torch.export.load(os.path.join(MODELS_DIR, f"{model}.{program}.ep.pt2")).state_dict
    out = {}
    for k, a in same.items():
        a, b = a.detach(), other[k].detach()
        if torch.equal(a, b):
            continue
        ne = a != b
        rows = ne.reshape(ne.shape[0], -1).any(1).nonzero().flatten().tolist()
        out[k] = (rows, int(ne.sum()), a.numel(), float((a.double() - b.double()).abs().max()))
    return out


def coverage(sess):
    kernels = events(sess, "kernel")
    done = [k for k in kernels if any(c["verdict"] in ("close", "differs") for c in k.get("eager") or [])]
    return len(done), len(kernels)


def said(stderr):
    m = re.search(r"compared (\d+) of (\d+) kernels", stderr)
    assert m, stderr
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("model,extra", [("eager_gpt", ()), ("eager_gpt_bf16", ()),
                                         ("eager_gpt_bf16", ("--eager-float64",))])
def test_own_program_no_departure_and_most_kernels_compared(aotidbg, package, work, model, extra):
    r, sess = eager(aotidbg, package, work, model, "same", "own" + "".join(extra), *extra)
    assert r.returncode == 0, r.stderr
    assert sess["end_state"] == "complete"
    assert not events(sess, "divergence"), r.stderr
    k, n = coverage(sess)
    assert said(r.stderr) == (k, n)
    assert n >= 40 and k >= 0.9 * n, r.stderr
    # on CPU every one is compared (50 of 50): a change to which nodes a call is compared on
    # (eager_ref_call_nodes, the CUDA Triton kernels' of issue 24) must not lose one here
    assert k == n and all(ev.get("eager") for ev in events(sess, "kernel")), r.stderr
    assert "no departure from" in r.stderr and "in any of them" in r.stderr, r.stderr
    # its weights are the package's: every one compared, byte for byte
    w = sess["eager"]["weights"]
    assert w["program"] == w["compared"] == w["equal"] == 77 and not w.get("differ"), w
    assert "weights: the program's weights equal the package's (77 compared byte for byte)" in r.stderr, r.stderr
    seen = {}
    for ev in events(sess, "kernel"):
        assert all(c["verdict"] != "differs" for c in ev.get("eager") or []), ev
        for c in ev.get("eager") or []:   # a node is compared where it is made, once
            assert c["verdict"] != "close" or seen.setdefault(c["node"], ev["index"]) == ev["index"], (c, seen)
    # the addmm calls are compared though they write a 2-D view of the 3-D node
    addmm = [ev for ev in events(sess, "kernel") if ev["name"] == "aoti_torch_cpu_addmm_out"]
    assert addmm and all(any(c["verdict"] == "close" for c in ev["eager"]) for ev in addmm)
    # the attention calls the printer does not hook (views of the qkv buffer, output handles) are
    # in the call table where they run and compared on the output they make
    att = [ev for ev in events(sess, "kernel") if "scaled_dot_product" in ev["name"]]
    assert len(att) == 6, [ev["name"] for ev in events(sess, "kernel")]
    for ev in att:
        assert sess["provenance"]["calls"][ev["call"]]["kernel"] == ev["name"], ev
        assert any(c["verdict"] == "close" and c["node"].startswith("scaled_dot_product_attention")
                   for c in ev["eager"]), ev


def test_changed_weight_departs_at_the_first_kernel_that_reads_it(aotidbg, package, work):
    r, sess = eager(aotidbg, package, work, "eager_gpt", "fc3", "fc3", "--break-on", "diverge")
    assert r.returncode == 1, r.stderr
    div = events(sess, "divergence")
    assert len(div) == 1, r.stderr
    calls = sess["provenance"]["calls"]
    kernels = events(sess, "kernel")
    readers = [k["index"] for k in kernels if k.get("call", -1) >= 0
               and "blocks.3.fc.weight" in (calls[k["call"]].get("weights") or [])]
    assert readers and div[0]["kernel"] == readers[0], (readers, div)
    assert div[0]["at"].endswith(", 17]"), div   # the changed row is output column 17
    assert "it reads blocks.3.fc.bias, blocks.3.fc.weight" in r.stderr, r.stderr
    # what changed: the parameter that differs and where, as torch sees the two programs
    want = weight_changes("eager_gpt", "fc3")
    assert list(want) == ["blocks.3.fc.weight"], want
    rows, n, numel, max_abs = want["blocks.3.fc.weight"]
    assert rows == [17] and numel == 256 * 64, want
    w = sess["eager"]["weights"]
    assert w["program"] == w["compared"] == 77 and w["equal"] == 76, w
    [d] = w["differ"]
    assert (d["fqn"], d["verdict"], d["ranges"], d["lead"], d["lead_differ"]) == \
        ("blocks.3.fc.weight", "differs", "17", 256, 1), d
    assert d["differing"] == n and d["numel"] == numel and abs(d["max_abs"] - max_abs) <= 1e-6 * max_abs, (d, want)
    assert d["first"]["index"] // 64 == 17, d
    assert ("blocks.3.fc.weight differs from the package's: 1 row of 256 (row 17), %d of 16384 elements" % n
            in r.stderr), r.stderr
    assert "blocks.3.fc.bias equals the package's (byte for byte)" in r.stderr, r.stderr
    assert "weights: 1 of the 77 weights compared differ from the package's (blocks.3.fc.weight); 76 equal" \
        in r.stderr, r.stderr
    dump = run([aotidbg, "replay", str(work / "eager_gpt-fc3.yaml"), "--dump"])
    assert dump.returncode == 0, dump.stderr
    assert "eager weights: 1 of the 77 weights compared differ" in dump.stdout, dump.stdout
    assert "  blocks.3.fc.weight differs from the package's: 1 row of 256 (row 17)" in dump.stdout, dump.stdout
    # the user's line, from the program's stack traces (the package has none)
    assert "model_eager_gpt.py:" in div[0]["where"] and "self.fc(self.ln2(x))" in div[0]["code"], div
    before = kernels[:div[0]["kernel"]]
    compared = [k for k in before if any(c["verdict"] == "close" for c in k.get("eager") or [])]
    assert before and not any(c["verdict"] == "differs" for k in before for c in k.get("eager") or [])
    if len(compared) == len(before):
        assert f"the {len(before)} kernels before it match" in r.stderr, r.stderr
    else:   # the attention calls before it are kernel events that were not compared: said so
        assert all("attention" in k["name"] for k in before if k not in compared), before
        assert f"the {len(compared)} compared match" in r.stderr and "were not compared" in r.stderr, r.stderr


def test_conv_bn_changed_batch_norm_departs_at_its_kernel(aotidbg, package, work):
    r, sess = eager(aotidbg, package, work, "eager_convbn", "bn1", "bn1")
    div = events(sess, "divergence")
    assert len(div) == 1, r.stderr
    k = events(sess, "kernel")[div[0]["kernel"]]
    assert "batch_norm" in k["name"], k
    assert "blocks.1.bn.weight" in sess["provenance"]["calls"][k["call"]]["weights"], k
    # the changed batch-norm weight is named, and where (torch's comparison of the programs)
    want = weight_changes("eager_convbn", "bn1")
    assert list(want) == ["blocks.1.bn.weight"] and want["blocks.1.bn.weight"][0] == [3], want
    assert "blocks.1.bn.weight differs from the package's: 1 of 16 elements (element 3)" in r.stderr, r.stderr
    w = sess["eager"]["weights"]
    differ = [d for d in w["differ"] if d["verdict"] == "differs"]
    assert [(d["fqn"], d["ranges"], d["differing"]) for d in differ] == [("blocks.1.bn.weight", "3", 1)], w
    # what the package holds no constant for (wrapper.cpp's constants_info_) is said, not compared
    held = set(re.findall(r'constants_info_\[\d+\]\.original_fqn = "([^"]+)"', wrapper_cpp(package("eager_convbn"))))
    nopkg = {d["fqn"] for d in w["differ"] if d["verdict"] == "no-package"}
    assert held and nopkg and not held & nopkg and w["compared"] == len(held), (held, w)
    assert w["compared"] + len(nopkg) == w["program"], w
    assert "the package holds no constant for" in r.stderr, r.stderr
    # the kernels before it are only said to match if each was compared
    before = events(sess, "kernel")[:div[0]["kernel"]]
    if all(any(c["verdict"] == "close" for c in b.get("eager") or []) for b in before):
        assert "kernels before it match" in r.stderr, r.stderr
    else:
        assert "were not compared: the departure may start there" in r.stderr, r.stderr


@pytest.mark.parametrize("model", ["eager_convbn", "eager_kv"])
def test_conv_bn_and_kv_cache_are_compared_in_full(aotidbg, package, work, model):
    """The conv-bn net's first kernel only lays out the input and the first weight for the
    convolution (compared with those graph inputs); the kv block's index_copy kernel writes the
    cache buffers in place (re-instrumentation saves the constants a printed kernel writes)."""
    r, sess = eager(aotidbg, package, work, model, "same", "own")
    assert r.returncode == 0, r.stderr
    assert not events(sess, "divergence"), r.stderr
    k, n = coverage(sess)
    assert said(r.stderr) == (k, n) and k == n and n >= 5, r.stderr
    held = {c["node"]: c.get("tensor") for ev in events(sess, "kernel") for c in ev.get("eager") or []
            if c["verdict"] == "close"}
    w = sess["eager"]["weights"]
    assert w["compared"] == w["equal"] > 0 and not [d for d in w.get("differ") or [] if d["verdict"] == "differs"], w
    assert "the program's weights equal the package's (%d compared byte for byte)" % w["compared"] in r.stderr
    if model == "eager_convbn":
        assert held.get("x") and held.get("p_blocks_0_conv_weight"), held
    else:
        assert held.get("index_copy_") == "k_cache" and held.get("index_copy__1") == "v_cache", held


def test_a_partial_comparison_says_so_and_exits_3(aotidbg, package, work):
    """Without re-instrumentation the kv block's attention call and the cache it writes are not
    seen: the run compares the rest, says which were not and exits 3."""
    r, sess = eager(aotidbg, package, work, "eager_kv", "same", "plain", "--no-reinstrument")
    assert not events(sess, "divergence"), r.stderr
    k, n = coverage(sess)
    assert said(r.stderr) == (k, n) and 0 < k < n, r.stderr
    assert r.returncode == 3, r.stderr
    assert "in those compared" in r.stderr and "not compared: kernel" in r.stderr, r.stderr
    assert "aotidbg_prepare.py" in r.stderr


def test_a_changed_graph_is_a_structural_difference(aotidbg, package, tmp_path):
    """tests/models/model_eager.py's relu blocks against the same weights with gelu: the
    package's kernels name relu nodes the program does not have, and the run says so."""
    import importlib.util
    import torch
    from conftest import ROOT
    pkg = package("eager_blocks")
    spec = importlib.util.spec_from_file_location("model_eager", os.path.join(ROOT, "tests/models/model_eager.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.Blocks(act=torch.nn.functional.gelu).eval()
    m.load_state_dict(torch.export.load(os.path.join(MODELS_DIR, "eager_blocks.same.ep.pt2")).state_dict)
    prog = str(tmp_path / "gelu.ep.pt2")
    torch.export.save(torch.export.export(m, (torch.randn(4, 16),)), prog)
    (tmp_path / "in.yaml").write_text("inputs:\n  - {shape: [4, 16], dtype: float32, device: cpu, fill: randn, seed: 3}\n")
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--eager", prog, "--record",
             str(tmp_path / "gelu.yaml")])
    assert "a structural difference: the package's kernels name" in r.stderr, r.stderr
    assert "relu" in r.stderr.split("a structural difference")[1].split("\n")[0], r.stderr


def test_weights_of_another_dtype_are_said_as_such(aotidbg, package, work):
    """The float32 nanoGPT against its bfloat16 program: every weight differs in dtype, said as
    such (its values are not compared), and the departing kernel's weights are named."""
    package("eager_gpt_bf16")   # makes its program
    out = work / "eager_gpt-bf16prog.yaml"
    r = run([aotidbg, "run", package("eager_gpt"), "--inputs", str(work / "eager_gpt.yaml"), "--eager",
             os.path.join(MODELS_DIR, "eager_gpt_bf16.same.ep.pt2"), "--record", str(out)])
    w = load_session(out)["eager"]["weights"]
    assert w["program"] == w["compared"] == 77 and not w.get("equal"), w
    assert {(d["verdict"], d["dtype"], d["package_dtype"]) for d in w["differ"]} == \
        {("dtype", "bfloat16", "float32")}, w
    assert "weights: 77 of the 77 weights compared differ from the package's (in dtype: tok.weight" in r.stderr, \
        r.stderr
    assert "dtype bfloat16 in the program, float32 in the package (values not compared)" in r.stderr, r.stderr


def test_constant_folded_constants_are_not_compared_and_their_source_is_named(aotidbg, package, work):
    """tests/models/model_eager_folded.py: the package folds relu(w_pre.t()) + b into constants at run
    time (wrapper.cpp: from_folded). They have no program weight: said not compared; the program's
    weights are compared, and against the program with a changed w_pre row, w_pre is named with it."""
    info = {}
    for i, key, val in re.findall(r'constants_info_\[(\d+)\]\.(from_folded|original_fqn) = ([^;]+);',
                                  wrapper_cpp(package("eager_folded"))):
        info.setdefault(i, {})[key] = val.strip('"')
    folded = [c["original_fqn"] for c in info.values() if c.get("from_folded") == "true"]
    assert folded, "the package has no constant-folded constant"
    r, sess = eager(aotidbg, package, work, "eager_folded", "same", "own")
    assert r.returncode in (0, 3), r.stderr
    w = sess["eager"]["weights"]
    assert w["program"] == w["compared"] == w["equal"] == 4 and w["folded"] == len(folded), w
    assert sorted(d["fqn"] for d in w["differ"] if d["verdict"] == "folded") == sorted(folded), w
    assert ("the program's weights equal the package's (4 compared byte for byte); %d constant-folded constants of "
            "the package (no program weight), not compared" % len(folded)) in r.stderr, r.stderr
    want = weight_changes("eager_folded", "wpre")
    assert list(want) == ["w_pre"] and want["w_pre"][0] == [2], want
    r, sess = eager(aotidbg, package, work, "eager_folded", "wpre", "wpre")
    assert "w_pre differs from the package's: 1 row of 8 (row 2), %d of 64 elements" % want["w_pre"][1] in r.stderr, \
        r.stderr
