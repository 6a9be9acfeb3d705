"""while_loop iterations: each launch knows its round, --break-on iteration=K and kernel=NAME@K
stop there, and a NaN planted in round K is found at round K. Real CPU packages:
tests/models/model_control.py's ctl_while (rounds = its first input) and
tests/models/model_loop.py's loop_nan (rounds and the NaN's round are inputs)."""
import os

import pytest
import torch

from aotidbg_testlib import events, frames, load_session, run, write_spec


def run_loop(aotidbg, pkg, tmp_path, inputs, *extra):
    spec = write_spec(tmp_path, inputs)
    out = os.path.join(tmp_path, "s.yaml")
    p = run([aotidbg, "run", pkg, "--inputs", spec, "--record", out, *extra])
    return p, (load_session(out) if os.path.exists(out) else None)


def kernels(sess):
    return events(sess, "kernel")


@pytest.mark.parametrize("rounds", [0, 1, 6])
def test_each_launch_knows_its_iteration(aotidbg, package, tmp_path, rounds):
    pkg = package("ctl_while")
    p, sess = run_loop(aotidbg, pkg, tmp_path, (torch.tensor(rounds), torch.randn(2, 8)))
    assert p.returncode == 0, p.stderr
    ks = kernels(sess)
    folds = events(sess, "fold")
    cond = [k for k in ks if k.get("branch") == "while_loop_cond_graph_0"]
    body = [k for k in ks if k.get("branch") == "while_loop_body_graph_0"]
    # repeated iterations are folded: the first and the last kept whole, the rest counted
    folded = [i for f in folds for i in range(f["from_iteration"], f["to_iteration"] + 1)]
    assert sorted(folded + [k["iteration"] for k in cond]) == list(range(rounds + 1))
    assert sorted(folded + [k["iteration"] for k in body]) == list(range(rounds))
    assert {0, rounds} <= {k["iteration"] for k in cond} and (rounds < 1 or rounds - 1 in
                                                              {k["iteration"] for k in body})
    assert len(cond) + len(body) == len(ks)
    # every launch is accounted for: kept indices and folded ranges tile 0..2*rounds
    idx = sorted([k["index"] for k in ks] + [i for f in folds for i in range(f["first_kernel"], f["last_kernel"] + 1)])
    assert idx == list(range(2 * rounds + 1))
    for f in folds:
        assert f["launches"] == f["last_kernel"] - f["first_kernel"] + 1 == 2 * (f["to_iteration"] - f["from_iteration"] + 1)
        assert [fk["name"] for fk in f["kernels"]] == [cond[0]["name"], body[0]["name"]]
        assert all(fk["launches"] == f["launches"] // 2 for fk in f["kernels"])
    dump = run([aotidbg, "replay", os.path.join(tmp_path, "s.yaml"), "--dump"])
    assert f"branch=while_loop_cond_graph_0 iteration={rounds}" in dump.stdout
    for f in folds:   # our own reader reads the fold back
        assert (f"fold loop=while_loop_0 from_iteration={f['from_iteration']} to_iteration={f['to_iteration']} "
                f"first_kernel={f['first_kernel']} last_kernel={f['last_kernel']} launches={f['launches']}") in dump.stdout
    assert bool(folds) == (rounds >= 3)


def test_break_on_iteration_and_kernel_at(aotidbg, package, tmp_path):
    pkg = package("ctl_while")
    ins = (torch.tensor(6), torch.randn(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", "iteration=3")
    ks = kernels(sess)
    assert ks[-1]["iteration"] == 3 and all(k.get("iteration", -1) < 3 for k in ks[:-1]), p.stderr
    assert "in iteration 3 of while_loop_cond_graph_0" in p.stderr
    body = next(k["name"] for k in ks if k.get("branch") == "while_loop_body_graph_0")
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", f"kernel={body}@4")
    last = kernels(sess)[-1]
    assert (last["name"], last["iteration"]) == (body, 4), p.stderr
    assert load_session(os.path.join(tmp_path, "s.yaml"))["end_state"] == "stopped"
    p, _ = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", f"kernel={body}@9")
    assert p.returncode == 2 and f"kernel={body}@9 matched no kernel" in p.stderr
    for bad in ("iteration=-1", "iteration=x", "kernel=@3", f"kernel={body}@"):
        p, _ = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", bad)
        assert p.returncode == 2 and "--break-on" in p.stderr and "iteration" in p.stderr, (bad, p.stderr)


@pytest.mark.parametrize("rounds,bad", [(200, 150), (60, 7)])
def test_nan_found_at_its_iteration(aotidbg, package, tmp_path, rounds, bad):
    pkg = package("loop_nan")
    ins = (torch.tensor(rounds), torch.tensor(bad), torch.rand(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--break-on", "nan")
    assert p.returncode == 1, p.stderr
    (nan,) = events(sess, "nan")
    k = next(k for k in kernels(sess) if k["index"] == nan["kernel"])
    assert k["iteration"] == bad and k["branch"] == "while_loop_body_graph_0"
    # the rounds before it repeat and fold; the NaN's round and the one before it stay whole
    (fold,) = events(sess, "fold")
    assert fold["from_iteration"] == 1 and fold["to_iteration"] == bad - 2, fold
    assert {bad - 1, bad} <= {k.get("iteration") for k in kernels(sess)}
    assert f"in iteration {bad} of while_loop_body_graph_0" in p.stderr
    assert f"(iteration {bad} of while_loop_body_graph_0)" in p.stderr
    if rounds == 200:
        _route_reads_the_index(aotidbg, os.path.join(tmp_path, "s.yaml"), sess, nan["kernel"])


def test_values_only_where_kept(aotidbg, package, tmp_path):
    """With --values, a loop's later rounds read statistics alone (most of them fold, and their
    values would be dropped): values in the first round, at the kernel a run stops at, and in a
    tensor holding NaN/Inf; each tensor left without says so (values_skipped), and the dump says
    why. --loop-values all reads every round's."""
    pkg = package("loop_nan")
    ins = (torch.tensor(30), torch.tensor(20), torch.rand(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--values", "64")
    assert p.returncode == 0, p.stderr
    assert events(sess, "fold")
    seen = set()
    for k in kernels(sess):
        for t in k["tensors"]:
            later = k.get("iteration", -1) >= 1
            odd = t["stats"]["nan"] + t["stats"]["posinf"] + t["stats"]["neginf"] > 0
            kept = bool(t.get("values"))
            assert kept == (not later or odd), (k["index"], k.get("iteration"), t["name"])
            assert t.get("values_skipped", False) == (not kept), (k["index"], t["name"])
            seen.add((later, odd))
    # (a before-tensor is the buffer a kernel is about to write: it may hold anything, NaN too)
    assert seen >= {(False, False), (True, False), (True, True)}, seen
    dump = run([aotidbg, "replay", os.path.join(tmp_path, "s.yaml"), "--dump"])
    assert "values_skipped: not read (a while_loop round after the first" in dump.stdout
    p, sess = run_loop(aotidbg, pkg, tmp_path, ins, "--values", "64", "--loop-values", "all")
    assert p.returncode == 0, p.stderr
    ts = [t for k in kernels(sess) for t in k["tensors"]] + events(sess, "output")[0]["tensors"]
    assert all(t.get("values") and "values_skipped" not in t for t in ts)
    # the value budget counts what the session keeps: folded rounds give theirs back (30 rounds of
    # values, about 18 kB, would use up 4 kB; the rounds kept and the outputs fit in it). No NaN
    # here: from the NaN's round on, no round folds.
    clean = (torch.tensor(30), torch.tensor(10**9), torch.rand(2, 8))
    p, sess = run_loop(aotidbg, pkg, tmp_path, clean, "--values", "64", "--loop-values", "all",
                       "--values-budget", "4K")
    ts = [t for k in kernels(sess) for t in k["tensors"]] + events(sess, "output")[0]["tensors"]
    assert p.returncode == 0 and all(t.get("values") and "values_budget_cut" not in t for t in ts), p.stderr
    body = next(k["name"] for k in kernels(sess) if k.get("branch") == "while_loop_body_graph_0")
    live = os.path.join(tmp_path, "live.yaml")   # live: stopped before it, then one step over it
    p = run([aotidbg, pkg, "--inputs", os.path.join(tmp_path, "spec.yaml"), "--record", live, "--break-on",
             f"kernel={body}@12", "--headless", "120x40", "--dump-screen", "--keys", "c s q"])
    stopped = next(k for k in kernels(load_session(live)) if (k["name"], k.get("iteration")) == (body, 12))
    assert stopped["status"] == "ok" and stopped["tensors"], p.stderr
    assert all(t.get("values") for t in stopped["tensors"])   # what the stop shows, it read
    p, _ = run_loop(aotidbg, pkg, tmp_path, ins, "--loop-values", "some")
    assert p.returncode == 2 and "--loop-values needs kept or all, got 'some'" in p.stderr


def _route_reads_the_index(aotidbg, path, sess, nan_kernel):
    """The final save's index: key lists where the events `route` reads are. `route` of the file says
    what `route` of the same file without the key says (read whole), and it reads those places
    alone: an event it does not list, made unreadable at the same length, changes nothing, while
    a read of the whole file now fails at it."""
    raw = open(path, "rb").read()
    ix = sess["index"]
    listed = set(ix["at"])
    by_index = run([aotidbg, "route", path])
    assert by_index.returncode == 0 and by_index.stdout.startswith("route: nan-inf"), by_index.stdout
    assert f"kernel #{nan_kernel}" in by_index.stdout
    head, rest = raw.split(b"\nindex:\n", 1)
    plain = os.path.join(os.path.dirname(path), "plain.yaml")
    with open(plain, "wb") as f:
        f.write(head + b"\n" + rest.split(b"\n", 3)[3])   # the key's three lines gone
    whole = run([aotidbg, "route", plain])
    assert whole.returncode == 0 and whole.stdout == by_index.stdout
    starts = [i + 1 for i in range(len(raw) - 1) if raw[i:i + 2] == b"\n-"]
    other = next(a for a in starts if a not in listed and raw[a:a + 15] == b"- {kind: kernel")
    bad = raw[:other] + b"- [[[[[[[[[[[[[" + raw[other + 15:]
    with open(path, "wb") as f:
        f.write(bad)
    assert run([aotidbg, "route", path]).stdout == by_index.stdout
    assert run([aotidbg, "replay", path, "--dump"]).returncode == 2


def replay_screens(aotidbg, session, script, tmp_path, size="200x30", env=None):
    sc = os.path.join(tmp_path, "keys.txt")
    with open(sc, "w") as f:
        f.write("\n".join(script) + "\n")
    p = run([aotidbg, "replay", session, "--headless", size, "--ascii", "--script", sc],
            env={**os.environ, **(env or {})})
    return p, dict(frames(p.stdout))


def test_replay_shows_a_fold_as_a_group_that_opens(aotidbg, package, tmp_path):
    """The fold event of ctl_while's 6 rounds is one line among the kept kernels
    (which keep their own rounds), opens to its kernels, and goto / search /
    the inspector reach what it folded."""
    pkg = package("ctl_while")
    p, sess = run_loop(aotidbg, pkg, tmp_path, (torch.tensor(6), torch.randn(2, 8)))
    assert p.returncode == 0, p.stderr
    (fold,) = events(sess, "fold")
    body = next(k["name"] for k in kernels(sess) if k.get("branch") == "while_loop_body_graph_0")
    head = (f"iterations {fold['from_iteration']}..{fold['to_iteration']} of while_loop_0 folded: "
            f"{fold['launches']} launches of 2 kernels")
    mid = (fold["first_kernel"] + fold["last_kernel"]) // 2
    mid_name = fold["kernels"][(mid - fold["first_kernel"]) % 2]["name"]
    s = os.path.join(tmp_path, "s.yaml")
    p, fr = replay_screens(aotidbg, s, ["pane-kernels", "down", "down", "fold", "fold",
                                        "fold", "down", f"goto {mid}", "goto 0", f"search {body}",
                                        "search-next"], tmp_path)
    assert p.returncode == 0, p.stderr
    start = fr["start"]
    assert "[+] " + head in start, start
    # the kept rounds around it keep their iteration numbers, the fold sits between them
    lines = start.splitlines()
    at = next(i for i, l in enumerate(lines) if head in l)
    assert f"@{fold['from_iteration'] - 1}" in lines[at - 1] and f"@{fold['to_iteration'] + 1}" in lines[at + 1]
    assert f"#{fold['first_kernel']}-{fold['last_kernel']}" in lines[at]
    # on its line, `fold` opens it: its kernels, each with its count and ranges
    opened = fr["fold"]
    assert "[-] " + head in opened
    fk = [l for l in opened.splitlines() if f"x{fold['launches'] // 2}  " in l and "(sum " in l]
    assert len(fk) == 2 and [k["name"] for k in fold["kernels"]][0] in fk[0], opened
    assert "inspector: while_loop_0 iterations" in opened and "counted, not kept" in opened
    # goto a folded launch's index selects its kernel in the fold; the inspector shows its ranges
    g = fr[f"goto {mid}"]
    assert f"kernel {mid}: in iterations" in g and mid_name in g
    ranges = [t for t in fold["kernels"][(mid - fold["first_kernel"]) % 2]["tensors"] if t["phase"] == "after"]
    assert ranges and f"after  {ranges[-1]['name']}" in g, g
    # search goes through the fold: the kept body, then the folded one, then the next kept one
    assert "/" + body + ": row" in fr[f"search {body}"]
    nxt = fr["search-next"]
    assert "inspector: while_loop_0 iterations" in nxt, nxt


def test_streamed_replay_reads_whole_cut_and_bad_files(aotidbg, package, tmp_path):
    """AOTIDBG_STREAM_BYTES=0 makes every replay load on screen, a slice at a
    time (load.h): the screens are the same as a whole load's, a file cut off
    mid-event keeps what came before, and an error past the first screen still
    names file:line:col and exits 2."""
    pkg = package("ctl_while")
    p, sess = run_loop(aotidbg, pkg, tmp_path, (torch.tensor(40), torch.randn(2, 8)))
    assert p.returncode == 0, p.stderr
    s = os.path.join(tmp_path, "s.yaml")
    keys = ["pane-kernels", "bottom", "up"]
    whole = replay_screens(aotidbg, s, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "100000000"})
    streamed = replay_screens(aotidbg, s, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "0"})
    assert whole[0].returncode == streamed[0].returncode == 0, streamed[0].stderr
    assert whole[1] == streamed[1]
    text = open(s).read()
    # more events than the first screen reads (load.c: 2048 at most): the last kept kernel, again
    last = text.rindex("- {kind: kernel")
    end = text.index("\n- ", last + 1) + 1 if "\n- " in text[last + 1:] else len(text)
    text = text[:last] + text[last:end] * 3000 + text[last:]
    s = os.path.join(tmp_path, "big.yaml")
    with open(s, "w") as f:
        f.write(text)
    whole = replay_screens(aotidbg, s, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "100000000"})
    streamed = replay_screens(aotidbg, s, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "0"})
    assert whole[0].returncode == streamed[0].returncode == 0, streamed[0].stderr
    assert whole[1] == streamed[1] and "kernels (30" in whole[1]["start"], whole[1]["start"]
    # cut in the middle of the last kernel event
    cut = os.path.join(tmp_path, "cut.yaml")
    last = text.rindex("- {kind: kernel")
    with open(cut, "w") as f:
        f.write(text[: last + 40])
    p, fr = replay_screens(aotidbg, cut, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "0"})
    assert p.returncode == 0, p.stderr
    assert "cut off after event" in p.stderr + fr["start"] or "cut-off" in fr["start"], (p.stderr, fr["start"])
    # a bad value in the last event: the events before it load, the error names where
    bad = os.path.join(tmp_path, "bad.yaml")
    i = text.index("duration_us:", last)
    with open(bad, "w") as f:
        f.write(text[:i] + "duration_us: [oops]" + text[text.index("\n", i):])
    line = text[:i].count("\n") + 1
    p, fr = replay_screens(aotidbg, bad, keys, tmp_path, env={"AOTIDBG_STREAM_BYTES": "0"})
    assert p.returncode == 2 and f"bad.yaml:{line}:" in p.stderr, p.stderr
