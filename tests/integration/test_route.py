"""`aotidbg route`: the error router on real logs, hostile input and a real package.

* every log of the labelled corpora (../shared/corpus/dev, dev2 and dev3: real
  logs from public issues and our H200 runs; a label `a|b` accepts either) is
  routed by the real binary; each corpus must be at least 95% right, and so
  must the platform where the labels give one (dev3); the misses are printed
  with the line the router based its answer on;
* empty input, a 100 MB log, binary bytes, 100,000-character lines and invalid
  UTF-8 always give a route (exit 0), never a crash, in bounded memory;
* a real CPU package (tests/models/model_router.py) is run with an index past
  the table's end; the real error text, routed with --package, must resolve to
  the table input and the dimension being indexed.
"""
import os
import random
import re
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, run

def route_ids():
    """The ids of ROUTE_IDS in core/router/router.h (the one table of them)."""
    text = open(os.path.join(ROOT, "core", "router", "router.h")).read()
    block = text[text.index("#define ROUTE_IDS(X)"):text.index("#define ROUTE_ACTIONS(X)")]
    return set(re.findall(r'X\([A-Z_]+, "([a-z-]+)"\)', block))


ROUTES = route_ids()
assert "triton-index-oob" in ROUTES and "cpp-index-oob" in ROUTES and "unknown" in ROUTES and len(ROUTES) >= 15


def corpus_dir(name):
    """The labelled corpus `name` where CI keeps it: ../shared/corpus/<name> beside
    the clone (a worktree under wt/ has it two levels up), or $AOTIDBG_CORPUS/<name>.
    It is not copied into the repository: shared/ is the lead's, grows with new
    logs, and holds third-party text."""
    env = os.environ.get("AOTIDBG_CORPUS")
    bases = ([env] if env else []) + [os.path.join(ROOT, "..", "shared", "corpus"),
                                      os.path.join(ROOT, "..", "..", "shared", "corpus")]
    for base in bases:
        d = os.path.join(base, name)
        if os.path.exists(os.path.join(d, "LABELS.tsv")):
            return d
    if os.path.isdir(os.path.join(ROOT, "..", "shared")):
        pytest.fail(f"../shared is beside the clone (the CI layout) but has no corpus/{name}/LABELS.tsv")
    pytest.skip(f"no labelled corpus {name}: set AOTIDBG_CORPUS or put shared/ beside the clone")


