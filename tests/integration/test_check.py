"""Issue 5: the device/shape checklist (`aotidbg check`) on real CPU packages.

The package (tests/models/model_check.py: check2) is compiled by torch here;
the expected values each test looks for come from that real package (its
wrapper.cpp as parsed by Python below, its example tensors) and from the spec
the test writes, never from our own output. Each wrong input gives exactly the
matching FAIL row; broken copies of the package (metadata removed, a cubin the
wrapper loads removed, a .so that needs a symbol libtorch lacks) each FAIL with
the missing thing named.
"""
import os
import re
import shutil
import subprocess
import zipfile

import pytest
import yaml

from conftest import BUILD, run, tool

PKG = "check2"


def check(aotidbg, pkg, *args, spec=None, tmp_path=None, env=None):
    cmd = [aotidbg, "check", pkg, "--format", "yaml", *args]
    if spec is not None:
        path = os.path.join(str(tmp_path), "spec.yaml")
        with open(path, "w") as f:
            yaml.safe_dump({"inputs": spec}, f)
        cmd += ["--inputs", path]
    r = run(cmd, env=env)
    assert r.returncode in (0, 1, 2), (r.returncode, r.stderr)
    doc = yaml.safe_load(r.stdout) if r.returncode != 2 else None
    return r, doc


def rows(doc):
    return {c["id"]: c for c in doc["checks"]}


def fails(doc):
    return {c["id"] for c in doc["checks"] if c["status"] == "FAIL"}


def compiled_inputs(pkg):
    """(dtype, [dims or (min,max)]) per input, read from the real wrapper.cpp."""
    with zipfile.ZipFile(pkg) as z:
        name = [n for n in z.namelist() if n.endswith(".wrapper.cpp")][0]
        text = z.read(name).decode()
    out = []
    for body in re.findall(r"static void check_input_\d+\((.*?)\n}", text, re.S):
        dtype = re.search(r"_expected_dtype = aoti_torch_dtype_(\w+)\(\)", body).group(1)
        static = {int(d): int(v) for v, d in re.findall(r"if \((\d+) != \w+_size\[(\d+)\]\)", body)}
        lo = {int(d): int(v) for d, v in re.findall(r"if \(\w+_size\[(\d+)\] < (\d+)\)", body)}
        hi = {int(d): int(v) for d, v in re.findall(r"if \(\w+_size\[(\d+)\] > (\d+)\)", body)}
        out.append((dtype, static, lo, hi))
    return out


@pytest.fixture(scope="module")
def pkg(package):
    return package(PKG)


@pytest.fixture(scope="module")
def example(pkg):
    import torch
    x, w = torch.load(pkg[:-4] + ".inputs.pt")
    return x, w


def good_spec(example):
    x, w = example
    return [{"shape": list(x.shape), "dtype": "float32", "device": "cpu"},
            {"shape": list(w.shape), "dtype": "float32", "device": "cpu"}]


