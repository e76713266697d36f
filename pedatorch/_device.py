"""Devices as objects, and the array module (numpy or cupy) behind each.

A tensor's device is read off its array: a numpy array lives on ``cpu``; a
cupy array on ``cuda:<its device id>``.  cupy is imported only when a cuda
device is asked for, so ``import pedatorch`` needs numpy alone.
"""
import numpy as np

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


CPU = device("cpu")


def as_device(d):
    """Turn a str, int or device into a device (None stays None)."""
    if d is None or isinstance(d, device):
        return d
    return device(d)


# ---------------------------------------------------------------- cuda availability

_cupy = None
_cupy_error = None


def cupy_module():
    """Import cupy on first use; raise PyTorch's error when there is no usable GPU."""
    global _cupy, _cupy_error
    if _cupy is not None:
        return _cupy
    if _cupy_error is None:
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError("no CUDA device")
            _cupy = cupy
            return cupy
        except Exception as e:  # ImportError, CUDARuntimeError, ...
            _cupy_error = e
    raise AssertionError("Torch not compiled with CUDA enabled") from None


def cuda_is_available():
    try:
        cupy_module()
        return True
    except AssertionError:
        return False


def array_module(arr):
    """numpy for a numpy array, cupy for a cupy array: one code path for both devices."""
    return np if type(arr) is np.ndarray or isinstance(arr, (np.ndarray, np.generic)) else _cupy


def device_of(arr):
    if isinstance(arr, np.ndarray):
        return CPU
    return device("cuda", arr.device.id)


def to_device_array(arr, dev):
    """Copy ``arr`` onto device ``dev`` (no copy when it is already there)."""
    if dev.type == "cpu":
        if isinstance(arr, np.ndarray):
            return arr
        return arr.get()
    if dev.type == "cuda":
        cp = cupy_module()
        idx = 0 if dev.index is None else dev.index
        if idx >= cp.cuda.runtime.getDeviceCount():
            raise RuntimeError(f"CUDA error: invalid device ordinal")
        with cp.cuda.Device(idx):
            if isinstance(arr, cp.ndarray) and arr.device.id == idx:
                return arr
            return cp.asarray(arr)
    raise RuntimeError(f"unsupported device {dev}")
