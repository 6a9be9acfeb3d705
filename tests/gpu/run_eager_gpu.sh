#!/usr/bin/env bash
# run_eager_gpu.sh — the eager reference on the H200 (issue 18): a bfloat16 CUDA package of
# tests/models/model_eager.py's Blocks (Linear, LayerNorm, GELU, residual; head) compiled with
# torch 2.11, run with `--eager` against its own exported program (no kernel may depart: bf16
# rounding of fused kernels stays within the default tolerances) and against two changed programs
# (a planted divergence: one layer's weights changed; the first kernel that departs must be the
# first kernel that reads that weight, as the package's kernel_information.json says), checked by
# tests/gpu/check_eager_gpu.py. Every reference is computed by the runner with libtorch
# (`aotidbg-runner --eager-ref`, no Python); one more run computes the own program's reference with
# the Python helper (AOTIDBG_EAGER_WITH=python, a folder of its own) and the two are compared.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_eager_gpu.sh
#
# AOTIDBG is a front end built elsewhere (the GPU image lacks ncurses/libyaml headers; see
# record_all.sh and DESIGN §7); the runner is built here. About 3 minutes (two compiles: S3-2 took 109 s
# with one). Last, a small llama-style decoder (tests/bench/big_model.py: attention, rope, RMSNorm, tied
# head) whose reference the runner must compute, equal to Python's; its runs re-instrument ($REINSTR,
# default --reinstrument) so the attention call's output is seen and compared (at least 90% of kernels).
# Writes to $OUT: summary.txt (PASS/FAIL/INFO lines: the answer), the package's
# kernel_information.json and wrapper.cpp, sessions/*.yaml, dump_*.txt, screen_*.txt, times.tsv,
# logs/ (each run's stderr, the compile, the build).
# Exit 0 when every check passes, 1 when one fails, 2 when the build or the compile failed.
# DEV=cpu rehearses the whole script on a CPU box (set AOTIDBG_RUNNER: no runner build).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
WIDTH=${WIDTH:-512}
gpu_begin eager
gpu_environment
gpu_runner

step "compile the bf16 package and export its programs (torch here)"
timeout 400 python3 - "$ROOT" "$OUT" "$DEV" "$WIDTH" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import importlib.util, os, sys, time, zipfile
import torch
from torch import nn
root, out, dev, width = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
spec = importlib.util.spec_from_file_location("model_eager", os.path.join(root, "tests/models/model_eager.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
torch.manual_seed(7)
m = mod.Blocks(width=width, n=4, act=nn.functional.gelu, out=16).eval().to(dev).to(torch.bfloat16)
x = (torch.randn(64, width, device=dev).to(torch.bfloat16),)
programs = {"same": m, "ln2": mod.changed(m, "blocks.2.ln.weight", 1.5),
            "fc1": mod.changed(m, "blocks.1.fc.weight", -1.0)}
t0 = time.time()
ep = torch.export.export(m, x)
cfg = {"aot_inductor.debug_intermediate_value_printer": "1", "trace.provenance_tracking_level": 1}
pkg = os.path.join(out, "eager_bf16.pt2")
torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=cfg)
print(f"compiled eager_bf16 in {time.time() - t0:.1f}s", flush=True)
with zipfile.ZipFile(pkg) as z:   # kept beside the results, to read
    for n in z.namelist():
        if n.endswith("/kernel_information.json"):
            open(os.path.join(out, "eager_bf16.kernel_information.json"), "wb").write(z.read(n))
        elif n.endswith(".wrapper.cpp"):
            open(os.path.join(out, "eager_bf16.wrapper.cpp"), "wb").write(z.read(n))
for name, prog in programs.items():
    torch.export.save(torch.export.export(prog, x), os.path.join(out, f"eager_bf16.{name}.ep.pt2"))
    print(f"exported {name}", flush=True)
EOF
grep -E "compiled|exported" "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [64, %s], dtype: bfloat16, device: %s, fill: randn, seed: 3}\n' "$WIDTH" "$DEV" > "$OUT/in.yaml"

step "runs"
: > "$OUT/times.tsv"
rec() {  # rec NAME ARGS... (the run's exit code in sessions/NAME.rc, its wall time in times.tsv)
  local name=$1; shift
  local t=$(date +%s%N)
  timeout 240 "$AOTIDBG" run "$OUT/eager_bf16.pt2" --inputs "$OUT/in.yaml" --record "$OUT/sessions/$name.yaml" "$@" \
    > "$OUT/logs/${name##*/}.log" 2>&1
  local rc=$?
  echo $rc > "$OUT/sessions/$name.rc"
  printf '%s\t%d\n' "${name##*/}" $(( ($(date +%s%N) - t) / 1000000 )) >> "$OUT/times.tsv"   # ms
  echo "$name: exit $rc"; tail -3 "$OUT/logs/${name##*/}.log" | sed 's/^/    /'
  timeout 60 "$AOTIDBG" replay "$OUT/sessions/$name.yaml" --dump > "$OUT/dump_${name##*/}.txt" 2>&1
}
E="$OUT/eager_bf16"
rec plain
rec same --eager "$E.same.ep.pt2" --break-on diverge
AOTIDBG_PYTHON=/bin/false rec same_cached --eager "$E.same.ep.pt2" --break-on diverge
rec ln2 --eager "$E.ln2.ep.pt2" --break-on diverge
rec fc1 --eager "$E.fc1.ep.pt2" --break-on diverge
rec same_f64 --eager "$E.same.ep.pt2" --eager-float64
rec same_cpu --eager "$E.same.ep.pt2" --eager-device cpu
mkdir -p "$OUT/sessions/py"   # its own folder: its own reference cache
AOTIDBG_EAGER_WITH=python rec py/same_py --eager "$E.same.ep.pt2" --break-on diverge
cat "$OUT/times.tsv"

step "a small llama-style decoder (tests/bench/big_model.py's, bf16: embedding, RMSNorm, rope, attention, tied head)"
timeout 300 python3 - "$ROOT" "$OUT" "$DEV" <<'EOF' > "$OUT/logs/llama_compile.log" 2>&1 || tail -20 "$OUT/logs/llama_compile.log"
import importlib.util, os, sys, time
import torch
root, out, dev = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("big_model", os.path.join(root, "tests/bench/big_model.py"))
bm = importlib.util.module_from_spec(spec); spec.loader.exec_module(bm)
torch.manual_seed(0)
m = bm.Llama(2048, 256, 2, 4, 512, 16, True).eval().to(dev).to(torch.bfloat16)
ids = torch.randint(0, 2048, (1, 16), device=dev)
t0 = time.time()
ep = torch.export.export(m, (ids,))
torch.export.save(ep, os.path.join(out, "llama.ep.pt2"))
torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "llama.pt2"), inductor_configs={
    "aot_inductor.debug_intermediate_value_printer": "1", "trace.provenance_tracking_level": 1})
