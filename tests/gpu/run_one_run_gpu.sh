#!/usr/bin/env bash
# run_one_run_gpu.sh — issue 19 on the H200: `aotidbg run` and the live UI are one
# run (core/run/run_service.c), also on CUDA:
#   1. a CUDA package built with the printer OFF: run and live (headless, `--keys c`)
#      choose the same mode (interpose), record the same kernels in the same order,
#      and write the same header keys;
#   2. the same through --reinstrument (live takes every run option);
#   3. the runner killed with SIGKILL in the middle of a long CUDA run: end_state
#      says "signal 9 (SIGKILL)", `replay --dump` and the replay status bar show it.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_one_run_gpu.sh
#
# AOTIDBG is the front end built on the CPU box and carried (cmake --install into a
# folder, with libyaml/libzip/libcjson/libelf beside it: DESIGN.md section 7); the runner is
# built here (tests/gpu/build_runner.sh). Writes under $OUT: summary.txt (PASS/FAIL
# lines), *.yaml sessions, *.log, screens. Exit 0 when every check passed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:?set OUT to a folder for the results}
AOTIDBG=${AOTIDBG:-aotidbg}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/aotidbg-onerun.XXXXXX)
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
FAILS=0
check() { if eval "$2"; then say "PASS $1"; else say "FAIL $1"; FAILS=$((FAILS + 1)); fi; }

say "== $(date -u) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >> "$SUMMARY" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >> "$SUMMARY" 2>&1
"$AOTIDBG" --version >> "$SUMMARY" 2>&1 || { say "FAIL: the front end does not start ($AOTIDBG)"; exit 1; }

bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$W/build" "$OUT/build.log" RelWithDebInfo || { say "FAIL: runner build"; exit 1; }
export AOTIDBG_RUNNER=$W/build/aotidbg-runner AOTIDBG_DATA_DIR=$ROOT AOTIDBG_CACHE_DIR=$W/cache

cat > "$W/make_pkgs.py" <<'EOF'
import os, sys, torch
out = sys.argv[1]
class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 64)
    def forward(self, x):
        h = torch.relu(self.fc(x))
        return torch.tanh(h).mean(0), (h * 2.0).sum(-1)
class Long(torch.nn.Module):          # 120 fp32 8192^3 matmuls (~20 ms each on an H200): a run of seconds
    def forward(self, x, w):
        for i in range(120):
            x = torch.tanh(x @ w + float(i) * 1e-6)
        return x
torch.manual_seed(0)
def build(m, args, name, printer):
    ep = torch.export.export(m.eval().cuda(), args)
    return torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, name),
        inductor_configs={"aot_inductor.debug_intermediate_value_printer": printer})
build(Small(), (torch.randn(32, 64, device="cuda"),), "shipped_cuda.pt2", "0")
build(Long(), (torch.randn(8192, 8192, device="cuda"), torch.randn(8192, 8192, device="cuda") / 90), "long_cuda.pt2", "1")
EOF
python3 "$W/make_pkgs.py" "$W" > "$OUT/compile.log" 2>&1 || { say "FAIL: compiling the packages (compile.log)"; tail -20 "$OUT/compile.log"; exit 1; }
printf 'inputs:\n  - {shape: [32, 64], dtype: float32, device: cuda, fill: randn, seed: 0}\n' > "$W/small.yaml"
printf 'inputs:\n  - {shape: [8192, 8192], dtype: float32, device: cuda, fill: randn, seed: 0}\n  - {shape: [8192, 8192], dtype: float32, device: cuda, fill: randn, seed: 1}\n' > "$W/long.yaml"
cd "$W"

