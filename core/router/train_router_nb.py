#!/usr/bin/env python3
"""train_router_nb.py — trains the router's learned fallback (router_nb.h) and
writes core/router/router_nb.txt, the weights file the C router loads.

One command retrains and prints the held-out accuracy:

    python3 core/router/train_router_nb.py

Training data: the labelled corpora ../shared/corpus/{dev,dev2,dev3} (or
$AOTIDBG_CORPUS/...; every row) and tests/data/router_corpus (only its rows
with split=train: the other rows are the held-out part nobody writes rules or
weights against). A label `a|b` (an honestly ambiguous log) trains as `a`.

Printed: the k-fold cross-validated accuracy of the classifier alone on the
training logs (each fold's weights never saw that fold), and, when the corpus
has held-out rows, the classifier's accuracy on them. With --router BIN (a
built `aotidbg`), the whole router's accuracy on the held-out rows too, per
route and per platform (rules first, the fallback where no rule names a cause).

The features are router_nb.h's, computed the same way here: the first 16 KB and
last 48 KB of a log, lowercased, runs of [a-z_] of 2..30 bytes as tokens, and
each pair of consecutive tokens; a feature counts once per log (binarized
multinomial naive Bayes, Laplace smoothing alpha and the softmax temperature
picked by cross-validation). Deterministic: the same corpus gives the same file.
"""
import argparse
import collections
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAD, TAIL, TOKEN_MAX = 16384, 49152, 30
DOC_FEATURES = 32
FORMAT = "aotidbg-router-nb 1"
TOKEN = re.compile(rb"[a-z_]+")


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) > HEAD + TAIL:
        data = data[:HEAD] + b"\n" + data[-TAIL:]
    return data


def features(data):
    toks = [t for t in TOKEN.findall(data.lower()) if 2 <= len(t) <= TOKEN_MAX and t.strip(b"_")]
    out = set(t.decode() for t in toks)
    out.update(a.decode() + "." + b.decode() for a, b in zip(toks, toks[1:]))
    return out


def corpus_base():
    env = os.environ.get("AOTIDBG_CORPUS")
    for base in ([env] if env else []) + [os.path.join(ROOT, "..", "shared", "corpus"),
                                          os.path.join(ROOT, "..", "..", "shared", "corpus")]:
        if os.path.exists(os.path.join(base, "dev", "LABELS.tsv")):
            return base
    return None


def read_labels(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if len(r) >= 2]


def load_docs(args):
    train, heldout = [], []
    base = corpus_base()
    for name in ("dev", "dev2", "dev3"):
        d = base and os.path.join(base, name)
        if not d or not os.path.exists(os.path.join(d, "LABELS.tsv")):
            print(f"note: no corpus {name} (set AOTIDBG_CORPUS)", file=sys.stderr)
            continue
        for r in read_labels(os.path.join(d, "LABELS.tsv")):
            p = os.path.join(d, r["file"])
            if os.path.exists(p):
                train.append({"name": f"{name}/{r['file']}", "path": p, "labels": r["route"].split("|"),
                              "platform": r.get("platform") or ""})
    nd = os.path.join(ROOT, "tests", "data", "router_corpus")
    lab = os.path.join(nd, "LABELS.tsv")
    if os.path.exists(lab):
        for r in read_labels(lab):
            p = os.path.join(nd, "logs", r["file"])
            if not os.path.exists(p):
                p = os.path.join(nd, r["file"])
            if not os.path.exists(p):
                continue
            doc = {"name": f"router_corpus/{r['file']}", "path": p, "labels": r["route"].split("|"),
                   "platform": r.get("platform") or ""}
            (train if r.get("split", "train") == "train" else heldout).append(doc)
    for d in train + heldout:
        d["f"] = features(read_text(d["path"]))
        d["name"] = re.sub(r"[^A-Za-z0-9_./+=-]", "_", d["name"])
    return train, heldout


