"""OpInfo ops side by side in one package per dtype, for tests/integration/test_eager_opinfo.py.

The ops the --eager sweep over PyTorch's OpInfo database (tests/models/sweep_eager_opinfo.py,
its table in tests/data/sweep_eager_opinfo.tsv) found failing, and a few representative
passing ones. Each op is built as the sweep builds it (its first usable CPU sample, seeded:
the module is the same every time); the package has provenance, as the sweep's do. Programs:
`same` (the package's own) and `perturbed` (each op's perturbed buffer scaled by 1.5 and
shifted by 0.5).
"""
import os

HASH_PER_MODEL = True

# op -> why it is here
OPS = {
    "amax": "a reduction",
    "mm": "a matmul (an extern kernel)",
    "var_mean": "a multi-output op (two nodes of one kernel)",
    "max.reduction_with_dim": "a multi-output op (values and indices)",
    "t": "a view op (its node views the input's buffer)",
    "index_select": "an index op (an integer buffer, not the perturbed one)",
    "dot": "sweep failure: dot and vdot write two 0-d outputs in one kernel; both departing, both were "
           "blamed on one output and taken for another value (no departure at all)",
    "vdot": "(with dot)",
    "add": "sweep: a 0-d buffer Inductor inlines into the kernel's code (no weight reads it)",
}


def shared_source():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep_eager_opinfo.py")) as f:
        return f.read() + repr(OPS)


def _batch(dtype_name):
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from sweep_eager_opinfo import batch_module, op_id, perturbed_copy, pick
    dtype = getattr(torch, dtype_name)
    by = {op_id(o): o for o in op_db}
    mods, xs = [], []
    for name in OPS:
        m, x, why = pick(by[name], dtype, torch)
        assert m is not None, f"{name} {dtype_name}: {why}"
        mods.append(m)
        xs.append(x)
    return {
        "module": batch_module(mods, torch),
        "inputs": tuple(xs),
        "configs": {"trace.provenance_tracking_level": 1},
        "programs": {"same": batch_module(mods, torch), "perturbed": batch_module(perturbed_copy(mods, torch), torch)},
    }


def eager_opinfo_float32():
    return _batch("float32")


def eager_opinfo_bfloat16():
    return _batch("bfloat16")


MODELS = {"eager_opinfo_float32": eager_opinfo_float32, "eager_opinfo_bfloat16": eager_opinfo_bfloat16}
