#!/usr/bin/env bash
# run_packages_gpu.sh — issue 15 on the H200 (torch 2.11): what torch runs on CUDA, aotidbg runs:
#   1. torch.cond / while_loop packages built WITHOUT the printer: launch interposition names the
#      kernels inside the branches, each with its branch (true_graph_0, false_graph_0,
#      while_loop_body_graph_0), on both sides of the predicate; outputs equal eager;
#   2. the cond package WITH the printer: mode printer, the branch kernels it does not reach come
#      from interposition with their branch (hidden_kernels says how many the printer misses);
#      with --reinstrument, hooks inside the branches give them with tensors;
#   3. weights outside the .so on CUDA: binary_blob and pickle_weights packages pass the checklist's
#      package.weights row and run with every output equal to eager's;
#   4. complex64 on CUDA: a complex input built from a .npy (c8), complex and real outputs recorded
#      as complex64 with their values (real, imaginary pairs) equal to eager and statistics over |z|.
# The reference is always eager: the exported program's .module() run in python. torch 2.11's
# Python aoti_load_package segfaults on every CUDA package on the H200 image (GPU call 5), so it
# is never called here.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_packages_gpu.sh
#
# AOTIDBG is the carried front end (DESIGN.md section 7); the runner is built here
# (build_runner.sh). Under $OUT: summary.txt (one PASS/FAIL line a check; exit 0 when all
# pass), sessions *.yaml, *.log, check rows. About 3 minutes (most of it compiling 6 packages).
# DEV=cpu rehearses it on a CPU box (AOTIDBG_RUNNER set: no runner build; interposition is
# CUDA only, so the printer-less cond/while cases are then skipped).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:?set OUT to a folder for the results}
AOTIDBG=${AOTIDBG:-aotidbg}
DEV=${DEV:-cuda}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/aotidbg-packages.XXXXXX)
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
FAILS=0
check() { if eval "$2"; then say "PASS $1"; else say "FAIL $1"; FAILS=$((FAILS + 1)); fi; }

say "== $(date -u) on $(hostname) DEV=$DEV"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >> "$SUMMARY" 2>&1
env -u LD_LIBRARY_PATH python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >> "$SUMMARY" 2>&1
"$AOTIDBG" --version >> "$SUMMARY" 2>&1 || { say "FAIL: the front end does not start ($AOTIDBG)"; exit 2; }
if [ -z "${AOTIDBG_RUNNER:-}" ]; then
    bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$W/build" "$OUT/build.log" RelWithDebInfo || { say "FAIL: runner build"; exit 2; }
    export AOTIDBG_RUNNER=$W/build/aotidbg-runner
fi
export AOTIDBG_DATA_DIR=$ROOT AOTIDBG_CACHE_DIR=$W/cache

# the packages, their inputs (.npy + specs) and eager outputs (.npy)
cat > "$W/make_pkgs.py" <<'PY'
import json, os, sys
import numpy as np, torch
from torch import nn
out, dev = sys.argv[1], sys.argv[2]
torch.manual_seed(0)

class Cond(nn.Module):                 # a kernel before (the predicate), one in each branch, one after
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 64)
    def forward(self, x, flag):
        def t(x):
            return torch.relu(self.lin(x)) + 1
        def f(x):
            return torch.sigmoid(x) * 2
        return torch.cond(flag.sum() > 0, t, f, (x,)), x * 3

class While(nn.Module):                # y = sin(y) + 1, `it` rounds
    def forward(self, it, x):
        def cond_fn(i, y):
            return i > 0
        def body_fn(i, y):
            return i - 1, torch.sin(y) + 1
        return torch._higher_order_ops.while_loop(cond_fn, body_fn, (it, x))

class LinBuf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 128)
        self.register_buffer("shift", torch.arange(128.0))
    def forward(self, x):
        return torch.relu(self.lin(x)) + self.shift

class Cplx(nn.Module):                 # complex in, complex and real out
    def forward(self, z, x):
        w = z * z + x
        return w, torch.abs(w)

