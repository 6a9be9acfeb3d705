#!/usr/bin/env python3
"""The --eager zoo: each model of tests/zoo/zoo_models.py built the usual way (aoti_compile_and_package, no
printer, no provenance, no prepare step), run by `aotidbg run --eager` against its own exported program and
against a program with one weight row changed. Prints one row a model:

  model  kernels  compared K of N  own program  changed weight  departs at  first reader  verdict

- own program: no departure, and at least 90% of the kernels compared;
- changed weight: the first departure is the first kernel that reads the weight (the first launch whose
  wrapper.cpp call passes it: the session's provenance weights);
- a model no C++ runner can load (a custom op registered from Python) is listed "needs Python", not counted.

  python3 tests/zoo/zoo_eager.py [--only a,b | --subset ci] [--build build] [--cache DIR] [--device cpu]

Exit 0 when every counted model passes, 1 when one fails, 2 on bad usage. Packages are cached in --cache
(default build/zoo), keyed by the torch version and zoo_models.py. The Hugging Face models need
`transformers` importable (PYTHONPATH=DIR after pip install --target DIR transformers); without it they are
listed as "no transformers".
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import re
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def key():
    import torch
    h = hashlib.sha256(open(os.path.join(HERE, "zoo_models.py"), "rb").read())
    h.update(torch.__version__.encode())
    return h.hexdigest()[:12]


def pick_weight(m):
    """A weight to change: a matrix or conv kernel near the middle of the model, not an embedding table
    (a changed row of one is read only for its own ids)."""
    cands = [(n, p) for n, p in m.named_parameters()
             if p.dim() >= 2 and p.shape[0] > 1 and "embed" not in n and "wte" not in n and "wpe" not in n
             and "shared" not in n and "position" not in n and "cls" not in n.split(".")[-1] and n != "pos"]
    return cands[len(cands) // 2] if cands else (None, None)


def build(name, cache, device):
    """Builds name's package and its two programs in cache/name/ (once); returns the folder and facts."""
    import torch
    import zoo_models
    d = os.path.join(cache, f"{name}-{device}-{key()}")
    facts = os.path.join(d, "facts.json")
    if os.path.isfile(facts):
        return d, json.load(open(facts))
    os.makedirs(d, exist_ok=True)
    kind, builder = zoo_models.ZOO[name]
    m, inputs = builder()
    m, inputs = m.to(device), tuple(t.to(device) for t in inputs)
    ep = torch.export.export(m, inputs, strict=False)
    torch.export.save(ep, os.path.join(d, "own.pt2"))
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, "pkg.pt2"))
    spec = ["inputs:"]
    import numpy as np
    for i, t in enumerate(inputs):
        if t.is_floating_point():
            spec.append(f"  - {{shape: {list(t.shape)}, dtype: {str(t.dtype).split('.')[-1]}, device: {device}, "
                        f"fill: randn, seed: {i + 1}}}")
        else:
            np.save(os.path.join(d, f"in{i}.npy"), t.cpu().numpy())
            spec.append(f"  - {{shape: {list(t.shape)}, dtype: {str(t.dtype).split('.')[-1]}, device: {device}, "
                        f"fill: file, file: in{i}.npy}}")
    open(os.path.join(d, "in.yaml"), "w").write("\n".join(spec) + "\n")
    wname, w = pick_weight(m)
    if wname:
        with torch.no_grad():   # noise, not a constant: a constant row change vanishes after a LayerNorm
            g = torch.Generator().manual_seed(5)
            noise = torch.randn(w[0].shape, generator=g).to(w.device, w.dtype)
            w[0] += 0.5 * (float(w.float().std()) or 1.0) * noise
        torch.export.save(torch.export.export(m, inputs, strict=False), os.path.join(d, "changed.pt2"))
    f = {"weight": wname, "kind": kind}
    json.dump(f, open(facts, "w"))
    return d, f


def load(path):
    import yaml
    with open(path) as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def run_eager(aotidbg, d, program, tag):
    out = os.path.join(d, f"{tag}.yaml")
    if os.path.exists(out):
        os.unlink(out)
    r = subprocess.run([aotidbg, "run", os.path.join(d, "pkg.pt2"), "--inputs", os.path.join(d, "in.yaml"),
                        "--eager", os.path.join(d, program), "--record", out], capture_output=True, text=True,
                       timeout=1800)
    return r, (load(out) if os.path.exists(out) else None)


def main_kernels(sess):
    return [e for e in sess.get("events", []) if e.get("kind") == "kernel" and not e.get("branch")]


def summary(sess):
    ks = main_kernels(sess)
    compared = sum(1 for k in ks if any(c.get("verdict") in ("close", "differs") for c in k.get("eager") or []))
    div = [e for e in sess.get("events", []) if e.get("kind") == "divergence"]
    return len(ks), compared, div[0] if div else None


CALLEE = re.compile(r"\b((?:cpp_fused|call_triton|triton|aoti_torch_(?:cpu|cuda))\w*)\s*\(")


