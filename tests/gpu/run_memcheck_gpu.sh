#!/usr/bin/env bash
# run_memcheck_gpu.sh — `aotidbg run --memcheck` on the H200: compute-sanitizer's reports named
# by the tensor table of the launch (table, row, the index element that led there).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_memcheck_gpu.sh
#
# AOTIDBG is a front end built elsewhere (tests/gpu/pack_frontend.sh, carried; LD_LIBRARY_PATH at its
# lib/); the runner is built here (or AOTIDBG_RUNNER). About 3 minutes (3 compiles, 9 runs).
# Packages (printer + provenance, assert_indirect_indexing off where an index runs out):
#   gather_noassert  out = table[idx] * 2 + 1 (rows dynamic), fed table [8, 4], idx [3] all 9
#   embed_noassert   nn.Embedding(10, 8) + Linear (a held-out model of the same kind), ids 100000000
#   mlp_clean        Linear, ReLU, Linear, softmax: no report; the slowdown is measured on it
# Checks (PASS/FAIL lines in summary.txt): each out-of-bounds run has a memcheck event naming the
# table (its user name), the row ([9, ...] / [100000000, ...]), past-end, and the index element
# holding that row; the clean run has none and says what was covered; the session replays.
# Writes $OUT/sessions/cuda_memcheck_{gather,embed,clean}.yaml (fixtures for sessions/cuda/),
# their *.sanitizer.{xml,txt}, dump_*.txt, bench.txt, logs/.
# Exit 0 all pass, 1 a check failed, 2 the build, the compile or the tool is missing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin memcheck
gpu_environment
gpu_runner
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
[ -n "$CS" ] || { echo "FAIL no compute-sanitizer on this box"; exit 2; }
export AOTIDBG_COMPUTE_SANITIZER=$CS
"$CS" --version | tail -1

step "compile the packages (torch here)"
timeout 420 python3 - "$OUT" "$DEV" <<'PY' > "$OUT/logs/compile.log" 2>&1 || { tail -30 "$OUT/logs/compile.log"; exit 2; }
import os, sys, time, torch
out, dev = sys.argv[1], sys.argv[2]
P = {"aot_inductor.debug_intermediate_value_printer": "1", "trace.provenance_tracking_level": 1}
NA = dict(P, **{"assert_indirect_indexing": False})
class Gather(torch.nn.Module):
    def forward(self, table, idx):
        return table[idx] * 2.0 + 1.0
class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.e = torch.nn.Embedding(10, 8); self.l = torch.nn.Linear(8, 4)
    def forward(self, ids):
        return self.l(self.e(ids))
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.a = torch.nn.Linear(16, 32); self.b = torch.nn.Linear(32, 8)
    def forward(self, x):
        return self.b(torch.relu(self.a(x))).softmax(-1)
torch.manual_seed(0)
def build(name, m, args, dyn=None, cfg=P):
    t0 = time.time()
    ep = torch.export.export(m.to(dev), args, dynamic_shapes=dyn)
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, name + ".pt2"), inductor_configs=cfg)
    print(f"compiled {name} in {time.time() - t0:.1f}s", flush=True)
with torch.no_grad():
    dyn = {"table": {0: torch.export.Dim("rows", min=0, max=1024)}, "idx": {0: torch.export.Dim("n", min=1, max=1024)}}
    build("gather_noassert", Gather(), (torch.randn(8, 4, device=dev), torch.tensor([1, 2, 7], device=dev)), dyn, NA)
    build("embed_noassert", Embed().eval(), (torch.tensor([[1, 2, 3, 4]], device=dev),), None, NA)
    build("mlp_clean", MLP().eval(), (torch.randn(4, 16, device=dev),))
PY
grep compiled "$OUT/logs/compile.log"
printf 'inputs:\n  - {shape: [8, 4], dtype: float32, device: %s, fill: randn, seed: 1}\n  - {shape: [3], dtype: int64, device: %s, fill: full, value: 9}\n' "$DEV" "$DEV" > "$OUT/gather.inputs.yaml"
printf 'inputs:\n  - {shape: [1, 4], dtype: int64, device: %s, fill: full, value: 100000000}\n' "$DEV" > "$OUT/embed.inputs.yaml"
printf 'inputs:\n  - {shape: [4, 16], dtype: float32, device: %s, fill: randn, seed: 2}\n' "$DEV" > "$OUT/mlp.inputs.yaml"

