"""--eager swept over PyTorch's OpInfo database (issue 24: a peer's test suite as tests).

    AOTIDBG_BUILD_DIR=build nice python3 tests/models/sweep_eager_opinfo.py OUT_DIR [--ops add,mm,...]
        [--skip-ops a,b] [--start N] [--limit N] [--dtypes float32,bfloat16] [--batch 12] [--timeout 900]

For each op of torch.testing._internal.common_methods_invocations.op_db (variants included, as
op.name + "." + variant) that supports the dtype on CPU: its first CPU sample whose arguments are
plain tensors and numbers (tensors non-empty, at most 2**16 elements) becomes a module whose first
tensor argument is its input and whose other tensor arguments are buffers. An op with no floating
buffer reads its input through one (x + s, s zero but one element 1e-30 so that Inductor cannot fold
it): then every op has a weight the perturbed program changes. Skipped, with the reason: no such
sample, no tensor output, a random or uninitialised output (two eager calls under other seeds
differ), an export that fails.

Ops are compiled in batches (one package of --batch ops of one dtype, the ops side by side in one
module, no data between them; a CPU kernel may still pack the loops of several), printer on, with
provenance (trace.provenance_tracking_level=1: each kernel names its own nodes; without it, a CPU
kernel that packs the loops of several ops out of graph order is given the wrong span of nodes,
and their departures are missed); a batch that does not compile is halved until the op that does not is found (skipped:
"AOTI: ..."). Each batch's package is then run
  own        `aotidbg run --eager` against its own program: no departure expected (exit 0, every
             kernel compared, or 3, part compared); each op's kernels, compared K of N (a kernel is
             the op's when the nodes its eager checks name are the op's), and why not;
  perturbed  against a program in which each op's perturbed buffer is scaled by 1.5 and shifted by
             0.5: each op must depart, at the first kernel that reads that buffer (the call
             table's weights); an op whose eager outputs the change leaves equal is not judged.
One line per (op, dtype) in OUT_DIR/summary.tsv (appended as it goes; --start resumes):
  op dtype compiled kernels compared own perturbed departs_at first_reader batch verdict note
verdict: ok / limit: (a limit the run states) / FAIL (why) / skip (why). OUT_DIR/log holds what
each run said; --rerun runs the compiled batches again (new binaries), --reanalyse only re-reads.
The table of one sweep: tests/data/sweep_eager_opinfo.tsv.
"""
import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests/integration"))

MAX_NUMEL = 1 << 16
COLUMNS = ["op", "dtype", "compiled", "kernels", "compared", "own", "perturbed", "departs_at", "first_reader",
           "batch", "verdict", "note"]


class Timeout(Exception):
    pass


@contextlib.contextmanager
def deadline(s):
    def fire(*_):
        raise Timeout(f"over {s} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(int(s))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def op_id(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def flat_tensors(r, torch):
    if isinstance(r, torch.Tensor):
        return [r]
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in flat_tensors(x, torch)]
    return []


class OpModule:
    """Builds the torch.nn.Module of one op's sample (see the module docstring)."""

    @staticmethod
    def make(op, sample, torch):
        args = [sample.input] + list(sample.args)
        kwargs = dict(sample.kwargs)
        tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        if not tensors:
            return None, "sample has no tensor argument"
        if any(isinstance(a, (list, tuple)) and any(isinstance(b, torch.Tensor) for b in a) for a in args) or \
                any(isinstance(v, (torch.Tensor, list, tuple)) and flat_tensors(v, torch) for v in kwargs.values()):
            return None, "sample is not plain tensors and numbers"
        for i in tensors:
            t = args[i]
            if t.numel() == 0 or t.numel() > MAX_NUMEL or t.is_complex() or t.layout != torch.strided:
                return None, "sample tensors empty, large, complex or sparse"
        first = tensors[0]
        if not args[first].is_floating_point():
            return None, "sample's first tensor is not floating"
        floating_buffer = [i for i in tensors[1:] if args[i].is_floating_point()]
        scaled = not floating_buffer

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                for i in tensors[1:]:
                    self.register_buffer(f"b{i}", args[i].detach().clone().contiguous())
                if scaled:
                    s = torch.zeros_like(args[first])
                    s.view(-1)[0] = 1e-30
                    self.register_buffer("s", s)
                self.perturbed = "s" if scaled else f"b{floating_buffer[0]}"

            def forward(self, x):
                if scaled:
                    x = x + self.s
                a = [x if i == first else getattr(self, f"b{i}") if i in tensors else v for i, v in enumerate(args)]
                return tuple(flat_tensors(op.op(*a, **kwargs), torch))

        return (M().eval(), args[first].detach().clone().contiguous()), ""


