"""Provenance (issue 17, item 1): every kernel call's source line, graph nodes, ATen ops and
weights, read from real packages.

`provenance` (tests/models/model_provenance.py) is compiled with provenance tracking on: the
lines aotidbg shows are checked against the kernel_information.json the package carries and
against the model file itself. `encoder` is compiled without it: its calls show the graph
nodes of wrapper.cpp's comments.
"""
import json
import os
import re
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT, run
from aotidbg_testlib import wrapper_cpp, wrapper_launches

MODEL_FILE = os.path.join(ROOT, "tests", "models", "model_provenance.py")
FRAME_RE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)(?:\n +(.*))?')
TORCH_MARKS = ("-packages/torch/", "/torch/nn/", "/torch/_", "/torch/fx/", "/torch/autograd/",
               "/torch/utils/", "/torch/functional.py", "/torch/overrides.py", "/torch/export/", "/torch/ao/")


def kernel_information(pt2):
    with zipfile.ZipFile(pt2) as z:
        (name,) = [n for n in z.namelist() if n.endswith("/kernel_information.json")]
        return json.loads(z.read(name))


def user_frame(trace):
    """The innermost frame outside torch's own code (what the man page promises)."""
    frames = FRAME_RE.findall(trace)
    assert frames, trace
    mine = [f for f in frames if not any(m in f[0] for m in TORCH_MARKS)]
    f = (mine or frames)[-1]
    return f[0], int(f[1]), f[3].strip()


def info_calls(aotidbg, pt2):
    """`aotidbg info --calls` as a list of {kernel, handle, at: [(file, line, code)], lists}."""
    p = run([aotidbg, "info", pt2, "--calls"])
    assert p.returncode == 0, p.stderr
    calls = []
    for line in p.stdout.splitlines():
        m = re.match(r"    (\d+) (\S+)(?: \((\S+)\))?(?: wrapper\.cpp:(\d+))?$", line)
        if m:
            assert int(m.group(1)) == len(calls)
            calls.append({"kernel": m.group(2), "handle": m.group(3), "line": int(m.group(4) or 0),
                          "at": []})
            continue
        m = re.match(r"      at (.+):(\d+) in \S+: (.*)$", line)
        if m:
            calls[-1]["at"].append((m.group(1), int(m.group(2)), m.group(3)))
            continue
        m = re.match(r"      ([a-z -]+): (.*)$", line)
        if m and calls:
            calls[-1][m.group(1)] = m.group(2).split(", ")
    return p.stdout, calls


def test_every_kernel_has_its_exact_source_line(aotidbg, package):
    pt2 = package("provenance")
    info = kernel_information(pt2)
    out, calls = info_calls(aotidbg, pt2)
    assert f"{len(info)} calls, {len(info)} with source lines (kernel_information.json)" in out
    assert [c["kernel"] for c in calls] == wrapper_launches(pt2)
    assert [c["handle"] for c in calls] == list(info)   # every JSON entry, in order
    src = open(MODEL_FILE).read().splitlines()
    for c in calls:
        entry = info[c["handle"]]
        want = []
        for t in entry["stack_traces"]:
            f = user_frame(t)
            if f not in want:
                want.append(f)
        assert c["at"] == want, (c, entry)
        for path, line, code in c["at"]:
            # the model's file, not torch's (the package may come from another checkout: its path differs)
            assert os.path.basename(path) == "model_provenance.py", path
            assert src[line - 1].strip() == code, (line, code)
        # the wrapper's source-node comment when the call has one (extern calls), else the JSON's nodes
        if "nodes" not in c:
            assert c["pre-grad nodes"] == entry["pre_grad_nodes"], (c, entry)
    # the weights name the layers: one block's kernels pass blocks.N.* only
    assert calls[0]["weights"] == ["emb.weight"]
    blocks = [sorted({w.split(".")[1] for w in c.get("weights", []) if w.startswith("blocks.")}) for c in calls]
    assert blocks[1:7] == [["0"], ["0"], ["1"], ["1"], ["2"], ["2"]], blocks
    # the log the NaN comes from is named with its own line
    (log_call,) = [c for c in calls if "log" in c["kernel"]]
    assert any("torch.log(h - 10.0)" in code for _, _, code in log_call["at"])


