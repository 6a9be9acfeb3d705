"""More package forms for tests/integration/test_packages.py (issue 15); each model is its own
cache key (HASH_PER_MODEL), so adding one rebuilds only it.

pkg_complex:  complex64 and complex128 inputs; outputs complex64 (w = z*z + x), its |w| (float32),
              and complex128 (u * 2); the printer on, so kernels carry complex tensors too.
pkg_two:      two models in one package, `a` (relu(x) + 1) and `b` (x * y - 2), put together with
              torch._inductor.package.package_aoti(path, {"a": files, "b": files}); none is
              called "model", so every command needs --model. Inputs/expected are a's.
pkg_cpp_only: aot_inductor.package_cpp_only=True: wrapper.cpp, weights.o and CMakeLists.txt, no .so.
"""
import inspect

import torch
from torch import nn

HASH_PER_MODEL = True


def shared_source():   # the modules the builders use are part of each one's key
    return "".join(inspect.getsource(f) for f in (Complex.forward, TwoA.forward, TwoB.forward, CppOnly.__init__,
                                                  CppOnly.forward))


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


class TwoA(nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1


class TwoB(nn.Module):
    def forward(self, x, y):
        return x * y - 2


def pkg_two():
    torch.manual_seed(5)
    x, y = torch.randn(4, 5), torch.randn(4, 5)

    def build(path, configs):
        from torch._inductor.package import package_aoti
        opts = dict(configs, **{"aot_inductor.package": True})
        files = {name: torch._inductor.aot_compile(torch.export.export(m, ins).module(), ins, options=opts)
                 for name, m, ins in (("a", TwoA(), (x,)), ("b", TwoB(), (x, y)))}
        package_aoti(path, files)
    return {"module": TwoA().eval(), "inputs": (x,), "dynamic": None, "build": build}


class CppOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) + 1


def pkg_cpp_only():
    torch.manual_seed(6)
    return {"module": CppOnly().eval(), "inputs": (torch.randn(4, 5),), "dynamic": None,
            "configs": {"aot_inductor.package_cpp_only": True}}


MODELS = {f.__name__: f for f in (pkg_complex, pkg_two, pkg_cpp_only)}
