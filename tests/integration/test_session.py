"""Session files end to end (issue 3), with real AOTI packages and our binaries.

* Round trip: a real CPU run recorded by `aotidbg run --record`; the dump of
  the live in-memory model (AOTIDBG_SESSION_DUMP, written at the final save)
  equals `aotidbg replay --dump` of the file.
* The file is plain YAML another tool reads (PyYAML): format_version first,
  events last, floats as floats.
* SIGKILL of the front end and the runner mid-run: the streamed file on disk
  replays as cut (end_state names the last kernel seen and when), holding
  every kernel the front end had finished before the kill; the next run
  removes the lock and the input files the killed one left.
* Cut at many byte offsets, the malformed corpus, and the big hostile files
  of tests/malformed/gen_big.py: exit 0 or 2 (never a signal); 2 always
  says file:line:col; a cut past the header always loads with a notice.
* The example in aotidbg-session(5) loads.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "malformed"))
from aotidbg_testlib import wrapper_launches, write_spec  # noqa: E402

LOC = r":\d+:\d+: found .*, expected "


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 300)
    return subprocess.run(cmd, **kw)


def model_inputs(pkg):
    return tuple(torch.load(pkg[:-len(".pt2")] + ".inputs.pt"))


@pytest.fixture(scope="module")
def recorded(aotidbg, runner, package, tmp_path_factory):
    """One real CPU run of mlp_ln, recorded, with the live model's dump."""
    pkg = package("mlp_ln")
    d = str(tmp_path_factory.mktemp("rec"))
    spec = write_spec(d, model_inputs(pkg))
    out = os.path.join(d, "s.yaml")
    live = os.path.join(d, "live.txt")
    env = dict(os.environ, AOTIDBG_SESSION_DUMP=live)
    r = run([aotidbg, "run", pkg, "--inputs", spec, "--values", "8", "--record", out], env=env)
    assert r.returncode == 0, r.stderr
    return dict(pkg=pkg, path=out, live=live, dir=d, spec=spec)


def test_replay_dump_equals_live_dump(aotidbg, recorded):
    assert os.path.exists(recorded["live"]), "the final save did not write AOTIDBG_SESSION_DUMP"
    live = open(recorded["live"]).read()
    r = run([aotidbg, "replay", recorded["path"], "--dump"])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    # replay adds the kernel time table after the session (kernel_times.h), the live dump has none
    assert r.stdout.startswith(live)
    assert r.stdout[len(live):].startswith("\nkernel times: "), r.stdout[len(live):]
    # the dump is about this run: every kernel the wrapper launches, in order
    launches = wrapper_launches(recorded["pkg"])
    names = re.findall(r"^#\d+ kernel (\S+) ", r.stdout, re.M)
    assert names == launches
    assert "end_state: complete" in r.stdout
    assert not os.path.exists(recorded["path"] + ".tmp")


def test_file_is_plain_yaml(recorded):
    text = open(recorded["path"]).read()
    assert text.startswith('format_version: "1.0"\n')
    sess = yaml.safe_load(text)
    keys = list(sess)
    assert keys[0] == "format_version" and keys[-1] == "events"
    kernels = [e for e in sess["events"] if e["kind"] == "kernel"]
    assert kernels and all(set(e) >= {"index", "name", "type", "status", "duration_us", "tensors"} for e in kernels)
    # the final save counts the list just before it, so a dump can print its "events:" line first
    assert keys[-3:] == ["counts", "index", "events"]
    assert sess["counts"] == {"events": len(sess["events"]), "kernels": len(kernels)}
    # and says where the events `route` reads are: each place is one whole event of the list
    ix, raw = sess["index"], open(recorded["path"], "rb").read()
    assert ix["bytes"] == len(raw) and len(ix["at"]) == len(ix["len"]) >= 1 and ix["at"] == sorted(ix["at"])
    items = []
    for at, n in zip(ix["at"], ix["len"]):
        chunk = raw[at:at + n]
        assert raw[at - 1:at] == b"\n" and chunk.startswith(b"- {kind: ") and chunk.endswith(b"\n"), chunk[:80]
        items += yaml.safe_load(chunk.decode())
    assert all(e in sess["events"] for e in items)
    # every event that is not a kernel, and the last launch of each kernel name
    assert [e for e in items if e["kind"] != "kernel"] == [e for e in sess["events"] if e["kind"] != "kernel"]
    last = {k["name"]: k["index"] for k in kernels}
    assert {k["index"] for k in items if k["kind"] == "kernel"} >= set(last.values())
    # the kernel's own time sits inside the hook-to-hook span (CPU: the launch alone)
    assert all(0 <= k["device_us"] <= k["duration_us"] for k in kernels), kernels
    for k in kernels:
        for t in k["tensors"]:
            assert set(t) >= {"name", "phase", "shape", "strides", "dtype", "device", "stats"}
            for key in ("min", "max", "mean", "std"):
                assert isinstance(t["stats"][key], (int, float))
            for key in ("nan", "posinf", "neginf", "zeros"):
                assert isinstance(t["stats"][key], int)


