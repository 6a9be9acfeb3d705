#!/usr/bin/env python3
"""aotidbg_record: the compiler's own buffer -> graph node record of a package, with each node's value.

Lowers the exported program again with this machine's torch and Inductor (the C++ compile is
skipped: the lowering stops where AOTInductor would compile), and reads, for every buffer
Inductor allocates, the FX node of its post-grad graph it came from (`origin_node`,
torch/_inductor/ir.py). It then checks that the lowering is the package's: the kernel call
statements of its wrapper code (callee and the buffers each passes, in order) must equal those
of the package's wrapper.cpp; at the first difference nothing from there on is compared, and
the manifest says where and why (another torch, another inductor config). It never guesses.

The values: the post-grad graph (the one Inductor lowers, ATen ops after decomposition) run
with torch.fx.Interpreter on the run's inputs (made exactly as aotidbg-runner makes them:
aotidbg_eager.py), in the program's own dtypes and again in float64 (every floating input,
weight and dtype argument widened, as torch's accuracy checks do with their fp64 reference).
A buffer's value after the launch that makes it (the first call passing it, from aotidbg's
wrapper scan: --calls) is its origin node's.

  PROGRAM          the torch.export.save file
  --inputs SPEC    the inputs spec (JSON as aotidbg writes it, or YAML)
  --calls CALLS    {"calls": [{"kernel", "occurrence", "defines": [buffer names]}]}
  --wrapper CPP    the package's wrapper.cpp
  --out DIR        the files go in DIR/record/ (<buffer>.npy, <buffer>.f64.npy)
  --manifest NAME  the manifest's name in DIR
  --device DEV     cpu, cuda, cuda:N

Manifest: aotidbg_eager.py's (calls with refs), each ref with "tensor" (the buffer), "file",
"file64"; and "record": {"torch", "matched" (the whole call sequence agreed), "why" (what was
not covered, "" nothing), "buffers" (the record's), "launches", "bound" (buffers with a value)}.
Exit codes: 0 written (a mismatch is written too: it is the answer); 1 the lowering or the
program failed; 2 bad usage or input.
"""
import argparse
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aotidbg_eager as E  # noqa: E402  (inputs made as the runner makes them, .npy writing)

T_START = time.monotonic()
PRINTER = re.compile(r"aoti_torch_(save|print)_tensor_handle|printf\(|AOTI_RUNTIME_CHECK|std::cout")
CALL = re.compile(r"\b((?:cpp_fused|call_triton|triton|aoti_torch_(?:cpu|cuda|xpu|mps)|cpp_)\w*)\s*\(")
BUF = re.compile(r"\b(buf\d+)(?:_handle)?\b")   # passed, or filled through its handle (&buf2_handle)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="aotidbg_record", description=__doc__.split("\n\n")[0])
    p.add_argument("program")
    p.add_argument("--inputs", required=True)
    p.add_argument("--calls", required=True)
    p.add_argument("--wrapper", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--manifest", default="manifest.json")
    p.add_argument("--device", default=None)
    return p.parse_args(argv)


def call_skeleton(text):
    """The kernel call statements of run_impl in order: (line, callee, buffers passed). Declarations
    (`void cpp_fused_x(...)`, kernel source in comments) and the printer's own calls are left out;
    the same rule on both texts, so a difference is a difference of the code."""
    start = text.find("::run_impl(")
    out = []
    for no, line in enumerate(text[max(start, 0):].split("\n"), 1):
        s = line.strip()
        if not s or s.startswith("//") or PRINTER.search(s) or s.startswith(("void ", "extern ", "static ")):
            continue
        m = CALL.search(s)
        if not m or "{nullptr}" in s:
            continue
        out.append((no, m.group(1), tuple(BUF.findall(s[m.end():]))))
    return out


def first_difference(pkg, rec):
    for i, (a, b) in enumerate(zip(pkg, rec)):
        if a[1:] != b[1:]:
            return i, f"the package's call {i} is {a[1]}({', '.join(a[2])}), the record's {b[1]}({', '.join(b[2])})"
    if len(pkg) != len(rec):
        return min(len(pkg), len(rec)), (f"the package makes {len(pkg)} kernel calls, the record {len(rec)}")
    return None, ""


class Lowered(Exception):
    pass


def lower(ep):
    """Inductor's GraphLowering of the program as aoti_compile_and_package makes it, stopped before
    the C++ compile: (graph, wrapper code)."""
    import tempfile
    import torch
    from torch._inductor import codecache
    got = {}
    orig = codecache.AotCodeCompiler.__dict__["compile"]

    def stop(cls, graph, wrapper_code, kernel_code, *a, **k):
        got["graph"], got["wrapper"] = graph, wrapper_code
        raise Lowered()
    codecache.AotCodeCompiler.compile = classmethod(stop)
    try:
        with tempfile.TemporaryDirectory() as d:
            torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, "x.pt2"),
                                                     inductor_configs={"fx_graph_cache": False})
    except Exception:
        if "graph" not in got:
            raise
    finally:
        codecache.AotCodeCompiler.compile = orig
    if "graph" not in got:
        raise RuntimeError("the lowering finished without reaching AotCodeCompiler.compile")
    return got["graph"], got["wrapper"]