# argv[1:] run in a forked child; its peak RSS (KiB) goes to stderr last.
PEAK_RSS = """import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.stderr.write(f"PEAK_RSS_KIB {usage.ru_maxrss}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def route_yaml(aotidbg, args, **kw):
    r = run([aotidbg, "route", *args, "--format", "yaml"], **kw)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("route: "), r.stdout[:200]
    route = r.stdout.split("\n", 1)[0].split(" ", 1)[1]
    assert route in ROUTES
    return route, r.stdout


def yaml_fields(out):
    import yaml
    doc = yaml.safe_load(out)
    for key in ("route", "fields", "steps", "also"):
        assert key in doc, key
    return doc


@pytest.mark.parametrize("name", ["dev", "dev2", "dev3"])
def test_corpus_accuracy(aotidbg, name):
    """Routes, and platforms where LABELS.tsv has a platform column (a null
    platform counts as `unknown`), each at least 95% right; every miss printed
    with the line the route was taken from. A log whose text says CPU, MPS or
    XPU gets no CUDA advice at all."""
    d = corpus_dir(name)
    table = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "LABELS.tsv"))]
    head, rows = table[0], [r for r in table[1:] if len(r) >= 2]
    pcol = head.index("platform") if "platform" in head else None
    assert rows
    misses, pmisses = [], []
    for row in rows:
        file, want = row[0], row[1]
        got, out = route_yaml(aotidbg, [os.path.join(d, file)])
        doc = yaml_fields(out)
        if got not in want.split("|"):
            failed = doc.get("failed_line") or {}
            why = failed.get("text") or (doc["evidence"][0]["text"] if doc["evidence"] else "no evidence")
            misses.append(f"{file}: want {want}, got {got} (from: {why[:120]})")
        if pcol is not None and row[pcol] in ("cpu", "mps", "xpu"):
            advice = " ".join(doc["steps"]) + " " + " ".join(a["do"] for a in doc["actions"])
            cuda = [w for w in ("CUDA", "nvcc", "ptxas", "compute-sanitizer", "cubin", "rerun-blocking") if w in advice]
            assert not cuda, f"{file} ({row[pcol]}): CUDA advice {cuda}: {advice}"
        if pcol is not None:
            plat = doc.get("platform") or "unknown"
            if plat != row[pcol]:
                pmisses.append(f"{file}: want platform {row[pcol]}, got {plat} ({(doc.get('platform_from') or '')[:120]})")
    correct = len(rows) - len(misses)
    print(f"\nrouter corpus {name}: routes {correct}/{len(rows)} ({100 * correct / len(rows):.0f}%)", end="")
    if pcol is not None:
        pc = len(rows) - len(pmisses)
        print(f", platforms {pc}/{len(rows)} ({100 * pc / len(rows):.0f}%)", end="")
    print()
    for m in misses + pmisses:
        print("  miss:", m)
    assert correct / len(rows) >= 0.95, "\n".join(misses)
    assert (len(rows) - len(pmisses)) / len(rows) >= 0.95, "\n".join(pmisses)


# Fields read from real logs of the corpora: (corpus, file prefix, fields that
# must be there with these values, words the steps must contain, words they must not).
FIELD_CASES = [
    ("dev", "039_", {"max_abs_diff": "0.003814697265625"}, [], []),
    ("dev2", "325_", {"max_abs_diff": "2.568821430206299", "max_rel_diff": "0.5"}, [], []),
    ("dev2", "334_", {"bound": "2", "bound_kind": "literal", "tmp": "tmp1"}, [], ["CUDA_LAUNCH_BLOCKING"]),
    ("dev3", "501_", {"required": "98304", "limit": "65536"}, ["98304", "65536"], ["nvcc", "ptxas"]),
    ("dev3", "506_", {"stopped_at": "InvalidCxxCompiler"}, ["No compiler ran"], ["nvcc", "ptxas"]),
    ("dev3", "509_", {"name": "AttrsDescriptor", "module": "triton.compiler.compiler"}, ["AttrsDescriptor"], []),
    ("dev3", "510_", {"owner": "CompiledKernel", "attribute": "launch_enter_hook"}, ["launch_enter_hook"], []),
    ("dev3", "515_", {"stopped_at": "LoweringException"}, ["No compiler ran"], ["nvcc", "ptxas", "CUDA"]),
    ("dev3", "520_", {"op_schema": "THIS_DOES_NOT_EXIST_AND_ERRORS"}, [], []),
    ("dev3", "523_", {"line": "3", "file": "C:/Users/ADMINI~1/AppData/Local/Temp/torchinductor_Administrator/pi/"
                                          "cpicxudqmdsjh5cm4klbtbrvy2cxwr7whxl3md2zzdjdf3orvfdf.h",
                      "generated_source": "C:/Users/ADMINI~1/AppData/Local/Temp/torchinductor_Administrator/b4/"
                                          "cb4amiulv6c7zkz3kyztwd3idfiguvkct7twttoak3uztms526vf.cpp"},
     [], ["nvcc", "ptxas", "CUDA"]),
    ("dev3", "524_", {"runtime": "libiomp5.so", "other_runtime": "unknown library"}, ["libiomp5.so"], []),
    ("dev3", "525_", {"runtime": "libomp.dylib", "other_runtime": "libiomp5.dylib"},
     ["libomp.dylib", "libiomp5.dylib"], []),
    ("dev3", "527_", {"symbol": "class at::Tensor __cdecl at::native::searchsorted_cuda(class at::Tensor const &,"
                                "class at::Tensor const &,bool,bool)"}, [], []),
    ("dev3", "544_", {"input_index": "0", "expected": "Byte", "got": "Float"}, [], []),
]


@pytest.mark.parametrize("corpus,prefix,fields,says,never", FIELD_CASES, ids=[c[0] + "/" + c[1] for c in FIELD_CASES])
def test_corpus_fields(aotidbg, corpus, prefix, fields, says, never):
    d = corpus_dir(corpus)
    file = next(f for f in sorted(os.listdir(d)) if f.startswith(prefix))
    _, out = route_yaml(aotidbg, [os.path.join(d, file)])
    doc = yaml_fields(out)
    for k, v in fields.items():
        assert str(doc["fields"].get(k)) == v, (k, doc["fields"])
    steps = "\n".join(doc["steps"])
    for w in says:
        assert w in steps, (w, steps)
    for w in never:
        assert w not in steps, (w, steps)


def test_failed_line_picks_the_route(aotidbg):
    """The line that failed first picks the route; a stronger side line before it
    (a missing profiler library) does not, and the line taken is reported."""
    d = corpus_dir("dev3")
    file = next(f for f in sorted(os.listdir(d)) if f.startswith("538_"))
    route, out = route_yaml(aotidbg, [os.path.join(d, file)])
    doc = yaml_fields(out)
    assert route == "device-mismatch"
    assert doc["failed_line"]["line"] == 2 and doc["failed_line"]["routed"] is True
    assert "hipErrorNoBinaryForGpu" in doc["failed_line"]["text"]
    assert doc["platform"] == "rocm"
    assert any(a["route"] == "missing-artifact" for a in doc["also"])
    r = run([aotidbg, "route", os.path.join(d, file)])
    assert r.returncode == 0 and "failed first: line 2:" in r.stdout
    # no failure line: the whole text is scored and failed_line is null
    r = run([aotidbg, "route", "-", "--format", "yaml"], input="Tokenizer ready\nloss is nan\n")
    assert yaml_fields(r.stdout)["failed_line"] is None


def test_stdin_and_usage(aotidbg, tmp_path):
    r = run([aotidbg, "route", "-"], input="Error: Could not find schema for ns::op.\n")
    assert r.returncode == 0 and r.stdout.startswith("route: custom-op")
    r = run([aotidbg, "route", "--help"])
    assert r.returncode == 0 and "--package" in r.stdout
    r = run([aotidbg, "route", str(tmp_path / "missing.log")])
    assert r.returncode == 2 and "missing.log" in r.stderr
    r = run([aotidbg, "route", "--format", "json", "-"], input="")
    assert r.returncode == 2
    r = run([aotidbg, "route", "--bogus"])
    assert r.returncode == 2
    bad = tmp_path / "rules.yaml"
    bad.write_text("version: 1\nroutes:\n  - id: crash\n    patterns:\n      - regex: '(('\n")
    r = run([aotidbg, "route", "--rules", str(bad), "-"], input="x\n")
    assert r.returncode == 2 and "rules.yaml:5:" in r.stderr


def test_empty_binary_invalid_utf8(aotidbg, tmp_path):
    cases = {
        "empty.log": b"",
        "binary.log": bytes(random.Random(4).randrange(256) for _ in range(200000)),
        "utf8.log": b"\xff\xfe\xc0\xaf\xed\xa0\x80\xf8\x88\x80\x80\x80 CUDA error: an illegal memory access"
                    b" was encountered \xe2\x82\n\x00\x00\x00",
        "nul.log": b"Segmentation\x00 fault\nAborted (core dumped)\x00\x00\n",
    }
    want = {"empty.log": "unknown", "utf8.log": "illegal-memory-access", "nul.log": "crash"}
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        route, out = route_yaml(aotidbg, [str(p)])
        if name in want:
            assert route == want[name], (name, out[:500])
        out.encode("utf-8")            # output is valid UTF-8
        yaml_fields(out)               # and valid YAML


def test_long_lines(aotidbg, tmp_path):
    p = tmp_path / "long.log"
    with open(p, "w") as f:
        f.write("x" * 100000 + "\n")
        f.write("RuntimeError: CUDA error: device-side assert triggered " + "y" * 100000 + "\n")
        f.write("a.py:1: unknown: block: [0,0,0], thread: [1,0,0] Assertion `index out of bounds: 0 <= tmp2 < ks3` "
                "failed." + "z" * 250000)         # no final newline
    route, out = route_yaml(aotidbg, [str(p)])
    doc = yaml_fields(out)
    assert route == "triton-index-oob"
    assert doc["fields"]["tmp"] == "tmp2" and doc["fields"]["bound"] == "ks3"
    assert doc["input"]["long_lines"] == 3 and doc["input"]["lines"] == 3


@pytest.mark.slow
def test_100mb_log_bounded_memory(aotidbg, tmp_path):
    """100 MB of mixed noise with the root cause near the end: routed in bounded memory."""
    p = tmp_path / "big.log"
    rng = random.Random(7)
    noise = [f"frame #{i}: c10::Error::Error(c10::SourceLocation, std::string) + 0x{i:x} (0x7f in libc10.so)\n"
             for i in range(50)]
    noise += [f"[rank{i % 8}]:W1130 12:00:{i % 60:02d}.1 1 a.py:3] step {i} loss 0.{i}\n" for i in range(50)]
    block = "".join(rng.choice(noise) for _ in range(12000)).encode()
    block += rng.randbytes(300) + b"\n"          # binary junk between blocks
    with open(p, "wb") as f:
        for _ in range(100 * 1024 * 1024 // len(block) + 1):
            f.write(block)
        f.write(b"[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
        f.write(b"Segmentation fault (core dumped)\n")
    # The route process's own peak memory. Measured from a small python that
    # forks and waits for it: a child spawned by pytest itself (vfork) is
    # charged pytest's peak, whatever route uses.
    r = run([sys.executable, "-c", PEAK_RSS, aotidbg, "route", str(p), "--format", "yaml"], timeout=120)
    out, err = r.stdout, r.stderr
    assert r.returncode == 0, err
    assert out.startswith("route: "), out[:200]
    route = out.split("\n", 1)[0].split(" ", 1)[1]
    assert route in ROUTES
    doc = yaml_fields(out)
    assert route == "illegal-memory-access"
    assert doc["input"]["bytes"] >= 100 * 1024 * 1024
    # ru_maxrss is KiB. The router keeps matched lines only.
    after = int(err.rsplit("PEAK_RSS_KIB ", 1)[1])
    assert after < 64 * 1024, f"route used {after} KiB for a 100 MB log"
    # and the same from stdin (streamed, not slurped)
    with open(p, "rb") as f:
        r = subprocess.run([aotidbg, "route", "-"], stdin=f, capture_output=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith(b"route: illegal-memory-access")


def _real_oob_log(pkg, tmp_path):
    """Runs the real package with an index past the table's end; returns the error text."""
    script = tmp_path / "oob.py"
    script.write_text(
        "import sys, torch\n"
        "m = torch._inductor.aoti_load_package(sys.argv[1])\n"
        "table = torch.randn(16, 8)\n"
        "idx = torch.tensor([0, 3, 16 + 5, 2], dtype=torch.int64)\n"
        "m(table, idx)\n")
    # cwd: the package's printer hooks save tensors under ./tmp/aoti_torch
    r = run([sys.executable, str(script), pkg], timeout=300, cwd=str(tmp_path))
    assert r.returncode != 0, "indexing row 21 of a 16-row table should fail"
    log = tmp_path / "oob.log"
    log.write_text(r.stdout + r.stderr)
    return log


