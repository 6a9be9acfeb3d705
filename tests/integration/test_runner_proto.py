"""aotidbg-runner driven directly over its protocol socket (fd 3), with real
AOTI packages compiled by torch on CPU: hooks and kernel boundaries, stepping
and breaks, statistics and values checked against torch, input building,
errors. The protocol is packed here with struct, independently of
core/proto/protocol.c, so a framing bug on either side shows up.
"""
import math
import os
import subprocess
import zipfile

import pytest

torch = pytest.importorskip("torch")

from runner_wire import *  # noqa: E402,F403  (message constants, frames, Runner)


@pytest.fixture(scope="module")
def models(package, tmp_path_factory):
    """name -> (so, cubin_dir, example inputs, expected outputs) for extracted packages."""
    cache = {}

    def get(name):
        if name not in cache:
            pkg = package(name)
            d = tmp_path_factory.mktemp(name)
            with zipfile.ZipFile(pkg) as z:
                z.extractall(d)
            so = next(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".wrapper.so"))
            base = pkg[:-len(".pt2")]
            inputs = torch.load(base + ".inputs.pt")
            expected = torch.load(base + ".expected.pt")
            if isinstance(expected, torch.Tensor):
                expected = (expected,)
            cache[name] = (so, os.path.dirname(so), inputs, tuple(expected), d)
        return cache[name]
    return get


def file_inputs(tensors, d):
    """INPUT frames that hand the exact tensors over as raw files."""
    frames = []
    for i, t in enumerate(tensors):
        path = os.path.join(d, f"in{i}.raw")
        t = t.contiguous()
        with open(path, "wb") as f:
            f.write(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        frames.append(input_msg(i, DTYPE_NAME[t.dtype], list(t.shape), "file", raw=path))
    return frames


def start(runner, so, cubin, frames, ctl, env=None, max_values=1 << 20, flags=0):
    r = Runner(runner, env)
    hello = r.recv()
    assert hello["type"] == HELLO and hello["version"] == 2 and hello["pid"] == r.p.pid
    r.send(load_msg(so, cubin, max_values=max_values, flags=flags))
    loaded = r.until(LOADED, DONE)[-1]
    assert loaded["type"] == LOADED, r.msgs
    r.send(*frames, ctl, frame(RUN))
    return r, loaded


def torch_stats(t):
    """What model.h's tensor_stats should say, computed by torch."""
    f = t.double().flatten()
    fin = f[torch.isfinite(f)]
    sub = 0
    if t.dtype.is_floating_point:
        tiny = torch.finfo(t.dtype).tiny
        a = t.float().abs().flatten() if t.dtype != torch.float64 else f.abs()
        sub = int(((a > 0) & (a < tiny)).sum())
    return {
        "numel": f.numel(), "finite": fin.numel(), "nan": int(torch.isnan(f).sum()),
        "posinf": int((f == math.inf).sum()), "neginf": int((f == -math.inf).sum()),
        "zeros": int((f == 0).sum()), "subnormal": sub,
        "min": float(fin.min()) if fin.numel() else math.nan, "max": float(fin.max()) if fin.numel() else math.nan,
        "mean": float(fin.mean()) if fin.numel() else math.nan,
        "std": float(fin.std()) if fin.numel() > 1 else math.nan,
        # first in row-major order (the runner reads these CPU tensors on the host)
        "min_at": first(f == fin.min()) if fin.numel() else -1,
        "max_at": first(f == fin.max()) if fin.numel() else -1,
        "nonfinite_at": first(~torch.isfinite(f)),
    }


def first(mask):
    idx = torch.nonzero(mask)
    return int(idx[0]) if idx.numel() else -1


def assert_stats(got, want, what):
    for k in ("numel", "finite", "nan", "posinf", "neginf", "zeros", "subnormal"):
        assert got[k] == want[k], f"{what}: {k} {got[k]} != torch {want[k]}"
    for k in ("min", "max", "mean", "std"):
        if math.isnan(want[k]):
            assert math.isnan(got[k]), f"{what}: {k} {got[k]}, torch says nan"
        else:
            assert got[k] == pytest.approx(want[k], rel=1e-9, abs=1e-12), f"{what}: {k}"
    for k in ("min_at", "max_at", "nonfinite_at"):
        assert got[k] == want[k], f"{what}: {k} {got[k]} != torch {want[k]}"


def kernels_of(msgs):
    return [m for m in msgs if m["type"] == KERNEL]


def test_full_run_matches_torch(runner, models, tmp_path):
    so, cubin, inputs, expected, _ = models("mlp_ln")
    r, loaded = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg())
    assert loaded["n_inputs"] == 2 and len(loaded["names"]) == 2 and all(loaded["names"])
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    ks = kernels_of(msgs)
    n = len(ks) // 2
    assert n >= 3
    # each kernel: KERNEL before, its tensors, KERNEL after; indices in order
    for i in range(n):
        b, a = ks[2 * i], ks[2 * i + 1]
        assert (b["index"], b["phase"], a["index"], a["phase"]) == (i, 0, i, 1)
        assert b["name"] == a["name"] and b["name"]
        assert b["source"] == a["source"] == "printer"
        assert a["status"] == "ok" and a["duration_us"] >= 0 and a["t_us"] >= b["t_us"]
        assert b["device_us"] == -1 and 0 <= a["device_us"] <= a["duration_us"]
        ts = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == i]
        assert {t["phase"] for t in ts} == {0, 1}
    # outputs: values equal eager torch; stats equal torch's on the same numbers
    outs = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1]
    assert [o["name"] for o in outs] == [f"output{i}" for i in range(len(expected))]
    for o, e in zip(outs, expected):
        assert o["shape"] == list(e.shape) and o["dtype"] == DTYPE_NAME[e.dtype] and o["complete"] == 1
        got = torch.tensor(o["values"], dtype=torch.float64).reshape(e.shape)
        assert torch.allclose(got, e.double(), rtol=1e-4, atol=1e-5)
        assert_stats(o["stats"], torch_stats(got.to(e.dtype)), o["name"])
    # an input's before-tensor carries exactly the bytes we sent
    arg = [m for m in msgs if m["type"] == TENSOR and m["name"] == loaded["names"][0] and m["phase"] == 0]
    if arg:
        assert arg[0]["values"] == inputs[0].double().flatten().tolist()
    rc, err = r.finish()
    assert rc == 0, err


ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "int16": 2,
            "int8": 1, "uint8": 1, "bool": 1}


