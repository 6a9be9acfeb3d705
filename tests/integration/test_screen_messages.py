"""A screen nothing else writes on (issue 47): while the full-screen UI is up,
what the front end, the run service, the eager reference or a library writes
to stderr goes to the message line and the messages log (`M`, `:messages`),
never over the panes, and is printed on the terminal once the UI has ended.

Driven in tmux, as test_terminal.py: the live UI with --eager computing a new
reference (a fresh folder: nothing cached) says "eager reference: N node
values ..." on its message line while the panes and the status bar stay as
they were drawn.
"""
import re
import shutil
import time

import pytest

from conftest import MODELS_DIR
from test_terminal import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SPEC = "inputs:\n  - {shape: [4, 16], dtype: float32, device: cpu, fill: randn, seed: 3}\n"


@pytest.fixture
def tmux():
    t = Tmux(100, 30)
    yield t
    t.close()


def test_live_eager_reference_message_stays_off_the_panes_tmux(tmux, aotidbg, package, tmp_path):
    pkg = package("eager_blocks")
    prog = f"{MODELS_DIR}/eager_blocks.same.ep.pt2"
    (tmp_path / "in.yaml").write_text(SPEC)
    rec = tmp_path / "s.yaml"
    tmux.send(f"cd {tmp_path}; export TERM=xterm; clear; LANG=C.UTF-8 {aotidbg} {pkg} --inputs in.yaml "
              f"--eager {prog} --record {rec}; echo AOTIDBG-EXIT-$?", "Enter")
    # the reference is computed while the UI is up (nothing cached in this folder), then said
    screen = tmux.wait_for(["eager reference: ", "node value"], timeout=240)
    rows = screen.rstrip("\n").split("\n")
    status = [i for i, r in enumerate(rows) if " LIVE " in r]
    assert status, screen
    # only the message line (under the status bar) says it; no stray "aotidbg: " text on the panes
    said = [i for i, r in enumerate(rows) if "eager reference" in r]
    assert said == [status[-1] + 1], screen
    assert "aotidbg:" not in screen, screen
    assert rows[status[-1]].startswith(" LIVE "), screen   # the status bar is whole, from its first column
    for r in rows[:status[-1]]:   # every pane row is a row of the frame: a border at both ends
        assert r == "" or r[0] in "│┌└├+|" and r[-1] in "│┐┘┤+|", screen
    # the messages log keeps it
    tmux.send("M")
    screen = tmux.wait_for(["messages (newest last)", "eager reference: "], timeout=20)
    tmux.send("q")
    tmux.wait_for(" LIVE ", timeout=20)
    tmux.send(":")
    tmux.send("messages", literal=True)
    tmux.send("Enter")
    tmux.wait_for(["messages (newest last)", "eager reference: "], timeout=20)
    tmux.send("q")
    tmux.send("q")
    end = time.time() + 60
    while time.time() < end and not re.search(r"(?m)^AOTIDBG-EXIT-\d+$", tmux.capture()):
        time.sleep(0.1)
    lines = tmux.capture().split("\n")
    done = [i for i, ln in enumerate(lines) if re.fullmatch(r"AOTIDBG-EXIT-[01]", ln)]
    assert done, "\n".join(lines)
    # once the UI has ended, what stderr said while it was up is on the terminal, just before the exit
    said = [i for i, ln in enumerate(lines) if re.match(r"aotidbg: eager reference: \d+ node values? for ", ln)]
    assert said and said[-1] < done[-1], "\n".join(lines)