def first_reader(sess, pkg, fqn):
    """The index of the first kernel whose launch statement in the package's wrapper.cpp passes the
    weight (by its constant's name, views of it included), found by kernel name and occurrence."""
    with zipfile.ZipFile(pkg) as z:
        text = z.read(next(n for n in z.namelist() if n.endswith(".wrapper.cpp"))).decode(errors="replace")
    names = dict(re.findall(r'constants_info_\[(\d+)\]\.name = "([^"]+)"', text))
    fqns = dict(re.findall(r'constants_info_\[(\d+)\]\.original_fqn = "([^"]+)"', text))
    const = next((names[i] for i, f in fqns.items() if f == fqn and i in names), fqn.replace(".", "_"))
    seen, held = {}, {const}
    for line in text[text.find("::run_impl("):].split("\n"):
        t = line.strip()
        if t.startswith("//") or "save_tensor_handle" in t or "print_tensor_handle" in t:
            continue
        a = re.match(r"auto (\w+) = (.*)", t)   # a view or handle of the weight passes it on
        if a and any(re.search(r"\b" + re.escape(h) + r"\b", a.group(2)) for h in held):
            held.add(a.group(1))
            continue
        m = CALLEE.search(t)
        if not m and any(re.search(r"\b" + re.escape(h) + r"\b", t) for h in held):
            held.update(re.findall(r"&(\w+)", t))   # aoti_torch_new_tensor_handle(w2, &tmp_w2_0)
        if not m or "aoti_torch_cpu_" in m.group(1) and m.group(1).startswith("aoti_torch_cpu_view"):
            continue
        name = m.group(1)[5:] if m.group(1).startswith("call_triton") else m.group(1)
        occ = seen.get(name, 0)
        seen[name] = occ + 1
        if any(re.search(r"\b" + re.escape(h) + r"\b", t[m.end():]) for h in held):
            ks = [k for k in main_kernels(sess) if k["name"] == name]
            return ks[occ]["index"] if occ < len(ks) else None
    return None


def check(aotidbg, name, cache, device):
    """One row: (cells, counted, passed)."""
    try:
        d, facts = build(name, cache, device)
    except ModuleNotFoundError as e:
        return [name, "-", "-", f"no {e.name}", "", "", "", "skipped"], False, False
    except Exception as e:
        return [name, "-", "-", f"build failed: {type(e).__name__}: {str(e)[:80]}", "", "", "", "skipped"], False, False
    r, sess = run_eager(aotidbg, d, "own.pt2", "own")
    if sess is None or "custom-op" in r.stderr:
        why = "needs Python (custom op)" if "custom-op" in r.stderr else f"exit {r.returncode}: " + \
            (r.stderr.strip().splitlines() or ["?"])[-1][:100]
        return [name, "-", "-", why, "", "", "", "not counted" if "custom" in why else "FAIL"], "custom" not in why, False
    n, comp, div = summary(sess)
    own_ok = div is None and n and comp >= 0.9 * n
    own = "no departure" if div is None else f"departs at {div.get('kernel')} ({(div.get('check') or {}).get('node')})"
    cells = [name, str(n), f"{comp} of {n} ({100 * comp // max(n, 1)}%)", own]
    ch_ok = True
    if facts.get("weight"):
        fqn = facts["weight"]
        want = first_reader(sess, os.path.join(d, "pkg.pt2"), fqn)
        r2, s2 = run_eager(aotidbg, d, "changed.pt2", "changed")
        got = None
        if s2 is not None:
            _, _, d2 = summary(s2)
            got = d2.get("kernel") if d2 else None
        ch_ok = got is not None and got == want
        cells += [fqn, "none" if got is None else str(got), "?" if want is None else str(want)]
    else:
        cells += ["(no weight)", "", ""]
    ok = bool(own_ok and ch_ok)
    cells.append("PASS" if ok else "FAIL")
    return cells, True, ok


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", help="comma-separated model names")
    p.add_argument("--subset", choices=["ci", "all"], default="all")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--cache", default=None)
    p.add_argument("--device", default="cpu")
    p.add_argument("--list", action="store_true")
    p.add_argument("--tsv", help="also write the table here")
    a = p.parse_args(argv)
    import zoo_models
    names = a.only.split(",") if a.only else zoo_models.CI_SUBSET if a.subset == "ci" else list(zoo_models.ZOO)
    bad = [n for n in names if n not in zoo_models.ZOO]
    if bad:
        print(f"zoo_eager: no such model: {', '.join(bad)} (--list)", file=sys.stderr)
        return 2
    if a.list:
        for n in zoo_models.ZOO:
            print(n, zoo_models.ZOO[n][0])
        return 0
    aotidbg = os.path.join(a.build, "aotidbg")
    cache = a.cache or os.path.join(a.build, "zoo")
    head = ["model", "kernels", "compared", "own program", "changed weight", "departs at", "first reader", "verdict"]
    rows, counted, passed = [], 0, 0
    for i, n in enumerate(names):
        t0 = time.monotonic()
        if sys.stderr.isatty():
            print(f"\rzoo_eager: {i + 1}/{len(names)} {n}...", end="", file=sys.stderr, flush=True)
        cells, c, ok = check(aotidbg, n, cache, a.device)
        rows.append(cells)
        counted += bool(c)
        passed += bool(ok)
        print("\t".join(cells) + f"\t{time.monotonic() - t0:.0f}s", flush=True)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr)
    print(f"zoo_eager: {passed} of {counted} counted models pass ({len(names) - counted} not counted) on {a.device}")
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("\t".join(head) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    return 0 if passed == counted else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