def test_alloc_flag_says_where_tensors_sit(runner, models, tmp_path):
    """LOAD flag ALLOC (--memcheck's tensor table): every kernel tensor says its data pointer and the
    storage holding it, and its elements lie inside that storage; without the flag no frame has it."""
    so, cubin, inputs, _, _ = models("mlp_ln")
    r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg(), flags=2)
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0
    ts = [m for m in msgs if m["type"] == TENSOR and m["kernel"] >= 0]
    assert ts and all("alloc" in t for t in ts), [t["name"] for t in ts if "alloc" not in t]
    for t in ts:
        a, size = t["alloc"], ITEMSIZE[t["dtype"]]
        if not all(t["shape"]):
            continue
        span = sum((n - 1) * s for n, s in zip(t["shape"], t["strides"]) if s > 0) + 1
        assert a["data"] and a["base"] <= a["data"], t
        assert a["data"] + span * size <= a["base"] + a["bytes"], (t["name"], a, span)
    # one buffer seen before and after a kernel is the same allocation
    for b in (t for t in ts if t["phase"] == 0):
        for x in (t for t in ts if t["phase"] == 1 and t["kernel"] == b["kernel"] and t["name"] == b["name"]):
            assert x["alloc"] == b["alloc"]
    assert r.finish()[0] == 0
    r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg())
    msgs = r.until(DONE)
    assert not any("alloc" in m for m in msgs if m["type"] == TENSOR)
    r.finish()


