"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``var``/``std``, ``norm``, ``softmax``, ``cumsum``...

The backward of a reduction spreads the gradient back over the reduced dims:
``unsqueeze`` them again (when ``keepdim=False``) and ``expand`` to the input
shape - a stride-0 view, so no memory is copied.

Three kinds of backward recur here:

- *smooth* reductions (``sum``, ``prod``, ``var``, ``logsumexp``, ``norm``): a formula;
- *value-selecting* ones that return indices (``max(dim)``, ``median(dim)``, ``mode``,
  ``kthvalue``, ``cummax``): the gradient goes to the element each value was picked from
  (``sorting.scatter_back``);
- *full* ``max()``/``min()``/``median()`` and ``amax``/``amin``: the gradient is split evenly
  among all elements equal to the result (ties share it), as PyTorch does.
"""
import builtins as _b  # this module defines sum/max/min/all/any: the builtins are _b.sum, _b.max...
import math
import numbers
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._layout import in_format, _iterator_layout, _preserved_strides
from .._tensor import Tensor
from ..backend import namespace, argsort_stable, accumulate, astype
from ..autograd.function import ArrayFunction
from ..autograd.grad_mode import _state
from ._util import (wrap_dim, wrap_dims, register, write_out, to_float, _type_word, promote, check_kernel_dtype,
                    shape_str)
from .elementwise import where, maximum, minimum, _ip, _conj
from .manip import Flip
from .stl_order import stl_sort
from .sorting import (scatter_back, selecting_op, TakeAlong, Shift, sort, _result, _kernel_op, _tied_rows, _rows,
                      _replay, _check_dim)
from .._dtype import is_inexact_np, opmath_np, to_opmath

__all__ = ["sum", "mean", "nansum", "nanmean", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
           "aminmax", "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "cumsum", "cumprod",
           "cummax", "cummin", "all", "any", "count_nonzero", "median", "nanmedian", "mode", "quantile",
           "nanquantile", "softmax", "log_softmax", "diff"]


def _restore_dims(grad, in_shape, dims, keepdim):
    """Turn the gradient of a reduced tensor back into one of ``in_shape`` (a broadcast view)."""
    if not keepdim and dims:
        shape = list(grad.shape)
        for d in sorted(dims):
            shape.insert(d, 1)
        grad = grad.reshape(shape)
    return grad.expand(in_shape)


def _acc_dtype(input, dtype):
    """PyTorch sums integers and bools in int64; ``dtype=`` casts before reducing (not to an integer
    dtype while a gradient is being recorded: PyTorch refuses that)."""
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex) and input._requires_grad and _state.enabled:
            raise RuntimeError(f"Autograd not support dtype: {_dtype_word(dtype.np)}")
        return dtype.np
    if input._data.dtype.kind in "biu":
        return np.dtype(np.int64)
    return None


def _accumulate(fn, x, np_dtype, **kw):
    """Run an array reduction (``fn``: an array method's name, ``"sum"``, ``"mean"``, ``"prod"``,
    ``"cumsum"``...: the methods skip np.sum's dispatch; or a function, ``xp.nansum``) with PyTorch's
    precision: cast to ``np_dtype`` first when given (``dtype=``, int64 for integers), and add
    float16/bfloat16 up in float32, rounding only the result (PyTorch's accumulate type: summing
    5000 x 0.1 in bfloat16 itself would stop growing at 32)."""
    if np_dtype is not None and x.dtype != np_dtype:
        x = astype(x, np_dtype)
    xp = namespace(x)
    run = getattr(x, fn) if type(fn) is str else lambda **k: fn(x, **k)
    acc = opmath_np(x.dtype)
    if fn in ("cumsum", "cumprod") and x.dtype.char in "fF":
        acc = np.promote_types(x.dtype, np.float64)   # ATen's running sums and products of float32 (and
                                                      # complex64) carry in double, each output rounded
    with np.errstate(over="ignore", invalid="ignore"):   # (inf and NaN, silently, as PyTorch's kernels)
        if acc != x.dtype:
            return xp.asarray(run(dtype=acc, **kw)).astype(x.dtype)
        if x.dtype.kind in "biu":  # numpy would widen int8/16/32 to int64 on its own; dtype= keeps them
            return xp.asarray(run(dtype=x.dtype, **kw))
        return xp.asarray(run(**kw))


class Sum(ArrayFunction):
    """out = x summed over dims;  dx = grad expanded back over those dims"""
    node_name = "SumBackward1"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.in_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        return _accumulate("sum", x, np_dtype, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx.in_shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    """out = the sum of all elements;  dx = grad expanded to x's shape"""
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype):
        ctx.in_shape = x.shape
        return _accumulate("sum", x, np_dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape), None


def _dims_arg(dim, ndim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1 and has nothing to reduce


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, D.dtype):  # sum(x, torch.float64)
        dim, dtype = None, dim
    dims = _dims_arg(dim, input._data.ndim)   # (a bad dim is reported before a dtype autograd refuses)
    np_dtype = _acc_dtype(input, dtype)
    if dim is None and not keepdim:   # (sum(x, dim=[]) also reduces every dim, but records SumBackward1)
        r = SumAll.apply(input, np_dtype)
    else:
        if dims is None:
            dims = tuple(range(input._data.ndim))
        r = Sum.apply(input, dims, keepdim, np_dtype)
    return r if out is None else write_out(out, r)


class Nansum(ArrayFunction):
    """out = the sum of the non-NaN elements over dims;  dx = grad expanded back, 0 where x is NaN"""
    node_name = "NansumBackward0"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim = dims, keepdim
        strides = [st // x.itemsize for st in x.strides]
        if np_dtype is not None and x.dtype != np_dtype:
            x = astype(x, np_dtype)   # (dtype=: cast first, as for sum, into a copy laid out as empty_like(x))
            strides = _preserved_strides(x.shape, strides)
        # the NaNs replaced by 0 here, not by numpy's nansum: it only knows its own float dtypes (a bfloat16
        # NaN would stay and make the sum NaN)
        xp = namespace(x)
        zeroed = xp.where(xp.isnan(x), x.dtype.type(0), x)
        if D.is_reduced_np(x.dtype) and x.size:
            return _nansum_reduced(zeroed, strides, dims, keepdim)
        return _accumulate("sum", zeroed, None, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        # with dtype=, PyTorch casts the gradient back to x's dtype first
        g = _restore_dims(grad.to(x.dtype), x.shape, ctx.dims, ctx.keepdim)
        return g * x.isnan().logical_not(), None, None, None  # (a product, as PyTorch's formula)


def _nansum_reduced(x, strides, dims, keepdim):
    """nansum of float16/bfloat16 ``x`` (NaNs already 0; ``strides``: the input's, in elements), rounded as
    ATen's CPU kernel rounds it. sum adds everything up in a float32 buffer; nansum has none: it adds up in
    float32 only the first run of reduced dims in TensorIterator's order (the fastest in memory, with the
    dims that coalesce with it), and adds each such partial sum, rounded to x's dtype, to the result, which
    is rounded after each addition. Over one run (one dim, or dims adjacent in memory) that is one rounding,
    as for sum.  (Single-threaded order: ATen splits reductions of 32768+ elements between threads.)"""
    xp = namespace(x)
    dims = tuple(sorted(dims))
    # TensorIterator's order of the reduced dims (a size-1 one kept by keepdim has a stride in the result:
    # it sorts as a kept dim, behind them); size-1 dims then coalesce away
    ranked = [d for d in dims if not (keepdim and x.shape[d] == 1)]
    order = [ranked[i] for i in _iterator_layout([x.shape[d] for d in ranked], [[strides[d] for d in ranked]])]
    order = [d for d in order if x.shape[d] != 1]
    run = order[:1]
    for d in order[1:]:
        if strides[run[-1]] * x.shape[run[-1]] != strides[d]:
            break
        run.append(d)
    outer = order[len(run):]
    if not outer:
        return _accumulate("sum", x, None, axis=dims, keepdims=keepdim)
    kept = [d for d in range(x.ndim) if d not in dims]
    kept_shape = tuple(x.shape[d] for d in kept)
    # kept dims first, then the other reduced dims (the fastest last: the order the partials are added in)
    ones = [d for d in dims if x.shape[d] == 1]
    y = xp.transpose(x, kept + ones + outer[::-1] + run[::-1])
    n_run = 1
    for d in run:
        n_run *= x.shape[d]
    f32 = np.float32
    with np.errstate(over="ignore", invalid="ignore"):
        partials = y.reshape(kept_shape + (-1, n_run)).sum(-1, dtype=f32).astype(x.dtype)
        out = xp.zeros(kept_shape, dtype=x.dtype)
        for k in range(partials.shape[-1]):
            out = (out.astype(f32) + partials[..., k].astype(f32)).astype(x.dtype)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else n for d, n in enumerate(x.shape)))
    return out


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if not input.is_floating_point():
        return sum(input, dim, keepdim, dtype=dtype, out=out)
    dims = _dims_arg(dim, input._data.ndim)
    r = Nansum.apply(input, tuple(range(input._data.ndim)) if dims is None else dims, bool(keepdim),
                     _acc_dtype(input, dtype))
    return r if out is None else write_out(out, r)


