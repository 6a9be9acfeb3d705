"""One exit-code table (man/aotidbg.1 EXIT STATUS), checked command by command on a real CPU
package (tests/models/model_launches.py launch_kvcache: two inputs, x and the keyword `pos`):
0 ran; 1 the model failed; 2 bad usage or bad input: too few and too many inputs alike (stopped by
the checklist, or started with --force), an input file that does not hold what the spec says (a
torch.save file, which only the runner reads), an unreadable package, a package whose .so fails its
CRC-32 (check FAILs package.so-intact); an unknown --script action is a failure."""
import numpy as np
import pytest

from aotidbg_testlib import damage_so
from conftest import run

X = "{shape: [4, 512], dtype: float32, device: cpu, fill: randn, seed: 0}"


def spec(tmp_path, rows, name="in.yaml"):
    p = tmp_path / name
    p.write_text("inputs:\n" + "".join(f"  - {r}\n" for r in rows))
    return str(p)


def pos_row(tmp_path, values):
    np.save(tmp_path / "pos.npy", np.array(values, dtype=np.int64))
    return f"{{shape: [4], dtype: int64, device: cpu, fill: file, file: {tmp_path / 'pos.npy'}}}"


def test_run_ok_is_0_and_model_failed_is_1(aotidbg, package, tmp_path):
    pkg = package("launch_kvcache")
    ok = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, pos_row(tmp_path, [0, 1, 2, 3])]),
              "--record", str(tmp_path / "ok.yaml")])
    assert ok.returncode == 0, ok.stderr
    bad = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, pos_row(tmp_path, [0, 1, 19, 3])], "b.yaml"),
               "--record", str(tmp_path / "bad.yaml")])
    assert bad.returncode == 1, bad.stderr


@pytest.mark.parametrize("force", [False, True])
def test_too_few_and_too_many_inputs_exit_2(aotidbg, package, tmp_path, force):
    pkg = package("launch_kvcache")
    extra = ["--force"] if force else []
    few = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X], "few.yaml"), "--record",
               str(tmp_path / "f.yaml")] + extra)
    many = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, pos_row(tmp_path, [0, 1, 2, 3]), X], "many.yaml"),
                "--record", str(tmp_path / "m.yaml")] + extra)
    assert (few.returncode, many.returncode) == (2, 2), few.stderr + many.stderr


def test_torch_save_input_that_does_not_match_exits_2(aotidbg, package, tmp_path):
    """pos saved as int32 where the spec (and the model) say int64: the runner refuses it before the
    model runs; bad input, exit 2, naming input 1 and what to do."""
    import torch
    pkg = package("launch_kvcache")
    torch.save(torch.tensor([0, 1, 2, 3], dtype=torch.int32), tmp_path / "pos.pt")
    row = f"{{shape: [4], dtype: int64, device: cpu, fill: file, file: {tmp_path / 'pos.pt'}}}"
    r = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, row]), "--record", str(tmp_path / "t.yaml")])
    assert r.returncode == 2, r.stderr
    assert (f"input 1: {tmp_path / 'pos.pt'} holds int32 [4], the spec says int64 [4]; fix the spec's dtype and shape, "
            "or save the tensor as the model takes it") in r.stderr, r.stderr
    torch.save(torch.tensor([0, 1, 2, 3]), tmp_path / "pos.pt")   # the same file made right runs
    ok = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, row], "ok.yaml"), "--record", str(tmp_path / "o.yaml")])
    assert ok.returncode == 0, ok.stderr


def test_crc_damaged_package_exits_2(aotidbg, package, tmp_path):
    bad = str(tmp_path / "damaged.pt2")
    damage_so(package("launch_kvcache"), bad)
    chk = run([aotidbg, "check", bad])
    assert chk.returncode == 2, chk.stdout
    assert "FAIL  package.so-intact" in chk.stdout and "CRC" in chk.stdout
    r = run([aotidbg, "run", bad, "--inputs", spec(tmp_path, [X, pos_row(tmp_path, [0, 1, 2, 3])]),
             "--record", str(tmp_path / "d.yaml")])
    assert r.returncode == 2, r.stderr
    good = run([aotidbg, "check", package("launch_kvcache")])
    assert "PASS  package.so-intact" in good.stdout


def test_unreadable_package_exits_2_everywhere(aotidbg, tmp_path):
    junk = tmp_path / "junk.pt2"
    junk.write_bytes(b"not a zip")
    for cmd in (["check", str(junk)], ["info", str(junk)],
                ["run", str(junk), "--record", str(tmp_path / "j.yaml")]):
        r = run([aotidbg] + cmd)
        assert r.returncode == 2, (cmd, r.stderr)
    r = run([aotidbg, "route", str(tmp_path / "missing.log")])
    assert r.returncode == 2


def test_unknown_script_action_fails(aotidbg, package, tmp_path):
    pkg = package("launch_kvcache")
    out = tmp_path / "ok.yaml"
    assert run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, [X, pos_row(tmp_path, [0, 1, 2, 3])]),
                "--record", str(out)]).returncode == 0
    (tmp_path / "bad.script").write_text("no-such-action\n")
    (tmp_path / "ok.script").write_text("quit\n")
    bad = run([aotidbg, "replay", str(out), "--headless", "80x24", "--script", str(tmp_path / "bad.script")])
    assert bad.returncode == 1 and "unknown action 'no-such-action'" in bad.stdout + bad.stderr
    ok = run([aotidbg, "replay", str(out), "--headless", "80x24", "--script", str(tmp_path / "ok.script")])
    assert ok.returncode == 0
