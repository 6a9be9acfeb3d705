"""Builds the walkthroughs: a real recorded session plus narration.

Each src/NAME.yaml names a recorded session (relative to sessions/) and its narration
steps; the output NAME.yaml here is that session, byte for byte, with `title:` and
`narration:` inserted before its `events:` list. Event selectors in a step
(`event: {kind: error}`, `event: {kernel: 3}`, `event: {status: nan}`) become event
indexes of that session.

usage: python3 sessions/tutorials/build.py
"""
import glob
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SESSIONS = os.path.dirname(HERE)


def select(events, sel):
    for i, e in enumerate(events):
        if "kernel" in sel and not (e.get("kind") == "kernel" and e.get("index") == sel["kernel"]):
            continue
        if "kind" in sel and e.get("kind") != sel["kind"]:
            continue
        if "status" in sel and e.get("status") != sel["status"]:
            continue
        return i
    raise SystemExit(f"no event matches {sel}")


def build(src):
    spec = yaml.safe_load(open(src, encoding="utf-8"))
    path = os.path.join(SESSIONS, spec["session"])
    text = open(path, encoding="utf-8").read()
    events = yaml.safe_load(text)["events"] or []
    steps = []
    for st in spec["steps"]:
        d = {"text": " ".join(st["text"].split())}
        for k in ("pane", "action", "expect"):
            if k in st:
                d[k] = st[k]
        if "event" in st:
            d["event"] = select(events, st["event"])
        steps.append(d)
    head = yaml.safe_dump({"title": spec["title"], "narration": steps}, sort_keys=False,
                          allow_unicode=True, width=10000, default_flow_style=False)
    cut = text.index("\nevents:") + 1
    out = os.path.join(HERE, os.path.basename(src))
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text[:cut] + head + text[cut:])
    os.replace(tmp, out)
    print(out)


if __name__ == "__main__":
    for src in sorted(glob.glob(os.path.join(HERE, "src", "*.yaml"))):
        build(src)
