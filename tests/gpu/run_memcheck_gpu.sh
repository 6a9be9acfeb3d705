#!/usr/bin/env bash
# run_memcheck_gpu.sh — `aotidbg run --memcheck` on the H200: compute-sanitizer's reports named
# by the tensor table of the launch (table, row, the index element that led there).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_memcheck_gpu.sh
#
# AOTIDBG is a front end built elsewhere (tests/gpu/pack_frontend.sh, carried; LD_LIBRARY_PATH at its
# lib/); the runner is built here (or AOTIDBG_RUNNER). About 4 minutes (4 compiles, 13 runs).
# DEV=cpu rehearses it on a CPU box (the compile, the name listing, the refusals; no tool runs).
# Packages (printer + provenance, assert_indirect_indexing off where an index runs out), all
# exported the usual way (torch.export.export with positional arguments, aoti_compile_and_package):
#   gather_noassert  out = table[idx] * 2 + 1 (rows dynamic), fed table [8, 4], idx [3] all 9;
#                    the inputs spec names them table and idx (a positional package has no names)
#   embed_noassert   nn.Embedding(10, 8) + Linear (a held-out model of the same kind), ids 100000000;
#                    the table is the weight e.weight (constants_info_'s original_fqn)
#   uninit           relu(x @ x.new_empty(16, 16)): the matmul reads a buffer nothing wrote (initcheck)
#   mlp_clean        Linear, ReLU, Linear, softmax: no report; the slowdown is measured on it
# Checks (PASS/FAIL lines in summary.txt): each out-of-bounds run has a memcheck event naming the
# table by the user's name (table, e.weight), the row ([9, ...] / [100000000, ...]), past-end, the
# index element holding that row (idx[0] = 9) and the route fields goto-element reads; the run's
# summary says it; the live (TUI) start under --memcheck records the same; initcheck names the
# unwritten tensor and element; racecheck and synccheck runs note their verdict; the clean run
# has none and says what was covered; every session replays.
# Writes $OUT/sessions/cuda_memcheck_{gather,embed,clean,live,uninit,race,sync}.yaml (fixtures for
# sessions/cuda/), their *.sanitizer.{xml,txt}, names.txt (what each package carries for names),
# dump_*.txt, screen_live.txt, bench.txt, logs/.
# Exit 0 all pass, 1 a check failed, 2 the build, the compile or the tool is missing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin memcheck
gpu_environment
gpu_runner
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ "$DEV" = cuda ]; then
  [ -n "$CS" ] || { echo "FAIL no compute-sanitizer on this box"; exit 2; }
  export AOTIDBG_COMPUTE_SANITIZER=$CS
  "$CS" --version | tail -1
else   # the CPU rehearsal: a stand-in that is found and never run (a CPU package is refused first)
  printf '#!/bin/sh\nexit 99\n' > "$W/compute-sanitizer"; chmod +x "$W/compute-sanitizer"
  export AOTIDBG_COMPUTE_SANITIZER=$W/compute-sanitizer
fi

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
class Uninit(torch.nn.Module):   # the matmul is an extern call: inductor cannot fold the empty away
    def forward(self, x):
        y = x.new_empty(x.shape[1], x.shape[1])
        return torch.relu(x @ y)
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
    build("uninit", Uninit(), (torch.randn(4, 16, device=dev),))
    build("mlp_clean", MLP().eval(), (torch.randn(4, 16, device=dev),))
PY
grep compiled "$OUT/logs/compile.log"

step "what each package carries for the user's names (torch here)"
python3 - "$OUT" <<'PY' | tee "$OUT/names.txt"
import re, sys, zipfile
for name in ("gather_noassert", "embed_noassert"):
    z = zipfile.ZipFile(f"{sys.argv[1]}/{name}.pt2")
    cpp = next(n for n in z.namelist() if n.endswith(".wrapper.cpp"))
    text = z.read(cpp).decode(errors="replace")
    print(name, "inputs_info_:", re.findall(r'inputs_info_\[\d+\]\.name = "([^"]*)"', text))
    print(name, "constants_info_ original_fqn:", re.findall(r'constants_info_\[\d+\]\.original_fqn = "([^"]*)"', text))
    m = re.search(r'in_spec_ = R"\((.*?)\)";', text, re.S)
    print(name, "in_spec_ names a keyword input:", bool(m and '"context": "[\\"' in m.group(1)))
    for user in ("table", "idx", "ids"):   # as a word: wrapper.cpp's own C++ (`size_t idx`) counts too
        where = [(n.split("/")[-1], m.group(0).decode(errors="replace")) for n in z.namelist() if not n.endswith(".so")
                 for m in [re.search(rb".{0,30}\b" + user.encode() + rb"\b.{0,30}", z.read(n))] if m]
        print(name, f"'{user}' appears in:", where or "nothing")