def _mean(x, np_dtype, **kw):
    """The mean with ``dtype=``: like a sum, except that a float16/bfloat16 ``dtype=`` does not round the
    input first: ATen's CPU mean sums in float32 and divides before rounding to it (``mean_out``: "for
    accuracy reasons"; a float64 input is still cast to float32 first, as its float32 sum does)."""
    if np_dtype is not None and D.is_reduced_np(np_dtype):
        return astype(_accumulate("mean", x, D.opmath_np(np_dtype), **kw), np_dtype)
    return _accumulate("mean", x, np_dtype, **kw)


class Mean(ArrayFunction):
    """out = x averaged over dims;  dx = grad / n expanded back over those dims"""
    node_name = "MeanBackward1"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.in_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.n = n
        if n:
            return _mean(x, np_dtype, axis=dims, keepdims=keepdim)
        xp = namespace(x)
        return xp.full(xp.sum(x, axis=dims, keepdims=keepdim).shape, np.nan, dtype=np_dtype or x.dtype)

    @staticmethod
    def backward(ctx, grad):
        # expanded first, then divided (PyTorch's mean_backward): with n == 0 the double backward then sums
        # an empty gradient to 0, where (grad / 0) expanded would give 0 * inf = NaN
        return _restore_dims(grad, ctx.in_shape, ctx.dims, ctx.keepdim) / ctx.n, None, None, None


class MeanAll(Mean):
    """out = the mean of all elements;  dx = grad / numel expanded to x's shape"""
    node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype):
        ctx.in_shape = x.shape
        ctx.n = x.size
        if x.size:
            return _mean(x, np_dtype)
        return namespace(x).asarray(np.nan, dtype=np_dtype or x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape) / ctx.n, None   # (expanded first, as in Mean)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if dtype is None and not is_inexact_np(input._data.dtype):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_dtype_word(input.dtype)}")
    _check_mean_dtype("mean", dtype)
    np_dtype = dtype.np if dtype is not None else None
    dims = _dims_arg(dim, input._data.ndim)
    if dim is None and not keepdim:   # (mean(x, dim=()) also reduces every dim, but records MeanBackward1)
        r = MeanAll.apply(input, np_dtype)
    else:
        if dims is None:
            dims = tuple(range(input._data.ndim))
        r = Mean.apply(input, dims, keepdim, np_dtype)
    return r if out is None else write_out(out, r)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if dtype is None and not is_inexact_np(input._data.dtype):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_dtype_word(input.dtype)}")
    _check_mean_dtype("nanmean", dtype)
    notnan = input.isnan().logical_not()
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / notnan.sum(dim, keepdim) if dim is not None else total / notnan.sum()


def _check_mean_dtype(name, dtype):
    """A mean is fractional: PyTorch refuses an integer or bool ``dtype=`` (even for a float input)."""
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be either a floating "
                           f"point or complex dtype. Got: {_dtype_word(dtype.np)}")


def _dtype_word(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(dt.name, dt.name)


def sum_to_size(self, *size):
    """Sum the broadcast dims away so the result has ``size`` (the reverse of ``expand``)."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    size = tuple(size)
    shape = self._data.shape
    if shape == size:
        return self
    lead = len(shape) - len(size)
    if lead < 0 or _b.any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not size:
        return sum(self)   # ATen's sum_to: a full sum for a 0-dim target (SumBackward0, no view)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    r = Sum.apply(self, dims, True, None) if dims else self
    if lead:
        r = r.reshape(size)
    return r


register({"sum": sum, "nansum": nansum, "mean": mean, "nanmean": nanmean, "sum_to_size": sum_to_size})

# ====================================================================== helpers for the ops below


def _keep(t, dims, keepdim):
    """A reduced Tensor with its reduced ``dims`` put back as size-1 dims (nothing to do with keepdim)."""
    if keepdim or not dims:
        return t
    shape = list(t.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return t.reshape(shape)


def _reduce_dims(dim, ndim):
    """``None`` or ``()``/``[]``: every dim; an int or a sequence: those dims (wrapped).  0-dim inputs: ``()``."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _one_dim(dim, ndim):
    """A single dim for ops along a dim (``cumsum``, ``softmax``...): wrapped; 0 for 0-dim inputs."""
    d = wrap_dim(_check_dim(dim), ndim)
    return d if ndim else 0


def _atleast_1d(x):
    return x.reshape(1) if x.ndim == 0 else x


def _check_nonempty_all(name, x):
    if x.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                           f"the reduction dim with the 'dim' argument.")


def _check_nonempty_dims(name, x, dims):
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _check_not_complex(name, x):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_type_word(x.dtype)}'")


def _evenly_distribute(grad, x, value):
    """The gradient of a full max/min/median: split equally among the elements equal to the result."""
    v = value._data
    mask = x.isnan() if is_inexact_np(v.dtype) and namespace(v).isnan(v) else (x == value)
    return where(mask, grad / mask.sum(), 0.0)


# ====================================================================== prod

def _prod_safe_zeros(grad, x, dim):
    """d prod / d x_k = (product of the elements before k) * (product of those after k), along ``dim``.

    No division, so it is right when ``x`` has zeros: both exclusive products are cumprods of
    ``x`` shifted by one place (the first from the start, the second from the end).
    """
    if x._data.size == 0:
        return grad.expand(x.shape)
    if x.shape[dim] == 1:   # the derivative of a one-element product is 1: no graph through x (PyTorch's too)
        return grad
    before = cumprod(Shift.apply(x, dim, 1, 1), dim)
    after = Flip.apply(cumprod(Flip.apply(Shift.apply(x, dim, -1, 1), (dim,)), dim), (dim,))
    return grad * (before * after)


class ProdAll(ArrayFunction):
    """out = the product of all elements;  dx = grad * out / x (without dividing when x has zeros)"""
    node_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype):
        out = _accumulate("prod", x, np_dtype)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        if x._data.ndim == 0:
            return grad, None
        x, out = _conj(x), _conj(out)   # complex: grad times the conjugate derivative (PyTorch's convention)
        zeros = int(namespace(x._data).count_nonzero(x._data == 0))   # (a device read)
        if zeros == 0:
            return grad * (out / x), None
        if zeros > 1 and not _state.enabled:  # every partial product contains a zero (PyTorch takes this
            return grad.new_zeros(x.shape), None  # shortcut only without create_graph: NaNs elsewhere then count)
        return _prod_safe_zeros(grad, x.reshape(-1), 0).reshape(x.shape), None


class ProdDim(ArrayFunction):
    """out = the product along dim;  dx = grad * out / x (without dividing when x has zeros)"""
    node_name = "ProdBackward1"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dim, keepdim, np_dtype):
        out = _accumulate("prod", x, np_dtype, axis=dim if x.ndim else None, keepdims=keepdim and x.ndim > 0)
        ctx.save_for_backward(x, out)
        ctx.dim, ctx.keepdim = dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        if x._data.ndim == 0:
            return grad, None, None, None
        x, out = _conj(x), _conj(out)   # complex: grad times the conjugate derivative (as ProdAll's)
        g, r = _keep(grad, (ctx.dim,), ctx.keepdim), _keep(out, (ctx.dim,), ctx.keepdim)
        if not (x._data == 0).any():
            return g * (r / x), None, None, None
        return _prod_safe_zeros(g, x, ctx.dim), None, None, None


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """The product of all elements, or along ``dim`` (one int).  Integers and bools multiply in int64."""
    if dim is None:
        r = ProdAll.apply(input, _acc_dtype(input, dtype))
    else:
        if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
            raise TypeError(f"prod() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}), but expected one of: (Tensor input, *, dtype), "
                            f"(Tensor input, int dim, bool keepdim, *, dtype)")
        dim = _one_dim(dim, input._data.ndim)   # (a bad dim is reported before a dtype autograd refuses)
        r = ProdDim.apply(input, dim, bool(keepdim), _acc_dtype(input, dtype))
    return r if out is None else write_out(out, r)


# ====================================================================== max, min, amax, amin, argmax, aminmax

class MaxAll(ArrayFunction):
    """out = the largest element (NaN if any);  dx = grad split evenly among the elements equal to out"""
    node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        out = xp.asarray(xp.max(x))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _evenly_distribute(grad, x, out)


class MinAll(MaxAll):
    """out = the smallest element (NaN if any);  dx = grad split evenly among the elements equal to out"""
    node_name = "MinBackward1"

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        out = xp.asarray(xp.min(x))
        ctx.save_for_backward(x, out)
        return out


MaxDim = selecting_op("MaxDim", "MaxBackward0", lambda x, d: namespace(x).argmax(x, axis=d, keepdims=True),
                      "values, indices = the max along dim (first index on ties);  dx = grad put back at indices")
MinDim = selecting_op("MinDim", "MinBackward0", lambda x, d: namespace(x).argmin(x, axis=d, keepdims=True),
                      "values, indices = the min along dim (first index on ties);  dx = grad put back at indices")