def test_package_resolves_bound_to_input(aotidbg, package, tmp_path):
    """Real error from a real package -> route --package -> the input and dim behind ksM.

    router_gather's forward(table, idx) is index_select(table, 0, idx) with table's
    dim 0 dynamic: the failing bound is the size of input 0 (table), dimension 0.
    """
    pkg = package("router_gather")
    log = _real_oob_log(pkg, tmp_path)
    route, out = route_yaml(aotidbg, [str(log), "--package", pkg])
    doc = yaml_fields(out)
    assert route == "cpp-index-oob", out[:800]   # a C++ kernel's check (model_router.py is a CPU package)
    f = doc["fields"]
    assert f["input_index"] == "0" and f["dim"] == "0", f
    # the kernel named is one the package really defines, and its check holds this bound
    with zipfile.ZipFile(pkg) as z:
        sources = "".join(z.read(n).decode("utf-8", "replace") for n in z.namelist()
                          if n.endswith(".kernel.cpp") or n.endswith(".wrapper.cpp"))
        inputs_info = [n for n in z.namelist() if n.endswith(".wrapper.cpp")]
        wrapper = z.read(inputs_info[0]).decode()
    assert f"void  {f['kernel']}(" in sources or f"void {f['kernel']}(" in sources
    assert f"index out of bounds: 0 <= {f['tmp']} < {f['bound']}" in sources
    assert f'inputs_info_[0].name = "{f["input"]}";' in wrapper
    assert f"{f['size_var']} = {f['input']}_size[0];" in wrapper
    # jump-kernel acts on that kernel
    jump = [a for a in doc["actions"] if a["do"] == "jump-kernel"]
    assert jump and jump[0]["value"] == f["kernel"]
    # a C++ kernel on the CPU: worded for it, no CUDA advice
    assert doc["platform"] == "cpu" and "C++ kernel" in doc["title"], out[:800]
    text = run([aotidbg, "route", str(log), "--package", pkg]).stdout
    assert "CUDA" not in text and "rerun-blocking" not in text, text


