#!/usr/bin/env bash
# build_plain_loader.sh OUT_BINARY — builds tests/bench/plain_loader.cpp against
# the libtorch of python3's torch (the same one aotidbg-runner links), with its
# CUDA libraries when that torch has them. Skips the build when OUT_BINARY is
# newer than the source. Exit 0 built, 1 with the compiler's message.
set -eu
SRC="$(cd "$(dirname "$0")" && pwd)/plain_loader.cpp"
OUT="$1"
[ "$OUT" -nt "$SRC" ] && exit 0
TORCH="$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')"
ABI="$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')"
LIBS=(-ltorch -ltorch_cpu -lc10)
[ -e "$TORCH/lib/libtorch_cuda.so" ] && LIBS+=(-ltorch_cuda -lc10_cuda)
mkdir -p "$(dirname "$OUT")"
# --no-as-needed: the CUDA libraries register the device at load (DESIGN §3).
g++ -std=c++20 -O2 -D_GLIBCXX_USE_CXX11_ABI="$ABI" -I"$TORCH/include" \
    -I"$TORCH/include/torch/csrc/api/include" "$SRC" -o "$OUT.tmp" -rdynamic \
    -L"$TORCH/lib" -Wl,--no-as-needed "${LIBS[@]}" -Wl,--as-needed -Wl,-rpath,"$TORCH/lib"
mv "$OUT.tmp" "$OUT"
