"""Every launch accounted for, anomalies that mean something, answers that survive the
runner's death, on real CPU packages (tests/models/model_launches.py).

- a printer-less GPT-style decoder: after re-instrumenting, every kernel and extern call of
  run_impl in wrapper.cpp (attention included: its arguments are reinterpret_tensor_wrapper
  views, its outputs handles the call makes) is one kernel event, with an after-tensor;
- a conv-bn net: every extern convolution's event carries its output (an after-tensor);
- a correct masked transformer: --break-on nan and inf run it to the end (exit 0), the summary
  says its -Inf is a mask's; --break-on nonfinite stops at the mask, except with --eager (the -Inf is eager's too);
- a kv-cache block fed a position past its 8 slots: the index check fails inside an OpenMP
  region and the runner dies of SIGABRT; the summary still names the element pos[2] = 19,
  as `aotidbg route S.yaml` does, and the session holds it as an error event."""
import os
import re
import zipfile

import numpy as np
import yaml

from conftest import run


def wrapper_calls(pkg):
    """The kernel and extern calls of run_impl, in order, read straight from wrapper.cpp."""
    with zipfile.ZipFile(pkg) as z:
        name = next(n for n in z.namelist() if n.endswith(".wrapper.cpp"))
        text = z.read(name).decode()
    body = text[text.index("void AOTInductorModel::run_impl("):]
    body = body[:body.index("\n} // AOTInductorModel::run_impl")] if "// AOTInductorModel::run_impl" in body else body
    calls = re.findall(r"^\s*(?:AOTI_TORCH_ERROR_CODE_CHECK\()?(cpp_fused_\w+|aoti_torch_cpu_\w+)\(", body, re.M)
    return calls


def kernels(session_path):
    with open(session_path) as f:
        s = yaml.safe_load(f)
    return s, [e for e in s["events"] if e["kind"] == "kernel"]


def spec(tmp_path, name, rows):
    p = tmp_path / name
    p.write_text("inputs:\n" + "".join(f"  - {r}\n" for r in rows))
    return str(p)


def test_printerless_gpt_every_call_is_a_kernel_event(aotidbg, package, tmp_path):
    pkg = package("launch_gpt")
    calls = wrapper_calls(pkg)
    assert "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu" in calls
    out = tmp_path / "g.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", spec(tmp_path, "in.yaml", ["{shape: [2, 8], dtype: int64, device: cpu, fill: zeros}"]),
             "--record", str(out)], timeout=600)
    assert r.returncode == 0, r.stderr
    s, ks = kernels(out)
    assert [k["name"] for k in ks] == calls
    for k in ks:   # each call's output: its after-tensor
        assert any(t["phase"] == "after" for t in k.get("tensors", [])), k["name"]
    attn = [k for k in ks if "scaled_dot_product" in k["name"]]
    assert all({t["name"] for t in k["tensors"] if t["phase"] == "before"} for k in attn)
    assert not s.get("hidden_kernels")


def test_convbn_convolutions_carry_outputs(aotidbg, package, tmp_path):
    pkg = package("launch_convbn")
    out = tmp_path / "c.yaml"
    r = run([aotidbg, "run", pkg, "--inputs",
             spec(tmp_path, "in.yaml", ["{shape: [1, 3, 8, 8], dtype: float32, device: cpu, fill: randn, seed: 0}"]),
             "--record", str(out)], timeout=600)
    assert r.returncode == 0, r.stderr
    _, ks = kernels(out)
    convs = [k for k in ks if k["name"] == "aoti_torch_cpu_convolution"]
    assert len(convs) == 2, [k["name"] for k in ks]
    for k in convs:
        before = {t["name"] for t in k["tensors"] if t["phase"] == "before"}
        made = [t for t in k["tensors"] if t["phase"] == "after" and t["name"] not in before]
        assert len(made) == 1 and made[0]["shape"][1] in (8, 4), k["tensors"]   # the output the call makes


