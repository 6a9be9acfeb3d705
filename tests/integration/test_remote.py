"""Issue 20: `--remote HOST`: the screen here, the runner on the GPU box.

Against a real OpenSSH server (sshd_harness.py: Debian's sshd on a free
localhost port, keys made for the test) and the real runner as the remote
agent (`aotidbg-runner --serve`). What each test expects comes from the same
command run locally, from the package itself, or from ssh's own words.
"""
import os
import shutil
import time

import pytest
import yaml

import sshd_harness
from conftest import run, tool

pytestmark = pytest.mark.skipif(not sshd_harness.available(), reason="needs openssh-server (.ci/setup.sh)")

PKG = "check2"


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    s = sshd_harness.Sshd(str(tmp_path_factory.mktemp("sshd")))
    yield s
    s.stop()


def agents():
    return sshd_harness.processes_named("aotidbg-runner --serve")


def plain_runner():
    """The runner for the remote end: $AOTIDBG_RUNNER (tests/run.sh's sanitizer pass
    points it at the plain build: the runner hosts libtorch), else this build's."""
    return os.environ.get("AOTIDBG_RUNNER") or tool("aotidbg-runner")


def remote_args(sshd, runner=None):
    return ["--remote", sshd.target, "--remote-runner", runner or plain_runner()]


def check_yaml(cmd, env=None):
    r = run(cmd, env=env)
    assert r.returncode in (0, 1), (r.returncode, r.stderr)
    return yaml.safe_load(r.stdout)


def test_check_remote_matches_local(aotidbg, package, sshd, tmp_path):
    """The same package and spec checked locally and through ssh give the same
    rows (this box is both ends); the host facts and the symbol row come from there."""
    pkg = package(PKG)
    spec = tmp_path / "spec.yaml"
    spec.write_text("inputs:\n  - {shape: [3, 8], dtype: float32, device: cpu, fill: randn}\n"
                    "  - {shape: [8], dtype: float32, device: cpu, fill: zeros}\n")
    local = check_yaml([aotidbg, "check", pkg, "--inputs", str(spec), "--format", "yaml", "--sha256"])
    there = check_yaml([aotidbg, "check", *remote_args(sshd), pkg, "--inputs", str(spec), "--format", "yaml",
                        "--sha256"], env=sshd.env())
    assert there["host"] == sshd.target
    assert there["sha256"] == local["sha256"]
    want = {c["id"]: c["status"] for c in local["checks"]}
    got = {c["id"]: c["status"] for c in there["checks"]}
    assert got == want
    sym = [c for c in there["checks"] if c["id"] == "package.symbols"][0]
    assert "dlopen" in sym["source"] and "protocol 2" in sym["source"], sym
    assert not agents()


def test_check_remote_push_and_wrong_spec(aotidbg, package, sshd, tmp_path):
    """--push copies a local package there; a wrong input shape read from a spec
    there FAILs the same row as locally."""
    pkg = package(PKG)
    spec = tmp_path / "bad.yaml"
    spec.write_text("inputs:\n  - {shape: [3, 9], dtype: float32, device: cpu, fill: randn}\n"
                    "  - {shape: [8], dtype: float32, device: cpu, fill: zeros}\n")
    local = check_yaml([aotidbg, "check", pkg, "--inputs", str(spec), "--format", "yaml", "--sha256"])
    copy = tmp_path / "copy.pt2"
    shutil.copy(pkg, copy)
    pushed = check_yaml([aotidbg, "check", *remote_args(sshd), "--push", str(copy), "--inputs", str(spec),
                         "--format", "yaml", "--sha256"], env=sshd.env())
    fails = {c["id"] for c in local["checks"] if c["status"] == "FAIL"}
    assert fails and fails == {c["id"] for c in pushed["checks"] if c["status"] == "FAIL"}
    assert pushed["sha256"] == local["sha256"]


