"""Checks the eager reference's runs on the GPU box (run_eager_gpu.sh, issue 18): a bfloat16 CUDA
package against its own exported program (no false alarm) and against two changed programs (the
planted divergence found at the first kernel that reads the changed weight, with the user's line),
every reference computed by the runner with libtorch and the Python helper's equal to it;
the CPU tests (tests/integration/test_eager.py) check the same on torch 2.13 float32/float16.

usage: python3 tests/gpu/check_eager_gpu.py DIR MODEL_FILE
DIR holds what run_eager_gpu.sh wrote: eager_bf16.pt2, eager_bf16.*.ep.pt2, sessions/*.yaml and
*.rc, logs/*.log, screen_*.txt, times.tsv. Prints one PASS/FAIL line per check (INFO lines: numbers,
not judged) and exits 1 when one fails.
"""
import json
import os
import sys
import zipfile

import yaml

DIR, MODEL_FILE = sys.argv[1], sys.argv[2]
USER_LINE = "return self.act(self.ln(self.fc(x))) + x"
CHANGED = {"ln2": "blocks.2.ln.weight", "fc1": "blocks.1.fc.weight"}
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what + ("" if ok or not detail else f": {detail}"), flush=True)
    failed += not ok


def info(what):
    print("INFO " + what, flush=True)


def read(name):
    p = os.path.join(DIR, name)
    return open(p, errors="replace").read() if os.path.exists(p) else ""


def session(name):
    p = os.path.join(DIR, "sessions", name + ".yaml")
    try:
        with open(p) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        check(False, f"{name}: session readable", str(e))
        return None


def rc(name):
    t = read(f"sessions/{name}.rc").strip()
    return int(t) if t else None


def events(sess, kind):
    return [e for e in sess.get("events") or [] if e["kind"] == kind]


def checks_of(sess):
    return [(k["index"], k["name"], k.get("eager") or []) for k in events(sess, "kernel")]


def first_reader(program, fqn, kinfo):
    """The kernel_information.json handle of the first call that reads weight fqn."""
    import torch
    ep = torch.export.load(os.path.join(DIR, program))
    ph = [n for n, p in ep.graph_signature.inputs_to_parameters.items() if p == fqn]
    node = next(n for n in ep.graph.nodes if n.name == ph[0])
    users = {u.name for u in node.users}
    for handle, entry in kinfo.items():   # calls in code-generation order
        if users & set(entry.get("pre_grad_nodes") or []):
            return handle
    return None


def worst(cs):
    rel = max((c["max_rel"] for c in cs if c["compared"]), default=0.0)
    ab = max((c["max_abs"] for c in cs if c["compared"]), default=0.0)
    return ab, rel


with zipfile.ZipFile(os.path.join(DIR, "eager_bf16.pt2")) as z:
    names = [n for n in z.namelist() if n.endswith("/kernel_information.json")]
    kinfo = json.loads(z.read(names[0])) if names else None
check(kinfo is not None, "eager_bf16.pt2 carries kernel_information.json")
if kinfo is None:
    sys.exit(1)
info(f"{len(kinfo)} kernel calls: {', '.join(kinfo)}")

# 1. its own program: no false alarm
s = session("same")
if s:
    check(rc("same") == 0, "own program: exit 0", f"exit {rc('same')}: {read('logs/same.log')[-600:]}")
    check("no departure from" in read("logs/same.log"), "own program: run says no departure",
          read("logs/same.log")[-600:])
    check(s.get("end_state") == "complete", "own program: the run completes", str(s.get("end_state")))
    check(not events(s, "divergence"), "own program: no divergence event (no false alarm in bf16)",
          str(events(s, "divergence")[:1]))
    ks = checks_of(s)
    every = [c for _, _, cs in ks for c in cs]
    check(len(ks) >= 8 and all(cs for _, _, cs in ks), "own program: every kernel has eager checks",
          str([(i, n) for i, n, cs in ks if not cs]))
    bad = [(i, n, c["node"], c["verdict"], c.get("note")) for i, n, cs in ks for c in cs if c["verdict"] != "close"]
    check(every and not bad, "own program: every check is close", str(bad[:5]))
    check(any(c["max_abs"] > 0 for c in every), "own program: fused bf16 kernels do round differently from eager")
    check(all(abs(c["rtol"] - 1.6e-2) < 1e-9 for c in every), "own program: bf16 default rtol 1.6e-2",
          str({c["rtol"] for c in every}))
    eg = s.get("eager") or {}
    check(str(eg.get("device", "")).startswith("cuda") or os.environ.get("DEV") == "cpu",
          "own program: eager ran on the run's device", str(eg.get("device")))
    for i, n, cs in ks:
        ab, rel = worst(cs)
        info(f"#{i} {n}: {len(cs)} checks, max_abs {ab:.3g}, max_rel {rel:.3g}, atol {cs[0]['atol']:.3g}"
             if cs else f"#{i} {n}: no checks")

