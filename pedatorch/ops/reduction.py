"""Reductions: ``sum``, ``mean``, ``sum_to_size`` (the reverse of broadcasting).

The backward of a reduction spreads the gradient back over the reduced dims:
``unsqueeze`` them again (when ``keepdim=False``) and ``expand`` to the input
shape - a stride-0 view, so no memory is copied.
"""
import numbers

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.function import ArrayFunction
from ._util import wrap_dims, register, write_out

__all__ = ["sum", "mean", "nansum", "nanmean"]


def _restore_dims(grad, in_shape, dims, keepdim):
    """Turn the gradient of a reduced tensor back into one of ``in_shape`` (a broadcast view)."""
    if not keepdim and dims:
        shape = list(grad.shape)
        for d in sorted(dims):
            shape.insert(d, 1)
        grad = grad.reshape(shape)
    return grad.expand(in_shape)


def _acc_dtype(x, dtype):
    """PyTorch sums integers and bools in int64; ``dtype=`` casts before reducing."""
    if dtype is not None:
        return dtype.np
    if x.dtype.kind in "biu":
        return np.dtype(np.int64)
    return None


class Sum(ArrayFunction):
    """out = x summed over dims;  dx = grad expanded back over those dims"""
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.in_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        if np_dtype is not None and x.dtype != np_dtype:
            x = x.astype(np_dtype)
        return np.sum(x, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx.in_shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    """out = the sum of all elements;  dx = grad expanded to x's shape"""
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype):
        ctx.in_shape = x.shape
        if np_dtype is not None and x.dtype != np_dtype:
            x = x.astype(np_dtype)
        return np.asarray(x.sum())

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape), None


def _dims_arg(dim, ndim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    return wrap_dims(dim, ndim)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, D.dtype):  # sum(x, torch.float64)
        dim, dtype = None, dim
    np_dtype = _acc_dtype(input._data, dtype)
    dims = _dims_arg(dim, input._data.ndim)
    if dims is None and not keepdim:
        r = SumAll.apply(input, np_dtype)
    else:
        if dims is None:
            dims = tuple(range(input._data.ndim))
        r = Sum.apply(input, dims, keepdim, np_dtype)
    return r if out is None else write_out(out, r)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input.nan_to_num(0.0, float("inf"), float("-inf")) if input.is_floating_point() else input
    return sum(x, dim, keepdim, dtype=dtype, out=out)


class Mean(ArrayFunction):
    """out = x averaged over dims;  dx = grad / n expanded back over those dims"""
    node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.in_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        if np_dtype is not None and x.dtype != np_dtype:
            x = x.astype(np_dtype)
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.n = n
        return np.asarray(np.mean(x, axis=dims, keepdims=keepdim), dtype=x.dtype) if n else \
            np.full(np.sum(x, axis=dims, keepdims=keepdim).shape, np.nan, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad / ctx.n, ctx.in_shape, ctx.dims, ctx.keepdim), None, None, None


class MeanAll(Mean):
    """out = the mean of all elements;  dx = grad / numel expanded to x's shape"""
    node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, x, np_dtype):
        ctx.in_shape = x.shape
        ctx.n = x.size
        if np_dtype is not None and x.dtype != np_dtype:
            x = x.astype(np_dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(x.mean() if x.size else np.nan, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return (grad / ctx.n).expand(ctx.in_shape), None


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if dtype is None and input._data.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_dtype_word(input.dtype)}")
    np_dtype = dtype.np if dtype is not None else None
    dims = _dims_arg(dim, input._data.ndim)
    if dims is None and not keepdim:
        r = MeanAll.apply(input, np_dtype)
    else:
        if dims is None:
            dims = tuple(range(input._data.ndim))
        r = Mean.apply(input, dims, keepdim, np_dtype)
    return r if out is None else write_out(out, r)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    notnan = input.isnan().logical_not()
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / notnan.sum(dim, keepdim) if dim is not None else total / notnan.sum()


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
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    r = Sum.apply(self, dims, True, None) if dims else self
    if lead:
        r = r.reshape(size)
    return r


register({"sum": sum, "nansum": nansum, "mean": mean, "nanmean": nanmean, "sum_to_size": sum_to_size})