def test_generated_triton_style_message(aotidbg, package, tmp_path):
    """A triton-index-oob-style device assert built from every real check in the
    package's kernels resolves to a real input and dimension; the same check
    through an extracted folder and through the bare wrapper.cpp agrees."""
    pkg = package("router_gather")
    ext = tmp_path / "ext"
    with zipfile.ZipFile(pkg) as z:
        z.extractall(ext)
        kernel_src = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".kernel.cpp"))
        wrappers = [n for n in z.namelist() if n.endswith(".wrapper.cpp")]
    import re
    checks = re.findall(r'"index out of bounds: 0 <= (tmp\d+) < ([^"]+)"', kernel_src)
    assert checks, "the CPU kernel should check its indirect index"
    for tmp, bound in checks:
        log = tmp_path / "gen.log"
        lines = [f"/tmp/torchinductor_u/ab/cab.py:30: unknown: block: [7,0,0], thread: [{t},0,0] "
                 f"Assertion `index out of bounds: 0 <= {tmp} < {bound}` failed." for t in range(64)]
        lines.append("RuntimeError: CUDA error: device-side assert triggered")
        log.write_text("\n".join(lines) + "\n")
        results = []
        for where in (pkg, str(ext), str(ext / wrappers[0])):
            route, out = route_yaml(aotidbg, [str(log), "--package", where])
            f = yaml_fields(out)["fields"]
            assert route == "triton-index-oob" and f["count"] == "64"
            results.append((f.get("input_index"), f.get("dim"), f.get("kernel")))
        assert results[0] == results[1] == results[2], results
        assert results[0][0] == "0" and results[0][1] == "0"


