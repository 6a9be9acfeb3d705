"""--eager on the zoo's fast part (tests/zoo/zoo_models.py CI_SUBSET: a rotary-embedding decoder with
grouped-query attention, a ViT stem with its cls token and LayerNorm, a float16 GroupNorm UNet, a bfloat16
mixture of experts, a conv net with batch norm), each built the usual way (no printer, no provenance),
with the default map (the compiler's record) and the float64 yardstick:

- against its own program: no departure, at least 90% of the kernels compared;
- against a program with one weight row changed: the first departure is the first kernel whose call
  passes that weight (wrapper.cpp, the session's provenance), a layout or copy kernel included;
- the verdict of a kernel beyond eager's tolerance says its yardstick (float64), and the run's eager
  summary names the map it used; on bf16_upcast (float32 softmax after fused bfloat16 math, closer to
  float64 than eager's rounding) the float64 yardstick is what keeps the own program from departing.

The whole zoo (Hugging Face transformers too) is `python3 tests/zoo/zoo_eager.py`, outside CI.
"""
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "zoo"))
import zoo_eager  # noqa: E402
import zoo_models  # noqa: E402

BUILD = os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build"))
CACHE = os.path.join(os.environ.get("AOTIDBG_MODELS_DIR", os.path.join(ROOT, "build", "test-models")), "zoo")


@pytest.mark.parametrize("name", zoo_models.CI_SUBSET)
def test_zoo_model(name):
    cells, counted, ok = zoo_eager.check(os.path.join(BUILD, "aotidbg"), name, CACHE, "cpu")
    assert counted, cells
    assert ok, "\t".join(cells)
    d, _ = zoo_eager.build(name, CACHE, "cpu")
    own = zoo_eager.load(os.path.join(d, "own.yaml"))
    assert own["eager"]["map"] == "compiler"
    changed = zoo_eager.load(os.path.join(d, "changed.yaml"))
    div = [e for e in changed["events"] if e["kind"] == "divergence"][0]
    assert div["check"].get("yardstick") in ("eager", "float64"), div["check"]
    if name == "bf16_upcast":
        # the float32 softmax after fused bfloat16 math is beyond float32's tolerance against eager, and
        # nearer float64 than eager is: close by the float64 yardstick, which the summary names
        checks = [c for e in own["events"] if e["kind"] == "kernel" for c in e.get("eager") or []]
        by64 = [c for c in checks if c.get("yardstick") == "float64" and c["verdict"] == "close"]
        assert by64 and all(c["err64"] <= c["eager_err64"] * 2 + 1e-3 for c in by64), checks
        assert any(c["differing"] > 0 for c in by64), by64   # beyond eager's tolerance: the gate decided
