"""Loss functions (``F.mse_loss``, ``F.cross_entropy``, ``F.nll_loss``, ...), as PyTorch 2.13 computes them.

Each loss reduces with ``reduction='none' | 'mean' | 'sum'``; the deprecated ``size_average`` and
``reduce`` arguments, where PyTorch still takes them, override ``reduction`` with PyTorch's warning.

PyTorch writes some losses as one kernel with its own backward (``MseLossBackward0``,
``NllLossBackward0``, ``BinaryCrossEntropyBackward0``, ...): those are ``ArrayFunction``s here, with the
same formulas (the backward in Tensor ops, so double backward works).  The others are compositions of
ops exactly as PyTorch composes them (``l1_loss`` is ``(input - target).abs().mean()``,
``cross_entropy`` is ``log_softmax`` then ``nll_loss``), so their ``grad_fn`` chains match PyTorch's.
Where PyTorch's C++ code combines a tensor with a C++ number (``x + eps``, ``(1 - s) * loss``), it
records ``AddBackward1``/``MulBackward1``/``DivBackward1``/``SubBackward1`` rather than the ``...0``
nodes Python numbers give; ``ops/scalar.py``'s small functions record those names.
"""
import math
import numbers
import warnings

import numpy as np

from ..._warnings import user_stacklevel
from ..._tensor import Tensor
from ...autograd.function import ArrayFunction, before_checks
from ..._layout import iterator_result
from ...backend import namespace, on_host, scatter_add, select, to_host
from ...ops.scalar import AddScalar as _AddScalar, SubScalar as _SubScalar, MulScalar as _MulScalar, \
    DivScalar as _DivScalar
from ...autograd.grad_mode import _state, no_grad
from ...ops.creation import full_like, ones_like, zeros, zeros_like
from ...ops.elementwise import clamp_min, exp, log, logit, minimum, where, xlogy
from ...ops.reduction import VectorNorm, log_softmax
from ...ops.shape import broadcast_shapes, unsqueeze
from ...ops._util import promote, to_float, _type_word, shape_str, broadcast_shapes_or_raise, result_np_dtype
from ..._dtype import is_float_np, to_opmath, get_default_dtype as _default_dtype

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]

_EPSILON = 1e-12  # ATen's EPSILON in Loss.cpp (bce backward, cosine_embedding_loss)
_make = Tensor._make


# ====================================================================== reduction arguments

def _get_enum(reduction):
    """``torch.nn._reduction.get_enum``: 'none' | 'mean' | 'sum' (checked)."""
    if reduction == "none" or reduction == "mean" or reduction == "sum":
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=user_stacklevel())
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction the deprecated ``size_average``/``reduce`` pair means (with PyTorch's warning)."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=user_stacklevel())
    return ret


def _reduction_enum(size_average, reduce, reduction):
    """``legacy_get_enum`` when a deprecated argument is given, else ``get_enum(reduction)``."""
    if size_average is not None or reduce is not None:
        return _legacy_get_string(size_average, reduce)
    return _get_enum(reduction)


def _apply_loss_reduction(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _reduce_array(loss, reduction):
    """The numpy side of a one-node loss: mean (nan when empty, as PyTorch) or sum, in the loss dtype."""
    xp = namespace(loss)
    if reduction == "none":
        return loss
    # float16/bfloat16 losses add up in float32 and are rounded once, as PyTorch's reductions do
    acc = np.float32 if loss.dtype.itemsize == 2 and loss.dtype.kind in "fV" else None
    with np.errstate(invalid="ignore", divide="ignore"):
        s = xp.sum(loss, dtype=acc)
        if reduction == "mean":
            s = s / loss.size if loss.size else np.nan
    return xp.asarray(s, dtype=loss.dtype)


def _norm_factor(ctx):
    """The 1 / numel of a 'mean' loss's backward.  An empty loss's gradients are empty, so no value ever sees
    the factor; only double backward through the incoming gradient does, as (empty sum = 0) * factor, which
    PyTorch gives as 0: hence 0 here, where 1 / 0 (inf or NaN) would make it NaN."""
    if ctx.reduction != "mean":
        return 1.0
    return 1.0 / ctx.numel if ctx.numel else 0.0


def _check_no_grad(fn, arg, t):
    """Arguments PyTorch does not differentiate (a class ``weight``) must not require grad."""
    if t is not None and _state.enabled and t.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This "
                           f"input cannot have requires_grad True.")


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
                      f"Please ensure they have the same size.", stacklevel=user_stacklevel())


def _broadcast_pair(a, b):
    """``torch.broadcast_tensors(a, b)``: a tensor already of the broadcast shape is returned as it is."""
    shape = broadcast_shapes_or_raise(tuple(a.shape), tuple(b.shape))
    return (a if tuple(a.shape) == shape else a.expand(shape)), (b if tuple(b.shape) == shape else b.expand(shape))


def _fmt(x):
    """A double as C++ streams print it (``%g``)."""
    return f"{x:g}"


def _not_implemented(kernel, dtype):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(dtype)}'")


def _is_float(dt):
    return is_float_np(dt) or dt.name == "bfloat16"


# ====================================================================== ops with C++ scalar arguments

def _rsub_scalar(s, x):
    """ATen's ``Scalar - Tensor``: ``empty_like(x).fill_(s).sub_(x)`` (records SubBackward0)."""
    return full_like(x, s) - x


class _Norm(VectorNorm):
    """ATen's ``norm(x, p, dim)``, which pairwise_distance calls: vector_norm's kernel and gradient, recorded
    under its own node name (an integer difference is converted to the default float dtype first)."""
    node_name = "NormBackward1"


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """ATen's ``pairwise_distance``: ``norm(x1 - x2 + eps, p, last dim)``."""
    innermost = max(x1.dim(), x2.dim()) - 1
    diff = _AddScalar.apply(x1 - x2, eps)
    if not (diff.is_floating_point() or diff.is_complex()):
        diff = diff.to(_default_dtype())
    return _Norm.apply(diff, p, (innermost,) if innermost >= 0 else None, keepdim, None)