# the comparison: mode, kernel names, header keys of two sessions
cat > "$W/same.py" <<'EOF'
import sys, yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
ka = [e["name"] for e in a["events"] if e.get("kind") == "kernel"]
kb = [e["name"] for e in b["events"] if e.get("kind") == "kernel"]
keys = lambda s: ({k for k in s if k != "events"}, set(s.get("package") or {}))
print("modes", a.get("mode"), b.get("mode"), "kernels", len(ka), len(kb), "end", a.get("end_state"), b.get("end_state"))
ok = a.get("mode") == b.get("mode") and ka == kb and len(ka) > 0 and keys(a) == keys(b)
if keys(a) != keys(b):
    print("header keys differ:", keys(a)[0] ^ keys(b)[0], keys(a)[1] ^ keys(b)[1])
sys.exit(0 if ok else 1)
EOF

for mode in "" "--reinstrument"; do
    tag=${mode:+_reinstrument}
    timeout 300 "$AOTIDBG" run shipped_cuda.pt2 --inputs small.yaml --values 4096 $mode --record "run$tag.yaml" \
        > "$OUT/run$tag.log" 2>&1
    echo "run$tag exit $?" >> "$SUMMARY"
    timeout 300 "$AOTIDBG" shipped_cuda.pt2 --inputs small.yaml --record "live$tag.yaml" $mode --headless 160x45 \
        --keys c --dump-screen > "$OUT/live$tag.screen" 2> "$OUT/live$tag.log"
    echo "live$tag exit $?" >> "$SUMMARY"
    python3 same.py "run$tag.yaml" "live$tag.yaml" >> "$SUMMARY" 2>&1
    check "run and live: same mode, kernels and header keys${mode:+ ($mode)}" "python3 same.py run$tag.yaml live$tag.yaml >/dev/null"
    cp "run$tag.yaml" "live$tag.yaml" "$OUT/" 2>/dev/null
done
check "printer-less CUDA package: mode interpose" "grep -q '^mode: interpose' run.yaml"
check "--reinstrument in live mode: mode reinstrument" "grep -q '^mode: reinstrument' live_reinstrument.yaml"

# SIGKILL of the runner in the middle of a long blocking run
timeout 600 "$AOTIDBG" run long_cuda.pt2 --inputs long.yaml --blocking --timeout 0 --record killed.yaml \
    > "$OUT/killed.log" 2>&1 &
FRONT=$!
for _ in $(seq 1 600); do
    grep -q 'kind: kernel' killed.yaml 2>/dev/null && break
    sleep 0.1
done
sleep 0.5
# $! is timeout's pid: the runner is a descendant of the front end under it
RUNNER_PID=$(for c in $(cat /proc/$FRONT/task/*/children 2>/dev/null); do
    cat /proc/$c/task/*/children 2>/dev/null; done | tr ' ' '\n' |
    while read -r p; do [ -n "$p" ] && [ "$(cat /proc/$p/comm 2>/dev/null)" = aotidbg-runner ] && echo "$p"; done | head -1)
say "killing runner pid ${RUNNER_PID:-none} of front end $FRONT"
[ -n "$RUNNER_PID" ] && kill -9 "$RUNNER_PID"
wait $FRONT
echo "killed run exit $?" >> "$SUMMARY"
cp killed.yaml "$OUT/" 2>/dev/null
check "SIGKILL: end_state says so" "grep -q '^end_state:.*signal 9 (SIGKILL)' killed.yaml"
"$AOTIDBG" replay killed.yaml --dump > "$OUT/killed.dump" 2>&1
check "SIGKILL: replay --dump shows it" "grep -q 'end_state: signal 9 (SIGKILL)' $OUT/killed.dump"
"$AOTIDBG" replay killed.yaml --headless 160x45 --dump-screen > "$OUT/killed.screen" 2>&1
check "SIGKILL: the replay status bar and the kernel list show it" \
    "tail -3 $OUT/killed.screen | grep -q '| signal 9 (SIGKILL) |' && grep -q 'runner died: signal 9 (SIGKILL)' $OUT/killed.screen"

say "== $FAILS failed"
[ "$FAILS" = 0 ]
