#!/usr/bin/env bash
# run_interpose_gpu.sh — issue 10 on the H200: a CUDA package built with the
# printer OFF and an index input that can go out of range.
#   1. launch interposition (core/runner/interpose.c) in blocking mode names
#      the faulting Triton kernel, with no rebuild;
#   2. re-instrumentation (core/package/reinstrument.c) rebuilds the package with the
#      printer hooks: the runner then gives every kernel with its tensors, and
#      in blocking mode the failing kernel's index and error.
# Also records the facts the code relies on: the model .so imports
# cuLaunchKernel (not cuLaunchKernelEx), and the torch codegen that emits it.
#
# usage (on the GPU box, from the repository root):
#   OUT=/some/dir bash tests/gpu/run_interpose_gpu.sh
# Needs: torch with CUDA for python3, cmake, ninja (or make), gcc/g++.
# Writes under $OUT: build.log, facts.txt, compile.log, interpose_*.{json,stderr},
# reinstrument_*.{json,stderr}, summary.txt. Exit 0 when both checks passed.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/aotidbg-interpose.XXXXXX)"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

say "== $(date -u) on $(hostname)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader >> "$SUMMARY" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >> "$SUMMARY" 2>&1

# ---- 1. the runner alone (no ncurses/libyaml here) ----
if ! bash "$ROOT/tests/gpu/build_runner.sh" "$ROOT" "$WORK/build" "$OUT/build.log" RelWithDebInfo; then
    say "FAIL: building aotidbg-runner (see build.log)"; exit 1
fi
RUNNER="$WORK/build/aotidbg-runner"
nm -D "$RUNNER" | grep -E ' T (cuLaunchKernel|cuLaunchKernelEx|cuModuleGetFunction|interpose_)' >> "$OUT/facts.txt"

