"""Helpers every op module shares: type promotion on arrays, ``out=``, in-place writes, dims.

Kernels (``ArrayFunction.forward``) see raw arrays and Python scalars.  numpy's
own promotion differs from PyTorch's in a few places (an int64 array times 1.5
is float64 in numpy, float32 in PyTorch; a 0-dim float64 array does not widen
a float32 one in PyTorch), so binary kernels call ``promote`` first.
"""
import sys
import functools
import math
import numbers
import types

import numpy as np

from .._warnings import user_stacklevel  # noqa: F401  (ops import it from here)
from .. import _dtype as D
from ..backend import CPU_ARRAY, astype, is_array, namespace
from .._tensor import Tensor
from .._dtype import is_inexact_np, is_float_np
# (these moved below the ops layer, where autograd can use them; ops import them from here as before)
from .._dtype import can_cast_np, _type_word  # noqa: F401
from .._layout import shape_str, broadcast_shapes_or_raise  # noqa: F401

_float_kinds = "fc"


def promote(a, b):
    """Cast arrays/scalars ``a`` and ``b`` so numpy computes in PyTorch's result dtype."""
    ta, tb = type(a), type(b)
    # (arrays of any device: CPU_ARRAY is the quick test, is_array the one for device arrays)
    a_arr = ta is CPU_ARRAY or ta is not float and ta is not int and is_array(a)
    b_arr = tb is CPU_ARRAY or tb is not float and tb is not int and is_array(b)
    if a_arr:
        if b_arr:
            da, db = a.dtype, b.dtype
            if da == db:
                return a, b
            # float with bool: numpy already gives the float dtype, as PyTorch does
            if (da.kind == "f" and db.kind == "b") or (da.kind == "b" and db.kind == "f"):
                return a, b
        elif tb is float:
            if a.dtype.kind in "fc":
                # (PyTorch casts the number to float16 through float: numpy would round it straight from double)
                return a, (b if a.dtype.itemsize != 2 else float(np.float32(b)))
        elif tb is int:
            if a.dtype.kind in "fc":
                return a, b
            if a.dtype.kind in "iu":
                return a, wrap_int(b, a.dtype)
    elif b_arr and ta is float and b.dtype.kind in "fc":
        return (a if b.dtype.itemsize != 2 else float(np.float32(a))), b
    dt = D.result_type_of(a, b).np
    return cast(a, dt), cast(b, dt)


def promote_to_float(a, b):
    """``promote`` for float-valued binary ops (``/``, atan2, xlogy, copysign, igamma, ...): PyTorch's
    result dtype, or the default float when that is integral or bool.  Each operand is cast straight
    to the float dtype, never through the common integer dtype: ``uint8_tensor / -3`` is -1.33 in
    PyTorch, where -3 wrapped into uint8 first would be 253 (int with float16 is float16)."""
    dt = D.result_type_of(a, b)
    if not (dt.is_floating_point or dt.is_complex):
        dt = D.get_default_dtype()
    dt = dt.np
    return cast(a, dt), cast(b, dt)


def result_np_dtype(*operands):
    return D.result_type_of(*operands).np


def cast(x, np_dtype):
    """An array in ``np_dtype`` (Python scalars stay scalars: numpy treats them as weak)."""
    if hasattr(x, "dtype") and not isinstance(x, np.generic):
        return x if x.dtype == np_dtype else astype(x, np_dtype)
    if isinstance(x, np.generic):
        x = x.item()
    if np_dtype.kind == "b":
        return bool(x)
    if np_dtype.kind in "iu" and isinstance(x, float):
        return np_dtype.type(x)
    if np_dtype.kind in "iu" and isinstance(x, int):
        return wrap_int(x, np_dtype)
    if np_dtype.kind == "V":  # bfloat16: numpy treats Python numbers as weak only for its own dtypes
        return np_dtype.type(np.float32(x) if isinstance(x, float) else x)   # (a float goes through float32)
    if np_dtype == np.float16 and isinstance(x, float):
        return float(np.float32(x))   # (PyTorch casts a double to float16 through float)
    return x


