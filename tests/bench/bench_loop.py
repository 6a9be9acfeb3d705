"""bench_loop.py — long while_loop runs: aotidbg against Python's loader, side by side.

usage: python3 tests/bench/bench_loop.py [--build BUILD] [--iters N[,N...]] [--models DIR]
                                        [--out DIR] [--no-tui] [--nan] [--repeat R]
                                        [--live [--live-iters N]]

The package is tests/models' ctl_while (torch while_loop counting `it` down to 0, y = sin(y) + 1
each round: two kernel launches per iteration, its cond graph's and its body graph's); N is its
first input, so one package serves every N (default 10000; 200000 is the large case). For each N,
one after the other on the same inputs:

  python   python3: import torch, aoti_load_package, one call    whole process
  run      aotidbg run PKG --inputs SPEC --record S              whole process
  size     the session file S
  dump     aotidbg replay S --dump > /dev/null
  screen   aotidbg replay S --headless 120x40 --keys q --dump-screen   (first screen, whole process)

(--nan: also tests/models' loop_nan, n rounds with a NaN planted at round 3n/4, under
--break-on nan: its time, session size and where it says it stopped)
(--live: tests/models' loop_wide, loop_nan's loop over 8192-element tensors, --live-iters rounds
(default 20000), R times each alternately: Python's load+call, `aotidbg run` (no values), live
mode headless to the end with its 4096 values a tensor (--loop-values kept, the default: values
in the first round, at stops and in NaN/Inf tensors) and with --loop-values all: wall and CPU
seconds, session size, medians and the ratios to Python)
and prints the wall times, run/python, the run's own count of kernels (and how many were
folded), and the target check (run <= 2x python, session <= 50 MB, dump <= 5 s; with --nan, the
NaN's iteration named), one line per N saying met or NOT MET and what it covered. --repeat R
runs python and run R times each, alternately (the box may be shared): every figure is printed,
and the check uses the median of the R ratios. Environment: AOTIDBG_MODELS_DIR (where ctl_while.pt2 is; tests/models/make_models.py
builds it). Exit 0 always (figures, not a test), 2 when something could not run at all.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PY_CALL = """
import sys, time, torch, numpy as np
t0 = time.monotonic()
m = torch._inductor.aoti_load_package(sys.argv[1])
t1 = time.monotonic()
it = torch.tensor(int(sys.argv[2]))
x = torch.from_numpy(np.load(sys.argv[3]))
m(it, x)
t2 = time.monotonic()
print(f"load {t1 - t0:.2f} call {t2 - t1:.2f}")
"""


CPU = {}   # the latest timed() command's CPU seconds (user + sys, its whole process tree)


def timed(cmd, out=subprocess.PIPE, timeout=3600, cwd=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, cwd=cwd)
    t = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t, p.returncode, (p.stdout or b"").decode(errors="replace")


def loop_nan_spec(out, tag, n, bad, shape):
    """The inputs of tests/models' loop_nan / loop_wide (n rounds, the NaN in round bad, y of shape
    filled with 0.5) as .npy files in out and a spec OUT/TAG_spec.yaml naming them; returns its path."""
    files = []
    for i, value in enumerate((np.array(n, dtype=np.int64), np.array(bad, dtype=np.int64),
                               np.full(shape, 0.5, dtype=np.float32))):
        files.append(f"{tag}_in{i}.npy")
        np.save(os.path.join(out, files[-1]), value)
    spec = os.path.join(out, f"{tag}_spec.yaml")
    with open(spec, "w") as f:
        f.write("inputs:\n"
                f"  - {{shape: [], dtype: int64, device: cpu, fill: file, file: {files[0]}}}\n"
                f"  - {{shape: [], dtype: int64, device: cpu, fill: file, file: {files[1]}}}\n"
                f"  - {{shape: {list(shape)}, dtype: float32, device: cpu, fill: file, file: {files[2]}}}\n")
    return spec


def nan_run(aotidbg, models, out, n):
    """loop_nan with n rounds and a NaN at round 3n/4 under --break-on nan: the run's own words on where."""
    pkg = os.path.join(models, "loop_nan.pt2")
    if not os.path.exists(pkg):
        return f"{n:>8} nan: {pkg} not found"
    bad = 3 * n // 4
    spec = loop_nan_spec(out, "nan", n, bad, (2, 8))
    sess = os.path.join(out, f"nan{n}.yaml")
    t, rc, txt = timed([aotidbg, "run", pkg, "--inputs", spec, "--record", sess, "--break-on", "nan"])
    where = next((ln for ln in txt.splitlines() if "stopped at" in ln), txt.strip().splitlines()[-1] if txt else "")
    size = os.path.getsize(sess) / 1e6 if os.path.exists(sess) else 0
    found = f"iteration {bad} of" in where
    return (f"{n:>8} nan planted at iteration {bad}: {t:.2f} s, exit {rc}, session {size:.3f} MB: "
            f"{where.replace('aotidbg run: ', '')}"), found, bad


