"""Black-box tests of the full-screen UI inside tmux: start `aotidbg replay` on a
session file in a detached tmux pane under several TERM values and NO_COLOR,
send keys, capture the pane, resize the window, quit with q and check that the
shell is back with the terminal restored (echo and canonical mode on).

The session file is written here in the session schema (DESIGN §9); its tensor
values and statistics are computed with torch (relu, then log of a shifted
tensor, which makes NaN), so the screen shows numbers that came from a real
computation. Also runs the headless renderer on the same file.
"""
import os
import re
import shutil
import signal
import subprocess
import time
import uuid

import pytest

from aotidbg_testlib import frames as _frames
from conftest import run

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _stats(t):
    import torch
    f = t.double()
    fin = f[torch.isfinite(f)]
    n = fin.numel()
    return {
        "numel": f.numel(), "finite": n,
        "min": float(fin.min()) if n else float("nan"), "max": float(fin.max()) if n else float("nan"),
        "mean": float(fin.mean()) if n else float("nan"),
        "std": float(fin.std()) if n > 1 else float("nan"),
        "nan": int(torch.isnan(f).sum()), "posinf": int((f == float("inf")).sum()),
        "neginf": int((f == float("-inf")).sum()), "zeros": int((f == 0).sum()), "subnormal": 0,
    }


def _num(v):
    if v != v:
        return ".nan"
    if v in (float("inf"), float("-inf")):
        return ".inf" if v > 0 else "-.inf"
    return repr(float(v))


def _tensor(name, phase, t):
    st = _stats(t)
    stats = ", ".join(f"{k}: {_num(v) if isinstance(v, float) else v}" for k, v in st.items())
    vals = ", ".join(_num(float(v)) for v in t.flatten().tolist())
    shape = ", ".join(str(d) for d in t.shape)
    strides = ", ".join(str(d) for d in t.stride())
    return (f"{{name: {name}, phase: {phase}, shape: [{shape}], strides: [{strides}], dtype: float32, "
            f"device: cpu, stats: {{{stats}}}, values: [{vals}], values_complete: true}}")


