# lib.sh — the opening the H200 scripts share (sourced, not run). Each script sets ROOT first.
#   gpu_begin NAME     OUT (required), AOTIDBG and DEV (default cuda) set; $OUT/sessions, $OUT/logs;
#                      all output also in $OUT/logs/run.log; W a fresh /tmp/aotidbg-NAME.XXXXXX;
#                      step TEXT prints "== [Ns] TEXT" (seconds since gpu_begin)
#   gpu_environment    the GPU (DEV=cuda), torch and the front end's versions; exits 2 when the
#                      front end does not start (LD_LIBRARY_PATH for its carried libraries?)
#   gpu_runner         AOTIDBG_RUNNER: as given, else built here (tests/gpu/build_runner.sh;
#                      exits 2 on failure); AOTIDBG_DATA_DIR=$ROOT
gpu_begin() {
  OUT=${OUT:?set OUT to a results folder}
  AOTIDBG=${AOTIDBG:-aotidbg}
  DEV=${DEV:-cuda}   # DEV=cpu rehearses a script on a CPU box
  mkdir -p "$OUT/sessions" "$OUT/logs"
  exec > >(tee "$OUT/logs/run.log") 2>&1
  W=$(mktemp -d "/tmp/aotidbg-$1.XXXXXX")
  T0=$(date +%s)
}
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
gpu_environment() {
  step "environment"
  [ "$DEV" = cuda ] && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  python3 -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'numpy', numpy.__version__)"
  "$AOTIDBG" --version || { echo "the front end does not start"; exit 2; }
}
gpu_runner() {
  step "build the runner"
  if [ -n "${AOTIDBG_RUNNER:-}" ]; then
    echo "using AOTIDBG_RUNNER=$AOTIDBG_RUNNER"
  else
    bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$W/build" "$OUT/logs/build.log" || exit 2
    export AOTIDBG_RUNNER=$W/build/aotidbg-runner
  fi
  export AOTIDBG_DATA_DIR=$ROOT
}
