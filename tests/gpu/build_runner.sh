#!/usr/bin/env bash
# build_runner.sh — builds aotidbg-runner (and libaotidbg_cudastats.so when nvcc
# is there) alone, for GPU boxes without our Debian libraries; the GPU scripts
# call it. On failure prints the log's tail and exits 1.
#   bash tests/gpu/build_runner.sh SRC BUILD_DIR LOG [BUILD_TYPE (Release)]
set -u
SRC=$1 BUILD=$2 LOG=$3 TYPE=${4:-Release}
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
if ! cmake -S "$SRC" -B "$BUILD" "${GEN[@]}" -DAOTIDBG_RUNNER_ONLY=ON -DCMAKE_BUILD_TYPE="$TYPE" > "$LOG" 2>&1 \
   || ! cmake --build "$BUILD" -j "$(nproc)" >> "$LOG" 2>&1; then
  tail -40 "$LOG"; echo "BUILD FAILED (runner; log: $LOG)"; exit 1
fi
