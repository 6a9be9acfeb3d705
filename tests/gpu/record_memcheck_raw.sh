#!/usr/bin/env bash
# record_memcheck_raw.sh — records compute-sanitizer's own reports (text, and the structured
# form when this compute-sanitizer has one) for AOTI CUDA packages run by aotidbg-runner --bench:
# the raw material the report parser is tested on (tests/data/memcheck/).
#
#   OUT=DIR bash tests/gpu/record_memcheck_raw.sh
#
# Packages (torch here): gather_noassert (table[idx] * 2 + 1, rows dynamic, no device-side bounds
# assert) fed idx 9 on an 8-row table and idx 2^40; embed_noassert (nn.Embedding(10, 8) then a
# Linear) fed id 12; uninit (y = empty_like(x); y + x: reads memory nothing wrote); a clean MLP.
# Every run has the caching allocator off and blocking launches. Writes $OUT/memcheck_raw.tgz (res/NAME.txt, NAME.xml, NAME.out) and $OUT/logs/.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin memcheck_raw
R=$W/res; mkdir -p "$R"   # at most 8 files come back: everything goes into one archive
trap 'tar czf "$OUT/memcheck_raw.tgz" -C "$W" res; ls -la "$R"' EXIT
step "environment"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "compute-sanitizer: $CS"; "$CS" --version
"$CS" --help > "$R/cs_help.txt" 2>&1
gpu_runner
step "compile"
timeout 400 python3 - "$W" <<'PY' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import os, sys, time, zipfile, torch
w = sys.argv[1]
P = {"aot_inductor.debug_intermediate_value_printer": "1"}
NA = dict(P, **{"assert_indirect_indexing": False})
class Gather(torch.nn.Module):
    def forward(self, table, idx):
        return table[idx] * 2.0 + 1.0
class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.e = torch.nn.Embedding(10, 8); self.l = torch.nn.Linear(8, 4)
    def forward(self, ids):
        return self.l(self.e(ids))
class Uninit(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        return y + x
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.a = torch.nn.Linear(16, 32); self.b = torch.nn.Linear(32, 8)
    def forward(self, x):
        return self.b(torch.relu(self.a(x))).softmax(-1)
torch.manual_seed(0)
dev = "cuda"
def build(name, m, args, dyn=None, cfg=P):
    t0 = time.time()
    ep = torch.export.export(m.to(dev), args, dynamic_shapes=dyn)
    pkg = torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(w, name + ".pt2"), inductor_configs=cfg)
    d = os.path.join(w, name); zipfile.ZipFile(pkg).extractall(d)
    print(f"compiled {name} in {time.time() - t0:.1f}s", flush=True)
with torch.no_grad():
    dyn = {"table": {0: torch.export.Dim("rows", min=0, max=1024)}, "idx": {0: torch.export.Dim("n", min=1, max=1024)}}
    build("gather_noassert", Gather(), (torch.randn(8, 4, device=dev), torch.tensor([1, 2, 7], device=dev)), dyn, NA)
    build("embed_noassert", Embed().eval(), (torch.tensor([[1, 2, 3, 4]], device=dev),), None, NA)
    build("uninit", Uninit(), (torch.randn(64, 16, device=dev),))
    build("mlp", MLP().eval(), (torch.randn(4, 16, device=dev),))
PY
grep compiled "$OUT/logs/compile.log"
sofile() { find "$W/$1" -name '*.wrapper.so' -o -name '*.so' | grep -v '/\.' | head -1; }
export PYTORCH_NO_CUDA_MEMORY_CACHING=1 CUDA_LAUNCH_BLOCKING=1
san() {  # san NAME TOOL PKG INPUT...
  local name=$1 tool=$2 pkg=$3; shift 3
  local so; so=$(sofile "$pkg"); local dir; dir=$(dirname "$so")
  step "$name: $tool on $pkg ($*)"
  timeout 240 "$CS" --tool "$tool" --log-file "$R/$name.txt" --print-limit 20 \
    "$AOTIDBG_RUNNER" --bench "$so" "$dir" cuda 1 off "$@" > "$R/$name.out" 2>&1
  echo "  exit $?"; head -c 1500 "$R/$name.txt"; echo
  timeout 240 "$CS" --tool "$tool" --xml --save "$R/$name.xml" --log-file "$R/$name.xml.log" --print-limit 20 \
    "$AOTIDBG_RUNNER" --bench "$so" "$dir" cuda 1 off "$@" > "$R/$name.xml.out" 2>&1
  echo "  xml: exit $?, $(wc -c < "$R/$name.xml" 2>/dev/null) bytes"
}
san gather_row9_memcheck memcheck gather_noassert float32:8x4:randn int64:3:full=9
san gather_far_memcheck memcheck gather_noassert float32:8x4:randn int64:3:full=1099511627776
san embed_id12_memcheck memcheck embed_noassert int64:1x4:full=12
san embed_far_memcheck memcheck embed_noassert int64:1x4:full=100000000
san uninit_initcheck initcheck uninit float32:64x16:randn
san mlp_memcheck memcheck mlp float32:4x16:randn
san mlp_racecheck racecheck mlp float32:4x16:randn
san mlp_synccheck synccheck mlp float32:4x16:randn
step "plain vs memcheck timing (mlp, 1 run each, wall)"
so=$(sofile mlp); d=$(dirname "$so")
/usr/bin/time -f "plain %e s" "$AOTIDBG_RUNNER" --bench "$so" "$d" cuda 20 off float32:4x16:randn > /dev/null
/usr/bin/time -f "memcheck %e s" "$CS" --tool memcheck "$AOTIDBG_RUNNER" --bench "$so" "$d" cuda 20 off float32:4x16:randn > /dev/null