PY_WIDE = """
import sys, time, torch, numpy as np
m = torch._inductor.aoti_load_package(sys.argv[1])
m(torch.tensor(int(sys.argv[2])), torch.tensor(10**9), torch.full((64, 128), 0.5))
"""


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def live_runs(aotidbg, models, out, n, repeat):
    """loop_wide, n rounds: python, run, live (values kept where the session keeps them), live
    --loop-values all; each repeat times, alternately. Returns the lines to print."""
    pkg = os.path.join(models, "loop_wide.pt2")
    if not os.path.exists(pkg):
        return [f"--live: {pkg} not found (tests/models/make_models.py DIR loop_wide builds it)"]
    spec = loop_nan_spec(out, "wide", n, 10**9, (64, 128))
    live = [aotidbg, pkg, "--inputs", spec, "--headless", "120x40", "--dump-screen", "--keys", "c q"]
    ways = [("python", [sys.executable, "-c", PY_WIDE, pkg, str(n)], None),
            ("run", [aotidbg, "run", pkg, "--inputs", spec], "run.yaml"),
            ("live kept", live, "kept.yaml"),
            ("live all", live + ["--loop-values", "all"], "all.yaml")]
    got = {w: ([], [], 0, 0) for w, _, _ in ways}
    for _ in range(max(1, repeat)):
        for w, cmd, sess in ways:
            path = os.path.join(out, f"wide_{sess}") if sess else None
            t, rc, txt = timed(cmd + (["--record", path] if path else []), cwd=out)
            walls, cpus, _, bad = got[w]
            walls.append(t)
            cpus.append(CPU["last"])
            got[w] = (walls, cpus, os.path.getsize(path) if path and os.path.exists(path) else 0, bad or rc)
    py = median(got["python"][0])
    lines = [f"--live: {pkg}, {n} rounds, 64x128 float32 tensors; median of {max(1, repeat)}, alternately",
             f"{'':>10} {'wall s':>8} {'cpu s':>8} {'wall/py':>8} {'session MB':>11}  all walls"]
    for w, _, _ in ways:
        walls, cpus, size, bad = got[w]
        lines.append(f"{w:>10} {median(walls):>8.2f} {median(cpus):>8.2f} {median(walls) / py:>8.2f} "
                     f"{size / 1e6:>11.3f}  " + " ".join(f"{x:.2f}" for x in walls) +
                     (f"  [exit {bad}]" if bad else ""))
    k, a = median(got["live kept"][0]), median(got["live all"][0])
    lines.append(f"--live: values in every round (all) / only where kept (kept): {a / k:.2f}x wall, "
                 f"{median(got['live all'][1]) / median(got['live kept'][1]):.2f}x cpu")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--iters", default="10000", help="comma-separated iteration counts (e.g. 10000,200000)")
    ap.add_argument("--models", default=os.environ.get("AOTIDBG_MODELS_DIR", os.path.join(ROOT, "tests", "models")))
    ap.add_argument("--out", default=None, help="where sessions go (default: a temporary folder)")
    ap.add_argument("--no-tui", action="store_true", help="skip the first-screen figure")
    ap.add_argument("--nan", action="store_true",
                    help="also run tests/models' loop_nan (a NaN planted at 3/4 of the rounds) with --break-on nan "
                         "and print where it stopped")
    ap.add_argument("--live", action="store_true",
                    help="also time live mode on tests/models' loop_wide, values kept where kept against every round")
    ap.add_argument("--live-iters", type=int, default=20000, help="loop_wide's rounds for --live")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run python and aotidbg run this many times each, alternately; all figures printed, "
                         "the check on the median ratio")
    a = ap.parse_args()
    aotidbg = os.path.abspath(os.path.join(a.build, "aotidbg"))   # commands may run in out
    a.models = os.path.abspath(a.models)
    pkg = os.path.join(a.models, "ctl_while.pt2")
    for path in (aotidbg, pkg):
        if not os.path.exists(path):
            print(f"bench_loop: {path}: not found (build first; tests/models/make_models.py builds ctl_while)",
                  file=sys.stderr)
            return 2
    out = os.path.abspath(a.out or tempfile.mkdtemp(prefix="bench_loop."))
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "x.npy"), np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8))
    rows, notes, checks = [], [], []
    for n in [int(s) for s in a.iters.split(",") if s]:
        np.save(os.path.join(out, "it.npy"), np.array(n, dtype=np.int64))
        spec = os.path.join(out, "spec.yaml")
        with open(spec, "w") as f:
            f.write("inputs:\n"
                    "  - {shape: [], dtype: int64, device: cpu, fill: file, file: it.npy}\n"
                    "  - {shape: [2, 8], dtype: float32, device: cpu, fill: file, file: x.npy}\n")
        sess = os.path.join(out, f"loop{n}.yaml")
        pys, runs, pycpu, runcpu = [], [], [], []
        for _ in range(max(1, a.repeat)):
            # in out: the printer's hooks in Python's own loader write ./tmp/aoti_torch*
            py, rc, txt = timed([sys.executable, "-c", PY_CALL, pkg, str(n), os.path.join(out, "x.npy")], cwd=out)
            pycpu.append(CPU["last"])
            py_note = txt.strip().splitlines()[-1] if rc == 0 and txt.strip() else f"exit {rc}"
            run, rc_run, txt = timed([aotidbg, "run", pkg, "--inputs", spec, "--record", sess])
            runcpu.append(CPU["last"])
            pys.append(py)
            runs.append(run)
        if not os.path.exists(sess):
            print(f"bench_loop: run made no session (exit {rc_run}):\n{txt[-2000:]}", file=sys.stderr)
            return 2
        size = os.path.getsize(sess)
        dump, rc_dump, _ = timed([aotidbg, "replay", sess, "--dump"], out=subprocess.DEVNULL)
        screen = rc_screen = None
        if not a.no_tui:
            screen, rc_screen, _ = timed([aotidbg, "replay", sess, "--headless", "120x40", "--keys", "q",
                                          "--dump-screen"], out=subprocess.DEVNULL)
        ratios = sorted(r / p for r, p in zip(runs, pys))
        ratio = ratios[len(ratios) // 2] if len(ratios) % 2 else sum(ratios[len(ratios) // 2 - 1:][:2]) / 2
        rows.append((n, py, py_note, run, rc_run, size, dump, rc_dump, screen, rc_screen))
        summary = next((ln for ln in txt.splitlines() if ln.startswith("aotidbg run: ") and " kernel" in ln), "")
        notes.append(f"{n:>8} run: {summary[len('aotidbg run: '):]}")
        if len(runs) > 1:
            notes.append(f"{n:>8} all {len(runs)}: python s " + " ".join(f"{p:.2f}" for p in pys) +
                         "; run s " + " ".join(f"{r:.2f}" for r in runs) +
                         "; run/py " + " ".join(f"{r / p:.2f}" for r, p in zip(runs, pys)) + f"; median {ratio:.2f}")
        notes.append(f"{n:>8} cpu (user+sys, whole process trees, less sensitive to a loaded box): python s " +
                     " ".join(f"{c:.2f}" for c in pycpu) + "; run s " + " ".join(f"{c:.2f}" for c in runcpu) +
                     "; run/py " + " ".join(f"{r / p:.2f}" for r, p in zip(runcpu, pycpu)))
        found = None
        if a.nan:
            line, found, bad = nan_run(aotidbg, a.models, out, n)
            notes.append(line)
        ok_ratio, ok_size, ok_dump = ratio <= 2 and rc_run == 0, size <= 50e6, dump <= 5 and rc_dump == 0
        verdict = ok_ratio and ok_size and ok_dump and found is not False
        checks.append(f"{n:>8} target {'met' if verdict else 'NOT MET'}: run/python {ratio:.2f} "
                      f"{'<=' if ratio <= 2 else '>'} 2 ({'median of ' + str(len(runs)) if len(runs) > 1 else '1 run'}"
                      f"{'' if rc_run == 0 else ', run exit ' + str(rc_run)}); session {size / 1e6:.3f} MB "
                      f"{'<=' if ok_size else '>'} 50 MB; dump {dump:.2f} s {'<=' if dump <= 5 else '>'} 5 s"
                      + ("" if rc_dump == 0 else f" (dump exit {rc_dump})")
                      + ("" if found is None else f"; NaN at iteration {bad} " +
                         ("named by --break-on nan" if found else "NOT named where planted")))
    print(f"package {pkg} (2 launches per iteration); sessions in {out}")
    print(f"{'iters':>8} {'python s':>9} {'run s':>8} {'run/py':>7} {'session MB':>11} {'dump s':>7} "
          f"{'screen s':>9}  python split")
    for n, py, note, run, rc_run, size, dump, rc_dump, screen, rc_screen in rows:
        scr = "-" if screen is None else f"{screen:.2f}" + ("" if rc_screen == 0 else f"(rc {rc_screen})")
        print(f"{n:>8} {py:>9.2f} {run:>8.2f} {run / py:>7.2f} {size / 1e6:>11.3f} {dump:>7.2f} {scr:>9}  "
              f"{note}" + ("" if rc_run == 0 else f"  [run exit {rc_run}]"))
    for line in notes:
        print(line)
    print("target check (run/py <= 2 on whole processes, session <= 50 MB, dump <= 5 s"
          + (", --nan: the planted NaN's iteration named" if a.nan else "") + "; first screen not checked):")
    for line in checks:
        print(line)
    if a.live:
        for line in live_runs(aotidbg, a.models, out, a.live_iters, a.repeat):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
