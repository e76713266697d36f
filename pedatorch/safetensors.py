"""``pedatorch.safetensors``: the safetensors file format, read and written without the safetensors package.

The functions are those of ``safetensors.torch``::

    from pedatorch.safetensors import save_file, load_file
    save_file(model.state_dict(), "model.safetensors", metadata={"epoch": "3"})
    model.load_state_dict(load_file("model.safetensors"))

A ``.safetensors`` file is::

    8 bytes     N, the length of the header (an unsigned little-endian integer)
    N bytes     the header: JSON text, padded with spaces to a multiple of 8 bytes
                {"__metadata__": {"epoch": "3"},                       (optional; text values only)
                 "weight": {"dtype": "F32", "shape": [3, 2], "data_offsets": [0, 24]}, ...}
    the rest    the tensors' bytes (little-endian, row-major), one after another; the offsets count from here

Unlike a pickle it holds no code, so loading one cannot run anything. Each tensor is stored whole and
contiguous: tensors that share memory (a weight tied to another) are refused, as safetensors refuses them,
since they would come back as two separate copies.
"""
import json
import mmap
import os
import struct
import sys

from . import _dtype
from ._tensor import Tensor, UntypedStorage
from .backend import address, storage_root, to_host
from .serialization import _own_bytes, _tensor_from_storage, _write_atomically

__all__ = ["save_file", "load_file", "save", "load", "SafetensorError"]

# the dtype codes, in the order of safetensors' Dtype enum (the writer sorts tensors by it)
_CODES = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ",
          "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64", "F64", "I64", "U64"]
_DTYPES = {"BOOL": _dtype.bool, "U8": _dtype.uint8, "I8": _dtype.int8, "I16": _dtype.int16, "U16": _dtype.uint16,
           "F16": _dtype.float16, "BF16": _dtype.bfloat16, "I32": _dtype.int32, "U32": _dtype.uint32,
           "F32": _dtype.float32, "C64": _dtype.complex64, "F64": _dtype.float64, "I64": _dtype.int64,
           "U64": _dtype.uint64}
_CODE_OF = {d.name: code for code, d in _DTYPES.items()}
_MAX_HEADER = 100_000_000   # safetensors refuses longer headers


class SafetensorError(Exception):
    """A file that is not valid safetensors (the safetensors package raises an exception of this name)."""


# ---------------------------------------------------------------- writing
def save(tensors, metadata=None):
    """The safetensors file of ``tensors`` (a dict of names to tensors), as bytes."""
    _check(tensors, metadata)
    # as safetensors writes them: by dtype (wider types first, so every tensor starts aligned), then by name
    names = sorted(tensors, key=lambda name: (-_CODES.index(_CODE_OF[tensors[name].dtype.name]), name))
    header = {"__metadata__": metadata} if metadata else {}
    chunks, offset = [], 0
    for name in names:
        t = tensors[name]
        data = to_host(t._data).tobytes()   # row-major bytes (the tensor is contiguous)
        if sys.byteorder == "big" and t.element_size() > 1:
            data = to_host(t._data).byteswap().tobytes()
        header[name] = {"dtype": _CODE_OF[t.dtype.name], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return b"".join([struct.pack("<Q", len(text)), text, *chunks])


def save_file(tensors, filename, metadata=None):
    """Write ``tensors`` (a dict of names to tensors) to ``filename`` in the safetensors format (atomically:
    a crash leaves the old file or the new one)."""
    data = save(tensors, metadata)
    _write_atomically(os.fspath(filename), lambda out: out.write(data))


def _check(tensors, metadata):
    """safetensors' refusals, with its messages."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"argument 'tensor_dict': '{type(name).__name__}' object is not an instance of 'str'")
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}")
        if t.dtype.name not in _CODE_OF:
            raise ValueError(f"Key `{name}`: safetensors has no code for {t.dtype} (it stores "
                             f"{', '.join(str(d) for d in _DTYPES.values())})")
    for key, value in (metadata or {}).items():
        for x in (key, value):
            if not isinstance(x, str):
                raise TypeError(f"argument 'metadata': '{type(x).__name__}' object is not an instance of 'str'")
    failing = _shared(tensors)
    if failing:
        indent = "\n            "
        raise RuntimeError(
            f"{indent}Some tensors share memory, this will lead to duplicate memory on disk and potential differences "
            f"when loading them again: {failing}.{indent}A potential way to correctly save your model is to use "
            f"`save_model`.{indent}More information at https://huggingface.co/docs/safetensors/torch_shared_tensors"
            f"{indent}")
    for name, t in tensors.items():
        if not t.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. It either means you"
                " are trying to save tensors which are reference of each other in which case it's recommended to save"
                " only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to"
                " pack it before saving.")


def _shared(tensors):
    """The groups of names whose tensors overlap in memory (views of one storage that do not overlap, like
    ``x[:2]`` and ``x[2:]``, are fine: each is stored whole)."""
    by_storage = {}
    for name, t in tensors.items():
        if t.numel():
            by_storage.setdefault((str(t.device), address(storage_root(t._data))), []).append(name)
    failing = []
    for names in by_storage.values():
        spans = sorted((address(tensors[n]._data), _end(tensors[n]), n) for n in names)
        groups = [{spans[0][2]}]
        stop = spans[0][1]
        for start, end, name in spans[1:]:
            if start < stop:
                groups[-1].add(name)
            else:
                groups.append({name})
            stop = max(stop, end)
        failing += [g for g in groups if len(g) > 1]
    return failing


def _end(t):
    """The address just past ``t``'s last element."""
    return address(t._data) + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) * t.element_size() \
        + t.element_size()


