#!/usr/bin/env bash
# run_check_gpu.sh — the device/shape checklist on a real GPU (issue 5, "On the H200").
#
# usage (from the repository root, on the GPU box):
#   OUT=/path/to/results [DEBS=build-h5-debs] bash tests/gpu/run_check_gpu.sh
# The H200 image has no libzip/libcjson/libelf/libyaml headers: when pkg-config
# does not find them, the Debian .deb files in $DEBS (fetched on a dev machine
# with `apt-get download libzip-dev libzip4 libcjson-dev libcjson1 libelf-dev
# libelf1 libyaml-dev libyaml-0-2`, carried as an ignored path) are unpacked
# with dpkg-deb -x (or python) into a private prefix. Builds `aotidbg-check` (cmd_check
# and the core modules it needs, no curses) with gcc, compiles with torch on
# CUDA: check2 (tests/models/model_check.py) for cuda and for cpu, and runs:
#   a  CUDA package, right inputs, --device cuda      -> exit 0, CUDA/compute capability PASS
#   b  CUDA package asked to load on cpu               -> FAIL device.compile-vs-load
#   c  CUDA package, input 1 on cuda:1, load cuda:0    -> FAIL input.1.device
#   d  CUDA package, --device cuda:<ngpu>              -> FAIL device.index
#   e  CPU package asked to load on cuda               -> FAIL device.compile-vs-load
# Each case's YAML goes to $OUT/check_<case>.yaml, the loadKernel lines of
# the real CUDA wrapper.cpp to $OUT/loadkernel_lines.txt, and the verdicts to
# $OUT/summary.txt. Exit 0 when every case gives exactly its expected FAIL rows
# (and no crash), 1 otherwise, 2 when the build failed.
# DRY=1 runs the CPU-only part (case e is skipped without CUDA) for a dry run.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:?set OUT to a results folder}
DEBS=${DEBS:-$ROOT/build-h5-debs}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/check_gpu.XXXXXX)
exec > >(tee "$OUT/run.log") 2>&1
echo "== run_check_gpu.sh $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi -L 2>/dev/null | tee "$OUT/nvidia-smi.txt" || echo "(no nvidia-smi)"

# ---- dependencies ----
CFLAGS_DEPS="" LIBS_DEPS=""
if [ "${USE_DEBS:-0}" != 1 ] && pkg-config --exists libzip libcjson libelf yaml-0.1 2>/dev/null; then
  CFLAGS_DEPS=$(pkg-config --cflags libzip libcjson libelf yaml-0.1)
  LIBS_DEPS=$(pkg-config --libs libzip libcjson libelf yaml-0.1)
  echo "deps: system (pkg-config)"
else
  PREFIX=$WORK/prefix
  mkdir -p "$PREFIX"
  ls "$DEBS"/*.deb >/dev/null 2>&1 || { echo "no libzip/libcjson/libelf/libyaml and no .deb files in $DEBS"; exit 2; }
  for d in "$DEBS"/*.deb; do
    if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$d" "$PREFIX"; else
      python3 - "$d" "$PREFIX" <<'PY' || exit 2
import sys, tarfile, io, subprocess, os
# a .deb is an ar archive holding data.tar.*
deb, prefix = sys.argv[1], sys.argv[2]
data = open(deb, "rb").read()
assert data[:8] == b"!<arch>\n"
off = 8
while off < len(data):
    name = data[off:off+16].decode().strip().rstrip("/")
    size = int(data[off+48:off+58].decode().strip())
    body = data[off+60:off+60+size]
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(prefix)
    off += 60 + size + (size & 1)
PY
    fi
  done
  LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
  # -dev packages ship libfoo.so -> libfoo.so.N links; make sure they resolve in the prefix
  CFLAGS_DEPS="-I$PREFIX/usr/include"
  LIBS_DEPS="-L$LIBDIR -Wl,-rpath,$LIBDIR -lzip -lcjson -lelf -lyaml"
  echo "deps: unpacked from $DEBS into $PREFIX"
fi

cat > "$WORK/check_main.c" <<'EOF'
#include "commands.h"
int main(int argc, char **argv) { argv[0] = "check"; return cmd_check(argc, argv); }
EOF
SRCS="core/cli/cmd_check.c core/check/checklist.c core/package/package.c core/package/wrapper_scan.c core/package/elf_syms.c core/model/model.c
      core/util/strbuf.c core/util/arena.c core/inputs/inputs.c core/util/paths.c"
CHECK=$WORK/aotidbg-check
if ! gcc -std=gnu11 -O2 -g -Wall $(for d in core/*/; do printf -- "-I%s " "${d%/}"; done) -DAOTIDBG_SOURCE_DIR="\"$ROOT\"" $CFLAGS_DEPS $SRCS "$WORK/check_main.c" \
      $LIBS_DEPS -ldl -lm -o "$CHECK" >"$OUT/build.log" 2>&1; then
  cat "$OUT/build.log"; echo "BUILD FAILED"; exit 2
fi
echo "built $CHECK"

