"""Joining tensors: ``cat``, ``stack`` (and their backward: split the gradient)."""

from .._layout import common_format, in_format
from .._tensor import Tensor
from ..backend import namespace
from ..autograd.function import ArrayFunction
from ._util import wrap_dim, write_out, result_np_dtype, shape_str
from .shape import _unsqueeze_array, _view_array

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"]


def _cat_arrays(arrays, dim):
    """The arrays joined along ``dim`` in their common dtype, laid out as ATen's cat lays out its result:
    in the memory format all inputs suggest (channels-last when they all are), else contiguous."""
    dt = result_np_dtype(*arrays)
    xp = namespace(*arrays)
    real = [a.astype(dt, copy=False) for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)]
    if not real:   # only legacy 1-d empty tensors: an empty one of the common dtype
        return xp.empty((0,), dtype=dt)
    return in_format(xp.concatenate(real, axis=dim), common_format(arrays))


class Cat(ArrayFunction):
    """out = tensors joined along dim;  each input gets its slice of grad"""
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim = dim
        ctx.sizes = [a.shape[dim] if a.ndim > dim else 0 for a in arrays]
        ctx.shapes = [a.shape for a in arrays]
        return _cat_arrays(arrays, dim)

    @staticmethod
    def backward(ctx, grad):
        out, start = [None], 0
        for n, shape in zip(ctx.sizes, ctx.shapes):
            # the legacy 1-D ``tensor([])`` gets new zeros of its own shape; any other input its slice of grad
            # (an empty one too: with create_graph it is a view of grad, recorded as SliceBackward0)
            out.append(grad.new_zeros(shape) if shape == (0,) else grad.narrow(ctx.dim, start, n))
            start += n
        return tuple(out)


def cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    real = [t for t in tensors if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    ref = real[0] if real else tensors[0]
    if ref._data.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    # ATen's legacy_cat_wrap_dim: the skipped 1-d empty tensors do not check the dim; when every tensor
    # is one, any dim goes (the result is empty whatever it is)
    d = wrap_dim(dim, ref._data.ndim) if real else 0
    for i, t in enumerate(tensors):
        if any(t is r for r in real):
            if t._data.ndim != ref._data.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and "
                                   f"{t._data.ndim}")
            for k in range(ref._data.ndim):
                if k != d and t._data.shape[k] != ref._data.shape[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                       f"{ref._data.shape[k]} but got size {t._data.shape[k]} for tensor number "
                                       f"{i} in the list.")
    r = Cat.apply(d, *tensors)
    return r if out is None else write_out(out, r)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    d = wrap_dim(dim, len(shape) + 1)   # before the sizes, as in ATen (a bad dim is an IndexError)
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {shape_str(shape)} at entry "
                               f"0 and {shape_str(t._data.shape)} at entry {i}")
    r = Stack.apply(d, *tensors)
    return r if out is None else write_out(out, r)


class Stack(ArrayFunction):
    """out = tensors stacked along a new dim;  input i gets grad.select(dim, i)"""
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim, ctx.n = dim, len(arrays)
        # ATen stacks by cat, whose layout rule then decides the result's strides: inside the dims, cat
        # along dim and view the joined dim as (n, size); after the last dim, cat the inputs unsqueezed
        if dim < arrays[0].ndim:
            shape = arrays[0].shape[:dim] + (len(arrays),) + arrays[0].shape[dim:]
            return _view_array(_cat_arrays(arrays, dim), shape)
        return _cat_arrays([_unsqueeze_array(a, dim) for a in arrays], dim)

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.select(ctx.dim, i) for i in range(ctx.n))


def hstack(tensors, *, out=None):
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    tensors = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    return cat(tensors, 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    from .shape import atleast_3d
    return cat([atleast_3d(t) for t in tensors], 2, out=out)


def column_stack(tensors, *, out=None):
    tensors = [t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors]
    return cat(tensors, 1, out=out)
