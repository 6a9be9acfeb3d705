"""aotidbg run --memcheck on the CPU box: the option, and the refusals that need no GPU (no
compute-sanitizer, a CPU package). The run itself, under compute-sanitizer on a CUDA package, is
tests/gpu/run_memcheck_gpu.sh; the report parser and the address mapping are unit tests
(tests/unit/test_sanitizer_report.c, test_addr_map.c, test_sanitizer_session.c)."""
import os
import stat

from conftest import run


def test_memcheck_tool_must_be_known(aotidbg, tmp_path):
    out = tmp_path / "s.yaml"
    r = run([aotidbg, "run", "x.pt2", "--memcheck=leakcheck", "--record", str(out)])
    assert r.returncode == 2, r.stderr
    assert "--memcheck takes memcheck, racecheck, initcheck or synccheck" in r.stderr
    assert "'leakcheck'" in r.stderr
    assert not out.exists()


def test_memcheck_without_compute_sanitizer_says_what_to_install(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    out = tmp_path / "s.yaml"
    env = dict(os.environ, AOTIDBG_COMPUTE_SANITIZER=str(tmp_path / "nowhere" / "compute-sanitizer"))
    r = run([aotidbg, "run", pkg, "--memcheck", "--record", str(out)], env=env)
    assert r.returncode == 2, r.stderr
    assert "AOTIDBG_COMPUTE_SANITIZER" in r.stderr and "not an executable file" in r.stderr
    assert "cuda-sanitizer" in r.stderr
    assert not out.exists() and not (tmp_path / "s.yaml.sanitizer.xml").exists()
    # on PATH or under the toolkit: where it looked is named (this box has no compute-sanitizer)
    env = {k: v for k, v in os.environ.items() if k != "AOTIDBG_COMPUTE_SANITIZER"}
    env.update(PATH="/usr/bin:/bin", CUDA_HOME=str(tmp_path))
    r = run([aotidbg, "run", pkg, "--memcheck=racecheck", "--record", str(out)], env=env)
    if r.returncode == 2 and "not on PATH" in r.stderr:
        assert f"$CUDA_HOME/bin ({tmp_path})" in r.stderr and "apt install cuda-sanitizer" in r.stderr
    else:   # a toolkit under /usr/local/cuda*/ has one: then it is the CPU package that is refused
        assert r.returncode == 2 and "runs on the CPU" in r.stderr, r.stderr


def test_memcheck_refuses_a_cpu_package(aotidbg, package, tmp_path):
    pkg = package("mlp_ln")
    fake = tmp_path / "compute-sanitizer"   # found, never run: the package is refused first
    fake.write_text("#!/bin/sh\nexit 99\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / "s.yaml"
    env = dict(os.environ, AOTIDBG_COMPUTE_SANITIZER=str(fake))
    r = run([aotidbg, "run", pkg, "--memcheck", "--record", str(out)], env=env)
    assert r.returncode == 2, r.stderr
    assert "--memcheck checks CUDA kernels" in r.stderr and "AOTI_DEVICE_KEY 'cpu'" in r.stderr, r.stderr
    # the tool is only ever --memcheck=TOOL: the next argument stays the package
    r = run([aotidbg, "run", "--memcheck", pkg, "--record", str(out)], env=env)
    assert r.returncode == 2 and "AOTI_DEVICE_KEY 'cpu'" in r.stderr, r.stderr
    r = run([aotidbg, "run", pkg, "--memcheck=initcheck", "--device", "cpu", "--record", str(out)], env=env)
    assert r.returncode == 2 and "(--device cpu)" in r.stderr, r.stderr
    assert not out.exists()
    # live mode (the TUI start) takes it through the same run service, and refuses the same way
    r = run([aotidbg, pkg, "--memcheck=racecheck", "--record", str(out), "--headless", "80x24", "--keys", "q"], env=env)
    assert r.returncode == 2 and "--memcheck checks CUDA kernels" in r.stderr, r.stderr
    assert not out.exists() and not (tmp_path / "s.yaml.sanitizer.xml").exists()


def test_spec_names_label_inputs_a_package_names_only_by_position(aotidbg, package, tmp_path):
    """check2 is exported with positional arguments: its package names the inputs arg0_1, arg1_1 and
    args[0], args[1] (in_spec_) and nothing else, so the names the inputs spec gives are the only
    user names there are; the report and the inspector show them beside AOTI's."""
    import yaml
    pkg = package("check2")
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {name: feats, shape: [4, 8], dtype: float32, fill: randn}\n"
                    "  - {name: proj, shape: [8, 6], dtype: float32, fill: randn}\n")
    out = tmp_path / "s.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(out)])
    assert r.returncode == 0, r.stderr
    s = yaml.safe_load(out.read_text())
    named = {t["name"]: t.get("user_name") for e in s["events"] if e["kind"] == "kernel" for t in e["tensors"]
             if t["name"].startswith("arg")}
    assert sorted(named.values()) == ["feats", "proj"], named
    assert any("names its inputs only by position" in n and "is feats" in n for n in s["notes"]), s["notes"]
    # a name that is AOTI's still orders the inputs; a mix of AOTI names and labels is refused
    spec.write_text("inputs:\n  - {name: feats, shape: [4, 8], dtype: float32, fill: randn}\n"
                    f"  - {{name: {sorted(named)[0]}, shape: [8, 6], dtype: float32, fill: randn}}\n")
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(out)])
    assert r.returncode == 2 and "input 'feats': the model has no input of that name" in r.stderr, r.stderr


