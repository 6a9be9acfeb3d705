#!/usr/bin/env python3
"""bench_remote.py — issue 20's speed targets, measured side by side against a
real sshd on localhost (tests/integration/sshd_harness.py):

  1. a step over ssh costs at most 2 ms more than a local step
     (build/tests/bench_remote: runner_client steps through remote_chain's 100
     kernels, local and remote rounds alternating);
  2. recording a 100-kernel run through ssh takes at most 1.3x the local run
     (`aotidbg run --record` of remote_chain, 100 kernels, --values 64; runs
     alternate, median of N each).

    AOTIDBG_BUILD_DIR=build python3 tests/bench/bench_remote.py [N (default 7)]
Prints the figures; exit 0 when both targets hold, 3 when one is missed.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import sshd_harness  # noqa: E402
import make_models  # noqa: E402

BUILD = os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build"))
MODELS = os.environ.get("AOTIDBG_MODELS_DIR", os.path.join(BUILD, "test-models"))


def package(name):
    builder, h = make_models.registry()[name]
    os.makedirs(MODELS, exist_ok=True)
    return make_models.build(MODELS, name, builder, h)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    aotidbg, runner = os.path.join(BUILD, "aotidbg"), os.path.join(BUILD, "aotidbg-runner")
    tmp = tempfile.mkdtemp(prefix="bench-remote-")
    sshd = sshd_harness.Sshd(os.path.join(tmp, "sshd"))
    env = sshd.env()
    ok = True
    try:
        chain = package("remote_chain")
        cspec = os.path.join(tmp, "chain.yaml")
        with open(cspec, "w") as f:
            f.write("inputs:\n  - {shape: [16, 64], dtype: float32, device: cpu, fill: randn}\n")
        r = subprocess.run([os.path.join(BUILD, "tests", "bench_remote"), chain, cspec, sshd.target, runner, "5"],
                           env=env, capture_output=True, text=True)
        print(r.stdout, end="")
        if r.returncode != 0 or "MISSED" in r.stdout:
            print(r.stderr, end="")
            ok = False

        times = {"local": [], "ssh": []}
        for i in range(n):
            for side in ("local", "ssh"):
                out = os.path.join(tmp, f"{side}{i}.yaml")
                cmd = [aotidbg, "run", chain, "--inputs", cspec, "--values", "64", "--record", out]
                if side == "ssh":
                    cmd[2:2] = ["--remote", sshd.target, "--remote-runner", runner]
                t0 = time.monotonic()
                r = subprocess.run(cmd, env=env, capture_output=True, text=True)
                times[side].append(time.monotonic() - t0)
                if r.returncode != 0:
                    print(r.stderr)
                    return 1
                kernels = open(out).read().count("kind: kernel")
        conn = []
        for _ in range(n):   # what ssh itself costs per connection (handshake, sshd's fork, login)
            t0 = time.monotonic()
            subprocess.run(sshd.ssh_command().split() + ["-p", str(sshd.port), f"{sshd.user}@127.0.0.1", "true"],
                           capture_output=True)
            conn.append(time.monotonic() - t0)
        loc, rem = statistics.median(times["local"]), statistics.median(times["ssh"])
        print(f"aotidbg run --record of a {kernels}-kernel package (--values 64), median of {n}, alternating:")
        print(f"local   {loc * 1000:8.1f} ms   (min {min(times['local']) * 1000:.1f})")
        print(f"ssh     {rem * 1000:8.1f} ms   (min {min(times['ssh']) * 1000:.1f})")
        print(f"(ssh host true alone: median {statistics.median(conn) * 1000:.1f} ms, min {min(conn) * 1000:.1f}; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        ratio = rem / loc
        print(f"ssh / local: {ratio:.2f}x (target: at most 1.3x): {'ok' if ratio <= 1.3 else 'MISSED'}")
        ok = ok and ratio <= 1.3
    finally:
        sshd.stop()
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