def test_package_on_other_routes_and_bad_package(aotidbg, package, tmp_path):
    pkg = package("router_gather")
    log = tmp_path / "x.log"
    log.write_text("Error: input_handles[1]: unmatched dtype, expected: 4(at::kLong), but got: 6\n")
    route, out = route_yaml(aotidbg, [str(log), "--package", pkg])
    assert route == "input-mismatch"
    log.write_text("Assertion `index out of bounds: 0 <= tmp9 < ks7` failed\n")
    bogus = tmp_path / "bogus.pt2"
    bogus.write_bytes(b"PK\x03\x04 not a zip")
    r = run([aotidbg, "route", str(log), "--package", str(bogus)])
    assert r.returncode == 2 and r.stdout.startswith("route: triton-index-oob")
    route, out = route_yaml(aotidbg, [str(log), "--package", pkg])   # condition not in this package
    assert route == "triton-index-oob" and "tmp9" in yaml_fields(out)["fields"]["trace_error"]


def test_session_gives_runtime_size(aotidbg, package, tmp_path):
    """A session holding the real error and the inputs it ran with: the route is
    resolved through the session's package and shows the runtime size (16 rows)
    of the input dimension behind ksM."""
    pkg = package("router_gather")
    text = _real_oob_log(pkg, tmp_path).read_text()
    err = [l for l in text.splitlines() if "index out of bounds" in l][0]
    sess = tmp_path / "s.yaml"
    sess.write_text(
        'format_version: "1.0"\n'
        f'package: {{path: "{pkg}", model: model, device_key: cpu}}\n'
        "device: cpu\n"
        "inputs:\n"
        "  - {shape: [16, 8], dtype: float32, device: cpu, fill: randn, seed: 0}\n"
        "  - {shape: [4], dtype: int64, device: cpu, fill: arange}\n"
        "end_state: complete\n"
        "events:\n"
        f"- {{kind: error, text: {err!r}, kernel: -1}}\n"
        "- {kind: runner-exit, how: exited, exit_code: 1, signal: 0}\n")
    route, out = route_yaml(aotidbg, ["--session", str(sess)])
    f = yaml_fields(out)["fields"]
    assert route == "cpp-index-oob"   # the package's trace names the C++ kernel that holds the check
    assert f["input_index"] == "0" and f["dim"] == "0"
    assert f["dim_value"] == "16" and f["input_shape"] == "[16, 8]"
    r = run([aotidbg, "route", "--session", str(tmp_path / "nope.yaml")])
    assert r.returncode == 2


