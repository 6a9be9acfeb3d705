#!/usr/bin/env bash
# fetch_wrapper_gpu.sh — compiles tests/models/model_eager_gpt.py's bf16 nanoGPT for CUDA the usual way
# (printer on, no provenance) and writes what a CPU box needs to study its wrapper: $OUT/wrapper.cpp,
# $OUT/files.txt (the package's file list), $OUT/graph.txt (the exported graph, node by node).
#   OUT=DIR bash tests/gpu/fetch_wrapper_gpu.sh      (DEV=cpu D=64 SEQ=16 rehearses it on a CPU box)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEV=${DEV:-cuda} D=${D:-384} SEQ=${SEQ:-128}
mkdir -p "$OUT"
python3 - "$ROOT" "$OUT" "$DEV" "$D" "$SEQ" <<'PY'
import importlib.util, os, sys, zipfile
import torch
root, out, dev, d, seq = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
spec = importlib.util.spec_from_file_location("m", os.path.join(root, "tests/models/model_eager_gpt.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
torch.manual_seed(11)
torch.set_default_device(dev)
m = mod.GPT(vocab=512, d=d, heads=d // 64 if d >= 128 else 4, layers=6, seq=seq).eval().to(dev).to(torch.bfloat16)
x = (torch.randint(0, 512, (2, seq), device=dev),)
ep = torch.export.export(m, x)
open(os.path.join(out, "graph.txt"), "w").write(str(ep.graph))
pkg = os.path.join(out, "gpt.pt2")
torch._inductor.aoti_compile_and_package(ep, package_path=pkg,
                                         inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
z = zipfile.ZipFile(pkg)
with open(os.path.join(out, "files.txt"), "w") as f:
    for i in z.infolist():
        f.write(f"{i.file_size:12d} {i.filename}\n")
for i in z.infolist():
    if i.filename.endswith((".cpp", ".json", ".txt")) and i.file_size < 20 << 20:
        dst = os.path.join(out, "pkg", i.filename)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "wb").write(z.read(i))
print("torch", torch.__version__)
PY
w=$(find "$OUT/pkg" -name '*.wrapper.cpp' -o -name 'wrapper.cpp' | head -1)
[ -z "$w" ] && w=$(find "$OUT/pkg" -name '*.cpp' | xargs ls -S | head -1)
cp "$w" "$OUT/wrapper.cpp"
rm -f "$OUT/gpt.pt2"
ls -la "$OUT"