rec() {  # rec NAME PKG SPEC ARGS...
  local name=$1 pkg=$2 spec=$3; shift 3
  timeout 300 "$AOTIDBG" run "$OUT/$pkg.pt2" --inputs "$OUT/$spec.inputs.yaml" "$@" --record "$OUT/sessions/$name.yaml" \
    > "$OUT/logs/$name.log" 2>&1
  echo "$name: exit $?"; tail -8 "$OUT/logs/$name.log" | sed 's/^/    /'
  timeout 60 "$AOTIDBG" replay "$OUT/sessions/$name.yaml" --dump > "$OUT/dump_$name.txt" 2>&1
}
step "runs under compute-sanitizer"
rec cuda_memcheck_gather gather_noassert gather --memcheck
rec cuda_memcheck_embed embed_noassert embed --memcheck
rec cuda_memcheck_clean mlp_clean mlp --memcheck
rec cuda_plain_gather gather_noassert gather --blocking --values 64   # the same fault without the tool
cp "$OUT"/sessions/*.sanitizer.* "$OUT/logs/" 2>/dev/null

step "checks"
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import os, sys, yaml
out = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    fails += not ok
def load(name):
    try:
        return yaml.safe_load(open(os.path.join(out, "sessions", name + ".yaml")))
    except Exception as e:
        print(f"FAIL {name}: cannot read the session: {e}")
        return {"events": [], "notes": []}
def events(s, kind):
    return [e for e in s.get("events") or [] if e.get("kind") == kind]
for name, row, user in (("cuda_memcheck_gather", 9, "table"), ("cuda_memcheck_embed", 100000000, None)):
    s = load(name)
    ev = events(s, "memcheck")
    check(len(ev) > 0, f"{name}: memcheck events ({len(ev)})")
    if not ev:
        continue
    e = ev[0]
    print("     ", {k: e.get(k) for k in ("what", "kernel", "name", "thread", "address", "hit", "by_index", "count")})
    check(e.get("place") == "past-end", f"{name}: the address is past the end of {e.get('tensor')} ({e.get('place')})")
    check(str(e.get("element", "")).startswith(f"[{row}, "), f"{name}: the row is {row} (element {e.get('element')})")
    check(str(e.get("by_index", "")).endswith(f"= {row}"), f"{name}: the index element holding {row} ({e.get('by_index')})")
    k = [x for x in events(s, "kernel") if x.get("index") == e.get("kernel")]
    t = [x for x in (k[0].get("tensors") or []) if x.get("name") == e.get("tensor")] if k else []
    check(bool(t) and "alloc" in t[0], f"{name}: the tensor named is one of the launch's, with its allocation")
    if user:
        check(f"({user})" in str(e.get("hit")), f"{name}: the hit names the input by its user name ({user})")
    else:   # the embedding's weight: a constant of the package, [10, 8]
        check(bool(t) and t[0].get("shape") == [10, 8], f"{name}: the tensor is the [10, 8] table ({t[0].get('shape') if t else None})")
    check(any("compute-sanitizer memcheck reported" in n for n in s.get("notes") or []), f"{name}: the tool's verdict is noted")
s = load("cuda_memcheck_clean")
check(not events(s, "memcheck"), "cuda_memcheck_clean: no memcheck event")
check(any("reported no error over the" in n for n in s.get("notes") or []), "cuda_memcheck_clean: says what a clean run covered")
check(len(events(s, "kernel")) > 0 and events(s, "output"), "cuda_memcheck_clean: kernels and outputs recorded")
check(s.get("end_state") == "complete", f"cuda_memcheck_clean: end_state {s.get('end_state')}")
for n in ("cuda_memcheck_gather", "cuda_memcheck_embed", "cuda_memcheck_clean"):
    d = open(os.path.join(out, f"dump_{n}.txt")).read()
    check(("memcheck" in d) if n != "cuda_memcheck_clean" else ("kernel" in d), f"{n}: replay --dump shows it")
print("ALL PASS" if not fails else f"{fails} FAILED")
sys.exit(1 if fails else 0)
PY
rc=${PIPESTATUS[0]}

step "slowdown (bench_memcheck.sh: plain vs --memcheck on the clean package)"
AOTIDBG=$AOTIDBG timeout 400 bash "$ROOT/tests/bench/bench_memcheck.sh" "$OUT/mlp_clean.pt2" "$OUT/mlp.inputs.yaml" 3 \
  2>&1 | tee "$OUT/bench.txt"
exit "$rc"