def test_session_facts_are_evidence(aotidbg, tmp_path):
    """`route S.yaml` weighs what the session knows next to its text: a CPU run whose
    runner died by SIGSEGV in a C++ kernel with nothing on stderr is a crash at that
    kernel, worded for the CPU; with a failed device row, the mismatch is the cause."""
    def session(checks):
        p = tmp_path / "s.yaml"
        p.write_text(
            'format_version: "1.0"\n'
            'package: {path: "/nonexistent/m.pt2", model: model, device_key: cpu}\n'
            "device: cpu\n"
            f"checks:\n{checks}"
            "end_state: complete\n"
            "events:\n"
            "- {kind: kernel, index: 0, name: cpp_fused_add_0, type: cpp, status: ok, duration_us: 3.0, tensors: []}\n"
            "- {kind: kernel, index: 1, name: cpp_fused_gather_1, type: cpp, status: error, duration_us: -1, tensors: []}\n"
            "- {kind: runner-exit, how: signal, exit_code: 0, signal: 11}\n")
        return str(p)

    ok_row = '  - {id: device.compile-vs-load, status: PASS, subject: "compile device vs load device"}\n'
    route, out = route_yaml(aotidbg, [session(ok_row)])
    doc = yaml_fields(out)
    assert route == "crash", out[:600]
    assert doc["platform"] == "cpu" and doc["platform_from"] == "session: device cpu"
    assert doc["fields"]["kernel"] == "cpp_fused_gather_1" and doc["fields"]["kernel_index"] == "1"
    assert doc["evidence"][0]["origin"] == "session: runner exit"
    assert "CUDA" not in " ".join(doc["steps"]) and all(a["do"] != "rerun-blocking" for a in doc["actions"])

    bad_row = ('  - {id: device.compile-vs-load, status: FAIL, subject: "compile device vs load device", '
               'expected: cuda, got: cpu}\n')
    route, out = route_yaml(aotidbg, [session(bad_row)])
    doc = yaml_fields(out)
    assert route == "device-mismatch", out[:600]
    assert doc["evidence"][0]["origin"] == "session: checklist row device.compile-vs-load"
    assert "expected cuda, got cpu" in doc["evidence"][0]["text"]
    assert [a["route"] for a in doc["also"]] == ["crash"]
    text = run([aotidbg, "route", session(bad_row)]).stdout
    assert "why session: checklist row device.compile-vs-load: aotidbg checklist: FAIL" in text, text
    assert "platform: cpu (session: device cpu)" in text