def copy_of(b, by_name, origin):
    """The node whose value buffer b copies, when Inductor's IR says it is a copy: its loop body only
    loads (inner_fn_opcount: no other op) from one buffer (a graph input, a weight, or a buffer with an
    origin) of b's own shape. None otherwise."""
    from torch._inductor import ir
    data = getattr(b, "data", None)
    if not isinstance(data, ir.Pointwise):
        return None
    try:
        oc = data.inner_fn_opcount()
        size = [int(x) for x in b.get_size()]
    except Exception:
        return None
    reads = set(oc.read_buffers)
    if set(oc.used_ops) - {"load"} or len(reads) != 1:
        return None
    src = reads.pop()
    n = origin[src][0] if src in origin else by_name.get(src)
    if n is None:
        return None
    val = n.meta.get("val")
    if val is None and n.op == "get_attr":   # a weight: its tensor on the graph module
        val = n.graph.owning_module
        for part in str(n.target).split("."):
            val = getattr(val, part, None)
    try:
        if val is None or [int(x) for x in val.shape] != size:
            return None
    except Exception:   # symbolic sizes
        return None
    return n


def argument_copies(b, by_name, origin):
    """What extern kernel b's inputs hold, from the compiler's own call: b's op is the target of exactly
    one of its origin nodes, whose tensor arguments, in the op's schema order, are b's inputs one for
    one (attention's q, k, v and mask, laid out for it). Returns ({buffer: FX node}, {buffer: (FX node,
    view)}): an input passed whole holds its argument's value (of the same shape); one passed as a view
    over all of a buffer holds it in that view's layout.""" 
    import torch
    from torch._inductor import ir
    op = getattr(b, "op_overload", None)
    if not isinstance(b, ir.ExternKernel) or not isinstance(op, torch._ops.OpOverload):
        return {}, {}
    ns = [n for n in getattr(b, "origins", ()) if n.op == "call_function" and n.target is op]
    if len(ns) != 1:
        return {}, {}
    n, args = ns[0], []
    for i, a in enumerate(op._schema.arguments):
        v = n.args[i] if i < len(n.args) else n.kwargs.get(a.name)
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(x, torch.fx.Node) and isinstance(x.meta.get("val"), torch.Tensor):
                args.append(x)
    ins = getattr(b, "inputs", [])
    if len(ins) != len(args):
        return {}, {}
    whole, viewed = {}, {}
    for i, a in zip(ins, args):
        if not hasattr(i, "get_name") or i.get_name() in origin:
            continue
        try:
            shape = [int(x) for x in a.meta["val"].shape]
            if isinstance(i, ir.ReinterpretView):
                base = i.data
                size, stride = [int(x) for x in i.layout.size], [int(x) for x in i.layout.stride]
                bsize, bstride = [int(x) for x in base.get_size()], [int(x) for x in base.get_stride()]
                off = int(i.layout.offset) - int(base.get_layout().offset)
                if size == shape and off == 0 and math.prod(size) == math.prod(bsize):
                    viewed[i.get_name()] = (a, (size, stride, bsize, bstride))
            elif isinstance(i, ir.Buffer) and [int(x) for x in i.get_size()] == shape:
                whole[i.get_name()] = a
        except Exception:   # symbolic sizes, a layout it cannot read: not compared
            continue
    return whole, viewed


def in_layout(v, size, stride, bsize, bstride):
    """The buffer whose storage, read through the view (size, stride), is v: its logical value."""
    import torch
    s = torch.empty_strided(bsize, bstride, dtype=v.dtype, device=v.device)
    torch.as_strided(s, size, stride, s.storage_offset()).copy_(v)
    return s


