"""Arrays with numpy inside that refuse to be numpy arrays: what the tests' stand-in CUDA device
(``standin``) and the meta device (``meta``) are made of.

A ``WrappedArray`` holds a numpy array and behaves as a cupy array does towards numpy:

- it is not a numpy array (``isinstance(a, np.ndarray)`` is False), and numpy will not convert it:
  ``np.asarray(a)`` raises TypeError, as for a cupy array;
- numpy arrays, and arrays of another wrapped kind, do not mix with it: ``a + np_array``,
  ``np_array * a`` and the namespace's functions given a numpy array raise TypeError (cupy: "Unsupported
  type"), except the explicit transfer ``xp.asarray(np_array)``;
- numpy's functions called on it run inside (cupy answers ``__array_ufunc__`` and ``__array_function__``
  too), and reductions give 0-dim arrays, not numpy scalars, as cupy's do.

So an op that allocates with ``np.zeros`` instead of its inputs' namespace, or type-checks ``np.ndarray``,
fails loudly on these arrays, as it would on a GPU. Each kind is a subclass; its namespace is
``Namespace(np, kind)``.
"""
import numpy as np

__all__ = ["WrappedArray", "Namespace", "WrappedObject"]


def _unwrap(x, kind, allow_host=False):
    """The numpy values inside arrays of ``kind`` (also inside lists/tuples); a host array, or an array of
    another kind, refused."""
    t = type(x)
    if t is kind:
        return x._a
    if t is np.ndarray and not allow_host or isinstance(x, WrappedArray):
        raise TypeError(f"Unsupported type {t}")   # cupy's words for a host array in a device op
    if t is list or t is tuple:
        return t(_unwrap(v, kind, allow_host) for v in x)
    return x


def _wrap(r, kind):
    """Results back inside: arrays (and numpy scalars, as cupy gives 0-dim arrays) wrapped as ``kind``."""
    if type(r) is np.ndarray:
        return kind(r)
    if isinstance(r, np.generic):
        return kind(np.asarray(r))
    if type(r) is tuple or type(r) is list:
        return type(r)(_wrap(v, kind) for v in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):   # numpy.linalg's named results (SVDResult, EighResult)
        return type(r)(*(_wrap(v, kind) for v in r))
    return r


class WrappedArray:
    """A numpy array that refuses to be one (subclasses name the device it stands for)."""

    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    # numpy must not take these for host arrays
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct "
                        "a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        kind = type(self)
        if "out" in kwargs:
            kwargs["out"] = _unwrap(kwargs["out"], kind)
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs, kind), **kwargs), kind)

    def __array_function__(self, func, types, args, kwargs):
        kind = type(self)
        return _wrap(func(*_unwrap(args, kind), **{k: _unwrap(v, kind) for k, v in kwargs.items()}), kind)

    # attributes and methods of the array inside, results kept inside
    def __getattr__(self, name):
        if name.startswith("__"):   # __array_interface__, __array_struct__: numpy would convert through them
            raise AttributeError(name)
        value = getattr(self._a, name)
        while name == "base" and value is not None and type(value) is not np.ndarray:
            value = getattr(value, "base", None)   # (numpy's as_strided views hang off a DummyArray: its base)
        kind = type(self)
        if callable(value):
            def method(*args, **kwargs):
                return _wrap(value(*_unwrap(args, kind), **{k: _unwrap(v, kind) for k, v in kwargs.items()}), kind)
            return method
        return _wrap(value, kind) if type(value) is np.ndarray else value

    def get(self):
        """A numpy copy (cupy's explicit transfer to the host)."""
        return self._a.copy()

    def __repr__(self):
        return f"{type(self).__name__}({self._a!r})"

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(v, type(self)) for v in self._a)

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
        return _wrap(self._a[_unwrap(key, type(self))], type(self))

    def __setitem__(self, key, value):
        self._a[_unwrap(key, type(self))] = _unwrap(value, type(self))

    @property
    def T(self):
        return type(self)(self._a.T)

    @property
    def real(self):
        return type(self)(self._a.real)

    @property
    def imag(self):
        return type(self)(self._a.imag)


def _operator(name):
    def op(self, *args):
        return _wrap(getattr(self._a, name)(*_unwrap(args, type(self))), type(self))
    op.__name__ = name
    return op


def _inplace_operator(name):
    def op(self, other):
        getattr(self._a, name)(_unwrap(other, type(self)))
        return self
    op.__name__ = name
    return op


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift lt le gt ge eq ne "
              "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor rlshift rrshift "
              "neg pos abs invert").split():
    setattr(WrappedArray, f"__{_name}__", _operator(f"__{_name}__"))
for _name in "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift".split():
    setattr(WrappedArray, f"__{_name}__", _inplace_operator(f"__{_name}__"))
WrappedArray.__hash__ = None


class _Function:
    """A numpy function or ufunc, run inside arrays of ``kind`` (its methods too: ``xp.add.at``,
    ``xp.maximum.reduce``)."""

    def __init__(self, fn, kind, allow_host=False):
        self._fn, self._kind, self._allow_host = fn, kind, allow_host

    def __call__(self, *args, **kwargs):
        kind = self._kind
        args = _unwrap(args, kind, self._allow_host)
        kwargs = {k: _unwrap(v, kind, self._allow_host) for k, v in kwargs.items()}
        return _wrap(self._fn(*args, **kwargs), kind)

    # the ufunc methods cupy 14 has: reduceat for add alone, accumulate for add and multiply, at for these
    _CUPY_UFUNC_METHODS = {"reduceat": {"add"}, "accumulate": {"add", "multiply"},
                           "at": {"add", "subtract", "maximum", "minimum"}}

    def __getattr__(self, name):
        value = getattr(self._fn, name)
        if isinstance(self._fn, np.ufunc) and self._fn.__name__ not in self._CUPY_UFUNC_METHODS.get(
                name, {self._fn.__name__}):
            raise NotImplementedError(f"`cupy_{self._fn.__name__}.{name}` is not supported yet")   # cupy's words
        return _Function(value, self._kind) if callable(value) else value


class Namespace:
    """The ``xp`` of arrays of ``kind``: numpy's namespace, with functions that take and give such arrays."""

    _TRANSFERS = {"asarray", "array", "asanyarray", "ascontiguousarray"}   # host -> device is explicit here

    def __init__(self, module, kind):
        self._module, self._kind = module, kind

    def __getattr__(self, name):
        if name == "ndarray":
            return self._kind
        if name == "asnumpy":
            return lambda a: a.get() if type(a) is self._kind else np.asarray(a)
        value = getattr(self._module, name)
        if isinstance(value, type) or not callable(value) and not hasattr(value, "__name__"):
            return value                    # dtypes, constants
        if not callable(value):
            return Namespace(value, self._kind)        # a submodule: linalg, fft, random, lib
        return _Function(value, self._kind, allow_host=name in self._TRANSFERS)


class WrappedObject:
    """A numpy object whose methods give arrays of ``kind`` (a generator's draws)."""

    def __init__(self, obj, kind):
        self._obj, self._kind = obj, kind

    def __getattr__(self, name):
        return _Function(getattr(self._obj, name), self._kind)