def test_unknown_says_what_it_read(aotidbg, tmp_path):
    log = tmp_path / "odd.log"
    log.write_text("starting\nRuntimeError: the flux capacitor is empty\n" + "step\n" * 50)
    route, out = route_yaml(aotidbg, [str(log)])
    doc = yaml_fields(out)
    assert route == "unknown"
    assert doc["looked_at"] == [{"line": 2, "text": "RuntimeError: the flux capacitor is empty"}]
    text = run([aotidbg, "route", str(log)]).stdout
    assert "read 52 line(s)" in text and "looked line 2: RuntimeError: the flux capacitor is empty" in text


def test_tui_router_pane_words_for_the_cpu(aotidbg, tmp_path):
    """The router pane of a CPU session: the index route worded for a C++ kernel,
    no CUDA advice and no rerun-blocking action."""
    sess = tmp_path / "cpu.yaml"
    sess.write_text(
        'format_version: "1.0"\n'
        'package: {path: "/nonexistent/m.pt2", model: model, device_key: cpu}\n'
        "device: cpu\n"
        "end_state: complete\n"
        "events:\n"
        "- {kind: kernel, index: 0, name: cpp_fused_index_0, type: cpp, status: error, duration_us: -1, tensors: []}\n"
        '- {kind: error, text: "index out of bounds: 0 <= tmp0 < ks0", kernel: 0}\n'
        "- {kind: runner-exit, how: exited, exit_code: 1, signal: 0}\n")
    r = run([aotidbg, "replay", str(sess), "--headless", "160x50", "--dump-screen", "--ascii"])
    assert r.returncode == 0, r.stderr
    assert "Index out of bounds inside a generated C++ kernel" in r.stdout, r.stdout
    assert "CUDA" not in r.stdout and "rerun-blocking" not in r.stdout, r.stdout