def extern_call(b, by_name, origin):
    """(op, input nodes, constant args, kwargs, size) of an extern kernel the record spells out with no
    origin node of its own (a convolution whose bias the next kernel adds): its ATen op and its inputs,
    each a whole buffer with an origin, a graph input or a weight. None otherwise."""
    from torch._inductor import ir
    op = getattr(b, "op_overload", None)
    if not isinstance(b, ir.ExternKernel) or not isinstance(op, torch_op_type()):
        return None
    ins = []
    for i in getattr(b, "inputs", []):
        if isinstance(i, ir.ReinterpretView) or not hasattr(i, "get_name"):
            return None
        name = i.get_name()
        n = origin[name][0] if name in origin else by_name.get(name)
        if n is None:
            return None
        ins.append(n)
    try:
        size = [int(x) for x in b.get_size()]
    except Exception:
        return None
    return op, ins, tuple(getattr(b, "constant_args", ()) or ()), dict(getattr(b, "kwargs", {}) or {}), size


def torch_op_type():
    import torch
    return torch._ops.OpOverload


def call_widened(op, vals, args, kwargs):
    """op on float64 values; where it has no float64 kernel, on float32 ones, widened after."""
    import torch
    try:
        return widen(op(*vals, *args, **kwargs))
    except (RuntimeError, NotImplementedError):
        return widen(op(*[v.float() if isinstance(v, torch.Tensor) and v.dtype == torch.float64 else v
                          for v in vals], *args, **kwargs))


def exported_name(n):
    """The exported program's node this post-grad node came from (its from_node chain's root)."""
    fn = n.meta.get("from_node")
    while fn:
        x = fn[-1]
        nxt = getattr(x, "from_node", None)
        if not nxt:
            return getattr(x, "name", None)
        fn = nxt
    return None


def display_names(gm):
    """Each post-grad node's name for the user: the exported node's when it is that node's last
    post-grad node (its value is the exported node's), else its own."""
    groups = {}
    for n in gm.graph.nodes:
        if n.op == "call_function":
            e = exported_name(n)
            if e:
                groups.setdefault(e, []).append(n)
    names = {}
    for e, ns in groups.items():
        members = set(ns)
        sinks = [n for n in ns if any(u not in members for u in n.users)]
        if len(sinks) == 1:
            names[sinks[0].name] = e
    return names


def widen(x):
    import torch
    if isinstance(x, torch.dtype) and x.is_floating_point and x != torch.float64:
        return torch.float64
    if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype != torch.float64:
        return x.double()
    if isinstance(x, (list, tuple)):
        return type(x)(widen(v) for v in x)
    if isinstance(x, dict):
        return {k: widen(v) for k, v in x.items()}
    return x


def run_graph(gm, inputs, wanted, f64):
    """Values of the wanted nodes (cloned when computed: later in-place ops do not reach them)."""
    import torch
    vals = {}

    class Rec(torch.fx.Interpreter):
        def run_node(self, n):
            if f64 and n.op == "call_function":
                a, kw = self.fetch_args_kwargs_from_env(n)
                a, kw = widen(a), widen(kw)
                try:
                    r = n.target(*a, **kw)
                except (RuntimeError, NotImplementedError):   # no float64 kernel: float32, then widened
                    def narrow(x):
                        if isinstance(x, torch.Tensor) and x.dtype == torch.float64:
                            return x.float()
                        if isinstance(x, torch.dtype) and x == torch.float64:
                            return torch.float32
                        if isinstance(x, (list, tuple)):
                            return type(x)(narrow(v) for v in x)
                        if isinstance(x, dict):
                            return {k: narrow(v) for k, v in x.items()}
                        return x
                    r = widen(n.target(*narrow(a), **narrow(kw)))
                r = widen(r)
            else:
                r = super().run_node(n)
                if f64:
                    r = widen(r)
            if n.name in wanted:
                vals[n.name] = r.clone() if isinstance(r, torch.Tensor) else \
                    tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in r) if isinstance(r, (list, tuple)) else r
            return r
    with torch.no_grad():
        ins = [widen(t) for t in inputs] if f64 else inputs
        if f64:
            gm = gm.to(torch.float64)
        Rec(gm).run(*ins)
    return vals


