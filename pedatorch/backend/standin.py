"""A stand-in CUDA backend, for tests on machines without a GPU (CI): numpy inside, cupy's manners outside.

Registered only by the tests (``enable()``), as the one device ``cuda:0``; users never meet it. Its arrays,
``StandinArray``, are ``WrappedArray``s (see ``wrapped``): they refuse to be numpy arrays or to mix with
them, as cupy's do. So an op that allocates with ``np.zeros`` instead of its inputs' namespace, or
type-checks ``np.ndarray``, fails loudly here, as it would on a GPU.
"""
import contextlib
import time

import numpy as np

from . import DeviceBackend, register_cuda
from .wrapped import WrappedArray, Namespace, WrappedObject, _unwrap

__all__ = ["StandinArray", "xp", "enable", "disable", "StandinBackend"]


class _Device:
    """What ``array.device`` is for a cupy array (only its ``id`` is used)."""
    id = 0

    def __repr__(self):
        return "<CUDA Device 0 (pedatorch stand-in)>"


class StandinArray(WrappedArray):
    """A device array of the stand-in backend: a numpy array that refuses to be one."""

    __slots__ = ()
    device = _Device()

    def __repr__(self):
        return f"standin_array({self._a!r})"

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return (2, 0)   # kDLCUDA, device 0: what a cupy array says


xp = Namespace(np, StandinArray)


class StandinBackend(DeviceBackend):
    """The stand-in as a CUDA backend: one device, named so that no one takes it for a GPU."""

    device_type = "cuda"

    def __init__(self):
        super().__init__("stand-in", xp, StandinArray)
        self._generator = None

    def device_index(self, arr):
        return 0

    def device_count(self):
        return 1

    def address(self, arr):
        return arr._a.__array_interface__["data"][0]

    def to_host(self, arr):
        return arr.get()

    def from_host(self, arr, index):
        return StandinArray(np.array(arr, copy=True))

    def to_device(self, arr, index):
        return arr

    def scatter_add(self, target, index, values):
        np.add.at(target._a, _unwrap(index, StandinArray), _unwrap(values, StandinArray))

    def as_strided(self, arr, shape, strides):
        return StandinArray(np.lib.stride_tricks.as_strided(arr._a, shape, strides))

    def ufunc_at(self, name, target, index, values):
        if name == "add":
            np.add.at(target._a, _unwrap(index, StandinArray), _unwrap(values, StandinArray))
        else:   # as the cupy backend does it, so that CI runs that code
            super().ufunc_at(name, target, index, values)

    def use_device(self, index):
        pass

    def device_name(self, index):
        return "pedatorch stand-in (numpy; for tests, not a GPU)"

    def device_properties(self, index):
        return dict(name=self.device_name(index), major=0, minor=0, total_memory=0, multi_processor_count=0)

    def reset_generator(self, index, seed):
        self._generator = None

    def generator(self, index, seed):
        if self._generator is None:
            self._generator = WrappedObject(np.random.default_rng(seed), StandinArray)
        return self._generator

    def new_generator(self, index, seed):
        """A fresh generator (for ``pedatorch.Generator(device='cuda')``): numpy's, its draws device arrays."""
        return WrappedObject(np.random.default_rng(seed), StandinArray)

    def generator_state(self, rng):
        """A host copy (uint8 numpy array) of generator ``rng``'s state: numpy's PCG64 state as six 64-bit
        words (state and increment, low word first; the buffered 32-bit half and its flag)."""
        st = rng._obj.bit_generator.state
        m = (1 << 64) - 1
        words = [st["state"]["state"] & m, st["state"]["state"] >> 64, st["state"]["inc"] & m,
                 st["state"]["inc"] >> 64, st["has_uint32"], st["uinteger"]]
        return np.array(words, np.uint64).view(np.uint8)

    def set_generator_state(self, rng, state):
        if state.size != 48:
            raise RuntimeError(f"RNG state is wrong size: expected 48 bytes, got {state.size}")
        w = [int(v) for v in state.view(np.uint64)]
        rng._obj.bit_generator.state = {"bit_generator": "PCG64",
                                        "state": {"state": w[0] | w[1] << 64, "inc": w[2] | w[3] << 64},
                                        "has_uint32": w[4], "uinteger": w[5]}

    def device_context(self, index):
        return contextlib.nullcontext()

    # memory: the stand-in keeps no allocator of its own, so it counts nothing
    def memory_allocated(self, index):
        return 0

    memory_reserved = max_memory_allocated = max_memory_reserved = memory_allocated

    def reset_peak(self, index):
        pass

    def empty_cache(self):
        pass

    def mem_get_info(self, index):
        return (0, 0)

    def new_stream(self):
        return _Stream()

    null_stream = new_stream

    def new_event(self, timing):
        return _Event()

    def elapsed_ms(self, start, end):
        return (end.time - start.time) * 1000.0

    def cholesky(self, a, upper):
        return StandinArray(np.linalg.cholesky(a._a, upper=upper))

    def linalg_errors(self):
        import contextlib
        return contextlib.nullcontext()   # numpy inside: it raises LinAlgError already

    def argsort_stable(self, a, axis):
        return StandinArray(np.argsort(a._a, axis=axis, kind="stable"))

    def accumulate(self, ufunc_name, a, axis):
        return StandinArray(getattr(np, ufunc_name).accumulate(a._a, axis=axis))


class _Stream:
    """Work on the stand-in runs at once: a stream has nothing to wait for."""

    done = True

    def synchronize(self):
        pass

    def wait_event(self, event):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


class _Event:
    done = True
    time = 0.0

    def record(self, stream=None):
        self.time = time.perf_counter()

    def synchronize(self):
        pass


def enable():
    """Register the stand-in as the CUDA backend (tests only)."""
    register_cuda(StandinBackend())


def disable():
    """Forget the stand-in: CUDA is cupy's again (or absent)."""
    register_cuda(None)