def test_without_provenance_the_calls_show_graph_nodes(aotidbg, package):
    pt2 = package("encoder")
    out, calls = info_calls(aotidbg, pt2)
    assert "graph nodes only (wrapper.cpp" in out
    assert [c["kernel"] for c in calls] == wrapper_launches(pt2)
    assert all(not c["at"] and c["handle"] is None for c in calls)
    # each extern call shows the nodes and ATen ops of the comment above it
    comments = re.findall(r"// Topologically Sorted Source Nodes: \[(.*)\], Original ATen: \[(.*)\]",
                          wrapper_cpp(pt2))
    shown = [(", ".join(c["nodes"]), ", ".join(c["aten"])) for c in calls if "nodes" in c]
    assert shown == [(n.replace(", ,", ",").strip(", "), a) for n, a in comments] and len(shown) >= 4


@pytest.fixture(scope="module")
def clean(aotidbg, package, tmp_path_factory):
    """A run of `provenance` with ids in range: every kernel runs (the log makes NaN, no error)."""
    d = tmp_path_factory.mktemp("clean")
    spec = d / "ok.yaml"
    spec.write_text("inputs:\n  - {shape: [1, 4], dtype: int64, device: cpu, fill: arange}\n")
    sess = d / "s.yaml"
    r = run([aotidbg, "run", package("provenance"), "--inputs", str(spec), "--record", str(sess)])
    assert os.path.exists(sess), r.stderr
    return {"pt2": package("provenance"), "session": sess, "dir": d}


def dump_sites(text):
    """`replay --dump`: for each kernel event, its `at` lines as (base name, line, code)."""
    out = []
    for line in text.splitlines():
        if re.match(r"#\d+ kernel ", line):
            out.append([])
        m = re.match(r"    at (.+):(\d+) in \S+: (.*)$", line)
        if m and out:
            out[-1].append((os.path.basename(m.group(1)), int(m.group(2)), m.group(3)))
    return out


def test_session_and_dump_keep_every_kernels_line(aotidbg, clean):
    """The session keeps the calls with their stack traces and links each kernel to its call; the
    dump (live and replayed alike) shows under each kernel the lines kernel_information.json gives."""
    info = kernel_information(clean["pt2"])
    sess = yaml.safe_load(open(clean["session"]))
    prov = sess["provenance"]
    assert prov["from"] == "kernel_information.json"
    assert [c["handle"] for c in prov["calls"]] == list(info)
    for c in prov["calls"]:
        assert c["stack"] == info[c["handle"]]["stack_traces"]
        assert c["post_grad"] == info[c["handle"]]["post_grad_nodes"]
    kernels = [e for e in sess["events"] if e["kind"] == "kernel"]
    assert len(kernels) == len(info) and [k["call"] for k in kernels] == list(range(len(info)))
    r = run([aotidbg, "replay", str(clean["session"]), "--dump"])
    assert r.returncode == 0, r.stderr
    want = []
    for handle in info:
        sites = []
        for t in info[handle]["stack_traces"]:
            f, line, code = user_frame(t)
            if (os.path.basename(f), line, code) not in sites:
                sites.append((os.path.basename(f), line, code))
        want.append(sites)
    assert dump_sites(r.stdout) == want
    assert f"provenance: from=kernel_information.json calls={len(info)}" in r.stdout


def test_without_provenance_the_session_keeps_graph_nodes(aotidbg, package, tmp_path):
    pt2 = package("encoder")
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [2, 5, 16], dtype: float32, device: cpu, fill: randn, seed: 0}\n")
    sess = tmp_path / "s.yaml"
    r = run([aotidbg, "run", pt2, "--inputs", str(spec), "--record", str(sess)])
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(open(sess))
    assert doc["provenance"]["from"] == "wrapper.cpp"
    r = run([aotidbg, "replay", str(sess), "--dump"])
    shown = re.findall(r"^    from nodes \[(.*)\] aten \[(.*)\]$", r.stdout, re.M)
    comments = re.findall(r"// Topologically Sorted Source Nodes: \[(.*)\], Original ATen: \[(.*)\]",
                          wrapper_cpp(pt2))
    assert shown == [(n.replace(", ,", ",").strip(", "), a) for n, a in comments] and len(shown) >= 4
    assert "    at " not in r.stdout


@pytest.fixture(scope="module")
def oob(aotidbg, package, tmp_path_factory):
    """A run of `provenance` fed the id 137 for its 100-row embedding: the index assert fires in
    the embedding kernel (kernel 0)."""
    d = tmp_path_factory.mktemp("oob")
    pt2 = package("provenance")
    spec = d / "oob.yaml"
    spec.write_text("inputs:\n  - {shape: [1, 4], dtype: int64, device: cpu, fill: full, value: 137}\n")
    sess = d / "s.yaml"
    r = run([aotidbg, "run", pt2, "--inputs", str(spec), "--record", str(sess)])
    assert "index out of bounds" in r.stdout + r.stderr, r.stdout + r.stderr
    # the summary names the model's line
    assert re.search(r"^  at \S*model_provenance\.py:\d+: h = self\.emb\(idx\)$", r.stderr, re.M), r.stderr
    return {"pt2": pt2, "session": sess, "dir": d}