def main(argv):
    args = parse_args(argv)
    for p in (args.program, args.inputs, args.calls, args.wrapper):
        if not os.path.isfile(p):
            E.fail(2, f"{p}: no such file")
    try:
        import torch
    except ImportError as e:
        E.fail(2, f"torch must be importable here ({e})")
    items = E.load_spec(args.inputs)
    with open(args.calls) as f:
        calls = json.load(f).get("calls")
    if not isinstance(calls, list):
        E.fail(2, f"{args.calls}: expected {{\"calls\": [...]}}")
    with open(args.wrapper, errors="replace") as f:
        pkg_text = f.read()
    try:
        with E.memoized_type_hints():
            ep = torch.export.load(args.program)
    except Exception as e:
        E.fail(2, f"{args.program}: not a torch.export.save file: {type(e).__name__}: {e}")
    device = args.device or E.program_device(ep)
    if device.startswith("cuda") and not torch.cuda.is_available():
        E.fail(2, f"--device {device}, but torch.cuda.is_available() is False here")
    if torch.device(device) != torch.device(E.program_device(ep)):
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, device)
    base = os.path.dirname(os.path.abspath(args.inputs))
    try:
        inputs = [E.make_input(i, s, base).to(device) for i, s in enumerate(items)]
    except Exception as e:
        E.fail(2, f"{args.inputs}: {e}")
    t0 = time.monotonic()
    try:
        graph, wrapper = lower(ep)
    except Exception as e:
        E.fail(1, f"lowering {args.program} with Inductor failed: {type(e).__name__}: {str(e)[:2000]}")
    t_lower = time.monotonic() - t0
    rec_dir = os.path.join(args.out, "record")
    os.makedirs(rec_dir, exist_ok=True)
    with open(os.path.join(rec_dir, "wrapper.cpp"), "w") as f:
        f.write(wrapper)

    pkg_calls, rec_calls = call_skeleton(pkg_text), call_skeleton(wrapper)
    cut, why = first_difference(pkg_calls, rec_calls)
    # the buffers before the first difference only: their names still mean the same
    trusted = set()
    for c in pkg_calls[:cut if cut is not None else len(pkg_calls)]:
        trusted.update(c[2])

    gm = graph.module
    by_name = {n.name: n for n in gm.graph.nodes}
    origin = {}
    from torch._inductor.virtualized import V
    for b in graph.buffers:
        n = getattr(b, "origin_node", None)
        if n is None:   # a layout copy Inductor made of a whole input, weight or buffer: that one's value
            with V.set_graph_handler(graph):   # a weight's loader asks the graph for its name
                n = copy_of(b, by_name, origin)
        if n is not None and getattr(n, "graph", None) is gm.graph:
            from torch._inductor import ir
            if isinstance(getattr(b, "layout", None), ir.MultiOutputLayout):
                continue   # a multi-output kernel's own node: its outputs are the MultiOutput buffers
            try:
                origin[b.get_name()] = (n, [int(s) for s in b.get_size()], b.get_dtype())
            except Exception:   # symbolic sizes: compared by the node's own shape
                origin[b.get_name()] = (n, None, None)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        E.fail(2, f"the lowered graph takes {len(placeholders)} inputs, the spec gives {len(inputs)}")

    viewed = {}   # buffers an extern op reads through a view: its argument's value, laid out
    with V.set_graph_handler(graph):   # what Inductor laid out for an extern op: its arguments' values
        for b in graph.buffers:
            whole, views = argument_copies(b, by_name, origin)
            for name, n in whole.items():
                try:
                    origin[name] = (n, [int(x) for x in graph.get_buffer(name).get_size()], None)
                except Exception:   # a layout with no plain size (multi-output): not compared
                    pass
            viewed.update(views)
    extern = {b.get_name(): x for b in graph.buffers if b.get_name() not in origin
              for x in [extern_call(b, by_name, origin)] if x}
    wanted, plan, not_bound = set(), [], 0
    for c in calls:
        refs = []
        for b in c.get("defines", []):
            if not isinstance(b, str) or b not in trusted or (b not in origin and b not in extern and b not in viewed):
                not_bound += isinstance(b, str) and b in trusted
                continue
            refs.append(b)
            if b in viewed:
                wanted.add(viewed[b][0].name)
                continue
            if b in extern:
                wanted.update(n.name for n in extern[b][1])
                continue
            wanted.add(origin[b][0].name)
            wanted.update(a.name for a in origin[b][0].all_input_nodes)
        plan.append((c, refs))
    try:
        v32 = run_graph(gm, inputs, wanted, False)
        v64 = run_graph(gm, inputs, wanted, True)
    except Exception as e:
        E.fail(1, f"the lowered graph failed to run eagerly on {device}: {type(e).__name__}: {str(e)[:2000]}")
    names_of, names_extra = display_names(gm), {}
    for b, (a, lay) in viewed.items():
        if not isinstance(v32.get(a.name), torch.Tensor) or not isinstance(v64.get(a.name), torch.Tensor):
            continue
        node = torch.fx.Graph().create_node("call_function", torch.as_strided, name=f"{a.name}_{b}")
        v32[node.name] = in_layout(v32[a.name], *lay)
        v64[node.name] = in_layout(v64[a.name], *lay)
        node.meta["stack_trace"] = a.meta.get("stack_trace")
        origin[b] = (node, lay[2], None)
        names_extra[node.name] = names_of.get(a.name, a.name)
    for b, (op, ins, cargs, kwargs, size) in extern.items():   # the calls the record spells out, replayed
        node = torch.fx.Graph().create_node("call_function", op, name=f"{op._opname}_{b}")
        try:
            v = op(*[v32[n.name] for n in ins], *cargs, **kwargs)
            w = call_widened(op, [v64[n.name] for n in ins], cargs, kwargs)
        except Exception:
            continue
        if isinstance(v, torch.Tensor) and list(v.shape) == size:
            v32[node.name], v64[node.name] = v, w
            node.meta["stack_trace"] = ins[0].meta.get("stack_trace") if ins else None
            origin[b] = (node, size, None)
    names = display_names(gm)
    names.update(names_extra)
    out_calls, bound, unshaped = [], 0, 0
    for c, refs in plan:
        out = []
        for b in refs:
            n, size, _ = origin[b]
            v, w = v32.get(n.name), v64.get(n.name)
            if not isinstance(v, torch.Tensor) or not isinstance(w, torch.Tensor):
                not_bound += 1
                continue
            if size is not None and v.numel() != math.prod(size):
                unshaped += 1
                continue
            dt, shape = E.save_npy(v, os.path.join(rec_dir, b + ".npy"))
            f64 = v.is_floating_point() and w.dtype == torch.float64   # ids, masks: no float64 yardstick
            if f64:
                E.save_npy(w, os.path.join(rec_dir, b + ".f64.npy"))
            scale = max([E.largest(v)] + [E.largest(v32[a.name]) for a in n.all_input_nodes
                                          if isinstance(v32.get(a.name), torch.Tensor)])
            out.append({"node": names.get(n.name, n.name), "post_grad": n.name, "tensor": b,
                        "file": f"record/{b}.npy", "file64": f"record/{b}.f64.npy" if f64 else None, "dtype": dt,
                        "shape": shape,
                        "scale": scale, "stack": n.meta.get("stack_trace") or ""})
            bound += 1
        if out:
            out_calls.append({"kernel": c.get("kernel", ""), "occurrence": int(c.get("occurrence", 0)), "refs": out,
                              "missing": []})
    notes = []
    if cut is not None:
        notes.append(f"the compiler's record differs from the package from its kernel call {cut} on ({why}; built by "
                     f"another torch or inductor config?): those calls are not compared")
    if not_bound:
        notes.append(f"{not_bound} buffer(s) have no single origin node in the record (intermediates): not compared")
    if unshaped:
        notes.append(f"{unshaped} buffer(s) hold a different number of elements than their origin node: not compared")
    manifest = {"version": 1, "computed_by": "python", "program": os.path.abspath(args.program), "device": device,
                "float64": True, "inputs": os.path.abspath(args.inputs), "calls": out_calls, "nodes": bound,
                "record": {"torch": torch.__version__, "matched": cut is None, "why": "; ".join(notes),
                           "buffers": len(origin), "launches": len(pkg_calls), "bound": bound,
                           "lower_seconds": round(t_lower, 3)},
                "seconds": round(time.monotonic() - t0, 3)}
    E.write_json(os.path.join(args.out, args.manifest), manifest)
    print(f"aotidbg_record: {bound} buffer value(s) from the compiler's record in {rec_dir} (lowered in "
          f"{t_lower:.1f} s on {device}; {time.monotonic() - T_START:.1f} s in all)"
          + (f"; {manifest['record']['why']}" if notes else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:   # the line aotidbg shows; the traceback stays in the log
        import traceback
        traceback.print_exc()
        E.fail(1, f"aotidbg_record failed: {type(e).__name__}: {str(e)[:1000]}")