def _max_min(name, all_cls, dim_cls, binary, input, dim, keepdim, other, out):
    if other is not None or isinstance(dim, Tensor):  # max(a, b): the elementwise maximum
        return binary(input, other if other is not None else dim, out=out)
    x = input._data
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool, ), "
                            f"but expected one of: (Tensor input, int dim, bool keepdim)")
        _check_not_complex(f"{name}_all", x)
        _check_nonempty_all(name, x)
        r = all_cls.apply(input)
        return r if out is None else write_out(out, r)
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of: (Tensor input, int dim, bool keepdim), "
                        f"(Tensor input, Tensor other)")
    d = _one_dim(dim, x.ndim)
    if x.ndim:
        _check_nonempty_dims(name, x, (d,))
    _check_not_complex(f"{name}", x)
    return _result(name, dim_cls.apply(input, d, bool(keepdim)), out)


def max(input, dim=None, keepdim=False, *, other=None, out=None):
    """``max(x)``: the largest element.  ``max(x, dim)``: ``return_types.max(values, indices)``.
    ``max(x, y)``: the elementwise ``maximum``."""
    return _max_min("max", MaxAll, MaxDim, maximum, input, dim, keepdim, other, out)


def min(input, dim=None, keepdim=False, *, other=None, out=None):
    """``min(x)``: the smallest element.  ``min(x, dim)``: ``return_types.min(values, indices)``.
    ``min(x, y)``: the elementwise ``minimum``."""
    return _max_min("min", MinAll, MinDim, minimum, input, dim, keepdim, other, out)


def _amax_grad(grad, x, out, dims, keepdim):
    """Split each gradient evenly among the elements equal to the max (or min) of their slice."""
    g, r = _keep(grad, dims, keepdim), _keep(out, dims, keepdim)
    mask = x == r
    return (g / mask.sum(dims, keepdim=True)) * mask


def _first_of_ties(xp, x, dims):
    """x read backwards along ``dims`` for a max/min reduction: numpy's keeps the last of equal values
    (0.0 and -0.0), PyTorch's amax/amin the first, so the reduction sees them in the other order.
    (numpy's float16 loop keeps the first already, and integers have no distinct equal values.)"""
    return xp.flip(x, axis=dims) if x.dtype in (np.float32, np.float64) or x.dtype.name == "bfloat16" else x


def _amax_like(name, node_name, fn_name, doc):
    def forward(ctx, x, dims, keepdim):
        xp = namespace(x)
        out = xp.asarray(getattr(xp, fn_name)(_first_of_ties(xp, x, dims), axis=dims, keepdims=keepdim))
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _amax_grad(grad, x, out, ctx.dims, ctx.keepdim), None, None

    return type(name, (ArrayFunction,), {"__doc__": doc, "node_name": node_name, "__module__": __name__,
                                         "forward": staticmethod(forward), "backward": staticmethod(backward),
                                         "_result_format": "contiguous_format"})   # (as every reduction)


Amax = _amax_like("Amax", "AmaxBackward0", "max", "out = the max over dims;  dx = grad split among ties")
Amin = _amax_like("Amin", "AminBackward0", "min", "out = the min over dims;  dx = grad split among ties")


