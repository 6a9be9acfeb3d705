"""Every walkthrough replays headless from its first step to its last, by its own
scripted actions, and at each step the screen shows what the narration points at."""
import glob
import os

import pytest
import yaml

from conftest import ROOT, run

TUTORIALS = sorted(glob.glob(os.path.join(ROOT, "sessions", "tutorials", "*.yaml")))


def frames(stdout):
    """Splits headless output into [(label, screen)] in order."""
    out, label, buf = [], None, []
    for line in stdout.splitlines():
        if line.startswith("=== ") and line.endswith(" ==="):
            if label is not None:
                out.append((label, "\n".join(buf)))
            label, buf = line[4:-4], []
        else:
            buf.append(line)
    if label is not None:
        out.append((label, "\n".join(buf)))
    return out


def test_at_least_five_walkthroughs_from_real_runs():
    assert len(TUTORIALS) >= 5
    for path in TUTORIALS:
        doc = yaml.safe_load(open(path, encoding="utf-8"))
        assert doc["title"] and doc["narration"], path
        # recorded by `aotidbg run`, not written by hand: the package's hash and the checklist rows
        # (a run the checklist refused never starts the runner, so it has no torch version)
        assert len(doc["package"]["sha256"]) == 64 and doc["checks"], path
        assert doc.get("torch_version") or any(c["status"] == "FAIL" for c in doc["checks"]), path


def test_menu_lists_them(aotidbg):
    p = run([aotidbg, "tutorial", "--list"])
    assert p.returncode == 0, p.stderr
    for path in TUTORIALS:
        assert os.path.basename(path)[:-5] in p.stdout


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: os.path.basename(p)[:-5])
def test_walkthrough_end_to_end(aotidbg, path):
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    # A step that asks for an action waits for it and, once done, turns to the next step by
    # itself; a step without one turns with next-step. A step's `expect` must be on screen
    # once its action is done (or, with no action, as soon as the step is shown).
    keys, checks = [], []   # checks: (frame number, step number, expected text)
    steps = doc["narration"]
    for i, st in enumerate(steps):
        if st.get("action"):
            keys.append(st["action"])
            if st.get("expect"):
                checks.append((len(keys), i, st["expect"]))
        else:
            if st.get("expect"):
                checks.append((len(keys), i, st["expect"]))
            if i + 1 < len(steps):
                keys.append("next-step")
    name = os.path.basename(path)[:-5]
    p = run([aotidbg, "tutorial", name, "--headless", "120x40", "--ascii", "--keys", " ".join(keys)])
    assert p.returncode == 0, p.stderr
    got = frames(p.stdout)
    assert len(got) == len(keys) + 1, [label for label, _ in got]
    for frame, step, want in checks:
        label, screen = got[frame]
        assert want in screen, f"step {step + 1} ({label}): {want!r} not on screen:\n{screen}"
    # the walkthrough reached its last step, whose text is in the narration box
    assert f"step {len(steps)}/{len(steps)}" in got[-1][1]
    first_words = " ".join(steps[-1]["text"].split()[:3])
    assert first_words in " ".join(got[-1][1].replace("|", " ").split())