def test_the_runner_runs_under_the_tool_run_and_live(aotidbg, package, tmp_path):
    """The plumbing without a GPU: compute-sanitizer stands in as a script that runs the runner
    with the command line aotidbg gives it and then leaves the H200's recorded gather report where
    --xml --save and --log-file said. A CPU package forced onto cuda fails before any kernel, so the
    report's address names no tensor; run and the live start both turn the report into events."""
    import yaml
    data = os.path.join(os.path.dirname(__file__), "..", "data", "memcheck")
    fake = tmp_path / "compute-sanitizer"
    fake.write_text("#!/bin/sh\n"
                    "[ \"$1 $2 $3 $4 $6 $8 $9\" = '--tool memcheck --xml --save --log-file --print-limit 1000' ] || exit 97\n"
                    "xml=$5; txt=$7; shift 9\n\"$@\"; rc=$?\n"
                    f"cp '{data}/gather_row9_memcheck.xml' \"$xml\"; cp '{data}/gather_row9_memcheck.txt' \"$txt\"\n"
                    "exit $rc\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [4, 8], dtype: float32, fill: randn}\n"
                    "  - {shape: [8, 6], dtype: float32, fill: randn}\n")
    env = dict(os.environ, AOTIDBG_COMPUTE_SANITIZER=str(fake))
    pkg = package("check2")
    for front in ("run", "live"):
        out = tmp_path / f"{front}.yaml"
        args = [aotidbg, "run", pkg] if front == "run" else [aotidbg, pkg, "--headless", "100x30", "--keys", "c"]
        r = run(args + ["--inputs", str(spec), "--device", "cuda", "--force", "--memcheck", "--record", str(out)],
                env=env)
        assert r.returncode == 1, r.stderr
        s = yaml.safe_load(out.read_text())
        ev = [e for e in s["events"] if e["kind"] == "memcheck"]
        assert len(ev) == 1 and ev[0]["count"] == 3 and ev[0]["address"] == "0x7f595e800090", ev
        assert "tensor" not in ev[0]   # no launch ran: no tensor table to name it by
        assert any("compute-sanitizer memcheck reported 27 errors" in n for n in s["notes"]), s["notes"]
        assert (tmp_path / f"{front}.yaml.sanitizer.xml").exists()
        if front == "run":
            assert "address 0x7f595e800090: no tensor of the run is known there" in r.stderr, r.stderr


def test_live_error_stop_without_memcheck_keeps_the_runner(aotidbg, package, tmp_path):
    """The run service ends the runner at an error stop only under --memcheck (compute-sanitizer
    writes its report when the runner exits, and quitting the UI then ends it). A CPU model's error
    in live mode without --memcheck behaves as before: the UI shows the error and stays "failed
    (stopped at the error)" with the runner kept for the inspector (goto moves it, c lets the model
    return its failure); quitting at the stop ends the runner in order, with no runner-exit event."""
    import numpy as np
    from aotidbg_testlib import events, frames, load_session
    np.save(tmp_path / "ids.npy", np.array([[1, 5, 7, 2], [9, 3, 137, 8]]))   # 137: past the 100-row table
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [2, 4], dtype: int64, device: cpu, fill: file, file: ids.npy}\n")
    pkg = package("oob_embedding")
    for keys in ("c goto:0 c", "c goto:0"):
        rec = tmp_path / f"live-{len(keys)}.yaml"
        r = run([aotidbg, pkg, "--inputs", str(spec), "--record", str(rec), "--headless", "120x30", "--keys", keys],
                cwd=str(tmp_path))
        assert r.returncode == 1, r.stderr
        f = frames(r.stdout)
        assert [x[0] for x in f] == ["start"] + keys.split(), [x[0] for x in f]
        for label, screen in f[1:3]:   # at the error's stop: the error shown, the runner still there
            assert "| failed (stopped at the error) |" in screen, (label, screen[-400:])
            assert "cpp-index-oob" in screen and "index out of bounds" in screen, (label, screen)
        assert "inspector: #0 cpp_fused_" in f[2][1], f[2][1]
        if len(f) == 4:   # c again: the kept runner goes on and the model returns its failure
            assert "| failed |" in f[3][1], f[3][1][-400:]
        s = load_session(str(rec))
        assert s["end_state"] == "failed"
        assert [e["route"] for e in events(s, "error")] == ["cpp-index-oob"]
        assert not events(s, "runner-exit"), events(s, "runner-exit")   # never killed, never lost
        assert not events(s, "memcheck")
