#!/usr/bin/env bash
# run_hunt_gpu.sh — issue 7's NaN-hunt benchmark on the GPU box: builds the
# runner there (runner only: the image lacks ncurses/libyaml headers), then
# runs tests/bench/bench_nan_hunt.sh with DEVICE=cuda against a front end
# built elsewhere.
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_hunt_gpu.sh [REPS]
# Writes $OUT/hunt.log. Expected time on an H200: about 3-4 minutes.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/hunt.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
W=$(mktemp -d /tmp/aotidbg-hunt.XXXXXX)
step "build the runner (runner only, Release)"
bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$W/build" "$W/build.log" || exit 1
export AOTIDBG_RUNNER=$W/build/aotidbg-runner AOTIDBG_DATA_DIR=$ROOT
ls "$W/build"/libaotidbg_cudastats.so >/dev/null || echo "note: no CUDA statistics library: the runner uses its host path"
"${AOTIDBG:?set AOTIDBG to a front end}" --version || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step "bench_nan_hunt.sh (cuda)"
bash "$ROOT/tests/bench/bench_nan_hunt.sh" "$W/build" "${1:-5}" cuda
step "done"
rm -rf "$W"