def test_every_dtype_stats_match_torch(runner, models, tmp_path):
    so, cubin, inputs, expected, _ = models("runner_dtypes")
    inputs = list(inputs)
    x = inputs[0].clone()   # special values: the counts must see them, min/max/mean/std must not
    x[0, :6] = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40])
    inputs[0] = x
    h = inputs[1].clone()
    h[0, 0] = 1e-6           # a float16 subnormal, normal as a double
    inputs[1] = h
    r, loaded = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg())
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    seen = set()
    for m in msgs:
        if m["type"] == TENSOR and m["phase"] == 0 and m["name"] in loaded["names"]:
            i = loaded["names"].index(m["name"])
            assert m["dtype"] == DTYPE_NAME[inputs[i].dtype]
            assert_stats(m["stats"], torch_stats(inputs[i]), f"input {i} {m['dtype']}")
            seen.add(m["dtype"])
    assert seen == set(DTYPE_NAME.values()), seen
    outs = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1]
    assert len(outs) == 7
    with torch.no_grad():
        eager = __import__("model_runner").Dtypes()(*inputs)
    for o, e in zip(outs, eager):
        assert o["dtype"] == DTYPE_NAME[e.dtype]
        assert_stats(o["stats"], torch_stats(e), f"{o['name']} {o['dtype']}")
        want = e.double().flatten()
        got = torch.tensor(o["values"], dtype=torch.float64)
        assert torch.equal(torch.isnan(got), torch.isnan(want))
        ok = ~torch.isnan(want)
        assert torch.allclose(got[ok], want[ok], rtol=1e-2, atol=1e-2), o["name"]
    assert {o["dtype"] for o in outs} == {"float16", "bfloat16", "bool", "float64", "int16", "uint8", "int64"}
    r.finish()


def test_read_only_dtypes_stats_match_torch(runner, models, tmp_path):
    """float8 (both kinds, with specials), uint16 (strided), uint32, uint64: the
    runner reads these (the shim's dtype codes looked up by name) though it
    does not build inputs of them."""
    so, cubin, inputs, expected, _ = models("runner_dtypes2")
    r, loaded = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg())
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0, [m for m in msgs if m["type"] == ERROR]
    outs = [m for m in msgs if m["type"] == TENSOR and m["kernel"] == -1]
    with torch.no_grad():
        eager = __import__("model_runner").Dtypes2()(*inputs)
    names = {torch.float8_e4m3fn: "float8_e4m3fn", torch.float8_e5m2: "float8_e5m2", torch.uint16: "uint16",
             torch.uint32: "uint32", torch.uint64: "uint64"}
    assert [o["dtype"] for o in outs] == [names[e.dtype] for e in eager]
    for o, e in zip(outs, eager):
        assert o["strides"] == list(e.stride()), o["name"]
        assert_stats(o["stats"], torch_stats(e), f"{o['name']} {o['dtype']}")
        assert o["complete"] == 1
        # values in logical (row-major) order, also for the transposed uint16
        assert torch.equal(torch.tensor(o["values"], dtype=torch.float64).isnan(), e.double().flatten().isnan())
        ok = ~e.double().flatten().isnan()
        assert torch.tensor(o["values"], dtype=torch.float64)[ok].tolist() == e.double().flatten()[ok].tolist()
    assert outs[0]["stats"]["subnormal"] >= 1 and outs[0]["stats"]["nan"] >= 1
    r.finish()


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return state, z ^ (z >> 31)


def documented_randn(seed, n):
    """The generator core/runner/input_build.h documents, written from its text."""
    out, s = [], seed
    while len(out) < n:
        s, a = splitmix64(s)
        s, b = splitmix64(s)
        u1 = ((a >> 11) + 1) * 2.0**-53
        u2 = (b >> 11) * 2.0**-53
        rad = math.sqrt(-2 * math.log(u1))
        out += [rad * math.cos(2 * math.pi * u2), rad * math.sin(2 * math.pi * u2)]
    return out[:n]