def test_missing_remote_runner(aotidbg, package, sshd, tmp_path):
    r = run([aotidbg, "check", *remote_args(sshd, str(tmp_path / "no-such-runner")), package(PKG)],
            env=sshd.env())
    assert r.returncode == 2, r.stderr
    assert "no runner on" in r.stderr and "no-such-runner" in r.stderr, r.stderr
    assert "-DAOTIDBG_RUNNER_ONLY=ON" in r.stderr and "--remote-runner" in r.stderr


def test_runner_too_old(aotidbg, package, sshd, tmp_path):
    """A runner from before --serve (it refuses the argument, as the protocol 1
    runner did) is named as too old, with how to build one."""
    old = tmp_path / "aotidbg-runner"
    old.write_text("#!/bin/sh\necho \"aotidbg-runner: unknown argument '$1'\" >&2\nexit 2\n")
    old.chmod(0o755)
    r = run([aotidbg, "check", *remote_args(sshd, str(old)), package(PKG)], env=sshd.env())
    assert r.returncode == 2, r.stderr
    assert "too old" in r.stderr and "protocol 2" in r.stderr, r.stderr


def test_wrong_host_key(aotidbg, package, sshd, tmp_path):
    """known_hosts holds another key for the server: ssh refuses and says so;
    aotidbg passes ssh's words on and exits 2."""
    other = sshd_harness.keygen(str(tmp_path / "other"))
    saved = open(sshd.known_hosts).read()
    try:
        sshd.write_known_hosts(other)
        r = run([aotidbg, "check", *remote_args(sshd), package(PKG)], env=sshd.env())
    finally:
        with open(sshd.known_hosts, "w") as f:
            f.write(saved)
    assert r.returncode == 2, r.stderr
    assert "Host key verification failed" in r.stderr, r.stderr
    assert "REMOTE HOST IDENTIFICATION HAS CHANGED" in r.stderr


def test_bad_target(aotidbg, package):
    r = run([aotidbg, "check", "--remote", "host:notaport", package(PKG)])
    assert r.returncode == 2 and "[USER@]HOST[:PORT]" in r.stderr, r.stderr
    r = run([aotidbg, "check", "--push", package(PKG)])
    assert r.returncode == 2 and "--push goes with --remote" in r.stderr, r.stderr


# ---- the agent itself (aotidbg-runner --serve), over pipes --------------------------------
# Its bounded zip reader must refuse what could escape its folder, read torch's
# STORED entries and deflated ones, and it must leave nothing behind.
import hashlib  # noqa: E402
import struct  # noqa: E402
import subprocess  # noqa: E402
import zipfile  # noqa: E402

FREAD, SHA256, EXTRACT, SPAWN, PING, REPLY, EXIT = 32, 33, 35, 37, 39, 48, 50


