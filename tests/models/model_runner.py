"""Packages for the runner's protocol tests (tests/integration/test_runner_proto.py).

runner_dtypes: one input of every dtype the runner builds (float32 float16
               bfloat16 int32 bool float64 int8 int16 uint8 int64) and outputs
               in float16, bfloat16, bool, float64, int16, uint8 and int64, so
               the statistics of each dtype are checked against torch.
runner_dtypes2: outputs in the dtypes the runner only reads: float8_e4m3fn and
               float8_e5m2 (with NaN, Inf and subnormals), uint16 (transposed:
               strided), uint32 and uint64.
runner_slow:   80 rounds of relu(x @ w) on 1024x1024 (one weight): 160
               kernels that take a few seconds on CPU, for ^C while running.
runner_nan:    Linear -> log -> Linear: the log kernel turns negative
               activations into NaN, for the break-on-NaN stop.
runner_level2: runner_nan built with the printer at level 2, whose calls go
               to aoti_torch_print_tensor_handle("<phase> - <kernel> - <arg>").
runner_nanassert: runner_nan built with nan_asserts and no printer: the Run
               fails with "Exception in aoti_torch: At least one NaN in bufN"
               then "Error: ..." on stderr, for the runner's error text.
The others are built with the printer at level 1 (make_models.py).
"""
import torch
from torch import nn


class Dtypes(nn.Module):
    def forward(self, x, h, b, i, m, d, k, s, u, l):
        y = (x + h.float() + b.float()) * i.float()
        y = torch.where(m, y, torch.zeros_like(y))
        return y.half(), y.bfloat16(), y > 0, d * 2.0, k.to(torch.int16) * s, u + 1, l * 3


class Dtypes2(nn.Module):
    def forward(self, x, s):
        a = x.abs()
        return (s.to(torch.float8_e4m3fn), (s * 4).to(torch.float8_e5m2), (a * 100).to(torch.uint16).t(),
                (a * 1000).to(torch.uint32), (a * 1e6).to(torch.uint64))


class SlowChain(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(1024, 1024) / 32)

    def forward(self, x):
        for _ in range(80):
            x = torch.relu(x @ self.w)
        return x


class NanNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 8)
        self.l2 = nn.Linear(8, 4)

    def forward(self, x):
        return self.l2(torch.log(self.l1(x)))


def runner_dtypes():
    g = torch.Generator().manual_seed(3)
    shape = (4, 8)
    inputs = (
        torch.randn(shape, generator=g),
        torch.randn(shape, generator=g).half(),
        torch.randn(shape, generator=g).bfloat16(),
        torch.randint(-3, 4, shape, generator=g, dtype=torch.int32),
        torch.rand(shape, generator=g) > 0.3,
        torch.randn(3, generator=g, dtype=torch.float64),
        torch.randint(-100, 100, (5,), generator=g, dtype=torch.int8),
        torch.randint(-300, 300, (5,), generator=g, dtype=torch.int16),
        torch.randint(0, 250, (5,), generator=g, dtype=torch.uint8),
        torch.randint(-1000, 1000, (5,), generator=g, dtype=torch.int64),
    )
    return {"module": Dtypes().eval(), "inputs": inputs, "dynamic": None}


def runner_dtypes2():
    g = torch.Generator().manual_seed(5)
    s = torch.randn(4, 8, generator=g)
    s[0, :5] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 0.004])   # 0.004: e4m3 subnormal
    s[1, 0] = 1e-5                                                                        # e5m2 subnormal (x4)
    return {"module": Dtypes2().eval(), "inputs": (torch.randn(4, 8, generator=g), s), "dynamic": None}


def runner_slow():
    torch.manual_seed(6)
    return {"module": SlowChain().eval(), "inputs": (torch.randn(1024, 1024),), "dynamic": None}


def runner_nan():
    torch.manual_seed(4)
    return {"module": NanNet().eval(), "inputs": (torch.randn(4, 8),), "dynamic": None}


def runner_level2():
    spec = runner_nan()
    spec["configs"] = {"aot_inductor.debug_intermediate_value_printer": "2"}
    return spec


def runner_nanassert():
    spec = runner_nan()
    spec["configs"] = {"nan_asserts": True, "aot_inductor.debug_intermediate_value_printer": "0"}
    return spec


MODELS = {"runner_dtypes": runner_dtypes, "runner_dtypes2": runner_dtypes2, "runner_slow": runner_slow, "runner_nan": runner_nan, "runner_level2": runner_level2,
          "runner_nanassert": runner_nanassert}
