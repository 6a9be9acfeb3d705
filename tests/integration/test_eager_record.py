"""The compiler's record (--eager-map compiler, the default) where it does not fit the package:

- a program whose graph changed from its first op on (relu became gelu): the lowered call statements differ
  from the package's at call 0, so nothing is compared; the run says where and why, prints no verdict
  ("compared 0 of N kernels: no verdict", never "no departure") and exits 3;
- the same program changed only after its first kernel: the kernels before the difference are compared
  (and close), the rest are not, and the note names the call;
- --eager-map takes compiler or names only (exit 2).
"""
import os

import pytest

from aotidbg_testlib import load_session
from conftest import MODELS_DIR, run

SRC = '''
import sys, torch
class M(torch.nn.Module):
    def __init__(s, first, second):
        super().__init__()
        s.first, s.second = first, second
        s.a = torch.nn.Linear(16, 32)
        s.b = torch.nn.Linear(32, 8)
    def forward(s, x):
        return s.b(s.second(s.a(s.first(x))))
acts = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "tanh": torch.tanh}
out, first, second, package = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
torch.manual_seed(0)
m = M(acts[first], acts[second]).eval()
ep = torch.export.export(m, (torch.randn(4, 16),))
torch.export.save(ep, out + ".ep.pt2")
if package:
    torch._inductor.aoti_compile_and_package(ep, package_path=out + ".pt2")
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import subprocess
    import sys
    d = os.path.join(MODELS_DIR, "record")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "acts.py")
    with open(src, "w") as f:
        f.write(SRC)
    for name, first, second, pkg in (("relu_tanh", "relu", "tanh", "1"), ("gelu_tanh", "gelu", "tanh", "0"),
                                     ("relu_gelu", "relu", "gelu", "0")):
        if not os.path.exists(os.path.join(d, name + ".ep.pt2")) or (pkg == "1" and not
                                                                     os.path.exists(os.path.join(d, name + ".pt2"))):
            subprocess.run([sys.executable, src, os.path.join(d, name), first, second, pkg], check=True,
                           capture_output=True, timeout=900)
    work = tmp_path_factory.mktemp("record")
    (work / "in.yaml").write_text("inputs:\n  - {shape: [4, 16], dtype: float32, device: cpu, fill: randn, seed: 2}\n")
    return d, work


def eager(aotidbg, built, program, tag, *extra):
    d, work = built
    out = work / f"{tag}.yaml"
    r = run([aotidbg, "run", os.path.join(d, "relu_tanh.pt2"), "--inputs", str(work / "in.yaml"), "--eager",
             os.path.join(d, program + ".ep.pt2"), "--record", str(out), *extra])
    return r, load_session(out) if out.exists() else None


def test_a_record_that_differs_from_the_first_call_compares_nothing_and_says_so(aotidbg, built):
    r, s = eager(aotidbg, built, "gelu_tanh", "first")
    assert r.returncode == 3, r.stderr
    assert "compared 0 of" in r.stderr and "no verdict" in r.stderr, r.stderr
    assert "no departure" not in r.stderr, r.stderr
    note = s["eager"]["map_note"]
    assert "kernel call 0" in note and "relu" in note and "gelu" in note, note
    assert not [e for e in s["events"] if e["kind"] == "divergence"]


def test_a_record_that_differs_later_compares_the_kernels_before(aotidbg, built):
    r, s = eager(aotidbg, built, "relu_gelu", "later")
    note = s["eager"]["map_note"]
    assert "not compared" in note and "tanh" in note and "gelu" in note, note
    kernels = [e for e in s["events"] if e["kind"] == "kernel"]
    checked = [k for k in kernels if any(c["verdict"] in ("close", "differs") for c in k.get("eager") or [])]
    assert checked and len(checked) < len(kernels), [(k["name"], k.get("eager")) for k in kernels]
    assert all(c["verdict"] == "close" for k in checked for c in k["eager"]), checked
    assert r.returncode == 3, r.stderr   # only part was compared


def test_eager_map_takes_compiler_or_names(aotidbg, built):
    r, _ = eager(aotidbg, built, "relu_tanh", "bad", "--eager-map", "guess")
    assert r.returncode == 2 and "--eager-map guess: expected compiler or names" in r.stderr, r.stderr
