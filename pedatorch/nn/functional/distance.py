"""Distances: ``cosine_similarity``, ``pairwise_distance``, ``pdist``, ``cdist``.

``cosine_similarity`` and ``pairwise_distance`` are composed of Tensor ops exactly as ATen composes them.
``pdist`` and ``cdist`` are one op each (``PdistBackward0``, ``CdistBackward0``) with PyTorch's backward:
for d = x_i - x_j and dist = ||d||_p,

    d dist / d d = 0 (p = 0);  sign(d) (p = 1);  d / dist (p = 2);  sign(d) [|d| = dist] (p = inf);
                   sign(d) |d|^(p-1) / dist^(p-1) otherwise  (0 where dist = 0)

``cdist`` with p = 2 and more than 25 rows on a side (or ``compute_mode='use_mm_for_euclid_dist'``) uses
PyTorch's matrix-product form sqrt(max(|a|^2 - 2 a.b + |b|^2, 0)), one op with ATen's backward
(``EuclideanDistBackward0``).  All the backwards here are Tensor ops, so they can be differentiated again
(PyTorch refuses a double backward through pdist and the direct cdist: it has no derivative of
``_pdist_backward`` / ``_cdist_backward``).
"""
import numpy as np

from ..._dtype import result_type_of
from ..._tensor import Tensor
from ...autograd.function import ArrayFunction, before_checks
from ...backend import namespace
from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm
from ...ops._util import _type_word, broadcast_shapes_or_raise
from ...ops.creation import ones_like, zeros_like
from ...ops.elementwise import where
from ...ops.join import cat
from .loss import _pairwise_distance

__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "cdist"]


def _float_word(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(np.dtype(dt).name, _type_word(dt))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum((x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps)), dim), as ATen computes it (each input divided by
    its norm first; the clamp is applied without recording, so the gradient treats the norm as unclamped)."""
    x1, x2 = before_checks("cosine_similarity", x1, x2)   # (autocast casts first)
    common = result_type_of(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_float_word(common.np) if hasattr(common, 'np') else common}")
    # integer and bool inputs are converted to the common dtype (vector_norm takes only floats)
    x1, x2 = (t if t.is_floating_point() or t.is_complex() else t.to(common) for t in (x1, x2))
    shape = broadcast_shapes_or_raise(tuple(x1.shape), tuple(x2.shape))
    if tuple(x1.shape) != shape:
        x1 = x1.expand(shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(shape)
    x1_norm = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    x2_norm = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        x1_norm.clamp_min_(eps)
        x2_norm.clamp_min_(eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (ATen's ``norm(x, p, dim)``: its node is ``NormBackward1``)."""
    return _pairwise_distance(x1, x2, p, eps, keepdim)


# ====================================================================== pdist / cdist