def _log_sigmoid_array(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), without overflow (ATen's CPU kernel)."""
    xp = namespace(x)
    x = to_opmath(x)   # (float16/bfloat16 in float32, rounded by the caller once: ATen's kernel)
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


class _LogSigmoid(ArrayFunction):
    """out = log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|));  dx = grad * sigmoid(-x)"""
    node_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        if not _is_float(x.dtype):
            raise _not_implemented("log_sigmoid_cpu", x.dtype)
        ctx.save_for_backward(x)
        return xp.asarray(_log_sigmoid_array(x), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (-x).sigmoid()


# ====================================================================== mse / l1 / smooth_l1 / huber

class MseLoss(ArrayFunction):
    """l = (x - y)^2, reduced;  dx = 2 (x - y) grad (/ numel for 'mean'),  dy = -dx"""
    node_name = "MseLossBackward0"
    _elementwise = 2   # a TensorIterator op on (input, target): the result takes their layout

    @staticmethod
    def forward(ctx, x, y, reduction):
        a, b = promote(x, y)
        if not _is_float(a.dtype):
            raise _not_implemented("mse_cpu", a.dtype)
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.numel = reduction, a.size
        d = a - b
        return _reduce_array(d * d, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        f = _norm_factor(ctx)
        gx = MseLossGrad.apply(x, y, grad, f, ctx.reduction) if ctx.needs_input_grad[0] else None
        gy = MseLossGrad.apply(y, x, grad, f, ctx.reduction) if ctx.needs_input_grad[1] else None
        return gx, gy, None


class MseLossGrad(ArrayFunction):
    """PyTorch's mse_loss_backward as one op of (x, y, grad): 2 (x - y) grad f  (f = 1 / numel for 'mean').
    One node, as PyTorch's: an efficient-zero grad is plain zeros to it (inf - y times 0 is NaN there too).
    Its backward: 2 f gg grad for x (its negative for y), and for grad this op again, summed for a reduced loss."""
    node_name = "MseLossBackwardBackward0"
    _elementwise = 3   # TensorIterator's operands (input, target, grad_output): the result takes their layout

    @staticmethod
    def forward(ctx, x, y, grad, f, reduction):
        a, b = promote(x, y)
        ctx.save_for_backward(x, y, grad)
        ctx.f, ctx.reduction = f, reduction
        with np.errstate(invalid="ignore"):
            return (a - b) * (2.0 * f) * grad   # (ATen's kernel: norm * (input - target) * grad_output)

    @staticmethod
    def backward(ctx, gg):
        x, y, grad = ctx.saved_tensors
        need = ctx.needs_input_grad
        d = None
        if need[0] or need[1]:   # PyTorch's mse_loss_double_backward(gg * grad): 2 gg grad, / numel for 'mean'
            d = gg * grad * 2
            if ctx.reduction == "mean" and ctx.f:
                d = d / round(1 / ctx.f)
        d_grad = None
        if need[2]:
            d_grad = MseLossGrad.apply(x, y, gg, ctx.f, ctx.reduction)
            if ctx.reduction != "none":
                d_grad = d_grad.sum()
        return (d if need[0] else None), (-d if need[1] else None), d_grad, None, None


class SmoothL1Loss(ArrayFunction):
    """l = 0.5 z^2 / beta if |z| < beta else |z| - 0.5 beta  (z = x - y);  dx = clamp(z / beta, -1, 1) grad"""
    node_name = "SmoothL1LossBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, x, y, reduction, beta):
        xp = namespace(x)
        a, b = promote(x, y)
        if not _is_float(a.dtype):
            raise _not_implemented("smooth_l1_cpu", a.dtype)
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.numel, ctx.beta = reduction, a.size, beta
        dt = a.dtype   # (a TensorIterator op: the promoted dtype, where huber_loss keeps the input's)
        if a.dtype.name == "bfloat16":   # ATen's kernel widens bfloat16 to float32 (float16: its own steps)
            a, b = to_opmath(a), to_opmath(b)
        z = xp.abs(a - b)
        loss = xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(dt, copy=False)
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return _clamped_loss_grads(ctx, _SmoothL1LossBackward, grad, x, y, ctx.beta, 1.0 / ctx.beta)


class HuberLoss(ArrayFunction):
    """l = 0.5 z^2 if |z| < delta else delta (|z| - 0.5 delta)  (z = x - y);  dx = clamp(z, -delta, delta) grad"""
    node_name = "HuberLossBackward0"
    _elementwise = 2
    _result_format = "preserve_format"   # ATen writes the elementwise loss into empty_like(input)

    @staticmethod
    def forward(ctx, x, y, reduction, delta):
        xp = namespace(x)
        a, b = promote(x, y)
        if not _is_float(a.dtype):
            raise _not_implemented("huber_cpu", a.dtype)
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.numel, ctx.delta = reduction, a.size, delta
        if a.dtype == np.float16:   # ATen's kernel computes float16 in float32 (bfloat16: its own steps)
            a, b = to_opmath(a), to_opmath(b)
        z = xp.abs(a - b)
        loss = xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(x.dtype)  # empty_like(input)
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        if x._data.dtype != y._data.dtype:   # (PyTorch's huber_loss_backward refuses a target of another dtype)
            raise RuntimeError(f"Found dtype {_type_word(y._data.dtype)} but expected {_type_word(x._data.dtype)}")
        return _clamped_loss_grads(ctx, _HuberLossBackward, grad, x, y, ctx.delta, 1.0)


def _clamped_loss_grads(ctx, node, grad, x, y, limit, scale):
    """The (x, target) gradients of huber/smooth_l1: PyTorch computes the target's with the same backward
    node, its arguments swapped (clamp(y - x) = -clamp(x - y))."""
    need = ctx.needs_input_grad
    args = (ctx.reduction, limit, scale, ctx.numel)
    gx = node.apply(grad, x, y, *args) if need[0] else None
    gy = node.apply(grad, y, x, *args) if need[1] else None
    return gx, gy, None, None


class _ClampedLossBackward(ArrayFunction):
    """The backward of huber (limit = delta, scale = 1) and smooth_l1 (limit = beta, scale = 1 / beta):
    out = clamp(x - y, -limit, limit) * scale * grad  (/ numel for 'mean').

    One node, as in PyTorch, so that double backward uses PyTorch's formula: d out / dx = -d out / dy =
    gg * grad * (|x - y| < limit) * scale, a product (NaN times the 0 outside stays NaN) where a
    composite ``clamp`` would mask it to 0."""

    @staticmethod
    def _forward(ctx, huber, grad, x, y, reduction, limit, scale, numel):
        xp = namespace(grad)
        ctx.save_for_backward(grad, x, y)
        ctx.reduction, ctx.limit, ctx.scale, ctx.numel = reduction, limit, scale, numel
        a, b = promote(x, y)
        # ATen's vectorized kernel: huber: out = x where |x| < delta, else ±delta;  smooth_l1: x / beta, else ±1;
        # result = norm * out * grad.  Huber works in the dtype itself (float16/bfloat16 vectors round after
        # each op); smooth_l1 computes float16/bfloat16 in float32 and rounds once
        dt = a.dtype
        grad = grad.astype(dt, copy=False)
        if not huber:
            a, b, grad = to_opmath(a), to_opmath(b), to_opmath(grad)
        t = a.dtype.type
        d = xp.asarray(a - b)
        with np.errstate(invalid="ignore", divide="ignore"):
            big = xp.abs(d) >= t(limit)
            sign = xp.where(d > 0, t(1), t(-1))
            out = xp.where(big, sign * t(limit), d) if huber else xp.where(big, sign, d / t(limit))
            return xp.asarray((t(_norm_factor(ctx)) * out) * grad).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, gg):
        grad, x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        args = (ctx.reduction, ctx.limit, ctx.scale, ctx.numel)
        g_grad = gx = gy = None
        if need[0]:  # out is linear in grad: the same node, applied to gg (summed when grad was a reduced loss's)
            if ctx.reduction == "none":
                g_grad = ctx._function.apply(gg, x, y, *args)
            else:
                g_grad = (ctx._function.apply(ones_like(grad), x, y, *args) * gg).sum()
        if need[1] or need[2]:
            d = gg * grad * ((x - y).abs() < ctx.limit)
            if ctx.scale != 1.0:
                d = d / ctx.limit
            if ctx.reduction == "mean":
                d = d / ctx.numel
            gx = d if need[1] else None
            gy = -d if need[2] else None
        return g_grad, gx, gy, None, None, None, None


class _HuberLossBackward(_ClampedLossBackward):
    node_name = "HuberLossBackwardBackward0"

    @staticmethod
    def forward(ctx, *args):
        return _ClampedLossBackward._forward(ctx, True, *args)


class _SmoothL1LossBackward(_ClampedLossBackward):
    node_name = "SmoothL1LossBackwardBackward0"

    @staticmethod
    def forward(ctx, *args):
        return _ClampedLossBackward._forward(ctx, False, *args)


def _weighted(elementwise, weight, input, reduction):
    """The Python path of mse/l1/huber with a ``weight``: weighted elementwise loss, mean = sum / sum(weight)."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = elementwise() * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)**2``, optionally weighted (``mean`` then divides by ``weight.sum()``)."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    ei, et = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(lambda: (ei - et).pow(2), weight, input, reduction)
    return MseLoss.apply(ei, et, _get_enum(reduction))


def _l1(input, target, reduction):
    """ATen's l1_loss: ``(input - target).abs()`` reduced."""
    return _apply_loss_reduction((input - target).abs(), reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, optionally weighted."""
    input, target, weight = before_checks("l1_loss", input, target, weight)   # (autocast: float32)
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    ei, et = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(lambda: (ei - et).abs(), weight, input, reduction)
    return _l1(ei, et, _get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 z**2 / beta`` where ``|z| < beta``, else ``|z| - 0.5 beta`` (z = input - target); beta=0 is l1_loss."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    ei, et = _broadcast_pair(input, target)
    if beta == 0.0:
        return _l1(ei, et, _get_enum(reduction))
    red = _get_enum(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return SmoothL1Loss.apply(ei, et, red, float(beta))


def _huber(input, target, reduction, delta):
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return HuberLoss.apply(input, target, reduction, float(delta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 z**2`` where ``|z| < delta``, else ``delta (|z| - 0.5 delta)``, optionally weighted."""
    _size_warning(input, target)
    ei, et = _broadcast_pair(input, target)
    if weight is None:
        return _huber(ei, et, _get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = _huber(ei, et, "none", delta) * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ====================================================================== nll_loss / cross_entropy

class NllLoss(ArrayFunction):
    """l_i = -w[t_i] x[i, t_i] (0 where t_i == ignore_index); 'mean' divides by sum_i w[t_i];
    dx[i, t_i] = -w[t_i] grad (/ total weight for 'mean'), 0 elsewhere"""
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, reduction, ignore_index):
        xp = namespace(x)
        one = x.ndim == 1                          # (C,) with target () or (1,)
        xb = x[None] if one else x                 # (N, C, *rest)
        t = (target.reshape(1) if one else target).astype(np.int64, copy=False)
        C = xb.shape[1]
        valid = t != ignore_index
        tc = xp.where(valid, t, 0)                 # an ignored target reads class 0, and counts for nothing
        bad = (tc < 0) | (tc >= C)
        if bad.any():
            raise IndexError(f"Target {tc[bad].flat[0]} is out of bounds.")
        picked = xp.take_along_axis(xb, tc[:, None], axis=1)[:, 0]
        if weight is not None:
            w = xp.where(valid, weight.reshape(-1)[tc], 0).astype(x.dtype, copy=False)
        else:
            w = valid.astype(x.dtype)
        # (selected, not multiplied by w == 0: an ignored target's inf or NaN input gives 0, as in PyTorch)
        loss = select(valid, -(picked * w)).astype(x.dtype, copy=False)
        if reduction == "none" and one:
            # ATen computes a 1-D input's loss as its reductions do, accumulating from 0: 0 - x * w, so an
            # input of 0 gives +0 (the (N, C) kernel writes -(x * w): -0)
            out = xp.asarray(0 - select(valid, picked * w)[0]).astype(x.dtype, copy=False)
            total = None
        elif reduction == "none":
            out = loss
            total = None
        else:
            total = xp.sum(w, dtype=x.dtype)
            out = _reduce_array(loss, "sum")
            if reduction == "mean":
                with np.errstate(invalid="ignore", divide="ignore"):
                    out = xp.asarray(out / total, dtype=x.dtype)
        ctx.save_for_backward(x)
        ctx.one, ctx.shape, ctx.reduction = one, xb.shape, reduction
        ctx.target_shape = target.shape
        ctx.tc, ctx.valid, ctx.w, ctx.total = tc, valid, w, total
        return out

    @staticmethod
    def backward(ctx, grad):
        # ATen's nll_loss_backward checks the sizes as its forward does, but takes a 1-D input's size
        # as the batch size: a 1-D input with a (1,) target computes its loss, and then fails here
        x_shape, t_shape = ctx.shape[1:] if ctx.one else ctx.shape, ctx.target_shape
        if not (len(x_shape) == 1 and len(t_shape) == 0) and x_shape[0] != t_shape[0]:
            raise RuntimeError(f"size mismatch (got input: {shape_str(x_shape)}, target: {shape_str(t_shape)})")
        dt = grad._data.dtype
        vals = -ctx.w.astype(dt, copy=False)
        if ctx.reduction == "mean":
            vals = vals * (dt.type(1) / ctx.total.astype(dt, copy=False))
        x, = ctx.saved_tensors
        per_item = not ctx.one and ctx.reduction == "none"
        return (ctx._function._backward_fn.apply(grad, x, ctx.tc, vals.astype(dt, copy=False), ctx.valid, ctx.shape,
                                                 per_item, ctx.one), None, None, None, None)


class NllLossBackward(ArrayFunction):
    """grad_input: zeros, with vals * grad written at each valid target (vals = -w[t], / total weight for
    'mean'). PyTorch's kernel writes into zeros, so a NaN or inf grad reaches the targets only. Linear in
    grad, constant in the input (its derivative there is zero, as in PyTorch's nll_loss_backward)."""
    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, tc, vals, valid, shape, per_item, one):
        xp = namespace(grad)
        ctx.tc, ctx.vals, ctx.valid, ctx.per_item, ctx.one = tc, vals, valid, per_item, one
        picked = select(valid, vals * grad)   # (N, *rest)
        out = xp.zeros(shape, vals.dtype)
        xp.put_along_axis(out, tc[:, None], picked[:, None], axis=1)
        return out[0] if one else out

    @staticmethod
    def backward(ctx, gg):
        g = None
        if ctx.needs_input_grad[0]:   # nll_loss of gg: gg read at the valid targets
            ggb = gg.unsqueeze(0) if ctx.one else gg
            prod = ggb.gather(1, _make(ctx.tc[:, None])).squeeze(1) * _make(ctx.vals)
            prod = where(_make(ctx.valid), prod, 0.0)
            g = prod if ctx.per_item else prod.sum()
        gx = zeros_like(gg) if ctx.needs_input_grad[1] else None
        return g, gx, None, None, None, None, None, None


class NllLoss2DBackward(NllLossBackward):
    node_name = "NllLoss2DBackwardBackward0"


NllLoss._backward_fn = NllLossBackward


class NllLoss2D(NllLoss):
    """nll_loss for (N, C, H, W) inputs and (N, H, W) targets (the same formula)"""
    node_name = "NllLoss2DBackward0"
    _backward_fn = NllLoss2DBackward


def _nll_common_checks(fn, input, target, weight):
    _check_no_grad(fn, "weight", weight)
    tdt = target._data.dtype
    if tdt not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_word(tdt)}")


def _nll_dtype_checks(input, weight):
    xdt = input._data.dtype
    if not _is_float(xdt):
        raise _not_implemented("nll_loss_out_frame", xdt)
    if weight is not None and weight._data.dtype != xdt:
        raise RuntimeError(f"expected scalar type {_type_word(xdt)} but found {_type_word(weight._data.dtype)}")


def _nll_loss(input, target, weight, reduction, ignore_index):
    """ATen's nll_loss (1-D or 2-D input)."""
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = input.dim() == 1 and target.dim() == 0
    batch_size = 1 if input.dim() == 1 else input.shape[0]   # (a (1,) target passes with a 1-D input here)
    if not (no_batch_dim or batch_size == target.shape[0]):
        raise RuntimeError(f"size mismatch (got input: {shape_str(input.shape)}, target: "
                           f"{shape_str(target.shape)})")
    C = input.shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == C):
        raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                           f"weight tensor of shape: {shape_str(weight.shape)}")
    _nll_common_checks("nll_loss_forward", input, target, weight)
    _nll_dtype_checks(input, weight)
    return NllLoss.apply(input, target, weight, reduction, int(ignore_index))


