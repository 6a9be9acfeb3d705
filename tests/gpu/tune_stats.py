"""Times several builds of the statistics library side by side on 1 GiB
tensors, interleaved round by round so clock and thermal drift fall on every
build alike; the device copy and torch.aminmax run in the same rounds as
anchors. Tensors: float32 random normal, ReLU'd (half zeros: the zero and
subnormal counts run in every chunk) and falling (the positions' worst case:
every chunk holds a new minimum); bfloat16 random and ReLU'd; float16,
float8_e4m3fn and int8 random (one of each launch configuration's element
widths). Each build's result on each timed tensor is checked against torch in
float64 (stats_ref.compare: every count, min/max, mean/std, the positions).
Prints one table (variant, dtype, tensor, size, ms, TB/s, correct) and, per
tensor, the fastest correct variant.
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


def make(dname, kind, n):
    td = getattr(torch, dname)
    if kind == "falling":
        return torch.arange(n, 0, -1, device="cuda", dtype=torch.float32).to(td)
    if not td.is_floating_point:
        return torch.randint(-100, 100, (n,), device="cuda", dtype=td)
    x = torch.randn(n, device="cuda", dtype=torch.float16 if td.itemsize == 1 else td)
    if kind == "relu":
        x.clamp_(min=0)
    return x.to(td)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=".")
    ap.add_argument("--tensors", default="float32:randn,float32:relu,float32:falling,bfloat16:randn,"
                    "bfloat16:relu,float16:randn,float8_e4m3fn:randn,int8:randn")
    a = ap.parse_args()
    libs = []
    for spec in a.libs:
        name, path = spec.split("=", 1)
        libs.append((name, Lib(path)))
    res, rows = {}, []
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; {a.rounds} rounds x {a.reps} runs "
          "each, interleaved; median ms (CUDA events); TB/s = tensor bytes / median (copy: read + write)",
          flush=True)
    for spec in a.tensors.split(","):
        dname, kind = spec.split(":")
        n = GIB // torch.empty((), dtype=getattr(torch, dname)).element_size()
        x = make(dname, kind, n)
        y = torch.empty_like(x)
        ref = stats_ref.reference(x)
        calls = {}
        for name, lib in libs:
            try:
                bad = stats_ref.compare(lib.stats(x), ref)
                calls[name] = (lib.prepared(x), bad)
            except RuntimeError as e:   # an old build may not know this dtype
                rows.append((name, dname, kind, None, None, "error: " + str(e)[:60]))
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
        key = f"{dname}:{kind}"
        res[key] = {}
        for k, ts in times.items():
            med, mn = statistics.median(ts), min(ts)
            nbytes = 2 * GIB if k == "copy" else GIB
            bad = calls[k][1]
            rows.append((k, dname, kind, med, nbytes / med / 1e9, "yes" if not bad else "NO: " + "; ".join(bad)[:70]))
            res[key][k] = {"median_ms": med, "min_ms": mn, "tb_per_s": nbytes / med / 1e9, "mismatch": bad}
        del x, y
        torch.cuda.empty_cache()
    print(f"\n  {'variant':16s} {'dtype':14s} {'tensor':8s} {'size':>6s} {'ms':>7s} {'TB/s':>6s}  correct")
    for name, dname, kind, med, tbs, ok in rows:
        if med is None:
            print(f"  {name:16s} {dname:14s} {kind:8s} {'1GiB':>6s} {'-':>7s} {'-':>6s}  {ok}")
        else:
            print(f"  {name:16s} {dname:14s} {kind:8s} {'1GiB':>6s} {med:7.4f} {tbs:6.2f}  {ok}")
    print("\n  fastest correct variant per tensor (anchors excluded):")
    for key, r in res.items():
        ours = {k: v for k, v in r.items() if k not in ("copy", "aminmax") and not v["mismatch"]}
        if ours:
            best = min(ours, key=lambda k: ours[k]["median_ms"])
            print(f"  {key:24s} {best:16s} {ours[best]['median_ms']:.4f} ms {ours[best]['tb_per_s']:.2f} TB/s")
    with open(os.path.join(a.out, "tune_stats.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
