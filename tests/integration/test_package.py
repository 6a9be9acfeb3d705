"""Issue 2 item 3: the package reader, through `aotidbg info` and `aotidbg check`.

A real package compiled here (tests/models/model_check.py: check2) is listed
and compared with what Python's zipfile, hashlib and the package's own
wrapper.cpp say. Untrusted archives written by Python's zipfile (entry names
with "..", absolute paths, a symlink, a duplicate name, a zip bomb, a
truncated copy) are each refused with exit 2 and a message naming the entry,
and nothing is written to $TMPDIR.
"""
import hashlib
import os
import re
import shutil
import zipfile

import pytest

from aotidbg_testlib import damage_so
from conftest import run

PKG = "check2"


@pytest.fixture(scope="module")
def pkg(package):
    return package(PKG)


def entries(pkg):
    with zipfile.ZipFile(pkg) as z:
        return z.namelist()


def test_info_lists_the_real_package(aotidbg, pkg):
    r = run([aotidbg, "info", pkg])
    assert r.returncode == 0, r.stderr
    out = r.stdout
    names = entries(pkg)
    root = names[0].split("/")[0] + "/"
    assert f"root:     {root}\n" in out
    assert f"entries:  {len(names)}\n" in out
    assert "sha256:" not in out   # reads every byte: only when asked
    r = run([aotidbg, "info", pkg, "--sha256"])
    assert r.returncode == 0, r.stderr
    assert "sha256:   " + hashlib.sha256(open(pkg, "rb").read()).hexdigest() in r.stdout
    so = [n for n in names if n.endswith(".wrapper.so")]
    cpp = [n for n in names if n.endswith(".wrapper.cpp")]
    meta = [n for n in names if n.endswith(".wrapper_metadata.json")]
    assert len(so) == len(cpp) == len(meta) == 1
    assert f"so:                  {so[0]}" in out
    assert f"wrapper.cpp:         {cpp[0]}" in out
    import json
    with zipfile.ZipFile(pkg) as z:
        md = json.loads(z.read(meta[0]))
        text = z.read(cpp[0]).decode()
    assert f"device key:          {md['AOTI_DEVICE_KEY']}" in out
    assert f"cpu isa:             {md['AOTI_CPU_ISA']}" in out
    # inputs: names in order from inputs_info_, dtype from the generated checks
    in_names = [n for _, n in sorted((int(i), n) for i, n in re.findall(r'inputs_info_\[(\d+)\]\.name = "(\w+)"', text))]
    dtypes = re.findall(r"_expected_dtype = aoti_torch_dtype_(\w+)\(\)", text)
    lo = re.search(r"if \(\w+_size\[0\] < (\d+)\)", text).group(1)
    hi = re.search(r"if \(\w+_size\[0\] > (\d+)\)", text).group(1)
    sym = re.search(r"int64_t (s\d+) = " + in_names[0] + r"_size\[0\];", text).group(1)
    assert f"inputs:              {len(in_names)}\n" in out
    assert re.search(rf"0 {in_names[0]}\s+{dtypes[0]}\s+cpu\s+\[{sym}:{lo}\.\.{hi}, 8\]", out), out
    assert re.search(rf"1 {in_names[1]}\s+{dtypes[1]}\s+cpu\s+\[8, 6\]", out), out
    # kernels: one per run of before_launch printer calls
    launches, last = [], None
    for phase, k in re.findall(r'aoti_torch_save_tensor_handle\(\w+, "\w+", "(\w+)", "(\w+)"\)', text):
        if phase == "before_launch" and (last != "before_launch" or launches[-1] != k):
            launches.append(k)
        last = phase
    assert f"kernels:             {len(launches)} (from printer)" in out
    assert "printer level:       1" in out


def test_info_usage(aotidbg, pkg):
    assert run([aotidbg, "info"]).returncode == 2
    assert run([aotidbg, "info", pkg, "--bogus"]).returncode == 2
    r = run([aotidbg, "info", "--help"])
    assert r.returncode == 0 and "usage: aotidbg info" in r.stdout
    r = run([aotidbg, "info", pkg, "--model", "nope"])
    assert r.returncode == 2 and "no model 'nope'" in r.stderr


def copy_with(pkg, dst, extra):
    """A copy of the real package plus `extra`: (ZipInfo or name, bytes) pairs."""
    with zipfile.ZipFile(pkg) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            zo.writestr(info.filename, zi.read(info.filename))
        for name, data in extra:
            zo.writestr(name, data)
    return dst


def symlink_info(name):
    zi = zipfile.ZipInfo(name)
    zi.create_system = 3
    zi.external_attr = 0o120777 << 16
    return zi


