#!/usr/bin/env bash
# run_loop_values_gpu.sh — values only where kept (aotidbg(1) --loop-values) on a CUDA while_loop:
# tests/models/model_loop.py's loop (y = sin(y) + 1 each round, NaN planted in round k) over a
# [64, 128] float32 y, compiled here with the printer, run by the real front end and runner.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_loop_values_gpu.sh     (DEV=cpu rehearses it)
#
# Cases (each session checked by check_loop_values below, one summary line a case):
#   kept      run --values 64, 300 rounds, no NaN: later rounds' tensors have no values and say
#             values_skipped; round 0's and the main graph's have values
#   all       the same with --loop-values all: every tensor has values, none skipped
#   nan       run --values 64 --break-on nan, NaN planted in round 200: stopped there, the NaN
#             tensor has its values (read a second time on the device path), the others skipped
#   at        run --break-on kernel=BODY@150: stopped at that launch, in round 150 (the runner
#             counts rounds from LAUNCHES' branch rows where its hooks say no branch)
#   live      live mode headless to the end, 20000 rounds, kept and all alternately, twice: wall
#             seconds of each (the runner's values copies and sends are what differs)
# Writes $OUT/summary.txt, $OUT/sessions/*.yaml, $OUT/logs/. Exit 0 when every check held.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin loop-values
gpu_environment
gpu_runner
step "compile the loop package on $DEV"
P=$W/pkgs
mkdir -p "$P"
timeout 400 python3 - "$ROOT" "$P" "$DEV" > "$OUT/logs/compile.log" 2>&1 <<'EOF' || tail -20 "$OUT/logs/compile.log"
import os, sys
import numpy as np, torch
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "models"))
from model_loop import LoopNan
out, dev = sys.argv[2], sys.argv[3]
ins = (torch.tensor(3, device=dev), torch.tensor(1, device=dev), torch.full((64, 128), 0.5, device=dev))
ep = torch.export.export(LoopNan().eval(), ins)
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "loop_wide.pt2"),
                                         inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
def spec(name, n, k):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "n.npy"), np.array(n, dtype=np.int64))
    np.save(os.path.join(d, "k.npy"), np.array(k, dtype=np.int64))
    np.save(os.path.join(d, "x.npy"), np.full((64, 128), 0.5, dtype=np.float32))
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write("inputs:\n"
                f"  - {{shape: [], dtype: int64, device: {dev}, fill: file, file: {d}/n.npy}}\n"
                f"  - {{shape: [], dtype: int64, device: {dev}, fill: file, file: {d}/k.npy}}\n"
                f"  - {{shape: [64, 128], dtype: float32, device: {dev}, fill: file, file: {d}/x.npy}}\n")
spec("clean", 300, 10**9)
spec("nan", 300, 200)
spec("long", 20000, 10**9)
print("compiled", os.listdir(out))
EOF
: > "$OUT/summary.txt"
status=0
check() {   # check NAME EXPECT: the session's tensors against what EXPECT says
  python3 - "$OUT/sessions/$1.yaml" "$2" <<'EOF' | tee -a "$OUT/summary.txt"
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
want = sys.argv[2]
rows = {}
for e in s["events"]:
    if e["kind"] != "kernel":
        continue
    for t in e.get("tensors", []):
        st = t.get("stats", {})
        odd = st.get("nan", 0) + st.get("posinf", 0) + st.get("neginf", 0) > 0
        key = ("later" if e.get("iteration", -1) >= 1 else "first/main", "nonfinite" if odd else "finite",
               "values" if t.get("values") else "skipped" if t.get("values_skipped") else "none")
        rows[key] = rows.get(key, 0) + 1
bad = []
for (when, fin, got), n in rows.items():
    expect = "values" if want == "all" or when == "first/main" or fin == "nonfinite" else "skipped"
    if got != expect:
        bad.append(f"{n} {when} {fin} tensors: {got}, want {expect}")
if want == "nan" and not any(k[1] == "nonfinite" and k[0] == "later" for k in rows):
    bad.append("no non-finite tensor in a later round")
print(f"{sys.argv[1].rsplit('/', 1)[-1]}: end_state {s.get('end_state')}; " +
      "; ".join(f"{n} {' '.join(k)}" for k, n in sorted(rows.items())) +
      (f" -- FAILED: {'; '.join(bad)}" if bad else " -- ok"))
sys.exit(1 if bad else 0)
EOF
}
step "run cases"
cd "$P" || exit 2
timeout 300 "$AOTIDBG" run loop_wide.pt2 --inputs clean/spec.yaml --values 64 --record "$OUT/sessions/kept.yaml" \
  > "$OUT/logs/kept.log" 2>&1
check kept kept || status=1
timeout 300 "$AOTIDBG" run loop_wide.pt2 --inputs clean/spec.yaml --values 64 --loop-values all \
  --record "$OUT/sessions/all.yaml" > "$OUT/logs/all.log" 2>&1
check all all || status=1
timeout 300 "$AOTIDBG" run loop_wide.pt2 --inputs nan/spec.yaml --values 64 --break-on nan \
  --record "$OUT/sessions/nan.yaml" > "$OUT/logs/nan.log" 2>&1
grep -h "stopped at\|iteration" "$OUT/logs/nan.log" | head -3 | tee -a "$OUT/summary.txt"
check nan nan || status=1
body=$(python3 -c "
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
print(next(e['name'] for e in s['events'] if e['kind'] == 'kernel' and e.get('branch') == 'while_loop_body_graph_0'))
" "$OUT/sessions/kept.yaml")
timeout 300 "$AOTIDBG" run loop_wide.pt2 --inputs clean/spec.yaml --values 64 --break-on "kernel=$body@150" \
  --record "$OUT/sessions/at.yaml" > "$OUT/logs/at.log" 2>&1
at=$(python3 -c "
import sys, yaml
k = [e for e in yaml.safe_load(open(sys.argv[1]))['events'] if e['kind'] == 'kernel'][-1]
print(k['name'], k.get('iteration'), k['status'])
" "$OUT/sessions/at.yaml")
if [ "$at" = "$body 150 pending" ]; then v=ok; else v=FAILED; status=1; fi
echo "at.yaml: --break-on kernel=$body@150: last kernel $at -- $v" | tee -a "$OUT/summary.txt"
step "live, kept and all alternately"
for rep in 1 2; do
  for way in kept all; do
    extra=""; [ $way = all ] && extra="--loop-values all"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout 300 "$AOTIDBG" loop_wide.pt2 --inputs long/spec.yaml --record "$OUT/sessions/live_$way$rep.yaml" $extra \
      --headless 120x40 --dump-screen --keys "c q" > "$OUT/logs/live_$way$rep.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "live $way (20000 rounds, 4096 values a tensor) run $rep: $(awk "BEGIN {printf \"%.2f\", $t1 - $t0}") s wall, exit $rc," \
      "$(grep -o 'end_state: [a-z-]*' "$OUT/sessions/live_$way$rep.yaml" | head -1)" | tee -a "$OUT/summary.txt"
  done
done
check live_kept1 kept || status=1
check live_all1 all || status=1
step "done (exit $status)"
exit $status
