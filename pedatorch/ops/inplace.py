"""Whole-tensor in-place fills: ``fill_``, ``zero_``."""
from ..backend import astype, namespace
from .._tensor import Tensor
from ..autograd.function import ArrayFunction
from ._util import register, cast, checked_int
from .creation import zero_grad


class Fill(ArrayFunction):
    """self.fill_(v): every element becomes v (a number);  dself = 0"""
    node_name = "FillBackward2"
    _inplace_of = 0
    _overlap_check = None   # PyTorch fills an expanded tensor (each shared location written repeatedly)

    @staticmethod
    def forward(ctx, x, value):
        out = namespace(x).empty_like(x)
        # a number is checked as PyTorch checks it, then converted (a negative int wraps into uint8)
        out[...] = astype(value, x.dtype) if hasattr(value, "dtype") else cast(checked_int(value, x.dtype), x.dtype)
        return out

    @staticmethod
    def backward(ctx, grad):
        return zero_grad(grad), grad.sum()


class FillTensor(Fill):
    """self.fill_(v) with a 0-dim tensor v;  dself = 0,  dv = grad.sum()"""
    node_name = "FillBackward3"


class Zero(ArrayFunction):
    """self.zero_(): every element becomes 0;  dself = 0"""
    node_name = "ZeroBackward0"
    _inplace_of = 0
    _overlap_check = None   # PyTorch fills an expanded tensor (each shared location written repeatedly)

    @staticmethod
    def forward(ctx, x):
        return namespace(x).zeros_like(x)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad(grad)


def fill_(self, value):
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    return (FillTensor if isinstance(value, Tensor) else Fill).apply(self, value)


def zero_(self):
    return Zero.apply(self)


register({"fill_": fill_, "zero_": zero_})