def _amax_dims(name, x, dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        _check_nonempty_all(name, x)
    dims = _reduce_dims(dim, x.ndim)
    _check_nonempty_dims(name, x, dims)
    _check_not_complex(name, x)
    return dims


def amax(input, dim=(), keepdim=False, *, out=None):
    """The max over ``dim`` (an int or a tuple; ``()``: all dims).  Ties share the gradient evenly."""
    r = Amax.apply(input, _amax_dims("amax", input._data, dim), bool(keepdim))
    return r if out is None else write_out(out, r)


def amin(input, dim=(), keepdim=False, *, out=None):
    """The min over ``dim`` (an int or a tuple; ``()``: all dims).  Ties share the gradient evenly."""
    r = Amin.apply(input, _amax_dims("amin", input._data, dim), bool(keepdim))
    return r if out is None else write_out(out, r)


class Aminmax(ArrayFunction):
    """min, max = amin(x, dims), amax(x, dims);  dx = each gradient split among its ties"""
    node_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        xp = namespace(x)
        lo = xp.asarray(xp.min(_first_of_ties(xp, x, dims), axis=dims, keepdims=keepdim))
        hi = xp.asarray(xp.max(_first_of_ties(xp, x, dims), axis=dims, keepdims=keepdim))
        lo, hi = in_format(lo, "contiguous_format"), in_format(hi, "contiguous_format")   # (ATen's layout)
        ctx.save_for_backward(x, lo, hi)
        ctx.dims, ctx.keepdim = dims, keepdim
        return lo, hi

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        x, lo, hi = ctx.saved_tensors
        return (_amax_grad(grad_min, x, lo, ctx.dims, ctx.keepdim)
                + _amax_grad(grad_max, x, hi, ctx.dims, ctx.keepdim)), None, None


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``return_types.aminmax(min, max)`` over all elements or along ``dim``."""
    x = input._data
    if x.size == 0 and dim is not None and x.ndim:
        d = wrap_dim(dim, x.ndim)
        if x.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if x.size == 0 and (dim is None or x.ndim == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    dims = _reduce_dims(None if dim is None else _check_dim(dim), x.ndim)
    pair = Aminmax.apply(input, dims, bool(keepdim))
    if out is not None:
        write_out(out, pair)
        pair = tuple(out)
    from .sorting import return_types
    return return_types.aminmax(pair)


def _arg_kernel(fn_name):
    def kernel(x, dim, keepdim):
        xp = namespace(x)
        np_fn = getattr(xp, fn_name)
        if dim is None:
            r = xp.asarray(np_fn(x.reshape(-1)))
            return r.reshape((1,) * x.ndim) if keepdim else r
        r = np_fn(_atleast_1d(x), axis=dim, keepdims=keepdim)
        return xp.asarray(r).reshape(()) if x.ndim == 0 else r
    return kernel


_ArgMax = _kernel_op("ArgMax", _arg_kernel("argmax"), "contiguous_format")
_ArgMin = _kernel_op("ArgMin", _arg_kernel("argmin"), "contiguous_format")


def _arg(name, cls, input, dim, keepdim, out):
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    _check_not_complex(name, x)
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        d = None
    else:
        d = _one_dim(dim, x.ndim)
        if x.ndim:
            _check_nonempty_dims(name, x, (d,))
    r = cls.apply(input, d, bool(keepdim))
    return r if out is None else write_out(out, r)


def argmax(input, dim=None, keepdim=False, *, out=None):
    """The index of the max (of the flattened input when ``dim`` is None); the first one on ties, NaN wins."""
    return _arg("argmax", _ArgMax, input, dim, keepdim, out)


def argmin(input, dim=None, keepdim=False, *, out=None):
    """The index of the min (of the flattened input when ``dim`` is None); the first one on ties, NaN wins."""
    return _arg("argmin", _ArgMin, input, dim, keepdim, out)


# ====================================================================== var, std

def _var_kernel(x, dims, correction, keepdim, with_mean=False, take_sqrt=False):
    """(variance, mean with keepdim): sum((x - mean)^2) / max(0, N - correction), in two passes.
    ``take_sqrt``: the standard deviation instead, its root taken in float64 before the result is rounded
    to the input's dtype, as PyTorch's kernels do (a float32 std of 1e27 does not overflow as var would).

    PyTorch's CPU has two kernels, and they round differently:

    - ``var``/``std`` of float32/float64 down to one number: the mean in the input's dtype, then the
      squares summed in float64;
    - everything else (other dims, float16/bfloat16, ``var_mean``/``std_mean``): Welford's running
      update in float64, exact on a constant slice: var 0, mean = the value (two plain passes can
      leave 1e-34, and std's gradient, set to 0 only where std == 0, would then be finite).

    The second is mirrored by shifting each slice by its first element before the two passes:
    a constant slice becomes exact zeros.
    """
    xp = namespace(x)
    n = _numel(x.shape, dims)
    like = x
    real = like.real.dtype if like.dtype.kind == "c" else like.dtype
    out_numel = _numel(x.shape, [d for d in range(x.ndim) if d not in dims])
    welford = with_mean or out_numel > 1 or real not in (np.float32, np.float64)
    acc = np.complex128 if x.dtype.kind == "c" else np.float64
    shift = 0
    if welford:
        x = x.astype(acc)
        if n:  # the first element of each slice (0 where it is not finite: inf - inf would make NaN)
            first = x[tuple(slice(0, 1) if d in dims else slice(None) for d in range(x.ndim))]
            shift = xp.where(xp.isfinite(first), first, 0)
            x = x - shift
    else:
        x = to_opmath(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = xp.sum(x, axis=dims, keepdims=True) / n if n else xp.full(
            xp.sum(x, axis=dims, keepdims=True).shape, np.nan, dtype=x.dtype)
        mean = mean.astype(x.dtype, copy=False)
        d = x.astype(acc, copy=False) - mean  # the squares in float64 either way
        sq = (d.real * d.real + d.imag * d.imag) if x.dtype.kind == "c" else d * d
        var = xp.sum(sq, axis=dims, keepdims=keepdim) / _b.max(0, n - correction)
        if take_sqrt:
            var = xp.sqrt(var)
        # (beyond the dtype's range the result is inf, as PyTorch's, without numpy's cast warning)
        with np.errstate(over="ignore"):
            return xp.asarray(var).astype(real, copy=False), (mean + shift).astype(like.dtype, copy=False)


def _var_backward(grad, x, dims, correction, keepdim, full):
    """d var / dx = 2 (x - mean) / (N - correction)

    With no degrees of freedom left (N <= correction) PyTorch's formula differs by how var was called:
    reducing a given ``dim`` it keeps ``2 / (N - correction)`` (inf at 0, negative below); reducing
    everything (``full``: no dim, or a 0-dim input) it returns ``grad * (NaN where x == mean, else inf)``.
    """
    dof = _numel(x.shape, dims) - correction
    if full and dof <= 0:
        return grad * where(x == x.mean(), float("nan"), float("inf"))
    return (2.0 / dof if dof else float("inf")) * _keep(grad, dims, keepdim) * (x - x.mean(dims, keepdim=True))


def _std_to_var_grad(grad, std):
    """d std = d var / (2 std), taken as 0 where std == 0"""
    return where(std == 0, 0.0, grad / (std * 2))


def _welford_mean(x, mean, dims):
    """The mean that var_mean/std_mean return: PyTorch computes it with Welford's running update
    ``mean += (x_i - mean) / i``, in which an inf followed by any other element gives inf - inf = NaN.
    So an inf (or NaN) anywhere but in the last place of a reduced slice makes its mean NaN."""
    n = _numel(x.shape, dims)
    if n < 2 or not (is_inexact_np(x.dtype) and x.size):
        return mean
    xp = namespace(x)
    rest = [d for d in range(x.ndim) if d not in dims]
    flat = xp.transpose(x, rest + list(dims)).reshape([x.shape[d] for d in rest] + [n])  # reduced dims last
    with np.errstate(invalid="ignore"):
        bad = ~xp.isfinite(flat[..., :-1]).all(axis=-1)
    if not bad.any():
        return mean
    return xp.where(bad.reshape(mean.shape), xp.array(np.nan, mean.dtype), mean).astype(mean.dtype, copy=False)


class Var(ArrayFunction):
    """out = sum((x - mean)^2) / (N - correction);  dx = grad * 2 (x - mean) / (N - correction)"""
    node_name = "VarBackward0"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim, full):
        ctx.save_for_backward(x)
        ctx.dims, ctx.correction, ctx.keepdim, ctx.full = dims, correction, keepdim, full
        return _var_kernel(x, dims, correction, keepdim)[0]

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return _var_backward(grad, x, ctx.dims, ctx.correction, ctx.keepdim, ctx.full), None, None, None, None


class Std(ArrayFunction):
    """out = sqrt(var(x));  dx = grad / (2 out) * d var / dx  (0 where out == 0)"""
    node_name = "StdBackward0"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim, full):
        xp = namespace(x)
        out = xp.asarray(_var_kernel(x, dims, correction, keepdim, take_sqrt=True)[0])
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.correction, ctx.keepdim, ctx.full = dims, correction, keepdim, full
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        g = _std_to_var_grad(grad, out)
        return _var_backward(g, x, ctx.dims, ctx.correction, ctx.keepdim, ctx.full), None, None, None, None


class VarMean(ArrayFunction):
    """var, mean = var(x), mean(x);  dx = the var gradient + the mean gradient (grad / N)"""
    node_name = "VarMeanBackward0"

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim, full):
        var, mean = _var_kernel(x, dims, correction, keepdim, with_mean=True)
        mean = _welford_mean(x, mean, dims)
        ctx.save_for_backward(x)
        ctx.dims, ctx.correction, ctx.keepdim, ctx.full = dims, correction, keepdim, full
        ctx.set_materialize_grads(False)  # an unused output gets None, not zeros: 0 * inf would be NaN
        mean = mean if keepdim else mean.reshape(var.shape)
        return in_format(var, "contiguous_format"), in_format(mean, "contiguous_format")   # (ATen's layout)

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        x, = ctx.saved_tensors
        g_var = None if grad_var is None else _var_backward(grad_var, x, ctx.dims, ctx.correction, ctx.keepdim,
                                                            ctx.full)
        return _plus_mean_grad(g_var, grad_mean, x, ctx), None, None, None, None


class StdMean(ArrayFunction):
    """std, mean = std(x), mean(x);  dx = the std gradient + the mean gradient (grad / N)"""
    node_name = "StdMeanBackward0"

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim, full):
        std, mean = _var_kernel(x, dims, correction, keepdim, with_mean=True, take_sqrt=True)
        mean = _welford_mean(x, mean, dims)
        std = in_format(std, "contiguous_format")   # (ATen's layout; saved as returned: the output itself, whose
        ctx.save_for_backward(x, std)               # own graph a double backward differentiates through)
        ctx.dims, ctx.correction, ctx.keepdim, ctx.full = dims, correction, keepdim, full
        ctx.set_materialize_grads(False)  # an unused output gets None, not zeros: 0 * inf would be NaN
        mean = mean if keepdim else mean.reshape(std.shape)
        return std, in_format(mean, "contiguous_format")

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        x, std = ctx.saved_tensors
        g_std = None if grad_std is None else _var_backward(_std_to_var_grad(grad_std, std), x, ctx.dims,
                                                            ctx.correction, ctx.keepdim, ctx.full)
        return _plus_mean_grad(g_std, grad_mean, x, ctx), None, None, None, None


def _plus_mean_grad(g, grad_mean, x, ctx):
    """Add the mean's gradient (grad / N, expanded) to ``g``; either may be missing (None)."""
    if grad_mean is None:
        return g
    g_mean = _keep(grad_mean, ctx.dims, ctx.keepdim) / _numel(x.shape, ctx.dims)
    return g_mean.expand(x.shape) if g is None else g + g_mean


def _var_args(name, input, dim, unbiased, keepdim, correction):
    """Both of PyTorch's forms: ``var(x, dim, unbiased, keepdim)`` and ``var(x, dim, correction=, keepdim=)``."""
    if isinstance(dim, bool):  # var(x, True): the old positional ``unbiased``
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (bool, bool)")
        dim, unbiased = None, dim
    if unbiased is not None and not isinstance(unbiased, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}, {type(unbiased).__name__}), but expected one of: "
                        f"(Tensor input, tuple of ints dim, bool unbiased, bool keepdim), "
                        f"(Tensor input, tuple of ints dim, *, Number correction, bool keepdim)")
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (correction=int, "
                        f"unbiased=bool), but expected either unbiased or correction")
    x = input._data
    if not is_inexact_np(x.dtype):
        raise RuntimeError(f"{name if name.endswith('_mean') else 'std and var'} only support floating point "
                           f"and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = _reduce_dims(dim, x.ndim)
    if _numel(x.shape, dims) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      f"reduction factor (input numel divided by output numel).", UserWarning, stacklevel=user_stacklevel())
    # "full": no dim given (or a 0-dim input), which PyTorch's backward treats apart (see _var_backward);
    # dim=() counts as full here too: PyTorch's backward takes it as N = 1, a gradient the forward does not have
    full = x.ndim == 0 or dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
    return dims, correction, bool(keepdim), full


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """The variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``; ``correction=1`` (unbiased) by default.

    ``unbiased=False`` is ``correction=0``; ``var(x, True)`` / ``var(x, dim, True, keepdim)`` also work.
    """
    r = Var.apply(input, *_var_args("var", input, dim, unbiased, keepdim, correction))
    return r if out is None else write_out(out, r)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """The standard deviation: ``sqrt(var(...))`` (same arguments as ``var``)."""
    r = Std.apply(input, *_var_args("std", input, dim, unbiased, keepdim, correction))
    return r if out is None else write_out(out, r)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``(var, mean)``, computed together."""
    r = VarMean.apply(input, *_var_args("var_mean", input, dim, unbiased, keepdim, correction))
    return r if out is None else write_out(out, r)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``(std, mean)``, computed together."""
    r = StdMean.apply(input, *_var_args("std_mean", input, dim, unbiased, keepdim, correction))
    return r if out is None else write_out(out, r)


# ====================================================================== norm

_INF = float("inf")


