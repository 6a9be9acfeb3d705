"""Benchmarks the CUDA statistics kernel against what torch offers, side by side.

For a 1 GiB tensor in float32 and in bfloat16, median of 20 timed runs with
CUDA events (3 warm-up runs first):
  ours        aotidbg_cuda_stats: every statistic, result copied back (synchronous call)
  copy        y.copy_(x): the bandwidth ceiling (bytes read + written)
  aminmax     torch.aminmax(x): one fused read
  aten-sep    mean, min, max, std, isnan().sum(), isposinf().sum(),
              isneginf().sum(), (x == 0).sum(), each with .item()
  printer3    x.to(torch.float), then mean, min, max, each with .item()
              (what the intermediate-value printer computes)
Prints ms, effective TB/s (tensor bytes / time; copy counts read + write),
the ratios, and whether the targets hold: >= 3.5 TB/s effective on float32,
>= 20x faster than aten-sep, faster than printer3 (the statistics include the
positions of the first min, max and NaN/Inf). Then, informational: a falling
float32 tensor (the positions' worst case: every chunk has a new minimum) and
an int64 id tensor. Also the latency of one call on a 4 KiB tensor (what a NaN
hunt pays per tensor).

usage: python3 tests/gpu/bench_stats.py LIB.so [--out DIR]
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_ref  # noqa: E402
from test_cuda_stats import Lib  # noqa: E402

GIB = 1 << 30
REPS = 20
WARMUP = 3


def event_times(fn, reps):
    """ms of each of reps calls of fn, each between two CUDA events."""
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return times


def time_ms(fn, reps=REPS, warmup=WARMUP):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = event_times(fn, reps)
    return statistics.median(times), min(times)


def aten_separate(x):
    return (x.mean().item(), x.min().item(), x.max().item(), x.std().item(),
            x.isnan().sum().item(), x.isposinf().sum().item(), x.isneginf().sum().item(),
            (x == 0).sum().item())


def printer_three(x):
    f = x.to(torch.float)
    return f.mean().item(), f.min().item(), f.max().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("FAIL: no CUDA device")
        return 1
    lib = Lib(a.lib)
    dev = torch.cuda.get_device_name()
    print(f"# {dev}, torch {torch.__version__}, 1 GiB tensors, median of {REPS} runs (CUDA events)")
    results = {"device": dev, "torch": torch.__version__, "dtypes": {}}
    all_ok = True
    for name, td in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        n = GIB // torch.empty((), dtype=td).element_size()
        x = torch.randn(n, device="cuda", dtype=td)
        y = torch.empty_like(x)
        # the timed tensor's statistics must be right too
        bad = stats_ref.compare(lib.stats(x), stats_ref.reference(x))
        rows = {}
        rows["ours"] = time_ms(lib.prepared(x))
        rows["copy"] = time_ms(lambda: y.copy_(x))
        rows["aminmax"] = time_ms(lambda: torch.aminmax(x))
        rows["aten-sep"] = time_ms(lambda: aten_separate(x))
        rows["printer3"] = time_ms(lambda: printer_three(x))
        del y
        ours = rows["ours"][0]
        print(f"\n{name}: {n} elements, {GIB / 2**30:.0f} GiB{'' if not bad else '  RESULT MISMATCH: ' + '; '.join(bad)}")
        print(f"  {'what':10s} {'median ms':>10s} {'min ms':>8s} {'TB/s eff':>9s} {'vs ours':>8s}")
        out_rows = {}
        for k, (med, mn) in rows.items():
            nbytes = 2 * GIB if k == "copy" else GIB
            tbs = nbytes / (med * 1e-3) / 1e12
            ratio = med / ours
            print(f"  {k:10s} {med:10.3f} {mn:8.3f} {tbs:9.2f} {ratio:7.1f}x")
            out_rows[k] = {"median_ms": med, "min_ms": mn, "tb_per_s": tbs, "ratio_to_ours": ratio}
        ours_tbs = GIB / (ours * 1e-3) / 1e12
        targets = {
            "vs_aten_separate_20x": rows["aten-sep"][0] / ours >= 20.0,
            "faster_than_printer3": ours < rows["printer3"][0],
            "results_match_torch": not bad,
        }
        if name == "float32":
            targets["effective_read_3.5TBps"] = ours_tbs >= 3.5
        for k, ok in targets.items():
            print(f"  target {k:26s} {'HOLDS' if ok else 'MISSED'}")
            all_ok &= ok
        results["dtypes"][name] = {"rows": out_rows, "targets": targets, "mismatch": bad}
        del x
        torch.cuda.empty_cache()
    # The positions' worst case (informational, no target): every chunk beats the
    # running minimum, so each thread searches each chunk for it; and an int64
    # index tensor (the per-element double path), as an embedding's ids are.
    worst = {}
    for name, make in (("float32-falling", lambda n: torch.arange(n, 0, -1, device="cuda", dtype=torch.float32)),
                       ("int64-ids", lambda n: torch.randint(0, 32000, (n,), device="cuda"))):
        n = GIB // (8 if name.startswith("int64") else 4)
        x = make(n)
        bad = stats_ref.compare(lib.stats(x), stats_ref.reference(x))
        med, mn = time_ms(lib.prepared(x))
        tbs = GIB / (med * 1e-3) / 1e12
        print(f"\n{name}: {n} elements, 1 GiB: median {med:.3f} ms, {tbs:.2f} TB/s effective"
              f"{'' if not bad else '  RESULT MISMATCH: ' + '; '.join(bad)}")
        worst[name] = {"median_ms": med, "min_ms": mn, "tb_per_s": tbs, "mismatch": bad}
        all_ok &= not bad
        del x
        torch.cuda.empty_cache()
    results["positions_worst_case"] = worst
    # Latency of one call on a small tensor: wall clock, includes the sync and copy back.
    s = torch.randn(1024, device="cuda")
    call = lib.prepared(s)
    for _ in range(20):
        call()
    t = []
    for _ in range(200):
        t0 = time.perf_counter()
        call()
        t.append((time.perf_counter() - t0) * 1e6)
    lat = statistics.median(t)
    print(f"\nsmall tensor (1024 float32): median {lat:.1f} us per call (wall clock, synchronous)")
    results["small_call_us"] = lat
    results["all_targets_hold"] = all_ok
    print(f"\nALL TARGETS {'HOLD' if all_ok else 'NOT MET'}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "bench_stats.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0 if all_ok else 3


if __name__ == "__main__":
    sys.exit(main())