print(f"compiled llama in {time.time() - t0:.1f}s", flush=True)
EOF
printf 'inputs:\n  - {shape: [1, 16], dtype: int64, device: %s, fill: randn, seed: 3}\n' "$DEV" > "$OUT/llama_in.yaml"
for way in runner python; do   # each in a folder of its own: its own reference
  mkdir -p "$OUT/sessions/llama_$way"
  AOTIDBG_EAGER_WITH=$way timeout 240 "$AOTIDBG" run "$OUT/llama.pt2" --inputs "$OUT/llama_in.yaml" \
    --eager "$OUT/llama.ep.pt2" --record "$OUT/sessions/llama_$way/llama.yaml" ${REINSTR---reinstrument} \
    > "$OUT/logs/llama_$way.log" 2>&1
  echo $? > "$OUT/sessions/llama_$way/llama.rc"
  echo "llama ($way): exit $(cat "$OUT/sessions/llama_$way/llama.rc")"; tail -3 "$OUT/logs/llama_$way.log" | sed 's/^/    /'
done

step "TUI: hunt-diverge (replay and live)"
timeout 60 "$AOTIDBG" replay "$OUT/sessions/ln2.yaml" --headless 160x44 --keys "hunt-diverge" --dump-screen \
  > "$OUT/screen_ln2_hunt.txt" 2>&1
timeout 60 "$AOTIDBG" replay "$OUT/sessions/ln2.yaml" --headless 160x44 --keys "hunt-diverge q ref-eager" \
  --dump-screen > "$OUT/screen_ln2_ref.txt" 2>&1
(cd "$OUT/sessions" && timeout 180 "$AOTIDBG" "$OUT/eager_bf16.pt2" --inputs "$OUT/in.yaml" --eager "$E.ln2.ep.pt2" \
  --record "$OUT/sessions/live_ln2.yaml" --headless 160x44 --keys "hunt-diverge" --dump-screen \
  > "$OUT/screen_live_ln2.txt" 2> "$OUT/logs/live_ln2.log")

step "checks"
python3 "$ROOT/tests/gpu/check_eager_gpu.py" "$OUT" "$ROOT/tests/models/model_eager.py" | tee "$OUT/summary.txt"
rc=${PIPESTATUS[0]}
rm -rf "$W"
step "done (exit $rc)"
exit $rc
