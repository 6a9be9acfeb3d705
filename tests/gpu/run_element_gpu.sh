#!/usr/bin/env bash
# run_element_gpu.sh — issue 17 on the H200: NaN/Inf and index-out-of-bounds down to the element,
# uninitialised before-tensors, and stops that hold what a kernel is about to consume, for torch
# 2.11 CUDA packages (Triton kernels: roles from call_triton_* declarations in wrapper.cpp).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_element_gpu.sh
#
# AOTIDBG is a front end built elsewhere (see record_all.sh and DESIGN §7); the runner is built
# here (or AOTIDBG_RUNNER). About 2 minutes (2 compiles). DEV=cpu rehearses it on a CPU box.
# Packages (printer + provenance tracking): prov_cuda.pt2 from tests/models/model_provenance.py
# (its log makes NaN), item_tower_cuda.pt2 from tests/models/model_oob_named.py (input `ids`).
# Writes to $OUT: summary.txt (the checks, PASS/FAIL), sessions/*.yaml (bring
# cuda_nan_element.yaml and cuda_oob_item_tower_blocking.yaml back as fixtures), dump_*.txt,
# route_*.yaml, screen_*.txt, logs/.
# Exit 0 when every check passes, 1 when one fails, 2 when the build or the compile failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin element
gpu_environment
gpu_runner

step "compile the packages (torch here)"
timeout 400 python3 - "$ROOT" "$OUT" "$DEV" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import importlib.util, os, sys, time
import torch
root, out, dev = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, "tests/models", name + ".py"))
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod
P = {"aot_inductor.debug_intermediate_value_printer": "1", "trace.provenance_tracking_level": 1}
b = load("model_provenance").provenance()
t0 = time.time()
ep = torch.export.export(b["module"].to(dev), tuple(t.to(dev) for t in b["inputs"]))
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "prov_cuda.pt2"), inductor_configs=P)
print(f"compiled prov_cuda in {time.time() - t0:.1f}s", flush=True)
b = load("model_oob_named").oob_named()
t0 = time.time()
ep = torch.export.export(b["module"].to(dev), (), kwargs={k: v.to(dev) for k, v in b["kwargs"].items()})
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "item_tower_cuda.pt2"),
                                         inductor_configs=P)
print(f"compiled item_tower_cuda in {time.time() - t0:.1f}s", flush=True)
import numpy as np
np.save(os.path.join(out, "ids137.npy"), np.array([[3, 14, 15, 92], [65, 35, 137, 79]]))
EOF
grep compiled "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [1, 4], dtype: int64, device: %s, fill: file, file: %s}\n' "$DEV" "$OUT/ids_prov.npy" \
  > "$OUT/prov.inputs.yaml"
python3 -c "import numpy as np; np.save('$OUT/ids_prov.npy', np.array([[1, 5, 7, 99]]))"
printf 'inputs:\n  - {shape: [2, 4], dtype: int64, device: %s, fill: file, file: %s}\n' "$DEV" "$OUT/ids137.npy" \
  > "$OUT/oob.inputs.yaml"

rec() {  # rec NAME ARGS...
  local name=$1; shift
  timeout 180 "$AOTIDBG" run "$@" --record "$OUT/sessions/$name.yaml" > "$OUT/logs/$name.log" 2>&1
  echo "$name: exit $?"; tail -5 "$OUT/logs/$name.log" | sed 's/^/    /'
  timeout 60 "$AOTIDBG" replay "$OUT/sessions/$name.yaml" --dump > "$OUT/dump_$name.txt" 2>&1
  timeout 60 "$AOTIDBG" route "$OUT/sessions/$name.yaml" --format yaml > "$OUT/route_$name.yaml" 2>&1
}

step "runs"
rec cuda_nan_element "$OUT/prov_cuda.pt2" --inputs "$OUT/prov.inputs.yaml" --values 64
rec cuda_nan_element_stats "$OUT/prov_cuda.pt2" --inputs "$OUT/prov.inputs.yaml"
rec cuda_oob_item_tower_blocking "$OUT/item_tower_cuda.pt2" --inputs "$OUT/oob.inputs.yaml" --blocking --values 64
rec cuda_oob_item_tower_stats "$OUT/item_tower_cuda.pt2" --inputs "$OUT/oob.inputs.yaml" --blocking
# a stop before the second kernel: the session holds its before-tensors
K1=$(python3 -c "import yaml,sys; e=[e for e in yaml.safe_load(open(sys.argv[1]))['events'] if e.get('kind')=='kernel']; print(e[1]['name'])" \
  "$OUT/sessions/cuda_nan_element.yaml" 2>/dev/null)
rec cuda_stop_before "$OUT/prov_cuda.pt2" --inputs "$OUT/prov.inputs.yaml" --values 64 --break-on "kernel=$K1"
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_oob_item_tower_blocking.yaml" --headless 120x50 --ascii \
  --keys "goto-element" --dump-screen > "$OUT/screen_oob_goto.txt" 2>&1
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_nan_element.yaml" --headless 120x50 --ascii \
  --keys "pane-router zoom" --dump-screen > "$OUT/screen_nan_router.txt" 2>&1
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_nan_element.yaml" --headless 120x50 --ascii \
  --keys "hunt-nan" --dump-screen > "$OUT/screen_nan_hunt.txt" 2>&1

