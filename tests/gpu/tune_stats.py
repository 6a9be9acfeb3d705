"""Times several builds of the statistics library side by side on 1 GiB
tensors (float32, bfloat16, float16, float8_e4m3fn, int8: one of each launch
configuration's element widths), interleaved round by round so clock and thermal
drift fall on every build alike; the device copy and torch.aminmax run in the
same rounds as anchors. Each build's result on the timed tensor is checked
against torch in float64 (diagnostic builds are expected to mismatch).
usage: python3 tests/gpu/tune_stats.py NAME=LIB.so [NAME=LIB.so ...] [--rounds R] [--out DIR]
"""
import argparse
import json
import os
import statistics
import sys
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_ref  # noqa: E402
from bench_stats import event_times  # noqa: E402
from test_cuda_stats import Lib  # noqa: E402

GIB = 1 << 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=".")
    ap.add_argument("--dtypes", default="float32,bfloat16,float16,float8_e4m3fn,int8")
    a = ap.parse_args()
    libs = []
    for spec in a.libs:
        name, path = spec.split("=", 1)
        libs.append((name, Lib(path)))
    res = {}
    for dname in a.dtypes.split(","):
        td = getattr(torch, dname)
        n = GIB // torch.empty((), dtype=td).element_size()
        if td.is_floating_point:
            x = torch.randn(n, device="cuda", dtype=torch.float16 if td.itemsize == 1 else td).to(td)
        else:
            x = torch.randint(-100, 100, (n,), device="cuda", dtype=td)
        y = torch.empty_like(x)
        ref = stats_ref.reference(x)
        calls = {}
        for name, lib in libs:
            bad = stats_ref.compare(lib.stats(x), ref)
            calls[name] = (lib.prepared(x), bad)
        calls["copy"] = (lambda: y.copy_(x), [])
        try:
            torch.aminmax(x)
            calls["aminmax"] = (lambda: torch.aminmax(x), [])
        except RuntimeError:   # not every dtype has it (float8)
            pass
        times = {k: [] for k in calls}
        for fn, _ in calls.values():
            for _ in range(3):
                fn()
        torch.cuda.synchronize()
        for _ in range(a.rounds):
            for k, (fn, _) in calls.items():
                times[k] += event_times(fn, a.reps)
        print(f"\n{dname}: 1 GiB, {a.rounds} rounds x {a.reps} runs, interleaved")
        print(f"  {'build':28s} {'median ms':>9s} {'min ms':>8s} {'TB/s':>6s}  check")
        res[dname] = {}
        for k, ts in times.items():
            med, mn = statistics.median(ts), min(ts)
            nbytes = 2 * GIB if k == "copy" else GIB
            bad = calls[k][1]
            print(f"  {k:28s} {med:9.4f} {mn:8.4f} {nbytes / med / 1e9:6.2f}  {'ok' if not bad else 'MISMATCH ' + '; '.join(bad)[:80]}")
            res[dname][k] = {"median_ms": med, "min_ms": mn, "tb_per_s": nbytes / med / 1e9, "mismatch": bad}
        del x, y
        torch.cuda.empty_cache()
    with open(os.path.join(a.out, "tune_stats.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
