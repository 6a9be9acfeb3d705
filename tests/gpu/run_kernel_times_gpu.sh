#!/usr/bin/env bash
# run_kernel_times_gpu.sh — the kernel time table, view and exports on the H200: a
# memory-bound package (y = x * 2 + 1 over 64M float32: one pointwise kernel that reads
# 256 MiB and writes 256 MiB) run through our runner, then:
#   1. the session's gpu_peak_gbps (memory clock x bus width from cudaDeviceGetAttribute)
#      is there and plausible for the GPU (3000-6000 GB/s on an H200; nvidia-smi's name
#      is printed beside it), and `replay --dump` compares against it ("runtime: ...");
#   2. `export --format csv`: the pointwise kernel's bytes read and written are exactly
#      numel x 4 each; GB/s = (read + written) / device time; on the GPU it lies between
#      25% and 105% of the reported peak (a 512 MiB stream on an H200 runs near its peak;
#      over 105% would mean the bytes or the time are wrong);
#   3. `export --format chrome-trace`: one slice per kernel event on the kernels track;
#   4. the UI's kernel time view (headless, `--keys kernel-times`) names the kernel and
#      shows the %peak column (GPU) or "peak unknown" (CPU).
#
#   OUT=DIR AOTIDBG=/path/to/aotidbg bash tests/gpu/run_kernel_times_gpu.sh
#   DEV=cpu OUT=DIR AOTIDBG=build/aotidbg bash tests/gpu/run_kernel_times_gpu.sh   (rehearsal:
#       1M elements, the peak must be unknown, GB/s only where the CPU run has device times)
#
# Writes under $OUT: summary.txt (PASS/FAIL lines), sessions/, logs/, the screen and the
# exports. About 2 minutes on the H200 (runner build ~1 min, compile ~30 s). Exit 0 every
# check passed, 1 a check failed, 2 the build, the compile or the run failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/lib.sh"
gpu_begin kernel-times
gpu_environment
gpu_runner
N=$([ "$DEV" = cuda ] && echo 67108864 || echo 1048576)

step "compile the package (y = x * 2 + 1 over $N float32 on $DEV)"
timeout 300 python3 - "$W/stream.pt2" "$DEV" "$N" <<'EOF' > "$OUT/logs/compile.log" 2>&1 || { echo "compile failed"; tail -20 "$OUT/logs/compile.log"; exit 2; }
import sys, torch
class Stream(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0
ep = torch.export.export(Stream().eval(), (torch.randn(int(sys.argv[3]), device=sys.argv[2]),))
torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1],
    inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1"})
print("compiled", sys.argv[1])
EOF

step "run it"
printf 'inputs:\n  - {shape: [%s], dtype: float32, device: %s, fill: randn, seed: 0}\n' "$N" "$DEV" > "$W/inputs.yaml"
S=$OUT/sessions/stream.yaml
timeout 300 "$AOTIDBG" run "$W/stream.pt2" --inputs "$W/inputs.yaml" --record "$S" > "$OUT/logs/run.out" 2>&1 \
  || { echo "the run failed"; tail -20 "$OUT/logs/run.out"; exit 2; }
"$AOTIDBG" replay "$S" --dump > "$OUT/dump.txt" 2>&1
"$AOTIDBG" export "$S" --format csv -o "$OUT/kernels.csv"
"$AOTIDBG" export "$S" --format chrome-trace -o "$OUT/trace.json"
"$AOTIDBG" replay "$S" --headless 140x20 --keys kernel-times > "$OUT/screen.txt" 2>&1

step "checks"
python3 - "$S" "$OUT" "$DEV" "$N" <<'EOF' | tee "$OUT/summary.txt"
import csv, json, os, subprocess, sys, yaml
sess_path, out, dev, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sess = yaml.safe_load(open(sess_path))
dump = open(os.path.join(out, "dump.txt")).read()
screen = open(os.path.join(out, "screen.txt")).read()
rows = list(csv.DictReader(open(os.path.join(out, "kernels.csv"))))
trace = json.load(open(os.path.join(out, "trace.json")))["traceEvents"]
kernels = [e for e in sess["events"] if e["kind"] == "kernel"]
fails = 0
def check(name, ok, detail=""):
    global fails
    fails += not ok
    print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail else ""))
peak = sess.get("gpu_peak_gbps", -1)
if dev == "cuda":
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.max.memory", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = "nvidia-smi not found"
    check("1 the session's gpu_peak_gbps is reported and plausible", 3000 <= peak <= 6000,
          f"{peak} GB/s for {sess.get('gpu')} (nvidia-smi: {smi})")
    check("1 replay --dump compares against the runtime's peak", "(runtime: memory clock x bus width)" in dump)
else:
    check("1 a CPU run has no peak and says so", peak == -1 and "peak unknown (no GPU named" in dump)
point = [(r, k) for r, k in zip(rows, kernels) if k["type"] in ("triton", "cpp")]
check("2 one pointwise kernel", len(point) == 1, [k["name"] for k in kernels])
for r, k in point:
    check("2 bytes read and written are numel x 4 each", int(r["bytes_read"]) == 4 * n == int(r["bytes_written"])
          and r["bytes_known"] == "1", f"read {r['bytes_read']} written {r['bytes_written']}, want {4 * n}")
    dus = k.get("device_us", -1)
    if dus > 0:
        gbps = 8 * n / (dus * 1e3)
        check("2 GB/s is bytes over device time", abs(float(r["GB_per_s"]) - gbps) <= 1e-4 * gbps,
              f"{r['GB_per_s']} GB/s, device {dus:.1f} us")
        if dev == "cuda":
            check("2 GB/s between 25% and 105% of the peak", 0.25 * peak <= gbps <= 1.05 * peak,
                  f"{gbps:.0f} of {peak:.0f} GB/s ({r['of_peak_pct']}% of peak)")
    else:
        check("2 no device time: no GB/s", r["GB_per_s"] == "" and dev != "cuda", k.get("device_note", ""))
tid = [e["tid"] for e in trace if e["ph"] == "M" and e["args"].get("name", "").startswith("kernels")]
ks = [e["name"] for e in trace if e["ph"] == "X" and tid and e["tid"] == tid[0]]
check("3 chrome trace: a slice per kernel event", ks == [k["name"] for k in kernels], f"{len(ks)} slices")
name = point[0][1]["name"] if point else "?"
want = "%peak" if dev == "cuda" else "peak unknown"
check("4 the kernel time view shows the kernel and the peak", name[:20] in screen and want in screen)
print("RESULT", "PASS" if not fails else f"FAIL ({fails})")
sys.exit(1 if fails else 0)
EOF
exit "${PIPESTATUS[0]}"
