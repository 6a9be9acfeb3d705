#!/usr/bin/env bash
# Builds aotidbg and runs the whole test suite:
#   1. ctest's fast labels (unit, screens, fuzz-seeds, structure) and the
#      integration tests (pytest: real AOTI packages compiled on CPU, run
#      through the real runner and libtorch), in one pytest run with a worker
#      per core when pytest-xdist is installed (AOTIDBG_TEST_WORKERS=N to choose)
#      (configured with -DAOTIDBG_CTEST_INTEGRATION=ON, `ctest -L integration`
#      runs the same files, one process each: slower, as every process pays
#      torch's first compile);
#   2. the fuzz smoke: every tests/fuzz target built with clang's libFuzzer
#      (tests/fuzz/run_all.sh) and run AOTIDBG_FUZZ_SECONDS (default 3) s on its
#      seeds, so that no target stops building or running unseen (needs clang
#      and libclang-rt-14-dev, as .ci/setup.sh installs; AOTIDBG_NO_FUZZ=1 skips);
#   3. the same again under AddressSanitizer + UBSan, integration without the
#      slow tests (skip with AOTIDBG_NO_SANITIZE=1).
# Exit status is nonzero when any test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=$(nproc 2>/dev/null || echo 2)
status=0
# Integration tests spend most of their time waiting on runners, so two pytest
# workers per core pair pay off; each file stays in one worker (module fixtures
# share compiled models). AOTIDBG_TEST_WORKERS=0 runs them in one process.
WORKERS=${AOTIDBG_TEST_WORKERS:-$JOBS}
PARALLEL=()
if [ "$WORKERS" != 0 ] && python3 -c "import xdist" 2>/dev/null; then
  PARALLEL=(-n "$WORKERS" --dist loadfile)
fi

build() {  # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j "$JOBS" 2>&1 | tail -n 3
  return "${PIPESTATUS[0]}"
}

echo "== build (RelWithDebInfo)"
build build || exit 1
echo "== unit, screen, fuzz-seed and structure tests (ctest)"
(cd build && ctest --output-on-failure -j "$JOBS" -LE integration) || status=1
echo "== integration tests (real AOTI packages on CPU)"
AOTIDBG_BUILD_DIR=$ROOT/build python3 -m pytest -q -p no:cacheprovider "${PARALLEL[@]}" tests/integration || status=1

if [ "${AOTIDBG_NO_FUZZ:-0}" != 1 ]; then
  echo "== fuzz smoke: every fuzz target, libFuzzer + ASan + UBSan, ${AOTIDBG_FUZZ_SECONDS:-3} s each (tests/fuzz/run_all.sh)"
  FUZZ_BUILD=$ROOT/build-fuzz-smoke JOBS=$JOBS tests/fuzz/run_all.sh "${AOTIDBG_FUZZ_SECONDS:-3}" || status=1
fi

if [ "${AOTIDBG_NO_SANITIZE:-0}" != 1 ]; then
  echo "== AddressSanitizer + UBSan build"
  build build-asan -DAOTIDBG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug || exit 1
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  echo "== unit, screen, fuzz-seed and structure tests under ASan+UBSan"
  (cd build-asan && ctest --output-on-failure -j "$JOBS" -LE integration) || status=1
  echo "== integration tests under ASan+UBSan (front end; the runner hosts libtorch and is not instrumented)"
  AOTIDBG_BUILD_DIR=$ROOT/build-asan AOTIDBG_RUNNER=$ROOT/build/aotidbg-runner \
    python3 -m pytest -q -p no:cacheprovider "${PARALLEL[@]}" -m "not slow" tests/integration || status=1
fi
exit $status