def _nll_loss2d(input, target, weight, reduction, ignore_index):
    """ATen's nll_loss2d ((N, C, H, W) input, (N, H, W) target)."""
    if target.dim() != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                           f"dimension: {target.dim()}")
    if input.dim() != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of "
                           f"dimension: {input.dim()}")
    if weight is not None and weight.numel() != input.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    xs, ts = input.shape, target.shape
    if not (xs[0] == ts[0] and xs[2] == ts[1] and xs[3] == ts[2]):
        raise RuntimeError(f"size mismatch (got input: {shape_str(xs)} , target: {shape_str(ts)}")
    _nll_common_checks("nll_loss2d_forward", input, target, weight)
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type_word(target._data.dtype)}")
    _nll_dtype_checks(input, weight)
    return NllLoss2D.apply(input, target, weight, reduction, int(ignore_index))


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """ATen's nll_loss_nd: 1-D/2-D -> nll_loss, 4-D -> nll_loss2d, other N-d viewed as (N, C, 1, -1)."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1:
        tb = target.shape[0] if target.dim() > 0 else 0
        if input.shape[0] != tb:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({tb}).")
    if input.dim() == 1 and target.dim() == 1:
        if target._data.dtype not in (np.int64, np.uint8):   # (PyTorch looks at the dtype first)
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_word(target._data.dtype)}")
        if target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    if input.dim() <= 2:
        return _nll_loss(input, target, weight, reduction, ignore_index)
    if input.dim() == 4:
        return _nll_loss2d(input, target, weight, reduction, ignore_index)
    n, c = input.shape[0], input.shape[1]
    out_size = [n] + list(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {shape_str(out_size)}, got {shape_str(target.shape)}")
    # (a zero-size tensor is contiguous: pedatorch's is_contiguous says otherwise for now, hence the numel test)
    x_ = input.contiguous() if input.numel() else input
    t_ = target.contiguous() if target.numel() else target
    x_ = x_.view(n, c, 1, -1) if x_.numel() > 0 else x_.view(n, c, 0, 0)
    t_ = t_.view(n, 1, -1) if t_.numel() > 0 else t_.view(n, 0, 0)
    ret = _nll_loss2d(x_, t_, weight, reduction, ignore_index)
    return ret.view(out_size) if reduction == "none" else ret


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of class-index targets: ``-weight[t] * input[n, t]`` (input holds log-probabilities).

    ``input`` is (C), (N, C) or (N, C, d1, d2, ...) with targets (), (N) or (N, d1, d2, ...); targets equal
    to ``ignore_index`` contribute nothing; ``'mean'`` divides by the sum of the targets' weights.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _nll_loss_nd(input, target, weight, _get_enum(reduction), ignore_index)


def _smoothing_share(label_smoothing, C):
    """label_smoothing / C as ATen's C++ double division computes it: inf (not an error) with no class."""
    return label_smoothing / C if C else math.inf


