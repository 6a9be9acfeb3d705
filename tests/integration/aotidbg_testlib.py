"""Helpers shared by the integration tests (test_run.py, test_inputs.py, the TUI tests;
conftest.py re-exports run).

Everything here reads real artifacts: the package's wrapper.cpp, the session
YAML our binaries wrote, and tensors computed by torch.
"""
import math
import os
import re
import subprocess
import zipfile

import numpy as np
import yaml

PRINTER_RE = re.compile(r'aoti_torch_save_tensor_handle\(\s*\w+\s*,\s*"[^"]*"\s*,\s*"(before_launch|after_launch)"\s*,'
                        r'\s*"([^"]+)"\s*\)')
INPUT_NAME_RE = re.compile(r'inputs_info_\[(\d+)\]\.name\s*=\s*"(\w+)"')


def wrapper_cpp(pt2):
    with zipfile.ZipFile(pt2) as z:
        names = [n for n in z.namelist() if n.endswith(".wrapper.cpp")]
        assert len(names) == 1, names
        return z.read(names[0]).decode()


def wrapper_launches(pt2):
    """Kernel launches in order, from the printer calls in wrapper.cpp: a launch
    is a run of before_launch calls for one kernel, ended by its after_launch calls."""
    launches, last_phase = [], None
    for phase, kernel in PRINTER_RE.findall(wrapper_cpp(pt2)):
        if phase == "before_launch" and (last_phase != "before_launch" or launches[-1] != kernel):
            launches.append(kernel)
        last_phase = phase
    return launches


def wrapper_input_names(pt2):
    pairs = sorted((int(i), n) for i, n in INPUT_NAME_RE.findall(wrapper_cpp(pt2)))
    return [n for _, n in pairs]


def extract_so(pt2, dest):
    """Test-only: pulls the model .so (and its folder) out of a package, to run
    it as a bare .so the way torch._export.aot_compile left them."""
    with zipfile.ZipFile(pt2) as z:
        so = [n for n in z.namelist() if n.endswith(".wrapper.so")]
        assert len(so) == 1, so
        folder = os.path.dirname(so[0]) + "/"
        for n in z.namelist():
            if n.startswith(folder) and not n.endswith("/"):
                out = os.path.join(dest, os.path.basename(n))
                with open(out, "wb") as f:
                    f.write(z.read(n))
        return os.path.join(dest, os.path.basename(so[0]))


