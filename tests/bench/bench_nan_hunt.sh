#!/usr/bin/env bash
# bench_nan_hunt.sh — a NaN hunt (`run --break-on nan`: statistics of every tensor at
# every kernel) against the plain blocking run of the same package
# (`run --blocking`, hooks only counting: AOTIDBG_RUNNER_RECORD=0), side by side in one
# run, on a model of at least 200 kernels (issue 7's target: at most 2x).
#
#   bash tests/bench/bench_nan_hunt.sh [BUILD_DIR] [REPS] [DEVICE]
# DEVICE cpu (default) compiles a CPU package here; on a GPU box pass cuda.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
REPS=${2:-5}
DEV=${3:-cpu}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
python3 "$ROOT/tests/bench/deep_model.py" "$W" "$DEV"   # 110 blocks, 220 launches
A=${AOTIDBG:-$BUILD/aotidbg}   # AOTIDBG: a front end built elsewhere (the GPU box)
time_run() {  # prints wall seconds of one run
  local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)"
}
plain=(); hunt=()
for i in $(seq "$REPS"); do
  plain+=("$(AOTIDBG_RUNNER_RECORD=0 time_run "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --blocking --record "$W/p.yaml")")
  hunt+=("$(time_run "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --blocking --break-on nan --record "$W/h.yaml")")
done
kernels=$(grep -c "kind: kernel" "$W/h.yaml")
python3 - "$kernels" "${plain[*]}" "${hunt[*]}" <<'PY'
import statistics, sys
k = int(sys.argv[1]); p = [float(v) for v in sys.argv[2].split()]; h = [float(v) for v in sys.argv[3].split()]
mp, mh = statistics.median(p), statistics.median(h)
print(f"model: {k} kernels recorded by the hunt")
print(f"plain blocking run (hooks counting only): median {mp*1000:.1f} ms over {len(p)} runs")
print(f"NaN hunt (stats of every tensor):         median {mh*1000:.1f} ms over {len(h)} runs")
print(f"ratio hunt / plain: {mh/mp:.2f}x (target <= 2x)")
PY
