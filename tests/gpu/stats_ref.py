"""Reference statistics and test tensors for the CUDA statistics kernel.

Shared by test_cuda_stats.py (the real kernel on the GPU, through ctypes) and
check_stats_sim.py (the kernel's per-thread code simulated on the CPU).
The reference is torch itself, computed in float64 on the tensor's own
device: counts exact, min/max exact, mean and std within 1e-5 relative, and
the positions of the first min, max and NaN/Inf exact (first in memory order,
as the kernel defines it: see positions()).
"""
import ctypes
import math

import torch

DTYPES = ["float32", "float16", "bfloat16", "float64", "float8_e4m3fn", "float8_e5m2",
          "int64", "int32", "int16", "int8", "uint8", "bool", "uint16", "uint32", "uint64"]
FLOATS = {"float32", "float16", "bfloat16", "float64", "float8_e4m3fn", "float8_e5m2"}
COUNTS = ["numel", "finite", "nan", "posinf", "neginf", "zeros", "subnormal"]
VALUES = ["min", "max", "mean", "std"]
POSITIONS = ["min_at", "max_at", "nonfinite_at"]
FIELDS = COUNTS + VALUES + POSITIONS
INTS = COUNTS + POSITIONS


class TensorStats(ctypes.Structure):
    """tensor_stats of core/model/model.h."""
    _fields_ = [(n, ctypes.c_uint64) for n in COUNTS] + [(n, ctypes.c_double) for n in VALUES] + \
        [("has_at", ctypes.c_int)] + [(n, ctypes.c_int64) for n in POSITIONS]

    def as_dict(self):
        return {n: getattr(self, n) for n in FIELDS}


def first_position(t, mask):
    """Row-major flat index of the first True of mask (t's shape) in t's memory
    order, -1 if none: the order of dims by falling stride (stable), so equal
    memory (stride-0 dims, last in that order) resolves to index 0 there."""
    if not bool(mask.any()):
        return -1
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    m = mask.permute(order).reshape(-1) if t.dim() else mask.reshape(-1)
    k = int(m.to(torch.uint8).argmax())   # argmax gives the first of equal maxima
    del m
    pidx = []
    for d in reversed(order):
        pidx.append(k % t.shape[d])
        k //= t.shape[d]
    idx = [0] * t.dim()
    for d, i in zip(reversed(order), pidx):
        idx[d] = i
    flat = 0
    for d in range(t.dim()):
        flat = flat * t.shape[d] + idx[d]
    return flat


def reference(t):
    """Every statistic of tensor t, from torch in float64 on t's device."""
    n = t.numel()
    r = dict.fromkeys(COUNTS, 0)
    r.update(dict.fromkeys(VALUES, math.nan))
    r.update(dict.fromkeys(POSITIONS, -1))
    r["numel"] = n
    if n == 0:
        return r
    try:
        x = t.double()
    except (RuntimeError, NotImplementedError):   # a conversion kernel missing on this device
        x = t.cpu().double()
    fin = torch.isfinite(x)
    r["finite"] = int(fin.sum())
    r["nan"] = int(torch.isnan(x).sum())
    r["posinf"] = int((x == math.inf).sum())
    r["neginf"] = int((x == -math.inf).sum())
    r["zeros"] = int((x == 0).sum())
    if t.dtype.is_floating_point:
        tiny = torch.finfo(t.dtype).tiny
        r["subnormal"] = int(((x != 0) & (x.abs() < tiny)).sum())
    if r["finite"]:
        f = x if r["finite"] == n else x[fin]
        r["min"] = f.min().item()
        r["max"] = f.max().item()
        r["mean"] = f.mean().item()
        r["std"] = f.std().item() if r["finite"] > 1 else math.nan
        del f
        r["min_at"] = first_position(t, x == r["min"])
        r["max_at"] = first_position(t, x == r["max"])
    if r["finite"] < n:
        r["nonfinite_at"] = first_position(t, ~fin)
    del x, fin
    return r


def compare(ours, ref, rtol=1e-5):
    """Mismatch messages (empty when all fields agree).

    Counts and min/max must be exact (NaN equals NaN). mean and std: within
    rtol relative, plus an absolute floor for results near zero, where a
    relative error is meaningless (a mean of ~0 from data of size ~1): 1e-9 *
    max|x| for the mean, 1e-12 * max|x| for std (an exact 0 may come out as
    a rounding-size value, on either side)."""
    bad = []
    for k in INTS:
        if int(ours[k]) != int(ref[k]):
            bad.append(f"{k}: got {ours[k]} want {ref[k]}")
    for k in ("min", "max"):
        a, b = ours[k], ref[k]
        if not (a == b or (math.isnan(a) and math.isnan(b))):
            bad.append(f"{k}: got {a!r} want {b!r}")
    scale = 0.0 if math.isnan(ref["min"]) else max(abs(ref["min"]), abs(ref["max"]))
    for k, floor in (("mean", 1e-9), ("std", 1e-12)):
        a, b = ours[k], ref[k]
        if math.isnan(b) or math.isnan(a):
            if not (math.isnan(a) and math.isnan(b)):
                bad.append(f"{k}: got {a!r} want {b!r}")
            continue
        if abs(a - b) > rtol * abs(b) + floor * scale:
            rel = abs(a - b) / abs(b) if b else math.inf
            bad.append(f"{k}: got {a!r} want {b!r} (rel {rel:.2e})")
    return bad


