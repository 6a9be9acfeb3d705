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


def remote_args(sshd, runner=None):
    return ["--remote", sshd.target, "--remote-runner", runner or tool("aotidbg-runner")]


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