def test_generated_inputs(runner, models):
    so, cubin, inputs, _, _ = models("mlp_ln")
    frames = [input_msg(0, "float32", list(inputs[0].shape), "randn", seed=7),
              input_msg(1, "int64", list(inputs[1].shape), "arange")]
    r, loaded = start(runner, so, cubin, frames, control_msg())
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0
    before = {m["name"]: m for m in msgs if m["type"] == TENSOR and m["phase"] == 0}
    x = before.get(loaded["names"][0])
    if x:
        want = torch.tensor(documented_randn(7, inputs[0].numel()), dtype=torch.float32).double().tolist()
        assert x["values"] == want
    idx = before.get(loaded["names"][1])
    if idx:
        assert idx["values"] == [float(i) for i in range(inputs[1].numel())]
    r.finish()


def test_stepping_and_breaks(runner, models, tmp_path):
    so, cubin, inputs, _, _ = models("mlp_ln")
    frames = file_inputs(inputs, tmp_path)
    # reference order of kernels
    r, _ = start(runner, so, cubin, frames, control_msg())
    names = [k["name"] for k in kernels_of(r.until(DONE)) if k["phase"] == 0]
    r.finish()
    # STEP: a stop at start, then one before every kernel
    r, _ = start(runner, so, cubin, frames, control_msg(STEP))
    st = r.until(STOPPED)[-1]
    assert (st["kernel"], st["reason"]) == (-1, STOP_START)
    for i in range(len(names)):
        r.send(control_msg(STEP))
        got = r.until(STOPPED)
        st = got[-1]
        assert (st["kernel"], st["phase"], st["reason"]) == (i, 0, STOP_STEP)
        k = kernels_of(got)[-1]
        assert (k["index"], k["phase"], k["name"]) == (i, 0, names[i])
        # nothing of kernel i ran yet: no after-event for it
        assert not [m for m in got if m["type"] == TENSOR and m["kernel"] == i]
    r.send(control_msg(CONTINUE))
    assert r.until(DONE)[-1]["status"] == 0
    assert r.finish()[0] == 0
    # run to index, then to a name, then continue
    target = len(names) - 1
    r, _ = start(runner, so, cubin, frames, control_msg(RUN_TO_INDEX, arg=1))
    st = r.until(STOPPED)[-1]
    assert (st["kernel"], st["reason"]) == (1, STOP_INDEX)
    r.send(control_msg(RUN_TO_NAME, name=names[target]))
    st = r.until(STOPPED)[-1]
    assert st["reason"] == STOP_NAME and names[st["kernel"]] == names[target] and st["kernel"] > 1
    r.send(control_msg(CONTINUE))
    assert r.until(DONE)[-1]["status"] == 0
    r.finish()
    # BREAK_EACH_KERNEL under CONTINUE; QUIT at a stop ends the process at once
    r, _ = start(runner, so, cubin, frames, control_msg(CONTINUE, flags=BREAK_EACH))
    st = r.until(STOPPED)[-1]
    assert (st["kernel"], st["reason"]) == (0, STOP_STEP)
    r.send(frame(QUIT))
    rc, err = r.finish(timeout=20)
    assert rc == 0, err


def test_sigusr1_pauses_at_the_next_kernel(runner, models, tmp_path):
    """The live UI's ^C: SIGUSR1 makes the running model stop at the next
    kernel start with reason PAUSE; the run then goes on as asked. Sent while
    stopped at kernel 0 (the read the runner blocks in is restarted), so the
    pause is due at kernel 1 whatever the timing."""
    import signal
    so, cubin, inputs, _, _ = models("mlp_ln")
    frames = file_inputs(inputs, tmp_path)
    r, _ = start(runner, so, cubin, frames, control_msg(RUN_TO_INDEX, arg=0))
    st = r.until(STOPPED)[-1]
    assert (st["kernel"], st["reason"]) == (0, STOP_INDEX)
    os.kill(r.p.pid, signal.SIGUSR1)
    r.send(control_msg(CONTINUE))
    st = r.until(STOPPED, DONE)[-1]
    assert st["type"] == STOPPED and (st["kernel"], st["phase"], st["reason"]) == (1, 0, STOP_PAUSE), st
    r.send(control_msg(CONTINUE))   # answered: no second pause
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0 and not [m for m in msgs if m["type"] == STOPPED]
    assert r.finish()[0] == 0
    # sent as the run starts: a pause at whichever kernel start comes next (or
    # none, if the run ended first); never the death SIGUSR1 means by default
    r, _ = start(runner, so, cubin, frames, control_msg())
    os.kill(r.p.pid, signal.SIGUSR1)
    m = r.until(STOPPED, DONE)[-1]
    if m["type"] == STOPPED:
        assert (m["phase"], m["reason"]) == (0, STOP_PAUSE), m
        r.send(control_msg(CONTINUE))
        m = r.until(DONE)[-1]
    assert m["status"] == 0
    assert r.finish()[0] == 0


