#!/usr/bin/env bash
# gpu_runner_bench.sh — hook overhead of aotidbg-runner on a GPU box, plus the
# runner's CUDA checks (tests/gpu/runner_cuda_check.py). One command, for the
# device tool; everything lands under $OUT (default: a fresh temp dir).
#
#   tests/bench/gpu_runner_bench.sh                      # builds its own bench model
#   tests/bench/gpu_runner_bench.sh PKG.pt2 ITERS INPUT...   # your package; INPUT as --bench
#       (INPUT is DTYPE:SHAPE:FILL, e.g. float32:64x256:randn int64:3:arange)
#
# Prints µs per run for: the package built WITHOUT the printer (plain, only
# when we build the model), hooks counting only (off), hooks recording stats
# (record), sync + error check at every hook (blocking), and hooks off under
# CUDA_LAUNCH_BLOCKING=1. Per-event overhead = (mode - plain) / events_per_run.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
LOG="$OUT/runner_bench.txt"
exec > >(tee -a "$LOG") 2>&1
echo "== gpu_runner_bench $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"

BUILD="$OUT/build-runner"
bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$BUILD" "$OUT/cmake.log" || exit 1
RUNNER="$BUILD/aotidbg-runner"
"$RUNNER" --version
ls "$BUILD"/libaotidbg_cudastats.so 2>/dev/null && echo "(device statistics library present)"

extract() {   # PKG -> prints the .wrapper.so path
    python3 - "$1" "$OUT/x_$(basename "$1" .pt2)" <<'PY'
import os, sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
print(next(os.path.join(r, f) for r, _, fs in os.walk(sys.argv[2]) for f in fs if f.endswith(".wrapper.so")))
PY
}

PLAIN_SO=""
if [ $# -ge 1 ]; then
    PKG=$1; ITERS=${2:-2000}; shift 2 || shift $#
    INPUTS=("$@")
else
    ITERS=5000
    python3 - "$OUT" <<'PY' || { echo "model build failed"; exit 1; }
import os, sys, torch
out = sys.argv[1]
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.a, s.n, s.b, s.c = torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.Linear(256, 256), torch.nn.Linear(256, 64)
    def forward(s, x):
        return torch.softmax(s.c(torch.relu(s.b(torch.relu(s.n(s.a(x)))))), -1)
m = M().eval().cuda()
ep = torch.export.export(m, (torch.randn(64, 256, device="cuda"),))
for level in ("0", "1"):
    torch._inductor.aoti_compile_and_package(ep, package_path=f"{out}/bench_p{level}.pt2",
        inductor_configs={"aot_inductor.debug_intermediate_value_printer": level})
PY
    PKG="$OUT/bench_p1.pt2"
    INPUTS=(float32:64x256:randn)
    PLAIN_SO=$(extract "$OUT/bench_p0.pt2")
fi
SO=$(extract "$PKG")
DIR=$(dirname "$SO")
echo "== package $PKG, $ITERS iterations, inputs ${INPUTS[*]}"
DEV=${DEV:-cuda}   # DEV=cpu: a dry run of the mechanics on a CPU box with a CPU package
bench() { "$RUNNER" --bench "$1" "$(dirname "$1")" "$DEV" "$ITERS" "$2" "${INPUTS[@]}"; }
[ -n "$PLAIN_SO" ] && echo "plain (no printer): $(bench "$PLAIN_SO" off)"
for mode in off record blocking; do
    echo "hooks $mode: $(bench "$SO" $mode)"
done
echo "hooks off + CUDA_LAUNCH_BLOCKING=1: $(CUDA_LAUNCH_BLOCKING=1 bench "$SO" off)"
# where the record mode's time goes (per run, per call), on stderr
echo "== hooks record, AOTIDBG_RUNNER_PROFILE=1"
AOTIDBG_RUNNER_PROFILE=1 bench "$SO" record 2>&1
[ -n "$PLAIN_SO" ] && echo "plain + CUDA_LAUNCH_BLOCKING=1: $(CUDA_LAUNCH_BLOCKING=1 bench "$PLAIN_SO" off)"

[ "${DEV:-cuda}" = cpu ] && exit 0
echo "== runner CUDA checks"
python3 "$ROOT/tests/gpu/runner_cuda_check.py" "$RUNNER" "$OUT/cuda_check"
echo "exit $?"
