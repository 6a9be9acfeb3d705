#!/usr/bin/env python3
"""call_cycles.py BUILD_DIR [MAX] — no circle of more than MAX (default 3) files
that call each other's functions, in core/ or tui/.

Reads the objects the build made (nm: what each .c defines, what it calls),
joins calls to definitions within each source folder tree (core/, tui/), and
finds the strongly connected components of the file graph: files that reach
each other through calls. A component bigger than MAX is a circle to break
(give the shared part its own file, or pass a function in). Prints every
component with more than one file, and the calls inside those too big.
Exit 1 when one is too big, 2 on bad usage."""
import collections
import os
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def objects(build, top):
    """{source path relative to the repo: object path} for the .c files under
    top/ that still exist (a deleted file's object may linger in the build)."""
    out = {}
    for root, _, files in os.walk(build):
        for f in files:
            if not f.endswith(".c.o") or "CMakeFiles" not in root:
                continue
            rel = os.path.relpath(root, build)   # e.g. core/session/CMakeFiles/aotidbg_session.dir
            parts = rel.split(os.sep)
            if parts[0] != top or "CMakeFiles" not in parts:
                continue
            folder = os.sep.join(parts[:parts.index("CMakeFiles")])
            src = os.path.join(folder, f[:-2])
            if not os.path.exists(os.path.join(ROOT, src)):
                continue
            # a target may build a file of another folder (rare): keep the first
            out.setdefault(src, os.path.join(root, f))
    return out


def symbols(objs):
    """{object: (defined global symbols, undefined symbols)}, one nm for all."""
    out = {o: (set(), set()) for o in objs}
    p = subprocess.run(["nm", "-A", "-g"] + list(objs), capture_output=True, text=True, check=True)
    for line in p.stdout.splitlines():
        obj, _, rest = line.rpartition(".o:")
        obj += ".o"
        f = rest.split()
        if obj not in out or len(f) < 2:
            continue
        if f[-2] == "U":
            out[obj][1].add(f[-1])
        elif f[-2] in "TDBRC" and len(f) == 3:
            out[obj][0].add(f[-1])
    return out


def sccs(graph):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    bad = 0
    for top in ("core", "tui"):
        objs = objects(build, top)
        if not objs:
            print(f"{top}/: no objects under {build} (build first)", file=sys.stderr)
            return 2
        owner, uses = {}, {}
        syms = symbols(objs.values())
        for src, obj in sorted(objs.items()):
            d, u = syms[obj]
            uses[src] = u
            for s in d:
                owner.setdefault(s, src)
        graph = collections.defaultdict(set)
        calls = collections.defaultdict(set)
        for src, u in uses.items():
            graph[src]
            for s in u:
                dst = owner.get(s)
                if dst and dst != src:
                    graph[src].add(dst)
                    calls[(src, dst)].add(s)
        for comp in sccs(graph):
            if len(comp) < 2:
                continue
            big = len(comp) > limit
            bad |= big
            print(f"{'TOO BIG' if big else 'ok'} {top}/ circle of {len(comp)}: {' '.join(comp)}")
            if big:
                for a in comp:
                    for b in comp:
                        if (a, b) in calls:
                            print(f"    {a} -> {b}: {' '.join(sorted(calls[(a, b)]))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