def test_correct_inputs_all_pass(aotidbg, pkg, example, tmp_path):
    r, doc = check(aotidbg, pkg, spec=good_spec(example), tmp_path=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    statuses = {c["id"]: c["status"] for c in doc["checks"]}
    assert "FAIL" not in statuses.values()
    input_rows = [i for i in statuses if i.startswith("input.")]
    # count + per input: dtype, device, rank, each dim, strides
    assert len(input_rows) == 1 + 2 * 4 + 2 + 2
    assert all(statuses[i] == "PASS" for i in input_rows)
    assert statuses["device.compile-vs-load"] == "PASS"
    assert statuses["package.so"] == statuses["package.metadata"] == statuses["package.symbols"] == "PASS"
    assert statuses["flag.printer-level"] == "PASS"


def test_wrong_dtype(aotidbg, pkg, example, tmp_path):
    spec = good_spec(example)
    spec[0]["dtype"] = "float64"
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.0.dtype"}
    row = rows(doc)["input.0.dtype"]
    assert row["expected"] == compiled_inputs(pkg)[0][0] == "float32"
    assert row["got"] == "float64"
    assert "wrapper.cpp:" in row["source"] and "float32" in row["fix"]
    # the evidence points at the generated dtype check itself
    line = int(re.search(r"wrapper\.cpp:(\d+)", row["source"]).group(1))
    with zipfile.ZipFile(pkg) as z:
        text = z.read([n for n in z.namelist() if n.endswith(".wrapper.cpp")][0]).decode()
    assert "_expected_dtype = aoti_torch_dtype_float32()" in text.splitlines()[line - 1]


def test_wrong_static_dim(aotidbg, pkg, example, tmp_path):
    spec = good_spec(example)
    _, static, _, _ = compiled_inputs(pkg)[0]
    assert static == {1: example[0].shape[1]}
    spec[0]["shape"][1] = static[1] + 1
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.0.dim.1"}
    assert rows(doc)["input.0.strides"]["status"] == "INFO"   # contiguous strides just follow the shape
    row = rows(doc)["input.0.dim.1"]
    assert (row["expected"], row["got"]) == (str(static[1]), str(static[1] + 1))


def test_wrong_static_dim_second_input(aotidbg, pkg, example, tmp_path):
    spec = good_spec(example)
    spec[1]["shape"][1] = example[1].shape[1] + 3      # last dim: strides stay the same
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.1.dim.1"}
    row = rows(doc)["input.1.dim.1"]
    assert (row["expected"], row["got"]) == (str(example[1].shape[1]), str(example[1].shape[1] + 3))


@pytest.mark.parametrize("which", ["above", "below"])
def test_dynamic_dim_out_of_bounds(aotidbg, pkg, example, tmp_path, which):
    _, _, lo, hi = compiled_inputs(pkg)[0]
    assert (lo, hi) == ({0: 2}, {0: 32})   # the model's Dim("b", min=2, max=32)
    spec = good_spec(example)
    spec[0]["shape"][0] = hi[0] + 1 if which == "above" else lo[0] - 1
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.0.dim.0"}
    row = rows(doc)["input.0.dim.0"]
    assert row["expected"] == f">= {lo[0]}, <= {hi[0]}"
    assert row["got"] == str(spec[0]["shape"][0])
    assert ("at most" if which == "above" else "at least") in row["fix"]
    line = int(re.search(r"wrapper\.cpp:(\d+)", row["source"]).group(1))
    with zipfile.ZipFile(pkg) as z:
        text = z.read([n for n in z.namelist() if n.endswith(".wrapper.cpp")][0]).decode()
    assert re.search(r"if \(\w+_size\[0\] [<>] \d+\)", text.splitlines()[line - 1])


def test_one_input_too_many(aotidbg, pkg, example, tmp_path):
    spec = good_spec(example) + [{"shape": [3], "dtype": "float32"}]
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.count"}
    row = rows(doc)["input.count"]
    assert (row["expected"], row["got"]) == ("2", "3")


def test_input_on_wrong_device(aotidbg, pkg, example, tmp_path):
    spec = good_spec(example)
    spec[1]["device"] = "cuda:0"
    r, doc = check(aotidbg, pkg, spec=spec, tmp_path=tmp_path)
    assert r.returncode == 1
    assert fails(doc) == {"input.1.device"}
    row = rows(doc)["input.1.device"]
    assert (row["expected"], row["got"]) == ("cpu", "cuda:0")


def test_cuda_device_for_cpu_package(aotidbg, pkg, tmp_path):
    r, doc = check(aotidbg, pkg, "--device", "cuda")
    assert r.returncode == 1
    row = rows(doc)["device.compile-vs-load"]
    assert (row["status"], row["expected"], row["got"]) == ("FAIL", "cpu", "cuda")
    assert "--device cpu" in row["fix"]
    # This machine has no GPU: the CUDA probe fails cleanly (no crash) and says why.
    cuda = rows(doc)["device.cuda-available"]
    assert cuda["status"] in ("FAIL", "PASS")
    assert fails(doc) <= {"device.compile-vs-load", "device.cuda-available", "device.index"}


def test_transposed_input_wrong_stride(pkg, example):
    """The inputs spec has no strides field yet (owner h2), so this case runs the
    checklist from C (tests/unit/test_checklist.c) on this same real package
    with a transposed input_spec; it asserts the stride FAIL and nothing else."""
    exe = os.path.join(BUILD, "tests", "test_checklist")
    if not os.path.exists(exe):
        exe = tool("test_checklist")
    x, w = example
    xt = x.t().contiguous().t()   # same shape, column-major strides
    env = dict(os.environ, AOTIDBG_CHECK_PKG=pkg,
               AOTIDBG_CHECK_SHAPE=",".join(map(str, x.shape)),
               AOTIDBG_CHECK_STRIDES=",".join(map(str, xt.stride())),
               AOTIDBG_CHECK_W_SHAPE=",".join(map(str, w.shape)))
    r = run([exe], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "transposed: FAIL input.0.strides expected [%d, %d] got [%d, %d]" % (
        *x.stride(), *xt.stride()) in r.stdout


def test_text_format_and_usage(aotidbg, pkg):
    r = run([aotidbg, "check", pkg])
    assert r.returncode == 0
    assert re.search(r"^PASS\s+device\.compile-vs-load", r.stdout, re.M)
    assert run([aotidbg, "check"]).returncode == 2
    assert run([aotidbg, "check", pkg, "--format", "xml"]).returncode == 2
    assert run([aotidbg, "check", pkg, "--device", "tpu"]).returncode == 2
    h = run([aotidbg, "check", "--help"])
    assert h.returncode == 0 and "--inputs" in h.stdout


# ---- broken copies of the real package ----

def rewrite(src, dst, drop=(), replace=None, add=None):
    """Copies a zip entry by entry, dropping entries whose name ends with one of
    `drop`, replacing some (name suffix -> bytes function), adding others."""
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            if any(info.filename.endswith(d) for d in drop):
                continue
            data = zi.read(info.filename)
            for suf, fn in (replace or {}).items():
                if info.filename.endswith(suf):
                    data = fn(data)
            zo.writestr(info.filename, data)
        for name, data in (add or {}).items():
            zo.writestr(name, data)
    return dst


def model_dir(pkg):
    with zipfile.ZipFile(pkg) as z:
        so = [n for n in z.namelist() if n.endswith(".wrapper.so")][0]
    return os.path.dirname(so)


def test_metadata_removed(aotidbg, pkg, tmp_path):
    bad = rewrite(pkg, str(tmp_path / "nometa.pt2"), drop=("wrapper_metadata.json",))
    r, doc = check(aotidbg, bad)
    assert r.returncode == 1
    assert fails(doc) == {"package.metadata"}
    row = rows(doc)["package.metadata"]
    assert row["got"] == "missing" and "wrapper_metadata.json" in row["expected"]


def test_cubin_removed(aotidbg, pkg, tmp_path):
    """A CPU package loads no cubins, so the copy's wrapper.cpp gets two
    loadKernel() lines the way cpp_wrapper_gpu.py writes them, and the archive
    carries only the first cubin."""
    mdir = model_dir(pkg)
    load = ('    if (kernels_.{k} == nullptr) {{\n'
            '        kernels_.{k} = loadKernel("/tmp/torchinductor_x/ab/{c}.cubin", "{k}", 0, cubin_dir_); \n'
            '    }}\n')
    lines = load.format(k="triton_poi_fused_0", c="cpresent0") + load.format(k="triton_poi_fused_1", c="cgone1")
    add_loads = lambda data: data.decode().replace("void AOTInductorModel::run_impl(",
                                                   lines + "void AOTInductorModel::run_impl(", 1).encode()
    bad = rewrite(pkg, str(tmp_path / "nocubin.pt2"), replace={".wrapper.cpp": add_loads},
                  add={mdir + "/cpresent0.cubin": b"\x7fELF fake cubin"})
    r, doc = check(aotidbg, bad)
    assert r.returncode == 1
    assert fails(doc) == {"package.cubins"}
    row = rows(doc)["package.cubins"]
    assert row["got"] == "missing cgone1.cubin"
    assert row["expected"].startswith("2 cubin(s)")


def test_so_needs_symbol_libtorch_lacks(aotidbg, pkg, tmp_path):
    src = tmp_path / "needs.c"
    src.write_text("int aoti_torch_this_symbol_does_not_exist(void);\n"
                   "int aoti_torch_grad_mode_is_enabled(void);\n"
                   "int f(void) { return aoti_torch_this_symbol_does_not_exist() + aoti_torch_grad_mode_is_enabled(); }\n")
    so = tmp_path / "needs.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True)
    data = so.read_bytes()
    bad = rewrite(pkg, str(tmp_path / "badso.pt2"), replace={".wrapper.so": lambda _: data})
    r, doc = check(aotidbg, bad)
    assert r.returncode == 1
    assert fails(doc) == {"package.symbols"}
    row = rows(doc)["package.symbols"]
    # aoti_torch_grad_mode_is_enabled is real and exported: only the fake one is named
    assert row["got"] == "missing aoti_torch_this_symbol_does_not_exist"
    assert row["expected"].startswith("2 torch symbol(s)")


def test_bare_so(aotidbg, pkg, tmp_path):
    with zipfile.ZipFile(pkg) as z:
        so = [n for n in z.namelist() if n.endswith(".wrapper.so")][0]
        (tmp_path / "model.so").write_bytes(z.read(so))
    r, doc = check(aotidbg, str(tmp_path / "model.so"))
    assert r.returncode == 1   # no device recorded and none given
    assert rows(doc)["artifact.api"]["status"] == "WARN"
    assert "aoti_compile_and_package" in rows(doc)["artifact.api"]["fix"]
    assert fails(doc) == {"device.compile-vs-load"}
    r, doc = check(aotidbg, str(tmp_path / "model.so"), "--device", "cpu")
    assert r.returncode == 0
    assert rows(doc)["device.compile-vs-load"]["status"] == "WARN"
    assert rows(doc)["package.symbols"]["status"] == "PASS"


def test_weights_outside_the_so(aotidbg, package, tmp_path):
    """A real package whose weights live in data/weights/ (listed in
    weights_config.json): PASS as built, FAIL naming the file once it is removed."""
    import json
    wpkg = package("check_weights")
    with zipfile.ZipFile(wpkg) as z:
        cfg_name = [n for n in z.namelist() if n.endswith("/weights_config.json")][0]
        cfg = json.loads(z.read(cfg_name))
    files = sorted({v[0] for v in cfg.values()})
    assert files
    r, doc = check(aotidbg, wpkg)
    assert r.returncode == 0
    assert rows(doc)["package.weights"]["status"] == "PASS"
    assert rows(doc)["package.weights"]["expected"].endswith("(pickle_weights)")
    assert f"{len(files)} file(s) under data/weights/, all there and readable" in rows(doc)["package.weights"]["got"]
    bad = rewrite(wpkg, str(tmp_path / "noweights.pt2"), drop=("data/weights/" + files[0],))
    r, doc = check(aotidbg, bad)
    assert r.returncode == 1
    assert fails(doc) == {"package.weights"}
    assert files[0] in rows(doc)["package.weights"]["got"]


def test_custom_ops_listed_with_schema(aotidbg, package, tmp_path):
    """A real package calling a Python custom op through the proxy executor:
    the op is listed with a schema built from <key>.wrapper.json; without
    that file the package FAILs, naming it."""
    import json
    cpkg = package("check_custom")
    with zipfile.ZipFile(cpkg) as z:
        jname = [n for n in z.namelist() if n.endswith(".wrapper.json")][0]
        node = json.loads(z.read(jname))["nodes"][0]["node"]
    args = [a["name"] for a in node["inputs"]]
    assert node["target"] == "aotidbg_check::scale" and args == ["x", "k"]
    r, doc = check(aotidbg, cpkg)
    assert r.returncode == 0
    row = rows(doc)["package.custom-ops"]
    assert row["status"] == "INFO"
    assert row["got"] == "aotidbg_check::scale(Tensor x, float k) -> Tensor"
    assert row["source"] == jname
    bad = rewrite(cpkg, str(tmp_path / "nojson.pt2"), drop=(".wrapper.json",))
    r, doc = check(aotidbg, bad)
    assert r.returncode == 1
    assert fails(doc) == {"package.custom-ops"}
    assert "wrapper.json" in rows(doc)["package.custom-ops"]["expected"]


def test_flags_printer_level_3_and_nan_asserts(aotidbg, package):
    """check_custom is built with printer level 3 and NaN asserts: the flag rows
    and `info` say so, and info's kernel count is the number of kernel-name
    printf launches in the real wrapper.cpp."""
    cpkg = package("check_custom")
    with zipfile.ZipFile(cpkg) as z:
        text = z.read([n for n in z.namelist() if n.endswith(".wrapper.cpp")][0]).decode()
    names = re.findall(r'printf\("\[ before_launch: (\w+) \]', text)
    assert names and "aoti_torch_check_inf_and_nan(" in text
    r, doc = check(aotidbg, cpkg)
    pl = rows(doc)["flag.printer-level"]
    assert pl["status"] == "WARN" and pl["got"].startswith("3:")
    assert rows(doc)["flag.nan-asserts"]["got"].startswith("yes")
    r = run([aotidbg, "info", cpkg])
    assert "printer level:       3" in r.stdout
    assert "nan asserts:         yes" in r.stdout
    assert f"kernels:             {len(names)} (from printer)" in r.stdout


def test_cuda_flags_only_where_the_run_is_on_cuda(aotidbg, pkg):
    """CUDA_LAUNCH_BLOCKING and PYTORCH_NO_CUDA_MEMORY_CACHING change nothing in a CPU run: no row
    tells a CPU user to set them; one set anyway says it has no effect; a CUDA load keeps the advice."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING")}
    cuda_ids = {"flag.CUDA_LAUNCH_BLOCKING", "flag.PYTORCH_NO_CUDA_MEMORY_CACHING"}
    _, doc = check(aotidbg, pkg, env=env)
    assert not cuda_ids & set(rows(doc)), rows(doc).keys()
    assert "fix" in rows(doc)["flag.AOTI_RUNTIME_CHECK_INPUTS"]   # the CPU-relevant one keeps its advice
    _, doc = check(aotidbg, pkg, env=dict(env, CUDA_LAUNCH_BLOCKING="1"))
    row = rows(doc)["flag.CUDA_LAUNCH_BLOCKING"]
    assert "no effect" in row["got"] and "fix" not in row
    _, doc = check(aotidbg, pkg, "--device", "cuda", env=env)
    assert all("fix" in rows(doc)[i] for i in cuda_ids)