class VectorNorm(ArrayFunction):
    """out = (sum |x|^p)^(1/p) over dims (p = 0: count of nonzeros, inf: max |x|, -inf: min |x|)

    dx = sgn(x) |x|^(p-1) grad / out^(p-1);  p=2: x grad / out;  p=1: sgn(x) grad;  inf: split among ties;
    taken as 0 where out == 0 (PyTorch's subgradient).
    """
    node_name = "LinalgVectorNormBackward0"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, p, dims, keepdim, dtype):
        ctx.p, ctx.dims, ctx.keepdim, ctx.dtype = p, dims, keepdim, dtype
        # dtype= casts inside the op, as in ATen: x's graph gets no ToCopyBackward0 node
        out = _vector_norm_kernel(x if dtype is None else x.astype(dtype.np), p, dims, keepdim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, norm = ctx.saved_tensors
        if ctx.dtype is not None:
            x = x.to(ctx.dtype)   # the gradient is cast back to x's dtype on its way to x
        return _vector_norm_grad(grad, x, norm, ctx.p, ctx.dims, ctx.keepdim), None, None, None, None


def _vector_norm_kernel(x, p, dims, keepdim):
    """(sum |x|^p)^(1/p) over dims on arrays; float16/bfloat16 add up in float32."""
    xp = namespace(x)
    a = xp.abs(x)
    like = a
    a = to_opmath(a)
    kw = dict(axis=dims, keepdims=keepdim)
    reduced = math.prod(x.shape[d] for d in dims) if dims is not None else x.size
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if reduced == 1 and p != 0:   # ATen's kernel skips a reduction of one element: |x| (no overflow)
            out = xp.sum(a, **kw)
        elif p == 0:
            out = xp.sum(a != 0, **kw).astype(a.dtype)
        elif p == _INF:
            out = xp.max(a, **kw)
        elif p == -_INF:
            out = xp.min(a, **kw)
        elif p == 1:
            out = xp.sum(a, **kw)
        elif p == 2:
            out = xp.sqrt(xp.sum(a * a, **kw))
        else:
            out = xp.power(xp.sum(xp.power(a, p), **kw), 1.0 / p)
    return xp.asarray(out).astype(like.dtype, copy=False)


def _vector_norm_grad(grad, x, norm, p, dims, keepdim):
    """The p-norm's gradient (PyTorch's norm_backward, shared by vector_norm, linalg.vector_norm, norm(x, p, dim)
    and dist); None for p = 0 (PyTorch gives no gradient at all)."""
    g, n = _keep(grad, dims, keepdim), _keep(norm, dims, keepdim)
    if p == 0:  # piecewise constant
        return None
    if p == 2:
        return g * where(n == 0, 0.0, x / n)
    # sgn(x) of a real x is piecewise constant, but recorded, as in PyTorch: its gradient is the efficient
    # zero (Sgn.backward), a gradient that goes on into x's graph (the result requires grad)
    sgn = x.sgn()
    if p == 1:
        return sgn * g
    if p == _INF or p == -_INF:
        xa = x.abs()
        mask = (xa == n).logical_or(xa.isnan())
        return sgn * ((g / mask.sum(dims, keepdim=True)) * mask)
    if p < 1:
        scaled = sgn * where(x == 0, 0.0, x.abs() ** (p - 1))
        return scaled * g * n ** (1 - p)
    scaled = sgn * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
    return scaled * where(n == 0, 0.0, g / n ** (p - 1))


class Dist(ArrayFunction):
    """out = ||a - b||_p (a and b broadcast);  da = the p-norm's gradient at a - b,  db = -da"""
    node_name = "DistBackward0"

    @staticmethod
    def forward(ctx, a, b, p):
        a, b = promote(a, b)
        out = _vector_norm_kernel(a - b, p, None, False)
        ctx.save_for_backward(a, b, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, norm = ctx.saved_tensors
        need = ctx.needs_input_grad
        # PyTorch's formulas: norm_backward(grad, a - b, p, out) for a, its negative for b, b's computed first
        # (with create_graph the order numbers the new nodes, which orders a double backward's rounded sums)
        gb = _vector_norm_grad(grad, a - b, norm, ctx.p, None, False) if need[1] else None
        gb = None if gb is None else -gb
        ga = _vector_norm_grad(grad, a - b, norm, ctx.p, None, False) if need[0] else None
        return ga, gb, None


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``linalg.vector_norm`` (also ``norm``'s): the ``ord``-norm of ``x`` flattened, or over ``dim``.

    The checks come in ATen's order (its meta function): a float input; on an empty input, an order without
    an identity (< 0, inf) refused, the dims named as given; the dtype; then the dims wrapped."""
    a = x._data
    if not is_inexact_np(a.dtype):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_type_word(a.dtype)}")
    if isinstance(ord, Tensor):
        ord = ord.item()
    p = float(ord)
    if a.size == 0 and (p < 0 or p == _INF):
        word = _scalar_word(ord)
        if dim is None or isinstance(dim, (tuple, list)) and len(dim) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {word} norm on an empty tensor because "
                               f"the operation does not have an identity")
        for d in ([dim] if isinstance(dim, numbers.Integral) else dim):
            if a.shape[wrap_dim(d, a.ndim)] == 0:   # (PyTorch's message has no space before "because")
                raise RuntimeError(f"linalg.vector_norm cannot compute the {word} norm on the dimension {d}"
                                   f"because this dimension is empty and the operation does not have an identity")
    check_norm_dtype(dtype, x.dtype, "linalg.vector_norm")
    r = VectorNorm.apply(x, p, _reduce_dims(dim, a.ndim), bool(keepdim), None if dtype == x.dtype else dtype)
    return r if out is None else write_out(out, r)


def check_norm_dtype(dtype, x_dtype, fn):
    """ATen's check of a norm's ``dtype=`` (``check_linalg_norm_dtype``): a float or complex dtype, complex for
    complex inputs only, and no narrower than the input's."""
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fn}: dtype should be floating point or complex, but got {_type_word(dtype.np)}")
    if dtype.is_complex != x_dtype.is_complex:
        word = "complex" if x_dtype.is_complex else "real"
        raise RuntimeError(f"{fn}: dtype should be {word} for {word} inputs, but got {_type_word(dtype.np)}")
    if D.promote_types(x_dtype, dtype) != dtype:
        raise RuntimeError(f"{fn}: the dtype of the input ({_type_word(x_dtype.np)}) should be convertible "
                           f"without narrowing to the specified dtype ({_type_word(dtype.np)})")


def _scalar_word(value):
    """A number as ATen prints a Scalar in its messages: an int as it is, a float as C++ streams a double
    (six significant digits: -2, -0.5, -1e+08, inf)."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return f"{float(value):g}"


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The vector norm of ``input`` (``p``: a number, ``'fro'`` = 2, ``inf``, ``-inf``, 0), flattened or over ``dim``.

    ``p='nuc'`` (the nuclear norm, a matrix norm) is ``linalg.matrix_norm``'s: ops/linalg_legacy.py's ``norm``
    (the one ``torch.norm`` and ``Tensor.norm`` are) sends it there and every other ``p`` here.
    """
    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, numbers.Integral) or len(dim) <= 2):
            p = 2
        elif p == "fro":
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
        else:
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


# ====================================================================== logsumexp, softmax, log_softmax

