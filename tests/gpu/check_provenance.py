"""Checks what aotidbg shows of a package's provenance against the kernel_information.json the
package carries (issue 17 item 1), for the GPU run (run_provenance_gpu.sh, torch 2.11 CUDA
packages; with DEV=cpu the same checks on CPU packages); the CPU tests (tests/integration/test_provenance.py) check the same on torch 2.13.

usage: python3 tests/gpu/check_provenance.py DIR MODEL_FILE
DIR holds what run_provenance_gpu.sh wrote: the packages (*.pt2), info_*.txt (info --calls),
sessions/*.yaml, dump_*.txt, route_oob.yaml, screen_*.txt. Prints one PASS/FAIL line per check
and exits 1 when one fails.
"""
import json
import os
import re
import sys
import zipfile

import yaml

DIR, MODEL_FILE = sys.argv[1], sys.argv[2]
FRAME_RE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)(?:\n +(.*))?')
TORCH_MARKS = ("-packages/torch/", "/torch/nn/", "/torch/_", "/torch/fx/", "/torch/autograd/",
               "/torch/utils/", "/torch/functional.py", "/torch/overrides.py", "/torch/export/", "/torch/ao/")
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what + ("" if ok or not detail else f": {detail}"), flush=True)
    failed += not ok


def read(name):
    p = os.path.join(DIR, name)
    return open(p).read() if os.path.exists(p) else ""


def kernel_information(pt2):
    with zipfile.ZipFile(os.path.join(DIR, pt2)) as z:
        names = [n for n in z.namelist() if n.endswith("/kernel_information.json")]
        return json.loads(z.read(names[0])) if names else None


def sites(entry):
    out = []
    for t in entry["stack_traces"]:
        frames = FRAME_RE.findall(t)
        mine = [f for f in frames if not any(m in f[0] for m in TORCH_MARKS)]
        if frames:
            f = (mine or frames)[-1]
            s = (os.path.basename(f[0]), int(f[1]), f[3].strip())
            if s not in out:
                out.append(s)
    return out


src = open(MODEL_FILE).read().splitlines()
info = kernel_information("prov_cuda.pt2")
# what made the packages, from run_provenance_gpu.sh's log (DEV=cpu rehearses the script on CPU)
made = re.search(r"^torch (\S+)", read("logs/run.log"), re.M)
where = "CPU" if os.path.exists(os.path.join(DIR, "prov_cuda.wrapper.cpp")) and \
    "cpp_fused_" in read("prov_cuda.wrapper.cpp") else "CUDA"
check(info is not None, f"prov_cuda.pt2 carries kernel_information.json (torch {made.group(1) if made else '?'}, {where})")
if info is None:
    sys.exit(1)
print(f"     {len(info)} calls: {', '.join(info)}")

# info --calls: every call, in order, with the JSON's handle and the innermost user frames
calls = []
for line in read("info_prov_cuda.txt").splitlines():
    m = re.match(r"    (\d+) (\S+)(?: \((\S+)\))?", line)
    if m:
        calls.append({"kernel": m.group(2), "handle": m.group(3), "at": []})
    m = re.match(r"      at (.+):(\d+) in \S+: (.*)$", line)
    if m and calls:
        calls[-1]["at"].append((os.path.basename(m.group(1)), int(m.group(2)), m.group(3)))
handles = [c["handle"] for c in calls]
check(sorted(h for h in handles if h) == sorted(info), "info --calls joins every JSON entry to a launch",
      f"shown {handles}, json {list(info)}")
bad = [c for c in calls if c["handle"] in info and c["at"] != sites(info[c["handle"]])]
check(not bad, "info --calls shows each call's user lines as the JSON's stack traces give them", str(bad[:2]))
wrong = [(f, n, code) for c in calls for f, n, code in c["at"]
         if f != os.path.basename(MODEL_FILE) or src[n - 1].strip() != code]
check(not wrong, "every line shown is a line of the model file, with its code", str(wrong[:3]))
check(all(c["at"] or not info.get(c["handle"], {}).get("stack_traces") for c in calls),
      "a call whose traces are empty shows nodes (no lines), every other shows lines")

# sessions: the table, the links, the dump
for name in ("cuda_provenance", "cuda_provenance_interpose"):
    p = os.path.join(DIR, "sessions", name + ".yaml")
    if not os.path.exists(p):
        check(False, f"{name}.yaml recorded")
        continue
    s = yaml.safe_load(open(p))
    prov = s.get("provenance") or {}
    check(prov.get("from") == "kernel_information.json", f"{name}: provenance from kernel_information.json",
          str(prov.get("from")))
    ks = [e for e in s["events"] if e["kind"] == "kernel"]
    if s.get("mode") == "interpose":   # cuBLAS and other library launches are kernels too, in no call
        ks = [k for k in ks if k["name"].startswith("triton_")]
    linked = [k for k in ks if k.get("call", -1) >= 0]
    check(ks and len(linked) == len(ks), f"{name} ({s.get('mode')}): every kernel event of the package has "
          f"its call ({len(linked)}/{len(ks)})")
    same = all(prov["calls"][k["call"]]["kernel"] == k["name"] for k in linked)
    check(same, f"{name}: each kernel's call names that kernel")
    if name == "cuda_provenance":
        dump = read("dump_cuda_provenance.txt")
        shown = len(re.findall(r"^    at \S+model_provenance\.py:\d+ in ", dump, re.M))
        want = sum(len(sites(info[prov["calls"][k["call"]]["handle"]])) for k in linked
                   if prov["calls"][k["call"]].get("handle") in info)
        check(shown == want and shown > 0, f"dump: the user's lines under each kernel ({shown}/{want})")

# the out-of-range id: the route names the embedding's line; S lands in the Triton source
r = yaml.safe_load(read("route_oob.yaml") or "{}") or {}
f = r.get("fields") or {}
(emb,) = [i + 1 for i, t in enumerate(src) if t.strip() == "h = self.emb(idx)"]
want_route = "cpp-index-oob" if str(f.get("kernel", "")).startswith("cpp_") else "triton-index-oob"   # DEV=cpu: a C++ kernel
check(r.get("route") == want_route, f"oob: route {want_route}", str(r.get("route")))
check(os.path.basename(str(f.get("source_line"))) == f"model_provenance.py:{emb}" and
      f.get("source_code") == "h = self.emb(idx)", "oob: source_line/source_code name the embedding's line",
      f"{f.get('source_line')} {f.get('source_code')}")
screen = read("screen_oob_source.txt")
# (a CPU rehearsal, DEV=cpu: the C++ kernel's body is in kernel.cpp)
check(re.search(r"source: (triton_\w+ - wrapper|cpp_\w+ - kernel)\.cpp line \d+ \((failing line|body)\)", screen)
      is not None, "S on the failing kernel: its file (wrapper.cpp for Triton) named in the title", screen[:300])
check("(failing line)" in screen, "S lands on the device assert that fired")
print(f"{'ALL PASS' if not failed else f'{failed} FAILED'}")
sys.exit(1 if failed else 0)
