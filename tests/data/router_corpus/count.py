#!/usr/bin/env python3
"""Print counts per route, platform and split for LABELS.tsv; check files and ids.

Usage: python3 tests/data/router_corpus/count.py   (exit 1 on any problem)
"""
import hashlib
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
ROUTES_YAML = os.path.join(ROOT, "core", "router", "routes.yaml")
PLATFORMS = {"cuda", "rocm", "xpu", "mps", "cpu", "unknown"}
# ids that DESIGN.md section 6 names, plus the collective route issue 44 adds
BASE_ROUTES = {
    "triton-index-oob", "cpp-index-oob", "device-mismatch", "input-mismatch",
    "illegal-memory-access", "nan-inf", "wrong-output", "dynamic-shape",
    "custom-op", "missing-artifact", "abi-mismatch", "compile-error",
    "out-of-memory", "crash", "unknown", "collective-timeout",
}


def known_routes():
    ids = set(BASE_ROUTES)
    try:
        with open(ROUTES_YAML) as f:
            for line in f:
                m = re.match(r"\s*-\s*id:\s*([A-Za-z0-9_-]+)", line)
                if m:
                    ids.add(m.group(1))
    except OSError:
        pass
    return ids - (PLATFORMS - {"unknown"})  # routes.yaml also lists platform ids


def split_of(name):
    return "heldout" if hashlib.sha256(name.encode()).digest()[0] % 2 else "train"


def main():
    routes_ok = known_routes()
    problems = []
    rows = []
    with open(os.path.join(HERE, "LABELS.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["file", "route", "platform", "split", "source"]:
            problems.append("bad header: %r" % header)
        for n, line in enumerate(f, 2):
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 5:
                problems.append("line %d: %d columns" % (n, len(cols)))
                continue
            rows.append(cols)
    seen = set()
    by_route, by_plat, by_split = Counter(), Counter(), Counter()
    by_route_split = Counter()
    for name, route, plat, split, src in rows:
        if name in seen:
            problems.append("duplicate file %s" % name)
        seen.add(name)
        path = os.path.join(HERE, "logs", name)
        if not os.path.isfile(path):
            problems.append("missing file %s" % name)
        elif os.path.getsize(path) == 0:
            problems.append("empty file %s" % name)
        elif os.path.getsize(path) > 9000:
            problems.append("file over ~8 KB: %s" % name)
        if not re.fullmatch(r"\d{4}_[A-Za-z0-9_.-]+\.log", name):
            problems.append("name not NNNN_<ascii>.log: %s" % name)
        for r in route.split("|"):
            if r not in routes_ok:
                problems.append("%s: unknown route id %r" % (name, r))
        if plat not in PLATFORMS:
            problems.append("%s: unknown platform %r" % (name, plat))
        if split != split_of(name):
            problems.append("%s: split %s, rule says %s" % (name, split, split_of(name)))
        if not src.startswith("https://"):
            problems.append("%s: source is not a URL" % name)
        # an a|b label counts once for each of its routes
        for r in route.split("|"):
            by_route[r] += 1
            by_route_split[(r, split)] += 1
        by_plat[plat] += 1
        by_split[split] += 1
    on_disk = set(os.listdir(os.path.join(HERE, "logs")))
    for extra in sorted(on_disk - seen):
        problems.append("file not in LABELS.tsv: %s" % extra)

    print("logs: %d" % len(rows))
    print("ambiguous (a|b) labels: %d" % sum(1 for r in rows if "|" in r[1]))
    print("\nper route (an a|b label counts for both; train/heldout):")
    for r, c in sorted(by_route.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-22s %4d   %3d / %3d" % (r, c, by_route_split[(r, "train")],
                                           by_route_split[(r, "heldout")]))
    print("\nper platform:")
    for p, c in sorted(by_plat.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-22s %4d" % (p, c))
    print("\nper split:")
    for s, c in sorted(by_split.items()):
        print("  %-22s %4d" % (s, c))
    if problems:
        print("\nPROBLEMS (%d):" % len(problems))
        for p in problems:
            print("  " + p)
        return 1
    print("\nchecks: every file exists, every label is a known id, splits follow the rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
