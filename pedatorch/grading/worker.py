"""The student's side: runs cells of a notebook and answers the grader's questions with plain data.

This module runs inside the sandbox (sandbox.py locks the process in first). It executes the code cells the
grader sends, in one namespace, as a kernel would; output goes to a capped buffer (a cell that prints 100 MB
costs nothing). The grader then asks for names, calls, attributes and gradients; everything that is not plain
data stays here and is named by a handle. Nothing here is trusted by the grader: the student's code can
change any of it, and all it can gain is to send other data, which the grader checks like any answer.
"""
import builtins
import io
import linecache
import os
import sys
import traceback

from . import wire

MAX_OUTPUT = 64 * 1024   # characters of a cell's output kept for the feedback


class _CappedText(io.TextIOBase):
    """A stdout/stderr that keeps the first MAX_OUTPUT characters and counts the rest."""

    def __init__(self):
        self.parts, self.kept, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = MAX_OUTPUT - self.kept
        if room > 0:
            self.parts.append(s[:room])
            self.kept += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def text(self):
        out = "".join(self.parts)
        return out + (f"\n[... {self.dropped} more characters of output]" if self.dropped else "")


def strip_magics(source):
    """IPython's `%magic` and `!shell` lines do nothing here (there is no IPython and no shell)."""
    return "\n".join("pass  # " + line if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


class Worker:
    def __init__(self):
        self.ns = {"__name__": "__main__", "__builtins__": builtins, "display": lambda *a, **k: None}
        self.handles, self.by_id, self.tapes = {}, {}, {}

    def handle_of(self, obj):
        key = id(obj)
        if key not in self.by_id:
            self.by_id[key] = len(self.handles)
            self.handles[len(self.handles)] = obj
        return self.by_id[key]

    def obj(self, h):
        if h not in self.handles:
            raise KeyError(f"no object with handle {h}")
        return self.handles[h]

    def value(self, x, buffers):
        return wire.encode(x, buffers, self.handle_of)

    def args(self, msg, buffers):
        decode = lambda node: wire.decode(node, buffers, lambda h: self.obj(h["handle"]))  # noqa: E731
        return [decode(a) for a in msg.get("args", [])], {k: decode(v) for k, v in msg.get("kwargs", {}).items()}

    # ------------------------------------------------------------------ requests
    def do_exec(self, msg, buffers):
        out = _CappedText()
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        try:
            source, name = strip_magics(msg["source"]), f"<cell {msg.get('cell', '?')}>"
            # registered as IPython does, so that inspect.getsource works on what a cell defines
            # (jit.script reads a function's source; tracebacks show the line)
            linecache.cache[name] = (len(source), None, source.splitlines(True), name)
            code = compile(source, name, "exec")
            exec(code, self.ns)
            return {"ok": True, "output": out.text()}, []
        except BaseException as e:   # SystemExit and KeyboardInterrupt too: a cell's end, not the process's
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__.tb_next))
            return {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000], "traceback": tb[-4000:],
                    "output": out.text()}, []
        finally:
            sys.stdout, sys.stderr = old

    def do_names(self, msg, buffers):
        """The values of names of the namespace: plain data, a handle, a module's name, or missing."""
        import types
        found, out_buffers = {}, []
        for name in msg["names"]:
            if name not in self.ns:
                continue
            v = self.ns[name]
            found[name] = {"module": v.__name__} if isinstance(v, types.ModuleType) else self.value(v, out_buffers)
        return {"ok": True, "values": found}, out_buffers

    def do_call(self, msg, buffers):
        fn = self.obj(msg["handle"])
        args, kwargs = self.args(msg, buffers)
        out_buffers = []
        if not msg.get("grad"):
            return {"ok": True, "value": self.value(fn(*args, **kwargs), out_buffers)}, out_buffers
        # a call the grader differentiates through: keep inputs and outputs for the backward request
        from ..autograd import grad_mode
        with grad_mode.enable_grad():
            result = fn(*args, **kwargs)
        tape = len(self.tapes)
        inputs = [a for a in list(args) + list(kwargs.values()) if _requires_grad(a)]
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        self.tapes[tape] = (inputs, outputs)
        return {"ok": True, "value": self.value(result, out_buffers), "tape": tape}, out_buffers

    def do_backward(self, msg, buffers):
        from .. import autograd
        inputs, outputs = self.tapes[msg["tape"]]
        grads = wire.decode(msg["grads"], buffers, None)
        pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None and _requires_grad(o)]
        # the graph is kept: gradcheck asks for one vector-Jacobian product per output element
        result = autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                               allow_unused=True) if pairs else [None] * len(inputs)
        out_buffers = []
        return {"ok": True, "value": self.value(list(result), out_buffers)}, out_buffers

    def do_getattr(self, msg, buffers):
        out_buffers = []
        return {"ok": True, "value": self.value(getattr(self.obj(msg["handle"]), msg["name"]), out_buffers)}, \
            out_buffers

    def do_getitem(self, msg, buffers):
        key = wire.decode(msg["key"], buffers, lambda h: self.obj(h["handle"]))
        out_buffers = []
        return {"ok": True, "value": self.value(self.obj(msg["handle"])[key], out_buffers)}, out_buffers

    def do_list(self, msg, buffers):
        """iter()/len() of an object: its items, sent as a list."""
        out_buffers = []
        return {"ok": True, "value": self.value(list(self.obj(msg["handle"])), out_buffers)}, out_buffers

    def do_repr(self, msg, buffers):
        return {"ok": True, "value": repr(self.obj(msg["handle"]))[:1000]}, []


def _requires_grad(x):
    return getattr(x, "requires_grad", False) is True


def serve(fd_in, fd_out):
    """Answer requests until the grader says bye or goes away."""
    fin, fout = os.fdopen(fd_in, "rb"), os.fdopen(fd_out, "wb")
    sys.stdout = sys.stderr = _CappedText()     # nothing of the student's reaches a real file descriptor
    worker, me = Worker(), os.getpid()
    wire.send(fout, {"ok": True, "ready": True, "sandbox": os.environ.get("PEDATORCH_SANDBOX", "")})
    while True:
        try:
            msg, buffers = wire.receive(fin)
        except (EOFError, wire.ProtocolError):
            return
        op = msg.get("op")
        if op == "bye":
            return
        try:
            reply, out = getattr(worker, f"do_{op}")(msg, buffers)
        except BaseException as e:   # the student's code raised (or exited) inside a call: report, carry on
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            reply, out = {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000], "traceback": tb[-4000:]}, []
        if os.getpid() != me:   # a copy the student's code forked, back from the cell: only the original answers
            os._exit(0)
        try:
            wire.send(fout, reply, out)
        except (TypeError, ValueError) as e:   # a result that is not plain data
            wire.send(fout, {"ok": False, "error": f"TypeError: {e}"})