def test_break_on_nan(runner, models, tmp_path):
    so, cubin, inputs, _, _ = models("runner_nan")
    frames = file_inputs(inputs, tmp_path)
    r, _ = start(runner, so, cubin, frames, control_msg())
    ks = [k for k in kernels_of(r.until(DONE)) if k["phase"] == 1]
    r.finish()
    first_nan = next(k for k in ks if k["status"] == "nan")
    assert "log" in first_nan["name"]
    assert all(k["status"] == "ok" for k in ks[:first_nan["index"]])
    r, _ = start(runner, so, cubin, frames, control_msg(CONTINUE, flags=BREAK_NAN))
    got = r.until(STOPPED)
    st = got[-1]
    assert (st["kernel"], st["phase"], st["reason"]) == (first_nan["index"], 1, STOP_NAN)
    after = [m for m in got if m["type"] == TENSOR and m["kernel"] == st["kernel"] and m["phase"] == 1]
    assert any(t["stats"]["nan"] > 0 for t in after)
    r.send(control_msg(CONTINUE, flags=BREAK_NAN))   # the NaN stop comes once per run
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0 and not [m for m in msgs if m["type"] == STOPPED]
    r.finish()


def test_input_errors(runner, models, tmp_path):
    so, cubin, inputs, _, _ = models("mlp_ln")
    # wrong count: refused before Run (which would abort)
    r, _ = start(runner, so, cubin, [input_msg(0, "float32", list(inputs[0].shape))], control_msg())
    msgs = r.until(DONE)
    err = [m for m in msgs if m["type"] == ERROR]
    assert err and err[0]["text"] == "model takes 2 inputs, the spec gives 1" and msgs[-1]["status"] == 1
    assert r.finish()[0] == 1
    # raw file of the wrong size names the input
    bad = tmp_path / "short.raw"
    bad.write_bytes(b"\0" * 12)
    frames = [input_msg(0, "float32", list(inputs[0].shape), "file", raw=str(bad)),
              input_msg(1, "int64", list(inputs[1].shape), "zeros")]
    r, _ = start(runner, so, cubin, frames, control_msg())
    msgs = r.until(DONE)
    text = [m for m in msgs if m["type"] == ERROR][0]["text"]
    # DONE 2: an input that cannot be built from its file is bad input (PROTO_DONE_BAD_INPUT)
    assert text.startswith("input 0:") and "12 bytes" in text and msgs[-1]["status"] == 2
    r.finish()