def save_case(name, inputs):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    lines = ["inputs:"]
    for i, t in enumerate(inputs):
        np.save(os.path.join(out, name, f"in{i}.npy"), t.cpu().numpy())
        dt = str(t.dtype).replace("torch.", "")
        lines.append(f"  - {{shape: {list(t.shape)}, dtype: {dt}, device: {dev}, fill: file, file: in{i}.npy}}")
    open(os.path.join(out, name, "spec.yaml"), "w").write("\n".join(lines) + "\n")

def build(module, inputs, pkg, configs, cases):
    module = module.eval().to(dev)
    inputs = tuple(t.to(dev) for t in inputs)
    ep = torch.export.export(module, inputs)
    eager = ep.module()                # the reference: the exported program run eagerly
    for case, ins in cases.items():    # before the compile: a failed compile still leaves its cases
        ins = tuple(t.to(dev) for t in ins)
        with torch.no_grad():
            res = eager(*ins)
        res = res if isinstance(res, (tuple, list)) else (res,)
        save_case(case, ins)
        for i, r in enumerate(res):
            np.save(os.path.join(out, case, f"out{i}.npy"), r.detach().cpu().numpy())
    try:
        torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, pkg + ".pt2"),
                                                 inductor_configs=configs)
    except Exception as e:             # one FAIL for its cases; the other packages still build
        print(f"COMPILE FAILED {pkg}: {type(e).__name__}: {e}", flush=True)

P0 = {"aot_inductor.debug_intermediate_value_printer": "0"}
P1 = {"aot_inductor.debug_intermediate_value_printer": "1"}
x = torch.randn(32, 64)
cond = Cond()
yes, no = torch.ones(3), -torch.ones(3)
build(cond, (x, yes), "cond_plain", P0, {"cond_true": (x, yes), "cond_false": (x, no)})
build(cond, (x, yes), "cond_printer", P1, {})
build(While(), (torch.tensor(3), torch.randn(16, 16)), "while_plain", P0,
      {"while3": (torch.tensor(3), torch.randn(16, 16))})
lin = LinBuf()
xl = torch.randn(8, 256)
for form in ("binary_blob", "pickle_weights"):
    build(lin, (xl,), "w_" + form, dict(P1, **{"aot_inductor.package_constants_in_so": False,
          "aot_inductor.package_constants_on_disk_format": form}), {"lin": (xl,)})
zc = torch.randn(6, 5, dtype=torch.complex64)
zc[0, 0] = 0                           # a zero element: counted in zeros
build(Cplx(), (zc, torch.randn(6, 5)), "cplx", P1, {"cplx": (zc, torch.randn(6, 5))})
print("built")
PY
cd "$W"   # torch's printer writes tmp/ under the working folder
# python without the carried front end's LD_LIBRARY_PATH (its libyaml/libzip/... are for aotidbg)
PY="env -u LD_LIBRARY_PATH python3 -X faulthandler"
$PY "$W/make_pkgs.py" "$W" "$DEV" > "$OUT/compile.log" 2>&1
rc=$?
say "packages built: $(cd "$W" && ls *.pt2 2>/dev/null | tr '\n' ' ')(make_pkgs exit $rc)"
[ $rc = 0 ] && ! grep -q "COMPILE FAILED" "$OUT/compile.log" || { say "FAIL: compiling the packages (compile.log; the cases of the missing ones fail below)"; FAILS=$((FAILS + 1)); grep -v Warning "$OUT/compile.log" | grep -i "fail\|error\|fault" | tail -20 | tee -a "$SUMMARY"; }

# checks a session: mode, kernels per branch, outputs against eager
cat > "$W/check_session.py" <<'PY'
"""check_session.py SESSION CASE_DIR [--mode M] [--branch B ...] [--no-branch B ...] [--source S]
[--tensors] [--hidden]: prints what it saw; exit 1 when something does not hold."""
import argparse, os, sys
import numpy as np, yaml
ap = argparse.ArgumentParser()
ap.add_argument("session"); ap.add_argument("case")
ap.add_argument("--mode"); ap.add_argument("--branch", action="append", default=[])
ap.add_argument("--no-branch", action="append", default=[]); ap.add_argument("--source")
ap.add_argument("--tensors", action="store_true"); ap.add_argument("--hidden", action="store_true")
ap.add_argument("--hidden-consistent", action="store_true")   # +N hidden drops by what interposition named, only
ap.add_argument("--min-count", type=int, default=1)
a = ap.parse_args()
s = yaml.safe_load(open(a.session))
ev = s.get("events") or []
ks = [e for e in ev if e.get("kind") == "kernel"]
bad = []
print(f"mode={s.get('mode')} end_state={s.get('end_state')} kernels={len(ks)} hidden={s.get('hidden_kernels')}")
for k in ks:
    print(f"  kernel {k.get('name')} branch={k.get('branch', '')} source={k.get('source')} "
          f"tensors={len(k.get('tensors') or [])}")
