#!/usr/bin/env python3
"""hygiene.py BUILD_DIR — the house rules that a reader can check, checked:

  refs     no comment or message in core/, tui/ or man/ points at something
           outside the repo ("issue 18", "DESIGN.md section 6", "§9" of it,
           helper tags like "i18", "call S3-3", "H200 call"); point at a file,
           a man page section or a README instead;
  exports  no function or table exported from a core/ or tui/ object that no
           other object of the build uses (nm, as call_cycles.py): make it
           static, or delete it when nothing uses it at all;
  alloc    no malloc/calloc/realloc/strdup/strndup outside core/util and the
           runner: the xmalloc family (core/util/compat.h) is the one
           out-of-memory idiom (after git's banned.h);
  readmes  every file a folder README names exists, and core/README.md's
           "uses" column is the DEPS of each layer's CMakeLists.txt.

Each check prints what it found as file:line: what. The allow-lists below
name what is left, each with the reason; shrink them, never grow them
without one. Exit 1 when a check fails, 2 on bad usage."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import call_cycles  # noqa: E402  (its nm reader)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---- allow-lists -------------------------------------------------------------

REFS_ALLOWED_DIRS = ()   # none: every folder is checked

# Called from outside the build's objects: by the model .so through the dynamic
# linker (the printer hooks), by the loader (interposed CUDA driver entry points),
# or looked up with dlsym (the CUDA statistics kernels).
EXPORTS_RUNTIME = {
    "main", "aoti_torch_print_tensor_handle", "aoti_torch_save_tensor_handle", "cuLaunchKernel",
    "cuLaunchKernelEx", "cuLaunchKernel_ptsz", "cuModuleGetFunction", "aotidbg_cuda_stats",
    "aotidbg_cuda_stats_error",
}
# Used from outside the build's own objects: a unit test's.
EXPORTS_ALLOWED = {
    "tui/theme.c": {"element_from_name"},
}

ALLOC_ALLOWED_DIRS = ("core/util/", "core/runner/")
ALLOC_ALLOWED_FILES = ()   # none: every file outside those folders uses the x* family

# ---- refs --------------------------------------------------------------------

REF_PATTERNS = [
    (re.compile(r"\bissues? \d+"), "an issue number"),
    (re.compile(r"\bDESIGN(\.md)?\b"), "DESIGN.md"),
    (re.compile(r"§\s*\d"), "a section of DESIGN.md"),
    (re.compile(r"\bcalls? S\d+-\d+"), "a GPU session's call"),
    (re.compile(r"\bH200 calls?\b"), "a GPU session's call"),
    (re.compile(r"\bi(?!8\b|16\b|32\b|64\b)\d\d\b(?!\.)"), "a helper's tag"),
    (re.compile(r"\bh\d{1,2}(core|tui|[a-c])?\b(?!\.)"), "a helper's tag"),
]
TEXT_EXT = (".c", ".h", ".cpp", ".cu", ".md", ".yaml", ".py", ".1", ".5", ".7", ".txt", ".sh")


def tracked(*tops):
    p = subprocess.run(["git", "-C", ROOT, "ls-files", "--others", "--cached", "--exclude-standard", "--"] + list(tops), capture_output=True, text=True,
                       check=True)
    return [f for f in p.stdout.splitlines() if os.path.exists(os.path.join(ROOT, f))]


def check_refs():
    bad = []
    for f in tracked("core", "tui", "man"):
        if not f.endswith(TEXT_EXT) or f.startswith(REFS_ALLOWED_DIRS):
            continue
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                for pat, what in REF_PATTERNS:
                    if pat.search(line):
                        bad.append(f"{f}:{n}: points at {what} outside the repo: {line.strip()[:100]}")
    return bad

# ---- exports -----------------------------------------------------------------


def objects(build):
    """{object path: source path relative to the repo} for every object of the build."""
    out = {}
    for root, _, files in os.walk(build):
        if "CMakeFiles" not in root:
            continue
        for f in files:
            if not f.endswith(".o"):
                continue
            parts = os.path.relpath(root, build).split(os.sep)
            folder = os.sep.join(parts[:parts.index("CMakeFiles")])
            out[os.path.join(root, f)] = os.path.join(folder, f[:-2])
    return out


def check_exports(build):
    objs = objects(build)
    if not objs:
        return [f"{build}: no objects (build first)"]
    defs, uses = {}, {}
    for obj, (defined, undefined) in call_cycles.symbols(sorted(objs)).items():   # one nm for all
        for sym in undefined:
            uses.setdefault(sym, set()).add(objs[obj])
        for sym in defined:
            defs.setdefault((objs[obj], sym), None)
    bad = []
    for src, sym in sorted(defs):
        if not src.startswith(("core/", "tui/")) or not os.path.exists(os.path.join(ROOT, src)):
            continue
        # C++ members (mangled _Z...) belong to their class, not to the C rules
        if sym.startswith(("_Z", "__odr_asan", "__asan", "__ubsan")) or sym in EXPORTS_RUNTIME or sym in EXPORTS_ALLOWED.get(src, ()):
            continue
        if not (uses.get(sym, set()) - {src}):
            bad.append(f"{src}: {sym} is exported, but nothing outside its file uses it: make it static "
                       f"(or delete it)")
    return bad

# ---- alloc -------------------------------------------------------------------

ALLOC = re.compile(r"(?<![\w.>])(malloc|calloc|realloc|strdup|strndup)\s*\(")


def check_alloc():
    bad = []
    for f in tracked("core", "tui"):
        if not f.endswith((".c", ".h")) or f.startswith(ALLOC_ALLOWED_DIRS) or f in ALLOC_ALLOWED_FILES:
            continue
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                code = line.split("//")[0]
                if code.lstrip().startswith(("*", "/*")):
                    continue
                m = ALLOC.search(code)
                if m:
                    bad.append(f"{f}:{n}: {m.group(1)}(): use x{m.group(1)} (core/util/compat.h)")
    return bad

# ---- readmes -----------------------------------------------------------------

NAMED = re.compile(r"`((?:[\w.-]+/)*[\w-]+\.(?:c|h|cpp|cu|py|sh))((?:/\.(?:c|h))?)`")


def check_readmes():
    bad = []
    files = tracked()
    base = {os.path.basename(f) for f in files}
    for f in files:
        if os.path.basename(f) != "README.md" or not f.startswith(("core/", "tui/")):
            continue
        folder = os.path.dirname(f)
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                row = line.startswith("|") and not line.startswith("|---")
                for name, other in NAMED.findall(line):
                    if re.search(r"[A-Z]{3}", name):   # a placeholder: pane_NAME.c
                        continue
                    names = [name] + ([name.rsplit(".", 1)[0] + other[1:]] if other else [])
                    for nm in names:
                        # a table names files under its folder; prose may name any file of the repo
                        ok = os.path.exists(os.path.join(ROOT, folder, nm)) or (
                            "/" in nm and os.path.exists(os.path.join(ROOT, nm))) or any(
                            g.startswith(folder + "/") and g.endswith("/" + nm) for g in files) or (
                            not row and (os.path.exists(os.path.join(ROOT, nm)) or os.path.basename(nm) in base))
                        if not ok:
                            bad.append(f"{f}:{n}: names {nm}, which is not in {folder}/")
    # core/README.md's layer table: | `folder/` | `target` | what | uses (layers; libraries) |
    deps = {}
    for f in files:
        if not f.startswith("core/") or os.path.basename(f) != "CMakeLists.txt":
            continue
        text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        m = re.search(r"aotidbg_layer\((\w+)([^)]*)\)", text)
        if m:
            d = re.search(r"DEPS((?:\s+\w+)+)", m.group(2))
            names = d.group(1).split() if d else []
            deps[m.group(1)] = {x[len("aotidbg_"):] for x in names if x.startswith("aotidbg_")}
    layers = {t[len("aotidbg_"):] for t in deps}
    with open(os.path.join(ROOT, "core/README.md"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            m = re.match(r"\|\s*`[\w/]+`\s*\|\s*`(aotidbg_\w+)`\s*\|[^|]*\|([^|]*)\|", line)
            if not m or m.group(1) not in deps or "all of the above" in m.group(2):
                continue
            said = {w for w in re.split(r"[,\s]+", m.group(2).split(";")[0]) if w in layers}
            have = deps[m.group(1)]
            if said != have:
                bad.append(f"core/README.md:{n}: {m.group(1)} uses {', '.join(sorted(have)) or 'no layer'} "
                           f"(DEPS in its CMakeLists.txt), the table says {', '.join(sorted(said)) or 'none'}")
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    failed = 0
    for name, found in (("refs", check_refs()), ("exports", check_exports(sys.argv[1])),
                        ("alloc", check_alloc()), ("readmes", check_readmes())):
        for b in found:
            print(f"{name}: {b}")
        print(f"{name}: {'FAIL' if found else 'ok'} ({len(found)} found)")
        failed |= bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
