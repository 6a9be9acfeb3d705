"""Nothing lost, nothing let in: signals, saves, shared folders, silent
remotes, hostile packages. Real runs of the real mlp_ln CPU package; a hang
comes from test_faults.py's preloaded fault library (the second addmm never
returns), so a signal lands while a kernel is in flight.

* SIGHUP, SIGINT, SIGTERM mid-run, at load, and again during the save: exit 1
  (never death by a signal), the session replays, end_state says
  "interrupted (NAME)", the summary says what the file says.
* The save cannot be turned against the user: links planted at the
  temporary, the partial and the lock file are not followed; a second run to
  the same file refuses (exit 2) naming the first one's pid; an existing
  session stays until the new one is saved; a full disk (a 64 KiB tmpfs) gives
  exit 1 and a summary that says what the file on disk says.
"""
import glob
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from aotidbg_testlib import events, load_session, run, wrapper_launches, write_spec  # noqa: E402
from test_faults import fault_runner  # noqa: E402,F401 (the fixture: a runner with the fault library)

pytestmark = pytest.mark.usefixtures("nothing_outlives_the_test")


@pytest.fixture(scope="module")
def mlp(package, tmp_path_factory):
    pkg = package("mlp_ln")
    d = tmp_path_factory.mktemp("h27mlp")
    spec = write_spec(str(d), tuple(torch.load(pkg[:-len(".pt2")] + ".inputs.pt")))
    launches = wrapper_launches(pkg)
    second = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    return dict(pkg=pkg, spec=spec, launches=launches, hang_at=second)


def hang_env(fault_runner, tmp):
    os.makedirs(tmp, exist_ok=True)
    return dict(os.environ, AOTIDBG_RUNNER=fault_runner, H9_FAULT="hang", H9_FAULT_AT="2", TMPDIR=str(tmp))


