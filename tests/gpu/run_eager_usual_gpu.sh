#!/usr/bin/env bash
# run_eager_usual_gpu.sh — --eager on a bfloat16 nanoGPT built the usual way on the H200: printer on,
# no provenance tracking, no prepare step (tests/models/model_eager_gpt.py's GPT, 6 layers, d=384,
# 6 heads, seq 128, batch 2: the Linear calls are addmm/mm on 2-D views of 3-D nodes, the residual
# stream is updated in place). Checks, in $OUT/summary.txt:
#   own     against its own program: no departure, exit 0 or 3, and at least 90% of kernels compared
#           (the summary's "compared K of N kernels", counted again from the session), every
#           kernel with an eager plan (the Triton ones had none: issue 24), and for each kernel
#           not compared, why (INFO lines: its nodes' verdicts and notes);
#   fc3     against a program with row 17 of blocks.3.fc.weight changed (--break-on diverge): exit 1
#           and the first departure is the first kernel whose call passes blocks.3.fc.weight;
#   f64     against its own program with --eager-float64: the reference computes (no end_state
#           killed, no "view size is not compatible"), no departure;
#   weights own's weights equal the package's (every one compared, on the package's device); fc3
#           names blocks.3.fc.weight as the one that differs, in row 17 alone (1 row of 4*D).
# The eager runs pass $REINSTR (default --reinstrument: on CUDA the printer does not hook the
# attention calls, views of the qkv buffer with output handles, and a rebuilt copy does; the
# call table places them either way). REINSTR= runs them as the printer alone sees them.
# $OUT/sessions/{own,fc3,f64}.yaml are the sessions to keep as fixtures under sessions/cuda/
# (their reference folders stay beside them in $OUT/sessions/.aotidbg-eager).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_eager_usual_gpu.sh
#
# AOTIDBG is a front end built elsewhere (see run_eager_gpu.sh); the runner is built here. About
# 3 minutes (one compile). DEV=cpu rehearses it on a CPU box (set AOTIDBG_RUNNER; smaller with
# D=64 SEQ=16). Exit 0 when every check passes, 1 when one fails, 2 when the build or compile failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
D=${D:-384}; SEQ=${SEQ:-128}; REINSTR=${REINSTR---reinstrument}
gpu_begin eager_usual
gpu_environment
gpu_runner

step "compile the bf16 nanoGPT (no provenance) and export its programs"
timeout 400 python3 - "$ROOT" "$OUT" "$DEV" "$D" "$SEQ" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import importlib.util, os, sys, time
import torch
root, out, dev, d, seq = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
spec = importlib.util.spec_from_file_location("m", os.path.join(root, "tests/models/model_eager_gpt.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
torch.manual_seed(11)
torch.set_default_device(dev)   # the model's torch.arange(T) takes no device: trace it on dev
m = mod.GPT(vocab=512, d=d, heads=d // 64 if d >= 128 else 4, layers=6, seq=seq).eval().to(dev).to(torch.bfloat16)
x = (torch.randint(0, 512, (2, seq), device=dev),)
t0 = time.time()
ep = torch.export.export(m, x)
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "gpt.pt2"),
                                         inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
print(f"compiled gpt in {time.time() - t0:.1f}s", flush=True)
for name, prog in {"same": m, "fc3": mod.changed_row(m, "blocks.3.fc.weight", 17, -2.0)}.items():
    torch.export.save(torch.export.export(prog, x), os.path.join(out, f"gpt.{name}.ep.pt2"))
    print(f"exported {name}", flush=True)
EOF
grep -E "compiled|exported" "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [2, %s], dtype: int64, device: %s, fill: arange}\n' "$SEQ" "$DEV" > "$OUT/in.yaml"

step "runs"
rec() {  # rec NAME ARGS...: the exit code in sessions/NAME.rc, stderr in logs/NAME.log
  local name=$1; shift
  local t=$(date +%s%N)
  timeout 300 "$AOTIDBG" run "$OUT/gpt.pt2" --inputs "$OUT/in.yaml" --record "$OUT/sessions/$name.yaml" "$@" \
    > "$OUT/logs/$name.log" 2>&1
  echo $? > "$OUT/sessions/$name.rc"
  echo "$name: exit $(cat "$OUT/sessions/$name.rc") in $(( ($(date +%s%N) - t) / 1000000 )) ms"
  grep -E "compared|departs|reads|before it|inherit|not compared|weights|differs from the package|equals the package" \
    "$OUT/logs/$name.log" | sed 's/^/    /'
}
rec plain
rec own --eager "$OUT/gpt.same.ep.pt2" $REINSTR
rec fc3 --eager "$OUT/gpt.fc3.ep.pt2" --break-on diverge $REINSTR
rec f64 --eager "$OUT/gpt.same.ep.pt2" --eager-float64 $REINSTR

step "checks"
python3 - "$OUT" "$ROOT" <<'EOF' | tee "$OUT/summary.txt"
import os, re, sys
out, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "tests/integration"))
from aotidbg_testlib import events, load_session
fails = 0
def check(ok, what):
    global fails
    fails += not ok
    print(("PASS " if ok else "FAIL ") + what)