# the re-instrumentation driver: core/package/reinstrument.c needs only libc (+ strbuf)
if ! gcc -std=gnu11 -O1 -g -DAOTIDBG_SOURCE_DIR="\"$ROOT\"" $(for d in "$ROOT"/core/*/; do printf -- "-I%s " "${d%/}"; done) -I"$ROOT/tests/unit" \
        "$ROOT/tests/unit/test_reinstrument.c" "$ROOT/core/package/reinstrument.c" "$ROOT/core/util/strbuf.c" \
        -o "$WORK/test_reinstrument" >> "$OUT/build.log" 2>&1; then
    say "FAIL: building the re-instrumentation driver (see build.log)"; exit 1
fi
"$WORK/test_reinstrument" >> "$OUT/build.log" 2>&1 || say "WARN: reinstrument unit tests failed (build.log)"

# ---- 2. the CUDA package, printer OFF, index input ----
cat > "$WORK/make_pkg.py" <<'EOF'
import os, sys, time, torch
out = sys.argv[1]
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 64)
    def forward(self, x, idx):
        h = torch.relu(self.fc(x))           # extern addmm + a pointwise Triton kernel
        g = h[idx] * 2.0                      # indirect indexing: tmp < ks bound check
        return g.sum(-1), torch.tanh(h).mean(0)
torch.manual_seed(0)
dev = os.environ.get("AOTIDBG_GPU_SCRIPT_DEVICE", "cuda")   # "cpu": dry run off the GPU box
m = M().eval().to(dev)
x = torch.randn(32, 64, device=dev)
idx = torch.tensor([3, 31, 7, 0], device=dev)
b = torch.export.Dim("b", min=2, max=4096)
ep = torch.export.export(m, (x, idx), dynamic_shapes={"x": {0: b}, "idx": None})
t0 = time.monotonic()
pkg = torch._inductor.aoti_compile_and_package(
    ep, package_path=os.path.join(out, "shipped_cuda.pt2"),
    inductor_configs={"aot_inductor.debug_intermediate_value_printer": "0"})
print(f"compile_s {time.monotonic() - t0:.2f}")
import zipfile
zipfile.ZipFile(pkg).extractall(os.path.join(out, "x"))
# raw inputs for the runner: a good index and one out of range
x.cpu().numpy().tofile(os.path.join(out, "x.raw"))
idx.cpu().numpy().tofile(os.path.join(out, "idx_good.raw"))
torch.tensor([3, 31, 100000, 0]).numpy().tofile(os.path.join(out, "idx_bad.raw"))
EOF
if ! python3 "$WORK/make_pkg.py" "$WORK" > "$OUT/compile.log" 2>&1; then
    say "FAIL: compiling the CUDA package (see compile.log)"; tail -30 "$OUT/compile.log"; exit 1
fi
grep compile_s "$OUT/compile.log" | tee -a "$SUMMARY"
MODEL_DIR="$(dirname "$(find "$WORK/x" -name '*.wrapper.so' | head -1)")"
SO="$(find "$MODEL_DIR" -name '*.wrapper.so' | head -1)"
cp "$MODEL_DIR"/*.wrapper.cpp "$OUT/" 2>/dev/null
{
    echo "== model .so imports (cuLaunch*)"; nm -D --undefined-only "$SO" | grep -i cuLaunch
    echo "== torch codegen launch call"
    python3 - <<'EOF'
import os, torch, re
p = os.path.join(os.path.dirname(torch.__file__), "_inductor", "codegen", "cuda", "device_op_overrides.py")
for i, l in enumerate(open(p), 1):
    if re.search(r"cuLaunchKernel", l):
        print(f"{p}:{i}: {l.rstrip()}")
EOF
    echo "== save hooks in the shipped wrapper (expect 0)"; grep -c aoti_torch_save_tensor_handle "$MODEL_DIR"/*.wrapper.cpp
} >> "$OUT/facts.txt" 2>&1

# ---- a minimal protocol client (core/proto/protocol.h, version 1) ----
cat > "$WORK/client.py" <<'EOF'
"""client.py RUNNER SO CUBIN_DIR IDX_RAW OUT_JSON [blocking]: one run, every message as JSON."""
import json, os, select, socket, struct, subprocess, sys, time
runner, so, cubin, idx_raw, out_json = sys.argv[1:6]
blocking = len(sys.argv) > 6 and sys.argv[6] == "blocking"
dev = os.environ.get("AOTIDBG_GPU_SCRIPT_DEVICE", "cuda")
work = os.path.dirname(idx_raw)
def s_(t): b = t.encode(); return struct.pack("<I", len(b)) + b
def frame(t, body=b""): return struct.pack("<IB", len(body) + 1, t) + body
def inp(i, dtype, shape, raw):
    return frame(17, struct.pack("<I", i) + s_(dtype) + s_(dev) + struct.pack("<I", len(shape))
                 + b"".join(struct.pack("<q", d) for d in shape) + struct.pack("<BQd", 5, 0, 0.0) + s_(raw))
ours, theirs = socket.socketpair()
fd = theirs.fileno()
p = subprocess.Popen([runner], pass_fds=(3,), preexec_fn=lambda: os.dup2(fd, 3),
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
theirs.close()
ours.sendall(frame(16, s_(so) + s_(cubin) + s_(dev) + struct.pack("<IQ", 1 if blocking else 0, 64))
             + inp(0, "float32", [32, 64], os.path.join(work, "x.raw"))
             + inp(1, "int64", [4], idx_raw)
             + frame(18, struct.pack("<Bq", 1, -1) + s_("") + struct.pack("<I", 2)) + frame(19))
buf, msgs, deadline = b"", [], time.time() + 300
class R:
    def __init__(s, b): s.b, s.o = b, 0
    def t(s, f):
        v = struct.unpack_from("<" + f, s.b, s.o); s.o += struct.calcsize("<" + f); return v if len(v) > 1 else v[0]
    def s(s):
        n = s.t("I"); v = s.b[s.o:s.o + n].decode(errors="replace"); s.o += n; return v
    def dims(s): return [s.t("q") for _ in range(s.t("I"))]
def decode(t, b):
    r = R(b); m = {"type": t}
    if t == 1: m.update(version=r.t("I"), runner=r.s(), torch=r.s(), pid=r.t("q"), ncuda=r.t("q"), gpu=r.s(), cc=r.s())
    elif t == 2:
        m.update(n_inputs=r.t("I"), n_outputs=r.t("I")); m["names"] = [r.s() for _ in range(r.t("I"))]
    elif t == 3: m.update(kind="kernel", index=r.t("q"), name=r.s(), phase=r.t("B"), status=r.t("B"), t_us=r.t("d"), duration_us=r.t("d"))
    elif t == 4:
        m.update(kind="tensor", kernel=r.t("q"), phase=r.t("B"), name=r.s(), dtype=r.s(), device=r.s(), shape=r.dims(), strides=r.dims())
        if r.t("B"):
            m["stats"] = dict(zip(["numel", "finite", "nan", "posinf", "neginf", "zeros", "subnormal"], r.t("7Q")))
            m["stats"].update(zip(["min", "max", "mean", "std"], r.t("4d")))
    elif t == 5: m.update(kind="stopped", kernel=r.t("q"), phase=r.t("B"), reason=r.t("B"))
    elif t == 6: m.update(kind="error", kernel=r.t("q"), text=r.s())
    elif t == 7: m.update(kind="done", status=r.t("q"))
    return m
done = False
while not done and time.time() < deadline:
    if not select.select([ours], [], [], 5)[0]:
        if p.poll() is not None: break
        continue
    c = ours.recv(1 << 20)
    if not c: break
    buf += c
    while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from("<I", buf)[0]:
        n = struct.unpack_from("<I", buf)[0]; m = decode(buf[4], buf[5:4 + n]); buf = buf[4 + n:]
        msgs.append(m)
        if m["type"] == 5:   # stopped (error break): continue to the end
            ours.sendall(frame(18, struct.pack("<Bq", 1, -1) + s_("") + struct.pack("<I", 0)))
        if m["type"] == 7: done = True
ours.close()
try:
    o, e = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill(); o, e = p.communicate()
json.dump({"messages": msgs, "exit": p.returncode, "stderr": e.decode(errors="replace")}, open(out_json, "w"), indent=1)
sys.stdout.write(e.decode(errors="replace"))
EOF

ok=1
# ---- 3. interposition, no rebuild: good index, then the bad one in blocking mode ----
AOTIDBG_INTERPOSE=1 python3 "$WORK/client.py" "$RUNNER" "$SO" "$MODEL_DIR" "$WORK/idx_good.raw" \
    "$OUT/interpose_good.json" > "$OUT/interpose_good.stderr" 2>&1
AOTIDBG_INTERPOSE=1 AOTIDBG_INTERPOSE_BLOCKING=1 python3 "$WORK/client.py" "$RUNNER" "$SO" "$MODEL_DIR" \
    "$WORK/idx_bad.raw" "$OUT/interpose_bad.json" blocking > "$OUT/interpose_bad.stderr" 2>&1
say "== interposition, good index: launches"
grep 'aotidbg-interpose: launch' "$OUT/interpose_good.stderr" | sort | uniq -c | tee -a "$SUMMARY"
say "== interposition, bad index, blocking"
grep -E 'aotidbg-interpose|Assertion|error' "$OUT/interpose_bad.stderr" | head -20 | tee -a "$SUMMARY"
# The runner wires interposition into the protocol: the ERROR message names the kernel.
FAULT="$(python3 - "$OUT/interpose_bad.json" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1])).get("messages", []):
    if m.get("kind") == "error" and m.get("kernel", -1) >= 0:
        print(m["text"].split("CUDA error: ", 1)[-1].split(":", 1)[0]); break
PY
)"
[ -z "$FAULT" ] && FAULT="$(grep -o 'aotidbg-interpose: FAILED [^:]*' "$OUT/interpose_bad.stderr" | head -1 | sed 's/.*FAILED //')"
if [ -n "$FAULT" ] && grep -q "$FAULT" "$MODEL_DIR"/*.wrapper.cpp; then
    say "PASS interpose: faulting kernel named: $FAULT"
else
    say "FAIL interpose: no faulting kernel named (see interpose_bad.stderr)"; ok=0
fi

# ---- 4. re-instrumentation: rebuild with the hooks, then run with tensors ----
SHA="$(sha256sum "$WORK/shipped_cuda.pt2" | cut -d' ' -f1)"
t0=$(date +%s.%N)
AOTIDBG_CACHE_DIR="$WORK/cache" "$WORK/test_reinstrument" --build "$MODEL_DIR" "$SHA" > "$OUT/reinstrument_build.log" 2>&1
rc=$?
t1=$(date +%s.%N)
say "reinstrument build rc=$rc in $(python3 -c "print(round($t1 - $t0, 2))") s (AOTI compile above)"
if [ $rc -ne 0 ]; then
    say "FAIL reinstrument: see reinstrument_build.log"; tail -40 "$OUT/reinstrument_build.log"; ok=0
else
    RSO="$(tail -1 "$OUT/reinstrument_build.log" | sed 's/^so //')"
    cp "$(dirname "$RSO")"/*.wrapper.cpp "$OUT/reinstrumented.wrapper.cpp"
    python3 "$WORK/client.py" "$RUNNER" "$RSO" "$MODEL_DIR" "$WORK/idx_good.raw" \
        "$OUT/reinstrument_good.json" > "$OUT/reinstrument_good.stderr" 2>&1
    python3 "$WORK/client.py" "$RUNNER" "$RSO" "$MODEL_DIR" "$WORK/idx_bad.raw" \
        "$OUT/reinstrument_bad.json" blocking > "$OUT/reinstrument_bad.stderr" 2>&1
    python3 - "$OUT" <<'EOF' | tee -a "$SUMMARY"
import json, sys
out = sys.argv[1]
g = json.load(open(f"{out}/reinstrument_good.json"))
b = json.load(open(f"{out}/reinstrument_bad.json"))
ks = [m for m in g["messages"] if m.get("kind") == "kernel" and m["phase"] == 0]
ts = [m for m in g["messages"] if m.get("kind") == "tensor" and m["kernel"] >= 0]
print(f"reinstrument good run: {len(ks)} kernels, {len(ts)} tensors:", ", ".join(k["name"] for k in ks))
errs = [m for m in b["messages"] if m.get("kind") == "error"]
kb = {m["index"]: m["name"] for m in b["messages"] if m.get("kind") == "kernel"}
for e in errs:
    print(f"reinstrument bad run: error at kernel {e['kernel']} ({kb.get(e['kernel'], '?')}): {e['text'][:300]}")
ok = len(ks) >= 2 and len(ts) >= 2 and errs and errs[0]["kernel"] >= 0
print("PASS reinstrument" if ok else "FAIL reinstrument")
EOF
    grep -q "PASS reinstrument" "$SUMMARY" || ok=0
fi
rm -rf "$WORK"
[ $ok -eq 1 ] && say "ALL PASS" || say "SOME FAILED"
[ $ok -eq 1 ]
