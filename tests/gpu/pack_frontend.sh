#!/usr/bin/env bash
# pack_frontend.sh — installs the front end built here into DEST with the Debian libraries the
# GPU image lacks, so a device call can carry it (carry: [".gpufe"]) and run the whole program:
#   bash tests/gpu/pack_frontend.sh [BUILD (build)] [DEST (.gpufe)]
# There: export PATH=$PWD/.gpufe/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpufe/lib AOTIDBG=$PWD/.gpufe/bin/aotidbg
# (the runner is built there by tests/gpu/build_runner.sh; AOTIDBG_RUNNER points at it).
set -eu
BUILD=${1:-build} DEST=${2:-.gpufe}
rm -rf "$DEST"
cmake --install "$BUILD" --prefix "$DEST" > /dev/null
mkdir -p "$DEST/lib"
for lib in libyaml-0.so.2 libzip.so.4 libcjson.so.1 libelf.so.1 libexpat.so.1; do
  f=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
  [ -n "$f" ] && cp -L "$f" "$DEST/lib/"
done
grep -qx '/.gpufe/' .git/info/exclude 2>/dev/null || echo '/.gpufe/' >> "$(git rev-parse --git-common-dir)/info/exclude"
du -sh "$DEST"
