#!/usr/bin/env bash
# run_ranks_gpu.sh — `aotidbg run --ranks 2` on two GPUs (nvidia-h200-x2): one runner per
# rank, NCCL through c10d's C++ API, rank K on cuda:K.
#   1. the runner is built with NCCL (build.log says "NCCL process groups");
#   2. a CUDA package with a functional all_reduce (compiled in a one-rank NCCL world)
#      runs on 2 ranks: both end complete, the collective is a kernel event on each
#      rank (collective, group, participants), every event carries its rank;
#   3. every rank's outputs equal torch.distributed's on NCCL (2 real processes, the
#      same module and inputs), within 1e-5;
#   4. a rank whose index input is out of range fails before the collective: the other
#      rank is named as waiting in all_reduce for it, within --timeout 60.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_ranks_gpu.sh
#   DEV=cpu rehearses it on a CPU box (gloo, no GPU; step 1 is skipped).
# AOTIDBG is the front end built on the CPU box and carried (DESIGN.md section 7); the
# runner is built here. Writes under $OUT: summary.txt (PASS/FAIL lines), sessions/, logs/.
# Exit 0 when every check passed, 1 when one failed, 2 when the setup failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin ranks
gpu_environment
gpu_runner
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
FAILS=0
check() { if eval "$2"; then echo "PASS $1" | tee -a "$SUMMARY"; else echo "FAIL $1" | tee -a "$SUMMARY"; FAILS=$((FAILS + 1)); fi; }
BACKEND=nccl; [ "$DEV" = cpu ] && BACKEND=gloo
if [ "$DEV" = cuda ]; then
  check "runner built with NCCL" "grep -q 'NCCL process groups' '$OUT/logs/build.log' 2>/dev/null || [ -n \"\${AOTIDBG_RUNNER_HAS_NCCL:-}\" ]"
  n=$(python3 -c "import torch; print(torch.cuda.device_count())")
  [ "$n" -ge 2 ] || { echo "needs 2 GPUs, this box has $n"; exit 2; }
fi

step "compile the package in a one-rank $BACKEND world"
cp "$ROOT/tests/gpu/ranks_model.py" "$W/model.py"
PKG=$W/ranks.pt2
python3 "$W/model.py" compile "$BACKEND" "$DEV" "$PKG" > "$OUT/logs/compile.log" 2>&1 || { tail -20 "$OUT/logs/compile.log"; echo "compile failed"; exit 2; }

for r in 0 1; do
  for kind in idx bad; do
    printf 'inputs:\n  - {shape: [4, 8], dtype: float32, device: %s, fill: file, file: %s}\n  - {shape: [4], dtype: int64, device: %s, fill: file, file: %s}\n' \
      "$DEV" "$PKG.x$r.npy" "$DEV" "$PKG.$kind$r.npy" > "$W/$kind$r.yaml"
  done
done

# two_ranks NAME SPEC1 EXTRA...: `aotidbg run --ranks 2` into sessions/NAME.rankK.yaml, log logs/NAME.log; rc
two_ranks() {
  local name=$1 spec1=$2; shift 2
  "$AOTIDBG" run --ranks 2 "$PKG" --device "$DEV" --inputs "$W/idx0.yaml,$W/$spec1.yaml" "$@" \
    --record "$OUT/sessions/$name.yaml" > "$OUT/logs/$name.log" 2>&1
  rc=$?
  cat "$OUT/logs/$name.log"
}

step "aotidbg run --ranks 2 (good inputs)"
two_ranks good idx1 --values 64
check "two ranks ran (exit 0)" "[ $rc = 0 ]"

step "torch.distributed on $BACKEND, 2 processes"
PORT=$((29000 + RANDOM % 1000))
PIDS=()
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT python3 "$W/model.py" eager "$BACKEND" "$DEV" "$W/eager%d.npy" \
    > "$OUT/logs/eager$r.log" 2>&1 &
  PIDS+=($!)
done
wait "${PIDS[@]}"   # not a bare wait: that also waits for gpu_begin's tee
python3 - "$OUT/sessions/good.yaml" "$W/eager%d.npy" > "$OUT/logs/compare.log" 2>&1 <<'PY'
import sys, yaml, numpy as np
base, eager = sys.argv[1][:-5], sys.argv[2]
bad = 0
for r in range(2):
    s = yaml.safe_load(open(f"{base}.rank{r}.yaml"))
    ok_rank = s.get("rank") == r and all(e.get("rank") == r for e in s["events"])
    coll = [e for e in s["events"] if e["kind"] == "kernel" and e.get("collective")]
    ok_coll = [e["collective"] for e in coll] == ["all_reduce", "wait_tensor"] and \
        all(e["group"] == "0" and e["participants"] == "0,1" and e["status"] == "ok" for e in coll)
    out = [e for e in s["events"] if e["kind"] == "output"][0]["tensors"]
    got = np.concatenate([np.array(t["values"], dtype=np.float64) for t in out])
    want = np.load(eager % r)
    ok_val = got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5)
    print(f"rank {r}: rank keys {ok_rank}, collective events {ok_coll}, outputs equal torch {ok_val} "
          f"(max abs diff {np.abs(got - want).max() if got.shape == want.shape else 'shape'})")
    bad += not (ok_rank and ok_coll and ok_val)
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$OUT/logs/compare.log"
check "every rank: rank keys, collective kernel events, outputs equal torch.distributed" "[ $rc = 0 ]"

step "rank 1 fails before the collective"
two_ranks bad bad1 --timeout 60
check "a failing rank: exit 1" "[ $rc = 1 ]"
check "rank 0 named as waiting in all_reduce for rank 1" "grep -q 'rank 0 was in the collective all_reduce.*waiting for rank 1' '$OUT/logs/bad.log'"
check "both ranks' sessions kept" "[ -s '$OUT/sessions/bad.rank0.yaml' ] && [ -s '$OUT/sessions/bad.rank1.yaml' ]"
step "done: $FAILS failure(s)"
[ $FAILS = 0 ]