def pick(op, dtype, torch, min_numel=1):
    """(module, input, note) for the op's first usable sample (of the first 8; the first whose input
    has min_numel elements or more, else the first), or (None, None, why)."""
    why = "no CPU sample"
    torch.manual_seed(0)
    try:
        made_all = []
        for n, sample in enumerate(op.sample_inputs("cpu", dtype, requires_grad=False)):
            if n >= 8:
                break
            made, why = OpModule.make(op, sample, torch)
            if made:
                made_all.append(made)
        made_all.sort(key=lambda mx: mx[1].numel() < min_numel)   # stable: the first big enough first
        for m, x in made_all:
            with torch.no_grad():
                torch.manual_seed(0)
                r0 = m(x.clone())
                torch.manual_seed(1)
                r1 = m(x.clone())
            if not r0:
                why = "no tensor output"
                continue
            if any(a.shape != b.shape or not torch.equal(torch.nan_to_num(a.float()), torch.nan_to_num(b.float()))
                   for a, b in zip(r0, r1) if a.dtype != torch.bool) or \
                    any(not torch.equal(a, b) for a, b in zip(r0, r1) if a.dtype == torch.bool):
                return None, None, "random or uninitialised output (two eager calls differ)"
            if any(t.is_complex() for t in r0):
                why = "complex output"
                continue
            try:
                with deadline(120):
                    ep = torch.export.export(m, (x,))
            except Exception as e:
                why = f"export: {type(e).__name__}: {first_line(e)}"
                continue
            for n in ep.graph.nodes:
                tags = getattr(n.target, "tags", ()) if n.op == "call_function" else ()
                if torch.Tag.nondeterministic_seeded in tags:   # OpInfo seeds eager itself (wrapper_set_seed)
                    return None, None, f"random ({n.target})"
                if n.op == "call_function" and "empty" in str(n.target) and "empty" in op.name:
                    return None, None, f"uninitialised output ({n.target})"
            return m, x, ""
    except Exception as e:
        return None, None, f"sample_inputs: {type(e).__name__}: {first_line(e)}"
    return None, None, why


def first_line(e):
    s = str(e).strip()
    return re.sub(r"\s+", " ", s.splitlines()[0] if s else "")[:100]


