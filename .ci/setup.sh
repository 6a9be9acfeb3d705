#!/usr/bin/env bash
# Installs what aotidbg needs to build and test on Debian/Ubuntu (run as root or with sudo).
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config \
  libncurses-dev libyaml-dev libzip-dev libcjson-dev libelf-dev libssl-dev libexpat1-dev libgloo-dev \
  tmux groff-base man-db clang libclang-rt-14-dev valgrind \
  openssh-client openssh-server zlib1g-dev >/dev/null
python3 -m pip install -q torch==2.13.0 numpy pytest pytest-xdist pyyaml expecttest
python3 -c "import torch; print('torch', torch.__version__)"
