"""The meta device: tensors with a shape, dtype and strides but no data.

PyTorch's "meta" tensors let a program build a model too large to allocate (``nn.Linear(.., device='meta')``,
``with torch.device('meta'):``), infer the shapes a forward pass makes, and then allocate the real thing
(``Module.to_empty``). Their values are never read: printing shows ``tensor(..., device='meta',
size=(3, 4))``, and ``item()``, ``cpu()`` and ``numpy()`` refuse.

Here a meta array is a ``WrappedArray`` (numpy inside, refusing to mix with host arrays, so a meta tensor
in an op with a CPU tensor fails as a CUDA one does) whose memory is never written:

- the factories (``empty``, ``zeros``, ``ones``, ``full`` and their ``_like`` forms) and copies onto the
  device make zeros with ``np.zeros``, whose large buffers are untouched pages of the operating system:
  address space, no memory, however big the model;
- writes into a meta array are skipped (``a[...] = v``, ``out=``, ``+=``), so initializers leave those pages
  untouched too; random ops draw nothing and leave the generators as they were (``MetaDraws``);
- ops compute on the zeros inside as they would on any array: that is how a result gets its shape, dtype
  and strides (it costs what the op costs on zeros; PyTorch's meta kernels compute shapes only).
"""
import numpy as np

from . import DeviceBackend
from .wrapped import WrappedArray, Namespace, _unwrap, _wrap

__all__ = ["MetaArray", "MetaBackend", "META_BACKEND", "no_meta_kernel"]

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaArray(WrappedArray):
    """An array on the meta device: numpy zeros inside, never written, never read out. (An op's own checks
    may read the zeros -- an index bounds check passes on them -- but a tensor's values are never shown:
    ``Tensor.item()`` and ``cpu()`` refuse.)"""

    __slots__ = ()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        result = _wrap(getattr(ufunc, method)(*_unwrap(inputs, MetaArray), **kwargs), MetaArray)
        if out is None:
            return result
        _unwrap(out, MetaArray)            # (an out= of another device is refused all the same)
        return out if len(out) > 1 else out[0]

    def __setitem__(self, key, value):
        _unwrap((key, value), MetaArray)   # nothing is written, but a host value is refused as on a device

    def get(self):
        raise NotImplementedError(NO_DATA)

    # copies are new untouched zeros (numpy's would write every byte)
    def copy(self, order="K"):
        return MetaArray(zeros_like_layout(self._a))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if not copy and np.dtype(dtype) == self._a.dtype:
            return self
        return MetaArray(zeros_like_layout(self._a, dtype))

    def __repr__(self):
        return f"meta_array(shape={self._a.shape}, dtype={self._a.dtype})"


for _name in "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift".split():
    setattr(MetaArray, f"__{_name}__", lambda self, other: self)   # writes are skipped


def no_meta_kernel(name, *arrays):
    """An op whose result's shape depends on the values (``nonzero``, ``unique``...) cannot run on the meta
    device: PyTorch's NotImplementedError."""
    if any(type(a) is MetaArray for a in arrays):
        raise NotImplementedError(f"aten::{name}: attempted to run this operator with Meta tensors, but there was "
                                  "no fake impl or Meta kernel registered.")


def zeros_like_layout(a, dtype=None):
    """Untouched zeros with ``a``'s shape, dtype (or ``dtype``) and memory order (the dims laid out as ``a``'s
    strides say)."""
    order = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))
    z = np.zeros([a.shape[d] for d in order], a.dtype if dtype is None else dtype)
    return z.transpose(np.argsort(order))


class _MetaNamespace(Namespace):
    """numpy's namespace for meta arrays, whose factories make untouched zeros (the values are never read)."""

    def __init__(self):
        super().__init__(np, MetaArray)

    def empty(self, shape, dtype=float, order="C", **kwargs):
        return MetaArray(np.zeros(shape, dtype, order))

    zeros = empty

    def ones(self, shape, dtype=None, order="C", **kwargs):
        return MetaArray(np.zeros(shape, np.dtype(float) if dtype is None else dtype, order))

    def full(self, shape, fill_value, dtype=None, order="C", **kwargs):
        if dtype is None:
            dtype = np.asarray(_unwrap(fill_value, MetaArray)).dtype
        return MetaArray(np.zeros(shape, dtype, order))

    def empty_like(self, a, dtype=None, order="K", subok=True, shape=None, **kwargs):
        inner = _unwrap(a, MetaArray, allow_host=True)
        if shape is not None or order != "K":
            return MetaArray(np.zeros(inner.shape if shape is None else shape,
                                      inner.dtype if dtype is None else dtype, "F" if order == "F" else "C"))
        return MetaArray(zeros_like_layout(inner, dtype))

    zeros_like = ones_like = empty_like

    def full_like(self, a, fill_value, dtype=None, **kwargs):
        return self.empty_like(a, dtype, **kwargs)


xp = _MetaNamespace()


class _MetaRng:
    """The meta device's random generator: every draw is untouched zeros of the asked size; nothing is
    drawn, and no generator moves (PyTorch's meta kernels don't touch one either)."""

    def random(self, n, dtype=np.float64):
        return xp.empty(int(n), dtype)

    standard_normal = random

    def integers(self, low, high, size, dtype=np.int64):
        return xp.empty(int(size), dtype)

    def standard_exponential(self, n):
        return xp.empty(int(n), np.float64)

    def poisson(self, lam):
        return xp.empty_like(lam, np.int64)

    def standard_gamma(self, alpha):
        return xp.empty_like(alpha, np.float64)

    def binomial(self, n, p):
        return xp.empty(np.broadcast_shapes(n.shape, p.shape), np.int64)


class MetaBackend(DeviceBackend):
    """The meta device as a backend: one device (``meta``, no index), arrays without data."""

    device_type = "meta"

    def __init__(self):
        super().__init__("meta", xp, MetaArray)
        self.rng = _MetaRng()

    def device_index(self, arr):
        return None

    def to_host(self, arr):
        raise NotImplementedError(NO_DATA)

    def from_host(self, arr, index):
        """A meta copy of host array ``arr``: its shape, dtype and layout, not its values."""
        return MetaArray(zeros_like_layout(arr))

    def to_device(self, arr, index):
        return arr

    def scatter_add(self, target, index, values):
        _unwrap((index, values), MetaArray)

    def ufunc_at(self, name, target, index, values):
        _unwrap((index, values), MetaArray)

    def as_strided(self, arr, shape, strides):
        return MetaArray(np.lib.stride_tricks.as_strided(arr._a, shape, strides))

    def address(self, arr):
        return arr._a.__array_interface__["data"][0]

    def cholesky(self, a, upper):
        return MetaArray(np.zeros(a.shape, a.dtype))

    def linalg_errors(self):
        import contextlib
        return contextlib.nullcontext()

    def argsort_stable(self, a, axis):
        return MetaArray(np.zeros(a.shape, np.int64))

    def accumulate(self, ufunc_name, a, axis):
        return MetaArray(np.zeros(a.shape, a.dtype))


META_BACKEND = MetaBackend()