if a.mode and s.get("mode") != a.mode:
    bad.append(f"mode {s.get('mode')}, wanted {a.mode}")
if s.get("end_state") != "complete":
    bad.append(f"end_state {s.get('end_state')}")
for b in a.branch:
    inb = [k for k in ks if (k.get("branch") or "") == b]
    if len(inb) < a.min_count:
        bad.append(f"{len(inb)} kernel(s) in branch {b}, wanted at least {a.min_count}")
    if a.source and any(k.get("source") != a.source for k in inb):
        bad.append(f"branch {b} kernels not all from {a.source}")
    if a.tensors and not all(k.get("tensors") for k in inb):
        bad.append(f"branch {b} kernels without tensors")
for b in a.no_branch:
    if any((k.get("branch") or "") == b for k in ks):
        bad.append(f"a kernel in branch {b}, which did not run")
if a.hidden and not (s.get("hidden_kernels") or 0) > 0:
    bad.append("no hidden_kernels")
if a.hidden_consistent:   # torch 2.11's printer hooks a branch's Triton launches: only what it misses is hidden
    import re
    why = s.get("hidden_why") or ""
    m = re.match(r"(\d+) of (\d+) still hidden", why)
    interposed = [k for k in ks if k.get("source") == "interpose" and k.get("branch")]
    if interposed and (not m or int(m.group(1)) != (s.get("hidden_kernels") or 0) or int(m.group(1)) >= int(m.group(2))):
        bad.append(f"{len(interposed)} interposed branch kernel(s) but hidden_kernels {s.get('hidden_kernels')} did "
                   f"not drop (hidden_why: {why!r})")
    elif not interposed and m:
        bad.append(f"hidden dropped with no interposed branch kernel: {why!r}")
    else:
        print(f"  hidden: {s.get('hidden_kernels')} ({len(interposed)} interposed branch kernels): {why[:80]}")
outs = [e for e in ev if e.get("kind") == "output"]
tensors = outs[0]["tensors"] if outs else []
i = 0
while os.path.exists(os.path.join(a.case, f"out{i}.npy")):
    want = np.load(os.path.join(a.case, f"out{i}.npy"))
    if i >= len(tensors):
        bad.append(f"output {i} missing"); break
    t = tensors[i]
    got = np.array(t.get("values") or [], dtype=np.float64)
    if np.iscomplexobj(want):          # complex: (real, imaginary) pairs; statistics over |z|
        if t.get("dtype") != str(want.dtype):
            bad.append(f"output {i}: dtype {t.get('dtype')}, wanted {want.dtype}")
        got = got[0::2] + 1j * got[1::2] if got.size % 2 == 0 else got
        st = t.get("stats") or {}
        mag = np.abs(want.astype(np.complex128))
        if not (st and np.isclose(st.get("max", np.nan), mag.max(), rtol=1e-5)
                and np.isclose(st.get("min", np.nan), mag.min(), rtol=1e-5, atol=1e-6)
                and st.get("zeros") == int((want == 0).sum())):
            bad.append(f"output {i}: stats {st} are not over |z| (max {mag.max():.6g} min {mag.min():.6g})")
        else:
            print(f"  output {i}: statistics over |z| (max {st.get('max')})")
    if not t.get("values_complete") or got.size != want.size:
        bad.append(f"output {i}: {got.size} values, wanted {want.size}")
    elif not np.allclose(got.reshape(want.shape), want.astype(np.complex128 if np.iscomplexobj(want) else np.float64),
                         rtol=1e-4, atol=1e-5):
        bad.append(f"output {i}: max |diff| {np.abs(got.reshape(want.shape) - want).max():.3g}")
    else:
        print(f"  output {i} {list(want.shape)} equals eager")
    i += 1