# ---- packages (torch on this box) ----
python3 - "$WORK" "${DRY:-0}" <<'PY' 2>&1 | tee "$OUT/compile.log"
import os, sys, time, importlib.util
import torch
work, dry = sys.argv[1], sys.argv[2] == "1"
spec = importlib.util.spec_from_file_location("model_check", "tests/models/model_check.py")
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
def build(name, dev):
    s = mc.check2()
    m = s["module"].to(dev)
    ins = tuple(t.to(dev) for t in s["inputs"])
    t0 = time.time()
    ep = torch.export.export(m, ins, dynamic_shapes=s["dynamic"])
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(work, name + ".pt2"),
        inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
    print(f"compiled {name} on {dev} in {time.time()-t0:.1f}s", flush=True)
    return s["inputs"]
x, w = build("check2_cpu", "cpu")
def spec_file(name, devs):
    with open(os.path.join(work, name), "w") as f:
        f.write("inputs:\n")
        for t, d in zip((x, w), devs):
            f.write(f"  - {{shape: {list(t.shape)}, dtype: float32, device: {d}}}\n")
spec_file("cpu.yaml", ["cpu", "cpu"])
if not dry and torch.cuda.is_available():
    build("check2_cuda", "cuda")
    spec_file("cuda.yaml", ["cuda:0", "cuda:0"])
    spec_file("cuda_wrong_index.yaml", ["cuda:0", "cuda:1"])
    print("gpus", torch.cuda.device_count(), "cc", torch.cuda.get_device_capability(0))
PY
[ -f "$WORK/check2_cpu.pt2" ] || { echo "compile failed"; exit 2; }

status=0
: > "$OUT/summary.txt"
# case NAME EXPECTED_RC "EXPECTED FAIL IDS (space separated, sorted)" ARGS...
case_() {
  local name=$1 want_rc=$2 want_fails=$3; shift 3
  "$CHECK" "$@" --format yaml > "$OUT/check_$name.yaml" 2> "$OUT/check_$name.err"
  local rc=$?
  local fails
  fails=$(python3 -c "import yaml,sys;d=yaml.safe_load(open(sys.argv[1]));print(' '.join(sorted(c['id'] for c in d['checks'] if c['status']=='FAIL')))" \
          "$OUT/check_$name.yaml" 2>/dev/null)
  local verdict=ok
  if [ "$rc" -ge 128 ] || [ "$rc" != "$want_rc" ] || [ "$fails" != "$want_fails" ]; then verdict=WRONG; status=1; fi
  printf '%-6s %-28s rc=%s (want %s) fails=[%s] (want [%s])\n' "$verdict" "$name" "$rc" "$want_rc" "$fails" "$want_fails" \
    | tee -a "$OUT/summary.txt"
}

CPU=$WORK/check2_cpu.pt2 CUDA=$WORK/check2_cuda.pt2
case_ cpu_on_cpu 0 "" "$CPU" --inputs "$WORK/cpu.yaml"
if [ -f "$CUDA" ]; then
  python3 -c "import zipfile,sys;z=zipfile.ZipFile(sys.argv[1]);n=[x for x in z.namelist() if x.endswith('.wrapper.cpp')][0]
print(''.join(l+'\n' for l in z.read(n).decode().splitlines() if 'loadKernel(' in l))
print('cubins in archive:', [x for x in z.namelist() if x.endswith('.cubin')])" "$CUDA" > "$OUT/loadkernel_lines.txt"
  NGPU=$(python3 -c "import torch;print(torch.cuda.device_count())")
  case_ a_cuda_on_cuda 0 "" "$CUDA" --inputs "$WORK/cuda.yaml" --device cuda
  case_ b_cuda_pkg_on_cpu 1 "device.compile-vs-load" "$CUDA" --device cpu
  if [ "$NGPU" -ge 2 ]; then
    echo "(2+ GPUs: an input on cuda:1 while loading on cuda:0 is still the wrong device)" | tee -a "$OUT/summary.txt"
  fi
  case_ c_input_wrong_gpu 1 "input.1.device" "$CUDA" --inputs "$WORK/cuda_wrong_index.yaml" --device cuda:0
  case_ d_missing_gpu_index 1 "device.index" "$CUDA" --device "cuda:$NGPU"
  case_ e_cpu_pkg_on_cuda 1 "device.compile-vs-load" "$CPU" --inputs "$WORK/cpu.yaml" --device cuda
  # the CUDA rows themselves, for the record
  grep -A6 -E 'id: "(device.cuda-available|device.compute-capability|package.cubins|package.symbols)"' \
    "$OUT/check_a_cuda_on_cuda.yaml" | tee -a "$OUT/summary.txt"
  cp "$CUDA" "$OUT/" 2>/dev/null
else
  echo "no CUDA package (DRY=1 or no GPU): cases a-e skipped" | tee -a "$OUT/summary.txt"
  # without CUDA the probe must fail cleanly: exit 1, no signal
  case_ e_cpu_pkg_on_cuda_nogpu 1 "device.compile-vs-load device.cuda-available" "$CPU" --inputs "$WORK/cpu.yaml" --device cuda
fi
rm -rf "$WORK"
echo "== status $status"
exit $status
