"""Checks the CUDA statistics kernel's per-thread logic on a machine without a GPU.

Builds tests/gpu/stats_sim.cu with nvcc (host code only runs; no GPU needed),
then for every dtype and layout of stats_ref.cases() writes the tensor's
storage to a file, runs the simulated grid (a small grid, so threads loop many
times, and a full H200-sized grid) and compares with torch in float64.

usage: python3 tests/gpu/check_stats_sim.py [BUILD_DIR]     (exit 1 on a mismatch)
"""
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import stats_ref  # noqa: E402


def build(out_dir):
    # SB_CFG: launch configurations "CFG4;CFG2;CFG1" as tune_stats.sh writes them
    # (e.g. "256,2,true,false;512,1,true,true;512,1,true,true"), via an -include'd header
    cfg = os.environ.get("SB_CFG", "")
    defs = []
    if cfg:
        c4, c2, c1 = cfg.split(";")
        hdr = os.path.join(out_dir, "sb_cfg_" + cfg.replace(",", "_").replace(";", "-") + ".h")
        with open(hdr, "w") as f:
            f.write(f"#define SB_CFG4 {c4}\n#define SB_CFG2 {c2}\n#define SB_CFG1 {c1}\n")
        defs = ["-include", hdr]
    # SB_DEFS: other compile-time switches of the kernel, e.g. "SB_GATE=0"
    sdefs = os.environ.get("SB_DEFS", "").split()
    defs += ["-D" + d for d in sdefs]
    tag = (cfg.replace(",", "_").replace(";", "-") + "".join("_" + d.replace("=", "") for d in sdefs)).lstrip("_")
    exe = os.path.join(out_dir, "stats_sim" + ("_" + tag if tag else ""))
    src = [os.path.join(HERE, "stats_sim.cu"), os.path.join(ROOT, "core/runner/cuda/stats.cu"),
           os.path.join(ROOT, "core/runner/cuda/stats_body.cuh")]
    if os.path.exists(exe) and all(os.path.getmtime(exe) > os.path.getmtime(s) for s in src):
        return exe
    subprocess.run(["nvcc", "-O2", "-std=c++17", "-arch=sm_90", "-Xcompiler", "-Wall",
                    *defs, "-I" + os.path.join(ROOT, "core/model"), "-I" + os.path.join(ROOT, "core/util"),
                    "-I" + os.path.join(ROOT, "core/runner/cuda"),
                    src[0], "-o", exe, "-cudart", "shared"], check=True)
    return exe


def storage_bytes(t):
    u8 = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())
    return u8.numpy().tobytes()


def run_sim(exe, name, t, max_blocks, tmp):
    path = os.path.join(tmp, "storage.bin")
    with open(path, "wb") as f:
        f.write(storage_bytes(t) or b"\0")
    args = [exe, name, path, str(t.storage_offset()), str(max_blocks), str(t.dim())]
    args += [str(s) for s in t.shape] + [str(s) for s in t.stride()]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"stats_sim failed: {p.stderr.strip()}")
    vals = p.stdout.split()
    return {k: (int(v) if k in stats_ref.INTS else float(v)) for k, v in zip(stats_ref.FIELDS, vals)}, \
        p.stderr.strip()


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-h7")
    os.makedirs(out_dir, exist_ok=True)
    exe = build(out_dir)
    fails = 0
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (case, dt, t) in enumerate(stats_ref.cases("cpu", small=True)):
            if isinstance(t, str):
                print(f"FAIL {dt:14s} {case:22s} {t}")
                fails += 1
                continue
            ref = stats_ref.reference(t)
            for max_blocks in (3, 0) if i % 2 == 0 else (0,):   # 0: the H200's grid
                total += 1
                try:
                    ours, plan = run_sim(exe, dt, t, max_blocks, tmp)
                    bad = stats_ref.compare(ours, ref)
                except RuntimeError as e:
                    bad, plan = [str(e)], ""
                status = "FAIL" if bad else "PASS"
                fails += bool(bad)
                if bad or os.environ.get("VERBOSE"):
                    print(f"{status} {dt:14s} {case:22s} blocks<={max_blocks or 'H200':>4} {stats_ref.describe(t)} [{plan}]")
                    for b in bad:
                        print("     ", b)
    print(f"{total - fails}/{total} simulated cases pass")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