def test_failed_run_reports_model_message(runner, models, tmp_path):
    """A failed Run's ERROR carries the model's own "Error: ..." line (torch has no
    AOTInductorGetLastError to ask): the runner taps its stderr. Input checks
    at run time (AOTI_RUNTIME_CHECK_INPUTS=1) make the model refuse a wrong dtype
    and a wrong dim; the text must be what the model printed, which must still
    reach the runner's real stderr too."""
    so, cubin, inputs, _, _ = models("mlp_ln")
    env = {"AOTI_RUNTIME_CHECK_INPUTS": "1"}
    wrong_dtype = [inputs[0].double(), inputs[1]]
    cases = [(file_inputs(wrong_dtype, tmp_path), "unmatched dtype")]
    d2 = tmp_path / "dim"
    d2.mkdir()
    wrong_dim = [torch.cat([inputs[0], inputs[0]]), inputs[1]]
    cases.append((file_inputs(wrong_dim, d2), "input_handles[0]"))
    for frames, what in cases:
        # newer torch answers through AOTInductorGetLastError; ignoring it takes the stderr path
        for ignore in ("0", "1"):
            r, _ = start(runner, so, cubin, frames, control_msg(),
                         env=dict(env, AOTIDBG_RUNNER_IGNORE_LAST_ERROR=ignore))
            msgs = r.until(DONE)
            rc, err = r.finish()
            assert msgs[-1]["status"] == 1 and rc == 1, (msgs, err)
            errors = [m["text"] for m in msgs if m["type"] == ERROR]
            assert len(errors) == 1, errors
            text = errors[0]
            assert "input_handles[0]" in text and what in text and "see stderr" not in text, text
            if ignore == "1":
                line = [ln for ln in text.splitlines() if ln.startswith("Error: ")]
                assert line and "input_handles[0]" in line[0], text
                # forwarded as written: the same line is on the runner's stderr
                assert line[0] in err, err


def test_nan_assert_reports_exception_and_error(runner, models, tmp_path):
    """nan_asserts on a NaN input: the Run fails with "Error: aoti_torch_check_inf_and_nan
    (...) API call failed at <wrapper.cpp>, line N" on stderr (after an "Exception in
    aoti_torch: At least one NaN in argN_1" line where torch prints one); read from
    stderr, the ERROR text holds the exception line(s) and the Error line."""
    so, cubin, inputs, _, _ = models("runner_nanassert")
    x = inputs[0].clone()
    x[1, 2] = math.nan   # on CPU, nan_asserts checks the graph inputs
    for ignore in ("0", "1"):
        r, _ = start(runner, so, cubin, file_inputs([x], tmp_path), control_msg(),
                     env={"AOTIDBG_RUNNER_IGNORE_LAST_ERROR": ignore})
        msgs = r.until(DONE)
        rc, err = r.finish()
        assert msgs[-1]["status"] == 1 and rc == 1, (msgs, err)
        text = [m["text"] for m in msgs if m["type"] == ERROR][0]
        assert "check_inf_and_nan" in text and "arg" in text, text
        assert not kernels_of(msgs)   # no printer: no kernels on CPU
        if ignore == "1":
            lines = text.splitlines()
            if lines[-1].startswith("the shim call's exception: "):   # torch >= 2.10 hands it over (model_so.c)
                assert "NaN" in lines[-1], text
                lines = lines[:-1]
            assert lines[-1].startswith("Error: ") and "check_inf_and_nan" in lines[-1], text
            # torch 2.11 printed the exception's own line first (DESIGN 6); 2.13 on CPU does not
            exc = [ln[ln.index("Exception in aoti_torch:"):] for ln in err.splitlines()
                   if "Exception in aoti_torch:" in ln]
            assert exc == lines[:-1], (text, err)


def test_load_errors(runner, tmp_path):
    r = Runner(runner)
    assert r.recv()["type"] == HELLO
    r.send(load_msg(str(tmp_path / "missing.so"), ""))
    msgs = r.until(DONE)
    assert "missing.so" in msgs[0]["text"] and msgs[-1]["status"] == 1
    assert r.finish()[0] == 1
    # a library that is not an AOTI model
    notmodel = subprocess.run(["python3", "-c", "import ctypes.util;print(ctypes.util.find_library('m'))"],
                              capture_output=True, text=True).stdout.strip()
    libm = next((p for p in ("/lib/x86_64-linux-gnu/" + notmodel, "/usr/lib/x86_64-linux-gnu/" + notmodel)
                 if os.path.exists(p)), None)
    if libm:
        r = Runner(runner)
        r.recv()
        r.send(load_msg(libm, ""))
        msgs = r.until(DONE)
        assert "AOTInductorModelContainerCreateWithDevice" in msgs[0]["text"]
        r.finish()
    # cuda on a box without it, or garbage
    r = Runner(runner)
    hello = r.recv()
    r.send(frame(99, b"xx"))
    msgs = r.until(DONE)
    assert "bad message" in msgs[0]["text"] and r.finish()[0] == 2
    if hello["ncuda"] == 0:
        r = Runner(runner)
        r.recv()
        r.send(load_msg("/nonexistent.so", "", device="cuda"))
        msgs = r.until(DONE)
        assert "no CUDA device" in msgs[0]["text"]
        r.finish()