def _pnorm(diff, p):
    """||diff||_p over the last axis (arrays)."""
    xp = namespace(diff)
    a = xp.abs(diff)
    if p == 0:
        return xp.count_nonzero(diff, axis=-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return xp.sqrt(xp.einsum("...i,...i->...", diff, diff))
    if p == float("inf"):
        return a.max(-1) if diff.shape[-1] else xp.zeros(diff.shape[:-1], diff.dtype)
    return (a ** p).sum(-1) ** (1.0 / p)


def _pnorm_grad(diff, dist, grad, p):
    """d||diff||_p / d diff times grad (Tensor ops; dist and grad have a trailing dim of 1)."""
    if p == 0:
        return zeros_like(diff)
    zero = dist == 0
    if p == 1:
        return diff.sign() * grad
    if p == 2:
        return where(zero, 0.0, diff / where(zero, 1.0, dist) * grad)
    if p == float("inf"):
        return diff.sign() * (diff.abs() == dist).to(diff.dtype) * grad
    safe = where(zero, 1.0, dist)
    if p < 2:
        bad = zero | ((diff == 0) & (p < 1))
        a = where(diff == 0, 1.0, diff.abs())
        return where(bad, 0.0, diff.sign() * a.pow(p - 1) * grad / safe.pow(p - 1))
    return where(zero, 0.0, diff * diff.abs().pow(p - 2) * grad / safe.pow(p - 1))


class Pdist(ArrayFunction):
    """out = ||x_i - x_j||_p for i < j (rows of x, in row-major order of the pairs);
    dx_i = sum_j g_ij * d||d||/dd,  dx_j = -(the same)"""
    node_name = "PdistBackward0"

    @staticmethod
    def forward(ctx, x, p):
        if x.dtype.itemsize == 2:   # (PyTorch's kernel: float and double only; checked after autocast's cast)
            raise NotImplementedError(f"\"pdist\" not implemented for '{_type_word(x.dtype)}'")
        n = x.shape[0]
        i, j = namespace(x).triu_indices(n, 1)
        out = _pnorm(x[i] - x[j], p).astype(x.dtype, copy=False)
        ctx.p, ctx.i, ctx.j = p, i, j
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        if ctx.i.size == 0:
            return zeros_like(x), None
        it, jt = Tensor._make(ctx.i), Tensor._make(ctx.j)
        diff = x.index_select(0, it) - x.index_select(0, jt)
        res = _pnorm_grad(diff, out.unsqueeze(-1), grad.unsqueeze(-1), ctx.p)
        gx = zeros_like(x).index_add(0, it, res).index_add(0, jt, -res)
        return gx, None


def pdist(input, p=2):
    """Distances between all pairs of rows of a 2-D input: the upper triangle of cdist(input, input), flattened."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return Pdist.apply(input.contiguous(), float(p))


class Cdist(ArrayFunction):
    """out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p;
    dx1_i = sum_j g_ij * d||d||/dd,  dx2_j = -sum_i (the same)"""
    node_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, x1, x2, p):
        if x1.size and x2.size:   # (PyTorch's kernel runs, and checks dtypes, only for a non-empty result)
            if x1.dtype.itemsize == 2:   # float and double only
                raise NotImplementedError(f"\"cdist\" not implemented for '{_float_word(x1.dtype)}'")
            if x1.dtype != x2.dtype:
                raise RuntimeError(f"expected scalar type {_float_word(x1.dtype)} but found {_float_word(x2.dtype)}")
        diff = x1[..., :, None, :] - x2[..., None, :, :]
        out = _pnorm(diff, p).astype(x1.dtype, copy=False)
        ctx.p = p
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x1, x2, out = ctx.saved_tensors
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        res = _pnorm_grad(diff, out.unsqueeze(-1), grad.unsqueeze(-1), ctx.p)
        n = ctx.needs_input_grad
        return (res.sum(-2) if n[0] else None), (-res.sum(-3) if n[1] else None), None


def _euclidean_dist_composed(x1, x2):
    """ATen's matrix-product form of the Euclidean distance."""
    x1_norm = x1.pow(2).sum(-1, True)
    x1_pad = ones_like(x1_norm)
    x2_norm = x2.pow(2).sum(-1, True)
    x2_pad = ones_like(x2_norm)
    x1_ = cat([x1.mul(-2), x1_norm, x1_pad], -1)
    x2_ = cat([x2, x2_pad, x2_norm], -1)
    result = x1_.matmul(x2_.mT)
    return result.clamp_min(0).sqrt()


class EuclideanDist(ArrayFunction):
    """sqrt(max(|a|^2 - 2 a.b + |b|^2, 0)): one op with ATen's own backward (``EuclideanDistBackward0``).
    Differentiating the composition instead would run sqrt's derivative 1 / (2 sqrt(0)) at every zero
    distance, cdist(x, x)'s diagonal, and give NaN; ATen's backward takes the subgradient 0 there:

        r = g / dist (0 where dist = 0),  dx1 = x1 * sum_j r - r @ x2,  dx2 = x2 * sum_i r - r^T @ x1
    """
    node_name = "EuclideanDistBackward0"

    @staticmethod
    def forward(ctx, x1, x2):
        out = _euclidean_dist_composed(Tensor._make(x1), Tensor._make(x2))._data
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x1, x2, res = ctx.saved_tensors
        ratio = (grad / res).masked_fill(res == 0, 0)   # Tensor ops: this backward is differentiable again
        n = ctx.needs_input_grad
        g1 = x1 * ratio.sum(-1, True) - ratio.matmul(x2) if n[0] else None
        g2 = x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(x1) if n[1] else None
        return g1, g2


_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between each row of x1 (..., P, M) and each row of x2 (..., R, M): (..., P, R)."""
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    # autocast runs at cdist's entry, for both of its forms (Cdist's rule: float32)
    x1, x2 = before_checks(Cdist, x1, x2)
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_float_word(x._data.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shapes_or_raise(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    P, R, M = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    e1 = x1.expand(*batch, P, M) if tuple(x1.shape[:-2]) != batch else x1
    e2 = x2.expand(*batch, R, M) if tuple(x2.shape[:-2]) != batch else x2
    mode = _MODES.index(compute_mode)
    # an empty input always takes the direct op, as in ATen (its node keeps the graph connected)
    if p == 2 and (mode == 1 or (mode == 0 and (P > 25 or R > 25))) and x1.numel() and x2.numel():
        return EuclideanDist.apply(e1, e2).view(*batch, P, R)
    return Cdist.apply(e1, e2, float(p))
