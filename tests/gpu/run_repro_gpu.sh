#!/usr/bin/env bash
# run_repro_gpu.sh — aotidbg repro on the H200: a Triton kernel's standalone repro (the package's
# cubin, cuModuleLoadData + cuLaunchKernel with the captured grid, block, shared memory and argument
# bytes) must rebuild with CMake and equal the run's outputs bit for bit, and a kernel that failed
# in the run (a device-side assert: an embedding fed id 137) must fail the same way standalone.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_repro_gpu.sh
#
# AOTIDBG is a front end built elsewhere (see record_all.sh and DESIGN §7); the runner is built
# here (or AOTIDBG_RUNNER). About 2-3 minutes (2 compiles, 3 small CMake builds). DEV=cpu rehearses
# it on a CPU box (the kernels are then cpp_* ones and the assert is AOTI_TORCH_CHECK's).
# Packages (printer level 1): repro_pw_cuda.pt2 (x * 2 + sin(y), then a row softmax: Triton
# pointwise and reduction kernels), repro_oob_cuda.pt2 (tests/models/model_oob.py's embedding).
# Writes to $OUT: summary.txt (the checks, PASS/FAIL), example_repro/ (one repro folder, as the
# command wrote it, without its build), repro_*.log, sessions/, logs/.
# Exit 0 when every check passes, 1 when one fails, 2 when the build or the compile failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin repro
gpu_environment
gpu_runner
command -v cmake >/dev/null || { echo "cmake is needed"; exit 2; }

step "compile the packages (torch here)"
timeout 400 python3 - "$ROOT" "$OUT" "$DEV" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import importlib.util, os, sys, time
import numpy as np
import torch
root, out, dev = sys.argv[1], sys.argv[2], sys.argv[3]
P = {"aot_inductor.debug_intermediate_value_printer": "1"}

class PwSoftmax(torch.nn.Module):
    def forward(self, x, y):
        return torch.softmax(x * 2.0 + torch.sin(y), dim=-1)

torch.manual_seed(0)
x, y = torch.randn(64, 128), torch.randn(64, 128)
np.save(os.path.join(out, "pw_x.npy"), x.numpy())
np.save(os.path.join(out, "pw_y.npy"), y.numpy())
t0 = time.time()
ep = torch.export.export(PwSoftmax().to(dev), (x.to(dev), y.to(dev)))
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "repro_pw_cuda.pt2"), inductor_configs=P)
print(f"compiled repro_pw_cuda in {time.time() - t0:.1f}s", flush=True)

spec = importlib.util.spec_from_file_location("model_oob", os.path.join(root, "tests/models/model_oob.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
b = mod.oob_embedding()
t0 = time.time()
ep = torch.export.export(b["module"].to(dev), tuple(t.to(dev) for t in b["inputs"]))
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "repro_oob_cuda.pt2"), inductor_configs=P)
print(f"compiled repro_oob_cuda in {time.time() - t0:.1f}s", flush=True)
np.save(os.path.join(out, "ids137.npy"), np.array([[1, 5, 7, 2], [9, 3, 137, 8]]))
EOF
grep compiled "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [64, 128], dtype: float32, device: %s, fill: file, file: %s}\n  - {shape: [64, 128], dtype: float32, device: %s, fill: file, file: %s}\n' \
  "$DEV" "$OUT/pw_x.npy" "$DEV" "$OUT/pw_y.npy" > "$OUT/pw.inputs.yaml"
printf 'inputs:\n  - {shape: [2, 4], dtype: int64, device: %s, fill: file, file: %s}\n' "$DEV" "$OUT/ids137.npy" \
  > "$OUT/oob.inputs.yaml"