def test_rewrite_is_stable(aotidbg, recorded, tmp_path):
    """Replaying a file PyYAML re-emitted in block style gives the same dump: the
    reader takes any layout of the schema, not only ours."""
    sess = yaml.safe_load(open(recorded["path"]))
    other = tmp_path / "block.yaml"
    # float('nan') and inf dump as .nan/.inf in PyYAML; sort_keys=False keeps format_version first
    other.write_text(yaml.safe_dump(sess, sort_keys=False, default_flow_style=False))
    a = run([aotidbg, "replay", recorded["path"], "--dump"])
    b = run([aotidbg, "replay", str(other), "--dump"])
    assert b.returncode == 0, b.stderr
    assert a.stdout == b.stdout


PRELOAD = r"""
/* Stops the model in its 2nd addmm (a real libtorch op the model .so calls
 * through the global scope, where LD_PRELOAD comes first). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>
typedef void *H;
typedef int32_t (*addmm_fn)(H, H, H, H, double, double);
static int calls;
int32_t aoti_torch_cpu_addmm_out(H out, H self, H m1, H m2, double beta, double alpha)
{
    if (++calls == 2)
        for (;;)
            pause();
    addmm_fn real = (addmm_fn)dlsym(RTLD_NEXT, "aoti_torch_cpu_addmm_out");
    return real(out, self, m1, m2, beta, alpha);
}
"""


