#!/usr/bin/env bash
# fetch_ssh_debs.sh — downloads Debian's OpenSSH client and server and the
# libraries they link (ldd on this machine) into tests/gpu/ssh-debs/ (ignored
# by git), for run_remote_gpu.sh: the H200 image has no ssh or sshd, and the
# lead carries this folder there (`carry: ["tests/gpu/ssh-debs"]`).
#   bash tests/gpu/fetch_ssh_debs.sh      (needs apt-get; run as root or with sudo)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$ROOT/tests/gpu/ssh-debs
mkdir -p "$D"
cd "$D"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq >/dev/null || true
# openssh plus the package of every library sshd and ssh load here (not libc:
# the H200's own glibc is newer and is what the binaries run on).
pkgs="openssh-client openssh-server"
for bin in /usr/sbin/sshd /usr/bin/ssh /usr/bin/ssh-keygen; do
  for lib in $(ldd "$bin" | awk '$3 ~ /^\// {print $3}'); do
    case "$(basename "$lib")" in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*) continue;; esac
    p=$(dpkg -S "$lib" "$(readlink -f "$lib")" "/usr$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$p" ] && pkgs="$pkgs $p"
  done
done
pkgs=$(echo $pkgs | tr ' ' '\n' | sort -u)
echo "downloading: $(echo $pkgs)"
apt-get download $pkgs >/dev/null
ls -la "$D"
du -sh "$D"