def wrap_int(value, np_dtype):
    """A Python int in an integer dtype's range, wrapped modulo 2**bits as PyTorch converts it
    (``uint8_tensor * -1`` multiplies by 255; numpy would raise OverflowError instead)."""
    lo, hi = _int_range(np_dtype)
    if lo <= value <= hi:
        return value
    bits = np_dtype.itemsize * 8
    value &= (1 << bits) - 1
    return value - (1 << bits) if lo < 0 and value > hi else value


_INT_RANGES = {}


def _int_range(np_dtype):
    """(min, max) of an integer dtype, remembered (np.iinfo is slow for a per-op check)."""
    r = _INT_RANGES.get(np_dtype)
    if r is None:
        info = np.iinfo(np_dtype)
        r = _INT_RANGES[np_dtype] = (int(info.min), int(info.max))
    return r


def checked_int(value, np_dtype, c_name=True):
    """A Python number for a dtype, or PyTorch's RuntimeError where its ``c10::overflows`` says it does
    not fit (the ops that check their scalar arguments: fill_, full, setitem, masked_fill, clamp, where,
    threshold, lerp, addcmul/addcdiv ``value=``, ``alpha=``, a ``pow`` exponent, ``tensor(..., dtype=)``;
    ``tensor()`` names the dtype, the others its C type).  An int may be negative down to -max for an
    unsigned type (it then wraps: ``fill_(-1)`` is 255); a float must lie in the type's range
    (``fill_(-0.75)`` on uint8 is refused).  For a floating dtype a finite number must lie in its range
    too (``fill_(1e40)`` on float32 is refused; inf and NaN pass), and a complex number with an imaginary
    part fits no real dtype; ``tensor()`` checks only integers."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Number):
        return value
    if isinstance(value, numbers.Real):
        if np_dtype.kind in "iu":
            lo, hi = _int_range(np_dtype)
            if isinstance(value, numbers.Integral):
                fits = value <= hi and (value >= -hi if lo == 0 else value >= lo)
            else:
                fits = lo <= value <= hi
        elif c_name and is_float_np(np_dtype):
            hi = _float_max(np_dtype)
            fits = -hi <= value <= hi or (not isinstance(value, numbers.Integral) and not math.isfinite(value))
        else:
            return value
    else:  # complex
        fits = not c_name or np_dtype.kind == "c" or value.imag == 0
    if not fits:
        name = np_dtype.name
        if c_name:
            name = _C_NAMES.get(name) or name + "_t"
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value


# the C++ type names PyTorch's overflow message uses (the integer types are "<name>_t")
_C_NAMES = {"int32": "int", "float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}


_FLOAT_MAX = {}


def _float_max(np_dtype):
    """The largest finite value of a floating dtype (bfloat16 included), remembered."""
    r = _FLOAT_MAX.get(np_dtype)
    if r is None:
        if np_dtype.name == "bfloat16":
            import ml_dtypes  # np.finfo knows bfloat16 only through ml_dtypes.finfo (slow to import: only here)
            r = float(ml_dtypes.finfo(np_dtype).max)
        else:
            r = float(np.finfo(np_dtype).max)
        _FLOAT_MAX[np_dtype] = r
    return r


def to_float(x):
    """Integer and bool inputs of float-valued ops compute in the default float dtype."""
    if is_inexact_np(x.dtype):
        return x
    return x.astype(D.get_default_dtype().np)


def is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def check_kernel_dtype(kernel, np_dtype, allowed):
    """PyTorch's dispatch error where its kernel has no loop for a dtype: ``allowed`` holds the
    categories it has ('b' bool, 'i' integers, 'f' floats incl. float16/bfloat16, 'c' complex)."""
    kind = np_dtype.kind
    category = "b" if kind == "b" else "i" if kind in "iu" else "c" if kind == "c" else "f"
    if category not in allowed:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(np_dtype)}\'')


def check_broadcast(*operands):
    """PyTorch's broadcast error for the Tensors among ``operands`` (numbers take no part): its
    TensorIterator checks the shapes before it looks for a kernel, so this comes before a dtype check."""
    shape = ()
    for x in operands:
        if isinstance(x, Tensor):
            shape = broadcast_shapes_or_raise(shape, x._data.shape)


def check_binary_kernel(kernel, a, b, allowed):
    """``check_kernel_dtype`` for a binary op on its result dtype, after the shapes are checked (PyTorch
    reports a broadcast error before a missing kernel)."""
    check_broadcast(a, b)
    check_kernel_dtype(kernel, result_np_dtype(a, b), allowed)


def require_tensor(fn_name, value, arg="other", position=2):
    """PyTorch's TypeError for an op whose argument must be a Tensor (``maximum(t, 0.5)``)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def as_tensor_arg(x, like=None):
    """Tensors pass through; numbers and lists become tensors (used where PyTorch wants a Tensor)."""
    if isinstance(x, Tensor):
        return x
    from .creation import tensor
    return tensor(x)