def _routed_on_a_terminal(aotidbg, path):
    """`route PATH` with stderr on a pseudo-terminal, stdout in a pipe: (rc, stdout, what the terminal got)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([aotidbg, "route", path], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    tty = b""
    while True:
        try:
            got = os.read(master, 65536)
        except OSError:   # EIO: the other end closed
            break
        if not got:
            break
        tty += got
    os.close(master)
    out = p.communicate(timeout=300)[0]
    return p.returncode, out, tty


def test_route_of_a_big_session_shows_its_progress_on_a_terminal(aotidbg, tmp_path):
    """A session of 64 MB or more: on a terminal, one line rewritten at each tenth of the read (its
    name escaped), erased at the end; in a pipe nothing; stdout the same either way. A small one:
    nothing on the terminal either."""
    src = open(os.path.join(ROOT, "sessions", "cpu", "encoder.yaml"), encoding="utf-8").read()
    head, body = src.split("\nevents:\n", 1)
    head = re.sub(r"(?ms)^counts:.*?(?=^\S)", "", head + "\n").rstrip("\n")
    evs = [e for e in re.split(r"(?m)^(?=- \{kind: )", body) if e.strip()]
    kernels = [e for e in evs if e.startswith("- {kind: kernel")]
    assert kernels and len(kernels) < len(evs)
    name = "big\x1b[2Jsession.yaml"   # a control byte in the name reaches the terminal escaped
    big = str(tmp_path / name)
    with open(big, "w", encoding="utf-8") as f:
        f.write(head + "\nevents:\n")
        n = 0
        while f.tell() < 70 << 20:
            for k in kernels:
                f.write(re.sub(r"index: \d+,", f"index: {n},", k, count=1))
                n += 1
        f.write("".join(e for e in evs if not e.startswith("- {kind: kernel")))
    rc, out, tty = _routed_on_a_terminal(aotidbg, big)
    piped = run([aotidbg, "route", big], text=False)
    assert rc == 0 and piped.returncode == 0 and out == piped.stdout and out.startswith(b"route: ")
    assert piped.stderr == b""
    shown = re.escape(str(tmp_path / "big\\x1b[2Jsession.yaml").encode())
    steps = re.findall(b"\raotidbg route: " + shown + rb": reading, (\d+)% of (\d+) MB\x1b\[K", tty)
    assert [int(p) for p, _ in steps] == list(range(0, 101, 10)), tty[:400]
    assert int(steps[0][1]) >= 70 and b"\x1b[2J" not in tty and tty.endswith(b"\r\x1b[K"), tty[-200:]
    rc, out, tty = _routed_on_a_terminal(aotidbg, os.path.join(ROOT, "sessions", "cpu", "encoder.yaml"))
    assert rc == 0 and out.startswith(b"route: ") and tty == b"", tty


def test_ranks_walkthrough_names_the_hang(aotidbg):
    """The ranks walkthrough's session (rank 0 waits in its wait_tensor, gloo
    gives up on rank 1): the router names the hang, collective-timeout, with
    steps that rerun the ranks under --ranks; the YAML keeps `route:` first and
    says which part of the log it was decided on."""
    session = os.path.join(ROOT, "sessions", "tutorials", "09-rank-hangs-in-collective.yaml")
    route, out = route_yaml(aotidbg, ["--session", session])
    doc = yaml_fields(out)
    assert route == "collective-timeout", out[:600]
    assert any("--ranks" in s for s in doc["steps"]), doc["steps"]
    assert not any("CUDA" in s for s in doc["steps"]), doc["steps"]   # a CPU (gloo) run
    assert doc["platform"] == "cpu"
    assert doc["part"] and doc["part"]["kind"] and doc["learned"] is None


def test_learned_fallback_is_shown_as_such(aotidbg, tmp_path):
    """A log no rule routes gets the learned fallback's answer, with its
    confidence and the nearest known logs, in text and YAML alike; text that
    names no platform gets each platform's step."""
    log = tmp_path / "odd.log"
    log.write_text("RuntimeError: the kernel failed\n")   # words every corpus has; no cause a rule knows
    _, out = route_yaml(aotidbg, [str(log)])
    doc = yaml_fields(out)
    learned = doc["learned"]
    assert learned is not None and 0 <= learned["confidence"] <= 1 and learned["nearest"], out[:800]
    assert learned["used"] == (doc["route"] != "unknown")
    text = run([aotidbg, "route", str(log)]).stdout
    assert "learned fallback, confidence " in text and "nearest known logs: " in text, text
    crash = tmp_path / "crash.log"
    crash.write_text("Segmentation fault (core dumped)\n")
    _, out = route_yaml(aotidbg, [str(crash)])
    doc = yaml_fields(out)
    assert doc["route"] == "crash" and doc["platform"] is None
    assert any(s.startswith("On CUDA: ") and "on CPU: " in s for s in doc["steps"]), doc["steps"]