step "checks"
python3 - "$OUT" "$ROOT" <<'EOF' | tee "$OUT/summary.txt"
import os, re, sys
import yaml
out, root = sys.argv[1], sys.argv[2]
fails = 0
def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    fails += not ok
def load(name):
    p = os.path.join(out, "sessions", name + ".yaml")
    return yaml.safe_load(open(p)) if os.path.exists(p) else {"events": []}
def ev(doc, kind):
    return [e for e in doc["events"] or [] if e.get("kind") == kind]
def text(name):
    p = os.path.join(out, name)
    return open(p).read() if os.path.exists(p) else ""
log_line = next(i + 1 for i, l in enumerate(open(os.path.join(root, "tests/models/model_provenance.py")))
                if "torch.log(h - 10.0)" in l)

d = load("cuda_nan_element")
n = ev(d, "nan")
check(len(n) == 1, "nan event recorded (values kept)")
if n:
    e = n[0]
    k = next((k for k in ev(d, "kernel") if k["index"] == e["kernel"]), {})
    check(k.get("status") == "nan" and "log" in k.get("name", ""), f"nan kernel #{e['kernel']} {k.get('name')}")
    out_t = next((t for t in k.get("tensors", []) if t["phase"] == "after" and t["name"] == e["tensor"]), None)
    vals = out_t.get("values", []) if out_t else []
    first = next((i for i, v in enumerate(vals) if v != v or v in (float("inf"), float("-inf"))), -1)
    check(first >= 0 and e.get("value") in ("nan", "inf", "-inf"), f"bad element {e['tensor']}{e.get('at')} = {e.get('value')}")
    check(any(o.startswith(f"log at model_provenance.py:{log_line}") for o in e.get("ops", [])), f"ops {e.get('ops')}")
    check(bool(e.get("inputs")) and any("=" in i for i in e["inputs"]), f"inputs at the element: {e.get('inputs')}")
    check((e.get("from") or "").startswith("computed here"), f"from: {e.get('from')}")
s = load("cuda_nan_element_stats")
n2 = ev(s, "nan")
check(bool(n2) and bool(n) and n2[0].get("at") == n[0].get("at"),
      "statistics alone (CUDA kernel positions, memory order) name the same element")
calls = (d.get("provenance") or {}).get("calls", [])
check(any(c.get("fresh") for c in calls), "calls carry fresh (uninitialised) outputs: " +
      str([(c["kernel"], c.get("fresh")) for c in calls if c.get("fresh")][:4]))
check(any(c.get("before") for c in calls), "calls carry the printer's before counts")
check("uninitialised" in text("dump_cuda_nan_element.txt"), "dump marks uninitialised before-tensors")
r = yaml.safe_load(text("route_cuda_nan_element.yaml") or "{}") or {}
f = r.get("fields", {})
check(r.get("route") == "nan-inf" and f.get("bad_at") and f.get("suspect_ops"), f"route nan-inf fields: {sorted(f)[:12]}")
check(str(f.get("source_line", "")).endswith(f"model_provenance.py:{log_line}"), f"source_line {f.get('source_line')}")
st = load("cuda_stop_before")
ks = ev(st, "kernel")
last = ks[-1] if ks else {}
call = calls[last["call"]] if last.get("call") is not None and last.get("call", -1) < len(calls) else {}
check(last.get("status") == "pending" and len(last.get("tensors", [])) == call.get("before", -1) > 0,
      f"stop before {last.get('name')}: {len(last.get('tensors', []))} before-tensors, printer saves {call.get('before')}")
for name in ("cuda_oob_item_tower_blocking", "cuda_oob_item_tower_stats"):
    o = load(name)
    errs = ev(o, "error")
    fl = errs[-1].get("fields", {}) if errs else {}
    want = "cpp-index-oob" if str(fl.get("kernel", "")).startswith("cpp_") else "triton-index-oob"   # DEV=cpu: C++
    check(errs and errs[-1].get("route") == want, f"{name}: routed {want}")
    check(fl.get("index_user") == "ids" and fl.get("index_at") == "[1, 2]" and fl.get("index_value") == "137",
          f"{name}: element {fl.get('index_user')} {fl.get('index_tensor')}{fl.get('index_at')} = {fl.get('index_value')}"
          f" ({fl.get('index_note') or fl.get('element_error') or 'exact'})")
    check("items.weight" in str(fl.get("bound_of")), f"{name}: bound_of {fl.get('bound_of')}")
    check(str(fl.get("source_code")) == "h = self.items(ids)", f"{name}: source {fl.get('source_line')}")
check("ids (arg" in text("screen_oob_goto.txt") and "[1, 2] = 137" in text("screen_oob_goto.txt"),
      "goto-element: the inspector's cursor on ids[1, 2] = 137")
check("first bad" in text("screen_nan_router.txt"), "router pane: the nan-inf row sums up the element")
check("where it comes from" in text("screen_nan_hunt.txt"), "hunt-nan report: the element, inputs, ops")
print(f"{fails} failed")
sys.exit(1 if fails else 0)
EOF
rc=${PIPESTATUS[0]}
rm -rf "$W"
step "done (exit $rc)"
exit $rc