class Model:
    def __init__(self, docs, alpha, vocab_max, classes=None):
        self.classes = classes or sorted(set(d["labels"][0] for d in docs))
        ci = {c: i for i, c in enumerate(self.classes)}
        df = collections.Counter()
        dfc = collections.defaultdict(collections.Counter)
        ndocs = collections.Counter()
        for d in docs:
            c = ci[d["labels"][0]]
            ndocs[c] += 1
            for f in d["f"]:
                df[f] += 1
                dfc[f][c] += 1
        n = len(docs)
        # keep features seen in 2+ logs, the most class-specific first (a feature's best
        # class share times log df): bounded, and no one log's own strings
        cand = [f for f, k in df.items() if k >= 2]
        cand.sort(key=lambda f: (-(max(dfc[f].values()) / df[f]) * math.log(1 + df[f]), f))
        self.vocab = sorted(cand[:vocab_max])
        V = len(self.vocab)
        total = collections.Counter()
        for f in self.vocab:
            for c, k in dfc[f].items():
                total[c] += k
        self.prior = [math.log(ndocs[i] / n) if ndocs[i] else math.log(0.5 / n) for i in range(len(self.classes))]
        self.unseen = [math.log(alpha / (total[i] + alpha * V)) for i in range(len(self.classes))]
        self.logp = {}
        for f in self.vocab:
            self.logp[f] = {c: math.log((k + alpha) / (total[c] + alpha * V)) for c, k in dfc[f].items()}
        self.temperature = 1.0
        self.df = df
        self.dfc = dfc

    def scores(self, fs):
        known = [f for f in fs if f in self.logp]
        s = [self.prior[c] + len(known) * self.unseen[c] for c in range(len(self.classes))]
        for f in known:
            for c, v in self.logp[f].items():
                s[c] += v - self.unseen[c]
        return s, len(known)

    def predict(self, fs, temperature=None):
        s, known = self.scores(fs)
        t = temperature or self.temperature
        z = max(x / t for x in s)
        e = [math.exp(x / t - z) for x in s]
        tot = sum(e)
        best = max(range(len(s)), key=lambda i: (s[i], -i))
        return self.classes[best], e[best] / tot, [x / tot for x in e], known


def folds(docs, k):
    return [[d for i, d in enumerate(docs) if i % k == j] for j in range(k)]


def cross_validate(docs, alpha, vocab_max, k, temps):
    classes = sorted(set(d["labels"][0] for d in docs))
    right, nll = 0, {t: 0.0 for t in temps}
    for j, test in enumerate(folds(docs, k)):
        train = [d for i, d in enumerate(docs) if i % k != j]
        m = Model(train, alpha, vocab_max, classes)
        for d in test:
            s, _ = m.scores(d["f"])
            best = max(range(len(s)), key=lambda i: (s[i], -i))
            right += classes[best] in d["labels"]
            want = classes.index(d["labels"][0])
            for t in temps:
                z = max(x / t for x in s)
                lse = z + math.log(sum(math.exp(x / t - z) for x in s))
                nll[t] += lse - s[want] / t
    return right / len(docs), nll


