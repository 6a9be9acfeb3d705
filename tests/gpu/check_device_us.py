"""check_device_us.py — a session's device_us against torch's profiler (issue 16 item 2).

usage: python3 tests/gpu/check_device_us.py SESSION.yaml OUTDIR TRACE.0.json [TRACE.1.json ...]

The traces are chrome traces of libtorch's kineto profiler (CUPTI kernel times, what
torch.profiler records) written by `tests/bench/plain_loader --profile PREFIX PKG INPUT`
(torch 2.11's Python aoti_load_package segfaults on CUDA packages on the H200 image, so the
profiling is done in C++): TRACE.0 is the package's first (cold) run in that process, the others
warm runs. SESSION is an `aotidbg run` of the same package on the same inputs (one cold run).
Each kernel event of the session is matched with the profiled kernels ("cat": "kernel"):
  * a Triton kernel: the profiled kernel of the same name, in launch order;
  * an extern call (aoti_torch_cuda_mm_out, ...): the CUDA kernels that ran between the Triton
    kernels around it (cuBLAS may launch more than one), when it is the only extern call there.
Checks, each printed as a PASS/FAIL line:
  1. every kernel event has a device_us (>= 0), but for a library call (cuBLAS, cuDNN, ATen)
     whose device_note says why not (its first call, or one that loaded a module and
     synchronized while the stream was held); every -1 is listed with its device_note;
  2. per kernel name, the median device_us over its occurrences against the median of the
     warm runs' profiled times: within max(2 us, 10%) for the five kernels with the most
     profiled time and the three Triton kernels launched most often;
  3. launch by launch against the cold run (TRACE.0): the share within max(2 us, 10%), first
     launches of each name included (INFO when there is no cold trace).
Writes OUTDIR/device_us.txt (tables + verdicts) and OUTDIR/device_us.json (session events and
profiled kernels, to redo it elsewhere). Needs PyYAML only (no torch). Exit 0 all PASS, 1 a FAIL,
2 it could not run.
"""
import json
import os
import statistics
import sys


def near(d, p):
    return abs(d - p) <= max(2.0, 0.1 * p)


def session_kernels(path):
    import yaml
    s = yaml.safe_load(open(path))
    out = []
    for e in s.get("events") or []:
        if e.get("kind") == "kernel":
            out.append({"name": e.get("name"), "type": e.get("type"), "device_us": e.get("device_us"),
                        "device_note": e.get("device_note"), "duration_us": e.get("duration_us")})
    return s, out


def trace_kernels(path):
    """Every GPU kernel of one chrome trace: (name, start_us, duration_us), in start order."""
    t = json.load(open(path))
    ev = t.get("traceEvents", t) if isinstance(t, dict) else t
    ks = [(e["name"], float(e["ts"]), float(e["dur"])) for e in ev
          if isinstance(e, dict) and e.get("cat") == "kernel" and e.get("ph") == "X"]
    ks.sort(key=lambda k: k[1])
    return ks


def align(events, ks):
    """Per session event, its profiled time in one run (None when it cannot be matched)."""
    got = [None] * len(events)
    pos = 0
    pending = []   # extern events since the last Triton match
    for i, ev in enumerate(events):
        if ev["type"] == "triton":
            j = next((j for j in range(pos, len(ks)) if ks[j][0] == ev["name"]), None)
            if j is None:
                pending = []
                continue
            between = ks[pos:j]
            if len(pending) == 1 and between:
                got[pending[0]] = sum(k[2] for k in between)
            got[i] = ks[j][2]
            pos, pending = j + 1, []
        else:
            pending.append(i)
    if len(pending) == 1 and pos < len(ks):
        got[pending[0]] = sum(k[2] for k in ks[pos:])
    return got


def offset(rows, kind):
    d = [x[3] - x[4] for x in rows if x[1] == kind]
    return f"{statistics.median(d):+.1f} us over {len(d)} names" if d else "none"


def timed(ev):
    return isinstance(ev["device_us"], (int, float)) and ev["device_us"] >= 0


