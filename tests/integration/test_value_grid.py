"""The inspector's value grid over a 2-D slice of a 3-d tensor (issue 7 item 1)
on a real AOTI CPU run.

slice3d (tests/models/model_slice.py) maps x [3, 4, 5] to sin(x) * 2 + x and
log(x). The input is a .npy file: normal values, positive up to [2, 3, 0] and
negative at [2, 3, 1], so log(x)'s first NaN is off the default slice (dim 0
= 0) and the hunt must move the slice to reach it. The test recomputes both
outputs with torch from the values the runner fed (the recorded
before-tensor) and reads them back from the headless screen: the slice
header, the cursor's multi-index and value, every cell of the slice."""
import re

import numpy as np
import pytest
import torch
import yaml

from conftest import run

SHAPE = (3, 4, 5)


def _input():
    g = np.random.default_rng(5)
    x = g.standard_normal(SHAPE).astype(np.float32)
    flat = x.reshape(-1)
    flat[:56] = np.abs(flat[:56]) + 0.1     # log(x) finite before [2, 3, 1] (flat 56)
    flat[56] = -np.abs(flat[56]) - 0.1
    return x


@pytest.fixture(scope="module")
def rec(aotidbg, package, tmp_path_factory):
    d = tmp_path_factory.mktemp("vgrid")
    pkg = package("slice3d")
    np.save(d / "x.npy", _input())
    (d / "spec.yaml").write_text(
        f"inputs:\n  - {{shape: {list(SHAPE)}, dtype: float32, device: cpu, fill: file, file: {d / 'x.npy'}}}\n")
    out = {"dir": d}
    for name, budget in (("full", "4096"), ("cut", "16")):
        s = d / f"{name}.yaml"
        r = run([aotidbg, "run", pkg, "--inputs", str(d / "spec.yaml"), "--record", str(s), "--values", budget])
        assert r.returncode == 0, r.stderr
        out[name] = s
    ks = [e for e in yaml.safe_load(out["full"].read_text())["events"] if e.get("kind") == "kernel"]
    assert len(ks) == 1, [k["name"] for k in ks]
    after = [t for t in ks[0]["tensors"] if t["phase"] == "after"]
    x = next(t for t in ks[0]["tensors"] if t["phase"] == "before" and t["name"].startswith("arg"))
    xt = torch.tensor(x["values"], dtype=torch.float32).reshape(SHAPE)
    with torch.no_grad():
        y, z = torch.sin(xt) * 2 + xt, torch.log(xt)
    # the after-tensor the sin kernel wrote: the finite one of the input's shape that is not the input
    row = next(i for i, t in enumerate(after) if t["name"] != x["name"] and not any(np.isnan(t["values"])))
    out.update(row=row, y=y.double().numpy(), z=z.double().numpy())
    return out


def _replay(aotidbg, rec, session, lines):
    script = rec["dir"] / "script.txt"
    script.write_text("\n".join(lines) + "\n")
    return run([aotidbg, "replay", str(session), "--headless", "160x40", "--script", str(script), "--dump-screen"])


def _select(rec):
    return ["goto 0", "pane-inspector", "view after"] + ([f"down {rec['row']}"] if rec["row"] else [])


def _grid(screen):
    """(slice line or None, values header, {row label: [cell texts]}) from the zoomed inspector."""
    lines = [ln.strip("│|") for ln in screen.splitlines()]
    h = next(i for i, ln in enumerate(lines) if ln.startswith("values ("))
    sl = lines[h - 1] if lines[h - 1].startswith("slice ") else None
    rows = {}
    for ln in lines[h + 1:]:
        m = re.match(r"\s+(\d+) ((?: {0,9}\S+){5})", ln)   # the label and the five cells (the histogram follows)
        if not m:
            break
        rows[int(m.group(1))] = m.group(2).split()
    return sl, lines[h], rows


def _close(cells, want, digits=3):
    """Cells printed with %.{digits}g against values computed by torch."""
    got = np.array([float(c) for c in cells])
    return np.allclose(got, want, rtol=10.0 ** (1 - digits), atol=1e-6)


def test_default_slice_of_3d(aotidbg, rec):
    r = _replay(aotidbg, rec, rec["full"], _select(rec) + ["zoom"])
    assert r.returncode == 0, r.stderr
    sl, hdr, rows = _grid(r.stdout)
    assert sl.startswith("slice rows: dim 1, cols: dim 2, dim 0 = 0"), r.stdout
    assert "rows 0-3 of 4, cols 0-4 of 5; [0, 0, 0] = %.4g" % rec["y"][0, 0, 0] in hdr, hdr
    assert sorted(rows) == [0, 1, 2, 3], r.stdout
    for i in range(4):
        assert _close(rows[i], rec["y"][0, i, :]), (i, rows[i], rec["y"][0, i, :])


