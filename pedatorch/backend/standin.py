"""A stand-in CUDA backend, for tests on machines without a GPU (CI): numpy inside, cupy's manners outside.

Registered only by the tests (``enable()``), as the one device ``cuda:0``; users never meet it. Its arrays,
``StandinArray``, behave as cupy's do where that finds host calls left in an op:

- they are not numpy arrays (``isinstance(a, np.ndarray)`` is False), and numpy will not convert them:
  ``np.asarray(a)`` raises TypeError, as for a cupy array;
- numpy arrays do not mix with them: ``a + np_array``, ``np_array * a`` and the stand-in namespace's
  functions given a numpy array raise TypeError (cupy: "Unsupported type"), except the explicit transfer
  ``xp.asarray(np_array)``;
- numpy's functions called on them run on the device (cupy answers ``__array_ufunc__`` and
  ``__array_function__`` too), and reductions give 0-dim arrays, not numpy scalars, as cupy's do.

So an op that allocates with ``np.zeros`` instead of its inputs' namespace, or type-checks ``np.ndarray``,
fails loudly here, as it would on a GPU.
"""
import contextlib
import time

import numpy as np

from . import DeviceBackend, register_cuda

__all__ = ["StandinArray", "xp", "enable", "disable", "StandinBackend"]


def _unwrap(x, allow_host=False):
    """The numpy values inside stand-in arrays (also inside lists/tuples); a numpy array refused."""
    t = type(x)
    if t is StandinArray:
        return x._a
    if t is np.ndarray and not allow_host:
        raise TypeError(f"Unsupported type {t}")   # cupy's words for a host array in a device op
    if t is list or t is tuple:
        return t(_unwrap(v, allow_host) for v in x)
    return x


def _wrap(r):
    """Results back on the device: arrays (and numpy scalars, as cupy gives 0-dim arrays) wrapped."""
    if type(r) is np.ndarray:
        return StandinArray(r)
    if isinstance(r, np.generic):
        return StandinArray(np.asarray(r))
    if type(r) is tuple or type(r) is list:
        return type(r)(_wrap(v) for v in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):   # numpy.linalg's named results (SVDResult, EighResult)
        return type(r)(*(_wrap(v) for v in r))
    return r


class _Device:
    """What ``array.device`` is for a cupy array (only its ``id`` is used)."""
    id = 0

    def __repr__(self):
        return "<CUDA Device 0 (pedatorch stand-in)>"


class StandinArray:
    """A device array of the stand-in backend: a numpy array that refuses to be one."""

    __slots__ = ("_a",)
    device = _Device()

    def __init__(self, a):
        self._a = a

    # numpy must not take these for host arrays
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct "
                        "a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = _unwrap(kwargs["out"])
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        return _wrap(func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

    # attributes and methods of the array inside, results kept on the device
    def __getattr__(self, name):
        if name.startswith("__"):   # __array_interface__, __array_struct__: numpy would convert through them
            raise AttributeError(name)
        value = getattr(self._a, name)
        while name == "base" and value is not None and type(value) is not np.ndarray:
            value = getattr(value, "base", None)   # (numpy's as_strided views hang off a DummyArray: its base)
        if callable(value):
            def method(*args, **kwargs):
                return _wrap(value(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))
            return method
        return _wrap(value) if type(value) is np.ndarray else value

    def get(self):
        """A numpy copy (cupy's explicit transfer to the host)."""
        return self._a.copy()

    def __repr__(self):
        return f"standin_array({self._a!r})"

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        return self._a.__index__()

    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key)] = _unwrap(value)

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return (2, 0)   # kDLCUDA, device 0: what a cupy array says

    @property
    def T(self):
        return StandinArray(self._a.T)

    @property
    def real(self):
        return StandinArray(self._a.real)

    @property
    def imag(self):
        return StandinArray(self._a.imag)


def _operator(name):
    def op(self, *args):
        return _wrap(getattr(self._a, name)(*_unwrap(args)))
    op.__name__ = name
    return op


def _inplace_operator(name):
    def op(self, other):
        getattr(self._a, name)(_unwrap(other))
        return self
    op.__name__ = name
    return op


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift lt le gt ge eq ne "
              "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor rlshift rrshift "
              "neg pos abs invert").split():
    setattr(StandinArray, f"__{_name}__", _operator(f"__{_name}__"))
for _name in "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift".split():
    setattr(StandinArray, f"__{_name}__", _inplace_operator(f"__{_name}__"))
StandinArray.__hash__ = None


class _Function:
    """A numpy function or ufunc, run on the device (its methods too: ``xp.add.at``, ``xp.maximum.reduce``)."""

    def __init__(self, fn, allow_host=False):
        self._fn, self._allow_host = fn, allow_host

    def __call__(self, *args, **kwargs):
        args = _unwrap(args, self._allow_host)
        kwargs = {k: _unwrap(v, self._allow_host) for k, v in kwargs.items()}
        return _wrap(self._fn(*args, **kwargs))

    # the ufunc methods cupy 14 has: reduceat for add alone, accumulate for add and multiply, at for these
    _CUPY_UFUNC_METHODS = {"reduceat": {"add"}, "accumulate": {"add", "multiply"},
                           "at": {"add", "subtract", "maximum", "minimum"}}

    def __getattr__(self, name):
        value = getattr(self._fn, name)
        if isinstance(self._fn, np.ufunc) and self._fn.__name__ not in self._CUPY_UFUNC_METHODS.get(
                name, {self._fn.__name__}):
            raise NotImplementedError(f"`cupy_{self._fn.__name__}.{name}` is not supported yet")   # cupy's words
        return _Function(value) if callable(value) else value


class _Namespace:
    """The stand-in's ``xp``: numpy's namespace, with functions that take and give device arrays."""

    _TRANSFERS = {"asarray", "array", "asanyarray", "ascontiguousarray"}   # host -> device is explicit here

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        if name == "ndarray":
            return StandinArray
        if name == "asnumpy":
            return lambda a: a.get() if type(a) is StandinArray else np.asarray(a)
        value = getattr(self._module, name)
        if isinstance(value, type) or not callable(value) and not hasattr(value, "__name__"):
            return value                    # dtypes, constants
        if not callable(value):
            return _Namespace(value)        # a submodule: linalg, fft, random, lib
        return _Function(value, allow_host=name in self._TRANSFERS)


xp = _Namespace(np)


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
        np.add.at(target._a, _unwrap(index), _unwrap(values))

    def as_strided(self, arr, shape, strides):
        return StandinArray(np.lib.stride_tricks.as_strided(arr._a, shape, strides))

    def ufunc_at(self, name, target, index, values):
        if name == "add":
            np.add.at(target._a, _unwrap(index), _unwrap(values))
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
            self._generator = _Object(np.random.default_rng(seed))
        return self._generator

    def new_generator(self, index, seed):
        """A fresh generator (for ``pedatorch.Generator(device='cuda')``): numpy's, its draws device arrays."""
        return _Object(np.random.default_rng(seed))

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


class _Object:
    """A numpy object whose methods give device arrays (the generator's draws)."""

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        return _Function(getattr(self._obj, name))


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
