"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``linspace``, ``eye``, ``*_like`` ...

dtype inference follows PyTorch: Python floats give the default dtype
(float32), Python ints int64, bools bool; a numpy array keeps its dtype.
``empty`` returns zero-filled memory (PyTorch's is uninitialised: any values
are allowed, and zeros keep notebooks reproducible).
"""
import functools
import builtins
import math
import numbers
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._device import as_device, factory_device, to_device_array, CPU
from ..backend import cuda_backend, device_namespace, namespace, as_strided, is_array, astype, CPU_ARRAY, CPU_BACKEND
from ..backend import dlpack_device as backend_dlpack_device, allocation_error
from .._layout import like_empty_like, relayout, format_strides, copy_in_format, in_format
from .._tensor import Tensor, Size, preserve_format, contiguous_format
from ._util import write_out, register, cast, checked_int, require_tensor, _type_word
from ..autograd.function import ArrayFunction
from ..autograd.grad_mode import _state
from .._dtype import is_inexact_np

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "from_dlpack", "zeros", "ones", "full", "empty",
           "empty_permuted",
           "zeros_like", "ones_like", "full_like", "empty_like", "arange", "range", "linspace", "logspace",
           "eye", "empty_strided", "scalar_tensor", "frombuffer", "complex", "polar"]

_pyrange = range

# numpy, named for what it does here: values that are computed on the host (data from Python lists,
# linspace's and logspace's exact scalar recipes) and then moved to the target device once, by _finish
_host = CPU_BACKEND.xp


def _xp(device):
    """The namespace that allocates on ``device`` (None: the CPU): factories allocate there directly."""
    return device_namespace(None if device is None else as_device(device))


def _size_arg(size, fn="zeros"):
    if len(size) == 0:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = size[0]
    try:
        out = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element of type "
                        f"{type(size[0]).__name__} at pos 0") from None
    numel = 1
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(out)}")
        numel *= s
    if numel > (2 ** 63 - 1) // 16:  # bytes past int64 for some dtype: PyTorch refuses before allocating
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(out)}")
    return out


def _finish(arr, device, requires_grad, out=None):
    """Place ``arr`` on ``device`` and wrap it (the common tail of every factory; an array already
    allocated there stays as it is, a host array is moved once)."""
    if device is not None:
        dev = as_device(device)
        if dev.type != "cpu":
            arr = to_device_array(arr, dev)
    t = Tensor._make(arr)
    if requires_grad:
        _require_grad(t)
    if _state.inference:
        t._is_inference = True
    if out is not None:
        return write_out(out, t)
    return t


def _infer_np_dtype(arr, data):
    """PyTorch's dtype for data that came from Python lists/scalars."""
    k = arr.dtype.kind
    if k == "f":
        return D.get_default_dtype().np
    if k == "c":
        return D._default_complex().np
    if k in "iu":
        return np.dtype(np.int64)
    if k == "b":
        return np.dtype(np.bool_)
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _flatten_tensors(data, inside=False):
    """A tensor inside a list counts as a number, as PyTorch takes its item(): a one-element tensor of any
    shape becomes a numpy scalar of its dtype (its dtype then takes part in the promotion); a bigger one is
    refused."""
    if isinstance(data, Tensor):
        arr = data._data if data.is_cpu else data._data.get()
        if not inside:
            return arr
        if arr.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return arr.reshape(-1)[0]
    if isinstance(data, (list, tuple)):
        return [_flatten_tensors(d, True) for d in data]
    return data


def _holds_tensor(data):
    return isinstance(data, Tensor) or isinstance(data, (list, tuple)) and any(_holds_tensor(d) for d in data)


def _check_ragged(data, depth=0):
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (list, tuple)):
        n = len(data[0])
        for d in data:
            if not isinstance(d, (list, tuple)):
                raise TypeError(f"not a sequence")
            if len(d) != n:
                raise ValueError(f"expected sequence of length {n} at dim {depth + 1} (got {len(d)})")
            _check_ragged(d, depth + 1)


