"""Checks the front end's run integration in the sessions record_all.sh records
on the GPU box (owner: h2b). Usage, after record_all.sh (results.tgz unpacked):

    python3 tests/gpu/check_run_sessions.py DIR/sessions

What it checks, per session that exists (a missing one is reported, not fatal):
  every session     printer_level recorded (not -1 when the package has a wrapper.cpp),
                    a mode, and a run.mode checklist row (INFO) next to the checklist rows
  cuda_oob_blocking the error is routed triton-index-oob and traced through the package:
  cuda_oob_async    input_index, dim, and the runtime size fed (dim_value, input_shape)
  cuda_oob_interpose mode interpose (printer off, no rebuild), kernel source interpose
  cuda_oob_reinstrument mode reinstrument, kernel source reinstrument, tensors recorded
Prints one line per check; exit 1 when any check fails.
"""
import os
import sys

import yaml

FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def load(d, name):
    p = os.path.join(d, name + ".yaml")
    if not os.path.exists(p):
        print(f"skip {name}: no session")
        return None
    with open(p) as f:
        return yaml.safe_load(f)


def events(s, kind):
    return [e for e in s.get("events") or [] if e.get("kind") == kind]


def main(d):
    names = sorted(n[:-5] for n in os.listdir(d) if n.endswith(".yaml") and not n.endswith(".inputs.yaml")
                   and not n.startswith("check_"))
    for n in names:
        s = load(d, n)
        if not s or not s.get("events"):
            continue
        rows = {c["id"]: c for c in s.get("checks") or []}
        check(s.get("printer_level", -1) != -1, f"{n}: printer_level recorded ({s.get('printer_level')})")
        gated = any(c.get("status") == "FAIL" for c in rows.values()) and not events(s, "kernel")
        if gated:   # the checklist refused the run: no mode; the FAIL rows say why
            continue
        check(bool(s.get("mode")), f"{n}: mode {s.get('mode')}")
        check(rows.get("run.mode", {}).get("status") == "INFO", f"{n}: run.mode row")
        check(len(rows) > 1, f"{n}: checklist rows kept ({len(rows)})")
    for n in ("cuda_oob_blocking", "cuda_oob_async"):
        s = load(d, n)
        if not s:
            continue
        errs = events(s, "error")
        check(bool(errs), f"{n}: an error event")
        if not errs:
            continue
        e = errs[0]
        f = e.get("fields") or {}
        check(e.get("route") == "triton-index-oob", f"{n}: route {e.get('route')}")
        for key in ("tmp", "bound", "input_index", "dim", "dim_value", "input_shape"):
            check(key in f, f"{n}: field {key} = {f.get(key)}")
        check("trace_error" not in f, f"{n}: traced ({f.get('trace_error', 'no trace error')})")
    s = load(d, "cuda_oob_interpose")
    if s:
        check(s.get("mode") == "interpose", f"cuda_oob_interpose: mode {s.get('mode')}")
        ks = events(s, "kernel")
        check(bool(ks) and all(k.get("source") == "interpose" for k in ks),
              f"cuda_oob_interpose: {len(ks)} kernels, sources {sorted({k.get('source') for k in ks})}")
    s = load(d, "cuda_oob_reinstrument")
    if s:
        check(s.get("mode") == "reinstrument", f"cuda_oob_reinstrument: mode {s.get('mode')}")
        ks = events(s, "kernel")
        check(bool(ks) and all(k.get("source") == "reinstrument" for k in ks),
              f"cuda_oob_reinstrument: {len(ks)} kernels, sources {sorted({k.get('source') for k in ks})}")
        check(any(k.get("tensors") for k in ks), "cuda_oob_reinstrument: tensors recorded")
    print(f"{len(FAILS)} check(s) failed" if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