# 1b. who computed the references: the runner with libtorch, no Python; Python's agrees with it
for name in ("same", "ln2", "fc1", "same_f64", "same_cpu"):
    log = read(f"logs/{name}.log")
    by = next((ln for ln in log.splitlines() if "computed by" in ln), "no 'computed by' line")
    check("computed by the runner with libtorch" in log, f"{name}: the reference computed by the runner (libtorch, "
          f"no Python)", by[-400:])
import numpy as np


def manifest(sess):
    d = (sess.get("eager") or {}).get("dir") or ""
    ms = [f for f in (os.listdir(d) if os.path.isdir(d) else []) if f.startswith("manifest-")]
    return (json.load(open(os.path.join(d, ms[0]))), d) if ms else ({}, d)


s, p = session("same"), session("py/same_py")
if s and p:
    (a, ad), (b, bd) = manifest(s), manifest(p)
    check(a.get("computed_by") == "runner" and b.get("computed_by") == "python",
          "the two references: one by the runner, one by Python", f"{a.get('computed_by')} / {b.get('computed_by')}")
    ka = [(c["kernel"], c["occurrence"], [(r["node"], r["dtype"], r["shape"]) for r in c["refs"]]) for c in a.get("calls", [])]
    kb = [(c["kernel"], c["occurrence"], [(r["node"], r["dtype"], r["shape"]) for r in c["refs"]]) for c in b.get("calls", [])]
    check(ka and ka == kb, "runner and Python: the same calls, nodes, dtypes and shapes", f"{ka[:3]} vs {kb[:3]}")
    worst_d, same_bits, n, far = 0.0, True, 0, []
    for ca, cb in zip(a.get("calls", []), b.get("calls", [])):
        for x, y in zip(ca["refs"], cb["refs"]):
            va = np.load(os.path.join(ad, x["file"])).astype(np.float64)
            vb = np.load(os.path.join(bd, y["file"])).astype(np.float64)
            if va.shape != vb.shape:
                far.append(x["node"])
                continue
            n += 1
            same_bits &= bool(np.array_equal(va, vb))
            d = float(np.abs(va - vb).max()) if va.size else 0.0
            worst_d = max(worst_d, d)
            if not np.allclose(va, vb, atol=1e-5, rtol=1.6e-2):
                far.append(x["node"])
    check(n > 0 and not far, "runner and Python: the same values (bf16 tolerance)", f"{far[:5]}")
    info(f"runner vs Python: {n} node values, bit-identical: {'yes' if same_bits else 'no'}, max |diff| {worst_d:.3g}")

# 1c. a llama-style decoder (attention, rope, RMSNorm's `+ eps`, tied head): the runner computes it, Python agrees
s, p = session("llama_runner/llama"), session("llama_python/llama")
if s and p:
    log = read("logs/llama_runner.log")
    # exit 3: it ran, and some kernels were not compared (each named in the log with why)
    check(rc("llama_runner/llama") in (0, 3) and "computed by the runner with libtorch" in log,
          "llama: the reference computed by the runner (AOTIDBG_EAGER_WITH=runner)", log[-600:])
    ks = events(s, "kernel")
    done = [k for k in ks if any(c["verdict"] in ("close", "differs") for c in k.get("eager") or [])]
    check(ks and len(done) * 10 >= len(ks) * 9, f"llama: at least 90% of kernels compared ({len(done)} of {len(ks)})",
          str([k["index"] for k in ks if k not in done]))
    (a, ad), (b, bd) = manifest(s), manifest(p)
    ka = [(c["kernel"], [(r["node"], r["shape"]) for r in c["refs"]]) for c in a.get("calls", [])]
    kb = [(c["kernel"], [(r["node"], r["shape"]) for r in c["refs"]]) for c in b.get("calls", [])]
    check(ka and ka == kb, "llama: runner and Python name the same nodes and shapes", f"{ka[:2]} vs {kb[:2]}")
    n, far, same_bits, worst_d = 0, [], True, 0.0
    for ca, cb in zip(a.get("calls", []), b.get("calls", [])):
        for x, y in zip(ca["refs"], cb["refs"]):
            va = np.load(os.path.join(ad, x["file"])).astype(np.float64)
            vb = np.load(os.path.join(bd, y["file"])).astype(np.float64)
            n += 1
            same_bits &= va.shape == vb.shape and bool(np.array_equal(va, vb))
            worst_d = max(worst_d, float(np.abs(va - vb).max()) if va.size and va.shape == vb.shape else 0.0)
            if va.shape != vb.shape or not np.allclose(va, vb, atol=1e-2, rtol=1.6e-2):
                far.append(x["node"])
    check(n > 0 and not far, "llama: runner and Python give the same values (bf16 tolerance)", str(far[:5]))
    info(f"llama: {n} node values, bit-identical: {'yes' if same_bits else 'no'}, max |diff| {worst_d:.3g}")
    # against its own program no kernel may depart (S3-4: the Triton kernel that lays out q/k/v names
    # the attention node too, and was compared with the attention's output)
    div = events(s, "divergence")
    check(not div, "llama: no departure against its own program (bf16)",
          f"departs at #{div[0]['kernel']} {div[0]['name']} (node {div[0]['check']['node']})" if div else "")

