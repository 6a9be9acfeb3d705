#!/usr/bin/env bash
# run_eager_heldout_gpu.sh — --eager on CUDA packages built the usual way (printer on, no provenance
# tracking, no prepare step) for issue 24's held-out models: a float32 6-layer nanoGPT
# (tests/models/model_eager_gpt.py's GPT, d=384, 6 heads, seq 128, batch 2), the conv-bn net and the
# kv-cache block of tests/models/model_launches.py (ConvBn: two conv -> batchnorm -> relu, eval, not
# frozen, batch 8 of 3x64x64; KvCache: Linear(512, 1024) whose k/v halves are index_put into an
# 8-slot cache at the keyword input `pos`, then attention over the cache). The eager work was tuned
# on model_eager_gpt.py's ConvNet and KVBlock; these two are not those.
# Each model runs against two exported programs. Checks, in $OUT/summary.txt, per model M:
#   M.own   its own program: end_state complete, no departure, no check differs, exit 0 or 3
#           (3 exactly when some kernel was not compared), and at least 90% of kernels compared,
#           counted from the session's eager checks (and equal to the summary's "compared K of N");
#   M.chg   a program with one weight row changed (--break-on diverge): exit 1 at one departure,
#           at the first kernel whose call passes that weight (the calls' weights of M.own's session):
#           gpt blocks.3.fc.weight row 17 x -2, convbn c1.weight row 3 x 1.5, kvcache kv.weight row
#           5 x -2. (Not a batch norm weight: on the CPU rehearsal b1.weight reaches its kernel as a
#           folded constant that the call's weights do not name, so its reader cannot be counted;
#           the departure itself was at the right kernel.)
# The eager runs pass $REINSTR (default --reinstrument, as run_eager_usual_gpu.sh). $OUT/sessions/
# {gpt,convbn,kvcache}.{own,chg}.yaml are the sessions to keep as fixtures under sessions/cuda/
# (their reference folders stay beside them in $OUT/sessions/.aotidbg-eager).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_eager_heldout_gpu.sh
#
# AOTIDBG is a front end built elsewhere (tests/gpu/pack_frontend.sh); the runner is built here.
# About 2 minutes on the H200 (the three compiles at once while the runner builds, then each
# model's two runs beside the others'; the GPT's compile is the long pole). DEV=cpu rehearses it on a
# CPU box (set AOTIDBG_RUNNER; smaller with D=64 SEQ=16 CONV_N=1 CONV_HW=8 KV_D=64).
# Exit 0 when every check passes, 1 when one fails, 2 when the build or compile failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
D=${D:-384}; SEQ=${SEQ:-128}; CONV_N=${CONV_N:-8}; CONV_HW=${CONV_HW:-64}; KV_D=${KV_D:-512}
REINSTR=${REINSTR---reinstrument}
gpu_begin eager_heldout
gpu_environment

step "compile the three models (no provenance) and export their programs, the three at once, while the runner builds"
cat > "$W/compile.py" <<'EOF'
import importlib.util, os, sys, time
import torch
root, out, dev = sys.argv[1], sys.argv[2], sys.argv[3]
d, seq, conv_n, conv_hw, kv_d = (int(v) for v in sys.argv[4:9])
only = sys.argv[9]
def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, "tests/models", name + ".py"))
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod
gpt_mod, launches = load("model_eager_gpt"), load("model_launches")
changed_row = gpt_mod.changed_row
torch.set_default_device(dev)   # the GPT's torch.arange(T) takes no device: trace it on dev
torch.manual_seed(11)
gpt = gpt_mod.GPT(vocab=512, d=d, heads=d // 64 if d >= 128 else 4, layers=6, seq=seq).eval().to(dev)
torch.manual_seed(0)
convbn = launches.ConvBn().eval().to(dev)
with torch.no_grad():   # trained-looking statistics, as launch_convbn's
    for bn in (convbn.b1, convbn.b2):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 1.5)
torch.manual_seed(0)
kv = launches.KvCache(d=kv_d).eval().to(dev)
models = {   # name: (module, args, kwargs, the changed weight, its row, the factor)
    "gpt": (gpt, (torch.randint(0, 512, (2, seq), device=dev),), {}, "blocks.3.fc.weight", 17, -2.0),
    "convbn": (convbn, (torch.randn(conv_n, 3, conv_hw, conv_hw, device=dev),), {}, "c1.weight", 3, 1.5),
    "kvcache": (kv, (torch.randn(4, kv_d, device=dev),), {"pos": torch.arange(4, device=dev)}, "kv.weight", 5, -2.0),
}
for name, (m, args, kwargs, fqn, row, scale) in models.items():
    if name != only:
        continue
    t0 = time.time()
    ep = torch.export.export(m, args, kwargs)
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, f"{name}.pt2"),
                                             inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
    print(f"compiled {name} in {time.time() - t0:.1f}s", flush=True)
    for tag, prog in {"same": m, "chg": changed_row(m, fqn, row, scale)}.items():
        torch.export.save(torch.export.export(prog, args, kwargs), os.path.join(out, f"{name}.{tag}.ep.pt2"))
    open(os.path.join(out, f"{name}.weight"), "w").write(fqn + "\n")
    print(f"exported {name} (changed: {fqn} row {row} x {scale})", flush=True)
EOF
for model in gpt convbn kvcache; do
  timeout 500 python3 "$W/compile.py" "$ROOT" "$OUT" "$DEV" "$D" "$SEQ" "$CONV_N" "$CONV_HW" "$KV_D" $model \
    > "$OUT/logs/compile.$model.log" 2>&1 &
  eval "pid_$model=$!"
