#!/usr/bin/env bash
# run_all.sh [SECONDS] — builds every tests/fuzz/fuzz_*.c with libFuzzer + ASan +
# UBSan and runs each for SECONDS (default 60) on a copy of its seed corpus
# (tests/fuzz/corpus/<name>/; the committed seeds are never written).
# The product code is compiled once, instrumented, by CMake into $FUZZ_BUILD
# (default build-fuzz) as static libraries; each target links against them.
# Prints one row per target: executions, crashes (crash-/leak-/timeout-/oom-
# artifacts, kept in $FUZZ_BUILD/artifacts/<name>/). Exit 1 if any target
# crashed or failed to build. JOBS targets run at once (default: nproc).
# tests/run.sh runs it for a few seconds a target (the fuzz smoke), so that
# every target keeps building and running.
set -u
SECONDS_EACH=${1:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${FUZZ_BUILD:-$ROOT/build-fuzz}
JOBS=${JOBS:-$(nproc)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cd "$ROOT" || exit 2

command -v clang >/dev/null ||
  { echo "run_all: clang is not installed (.ci/setup.sh installs clang and libclang-rt-14-dev, its libFuzzer)"; exit 1; }
mkdir -p "$B"
cmake -S . -B "$B" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-g -O1 -fsanitize=fuzzer-no-link $SAN" >"$B/cmake.log" 2>&1 &&
  cmake --build "$B" --target aotidbg_tui aotidbg_zipread >>"$B/cmake.log" 2>&1 ||
  { echo "run_all: building the instrumented libraries failed, see $B/cmake.log"; exit 1; }
# every layer library built, in one link group (no order to keep up to date)
LIBS="$B/tui/libaotidbg_tui.a -Wl,--start-group $(ls "$B"/core/*/libaotidbg_*.a | tr '\n' ' ') -Wl,--end-group"
INC="$(for d in core/*/; do printf -- '-I%s ' "${d%/}"; done)"
# every system library a layer links: the pkg_check_modules of the CMake files (read from them,
# so a library added there cannot be missing here), with zlib (find_package)
PKGS="$(sed -n 's/.*pkg_check_modules([A-Z0-9_]* REQUIRED IMPORTED_TARGET \([^ )]*\).*/\1/p' \
  core/CMakeLists.txt tui/CMakeLists.txt core/*/CMakeLists.txt | sort -u | tr '\n' ' ')"
SYS="$(pkg-config --libs $PKGS zlib) -lm -ldl -lpthread"
CFL="$(pkg-config --cflags libcjson ncursesw)"

status=0
targets=()
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c); name=${name#fuzz_}
  if ! clang -std=gnu11 -g -O1 -fsanitize=fuzzer $SAN $INC -Itui $CFL -DAOTIDBG_SOURCE_DIR="\"$ROOT\"" \
       "$src" $LIBS $SYS -o "$B/fuzz_$name" 2>"$B/fuzz_$name.build.log"; then
    echo "run_all: fuzz_$name does not build, see $B/fuzz_$name.build.log"; status=1; continue
  fi
  targets+=("$name")
done

run_one() {
  local name=$1 work="$B/work/$1" art="$B/artifacts/$1/" extra=()
  rm -rf "$work"; mkdir -p "$work" "$art"
  [ -f "tests/fuzz/$name.dict" ] && extra+=(-dict="tests/fuzz/$name.dict")
  # libFuzzer stops at its first crash: a target reports 0 or 1
  "$B/fuzz_$name" "${extra[@]}" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=20 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$art" "$work" "tests/fuzz/corpus/$name" \
    >"$B/fuzz_$name.log" 2>&1
  echo $? >"$B/fuzz_$name.rc"
}
rm -rf "$B/artifacts"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

printf '%-10s %12s %8s\n' target executions crashes
for t in "${targets[@]}"; do
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$B/fuzz_$t.log" | awk '{s+=$2} END {print s+0}')
  crashes=$(find "$B/artifacts/$t" -type f | wc -l)
  rc=$(cat "$B/fuzz_$t.rc")
  [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ] && status=1
  printf '%-10s %12s %8s%s\n' "$t" "$execs" "$crashes" "$([ "$rc" -ne 0 ] && echo "  (exit $rc, see $B/fuzz_$t.log)")"
done
exit $status