# ---------------------------------------------------------------- reading
def load(data):
    """The tensors of a safetensors file given as bytes: a dict of names to (CPU) tensors."""
    return _parse(memoryview(data))


def load_file(filename, device="cpu"):
    """The tensors of the safetensors file ``filename``: a dict of names to tensors on ``device``."""
    with open(filename, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        # mapped, not read: each tensor copies its own bytes out of the file, nothing is read twice
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    tensors = _parse(memoryview(data))
    if str(device) != "cpu":
        tensors = {name: t.to(f"cuda:{device}" if isinstance(device, int) else device) for name, t in tensors.items()}
    return tensors


def _error(message):
    return SafetensorError(f"Error while deserializing: {message}")


def _parse(data):
    if len(data) < 8:
        raise _error("header too small")
    (n,) = struct.unpack("<Q", data[:8])
    if n > _MAX_HEADER:
        raise _error("header too large")
    if 8 + n > len(data):
        raise _error("invalid header length")
    try:
        header = json.loads(str(data[8:8 + n], "utf-8"))
    except UnicodeDecodeError as e:
        raise _error(f"invalid UTF-8 in header: {e}") from None
    except ValueError as e:
        raise _error(f"invalid JSON in header: {e}") from None
    if not isinstance(header, dict):
        raise _error(f"invalid JSON in header: expected an object, got {type(header).__name__}")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise _error("invalid JSON in header: __metadata__ must map strings to strings")
    body = data[8 + n:]
    entries = sorted((_entry(name, info) for name, info in header.items()), key=lambda e: e[1])
    end = 0
    for name, (begin, stop), dtype, shape in entries:   # the tensors tile the body: no gaps, no overlaps
        if begin != end:
            raise _error(f"invalid offset for tensor `{name}`")
        numel = 1
        for s in shape:
            numel *= s
        if stop - begin != numel * dtype.itemsize:
            raise _error("invalid shape, data type, or offset for tensor")
        end = stop
    if end != len(body):
        raise _error("incomplete metadata, file not fully covered")
    tensors = {}
    for name, (begin, stop), dtype, shape in entries:
        storage = UntypedStorage._wrap(_own_bytes(body[begin:stop]))
        if sys.byteorder == "big" and dtype.itemsize > 1:
            storage._owner.view(dtype.np).byteswap(inplace=True)
        stride = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            stride[i] = stride[i + 1] * max(shape[i + 1], 1)
        tensors[name] = _tensor_from_storage(storage, dtype, 0, tuple(shape), tuple(stride), False)
    return {name: tensors[name] for name in header}   # in the header's order


def _entry(name, info):
    """(name, data_offsets, dtype, shape) of one tensor of the header, checked."""
    if not (isinstance(info, dict) and {"dtype", "shape", "data_offsets"} <= info.keys()):
        raise _error(f"invalid JSON in header: tensor `{name}` needs dtype, shape and data_offsets")
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if code not in _DTYPES:
        if code in _CODES:
            raise SafetensorError(f"pedatorch has no dtype for the safetensors code {code} (tensor `{name}`)")
        raise _error(f"invalid JSON in header: unknown variant `{code}`, expected one of "
                     + ", ".join(f"`{c}`" for c in _CODES))
    ints = lambda xs: isinstance(xs, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                                   for x in xs)
    if not (ints(shape) and ints(offsets) and len(offsets) == 2 and offsets[0] <= offsets[1]):
        raise _error(f"invalid JSON in header: bad shape or data_offsets for tensor `{name}`")
    return name, tuple(offsets), _DTYPES[code], shape
