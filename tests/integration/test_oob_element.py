"""Index out of bounds down to the element (issue 17 item 2), on real CPU packages.

Each case runs a real AOTI package whose generated C++ kernel checks `0 <= tmpN < bound` and fails:
an embedding fed the id 137 for a 100-row table (literal bound, the table a weight), the same fed
-3 (`0 <= tmpN` fails: embeddings do not wrap negative ids), index_put and scatter past the 8 rows of
their target (one fused kernel, two checks), and index_select from a table whose row count is dynamic
(the bound `ks1` is input 0's dim 0). For each: `aotidbg run` records the tensor, its multi-index,
the value, the bound and what the bound is in the error event; `route S.yaml` (text and yaml) and
`replay --dump` show them. The models: tests/models/model_oob.py and model_router.py."""
import os

import numpy as np
import pytest
import yaml

from conftest import ROOT, run

# name: (package, inputs as (dtype, array or ("randn", shape)), --values, expected fields)
CASES = {
    "embedding-137": ("oob_embedding", [np.array([[1, 5, 7, 2], [9, 3, 137, 8]])], 64,
                      {"index_tensor": "arg1_1", "index_at": "[1, 2]", "index_value": "137", "bound_value": "100",
                       "valid_range": "[0, 100)", "bound_of": "dim 0 of the weight emb.weight [100, 16] (read at the index)"}),
    "embedding-negative": ("oob_embedding", [np.array([[1, 5, 7, 2], [9, -3, 4, 8]])], 64,
                           {"index_at": "[1, 1]", "index_value": "-3", "valid_range": "[0, 100)"}),
    # no values kept: the statistics' position of the largest value names the element
    "embedding-stats-only": ("oob_embedding", [np.array([[1, 5, 7, 2], [9, 3, 137, 8]])], 0,
                             {"index_at": "[1, 2]", "index_value": "137"}),
    "index_put": ("oob_scatter", [np.zeros((8, 4), np.float32), np.array([0, 9, 5]),
                                  np.array([[0, 1, 2, 3], [4, 5, 6, 7]]), np.ones((2, 4), np.float32)], 64,
                  {"index_tensor": "arg1_1", "index_at": "[1]", "index_value": "9", "valid_range": "[-8, 8)",
                   "bound_value": "8", "bound_of": "dim 0 of buf0 [8, 4] (written at the index)"}),
    "scatter": ("oob_scatter", [np.zeros((8, 4), np.float32), np.array([0, 3, 5]),
                                np.array([[0, 1, 2, 3], [4, 5, 12, 7]]), np.ones((2, 4), np.float32)], 64,
                {"index_tensor": "arg2_1", "index_at": "[1, 2]", "index_value": "12", "valid_range": "[0, 8)"}),
    # the input as the user named it (a keyword argument: the pytree spec keeps `ids`), the weight
    # by its name in the model, the model line from kernel_information.json
    "embedding-named": ("oob_named", [np.array([[3, 14, 15, 92], [65, 35, 137, 79]])], 64,
                        {"index_tensor": "arg3_1", "index_input": "0", "index_user": "ids", "index_at": "[1, 2]",
                         "index_value": "137", "valid_range": "[0, 100)",
                         "bound_of": "dim 0 of the weight items.weight [100, 16] (read at the index)",
                         "source_code": "h = self.items(ids)"}),
    "gather-dynamic": ("router_gather", [np.ones((16, 8), np.float32), np.array([0, 3, 5, 20, 2, 7])], 64,
                       {"kernel_param": "ks1", "index_tensor": "arg1_1", "index_at": "[3]", "index_value": "20",
                        "bound_value": "16", "valid_range": "[-16, 16)", "bound_of": "dim 0 of input arg0_1 [16, 8]"}),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, aotidbg, package, tmp_path_factory):
    name = request.param
    pkg_name, arrays, values, want = CASES[name]
    d = tmp_path_factory.mktemp(name)
    lines = ["inputs:"]
    for i, a in enumerate(arrays):
        np.save(d / f"in{i}.npy", a)
        shape = ", ".join(str(s) for s in a.shape)
        lines.append(f"  - {{shape: [{shape}], dtype: {a.dtype}, device: cpu, fill: file, file: in{i}.npy}}")
    (d / "spec.yaml").write_text("\n".join(lines) + "\n")
    s = d / "s.yaml"
    r = run([aotidbg, "run", package(pkg_name), "--inputs", str(d / "spec.yaml"), "--record", str(s),
             "--values", str(values)])
    return name, s, r, want


def test_run_records_the_element(case):
    name, s, r, want = case
    assert r.returncode == 1, r.stderr
    err = [e for e in yaml.safe_load(s.read_text())["events"] if e.get("kind") == "error"]
    assert err and err[-1]["route"] == "cpp-index-oob", err   # every case is a C++ kernel's check
    fields = err[-1]["fields"]
    assert "element_error" not in fields, fields
    for k, v in want.items():
        assert fields.get(k) == v, f"{name}: {k} = {fields.get(k)!r}, want {v!r}\n{fields}"
    assert "trace_error" not in fields, fields   # a literal bound is no longer an error of the trace
    user = f"{want['index_user']} ({fields['index_tensor']})" if "index_user" in want else fields["index_tensor"]
    assert f"  index {user}{want['index_at']} = {want['index_value']}" in r.stderr, r.stderr


