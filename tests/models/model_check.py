"""Models for the device/shape checklist tests (tests/integration/test_check.py).

check2: two float32 inputs, x [B, 8] with B a dynamic dim bounded 2..32, and
        w [8, 6] fully static; returns relu(x @ w + 1) and its column sums.
        The generated check_input_N functions carry a dtype check, the bounds
        of B, the static dims and strides, and the device of each input.
check_weights: a Linear whose weights are packaged outside the .so
        (aot_inductor.package_constants_in_so=False): data/weights/ files
        listed in weights_config.json.
check_custom: a Python custom op (aotidbg_check::scale) that AOTI calls
        through the proxy executor, described in <key>.wrapper.json; built
        with printer level 3 (kernel names only) and NaN asserts.
"""
import torch
from torch import nn


class TwoInputs(nn.Module):
    def forward(self, x, w):
        y = torch.relu(x @ w + 1.0)
        return y, y.sum(0)


def check2():
    torch.manual_seed(0)
    x = torch.randn(4, 8)
    w = torch.randn(8, 6)
    b = torch.export.Dim("b", min=2, max=32)
    return {"module": TwoInputs().eval(), "inputs": (x, w), "dynamic": {"x": {0: b}, "w": None}}


def check_weights():
    torch.manual_seed(0)
    return {"module": nn.Linear(8, 4).eval(), "inputs": (torch.randn(3, 8),), "dynamic": None,
            "configs": {"aot_inductor.package_constants_in_so": False,
                        "aot_inductor.package_constants_on_disk_format": "pickle_weights"}}


def _scale_op():
    """Registers aotidbg_check::scale once per process (registry() may load this file twice)."""
    try:
        return torch.ops.aotidbg_check.scale
    except (AttributeError, RuntimeError):
        pass

    @torch.library.custom_op("aotidbg_check::scale", mutates_args=())
    def scale(x: torch.Tensor, k: float) -> torch.Tensor:
        return x * k

    @scale.register_fake
    def _(x, k):
        return torch.empty_like(x)
    return torch.ops.aotidbg_check.scale


class CustomOp(nn.Module):
    def forward(self, x):
        return _scale_op()(x.relu(), 2.0) + 1


def check_custom():
    torch.manual_seed(0)
    _scale_op()
    return {"module": CustomOp().eval(), "inputs": (torch.randn(4, 4),), "dynamic": None,
            "configs": {"aot_inductor.debug_intermediate_value_printer": "3", "nan_asserts": True}}


MODELS = {"check2": check2, "check_weights": check_weights, "check_custom": check_custom}