done
gpu_runner
step "wait for the compiles"
for model in gpt convbn kvcache; do
  eval "wait \$pid_$model" || { tail -30 "$OUT/logs/compile.$model.log"; exit 2; }
  grep -E "compiled|exported" "$OUT/logs/compile.$model.log"
done
printf 'inputs:\n  - {shape: [2, %s], dtype: int64, device: %s, fill: arange}\n' "$SEQ" "$DEV" > "$OUT/gpt.in.yaml"
printf 'inputs:\n  - {shape: [%s, 3, %s, %s], dtype: float32, device: %s, fill: randn, seed: 3}\n' \
  "$CONV_N" "$CONV_HW" "$CONV_HW" "$DEV" > "$OUT/convbn.in.yaml"
printf 'inputs:\n  - {shape: [4, %s], dtype: float32, device: %s, fill: randn, seed: 3}\n  - {shape: [4], dtype: int64, device: %s, fill: arange}\n' \
  "$KV_D" "$DEV" "$DEV" > "$OUT/kvcache.in.yaml"

step "runs"
rec() {  # rec MODEL TAG ARGS...: the exit code in sessions/MODEL.TAG.rc, stderr in logs/MODEL.TAG.log
  local model=$1 tag=$2; shift 2
  local name=$model.$tag t=$(date +%s%N)
  timeout 300 "$AOTIDBG" run "$OUT/$model.pt2" --inputs "$OUT/$model.in.yaml" --record "$OUT/sessions/$name.yaml" "$@" \
    > "$OUT/logs/$name.log" 2>&1
  echo $? > "$OUT/sessions/$name.rc"
  echo "$name: exit $(cat "$OUT/sessions/$name.rc") in $(( ($(date +%s%N) - t) / 1000000 )) ms"
  grep -E "compared|departs|reads|before it|inherit|not compared" "$OUT/logs/$name.log" | sed 's/^/    /'
}
for model in gpt convbn kvcache; do   # the three models side by side (one GPU holds them all), each own then chg
  { rec $model own --eager "$OUT/$model.same.ep.pt2" $REINSTR
    rec $model chg --eager "$OUT/$model.chg.ep.pt2" --break-on diverge $REINSTR; } > "$OUT/logs/runs.$model.txt" 2>&1 &
  eval "run_$model=$!"
done
for model in gpt convbn kvcache; do eval "wait \$run_$model"; done   # a bare wait would wait for gpu_begin's tee too
cat "$OUT/logs/runs.gpt.txt" "$OUT/logs/runs.convbn.txt" "$OUT/logs/runs.kvcache.txt"

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
    rcf = os.path.join(out, "sessions", name + ".rc")
    rc = int(open(rcf).read()) if os.path.exists(rcf) else -1
    logf = os.path.join(out, "logs", name + ".log")
    log = open(logf).read() if os.path.exists(logf) else ""
    return rc, (load_session(p) if os.path.exists(p) else None), log
def coverage(s):
    ks = events(s, "kernel")
    return sum(any(c["verdict"] in ("close", "differs") for c in k.get("eager") or []) for k in ks), len(ks)
for model in ("gpt", "convbn", "kvcache"):
    name = model + ".own"
    rc, own, log = get(name)
    check(own is not None and own["end_state"] == "complete", f"{name}: end_state complete ({own and own['end_state']})")
    if own is not None:
        k, n = coverage(own)
        m = re.search(r"compared (\d+) of (\d+) kernels", log)
        check(m is not None and (int(m.group(1)), int(m.group(2))) == (k, n),
              f"{name}: the summary says compared {k} of {n} (said: {m and m.group(0)})")
        check(rc in (0, 3) and (rc == 3) == (k < n), f"{name}: exit {rc} with {k} of {n} compared")
        check(not events(own, "divergence"), f"{name}: no departure from its own program")
        check(n > 0 and k >= 0.9 * n, f"{name}: at least 90% of kernels compared ({k} of {n})")
        diff = [(x["index"], x["name"], c["node"], c.get("tensor")) for x in events(own, "kernel")
                for c in x.get("eager") or [] if c["verdict"] == "differs"]
        check(not diff, f"{name}: no check differs (first: {diff[:1]})")
        un = [x["index"] for x in events(own, "kernel") if not any(c["verdict"] in ("close", "differs")
                                                                 for c in x.get("eager") or [])]
        print(f"INFO {name}: not compared {un[:20]}")
    name = model + ".chg"
    weight = open(os.path.join(out, model + ".weight")).read().strip()
    rc, s, log = get(name)
    div = events(s, "divergence") if s else []
    check(rc == 1 and len(div) == 1, f"{name}: exit 1 at one departure (exit {rc}, {len(div)} departures)")
    if s and div and own:   # the readers are counted on the full run: chg stops at its departure
        calls = (own.get("provenance") or {}).get("calls") or []
        readers = [x["index"] for x in events(own, "kernel") if 0 <= x.get("call", -1) < len(calls)
                   and weight in (calls[x["call"]].get("weights") or [])]
        check(bool(readers) and div[0]["kernel"] == readers[0],
              f"{name}: departs at kernel {div[0]['kernel']} ({div[0]['name']}), the first reader of {weight} "
              f"is {readers[:1]}")
print("INFO fails", fails)
sys.exit(1 if fails else 0)
EOF
rc=${PIPESTATUS[0]}
rm -rf "$W"
step "done (exit $rc)"
exit $rc
