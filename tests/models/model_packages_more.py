"""More package forms for tests/integration/test_packages.py (issue 15); each model is its own
cache key (HASH_PER_MODEL), so adding one rebuilds only it.

pkg_complex:  complex64 and complex128 inputs; outputs complex64 (w = z*z + x), its |w| (float32),
              and complex128 (u * 2); the printer on, so kernels carry complex tensors too.
"""
import torch
from torch import nn

HASH_PER_MODEL = True


class Complex(nn.Module):
    def forward(self, z, x, u):
        w = z * z + x
        return w, torch.abs(w), u * 2


def pkg_complex():
    torch.manual_seed(3)
    z = torch.randn(4, 3, dtype=torch.complex64)
    z[0, 0] = 0
    return {"module": Complex().eval(), "dynamic": None,
            "inputs": (z, torch.randn(4, 3), torch.randn(5, dtype=torch.complex128))}


MODELS = {f.__name__: f for f in (pkg_complex,)}