def test_route_and_dump_show_it(case, aotidbg):
    name, s, _, want = case
    y = run([aotidbg, "route", str(s), "--format", "yaml"])
    assert y.returncode == 0, y.stderr
    fields = yaml.safe_load(y.stdout)["fields"]
    for k, v in want.items():
        assert fields.get(k) == v, f"route {name}: {k} = {fields.get(k)!r}, want {v!r}"
    t = run([aotidbg, "route", str(s)])
    assert f"index_value   {want['index_value']}" in t.stdout, t.stdout
    dump = run([aotidbg, "replay", str(s), "--dump"])
    assert dump.returncode == 0, dump.stderr
    assert f"field index_at = {want['index_at']}" in dump.stdout
    assert f"field index_value = {want['index_value']}" in dump.stdout


H200_SESSION = os.path.join(ROOT, "sessions", "cuda", "cuda_oob_embedding_blocking.yaml")


def test_h200_session_keeps_the_element_without_its_package(aotidbg):
    """A session recorded on the H200 (torch 2.11, tests/gpu/record_all.sh ONLY=embed: the Triton
    embedding fed id 137, --blocking). Routed here, where its package is not: the element the run
    worked out with the package stays, the kernel keeps its name (not the Triton cache file's hash),
    and a run that already blocked on every launch is not told to rerun blocking."""
    y = run([aotidbg, "route", H200_SESSION, "--format", "yaml"])
    assert y.returncode == 0, y.stderr
    r = yaml.safe_load(y.stdout)
    assert r["route"] == "triton-index-oob", y.stdout
    f = r["fields"]
    for k, v in {"index_tensor": "arg1_1", "index_at": "[1, 2]", "index_value": "137", "bound_value": "100",
                 "valid_range": "[-100, 100)", "kernel": "triton_poi_fused_embedding_mul_relu_0"}.items():
        assert f.get(k) == v, (k, f.get(k), f)
    assert not [s for s in r["steps"] if "LAUNCH_BLOCKING" in s], r["steps"]
    assert any("already blocked" in s for s in r["steps"]), r["steps"]
    assert "rerun-blocking" not in [a["do"] for a in r["actions"]], r["actions"]
    jump = [a for a in r["actions"] if a["do"] == "jump-kernel"]
    assert jump and jump[0]["value"] == "triton_poi_fused_embedding_mul_relu_0", r["actions"]


ITEM_TOWER_SESSION = os.path.join(ROOT, "sessions", "cuda", "cuda_oob_item_tower_blocking.yaml")


def test_h200_session_names_the_users_weight_and_input(aotidbg):
    """Recorded on the H200 (tests/gpu/run_element_gpu.sh, 2026-12-01 call S3-1): the Triton embedding
    of model_oob_named.py fed id 137. The bound is the user's `items.weight`, not the wrapper's
    `items_weight`, and the index is the user's input `ids`, both as the run worked them out."""
    y = run([aotidbg, "route", ITEM_TOWER_SESSION, "--format", "yaml"])
    assert y.returncode == 0, y.stderr
    f = yaml.safe_load(y.stdout)["fields"]
    assert f.get("bound_of") == "dim 0 of the weight items.weight [100, 16] (read at the index)", f
    assert (f.get("index_user"), f.get("index_at"), f.get("index_value")) == ("ids", "[1, 2]", "137"), f
    assert f.get("source_line", "").endswith("model_oob_named.py:20"), f


def test_tui_puts_the_cursor_on_the_element(case, aotidbg):
    """The router pane sums the element up under the route; goto-element (i) selects the failing
    kernel and puts the inspector's value-grid cursor on the element."""
    name, s, _, want = case
    fields = [e for e in yaml.safe_load(s.read_text())["events"] if e.get("kind") == "error"][-1]["fields"]
    t = fields["index_tensor"]
    user = f"{want['index_user']} ({t})" if "index_user" in want else t
    r = run([aotidbg, "replay", str(s), "--headless", "160x60", "--ascii", "--keys", "zoom", "--dump-screen"])
    assert f"index {user}{want['index_at']} = {want['index_value']}, outside {fields['valid_range']}" in r.stdout, \
        r.stdout
    r = run([aotidbg, "replay", str(s), "--headless", "160x60", "--ascii", "--keys", "goto-element",
             "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert f"{user}{want['index_at']} = {want['index_value']} (before of kernel #" in r.stdout, r.stdout
    if want.get("index_value") and name != "embedding-stats-only":   # the grid shows the cursor's element
        assert f"{want['index_at']} = {want['index_value']}" in r.stdout.split("inspector:")[1]