def _values(dtype, shape, g):
    """Random values of a dtype, made on the CPU with generator g."""
    td = getattr(torch, dtype)
    if dtype in FLOATS:
        scale = 4.0 if dtype.startswith("float8") else 1.0
        return (torch.randn(shape, generator=g) * scale).to(td)
    if dtype == "bool":
        return torch.rand(shape, generator=g) < 0.3
    if dtype == "uint64":
        return torch.randint(-2**63, 2**63 - 1, shape, generator=g, dtype=torch.int64).view(torch.uint64)
    lo, hi = {"int64": (-2**62, 2**62), "int32": (-2**31, 2**31 - 1), "int16": (-2**15, 2**15 - 1),
              "int8": (-128, 127), "uint8": (0, 255), "uint16": (0, 2**16 - 1),
              "uint32": (0, 2**32 - 1)}[dtype]
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(td)


def _plant(x, g):
    """Put NaN, +Inf, -Inf, zeros and subnormals at random places of a CPU float tensor (in place)."""
    flat = x.view(-1)
    n = flat.numel()
    tiny = torch.finfo(x.dtype).tiny
    for val, count in ((math.nan, 7), (math.inf, 5), (-math.inf, 3), (0.0, 11), (tiny / 4, 6), (-tiny / 4, 2)):
        flat[torch.randint(0, n, (count,), generator=g)] = val
    return x


def cases(device, small=False):
    """(name, dtype, tensor) for every dtype and layout; tensor is a str (the
    reason) when torch could not make it on that device. Values are made on the
    CPU (the same on any device; some fills lack CUDA kernels for the unsigned
    and float8 types), moved to `device`, and the view is taken there so it
    keeps its strides. small: sizes for the CPU simulation."""
    g = torch.Generator().manual_seed(1234)
    big1 = 100003 if small else 1000003

    def on(base, view=lambda x: x):
        try:
            return view(base.to(device))
        except (RuntimeError, NotImplementedError) as e:   # this torch cannot put the dtype there
            return f"cannot make it on {device}: {str(e).splitlines()[0][:120]}"

    for dt in DTYPES:
        td = getattr(torch, dt)
        v = lambda *shape: _values(dt, shape, g)  # noqa: E731
        yield "empty", dt, on(v(0, 7))
        yield "scalar-0d", dt, on(v(1).reshape(()))
        yield "one", dt, on(v(1))
        yield "two", dt, on(v(2))
        yield "tail-17", dt, on(v(17))
        yield f"contig-{big1}", dt, on(v(big1))
        yield "contig-2d", dt, on(v(317, 129))
        yield "offset-1", dt, on(v(4099), lambda x: x[1:])
        yield "offset-3-len-40", dt, on(v(50), lambda x: x[3:43])
        yield "transposed", dt, on(v(257, 130), lambda x: x.t())
        yield "permuted-4d", dt, on(v(6, 7, 8, 9), lambda x: x.permute(2, 0, 3, 1))
        yield "stepped", dt, on(v(300, 200), lambda x: x[::3, 1::2])
        yield "col-slice", dt, on(v(400, 300), lambda x: x[:, 5:250])
        yield "expanded-0-stride", dt, on(v(513, 1), lambda x: x.expand(513, 300))
        yield "expanded-scalar", dt, on(v(1).reshape(()), lambda x: x.expand(70, 90))
        yield "size-1-dims", dt, on(v(1, 333, 1, 7))
        yield "strided-3d-odd", dt, on(v(9, 10, 11), lambda x: x[1:, ::2, 3:])
        if dt in FLOATS:
            yield "specials", dt, on(_plant(v(50021), g))
            yield "specials-strided", dt, on(_plant(v(200, 300), g), lambda x: x[::2, ::3])
            nonfin = torch.tensor([math.nan, math.inf, -math.inf, math.nan]).to(td)
            yield "all-nonfinite", dt, on(nonfin)
            yield "constant", dt, on(torch.full((4097,), 3.25).to(td))
            if not dt.startswith("float8"):
                off = _values("float32", (40000,), g) + 1000.0
                yield "offset-mean-1000", dt, on(off.to(td))
                pad = off.clone()
                pad[:8192] = 0
                yield "zero-pad-then-1000", dt, on(pad.to(td))
            if dt in ("float32", "float64"):
                huge = _values("float64", (4096,), g) * 1e30
                huge[0], huge[1] = -3e38, 3e38
                yield "huge-range", dt, on(huge.to(td))
        else:
            yield "zeros", dt, on(torch.zeros(1000, dtype=td))
        # every chunk beats the running minimum: the position search on each
        if dt in FLOATS or dt in ("int64", "int32", "int16"):
            fall = torch.linspace(100, -100, 40003) if dt in FLOATS else torch.arange(20000, -20003, -1)
            yield "falling", dt, on(fall.to(td))


def describe(t):
    return f"{tuple(t.shape)} strides {tuple(t.stride())} off {t.storage_offset()}"
