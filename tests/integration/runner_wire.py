"""The runner protocol (core/proto/protocol.h) packed with struct, independently of
core/proto/protocol.c, for tests that drive aotidbg-runner directly over its socket
(tests/integration/test_runner_proto.py, tests/gpu/runner_cuda_check.py).
Needs torch only for the dtype table.
"""
import os
import select
import socket
import struct
import subprocess
import time

import torch

# message types (core/proto/protocol.h)
HELLO, LOADED, KERNEL, TENSOR, STOPPED, ERROR, DONE, ALIAS = 1, 2, 3, 4, 5, 6, 7, 8
LOAD, INPUT, CONTROL, RUN, QUIT = 16, 17, 18, 19, 20
STEP, CONTINUE, RUN_TO_INDEX, RUN_TO_NAME = 0, 1, 2, 3
STOP_STEP, STOP_INDEX, STOP_NAME, STOP_NAN, STOP_ERROR, STOP_START, STOP_PAUSE = range(7)
BREAK_EACH, BREAK_ERROR, BREAK_NAN = 1, 2, 4
FILL = {"randn": 0, "zeros": 1, "ones": 2, "arange": 3, "full": 4, "file": 5}
KSTAT = {0: "pending", 1: "ok", 2: "nan", 3: "error"}
DTYPE_NAME = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
              torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
              torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}


def s_(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def frame(t, body=b""):
    return struct.pack("<IB", len(body) + 1, t) + body


def load_msg(so, cubin, device="cpu", flags=0, max_values=1 << 20):
    return frame(LOAD, s_(so) + s_(cubin) + s_(device) + struct.pack("<IQ", flags, max_values))


def input_msg(i, dtype, shape, fill="randn", seed=0, value=0.0, raw="", device="cpu"):
    return frame(INPUT, struct.pack("<I", i) + s_(dtype) + s_(device) + struct.pack("<I", len(shape))
                 + b"".join(struct.pack("<q", d) for d in shape)
                 + struct.pack("<BQd", FILL[fill], seed, value) + s_(raw))


def control_msg(cmd=CONTINUE, arg=-1, name="", flags=0):
    return frame(CONTROL, struct.pack("<Bq", cmd, arg) + s_(name) + struct.pack("<I", flags))


class Reader:
    def __init__(self, b):
        self.b, self.o = b, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.b, self.o)
        self.o += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def str(self):
        n = self.take("I")
        v = self.b[self.o:self.o + n].decode()
        self.o += n
        return v

    def dims(self):
        return [self.take("q") for _ in range(self.take("I"))]


def decode(t, body):
    r = Reader(body)
    m = {"type": t}
    if t == HELLO:
        m.update(version=r.take("I"), runner=r.str(), torch=r.str(), pid=r.take("q"), ncuda=r.take("q"),
                 gpu=r.str(), cc=r.str())
        m["gpu_peak_gbps"] = r.take("d") if r.o < len(body) else -1.0   # appended: the device's peak, -1 unknown
    elif t == LOADED:
        m.update(n_inputs=r.take("I"), n_outputs=r.take("I"))
        m["names"] = [r.str() for _ in range(r.take("I"))]
    elif t == KERNEL:
        m.update(index=r.take("q"), name=r.str(), phase=r.take("B"), status=KSTAT[r.take("B")],
                 t_us=r.take("d"), duration_us=r.take("d"))
        m["source"] = r.str() if r.o < len(body) else ""
        m["branch"] = r.str() if r.o < len(body) else ""
        m["device_us"] = r.take("d") if r.o < len(body) else -1.0
        m["device_note"] = r.str() if r.o < len(body) else ""
        m["flags"] = r.take("I") if r.o < len(body) else 0   # appended: 1 STATS_ONLY (LOAD flag ROUND_STATS)
    elif t == TENSOR:
        m.update(kernel=r.take("q"), phase=r.take("B"), name=r.str(), dtype=r.str(), device=r.str(),
                 shape=r.dims(), strides=r.dims())
        if r.take("B"):
            keys = ["numel", "finite", "nan", "posinf", "neginf", "zeros", "subnormal"]
            st = dict(zip(keys, r.take("7Q")))
            st.update(zip(["min", "max", "mean", "std"], r.take("4d")))
            m["stats"] = st
        m["values"] = [r.take("d") for _ in range(r.take("I"))]
        m["complete"] = r.take("B")
        if "stats" in m and r.o < len(body):   # appended: first min, max, NaN/Inf (flat, -1 none)
            m["stats"].update(zip(["min_at", "max_at", "nonfinite_at"], r.take("3q")))
        if r.o < len(body):   # appended later still (LOAD flag ALLOC): data pointer, storage base and bytes
            m["alloc"] = dict(zip(["data", "base", "bytes"], r.take("3Q")))
    elif t == STOPPED:
        m.update(kernel=r.take("q"), phase=r.take("B"), reason=r.take("B"))
    elif t == ERROR:
        m.update(kernel=r.take("q"), text=r.str())
    elif t == DONE:
        m.update(status=r.take("q"))
    elif t == ALIAS:
        m.update(output=r.take("I"), of=r.str())
    else:
        raise AssertionError(f"runner sent unknown type {t}")
    assert r.o == len(body), f"type {t}: {len(body) - r.o} trailing bytes"
    return m


class Runner:
    """One aotidbg-runner process with our end of its socketpair."""

    def __init__(self, path, env=None):
        ours, theirs = socket.socketpair()
        fd = theirs.fileno()

        def child():
            os.dup2(fd, 3)
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.p = subprocess.Popen([path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(3,),
                                  preexec_fn=child, env=full_env)
        theirs.close()
        self.sock, self.buf, self.msgs = ours, b"", []

    def send(self, *frames):
        self.sock.sendall(b"".join(frames))

    def recv(self, timeout=60):
        deadline = time.time() + timeout
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack_from("<I", self.buf)[0]
                if len(self.buf) >= 4 + n:
                    t, body = self.buf[4], self.buf[5:4 + n]
                    self.buf = self.buf[4 + n:]
                    m = decode(t, body)
                    self.msgs.append(m)
                    return m
            left = deadline - time.time()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise AssertionError(f"runner silent for {timeout}s; got {self.msgs[-3:]}")
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                return None
            self.buf += chunk

    def until(self, *types, timeout=60):
        """Messages up to and including the first of the given types."""
        got = []
        while True:
            m = self.recv(timeout)
            assert m is not None, f"runner closed the socket; stderr: {self.finish()[1]}"
            got.append(m)
            if m["type"] in types:
                return got

    def finish(self, timeout=60):
        self.sock.close()
        out, err = self.p.communicate(timeout=timeout)
        return self.p.returncode, err.decode(errors="replace")


def constant_msg(fqn, path, offset, shape, strides, storage_offset=0, dtype=""):
    CONSTANT = 21
    return frame(CONSTANT, s_(fqn) + s_(path) + struct.pack("<Q", offset) + s_(dtype)
                 + struct.pack("<I", len(shape)) + b"".join(struct.pack("<q", d) for d in shape)
                 + struct.pack("<I", len(strides)) + b"".join(struct.pack("<q", d) for d in strides)
                 + struct.pack("<q", storage_offset))