def test_masked_transformer_runs_to_the_end_under_break_on_nan(aotidbg, package, tmp_path):
    pkg = package("launch_masked")
    out = tmp_path / "m.yaml"
    r = run([aotidbg, "run", pkg, "--inputs",
             spec(tmp_path, "in.yaml", ["{shape: [2, 6, 16], dtype: float32, device: cpu, fill: randn, seed: 0}",
                                        "{shape: [2, 6], dtype: bool, device: cpu, fill: zeros}"]),
             "--break-on", "nan", "--record", str(out)], timeout=600)
    assert r.returncode == 0, r.stderr
    assert "ran to the end" in r.stderr and "stopped" not in r.stderr
    assert "-Inf alone, as an attention mask writes; no NaN" in r.stderr, r.stderr
    s, ks = kernels(out)
    assert any(t["phase"] == "after" and t["stats"]["neginf"] for k in ks for t in k["tensors"])   # the mask is seen
    # inf leaves a mask alone too; nonfinite stops at it (a break the options asked for: exit 1)
    for what, code in (("inf", 0), ("nonfinite", 1)):
        r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--break-on", what,
                 "--record", str(tmp_path / f"{what}.yaml")], timeout=600)
        assert r.returncode == code, (what, r.stderr)
        assert ("stopped at the first NaN/Inf" in r.stderr) == (what == "nonfinite"), r.stderr
    # with --eager the mask's -inf is the program's own value: not even nonfinite stops at it
    r = run([aotidbg, "run", pkg, "--inputs", str(tmp_path / "in.yaml"), "--break-on", "nonfinite", "--eager",
             os.path.join(os.path.dirname(pkg), "launch_masked.same.ep.pt2"), "--record", str(tmp_path / "e.yaml")],
            timeout=600)
    assert r.returncode in (0, 3), r.stderr
    assert "stopped at the first NaN/Inf" not in r.stderr and "no departure" in r.stderr, r.stderr


def test_kvcache_past_the_cache_summary_names_the_element(aotidbg, package, tmp_path):
    pkg = package("launch_kvcache")
    np.save(tmp_path / "pos.npy", np.array([0, 1, 19, 3], dtype=np.int64))
    out = tmp_path / "k.yaml"
    r = run([aotidbg, "run", pkg, "--inputs",
             spec(tmp_path, "in.yaml", ["{shape: [4, 512], dtype: float32, device: cpu, fill: randn, seed: 0}",
                                        f"{{shape: [4], dtype: int64, device: cpu, fill: file, file: {tmp_path / 'pos.npy'}}}"]),
             "--record", str(out)], timeout=600)
    assert r.returncode == 1, r.stderr
    assert "died by signal 6 (SIGABRT)" in r.stderr
    assert re.search(r"index pos \(arg\d+_1\)\[2\] = 19, outside \[-8, 8\)", r.stderr), r.stderr
    routed = run([aotidbg, "route", str(out), "--format", "yaml"])
    assert routed.returncode == 0, routed.stderr
    fields = yaml.safe_load(routed.stdout)["fields"]
    assert fields["index_user"] == "pos" and fields["index_at"] == "[2]" and fields["index_value"] == "19"
    s, _ = kernels(out)
    errs = [e for e in s["events"] if e["kind"] == "error"]
    assert errs and errs[0]["route"] == "cpp-index-oob"   # the C++ kernel's check, aborting inside OpenMP
    # the TUI says it too, live and in replay: the router's element line and the inspector at the kernel
    element = "index pos (arg5_1)[2] = 19, outside [-8, 8)".replace("arg5_1", errs[0]["fields"]["index_tensor"])
    live = run([aotidbg, pkg, "--inputs", str(tmp_path / "in.yaml"), "--record", str(tmp_path / "live.yaml"),
                "--headless", "160x40", "--keys", f"c goto:{errs[0]['kernel']}", "--dump-screen"], timeout=600)
    replay = run([aotidbg, "replay", str(out), "--headless", "160x40", "--keys", f"goto:{errs[0]['kernel']}",
                  "--dump-screen"])
    for screen in (live.stdout, replay.stdout):
        rows = screen.splitlines()
        at = next(i for i, r in enumerate(rows) if "inspector: #" in r)
        col = rows[at].rindex("┌")   # the inspector pane's left edge
        assert "runner died: signal 6" in rows[at + 1][col:], screen
        assert element in rows[at + 2][col:], screen   # the inspector, under its death line
        assert any(r.startswith("│" + element) for r in rows), screen   # the router pane