# 2. the cache: a second run starts no Python
s = session("same_cached")
if s:
    check(rc("same_cached") == 0 and "cached" in read("logs/same_cached.log"),
          "cached reference: a second run starts no Python (AOTIDBG_PYTHON=/bin/false)",
          read("logs/same_cached.log")[-600:])

# 3. the planted divergences: a changed layer's weights
for name, fqn in CHANGED.items():
    s = session(name)
    if not s:
        continue
    want = first_reader(f"eager_bf16.{name}.ep.pt2", fqn, kinfo)
    log = read(f"logs/{name}.log")
    check(rc(name) == 1 and "departs from eager at kernel" in log, f"{name}: exit 1, run names the departure",
          f"exit {rc(name)}: {log[-600:]}")
    check(s.get("end_state") == "stopped", f"{name}: --break-on diverge stops the run", str(s.get("end_state")))
    div = events(s, "divergence")
    check(len(div) == 1, f"{name}: one divergence event", str(div))
    if not div:
        continue
    d = div[0]
    kernels = events(s, "kernel")
    k = kernels[d["kernel"]] if 0 <= d["kernel"] < len(kernels) else {}
    got = s["provenance"]["calls"][k["call"]]["handle"] if k.get("call", -1) >= 0 else None
    check(want is not None and got == want,
          f"{name}: departs at the first kernel that reads {fqn} (kernel_information.json {want})",
          f"departed at #{d['kernel']} {d.get('name')} = {got}")
    check(d["kernel"] == len(kernels) - 1, f"{name}: the run stopped right after it")
    early = [(b["index"], b["name"]) for b in kernels[:d["kernel"]]
             if not b.get("eager") or any(c["verdict"] != "close" for c in b["eager"])]
    check(not early, f"{name}: every kernel before it matches the changed program", str(early))
    c = d["check"]
    check(c["verdict"] == "differs" and c["differing"] > 0 and c["first"] >= 0
          and abs(c["got"] - c["want"]) > c["atol"] + c["rtol"] * abs(c["want"]),
          f"{name}: the check holds the first differing element and both values", str(c))
    where, code = d.get("where") or "", d.get("code") or ""
    line = next((i + 1 for i, t in enumerate(open(MODEL_FILE).read().splitlines()) if USER_LINE in t), -1)
    check(os.path.basename(where.rsplit(":", 1)[0]) == os.path.basename(MODEL_FILE)
          and where.endswith(f":{line}") and USER_LINE in code,
          f"{name}: the user's line ({os.path.basename(MODEL_FILE)}:{line})", f"where={where!r} code={code!r}")
    info(f"{name}: kernel #{d['kernel']} {d['name']} tensor {c.get('tensor')} node {c['node']} at {d.get('at')}: "
         f"got {c['got']:.6g} want {c['want']:.6g}, {c['differing']}/{c['compared']} differ, "
         f"max_abs {c['max_abs']:.3g} max_rel {c['max_rel']:.3g}")

# 4. the TUI's hunt against --eager
s = session("ln2")
if s and events(s, "divergence"):
    d = events(s, "divergence")[0]
    want = f"hunt-diverge: kernel #{d['kernel']} {d['name']}, tensor {d['check']['tensor']}, first bad index {d['at']}"
    scr = read("screen_ln2_hunt.txt")
    check(want in scr and "departs from the eager program" in scr, "TUI replay: hunt-diverge lands on it", scr[-800:])
    scr = read("screen_ln2_ref.txt")
    check(f"after vs eager {d['check']['node']}: departs at {d['at']}" in scr and "DIV" in scr,
          "TUI replay: the inspector's vs-eager line and the DIV mark", scr[-800:])
    scr = read("screen_live_ln2.txt")
    check(want in scr, "TUI live: hunt-diverge runs to the same kernel", scr[-800:] + read("logs/live_ln2.log")[-400:])

# 5. numbers, not judged: float64 and CPU references, times
for name, what in (("same_f64", "own program in float64"), ("same_cpu", "own program run eagerly on the CPU")):
    s = session(name)
    if s:
        every = [c for _, _, cs in checks_of(s) for c in cs]
        ndiff = sum(c["verdict"] == "differs" for c in every)
        ab, rel = worst(every)
        div = events(s, "divergence")
        info(f"{what}: exit {rc(name)}, {ndiff}/{len(every)} checks differ, max_abs {ab:.3g}, max_rel {rel:.3g}"
             + (f", first at #{div[0]['kernel']} {div[0]['name']}" if div else ""))
times = dict(line.split("\t") for line in read("times.tsv").splitlines() if "\t" in line)
if "plain" in times:
    base = int(times["plain"]) or 1
    info("wall ms: " + ", ".join(f"{k} {v} ({int(v) / base:.2f}x plain)" for k, v in times.items()))
print(f"{'ALL PASS' if not failed else f'{failed} FAILED'}")
sys.exit(1 if failed else 0)