def damage_so(pt2, dst):
    """Copies pt2 to dst with one byte of its model .so flipped (a stored entry: its CRC-32 no
    longer matches); returns the .so's zip entry."""
    import shutil
    shutil.copy(pt2, dst)
    with zipfile.ZipFile(dst) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(".wrapper.so"))
    with open(dst, "r+b") as f:
        f.seek(info.header_offset)
        h = f.read(30)
        at = info.header_offset + 30 + int.from_bytes(h[26:28], "little") + int.from_bytes(h[28:30], "little")
        f.seek(at + info.file_size // 2)
        b = f.read(1)
        f.seek(at + info.file_size // 2)
        f.write(bytes([b[0] ^ 0xFF]))
    return info


def np_dtype_name(t):
    return {"torch.float32": "float32", "torch.int64": "int64", "torch.float64": "float64",
            "torch.int32": "int32", "torch.bool": "bool", "torch.float16": "float16",
            "torch.uint8": "uint8", "torch.int8": "int8", "torch.complex64": "complex64",
            "torch.complex128": "complex128"}[str(t.dtype)]


def write_spec(tmp_path, tensors, name="spec.yaml", **overrides):
    """Saves each tensor as .npy beside the spec and writes a fill: file spec."""
    lines = ["inputs:"]
    for i, t in enumerate(tensors):
        np.save(os.path.join(tmp_path, f"in{i}.npy"), t.detach().cpu().numpy())
        item = {"shape": list(t.shape), "dtype": np_dtype_name(t), "device": "cpu", "fill": "file",
                "file": f"in{i}.npy"}
        item.update(overrides.get(i, {}))
        lines.append("  - " + yaml.safe_dump(item, default_flow_style=True).strip())
    path = os.path.join(tmp_path, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def eager_outputs(pkg, d):
    """A test package's example inputs (a tuple) and eager outputs (a list), each output saved as
    d/want<i>.npy for --expect (float16 and bfloat16 as float32: numpy has no bfloat16)."""
    import torch
    base = pkg[:-len(".pt2")]
    inputs = tuple(torch.load(base + ".inputs.pt"))
    expected = torch.load(base + ".expected.pt")
    outs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    files = []
    for i, t in enumerate(outs):
        f = os.path.join(str(d), f"want{i}.npy")
        t = t.detach()
        np.save(f, (t.float() if str(t.dtype) in ("torch.bfloat16", "torch.float16") else t).numpy())
        files.append(f)
    return inputs, outs, files


def load_session(path):
    with open(path) as f:
        return yaml.safe_load(f)


def events(sess, kind):
    return [e for e in sess.get("events") or [] if e["kind"] == kind]


def torch_stats(t):
    """What the session's stats mean (model.h): min/max/mean/std over finite
    elements, std unbiased; counts of NaN, +Inf, -Inf and zeros."""
    import torch
    x = t.detach().to(torch.float64).flatten()
    fin = x[torch.isfinite(x)]
    out = {"numel": x.numel(), "finite": fin.numel(), "nan": int(torch.isnan(x).sum()),
           "posinf": int((x == math.inf).sum()), "neginf": int((x == -math.inf).sum()),
           "zeros": int((x == 0).sum())}
    if fin.numel():
        out.update(min=float(fin.min()), max=float(fin.max()), mean=float(fin.mean()),
                   std=float(fin.std()) if fin.numel() > 1 else math.nan)
    else:
        out.update(min=math.nan, max=math.nan, mean=math.nan, std=math.nan)
    return out


def close(a, b, scale, rel=1e-5):
    """Relative error <= rel; near zero (a mean of a centred tensor) the
    error is taken relative to the tensor's magnitude instead."""
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return (isinstance(a, float) and math.isnan(a)) and (isinstance(b, float) and math.isnan(b))
    return abs(a - b) <= rel * max(abs(b), rel * scale, 1e-30)


def check_stats(rec, want, what):
    """Compares a recorded stats map to torch_stats(); returns a list of problems."""
    probs = []
    for k in ("numel", "finite", "nan", "posinf", "neginf", "zeros"):
        if int(rec[k]) != want[k]:
            probs.append(f"{what}: {k} {rec[k]} != torch {want[k]}")
    scale = max(abs(want["min"]), abs(want["max"])) if want["finite"] else 1.0
    for k in ("min", "max", "mean", "std"):
        if not close(float(rec[k]), want[k], scale):
            probs.append(f"{what}: {k} {rec[k]!r} != torch {want[k]!r}")
    return probs


def run(cmd, **kw):
    """Runs a command, returns CompletedProcess with text output; never raises on exit code."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 300)
    return subprocess.run(cmd, **kw)


def frames(stdout):
    """Splits `--headless --dump-screen` output into (label, screen text) pairs,
    one per "=== label ===" header."""
    out, cur = [], None
    for line in stdout.splitlines():
        if line.startswith("=== ") and line.endswith(" ==="):
            cur = [line[4:-4], []]
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    return [(label, "\n".join(lines)) for label, lines in out]


NAN_SPEC = "inputs:\n  - {shape: [4, 8], dtype: float32, device: cpu, fill: %s}\n"


def record_session(aotidbg, pkg, spec_text, path, tmp_path):
    """`aotidbg run PKG --record PATH` with the given inputs spec text (values kept);
    returns the spec's path."""
    spec = tmp_path / (path.stem + ".inputs.yaml")
    spec.write_text(spec_text)
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(path), "--values", "4096"])
    assert r.returncode == 0, r.stderr
    return spec


def session_kernels(path):
    """The kernel events of a session file, as PyYAML reads them."""
    doc = yaml.safe_load(path.read_text())
    return [e for e in doc["events"] if e.get("kind") == "kernel"]


def kernel_tensor(k, name, phase):
    for t in k.get("tensors", []):
        if t["name"] == name and t["phase"] == phase:
            return t
    return None


# ---- no process outlives its test -------------------------------------------------------

def _children_of():
    """{pid: (ppid, state, cmdline)} of every process, from /proc."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open(f"/proc/{d}/stat").read()
            cmd = open(f"/proc/{d}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        procs[int(d)] = (int(rest[1]), rest[0], cmd)
    return procs


def descendants():
    """{pid: (state, cmdline)} of the processes below this one."""
    procs, me = _children_of(), os.getpid()
    out, todo = {}, [me]
    while todo:
        p = todo.pop()
        for pid, (ppid, state, cmd) in procs.items():
            if ppid == p and pid not in out:
                out[pid] = (state, cmd)
                todo.append(pid)
    return out


def become_subreaper(on=True):
    """Orphans below this process (a runner whose front end was killed, a remote
    end whose ssh went) are re-parented here instead of to init, so that
    descendants() still sees them; on=False gives them back to init (other
    tests' checks of /proc would see unreaped zombies here)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1 if on else 0, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER


def leftovers(before, grace_s=10.0):
    """The processes started since `before` (a descendants() snapshot) that are
    still alive after grace_s seconds; orphaned zombies re-parented here are
    reaped. Those left are killed, and returned as {pid: cmdline}."""
    import signal
    import time
    t0 = time.monotonic()
    while True:
        new = {p: v for p, v in descendants().items() if p not in before}
        for pid, (state, _) in list(new.items()):
            if state == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                del new[pid]
        if not new or time.monotonic() - t0 > grace_s:
            break
        time.sleep(0.1)
    for pid in new:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return {p: c for p, (_, c) in new.items()}
