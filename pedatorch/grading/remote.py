"""The grader's side of a student process: a connection with a deadline, and proxies for the student's objects.

A name the student defined arrives as plain data (a fresh tensor, number, tuple ...) or, when it is a function,
a class or an instance, as a ``RemoteObject``: calling it sends the arguments over and brings the result back as
data. A call whose arguments require grad is one node of the grader's autograd graph (``RemoteCall``): its
backward asks the student process for the gradients, so ``gradcheck`` runs in the grader on the student's code.
"""
import os
import select
import time

from . import wire
from .sandbox import CPU_LIMIT_EXIT
from ..autograd.function import Function, once_differentiable
from ..autograd import grad_mode
from .._tensor import Tensor


class StudentError(Exception):
    """The student's code raised: ``remote_type`` is its exception class name, the message and traceback its."""

    def __init__(self, message, traceback=""):
        super().__init__(message)
        self.remote_type = message.split(":", 1)[0]
        self.remote_traceback = traceback


TIME_LIMIT = "time limit reached"   # the same words for the wall clock and CPU time: re-grading says the same


class Timeout(Exception):
    """The student process used up its wall-time budget."""


class Crashed(Exception):
    """The student process ended (killed by a limit, ``os._exit``, a crash) or broke the protocol."""


class _DeadlineReader:
    """``read(n)`` on a pipe that gives up at the deadline (a student process can hang or send half a message)."""

    def __init__(self, f, deadline):
        self.fd, self.deadline = f.fileno(), deadline

    def read(self, n):
        chunks, got = [], 0
        while got < n:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise Timeout(TIME_LIMIT)
            chunk = os.read(self.fd, min(n - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)


class Connection:
    """Requests to one student process, each answered before ``deadline`` (time.monotonic())."""

    def __init__(self, proc, to_child, from_child, deadline):
        self.proc, self.to_child, self.from_child, self.deadline = proc, to_child, from_child, deadline
        self.proxies = {}
        hello, _ = self._receive()
        self.sandbox = str(hello.get("sandbox", ""))

    def _receive(self):
        try:
            return wire.receive(_DeadlineReader(self.from_child, self.deadline))
        except EOFError:
            raise self._ended() from None
        except (wire.ProtocolError, ValueError) as e:
            raise Crashed(f"the notebook's process broke the protocol: {e}") from None

    def _ended(self):
        """The exception to raise now that the student process is gone: Timeout or Crashed, with the reason."""
        try:
            code = self.proc.wait(2)
        except Exception:
            code = None
        if code == CPU_LIMIT_EXIT:
            return Timeout(TIME_LIMIT)
        return Crashed(self._why(code))

    @staticmethod
    def _why(code):
        if code is None:
            return "the notebook's process stopped answering"
        if code < 0 or code >= 128:
            sig = -code if code < 0 else code - 128
            why = {9: "killed", 24: "CPU time limit", 11: "segmentation fault",
                   6: "aborted"}.get(sig, f"signal {sig}")
            return f"the notebook's process was ended: {why}"
        return f"the notebook's process exited with code {code}"

    def request(self, msg, buffers=()):
        """Send a request; the decoded reply. Raises StudentError, Timeout or Crashed."""
        try:
            wire.send(self.to_child, msg, list(buffers))
        except (BrokenPipeError, OSError):
            raise self._ended() from None
        reply, rbuf = self._receive()
        if not reply.get("ok"):
            raise StudentError(str(reply.get("error", "error"))[:2000], str(reply.get("traceback", ""))[-4000:])
        return reply, rbuf

    def decode(self, node, buffers):
        try:
            return wire.decode(node, buffers, self.proxy)
        except (wire.ProtocolError, TypeError, ValueError, KeyError) as e:
            raise Crashed(f"the notebook's process sent malformed data: {e}") from None

    def proxy(self, header):
        h = header.get("handle")
        if not isinstance(h, int):
            raise wire.ProtocolError("bad handle")
        if h not in self.proxies:
            self.proxies[h] = RemoteObject(self, h, str(header.get("type", "object"))[:100],
                                           bool(header.get("callable")))
        return self.proxies[h]

    def encode_args(self, args, kwargs):
        buffers = []

        def handle_of(obj):
            if isinstance(obj, RemoteObject) and obj._conn is self:
                return obj._handle
            raise TypeError(f"cannot send a {type(obj).__name__} to the notebook's process (only plain data: "
                            f"tensors, arrays, numbers, strings, lists, tuples, dicts)")
        enc = [wire.encode(a, buffers, handle_of) for a in args]
        kw = {k: wire.encode(v, buffers, handle_of) for k, v in kwargs.items()}
        return enc, kw, buffers

    # the requests
    def exec_cell(self, source, cell_id):
        reply, _ = self.request({"op": "exec", "source": source, "cell": cell_id})
        return str(reply.get("output", ""))

    def names(self, names):
        reply, buffers = self.request({"op": "names", "names": list(names)})
        values = reply.get("values")
        if not isinstance(values, dict):
            raise Crashed("the notebook's process sent malformed data")
        return {str(k): (("module", v["module"]) if isinstance(v, dict) and set(v) == {"module"}
                         else ("value", self.decode(v, buffers))) for k, v in values.items()}

    def call(self, handle, args, kwargs):
        leaves = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor) and a.requires_grad]
        if leaves and grad_mode.is_grad_enabled():
            out = RemoteCall.apply(self, handle, args, kwargs, *leaves)
            return out[0] if len(out) == 1 and not RemoteCall.last_was_tuple else out
        enc, kw, buffers = self.encode_args(args, kwargs)
        reply, rbuf = self.request({"op": "call", "handle": handle, "args": enc, "kwargs": kw}, buffers)
        return self.decode(reply.get("value"), rbuf)

    def close(self):
        try:
            wire.send(self.to_child, {"op": "bye"})
        except (OSError, ValueError):
            pass
        for f in (self.to_child, self.from_child):
            try:
                f.close()
            except OSError:
                pass


