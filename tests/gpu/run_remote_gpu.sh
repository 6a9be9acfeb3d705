#!/usr/bin/env bash
# run_remote_gpu.sh — issue 20 on the H200: both ends on the GPU box, through a
# real ssh to localhost. The image has no ssh or sshd: Debian's OpenSSH client
# and server are carried as .debs (tests/gpu/fetch_ssh_debs.sh, folder
# tests/gpu/ssh-debs) and unpacked into a private prefix with dpkg -x; the
# libraries they need that the image lacks (ldd) are taken from the carried
# .debs too, and only those. Then: the runner and aotidbg-agent are built
# there, a CUDA package is checked, stepped live (headless) and recorded
# through `--remote root@127.0.0.1:PORT`, the sessions come back in $OUT, a
# connection is killed mid-run (nothing may be left on the GPU), and local vs
# remote times are compared.
#
#   OUT=DIR AOTIDBG=/path/to/carried/aotidbg [SRC=repo] [DEBS=repo/tests/gpu/ssh-debs] \
#     bash tests/gpu/run_remote_gpu.sh
#
# AOTIDBG is the front end built on the CPU box (DESIGN §7: cmake --install plus
# its libraries, LD_LIBRARY_PATH set by the caller). As root, it adds the
# `sshd` privilege-separation user and /run/sshd when missing (sshd refuses to
# start without them). Exit: 0 all checks pass; 1 a check failed; 2 setup
# (build, ssh binaries, sshd) failed. $OUT/summary.txt has one line per check.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${SRC:-$ROOT}
DEBS=${DEBS:-$SRC/tests/gpu/ssh-debs}
OUT=${OUT:-$(mktemp -d)}
AOTIDBG=${AOTIDBG:-aotidbg}
W=$(mktemp -d /tmp/aotidbg-remote-gpu.XXXXXX)
mkdir -p "$OUT" "$W/pkgs" "$W/ssh"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
FAILS=0
ok() { echo "PASS $*" | tee -a "$OUT/summary.txt"; }
bad() { echo "FAIL $*" | tee -a "$OUT/summary.txt"; FAILS=$((FAILS + 1)); }
SSHD_PID=
cleanup() {
  [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
  cp -r "$W/ssh/sshd.log" "$OUT/" 2>/dev/null
}
trap cleanup EXIT
: > "$OUT/summary.txt"

step "environment"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"

step "OpenSSH from the carried .debs (dpkg -x into $W/prefix)"
P=$W/prefix
ls "$DEBS"/*.deb >/dev/null 2>&1 || { echo "no .debs in $DEBS (run tests/gpu/fetch_ssh_debs.sh and carry the folder)"; exit 2; }
for d in "$DEBS"/*.deb; do dpkg -x "$d" "$P" || { echo "dpkg -x $d failed"; exit 2; }; done
SSHD=$P/usr/sbin/sshd SSH=$P/usr/bin/ssh KEYGEN=$P/usr/bin/ssh-keygen
# Only the libraries this image lacks come from the .debs: link them into one folder.
LIBS=$W/ssh-libs; mkdir -p "$LIBS"
for round in 1 2 3 4 5; do
  missing=$(for b in "$SSHD" "$SSH" "$KEYGEN"; do LD_LIBRARY_PATH=$LIBS ldd "$b"; done | awk '/not found/ {print $1}' | sort -u)
  [ -z "$missing" ] && break
  for lib in $missing; do
    f=$(find "$P" -name "$lib" \( -type f -o -type l \) | head -1)
    [ -n "$f" ] && ln -sf "$(readlink -f "$f")" "$LIBS/$lib" || echo "  $lib: not in the carried .debs"
  done
done
for b in "$SSHD" "$SSH"; do echo "ldd $b:"; LD_LIBRARY_PATH=$LIBS ldd "$b"; done > "$OUT/ldd.txt" 2>&1
echo "libraries taken from the .debs: $(ls "$LIBS" | tr '\n' ' ')" | tee "$OUT/carried_libs.txt"
if grep -q "not found" "$OUT/ldd.txt"; then grep "not found" "$OUT/ldd.txt"; bad "ssh/sshd libraries"; exit 2; fi
LD_LIBRARY_PATH=$LIBS "$SSH" -V || { echo "the carried ssh does not run"; exit 2; }
ok "OpenSSH client and server run here from the carried .debs ($(LD_LIBRARY_PATH=$LIBS "$SSH" -V 2>&1))"

step "sshd on a free localhost port"
if [ "$(id -u)" = 0 ]; then
  mkdir -p /run/sshd && chmod 755 /run/sshd
  getent passwd sshd >/dev/null || echo "sshd:x:$(( 60000 + RANDOM % 1000 )):65534::/run/sshd:/usr/sbin/nologin" >> /etc/passwd
fi
K=$W/ssh
LD_LIBRARY_PATH=$LIBS "$KEYGEN" -q -t ed25519 -N "" -f "$K/host_key"
LD_LIBRARY_PATH=$LIBS "$KEYGEN" -q -t ed25519 -N "" -f "$K/id"
cp "$K/id.pub" "$K/authorized_keys"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
USER_NAME=$(id -un)
cat > "$K/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $K/host_key
PidFile $K/sshd.pid
AuthorizedKeysFile $K/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PrintMotd no
EOF
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$K/host_key.pub")" > "$K/known_hosts"
LD_LIBRARY_PATH=$LIBS "$SSHD" -D -e -f "$K/sshd_config" > "$K/sshd.log" 2>&1 &
SSHD_PID=$!
for i in $(seq 50); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
kill -0 "$SSHD_PID" 2>/dev/null || { cat "$K/sshd.log"; bad "sshd starts"; exit 2; }
export AOTIDBG_SSH="env LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $SSH -F /dev/null -i $K/id -o IdentitiesOnly=yes -o UserKnownHostsFile=$K/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -o LogLevel=ERROR"
TARGET=$USER_NAME@127.0.0.1:$PORT
$AOTIDBG_SSH -p "$PORT" "$USER_NAME@127.0.0.1" 'echo remote shell: $(hostname) $(id -un)' || { cat "$K/sshd.log"; bad "ssh to localhost"; exit 2; }
ok "sshd on 127.0.0.1:$PORT, key login as $USER_NAME"

step "build the runner and aotidbg-agent there (runner only, Release)"
bash "$SRC/tests/gpu/build_runner.sh" "$SRC" "$W/build" "$OUT/build.log" || { bad "runner build"; exit 2; }
R=$W/build/aotidbg-runner
ls -la "$R" "$W/build/aotidbg-agent" "$W/build/libaotidbg_cudastats.so" 2>&1
"$R" --version
[ -x "$W/build/aotidbg-agent" ] && ok "runner-only build has aotidbg-runner and aotidbg-agent" || bad "aotidbg-agent built"
export AOTIDBG_RUNNER=$R AOTIDBG_DATA_DIR=$SRC
"$AOTIDBG" --version || { echo "the front end does not start (LD_LIBRARY_PATH for its libraries?)"; exit 2; }
RA=(--remote "$TARGET" --remote-runner "$R")

step "CUDA packages"
AOTIDBG_GPU_MODELS=mlp,gather timeout 420 python3 "$SRC/tests/gpu/cuda_models.py" "$W/pkgs" > "$OUT/compile.log" 2>&1 || tail -20 "$OUT/compile.log"
cd "$W/pkgs" || exit 2
# paths given with --remote are the remote box's: a relative one resolves from the login
# directory there (as scp host:path), so every package and spec is named absolutely
P=$W/pkgs
ls *.pt2

step "check --remote vs check here (same box: same rows)"
timeout 120 "$AOTIDBG" check "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --format yaml > "$OUT/check_local.yaml" 2>&1
timeout 120 "$AOTIDBG" check "${RA[@]}" "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --format yaml > "$OUT/check_remote.yaml" 2> "$OUT/check_remote.err"
echo "exit $?"
python3 - "$OUT/check_local.yaml" "$OUT/check_remote.yaml" <<'EOF' && ok "check --remote: same rows as here; CUDA rows judged there" || bad "check --remote rows"
import re, sys
def rows(p):
    t = open(p).read()
    return dict(re.findall(r'- id: "([^"]+)"\n\s+status: (\w+)', t))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print("local:", a); print("remote:", b)
sys.exit(0 if a and a == b and b.get("device.cuda-available") == "PASS" and b.get("device.compute-capability") == "PASS" else 1)
EOF

step "live, stepped remotely (headless): step x3, restart, step, continue"
timeout 300 "$AOTIDBG" "${RA[@]}" "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --record "$OUT/live_remote.yaml" \
  --headless 160x50 --dump-screen --keys "step step step restart step continue" > "$OUT/live_remote.screen" 2> "$OUT/live_remote.err"
rc=$?; echo "exit $rc"; tail -5 "$OUT/live_remote.err"
nk=$(grep -c "kind: kernel" "$OUT/live_remote.yaml" 2>/dev/null)
[ $rc = 0 ] && [ "${nk:-0}" -gt 0 ] && grep -q "gpu: " "$OUT/live_remote.yaml" \
  && ok "live --remote on CUDA: $nk kernels, session here ($OUT/live_remote.yaml)" || bad "live --remote (exit $rc, ${nk:-0} kernels)"

step "run --record, here and through ssh (blocking)"
timeout 300 "$AOTIDBG" run "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --blocking --values 64 --record "$OUT/run_local.yaml" 2> "$OUT/run_local.err"
timeout 300 "$AOTIDBG" run "${RA[@]}" "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --blocking --values 64 --record "$OUT/run_remote.yaml" 2> "$OUT/run_remote.err"
rc=$?; tail -3 "$OUT/run_remote.err"
python3 - "$OUT/run_local.yaml" "$OUT/run_remote.yaml" <<'EOF' && [ $rc = 0 ] && ok "run --remote --record: same kernels and statuses as here" || bad "run --remote (exit $rc)"
import re, sys
import yaml   # sessions write events as flow maps: read them as YAML, not by line shape
k = lambda p: [(e.get("index"), e.get("name"), e.get("status")) for e in yaml.safe_load(open(p))["events"]
               if e.get("kind") == "kernel"]
a, b = k(sys.argv[1]), k(sys.argv[2]); print(len(a), "kernels here,", len(b), "there")
sys.exit(0 if a and a == b else 1)
EOF
timeout 300 "$AOTIDBG" run "${RA[@]}" "$P/cuda_gather.pt2" --inputs "$P/cuda_gather.empty.inputs.yaml" --blocking --force --values 64 \
  --record "$OUT/run_remote_oob.yaml" 2> "$OUT/run_remote_oob.err"
rc=$?; tail -4 "$OUT/run_remote_oob.err"
[ $rc = 1 ] && grep -q "triton-index-oob" "$OUT/run_remote_oob.yaml" && ok "device-side assert over --remote: routed triton-index-oob" || bad "remote device-side assert (exit $rc)"

step "the connection killed mid-run: nothing left on the GPU"
# The cut comes as soon as the agent has started a runner (the model is small: the
# run may finish first; then this check says so instead of passing).
"$AOTIDBG" run "${RA[@]}" "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --blocking --deterministic --values 4096 \
  --record "$OUT/run_cut.yaml" > /dev/null 2> "$OUT/run_cut.err" &
AP=$!
RUNNER_UP=
for i in $(seq 300); do
  AG=$(pgrep -f "aotidbg-agent --serve" | head -1)
  [ -n "$AG" ] && pgrep -P "$AG" >/dev/null && { RUNNER_UP=1; break; }
  kill -0 "$AP" 2>/dev/null || break
  sleep 0.02
done
SSHPID=$(pgrep -P "$AP" -x ssh)
echo "killing our ssh (pid ${SSHPID:-none}, child of aotidbg $AP; runner started there: ${RUNNER_UP:-no})"
[ -n "$SSHPID" ] && kill -KILL "$SSHPID"
wait "$AP"; cut_rc=$?; echo "aotidbg exit $cut_rc"
sleep 3
left=$(pgrep -af "aotidbg-(agent|runner)" | grep -v pgrep)
echo "left: ${left:-none}"; nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | tee "$OUT/gpu_apps_after_cut.txt"
if [ -z "$RUNNER_UP" ] || [ "$cut_rc" = 0 ]; then
  echo "INFO the run ended before the cut (exit $cut_rc): not a test of the cut" | tee -a "$OUT/summary.txt"
elif [ -z "$left" ] && ! grep -q aotidbg "$OUT/gpu_apps_after_cut.txt" && grep -q "how: lost" "$OUT/run_cut.yaml"; then
  ok "killed connection: exit $cut_rc, session ends how: lost, no agent or runner left, no GPU process of ours"
else
  bad "after the cut: exit $cut_rc, left: ${left:-none}"
fi
tail -3 "$OUT/run_cut.err"

step "speed: local vs --remote recording (5 each, alternating)"
for i in 1 2 3 4 5; do
  for side in local remote; do
    a=(); [ $side = remote ] && a=("${RA[@]}")
    s=$(date +%s.%N)
    timeout 300 "$AOTIDBG" run "${a[@]}" "$P/cuda_mlp.pt2" --inputs "$P/cuda_mlp.ok.inputs.yaml" --values 64 --record "$W/t_$side.yaml" 2>/dev/null
    echo "$side $(python3 -c "print($(date +%s.%N) - $s)")" >> "$OUT/times.txt"
  done
done
python3 - "$OUT/times.txt" <<'EOF' | tee -a "$OUT/summary.txt"
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    side, s = line.split(); t.setdefault(side, []).append(float(s))
l, r = statistics.median(t["local"]), statistics.median(t["remote"])
print(f"INFO run --record cuda_mlp: local {l*1000:.0f} ms, remote {r*1000:.0f} ms, ratio {r/l:.2f}x (target <= 1.3x)")
EOF

step "done: $FAILS failed"
cat "$OUT/summary.txt"
[ $FAILS = 0 ] || exit 1
