"""The plain-data protocol between the grader and a student's sandboxed process.

Nothing crosses as pickle: a message is a JSON header and raw array bytes, so whatever the student's process
sends, the grader rebuilds fresh numbers, strings, containers and arrays from it. A result object that lies
(an ndarray subclass whose ``==`` always says equal) cannot cross: only its bytes do. Anything that is not plain
data (a function, a class, a Module) stays in the student's process and crosses as a *handle*, an id the grader
can call through (see remote.py).

Frame: 4 bytes header length, the JSON header, then each buffer the header names, 8 bytes length + bytes.
"""
import json
import struct

import numpy as np

from ..backend import host_bytes, host_from_bytes, is_array

MAX_MESSAGE = 256 * 2**20   # bytes a peer may send in one message (a student could send a never-ending one)


class ProtocolError(Exception):
    """The peer sent something that is not a message of this protocol."""


# --------------------------------------------------------------------------- values <-> JSON + buffers

def encode(value, buffers, handle_of, depth=0):
    """The JSON form of ``value``; array bytes are appended to ``buffers``. ``handle_of(obj)`` gives the id of an
    object that is not plain data (only the student's side hands out handles)."""
    from .._tensor import Tensor   # the grading package sits above the tensor layer
    if depth > 50:
        raise ValueError("value nested too deeply to send")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and type(value) in (int, float):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, Tensor):
        arr = value.detach().cpu().numpy(force=True)
        return _array(arr, buffers, "tensor", value.dtype.name, value.requires_grad)
    if is_array(value) and value.dtype.kind in "biufc":
        return _array(value, buffers, "ndarray", value.dtype.name, False)
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if _is_dtype(value):
        return {"dtype": value.name}
    if isinstance(value, tuple):   # torch.Size is a tuple
        return {"tuple": [encode(v, buffers, handle_of, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, buffers, handle_of, depth + 1) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": [[k, encode(v, buffers, handle_of, depth + 1)] for k, v in value.items()]}
    if handle_of is None:
        raise TypeError(f"cannot send a {type(value).__name__} as plain data")
    return {"handle": handle_of(value), "type": type(value).__name__, "callable": callable(value)}


def _is_dtype(value):
    from .._dtype import dtype
    return isinstance(value, dtype)


def _array(arr, buffers, kind, dtype_name, requires_grad):
    buffers.append(host_bytes(arr))
    return {"array": len(buffers) - 1, "kind": kind, "dtype": dtype_name, "shape": list(arr.shape),
            "requires_grad": bool(requires_grad)}


def decode(node, buffers, proxy_of, depth=0):
    """Rebuild a value from its JSON form. ``proxy_of(header)`` turns a handle into a proxy (grader side)."""
    if depth > 50:   # encode sends no deeper; a forged message could, to exhaust the grader's stack
        raise ProtocolError("value nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [decode(v, buffers, proxy_of, depth + 1) for v in node]
    if not isinstance(node, dict) or len(node) == 0:
        raise ProtocolError(f"not a value: {str(node)[:80]}")
    if "array" in node:
        return _decode_array(node, buffers)
    if "tuple" in node:
        return tuple(decode(v, buffers, proxy_of, depth + 1) for v in _list(node["tuple"]))
    if "dict" in node:
        return {str(k): decode(v, buffers, proxy_of, depth + 1) for k, v in _dict_items(node["dict"])}
    if "complex" in node:
        re, im = _list(node["complex"])
        return complex(float(re), float(im))
    if "dtype" in node:
        return _dtype_named(node["dtype"])
    if "handle" in node:
        if proxy_of is None:
            raise ProtocolError("a handle where plain data was expected")
        return proxy_of(node)
    raise ProtocolError(f"not a value: {str(node)[:80]}")


def _dict_items(x):
    items = _list(x)
    if not all(isinstance(kv, list) and len(kv) == 2 for kv in items):
        raise ProtocolError("malformed message")
    return items


def _list(x):
    if not isinstance(x, list):
        raise ProtocolError("malformed message")
    return x


def _dtype_named(name):
    from .. import _dtype
    dt = getattr(_dtype, str(name), None)
    if not isinstance(dt, _dtype.dtype):
        raise ProtocolError(f"unknown dtype {name!r}")
    return dt


def _decode_array(node, buffers):
    from ..ops.creation import from_numpy
    dt = _dtype_named(node.get("dtype"))
    shape = tuple(int(s) for s in _list(node.get("shape")))
    i = node["array"]
    if not isinstance(i, int) or not 0 <= i < len(buffers):
        raise ProtocolError("array names a missing buffer")
    np_dtype = dt.np
    count = int(np.prod(shape, dtype=np.int64))
    if count * np_dtype.itemsize != len(buffers[i]):
        raise ProtocolError("array bytes do not match its shape and dtype")
    arr = host_from_bytes(buffers[i], np_dtype, shape)   # a fresh, writable array
    if node.get("kind") == "ndarray":
        return arr
    t = from_numpy(arr)
    return t.requires_grad_() if node.get("requires_grad") and t.is_floating_point() else t


# --------------------------------------------------------------------------- framing

def send(fd_file, header, buffers=()):
    """Write one message (header: a JSON-able dict) to a binary file object."""
    head = json.dumps(dict(header, buffers=len(buffers))).encode()
    parts = [struct.pack("<I", len(head)), head]
    for b in buffers:
        parts += [struct.pack("<Q", len(b)), b]
    fd_file.write(b"".join(parts))
    fd_file.flush()


def receive(fd_file):
    """Read one message: (header dict, list of buffers). Raises EOFError when the peer is gone and
    ProtocolError for anything malformed or too big."""
    n = struct.unpack("<I", _read(fd_file, 4))[0]
    if n > MAX_MESSAGE:
        raise ProtocolError("message header too large")
    try:
        header = json.loads(_read(fd_file, n))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:   # '[[[[...' nests past the stack
        raise ProtocolError(f"malformed message header: {e}") from None
    if not isinstance(header, dict) or not isinstance(header.get("buffers", 0), int):
        raise ProtocolError("malformed message header")
    buffers, total = [], n
    for _ in range(header.get("buffers", 0)):
        size = struct.unpack("<Q", _read(fd_file, 8))[0]
        total += size
        if total > MAX_MESSAGE:
            raise ProtocolError(f"message larger than {MAX_MESSAGE >> 20} MiB")
        buffers.append(_read(fd_file, size))
    return header, buffers


def _read(f, n):
    data = f.read(n)
    if data is None or len(data) < n:
        raise EOFError("the other process closed the connection")
    return data
