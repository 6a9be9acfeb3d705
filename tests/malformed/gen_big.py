"""Writes the big malformed session files that are not committed.

usage: python3 tests/malformed/gen_big.py OUTDIR

  deep_nesting_10000.yaml   10,000 nested flow lists (libyaml alone is quadratic here)
  deep_block_10000.yaml     10,000 nested block lists
  billion_laughs.yaml       the classic alias bomb, ten levels of nine
  scalar_100mb.yaml         one 100 MB quoted string
  many_keys.yaml            200,000 distinct unknown keys in one mapping, then a duplicate

Each must be refused (exit 2, file:line:col) quickly and in bounded memory.
"""
import os
import sys

HEAD = 'format_version: "1.0"\n'


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    files = {}

    def w(name, text):
        path = os.path.join(outdir, name)
        with open(path, "w") as f:
            f.write(text)
        files[name] = path

    w("deep_nesting_10000.yaml", HEAD + "future: " + "[" * 10000 + "]" * 10000 + "\nevents: []\n")
    w("deep_block_10000.yaml", HEAD + "future:\n" + "".join(" " * (i + 1) + "-\n" for i in range(10000)) + "events: []\n")
    laughs = ['x0: &a0 "lol"']
    for i in range(1, 10):
        laughs.append(f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    w("billion_laughs.yaml", HEAD + "future:\n" + "".join("  " + line + "\n" for line in laughs) + "events: []\n")
    path = os.path.join(outdir, "scalar_100mb.yaml")
    with open(path, "w") as f:
        f.write(HEAD + 'notes:\n  - "')
        chunk = "x" * (1 << 20)
        for _ in range(100):
            f.write(chunk)
        f.write('"\nevents: []\n')
    files["scalar_100mb.yaml"] = path
    w("many_keys.yaml", HEAD + "future:\n" + "".join(f"  k{i}: {i}\n" for i in range(200000)) + "  k7: dup\nevents: []\n")
    return files


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, path in main(sys.argv[1]).items():
        print(path)
