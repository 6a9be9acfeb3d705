"""Packages in the forms torch writes and runs, for tests/integration/test_packages.py (issue 15).

pkg_blob:     a Linear + buffer whose weights sit outside the .so in one binary blob
              (package_constants_in_so=False, package_constants_on_disk_format="binary_blob"):
              data/aotinductor/model/<key>.wrapper_weights.blob.
pkg_pickle:   the same model with pickle_weights: data/weights/weight_N (torch.save archives)
              and weights_config.json; only load_pt2(load_weights_from_disk=True) runs it in torch.
pkg_noweights: the same model with package_constants_in_so=False and no on-disk format: the
              package carries no weights at all (the user must load them).
pkg_alias:    returns one tensor twice and its input as is (output_handles[1] = output_handles[0];
              output_handles[2] = arg0_1.release()).
pkg_nokernel: returns a view of its input: a package with the printer and no kernel at all.
pkg_unique:   torch.unique (aten::_unique2 has no C shim): called through the proxy executor,
              described in <key>.wrapper.json.
"""
import torch
from torch import nn


class LinBuf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 4)
        self.register_buffer("shift", torch.arange(4.0))

    def forward(self, x):
        return torch.relu(self.lin(x)) + self.shift


def _lin(configs):
    torch.manual_seed(7)
    return {"module": LinBuf().eval(), "inputs": (torch.randn(3, 8),), "dynamic": None, "configs": configs}


def pkg_blob():
    return _lin({"aot_inductor.package_constants_in_so": False,
                 "aot_inductor.package_constants_on_disk_format": "binary_blob"})


def pkg_pickle():
    return _lin({"aot_inductor.package_constants_in_so": False,
                 "aot_inductor.package_constants_on_disk_format": "pickle_weights"})


def pkg_noweights():
    return _lin({"aot_inductor.package_constants_in_so": False})


class Alias(nn.Module):
    def forward(self, x):
        y = x * 2
        return y, y, x


def pkg_alias():
    torch.manual_seed(1)
    return {"module": Alias().eval(), "inputs": (torch.randn(2, 5),), "dynamic": None}


class View(nn.Module):
    def forward(self, x):
        return x.view(-1)


def pkg_nokernel():
    return {"module": View().eval(), "inputs": (torch.randn(2, 3),), "dynamic": None}


class Unique(nn.Module):
    def forward(self, x):
        return torch.unique((x * 2).round()) + 1


def pkg_unique():
    torch.manual_seed(2)
    return {"module": Unique().eval(), "inputs": (torch.randn(4, 6),), "dynamic": None}


MODELS = {f.__name__: f for f in (pkg_blob, pkg_pickle, pkg_noweights, pkg_alias, pkg_nokernel, pkg_unique)}