def test_route_names_the_failing_kernels_source_line(aotidbg, oob):
    """The index assert's route carries the line of the model that does the lookup, from the
    session and from a bare log with --package."""
    src = open(MODEL_FILE).read().splitlines()
    (line,) = [i + 1 for i, t in enumerate(src) if t.strip() == "h = self.emb(idx)"]
    want = {"source_line": f"model_provenance.py:{line}", "source_code": "h = self.emb(idx)",
            "graph_nodes": "embedding", "kernel_call": "cpp_fused_embedding_0:1"}

    def got(fields):   # the file's base name: the package may have been compiled in another checkout
        f = {k: fields.get(k) for k in want}
        f["source_line"] = os.path.basename(f["source_line"] or "")
        return f
    r = run([aotidbg, "route", str(oob["session"]), "--format", "yaml"])
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(r.stdout)
    assert doc["route"] == "cpp-index-oob"   # cpp_fused_embedding_0's check
    assert got(doc["fields"]) == want, doc["fields"]
    # the same from the error text alone, with the package
    text = "\n".join(e["text"] for e in yaml.safe_load(open(oob["session"]))["events"] if e["kind"] == "error")
    log = oob["dir"] / "oob.log"
    log.write_text(text + "\n")
    r = run([aotidbg, "route", str(log), "--package", oob["pt2"], "--format", "yaml"])
    doc = yaml.safe_load(r.stdout)
    assert got(doc["fields"]) == want, doc["fields"]


def test_open_source_lands_on_the_failing_line(aotidbg, oob):
    """S on the failing kernel (from the kernel list or the router) shows kernel.cpp, says so, and
    puts the assert that fired under the cursor; on a kernel that did not fail, its body."""
    with zipfile.ZipFile(oob["pt2"]) as z:
        (n,) = [n for n in z.namelist() if n.endswith(".kernel.cpp")]
        lines = z.read(n).decode().split("\n")
    (fail,) = [i + 1 for i, t in enumerate(lines) if "index out of bounds: 0 <= tmp" in t and "CHECK" in t]
    for keys in ("goto:0 open-source", "pane-router open-source"):
        r = run([aotidbg, "replay", str(oob["session"]), "--headless", "140x30", "--keys", keys, "--dump-screen"])
        assert r.returncode == 0, r.stderr
        assert f"source: cpp_fused_embedding_0 - kernel.cpp line {fail} (failing line) - {n[:40]}" in r.stdout, \
            r.stdout
        assert re.search(rf"^. +{fail} .*AOTI_TORCH_CHECK", r.stdout, re.M), r.stdout


def screen(aotidbg, sess, keys, size="130x40", env=None):
    r = run([aotidbg, "replay", str(sess), "--headless", size, "--keys", keys, "--dump-screen"],
            env=dict(os.environ, **(env or {})))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_tui_groups_kernels_into_layers(aotidbg, clean):
    """The kernel list reads as the model's layers: one group per layer (from the weights the
    kernels pass), each kernel's source line in the `from` column; groups fold to one line."""
    info = kernel_information(clean["pt2"])
    out = screen(aotidbg, clean["session"], "pane-kernels")
    assert "kernels (8) by layer" in out
    heads = re.findall(r"\[-\] (\S+)  \((\d+) kernels?, #([\d-]+)\)", out)
    assert heads == [("emb", "1", "0"), ("blocks.0", "2", "1-2"), ("blocks.1", "2", "3-4"),
                     ("blocks.2", "2", "5-6"), ("head", "1", "7")], out
    for i, handle in enumerate(info):   # the `from` column ends with the kernel's first line
        line = user_frame(info[handle]["stack_traces"][0])[1]
        assert re.search(rf"^.\s+{i}   \S+ \S*\.py:{line}( \+\d)? ", out, re.M), (i, line, out)
    out = screen(aotidbg, clean["session"], "pane-kernels goto:3 fold top down:3")
    assert "[+] blocks.1  (2 kernels, #3-4)" in out
    assert not re.search(r"^.\s+[34]   ", out, re.M)      # its kernels are hidden
    assert "inspector: #3 " in out                         # #0, #1, #2, then the folded blocks.1 (#3)
    out = screen(aotidbg, clean["session"], "pane-kernels goto:3 fold top down:4")
    assert "inspector: #5 " in out                         # blocks.1 is one stop
    out = screen(aotidbg, clean["session"], "pane-kernels fold-all")
    assert len(re.findall(r"\[\+\] ", out)) == 5 and "NaN at #6" in out
    out = screen(aotidbg, clean["session"], "pane-kernels group-by:none")
    assert "[-]" not in out and "by layer" not in out


