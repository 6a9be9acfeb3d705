#!/usr/bin/env bash
# tune_stats.sh — builds the statistics library with each set of tuning
# configuration (stats.cu: SB_CFG4, SB_CFG2, SB_CFG1: threads, blocks per SM,
# prefetch, load hint for 4-, 2- and 1-byte elements), times them side by side (tune_stats.py), runs
# the quick correctness check on each, and keeps the SASS and register counts.
#   OUT=DIR bash tests/gpu/tune_stats.sh            (H200: about 3 minutes)
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/sass"
exec > >(tee -a "$OUT/tune.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
B=$(mktemp -d /tmp/tune.XXXXXX)
# NAME=CFG4;CFG2;CFG1, each THREADS,BLOCKS_PER_SM,PREFETCH,HINT for 4-, 2- and
# 1-byte elements (stats.cu); empty: the defaults. Written to a header that
# the build -includes (nvcc splits -D values at commas).
VARIANTS=${VARIANTS:-"
default=
b=512,2,false,false;512,1,true,false;512,1,true,false
c=256,2,true,false;256,2,true,true;256,2,true,true
d=256,4,false,true;256,3,true,true;256,3,true,true
e=128,8,false,false;512,1,false,true;512,1,false,true
f=256,3,false,false;256,4,false,false;256,4,false,false
"}
build() {  # build NAME [CFG4;CFG2;CFG1]
  local name=$1 cfg=${2:-}
  : > "$B/$name.h"
  if [ -n "$cfg" ]; then
    IFS=';' read -r c4 c2 c1 <<< "$cfg"
    printf '#define SB_CFG4 %s\n#define SB_CFG2 %s\n#define SB_CFG1 %s\n' "$c4" "$c2" "$c1" > "$B/$name.h"
  fi
  "$NVCC" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC -Xptxas -v -shared -cudart shared \
    -include "$B/$name.h" -I"$ROOT/core/model" -I"$ROOT/core/util" -I"$ROOT/core/runner/cuda" "$ROOT/core/runner/cuda/stats.cu" -o "$B/$name.so" \
    > "$OUT/sass/$name.build.log" 2>&1 || { echo "BUILD FAILED $name"; tail -5 "$OUT/sass/$name.build.log"; return 1; }
  # the float32 and bfloat16 kernels' SASS only (the whole library is too big to bring back)
  command -v cuobjdump >/dev/null && cuobjdump -sass "$B/$name.so" 2>/dev/null \
    | awk '/Function : /{p = /k_stats_fI(6tf_f32|7tf_bf16)/} p' > "$OUT/sass/$name.sass"
  echo "$name: $(grep -A3 -E 'entry.*k_stats_fI(6tf_f32|7tf_bf16|7tf_e4m3)' "$OUT/sass/$name.build.log" | grep -oE 'I[0-9]tf_[a-z0-9]+|Used [0-9]+ registers|[0-9]+ bytes spill stores' | paste -sd' ')"
}
step "build $(echo "$VARIANTS" | grep -c =) variants"
LIBS=(); PIDS=()
while IFS= read -r line; do
  [ -z "$line" ] && continue
  name=${line%%=*}; defs=${line#*=}
  build "$name" "$defs" &
  PIDS+=($!)
  LIBS+=("$name=$B/$name.so")
done <<< "$VARIANTS"
wait "${PIDS[@]}"   # not a bare wait: that would also wait for the tee above
OK=(); for l in "${LIBS[@]}"; do [ -f "${l#*=}" ] && OK+=("$l"); done

step "time them side by side"
python3 "$ROOT/tests/gpu/tune_stats.py" "${OK[@]}" --out "$OUT" --rounds "${ROUNDS:-8}"

step "quick correctness check of each build"
for l in "${OK[@]}"; do
  name=${l%%=*}
  python3 "$ROOT/tests/gpu/test_cuda_stats.py" "${l#*=}" --quick --out "$OUT/sass/$name" > "$OUT/sass/$name.test.log" 2>&1
  echo "$name: rc $? $(grep -E '^# [0-9]+/' "$OUT/sass/$name.test.log" | tail -1)"
done

if command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  step "ncu on default (float32 1 GiB)"
  for name in default; do
    timeout 90 "$NCU" --kernel-name regex:k_stats_f --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
      python3 -c "
import sys; sys.path.insert(0, '$ROOT/tests/gpu')
import torch; from test_cuda_stats import Lib
l = Lib('$B/$name.so'); x = torch.randn(1 << 28, device='cuda')
for _ in range(4): l.stats(x)
" > "$OUT/sass/$name.ncu.txt" 2>&1
    echo "$name: ncu rc $?"; grep -E "Duration|Memory Throughput|DRAM Throughput|Issue Slots Busy|No Eligible|Achieved Occupancy|Issued Warp|Warp Cycles Per Issued" "$OUT/sass/$name.ncu.txt" | head -12
  done
fi
step "done"
tar czf "$OUT/sass.tgz" -C "$OUT" sass && rm -rf "$OUT/sass"
rm -rf "$B"
