"""Ops of a tensor and a C++ number, as ATen records them when its own C++ code writes ``x + eps`` or
``(1 - s) * loss``: ``add.Scalar`` and its kin record ``AddBackward1``, ``SubBackward1``, ``MulBackward1``,
``DivBackward1``, where a Python number (``x + 1`` in Python) gives the ``...0`` nodes. Composite functions
written as PyTorch composes them in C++ (losses, ``special.ndtr``) use these, so that their graphs carry
PyTorch's names."""
import numpy as np

from ..autograd.function import ArrayFunction
from ..backend import namespace
from .._dtype import is_reduced_np, to_opmath
from ._util import promote, to_float

__all__ = ["AddScalar", "SubScalar", "MulScalar", "DivScalar"]


def _operands(x, s):
    """(x, s, result dtype) as ATen computes ``x op s``: promoted; for float16/bfloat16, x in float32 and s the
    number itself (numpy would round the number to the half type first)."""
    xs, ss = promote(x, s)
    if is_reduced_np(xs.dtype) and type(s) in (int, float):
        return to_opmath(xs), s, xs.dtype
    return xs, ss, xs.dtype


class AddScalar(ArrayFunction):
    """out = x + s (s a number, as ATen's add.Scalar);  dx = grad"""
    node_name = "AddBackward1"
    _elementwise = 1   # (TensorIterator's layout: a transposed x gives a transposed result)

    @staticmethod
    def forward(ctx, x, s):
        x, s, dt = _operands(x, s)
        return (x + s).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class SubScalar(ArrayFunction):
    """out = x - s (s a number, as ATen's sub.Scalar);  dx = grad"""
    node_name = "SubBackward1"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, s):
        x, s, dt = _operands(x, s)
        return (x - s).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class MulScalar(ArrayFunction):
    """out = x * s (s a number, as ATen's mul.Scalar);  dx = grad * s"""
    node_name = "MulBackward1"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, s):
        ctx.s = s
        x, s, dt = _operands(x, s)
        with np.errstate(invalid="ignore", over="ignore"):  # (0 * inf is nan, as in ATen, without a warning)
            return (x * s).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.s, None


class DivScalar(ArrayFunction):
    """out = x / s (s a number, as ATen's div.Scalar);  dx = grad / s"""
    node_name = "DivBackward1"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, s):
        xp = namespace(x)
        ctx.s = s
        x = to_float(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.asarray(to_opmath(x) / s).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.s, None