def test_tui_inspector_and_source_lines(aotidbg, clean, tmp_path):
    """The inspector names the kernel's line and code (both lines of the fused log kernel), with the
    lines around it; list-source opens the model file at the line; edit-source runs $EDITOR there."""
    info = kernel_information(clean["pt2"])
    handles = list(info)
    k = next(i for i, h in enumerate(handles) if "log" in h)
    sites = []
    for t in info[handles[k]]["stack_traces"]:
        if user_frame(t) not in sites:
            sites.append(user_frame(t))
    out = screen(aotidbg, clean["session"], f"pane-kernels goto:{k} pane-inspector zoom")
    first, second = sites[0], sites[1]
    assert f"at model_provenance.py:{first[1]} in forward: {first[2][:20]}" in out, out
    assert f"(also model_provenance.py:{second[1]})" in out
    assert re.search(rf"^.>\s+{first[1]}\s+{re.escape(first[2][:30])}", out, re.M), out   # the excerpt
    out = screen(aotidbg, clean["session"], f"pane-kernels goto:{k} list-source:2")
    assert f"source: model_provenance.py line {second[1]} (E edits)" in out
    assert re.search(rf"^.\s+{second[1]} .*torch\.log\(h - 10\.0\)", out, re.M), out
    log = tmp_path / "editor.args"
    ed = tmp_path / "ed.sh"
    ed.write_text(f"#!/bin/sh\necho \"$@\" > {log}\n")
    ed.chmod(0o755)
    out = screen(aotidbg, clean["session"], f"pane-kernels goto:{k} edit-source:2", env={"VISUAL": f"{ed} -w"})
    assert log.read_text().split() == ["-w", f"+{second[1]}", second[0]]
    # from list-source's view, at the line it shows
    log.unlink()
    screen(aotidbg, clean["session"], "pane-kernels goto:0 list-source edit-source", env={"VISUAL": str(ed)})
    assert log.read_text().split() == [f"+{sites_of(info, handles[0])[0][1]}", sites_of(info, handles[0])[0][0]]


def sites_of(info, handle):
    out = []
    for t in info[handle]["stack_traces"]:
        if user_frame(t) not in out:
            out.append(user_frame(t))
    return out


def test_tui_live_run_has_the_provenance(aotidbg, clean, tmp_path):
    """A live run reads the package's provenance too: grouped list, the inspector's line."""
    r = run([aotidbg, clean["pt2"], "--inputs", str(clean["dir"] / "ok.yaml"), "--record", str(tmp_path / "l.yaml"),
             "--headless", "130x40", "--keys", "c pane-kernels top", "--dump-screen"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert " by layer " in r.stdout and "[-] blocks.1  (2 kernels, #3-4)" in r.stdout   # (it stops at the NaN)
    assert "at model_provenance.py:" in r.stdout and "in forward: h = self.emb(idx)" in r.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_edit_source_gives_the_terminal_to_the_editor(aotidbg, clean, tmp_path):
    """In a real terminal: E leaves the screen to $VISUAL (here a script that waits for Enter),
    at the kernel's line, then the UI comes back; q still quits with the terminal restored."""
    from test_terminal import Tmux, _check_tty
    ed = tmp_path / "ed.sh"
    ed.write_text('#!/bin/sh\necho "EDITOR-RAN $@"; read x\n')
    ed.chmod(0o755)
    line = sites_of(kernel_information(clean["pt2"]), "cpp_fused_embedding_0:1")[0][1]
    t = Tmux(130, 40)
    try:
        t.send(f"VISUAL={ed} TERM=xterm LANG=C.UTF-8 {aotidbg} replay {clean['session']}; echo AOTIDBG-EXIT-$?",
               "Enter")
        t.wait_for(["kernels (8) by layer", "REPLAY"])
        t.send("3", "g", "E")
        screen = t.wait_for(f"EDITOR-RAN +{line} ")
        assert "kernels (8)" not in screen            # the UI gave the screen away
        t.send("Enter")
        t.wait_for(["kernels (8) by layer", f"edit-source: {ed} +{line} "])
        t.send("q")
        t.wait_for("AOTIDBG-EXIT-0")
        _check_tty(t)
    finally:
        t.close()
