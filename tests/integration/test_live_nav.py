"""Navigation in a live run as in replay: run-to N stops at kernel N, goto
works after the run ended, breakpoints go on kernels that have not run yet
(the launch list is known from wrapper.cpp), and the hints repeat the
options the user gave.
"""
import re

from aotidbg_testlib import frames as _frames, session_kernels as _kernels, wrapper_launches
from conftest import run

ENC_SPEC = "inputs:\n  - {shape: [2, 5, 16], dtype: float32, device: cpu, fill: randn, seed: 0}\n"
BAD_MLP = """inputs:
  - {shape: [6, 16], dtype: float64, device: cpu, fill: randn, seed: 0}
  - {shape: [3], dtype: int64, device: cpu, fill: arange}
"""


def _live(aotidbg, pkg, spec, rec, keys, tmp_path, *extra):
    return run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec), *extra, "--headless", "120x30",
                "--keys", keys], cwd=str(tmp_path))


def test_live_run_to_stops_there_and_goto_after_the_end(aotidbg, package, tmp_path):
    pkg = package("encoder")
    spec = tmp_path / "in.yaml"
    spec.write_text(ENC_SPEC)
    rec = tmp_path / "nav.yaml"
    r = _live(aotidbg, pkg, spec, rec, "run-to:4 goto:2 c goto:7 run-to:99", tmp_path)
    f = dict(_frames(r.stdout))
    n = len(_kernels(rec))
    assert n > 8, n
    # run-to 4 goes past kernels 0..3 and stops before kernel 4
    assert "| stopped | k 4/5" in f["run-to:4"] and "inspector: #4 " in f["run-to:4"], f["run-to:4"]
    # goto an earlier kernel selects its record; the runner stays at 4
    assert "inspector: #2 " in f["goto:2"] and "| stopped |" in f["goto:2"], f["goto:2"]
    assert "| finished |" in f["c"], f["c"]
    # after the end: goto still selects, run-to past the end says why
    assert "inspector: #7 " in f["goto:7"] and "kernel 7: " in f["goto:7"], f["goto:7"]
    assert "not stopped" not in f["goto:7"]
    assert r.returncode == 1   # run-to:99 failed
    assert f"no kernel 99: the run ended after {n} kernels" in r.stderr, r.stderr


def test_live_break_on_kernels_not_run_yet(aotidbg, package, tmp_path):
    pkg = package("encoder")
    spec = tmp_path / "in.yaml"
    spec.write_text(ENC_SPEC)
    last = wrapper_launches(pkg)[-1]   # a name from the launch list, before anything runs
    rec = tmp_path / "brk.yaml"
    r = _live(aotidbg, pkg, spec, rec, f"break:6 c break:{last} c", tmp_path)
    assert r.returncode == 0, r.stderr
    f = _frames(r.stdout)
    assert [x[0] for x in f] == ["start", "break:6", "c", f"break:{last}", "c"]
    assert "break before kernel 6 (" in f[1][1] and "in the launch list" in f[1][1], f[1][1]
    assert "| stopped | k 6/7" in f[2][1] and "inspector: #6 " in f[2][1], f[2][1]
    ks = _kernels(rec)
    at = next(i for i in range(7, len(ks)) if ks[i]["name"] == last)
    assert f"| stopped | k {at}/" in f[4][1] and f"inspector: #{at} " in f[4][1], f[4][1]
    # replay stops at the same breaks; a name no launch has is refused
    r = run([aotidbg, "replay", str(rec), "--headless", "120x30", "--keys", f"break:6 c break:{last} c break:nosuch"])
    f = _frames(r.stdout)
    assert f"kernel 6: " in f[2][1] and f"kernel {at}: {last}" in f[4][1]
    assert r.returncode == 1 and "break: no kernel named nosuch" in r.stderr, r.stderr


def test_hints_repeat_the_options_given(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    spec = tmp_path / "bad.yaml"
    spec.write_text(BAD_MLP)
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--model", "model", "--record", str(tmp_path / "g.yaml")])
    assert r.returncode == 2   # only input rows fail: bad input (test_exit_codes.py)
    m = re.search(r"\(aotidbg check (\S+) (.*) shows every row", r.stderr)
    assert m and m.group(1) == pkg, r.stderr
    assert f"--inputs {spec}" in m.group(2) and "--model model" in m.group(2), r.stderr
    assert "--record" not in m.group(2)   # check takes no --record
    # the live gate: the command to run anyway keeps them too
    r = _live(aotidbg, pkg, spec, tmp_path / "g2.yaml", "s", tmp_path, "--model", "model")
    assert r.returncode == 2
    m = re.search(r"to run anyway: aotidbg (\S+) (.*) --force", r.stderr)
    assert m and m.group(1) == pkg, r.stderr
    assert f"--inputs {spec}" in m.group(2) and "--model model" in m.group(2), r.stderr