def _to_array(data, dtype):
    if is_array(data):   # a numpy array, or a device array (copied where it is)
        arr = data
        xp = namespace(arr)
        if dtype is None:
            D.from_numpy_dtype(arr.dtype)  # TypeError for dtypes PyTorch lacks
        out = xp.array(arr, copy=True) if dtype is None else xp.array(astype(arr, dtype.np), copy=False)
        if arr.size and min(arr.strides, default=0) >= 0:
            # PyTorch copies an array as clone() does (preserve_format): its strides, even a size-1 dim's
            out = like_empty_like(out, arr)
        return out
    if isinstance(data, np.generic):
        return astype(_host.array(data), dtype.np) if dtype else _host.array(data)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type 'str'")
    has_tensor = isinstance(data, (list, tuple)) and _holds_tensor(data)
    data = _flatten_tensors(data)
    if isinstance(data, (list, tuple)):
        _check_ragged(data)
    try:
        arr = _host.array(data)
    except ValueError as e:
        raise ValueError(str(e)) from None
    if arr.dtype.kind in "US":  # strings: PyTorch reads a leading str as one more (endless) dimension
        if isinstance(_first(data), str):
            raise ValueError("too many dimensions 'str'")
        raise TypeError("new(): invalid data type 'str'")
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(_first(data)).__name__}")
    if dtype is not None:
        if arr.dtype.kind in "iu" and arr.size and dtype.np.kind in "iu":  # Python ints must fit
            checked_int(int(arr.min()), dtype.np, c_name=False)
            checked_int(int(arr.max()), dtype.np, c_name=False)
        return astype(arr, dtype.np)   # (as PyTorch converts: Python floats reach a half type through float)
    if has_tensor or isinstance(_first(data), np.generic):
        # tensors' and numpy scalars' dtypes are kept, Python numbers count as PyTorch's defaults, all promoted
        dt = None
        for leaf in _host.array(data, dtype=object).reshape(-1):
            d = D.from_numpy_dtype(leaf.dtype) if isinstance(leaf, np.generic) else D._scalar_dtype(leaf)
            dt = d if dt is None else D.promote_types(dt, d)
        return arr.astype(dt.np, copy=False)
    return arr.astype(_infer_np_dtype(arr, data), copy=False)


