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

# op -> (min_numel: its first sample whose input has as many elements, why it is here). Inputs of
# 2 or more elements where the op has them: a CPU kernel packs the loops of several ops, and
# many 0-d outputs of one kernel leave the node-to-output rule guessing.
OPS = {
    "amax": (2, "a reduction"),
    "mm": (2, "a matmul (an extern kernel)"),
    "var_mean": (2, "sweep failure: a multi-output Welford reduction whose first kernel writes the sum of "
                    "squares in the var's shape, finished by a later kernel (a false departure)"),
    "max.reduction_with_dim": (2, "a multi-output op (values and indices)"),
    "t": (2, "a view op (its node views the buffer of the add before it)"),
    "index_select": (2, "an index op (an integer buffer, not the perturbed one)"),
    "dot": (2, "sweep failure: dot and vdot write two 0-d outputs in one kernel; both departing, both were "
               "blamed on one output and taken for another value (no departure at all)"),
    "vdot": (2, "(with dot)"),
    "block_diag": (2, "sweep failure: a cat Inductor writes slice by slice into one buffer (no output of "
                      "the node's shape: not compared)"),
    "cholesky": (2, "sweep failure: a proxy-executor ATen fallback that kernel_information.json names no "
                    "node for (not compared)"),
    "add": (1, "sweep: a 0-d buffer Inductor inlines into the kernel's code (no weight reads it)"),
}


# cholesky: no bfloat16 CPU kernel. dot, vdot, add: a 0-d bfloat16 result is judged with atol raised to
# rtol times the largest value the kernel combines, and this kernel packs other ops' loops (a
# var of 24: atol 0.39): the perturbed dot then lies within it of an input the kernel reads
NOT_IN = {"bfloat16": {"cholesky", "dot", "vdot", "add"}}


def ops_for(dtype_name):
    return [n for n in OPS if n not in NOT_IN.get(dtype_name, ())]


def shared_source():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep_eager_opinfo.py")) as f:
        return f.read() + repr(OPS) + repr(NOT_IN)


def _batch(dtype_name):
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from sweep_eager_opinfo import batch_module, op_id, perturbed_copy, pick
    dtype = getattr(torch, dtype_name)
    by = {op_id(o): o for o in op_db}
    mods, xs = [], []
    for name in ops_for(dtype_name):
        m, x, why = pick(by[name], dtype, torch, OPS[name][0])
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
