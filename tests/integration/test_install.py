"""What a user installs: `cpack -G DEB` in the build folder makes a .deb holding the front end,
runner, agent, man pages, themes, walkthroughs and bash completion; the completion reads the
command table (`aotidbg --list-options`), so it completes what --help lists."""
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotidbg_testlib import run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPLETION = os.path.join(ROOT, "core", "cli", "aotidbg.bash-completion")
BUILD = os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build"))


@pytest.mark.skipif(not shutil.which("cpack") or not shutil.which("dpkg-deb"), reason="needs cpack and dpkg-deb")
def test_cpack_makes_a_deb_with_the_program_and_its_manual(tmp_path):
    r = run(["cpack", "-G", "DEB", "-B", str(tmp_path)], cwd=BUILD, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    debs = [f for f in os.listdir(tmp_path) if f.endswith(".deb")]
    assert len(debs) == 1, os.listdir(tmp_path)
    deb = os.path.join(tmp_path, debs[0])
    files = run(["dpkg-deb", "-c", deb]).stdout
    for want in ("./usr/bin/aotidbg", "./usr/bin/aotidbg-agent", "./usr/share/man/man1/aotidbg.1",
                 "./usr/share/man/man5/aotidbg-session.5", "./usr/share/aotidbg/themes/dark.yaml",
                 "./usr/share/aotidbg/sessions/tutorials/04-index-out-of-bounds.yaml",
                 "./usr/share/bash-completion/completions/aotidbg"):
        assert want in files, (want, files)
    if os.path.exists(os.path.join(BUILD, "aotidbg-runner")):
        assert "./usr/bin/aotidbg-runner" in files
    fields = run(["dpkg-deb", "-f", deb, "Package", "Depends"]).stdout
    assert "Package: aotidbg" in fields and "libyaml-0-2" in fields and "libncursesw6" in fields
    # the packaged program runs from an unpacked tree
    root = tmp_path / "root"
    assert run(["dpkg-deb", "-x", deb, str(root)]).returncode == 0
    v = run([str(root / "usr" / "bin" / "aotidbg"), "--version"])
    assert v.returncode == 0 and v.stdout.startswith("aotidbg ")


def complete(aotidbg, *words):
    """What the bash completion offers for the command line `aotidbg WORDS...` (the last word is
    the one being completed)."""
    words = ["aotidbg", *words]
    script = (f"source {COMPLETION}\n"
              f"aotidbg() {{ {aotidbg} \"$@\"; }}\n"
              f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
              "_aotidbg; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


@pytest.mark.skipif(not shutil.which("bash"), reason="needs bash")
def test_bash_completion_reads_the_command_table(aotidbg):
    rows = [line.split("\t") for line in run([aotidbg, "--list-options"]).stdout.splitlines()]
    commands = {r[0] for r in rows} - {"live"}
    assert commands <= complete(aotidbg, "")
    assert complete(aotidbg, "ex") == {"export"}
    assert {r[1] for r in rows if r[0] == "export"} <= complete(aotidbg, "export", "-")
    assert {r[1] for r in rows if r[0] == "run" and r[1].startswith("--break")} <= complete(aotidbg, "run", "--b")
    assert complete(aotidbg, "export", "s.yaml", "--format", "") == {"chrome-trace", "csv"}
    assert complete(aotidbg, "check", "p.pt2", "--format", "") == {"text", "yaml"}
    # the live UI (a package first) takes the live options
    assert {r[1] for r in rows if r[0] == "live"} <= complete(aotidbg, "x.pt2", "-")
    # --inputs takes a spec file, or random where the run makes the inputs
    assert "random" in complete(aotidbg, "run", "p.pt2", "--inputs", "r")
    assert "random" in complete(aotidbg, "x.pt2", "--inputs", "")
    assert "random" not in complete(aotidbg, "check", "p.pt2", "--inputs", "r")
    assert "--seed" in complete(aotidbg, "run", "--se")