def _ce_prob_target(input, target, weight, reduction, label_smoothing):
    """ATen's cross_entropy_loss_prob_target: ``-(log_softmax(input) * target [* weight]).sum(...)``."""
    class_dim = 0 if input.dim() == 1 else 1
    C = input.shape[class_dim]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == C):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {C} classes or no "
                           f"classes but got weight tensor of shape: {shape_str(weight.shape)}")
    inp = log_softmax(input, class_dim, input.dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_fmt(label_smoothing)}")
        target = _AddScalar.apply(_MulScalar.apply(target, 1 - label_smoothing), _smoothing_share(label_smoothing, C))
    prod = inp * target
    if weight is not None:
        wshape = [1] * inp.dim()
        if inp.dim() > 1:
            wshape[1] = weight.shape[0]
            prod = prod * weight.view(wshape)
        else:
            prod = prod * weight
    if reduction == "mean":
        if inp.numel() == 0:
            return -(prod.sum().fill_(math.nan))
        return _DivScalar.apply(-(prod.sum()), inp.numel() // C)
    if reduction == "sum":
        return -(prod.sum())
    return -(prod.sum(class_dim))


def _ce_label_smoothing(input, target, weight, reduction, ignore_index, label_smoothing):
    """ATen's cross_entropy_loss_label_smoothing: (1 - s) nll + s/C * (-sum_c log_softmax)."""
    class_dim = 0 if input.dim() == 1 else 1
    C = input.shape[class_dim]
    inp = log_softmax(input, class_dim, input.dtype)
    nll = _nll_loss_nd(inp, target, weight, reduction, ignore_index)
    ignore_mask = target == ignore_index
    if weight is not None:
        wshape = [1] * inp.dim()
        wshape[class_dim] = weight.shape[0]
        smooth = -((inp * weight.view(wshape)).sum(class_dim))
    else:
        smooth = -(inp.sum(class_dim))
    smooth.masked_fill_(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is not None:
            ret = smooth.sum() / weight.gather(0, target.masked_select(~ignore_mask).flatten()).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return _MulScalar.apply(nll, 1 - label_smoothing) + _MulScalar.apply(ret, _smoothing_share(label_smoothing, C))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of logits ``input`` against class indices or class probabilities ``target``.

    Index targets: ``nll_loss(log_softmax(input, 1), target, ...)``.  A target of the input's shape holds
    class probabilities: ``-(log_softmax(input, 1) * target).sum(1)``.  ``label_smoothing`` mixes the
    target with the uniform distribution over the C classes.
    """
    input, target, weight = before_checks("cross_entropy", input, target, weight)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    red = _get_enum(reduction)
    if tuple(input.shape) == tuple(target.shape):
        if not _is_float(target._data.dtype):
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_type_word(target._data.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _ce_prob_target(input, target, weight, red, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_fmt(label_smoothing)}")
        return _ce_label_smoothing(input, target, weight, red, ignore_index, label_smoothing)
    class_dim = 0 if input.dim() == 1 else 1
    return _nll_loss_nd(log_softmax(input, class_dim, input.dtype), target, weight, red, ignore_index)


# ====================================================================== binary cross entropy

class BinaryCrossEntropy(ArrayFunction):
    """l = -w (y max(log x, -100) + (1 - y) max(log(1 - x), -100));
    dx = w (x - y) / max(x (1 - x), 1e-12) grad,  dy = -w logit(x) grad  (/ numel for 'mean')"""
    node_name = "BinaryCrossEntropyBackward0"
    _result_format = "preserve_format"   # ATen writes the loss into empty_like(input)

    @staticmethod
    def forward(ctx, x, y, weight, reduction):
        xp = namespace(x)
        if y.dtype != x.dtype:
            raise RuntimeError(f"Found dtype {_type_word(y.dtype)} but expected {_type_word(x.dtype)}")
        if not _is_float(x.dtype):
            raise _not_implemented("binary_cross_entropy", x.dtype)
        if not xp.all((x >= 0) & (x <= 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not xp.all((y >= 0) & (y <= 1)):
            raise RuntimeError("all elements of target should be between 0 and 1")
        # ATen's scalar loop: std::log and std::log1p of each element (the C library's, nearly correctly
        # rounded: taken here in double and rounded; numpy's float32 SIMD log is an ulp off in a fifth of
        # cases), then the arithmetic in the input's dtype: float16/bfloat16 round after every operation
        xf, yf = to_opmath(x), to_opmath(y)
        step = (lambda a: a.astype(x.dtype).astype(xf.dtype)) if xf.dtype != x.dtype else (lambda a: a)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_x = xp.log(xf.astype(np.float64)).astype(xf.dtype)
            log_1mx = xp.log1p(-xf.astype(np.float64)).astype(xf.dtype)
            loss = step(step(step(yf - 1) * xp.maximum(step(log_1mx), -100)) -
                        step(yf * xp.maximum(step(log_x), -100))).astype(x.dtype)
        if weight is not None:
            if weight.shape != x.shape:
                raise RuntimeError(f"output with shape {shape_str(x.shape)} doesn't match the broadcast shape "
                                   f"{shape_str(np.broadcast_shapes(x.shape, weight.shape))}")
            loss = (loss * weight).astype(x.dtype)
        ctx.save_for_backward(x, y, weight)
        ctx.reduction, ctx.numel = reduction, x.size
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y, w = ctx.saved_tensors
        gx = BinaryCrossEntropyBackward.apply(grad, x, y, w, ctx.reduction, ctx.numel) \
            if ctx.needs_input_grad[0] else None
        if not ctx.needs_input_grad[1]:
            return gx, None, None, None
        gy = -logit(x) * grad   # (ATen's order: then * weight, then / numel)
        if w is not None:
            gy = gy * w
        if ctx.reduction == "mean" and ctx.numel:
            gy = gy / ctx.numel
        return gx, gy, None, None


class BinaryCrossEntropyBackward(ArrayFunction):
    """bce's input gradient as its own op (ATen's binary_cross_entropy_backward), so that its own gradients are
    PyTorch's single-term formulas: composed of ops, an inf incoming gradient would give inf - inf = NaN.
    gi = go w (x - y) / max(x (1 - x), eps);   with e = 1e-12:
    d/dx = gg go w (x² - 2xy + y) / ((x + e)² (1 - x + e)²),   d/dgo = gg w (x - y) / ((x + e)(1 - x + e)),
    d/dy = -gg go w / max(x (1 - x), eps)   (each / numel for 'mean'; d/dgo summed when go was reduced)"""
    node_name = "BinaryCrossEntropyBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, y, w, reduction, numel):
        xp = namespace(x)
        ctx.save_for_backward(grad, x, y, w)
        ctx.reduction, ctx.numel = reduction, numel
        # ATen's order: its scalar loop in the input's dtype (float16/bfloat16 round after every operation),
        # then in-place * weight and / numel (in float32 for half types, as a tensor op by a number)
        grad = grad.astype(x.dtype, copy=False)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gi = grad * (x - y) / xp.maximum((1 - x) * x, x.dtype.type(_EPSILON))
        if w is not None:
            gi = gi * w
        if reduction == "mean" and numel:
            gi = (to_opmath(gi) / numel).astype(x.dtype)
        return gi.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        grad, x, y, w = ctx.saved_tensors
        scale = _norm_factor(ctx)
        need = ctx.needs_input_grad
        weighted = (lambda t: t * w) if w is not None else (lambda t: t)
        g_grad = g_x = g_y = None
        if need[0]:
            g_grad = weighted((x - y) / ((x + _EPSILON) * (1 - x + _EPSILON))) * gg * scale
            if ctx.reduction != "none":
                g_grad = g_grad.sum()
        if need[1]:
            g_x = weighted((x * x - 2 * x * y + y) / ((x + _EPSILON) ** 2 * (1 - x + _EPSILON) ** 2) * (gg * grad))
            g_x = g_x * scale
        if need[2]:
            g_y = weighted(-gg * grad) / clamp_min((1 - x) * x, _EPSILON).detach() * scale
        return g_grad, g_x, g_y, None, None, None


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-weight (target log(input) + (1 - target) log(1 - input))`` for probabilities (logs clamped at -100)."""
    red = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        new_size = broadcast_shapes(target.size(), weight.size())
        weight = weight.expand(new_size)
    _check_no_grad("binary_cross_entropy", "weight", weight)
    return BinaryCrossEntropy.apply(input, target, weight, red)


class BinaryCrossEntropyWithLogits(ArrayFunction):
    """l = w ((1 - y) x - (1 + (pw - 1) y) log_sigmoid(x))   (stable: log_sigmoid never overflows);
    dx = w ((pw y + 1 - y) sigmoid(x) - pw y) grad,  dy = w (log_sigmoid(-x) - pw log_sigmoid(x)) grad"""
    node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, y, weight, pos_weight, reduction):
        xp = namespace(x)
        if not _is_float(x.dtype):
            raise _not_implemented("log_sigmoid_cpu", x.dtype)
        ls = xp.asarray(_log_sigmoid_array(x), dtype=x.dtype)
        if pos_weight is not None:
            log_weight = (pos_weight - 1) * y + 1
            if log_weight.shape != ls.shape:
                raise RuntimeError(f"output with shape {shape_str(ls.shape)} doesn't match the broadcast shape "
                                   f"{shape_str(np.broadcast_shapes(ls.shape, log_weight.shape))}")
            ls = (ls * log_weight).astype(x.dtype)
        one_minus = 1 - y                                        # (1 - target).mul_(input).sub_(...)
        dt = one_minus.dtype
        if not _is_float(dt):
            raise RuntimeError(f"result type {_type_word(result_np_dtype(x, one_minus))} can't be cast to the desired "
                               f"output type {_type_word(dt)}")
        loss = (one_minus * x).astype(dt)
        loss = (loss - ls).astype(dt)
        if weight is not None:
            if np.broadcast_shapes(loss.shape, weight.shape) != loss.shape:
                raise RuntimeError(f"output with shape {shape_str(loss.shape)} doesn't match the broadcast shape "
                                   f"{shape_str(np.broadcast_shapes(loss.shape, weight.shape))}")
            loss = (loss * weight).astype(dt)
        ctx.save_for_backward(x, y, weight, pos_weight)
        ctx.reduction, ctx.numel = reduction, x.size
        if reduction == "none":   # ATen's loss is (1 - target).mul_(input)...: laid out as 1 - target
            loss = iterator_result(loss, (y,), 1)
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y, w, pw = ctx.saved_tensors
        g = grad * _norm_factor(ctx)
        if w is not None:
            g = g * w
        gx = gy = None
        if ctx.needs_input_grad[0]:
            if pw is not None:
                t = pw * y
                gx = ((t + 1 - y) * x.sigmoid() - t) * g
            else:
                gx = (x.sigmoid() - y) * g
        if ctx.needs_input_grad[1]:
            if pw is not None:
                gy = (_LogSigmoid.apply(-x) - _LogSigmoid.apply(x) * pw) * g
            else:
                gy = -x * g
        return gx, gy, None, None, None


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of logits: ``sigmoid`` and BCE in one numerically stable formula."""
    red = _reduction_enum(size_average, reduce, reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    _check_no_grad("binary_cross_entropy_with_logits", "weight", weight)
    _check_no_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, red)


# ====================================================================== kl_div / poisson / gaussian

def _kl_div(input, target, reduction, log_target):
    """ATen's kl_div: ``exp(t) (t - x)`` (log targets) or ``xlogy(t, t) - t x``."""
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not _is_float(input._data.dtype) or not _is_float(target._data.dtype):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = exp(target) * (target - input)
    else:
        output = xlogy(target, target) - target * input
    return _apply_loss_reduction(output, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence ``target * (log(target) - input)`` (``input`` holds log-probabilities).

    ``'batchmean'`` divides the sum by the batch size (the true KL divergence); ``'mean'`` divides by the
    number of elements and warns, as PyTorch does.
    """
    input, target = before_checks("kl_div", input, target)
    if size_average is not None or reduce is not None:
        red = _legacy_get_string(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=user_stacklevel())
        red = "sum" if reduction == "batchmean" else _get_enum(reduction)
    reduced = _kl_div(input, target, red, log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood: ``exp(input) - target * input`` (or ``input - target * log(input + eps)``)."""
    input, target = before_checks("poisson_nll_loss", input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(_AddScalar.apply(input, eps))
    if full:
        stirling = (target * log(target) - target
                    + _MulScalar.apply(log(_MulScalar.apply(target, 2 * math.pi)), 0.5))
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_loss_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood ``0.5 (log(var) + (input - target)**2 / var)`` (var clamped at eps)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ====================================================================== embedding / ranking / margin losses

def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    input1, input2, target = before_checks("cosine_embedding_loss", input1, input2, target)
    red = _reduction_enum(size_average, reduce, reduction)
    targ_dim = target.dim()
    if not (targ_dim == 1 or targ_dim == 0):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1:
        if input1.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                               f"{shape_str(input1.shape)} and {shape_str(input2.shape)}.")
    elif input1.dim() != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{shape_str(input1.shape)} and {shape_str(input2.shape)}.")
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = _AddScalar.apply((input1 * input1).sum(targ_dim), _EPSILON)
    mag_square2 = _AddScalar.apply((input2 * input2).sum(targ_dim), _EPSILON)
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = _rsub_scalar(1, cos)
    neg = _SubScalar.apply(cos, margin).clamp_min_(0)
    output_pos = where(target == 1, pos, zeros)
    output_neg = where(target == -1, neg, zeros)
    return _apply_loss_reduction(output_pos + output_neg, red)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    input1, input2, target = before_checks("margin_ranking_loss", input1, input2, target)
    red = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    if input1.is_complex() or input2.is_complex() or target.is_complex():
        raise RuntimeError("margin_ranking_loss expects inputs to be non-complex")
    output = _AddScalar.apply(-target * (input1 - input2), margin).clamp_min_(0)
    return _apply_loss_reduction(output, red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1."""
    input, target = before_checks("hinge_embedding_loss", input, target)
    red = _reduction_enum(size_average, reduce, reduction)
    zeros = zeros_like(input)
    margin_clamp = _rsub_scalar(margin, input).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _apply_loss_reduction(output_margin + output_self, red)


class SoftMarginLoss(ArrayFunction):
    """l = log(1 + exp(-y x));  dx = -y z / (1 + z) grad  (z = exp(-y x), / numel for 'mean')"""
    node_name = "SoftMarginLossBackward0"
    _elementwise = 1   # ATen: neg_out(output, input).mul_(target)...: the result takes the input's layout

    @staticmethod
    def forward(ctx, x, y, reduction):
        xp = namespace(x)
        if not _is_float(x.dtype):
            raise RuntimeError(f"result type {_type_word(to_float(x).dtype)} can't be cast to "
                               f"the desired output type {_type_word(x.dtype)}")
        shape = broadcast_shapes_or_raise(x.shape, y.shape)
        if shape != x.shape:
            raise RuntimeError(f"output with shape {shape_str(x.shape)} doesn't match the broadcast shape "
                               f"{shape_str(shape)}")
        with np.errstate(over="ignore", invalid="ignore"):
            z = (-x * y).astype(x.dtype)
            # PyTorch's neg, mul, exp_, log1p_: log1p keeps the tiny losses that log(1 + e) rounds to 0
            out = xp.log1p(xp.exp(z)).astype(x.dtype)
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.numel = reduction, x.size
        return _reduce_array(out, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return SoftMarginLossGrad.apply(x, y, grad, ctx.reduction, ctx.numel), None, None


class SoftMarginLossGrad(ArrayFunction):
    """PyTorch's soft_margin_loss_backward as one op of (x, y, grad): -f y z / (1 + z) grad  (z = exp(-y x),
    f = 1 / numel for 'mean'). Its backward is PyTorch's formula, not the derivative of this expression:
    in float16/bfloat16, z / (1 + z) differentiated term by term cancels to rounding noise.
        dx = gg grad y^2 z / (1 + z)^2 (/ numel),   dgrad = this op of gg (summed for a reduced loss)"""
    node_name = "SoftMarginLossBackwardBackward0"
    _elementwise = 3

    @staticmethod
    def forward(ctx, x, y, grad, reduction, numel):
        xp = namespace(x)
        ctx.save_for_backward(x, y, grad)
        ctx.reduction, ctx.numel = reduction, numel
        norm = 1.0 / numel if reduction == "mean" and numel else 1.0
        with np.errstate(over="ignore", invalid="ignore"):
            # ATen's kernel, op by op (each rounds in a half type): z = exp(-y * x); (y z)(-norm) / (z + 1) grad
            z = xp.exp((-y * x).astype(x.dtype)).astype(x.dtype)
            out = (y * z).astype(x.dtype) * x.dtype.type(-norm)
            return ((out / (z + x.dtype.type(1))).astype(x.dtype) * grad).astype(x.dtype)

    @staticmethod
    def backward(ctx, gg):
        x, y, grad = ctx.saved_tensors
        need = ctx.needs_input_grad
        dx = dgrad = None
        if need[0]:   # PyTorch's soft_margin_loss_double_backward(gg * grad, x, y)
            z = (x * -y).exp()
            zplus1 = z + 1
            dx = (gg * grad) * (y * y) * z / (zplus1 * zplus1)
            if ctx.reduction == "mean" and ctx.numel:
                dx = dx / ctx.numel
        if need[2]:   # ... and its _grad_output companion
            if ctx.reduction == "none":
                dgrad = SoftMarginLossGrad.apply(x, y, gg, ctx.reduction, ctx.numel)
            else:
                ones = grad.new_ones(grad.shape)
                dgrad = (SoftMarginLossGrad.apply(x, y, ones, ctx.reduction, ctx.numel) * gg).sum()
        return dx, None, dgrad, None, None


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss ``log(1 + exp(-target * input))``."""
    red = _reduction_enum(size_average, reduce, reduction)
    _check_no_grad("soft_margin_loss", "target", target)
    return SoftMarginLoss.apply(input, target, red)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-label one-versus-all logistic loss, averaged over the C classes of the last dim."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    loss = -(target * _LogSigmoid.apply(input) + (1 - target) * _LogSigmoid.apply(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _margin_shape(x):
    nd = x.ndim
    if not ((nd == 2 and x.shape[1] != 0) or (nd == 1 and x.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{shape_str(x.shape)}")
    if nd <= 1:
        return 1, (1 if nd == 0 else x.shape[0])
    return x.shape[0], x.shape[1]


class MultiMarginLoss(ArrayFunction):
    """l_n = sum_{j != t} w[t] max(0, margin - x[t] + x[j])^p / C;
    dx[j] = w[t] p max(0, .)^(p-1) / C grad,  dx[t] = -sum_j dx[j]"""
    node_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, target, p, margin, weight, reduction):
        xp = namespace(x)
        nframe, dim = _margin_shape(x)
        if not (target.ndim <= 1 and target.size == nframe):
            raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                               f"input samples (batch size). Expected target size [{nframe}], but got "
                               f"{shape_str(target.shape)}. Input has shape {shape_str(x.shape)}.")
        if weight is not None and not (weight.ndim <= 1 and weight.size == dim):
            raise RuntimeError(f"inconsistent weight size, expected {dim} but got {shape_str(weight.shape)}")
        if not _is_float(x.dtype) or on_host(x) and x.dtype.itemsize == 2:   # (PyTorch's CPU
            # kernel has no float16/bfloat16; its CUDA kernel has)
            raise _not_implemented("multi_margin_loss_cpu_kernel", x.dtype)
        if target.dtype != np.int64:
            raise RuntimeError(f"expected scalar type Long but found {_type_word(target.dtype)}")
        if weight is not None and weight.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_type_word(x.dtype)} but found {_type_word(weight.dtype)}")
        t = target.reshape(nframe)
        if xp.any((t < 0) | (t >= dim)):
            raise RuntimeError("target out of range")
        X = x.reshape(nframe, dim)
        rows = xp.arange(nframe)
        z = margin - X[rows, t][:, None] + X
        mask = z > 0
        mask[rows, t] = False
        h = xp.where(mask, z if p == 1 else z * z, 0)
        wt = weight.reshape(dim)[t][:, None] if weight is not None else None
        if wt is not None:
            h = h * wt
        loss = (xp.sum(h, axis=1) / dim).astype(x.dtype)
        ctx.save_for_backward(x)
        ctx.t, ctx.mask, ctx.wt, ctx.p, ctx.margin, ctx.reduction = t, mask, wt, p, margin, reduction
        ctx.nframe, ctx.dim = nframe, dim
        if reduction == "none":
            return loss if target.ndim > 0 else loss.reshape(())
        with np.errstate(invalid="ignore", divide="ignore"):
            s = xp.sum(loss)
            return xp.asarray(s / nframe if reduction == "mean" else s, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        dt = x._data.dtype
        xp = namespace(x._data)
        nframe, dim = ctx.nframe, ctx.dim
        g = 1.0 / (nframe * dim) if ctx.reduction == "mean" else 1.0 / dim
        onehot = xp.zeros((nframe, dim), dt)
        onehot[xp.arange(nframe), ctx.t] = 1
        if ctx.p == 1:
            h = _make((ctx.mask * g).astype(dt))
        else:
            X = x.reshape(nframe, dim)
            z = _rsub_scalar(ctx.margin, X.gather(1, _make(ctx.t[:, None]))) + X
            h = z * _make((ctx.mask * (2 * g)).astype(dt))
        if ctx.wt is not None:
            h = h * _make(ctx.wt.astype(dt))
        gx = h - _make(onehot) * h.sum(1, keepdim=True)
        gx = gx * (grad.reshape(nframe, 1) if ctx.reduction == "none" else grad)
        return gx.reshape(x.shape), None, None, None, None, None


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss ``sum_{j != y} max(0, margin - x[y] + x[j])**p / C`` (p = 1 or 2)."""
    red = _reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    _check_no_grad("multi_margin_loss", "weight", weight)
    return MultiMarginLoss.apply(input, target, p, margin, weight, red)


class MultilabelMarginLoss(ArrayFunction):
    """l_n = sum_{j in targets} sum_{k not in targets} max(0, 1 - (x[j] - x[k])) / C
    (targets: the entries of target[n] before the first -1);  dx[k] += grad/C, dx[j] -= grad/C per active pair"""
    node_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, target, reduction):
        xp = namespace(x)
        nframe, dim = _margin_shape(x)
        if x.ndim <= 1:
            ok = target.ndim <= 1 and target.size == dim
        else:
            ok = target.ndim == 2 and target.shape[0] == nframe and target.shape[1] == dim
        if not ok:
            raise RuntimeError(f"inconsistent target size: {shape_str(target.shape)} for input of size: "
                               f"{shape_str(x.shape)}")
        if target.dtype != np.int64:
            raise RuntimeError(f"expected scalar type Long but found {_type_word(target.dtype)}")
        if not _is_float(x.dtype) or on_host(x) and x.dtype.itemsize == 2:   # (PyTorch's CPU
            # kernel has no float16/bfloat16; its CUDA kernel has)
            raise _not_implemented("multilabel_margin_loss_forward_out_frame", x.dtype)
        if target.size and (target.min() < -1 or target.max() >= dim):
            raise RuntimeError("argument #2 'target' is out of range")
        X = x.reshape(nframe, dim)
        T = target.reshape(nframe, dim)
        valid = xp.cumprod(T >= 0, axis=1).astype(bool)       # the targets before the first -1
        Tc = xp.where(valid, T, 0)
        rows = xp.broadcast_to(xp.arange(nframe)[:, None], T.shape)
        is_target = xp.zeros((nframe, dim), bool)
        is_target[rows[valid], Tc[valid]] = True
        xt = xp.take_along_axis(X, Tc, axis=1)
        z = 1 - xt[:, :, None] + X[:, None, :]                  # (frame, target j, class k)
        M = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
        loss = (xp.sum(xp.where(M, z, 0), axis=(1, 2)) / dim).astype(x.dtype)
        ctx.M, ctx.rows, ctx.valid, ctx.Tc = M, rows, valid, Tc
        ctx.shape, ctx.nframe, ctx.dim, ctx.reduction, ctx.dtype = x.shape, nframe, dim, reduction, x.dtype
        if reduction == "none":
            return loss if x.ndim == 2 else loss.reshape(())
        with np.errstate(invalid="ignore", divide="ignore"):
            s = xp.sum(loss)
            return xp.asarray(s / nframe if reduction == "mean" else s, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        M = ctx.M
        coef = M.sum(axis=1).astype(np.float64)
        scatter_add(coef, (ctx.rows[ctx.valid], ctx.Tc[ctx.valid]), -M.sum(axis=2)[ctx.valid])
        g = 1.0 / (ctx.nframe * ctx.dim) if ctx.reduction == "mean" else 1.0 / ctx.dim
        gx = _make((coef * g).astype(ctx.dtype))
        gx = gx * (grad.reshape(ctx.nframe, 1) if ctx.reduction == "none" else grad)
        return gx.reshape(ctx.shape), None, None


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss (targets: class indices padded with -1)."""
    red = _reduction_enum(size_average, reduce, reduction)
    return MultilabelMarginLoss.apply(input, target, red)


def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with the p-norm pairwise distance ``d``."""
    anchor, positive, negative = before_checks("triplet_margin_loss", anchor, positive, negative)
    red = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = _pairwise_distance(positive, negative, p, eps)
        dist_neg = dist_neg.min(dist_swap)
    output = clamp_min(_AddScalar.apply(dist_pos, margin) - dist_neg, 0)
    return _apply_loss_reduction(output, red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with any distance function (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = _pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = minimum(dist_neg, dist_swap)
    loss = clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# ====================================================================== ctc_loss

def _logsumexp3(a, b, c):
    """log(e^a + e^b + e^c), stable, with PyTorch's CTC convention (a max of -inf counts as 0)."""
    xp = namespace(a)
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == -np.inf, 0, m)
    return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _shift(a, k, fill=-np.inf):
    """a[:, s - k] (k > 0: from the left) or a[:, s + |k|] (k < 0), padded with -inf."""
    xp = namespace(a)
    out = xp.full_like(a, fill)
    if k > 0:
        out[:, k:] = a[:, :-k]
    else:
        out[:, :k] = a[:, -k:]
    return out