def start_hanging(aotidbg, mlp, env, out):
    return subprocess.Popen([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--timeout", "0",
                             "--record", out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(cond, p, secs=120):
    t0 = time.monotonic()
    while time.monotonic() - t0 < secs:
        if cond():
            return
        assert p.poll() is None, p.communicate()
        time.sleep(0.02)
    raise AssertionError("timed out")


def streamed_kernels(path):
    try:
        return open(path).read().count("\n- {kind: kernel,")
    except FileNotFoundError:
        return -1


def replayed_end(aotidbg, out):
    d = run([aotidbg, "replay", out, "--dump"])
    assert d.returncode == 0, d.stderr
    return [ln.split(": ", 1)[1] for ln in d.stdout.splitlines() if ln.startswith("end_state: ")][0], d.stdout


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_signal_mid_run_saves_how_it_ended(aotidbg, mlp, fault_runner, tmp_path, sig):
    out = str(tmp_path / "s.yaml")
    p = start_hanging(aotidbg, mlp, hang_env(fault_runner, tmp_path / "tmp"), out)
    wait_for(lambda: streamed_kernels(out) >= mlp["hang_at"], p)
    time.sleep(0.2)
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err   # never death by the signal
    want = f"interrupted ({sig.name})"
    end, dump = replayed_end(aotidbg, out)
    assert end == want, dump
    assert f"end_state: {want}" in err, err
    sess = load_session(out)
    names = [k["name"] for k in events(sess, "kernel")]
    assert names == mlp["launches"][:mlp["hang_at"] + 1]   # the kernel in flight is kept
    assert events(sess, "runner-exit")[-1]["how"] == "killed"
    assert not glob.glob(str(tmp_path / "tmp" / "aotidbg-pkg-*")), "the extraction outlived the run"
    assert not glob.glob(out + ".*"), os.listdir(tmp_path)   # no temporary, partial or lock file left


def test_signal_at_load(aotidbg, mlp, fault_runner, tmp_path):
    """SIGHUP as soon as the recording exists, before any kernel ran."""
    out = str(tmp_path / "s.yaml")
    p = start_hanging(aotidbg, mlp, hang_env(fault_runner, tmp_path / "tmp"), out)
    wait_for(lambda: os.path.exists(out), p)
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    end, dump = replayed_end(aotidbg, out)
    assert end == "interrupted (SIGHUP)", dump
    assert "end_state: interrupted (SIGHUP)" in err, err


def test_signals_during_the_save_do_not_cut_it(aotidbg, mlp, fault_runner, tmp_path):
    """A TERM, then TERMs and HUPs every few milliseconds until the process is gone."""
    out = str(tmp_path / "s.yaml")
    p = start_hanging(aotidbg, mlp, hang_env(fault_runner, tmp_path / "tmp"), out)
    wait_for(lambda: streamed_kernels(out) >= mlp["hang_at"], p)
    p.send_signal(signal.SIGTERM)
    sent = 1
    while p.poll() is None:
        try:
            p.send_signal(signal.SIGHUP if sent % 2 else signal.SIGTERM)
            sent += 1
        except ProcessLookupError:
            break
        time.sleep(0.0005)   # the save of a quiet box takes a few ms: signals must land inside it
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1, (p.returncode, err)
    assert sent > 3
    end, dump = replayed_end(aotidbg, out)
    # the first signal delivered says how it ended (pending together, SIGHUP is delivered first)
    assert end in ("interrupted (SIGTERM)", "interrupted (SIGHUP)"), dump
    assert "cut off" not in dump
    assert not glob.glob(out + ".*"), os.listdir(tmp_path)


def test_closed_stderr_does_not_end_the_run(aotidbg, mlp, tmp_path):
    """SIGPIPE: stderr is a pipe nobody reads any more; the run still ends and saves."""
    out = str(tmp_path / "s.yaml")
    r, w = os.pipe()
    os.close(r)
    p = subprocess.Popen([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--record", out],
                         stdout=w, stderr=w)
    os.close(w)
    assert p.wait(timeout=120) == 0
    end, _ = replayed_end(aotidbg, out)
    assert end == "complete"


def clean_run(aotidbg, mlp, out, **kw):
    return run([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--record", out], **kw)


@pytest.mark.parametrize("suffix", [".tmp", ".part"])
def test_planted_link_is_not_followed(aotidbg, mlp, tmp_path, suffix):
    out = str(tmp_path / "s.yaml")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    if suffix == ".part":   # the partial file is used when a session is already there
        assert clean_run(aotidbg, mlp, out).returncode == 0
    os.symlink(str(victim), out + suffix)
    r = clean_run(aotidbg, mlp, out)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious\n"
    assert replayed_end(aotidbg, out)[0] == "complete"


def test_planted_lock_link_is_refused(aotidbg, mlp, tmp_path):
    out = str(tmp_path / "s.yaml")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(str(victim), out + ".lock")
    r = clean_run(aotidbg, mlp, out)
    assert r.returncode == 2, r.stderr
    assert "s.yaml.lock" in r.stderr
    assert victim.read_text() == "precious\n"
    assert not os.path.exists(out)


def test_two_runs_to_one_file(aotidbg, mlp, fault_runner, tmp_path):
    out = str(tmp_path / "s.yaml")
    p = start_hanging(aotidbg, mlp, hang_env(fault_runner, tmp_path / "tmp"), out)
    try:
        wait_for(lambda: streamed_kernels(out) >= 1, p)
        before = open(out).read()
        r = clean_run(aotidbg, mlp, out)
        assert r.returncode == 2, r.stderr
        assert f"pid {p.pid}" in r.stderr, r.stderr
        assert open(out).read().startswith(before[:before.index("events:")])
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    assert p.returncode == 1
    assert replayed_end(aotidbg, out)[0] == "interrupted (SIGTERM)"
    assert clean_run(aotidbg, mlp, out).returncode == 0   # the lock went with its holder


def test_existing_session_kept_until_the_new_one_is_saved(aotidbg, mlp, fault_runner, tmp_path):
    out = str(tmp_path / "s.yaml")
    assert clean_run(aotidbg, mlp, out).returncode == 0
    old = open(out, "rb").read()
    p = start_hanging(aotidbg, mlp, hang_env(fault_runner, tmp_path / "tmp"), out)
    try:
        wait_for(lambda: streamed_kernels(out + ".part") >= mlp["hang_at"], p)
        assert open(out, "rb").read() == old
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    assert replayed_end(aotidbg, out)[0] == "interrupted (SIGTERM)"
    assert not os.path.exists(out + ".part")


@pytest.fixture
def small_tmpfs(tmp_path):
    d = tmp_path / "full"
    d.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)],
                      capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield d
    subprocess.run(["umount", "-l", str(d)])


def test_full_disk_summary_says_what_the_file_says(aotidbg, mlp, small_tmpfs):
    out = str(small_tmpfs / "s.yaml")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--values", "64", "--record", out])
    assert r.returncode == 1, r.stderr
    end, dump = replayed_end(aotidbg, out)
    assert end.startswith("cut-off") or end == "running", dump   # no writer holds its lock: cut, with why
    assert f"end_state: {end}, as the file says" in r.stderr, r.stderr
    assert "end_state: complete" not in r.stderr


def test_parent_dies_mid_run(aotidbg, mlp, fault_runner, tmp_path):
    """The shell that started the run is killed (SIGKILL): the run ends as if hung up, and says why."""
    out = str(tmp_path / "s.yaml")
    env = hang_env(fault_runner, tmp_path / "tmp")
    log = str(tmp_path / "err.txt")
    sh = subprocess.Popen(["sh", "-c", '"$@" 2>"$LOG" & echo $!; wait', "sh", aotidbg, "run", mlp["pkg"],
                           "--inputs", mlp["spec"], "--timeout", "0", "--record", out],
                          env=dict(env, LOG=log), stdout=subprocess.PIPE, text=True)
    pid = int(sh.stdout.readline())
    wait_for(lambda: streamed_kernels(out) >= mlp["hang_at"], sh)
    sh.kill()
    sh.wait()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60 and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.05)
    end, dump = replayed_end(aotidbg, out)
    assert end == "interrupted (parent died)", dump
    assert "end_state: interrupted (parent died)" in open(log).read()
    assert not glob.glob(str(tmp_path / "tmp" / "aotidbg-pkg-*"))


# ---- untrusted text never reaches the terminal raw ----------------------------------

ESC = "\x1b"
NASTY = [ESC + "]0;title\x07", ESC + "[2J", ESC + "[31m", "\r", "\u009b"]


def hostile_package(src, dst, entry_name=None):
    """src with escape sequences in its metadata values and keys, and one more entry."""
    import json
    import zipfile
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for i in z.infolist():
            d = z.read(i.filename)
            if i.filename.endswith("wrapper_metadata.json"):
                m = json.loads(d)
                m["AOTI_PLATFORM"] += NASTY[0] + NASTY[3]
                m["AOTI_MACHINE"] += NASTY[1] + NASTY[2]
                m["EVIL" + NASTY[2]] = "v" + NASTY[4]
                d = json.dumps(m).encode()
            out.writestr(i, d)
        root = z.namelist()[0].split("/")[0]
        out.writestr(f"{root}/data/aotinductor/model/{entry_name or 'w' + NASTY[4] + '.cubin'}", b"x")
    return dst


def no_control(text):
    bad = [c for c in text if c in "\x1b\x07\r\u009b"]
    assert not bad, repr(text[:2000])


def test_hostile_metadata_prints_no_escape(aotidbg, mlp, tmp_path):
    pkg = hostile_package(mlp["pkg"], str(tmp_path / "evil.pt2"))
    i = run([aotidbg, "info", pkg])
    assert i.returncode == 0, i.stderr
    no_control(i.stdout + i.stderr)
    assert "linux\\x1b]0;title\\x07\\r" in i.stdout, i.stdout   # shown, escaped
    assert "w\\u009B.cubin" in i.stdout, i.stdout
    for cmd in (["check", pkg], ["check", pkg, "--format", "yaml"], ["info", pkg, "--calls"]):
        r = run([aotidbg] + cmd)
        assert r.returncode in (0, 1), r.stderr
        no_control(r.stdout + r.stderr)
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", pkg, "--inputs", mlp["spec"], "--force", "--record", out])
    no_control(r.stdout + r.stderr)
    assert r.returncode in (0, 1), r.stderr


def test_hostile_entry_name_in_an_error(aotidbg, mlp, tmp_path):
    pkg = hostile_package(mlp["pkg"], str(tmp_path / "evil.pt2"), entry_name="w" + NASTY[1] + NASTY[0] + ".cubin")
    for cmd in (["info", pkg], ["check", pkg], [pkg, "--inputs", mlp["spec"], "--record", str(tmp_path / "l.yaml"),
                                               "--headless", "80x24", "--keys", "q"]):   # the last: the live UI
        r = run([aotidbg] + cmd, cwd=str(tmp_path))
        assert r.returncode == 2, r.stderr
        no_control(r.stdout + r.stderr)
        assert "w\\x1b[2J\\x1b]0;title\\x07.cubin" in r.stderr, r.stderr


def test_hostile_session_fields_in_dump_and_panes(aotidbg, mlp, tmp_path):
    out = str(tmp_path / "s.yaml")
    assert clean_run(aotidbg, mlp, out).returncode == 0
    s = open(out).read()
    s = "\n".join('host: "box\\e]0;title\\a\\e[2J\\r"' if ln.startswith("host: ") else ln for ln in s.split("\n"))
    s = s.replace("events:\n", 'events:\n- {kind: error, text: "boom \\e[31mred\\e[0m \\x9b", route: unknown}\n', 1)
    s = re.sub(r"(?m)^counts:\n(  .*\n)+", "", s)   # a hand-made event: the final save's counts no longer hold
    bad = str(tmp_path / "bad.yaml")
    open(bad, "w").write(s)
    d = run([aotidbg, "replay", bad, "--dump"])
    assert d.returncode == 0, d.stderr
    no_control(d.stdout + d.stderr)
    assert "boom \\x1b[31mred" in d.stdout
    t = run([aotidbg, "replay", bad, "--headless", "120x40", "--keys", "q"])
    assert t.returncode == 0, t.stderr
    no_control(t.stdout + t.stderr)
    assert "boom ?[31mred" in t.stdout
    r = run([aotidbg, "route", bad])
    no_control(r.stdout + r.stderr)


def test_replay_dump_honours_ref_npy(aotidbg, mlp, tmp_path):
    import numpy as np
    out = str(tmp_path / "s.yaml")
    r = run([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--values", "100000", "--record", out])
    assert r.returncode == 0, r.stderr
    k0 = events(load_session(out), "kernel")[0]
    t = [t for t in k0["tensors"] if t["phase"] == "after"][0]
    ref = str(tmp_path / "ref.npy")
    np.save(ref, np.zeros(t["shape"], dtype=np.float32))
    d = run([aotidbg, "replay", out, "--dump", "--ref-npy", f"0:{t['name']}={ref}"])
    assert d.returncode == 0, d.stderr
    line = [ln for ln in d.stdout.splitlines() if ln.startswith("ref-npy ")]
    assert line and line[0].startswith(f"ref-npy kernel #0 after {t['name']}: vs {ref}: "), d.stdout[-500:]
    assert "differ" in line[0] or "identical" in line[0]
    missing = run([aotidbg, "replay", out, "--dump", "--ref-npy", f"0:{t['name']}={tmp_path}/nope.npy"])
    assert missing.returncode == 2 and "nope.npy" in missing.stderr, missing.stderr
    assert missing.stdout == ""
    notensor = run([aotidbg, "replay", out, "--dump", "--ref-npy", f"0:nosuch={ref}"])
    assert notensor.returncode == 2 and "has no after tensor nosuch at kernel #0" in notensor.stderr


# ---- extraction folders after a crash ----------------------------------------------------

def test_killed_front_end_extraction_removed_by_next_run(aotidbg, mlp, fault_runner, tmp_path):
    tmp = tmp_path / "tmp"
    env = hang_env(fault_runner, tmp)
    out = str(tmp_path / "s.yaml")
    p = subprocess.Popen([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--timeout", "0", "--record", out],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: streamed_kernels(out) >= mlp["hang_at"], p)
    finally:
        os.killpg(p.pid, signal.SIGKILL)   # no chance to clean up
        p.communicate(timeout=30)
    stale = glob.glob(str(tmp / "aotidbg-pkg-*"))
    assert stale, os.listdir(tmp)   # the crash left it (the .so and the weights)
    assert os.path.exists(os.path.join(stale[0], ".owner"))
    old = tmp / "aotidbg-pkg-legacy"   # an older version's folder: no .owner, two days old
    old.mkdir()
    (old / "x.so").write_text("x")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    young = tmp / "aotidbg-pkg-young1"   # no .owner yet, just made: maybe another run's, kept
    young.mkdir()
    other = subprocess.Popen([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--timeout", "0", "--record",
                              str(tmp_path / "held.yaml")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:   # a live run's folder is held: the next run leaves it alone
        wait_for(lambda: streamed_kernels(str(tmp_path / "held.yaml")) >= 1, other)
        held = set(glob.glob(str(tmp / "aotidbg-pkg-*"))) - set(stale) - {str(old), str(young)}
        assert len(held) == 1
        r = run([aotidbg, "run", mlp["pkg"], "--inputs", mlp["spec"], "--record", str(tmp_path / "clean.yaml")],
                env=dict(os.environ, TMPDIR=str(tmp)))
        assert r.returncode == 0, r.stderr
        left = set(glob.glob(str(tmp / "aotidbg-pkg-*")))
        assert left == held | {str(young)}, left
    finally:
        other.send_signal(signal.SIGTERM)
        other.communicate(timeout=60)
    assert set(glob.glob(str(tmp / "aotidbg-pkg-*"))) == {str(young)}


def test_killed_agent_folder_removed_by_the_next_agent(package, tmp_path):
    """The remote end (`aotidbg-runner --serve`, what --remote runs over ssh): a
    killed agent's aotidbg-remote-* folder goes when the next agent makes its own."""
    from test_remote import PKG, Agent
    import zipfile
    pkg = package(PKG)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    with zipfile.ZipFile(pkg) as z:
        prefix = z.namelist()[0].split("/")[0] + "/data/aotinductor/"
    a = Agent(env=env)
    ok, _, first, _ = a.extract(pkg, [prefix])
    assert ok and os.path.isdir(first), first
    a.p.kill()
    a.p.wait(10)
    assert os.path.isdir(first)   # killed: it could not clean up
    b = Agent(env=env)
    ok, _, second, _ = b.extract(pkg, [prefix])
    assert ok and second != first
    assert not os.path.exists(first), "the killed agent's folder survived the next one"
    assert os.path.isdir(second)
    assert b.close() == 0
    assert not glob.glob(str(tmp / "aotidbg-remote-*"))


# ---- a remote runner that goes silent, floods or sends garbage ------------------------------

FAKE_RUNNER = r'''#!PYTHON
# A hostile remote runner for --remote: MODE is silent (no HELLO), hello (the real
# runner's HELLO, then nothing), flood (HELLO, then the start of a maximum-size
# frame), garbage (HELLO, then bytes that are no frame). It reads what comes
# and never answers, and ends only when its connection closes (EOF).
import struct, sys
mode = "MODE"
out = sys.stdout.buffer
if mode != "silent":
    out.write(bytes.fromhex("HELLO_HEX"))
if mode == "flood":
    out.write(struct.pack("<IB", 64 << 20, 4) + b"\0" * (1 << 20))
elif mode == "garbage":
    out.write(b"Welcome to the box! Last login: yesterday\n" * 4)
out.flush()
while sys.stdin.buffer.read(65536):
    pass
'''


@pytest.fixture(scope="module")
def real_hello(runner):
    """The real runner's HELLO frame (what `aotidbg-runner --serve` says first),
    so that the fake says it at once, however loaded the machine is."""
    import struct
    real = os.environ.get("AOTIDBG_RUNNER") or runner
    a = subprocess.Popen([real, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    head = a.stdout.read(5)
    n, _ = struct.unpack("<IB", head)
    frame = head + a.stdout.read(n - 1)
    a.kill()
    a.wait()
    return frame.hex()


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    import sshd_harness
    if not sshd_harness.available():
        pytest.skip("no sshd")
    s = sshd_harness.Sshd(str(tmp_path_factory.mktemp("sshd")))
    yield s
    s.stop()


@pytest.mark.parametrize("mode,said", [
    ("silent", "did not say HELLO within 3 s"),
    ("hello", "within 3 s (--timeout)"),
    ("flood", "and nothing more for 3 s (--timeout)"),
    ("garbage", "something other than the runner protocol at byte "),
])
def test_hostile_remote_runner_is_given_up_within_timeout(aotidbg, real_hello, mlp, sshd, tmp_path, mode, said):
    fake = tmp_path / "bin" / "fake-runner"   # no aotidbg-agent beside it: the front end runs it as the runner
    fake.parent.mkdir()
    fake.write_text(FAKE_RUNNER.replace("PYTHON", sys.executable).replace("MODE", mode).replace("HELLO_HEX", real_hello))
    fake.chmod(0o755)
    out = str(tmp_path / "s.yaml")
    t0 = time.monotonic()
    r = run([aotidbg, "run", "--remote", sshd.target, "--remote-runner", str(fake), mlp["pkg"], "--inputs",
             mlp["spec"], "--timeout", "3", "--record", out], env=sshd.env(), timeout=120)
    took = time.monotonic() - t0
    assert r.returncode in (1, 2), (r.returncode, r.stderr)
    assert said in r.stderr, r.stderr
    assert took < 3 + 15, took
    if mode == "garbage":
        assert "frame #1" in r.stderr, r.stderr   # frame #0 was the HELLO
    if mode in ("silent", "hello"):   # check waits on the runner there too, under the same --timeout
        t0 = time.monotonic()
        c = run([aotidbg, "check", "--remote", sshd.target, "--remote-runner", str(fake), mlp["pkg"], "--timeout",
                 "3"], env=sshd.env(), timeout=120)
        assert c.returncode == 2 and said in c.stderr, (c.returncode, c.stderr)
        assert time.monotonic() - t0 < 3 + 15


def test_restart_after_a_lost_connection_refuses(aotidbg, mlp, fault_runner, sshd, tmp_path):
    """The agent there dies (killed after 8 s) while the model hangs in kernel 2:
    `restart` says why it cannot, and the kernels that arrived stay in the session."""
    fake = tmp_path / "bin" / "dying-runner"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nprintf "last words, no newline" >&2\n'
                    f'H9_FAULT=hang H9_FAULT_AT=2 exec timeout -s KILL 8 "{fault_runner}" "$@"\n')
    fake.chmod(0o755)
    out = str(tmp_path / "live.yaml")
    r = run([aotidbg, "--remote", sshd.target, "--remote-runner", str(fake), mlp["pkg"], "--inputs", mlp["spec"],
             "--timeout", "0", "--record", out, "--headless", "120x40", "--dump-screen", "--keys",
             "continue restart"], env=sshd.env(), cwd=str(tmp_path), timeout=300)
    assert "action 'restart': restart: the connection to" in r.stderr and "was lost" in r.stderr, r.stderr[-2000:]
    assert r.returncode == 1
    assert "(end_state: lost)" in r.stderr
    sess = load_session(out)
    names = [k["name"] for k in events(sess, "kernel")]
    assert names == mlp["launches"][:mlp["hang_at"] + 1], "the kernels that arrived were dropped"
    assert events(sess, "runner-exit")[-1]["how"] == "lost"
    assert any("last words, no newline" in e["text"] for e in events(sess, "log")), events(sess, "log")
    # the kernel in flight is not blamed: the connection went, what the kernel did is not known
    row = [ln for ln in r.stdout.splitlines() if f" {mlp['hang_at']}   aoti_torch_cpu_addmm" in ln][-1]
    assert " lost " in row and "died" not in row, row
    assert "connection to the runner lost in this kernel" in r.stdout, r.stdout
    assert "runner died" not in r.stdout and "connection lost" in r.stdout
    # headless, the same loss: exit 1, the kernels kept, the summary says the connection went
    out = str(tmp_path / "run.yaml")
    r = run([aotidbg, "run", "--remote", sshd.target, "--remote-runner", str(fake), mlp["pkg"], "--inputs",
             mlp["spec"], "--timeout", "0", "--record", out], env=sshd.env(), cwd=str(tmp_path), timeout=300)
    assert r.returncode == 1, r.stderr
    assert f"the connection to the runner was lost during or after kernel {mlp['hang_at']}" in r.stderr, r.stderr
    assert "died" not in r.stderr, r.stderr
    assert [k["name"] for k in events(load_session(out), "kernel")] == names
