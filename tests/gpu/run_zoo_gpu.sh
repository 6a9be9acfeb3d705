#!/usr/bin/env bash
# run_zoo_gpu.sh — the --eager zoo (tests/zoo/zoo_eager.py) on the H200: each model built the usual way
# for CUDA by the image's torch, run against its own program and a changed weight, with the default map
# (the compiler's record, lowered again there) and the float64 yardstick; the eager reference is then
# computed by Python (aotidbg_record.py), never by the runner's fork.
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg ZOO="rope_decoder,vit_cls,..." bash tests/gpu/run_zoo_gpu.sh
#
# ZOO defaults to the CI subset plus a few transformers models; each model's package, programs and
# sessions land in $OUT/zoo/<model>-cuda-<key>/, the table in $OUT/zoo.tsv and summary.txt.
# Exit 0 when every counted model passes, 1 when one fails, 2 when the runner build failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin zoo
gpu_environment
gpu_runner
ZOO=${ZOO:-rope_decoder,vit_cls,gn_unet_fp16,moe_bf16,convbn,bert,llama,vit,t5,convnext}
step "the zoo: $ZOO"
timeout "${ZOO_TIMEOUT:-480}" python3 "$ROOT/tests/zoo/zoo_eager.py" --only "$ZOO" --device "$DEV" \
  --build "$(dirname "$(command -v "$AOTIDBG")")" --cache "$OUT/zoo" --tsv "$OUT/zoo.tsv" \
  > "$OUT/logs/zoo.log" 2>&1
rc=$?
grep -v "Warning\|return cls" "$OUT/logs/zoo.log" | tee "$OUT/summary.txt"
echo "exit $rc" >> "$OUT/summary.txt"
rm -rf "$OUT"/zoo/*/pkg.pt2 "$OUT"/zoo/*/own.pt2 "$OUT"/zoo/*/changed.pt2 "$OUT"/zoo/*/.aotidbg-eager   # sessions and tables only
exit $rc
