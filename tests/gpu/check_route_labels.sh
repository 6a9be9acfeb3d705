#!/usr/bin/env bash
# check_route_labels.sh DIR [AOTIDBG] — routes every log of a labelled folder
# (DIR/LABELS.tsv: file, route or a|b, source) with the real binary and prints
# the score, each miss with the line the router based its answer on, and the
# platform it saw. For route_families_gpu.sh's output; works on any corpus folder.
set -uo pipefail
DIR=${1:?usage: check_route_labels.sh DIR [AOTIDBG]}
BIN=${2:-build/aotidbg}
ok=0; n=0
while IFS=$'\t' read -r file want _; do
  [ "$file" = file ] && continue
  out=$("$BIN" route "$DIR/$file" --format yaml)
  got=$(printf '%s\n' "$out" | sed -n 's/^route: //p' | head -1)
  plat=$(printf '%s\n' "$out" | sed -n 's/^platform: //p' | head -1)
  n=$((n + 1))
  if [[ "|$want|" == *"|$got|"* ]]; then
    ok=$((ok + 1)); echo "ok    $file: $got (platform $plat)"
  else
    why=$(printf '%s\n' "$out" | sed -n 's/^    text: //p' | head -1 | cut -c1-140)
    echo "MISS  $file: want $want, got $got (platform $plat): $why"
  fi
done <"$DIR/LABELS.tsv"
echo "$ok/$n routed as labelled"
[ "$ok" -eq "$n" ]