PY
printf 'inputs:\n  - {name: table, shape: [8, 4], dtype: float32, device: %s, fill: randn, seed: 1}\n  - {name: idx, shape: [3], dtype: int64, device: %s, fill: full, value: 9}\n' "$DEV" "$DEV" > "$OUT/gather.inputs.yaml"
printf 'inputs:\n  - {shape: [4, 16], dtype: float32, device: %s, fill: randn, seed: 3}\n' "$DEV" > "$OUT/uninit.inputs.yaml"
printf 'inputs:\n  - {shape: [1, 4], dtype: int64, device: %s, fill: full, value: 100000000}\n' "$DEV" > "$OUT/embed.inputs.yaml"
printf 'inputs:\n  - {shape: [4, 16], dtype: float32, device: %s, fill: randn, seed: 2}\n' "$DEV" > "$OUT/mlp.inputs.yaml"

rec() {  # rec NAME PKG SPEC ARGS...
  local name=$1 pkg=$2 spec=$3; shift 3
  timeout 300 "$AOTIDBG" run "$OUT/$pkg.pt2" --inputs "$OUT/$spec.inputs.yaml" "$@" --record "$OUT/sessions/$name.yaml" \
    > "$OUT/logs/$name.log" 2>&1
  echo "$name: exit $?"; tail -8 "$OUT/logs/$name.log" | sed 's/^/    /'
  timeout 60 "$AOTIDBG" replay "$OUT/sessions/$name.yaml" --dump > "$OUT/dump_$name.txt" 2>&1
}
if [ "$DEV" != cuda ]; then   # the CPU rehearsal stops here: what runs without a GPU
  step "CPU rehearsal: a CPU package is refused, run and live"
  rc=0
  for front in run live; do
    if [ $front = run ]; then set -- run "$OUT/gather_noassert.pt2"; else set -- "$OUT/gather_noassert.pt2" --headless 80x24 --keys q; fi
    timeout 60 "$AOTIDBG" "$@" --inputs "$OUT/gather.inputs.yaml" --memcheck --record "$OUT/sessions/refused.yaml" \
      > "$OUT/logs/refused_$front.log" 2>&1 < /dev/null
    r=$?
    if [ $r = 2 ] && grep -q "checks CUDA kernels" "$OUT/logs/refused_$front.log"; then echo "PASS $front: refused with exit 2"
    else echo "FAIL $front: exit $r"; tail -3 "$OUT/logs/refused_$front.log"; rc=1; fi
  done
  timeout 120 "$AOTIDBG" run "$OUT/gather_noassert.pt2" --inputs "$OUT/gather.inputs.yaml" --values 64 \
    --record "$OUT/sessions/cpu_gather.yaml" > "$OUT/logs/cpu_gather.log" 2>&1
  if grep -q "user_name: table" "$OUT/sessions/cpu_gather.yaml"; then echo "PASS cpu: the spec's label table names arg0_1"
  else echo "FAIL cpu: no user_name table in the session"; rc=1; fi
  exit $rc
fi
step "runs under compute-sanitizer"
rec cuda_memcheck_gather gather_noassert gather --memcheck
rec cuda_memcheck_embed embed_noassert embed --memcheck
rec cuda_memcheck_clean mlp_clean mlp --memcheck
rec cuda_memcheck_uninit uninit uninit --memcheck=initcheck
rec cuda_memcheck_race mlp_clean mlp --memcheck=racecheck
rec cuda_memcheck_sync mlp_clean mlp --memcheck=synccheck
rec cuda_plain_gather gather_noassert gather --blocking --values 64   # the same fault without the tool
step "live (the TUI start) under --memcheck: c runs to the fault"
timeout 300 "$AOTIDBG" "$OUT/gather_noassert.pt2" --inputs "$OUT/gather.inputs.yaml" --memcheck \
  --record "$OUT/sessions/cuda_memcheck_live.yaml" --headless 110x46 --keys "c pane-router" --dump-screen \
  > "$OUT/screen_live.txt" 2> "$OUT/logs/cuda_memcheck_live.log" < /dev/null
echo "live: exit $?"; tail -4 "$OUT/logs/cuda_memcheck_live.log" | sed 's/^/    /'
timeout 60 "$AOTIDBG" replay "$OUT/sessions/cuda_memcheck_live.yaml" --dump > "$OUT/dump_cuda_memcheck_live.txt" 2>&1
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
def first_error(s):
    e = events(s, "error")
    return e[0].get("fields") or {} if e else {}
