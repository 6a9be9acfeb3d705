#!/usr/bin/env bash
# run_route_gpu.sh — real CUDA material for the error router (issue 4): a CUDA
# AOTI package whose Triton kernel checks `0 <= tmpN < ksM` against a dynamic
# input size, and the real error text of running it with an index past the end.
#
# usage (from the repository root, on the GPU box; needs only torch + CUDA):
#   OUT=/path/to/results bash tests/gpu/run_route_gpu.sh
# Writes to $OUT:
#   router_gather_cuda.pt2     the package (tests/models/model_router.py, compiled for cuda)
#   wrapper.cpp                its generated wrapper (Triton sources as comments, call_triton_ sites)
#   asserts.txt                every `index out of bounds: 0 <= tmpN < B` message in wrapper.cpp
#   oob_aoti.log               stderr/stdout of running the package with an out-of-range index
#                              (torch._inductor.aoti_load_package; DESIGN §3 says it may segfault there:
#                              the exit status is recorded, the log kept either way)
#   oob_compile.log            the same model under torch.compile(dynamic=True) with the same inputs:
#                              a real Triton device-side assert from Inductor's JIT path
#   summary.txt                what ran and its exit codes
# Then, back on a dev machine (aotidbg built), the check is:
#   aotidbg route $OUT/oob_aoti.log    --package $OUT/router_gather_cuda.pt2 --format yaml
#   aotidbg route $OUT/oob_compile.log --package $OUT/router_gather_cuda.pt2 --format yaml
# Expect route: triton-index-oob; with the package, fields input_index "0", dim "0"
# (input 0 is the table; its dim 0 is the size the gather is bounded by), the Triton
# kernel name and its `Topologically Sorted Source Nodes` (index_select).
# (The compile path's kernel may number its tmp/ks differently from the AOTI
# package's; when the condition is not in the package, `trace_error` says so.)
# Exit 0 when the package compiled and both runs produced an index-out-of-bounds
# message, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:?set OUT to a results folder}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
status=0
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true

python3 - "$ROOT" "$OUT" <<'EOF' || status=1
import importlib.util, os, sys, zipfile, re
import torch
root, out = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("model_router", os.path.join(root, "tests/models/model_router.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
b = mod.router_gather()
module = b["module"].cuda()
inputs = tuple(t.cuda() for t in b["inputs"])
ep = torch.export.export(module, inputs, dynamic_shapes=b["dynamic"])
pkg = os.path.join(out, "router_gather_cuda.pt2")
torch._inductor.aoti_compile_and_package(ep, package_path=pkg,
    inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
with zipfile.ZipFile(pkg) as z:
    w = [n for n in z.namelist() if n.endswith(".wrapper.cpp")][0]
    text = z.read(w).decode("utf-8", "replace")
open(os.path.join(out, "wrapper.cpp"), "w").write(text)
found = sorted(set(re.findall(r"index out of bounds: 0 <= tmp\d+ < [^\"']+", text)))
open(os.path.join(out, "asserts.txt"), "w").write("\n".join(found) + "\n")
print("package:", pkg, "asserts in wrapper.cpp:", found)
if not found:
    sys.exit(1)
EOF
echo "compile: $status" > "$OUT/summary.txt"

cat > "$OUT/oob_run.py" <<'EOF'
import sys, torch
mode, pkg = sys.argv[1], sys.argv[2]
table = torch.randn(16, 8, device="cuda")
idx = torch.tensor([0, 3, 16 + 5, 2], dtype=torch.int64, device="cuda")
if mode == "aoti":
    m = torch._inductor.aoti_load_package(pkg)
else:
    import importlib.util, os
    spec = importlib.util.spec_from_file_location("model_router", sys.argv[3])
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    m = torch.compile(mod.Gather().cuda().eval(), dynamic=True)
out = m(table, idx)
torch.cuda.synchronize()
print("no error?", out.shape)
EOF
for mode in aoti compile; do
  timeout 300 python3 "$OUT/oob_run.py" $mode "$OUT/router_gather_cuda.pt2" "$ROOT/tests/models/model_router.py" \
    > "$OUT/oob_$mode.log" 2>&1
  rc=$?
  echo "oob_$mode: exit $rc" >> "$OUT/summary.txt"
  if grep -q "index out of bounds" "$OUT/oob_$mode.log"; then
    echo "oob_$mode: index-out-of-bounds message present" >> "$OUT/summary.txt"
  else
    echo "oob_$mode: NO index-out-of-bounds message" >> "$OUT/summary.txt"
    status=1
  fi
done
cat "$OUT/summary.txt"
exit $status
