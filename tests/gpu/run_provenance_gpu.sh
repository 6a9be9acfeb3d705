#!/usr/bin/env bash
# run_provenance_gpu.sh — provenance on the H200 (issue 17 item 1): torch 2.11 CUDA packages of
# tests/models/model_provenance.py compiled with provenance tracking, read by aotidbg, checked
# against the kernel_information.json they carry (tests/gpu/check_provenance.py).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_provenance_gpu.sh
#
# AOTIDBG is a front end built elsewhere (the GPU image lacks ncurses/libyaml headers; see
# record_all.sh and DESIGN §7); the runner is built here. About 3 minutes (3 compiles ~40 s each).
# Packages: prov_cuda.pt2 (printer + provenance), prov_cuda_noprinter.pt2 (provenance only: the run
# interposes cuLaunchKernel), prov_cuda_plain.pt2 (printer only: graph nodes, no lines).
# Writes to $OUT: summary.txt (the checks, PASS/FAIL), the packages' kernel_information.json and
# wrapper.cpp, info_*.txt (info --calls), sessions/*.yaml (bring cuda_provenance*.yaml back as
# fixtures), dump_*.txt, route_oob.yaml, screen_oob_source.txt, logs/.
# Exit 0 when every check passes, 1 when one fails, 2 when the build or the compile failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin prov
gpu_environment
gpu_runner

step "compile the CUDA packages (torch here)"
timeout 400 python3 - "$ROOT" "$OUT" "$DEV" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import importlib.util, os, sys, time, zipfile
import torch
root, out, dev = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("model_provenance", os.path.join(root, "tests/models/model_provenance.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
b = mod.provenance()
ep = torch.export.export(b["module"].to(dev), tuple(t.to(dev) for t in b["inputs"]))
P = {"aot_inductor.debug_intermediate_value_printer": "1"}
T = {"trace.provenance_tracking_level": 1}
for name, cfg in (("prov_cuda", {**P, **T}), ("prov_cuda_noprinter", T), ("prov_cuda_plain", P)):
    t0 = time.time()
    pkg = os.path.join(out, name + ".pt2")
    torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=cfg)
    with zipfile.ZipFile(pkg) as z:   # kept beside the results, to read
        for n in z.namelist():
            if n.endswith("/kernel_information.json"):
                open(os.path.join(out, name + ".kernel_information.json"), "wb").write(z.read(n))
            elif n.endswith(".wrapper.cpp"):
                open(os.path.join(out, name + ".wrapper.cpp"), "wb").write(z.read(n))
    print(f"compiled {name} in {time.time() - t0:.1f}s", flush=True)
EOF
grep compiled "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [1, 4], dtype: int64, device: %s, fill: arange}\n' "$DEV" > "$OUT/ok.inputs.yaml"
printf 'inputs:\n  - {shape: [1, 4], dtype: int64, device: %s, fill: full, value: 137}\n' "$DEV" > "$OUT/oob.inputs.yaml"

step "info --calls"
for p in prov_cuda prov_cuda_noprinter prov_cuda_plain; do
  timeout 60 "$AOTIDBG" info "$OUT/$p.pt2" --calls > "$OUT/info_$p.txt" 2>&1
  echo "$p: $(grep 'provenance:' "$OUT/info_$p.txt")"
done

step "runs"
rec() {  # rec NAME ARGS...
  local name=$1; shift
  timeout 180 "$AOTIDBG" run "$@" --record "$OUT/sessions/$name.yaml" > "$OUT/logs/$name.log" 2>&1
  echo "$name: exit $?"; tail -4 "$OUT/logs/$name.log" | sed 's/^/    /'
  timeout 60 "$AOTIDBG" replay "$OUT/sessions/$name.yaml" --dump > "$OUT/dump_$name.txt" 2>&1
}
rec cuda_provenance "$OUT/prov_cuda.pt2" --inputs "$OUT/ok.inputs.yaml"
rec cuda_provenance_interpose "$OUT/prov_cuda_noprinter.pt2" --inputs "$OUT/ok.inputs.yaml"
rec cuda_provenance_plain "$OUT/prov_cuda_plain.pt2" --inputs "$OUT/ok.inputs.yaml"
rec cuda_provenance_oob "$OUT/prov_cuda.pt2" --inputs "$OUT/oob.inputs.yaml" --blocking
timeout 60 "$AOTIDBG" route "$OUT/sessions/cuda_provenance_oob.yaml" --format yaml > "$OUT/route_oob.yaml" 2>&1
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_provenance_oob.yaml" --headless 160x40 \
  --keys "pane-router open-source" --dump-screen > "$OUT/screen_oob_source.txt" 2>&1
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_provenance.yaml" --headless 160x50 \
  --keys "pane-kernels" --dump-screen > "$OUT/screen_kernels.txt" 2>&1

step "checks"
python3 "$ROOT/tests/gpu/check_provenance.py" "$OUT" "$ROOT/tests/models/model_provenance.py" | tee "$OUT/summary.txt"
rc=${PIPESTATUS[0]}
rm -rf "$W"
step "done (exit $rc)"
exit $rc
