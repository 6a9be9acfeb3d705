#!/usr/bin/env bash
# bench_memcheck.sh — the slowdown of `aotidbg run --memcheck` (the runner under compute-sanitizer,
# blocking, caching allocator off) against a plain `aotidbg run` of the same package, and against
# `run --deterministic --blocking` (what --memcheck adds besides the tool), side by side, REPS rounds
# interleaved; prints medians and the ratios.
#
#   bash tests/bench/bench_memcheck.sh PKG SPEC [REPS (3)] [TOOL (memcheck)]
# Needs a CUDA package and compute-sanitizer (the H200: tests/gpu/run_memcheck_gpu.sh runs it).
# AOTIDBG: the front end (default build/aotidbg).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKG=$1 SPEC=$2 REPS=${3:-3} TOOL=${4:-memcheck}
A=${AOTIDBG:-$ROOT/build/aotidbg}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
time_run() {  # prints wall seconds of one run
  local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)"
}
plain=(); det=(); san=()
for i in $(seq "$REPS"); do
  plain+=("$(time_run "$A" run "$PKG" --inputs "$SPEC" --record "$W/p.yaml")")
  det+=("$(time_run "$A" run "$PKG" --inputs "$SPEC" --deterministic --blocking --values 1024 --record "$W/d.yaml")")
  san+=("$(time_run "$A" run "$PKG" --inputs "$SPEC" --memcheck="$TOOL" --record "$W/m.yaml")")
done
kernels=$(grep -c "kind: kernel" "$W/m.yaml" || true)
python3 - "$kernels" "$TOOL" "${plain[*]}" "${det[*]}" "${san[*]}" <<'PY'
import statistics, sys
k, tool = sys.argv[1], sys.argv[2]
p, d, m = ([float(v) for v in a.split()] for a in sys.argv[3:6])
mp, md, mm = statistics.median(p), statistics.median(d), statistics.median(m)
print(f"bench_memcheck: {k} kernels, {len(p)} rounds, wall seconds of the whole `aotidbg run` (median)")
print(f"  plain run                         {mp:8.2f} s   {' '.join(f'{v:.2f}' for v in p)}")
print(f"  --deterministic --blocking        {md:8.2f} s   {' '.join(f'{v:.2f}' for v in d)}")
print(f"  --memcheck={tool:<22s} {mm:8.2f} s   {' '.join(f'{v:.2f}' for v in m)}")
print(f"  slowdown: {mm / mp:.2f}x against the plain run, {mm / md:.2f}x against blocking without the tool")
PY