def test_hooks_count_only(runner, models, tmp_path):
    so, cubin, inputs, _, _ = models("mlp_ln")
    r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg(STEP),
                 env={"AOTIDBG_RUNNER_RECORD": "0"})
    msgs = r.until(DONE)
    assert msgs[-1]["status"] == 0
    assert not kernels_of(msgs) and not [m for m in msgs if m["type"] == STOPPED]
    assert len([m for m in msgs if m["type"] == TENSOR]) == 1   # just the output
    rc, err = r.finish()
    assert rc == 0 and "hook events" in err


def test_values_cap(runner, models, tmp_path):
    so, cubin, inputs, _, _ = models("mlp_ln")
    r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg(), max_values=5)
    msgs = r.until(DONE)
    ts = [m for m in msgs if m["type"] == TENSOR]
    assert ts and all(len(t["values"]) == min(5, t["stats"]["numel"]) for t in ts)
    assert all(t["complete"] == (t["stats"]["numel"] <= 5) for t in ts)
    r.finish()


def test_bench_mode(runner, models):
    so, cubin, inputs, _, _ = models("mlp_ln")
    args = [f"float32:{'x'.join(map(str, inputs[0].shape))}:randn",
            f"int64:{'x'.join(map(str, inputs[1].shape))}:zeros"]
    for mode in ("off", "record"):
        p = subprocess.run([runner, "--bench", so, cubin, "cpu", "20", mode] + args, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        fields = dict(kv.split("=") for kv in p.stdout.split())
        assert fields["mode"] == mode and float(fields["us_per_run"]) > 0
        assert float(fields["events_per_run"]) > 0
        assert (int(fields["kernels_per_run"]) > 0) == (mode == "record")


def test_printer_level2_hooks(runner, models, tmp_path):
    """Level 2 calls aoti_torch_print_tensor_handle; the kernels must match level 1's."""
    so1, cubin1, inputs, _, _ = models("runner_nan")
    so2, cubin2, _, _, _ = models("runner_level2")
    runs = []
    for so, cubin in ((so1, cubin1), (so2, cubin2)):
        r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg())
        msgs = r.until(DONE)
        assert msgs[-1]["status"] == 0
        runs.append(msgs)
        r.finish()
    k1 = [(k["index"], k["name"], k["status"]) for k in kernels_of(runs[0]) if k["phase"] == 1]
    k2 = [(k["index"], k["name"], k["status"]) for k in kernels_of(runs[1]) if k["phase"] == 1]
    assert k1 and k1 == k2
    names = lambda msgs: [(m["kernel"], m["phase"], m["name"]) for m in msgs if m["type"] == TENSOR]
    assert names(runs[0]) == names(runs[1])


def test_front_end_gone_at_stop(runner, models, tmp_path):
    """A runner waiting at a stop ends (no hang, no signal) when its front end goes away."""
    so, cubin, inputs, _, _ = models("mlp_ln")
    r, _ = start(runner, so, cubin, file_inputs(inputs, tmp_path), control_msg(RUN_TO_INDEX, arg=1))
    assert r.until(STOPPED)[-1]["kernel"] == 1
    r.send(frame(RUN))   # not a CONTROL: refused with an ERROR, the runner keeps waiting
    assert "ignored" in r.until(ERROR)[-1]["text"]
    rc, err = r.finish(timeout=20)
    assert rc == 1, err
