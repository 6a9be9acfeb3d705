#!/usr/bin/env python3
"""aotidbg_eager: the eager reference of an exported program, node by node.

Runs a torch.export.save file eagerly (torch.fx.Interpreter over
ExportedProgram.module()) on the inputs an aotidbg inputs spec describes, made
exactly as aotidbg-runner makes them (the same generator, bit for bit), and
writes the value of every graph node the package's kernels compute as one
.npy file each, so aotidbg can compare each kernel's output with it
(`aotidbg run PKG --eager PROGRAM.pt2`, man aotidbg(1), EAGER REFERENCE).

  PROGRAM          a torch.export.save file (the program the package was
                   compiled from, or a changed one)
  --inputs SPEC    the inputs spec: YAML (needs PyYAML) or the JSON aotidbg
                   writes ({"inputs": [{shape, dtype, device, fill, seed,
                   value, file, raw}]}); `raw: true` marks a file of raw
                   little-endian row-major bytes (aotidbg's materialised
                   inputs), else a file is a .npy
  --calls CALLS    JSON {"calls": [{"kernel", "occurrence", "nodes": [...]}]}:
                   the package's kernel calls in wrapper.cpp order and the
                   graph nodes each names (kernel_information.json
                   pre_grad_nodes, else the source-node comment). Without it,
                   every node with a tensor value is written
  --out DIR        where the node files (DIR/nodes/<node>.npy) and the
                   manifest go; files already there are kept and not recomputed
  --manifest NAME  the manifest's file name in DIR (default manifest.json)
  --device DEV     run on cpu, cuda or cuda:N (default: the program's device)
  --float64        run in float64: floating parameters, inputs and every
                   floating result are widened (explicit casts in the program
                   then keep the wider type): a reference nearer the exact math

Which node's value a kernel's output holds: a kernel computes the nodes it
names, but writes out only those used outside it (a user not among its
nodes, or the graph's output); those are its references. A tuple-valued
node stands for its getitem users; a view of one of its nodes also lists
the node it views (the buffer holds the viewed data). bfloat16 and float8
values are written as float32 (numpy has no such dtype; the widening is
exact).

The runner computes the same files without Python in the common case
(`aotidbg-runner --eager-ref`, core/eager/eager_program.h: the same node
rule, in C); this helper is the fallback for what it cannot interpret.

Manifest (JSON): {"version": 1, "computed_by": "python" (the runner's say
"runner"), "program", "device", "float64", "inputs",
"calls": [{"kernel", "occurrence", "refs": [{"node", "file", "dtype",
"shape", "scale"}], "missing": [nodes the program does not have]}], "nodes":
N}. A call's scale is the largest finite |value| the kernel combines: of its
nodes and of their inputs (weights included); aotidbg's default tolerance
judges an element at that scale as well as its own. nodes/absmax.json keeps
every node's largest |value|.

Exit codes: 0 written; 1 the program failed to run; 2 bad usage or input.
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile
import time

T_START = time.monotonic()   # the helper's own start: Python, torch and the program's load are most of a small model's cost

VERSION = 1
VIEW_OPS = {"view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand", "squeeze", "unsqueeze",
            "select", "slice", "as_strided", "alias", "detach", "view_as", "flatten", "unflatten", "narrow",
            "split", "chunk", "unbind", "diagonal", "movedim", "contiguous"}
NODE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,200}$")


def fail(code, msg):
    print(f"aotidbg_eager: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="aotidbg_eager", description=__doc__.split("\n\n")[0])
    p.add_argument("program", help="a torch.export.save file (.pt2)")
    p.add_argument("--inputs", required=True, help="inputs spec (.yaml, or .json as aotidbg writes it)")
    p.add_argument("--calls", help="the package's kernel calls and their graph nodes (JSON)")
    p.add_argument("--out", required=True, help="folder for nodes/*.npy and the manifest")
    p.add_argument("--manifest", default="manifest.json")
    p.add_argument("--device", default=None)
    p.add_argument("--float64", action="store_true")
    return p.parse_args(argv)


# ---- inputs, exactly as aotidbg-runner makes them (core/runner/input_build.h) -------------

def splitmix64(seed, n):
    """The first n outputs of a splitmix64 stream seeded with seed (uint64 arithmetic)."""
    import numpy as np
    gamma = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & (2**64 - 1)) + np.arange(1, n + 1, dtype=np.uint64) * gamma
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


FLOATS = {"float32", "float64", "float16", "bfloat16"}
INTS = {"int64": (-2**63, 2**63 - 1), "int32": (-2**31, 2**31 - 1), "int16": (-32768, 32767),
        "int8": (-128, 127), "uint8": (0, 255)}


def fill_values(spec, numel):
    """float64 (or uint64 for integer randn) values of the fill, before the cast to the dtype."""
    import numpy as np
    fill, dtype = spec.get("fill", "randn"), spec["dtype"]
    if fill == "zeros":
        return np.zeros(numel)
    if fill in ("ones", "full"):
        return np.full(numel, 1.0 if fill == "ones" else float(spec.get("value", 0.0)))
    if fill == "arange":
        i = np.arange(numel, dtype=np.float64)
        return np.fmod(i, 2) if dtype == "bool" else i
    if fill == "randn":
        seed = int(spec.get("seed", 0))
        if dtype not in FLOATS:
            r = splitmix64(seed, numel)
            return (r >> np.uint64(63 if dtype == "bool" else 60)).astype(np.float64)
        pairs = (numel + 1) // 2
        r = splitmix64(seed, 2 * pairs)
        u1 = ((r[0::2] >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0**-53
        u2 = (r[1::2] >> np.uint64(11)).astype(np.float64) * 2.0**-53
        rad, th = np.sqrt(-2.0 * np.log(u1)), 6.283185307179586 * u2
        out = np.empty(2 * pairs)
        out[0::2], out[1::2] = rad * np.cos(th), rad * np.sin(th)
        return out[:numel]
    raise ValueError(f"fill '{fill}' is not one of randn, zeros, ones, full, arange, file")


def to_dtype(vals, dtype):
    """The runner's store(): floats rounded to nearest even (through float32 for the
    16-bit ones, as it does), integers truncated and saturated, bool nonzero."""
    import numpy as np
    import torch
    if dtype == "float64":
        return torch.from_numpy(vals.astype(np.float64))
    if dtype in FLOATS:
        f32 = torch.from_numpy(vals.astype(np.float32))
        return f32 if dtype == "float32" else f32.to(getattr(torch, dtype))
    if dtype == "bool":
        return torch.from_numpy(vals != 0)
    if dtype in INTS:
        lo, hi = INTS[dtype]
        v = np.nan_to_num(np.trunc(vals), nan=0.0)
        if dtype == "int64":   # exact where a double can say it
            out = np.where(v >= 2.0**63, hi, np.where(v <= -2.0**63, lo, 0)).astype(np.int64)
            inside = (v < 2.0**63) & (v > -2.0**63)
            out[inside] = v[inside].astype(np.int64)
            return torch.from_numpy(out)
        return torch.from_numpy(np.clip(v, lo, hi).astype(getattr(np, dtype)))
    raise ValueError(f"dtype '{dtype}' is not one aotidbg can make")


def make_input(i, spec, base):
    import numpy as np
    import torch
    shape = [int(d) for d in spec.get("shape", [])]
    numel = math.prod(shape)
    dtype = spec.get("dtype", "float32")
    if spec.get("fill") == "file":
        path = spec.get("file")
        if not path:
            raise ValueError("fill: file without a file")
        if not os.path.isabs(path):
            path = os.path.join(base, path)
        if spec.get("raw"):
            tdt = getattr(torch, dtype)
            raw = np.fromfile(path, dtype=np.uint8)
            t = torch.from_numpy(raw.copy()).view(tdt)
        elif path.endswith(".safetensors"):
            from safetensors.torch import load_file
            t = load_file(path)[spec["key"]]
        else:
            t = torch.from_numpy(np.load(path, allow_pickle=False))
        if t.numel() != numel:
            raise ValueError(f"{path} holds {t.numel()} elements, the shape {shape} needs {numel}")
        t = t.reshape(shape).to(getattr(torch, dtype))
    else:
        t = to_dtype(fill_values(spec, numel), dtype).reshape(shape)
    if spec.get("strides"):   # the runner's strides: same values, that layout
        st = [int(s) for s in spec["strides"]]
        t = torch.empty_strided(shape, st, dtype=t.dtype).copy_(t)
    return t


def load_spec(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        spec = json.loads(text)
    else:
        try:
            import yaml
        except ImportError:
            fail(2, f"{path}: reading YAML needs PyYAML (pip install pyyaml), or give the spec as JSON")
        spec = yaml.safe_load(text)
    items = spec.get("inputs") if isinstance(spec, dict) else None
    if not isinstance(items, list):
        fail(2, f"{path}: expected a top-level 'inputs:' list")
    return items


# ---- which nodes a kernel writes out -------------------------------------------------------

NO_BIAS = "__no_bias"   # core/eager/eager_program.h eager_program_without_bias names it so


def bias_index(n):
    """The position of node n's tensor `bias` argument in its op's schema, None when it has none
    or passes None."""
    import torch
    schema = getattr(n.target, "_schema", None)
    if n.op != "call_function" or schema is None:
        return None
    for i, a in enumerate(schema.arguments):
        if a.name == "bias":
            given = n.args[i] if i < len(n.args) else n.kwargs.get("bias")
            return i if isinstance(given, torch.fx.Node) else None
    return None


def op_name(node):
    t = node.target
    name = getattr(t, "__name__", None) or str(t)
    if hasattr(t, "_opname"):
        name = t._opname
    return name.split(".")[0]


def is_getitem(node):
    import operator
    return node.op == "call_function" and node.target is operator.getitem


def call_refs(graph_nodes, names, lifted=()):
    """The nodes among `names` whose values leave the kernel (see the module doc),
    in graph order; the names the program does not have; and the nodes whose
    values the kernel combines (its nodes and their inputs: the scale). A graph
    input (`lifted`: the exported program's placeholder names) is not compared
    here: the runner's reference compares a kernel that lays one out."""
    present = [graph_nodes[n] for n in names if n in graph_nodes]
    missing = [n for n in names if n not in graph_nodes and n not in lifted]
    inside = {n.name for n in present}
    for n in list(present):   # a tuple-valued node stands for its getitems
        for u in n.users:
            if is_getitem(u) and u.name not in inside:
                inside.add(u.name)
                present.append(u)
    order = {n: i for i, n in enumerate(graph_nodes.values())}
    present.sort(key=lambda n: order[n])
    out = []
    for n in present:
        if any(u.name not in inside or u.op == "output" for u in n.users if not is_getitem(u)):
            out.append(n)
    if not out and present:
        out.append(present[-1])
    extra = []
    for n in out:   # a view: the buffer holds the data it views
        src = n
        while op_name(src) in VIEW_OPS and src.args and hasattr(src.args[0], "name") \
                and src.args[0].name in inside:
            src = src.args[0]
            if src not in out and src not in extra:
                extra.append(src)
    combined = set(inside)
    for n in present:
        combined.update(a.name for a in n.all_input_nodes)
    return [n.name for n in out + extra], missing, combined


# ---- the run ----------------------------------------------------------------------------------

def program_device(ep):
    import torch
    for t in list(ep.state_dict.values()) + list(ep.constants.values()):
        if isinstance(t, torch.Tensor):
            return str(t.device)
    return "cpu"


def largest(t):
    """The largest finite |value| of a tensor (0 when it has none)."""
    import torch
    if not t.numel() or t.dtype.is_complex:
        return 0.0
    t = t.detach()
    if not t.is_floating_point():   # ids and indices set no scale (the runner's rule too)
        return 0.0
    m = float(t.abs().amax())   # exact in the tensor's own dtype: no widened copy
    if math.isfinite(m):
        return m
    a = t.double().abs()   # NaN/Inf among the values: the finite ones only
    a = a[torch.isfinite(a)]
    return float(a.max()) if a.numel() else 0.0


def save_npy(t, path):
    """Writes t as a .npy (through a temporary name); returns its dtype and shape."""
    import numpy as np
    import torch
    t = t.detach()
    if t.dtype in (torch.bfloat16,) or "float8" in str(t.dtype):
        t = t.float()
    a = t.cpu().numpy()
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", suffix=".npy", dir=os.path.dirname(path))
    with os.fdopen(fd, "wb") as f:
        np.save(f, np.ascontiguousarray(a).reshape(a.shape), allow_pickle=False)   # 0-d stays 0-d
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return str(a.dtype), list(a.shape)


class memoized_type_hints:
    """While loading: typing.get_type_hints of a class, computed once per class. torch's
    deserializer asks it again for every node it reads (about half of torch.export.load's
    own time); the hints of a schema class do not change. Other calls pass through."""

    def __enter__(self):
        import typing
        orig, memo = typing.get_type_hints, {}

        def hints(obj, globalns=None, localns=None, include_extras=False):
            if localns is not None or not isinstance(obj, type):
                return orig(obj, globalns, localns, include_extras)
            key = (obj, id(globalns), include_extras)
            if key not in memo:
                memo[key] = orig(obj, globalns, None, include_extras)
            return dict(memo[key])
        self.orig = orig
        typing.get_type_hints = hints
        return self

    def __exit__(self, *exc):
        import typing
        typing.get_type_hints = self.orig
        return False


def write_json(path, obj):
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", suffix=".json", dir=os.path.dirname(path))
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main(argv):
    args = parse_args(argv)
    for p in (args.program, args.inputs, args.calls):
        if p and not os.path.isfile(p):
            fail(2, f"{p}: no such file")
    try:
        import numpy  # noqa: F401
        import torch
    except ImportError as e:
        fail(2, f"torch and numpy must be importable here ({e})")
    t_torch = time.monotonic()
    items = load_spec(args.inputs)
    calls = None
    if args.calls:
        with open(args.calls) as f:
            calls = json.load(f).get("calls")
        if not isinstance(calls, list):
            fail(2, f"{args.calls}: expected {{\"calls\": [...]}}")
    try:
        with memoized_type_hints():
            ep = torch.export.load(args.program)
    except Exception as e:
        fail(2, f"{args.program}: not a torch.export.save file: {type(e).__name__}: {e}")
    t_load = time.monotonic()
    device = args.device or program_device(ep)
    if device.startswith("cuda") and not torch.cuda.is_available():
        fail(2, f"--device {device}, but torch.cuda.is_available() is False here")
    if torch.device(device) != torch.device(program_device(ep)):
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, device)
    base = os.path.dirname(os.path.abspath(args.inputs))
    try:
        inputs = [make_input(i, s, base).to(device) for i, s in enumerate(items)]
    except Exception as e:
        fail(2, f"{args.inputs}: input {len(inputs) if 'inputs' in dir() else '?'}: {e}")
    gm = ep.module()
    graph_nodes = {n.name: n for n in gm.graph.nodes if n.op != "placeholder"}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        fail(2, f"the program takes {len(placeholders)} inputs "
                f"({', '.join(n.name for n in placeholders)}), the spec gives {len(inputs)}")

    # what to write: each call's references
    lifted = {s.arg.name for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")}
    manifest_calls, wanted, combines, no_bias = [], set(), [], set()
    for c in calls or []:
        names = [n for n in c.get("nodes", []) if isinstance(n, str) and NODE_NAME.match(n)]
        refs, missing, combined = call_refs(graph_nodes, names, lifted)
        for n in c.get("no_bias", []):   # the call's output holds n less its bias (a GPU's split)
            if n in refs and bias_index(graph_nodes[n]) is not None:
                refs[refs.index(n)] = n + NO_BIAS
                no_bias.add(n)
        manifest_calls.append({"kernel": c.get("kernel", ""), "occurrence": int(c.get("occurrence", 0)),
                               "refs": refs, "missing": missing})
        combines.append(combined)
        wanted.update(refs)
    if calls is None:
        wanted = {n for n in graph_nodes if graph_nodes[n].op == "call_function"}

    nodes_dir = os.path.join(args.out, "nodes")
    os.makedirs(nodes_dir, exist_ok=True)
    absmax_path = os.path.join(nodes_dir, "absmax.json")
    written, absmax = {}, {}
    if os.path.isfile(absmax_path):   # kept from an earlier run of the same program and inputs
        with open(absmax_path) as f:
            absmax = json.load(f)
        for name in wanted:
            path = os.path.join(nodes_dir, name + ".npy")
            if os.path.isfile(path):
                import numpy as np
                a = np.load(path, mmap_mode="r", allow_pickle=False)
                written[name] = (str(a.dtype), list(a.shape))
    todo = wanted - set(written)
    t0 = time.monotonic()
    if todo:
        if args.float64:
            gm = gm.to(torch.float64)
            inputs = [t.double() if t.is_floating_point() else t for t in inputs]

        class Recorder(torch.fx.Interpreter):
            def call_function(self, target, a, kw):
                try:
                    return super().call_function(target, a, kw)
                except RuntimeError:
                    # the program's view on a tensor that another path laid out otherwise (float64
                    # attention takes the math path, whose output is transposed): the same values
                    if target is not torch.ops.aten.view.default:
                        raise
                    return torch.ops.aten.reshape.default(*a, **kw)

            def run_node(self, n):
                r = super().run_node(n)
                if args.float64 and isinstance(r, torch.Tensor) and r.is_floating_point() \
                        and r.dtype != torch.float64:
                    r = r.double()
                if isinstance(r, torch.Tensor):
                    absmax[n.name] = largest(r)
                    if n.name in todo:
                        written[n.name] = save_npy(r, os.path.join(nodes_dir, n.name + ".npy"))
                    if n.name + NO_BIAS in todo:   # the same op, its bias None
                        a, kw = self.fetch_args_kwargs_from_env(n)
                        i, a, kw = bias_index(n), list(a), dict(kw)
                        if i < len(a):
                            a[i] = None
                        else:
                            kw["bias"] = None
                        v = n.target(*a, **kw)
                        if args.float64 and v.is_floating_point():
                            v = v.double()
                        written[n.name + NO_BIAS] = save_npy(v, os.path.join(nodes_dir, n.name + NO_BIAS + ".npy"))
                return r
        try:
            with torch.no_grad():
                Recorder(gm).run(*inputs)
        except Exception as e:
            fail(1, f"the program failed to run eagerly on {device}: {type(e).__name__}: {e}")
        write_json(absmax_path, absmax)
    for c, combined in zip(manifest_calls, combines):
        scale = max([absmax.get(n, 0.0) for n in combined] or [0.0])
        c["refs"] = [{"node": n, "file": f"nodes/{n}.npy", "dtype": written[n][0], "shape": written[n][1],
                      "scale": scale} for n in c["refs"] if n in written]
    manifest = {"version": VERSION, "computed_by": "python", "program": os.path.abspath(args.program), "device": device,
                "float64": bool(args.float64), "inputs": os.path.abspath(args.inputs),
                "calls": manifest_calls, "nodes": len(written), "seconds": round(time.monotonic() - t0, 3),
                "startup_seconds": {"python_torch": round(t_torch - T_START, 3), "load": round(t_load - t_torch, 3)}}
    write_json(os.path.join(args.out, args.manifest), manifest)
    print(f"aotidbg_eager: {len(written)} node value(s) in {nodes_dir} ({len(todo)} computed on {device}"
          f"{', float64' if args.float64 else ''}, {time.monotonic() - t0:.1f} s; before that, starting Python "
          f"and torch {t_torch - T_START:.1f} s, loading the program {t_load - t_torch:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
