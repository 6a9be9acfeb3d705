#!/usr/bin/env bash
# bench_eager.sh — a run compared with eager (`run --eager PROGRAM`: the exported program run by
# the runner with libtorch, `aotidbg-runner --eager-ref`, or by core/prepare/aotidbg_eager.py where
# the runner cannot; every kernel's output compared in the runner) against the plain
# recorded run of the same package, side by side in one run, on a CPU model of 220 kernels
# (issue 24's target: at most 1.5x, the eager run itself included).
#
#   bash tests/bench/bench_eager.sh [BUILD_DIR] [REPS]
#   D=512 B=256 bash tests/bench/bench_eager.sh ...   # wider layers, more rows: more work per kernel
#
# Three ways, REPS times each, interleaved: plain (`run --record`), eager cold (a new session
# folder each time: the reference is computed; it prints which way did), eager cached (the
# reference beside the session already: only the compare). Prints the median wall time and the
# median CPU time (user + sys of aotidbg, the runner and the helper: on a shared, loaded box the
# CPU time is the cost of the work itself) and the ratios to plain; then the runner's own profile of
# one cached run: the time comparing outputs with eager next to the statistics pass.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
REPS=${2:-3}
A=${AOTIDBG:-$BUILD/aotidbg}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
D=${D:-64} B=${B:-32}
python3 "$ROOT/tests/bench/deep_model.py" "$W" cpu "$D" "$B" --eager
measure() {  # prints "wall cpu" seconds of one run (GNU time: children waited for included)
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" > /dev/null 2> "$W/err" || { cat "$W/err" >&2; exit 1; }
  awk '{print $1, $2 + $3}' "$W/t"
}
plain=(); cold=(); cached=()
mkdir -p "$W/cached"
"$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --record "$W/warm.yaml" > /dev/null 2>&1   # libtorch into the page cache
for i in $(seq "$REPS"); do
  mkdir -p "$W/cold$i"
  plain+=("$(measure "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --record "$W/p.yaml")")
  cold+=("$(measure "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --eager "$W/deep.ep.pt2" --record "$W/cold$i/e.yaml")")
  [ "$i" = 1 ] && cp -r "$W/cold1/.aotidbg-eager" "$W/cached/" && cp "$W/err" "$W/cold.err"
  cached+=("$(measure "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --eager "$W/deep.ep.pt2" --record "$W/cached/e.yaml")")
done
grep -q "cached" "$W/err" || { echo "the cached run computed the reference again" >&2; exit 1; }
# the runner's own split of one cached run: comparing (eager) next to the statistics pass (host_stats)
AOTIDBG_RUNNER_PROFILE=1 "$A" run "$W/deep.pt2" --inputs "$W/in.yaml" --eager "$W/deep.ep.pt2" \
  --record "$W/cached/prof.yaml" > /dev/null 2>&1
prof=$(grep -o 'profile:   [a-z_]* *[0-9.]* us *[0-9.]* calls' "$W/cached/prof.yaml" | awk '{print $2, $3, $5}' | tr '\n' ';')
kernels=$(grep -c "kind: kernel" "$W/cached/e.yaml")
checks=$(grep -c "verdict: close" "$W/cached/e.yaml" || true)
by=$(grep -o 'computed by [^,]*' "$W/cold.err" | head -1)
echo "reference ${by:-computed by ? (no summary line)}"
python3 - "$kernels" "$checks" "${plain[*]}" "${cold[*]}" "${cached[*]}" "$prof" "${B}x$D" <<'PY'
import statistics, sys
k, c = int(sys.argv[1]), int(sys.argv[2])
prof = {f[0]: (float(f[1]), float(f[2])) for f in (x.split() for x in sys.argv[6].split(";")) if len(f) == 3}
def med(s):
    v = [float(x) for x in s.split()]
    return statistics.median(v[0::2]), statistics.median(v[1::2]), len(v) // 2
p, co, ca = med(sys.argv[3]), med(sys.argv[4]), med(sys.argv[5])
print(f"model: {k} kernels, {c} eager checks close (CPU, float32, rows x width {sys.argv[7]})")
for name, m in (("plain recorded run", p), ("--eager, reference computed", co), ("--eager, reference cached", ca)):
    print(f"{name:29s} median wall {m[0]*1000:7.0f} ms ({m[0]/p[0]:.2f}x)  cpu {m[1]*1000:7.0f} ms ({m[1]/p[1]:.2f}x)"
          f"  over {m[2]} runs")
print(f"ratio --eager (computed) / plain: wall {co[0]/p[0]:.2f}x, cpu {co[1]/p[1]:.2f}x (target <= 1.5x)")
if "eager" in prof and "host_stats" in prof:
    e, h = prof["eager"], prof["host_stats"]
    print(f"runner, one cached run: comparing {e[0]/1000:.1f} ms ({e[1]:.0f} tensors), statistics pass "
          f"{h[0]/1000:.1f} ms ({h[1]:.0f} tensors): compare / stats {e[0]/h[0]:.2f}x (target <= 1x)")
PY
uptime