def write_session(path, extra_kernels=40, narration=None):
    import torch
    torch.manual_seed(0)
    x = torch.randn(4, 6)
    k0 = torch.relu(x)
    k1 = k0 * 0.5 - 0.25
    k2 = torch.log(k1)
    steps = [("cpp_fused_relu_0", "cpp", x, k0), ("aoti_torch_cpu_addmm_out", "extern", k0, k1),
             ("cpp_fused_log_1", "cpp", k1, k2)]
    lines = ['format_version: "1.0"', 'tool_version: "0.1.0"', "package:", '  path: "mlp_ln.pt2"',
             "  model: model", "  device_key: cpu", "device: cpu", "end_state: complete"]
    if narration:
        lines.append('title: "NaN hunt"')
        lines.append("narration:")
        for step in narration:
            lines.append("  - {" + ", ".join(f"{k}: {v!r}" if isinstance(v, int) else f'{k}: "{v}"'
                                              for k, v in step.items()) + "}")
    lines.append("events:")
    for i, (name, typ, before, after) in enumerate(steps):
        status = "nan" if not torch.isfinite(after).all() else "ok"
        lines.append(f"- {{kind: kernel, index: {i}, name: {name}, type: {typ}, status: {status}, "
                     f"duration_us: {10.5 * (i + 1)}, tensors: [{_tensor('buf0', 'before', before)}, "
                     f"{_tensor('buf0', 'after', after)}]}}")
    lines.append('- {kind: error, text: "Exception in aoti_torch: At least one NaN in buf0", route: nan-inf, '
                 'kernel: 2, fields: {buffer: buf0}}')
    for j in range(extra_kernels):
        lines.append(f"- {{kind: kernel, index: {3 + j}, name: triton_poi_fused_add_{j}, type: triton, "
                     f"status: ok, duration_us: {float(j)}, tensors: []}}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def session_file(tmp_path_factory):
    return write_session(str(tmp_path_factory.mktemp("tui") / "nan_hunt.yaml"))


class Tmux:
    def __init__(self, w=100, h=30):
        self.sock = "aotidbg-test-" + uuid.uuid4().hex[:8]
        self.base = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        subprocess.run(self.base + ["new-session", "-d", "-s", "t", "-x", str(w), "-y", str(h),
                                    "env -i PATH=/usr/bin:/bin HOME=/tmp PS1='$ ' sh"], check=True)
        subprocess.run(self.base + ["set-option", "-g", "window-size", "manual"], check=False)

    def send(self, *keys, literal=False):
        subprocess.run(self.base + ["send-keys", "-t", "t"] + (["-l"] if literal else []) + list(keys), check=True)

    def capture(self):
        return subprocess.run(self.base + ["capture-pane", "-p", "-t", "t"], capture_output=True,
                              text=True, check=True).stdout

    def wait_for(self, text, timeout=20.0):
        """Waits until every text (a string or a list) is on screen at once: a
        capture can land mid-frame, so callers name parts from several rows."""
        texts = [text] if isinstance(text, str) else list(text)
        end = time.time() + timeout
        while time.time() < end:
            screen = self.capture()
            if all(t in screen for t in texts):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{texts!r} never appeared; screen:\n{self.capture()}")

    def resize(self, w, h):
        subprocess.run(self.base + ["resize-window", "-t", "t", "-x", str(w), "-y", str(h)], check=True)

    def signal_child(self, sig):
        """Sends sig to the program the pane's shell is running (by pid)."""
        shell = subprocess.run(self.base + ["list-panes", "-t", "t", "-F", "#{pane_pid}"], capture_output=True,
                               text=True, check=True).stdout.split()[0]
        kids = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
        assert len(kids) == 1, kids
        os.kill(int(kids[0]), sig)

    def capture_escapes(self):
        return subprocess.run(self.base + ["capture-pane", "-e", "-p", "-t", "t"], capture_output=True,
                              text=True, check=True).stdout

    def close(self):
        subprocess.run(self.base + ["kill-server"], check=False, capture_output=True)


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.close()


def _check_tty(tmux):
    """echo and icanon are both on again (2 matching words), as before the UI ran."""
    tmux.send("clear; echo TTY-$(stty -a | tr ' ;' '\\n\\n' | grep -c -x -e echo -e icanon)", "Enter")
    tmux.wait_for("TTY-2", timeout=5)


def _start(tmux, aotidbg, session_file, env):
    tmux.send(f"{env} LANG=C.UTF-8 {aotidbg} replay {session_file}; echo AOTIDBG-EXIT-$?", "Enter")
    return tmux.wait_for(["kernels (43)", "error router (1)", "REPLAY"])


@pytest.mark.parametrize("term", ["xterm", "screen-256color", "vt100"])
def test_replay_keys_resize_quit(tmux, aotidbg, session_file, term):
    screen = _start(tmux, aotidbg, session_file, f"TERM={term}")
    assert "error router (1)" in screen and "nan-inf" in screen
    tmux.send("3")               # kernel list
    tmux.send("a")               # next anomaly: the log kernel made NaN
    tmux.wait_for(["inspector: #2 cpp_fused_log_1", "NaN", "REPLAY"])
    tmux.send("G")               # last kernel
    tmux.wait_for("inspector: #42 triton_poi_fused_add_39")
    tmux.send("/")
    tmux.send("relu", literal=True)
    tmux.send("Enter")
    tmux.wait_for("inspector: #0 cpp_fused_relu_0")
    tmux.send("?")
    tmux.wait_for("help: keys and actions")
    tmux.send("q")               # q leaves help first
    tmux.wait_for("kernels (43)")
    tmux.resize(60, 20)          # compact layout: one pane and a tab row
    tmux.wait_for("1 router 2 checklist 3 kernels")
    tmux.resize(30, 8)
    tmux.wait_for("too small")
    tmux.send("q")               # still quits
    screen = tmux.wait_for("AOTIDBG-EXIT-0")
    # the terminal is restored: echo and canonical mode are back
    _check_tty(tmux)
    assert "kernels (43)" not in tmux.capture().split("AOTIDBG-EXIT-0")[-1]


COLOR_SGR = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+|9[0-7])(;[0-9;]*)?m")


