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

pytestmark = [pytest.mark.skipif(not sshd_harness.available(), reason="needs openssh-server (.ci/setup.sh)"),
              pytest.mark.usefixtures("nothing_outlives_the_test")]

PKG = "check2"


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    s = sshd_harness.Sshd(str(tmp_path_factory.mktemp("sshd")))
    yield s
    s.stop()


def agents(runner="aotidbg-runner"):
    return sshd_harness.processes_named(f"{runner} --serve")


def own_runner(tmp_path):
    """A link to the runner under a name of this test's own, so that agents(it) sees this test's
    agents alone: other files' tests (test_ranks, test_reliability) start theirs in parallel."""
    link = tmp_path / f"aotidbg-runner-{os.getpid()}-{time.monotonic_ns()}"
    link.symlink_to(plain_runner())
    return str(link)


def gone_soon(runner, seconds=5.0):
    """The agents of runner still alive after seconds: one ending as the command returns is not
    one left behind."""
    end = time.monotonic() + seconds
    while agents(runner) and time.monotonic() < end:
        time.sleep(0.05)
    return agents(runner)


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
    runner = own_runner(tmp_path)
    there = check_yaml([aotidbg, "check", *remote_args(sshd, runner), pkg, "--inputs", str(spec), "--format", "yaml",
                        "--sha256"], env=sshd.env())
    assert there["host"] == sshd.target
    assert there["sha256"] == local["sha256"]
    want = {c["id"]: c["status"] for c in local["checks"]}
    got = {c["id"]: c["status"] for c in there["checks"]}
    assert got == want
    sym = [c for c in there["checks"] if c["id"] == "package.symbols"][0]
    assert "dlopen" in sym["source"] and "protocol 2" in sym["source"], sym
    assert not gone_soon(runner)


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


# ---- runs over ssh ------------------------------------------------------------------------
import signal  # noqa: E402

import numpy as np  # noqa: E402

from aotidbg_testlib import events, load_session  # noqa: E402

RUN_PKG = "mlp_ln"


def mlp_spec(tmp_path):
    """mlp_ln's two inputs from .npy files (fill: file): they travel too."""
    rng = np.random.default_rng(3)
    np.save(tmp_path / "x.npy", rng.standard_normal((6, 16)).astype(np.float32))
    np.save(tmp_path / "idx.npy", np.array([5, 0, 2], dtype=np.int64))
    spec = tmp_path / "spec.yaml"
    spec.write_text("inputs:\n  - {shape: [6, 16], dtype: float32, device: cpu, fill: file, file: x.npy}\n"
                    "  - {shape: [3], dtype: int64, device: cpu, fill: file, file: idx.npy}\n")
    return str(spec)


def kernels_and_stats(sess):
    """Kernels and their tensors' statistics, but for buffers before a kernel
    writes them (uninitialised memory differs from run to run)."""
    out = []
    for e in events(sess, "kernel") + events(sess, "output"):
        out.append((e.get("name"), e.get("status"),
                    [(t["name"], t["phase"], t["shape"], t.get("stats")) for t in e.get("tensors") or []
                     if not (t["phase"] == "before" and t["name"].startswith("buf"))]))
    return out


def descendants(pid):
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
                if st[0] != "Z":
                    kids.setdefault(int(st[1]), []).append(int(p))
            except OSError:
                pass
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def test_run_record_remote_equals_local(aotidbg, package, sshd, tmp_path):
    pkg, spec = package(RUN_PKG), mlp_spec(tmp_path)
    local, there = tmp_path / "local.yaml", tmp_path / "remote.yaml"
    r0 = run([aotidbg, "run", pkg, "--inputs", spec, "--values", "16", "--record", str(local)])
    assert r0.returncode == 0, r0.stderr
    r1 = run([aotidbg, "run", *remote_args(sshd), pkg, "--inputs", spec, "--values", "16", "--record", str(there)],
             env=sshd.env())
    assert r1.returncode == 0, r1.stderr
    a, b = load_session(local), load_session(there)
    assert kernels_and_stats(a) and kernels_and_stats(a) == kernels_and_stats(b)
    assert b["package"]["sha256"] == a["package"]["sha256"] and b["torch_version"] == a["torch_version"]
    assert not descendants(sshd.proc.pid)


def test_run_push(aotidbg, package, sshd, tmp_path):
    """--push: a package only here runs there; the inputs spec and its files are here."""
    copy = tmp_path / "only_here.pt2"
    shutil.copy(package(RUN_PKG), copy)
    out = tmp_path / "s.yaml"
    r = run([aotidbg, "run", *remote_args(sshd), "--push", str(copy), "--inputs", mlp_spec(tmp_path),
             "--record", str(out)], env=sshd.env())
    assert r.returncode == 0, r.stderr
    assert len(events(load_session(out), "kernel")) == 4