CASES = {
    "dotdot": (lambda root: [(root + "data/../../../escape.txt", b"x")], ["escape.txt' refused", "'..'"]),
    "absolute": (lambda root: [("/tmp/aotidbg-abs-escape", b"x")], ["/tmp/aotidbg-abs-escape' refused", "absolute"]),
    "symlink": (lambda root: [(symlink_info(root + "data/aotinductor/model/evil.cubin"), b"/etc/passwd")],
                ["evil.cubin' refused", "symbolic link"]),
    "duplicate": (lambda root: [(root + "data/aotinductor/model/dup.cubin", b"a"),
                                (root + "data/aotinductor/model/dup.cubin", b"b")],
                  ["dup.cubin' appears twice"]),
    "bomb": (lambda root: [(root + "data/aotinductor/model/w.blob", bytes(48 << 20))],
             ["w.blob' refused", "compression ratio"]),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(CASES))
def test_untrusted_archive_refused(aotidbg, pkg, tmp_path, case):
    root = entries(pkg)[0].split("/")[0] + "/"
    extra, wants = CASES[case]
    bad = copy_with(pkg, str(tmp_path / f"{case}.pt2"), extra(root))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    for cmd in ("info", "check"):
        r = run([aotidbg, cmd, bad], env=env)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        for w in wants:
            assert w in r.stderr, (cmd, r.stderr)
    assert os.listdir(tmp) == []
    assert not os.path.exists("/tmp/aotidbg-abs-escape")


def test_truncated_package(aotidbg, pkg, tmp_path):
    data = open(pkg, "rb").read()
    for frac in (0.3, 0.9):
        bad = tmp_path / f"cut{frac}.pt2"
        bad.write_bytes(data[: int(len(data) * frac)])
        for cmd in ("info", "check"):
            r = run([aotidbg, cmd, str(bad)])
            assert r.returncode == 2, (cmd, r.stderr)
            assert "truncated" in r.stderr and str(bad) in r.stderr


def test_not_a_package(aotidbg, tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    r = run([aotidbg, "info", str(p)])
    assert r.returncode == 2 and "not a readable .pt2 package" in r.stderr
    r = run([aotidbg, "check", str(tmp_path / "missing.pt2")])
    assert r.returncode == 2 and "No such file" in r.stderr


def test_too_many_entries(aotidbg, tmp_path):
    """One entry over the 100,000-entry cap is refused before anything is read."""
    bad = tmp_path / "many.pt2"
    with zipfile.ZipFile(bad, "w", zipfile.ZIP_STORED) as z:
        z.writestr("many/data/aotinductor/model/m.wrapper.so", b"\x7fELF")
        for i in range(100000):
            z.writestr(f"many/x/{i}", b"")
    r = run([aotidbg, "info", str(bad)])
    assert r.returncode == 2
    assert "100001 entries, over the limit of 100000" in r.stderr


def test_corrupt_model_fails_the_run_not_the_tool(aotidbg, package, tmp_path):
    """A byte flipped inside the model .so: the checklist's package.so-intact FAILs and the run is
    refused (exit 2: a damaged package is bad input); forced past it, the extraction (on its own
    thread, while the runner starts) stops at the entry's CRC, the run fails (exit 2, end_state
    failed) naming the entry, and nothing is left in $TMPDIR."""
    bad = tmp_path / "bad.pt2"
    info = damage_so(package("mlp_ln"), bad)
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [6, 16], dtype: float32, device: cpu, fill: randn}\n"
                    "  - {shape: [3], dtype: int64, device: cpu, fill: zeros}\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    rec = tmp_path / "s.yaml"
    r = run([aotidbg, "run", str(bad), "--inputs", str(spec), "--record", str(rec)], env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 2 and "package.so-intact" in r.stderr and "CRC" in r.stderr, r.stderr
    r = run([aotidbg, "run", str(bad), "--inputs", str(spec), "--record", str(rec), "--force"],
            env=dict(os.environ, TMPDIR=str(tmp)))
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert "extracting the package failed" in out and info.filename in out and "CRC" in out, out
    assert "end_state: failed" in rec.read_text()
    assert os.listdir(tmp) == []
    # live: the same failure on screen, and r says why there is nothing to restart (no runner left waiting)
    r = run([aotidbg, str(bad), "--inputs", str(spec), "--record", str(tmp_path / "l.yaml"), "--headless", "120x30",
             "--force", "--keys", "r", "--dump-screen"], env=dict(os.environ, TMPDIR=str(tmp)), timeout=60)
    assert r.returncode in (1, 2), r.stdout + r.stderr
    assert "restart: the package could not be extracted" in r.stderr and "| failed" in r.stdout, r.stdout + r.stderr
    assert os.listdir(tmp) == []
