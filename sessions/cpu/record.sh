#!/bin/sh
# Records the CPU sessions under sessions/cpu/ that walkthroughs replay (run from the repository
# root, with aotidbg built in build/ and torch installed):
#   oob_item_tower.yaml  an item tower (tests/models/model_oob_named.py, copied as item_tower.py so
#                        its stack traces name that file) fed the id 137 for a 100-row embedding
#                        table; compiled with the printer and provenance tracking, run with
#                        --values 64 so the index tensor's values are in the session.
# usage: sh sessions/cpu/record.sh [BUILD_DIR]
set -eu
ROOT=$(pwd)
B=${1:-$ROOT/build}
W=$(mktemp -d /tmp/aotidbg-record.XXXXXX)
trap 'rm -rf "$W"' EXIT
cp tests/models/model_oob_named.py "$W/item_tower.py"
cd "$W"
python3 - <<'PY'
import numpy as np
import torch
import item_tower
spec = item_tower.oob_named()
ep = torch.export.export(spec["module"], (), kwargs=spec["kwargs"])
configs = {"aot_inductor.debug_intermediate_value_printer": "1", **spec["configs"]}
torch._inductor.aoti_compile_and_package(ep, package_path="item_tower.pt2", inductor_configs=configs)
np.save("ids.npy", np.array([[3, 14, 15, 92], [65, 35, 137, 79]]))
PY
cat > item_tower.inputs.yaml <<'YAML'
inputs:
  - {shape: [2, 4], dtype: int64, device: cpu, fill: file, file: ids.npy}
YAML
"$B/aotidbg" run item_tower.pt2 --inputs item_tower.inputs.yaml --values 64 --record oob_item_tower.yaml || true
cp oob_item_tower.yaml "$ROOT/sessions/cpu/"
echo "recorded $ROOT/sessions/cpu/oob_item_tower.yaml"
