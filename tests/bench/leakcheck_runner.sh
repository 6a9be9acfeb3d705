#!/usr/bin/env bash
# leakcheck_runner.sh BUILD_DIR PACKAGE.pt2 INPUTS.yaml [OUTDIR]
# Runs the runner under valgrind through a real `aotidbg run` (AOTIDBG_RUNNER
# points at a wrapper that execs valgrind on the real runner) and reports the
# definite leaks. libtorch keeps some allocations to process exit by design, so
# a leak counts as OURS only when a frame of its allocation stack is in our
# code (a frame in a core/**/*.c file); the others are listed as
# libtorch's and not counted. (Not LeakSanitizer: the runner ends with _exit,
# where LSan never checks; valgrind checks at exit_group.) Prints "definite leaks in our code: N (B bytes)";
# exit 0 when N is 0, 1 when not, 2 when the run itself failed. LEAKCHECK_ARGS
# adds options to `aotidbg run` (e.g. --force). The model must not use
# AVX-512: valgrind stops at those instructions (SIGILL).
set -u
B=${1:?build dir}; PKG=${2:?package}; SPEC=${3:?inputs spec}
OUT=${4:-$(mktemp -d /tmp/leakcheck.XXXXXX)}
mkdir -p "$OUT"
B=$(cd "$B" && pwd)
command -v valgrind >/dev/null || { echo "leakcheck: valgrind is not installed"; exit 2; }
REAL=${AOTIDBG_REAL_RUNNER:-$B/aotidbg-runner}
cat >"$OUT/valgrind-runner" <<WRAP
#!/bin/sh
exec valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
  --error-exitcode=9 --num-callers=40 --log-file="$OUT/valgrind.log" "$REAL" "\$@"
WRAP
chmod +x "$OUT/valgrind-runner"
start=$(date +%s)
AOTIDBG_RUNNER="$OUT/valgrind-runner" "$B/aotidbg" run "$PKG" --inputs "$SPEC" --timeout 0 ${LEAKCHECK_ARGS:-} \
  --record "$OUT/session.yaml" >"$OUT/run.log" 2>&1
rc=$?
echo "aotidbg run under valgrind: exit $rc in $(( $(date +%s) - start )) s (log $OUT/run.log)"
if [ $rc -ne 0 ]; then
  tail -5 "$OUT/run.log"; exit 2
fi
cp "$OUT/valgrind.log" "$OUT/leaks.log" 2>/dev/null || { echo "leakcheck: valgrind wrote no log"; exit 2; }
python3 - "$OUT/leaks.log" "$(cd "$(dirname "$0")/../.." && pwd)" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
# our sources, by the basename the tools print in a frame: "(runner_main.c:214)" or ".../core/x.c:12"
mine_files = {f for d, _, fs in os.walk(os.path.join(sys.argv[2], "core")) for f in fs if f.endswith(".c")}
ours, theirs = [], []
for rec in re.split(r"\n(?:==\d+== )?\n", text):
    m = re.search(r"([\d,]+) (?:\([\d,]+ direct, [\d,]+ indirect\) )?bytes in [\d,]+ blocks are definitely lost", rec)
    if not m:
        continue
    size = int(m.group(1).replace(",", ""))
    mine = any(os.path.basename(f) in mine_files for f in re.findall(r"([\w./-]+\.c):\d+", rec))
    (ours if mine else theirs).append((size, rec))
summ = re.search(r"definitely lost: ([\d,]+) bytes in ([\d,]+) blocks", text)
print("tool's summary:", summ.group(0) if summ else "no leak reported")
print(f"definite leaks in libtorch (not ours, not counted): {len(theirs)} ({sum(s for s, _ in theirs)} bytes)")
print(f"definite leaks in our code: {len(ours)} ({sum(s for s, _ in ours)} bytes)")
for _, rec in ours:
    print(rec)
sys.exit(1 if ours else 0)
PY
