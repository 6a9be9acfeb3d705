#!/usr/bin/env bash
# tune_stats.sh — builds the statistics library once per variant, times the
# builds side by side on 1 GiB tensors (tune_stats.py: one table of variant,
# dtype, tensor, size, ms, TB/s, correct vs torch, then the fastest correct
# variant per tensor), runs the quick correctness check on each build, and
# keeps each build's ptxas report and the float32/bfloat16 SASS.
#   OUT=DIR bash tests/gpu/tune_stats.sh            (H200: about 2-3 minutes)
# NCU=1 adds an Nsight Compute profile of the default build (float32, ~1 min).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/sass"
exec > >(tee -a "$OUT/tune.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
B=$(mktemp -d /tmp/tune.XXXXXX)
# One variant a line: NAME=CFG4;CFG2;CFG1;DEFINES. CFG4/CFG2/CFG1 are
# THREADS,BLOCKS_PER_SM,PREFETCH,HINT for 4-, 2- and 1-byte elements
# (stats.cu; empty: the default), DEFINES space-separated X=V (stats_body.cuh's
# switches, e.g. SB_GATE=0); all go into a header the build -includes (nvcc
# splits -D values at commas). NAME@REV= builds core/runner/cuda as of git
# revision REV instead (skipped when $ROOT is not a git checkout).
#   new       the default (positions: chunk marks, warp filter; gated zero count)
#   gate0     the same, zero/subnormal counted in every chunk (SB_GATE=0)
#   c3pf      2- and 1-byte types 3 blocks/SM with prefetch (85 registers);
#             float32 as new: a second copy of new, how far two equal builds differ
#   c512      512 threads, 2 blocks/SM, no prefetch (64 registers)
#   c128      float32 128 x 8; 2- and 1-byte 256 x 2 with prefetch
#   f32x4     float32 256 x 4 without prefetch (64 registers; the default
#             until GPU call 3, where 256 x 2 with prefetch did as well or better)
#   f32hint   float32 256 x 4 with the L1::no_allocate L2::256B load hint
#   main      the kernel before this change (positions as per-thread ordinals)
#   prepos    the kernel before positions existed (0.274 ms on float32; it
#             computes no positions, so its "correct" reads NO on them)
VARIANTS=${VARIANTS:-"
new=;;;
gate0=;;;SB_GATE=0
c3pf=;256,3,true,true;256,3,true,true;
c512=512,2,false,false;512,2,false,true;512,2,false,true;
c128=128,8,false,false;256,2,true,true;256,2,true,true;
f32x4=256,4,false,false;;;
f32hint=256,4,false,true;;;
main@f9f70db=
prepos@9ecf10d=
"}
build() {  # build NAME [CFG4;CFG2;CFG1;DEFINES]
  local name=$1 cfg=${2:-} src=$ROOT/core/runner/cuda c4 c2 c1 defs d
  : > "$B/$name.h"
  if [[ $name == *@* ]]; then
    src=$B/src-$name; mkdir -p "$src"
    for f in stats.cu stats_body.cuh cuda_stats.h; do
      git -C "$ROOT" show "${name#*@}:core/runner/cuda/$f" > "$src/$f" 2>/dev/null \
        || { echo "$name: skipped (no git revision ${name#*@} here)"; rm -f "$B/$name.so"; return 0; }
    done
  fi
  IFS=';' read -r c4 c2 c1 defs <<< "$cfg"
  [ -n "$c4" ] && echo "#define SB_CFG4 $c4" >> "$B/$name.h"
  [ -n "$c2" ] && echo "#define SB_CFG2 $c2" >> "$B/$name.h"
  [ -n "$c1" ] && echo "#define SB_CFG1 $c1" >> "$B/$name.h"
  for d in $defs; do echo "#define ${d%%=*} ${d#*=}" >> "$B/$name.h"; done
  "$NVCC" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC -Xptxas -v -shared -cudart shared \
    -include "$B/$name.h" -I"$ROOT/core/model" -I"$ROOT/core/util" -I"$src" "$src/stats.cu" -o "$B/$name.so" \
    > "$OUT/sass/$name.build.log" 2>&1 || { echo "BUILD FAILED $name"; tail -5 "$OUT/sass/$name.build.log"; return 1; }
  # the float32 and bfloat16 kernels' SASS only (the whole library is too big to bring back)
  command -v cuobjdump >/dev/null && cuobjdump -sass "$B/$name.so" 2>/dev/null \
    | awk '/Function : /{p = /k_stats_fI(6tf_f32|7tf_bf16)/} p' > "$OUT/sass/$name.sass"
  # registers and spill stores of the float32, bfloat16 and float8_e4m3fn kernels
  echo "$name: $(awk '/Compiling entry function/{k = ""; if (match($0, /k_stats_fI[0-9]tf_(f32|bf16|e4m3)/)) k = substr($0, RSTART + 14, RLENGTH - 14)}
    k != "" && /spill stores/{match($0, /[0-9]+ bytes spill stores/); sp = substr($0, RSTART, RLENGTH)}
    k != "" && /Used [0-9]+ registers/{match($0, /Used [0-9]+ registers/); printf "%s %s, %s; ", k, substr($0, RSTART + 5, RLENGTH - 5), sp; k = ""}' \
    "$OUT/sass/$name.build.log")"
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

if [ "${NCU:-0}" = 1 ] && { command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; }; then
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  step "ncu on new (float32 1 GiB)"
  for name in new; do
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
