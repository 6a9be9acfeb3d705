#!/usr/bin/env bash
# record_all.sh — the GPU recording run (H200, torch 2.11): builds the runner there,
# compiles the CUDA packages (cuda_models.py), and records every CUDA session the
# fixtures and walkthroughs need with the real front end, plus the checklist cases.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg SRC=/path/to/source bash tests/gpu/record_all.sh
#
# AOTIDBG is a front end built elsewhere (the GPU image lacks ncurses/libyaml headers);
# SRC is the source tree to build the runner from (default: this checkout).
# Everything lands in $OUT/results.tgz (sessions/, logs/, routes/) and $OUT/summary.txt.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${SRC:-$ROOT}
OUT=${OUT:-$(mktemp -d)}
W=$(mktemp -d /tmp/aotidbg-gpu.XXXXXX)
mkdir -p "$W/sessions" "$W/logs" "$W/routes" "$W/pkgs"
exec > >(tee -a "$W/logs/record_all.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
finish() {
  tar czf "$OUT/results.tgz" -C "$W" sessions logs routes pkgs/compile_times.tsv 2>/dev/null
  cp "$W/logs/record_all.log" "$OUT/record_all.log"
}
trap finish EXIT

step "environment"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"

step "build the runner (runner only, Release)"
bash "$SRC/tests/gpu/build_runner.sh" "$SRC" "$W/build" "$W/logs/build.log" || exit 1
export AOTIDBG_RUNNER=$W/build/aotidbg-runner AOTIDBG_DATA_DIR=$SRC
ls -la "$W/build"/aotidbg-runner "$W/build"/libaotidbg_cudastats.so 2>&1
AOTIDBG=${AOTIDBG:-aotidbg}
"$AOTIDBG" --version || { echo "front end does not start"; exit 1; }

step "compile the CUDA packages"
[ "${ONLY:-}" = oob ] && export AOTIDBG_GPU_MODELS=gather
[ "${ONLY:-}" = embed ] && export AOTIDBG_GPU_MODELS=embed
timeout 420 python3 "$SRC/tests/gpu/cuda_models.py" "$W/pkgs" > "$W/logs/compile.log" 2>&1 || { tail -30 "$W/logs/compile.log"; }
cat "$W/pkgs/compile_times.tsv" 2>/dev/null
P=$W/pkgs
rec() {  # rec NAME TIMEOUT ARGS... : aotidbg run ... --record sessions/NAME.yaml
  local name=$1 t=$2; shift 2
  ( cd "$P" && timeout "$t" "$AOTIDBG" run "$@" --record "$W/sessions/$name.yaml" ) > "$W/logs/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(grep -c 'kind: kernel' "$W/sessions/$name.yaml" 2>/dev/null) kernel events"
  tail -3 "$W/logs/$name.log" | sed 's/^/    /'
}
chk() {  # chk NAME ARGS... : aotidbg check ... --format yaml
  local name=$1; shift
  ( cd "$P" && timeout 60 "$AOTIDBG" check "$@" --format yaml ) > "$W/sessions/check_$name.yaml" 2> "$W/logs/check_$name.err"
  echo "check $name: exit $?; FAIL rows: $(grep -c 'status: FAIL' "$W/sessions/check_$name.yaml")"
}

step "sessions"
V="--values 64"
if [ "${ONLY:-}" != oob ]; then
rec cuda_mlp 120 cuda_mlp.pt2 --inputs cuda_mlp.ok.inputs.yaml $V
rec cuda_mlp_blocking 120 cuda_mlp.pt2 --inputs cuda_mlp.ok.inputs.yaml --blocking --deterministic $V
fi
# issue 17: the embedding fed id 137; blocking, so the statistics taken before the launch (with the
# positions of min and max) are in the session when the device-side assert kills the context
rec cuda_oob_embedding_blocking 120 cuda_embed.pt2 --inputs cuda_embed.bad.inputs.yaml --blocking $V
timeout 30 "$AOTIDBG" route "$W/sessions/cuda_oob_embedding_blocking.yaml" --package "$P/cuda_embed.pt2" \
  --format yaml > "$W/routes/cuda_oob_embedding_blocking.yaml" 2>&1
echo "route cuda_oob_embedding_blocking: $(grep -E '^route:|index_tensor|index_at|index_value|bound_of|element_error' \
  "$W/routes/cuda_oob_embedding_blocking.yaml" | tr '\n' ' ')"
[ "${ONLY:-}" = embed ] && exit 0
if [ "${ONLY:-}" != embed ]; then
rec cuda_oob_gated 60 cuda_gather.pt2 --inputs cuda_gather.empty.inputs.yaml --blocking
# The checklist refuses the size-0 dim (export min 2); --force shows the crash it prevents.
rec cuda_oob_blocking 120 cuda_gather.pt2 --inputs cuda_gather.empty.inputs.yaml --blocking --force $V
rec cuda_oob_async 120 cuda_gather.pt2 --inputs cuda_gather.empty.inputs.yaml --force $V
rec cuda_ima_async 120 cuda_gather_noassert.pt2 --inputs cuda_gather_noassert.far.inputs.yaml $V
rec cuda_ima_blocking 120 cuda_gather_noassert.pt2 --inputs cuda_gather_noassert.far.inputs.yaml --blocking $V
rec cuda_nan_hunt 120 cuda_nan.pt2 --inputs cuda_nan.ok.inputs.yaml --break-on nan --values 256
rec cuda_mlp_on_cpu 60 cuda_mlp.pt2 --inputs cuda_mlp.oncpu.inputs.yaml --device cpu
rec cuda_mlp_on_cpu_forced 60 cuda_mlp.pt2 --inputs cuda_mlp.oncpu.inputs.yaml --device cpu --force
rec cpu_mlp_on_cuda 60 cpu_mlp.pt2 --inputs cpu_mlp.oncuda.inputs.yaml --device cuda
rec cpu_mlp_on_cuda_forced 60 cpu_mlp.pt2 --inputs cpu_mlp.oncuda.inputs.yaml --device cuda --force
rec cuda_mlp_wrong_gpu 60 cuda_mlp.pt2 --inputs cuda_mlp.wrongidx.inputs.yaml --device cuda:1
rec cuda_mlp_batch1 60 cuda_mlp.pt2 --inputs cuda_mlp.batch1.inputs.yaml --deterministic
rec cuda_mlp_batch1_forced 60 cuda_mlp.pt2 --inputs cuda_mlp.batch1.inputs.yaml --deterministic --force $V
rec cuda_oob_interpose 120 cuda_gather_noprinter.pt2 --inputs cuda_gather_noprinter.empty.inputs.yaml --blocking --force
rec cuda_oob_reinstrument 180 cuda_gather_noprinter.pt2 --inputs cuda_gather_noprinter.empty.inputs.yaml --blocking --reinstrument --force $V
fi

step "checklist"
chk cuda_on_cpu cuda_mlp.pt2 --inputs cuda_mlp.oncpu.inputs.yaml --device cpu
chk cpu_on_cuda cpu_mlp.pt2 --inputs cpu_mlp.oncuda.inputs.yaml --device cuda
chk wrong_gpu cuda_mlp.pt2 --inputs cuda_mlp.wrongidx.inputs.yaml --device cuda:1
chk batch1 cuda_mlp.pt2 --inputs cuda_mlp.batch1.inputs.yaml
chk ok cuda_mlp.pt2 --inputs cuda_mlp.ok.inputs.yaml

step "router on what the runs printed"
for n in cuda_oob_blocking cuda_oob_async cuda_ima_blocking cuda_oob_interpose; do
  pkg=cuda_gather.pt2; [ $n = cuda_ima_blocking ] && pkg=cuda_gather_noassert.pt2
  [ $n = cuda_oob_interpose ] && pkg=cuda_gather_noprinter.pt2
  timeout 30 "$AOTIDBG" route "$W/sessions/$n.yaml" --package "$P/$pkg" --format yaml > "$W/routes/$n.yaml" 2>&1
  echo "route $n: $(grep '^route:' "$W/routes/$n.yaml")"
done
cp "$P"/*.inputs.yaml "$W/sessions/" 2>/dev/null
for f in "$P"/*.pt2; do python3 - "$f" "$W/pkgs" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1]); name = os.path.basename(sys.argv[1])[:-4]
for i in z.infolist():
    if i.filename.endswith(".wrapper.cpp"):
        open(os.path.join(sys.argv[2], name + ".wrapper.cpp"), "wb").write(z.read(i))
PY
done
tar czf "$W/logs/wrappers.tgz" -C "$W/pkgs" $(cd "$W/pkgs" && ls *.wrapper.cpp) 2>/dev/null

if [ "${BENCH:-0}" = 1 ]; then
  step "hook cost benchmark"
  OUT=$W/logs/bench timeout 240 bash "$SRC/tests/bench/gpu_runner_bench.sh" > "$W/logs/runner_bench.log" 2>&1
  grep -E "µs|us/|plain|hooks" "$W/logs/runner_bench.log" | head -20
fi
step "done"