class CtcLoss(ArrayFunction):
    """Connectionist temporal classification (Graves et al. 2006), in log space.

    alpha_t(s) = (alpha_{t-1}(s) + alpha_{t-1}(s-1) [+ alpha_{t-1}(s-2) if l'_s != l'_{s-2}]) y_t(l'_s)
    over the extended target l' (blanks between and around the labels);  loss = -log(alpha_T(S) + alpha_T(S-1)).
    grad[t, c] = exp(lp[t, c]) - sum_{s: l'_s = c} alpha_t(s) beta_t(s) / (p(l|x) y_t(c))  (PyTorch's form:
    the gradient with respect to the logits of a log_softmax)."""
    node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, lp, tgt, il, tl, blank, zero_infinity):
        xp = namespace(lp)
        T, B, C = lp.shape
        Sp = tgt.shape[1] * 2 + 1
        tp = xp.full((B, Sp), blank, np.int64)
        tp[:, 1::2] = tgt
        lpg = xp.take_along_axis(lp, xp.broadcast_to(tp[None], (T, B, Sp)), axis=2)  # lp[t, b, l'_s]
        s = xp.arange(Sp)
        svalid = s[None] <= 2 * tl[:, None]
        skip = xp.zeros((B, Sp), bool)
        skip[:, 2:] = tp[:, 2:] != tp[:, :-2]
        la = xp.full((T, B, Sp), -np.inf, lp.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if T > 0:
                la[0, :, 0] = lpg[0, :, 0]
                if Sp > 1:
                    la[0, :, 1] = xp.where(tl > 0, lpg[0, :, 1], -np.inf)
            for t in range(1, T):
                prev = la[t - 1]
                new = _logsumexp3(prev, _shift(prev, 1), xp.where(skip, _shift(prev, 2), -np.inf)) + lpg[t]
                la[t] = xp.where(svalid & (t < il)[:, None], new, -np.inf)
            rows = xp.arange(B)
            last = xp.maximum(il - 1, 0)
            l1 = la[last, rows, 2 * tl]
            l2 = xp.where(tl > 0, la[last, rows, xp.maximum(2 * tl - 1, 0)], -np.inf)
            m = xp.maximum(l1, l2)
            m = xp.where(m == -np.inf, 0, m)
            ll = xp.where(tl > 0, xp.log(xp.exp(l1 - m) + xp.exp(l2 - m)) + m, l1)
            ll = xp.where(il == 0, xp.where(tl == 0, 0, -np.inf), ll)
        nll = xp.asarray(-ll, dtype=lp.dtype)
        ctx.save_for_backward(lp)
        ctx.la, ctx.lpg, ctx.tp, ctx.il, ctx.tl, ctx.nll = la, lpg, tp, il, tl, nll
        ctx.svalid, ctx.zero_infinity = svalid, zero_infinity
        return nll

    @staticmethod
    def backward(ctx, grad):
        lp_t, = ctx.saved_tensors
        lp = lp_t._data
        xp = namespace(lp)
        T, B, C = lp.shape
        la, lpg, tp, il, tl, nll = ctx.la, ctx.lpg, ctx.tp, ctx.il, ctx.tl, ctx.nll
        Sp = tp.shape[1]
        s = xp.arange(Sp)[None]
        rows = xp.arange(B)
        skip_next = xp.zeros((B, Sp), bool)
        skip_next[:, :-2] = tp[:, :-2] != tp[:, 2:]
        lb = xp.full((T, B, Sp), -np.inf, lp.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for t in range(T - 1, -1, -1):
                init = xp.full((B, Sp), -np.inf, lp.dtype)
                init[rows, 2 * tl] = lpg[t, rows, 2 * tl]
                has = tl > 0
                init[rows[has], 2 * tl[has] - 1] = lpg[t, rows[has], 2 * tl[has] - 1]
                if t < T - 1:
                    nx = lb[t + 1]
                    b2 = xp.where(s < 2 * tl[:, None], _shift(nx, -1), -np.inf)
                    b3 = xp.where((s < 2 * tl[:, None] - 1) & skip_next, _shift(nx, -2), -np.inf)
                    rec = _logsumexp3(nx, b2, b3) + lpg[t]
                    rec = xp.where(ctx.svalid & (t < il - 1)[:, None], rec, -np.inf)
                else:
                    rec = xp.full((B, Sp), -np.inf, lp.dtype)
                lb[t] = xp.where((t == il - 1)[:, None], init, rec)
            lab = (la + lb).astype(np.float64)                    # log(alpha beta), summed per class below
            m = xp.max(lab, axis=2, keepdims=True) if Sp else xp.zeros((T, B, 1))
            m = xp.where(xp.isfinite(m), m, 0)
            onehot = (tp[:, :, None] == xp.arange(C)).astype(np.float64)
            res = xp.log(xp.einsum("tbs,bsc->tbc", xp.exp(lab - m), onehot)) + m
            lp64 = lp.astype(np.float64)
            G = xp.exp(lp64) - xp.exp(res + nll.astype(np.float64)[None, :, None] - lp64)
            keep = xp.arange(T)[:, None] < il[None, :]
            if ctx.zero_infinity:
                keep = keep & (nll != np.inf)[None, :]
            G = xp.where(keep[:, :, None], G, 0).astype(lp.dtype)
        return _make(G) * grad.reshape(1, B, 1), None, None, None, None, None


def _ctc_lengths(x, name, xp):
    """The lengths as int64 on the device of the log-probs (``xp``'s; lengths may come from the host, as in
    PyTorch, and are moved over explicitly)."""
    if isinstance(x, Tensor):
        if x._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        a = x._data.astype(np.int64).reshape(-1)
        return a if namespace(a) is xp else xp.asarray(to_host(a))
    return xp.asarray([int(v) for v in x], dtype=np.int64).reshape(-1)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist Temporal Classification loss of ``log_probs`` (T, N, C) (or (T, C)) against label sequences.

    ``targets`` is (N, S) padded, or the concatenation of all targets (1-D); ``'mean'`` divides each loss by
    its target length, then averages over the batch.
    """
    red = _get_enum(reduction)
    if isinstance(input_lengths, numbers.Integral) or isinstance(target_lengths, numbers.Integral):
        got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in
                        (log_probs, targets, input_lengths, target_lengths, blank, 0, zero_infinity))
        raise TypeError(f"ctc_loss() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
                        f"target_lengths, int blank = 0, int reduction = Mean, bool zero_infinity = False)\n * (Tensor "
                        f"log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int "
                        f"reduction = Mean, bool zero_infinity = False)\n")
    xp = namespace(log_probs._data)
    il = _ctc_lengths(input_lengths, "input_lengths", xp)
    tl = _ctc_lengths(target_lengths, "target_lengths", xp)
    il_h, tl_h = to_host(il), to_host(tl)   # the checks below read the lengths on the host (one copy each)
    is_batched = log_probs.dim() == 3
    lp = log_probs if is_batched else log_probs.unsqueeze(1)
    # only the log-probs gain the batch of one: unbatched targets stay as given, so a 1-D target is read as
    # the concatenated form (its length must equal the target length) and a (1, S) one as padded
    tg = targets
    checking = " (while checking arguments for ctc_loss_allocate_outputs)"
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                           f"'log_probs'{checking}")
    if not 1 <= tg.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {tg.dim()}-dimensional tensor for argument #2 "
                           f"'targets'{checking}")
    T, B, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if il.size != B:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.size != B:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl_h:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v}{checking}")
    t_arr = tg._data.astype(np.int64)
    lmax = int(tl_h.max()) if B else 0
    if tg.dim() == 1:
        if t_arr.shape[0] != int(tl_h.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(tl_h.sum())} at dimension 0, but got size "
                               f"{t_arr.shape[0]} for argument #2 'targets'{checking}")
        offsets = xp.cumsum(tl) - tl
        j = xp.arange(lmax)[None]
        inside = j < tl[:, None]
        padded = xp.where(inside, t_arr[xp.where(inside, offsets[:, None] + j, 0)] if t_arr.size else blank, blank)
    else:
        if t_arr.shape[0] != B:
            raise RuntimeError(f"Expected tensor to have size {B} at dimension 0, but got size {t_arr.shape[0]} "
                               f"for argument #2 'targets'{checking}")
        if t_arr.shape[1] < lmax:
            raise RuntimeError(f"Expected tensor to have size at least {lmax} at dimension 1, but got size "
                               f"{t_arr.shape[1]} for argument #2 'targets'{checking}")
        inside = xp.arange(lmax)[None] < tl[:, None]
        padded = xp.where(inside, t_arr[:, :lmax], blank)
    for v in il_h:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{checking}")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v}{checking}")
    if not _is_float(lp._data.dtype):
        raise _not_implemented("ctc_loss_cpu", lp._data.dtype)
    padded = xp.where((padded >= 0) & (padded < C), padded, blank).astype(np.int64)
    res = CtcLoss.apply(lp, padded, il, tl, int(blank), bool(zero_infinity))
    if zero_infinity:
        res = where(res == math.inf, zeros((), dtype=res.dtype, device=res.device), res)
    if red == "mean":
        tlt = Tensor._make(tl.astype(res._data.dtype)).clamp_min(1)
        return (res / tlt).mean()
    if red == "sum":
        return res.sum()
    return res if is_batched else res.squeeze(0)