# the kernels of each run, in order: "index name type" lines
kernels() {
  timeout 180 "$AOTIDBG" run "$1" --inputs "$2" --record "$OUT/sessions/$3.yaml" > "$OUT/logs/$3.log" 2>&1
  python3 - "$OUT/sessions/$3.yaml" <<'EOF'
import sys, yaml
for e in yaml.safe_load(open(sys.argv[1]))["events"]:
    if e.get("kind") == "kernel":
        print(e["index"], e["name"], e.get("type", "?"))
EOF
}
# repro NAME PKG SPEC KERNEL: makes $W/NAME, builds it, runs it; its output in $OUT/repro_NAME.log
repro() {
  local name=$1 pkg=$2 inputs=$3 kernel=$4 dir=$W/$1
  timeout 300 "$AOTIDBG" repro "$pkg" --inputs "$inputs" --kernel "$kernel" -o "$dir" > "$OUT/repro_$name.log" 2>&1
  echo "aotidbg repro exit $?" >> "$OUT/repro_$name.log"
  { cmake -S "$dir" -B "$dir/build" && cmake --build "$dir/build"; } > "$OUT/logs/cmake_$name.log" 2>&1
  echo "cmake exit $?" >> "$OUT/repro_$name.log"
  timeout 120 "$dir/build/repro" >> "$OUT/repro_$name.log" 2>&1
  echo "repro exit $?" >> "$OUT/repro_$name.log"
  sed 's/^/    /' "$OUT/repro_$name.log"
}

step "kernels of the two runs"
kernels "$OUT/repro_pw_cuda.pt2" "$OUT/pw.inputs.yaml" pw | tee "$OUT/kernels_pw.txt"
kernels "$OUT/repro_oob_cuda.pt2" "$OUT/oob.inputs.yaml" oob | tee "$OUT/kernels_oob.txt"
want=triton; [ "$DEV" = cpu ] && want=cpp
PW=$(awk -v t=$want '$3 == t {print $2; exit}' "$OUT/kernels_pw.txt")
RED=$(awk -v t=$want '$3 == t && /softmax/ {print $2; exit}' "$OUT/kernels_pw.txt")
OOB=$(awk -v t=$want '$3 == t {print $2; exit}' "$OUT/kernels_oob.txt")
echo "pointwise: $PW  softmax: $RED  failing: $OOB"

step "repros"
repro pw "$OUT/repro_pw_cuda.pt2" "$OUT/pw.inputs.yaml" "$PW"
[ -n "$RED" ] && [ "$RED" != "$PW" ] && repro softmax "$OUT/repro_pw_cuda.pt2" "$OUT/pw.inputs.yaml" "$RED"
repro oob "$OUT/repro_oob_cuda.pt2" "$OUT/oob.inputs.yaml" "$OOB"
rm -rf "$OUT/example_repro"
cp -r "$W/pw" "$OUT/example_repro" && rm -rf "$OUT/example_repro/build"

step "checks"
python3 - "$OUT" "$W" "$DEV" <<'EOF' | tee "$OUT/summary.txt"
import glob, os, sys
import numpy as np
out, w, dev = sys.argv[1:4]
fails = 0
def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    fails += not ok
def log(name):
    p = os.path.join(out, f"repro_{name}.log")
    return open(p).read() if os.path.exists(p) else ""
def equal(name):
    d = os.path.join(w, name)
    files = glob.glob(os.path.join(d, "expected", "*.npy"))
    return bool(files) and all(os.path.exists(os.path.join(d, "out", os.path.basename(f))) and
                               np.load(f).tobytes() == np.load(os.path.join(d, "out", os.path.basename(f))).tobytes()
                               for f in files)
for name in ("pw", "softmax"):
    t = log(name)
    if not t and name == "softmax":
        continue
    check("aotidbg repro exit 0" in t and "cmake exit 0" in t, f"{name}: the repro was written and builds")
    check("repro exit 0" in t and "bit for bit" in t and equal(name), f"{name}: outputs equal the run's bit for bit")
    if dev == "cuda":
        d = os.path.join(w, name)
        check(os.path.exists(os.path.join(d, "kernel.cubin")) and "cuLaunchKernel" in open(os.path.join(d, "main.cpp")).read(),
              f"{name}: a Triton repro (the package's cubin, cuLaunchKernel)")
        libs = os.popen(f"ldd {d}/build/repro").read()
        check("libtorch" not in libs and "libpython" not in libs and "libcudart" not in libs,
              f"{name}: the launcher links no torch, Python or CUDA runtime (driver only)")
t = log("oob")
readme = open(os.path.join(w, "oob", "README")).read() if os.path.exists(os.path.join(w, "oob", "README")) else ""
check("aotidbg repro exit 0" in t and "FAILED in the run" in readme, "oob: the failing kernel's repro was written")
want = "CUDA error" if dev == "cuda" else "index out of bounds"
check("repro exit 1" in t and want in t.split("cmake exit")[-1], f"oob: the repro fails the same way ({want})")
print(f"{fails} failed")
sys.exit(1 if fails else 0)
EOF
