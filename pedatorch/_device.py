"""Devices as objects, and which device holds an array.

A tensor's device is read off its array: a numpy array lives on ``cpu``; a cupy array on
``cuda:<its device id>`` (see ``pedatorch.backend``: cupy is imported only when a cuda device is
asked for, so ``import pedatorch`` needs numpy alone).
"""
from .backend import CPU_BACKEND, META_BACKEND, backend_of, cuda_backend

__all__ = ["device"]


class device:
    """``pedatorch.device('cpu')``, ``device('cuda:0')``, ``device('cuda', 1)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, meta device type at start of device string: " + type)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    # ``with torch.device('cuda'):`` -- the factories inside (zeros, tensor, randn, nn layers' parameters...)
    # allocate on this device when they are given none
    def __enter__(self):
        _CONTEXTS.append(self)
        return self

    def __exit__(self, *exc):
        _CONTEXTS.pop()
        return False


# The default device of the factories: the innermost ``with device(...)`` block, else set_default_device's
# (None: the CPU, which needs no move).  Only the factories PyTorch lists for it look here (not the *_like
# functions, nor Tensor.new_*: those follow their input).
_CONTEXTS = []
_GLOBAL_DEFAULT = [None]


def factory_device(d):
    """The device a factory allocates on: ``d`` when given, else the default device (None: the CPU)."""
    if d is not None:
        return d
    return default_device()


def set_default_device(d):
    """``torch.set_default_device``: where factories allocate when no ``device=`` is given (None: the CPU)."""
    _GLOBAL_DEFAULT[0] = None if d is None else as_device(d)


def default_device():
    """The factories' default device now, as set (None: the CPU)."""
    return _CONTEXTS[-1] if _CONTEXTS else _GLOBAL_DEFAULT[0]


CPU = device("cpu")


def as_device(d):
    """Turn a str, int or device into a device (None stays None)."""
    if d is None or isinstance(d, device):
        return d
    return device(d)


# ---------------------------------------------------------------- which device holds an array

def device_of(arr):
    """The device of an array of any backend (``cpu`` for numpy arrays)."""
    b = backend_of(arr)
    return CPU if b is CPU_BACKEND else device(b.device_type, b.device_index(arr))


def to_device_array(arr, dev):
    """``arr`` on device ``dev`` (the same array when it is already there)."""
    src = backend_of(arr)
    if dev.type == "cpu":
        return src.to_host(arr)
    if dev.type == "cuda":
        b = cuda_backend()
        idx = 0 if dev.index is None else dev.index
        if idx >= b.device_count():
            raise RuntimeError("CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                               "reported at some other API call, so the stacktrace below might be incorrect.")
        if src is b:
            return b.to_device(arr, idx)
        return b.from_host(src.to_host(arr), idx)
    if dev.type == "meta":   # (only the shape, dtype and layout go: a meta array has no values)
        return arr if src is META_BACKEND else META_BACKEND.from_host(arr, None)
    raise RuntimeError(f"pedatorch has no arrays on device type {dev.type}")