def wrap_dim(dim, ndim):
    """A dim in [0, ndim): negative dims count from the end; IndexError as PyTorch words it."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_dims(dims, ndim):
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, numbers.Integral):
        dims = (dims,)
    out = tuple(wrap_dim(int(d), ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


def write_out(out, result):
    """Implement ``out=``: copy ``result`` into ``out`` (resized if its shape differs)."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        if isinstance(out, (tuple, list)):
            for o, r in zip(out, result):
                write_out(o, r)
            return out
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    from ..autograd.grad_mode import _state
    if _state.enabled and (out._requires_grad or (isinstance(result, Tensor) and result._requires_grad)):
        raise RuntimeError("functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")
    r = result._data
    if out._data.shape != r.shape:
        out._data = namespace(out._data).empty(r.shape, dtype=out._data.dtype) if is_array(r) else r.astype(
            out._data.dtype)
    if not can_cast_np(r.dtype, out._data.dtype):
        raise RuntimeError(f"result type {_type_word(r.dtype)} can't be cast to the desired output type "
                           f"{_type_word(out._data.dtype)}")
    out._data[...] = r
    out._bump_version()
    return out


def needed(ctx, i, x):
    """``x`` to save for backward if input ``i`` will get a gradient, else None.  PyTorch saves a tensor
    only for the formulas that will run (``mm`` saves ``mat2`` only when ``self`` needs a gradient), so
    modifying an unneeded one in place afterwards is no error."""
    n = ctx.needs_input_grad
    return x if i < len(n) and n[i] else None


def _takes(fn, names):
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return any(n in params for n in names) and not any(n in params for n in ("axis", "keepdims"))


def with_numpy_names(fn):
    """``fn`` also taking numpy's argument names ``axis=`` and ``keepdims=`` for ``dim``/``keepdim``, as
    PyTorch's argument parser does for every ``torch.*`` function and Tensor method (``x.sum(axis=0)``);
    the Python-level ``nn.functional`` does not."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "axis" in kwargs or "keepdims" in kwargs:
            for np_name, name in (("axis", "dim"), ("keepdims", "keepdim")):
                if np_name in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{np_name}'")
                    kwargs[name] = kwargs.pop(np_name)
        return fn(*args, **kwargs)
    return wrapper


def add_numpy_names(target):
    """Wrap every public function of ``target`` (a class, or a module's globals) that has a ``dim`` or
    ``keepdim`` parameter with ``with_numpy_names``."""
    items = vars(target) if isinstance(target, type) else target
    for name, fn in list(items.items()):
        if isinstance(fn, types.FunctionType) and not name.startswith("_") and _takes(fn, ("dim", "keepdim")):
            if isinstance(target, type):
                setattr(target, name, with_numpy_names(fn))
            else:
                target[name] = with_numpy_names(fn)


def register(names_to_functions):
    """Attach functions to Tensor as methods (``t.sin()`` is ``sin(t)``)."""
    for name, fn in names_to_functions.items():
        setattr(Tensor, name, fn)