def test_axes_fix_and_cursor(aotidbg, rec):
    lines = _select(rec) + ["grid-axes 0 2", "grid-fix 1 1", "grid-cursor-down 2", "grid-cursor-right 3",
                            "grid-cursor-up", "grid-cursor-left 5", "grid-cursor-right 9", "zoom"]
    r = _replay(aotidbg, rec, rec["full"], lines)
    assert r.returncode == 0, r.stderr
    sl, hdr, rows = _grid(r.stdout)
    assert sl.startswith("slice rows: dim 0, cols: dim 2, dim 1 = 1"), r.stdout
    # down 2, right 3, up 1, left 5 (clamped at 0), right 9 (clamped at 4): row 1, col 4
    assert "rows 0-2 of 3, cols 0-4 of 5; [1, 1, 4] = %.4g" % rec["y"][1, 1, 4] in hdr, hdr
    assert sorted(rows) == [0, 1, 2]
    for i in range(3):
        assert _close(rows[i], rec["y"][i, 1, :]), (i, rows[i], rec["y"][i, 1, :])
    # the element under the cursor stays under it when the axes change
    r = _replay(aotidbg, rec, rec["full"], lines[:-1] + ["grid-axes 2 1", "zoom"])
    sl, hdr, rows = _grid(r.stdout)
    assert sl.startswith("slice rows: dim 2, cols: dim 1, dim 0 = 1"), r.stdout
    assert "[1, 1, 4] = %.4g" % rec["y"][1, 1, 4] in hdr, hdr
    for i in range(5):
        assert _close(rows[i][:4], rec["y"][1, :, i]), (i, rows[i], rec["y"][1, :, i])


def test_goto_and_values_scroll(aotidbg, rec):
    r = _replay(aotidbg, rec, rec["full"], _select(rec) + ["grid-goto 2,3,4", "zoom"])
    sl, hdr, rows = _grid(r.stdout)
    assert sl.startswith("slice rows: dim 1, cols: dim 2, dim 0 = 2"), r.stdout
    assert "[2, 3, 4] = %.4g" % rec["y"][2, 3, 4] in hdr, hdr
    assert _close(rows[3], rec["y"][2, 3, :])
    # values-down/right (J/L) scroll the view and carry the cursor with it
    r = _replay(aotidbg, rec, rec["full"], _select(rec) + ["values-down 2", "values-right 1", "zoom"])
    sl, hdr, rows = _grid(r.stdout)
    assert "rows 2-3 of 4" in hdr and "[0, 2, 1] = %.4g" % rec["y"][0, 2, 1] in hdr, hdr


def test_bad_arguments_fail_clearly(aotidbg, rec):
    r = _replay(aotidbg, rec, rec["full"], _select(rec) + [
        "grid-axes 0 3", "grid-axes 1 1", "grid-axes x", "grid-fix 0 7", "grid-fix 2 0", "grid-goto 1,2",
        "grid-goto 1,9,0", "grid-cursor-down -3", "zoom"])
    assert r.returncode == 1, r.stderr   # a script whose actions failed says so, and still draws
    for msg in ("grid-axes: axis 3 is past the tensor's 3 dims", "grid-axes: the row and column axes are both dim 1",
                "grid-axes: give the row dim and the column dim", "grid-fix: index 7 of dim 0 is past its size 3",
                "grid-fix: dim 2 is the grid's column axis", "grid-goto: '1,2' has 2 indices; the tensor has 3 dims",
                "grid-goto: index 9 of dim 1 is past its size 4", "grid-cursor: the count must be a number >= 0"):
        assert msg in r.stderr, (msg, r.stderr)
    sl, hdr, _ = _grid(r.stdout)   # nothing changed
    assert sl.startswith("slice rows: dim 1, cols: dim 2, dim 0 = 0") and "[0, 0, 0] =" in hdr, hdr


def test_not_kept_cells(aotidbg, rec):
    # --values 16: the first 16 of 60 elements kept; the rest draw as "·"
    r = _replay(aotidbg, rec, rec["cut"], _select(rec) + ["grid-cursor-down 3", "zoom"])
    assert r.returncode == 0, r.stderr
    sl, hdr, rows = _grid(r.stdout)
    assert "values (16 sampled)" in hdr and "[0, 3, 0] = %.4g" % rec["y"][0, 3, 0] in hdr, hdr
    assert _close(rows[2], rec["y"][0, 2, :])
    assert _close(rows[3][:1], rec["y"][0, 3, :1]) and rows[3][1:] == ["·"] * 4, rows[3]
    r = _replay(aotidbg, rec, rec["cut"], _select(rec) + ["grid-goto 1,0,0", "zoom"])
    sl, hdr, rows = _grid(r.stdout)
    assert "[1, 0, 0] not kept" in hdr and rows[0] == ["·"] * 5, (hdr, rows)


def test_hunt_puts_cursor_on_first_nan(aotidbg, rec):
    first = tuple(int(v) for v in np.argwhere(np.isnan(rec["z"]))[0])
    assert first[0] > 0   # off the default slice: the hunt must move it
    r = _replay(aotidbg, rec, rec["full"], ["hunt-nan", "quit", "zoom"])
    assert r.returncode == 0, r.stderr
    sl, hdr, rows = _grid(r.stdout)
    assert sl.startswith(f"slice rows: dim 1, cols: dim 2, dim 0 = {first[0]}"), r.stdout
    assert "[%d, %d, %d] = nan" % first in hdr, hdr
    assert rows[first[1]][first[2]] == "nan"
