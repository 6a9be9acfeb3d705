#!/usr/bin/env bash
# run_stats_gpu.sh — build libaotidbg_cudastats.so with nvcc on a GPU box, check it
# against torch, benchmark it, and run compute-sanitizer memcheck on our kernels.
# Everything it writes goes under $OUT (run.log, build.log, test.log, bench.log,
# memcheck.log, *.json, summary.txt). Needs: nvcc, python3 with CUDA torch, a GPU.
# No cmake, no network. Expected time on an H200: about 2-3 minutes (at most ~4).
#
#   OUT=/path/to/results bash tests/gpu/run_stats_gpu.sh
#
# Exit: 0 all checks pass and all benchmark targets hold; 1 a correctness check
# failed (or memcheck found errors); 2 the build failed; 3 only a benchmark
# target was missed.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/build-gpu-results}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
PY=${PYTHON:-python3}
NVCC=${NVCC:-$(command -v nvcc || true)}
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -z "$NVCC" ]; then echo "FAIL: nvcc not found (set NVCC)"; exit 2; fi
BUILD=$(mktemp -d "${TMPDIR:-/tmp}/aotidbg-cudastats.XXXXXX")
LIB=$BUILD/libaotidbg_cudastats.so

step "environment"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
"$NVCC" --version | tail -2
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(), torch.cuda.get_device_capability())"

step "build ($NVCC, sm_90 + compute_90 PTX)"
if ! "$NVCC" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
     -Xcompiler -fPIC,-Wall -Xptxas -v -shared -cudart shared \
     -I"$ROOT/core/model" -I"$ROOT/core/util" -I"$ROOT/core/runner/cuda" "$ROOT/core/runner/cuda/stats.cu" -o "$LIB" > "$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"; echo "FAIL: build"; exit 2
fi
grep -E "spill|Used [0-9]+ registers" "$OUT/build.log" | paste - - | sed 's/ptxas info *: //' | head -20
ldd "$LIB" | grep -E "cudart|not found" || true

step "correctness: test_cuda_stats.py"
$PY "$ROOT/tests/gpu/test_cuda_stats.py" "$LIB" --out "$OUT" > "$OUT/test.log" 2>&1
TEST_RC=$?
grep -E "^(FAIL|SKIP|#)" "$OUT/test.log" | head -80
[ $TEST_RC -ne 0 ] && tail -5 "$OUT/test.log"

step "benchmark: bench_stats.py"
$PY "$ROOT/tests/gpu/bench_stats.py" "$LIB" --out "$OUT" > "$OUT/bench.log" 2>&1
BENCH_RC=$?
cat "$OUT/bench.log"

step "compute-sanitizer memcheck (our kernels only, quick case set, 120 s cap)"
CS=$(command -v compute-sanitizer || true)
[ -z "$CS" ] && [ -x "$(dirname "$NVCC")/compute-sanitizer" ] && CS=$(dirname "$NVCC")/compute-sanitizer
[ -z "$CS" ] && [ -x /usr/local/cuda/compute-sanitizer/compute-sanitizer ] && CS=/usr/local/cuda/compute-sanitizer/compute-sanitizer
MEMCHECK="not run (compute-sanitizer not found)"
MC_RC=0
if [ -n "$CS" ]; then
  # No caching allocator: every tensor is its own allocation, so an overread is caught.
  MC0=$(date +%s)
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 120 "$CS" --tool memcheck --kernel-name kns=k_stats --print-limit 20 \
    $PY "$ROOT/tests/gpu/test_cuda_stats.py" "$LIB" --quick --out "$OUT/memcheck" > "$OUT/memcheck.log" 2>&1
  MC_RC=$?
  SUMMARY=$(grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1)
  if [ -z "$SUMMARY" ] && [ $(( $(date +%s) - MC0 )) -lt 20 ]; then
    # This compute-sanitizer does not take the kernel filter: check every kernel instead.
    echo "memcheck: kernel filter refused ($(head -c 300 "$OUT/memcheck.log")); retrying unfiltered"
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 100 "$CS" --tool memcheck --print-limit 20 \
      $PY "$ROOT/tests/gpu/test_cuda_stats.py" "$LIB" --quick --out "$OUT/memcheck" > "$OUT/memcheck.log" 2>&1
    MC_RC=$?
    SUMMARY=$(grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1)
  fi
  if [ $MC_RC -eq 124 ]; then MEMCHECK="timed out after 120 s ($SUMMARY)"; MC_RC=0
  elif echo "$SUMMARY" | grep -q "ERROR SUMMARY: 0 errors"; then MEMCHECK="clean ($SUMMARY; test rc $MC_RC)"
  elif [ -z "$SUMMARY" ]; then MEMCHECK="no summary (rc $MC_RC), see memcheck.log"; MC_RC=0
  else MEMCHECK="ERRORS: $SUMMARY"; MC_RC=1; fi
  grep -E "^(FAIL|#)|ERROR SUMMARY|Invalid|out of bounds" "$OUT/memcheck.log" | head -20
fi

step "summary"
{
  echo "build:     ok ($(grep -c 'Compiling entry' "$OUT/build.log") kernels)"
  echo "test:      $( [ $TEST_RC -eq 0 ] && echo PASS || echo FAIL ) ($(grep -E '^# [0-9]+/' "$OUT/test.log" | tail -1))"
  echo "bench:     $( [ $BENCH_RC -eq 0 ] && echo 'all targets hold' || echo "targets not all met (rc $BENCH_RC)")"
  grep -E "^ +(ours|copy|aminmax|aten-sep|printer3) |^(float32|bfloat16):|target|small tensor" "$OUT/bench.log" | sed 's/^/           /'
  echo "memcheck:  $MEMCHECK"
  echo "seconds:   $(( $(date +%s) - T0 ))"
} | tee "$OUT/summary.txt"
rm -rf "$BUILD"
if [ $TEST_RC -ne 0 ] || [ $MC_RC -ne 0 ]; then exit 1; fi
[ $BENCH_RC -ne 0 ] && exit 3
exit 0