def _first(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor with a copy of ``data`` (nested lists, numbers, numpy arrays or tensors)."""
    device = factory_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=user_stacklevel())
        # (a clone: a dense layout kept, as clone(preserve_format))
        arr = copy_in_format(data._data, "preserve_format") if dtype is None else astype(data._data, dtype.np)
        return _finish(arr, device if device is not None else None, requires_grad) if device is not None or \
            data.is_cpu else _finish_same_device(arr, requires_grad)
    arr = _to_array(data, dtype)   # on the host (or where a given device array is), then moved once
    return _finish(arr, device, requires_grad)


def _finish_same_device(arr, requires_grad):
    t = Tensor._make(arr)
    if requires_grad:
        _require_grad(t)
    return t


def _require_grad(t):
    """A factory's ``requires_grad=True``: PyTorch's factories word the refusal with a capital O (the
    ``requires_grad_()`` method's has a small one)."""
    if not is_inexact_np(t._data.dtype):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t.requires_grad = True


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    device = factory_device(device)
    dt = dtype or D.get_default_dtype()
    return _finish(_xp(device).array(s, dtype=dt.np), device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory when it can (a tensor or a numpy array of the right dtype)."""
    device = factory_device(device)
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, CPU_ARRAY) and (dtype is None or dtype.np == data.dtype) and \
            (device is None or as_device(device).type == "cpu"):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if copy:
        t = tensor(obj, dtype=dtype, device=device) if not isinstance(obj, Tensor) else obj.clone()
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_()
    return t


def from_numpy(ndarray):
    """A tensor over the same memory as ``ndarray`` (no copy: changes show in both)."""
    if not isinstance(ndarray, CPU_ARRAY):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    D.from_numpy_dtype(ndarray.dtype)
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior.", UserWarning,
                      stacklevel=user_stacklevel())
    if not ndarray.dtype.isnative:
        ndarray = ndarray.astype(ndarray.dtype.newbyteorder("="))
    return Tensor._make(ndarray)


def from_dlpack(ext_tensor):
    """Zero-copy import of a tensor from another library: any object with ``__dlpack__`` (numpy, cupy, torch,
    jax ...) or a legacy DLPack capsule (``torch.utils.dlpack.to_dlpack``). The result shares its memory."""
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    dev_type = ext_tensor.__dlpack_device__()[0] if hasattr(ext_tensor, "__dlpack_device__") else 1
    xp = np if dev_type in (1, 3) else cuda_backend().xp   # kDLCPU, kDLCUDAHost (pinned): host memory
    try:
        return Tensor._make(xp.from_dlpack(ext_tensor))
    except (RuntimeError, BufferError, TypeError) as e:
        if "dtype" in str(e).lower():   # bfloat16: numpy's DLPack knows no such type
            raise RuntimeError(f"from_dlpack: {e} ({xp.__name__} cannot import this element type through "
                               f"DLPack; bfloat16 is one: convert it first, e.g. with .float())") from None
        raise


class _Capsule:
    """A legacy DLPack capsule dressed as an object with ``__dlpack__``, which is all numpy and cupy accept."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return backend_dlpack_device(self.capsule)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    arr = _host.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset)
    return _finish(arr, None, requires_grad)


def _dtype_or_default(dtype):
    return (dtype or D.get_default_dtype()).np


def _allocating(factory):
    """A factory whose array is too large to allocate raises PyTorch's allocator RuntimeError, not numpy's
    MemoryError."""
    @functools.wraps(factory)
    def wrapper(*args, **kwargs):
        try:
            return factory(*args, **kwargs)
        except MemoryError as e:
            raise allocation_error(e).with_traceback(None) from None
    return wrapper


@_allocating
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    device = factory_device(device)
    return _finish(_xp(device).zeros(_size_arg(size), _dtype_or_default(dtype)), device, requires_grad, out)


@_allocating
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    device = factory_device(device)
    return _finish(_xp(device).ones(_size_arg(size, "ones"), _dtype_or_default(dtype)), device, requires_grad, out)


@_allocating
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    device = factory_device(device)
    arr = _xp(device).zeros(_size_arg(size, "empty"), _dtype_or_default(dtype))
    if memory_format is preserve_format:   # (there is no input whose layout could be preserved)
        raise RuntimeError("unsupported memory format Preserve")
    if memory_format is not None:
        arr = in_format(arr, memory_format.name)
    return _finish(arr, device, requires_grad, out)


@_allocating
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    device = factory_device(device)
    size, stride = tuple(size), tuple(stride)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    flat = _xp(device).zeros(max(n, 1), _dtype_or_default(dtype))
    item = flat.itemsize
    arr = as_strided(flat, size, tuple(s * item for s in stride))
    return _finish(arr, device, requires_grad)


@_allocating
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An empty tensor of ``size`` whose dims lie in memory in the order ``physical_layout`` (outermost
    first): ``empty_permuted((2, 3, 4), (0, 2, 1))`` is laid out as channels-last is."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               f"want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    stride, step = [0] * len(size), 1
    for d in reversed(order):   # the last dim of the layout is the innermost
        stride[d] = step
        step *= max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)


def _fill_dtype(fill_value):
    if isinstance(fill_value, bool):
        return np.dtype(np.bool_)
    if isinstance(fill_value, numbers.Integral):
        return np.dtype(np.int64)
    if isinstance(fill_value, numbers.Complex) and not isinstance(fill_value, numbers.Real):
        return D._default_complex().np
    return D.get_default_dtype().np


@_allocating
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    device = factory_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    np_dt = dtype.np if dtype is not None else _fill_dtype(fill_value)
    value = cast(checked_int(fill_value, np_dt), np_dt)
    if type(value) is float and np_dt.itemsize == 2:   # a Python float reaches a half type through float32
        value = np.float32(value)
    return _finish(_xp(device).full(_size_arg((size,), "full"), value, np_dt), device, requires_grad, out)


def _like(input, dtype, device):
    np_dt = dtype.np if dtype is not None else input._data.dtype
    dev = device if device is not None else (None if input.is_cpu else input.device)
    return np_dt, dev


def _laid_out_like(arr, input, memory_format):
    """``arr`` (a new C-ordered array of input's shape) in the layout ``memory_format`` asks for; the
    default preserve_format keeps input's strides where they are dense, as PyTorch's ``empty_like``."""
    x = input._data
    if memory_format is contiguous_format or memory_format is preserve_format and (
            x.ndim < 2 or x.flags.c_contiguous and x.size and 1 not in x.shape):
        return arr   # (the usual case, quickly: size-1 dims of x, and an empty x's dims, may carry strides that
        #             preserve keeps; numpy calls every empty array C-contiguous)
    return relayout(arr, format_strides(x.shape, [st // x.itemsize for st in x.strides], memory_format.name))


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format):
    np_dt, dev = _like(input, dtype, device)
    return _finish(_laid_out_like(_xp(dev).zeros(input._data.shape, np_dt), input, memory_format), dev,
                   requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=preserve_format):
    np_dt, dev = _like(input, dtype, device)
    arr = _laid_out_like(_xp(dev).ones(input._data.shape, np_dt), input, memory_format)
    if dev is None and input.is_cpu:
        t = Tensor._make(arr)
        if requires_grad:
            _require_grad(t)
        return t
    return _finish(arr, dev, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format):
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=preserve_format):
    np_dt, dev = _like(input, dtype, device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    arr = _xp(dev).full(input._data.shape, cast(checked_int(fill_value, np_dt), np_dt), np_dt)
    return _finish(_laid_out_like(arr, input, memory_format), dev, requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    """Values start, start+step, ... < end (float arguments give the default float dtype)."""
    device = factory_device(device)
    if end is None:
        start, end = 0, start
    start, end, step = _num(start), _num(end), _num(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        np_dt = D.get_default_dtype().np if is_float else np.dtype(np.int64)
    else:
        np_dt = dtype.np
    n = max(0, int(np.ceil((end - start) / step)))
    if np_dt.kind in "iu" and all(isinstance(v, numbers.Integral) for v in (start, end, step)):
        arr = _xp(device).arange(start, start + n * step, step, dtype=np_dt)[:n]
    else:
        arr = (start + _xp(device).arange(n, dtype=np.float64) * step).astype(np_dt)
    return _finish(arr, device, requires_grad, out)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Deprecated in PyTorch: like arange but includes ``end``."""
    device = factory_device(device)
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                  "in [start, end).", UserWarning, stacklevel=user_stacklevel())
    if end is None:
        start, end = 0, start
    n = int((end - start) // step) + 1
    np_dt = (dtype or D.get_default_dtype()).np
    arr = (start + _xp(device).arange(n, dtype=np.float64) * step).astype(np_dt)
    return _finish(arr, device, requires_grad, out)


def _as_scalar_type(v, np_dt):
    """``Scalar.to<scalar_t>()``: integers truncate (and wrap); 16-bit floats go through float32, as c10's do."""
    if not is_inexact_np(np_dt):
        return float(np.int64(int(v)).astype(np_dt))
    if np_dt.itemsize == 2:
        return np_dt.type(np.float32(v))
    return np_dt.type(v)


def _c_double_to_int(x, np_dt):
    """double -> integer as x86-64 converts: truncate; out of range (inf, nan) gives the minimum of int64,
    or of int32 for narrower types, which keep their low bits."""
    x = _host.trunc(x)
    wide = np_dt.itemsize == 8
    lim = 2.0 ** 63 if wide else 2.0 ** 31
    ok = (x >= -lim) & (x < lim)
    v = _host.where(ok, x, -lim).astype(np.int64)
    return v.astype(np_dt)


def _fused(a, b, c, np_dt):
    """a * b + c as PyTorch's compiled kernels compute it: one fused multiply-add in float32 and float64;
    float16/bfloat16 (and complex) arithmetic rounds each operation."""
    from .random import _fma32, _fma64      # the exact fma lives with the random kernels (which import us)
    if np_dt == np.float64:
        return _fma64(a, b, c)
    if np_dt == np.float32:
        return _fma32(a, b, c)
    return (a * b).astype(np_dt) + c


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end, computed as PyTorch's CPU kernel does: with
    step = (end - start) / (steps - 1) in the output dtype (float64 for integers), the first half is
    start + step * i and the second half end - step * (steps - 1 - i), each a fused multiply-add, so
    the ends are exact and the halves mirror each other."""
    device = factory_device(device)
    start, end = _num(start), _num(end)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        is_complex = any(isinstance(v, builtins.complex) for v in (start, end))
        np_dt = D._default_complex().np if is_complex else D.get_default_dtype().np
    else:
        np_dt = dtype.np
    work = np_dt if is_inexact_np(np_dt) else np.dtype(np.float64)
    if steps == 0:
        arr = _host.zeros(0, np_dt)   # (linspace's values are computed on the host: exact fma recipe)
    else:
        s, e = _as_scalar_type(start, np_dt), _as_scalar_type(end, np_dt)
        if steps == 1:
            arr = _host.array([s], dtype=work)
        else:
            step = (work.type(e) - work.type(s)) / work.type(steps - 1)
            half = steps // 2
            i = _host.arange(steps)
            lo = _fused(step, i[:half].astype(work), work.type(s), work)
            hi = _fused(-step, (steps - 1 - i[half:]).astype(work), work.type(e), work)
            arr = _host.concatenate([lo, hi]).astype(work)
        arr = arr.astype(np_dt) if is_inexact_np(np_dt) else _c_double_to_int(arr, np_dt)
    return _finish(arr, device, requires_grad, out)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """base ** linspace(start, end, steps), as PyTorch computes it: the exponents in float64 from start and
    end converted to the output dtype (this loop is not compiled with fused multiply-adds: each operation
    rounds), the powers by the C library's pow in float64, then rounded to the output dtype."""
    device = factory_device(device)
    start, end = _num(start), _num(end)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dt = (dtype or D.get_default_dtype()).np
    if np_dt.kind == "c":       # complex: numpy's power of a complex linspace
        lin = linspace(start, end, steps, dtype=D.from_numpy_dtype(np_dt))._data
        return _finish(_host.power(np_dt.type(base), lin).astype(np_dt), device, requires_grad, out)
    if steps <= 1:
        exps = _host.array([float(start)] * steps)         # one value: start itself, not converted
    else:
        s, e = _as_scalar_type(start, np_dt), _as_scalar_type(end, np_dt)
        diff = float(_host.array(e, np_dt) - _host.array(s, np_dt)) if is_inexact_np(np_dt) else e - s
        step = diff / (steps - 1)                        # end - start in the output dtype, then float64
        half = steps // 2
        i = _host.arange(steps, dtype=np.float64)
        exps = _host.concatenate([float(s) + step * i[:half], float(e) - step * (steps - 1 - i[half:])])
    base = float(base)
    arr = _host.array([_pow(base, x) for x in exps.tolist()], dtype=np.float64)   # C's pow, on the host
    if is_inexact_np(np_dt):
        arr = arr.astype(np.float32).astype(np_dt) if np_dt.itemsize == 2 else arr.astype(np_dt)
    else:
        arr = _c_double_to_int(arr, np_dt)
    return _finish(arr, device, requires_grad, out)


def _pow(x, y):
    """The C library's pow (numpy's own may differ in the last bit), inf on overflow."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return math.inf
    except ValueError:          # 0 to a negative power (C: inf), a negative base to a fractional one (nan)
        return math.inf if x == 0 else math.nan


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    device = factory_device(device)
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    return _finish(_xp(device).eye(n, n if m is None else m, dtype=_dtype_or_default(dtype)), device, requires_grad,
                   out)


def _from_parts(real, imag):
    """The complex array with these real and imaginary parts (broadcast), each written as it is: not
    ``real + imag * 1j``, where an infinite imag makes the real part inf * 0 = NaN. float32 parts give
    complex64 (float16 too: numpy has no complex32)."""
    xp = namespace(real, imag)
    out = xp.empty(xp.broadcast_shapes(real.shape, imag.shape), np.promote_types(real.dtype, np.complex64))
    out.real[...] = real
    out.imag[...] = imag
    return out


class Complex(ArrayFunction):
    """out = real + i imag;   dreal = Re(grad),  dimag = Im(grad)"""
    node_name = "ComplexBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, real, imag):
        return _from_parts(real, imag)

    @staticmethod
    def backward(ctx, grad):
        # imag's gradient first, as PyTorch's ComplexBackward0 computes them: with create_graph the order
        # numbers the new nodes, which orders the double backward's (rounded) sums
        gi = grad.imag if ctx.needs_input_grad[1] else None
        return grad.real if ctx.needs_input_grad[0] else None, gi


class Polar(ArrayFunction):
    """out = abs e^(i angle);   dabs = Re(conj(grad) sgn(out)),  dangle = Re(conj(grad) i out)"""
    node_name = "PolarBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, abs, angle):
        xp = namespace(abs, angle)
        out = _from_parts(abs * xp.cos(angle), abs * xp.sin(angle))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        # PyTorch's polar_backward: both from grad's conjugate, abs's first
        grad_conj = grad.conj()
        need = ctx.needs_input_grad
        g_abs = (grad_conj * out.sgn()).real if need[0] else None
        g_angle = (grad_conj * (out * 1j)).real if need[1] else None
        return g_abs, g_angle


def _check_complex_parts(fn, a, b):
    """ATen's checks of complex()/polar()'s two parts: float tensors (Half, Float, Double) of one dtype."""
    require_tensor(fn, b, "imag" if fn == "complex" else "angle")
    x, y = a._data.dtype, b._data.dtype
    if x.name not in ("float16", "float32", "float64") or y.name not in ("float16", "float32", "float64"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_type_word(x)} "
                           f"and {_type_word(y)}")
    if x != y:
        raise RuntimeError(f"Expected object of scalar type {_type_word(x)} but got scalar type {_type_word(y)} "
                           f"for second argument")


def complex(real, imag, *, out=None):
    _check_complex_parts("complex", real, imag)
    return write_out(out, Complex.apply(real, imag))


def polar(abs, angle, *, out=None):
    _check_complex_parts("polar", abs, angle)
    if abs._data.dtype == np.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    return write_out(out, Polar.apply(abs, angle))


# ---------------------------------------------------------------------- Tensor.new_*

def _new_kwargs(self, dtype, device):
    return (dtype or self.dtype), (device if device is not None else self.device)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    dt, dev = _new_kwargs(self, dtype, device)
    if isinstance(data, Tensor):
        data = data._data
    return tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    dt, dev = _new_kwargs(self, dtype, device)
    return zeros(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    dt, dev = _new_kwargs(self, dtype, device)
    return ones(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    dt, dev = _new_kwargs(self, dtype, device)
    return empty(*size, dtype=dt, device=dev, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    dt, dev = _new_kwargs(self, dtype, device)
    return full(size, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def new(self, *args, device=None):
    """The legacy constructor, in ``self``'s dtype (and device): ``t.new(2, 3)`` and ``t.new(torch.Size(...))``
    give uninitialised tensors of that size, ``t.new([1, 2])`` (a list or tuple) a copy of the data, ``t.new(other)``
    an alias of other (of the same dtype), ``t.new()`` an empty one."""
    dev = device if device is not None else self.device
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other._data.dtype != self._data.dtype:
            raise TypeError(f"expected {_options_word(self)} (got {_options_word(other)})")
        return other.detach()   # (the same memory)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        return tensor(args[0], dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    return empty(*args, dtype=self.dtype, device=dev) if args else empty(0, dtype=self.dtype, device=dev)


def _options_word(t):
    from .indexing import _C10_NAMES   # (C++'s names of the dtypes, as PyTorch's messages print them)
    name = _C10_NAMES.get(t._data.dtype.name, t._data.dtype.name)
    return (f"TensorOptions(dtype={name}, device={t.device}, layout=Strided, requires_grad=false "
            f"(default), pinned_memory=false (default), memory_format=(nullopt))")


register({"new_tensor": new_tensor, "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
          "new_full": new_full, "new": new})


def zero_grad(grad):
    """PyTorch's ``zeros_like(grad)``, the gradient of the ops that are flat almost everywhere (round,
    floor, sign, div with rounding_mode, ...): a fresh constant, not ``grad * 0``, which is NaN where
    grad is inf or NaN and would record a graph (PyTorch's zero gradient has no grad_fn)."""
    return zeros_like(grad)