class RemoteCall(Function):
    """One call of a student's function as a node of the grader's graph: forward runs it over there with the
    inputs requiring grad, backward asks for their gradients (vector-Jacobian products) over there."""
    last_was_tuple = False

    @staticmethod
    def forward(ctx, conn, handle, args, kwargs, *leaves):
        enc, kw, buffers = conn.encode_args(args, kwargs)   # tensors keep their requires_grad flag over there
        reply, rbuf = conn.request({"op": "call", "handle": handle, "args": enc, "kwargs": kw, "grad": True},
                                   buffers)
        result = conn.decode(reply.get("value"), rbuf)
        RemoteCall.last_was_tuple = isinstance(result, (tuple, list))
        outs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if not all(isinstance(o, Tensor) for o in outs):
            raise TypeError("a function differentiated by the grader must return tensors")
        ctx.conn, ctx.tape, ctx.n_leaves = conn, reply.get("tape"), len(leaves)
        return tuple(o.detach() for o in outs)

    @staticmethod
    @once_differentiable
    def backward(ctx, *grads):
        conn = ctx.conn
        buffers = []
        enc = wire.encode(list(grads), buffers, None)
        reply, rbuf = conn.request({"op": "backward", "tape": ctx.tape, "grads": enc}, buffers)
        result = conn.decode(reply.get("value"), rbuf)
        if not isinstance(result, list) or len(result) != ctx.n_leaves:
            raise Crashed("the notebook's process sent malformed gradients")
        return (None, None, None, None) + tuple(g.detach() if isinstance(g, Tensor) else None for g in result)


class RemoteObject:
    """A student's object that is not plain data (a function, a class, a Module), used from the grader."""

    def __init__(self, conn, handle, typename, is_callable):
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_type", typename)
        object.__setattr__(self, "_callable", is_callable)

    def __call__(self, *args, **kwargs):
        return self._conn.call(self._handle, args, kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        reply, rbuf = self._conn.request({"op": "getattr", "handle": self._handle, "name": name})
        return self._conn.decode(reply.get("value"), rbuf)

    def __getitem__(self, key):
        enc, _, buffers = self._conn.encode_args([key], {})
        reply, rbuf = self._conn.request({"op": "getitem", "handle": self._handle, "key": enc[0]}, buffers)
        return self._conn.decode(reply.get("value"), rbuf)

    def _items(self):
        reply, rbuf = self._conn.request({"op": "list", "handle": self._handle})
        items = self._conn.decode(reply.get("value"), rbuf)
        return items if isinstance(items, list) else []

    def __iter__(self):
        return iter(self._items())

    def __len__(self):
        return len(self._items())

    def __repr__(self):
        reply, _ = self._conn.request({"op": "repr", "handle": self._handle})
        return str(reply.get("value", f"<{self._type}>"))
