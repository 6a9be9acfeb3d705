#!/usr/bin/env bash
# route_families_gpu.sh — fresh, real CUDA error text for the error router
# (issue 14): each case makes torch 2.11 / Triton / the CUDA runtime fail one
# way, in its own process (a device-side assert or an illegal access kills the
# CUDA context), and keeps what it printed. The router has never seen these
# logs: they check that its families hold on the real wording of this torch.
#
# usage (from the repository root, on the GPU box; needs only torch + CUDA):
#   OUT=/path/to/results bash tests/gpu/route_families_gpu.sh
# Writes to $OUT: one NAME.log per case, LABELS.tsv (file, expected route,
# what was done; the format of ../shared/corpus/*/LABELS.tsv), summary.txt.
# Then, on a dev machine with aotidbg built:
#   bash tests/gpu/check_route_labels.sh $OUT build/aotidbg
# prints the score, every miss, and each log's platform (expected: cuda).
# Exit 0 when every case produced its error text, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?set OUT to a results folder}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
printf 'file\troute\tsource\n' >"$OUT/LABELS.tsv"
: >"$OUT/summary.txt"
status=0

# case NAME ROUTE WHAT PYTHON-CODE: runs the code in a fresh python; the log is its stdout+stderr.
# The code is a file, not `python -c`: @triton.jit needs its function's source in a file.
case_() {
  local name=$1 route=$2 what=$3 code=$4
  mkdir -p "$OUT/src" && printf '%s\n' "$code" >"$OUT/src/$name.py"
  (cd "$OUT" && timeout 300 env ${ENVV:-} "$PY" "src/$name.py") >"$OUT/$name.log" 2>&1
  local rc=$?
  printf '%s.log\t%s\t%s\n' "$name" "$route" "$what" >>"$OUT/LABELS.tsv"
  if [ "$rc" -eq 0 ] || [ ! -s "$OUT/$name.log" ]; then
    echo "$name: did not fail as meant (exit $rc)" | tee -a "$OUT/summary.txt"; status=1
  else
    echo "$name: exit $rc, $(wc -l <"$OUT/$name.log") lines" | tee -a "$OUT/summary.txt"
  fi
}

case_ oom_alloc out-of-memory "torch.empty of 4 TiB on cuda" '
import torch
torch.empty(1 << 42, dtype=torch.uint8, device="cuda")'

case_ oom_compiled out-of-memory "torch.compile of a matmul whose output does not fit" '
import torch
f = torch.compile(lambda a: (a @ a.T).sum())
f(torch.randn(1 << 20, 1 << 12, device="cuda", dtype=torch.float16))'

case_ two_devices device-mismatch "mm of a cuda and a cpu tensor" '
import torch
torch.mm(torch.randn(4, 4, device="cuda"), torch.randn(4, 4))'

case_ bad_ordinal device-mismatch "a tensor on cuda:7 of a 1-GPU box" '
import torch
torch.zeros(1, device="cuda:7")'

ENVV=CUDA_LAUNCH_BLOCKING=1 case_ aten_index_assert triton-index-oob "eager index_select past the end, blocking" '
import torch
x = torch.randn(8, 4, device="cuda")
print(x.index_select(0, torch.tensor([1, 9], device="cuda")).sum().item())'

case_ inductor_index_assert triton-index-oob "torch.compile gather with an index past a dynamic size" '
import torch
@torch.compile(dynamic=True)
def f(t, i):
    return t[i] * 2
t = torch.randn(16, 8, device="cuda")
print(f(t, torch.tensor([0, 3, 21], device="cuda")).sum().item())'

case_ triton_ima illegal-memory-access "a Triton kernel reading 2^40 elements past its pointer, no mask" '
import torch, triton, triton.language as tl
@triton.jit
def k(p, o, off):
    i = tl.arange(0, 16)
    tl.store(o + i, tl.load(p + off + i))
x = torch.zeros(16, device="cuda"); y = torch.empty_like(x)
k[(1,)](x, y, 1 << 40); torch.cuda.synchronize(); print(y)'

case_ nan_assert nan-inf "torch.compile with nan_asserts on log of a negative" '
import torch
torch._inductor.config.nan_asserts = True
f = torch.compile(lambda a: torch.log(a - 10.0) * 2)
print(f(torch.rand(64, device="cuda")).sum().item())'

case_ assert_close wrong-output "assert_close of compiled vs eager with a planted difference" '
import torch
f = torch.compile(lambda a: torch.sin(a) + 1)
x = torch.randn(64, device="cuda")
torch.testing.assert_close(f(x) + 1e-2, torch.sin(x) + 1)'

case_ no_fake custom-op "export of a custom op with no fake impl" '
import torch
@torch.library.custom_op("aotidbg_t::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2
class M(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aotidbg_t.twice(x).nonzero()
torch.export.export(M(), (torch.randn(8, device="cuda"),))'

case_ dynamic_constraint dynamic-shape "export with a Dim for a dimension the model fixes" '
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x.view(4, -1) * 2
b = torch.export.Dim("b", min=2, max=64)
torch.export.export(M(), (torch.randn(4, 8, device="cuda"),), dynamic_shapes={"x": {0: b}})'

case_ triton_compile compile-error "a Triton kernel that names an undefined value" '
import torch, triton, triton.language as tl
@triton.jit
def k(p):
    tl.store(p + tl.arange(0, 16), not_defined_anywhere)
k[(1,)](torch.zeros(16, device="cuda"))'

cat "$OUT/summary.txt" >&2
exit $status
