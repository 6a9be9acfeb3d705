"""The router's next steps as keys on real runs: open-source shows the kernel's
source, rerun-blocking reruns with blocking launches, break-nan stops at NaN.
"""
import re

import pytest

from aotidbg_testlib import NAN_SPEC, frames as _frames, record_session as _record, session_kernels as _kernels
from conftest import run


@pytest.mark.slow
def test_open_source_and_router_keys(aotidbg, package, tmp_path):
    pkg = package("runner_nan")
    rec = tmp_path / "nan.yaml"
    _record(aotidbg, pkg, NAN_SPEC % "randn, seed: 0", rec, tmp_path)
    ks = _kernels(rec)
    log_k = next(i for i, k in enumerate(ks) if "log" in k["name"])
    name = ks[log_k]["name"]
    r = run([aotidbg, "replay", str(rec), "--headless", "120x40", "--keys",
             f"goto:{log_k} open-source", "--dump-screen"])
    assert r.returncode == 0, r.stderr
    # the view shows one file and says which; the line is the kernel's body, not its declaration
    m = re.search(rf"source: {name} - (kernel|wrapper)\.cpp line (\d+) \(body\)", r.stdout)
    assert m, r.stdout
    import zipfile
    with zipfile.ZipFile(pkg) as z:
        (n,) = [n for n in z.namelist() if n.endswith(f".{m.group(1)}.cpp")]
        lines = z.read(n).decode().split("\n")
    line = int(m.group(2))
    assert name in lines[line - 1] and lines[line - 1].lstrip().startswith("extern")
    after = "\n".join(lines[line - 1:])
    assert after.index("{") < after.index(";"), after[:300]   # a definition, not `...);`
    # search inside the view, then q closes it and the panes are back
    r = run([aotidbg, "replay", str(rec), "--headless", "120x40", "--keys",
             f"goto:{log_k} open-source search:in_out_ptr0 q", "--dump-screen"])
    assert "3 kernels (" in r.stdout and "source:" not in r.stdout


@pytest.mark.slow
def test_live_rerun_blocking_and_break_nan(aotidbg, package, tmp_path):
    pkg = package("runner_nan")
    spec = tmp_path / "in.yaml"
    spec.write_text(NAN_SPEC % "randn, seed: 0")
    rec = tmp_path / "rb.yaml"
    r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec), "--headless", "100x30",
             "--keys", "s s R s break-nan c"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    frames = _frames(r.stdout)
    assert [f[0] for f in frames] == ["start", "s", "s", "R", "s", "break-nan", "c"]
    assert "inspector: #1 " in frames[2][1]
    assert "rerun with blocking launches" in frames[3][1]
    assert "inspector: #0 " in frames[4][1] and "| stopped |" in frames[4][1]   # from the first kernel again
    assert "break on NaN: on" in frames[5][1]
    assert "| stopped |" in frames[6][1] and "NaN" in frames[6][1]              # stopped at the NaN
    assert 'CUDA_LAUNCH_BLOCKING: "1"' in rec.read_text()