for name, row, user, index_user in (("cuda_memcheck_gather", 9, "table", "idx"),
                                    ("cuda_memcheck_embed", 100000000, "e.weight", None),
                                    ("cuda_memcheck_live", 9, "table", "idx")):
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
    check(f"({user})" in str(e.get("hit")) and e.get("tensor_user") == user,
          f"{name}: the hit names the table by the user's name {user} ({e.get('tensor_user')}: {e.get('hit')})")
    check(bool(t) and t[0].get("shape") == ([8, 4] if row == 9 else [10, 8]),
          f"{name}: the tensor is the table ({t[0].get('shape') if t else None})")
    if index_user:
        check(f"({index_user})" in str(e.get("by_index")), f"{name}: the index element by the user's name ({e.get('by_index')})")
    f = first_error(s)
    check(f.get("memcheck_user") == user and str(f.get("index_value")) == str(row) and f.get("index_at", "").startswith("["),
          f"{name}: the route fields (memcheck_user {f.get('memcheck_user')}, index_at {f.get('index_at')}, index_value {f.get('index_value')})")
    check(any("compute-sanitizer memcheck reported" in n for n in s.get("notes") or []), f"{name}: the tool's verdict is noted")
log = open(os.path.join(out, "logs", "cuda_memcheck_gather.log")).read()
check("(table)" in log and "element [9, 0]" in log, "cuda_memcheck_gather: the run's summary names table and row 9")
scr = open(os.path.join(out, "screen_live.txt")).read()
check("compute-sanitizer:" in scr and "(table)" in scr, "cuda_memcheck_live: the router pane shows the report by the user's name")
s = load("cuda_memcheck_uninit")
ev = [e for e in events(s, "memcheck") if e.get("tool") == "initcheck" and e.get("tensor")]
print("      initcheck:", [(e.get("name"), e.get("what"), e.get("hit"), e.get("count")) for e in events(s, "memcheck")][:4], [n for n in s.get("notes") or [] if "compute-sanitizer" in n])
# the empty [16, 16] buffer the matmul reads (the runner's own statistics read it too, before the launch)
ev = [e for e in ev if "[16, 16]" in str(e.get("hit"))]
check(bool(ev) and ev[0].get("element") and ev[0].get("place") == "inside",
      f"cuda_memcheck_uninit: initcheck names the unwritten tensor and element ({ev[0].get('hit') if ev else None})")
for n, tool in (("cuda_memcheck_race", "racecheck"), ("cuda_memcheck_sync", "synccheck")):
    s = load(n)
    notes = [x for x in s.get("notes") or [] if x.startswith("compute-sanitizer " + tool)]
    print(f"      {tool}:", notes, [(e.get("what"), e.get("hit")) for e in events(s, "memcheck")][:3])
    check(bool(notes) and s.get("end_state") == "complete", f"{n}: the tool's verdict is noted, the run complete ({s.get('end_state')})")
s = load("cuda_memcheck_clean")
check(not events(s, "memcheck"), "cuda_memcheck_clean: no memcheck event")
check(any("reported no error over the" in n for n in s.get("notes") or []), "cuda_memcheck_clean: says what a clean run covered")
check(len(events(s, "kernel")) > 0 and events(s, "output"), "cuda_memcheck_clean: kernels and outputs recorded")
check(s.get("end_state") == "complete", f"cuda_memcheck_clean: end_state {s.get('end_state')}")
for n in ("cuda_memcheck_gather", "cuda_memcheck_embed", "cuda_memcheck_clean", "cuda_memcheck_live"):
    d = open(os.path.join(out, f"dump_{n}.txt")).read()
    check(("memcheck" in d) if n != "cuda_memcheck_clean" else ("kernel" in d), f"{n}: replay --dump shows it")
    if n in ("cuda_memcheck_gather", "cuda_memcheck_live"):
        check("tensor_user=table" in d, f"{n}: replay --dump shows the user's name table")
print("ALL PASS" if not fails else f"{fails} FAILED")
sys.exit(1 if fails else 0)
PY
rc=${PIPESTATUS[0]}

step "slowdown (bench_memcheck.sh: plain vs --memcheck on the clean package)"
AOTIDBG=$AOTIDBG timeout 400 bash "$ROOT/tests/bench/bench_memcheck.sh" "$OUT/mlp_clean.pt2" "$OUT/mlp.inputs.yaml" 3 \
  2>&1 | tee "$OUT/bench.txt"
exit "$rc"