def main(argv):
    if len(argv) < 4:
        raise SystemExit(__doc__)
    sess, out, traces = argv[1], argv[2], argv[3:]
    os.makedirs(out, exist_ok=True)
    s, events = session_kernels(sess)
    have = [e for e in events if timed(e)]
    lines = [f"session {sess}: {len(events)} kernel events, {len(have)} with device_us, mode {s.get('mode')}, "
             f"device {s.get('device')}"]
    profiled = [trace_kernels(t) for t in traces]
    lines.append("traces: " + ", ".join(f"{os.path.basename(t)} {len(k)} kernels" for t, k in zip(traces, profiled)))
    json.dump({"session_events": events, "traces": traces, "profiled": profiled},
              open(os.path.join(out, "device_us.json"), "w"))
    verdicts = []
    untimed = [(i, e) for i, e in enumerate(events) if not timed(e)]
    for i, e in untimed[:10]:
        lines.append(f"  untimed #{i} {e['name']}: device_us {e['device_us']} ({e.get('device_note') or 'no note'})")
    noted = [e for _, e in untimed if e["type"] == "extern" and e.get("device_note")]
    verdicts.append(("PASS" if events and len(untimed) == len(noted) else "FAIL") +
                    f" every launch timed: {len(have)} of {len(events)} kernel events have device_us"
                    + (f" (+{len(noted)} library calls noted)" if noted else ""))
    if not any(profiled):
        verdicts.append("FAIL no kernel in the traces (a CPU libtorch, or CUPTI unavailable)")
        return finish(out, lines, verdicts)
    cold, warm = profiled[0], profiled[1:] or profiled[:1]
    per_run = [align(events, ks) for ks in warm]

    by_name = {}
    for i, ev in enumerate(events):
        profs = [r[i] for r in per_run if r[i] is not None]
        if not timed(ev) or not profs:
            continue
        r = by_name.setdefault(ev["name"], {"type": ev["type"], "dev": [], "prof": [], "count": 0})
        r["dev"].append(ev["device_us"])
        r["prof"].append(statistics.median(profs))
        r["count"] += 1
    if not by_name:
        verdicts.append("FAIL no session kernel could be matched with a profiled kernel (names: "
                        f"{sorted({e['name'] for e in events})[:8]} vs {sorted({k[0] for k in warm[0]})[:8]})")
        return finish(out, lines, verdicts)
    rows = []
    for name, r in by_name.items():
        d, p = statistics.median(r["dev"]), statistics.median(r["prof"])
        rows.append((name, r["type"], r["count"], d, p, sum(r["prof"]), near(d, p)))
    judged = {x[0] for x in sorted(rows, key=lambda x: -x[5])[:5]}
    judged |= {x[0] for x in sorted((x for x in rows if x[1] == "triton"), key=lambda x: -x[2])[:3]}
    lines.append(f"{'kernel (medians; profiler = warm runs)':60} {'kind':7} {'n':>4} {'device_us':>10} "
                 f"{'profiler':>10} {'diff':>8}  verdict")
    for name, kind, cnt, d, p, tot, ok in sorted(rows, key=lambda x: -x[5]):
        verdict = ("PASS" if ok else "FAIL") if name in judged else ("ok" if ok else "off")
        lines.append(f"{name[:60]:60} {kind or '?':7} {cnt:4d} {d:10.1f} {p:10.1f} {d - p:+8.1f}  {verdict}")
    lines.append(f"{sum(r['count'] for r in by_name.values())} of {len(have)} timed events matched; "
                 f"{sum(1 for x in rows if x[6])} of {len(rows)} kernel names agree (within 10% or 2 us); "
                 f"median offset device_us - profiler: triton {offset(rows, 'triton')}, extern {offset(rows, 'extern')}")
    bad = [x[0] for x in rows if x[0] in judged and not x[6]]
    verdicts.append(("PASS" if not bad else "FAIL") + f" device_us vs torch profiler on {len(judged)} kernels"
                    + (f": off on {', '.join(bad)}" if bad else ""))

    if len(profiled) > 1:   # launch by launch against the cold run
        got = align(events, cold)
        pairs = [(i, events[i]["device_us"], g) for i, g in enumerate(got) if g is not None and timed(events[i])]
        seen, firsts = set(), []
        lines.append("cold run, launch by launch (first launch of each name):")
        for i, d, p in pairs:
            if events[i]["name"] not in seen:
                seen.add(events[i]["name"])
                firsts.append(near(d, p))
                lines.append(f"  #{i:<4} {events[i]['name'][:56]:56} {d:10.1f} {p:10.1f} {d - p:+8.1f}  "
                             f"{'ok' if near(d, p) else 'off'}")
        agree = sum(1 for _, d, p in pairs if near(d, p))
        share = agree / len(pairs) if pairs else 0
        verdicts.append(("PASS" if pairs and share >= 0.9 else "FAIL") +
                        f" cold run launch by launch: {agree} of {len(pairs)} within 10% or 2 us "
                        f"(first launches: {sum(firsts)} of {len(firsts)})")
    return finish(out, lines, verdicts)


def finish(out, lines, verdicts):
    text = "\n".join(lines + verdicts)
    open(os.path.join(out, "device_us.txt"), "w").write(text + "\n")
    print(text)
    return 0 if all(v.startswith("PASS") for v in verdicts) else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except SystemExit:
        raise
    except Exception as e:   # keep the figures' absence explained
        import traceback
        traceback.print_exc()
        print(f"FAIL check_device_us could not run: {e}")
        sys.exit(2)
