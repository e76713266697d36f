"""``linear`` (y = x W^T + b) and ``bilinear`` (y = x1^T A x2 + b).

``linear`` follows ATen's choice of kernels, so its grad_fn chain is PyTorch's:

* 2-d input with a bias: one fused ``addmm(b, x, W^T)``                  -> AddmmBackward0;
* a contiguous n-d input with a bias (3-d, or a 1-d bias): flatten to 2-d,
  ``addmm``, view back                                                   -> ViewBackward0 <- AddmmBackward0;
* otherwise ``matmul(x, W^T)``, then the bias added in place            -> MmBackward0 / AddBackward0 ...
"""
import numpy as np

from ..._tensor import Tensor
from ...autograd.function import ArrayFunction
from ...backend import namespace
from ...ops._util import needed

__all__ = ["linear", "bilinear"]


def _check_tensor(t, fname, argname, pos):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(t).__name__}")


def linear(input, weight, bias=None):
    """y = x W^T + b, over the last dim of ``input`` (any number of leading dims)."""
    from ...ops.linalg import addmm, matmul
    _check_tensor(input, "linear", "input", 1)
    _check_tensor(weight, "linear", "weight", 2)
    if bias is not None:
        _check_tensor(bias, "linear", "bias", 3)
    nd, wd = input.ndim, weight.ndim
    if nd == 0 or wd == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {nd}D and {wd}D")
    if bias is not None:
        if nd == 2:
            return addmm(bias, input, weight.t())   # the fused kernel
        if input.is_contiguous() and (nd == 3 or bias.ndim == 1):
            shape = tuple(input.shape)
            rows = 1
            for s in shape[:-1]:
                rows *= s
            out = addmm(bias, input.reshape(rows, shape[-1]), weight.t())
            return out.view(*shape[:-1], out.shape[1])
    output = matmul(input, weight.t())
    if bias is not None:
        output.add_(bias)
    return output


class Trilinear(ArrayFunction):
    """out[b, o] = sum_ij x1[b, i] W[o, i, j] x2[b, j]  (ATen's _trilinear as bilinear uses it);
    dx1 = g W x2,  dW = g (x) x1 (x) x2,  dx2 = g W^T x1   (einsums)"""
    node_name = "TrilinearBackward0"

    @staticmethod
    def forward(ctx, x1, w, x2):
        # each is saved only when another's gradient will read it (PyTorch's wrap_opt_if)
        read_x1, read_w, read_x2 = (needed(ctx, i, True) or needed(ctx, j, True) for i, j in ((1, 2), (0, 2), (0, 1)))
        ctx.save_for_backward(x1 if read_x1 else None, w if read_w else None, x2 if read_x2 else None)
        xp = namespace(x1)
        out = xp.einsum("bi,oij,bj->bo", x1, w, x2, optimize=True)
        return xp.asarray(out).astype(np.result_type(x1, w, x2), copy=False)

    @staticmethod
    def backward(ctx, grad):
        from ...ops.linalg import einsum
        x1, w, x2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (einsum("bo,oij,bj->bi", grad, w, x2) if need[0] else None,
                einsum("bo,bi,bj->oij", grad, x1, x2) if need[1] else None,
                einsum("bo,oij,bi->bj", grad, w, x1) if need[2] else None)


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = x1^T W[o] x2 + b[o] over the last dims of ``input1`` and ``input2``."""
    for pos, (name, t) in enumerate((("input1", input1), ("input2", input2), ("weight", weight)), 1):
        _check_tensor(t, "bilinear", name, pos)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    output = Trilinear.apply(x1, weight, x2).reshape(out_shape)
    if bias is not None:
        output = output + bias
    return output