def test_colors_on_256color_terminal(tmux, aotidbg, session_file):
    _start(tmux, aotidbg, session_file, "TERM=xterm-256color")
    assert COLOR_SGR.search(tmux.capture_escapes())
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0")


def test_no_color_and_zoom(tmux, aotidbg, session_file):
    _start(tmux, aotidbg, session_file, "TERM=xterm-256color NO_COLOR=1")
    esc = tmux.capture_escapes()
    assert not COLOR_SGR.search(esc), esc[:2000]
    assert "\x1b[7m" in esc or ";7m" in esc      # the selection and status bar in reverse video
    tmux.send("1")
    tmux.send("z")
    screen = tmux.wait_for(["Exception in aoti_torch: At least one NaN in buf0", "REPLAY"])
    assert "2 checklist (" not in screen      # zoomed: only the router
    assert "goto-element [i]" in screen and "break-nan [!]" in screen   # its next steps, each with its key
    tmux.send("z")
    tmux.wait_for("2 checklist (")
    tmux.send(":")
    tmux.send("goto 5", literal=True)
    tmux.send("Enter")
    tmux.wait_for("inspector: #5 triton_poi_fused_add_2")
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0")


def test_ascii_locale_suspend_and_ctrl_c(tmux, aotidbg, session_file):
    # a non-UTF-8 locale gets ASCII line drawing
    tmux.send(f"TERM=vt100 LANG=C LC_ALL=C {aotidbg} replay {session_file}", "Enter")
    screen = tmux.wait_for(["+- 3 kernels (43) --", "REPLAY"])
    assert "\u2500" not in screen
    # ^C outside a live run does not kill the UI
    tmux.send("C-c")
    tmux.wait_for("q quits")
    # ^Z gives the shell back with the terminal restored; fg redraws
    tmux.send("C-z")
    tmux.wait_for("Stopped")
    _check_tty(tmux)
    tmux.send("fg", "Enter")
    tmux.wait_for(["+- 3 kernels (43) --", "REPLAY"])
    tmux.send("q")
    tmux.send("echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for("AOTIDBG-EXIT-0")


def test_unknown_term_gives_advice(tmux, aotidbg, session_file):
    tmux.send(f"TERM=no-such-terminal {aotidbg} replay {session_file}; echo AOTIDBG-EXIT-$?", "Enter")
    screen = tmux.wait_for("AOTIDBG-EXIT-2")
    assert "TERM=xterm-256color" in screen and "ncurses-term" in screen


def test_sigterm_restores_terminal(tmux, aotidbg, session_file):
    _start(tmux, aotidbg, session_file, "TERM=xterm")
    tmux.signal_child(signal.SIGTERM)
    tmux.wait_for("AOTIDBG-EXIT-1")
    _check_tty(tmux)


def test_headless_script(aotidbg, session_file, tmp_path):
    script = tmp_path / "walk.txt"
    script.write_text("# comments and blank lines are skipped\npane-kernels\n\nnext-anomaly\nview diff\n")
    r = run([aotidbg, "replay", session_file, "--headless", "80x24", "--script", str(script), "--dump-screen"])
    assert r.returncode == 0, r.stderr
    assert "inspector: #2 cpp_fused_log_1 [diff]" in r.stdout
    assert "changed" in r.stdout
    r = run([aotidbg, "replay", session_file, "--headless", "80x24", "--keys", "no-such-action"])
    assert r.returncode == 1 and "unknown action or key" in r.stderr
    r = run([aotidbg, "replay", session_file, "--headless", "80"])
    assert r.returncode == 2


# ---- live mode on a real CPU package -----------------------------------------

MLP_INPUTS = """inputs:
  - {shape: [6, 16], dtype: float32, device: cpu, fill: randn, seed: 0}
  - {shape: [3], dtype: int64, device: cpu, fill: arange}
"""


@pytest.fixture(scope="module")
def live_setup(aotidbg, package, tmp_path_factory):
    """The mlp_ln package, an inputs spec, and its kernel names in launch order
    as `aotidbg run` recorded them (an independent path through the runner)."""
    import re
    d = tmp_path_factory.mktemp("live")
    spec = d / "inputs.yaml"
    spec.write_text(MLP_INPUTS)
    pkg = package("mlp_ln")
    rec = d / "ref.yaml"
    r = run([aotidbg, "run", pkg, "--inputs", str(spec), "--record", str(rec)])
    assert r.returncode == 0, r.stderr
    names = re.findall(r"kind: kernel, [^\n]*?name: \"?([A-Za-z0-9_]+)", rec.read_text())
    assert len(names) >= 3
    return pkg, str(spec), names, d


@pytest.mark.slow
def test_live_headless_step_continue_restart(aotidbg, live_setup):
    pkg, spec, names, d = live_setup
    rec = d / "live.yaml"
    r = run([aotidbg, pkg, "--inputs", spec, "--record", str(rec), "--headless", "100x30",
             "--keys", "s s s c r s"], cwd=str(d))
    assert r.returncode == 0, r.stderr
    frames = _frames(r.stdout)
    assert [f[0] for f in frames] == ["start", "s", "s", "s", "c", "r", "s"]
    for i in range(3):   # each step stops at the next kernel, in launch order
        screen = frames[1 + i][1]
        assert f"inspector: #{i} {names[i]}" in screen, screen
        assert "| stopped |" in screen
    last = frames[4][1]
    assert "| finished |" in last and f"k {len(names) - 1}/{len(names)}" in last
    assert f"inspector: #0 {names[0]}" in frames[6][1]      # restart: from the first kernel again
    assert rec.exists() and "kind: kernel" in rec.read_text()


@pytest.mark.slow
def test_live_tmux(tmux, aotidbg, live_setup):
    pkg, spec, names, d = live_setup
    rec = d / "live_tmux.yaml"
    tmux.send(f"cd {d}; TERM=xterm LANG=C.UTF-8 {aotidbg} {pkg} --inputs {spec} --record {rec}; "
              "echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for("| stopped", timeout=60)
    for i in range(3):
        tmux.send("s")
        tmux.wait_for(f"inspector: #{i} {names[i]}", timeout=60)
    tmux.send("c")
    tmux.wait_for("| finished", timeout=60)
    tmux.send("r")
    tmux.wait_for("restarted", timeout=60)
    tmux.send("s")
    tmux.wait_for(f"inspector: #0 {names[0]}", timeout=60)
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)
    assert rec.exists()
    _check_tty(tmux)


@pytest.mark.slow
def test_live_sighup_saves_session(tmux, aotidbg, live_setup):
    """The terminal goes away mid-run: the recording is finished, the runner
    reaped, and the exit is an exit code, not a death by signal."""
    pkg, spec, names, d = live_setup
    rec = d / "live_hup.yaml"
    tmux.send(f"cd {d}; TERM=xterm {aotidbg} {pkg} --inputs {spec} --record {rec}; echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for("| stopped", timeout=60)
    tmux.send("s")
    tmux.send("s")
    tmux.wait_for(f"inspector: #1 {names[1]}", timeout=60)
    tmux.signal_child(signal.SIGHUP)
    tmux.wait_for("AOTIDBG-EXIT-1", timeout=30)
    text = rec.read_text()
    assert f"name: {names[0]}" in text or f'name: "{names[0]}"' in text
    assert 'end_state: "interrupted (SIGHUP)"' in text   # the session says how the run ended
    _check_tty(tmux)


# ---- tutorials -----------------------------------------------------------------

NARRATION = [
    {"text": "The router names the route for this error. Press Enter.", "pane": "router", "event": 3},
    {"text": "Go to the kernel list and jump to the first anomaly.", "pane": "kernels", "action": "next-anomaly"},
    {"text": "The log kernel made the NaN: its input had negatives.", "pane": "inspector", "event": 2},
]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A data dir like an install: routes.yaml and two walkthroughs, one of
    them without narration (so not listed)."""
    d = tmp_path_factory.mktemp("data")
    os.symlink(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "core", "router", "routes.yaml"), d / "routes.yaml")
    (d / "sessions" / "tutorials").mkdir(parents=True)
    write_session(str(d / "sessions" / "tutorials" / "nan-hunt.yaml"), extra_kernels=5, narration=NARRATION)
    write_session(str(d / "sessions" / "tutorials" / "plain.yaml"), extra_kernels=1)
    return str(d)


def test_tutorial_list_and_headless_walkthrough(aotidbg, data_dir):
    env = dict(os.environ, AOTIDBG_DATA_DIR=data_dir)
    r = run([aotidbg, "tutorial", "--list"], env=env)
    assert r.returncode == 0, r.stderr
    assert "nan-hunt" in r.stdout and "NaN hunt (3 steps)" in r.stdout and "plain" not in r.stdout
    # the menu (no NAME), Enter opens the first walkthrough; then its steps
    r = run([aotidbg, "tutorial", "--headless", "80x24", "--keys",
             "Enter next-step next-step a next-step"], env=env)
    assert r.returncode == 0, r.stderr
    frames = _frames(r.stdout)
    assert "guided walkthroughs" in frames[0][1] and "nan-hunt" in frames[0][1]
    labels = [f[0] for f in frames]
    assert labels[:2] == ["menu", "start"]
    by = dict(frames[1:])
    assert "step 1/3" in by["start"] and "The router names the route" in by["start"]
    assert "step 2/3" in frames[2][1]
    # step 2 waits for next-anomaly: Enter does not move on, the action does
    assert "step 2/3" in frames[3][1] and "waits for you" in frames[3][1]
    assert "step 3/3" in frames[4][1] and "inspector: #2 cpp_fused_log_1" in frames[4][1]


def test_tutorial_menu_tmux(tmux, aotidbg, data_dir):
    tmux.send(f"TERM=xterm LANG=C.UTF-8 AOTIDBG_DATA_DIR={data_dir} {aotidbg} tutorial; echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for(["guided walkthroughs", "nan-hunt", "TUTORIAL"])
    tmux.send("Enter")
    tmux.wait_for(["step 1/3", "The router names the route", "TUTORIAL"])
    tmux.send("Enter")
    tmux.wait_for("do: next-anomaly (key a)")
    tmux.send("a")
    tmux.wait_for(["step 3/3", "inspector: #2 cpp_fused_log_1"])
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0")
    _check_tty(tmux)


@pytest.mark.slow
def test_demo_compile_progress_tmux(tmux, aotidbg, tmp_path):
    """The menu's live entry on a fresh cache: the compile runs in a child while
    the screen shows a spinner and the elapsed seconds (it keeps changing: the
    UI is not frozen), then live mode starts on the compiled demo."""
    py = shutil.which("python3")
    tmux.send(f"cd {tmp_path} && TERM=xterm LANG=C.UTF-8 XDG_CACHE_HOME={tmp_path}/cache AOTIDBG_PYTHON={py} "
              f"{aotidbg} tutorial; echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for(["guided walkthroughs", "live-demo", "compiled on first use"])
    tmux.send("G")
    tmux.send("Enter")
    first = tmux.wait_for(["preparing the demo model", "compiling the bundled CPU model"], timeout=30)
    secs = re.search(r"AOTInductor: (\d+) s", first)
    assert secs, first
    later = tmux.wait_for(f"AOTInductor: {int(secs.group(1)) + 2} s", timeout=30)
    assert "q cancels" in later
    tmux.wait_for(["LIVE", "demo.pt2"], timeout=180)
    tmux.send("s")
    tmux.wait_for(["inspector: #0 ", "| stopped |"], timeout=60)
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)
    _check_tty(tmux)


def test_demo_compile_cancel_tmux(tmux, aotidbg, tmp_path):
    py = shutil.which("python3")
    tmux.send(f"cd {tmp_path} && TERM=xterm LANG=C.UTF-8 XDG_CACHE_HOME={tmp_path}/cache AOTIDBG_PYTHON={py} "
              f"{aotidbg} tutorial live-demo; echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for(["preparing the demo model", "q cancels"], timeout=30)
    tmux.send("q")
    screen = tmux.wait_for("AOTIDBG-EXIT-1", timeout=30)
    assert "the demo build was cancelled" in screen
    assert not (tmp_path / "cache" / "aotidbg" / "demo" / "demo.pt2").exists()
    _check_tty(tmux)


@pytest.mark.slow
@pytest.mark.slow
def test_live_ctrl_c_pauses_the_run_tmux(tmux, aotidbg, package, tmp_path):
    """^C while the model runs: it stops at the next kernel start (the runner
    lives on, c goes on to the end); a second ^C before that stop would end it."""
    pkg = package("runner_slow")
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [1024, 1024], dtype: float32, device: cpu, fill: randn, seed: 0}\n")
    tmux.send(f"cd {tmp_path} && TERM=xterm LANG=C.UTF-8 {aotidbg} {pkg} --inputs {spec} --record r.yaml; "
              "echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for("| stopped", timeout=60)
    tmux.send("c")
    tmux.wait_for("| running", timeout=60)   # not sooner: the tty drops typed-ahead keys on ^C
    tmux.send("C-c")
    screen = tmux.wait_for("paused before kernel #", timeout=60)
    m = re.search(r"paused before kernel #(\d+)", screen)
    assert 0 < int(m.group(1)) < 159, screen         # mid-run, not at the end
    assert "| stopped" in screen
    tmux.send("c")
    tmux.wait_for("| finished", timeout=120)
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)
    rec = (tmp_path / "r.yaml").read_text()
    assert len(re.findall(r"kind: kernel", rec)) >= 160   # the paused run went on to the end


def test_live_hunt_nan_pressed_while_loading_tmux(tmux, aotidbg, package, tmp_path):
    """F (hunt-nan) pressed before the runner has loaded the model: the hunt
    starts at the first stop and ends at the log kernel, not at kernel 0."""
    pkg = package("runner_nan")
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [4, 8], dtype: float32, device: cpu, fill: randn, seed: 0}\n")
    tmux.send(f"cd {tmp_path} && TERM=xterm LANG=C.UTF-8 {aotidbg} {pkg} --inputs {spec} --record r.yaml; "
              "echo AOTIDBG-EXIT-$?", "Enter")
    tmux.send("F")
    screen = tmux.wait_for("hunt-nan report", timeout=60)
    assert re.search(r"hunt-nan: kernel #\d+ cpp_fused_log", screen), screen
    tmux.send("q")
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)


@pytest.mark.slow
def test_live_repro_keeps_the_ui_and_esc_cancels_tmux(tmux, aotidbg, package, tmp_path):
    """The live `repro` action runs the package again to the selected launch in the UI loop: the
    message line counts its launches, other keys still work while it runs (goto moves the
    inspector), and Esc cancels it: its runner ends, its folder keeps only session.yaml, and the
    live run is untouched (q exits 0)."""
    pkg = package("runner_slow")   # 160 launches on 1024x1024 tensors: seconds to run to the last
    spec = tmp_path / "in.yaml"
    spec.write_text("inputs:\n  - {shape: [1024, 1024], dtype: float32, device: cpu, fill: randn, seed: 0}\n")
    tmux.send(f"cd {tmp_path} && TERM=xterm LANG=C.UTF-8 {aotidbg} {pkg} --inputs {spec} --record r.yaml; "
              "echo AOTIDBG-EXIT-$?", "Enter")
    tmux.wait_for("| stopped", timeout=60)
    tmux.send("c")
    tmux.wait_for("| finished", timeout=180)
    n = len(re.findall(r"kind: kernel", (tmp_path / "r.yaml").read_text()))
    last = n - 1
    tmux.send(":")
    tmux.send(f"goto {last}", literal=True)
    tmux.send("Enter")
    tmux.wait_for(f"inspector: #{last} ", timeout=30)
    tmux.send(":")
    tmux.send("repro rk", literal=True)
    tmux.send("Enter")
    tmux.wait_for(f"repro of kernel {last}", timeout=30)
    tmux.wait_for("launches so far (Esc or ^C cancels)", timeout=60)
    tmux.send(":")
    tmux.send("goto 3", literal=True)   # read and acted on while the repro runs
    tmux.send("Enter")
    screen = tmux.wait_for("inspector: #3 ", timeout=30)
    assert "written to" not in screen, screen   # still running: the test needs the slow model
    tmux.send("Escape")
    screen = tmux.wait_for(f"repro of kernel {last} cancelled", timeout=30)
    assert "| finished" in screen   # the live run is as it was
    assert sorted(p.name for p in (tmp_path / "rk").iterdir()) == ["session.yaml"]
    assert "end_state: killed" in (tmp_path / "rk" / "session.yaml").read_text()
    # ^C cancels it too (the live run is not running: nothing else to interrupt)
    tmux.send(":")
    tmux.send(f"goto {last}", literal=True)
    tmux.send("Enter")
    tmux.wait_for(f"inspector: #{last} ", timeout=30)
    tmux.send(":")
    tmux.send("repro rk2", literal=True)
    tmux.send("Enter")
    tmux.wait_for("launches so far (Esc or ^C cancels)", timeout=60)
    tmux.send("C-c")
    screen = tmux.wait_for(f"repro of kernel {last} cancelled", timeout=30)
    assert "| finished" in screen
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)
    _check_tty(tmux)


def test_big_session_shows_at_once_and_loads_on_screen_tmux(tmux, aotidbg, tmp_path):
    """A replay of a ~100 MB session draws its first screen while the rest is
    still being read: the status bar says how far the load is, keys work
    meanwhile, and the whole session is there once it is done (tui/load.h)."""
    big = write_session(str(tmp_path / "big.yaml"), extra_kernels=1000000)
    assert os.path.getsize(big) > 8 << 20   # over AOTIDBG_STREAM_BYTES' default
    t0 = time.time()
    tmux.send(f"TERM=xterm-256color LANG=C.UTF-8 {aotidbg} replay {big}; echo AOTIDBG-EXIT-$?", "Enter")
    screen = tmux.wait_for(["REPLAY", "loading", "% of"], timeout=30)
    first = time.time() - t0
    assert "error router (1)" in screen, screen
    tmux.send("3")               # the kernel list, while the rest loads
    tmux.send("j")
    tmux.wait_for("inspector: #1 aoti_torch_cpu_addmm_out", timeout=30)
    tmux.wait_for(["kernels (1000003)", "complete"], timeout=120)
    tmux.send("G")
    tmux.wait_for("inspector: #1000002 triton_poi_fused_add_999999", timeout=30)
    tmux.send("q")
    tmux.wait_for("AOTIDBG-EXIT-0", timeout=30)
    print(f"first screen of {os.path.getsize(big) / 1e6:.0f} MB after {first:.2f} s (tmux polls every 0.1 s)")


def test_replay_fold_opens_with_enter_tmux(aotidbg, package, tmp_path):
    """A real while_loop session (ctl_while, 6 rounds: rounds 1..4 folded) on
    a terminal: the fold is a line of the kernel list, Enter opens it, the
    inspector shows a folded kernel's ranges, Enter closes it again."""
    import torch
    from aotidbg_testlib import write_spec
    spec = write_spec(tmp_path, (torch.tensor(6), torch.randn(2, 8)))
    s = str(tmp_path / "s.yaml")
    p = run([aotidbg, "run", package("ctl_while"), "--inputs", spec, "--record", s])
    assert p.returncode == 0, p.stderr
    t = Tmux(w=160, h=40)
    try:
        t.send(f"TERM=xterm-256color LANG=C.UTF-8 {aotidbg} replay {s}; echo AOTIDBG-EXIT-$?", "Enter")
        t.wait_for(["[+] iterations 1..4 of while_loop_0 folded", "@0", "@5", "REPLAY"])
        t.send("3")
        t.send("j")
        t.send("j")                  # the fold's line: the inspector sums it up
        t.wait_for("inspector: while_loop_0 iterations 1..4, folded")
        t.send("Enter")
        screen = t.wait_for(["[-] iterations 1..4 of while_loop_0 folded", "(sum "])
        t.send("j")                  # its first kernel: that kernel's ranges alone
        screen = t.wait_for(["x4  ", "counted, not kept"])
        t.send("k")
        t.send("Enter")
        t.wait_for("[+] iterations 1..4 of while_loop_0 folded")
        t.send("q")
        t.wait_for("AOTIDBG-EXIT-0", timeout=30)
    finally:
        t.close()
