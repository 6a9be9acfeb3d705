"""A real OpenSSH server for the remote tests (test_remote.py) and the remote
benchmark (tests/bench/bench_remote.py): Debian's sshd on a free localhost port,
with a host key and a user key made for the run, started in the foreground and
killed at the end. Nothing is mocked: aotidbg runs the system's ssh client
(through $AOTIDBG_SSH, to pass the test key and known_hosts) against it.

What sshd needs here: its privilege separation folder (/run/sshd, made when we
are root), a host key, an authorized_keys file; StrictModes is off because the
test folder's modes are pytest's; PAM is off so a non-root user can run it for
themselves; root may log in with a key (CI runs as root).
"""
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def available():
    return os.path.exists(SSHD) and shutil.which("ssh") and shutil.which("ssh-keygen")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path, kind="ed25519"):
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "aotidbg-test", "-f", path], check=True)
    with open(path + ".pub") as f:
        return f.read().strip()


class Sshd:
    """sshd on 127.0.0.1:<free port>. `env()` gives the environment that points
    aotidbg's ssh at it (AOTIDBG_SSH); `target` is what --remote takes. With
    `also` (more loopback addresses, "127.0.0.2"), it listens there too, on the
    same port, known under each name: `targets` holds one target per address,
    two "hosts" of one box (test_ranks.py's --ranks over --remote)."""

    def __init__(self, folder, also=()):
        self.dir = folder
        os.makedirs(folder, exist_ok=True)
        self.port = free_port()
        self.user = getpass.getuser()
        self.addrs = ["127.0.0.1", *also]
        self.targets = [f"{self.user}@{a}:{self.port}" for a in self.addrs]
        self.target = self.targets[0]
        self.host_pub = keygen(os.path.join(folder, "host_key"))
        self.user_pub = keygen(os.path.join(folder, "id"))
        with open(os.path.join(folder, "authorized_keys"), "w") as f:
            f.write(self.user_pub + "\n")
        self.known_hosts = os.path.join(folder, "known_hosts")
        self.write_known_hosts(self.host_pub)
        self.config = os.path.join(folder, "sshd_config")
        with open(self.config, "w") as f:
            f.write(f"""Port {self.port}
{"".join(f"ListenAddress {a}{chr(10)}" for a in self.addrs)}HostKey {folder}/host_key
PidFile {folder}/sshd.pid
AuthorizedKeysFile {folder}/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PrintMotd no
LogLevel INFO
""")
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.log = open(os.path.join(folder, "sshd.log"), "w")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", self.config], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited with {self.proc.returncode}: {self.read_log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("sshd did not listen: " + self.read_log())

    def write_known_hosts(self, pub):
        kind, key = pub.split()[:2]
        with open(self.known_hosts, "w") as f:
            for a in self.addrs:
                f.write(f"[{a}]:{self.port} {kind} {key}\n")

    def ssh_command(self):
        return (f"ssh -F /dev/null -i {self.dir}/id -o IdentitiesOnly=yes -o UserKnownHostsFile={self.known_hosts} "
                f"-o StrictHostKeyChecking=yes -o BatchMode=yes -o LogLevel=ERROR")

    def env(self, base=None):
        e = dict(os.environ if base is None else base)
        e["AOTIDBG_SSH"] = self.ssh_command()
        return e

    def read_log(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def processes_named(fragment):
    """(pid, cmdline) of live processes whose command line holds fragment."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if fragment in cmd and state != "Z":
            out.append((int(pid), cmd))
    return out