def write(m, docs, path, about):
    ci = {c: i for i, c in enumerate(m.classes)}
    lines = [FORMAT,
             "# the router's learned fallback (core/router/router_nb.h), written by",
             "# core/router/train_router_nb.py: do not edit, retrain",
             f"trained: {about}",
             f"temperature {m.temperature:.4g}",
             f"classes {len(m.classes)}"]
    for i, c in enumerate(m.classes):
        lines.append(f"c {c} {m.prior[i]:.4f} {m.unseen[i]:.4f}")
    lines.append(f"features {len(m.vocab)}")
    for f in m.vocab:
        ent = " ".join(f"@{c}:{v:.3f}" for c, v in sorted(m.logp[f].items()))
        lines.append(f"f {f} {ent}")
    lines.append(f"docs {len(docs)}")
    for d in docs:
        c = ci[d["labels"][0]]
        # its most telling features: known to the file, specific to its class, rare overall
        fs = [f for f in d["f"] if f in m.logp]
        fs.sort(key=lambda f: (-(m.dfc[f][c] / m.df[f]) / math.log(1 + m.df[f]), f))
        lines.append(f"d {d['labels'][0]} {d['name']} " + " ".join(fs[:DOC_FEATURES]))
    lines.append("end")
    with open(path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")


def route_with(binary, path):
    r = subprocess.run([binary, "route", path, "--format", "yaml"], capture_output=True, text=True)
    import yaml
    doc = yaml.safe_load(r.stdout) if r.stdout.startswith("route: ") else {}
    return doc or {}


def report_router(binary, heldout):
    by_route, by_plat = collections.defaultdict(lambda: [0, 0]), collections.defaultdict(lambda: [0, 0])
    right, cuda_bad, misses = 0, [], []
    for d in heldout:
        doc = route_with(binary, d["path"])
        got = doc.get("route", "?")
        ok = got in d["labels"]
        right += ok
        for key, table in ((d["labels"][0], by_route), (d["platform"] or "unknown", by_plat)):
            table[key][0] += ok
            table[key][1] += 1
        if not ok:
            learned = doc.get("learned") or {}
            misses.append(f"  miss {d['name']}: want {'|'.join(d['labels'])}, got {got}"
                          + (" (learned)" if learned.get("used") else ""))
        if d["platform"] in ("cpu", "mps", "xpu"):
            advice = " ".join(doc.get("steps") or []) + " " + " ".join(a.get("do", "") for a in doc.get("actions") or [])
            if any(w in advice for w in ("CUDA", "nvcc", "ptxas", "compute-sanitizer", "cubin", "rerun-blocking")):
                cuda_bad.append(d["name"])
    n = len(heldout)
    print(f"router (rules, then the fallback) on the held-out logs: {right}/{n} ({100 * right / n:.1f}%)")
    for title, table in (("route", by_route), ("platform", by_plat)):
        print(f"  per {title}:")
        for k in sorted(table):
            a, b = table[k]
            print(f"    {k:24s} {a:3d}/{b:<3d} ({100 * a / b:.0f}%)")
    print(f"  CUDA advice on cpu/mps/xpu logs: {len(cuda_bad)}" + (": " + ", ".join(cuda_bad) if cuda_bad else ""))
    for m in misses:
        print(m)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "core", "router", "router_nb.txt"))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--vocab", type=int, default=6000, help="most features kept")
    ap.add_argument("--router", help="a built aotidbg: also report the whole router on the held-out logs")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    train, heldout = load_docs(args)
    if len(train) < 10:
        sys.exit("train_router_nb.py: fewer than 10 labelled training logs found")
    temps = [1, 2, 4, 8, 16, 32, 64, 128]
    best = None
    for alpha in (0.1, 0.3, 1.0):
        acc, nll = cross_validate(train, alpha, args.vocab, args.folds, temps)
        t = min(temps, key=lambda x: nll[x])
        print(f"alpha {alpha}: {args.folds}-fold held-out accuracy {100 * acc:.1f}% (temperature {t})")
        if best is None or acc > best[0]:
            best = (acc, alpha, t)
    acc, alpha, t = best
    m = Model(train, alpha, args.vocab)
    m.temperature = t
    counts = collections.Counter(d["labels"][0] for d in train)
    print(f"trained on {len(train)} logs, {len(m.classes)} routes, {len(m.vocab)} features; "
          f"{args.folds}-fold held-out accuracy {100 * acc:.1f}%")
    about = (f"{len(train)} logs (dev, dev2, dev3, router_corpus split=train), alpha {alpha}, "
             f"{args.folds}-fold held-out accuracy {100 * acc:.1f}%")
    if heldout:
        right = sum(m.predict(d["f"])[0] in d["labels"] for d in heldout)
        print(f"classifier alone on the {len(heldout)} held-out logs: {right}/{len(heldout)} "
              f"({100 * right / len(heldout):.1f}%)")
    if not args.no_write:
        write(m, train, args.out, about)
        print(f"wrote {os.path.relpath(args.out, ROOT)} ({os.path.getsize(args.out)} bytes)")
    if args.router:
        if heldout:
            report_router(args.router, heldout)
        else:
            print("no held-out logs (tests/data/router_corpus split != train): nothing to report for --router")
    _ = counts


if __name__ == "__main__":
    main()