class LogSumExp(ArrayFunction):
    """out = log(sum(exp(x))), as m + log(sum(exp(x - m))) with m = max(x) (no overflow);  dx = grad exp(x - out)"""
    node_name = "LogsumexpBackward0"
    _result_format = "contiguous_format"   # ATen allocates a reduction's result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        xf = to_float(x)
        xp = namespace(xf)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if xf.size:
                m = xp.max(xf, axis=dims, keepdims=True)
                m = xp.where(xp.isinf(m), 0, m).astype(xf.dtype)
                # (PyTorch's composite: x - m and exp rounded to x's dtype, the sum in float32 for half)
                s = _accumulate("sum", xp.exp(xf - m), None, axis=dims, keepdims=keepdim)
                out = xp.log(s) + (m if keepdim else m.reshape(s.shape))
            else:
                out = xp.log(xp.sum(xp.exp(xf), axis=dims, keepdims=keepdim))
        out = xp.asarray(out).astype(xf.dtype, copy=False)
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _keep(grad, ctx.dims, ctx.keepdim) * (x - _keep(out, ctx.dims, ctx.keepdim)).exp(), None, None


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input), dim))``, computed without overflow."""
    x = input._data
    if not keepdim and x.size and x.ndim and isinstance(dim, (tuple, list)) and len(dim) == 0:
        # dim=() reduces every dim, but PyTorch's composite adds amax(x, (), keepdim=True) (shape [1, 1])
        # into sum(..., keepdim=False) (shape []) in place, which fails
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {shape_str((1,) * x.ndim)}")
    r = LogSumExp.apply(input, _reduce_dims(dim, input._data.ndim), bool(keepdim))
    return r if out is None else write_out(out, r)


def _c_order(x):
    """``x`` in C order (PyTorch's softmax makes its input contiguous, so its result is)."""
    return x if x.flags.c_contiguous else x.copy()


class Softmax(ArrayFunction):
    """out = exp(x - max) / sum(exp(x - max)) along dim;  dx = out * (grad - sum(grad * out))"""
    node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        xf = to_opmath(_c_order(x))
        xp = namespace(xf)
        axis = dim if x.ndim else None
        if x.size == 0:
            out = x.copy()
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                e = xp.exp(xf - xp.max(xf, axis=axis, keepdims=True))
                out = xp.asarray(e / xp.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return SoftmaxBackwardData.apply(grad, out, ctx.dim), None


class SoftmaxBackwardData(ArrayFunction):
    """softmax's backward as one op, PyTorch's ``_softmax_backward_data``: dx = out (g - sum(g out, dim)), computed
    in float32 for float16/bfloat16 and rounded once.  Its own backward (double backward):
    for g the same op;  for out: g gg - sum(out g) gg - g sum(out gg)   (PyTorch's softmax_double_backward)"""
    node_name = "SoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, g, out, dim):
        ctx.save_for_backward(g, out)
        ctx.dim = dim
        gf, of = to_opmath(g), to_opmath(out)
        xp = namespace(gf, of)
        axis = dim if out.ndim else None
        return xp.asarray(of * (gf - xp.sum(gf * of, axis=axis, keepdims=True))).astype(out.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        g, out = ctx.saved_tensors
        dim, need = ctx.dim, ctx.needs_input_grad
        d_g = SoftmaxBackwardData.apply(gg, out, dim) if need[0] else None
        d_out = (g * gg - (out * g).sum(dim, keepdim=True) * gg - g * (out * gg).sum(dim, keepdim=True)) \
            if need[1] else None
        return d_g, d_out, None


class LogSoftmax(ArrayFunction):
    """out = x - max - log(sum(exp(x - max))) along dim;  dx = grad - exp(out) * sum(grad)"""
    node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        xf = to_opmath(_c_order(x))
        xp = namespace(xf)
        axis = dim if x.ndim else None
        if x.size == 0:
            out = x.copy()
        else:
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                shifted = xf - xp.max(xf, axis=axis, keepdims=True)
                total = xp.sum(xp.exp(shifted), axis=axis, keepdims=True)
                if xf.dtype != x.dtype and dim == x.ndim - 1:
                    # float16/bfloat16 along the last dim: PyTorch's kernel keeps each row's sum and then its
                    # log in x's own dtype (rounded twice); along other dims they stay in float32
                    log_total = astype(xp.log(astype(astype(total, x.dtype), xf.dtype)), x.dtype).astype(xf.dtype)
                else:
                    log_total = xp.log(total)
                out = xp.asarray(shifted - log_total).astype(x.dtype, copy=False)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None


class LogSoftmaxBackwardData(ArrayFunction):
    """log_softmax's backward as one op, PyTorch's ``_log_softmax_backward_data``: dx = g - exp(out) sum(g, dim),
    computed in float32 for float16/bfloat16 and rounded once.  Its own backward (double backward):
    for g: gg - sum(gg exp(out));  for out: -sum(g) exp(out) gg   (PyTorch's formulas)"""
    node_name = "LogSoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, g, out, dim):
        ctx.save_for_backward(g, out)
        ctx.dim = dim
        gf, of = to_opmath(g), to_opmath(out)
        xp = namespace(gf, of)
        axis = dim if out.ndim else None
        with np.errstate(invalid="ignore", over="ignore"):
            return xp.asarray(gf - xp.exp(of) * xp.sum(gf, axis=axis, keepdims=True)).astype(out.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        g, out = ctx.saved_tensors
        dim, need = ctx.dim, ctx.needs_input_grad
        d_g = gg - (gg * out.exp()).sum(dim, keepdim=True) if need[0] else None
        d_out = -(g.sum(dim, keepdim=True) * out.exp() * gg) if need[1] else None
        return d_g, d_out, None


def _softmax_like(name, cls, input, dim, dtype):
    if dtype is not None and dtype != input.dtype:
        input = input.to(dtype)
    x = input._data
    d = _one_dim(dim, x.ndim)
    if not is_inexact_np(x.dtype) and x.size:  # an empty input is returned before the kernel is chosen
        last = "lastdim_" if d == x.ndim - 1 or x.ndim == 0 else ""
        raise NotImplementedError(f"\"{name}_{last}kernel_impl\" not implemented for '{_type_word(x.dtype)}'")
    return cls.apply(input, d)


def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x), dim)``, stable (the max is subtracted first).  ``dtype`` casts the input first."""
    return _softmax_like("softmax", Softmax, input, dim, dtype)


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x, dim)``, stable.  ``dtype`` casts the input first."""
    return _softmax_like("log_softmax", LogSoftmax, input, dim, dtype)


# ====================================================================== cumsum, cumprod, cummax, cummin

def _rev_cumsum(g, dim):
    """sum_{j >= k} g_j along dim: the flipped cumsum of the flipped gradient"""
    if g._data.ndim == 0:
        return g
    return Flip.apply(cumsum(Flip.apply(g, (dim,)), dim), (dim,))


class Cumsum(ArrayFunction):
    """out_k = sum_{j <= k} x_j along dim;  dx_k = sum_{j >= k} grad_j (a reversed cumsum)"""
    node_name = "CumsumBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dim, np_dtype):
        ctx.dim, ctx.in_dtype = dim, D.from_numpy_dtype(x.dtype)
        if x.ndim == 0:
            return astype(x, np_dtype) if np_dtype is not None else x.copy()
        return _accumulate("cumsum", x, np_dtype, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        # with dtype=, PyTorch casts the gradient back to x's dtype first and sums in that dtype
        return _rev_cumsum(grad.to(ctx.in_dtype), ctx.dim), None, None


def _cumprod_backward(g, x, y, dim):
    """dx_i = sum_{k >= i} g_k prod_{j <= k, j != i} x_j, valid with zeros in x.

    No zeros: (reversed cumsum of g * y) / x.  Otherwise, in each slice along dim with its
    first zero at z: before z the same formula (y_k = 0 from z on, and x_i != 0); at z,
    (prod of x before z) * sum_{k >= z} g_k prod_{z < j <= k} x_j; after z, 0 (every product
    holds x_z = 0).  That O(n) formula has the right values but masks away the dependence of the
    zero entries on x_z, so when the backward itself is recorded (``create_graph=True``) the
    O(n^2) table formula is used instead, as PyTorch does.
    """
    if x._data.size <= 1 or x._data.shape[dim] == 1:  # out = x: the gradient passes through (as PyTorch,
        return g                                        # whatever x holds: the formula would divide NaN by NaN)
    zero = x._data == 0
    if not zero.any():
        return _rev_cumsum(g * y, dim) / x
    from ..autograd.grad_mode import is_grad_enabled
    if is_grad_enabled():
        return _cumprod_backward_table(g, x, dim)
    # the terms outside each range are masked out before summing (as PyTorch), not multiplied by 0:
    # a NaN or inf further along the slice must not leak into the sums
    seen = namespace(zero).cumsum(zero, axis=dim)
    first = zero & (seen == 1)
    before = Tensor._make(seen == 0)
    between = Tensor._make((seen == 1) & ~first)          # strictly between the first and second zero
    ga = where(before, _rev_cumsum(where(before, g * y, 0.0), dim) / where(before, x, 1.0), 0.0)
    tail = cumprod(where(between, x, 1.0), dim)
    g_first = where(Tensor._make(seen == 1), g, 0.0)
    gb = where(Tensor._make(first), Shift.apply(y, dim, 1, 1) * _rev_cumsum(g_first * tail, dim), 0.0)
    return ga + gb


def _cumprod_backward_table(g, x, dim):
    """dx_k = sum_{i >= k} g_i prod_{j <= i, j != k} x_j, built op for op as PyTorch's O(n^2) formula:
    for each k the products that omit x_k, [prod(x[:k]), prod(x[:k]) * cumprod(x[k+1:])], times g[k:],
    summed. Being differentiable ops, its derivative is cumprod's second derivative; built from the same
    ops as PyTorch's, an inf coming back meets the same zeros there (inf * 0 = NaN where PyTorch has it)."""
    from .join import cat
    n = x.shape[dim]
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(namespace(g._data).ones(1, g._data.dtype)).expand(*ones_shape)
    parts = []
    for k in range(n):
        if k == 0:
            omitted = cat([ones, cumprod(x.narrow(dim, 1, n - 1), dim)], dim)
        else:
            until_k = prod(x.narrow(dim, 0, k), dim, keepdim=True)
            if k == n - 1:
                omitted = until_k
            else:
                from_k1 = cumprod(x.narrow(dim, k + 1, n - k - 1), dim)
                omitted = cat([until_k, until_k.expand_as(from_k1) * from_k1], dim)
        parts.append((g.narrow(dim, k, n - k) * omitted).sum(dim).unsqueeze(dim))
    return cat(parts, dim)


class Cumprod(ArrayFunction):
    """out_k = prod_{j <= k} x_j along dim;  dx_i = sum_{k >= i} grad_k out_k / x_i (zero-safe, see above)"""
    node_name = "CumprodBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dim, np_dtype):
        ctx.dim = dim
        if x.ndim == 0:
            out = astype(x, np_dtype) if np_dtype is not None else x.copy()
        else:
            out = _accumulate("cumprod", x, np_dtype, axis=dim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        # with dtype=, PyTorch casts the gradient back to x's dtype first (the products stay in out's dtype)
        # (complex: the conjugates give grad times the conjugate derivative, as PyTorch's cumprod_backward)
        return _cumprod_backward(grad.to(x.dtype), _conj(x), _conj(out), ctx.dim), None, None


def cumsum(input, dim, *, dtype=None, out=None):
    """Running sums along ``dim``; integers and bools add up in int64."""
    r = Cumsum.apply(input, _one_dim(dim, input._data.ndim), _acc_dtype(input, dtype))
    return r if out is None else write_out(out, r)


def cumprod(input, dim, *, dtype=None, out=None):
    """Running products along ``dim``; integers and bools multiply in int64."""
    r = Cumprod.apply(input, _one_dim(dim, input._data.ndim), _acc_dtype(input, dtype))
    return r if out is None else write_out(out, r)


_CTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
          "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
          "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _cum_inplace(cls):
    def method(self, dim, *, dtype=None):
        x = self._data
        if dtype is not None and dtype.np != x.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_CTYPE.get(x.dtype.name, x.dtype.name)} and "
                               f"output tensor dtype {_CTYPE.get(dtype.np.name, dtype.name)} should match")
        return _ip(cls).apply(self, _one_dim(dim, x.ndim), x.dtype)
    return method


def _cum_extreme_kernel(greater):
    """values = the running max (min) along dim; indices = where it was last reached (NaN sticks, as in PyTorch)."""
    def kernel(x, dim):
        xp = namespace(x)
        values = accumulate("maximum" if greater else "minimum", x, dim)
        hit = x == values
        if is_inexact_np(x.dtype):
            hit |= xp.isnan(x)
        shape = [1] * x.ndim
        shape[dim] = -1
        pos = xp.arange(x.shape[dim]).reshape(shape)
        return values, accumulate("maximum", xp.where(hit, pos, 0), dim).astype(np.int64)
    return kernel


def _cum_extreme_op(name, node_name, kernel, doc):
    def forward(ctx, x, dim):
        values, idx = kernel(_atleast_1d(x), dim)
        ctx.shape, ctx.dim, ctx.idx = x.shape, dim, idx
        ctx.save_for_backward(x)   # PyTorch saves self (cummaxmin_backward reads it): in-place writes are checked
        # ATen allocates both results contiguous
        return in_format(values.reshape(x.shape), "contiguous_format"), in_format(idx.reshape(x.shape), "contiguous_format")

    def backward(ctx, grad, grad_indices=None):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        return scatter_back(grad, ctx.idx, ctx.dim, ctx.shape), None

    return type(name, (ArrayFunction,), {"__doc__": doc, "node_name": node_name, "__module__": __name__,
                                         "forward": staticmethod(forward), "backward": staticmethod(backward)})


Cummax = _cum_extreme_op("Cummax", "CummaxBackward0", _cum_extreme_kernel(True),
                         "values, indices = running max along dim;  dx = grads added at the indices")
Cummin = _cum_extreme_op("Cummin", "CumminBackward0", _cum_extreme_kernel(False),
                         "values, indices = running min along dim;  dx = grads added at the indices")


def _cum_extreme_dim(name, dim, x):
    """cummax/cummin's dim, checked as PyTorch checks it: a 0-dim input takes only -1 or 0, and an empty
    input returns before its dim is wrapped (any dim passes)."""
    dim = _check_dim(dim)
    if x.ndim == 0:
        if dim not in (-1, 0):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        return 0
    if x.size == 0:
        return 0
    return wrap_dim(dim, x.ndim)


def cummax(input, dim, *, out=None):
    """``return_types.cummax(values, indices)``: the running max along ``dim`` and where it was reached."""
    _check_not_complex("cummax_cpu", input._data)
    return _result("cummax", Cummax.apply(input, _cum_extreme_dim("cummax", dim, input._data)), out)


def cummin(input, dim, *, out=None):
    """``return_types.cummin(values, indices)``: the running min along ``dim`` and where it was reached."""
    _check_not_complex("cummin_cpu", input._data)
    return _result("cummin", Cummin.apply(input, _cum_extreme_dim("cummin", dim, input._data)), out)


# ====================================================================== all, any, count_nonzero

def _logical_kernel(fn_name):
    def kernel(x, dims, keepdim):
        xp = namespace(x)
        r = xp.asarray(getattr(xp, fn_name)(x, axis=dims, keepdims=keepdim))
        return r.astype(np.uint8) if x.dtype == np.uint8 else r
    return kernel


_All = _kernel_op("All", _logical_kernel("all"), "contiguous_format")
_Any = _kernel_op("Any", _logical_kernel("any"), "contiguous_format")


def _logical_dims(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return ()  # as PyTorch: an empty dim list reduces nothing
    return _reduce_dims(dim, ndim)


def all(input, dim=None, keepdim=False, *, out=None):
    """Whether every element is nonzero (bool; uint8 for uint8 input), over all or along ``dim``."""
    r = _All.apply(input, _logical_dims(dim, input._data.ndim), bool(keepdim))
    return r if out is None else write_out(out, r)


def any(input, dim=None, keepdim=False, *, out=None):
    """Whether any element is nonzero (bool; uint8 for uint8 input), over all or along ``dim``."""
    r = _Any.apply(input, _logical_dims(dim, input._data.ndim), bool(keepdim))
    return r if out is None else write_out(out, r)


def _count_nonzero_kernel(x, dims):
    xp = namespace(x)
    return xp.asarray(xp.count_nonzero(x, axis=dims) if dims else xp.count_nonzero(x)).astype(np.int64)


_CountNonzero = _kernel_op("CountNonzero", _count_nonzero_kernel, "contiguous_format")


def count_nonzero(input, dim=None):
    """How many elements are nonzero (int64), over all or along ``dim``."""
    x = input._data
    dims = _reduce_dims(dim, x.ndim)
    return _CountNonzero.apply(input, dims if len(dims) < x.ndim else None)


# ====================================================================== median, nanmedian, mode

def _median_all_kernel(x, ignore_nan):
    xp = namespace(x)
    flat = xp.sort(x.reshape(-1))  # NaN sorts last
    if flat.size == 0:
        # PyTorch fills in NaN converted to the input's dtype, as the CPU converts it: the "integer
        # indefinite" 0x80000000... (the minimum of int32/int64, 0 once cut to a narrower type; True)
        if is_inexact_np(x.dtype):
            return xp.asarray(np.nan, dtype=x.dtype)
        if x.dtype == np.bool_:
            return xp.asarray(True)
        return xp.asarray(np.iinfo(x.dtype).min if x.dtype.itemsize >= 4 else 0, dtype=x.dtype)
    if is_inexact_np(x.dtype):
        nans = int(xp.count_nonzero(xp.isnan(flat)))
        if ignore_nan:
            return xp.asarray(flat[_b.max((flat.size - nans - 1) // 2, 0)])
        if nans:
            return xp.asarray(np.nan, dtype=x.dtype)
    return xp.asarray(flat[(flat.size - 1) // 2])


class MedianAll(ArrayFunction):
    """out = the lower median of all elements (NaN if any);  dx = grad split among the elements equal to it"""
    node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, x):
        out = _median_all_kernel(x, False)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _evenly_distribute(grad, x, out)


class NanMedianAll(MedianAll):
    """out = the lower median of the non-NaN elements;  dx = grad split among the elements equal to it"""
    node_name = "NanmedianBackward0"

    @staticmethod
    def forward(ctx, x):
        out = _median_all_kernel(x, True)
        ctx.save_for_backward(x, out)
        return out


def _median_index(x, dim, ignore_nan):
    """The index of the lower median along dim in a stable sort (NaN last): with NaN, the first NaN
    (``median``) or the median of the rest (``nanmedian``)."""
    xp = namespace(x)
    order = argsort_stable(x, dim)
    n = x.shape[dim]
    nans = xp.isnan(x).sum(axis=dim, keepdims=True) if is_inexact_np(x.dtype) else \
        xp.zeros(xp.sum(x, axis=dim, keepdims=True).shape, np.int64)
    if ignore_nan:
        pos = xp.maximum((n - nans - 1) // 2, 0)
    else:
        pos = xp.where(nans > 0, n - nans, (n - 1) // 2)
    index = xp.take_along_axis(order, pos.astype(np.int64), dim)
    if ignore_nan and n > 3:   # an all-NaN slice: where libstdc++'s nth_element leaves its elements
        index = xp.where(nans == n, _nth_element_first_of_equals(n), index)
    return index


def _nth_element_first_of_equals(n):
    """The index PyTorch's nanmedian returns for a slice of n NaNs: it asks std::nth_element for
    position 0 under a comparison for which all NaNs are equal, and reads the index of what lands
    there. libstdc++'s introselect still moves elements: while more than 3 remain, the median-of-three
    pivot (with no order: the middle one) is swapped to the front and the rest is partitioned by
    swapping pairs from both ends inward until they meet; the part holding position 0 is kept."""
    idx = list(range(n))
    first, last = 0, n
    depth = 2 * (n.bit_length() - 1)
    while last - first > 3 and depth > 0:   # (the depth limit's heap select is never reached for small n)
        depth -= 1
        mid = first + (last - first) // 2
        idx[first], idx[mid] = idx[mid], idx[first]
        lo, hi = first + 1, last
        while True:
            hi -= 1
            if not lo < hi:
                break
            idx[lo], idx[hi] = idx[hi], idx[lo]
            lo += 1
        last = lo   # the cut: position 0 lies before it
    return idx[0]


MedianDim = selecting_op("MedianDim", "MedianBackward1", lambda x, d: _median_index(x, d, False),
                         "values, indices = the lower median along dim;  dx = grad put back at indices")
NanMedianDim = selecting_op("NanMedianDim", "NanmedianBackward1", lambda x, d: _median_index(x, d, True),
                            "values, indices = the lower median of non-NaNs along dim;  dx = grad put back at indices")


def _median(name, all_cls, dim_cls, input, dim, keepdim, out):
    x = input._data
    if x.size:   # (an empty input over all elements is filled in before any kernel: complex passes)
        _check_not_complex(name, x)
    if dim is None:
        r = all_cls.apply(input)
        return r if out is None else write_out(out, r)
    d = _one_dim(dim, x.ndim)
    if x.ndim:
        _check_nonempty_dims(name, x, (d,))
    return _result(name, dim_cls.apply(input, d, bool(keepdim)), out)


def _check_median_dtype(name, input, dim):
    """median/nanmedian have no bool kernel; over all elements an empty input is filled in before the
    kernel is chosen (so it passes); along a dim, an empty dim is refused first."""
    if dim is not None:
        x = input._data
        if x.ndim:   # (nanmedian's message says median() too)
            _check_nonempty_dims("median", x, (_one_dim(dim, x.ndim),))
        check_kernel_dtype("median_out", x.dtype, "if")
    elif input._data.size:
        check_kernel_dtype("median_cpu", input._data.dtype, "if")


def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median (of all elements, NaN if any; or ``return_types.median(values, indices)`` along ``dim``)."""
    _check_median_dtype("median", input, dim)
    return _median("median", MedianAll, MedianDim, input, dim, keepdim, out)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """``median`` ignoring NaN (NaN only where every element is NaN)."""
    _check_median_dtype("nanmedian", input, dim)
    return _median("nanmedian", NanMedianAll, NanMedianDim, input, dim, keepdim, out)


def _mode_index(x, dim):
    """The most frequent value along dim (the smallest on ties), at the last index where it occurs.

    Sort (stable), find the runs of equal values, count each run, pick the longest.
    """
    xp = namespace(x)
    order = xp.moveaxis(argsort_stable(x, dim), dim, -1)
    s = xp.take_along_axis(xp.moveaxis(x, dim, -1), order, -1)
    n = s.shape[-1]
    pos = xp.arange(n)
    starts = xp.ones(s.shape, bool)
    starts[..., 1:] = s[..., 1:] != s[..., :-1]
    ends = xp.ones(s.shape, bool)
    ends[..., :-1] = starts[..., 1:]
    run_start = accumulate("maximum", xp.where(starts, pos, 0), -1)
    counts = xp.where(ends, pos - run_start + 1, 0)
    best = xp.argmax(counts, axis=-1)[..., None]
    index = xp.moveaxis(xp.take_along_axis(order, best, -1), -1, dim)
    # ATen std::sorts (value, index) pairs by value and reports the last pair of the first longest run:
    # for more than 16 elements (introsort, not stable) or with NaNs (which end every run and are
    # incomparable), which pair that is depends on the sort's moves: replayed (ops/stl_order.py)
    nan_rows = xp.isnan(x).any(axis=dim).reshape(-1) if is_inexact_np(x.dtype) else None
    rows = sorted(set((_tied_rows(x, xp.moveaxis(order, -1, dim), dim) if n > 16 else []) +
                      ([int(r) for r in xp.nonzero(nan_rows)[0]] if nan_rows is not None else [])))
    if not rows:
        return index
    values = _rows(x, dim)
    replayed = []
    for r in rows:
        pairs = list(zip(values[r].tolist(), range(n)))
        stl_sort(pairs, 0, n, lambda a, b: a[0] < b[0])
        best_i, best_count, count = 0, 0, 0
        for i in range(n):
            count += 1
            if i == n - 1 or pairs[i][0] != pairs[i + 1][0]:
                if count > best_count:
                    best_i, best_count = pairs[i][1], count
                count = 0
        replayed.append([best_i])
    return _replay(index, dim, rows, replayed)


Mode = selecting_op("Mode", "ModeBackward0", _mode_index,
                    "values, indices = the most frequent value along dim;  dx = grad put back at indices")


def mode(input, dim=-1, keepdim=False, *, out=None):
    """``return_types.mode(values, indices)``: the most frequent value along ``dim`` (smallest on ties)."""
    x = input._data
    d = _one_dim(dim, x.ndim)
    if x.ndim:
        _check_nonempty_dims("mode", x, (d,))
    return _result("mode", Mode.apply(input, d, bool(keepdim)), out)


# ====================================================================== quantile, nanquantile

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


class _QuantileShape(ArrayFunction):
    """The last step of ``quantile``: its result reshaped (PyTorch ends with an in-place ``squeeze_``)"""
    node_name = "SqueezeBackward4"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return x.reshape(shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    x = input._data
    xp = namespace(x)
    if x.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q._data.dtype != x.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.device != input.device:
            raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")
        qs = q._data.astype(np.float64).reshape(-1)
        if not ((qs >= 0) & (qs <= 1)).all():
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        scalar = q._data.ndim == 0
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        qs, scalar = xp.array([q], dtype=np.float64), True
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    # 1. the values to pick from, sorted along the last dim (NaN last)
    if dim is None:
        xs = input.reshape(-1)
        out_shape = (1,) * x.ndim if keepdim else ()
    else:
        d = _one_dim(dim, x.ndim)
        xs = input.movedim(d, -1) if x.ndim else input.reshape(1)
        out_shape = tuple(1 if i == d else s for i, s in enumerate(x.shape)) if keepdim else \
            tuple(s for i, s in enumerate(x.shape) if i != d)
    svals = sort(xs, -1).values
    s = svals._data
    # 2. the rank of each quantile in the sorted values: q * (n - 1), n = the count of non-NaNs for nanquantile
    qv = qs.astype(x.dtype)
    nan_rows = xp.isnan(s).sum(-1, keepdims=True)
    if ignore_nan:
        ranks = xp.maximum(qv * (s.shape[-1] - nan_rows - 1).astype(x.dtype), 0)
    else:
        last = s.shape[-1] - 1
        ranks = xp.where(nan_rows > 0, x.dtype.type(last), qv * x.dtype.type(last))
    ranks = xp.broadcast_to(ranks, s.shape[:-1] + (qv.size,))
    if interpolation == "lower":
        ranks = xp.floor(ranks)
    elif interpolation == "higher":
        ranks = xp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = xp.round(ranks)  # half to even, as PyTorch's round
    below = ranks.astype(np.int64)
    result = TakeAlong.apply(svals, below, -1)
    # 3. interpolate (PyTorch's lerp: exact at both ends)
    if interpolation in ("linear", "midpoint"):
        w = xp.full(ranks.shape, 0.5, x.dtype) if interpolation == "midpoint" else (ranks - below).astype(x.dtype)
        above = TakeAlong.apply(svals, xp.ceil(ranks).astype(np.int64), -1)
        wt = Tensor._make(w)
        step = above - result
        result = where(Tensor._make(w < 0.5), result + wt * step, above - step * (1 - wt))
    # 4. quantiles first, then the kept dims
    result = result.movedim(-1, 0)
    return _QuantileShape.apply(result, out_shape if scalar else (qv.size,) + out_shape)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles (a number or a 1-D tensor in [0, 1]) of all elements or along ``dim``.

    Linear interpolation between the two nearest ranks by default (``lower``, ``higher``,
    ``midpoint``, ``nearest`` too); NaN anywhere in a slice gives NaN.  A 1-D ``q`` adds a first dim.
    """
    r = _quantile(input, q, dim, keepdim, interpolation, False)
    return r if out is None else write_out(out, r)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    r = _quantile(input, q, dim, keepdim, interpolation, True)
    return r if out is None else write_out(out, r)


# ====================================================================== diff

def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``x[1:] - x[:-1]``, ``!=`` for bools), after
    concatenating ``prepend``/``append``."""
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, x.ndim)
    for extra in (prepend, append):
        if extra is not None and extra._data.ndim != x.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if prepend is not None or append is not None:
        from .join import cat
        input = cat([t for t in (prepend, input, append) if t is not None], d)
    r = input
    for _ in range(n):
        m = r.shape[d]
        if m == 0:
            break
        a, b = r.narrow(d, 1, m - 1), r.narrow(d, 0, m - 1)
        r = a.logical_xor(b) if r._data.dtype == np.bool_ else a - b
    return r


register({
    "prod": prod, "max": max, "min": min, "amax": amax, "amin": amin, "argmax": argmax, "argmin": argmin,
    "aminmax": aminmax, "var": var, "std": std, "norm": norm, "logsumexp": logsumexp,
    "softmax": softmax, "log_softmax": log_softmax, "cumsum": cumsum, "cumprod": cumprod,
    "cumsum_": _cum_inplace(Cumsum), "cumprod_": _cum_inplace(Cumprod), "cummax": cummax, "cummin": cummin,
    "all": all, "any": any, "count_nonzero": count_nonzero, "median": median, "nanmedian": nanmedian,
    "mode": mode, "quantile": quantile, "nanquantile": nanquantile, "diff": diff,
})