if not i:
    bad.append("no eager outputs to compare")
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
PY

cd "$W"
run_case() {   # run_case TAG PKG CASE [run options...]
    local tag=$1 pkg=$2 case=$3; shift 3
    timeout 300 "$AOTIDBG" run "$pkg.pt2" --inputs "$case/spec.yaml" --values 100000 --record "$OUT/$tag.yaml" "$@" \
        > "$OUT/$tag.log" 2>&1
    echo "$tag: aotidbg run exit $?" >> "$SUMMARY"
}
verdict() {    # verdict NAME TAG CASE [check_session options...]
    local name=$1 tag=$2 case=$3; shift 3
    local rc=0
    $PY check_session.py "$OUT/$tag.yaml" "$case" "$@" > "$OUT/$tag.check" 2>&1 || rc=1
    check "$name" "[ $rc = 0 ]"
    grep BAD "$OUT/$tag.check" | sed 's/^/    /' | tee -a "$SUMMARY"
}

if [ "$DEV" = cuda ]; then
    run_case cond_plain_true cond_plain cond_true
    verdict "cond, no printer, flag > 0: interposed kernels of true_graph_0, none of false_graph_0, outputs = eager" \
        cond_plain_true cond_true --mode interpose --branch true_graph_0 --no-branch false_graph_0 --source interpose
    run_case cond_plain_false cond_plain cond_false
    verdict "cond, no printer, flag < 0: interposed kernels of false_graph_0, none of true_graph_0, outputs = eager" \
        cond_plain_false cond_false --mode interpose --branch false_graph_0 --no-branch true_graph_0 --source interpose
    run_case while_plain while_plain while3
    verdict "while_loop, no printer: 3 interposed body kernels in while_loop_body_graph_0, outputs = eager" \
        while_plain while3 --mode interpose --branch while_loop_body_graph_0 --min-count 3 --source interpose
    run_case cond_printer_true cond_printer cond_true
    verdict "cond with the printer: mode printer, true_graph_0's kernels (printer-hooked or interposed) carry their branch, +N hidden counts only what neither sees" \
        cond_printer_true cond_true --mode printer --hidden --hidden-consistent --branch true_graph_0 --no-branch false_graph_0
fi
run_case cond_reinstr_true cond_printer cond_true --reinstrument
verdict "cond with the printer, --reinstrument: true_graph_0 kernels hooked with tensors, outputs = eager" \
    cond_reinstr_true cond_true --mode reinstrument --branch true_graph_0 --no-branch false_graph_0 --tensors
run_case cond_reinstr_false cond_printer cond_false --reinstrument
verdict "cond with the printer, --reinstrument, flag < 0: false_graph_0 kernels with tensors, outputs = eager" \
    cond_reinstr_false cond_false --mode reinstrument --branch false_graph_0 --no-branch true_graph_0 --tensors

for form in binary_blob pickle_weights; do
    timeout 120 "$AOTIDBG" check "w_$form.pt2" --inputs lin/spec.yaml --format yaml > "$OUT/check_$form.yaml" 2> "$OUT/check_$form.log"
    echo "check w_$form exit $?" >> "$SUMMARY"
    grep -A6 'package.weights' "$OUT/check_$form.yaml" >> "$SUMMARY"
    check "$form on $DEV: the checklist's package.weights row passes" \
        "$PY -c \"import yaml,sys; r=[x for x in yaml.safe_load(open('$OUT/check_$form.yaml'))['checks'] if x['id']=='package.weights']; sys.exit(0 if r and r[0]['status']=='PASS' else 1)\""
    run_case "w_$form" "w_$form" lin
    verdict "$form on $DEV: the run completes, every output = eager" "w_$form" lin --mode printer
done
run_case cplx cplx cplx
verdict "complex64 on $DEV: complex input from .npy, outputs complex64 (a+bj pairs) and |w| equal eager, stats over |z|" \
    cplx cplx --mode printer

say "== $FAILS failed"
[ "$FAILS" = 0 ]
