#!/usr/bin/env bash
# run_ranks_live_gpu.sh — live `aotidbg PKG --ranks 2` on two GPUs (nvidia-h200-x2), driven
# headless: one run service per rank in one UI, NCCL through c10d's C++ API, rank K on cuda:K.
#   1. lockstep: each `s` moves both ranks to the same next kernel (the ranks strip), `c` runs
#      both to the end; both sessions end complete, every event with its rank;
#   2. a rank whose index input is out of range fails before the collective; stepping on, the
#      strip shows rank 0 waiting in all_reduce for rank 1;
#   3. --break-on kernel=..._wait_tensor holds both ranks before their wait_tensor;
#   4. `replay --dump` of the two rank files prints them in rank order, side by side.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_ranks_live_gpu.sh
#   DEV=cpu rehearses it on a CPU box (gloo, no GPU).
# AOTIDBG is the front end built on the CPU box and carried (DESIGN.md section 7); the
# runner is built here. Writes under $OUT: summary.txt (PASS/FAIL lines), sessions/, logs/.
# Exit 0 when every check passed, 1 when one failed, 2 when the setup failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin ranks-live
gpu_environment
gpu_runner
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
FAILS=0
check() { if eval "$2"; then echo "PASS $1" | tee -a "$SUMMARY"; else echo "FAIL $1" | tee -a "$SUMMARY"; FAILS=$((FAILS + 1)); fi; }
BACKEND=nccl; [ "$DEV" = cpu ] && BACKEND=gloo
if [ "$DEV" = cuda ]; then
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

for r in 0 1; do
  for kind in idx bad; do
    printf 'inputs:\n  - {shape: [4, 8], dtype: float32, device: %s, fill: file, file: %s}\n  - {shape: [4], dtype: int64, device: %s, fill: file, file: %s}\n' \
      "$DEV" "$PKG.x$r.npy" "$DEV" "$PKG.$kind$r.npy" > "$W/$kind$r.yaml"
  done
done
WAIT=aoti_torch_${DEV%%:*}__c10d_functional_wait_tensor
[ "$DEV" = cpu ] || WAIT=aoti_torch_cuda__c10d_functional_wait_tensor

# live NAME SPEC1 KEYS EXTRA...: the live UI headless on 2 ranks, frames in logs/NAME.frames; rc
live() {
  local name=$1 spec1=$2 keys=$3; shift 3
  "$AOTIDBG" "$PKG" --ranks 2 --device "$DEV" --inputs "$W/idx0.yaml,$W/$spec1.yaml" "$@" \
    --record "$OUT/sessions/$name.yaml" --headless 200x40 --keys "$keys" > "$OUT/logs/$name.frames" 2> "$OUT/logs/$name.log"
  rc=$?
  cat "$OUT/logs/$name.log"
  grep -E '^(=== |[> ] rank [0-9])' "$OUT/logs/$name.frames"
}
# strip.py FRAMES: per frame, each rank's strip line (python, for the checks below)
cat > "$W/strip.py" <<'PY'
import re, sys
frames, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("=== "):
        cur = [line.strip()[4:-4], {}]
        frames.append(cur)
    elif cur is not None:
        m = re.match(r"^[> ] rank (\d+) +(.*)$", line.rstrip("\n"))
        if m:
            cur[1][int(m.group(1))] = m.group(2)
def at(line):
    m = re.search(r" at #(\d+) (\S+)", line)
    return m and (m.group(1), m.group(2))
what = sys.argv[2]
if what == "lockstep":   # every s frame: both ranks stopped at the same kernel, each a new one
    seen = []
    for label, ranks in frames:
        if label != "s":
            continue
        a, b = at(ranks.get(0, "")), at(ranks.get(1, ""))
        print(label, a, b)
        if not a or a != b or a in seen:
            sys.exit(1)
        seen.append(a)
    last = frames[-1][1]
    sys.exit(0 if len(seen) >= 4 and all(v.startswith("finished") for v in last.values()) and len(last) == 2 else 1)
if what == "waiting":   # some frame: rank 0 waits in all_reduce for rank 1
    sys.exit(0 if any("waiting for rank 1 in all_reduce" in r.get(0, "") for _, r in frames) else 1)
if what == "held":      # the last frame: both stopped before the wait_tensor
    last = frames[-1][1]
    sys.exit(0 if all(re.match(r"stopped +at #\d+ " + sys.argv[3], last.get(k, "")) for k in (0, 1)) else 1)
PY

step "live lockstep: s s s s s, then c"
live step idx1 "s s s s s c"
check "live --ranks 2 ran to the end (exit 0)" "[ $rc = 0 ]"
check "each s moved both ranks to the same next kernel; c finished both" "python3 '$W/strip.py' '$OUT/logs/step.frames' lockstep"
check "both sessions complete, every event with its rank" "python3 -c \"
import yaml, sys
for r in (0, 1):
    s = yaml.safe_load(open('$OUT/sessions/step.rank%d.yaml' % r))
    assert s['rank'] == r and s['end_state'] == 'complete' and all(e.get('rank') == r for e in s['events']), r
\""

step "live: rank 1 fails before the collective, stepping on"
live wait bad1 "s s s s s s s s"
check "the strip shows rank 0 waiting in all_reduce for rank 1" "python3 '$W/strip.py' '$OUT/logs/wait.frames' waiting"

step "live: --break-on kernel=$WAIT holds both"
live held idx1 "c" --break-on "kernel=$WAIT"
check "both ranks stopped before $WAIT" "python3 '$W/strip.py' '$OUT/logs/held.frames' held '$WAIT'"

step "replay --dump of the two rank files (given in reverse)"
"$AOTIDBG" replay "$OUT/sessions/wait.rank1.yaml" "$OUT/sessions/wait.rank0.yaml" --dump > "$OUT/logs/dump.txt" 2>&1
rc=$?
grep -E '^(=== |rank [01]:)' "$OUT/logs/dump.txt"
check "the dump: rank 0 then rank 1, side by side, rank 0 waited for rank 1" "[ $rc = 0 ] && grep -q '=== ranks side by side ===' '$OUT/logs/dump.txt' && grep -q '^rank 0: .*waiting in all_reduce .* for rank 1' '$OUT/logs/dump.txt'"
step "done: $FAILS failure(s)"
[ $FAILS = 0 ]
