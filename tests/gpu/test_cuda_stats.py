"""Checks libaotidbg_cudastats.so on a real GPU against torch (float64).

For every dtype and layout of stats_ref.cases("cuda") (empty, 0-d, one
element, contiguous with odd tails, misaligned starts, transposed/permuted,
stepped slices, stride-0 expansion, planted NaN/Inf/zeros/subnormals), plus
tensors of more than 2^31 elements (uint8 2.2e9 = 2.2 GB, float32 2^31+1000
= 8.6 GB, an expanded float16 view of 2.35e9 logical elements), the API's
error paths, stream handling and repeatability: prints a PASS/FAIL table and
exits 1 on any failure.

usage: python3 tests/gpu/test_cuda_stats.py LIB.so [--no-big] [--quick] [--out DIR]

--device cpu is a dry run of this script's own logic on a machine without a
GPU, against the CPU stand-in library built from stats_sim.cu with
-DSTATS_SIM_LIB (host pointers; no streams, no big tensors).
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_ref  # noqa: E402
from stats_ref import TensorStats  # noqa: E402


class Lib:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        f = self.lib.aotidbg_cuda_stats
        f.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                      ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p, ctypes.POINTER(TensorStats)]
        f.restype = ctypes.c_int
        self.lib.aotidbg_cuda_stats_error.restype = ctypes.c_char_p

    def raw(self, ptr, dtype, sizes, strides, stream=None):
        """(rc, stats dict or None, error message)."""
        n = len(sizes)
        sz = (ctypes.c_int64 * max(n, 1))(*sizes)
        st = (ctypes.c_int64 * max(n, 1))(*strides)
        out = TensorStats()
        rc = self.lib.aotidbg_cuda_stats(ptr, dtype.encode() if dtype is not None else None, n, sz, st,
                                         stream, ctypes.byref(out))
        msg = (self.lib.aotidbg_cuda_stats_error() or b"").decode(errors="replace")
        return rc, (out.as_dict() if rc == 0 else None), msg

    def prepared(self, t, stream=None):
        """A no-argument call with its ctypes arguments built once (for timing: the
        runner calls from C, so Python's argument marshalling is not ours to count)."""
        n = t.dim()
        sz = (ctypes.c_int64 * max(n, 1))(*t.shape)
        st = (ctypes.c_int64 * max(n, 1))(*t.stride())
        out = TensorStats()
        args = (ctypes.c_void_p(t.data_ptr()), str(t.dtype).replace("torch.", "").encode(), n, sz, st,
                stream, ctypes.byref(out))
        f = self.lib.aotidbg_cuda_stats

        def call():
            if f(*args) != 0:
                raise RuntimeError(self.lib.aotidbg_cuda_stats_error().decode(errors="replace"))
            return out
        return call

    def stats(self, t, dtype=None, stream=None):
        dtype = dtype or str(t.dtype).replace("torch.", "")
        rc, d, msg = self.raw(t.data_ptr(), dtype, list(t.shape), list(t.stride()), stream)
        if rc != 0:
            raise RuntimeError(f"aotidbg_cuda_stats failed ({rc}): {msg}")
        return d


class Table:
    def __init__(self):
        self.rows = []

    def add(self, status, dtype, case, detail, problems=(), ms=None):
        self.rows.append({"status": status, "dtype": dtype, "case": case, "detail": detail,
                          "problems": list(problems), "ms": ms})
        t = f" {ms:9.3f} ms" if ms is not None else ""
        print(f"{status:4s} {dtype:14s} {case:26s}{t} {detail}", flush=True)
        for p in problems:
            print(f"       {p}", flush=True)

    def failed(self):
        return [r for r in self.rows if r["status"] == "FAIL"]


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def check(lib, table, case, dt, t, stream=None):
    if isinstance(t, str):
        table.add("SKIP", dt, case, t)
        return None
    ref = stats_ref.reference(t)
    ours = None
    try:
        sync()
        t0 = time.perf_counter()
        ours = lib.stats(t, stream=stream)
        ms = (time.perf_counter() - t0) * 1e3
        bad = stats_ref.compare(ours, ref)
    except RuntimeError as e:
        bad, ms = [str(e)], None
    table.add("FAIL" if bad else "PASS", dt, case, stats_ref.describe(t), bad, ms)
    return ours if not bad else None


def api_checks(lib, table, device):
    x = torch.randn(1000, device=device)
    host = device == "cpu"
    expect_fail = [
        ("unknown-dtype", (x.data_ptr(), "complex64", [1000], [1]), "not supported"),
        ("null-dtype", (x.data_ptr(), None, [1000], [1]), "required"),
        ("host-pointer", (torch.randn(1000).data_ptr(), "float32", [1000], [1]), "not CUDA device memory"),
        ("negative-stride", (x.data_ptr(), "float32", [10, 10], [10, -1]), "negative"),
        ("negative-size", (x.data_ptr(), "float32", [-5], [1]), "negative"),
        ("ndim-17", (x.data_ptr(), "float32", [1] * 17, [1] * 17), "ndim"),
        ("null-pointer", (0, "float32", [1000], [1]), "NULL"),
        ("misaligned", (x.data_ptr() + 1, "float32", [10], [1]), "aligned"),
        ("size-overflow", (x.data_ptr(), "float32", [2**40, 2**40], [1, 1]), "overflow"),
    ]
    for name, args, want in expect_fail:
        if host and name == "host-pointer":
            continue
        rc, _, msg = lib.raw(*args)
        ok = rc != 0 and want.lower() in msg.lower()
        table.add("PASS" if ok else "FAIL", "api", name, f"rc={rc} msg={msg!r}",
                  [] if ok else [f"expected failure mentioning {want!r}"])
    # A good call right after failures works and clears the message.
    rc, d, msg = lib.raw(x.data_ptr(), "float32", [1000], [1])
    ok = rc == 0 and msg == "" and d["numel"] == 1000
    table.add("PASS" if ok else "FAIL", "api", "ok-after-errors", f"rc={rc} msg={msg!r}")
    # Empty tensor with a NULL pointer is fine (torch gives data_ptr 0 to some empties).
    rc, d, msg = lib.raw(0, "float32", [0, 5], [5, 1])
    ok = rc == 0 and d["numel"] == 0 and math.isnan(d["mean"])
    table.add("PASS" if ok else "FAIL", "api", "empty-null-pointer", f"rc={rc} {d}")


def stream_checks(lib, table):
    # Values written on a side stream, stats asked on that stream without a
    # device-wide sync: the call must order itself after the write.
    s = torch.cuda.Stream()
    x = torch.empty(1 << 24, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        x.fill_(2.5)
        x[123] = math.nan
        ours = lib.stats(x, stream=ctypes.c_void_p(s.cuda_stream))
    ok = ours["nan"] == 1 and ours["min"] == 2.5 and ours["max"] == 2.5 and ours["finite"] == (1 << 24) - 1
    table.add("PASS" if ok else "FAIL", "float32", "side-stream-ordering", f"{ours}")
    # NULL stream = legacy default stream, and the current torch stream.
    for name, st in (("null-stream", None), ("current-stream", ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))):
        y = torch.randn(333333, device="cuda")
        check(lib, table, name, "float32", y, stream=st)
    # Calls from several threads at once (serialized inside; errors are per thread).
    import threading
    ts = [torch.randn(n, device="cuda") for n in (1, 1000, 77777, 3_000_001)]
    torch.cuda.synchronize()
    want = [lib.stats(t) for t in ts]
    problems = []

    def same_stats(a, b):
        # NaN fields (std of one element) compare equal to NaN: bitwise-identical results.
        return a.keys() == b.keys() and all(
            a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in a)

    def worker(k):
        for i in range(25):
            j = (k + i) % len(ts)
            got = lib.stats(ts[j])
            if not same_stats(got, want[j]):
                problems.append(f"thread {k} call {i}: {got} != {want[j]}")
            rc, _, msg = lib.raw(ts[j].data_ptr(), "complex128", [1], [1])
            if rc == 0 or "complex128" not in msg:
                problems.append(f"thread {k}: error message {msg!r}")
    th = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    table.add("FAIL" if problems else "PASS", "float32", "4-threads-x-25-calls",
              "same results as single-threaded", problems[:5])
    # Same tensor twice: identical (the grid and merge order are fixed).
    y = torch.randn(5_000_001, device="cuda")
    a, b = lib.stats(y), lib.stats(y)
    table.add("PASS" if a == b else "FAIL", "float32", "repeatable", "two calls give identical results",
              [] if a == b else [f"{a} != {b}"])


def big_checks(lib, table):
    free, _ = torch.cuda.mem_get_info()
    print(f"# big tensors: {free / 2**30:.1f} GiB free", flush=True)
    n8 = 2_200_000_007
    if free > 30 * 2**30:
        x = torch.randint(0, 256, (n8,), dtype=torch.uint8, device="cuda")
        check(lib, table, "uint8-2.2e9", "uint8", x)
        check(lib, table, "uint8-2.2e9-offset-5", "uint8", x[5:])
        del x
        torch.cuda.empty_cache()
    else:
        table.add("FAIL", "uint8", "uint8-2.2e9", "skipped: not enough GPU memory", ["not run"])
    n32 = 2**31 + 1000
    if free > 60 * 2**30:
        x = torch.randn(n32, device="cuda")
        x[0] = math.nan
        x[n32 - 1] = -math.inf
        x[2**31 + 7] = math.inf
        x[2**31 - 3] = 0.0
        x[2**31 + 11] = 1e-40
        check(lib, table, "float32-2^31+1000", "float32", x)
        del x
        torch.cuda.empty_cache()
        # 2.35e9 logical elements through the strided path (stride-0 expansion), small memory.
        b = torch.randn(47000, 1, device="cuda").half()
        check(lib, table, "float16-expanded-2.35e9", "float16", b.expand(47000, 50000))
        del b
        torch.cuda.empty_cache()
    else:
        table.add("FAIL", "float32", "float32-2^31+1000", "skipped: not enough GPU memory", ["not run"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--no-big", action="store_true", help="skip the > 2^31-element tensors")
    ap.add_argument("--quick", action="store_true", help="a few dtypes only (for compute-sanitizer)")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--device", default="cuda", help=argparse.SUPPRESS)
    a = ap.parse_args()
    gpu = a.device != "cpu"
    if gpu and not torch.cuda.is_available():
        print("FAIL: no CUDA device")
        return 1
    devname = torch.cuda.get_device_name() if gpu else "cpu (dry run with the simulated library)"
    print(f"# {devname} torch {torch.__version__} lib {a.lib}", flush=True)
    lib = Lib(a.lib)
    table = Table()
    t0 = time.time()
    api_checks(lib, table, a.device)
    for case, dt, t in stats_ref.cases(a.device, small=not gpu):
        if a.quick and dt not in ("float32", "bfloat16", "float64", "int64", "uint8", "float8_e4m3fn"):
            continue
        check(lib, table, case, dt, t)
    if gpu:
        stream_checks(lib, table)
    if gpu and not a.no_big and not a.quick:
        big_checks(lib, table)
    bad = table.failed()
    npass = sum(r["status"] == "PASS" for r in table.rows)
    nskip = sum(r["status"] == "SKIP" for r in table.rows)
    print(f"# {npass}/{len(table.rows)} PASS, {len(bad)} FAIL, {nskip} SKIP, {time.time() - t0:.1f} s")
    name = "test_cuda_stats_quick.json" if a.quick else "test_cuda_stats.json"
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, name), "w") as f:
        json.dump({"device": devname, "torch": torch.__version__,
                   "rows": table.rows}, f, indent=1, default=str)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
