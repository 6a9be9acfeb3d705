"""The manual agrees with the program: it renders cleanly, names every action of the
action table, and documents every option each subcommand's --help lists."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, run

MAN = os.path.join(ROOT, "man", "aotidbg.1")


def man_text():
    # groff escapes hyphens as \-; compare on the plain text.
    return open(MAN, encoding="utf-8").read().replace("\\-", "-")


@pytest.mark.parametrize("page", ["aotidbg.1", "aotidbg-session.5", "aotidbg-theme.5"])
def test_renders_without_warnings(page):
    if not shutil.which("groff"):
        pytest.fail("groff is not installed (.ci/setup.sh installs groff-base)")
    p = run(["groff", "-ww", "-man", "-Tutf8", os.path.join(ROOT, "man", page)])
    assert p.returncode == 0
    assert p.stderr.strip() == "", p.stderr


def test_every_action_is_in_the_manual(aotidbg):
    p = run([aotidbg, "--list-actions"])
    assert p.returncode == 0, p.stderr
    names = [line.split("\t")[0] for line in p.stdout.splitlines() if line.strip()]
    assert len(names) >= 20, p.stdout
    text = man_text()
    missing = [n for n in names if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text)]
    assert not missing, f"actions missing from man/aotidbg.1: {missing}"


def list_options(aotidbg):
    """The command table's options: (command, option, argument, first help line) rows."""
    p = run([aotidbg, "--list-options"])
    assert p.returncode == 0, p.stderr
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    assert rows and all(len(r) == 4 for r in rows), p.stdout
    return rows


def test_every_option_is_in_the_manual(aotidbg):
    """Every option of every command in the command table (what --help prints) is in aotidbg(1)."""
    text = man_text()
    rows = list_options(aotidbg)
    assert {r[0] for r in rows} == {"live", "run", "replay", "check", "route", "info", "export", "tutorial", "repro"}
    missing = sorted({f"{c} {o}" for c, o, _, _ in rows if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])",
                                                                    text)})
    assert not missing, f"options in the command table that man/aotidbg.1 does not document: {missing}"


@pytest.mark.parametrize("cmd", [["run"], ["check"], ["route"], ["info"], ["repro"], ["replay", "--dump"], ["replay"], ["export"],
                                 ["tutorial"], ["x.pt2"], []])
def test_help_is_the_command_table(aotidbg, cmd):
    """`aotidbg COMMAND --help` lists exactly the table's options of that command (it is generated
    from them), and every option it names is in the manual."""
    p = run([aotidbg, *cmd, "--help"])
    assert p.returncode == 0, p.stderr
    opts = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", p.stdout))
    assert opts, p.stdout
    text = man_text()
    missing = sorted(o for o in opts if o not in text)
    assert not missing, f"`aotidbg {' '.join(cmd)} --help` lists {missing}, which man/aotidbg.1 does not"
    if cmd:
        label = {"x.pt2": "live"}.get(cmd[0], cmd[0])
        table = {o for c, o, _, _ in list_options(aotidbg) if c == label}
        listed = {line.split()[0].split("[=")[0] for line in p.stdout.splitlines() if re.match(r"  --?[a-z]", line)}
        assert listed == table, (listed ^ table)
        assert all(len(line) <= 80 for line in p.stdout.splitlines() if line.startswith("  ")), p.stdout


def test_every_subcommand_in_help_is_in_the_manual(aotidbg):
    p = run([aotidbg, "--help"])
    subs = set(re.findall(r"aotidbg (run|replay|check|route|info|export|tutorial|repro)\b", p.stdout))
    assert subs == {"run", "replay", "check", "route", "info", "export", "tutorial", "repro"}
    text = man_text()
    for s in subs:
        assert f".B {s}" in text or f"aotidbg {s}" in text, s


def man_keys_entries():
    """The KEYS section's `.BR name " (keys)"` pairs and the paragraph after each line."""
    text = open(MAN, encoding="utf-8").read()
    keys = text[text.index(".SH KEYS"):]
    keys = keys[:keys.index("\n.SH ", 1)]
    out = {}
    paras = keys.split("\n.TP\n")
    for para in paras:
        head, _, body = para.partition("\n")
        if not head.startswith(".BR "):
            continue
        for name, ks in re.findall(r'([a-z][a-z\\-]*) " \(([^)]*)\)', head):
            out[name.replace("\\-", "-")] = ([k.strip().replace("\\-", "-") for k in ks.split(",")],
                                              body.replace("\\-", "-"))
    return out


def test_keys_in_the_manual_are_the_action_table_keys(aotidbg):
    """Every key the action table binds is the one the manual names for that action, and the
    manual says what the `?` help says for h/l (issue 19: they disagreed)."""
    p = run([aotidbg, "--list-actions"])
    table = {}
    for line in p.stdout.splitlines():
        name, keys, help_ = line.split("\t")
        table[name] = (keys.split(), help_)
    entries = man_keys_entries()
    assert len(entries) >= 30, entries.keys()
    for name, (man_keys, body) in entries.items():
        assert name in table, f"man/aotidbg.1 KEYS names '{name}', which is not an action"
        bound = table[name][0]
        plain = [k for k in man_keys if " " not in k]   # "Enter in the router" is a pane's own key
        assert set(bound) == set(plain), f"{name}: the table binds {bound}, the manual says {man_keys}"
    # h/l: the ? help says pane, inspector view, router next-step action; so must the manual
    body = entries["left"][1]
    for name in ("left", "right"):
        help_ = table[name][1]
        for clause, word in (("pane", "pane"), ("inspector", "view"), ("router", "next-step action")):
            assert clause in help_ and word in help_, (name, help_)
            assert word in body and (clause == "pane" or clause in body), \
                f"man/aotidbg.1 on {name} lacks '{word}' (the ? help: {help_})"