def _s(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def _frame(t, body=b""):
    return struct.pack("<IB", len(body) + 1, t) + body


class Agent:
    """`aotidbg-runner --serve` (the runner hosts libtorch: never the sanitized build)."""

    def __init__(self, *args, env=None):
        runner = plain_runner()
        self.p = subprocess.Popen([runner, "--serve", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env)
        t, body = self.read()
        assert t == 1 and struct.unpack_from("<I", body)[0] == 2   # HELLO, protocol 2

    def read(self):
        head = self.p.stdout.read(5)
        assert len(head) == 5, self.p.stderr.read().decode()
        n, t = struct.unpack("<IB", head)
        return t, self.p.stdout.read(n - 1)

    def call(self, t, body):
        self.p.stdin.write(_frame(t, body))
        self.p.stdin.flush()
        rt, b = self.read()
        assert rt == REPLY
        req, ok, value, tl = struct.unpack_from("<BBqI", b)
        text = b[14:14 + tl].decode()
        (dl,) = struct.unpack_from("<I", b, 14 + tl)
        return ok, value, text, b[18 + tl:18 + tl + dl]

    def extract(self, pkg, prefixes):
        return self.call(EXTRACT, _s(str(pkg)) + _s("\n".join(prefixes)))

    def close(self):
        self.p.stdin.close()
        return self.p.wait(10)


def test_agent_reads_extracts_and_cleans_up(package, tmp_path):
    pkg = package(PKG)
    a = Agent()
    ok, size, _, data = a.call(FREAD, _s(pkg) + struct.pack("<QI", 0, 64))
    assert ok and size == os.path.getsize(pkg) and data == open(pkg, "rb").read(64)
    ok, _, text, _ = a.call(SHA256, _s(pkg))
    assert ok and text == hashlib.sha256(open(pkg, "rb").read()).hexdigest()
    ok, _, text, _ = a.call(FREAD, _s(str(tmp_path / "none")) + struct.pack("<QI", 0, 8))
    assert not ok and "No such file" in text
    with zipfile.ZipFile(pkg) as z:
        root = z.namelist()[0].split("/")[0] + "/"
        want = {n[len(root):]: z.read(n) for n in z.namelist()
                if n.startswith(root + "data/aotinductor/") and not n.endswith("/")}
    ok, nfiles, folder, _ = a.extract(pkg, [root + "data/aotinductor/"])
    assert ok and nfiles == len(want), (folder, nfiles)
    for rel, body in want.items():
        assert open(os.path.join(folder, rel), "rb").read() == body, rel
    assert a.close() == 0
    assert not os.path.exists(folder), "the agent left its folder behind"


def _zip(path, entries, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as z:
        for name, body in entries:
            if isinstance(body, zipfile.ZipInfo):
                z.writestr(body, name)
            else:
                z.writestr(name, body)
    return str(path)


def test_agent_zip_reader_refuses_and_inflates(tmp_path):
    a = Agent()
    bad = _zip(tmp_path / "escape.pt2", [("p/data/aotinductor/model/../../../../escaped", b"x")])
    ok, _, text, _ = a.extract(bad, ["p/data/"])
    assert not ok and "'..' component" in text, text
    assert not list(tmp_path.rglob("escaped"))
    link = zipfile.ZipInfo("p/data/aotinductor/model/link")
    link.create_system = 3
    link.external_attr = (0o120777 << 16)
    ok, _, text, _ = a.extract(_zip(tmp_path / "link.pt2", [("/etc/passwd", link)]), ["p/data/"])
    assert not ok and "symbolic link" in text, text
    body = os.urandom(1000) + b"a" * 200000
    deflated = _zip(tmp_path / "deflated.pt2", [("p/data/aotinductor/model/m.cubin", body)], zipfile.ZIP_DEFLATED)
    ok, n, folder, _ = a.extract(deflated, ["p/data/aotinductor/"])
    assert ok and n == 1, folder
    assert open(os.path.join(folder, "data/aotinductor/model/m.cubin"), "rb").read() == body
    whole = open(deflated, "rb").read()
    cut = tmp_path / "cut.pt2"
    cut.write_bytes(whole[: len(whole) // 2])
    ok, _, text, _ = a.extract(str(cut), ["p/data/"])
    assert not ok and ("end of central directory" in text or "truncated" in text), text
    assert a.close() == 0


def test_agent_leaves_when_idle_and_takes_its_runner(tmp_path):
    """Nothing from the front end for --idle seconds: the agent leaves, and the
    runner it spawned goes with it (no process left holding a GPU)."""
    a = Agent("--idle", "1.5")
    a.p.stdin.write(_frame(SPAWN, struct.pack("<I", 0)))
    a.p.stdin.flush()
    t, body = a.read()       # the spawned runner's own HELLO, relayed
    assert t == 1
    off = 4
    for _ in range(2):          # runner version, torch version
        off += 4 + struct.unpack_from("<I", body, off)[0]
    (child,) = struct.unpack_from("<q", body, off)
    assert child != a.p.pid and os.path.exists(f"/proc/{child}")
    assert a.p.wait(20) == 1
    assert "nothing from the front end" in a.p.stderr.read().decode()
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z"
