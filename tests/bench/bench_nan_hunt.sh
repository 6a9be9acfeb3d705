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
python3 - "$W" "$DEV" <<'PY'
import sys, torch
out, dev = sys.argv[1], sys.argv[2]
class Deep(torch.nn.Module):
    # 110 blocks of Linear -> LayerNorm+ReLU: an extern addmm and a fused kernel each, 220 launches
    def __init__(s, n=110, d=64):
        super().__init__()
        s.l = torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(n))
        s.n = torch.nn.ModuleList(torch.nn.LayerNorm(d) for _ in range(n))
    def forward(s, x):
        for l, n in zip(s.l, s.n):
            x = torch.relu(n(l(x))) + x
        return x
m = Deep().eval().to(dev)
x = torch.randn(32, 64, device=dev)
ep = torch.export.export(m, (x,))
torch._inductor.aoti_compile_and_package(ep, package_path=f"{out}/deep.pt2",
    inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
open(f"{out}/in.yaml", "w").write(f"inputs:\n  - {{shape: [32, 64], dtype: float32, device: {dev}, fill: randn, seed: 1}}\n")
PY
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
