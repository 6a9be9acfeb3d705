#!/bin/sh
# Records the two-rank sessions under sessions/cpu/ that the walkthrough 09-rank-hangs-in-collective
# replays (run from the repository root, with aotidbg built in build/, g++ and torch installed):
#   ranks_hang.rank0.yaml, ranks_hang.rank1.yaml
#     `aotidbg run --ranks 2` of ranks_allreduce (tests/models/model_ranks.py: relu(x @ w)[idx],
#     the functional all_reduce of the default group, h * 2 + 1), on gloo, --timeout 10; rank 1
#     hangs in its first kernel (a preloaded library wraps libtorch's aoti_torch_cpu_mm_out and never
#     returns on RANK=1, as tests/integration/test_ranks.py's hang test does), so rank 0 waits in
#     the all_reduce's wait_tensor until gloo's timeout (8 s, --timeout less 2 s).
# usage: sh sessions/cpu/record_ranks.sh [BUILD_DIR]
set -eu
ROOT=$(pwd)
B=${1:-$ROOT/build}
W=$(mktemp -d /tmp/aotidbg-record.XXXXXX)
trap 'rm -rf "$W"' EXIT
cp tests/models/model_ranks.py "$W/"
cd "$W"
cat > hang.cpp <<'CPP'
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
typedef void *H;
typedef int32_t (*mm_fn)(H, H, H);
extern "C" int32_t aoti_torch_cpu_mm_out(H out, H self, H mat2)
{
    const char *r = getenv("RANK");
    if (r && !strcmp(r, "1"))
        for (;;) pause();
    return ((mm_fn)dlsym(RTLD_NEXT, "aoti_torch_cpu_mm_out"))(out, self, mat2);
}
CPP
g++ -shared -fPIC -O1 -o libhang.so hang.cpp -ldl
printf '#!/bin/sh\nLD_PRELOAD="%s/libhang.so" exec "%s/aotidbg-runner" "$@"\n' "$W" "$B" > hanging-runner
chmod +x hanging-runner
python3 - <<'PY'
import numpy as np
import torch
import model_ranks
spec = model_ranks.ranks_allreduce()
with spec["guard"]():
    ep = torch.export.export(spec["module"], spec["inputs"])
    torch._inductor.aoti_compile_and_package(ep, package_path="allreduce.pt2")
for r in range(2):
    np.save(f"x{r}.npy", torch.randn(4, 8, generator=torch.Generator().manual_seed(100 + r)).numpy())
    np.save(f"idx{r}.npy", np.array([3, 0, 1, 2]))
    open(f"rank{r}.inputs.yaml", "w").write(
        "inputs:\n"
        f"  - {{shape: [4, 8], dtype: float32, device: cpu, fill: file, file: x{r}.npy}}\n"
        f"  - {{shape: [4], dtype: int64, device: cpu, fill: file, file: idx{r}.npy}}\n")
PY
AOTIDBG_RUNNER="$W/hanging-runner" "$B/aotidbg" run --ranks 2 allreduce.pt2 \
    --inputs rank0.inputs.yaml,rank1.inputs.yaml --timeout 10 --record ranks_hang.yaml || true
cp ranks_hang.rank0.yaml ranks_hang.rank1.yaml "$ROOT/sessions/cpu/"
echo "recorded $ROOT/sessions/cpu/ranks_hang.rank0.yaml and ranks_hang.rank1.yaml"