def test_sigkill_mid_run_leaves_a_replayable_file(aotidbg, recorded, tmp_path):
    src, lib = tmp_path / "hang.c", tmp_path / "libh3hang.so"
    src.write_text(PRELOAD)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-ldl"], check=True)
    launches = wrapper_launches(recorded["pkg"])
    second_addmm = [i for i, k in enumerate(launches) if k == "aoti_torch_cpu_addmm_out"][1]
    out = str(tmp_path / "s.yaml")
    tmp = tmp_path / "tmp"   # the runs' $TMPDIR: where their input files go
    tmp.mkdir()
    # (verify_asan_link_order=0: with an AOTIDBG_SANITIZE build, ASan must tolerate our preload)
    env = dict(os.environ, LD_PRELOAD=str(lib), TMPDIR=str(tmp),
               ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":"))
    p = subprocess.Popen([aotidbg, "run", recorded["pkg"], "--inputs", recorded["spec"], "--timeout", "0",
                          "--record", out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        # wait until every kernel before the hang is on disk (each ended, so each is streamed)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120:
            if os.path.exists(out) and open(out).read().count("\n- {kind: kernel,") >= second_addmm:
                break
            assert p.poll() is None, p.communicate()
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)   # the front end and the runner, no chance to save
        except ProcessLookupError:
            pass
        p.communicate(timeout=30)
    r = run([aotidbg, "replay", out, "--dump"])
    assert r.returncode == 0, r.stderr
    # the file says running, and nobody holds its lock: it replays as cut, with the last kernel and the time
    assert "end_state: running" in open(out).read()
    last = launches[second_addmm - 1]
    assert re.search(r"^end_state: cut-off: the writer ended without its final save, after kernel "
                     rf"{second_addmm - 1} {re.escape(last)} \(t=\d+ ms\); "
                     r"last written \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", r.stdout, re.M), r.stdout
    assert "the recording was cut" in r.stderr, r.stderr
    names = re.findall(r"^#\d+ kernel (\S+) ", r.stdout, re.M)
    # every kernel that ended before the hang; the one hanging is still pending, so not streamed
    assert names == launches[:second_addmm], (names, launches)
    assert "pending" not in re.findall(r"^#\d+ kernel \S+ \[\w+\] (\w+)", r.stdout, re.M)
    # each streamed kernel's tensors equal the complete run's
    full = yaml.safe_load(open(recorded["path"]))
    part = yaml.safe_load(open(out))
    fk = [e for e in full["events"] if e["kind"] == "kernel"]
    pk = [e for e in part["events"] if e["kind"] == "kernel"]
    # (after-tensors only: a buffer before its kernel writes it holds whatever memory had)
    def after(k):
        return [(t["name"], t["shape"], t["stats"]["min"], t["stats"]["max"], t["stats"]["mean"])
                for t in k["tensors"] if t["phase"] == "after"]
    for a, b in zip(pk, fk):
        assert a["name"] == b["name"]
        assert after(a) == after(b)
    # what the kill left (the lock, the inputs' folder) goes at the next run's start
    assert os.path.exists(out + ".lock")
    assert [n for n in os.listdir(tmp) if n.startswith("aotidbg-inputs-")]
    r = run([aotidbg, "run", recorded["pkg"], "--inputs", recorded["spec"], "--record", str(tmp_path / "next.yaml")],
            env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(out + ".lock")
    assert not [n for n in os.listdir(tmp) if n.startswith("aotidbg-inputs-")], os.listdir(tmp)
    # and the cut file replays the same
    assert "end_state: cut-off: the writer ended" in run([aotidbg, "replay", out, "--dump"]).stdout


def replay(aotidbg, path):
    r = run([aotidbg, "replay", path, "--dump"], timeout=120)
    assert r.returncode in (0, 2), (path, r.returncode, r.stderr)   # never death by a signal
    return r


def test_cut_at_many_offsets(aotidbg, recorded, tmp_path):
    data = open(recorded["path"], "rb").read()
    events_at = data.index(b"\nevents:\n") + len(b"\nevents:\n")
    # every byte of the header and of the first event lines, then a spread over the rest
    offsets = set(range(0, min(len(data), events_at + 400)))
    offsets |= set(range(events_at, len(data) + 1, max(1, (len(data) - events_at) // 150)))
    offsets.add(len(data))
    path = str(tmp_path / "cut.yaml")
    for cut in sorted(offsets):
        with open(path, "wb") as f:
            f.write(data[:cut])
        r = replay(aotidbg, path)
        if r.returncode == 2:
            assert cut < events_at, (cut, r.stderr)
            assert re.match("aotidbg: " + re.escape(path) + LOC, r.stderr), (cut, r.stderr)
        elif cut >= events_at:
            # an event counts once its closing brace is there (each ends in "}\n")
            want = data[events_at:cut + 1].count(b"}\n")
            got = len(re.findall(r"^#\d+ ", r.stdout, re.M))
            assert got == want, (cut, got, want)
            if "truncated: yes" in r.stdout:
                assert "cut off" in r.stderr


def test_malformed_corpus_exits_2_with_location(aotidbg):
    d = os.path.join(ROOT, "tests", "malformed")
    files = sorted(f for f in os.listdir(d) if f.endswith(".yaml"))
    assert len(files) >= 10
    for name in files:
        path = os.path.join(d, name)
        r = replay(aotidbg, path)
        assert r.returncode == 2, (name, r.stdout[:200])
        assert re.match("aotidbg: " + re.escape(path) + LOC, r.stderr), (name, r.stderr)
        assert r.stdout == ""


def test_big_hostile_files(aotidbg, tmp_path):
    import gen_big
    files = gen_big.main(str(tmp_path))
    for name, path in files.items():
        t0 = time.monotonic()
        r = replay(aotidbg, path)
        assert r.returncode == 2, name
        assert re.match("aotidbg: " + re.escape(path) + LOC, r.stderr), (name, r.stderr)
        assert time.monotonic() - t0 < 30, name
        os.unlink(path)


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_man_page_example_loads(aotidbg, tmp_path):
    man = os.path.join(ROOT, "man", "aotidbg-session.5")
    r = run(["groff", "-ww", "-man", "-Tutf8", man], env=dict(os.environ, GROFF_NO_SGR="1"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = re.sub(".\b", "", r.stdout)
    m = re.search(r"\nEXAMPLE\n(.*?)\n\s*\(Flow\s+items", text, re.S)
    assert m, "no EXAMPLE section"
    ex = "\n".join(line[7:] for line in m.group(1).split("\n"))
    path = tmp_path / "example.yaml"
    path.write_text(ex)
    r = replay(aotidbg, str(path))
    assert r.returncode == 0, r.stderr
    assert "#0 kernel cpp_fused_relu_0 [cpp] ok 12.5us" in r.stdout


def test_usage(aotidbg, tmp_path):
    r = run([aotidbg, "replay", "--dump", "--help"])
    assert r.returncode == 0 and "usage: aotidbg replay" in r.stdout
    r = run([aotidbg, "replay", "--dump"])
    assert r.returncode == 2 and "missing SESSION.yaml" in r.stderr
    r = run([aotidbg, "replay", str(tmp_path / "nope.yaml"), "--dump"])
    assert r.returncode == 2 and "cannot open" in r.stderr
    r = run([aotidbg, "replay", str(tmp_path), "--dump"])
    assert r.returncode == 2 and "directory" in r.stderr