def get(name):
    p = os.path.join(out, "sessions", name + ".yaml")
    rc = int(open(os.path.join(out, "sessions", name + ".rc")).read())
    log = open(os.path.join(out, "logs", name + ".log")).read()
    return rc, (load_session(p) if os.path.exists(p) else None), log
def coverage(s):
    ks = events(s, "kernel")
    return sum(any(c["verdict"] in ("close", "differs") for c in k.get("eager") or []) for k in ks), len(ks)
for name in ("own", "f64"):
    rc, s, log = get(name)
    check(s is not None and s["end_state"] == "complete", f"{name}: end_state complete ({s and s['end_state']})")
    if s is None:
        continue
    k, n = coverage(s)
    m = re.search(r"compared (\d+) of (\d+) kernels", log)
    check(m is not None and (int(m.group(1)), int(m.group(2))) == (k, n), f"{name}: the summary says compared {k} of {n}")
    check(rc in (0, 3) and (rc == 3) == (k < n), f"{name}: exit {rc} with {k} of {n} compared")
    check(not events(s, "divergence"), f"{name}: no departure from its own program")
    check(n and k >= 0.9 * n, f"{name}: at least 90% of kernels compared ({k} of {n})")
    check("view size is not compatible" not in log, f"{name}: the reference computed")
    diff = [(k["index"], k["name"], c["node"], c.get("tensor")) for k in events(s, "kernel")
            for c in k.get("eager") or [] if c["verdict"] == "differs"]
    check(not diff, f"{name}: no check differs (first: {diff[:1]})")
    unplanned = [k["index"] for k in events(s, "kernel") if not k.get("eager")]
    check(not unplanned, f"{name}: every kernel has an eager plan (none for {unplanned[:20]})")
    un = [k for k in events(s, "kernel") if not any(c["verdict"] in ("close", "differs")
                                                   for c in k.get("eager") or [])]
    print(f"INFO {name}: not compared {[k['index'] for k in un][:20]}")
    for k in un[:20]:   # why, kernel by kernel
        why = "; ".join(f"{c['node']} {c['verdict']}" + (f" ({c['note']})" if c.get("note") else "")
                        for c in k.get("eager") or []) or "no graph node planned for it"
        print(f"INFO {name}:   kernel {k['index']} {k['name']}: {why}")
rc, s, log = get("fc3")
div = events(s, "divergence") if s else []
_, own, _ = get("own")   # the readers are counted on the full run: fc3 stops at its departure
check(rc == 1 and len(div) == 1, f"fc3: exit 1 at one departure (exit {rc})")
if s and div and own:
    calls = own["provenance"]["calls"]
    readers = [k["index"] for k in events(own, "kernel") if k.get("call", -1) >= 0
               and "blocks.3.fc.weight" in (calls[k["call"]].get("weights") or [])]
    check(bool(readers) and div[0]["kernel"] == readers[0],
          f"fc3: departs at kernel {div[0]['kernel']} ({div[0]['name']}), the first reader of blocks.3.fc.weight is {readers[:1]}")
# the program's weights against the package's constants (compared on the package's device)
_, own, olog = get("own")
w = (own or {}).get("eager", {}).get("weights") or {}
check(w.get("program") and w.get("program") == w.get("compared") == w.get("equal"),
      f"own: the program's weights equal the package's ({w.get('equal')} of {w.get('program')})")
rc, s, log = get("fc3")
w = (s or {}).get("eager", {}).get("weights") or {}
diff = [d for d in w.get("differ") or [] if d["verdict"] == "differs"]
check([(d["fqn"], d.get("ranges"), d.get("lead_differ")) for d in diff] == [("blocks.3.fc.weight", "17", 1)],
      f"fc3: blocks.3.fc.weight differs in row 17 alone ({[(d['fqn'], d.get('ranges')) for d in diff]})")
m = re.search(r"blocks.3.fc.weight differs from the package's: [^\n]*", log)
print("INFO fc3:", m.group(0) if m else "no weight line")
print("INFO weights:", [e["text"] for e in events(s, "log") if "aotidbg-runner: weights:" in e["text"]][:1] if s else [])
print("INFO fails", fails)
sys.exit(1 if fails else 0)
EOF
rc=${PIPESTATUS[0]}
rm -rf "$W"
step "done (exit $rc)"
exit $rc