def batch_module(mods, torch):
    class B(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ops = torch.nn.ModuleList(mods)

        def forward(self, *xs):
            return tuple(t for m, x in zip(self.ops, xs) for t in m(x))
    return B().eval()


def perturbed_copy(mods, torch):
    import copy
    out = []
    for m in mods:
        p = copy.deepcopy(m)
        with torch.no_grad():
            getattr(p, p.perturbed).mul_(1.5).add_(0.5)
        out.append(p)
    return out


def same_outputs(a, b, x, torch):
    with torch.no_grad():
        ra, rb = a(x.clone()), b(x.clone())
    return all(torch.equal(torch.nan_to_num(u.float()), torch.nan_to_num(v.float())) for u, v in zip(ra, rb))


def compile_batch(items, d, timeout, torch, log):
    """Exports and compiles items [(name, module, input)] into d/m.pt2 (+ same/perturbed programs);
    returns the list of (name, why) that did not compile, halving a failing batch."""
    os.makedirs(d, exist_ok=True)
    mods = [m for _, m, _ in items]
    xs = tuple(x for _, _, x in items)
    try:
        t0 = time.time()
        with deadline(timeout * max(1, len(items) // 4)):
            ep = torch.export.export(batch_module(mods, torch), xs)
            torch._inductor.aoti_compile_and_package(
                ep, package_path=os.path.join(d, "m.pt2"),
                inductor_configs={"aot_inductor.debug_intermediate_value_printer": "1",
                                   "trace.provenance_tracking_level": 1})
        torch.export.save(ep, os.path.join(d, "same.ep.pt2"))
        torch.export.save(torch.export.export(batch_module(perturbed_copy(mods, torch), torch), xs),
                          os.path.join(d, "perturbed.ep.pt2"))
        pert = perturbed_copy(mods, torch)
        import json
        json.dump([dict(name=n, dtype=str(x.dtype).split(".")[-1], perturbed=m.perturbed,
                        changes=not same_outputs(m, p, x, torch)) for (n, m, x), p in zip(items, pert)],
                  open(os.path.join(d, "ops.json"), "w"))
        write_inputs(d, xs, torch)
        log.write(f"{d}: compiled {len(items)} ops in {time.time() - t0:.0f} s\n")
        log.flush()
        return []
    except Exception as e:
        log.write(f"{d}: {len(items)} ops did not compile: {type(e).__name__}: {first_line(e)}\n")
        log.flush()
        if len(items) == 1:
            return [(items[0][0], f"AOTI: {type(e).__name__}: {first_line(e)}")]
        h = len(items) // 2
        return compile_batch(items[:h], d + "a", timeout, torch, log) + \
            compile_batch(items[h:], d + "b", timeout, torch, log)


def write_inputs(d, xs, torch):
    import numpy as np
    lines = ["inputs:"]
    for i, x in enumerate(xs):
        np.save(os.path.join(d, f"in{i}.npy"), (x.float() if x.dtype == torch.bfloat16 else x).numpy())
        dt = str(x.dtype).split(".")[-1]
        lines.append(f"  - {{shape: {list(x.shape)}, dtype: {dt}, device: cpu, fill: file, file: in{i}.npy}}")
    with open(os.path.join(d, "in.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def aotidbg_run(aotidbg, d, prog, name, log):
    cmd = [aotidbg, "run", os.path.join(d, "m.pt2"), "--inputs", os.path.join(d, "in.yaml"), "--eager",
           os.path.join(d, prog), "--record", os.path.join(d, name + ".yaml")]
    while os.path.exists(os.path.join(os.path.dirname(d), "wait")):   # the tools are still building
        time.sleep(5)
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", "over 900 s"
    log.write(f"$ {' '.join(cmd)}\n  exit {rc} in {time.time() - t0:.1f} s\n{err}\n")
    log.flush()
    return rc, err


def node_owner(program, torch):
    """Graph value name -> op index, from the batch program's nn_module_stack (ops.N), its
    placeholders (user input N, the ops.N buffers) and a getitem's tuple; and the buffers'
    placeholder -> fqn."""
    ep = torch.export.load(program)
    owner = {}
    sig = ep.graph_signature
    bufs = dict(sig.inputs_to_buffers)
    user = list(sig.user_inputs)
    for n in ep.graph.nodes:
        if n.op == "placeholder":
            if n.name in bufs:
                m = re.match(r"ops\.(\d+)\.(\w+)$", bufs[n.name])
                if m:
                    owner[n.name] = int(m.group(1))
            elif n.name in user:
                owner[n.name] = user.index(n.name)
        elif n.op == "call_function":
            for path, _ in (n.meta.get("nn_module_stack") or {}).values():
                m = re.match(r"ops\.(\d+)$", path)
                if m:
                    owner[n.name] = int(m.group(1))
            if n.name not in owner and n.args and getattr(n.args[0], "name", None) in owner:
                owner[n.name] = owner[n.args[0].name]
    return owner, bufs


def weight_owners(sess, k):
    calls = (sess.get("provenance") or {}).get("calls") or []
    c = k.get("call", -1)
    ws = calls[c].get("weights") or [] if c is not None and 0 <= c < len(calls) else []
    by = {}
    for w in ws:
        m = re.match(r"ops\.(\d+)\.", w)
        if m:
            by.setdefault(int(m.group(1)), []).append(w)
    return by


def analyse(sess, owner, nops):
    """Per op: its kernels (those whose eager checks name its nodes, or whose call reads its
    buffers), the compared ones (one of its nodes close or differs there), the departing ones
    (one of its nodes differs), and why the others were not compared (a node that a later kernel
    computes too is judged there: compared). A CPU package packs the
    loops of several ops into one kernel function: one kernel may be several ops'."""
    from aotidbg_testlib import events
    per = [{"kernels": [], "compared": [], "departs": [], "why": []} for _ in range(nops)]
    stray = []
    for k in events(sess, "kernel"):
        checks = k.get("eager") or []
        by = {}
        for c in checks:
            if c.get("node") in owner:
                by.setdefault(owner[c["node"]], []).append(c)
        for i in weight_owners(sess, k):
            by.setdefault(i, [])
        if not by:
            stray.append(f"#{k['index']} {k['name']}: " + (", ".join(c.get("node", "?") for c in checks) or "no checks"))
        for i, cs in by.items():
            p = per[i]
            p["kernels"].append(k["index"])
            # a node a later kernel computes too is judged there ("judged there": a partial result here)
            if any(c["verdict"] in ("close", "differs") or "judged there" in (c.get("note") or "") for c in cs):
                p["compared"].append(k["index"])
            else:
                p["why"].append(f"#{k['index']} {k['name']}: " + ("; ".join(
                    f"{c['node']} {c['verdict']}" + (f" ({c['note']})" if c.get("note") else "") for c in cs)
                    or "none of its nodes checked"))
            if any(c["verdict"] == "differs" for c in cs):
                p["departs"].append(k["index"])
    return per, stray


def first_readers(sess, nops, perturbed):
    """Per op: the first kernel whose call reads its perturbed buffer (the call table's weights)."""
    from aotidbg_testlib import events
    first = [None] * nops
    for k in events(sess, "kernel"):
        for i, ws in weight_owners(sess, k).items():
            if first[i] is None and f"ops.{i}.{perturbed[i]}" in ws:
                first[i] = k["index"]
    return first


def last_line(text):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:160] if lines else ""


def analyse_dir(d, torch):
    """The rows of one run batch folder (ops.json, own/perturbed .yaml and .err)."""
    import json
    from aotidbg_testlib import events, load_session
    ops = json.load(open(os.path.join(d, "ops.json")))
    names = [o["name"] for o in ops]
    owner, _ = node_owner(os.path.join(d, "same.ep.pt2"), torch)
    res = {}
    for which in ("own", "perturbed"):
        rc, err = open(os.path.join(d, which + ".err")).read().split("\n", 1)
        try:
            sess = load_session(os.path.join(d, which + ".yaml"))
        except Exception:
            sess = None
        res[which] = (rc, err, sess)
    rc, err, own = res["own"]
    prc, perr, pert = res["perturbed"]
    per, stray = analyse(own, owner, len(ops)) if own else (None, [])
    pper = analyse(pert, owner, len(ops))[0] if pert else None
    readers = first_readers(pert, len(ops), [o["perturbed"] for o in ops]) if pert else [None] * len(ops)
    by = re.search(r"computed by ([^\n,;(]*)", err)
    rows = []
    for i, name in enumerate(names):
        row = dict(op=name, dtype=ops[i]["dtype"], compiled="yes", batch=os.path.basename(d), note="")
        notes, fails, limits = [], [], []
        if rc not in ("0", "3") or not own:
            fails.append(f"own exit {rc}: {last_line(err)}")
            row.update(kernels="?", compared="?", own=rc)
        else:
            p = per[i]
            row.update(kernels=str(len(p["kernels"])), compared=f"{len(p['compared'])}/{len(p['kernels'])}",
                       own="departs" if p["departs"] else "no departure")
            if p["departs"]:
                fails.append(f"own program departs at #{p['departs'][0]}")
            if not p["kernels"]:
                notes.append("no kernel of its own (the package computes it in no launch)")
            elif p["why"]:
                notes.append("not compared: " + " | ".join(p["why"])[:400])
                if all("none of its nodes checked" in w for w in p["why"]):
                    limits.append("coverage < 100%: a kernel that reads its buffer names none of its nodes "
                                  "(they belong to the library call after it)")
                else:
                    fails.append("coverage < 100%")
        if pert is None or prc not in ("0", "3"):
            fails.append(f"perturbed exit {prc}: {last_line(perr)}")
            row.update(perturbed=prc, departs_at="-", first_reader="-")
        elif per and not per[i]["kernels"]:
            row.update(perturbed="not judged", departs_at="-", first_reader="-")
            limits.append("no kernel computes it (its outputs are views of its input and buffers): nothing to compare")
        elif not ops[i]["changes"]:
            row.update(perturbed="not judged", departs_at="-", first_reader="-")
            notes.append("the perturbation changes no output")
        else:
            at = pper[i]["departs"][0] if pper[i]["departs"] else None
            first = readers[i]
            ks = events(pert, "kernel")
            kname = lambda k: f"#{k} {ks[k]['name']}" if k is not None else "none"
            row.update(perturbed="departs" if at is not None else "no departure", departs_at=kname(at),
                       first_reader=kname(first))
            if first is None and per and per[i]["kernels"]:
                # a small buffer: Inductor writes its values into the kernel's code (no weight to read)
                first = per[i]["kernels"][0]
                notes.append("its buffer is inlined in the kernel's code (a small constant): judged at its first kernel")
                row["first_reader"] = kname(first)
            if first is not None and first not in pper[i]["compared"]:
                # the reader names none of the op's nodes: they belong to the library call after it
                # (eager_ref.c call_nodes: later_library_call_names)
                after = [k for k in pper[i]["compared"] if k > first]
                if after:
                    limits.append(f"its first reader #{first} compares none of its nodes (they belong to the "
                                  f"library call after it): judged at #{after[0]}")
                    first = after[0]
                    row["first_reader"] = kname(first)
            loose = [c for k in pper[i]["kernels"] for c in ks[k].get("eager") or []
                     if owner.get(c["node"]) == i and c["verdict"] == "close" and (c.get("atol") or 0) > 0.05]
            if at is None and loose:
                limits.append(f"perturbed: no departure within atol {max(c['atol'] for c in loose):.3g} (rtol times the "
                              "largest value its kernel combines: a kernel packing other ops' loops)")
            elif at is None:
                fails.append("perturbed: no departure")
            elif first is None:
                fails.append("perturbed: no kernel's call reads the buffer")
            elif at != first:
                fails.append(f"perturbed departs at #{at}, first reader #{first}")
        if by and "runner" not in by.group(1):
            notes.append("reference computed by " + by.group(1).strip()[:60])
        row["verdict"] = "FAIL " + "; ".join(fails) if fails else "limit: " + "; ".join(limits) if limits else "ok"
        row["note"] = "; ".join(notes)
        rows.append(row)
    return rows, stray


def run_batch(d, aotidbg, log):
    for prog, name in (("same.ep.pt2", "own"), ("perturbed.ep.pt2", "perturbed")):
        rc, err = aotidbg_run(aotidbg, d, prog, name, log)
        with open(os.path.join(d, name + ".err"), "w") as f:
            f.write(f"{rc}\n{err}")


def emit(out, row):
    line = "\t".join(str(row.get(c, "-")).replace("\t", " ").replace("\n", " ") for c in COLUMNS)
    print(line, flush=True)
    with open(os.path.join(out, "summary.tsv"), "a") as f:
        f.write(line + "\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--ops", default="")
    ap.add_argument("--skip-ops", default="")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--timeout", type=int, default=300, help="compile seconds per 4 ops of a batch")
    ap.add_argument("--reanalyse", action="store_true", help="only the rows of OUT_DIR's run batches, again")
    ap.add_argument("--rerun", action="store_true", help="runs OUT_DIR's compiled batches again, then --reanalyse")
    a = ap.parse_args(argv)
    import torch
    aotidbg = os.path.join(os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build")), "aotidbg")
    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "log"), "a")
    if a.reanalyse or a.rerun:
        for sub in sorted(x for x in os.listdir(a.out) if x.startswith("batch")):
            if os.path.exists(os.path.join(a.out, sub, "done")):
                if a.rerun:
                    run_batch(os.path.join(a.out, sub), aotidbg, log)
                rows, stray = analyse_dir(os.path.join(a.out, sub), torch)
                for row in rows:
                    print("\t".join(str(row.get(c, "-")) for c in COLUMNS))
                if stray:
                    print(f"# {sub}: kernels of no op: {stray}")
        return 0
    from torch.testing._internal.common_methods_invocations import op_db
    want = [o for o in a.ops.split(",") if o]
    skip = set(o for o in a.skip_ops.split(",") if o)
    ops = [o for o in op_db if (not want or op_id(o) in want or o.name in want) and op_id(o) not in skip]
    ops = ops[a.start:]
    if a.limit:
        ops = ops[:a.limit]
    os.makedirs(a.out, exist_ok=True)
    if not os.path.exists(os.path.join(a.out, "summary.tsv")):
        with open(os.path.join(a.out, "summary.tsv"), "w") as f:
            f.write("\t".join(COLUMNS) + "\n")
    nb = len([x for x in os.listdir(a.out) if x.startswith("batch")])
    for dn in a.dtypes.split(","):
        dtype = getattr(torch, dn)
        ready = []
        for op in ops:
            if dtype not in op.supported_dtypes("cpu"):
                continue
            m, x, why = pick(op, dtype, torch)
            if m is None:
                emit(a.out, dict(op=op_id(op), dtype=dn, compiled="no", verdict="skip " + why))
                continue
            ready.append((op_id(op), m, x))
        for s in range(0, len(ready), a.batch):
            items = ready[s:s + a.batch]
            d = os.path.join(a.out, f"batch{nb:03d}-{dn}")
            nb += 1
            try:
                bad = dict(compile_batch(items, d, a.timeout, torch, log))
            except Exception as e:
                traceback.print_exc()
                bad = {n: f"tool: {type(e).__name__}: {first_line(e)}" for n, _, _ in items}
            for n, why in bad.items():
                emit(a.out, dict(op=n, dtype=dn, compiled="no", verdict="skip " + why))
            # the compiled sub-batches (halving wrote d, da, db, daa, ...)
            for sub in sorted(x for x in os.listdir(a.out) if os.path.join(a.out, x).startswith(d)):
                sd = os.path.join(a.out, sub)
                if not os.path.exists(os.path.join(sd, "m.pt2")) or os.path.exists(os.path.join(sd, "done")):
                    continue
                try:
                    run_batch(sd, aotidbg, log)
                    rows, stray = analyse_dir(sd, torch)
                    if stray:
                        log.write(f"{sd}: kernels of no op: {stray}\n")
                    for row in rows:
                        emit(a.out, row)
                except Exception as e:
                    traceback.print_exc()
                    emit(a.out, dict(op=sub, dtype=dn, compiled="yes", batch=sub,
                                     verdict=f"FAIL tool: {type(e).__name__}: {first_line(e)}"))
                open(os.path.join(sd, "done"), "w").close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