def test_live_step_continue_restart(aotidbg, package, sshd, tmp_path):
    """The UI here, the runner there: step, step, restart (a fresh runner on the
    same connection), step, continue; the session holds the second run whole."""
    out = tmp_path / "live.yaml"
    r = run([aotidbg, "--remote", sshd.target, "--remote-runner", plain_runner(), package(RUN_PKG),
             "--inputs", mlp_spec(tmp_path), "--record", str(out), "--headless", "120x40", "--dump-screen",
             "--keys", "step step restart step continue"], env=sshd.env(), cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "restarted: a fresh runner" in r.stdout or "finished" in r.stdout, r.stdout[-2000:]
    sess = load_session(out)
    ks = events(sess, "kernel")
    assert [k["index"] for k in ks] == [0, 1, 2, 3] and all(k["status"] == "ok" for k in ks)
    assert events(sess, "output")
    assert not descendants(sshd.proc.pid)


def test_live_source_view_from_there(aotidbg, package, sshd, tmp_path):
    """S (open-source) on a package that is only there: its sources came through
    the runner; the kernel's body is found in the package's own kernel.cpp."""
    import zipfile
    with zipfile.ZipFile(package(RUN_PKG)) as z:
        kcpp = [n for n in z.namelist() if n.endswith(".kernel.cpp")][0]
        body_line = [i for i, l in enumerate(z.read(kcpp).decode().splitlines(), 1)
                     if "void  cpp_fused_native_layer_norm_relu_0(" in l or "void cpp_fused_native_layer_norm_relu_0(" in l]
    assert body_line
    r = run([aotidbg, "--remote", sshd.target, "--remote-runner", plain_runner(), package(RUN_PKG),
             "--inputs", mlp_spec(tmp_path), "--record", str(tmp_path / "s.yaml"), "--headless", "120x30",
             "--dump-screen", "--keys", "step step open-source"], env=sshd.env(), cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"source: cpp_fused_native_layer_norm_relu_0 - kernel.cpp line {body_line[0]}" in r.stdout, r.stdout[-3000:]


def test_connection_killed_mid_run(aotidbg, package, sshd, tmp_path):
    """ssh dies while the model runs: aotidbg says the connection was lost, the
    session keeps what arrived and says how it ended, and nothing is left running there."""
    out = tmp_path / "cut.yaml"
    spec = tmp_path / "slow.yaml"
    spec.write_text("inputs:\n  - {shape: [1024, 1024], dtype: float32, device: cpu, fill: randn}\n")
    p = subprocess.Popen([aotidbg, "run", *remote_args(sshd), package("runner_slow"), "--inputs", str(spec),
                          "--record", str(out)], env=sshd.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or out.read_text().count("kind: kernel") < 3):
        time.sleep(0.1)
    ssh = [c for c in descendants(p.pid) if "ssh" in open(f"/proc/{c}/cmdline").read().split("\0")[0]]
    assert ssh, "no ssh child"
    there = descendants(sshd.proc.pid)
    assert len(there) >= 2, there            # sshd's session process, the agent, its runner
    os.kill(ssh[0], signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    assert "connection to" in err and "lost" in err, err
    sess = load_session(out)
    n = len(events(sess, "kernel"))
    assert 3 <= n < 160
    ends = events(sess, "runner-exit")
    assert ends and ends[-1]["how"] == "lost", ends
    assert any("lost" in e["text"] for e in events(sess, "error"))
    r = run([aotidbg, "replay", "--dump", str(out)])
    assert r.returncode == 0, r.stderr
    deadline = time.time() + 20
    while time.time() < deadline and descendants(sshd.proc.pid):
        time.sleep(0.1)
    left = [(c, open(f"/proc/{c}/cmdline").read()) for c in descendants(sshd.proc.pid)]
    assert not left, f"left running on the remote side: {left}"


def test_agent_relays_pause_and_runner_exit(package, tmp_path):
    """^C in a remote live session is SIGNAL(PAUSE): the agent passes it to its
    runner, which stops at the next kernel start (STOPPED reason PAUSE); a kill
    comes back as EXIT with the signal. The runner's own frames pass unchanged."""
    import runner_wire as w
    a = Agent()
    pkg = package("runner_slow")
    with zipfile.ZipFile(pkg) as z:
        root = z.namelist()[0].split("/")[0] + "/"
        so_entry = [n for n in z.namelist() if n.endswith(".wrapper.so")][0]
    ok, _, folder, _ = a.extract(pkg, [root + "data/aotinductor/"])
    assert ok, folder
    so = os.path.join(folder, so_entry[len(root):])

    def send(b):
        a.p.stdin.write(b)
        a.p.stdin.flush()

    def until(t):
        while True:
            rt, body = a.read()
            if rt == t:
                return body
            assert rt not in (w.DONE, EXIT), (rt, body)

    send(_frame(SPAWN, struct.pack("<I", 0)))
    assert w.decode(w.HELLO, until(w.HELLO))["version"] == 2
    send(w.load_msg(so, os.path.dirname(so)))
    until(w.LOADED)
    send(w.input_msg(0, "float32", [1024, 1024]) + w.control_msg(w.CONTINUE) + w.frame(w.RUN))
    until(w.KERNEL)
    send(_frame(38, struct.pack("<B", 0)))            # SIGNAL(PAUSE)
    st = w.decode(w.STOPPED, until(w.STOPPED))
    assert st["reason"] == w.STOP_PAUSE and st["kernel"] >= 0, st
    send(_frame(38, struct.pack("<B", 1)))            # SIGNAL(KILL)
    body = until(EXIT)
    how, code = struct.unpack("<Bq", body)
    assert (how, code) == (1, signal.SIGKILL)
    assert a.close() == 0
