#!/usr/bin/env bash
# run_route_index_gpu.sh — the route's index (aotidbg-session(5) index:) on CUDA sessions: each
# case records a real CUDA run with the real front end and runner, then routes the saved file
# twice: as saved (read by its index) and with the index: key taken out (read whole). The two
# answers must be the same, byte for byte, with and without --package.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_route_index_gpu.sh
#
# Writes $OUT/summary.txt (one line a case: exit, events, places listed, route, same or not),
# $OUT/sessions/*.yaml, $OUT/logs/. Exit 0 when every case recorded an index and routed the
# same both ways, 1 otherwise, 2 when the runner or the front end is missing.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin route-index
gpu_environment
gpu_runner
step "compile the CUDA packages"
P=$W/pkgs
AOTIDBG_GPU_MODELS=mlp,gather,nan,embed timeout 420 python3 "$ROOT/tests/gpu/cuda_models.py" "$P" \
  > "$OUT/logs/compile.log" 2>&1 || tail -20 "$OUT/logs/compile.log"
: > "$OUT/summary.txt"
status=0
# case NAME PKG ARGS...: record, then route by the index and whole
case_() {
  local name=$1 pkg=$2; shift 2
  local s=$OUT/sessions/$name.yaml plain=$W/$name.plain.yaml
  ( cd "$P" && timeout 180 "$AOTIDBG" run "$pkg" "$@" --record "$s" ) > "$OUT/logs/$name.log" 2>&1
  local rc=$?
  if ! grep -q '^index:$' "$s" 2>/dev/null; then
    echo "$name: exit $rc, NO index: key in the session" | tee -a "$OUT/summary.txt"; status=1; return
  fi
  awk '/^index:$/ {skip = 3; next} skip > 0 {skip--; next} {print}' "$s" > "$plain"
  local events listed same=yes
  events=$(grep -c '^- {kind: ' "$s")
  listed=$(awk '/^  at: \[/ {print gsub(/,/, ",") + 1}' "$s")
  for extra in "" "--package $P/$pkg"; do
    # shellcheck disable=SC2086
    timeout 60 "$AOTIDBG" route "$s" $extra > "$W/by_index.txt" 2>&1
    local a=$?
    # shellcheck disable=SC2086
    timeout 60 "$AOTIDBG" route "$plain" $extra > "$W/whole.txt" 2>&1
    local b=$?
    sed -i "s#$plain#$s#g" "$W/whole.txt"   # a message may name the file
    if [ $a != $b ] || ! cmp -s "$W/by_index.txt" "$W/whole.txt"; then
      same=NO; status=1
      diff "$W/by_index.txt" "$W/whole.txt" > "$OUT/logs/$name.route.diff"
    fi
  done
  cp "$W/by_index.txt" "$OUT/logs/$name.route.txt"
  echo "$name: exit $rc, $events events, $listed listed, $(head -1 "$W/by_index.txt"), same both ways: $same" \
    | tee -a "$OUT/summary.txt"
}
step "cases"
V="--values 64"
case_ cuda_mlp cuda_mlp.pt2 --inputs cuda_mlp.ok.inputs.yaml $V
case_ cuda_nan_hunt cuda_nan.pt2 --inputs cuda_nan.ok.inputs.yaml --break-on nan --values 256
case_ cuda_oob_blocking cuda_gather.pt2 --inputs cuda_gather.empty.inputs.yaml --blocking --force $V
case_ cuda_oob_async cuda_gather.pt2 --inputs cuda_gather.empty.inputs.yaml --force $V
case_ cuda_ima_blocking cuda_gather_noassert.pt2 --inputs cuda_gather_noassert.far.inputs.yaml --blocking $V
case_ cuda_embed_oob cuda_embed.pt2 --inputs cuda_embed.bad.inputs.yaml --blocking $V
case_ cuda_mlp_batch1_forced cuda_mlp.pt2 --inputs cuda_mlp.batch1.inputs.yaml --deterministic --force $V
step "done (status $status)"
rm -rf "$W"
exit $status
