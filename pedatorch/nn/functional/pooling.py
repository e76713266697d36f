"""Pooling: ``max_pool*``, ``avg_pool*``, ``adaptive_avg_pool*``, ``adaptive_max_pool*``, ``lp_pool*``,
``max_unpool*``.

Every window of a pooling layer is a strided *view* of the (padded) input.  Instead of materialising
all windows, the kernels loop over the kernel offsets (kh * kw of them, a handful): offset (i, j)
of every window at once is the strided slice ``xpad[..., i*d::s, j*d::s]`` (numpy view, no copy), so

    max pooling  = a running maximum over those K slices (and the offset that won, for the indices);
    avg pooling  = their sum divided by each window's size.

The indices of max pooling are PyTorch's: the flat position ``h * W + w`` of the maximum in its
(H, W) plane (ties: the first maximum; NaN wins).  Its backward adds each gradient at its index;
the backward of that is a gather at the same indices, so double backward works.  Adaptive pooling
uses PyTorch's windows ``start = floor(i * in / out)``, ``end = ceil((i + 1) * in / out)``: the
average is a product with a (out, in) averaging matrix per dim, the maximum a loop over the
offsets of the longest window.

1-d pools run as 2-d pools on ``input.unsqueeze(-2)``, as in PyTorch (hence its grad_fn chain
``SqueezeBackward1 -> MaxPool2DWithIndicesBackward0 -> UnsqueezeBackward0``).
"""
import functools
import itertools
import numbers
import operator

import numpy as np

from ..._layout import suggested_format, in_format
from ..._tensor import Tensor, contiguous_format
from ...autograd.function import ArrayFunction
from ...backend import namespace, on_host, scatter_add
from ...ops._util import shape_str, _type_word
from ..._dtype import is_float_np, is_inexact_np, to_opmath

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


# ====================================================================== geometry

class _Pool:
    """One pooling's sizes per spatial dim: kernel, stride, padding, dilation, input and output sizes."""

    __slots__ = ("k", "s", "p", "d", "insp", "outsp")

    def __init__(self, k, s, p, d, insp, outsp):
        self.k, self.s, self.p, self.d, self.insp, self.outsp = k, s, p, d, insp, outsp

    def starts(self, i, xp):
        """The first position of every window along dim ``i`` (an index table made by ``xp``, on its device)."""
        return xp.arange(self.outsp[i]) * self.s[i] - self.p[i]

    def pad_hi(self, i):
        """Padding after the input so that every (ceil_mode) window lies inside the padded array."""
        return max(0, (self.outsp[i] - 1) * self.s[i] + (self.k[i] - 1) * self.d[i] + 1 - self.insp[i] - self.p[i])

    def offsets(self):
        """(offset, slices of the padded input) for every kernel offset."""
        for off in np.ndindex(*self.k):
            yield off, tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                             for o, d, s, n in zip(off, self.d, self.s, self.outsp))

    def flat_index(self, pos):
        """The flat plane index of per-dim positions (1-d arrays), broadcast to the output grid."""
        dims = len(pos)
        xp = namespace(*pos)
        idx = xp.zeros((1,) * dims, dtype=np.int64)
        stride = 1
        for i in range(dims - 1, -1, -1):
            shape = [1] * dims
            shape[i] = -1
            idx = idx + pos[i].reshape(shape).astype(np.int64) * stride
            stride *= self.insp[i]
        return idx


def _pooling_output_shape(n, k, pad, s, d, ceil_mode):
    """ATen's pooling_output_shape, with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * d + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={k} and dilation={d}")
    out = (n + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + pad:
        out -= 1   # the last window must start inside the input or its left padding
    return out


def _pad(x, g, value):
    """``x`` (B, *sp) padded by the pooling (left: padding; right: as far as the windows reach)."""
    dims = len(g.k)
    his = [g.pad_hi(i) for i in range(dims)]
    if not any(g.p) and not any(his):
        return x
    xp = namespace(x)
    out = xp.full(x.shape[:1] + tuple(n + p + h for n, p, h in zip(g.insp, g.p, his)), value, dtype=x.dtype)
    out[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(g.p, g.insp))] = x
    return out


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _lowest(dtype):
    return -np.inf if is_float_np(dtype) else (np.iinfo(dtype).min if dtype.kind in "iu" else False)


# ====================================================================== max pooling kernels

def _max_pool(x, g, need_idx):
    """(max, flat index of the max) over every window of ``x`` (B, *sp); index None unless ``need_idx``."""
    xp = namespace(x)
    xpad = _pad(x, g, _lowest(x.dtype))
    head = (slice(None),)
    finite = is_float_np(x.dtype) and bool(xp.isfinite(x).all())   # (one device sync per call)
    if finite or not need_idx and not is_float_np(x.dtype):
        # no nan/-inf: a running maximum, then the first offset that reaches it (padding never does)
        slices = [(off, xpad[head + sl]) for off, sl in g.offsets()]
        out = slices[0][1].copy()
        for _, v in slices[1:]:
            xp.maximum(out, v, out=out)
        if not need_idx:
            return out, None
        idx = None
        for off, v in reversed(slices):
            fi = _offset_index(g, off, xp)
            idx = xp.broadcast_to(fi, out.shape) if idx is None else xp.where(v == out, fi, idx)
        return out, xp.ascontiguousarray(idx, dtype=np.int64)
    # PyTorch's loop: start below everything, take strictly greater values or nan; padding never wins
    out = xp.full(x.shape[:1] + tuple(g.outsp), _lowest(x.dtype), dtype=x.dtype)
    first = []
    for i in range(len(g.k)):
        st = g.starts(i, xp)
        first.append(st + g.d[i] * xp.maximum(0, -(st // g.d[i])))   # first in-bounds position of each window
    idx = xp.broadcast_to(g.flat_index(first), out.shape).copy()
    for off, sl in g.offsets():
        v = xpad[head + sl]
        take = v > out
        if is_float_np(x.dtype):
            take |= xp.isnan(v)
        xp.copyto(out, v, where=take)
        xp.copyto(idx, xp.broadcast_to(_offset_index(g, off, xp), idx.shape), where=take)
    return out, (idx if need_idx else None)


def _offset_index(g, off, xp):
    return g.flat_index([g.starts(i, xp) + off[i] * g.d[i] for i in range(len(g.k))])


def _adaptive_windows(n, out, xp):
    """PyTorch's adaptive windows: start = floor(i * n / out), end = ceil((i + 1) * n / out)."""
    i = xp.arange(out)
    start = (i * n) // out
    end = -((-(i + 1) * n) // out)
    return start, end


def _adaptive_max(x, insp, outsp):
    """Adaptive max pooling of ``x`` (B, *sp): loop over the offsets of the longest window
    (shorter windows repeat their last element, which never beats its first occurrence)."""
    xp = namespace(x)
    tables, lens = [], []
    for n, o in zip(insp, outsp):
        start, end = _adaptive_windows(n, o, xp)
        m = int((end - start).max()) if o else 0   # (on a device: one read of the longest window)
        tables.append(xp.minimum(start[:, None] + xp.arange(m)[None, :], end[:, None] - 1))
        lens.append(m)
    g = _Pool(None, None, None, None, insp, outsp)
    dims = len(insp)
    out = idx = None
    for off in np.ndindex(*lens):
        pos = [tables[i][:, off[i]] for i in range(dims)]
        grid = xp.ix_(*pos)
        v = x[(slice(None),) + grid]
        fi = g.flat_index(pos)
        if out is None:
            out, idx = v.copy(), xp.broadcast_to(fi, v.shape).copy()
            continue
        take = v > out
        if is_float_np(x.dtype):
            take |= xp.isnan(v)
        xp.copyto(out, v, where=take)
        xp.copyto(idx, xp.broadcast_to(fi, idx.shape), where=take)
    if out is None:  # an empty output
        out = xp.zeros(x.shape[:1] + tuple(outsp), dtype=x.dtype)
        idx = xp.zeros(out.shape, dtype=np.int64)
    return out, idx


# ====================================================================== autograd functions

def _flat(x, dims):
    """(lead..., *sp) -> (B, *sp)."""
    return x.reshape((-1,) + x.shape[x.ndim - dims:])


class _MaxPool(ArrayFunction):
    """out = max over each window (and its flat index);   dx = grad added at the index of each max"""

    @staticmethod
    def forward(ctx, x, g, need_idx):
        dims = len(g.k)
        lead = x.shape[:x.ndim - dims]
        need_idx = need_idx or bool(ctx.needs_input_grad)
        out, idx = _max_pool(_flat(x, dims), g, need_idx)
        fmt = suggested_format(x)   # a channels-last input gives channels-last results
        out = in_format(out.reshape(lead + out.shape[1:]), fmt)
        if idx is None:
            return out, namespace(out).zeros(out.shape, dtype=np.int64)
        idx = in_format(idx.reshape(out.shape), fmt)
        if ctx.needs_input_grad:
            ctx.save_for_backward(x)   # as PyTorch: an in-place write to x before backward is an error
            ctx.idx, ctx.g = idx, g
            ctx.unique = all((k - 1) * d + 1 <= s for k, d, s in zip(g.k, g.d, g.s))  # windows don't overlap
        return out, idx

    @staticmethod
    def backward(ctx, grad, _):
        x, = ctx.saved_tensors
        nplane = _prod(x.shape[-len(ctx.g.k):])
        # _IndexAdd under this pooling's node name (see _grad_op)
        return ctx._function._grad_op.apply(grad, x, ctx.idx, x.shape, nplane, ctx.unique,
                                            _grad_format(ctx, x)), None, None


class MaxPool2d(_MaxPool):
    node_name = "MaxPool2DWithIndicesBackward0"
    _grad_keeps_format = True


class MaxPool3d(_MaxPool):
    node_name = "MaxPool3DWithIndicesBackward0"
    _grad_keeps_format = True


class _AdaptiveMaxPool(ArrayFunction):
    """out = max over each adaptive window (and its flat index);   dx = grad added at those indices"""

    @staticmethod
    def forward(ctx, x, outsp):
        dims = len(outsp)
        lead = x.shape[:x.ndim - dims]
        out, idx = _adaptive_max(_flat(x, dims), x.shape[x.ndim - dims:], outsp)
        out = out.reshape(lead + tuple(outsp))
        fmt = suggested_format(x)
        out, idx = in_format(out, fmt), in_format(idx.reshape(out.shape), fmt)
        if ctx.needs_input_grad:
            ctx.save_for_backward(x)
            ctx.idx, ctx.outsp = idx, outsp
        return out, idx

    @staticmethod
    def backward(ctx, grad, _):
        x, = ctx.saved_tensors
        nplane = _prod(x.shape[-len(ctx.outsp):])
        return ctx._function._grad_op.apply(grad, x, ctx.idx, x.shape, nplane, False, _grad_format(ctx, x)), None


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    node_name = "AdaptiveMaxPool2DBackward0"
    _grad_keeps_format = True


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    node_name = "AdaptiveMaxPool3DBackward0"


def _rows(a, nplane):
    """(lead..., *plane) -> (rows, plane elements)."""
    return a.reshape(-1, nplane) if a.size else a.reshape(0, nplane)


def _like_rows(a, rows):
    """``a`` (indices or gradients of the windows) as one row per row of ``rows`` (not -1: numpy cannot
    infer a dimension when there is no row)."""
    return a.reshape(rows.shape[0], a.size // rows.shape[0] if rows.shape[0] else 0)


def _grad_format(ctx, x):
    """The layout of a pooling's input gradient: ATen's 2-d kernels (and max_pool3d's) give it the format the
    input suggests (channels-last in, channels-last out), the other kernels a contiguous one."""
    return suggested_format(x._data) if getattr(ctx._function, "_grad_keeps_format", False) else \
        "contiguous_format"


def _pooled_input_grad(ctx, grad):
    """The gradient of a pooling backward op in the pooled input x: PyTorch's ``zeros_like(self)``.
    Zero, but a gradient, not None: double backward goes on into x's graph, where a zero through a node
    that is inf or NaN at x (entr at 0, say) gives NaN, as in PyTorch."""
    if not ctx.needs_input_grad[1]:
        return None
    return Tensor._make(namespace(grad._data).zeros(ctx.in_shape, dtype=grad._data.dtype))


class _IndexAdd(ArrayFunction):
    """dx[row, idx[row, j]] += grad[row, j] (one row per (n, c) plane): the backward of max pooling;
    its own backward gathers at the same indices.  ``x``, the pooled input (None under a gather's
    backward), is only an input of the graph, as ``self`` is of PyTorch's max_pool2d_with_indices_backward."""
    node_name = "MaxPoolWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, idx, in_shape, nplane, unique, memory_format):
        if ctx.needs_input_grad:
            ctx.idx, ctx.in_shape, ctx.nplane = idx, in_shape, nplane
        xp = namespace(grad)
        out = xp.zeros(in_shape, dtype=grad.dtype)
        rows = _rows(out, nplane)
        g2, i2 = _like_rows(grad, rows), _like_rows(idx, rows)
        if unique:   # windows that don't overlap: every input element receives at most one gradient
            xp.put_along_axis(rows, i2, g2, axis=1)
        else:
            scatter_add(rows, (xp.arange(rows.shape[0])[:, None], i2), g2)
        return in_format(out, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return (_IndexGather.apply(grad, ctx.idx, ctx.nplane), _pooled_input_grad(ctx, grad), None, None, None,
                None, None)


class _IndexGather(ArrayFunction):
    """out[row, j] = x[row, idx[row, j]] (per plane);   dx = grad added back at the indices"""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, nplane):
        if ctx.needs_input_grad:
            ctx.idx, ctx.in_shape, ctx.nplane = idx, x.shape, nplane
        rows = _rows(x, nplane)
        return namespace(x).take_along_axis(rows, _like_rows(idx, rows), axis=1).reshape(idx.shape)

    @staticmethod
    def backward(ctx, grad):
        return _IndexAdd.apply(grad, None, ctx.idx, ctx.in_shape, ctx.nplane, False, "contiguous_format"), None, None


class _AvgPool(ArrayFunction):
    """out = sum of each window / its divisor;   dx = grad / divisor added back over each window"""

    @staticmethod
    def forward(ctx, x, g, div):
        if ctx.needs_input_grad:
            ctx.save_for_backward(x)   # as PyTorch: an in-place write to x before backward is an error
            ctx.g, ctx.div = g, div
        return in_format(_avg_pool(x, g, div), suggested_format(x))

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx._function._grad_op.apply(grad, x, ctx.g, ctx.div, _grad_format(ctx, x)), None, None


class AvgPool2d(_AvgPool):
    node_name = "AvgPool2DBackward0"
    _grad_keeps_format = True


class AvgPool3d(_AvgPool):
    node_name = "AvgPool3DBackward0"

    @staticmethod
    def forward(ctx, x, g, div):
        # (here, after autocast has cast: PyTorch's CPU kernel has no float16/bfloat16, its CUDA kernel has)
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV" and on_host(x):
            raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{_type_word(x.dtype)}'")
        return _AvgPool.forward(ctx, x, g, div)


class _AvgPoolAdjoint(ArrayFunction):
    """dx = grad / divisor added over each window (the adjoint of average pooling);  its backward: avg pooling
    (and zeros for the pooled input x, only an input of the graph: see _pooled_input_grad)"""
    node_name = "AvgPoolBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, g, div, memory_format):
        if ctx.needs_input_grad:
            ctx.g, ctx.div, ctx.in_shape = g, div, x.shape
        return in_format(_avg_pool_adjoint(grad, g, div, x.shape), memory_format)

    @staticmethod
    def backward(ctx, gg):
        return _AvgPool.apply(gg, ctx.g, ctx.div), _pooled_input_grad(ctx, gg), None, None, None


def _avg_pool(x, g, div):
    dims = len(g.k)
    lead = x.shape[:x.ndim - dims]
    xf = to_opmath(_flat(x, dims))   # float16/bfloat16 summed and divided in float32, rounded once (ATen)
    xp = namespace(x)
    xpad = _pad(xf, g, 0)
    out = None
    for _, sl in g.offsets():
        v = xpad[(slice(None),) + sl]
        out = v.astype(xf.dtype, copy=True) if out is None else xp.add(out, v, out=out)
    out = out / div if is_inexact_np(x.dtype) else xp.trunc(out / div)   # integers: C division
    return out.astype(x.dtype, copy=False).reshape(lead + tuple(g.outsp))


def _avg_pool_adjoint(grad, g, div, in_shape):
    dims = len(g.k)
    xp = namespace(grad)
    gf = _flat(grad, dims) / div
    his = [g.pad_hi(i) for i in range(dims)]
    acc = xp.zeros(gf.shape[:1] + tuple(n + p + h for n, p, h in zip(g.insp, g.p, his)), dtype=grad.dtype)
    # the offsets backwards: each input then gets its windows' shares in the order of the outputs, as in
    # ATen's loop (in float16/bfloat16 every += rounds, so the order shows)
    for _, sl in reversed(list(g.offsets())):
        acc[(slice(None),) + sl] += gf
    acc = acc[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(g.p, g.insp))]
    return xp.ascontiguousarray(acc).reshape(in_shape)


def _avg_divisor(g, ceil_mode, count_include_pad, divisor_override, dtype, xp):
    """Each window's divisor, (out...) (PyTorch: the window clipped to input+padding, or to the input),
    made by ``xp`` (on the input's device)."""
    if divisor_override is not None:
        return divisor_override
    div = xp.ones((), dtype=np.float64)
    dims = len(g.k)
    empty = xp.zeros((), dtype=bool)
    for i in range(dims):
        start = g.starts(i, xp)
        end = xp.minimum(start + g.k[i], g.insp[i] + g.p[i])
        pool = end - start
        cnt = xp.minimum(end, g.insp[i]) - xp.maximum(start, 0)
        shape = [1] * dims
        shape[i] = -1
        div = div * (pool if count_include_pad else cnt).reshape(shape)
        empty = empty | (cnt <= 0).reshape(shape)
    if xp is not np or empty.any():   # (on a device: no read of ``empty``, where() always)
        div = xp.where(empty, np.inf, div)   # a window with no input element averages to 0
    return div.astype(dtype) if is_float_np(np.dtype(dtype)) else div


class _AdaptiveAvgPool(ArrayFunction):
    """out = A_h @ x @ A_w^T, A: the (out, in) averaging matrix of each dim;   dx = A_h^T @ grad @ A_w"""

    @staticmethod
    def forward(ctx, x, mats):
        return _AdaptiveAvgPool._pool(ctx, x, mats, suggested_format(x))

    @staticmethod
    def _pool(ctx, x, mats, memory_format):
        if ctx.needs_input_grad:
            ctx.save_for_backward(x)   # as PyTorch: an in-place write to x before backward is an error
            ctx.mats = mats
        return in_format(_apply_mats(x, mats, False), memory_format)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx._function._grad_op.apply(grad, x, ctx.mats, _grad_format(ctx, x)), None


class AdaptiveAvgPool2d(_AdaptiveAvgPool):
    node_name = "AdaptiveAvgPool2DBackward0"
    _grad_keeps_format = True


class AdaptiveAvgPool3d(_AdaptiveAvgPool):
    node_name = "AdaptiveAvgPool3DBackward0"

    @staticmethod
    def forward(ctx, x, mats):
        # ATen's CPU kernel makes the input contiguous: no channels-last result in 3-d
        return _AdaptiveAvgPool._pool(ctx, x, mats, "contiguous_format")


class _AdaptiveAvgAdjoint(ArrayFunction):
    """dx = A_h^T @ grad @ A_w;  its backward: adaptive average pooling (and zeros for the pooled input x,
    only an input of the graph: see _pooled_input_grad)"""
    node_name = "AdaptiveAvgPoolBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, mats, memory_format):
        if ctx.needs_input_grad:
            ctx.mats, ctx.in_shape = mats, x.shape
        return in_format(_apply_mats(grad, mats, True), memory_format)

    @staticmethod
    def backward(ctx, gg):
        return _AdaptiveAvgPool.apply(gg, ctx.mats), _pooled_input_grad(ctx, gg), None, None


def _grad_op(base, node_name):
    """``base``, a pooling's backward op, under the node name PyTorch gives it for that pooling."""
    return type(base.__name__, (base,), {"node_name": node_name})


MaxPool2d._grad_op = _grad_op(_IndexAdd, "MaxPool2DWithIndicesBackwardBackward0")
MaxPool3d._grad_op = _grad_op(_IndexAdd, "MaxPool3DWithIndicesBackwardBackward0")
AdaptiveMaxPool2d._grad_op = _grad_op(_IndexAdd, "AdaptiveMaxPool2DBackwardBackward0")
AdaptiveMaxPool3d._grad_op = _grad_op(_IndexAdd, "AdaptiveMaxPool3DBackwardBackward0")
AvgPool2d._grad_op = _grad_op(_AvgPoolAdjoint, "AvgPool2DBackwardBackward0")
AvgPool3d._grad_op = _grad_op(_AvgPoolAdjoint, "AvgPool3DBackwardBackward0")
AdaptiveAvgPool2d._grad_op = _grad_op(_AdaptiveAvgAdjoint, "AdaptiveAvgPool2DBackwardBackward0")
AdaptiveAvgPool3d._grad_op = _grad_op(_AdaptiveAvgAdjoint, "AdaptiveAvgPool3DBackwardBackward0")


def _apply_mats(x, mats, transpose):
    """Multiply each of the trailing len(mats) dims of ``x`` by its matrix (or the transpose), in float32
    for the half types.  Row by row over the row's nonzero entries only (a window, contiguous): in a full
    product a NaN or inf outside the window would reach it as 0 * NaN."""
    dims = len(mats)
    xp = namespace(x)
    dtype = x.dtype
    if dtype.itemsize == 2:   # float16 / bfloat16: ATen's order of operations and roundings
        return _adaptive_avg_half_grad(x, mats) if transpose else _adaptive_avg_half(x, mats)
    x = to_opmath(x)
    for i, m in enumerate(mats):
        ax = x.ndim - dims + i
        m = (m.T if transpose else m).astype(x.dtype, copy=False)
        xs = xp.moveaxis(x, ax, -1)
        out = xp.empty(xs.shape[:-1] + (m.shape[0],), dtype=x.dtype)
        for r in range(m.shape[0]):
            inside = m[r] != 0
            start = int(inside.argmax())
            end = start + int(inside.sum())
            out[..., r] = (xs[..., start:end] * m[r, start:end]).sum(-1)
        x = xp.moveaxis(out, -1, ax)
    return xp.ascontiguousarray(x).astype(dtype, copy=False)


def _half_step(v, dtype):
    """float32 values rounded to ``dtype`` (float16/bfloat16) and back: one operation of the half type."""
    return v.astype(dtype).astype(np.float32)


def _window_grids(mats, xp):
    """Per spatial dim, the adaptive windows' starts and sizes, shaped to broadcast over the output grid
    (for three dims: (oT, 1, 1), (1, oH, 1), (1, 1, oW))."""
    grids = []
    for d, m in enumerate(mats):
        start, end = _adaptive_windows(m.shape[1], m.shape[0], xp)
        shape = [1] * len(mats)
        shape[d] = -1
        grids.append((start.reshape(shape), (end - start).reshape(shape)))
    return grids


def _adaptive_avg_half(x, mats):
    """ATen's CPU adaptive average pooling of float16/bfloat16: each window summed element by element (in
    window order), then divided by each window size in turn.  The 2-d kernel does this in float32 and
    rounds once; the 3-d kernel works in the half type, every add and every division rounded."""
    xp = namespace(x)
    step = (lambda v: _half_step(v, x.dtype)) if len(mats) == 3 else (lambda v: v)
    grids = _window_grids(mats, xp)
    total = xp.zeros(x.shape[:x.ndim - len(mats)] + tuple(m.shape[0] for m in mats), dtype=np.float32)
    # one offset inside every window at once; windows shorter than the offset skip it
    for offset in itertools.product(*(range(int(k.max(initial=0))) for _, k in grids)):
        inside = functools.reduce(operator.and_, (o < k for o, (_, k) in zip(offset, grids)))
        # (clamped: where an offset is outside its window, the value read is not used)
        index = tuple(xp.minimum(st + o, n - 1) for o, (st, _), n in zip(offset, grids, x.shape[-len(mats):]))
        total = xp.where(inside, step(total + x[(Ellipsis,) + index].astype(np.float32)), total)
    for _, k in grids:
        total = step(total / k)
    return total.astype(x.dtype)


def _adaptive_avg_half_grad(grad, mats):
    """The backward of ``_adaptive_avg_half`` as ATen's kernels (2-d and 3-d) do it in the half type: each
    output's gradient divided by each window size in turn, then added to every input of its window, the
    outputs taken in order (windows overlap when the input is smaller than the output); all rounded."""
    xp = namespace(grad)
    dims = len(mats)
    delta = grad.astype(np.float32)
    for _, k in _window_grids(mats, xp):
        delta = _half_step(delta / k, grad.dtype)
    # per dim, the outputs whose windows cover each input index: consecutive ones, from the first
    covers = []
    for d, m in enumerate(mats):
        inside = m != 0                                       # (out, in)
        first, count = inside.argmax(0), inside.sum(0)
        shape = [1] * dims
        shape[d] = -1
        covers.append([(xp.minimum(first + j, m.shape[0] - 1).reshape(shape), (j < count).reshape(shape))
                       for j in range(int(count.max(initial=0)))])
    gi = xp.zeros(grad.shape[:grad.ndim - dims] + tuple(m.shape[1] for m in mats), dtype=np.float32)
    for cover in itertools.product(*covers):
        ok = functools.reduce(operator.and_, (valid for _, valid in cover))
        gi = xp.where(ok, _half_step(gi + delta[(Ellipsis,) + tuple(i for i, _ in cover)], grad.dtype), gi)
    return gi.astype(grad.dtype)


def _avg_matrix(n, out, xp):
    start, end = _adaptive_windows(n, out, xp)
    pos = xp.arange(n)
    inside = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return inside / xp.maximum(end - start, 1)[:, None]


class _MaxUnpool(ArrayFunction):
    """out[plane, idx] = x (zeros elsewhere);   dx = grad gathered at the indices"""

    @staticmethod
    def forward(ctx, x, idx, out_sp):
        dims = len(out_sp)
        nplane = _prod(out_sp)
        out_shape = x.shape[:x.ndim - dims] + tuple(out_sp)
        xp = namespace(x)
        out = xp.zeros(out_shape, dtype=x.dtype)
        rows = _rows(out, nplane)
        xp.put_along_axis(rows, idx.reshape(rows.shape[0], -1), x.reshape(rows.shape[0], -1), axis=1)
        if ctx.needs_input_grad:
            ctx.idx, ctx.nplane = idx, nplane
        return out

    @staticmethod
    def backward(ctx, grad):
        return _IndexGather.apply(grad, ctx.idx, ctx.nplane), None, None


class MaxUnpool2d(_MaxUnpool):
    node_name = "MaxUnpool2DBackward0"


class MaxUnpool3d(_MaxUnpool):
    node_name = "MaxUnpool3DBackward0"


# ====================================================================== argument parsing

_WORDS = {1: "one", 2: "two", 3: "three"}


def _ints(v, what):
    """An int or a sequence of ints as a list (TypeError otherwise)."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)]
    if isinstance(v, Tensor) and v.ndim == 0:
        return [int(v.item())]
    if isinstance(v, (str, bool)) or not hasattr(v, "__iter__"):
        raise TypeError(f"argument '{what}' must be tuple of ints, not {type(v).__name__}")
    out = []
    for e in v:
        if isinstance(e, Tensor) and e.ndim == 0:
            e = e.item()
        if not isinstance(e, numbers.Integral) or isinstance(e, bool):
            raise TypeError(f"argument '{what}' must be tuple of ints, but found element of type "
                            f"{type(e).__name__} at pos {len(out)}")
        out.append(int(e))
    return out


def _sized(v, dims, fname, what, verb="either be"):
    vals = _ints(v, what)
    if len(vals) not in (1, dims):
        omitted = "omitted, " if what == "stride" else ""
        raise RuntimeError(f"{fname}: {what} must {verb} {omitted}a single int, or a tuple of {_WORDS[dims]} ints")
    return vals * dims if len(vals) == 1 else vals


def _stride_or_kernel(stride, k, dims, fname):
    if stride is None:
        return list(k)
    vals = _ints(stride, "stride")
    if not vals:
        return list(k)
    return _sized(vals, dims, fname, "stride")


def _dims_word(dims):
    return {2: "3D or 4D", 3: "4D or 5D"}[dims]


def _pool_shape_check(input, dims, k, s, p, d, outsp):
    """ATen's pool2d_shape_check / pool3d_shape_check."""
    names = ["T", "H", "W"][-dims:]
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"k{n}: {v}" for n, v in zip(names, k)))
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should be greater than zero, but got " +
                           " ".join(f"d{n}: {v}" for n, v in zip(names, s)))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got " +
                           " ".join(f"dilation{n}: {v}" for n, v in zip(names, d)))
    shape = tuple(input.shape)
    if any(n == 0 for n in shape[input.ndim - dims - 1:]):
        raise RuntimeError(f"Expected {_dims_word(dims)} (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape_str(shape)}")
    if any(kk // 2 < pp for kk, pp in zip(k, p)):
        if dims == 2:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                               f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: "
                           f"{k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    if any(o < 1 for o in outsp):
        planes = shape[-dims - 1]
        insz = "x".join(str(v) for v in (planes,) + shape[-dims:])
        outsz = "x".join(str(v) for v in (planes,) + tuple(outsp))
        raise RuntimeError(f"Given input size: ({insz}). Calculated output size: ({outsz}). Output size is too small")


def _check_input(input, fname):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _check_dim_range(input, fname):
    """checkDimRange(2, 4): the 1-d pools take (C, L) or (N, C, L)."""
    if not 2 <= input.ndim < 4:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fname})")


def _check1d(fname, what, v):
    vals = _ints(v, what)
    if len(vals) != 1:
        raise RuntimeError(f"{fname}() argument '{what}' should contain one int (got {len(vals)})")
    return vals[0]


# ====================================================================== max pooling

def _max_pool_nd(dims, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    fname = f"max_pool{dims}d"
    _check_input(input, fname)
    k = _sized(kernel_size, dims, fname, "kernel_size")
    s = _stride_or_kernel(stride, k, dims, fname)
    p = _sized(padding, dims, fname, "padding")
    d = _sized(dilation, dims, fname, "dilation", "be either")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"non-empty {_dims_word(dims)} (batch mode) tensor expected for input")
    insp = tuple(input.shape[-dims:])
    outsp = tuple(_pooling_output_shape(insp[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(dims))
    _pool_shape_check(input, dims, k, s, p, d, outsp)
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{fname}\" not implemented for 'Bool'")
    g = _Pool(tuple(k), tuple(s), tuple(p), tuple(d), insp, outsp)
    out, idx = (MaxPool2d if dims == 2 else MaxPool3d).apply(input, g, bool(return_indices))
    return (out, idx) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each (kh, kw) window; with ``return_indices`` also its flat index ``h * W + w``."""
    return _max_pool_nd(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each (kd, kh, kw) window (indices: flat positions in the (D, H, W) volume)."""
    return _max_pool_nd(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool_nd(2, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool_nd(3, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """ATen's check_max_pool1d (the path without indices)."""
    nd = input.ndim
    shape = tuple(input.shape)
    if not ((nd == 2 and shape[0] != 0 and shape[1] != 0) or (nd == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape_str(shape)}")
    k = _ints(kernel_size, "kernel_size")
    if len(k) != 1:
        raise RuntimeError(f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
                           f"got size {len(k)}")
    s = [] if stride is None else _ints(stride, "stride")
    if len(s) > 1:
        raise RuntimeError(f"max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
                           f"got size {len(s)}")
    p = _ints(padding, "padding")
    if len(p) != 1:
        raise RuntimeError(f"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
                           f"size {len(p)}")
    d = _ints(dilation, "dilation")
    if len(d) != 1:
        raise RuntimeError(f"max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
                           f"size {len(d)}")
    s = s or k
    if k[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[0]}")
    if s[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if p[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
    if p[0] > k[0] // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p[0]} and "
                           f"kernel_size={k[0]}")
    if d[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[0]}")
    ow = _pooling_output_shape(shape[-1], k[0], p[0], s[0], d[0], ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L): a 2-d pooling of ``input.unsqueeze(-2)``."""
    _check_input(input, "max_pool1d")
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if not is_float_np(input._data.dtype):  # (the kernel without indices is float-only; with them, any but bool)
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_type_word(input._data.dtype)}'")
    r = _max_pool1d_2d(input, kernel_size, stride, padding, dilation, ceil_mode, False)
    if input.requires_grad:
        return r
    # no gradient needed: PyTorch's own 1-d kernel (max_pool1d_impl), a new contiguous tensor, not a view
    return r.clone(memory_format=contiguous_format)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    _check_input(input, "max_pool1d_with_indices")
    _check_dim_range(input, "max_pool1d")
    return _max_pool1d_2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _max_pool1d_2d(input, kernel_size, stride, padding, dilation, ceil_mode, with_indices):
    k = _check1d("max_pool1d", "kernel_size", kernel_size)
    s = k if stride is None or not _ints(stride, "stride") else _check1d("max_pool1d", "stride", stride)
    p = _check1d("max_pool1d", "padding", padding)
    d = _check1d("max_pool1d", "dilation", dilation)
    r = _max_pool_nd(2, input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, with_indices)
    if with_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


# ====================================================================== average pooling

def _avg_pool_nd(dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    fname = f"avg_pool{dims}d"
    _check_input(input, fname)
    k = _sized(kernel_size, dims, fname, "kernel_size")
    s = _stride_or_kernel(stride, k, dims, fname)
    p = _sized(padding, dims, fname, "padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    nd = input.ndim
    if nd < dims + 1:
        n = max(nd, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                         f"{-dims - 1})")
    insp = tuple(input.shape[-dims:])
    outsp = tuple(_pooling_output_shape(insp[i], k[i], p[i], s[i], 1, ceil_mode) for i in range(dims))
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {_dims_word(dims)} (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape_str(input.shape)}")
    _pool_shape_check(input, dims, k, s, p, [1] * dims, outsp)
    x = input._data
    if x.dtype.kind in "biu" and x.dtype != np.int64:  # (of the integer types the kernel has only Long)
        kernel = "avg_pool2d" if dims == 2 else "avg_pool3d_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(x.dtype)}'")
    g = _Pool(tuple(k), tuple(s), tuple(p), (1,) * dims, insp, outsp)
    div = _avg_divisor(g, ceil_mode, count_include_pad, divisor_override, x.dtype, namespace(x))
    return (AvgPool2d if dims == 2 else AvgPool3d).apply(input, g, div)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each (kh, kw) window (``count_include_pad``: padding counts in the divisor)."""
    return _avg_pool_nd(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each (kd, kh, kw) window."""
    return _avg_pool_nd(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling: a 2-d pooling of ``input.unsqueeze(-2)``."""
    _check_input(input, "avg_pool1d")
    _check_dim_range(input, "avg_pool1d")
    k = _check1d("avg_pool1d", "kernel_size", kernel_size)
    s = k if stride is None or not _ints(stride, "stride") else _check1d("avg_pool1d", "stride", stride)
    p = _check1d("avg_pool1d", "padding", padding)
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


# ====================================================================== adaptive pooling

def _list_with_default(out_size, defaults):
    if isinstance(out_size, numbers.Integral) and not isinstance(out_size, bool):
        return out_size
    out_size = list(out_size)
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _output_sizes(output_size, dims):
    vals = _ints(output_size, "output_size")
    return vals * dims if len(vals) == 1 and isinstance(output_size, numbers.Integral) else vals


def adaptive_avg_pool2d(input, output_size):
    """Averages over PyTorch's adaptive windows (any input size to exactly ``output_size``)."""
    _check_input(input, "adaptive_avg_pool2d")
    return _adaptive_avg_nd(2, input, _list_with_default(output_size, tuple(input.shape)))


def adaptive_avg_pool3d(input, output_size):
    _check_input(input, "adaptive_avg_pool3d")
    return _adaptive_avg_nd(3, input, _list_with_default(output_size, tuple(input.shape)))


def _adaptive_avg_nd(dims, input, output_size):
    fname = f"adaptive_avg_pool{dims}d"
    o = _output_sizes(output_size, dims)
    if len(o) != dims:
        raise RuntimeError(f"{fname}: output_size must be {dims}")
    if any(v < 0 for v in o):
        # (ATen's 3-d message has no space before the last size: "{-1, -1,-1}")
        received = f"{o[0]}, {o[1]},{o[2]}" if dims == 3 else ", ".join(map(str, o))
        raise RuntimeError(f"{fname}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{received}}}")
    if all(v == 1 for v in o):   # the mean over the spatial dims (PyTorch's shortcut: MeanBackward1)
        out = input.mean(tuple(range(-1, -dims - 1, -1)), keepdim=True)
        if suggested_format(input._data) != "contiguous_format":
            # ATen then restrides it in place as channels-last (AsStridedBackward1)
            n, c = out.shape[0], out.shape[1]
            out.as_strided_((n, c) + (1,) * dims, (c, 1) + (c,) * dims)
        return out
    nd = input.ndim
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError(f"{fname}(): Expected {_dims_word(dims)} tensor, but got {shape_str(input.shape)}")
    # the 2-d pool checks the spatial dims; the 3-d one every dim after the first (a batch's channels too)
    for i in (range(nd - 2, nd) if dims == 2 else range(1, nd)):
        if input.shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape_str(input.shape)} with dimension {i} being empty")
    x = input._data
    # (complex too: only the mean shortcut above takes it; the 2-d kernel is not called for an empty result)
    if not is_float_np(x.dtype) and (dims == 3 or _prod(input.shape[:nd - dims]) * _prod(o)):
        kernel = "adaptive_avg_pool3d_cpu" if dims == 3 else "adaptive_avg_pool2d" if \
            suggested_format(x) == "contiguous_format" else "adaptive_avg_pool2d_channels_last"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(x.dtype)}'")
    mats = tuple(_avg_matrix(n, m, namespace(input._data)) for n, m in zip(input.shape[-dims:], o))
    return (AdaptiveAvgPool2d if dims == 2 else AdaptiveAvgPool3d).apply(input, mats)


def adaptive_avg_pool1d(input, output_size):
    """1-d adaptive average pooling: the 2-d one on ``input.unsqueeze(-2)``."""
    _check_input(input, "adaptive_avg_pool1d")
    _check_dim_range(input, "adaptive_avg_pool1d")
    o = _check1d("adaptive_avg_pool1d", "output_size", output_size)
    return _adaptive_avg_nd(2, input.unsqueeze(-2), [1, o]).squeeze(-2)


def _adaptive_max_nd(dims, input, output_size, return_indices):
    fname = f"adaptive_max_pool{dims}d"
    nd = input.ndim
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError(f"{fname}(): Expected {_dims_word(dims)} tensor, but got: {shape_str(input.shape)}")
    for i in range(1, nd):
        if input.shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape_str(input.shape)} with dimension {i} being empty")
    o = _output_sizes(output_size, dims)
    if len(o) != dims:
        raise RuntimeError(f"{fname}(): internal error: output_size.size() must be {dims}")
    if any(v < 0 for v in o):
        neg = next(v for v in o if v < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                           f"{shape_str(tuple(input.shape[:nd - dims]) + tuple(o))}")
    if not is_inexact_np(input._data.dtype):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{_type_word(input._data.dtype)}'")
    out, idx = (AdaptiveMaxPool2d if dims == 2 else AdaptiveMaxPool3d).apply(input, tuple(o))
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows (indices: flat positions ``h * W + w``)."""
    _check_input(input, "adaptive_max_pool2d")
    return _adaptive_max_nd(2, input, _list_with_default(output_size, tuple(input.shape)), return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    _check_input(input, "adaptive_max_pool3d")
    return _adaptive_max_nd(3, input, _list_with_default(output_size, tuple(input.shape)), return_indices)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-d adaptive max pooling: the 2-d one on ``input.unsqueeze(-2)``."""
    _check_input(input, "adaptive_max_pool1d")
    _check_dim_range(input, "adaptive_max_pool1d")
    o = _check1d("adaptive_max_pool1d", "output_size", output_size)
    out, idx = _adaptive_max_nd(2, input.unsqueeze(-2), [1, o], True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


# ====================================================================== power-average pooling

def _lp_pool(dims, input, norm_type, kernel_size, stride, ceil_mode):
    """(sum of x^p over each window)^(1/p), written as PyTorch writes it (avg pool times the window size)."""
    k = _ints(kernel_size, "kernel_size")
    k = k * dims if len(k) == 1 else k
    maxp = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[dims]
    avgp = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[dims]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avgp(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avgp(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(_prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p); p = inf is max pooling of |x|."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each (kh, kw) window of x^p)^(1/p)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# ====================================================================== max unpooling

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = tuple(input.shape)
    n = len(kernel_size)
    default_size = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default_size[d] - stride[d], default_size[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = list(output_size)
    for d in range(n):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def _max_unpool_nd(dims, input, indices, output_size):
    fname = f"max_unpooling{dims}d"
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_type_word(indices._data.dtype)}")
    if len(output_size) != dims:
        raise RuntimeError(f"There should be exactly {_WORDS[dims]} elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to {fname} should be a {dims + 1}d or {dims + 2}d Tensor, but got a tensor with "
                           f"{input.ndim} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({shape_str(input.shape)}) but got indices tensor with shape: {shape_str(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{fname}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got {shape_str(input.shape)} with dimension {i} being empty.")
    osz = tuple(int(v) for v in output_size)
    if not is_inexact_np(input._data.dtype):
        raise NotImplementedError(f"\"max_unpool{dims}d\" not implemented for '{_type_word(input._data.dtype)}'")
    idx = indices._data
    bad = (idx < 0) | (idx >= _prod(osz))
    if bad.any():
        # PyTorch's kernel walks the indices in order and keeps overwriting the one it reports: the last bad one
        # (with one thread; with several, whichever thread wrote last)
        raise RuntimeError(f"Found an invalid max index: {int(idx[bad].flat[-1])} (output volumes are of size "
                           f"{'x'.join(map(str, osz))})")
    return (MaxUnpool2d if dims == 2 else MaxUnpool3d).apply(input, indices, osz)


def _pool_args(kernel_size, stride, padding, dims):
    k = _ints(kernel_size, "kernel_size")
    k = k * dims if len(k) == 1 else k
    s = k if stride is None else _ints(stride, "stride")
    s = s * dims if len(s) == 1 else s
    p = _ints(padding, "padding")
    p = p * dims if len(p) == 1 else p
    return k, s, p


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: each value goes back to its index, zeros elsewhere."""
    _check_input(input, "max_unpool2d")
    k, s, p = _pool_args(kernel_size, stride, padding, 2)
    osz = _unpool_output_size(input, k, s, p, output_size)
    return _max_unpool_nd(2, input, indices, osz)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    _check_input(input, "max_unpool3d")
    k, s, p = _pool_args(kernel_size, stride, padding, 3)
    osz = _unpool_output_size(input, k, s, p, output_size)
    return _max_unpool_nd(3, input, indices, osz)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """1-d max unpooling: the 2-d one on ``input.unsqueeze(-1)``."""
    _check_input(input, "max_unpool1d")
    k, s, p = _pool_args(kernel_size, stride, padding, 1)
    osz = list(_unpool_output_size(input, k, s, p, output_size)) + [1]
    return _max_unpool_nd(2, input.unsqueeze(-1), indices.unsqueeze(-1), osz).squeeze(-1)


# ====================================================================== fractional max pooling

def _fractional_starts(samples, n, out, pool, dtype, xp):
    """ATen's generate_intervals, for each plane's random sample u: start_i = int((i + u) alpha) -
    int(u alpha) with alpha = (n - pool) / (out - 1), in the input's (opmath) dtype; the last window
    ends at the edge.  ``samples`` (B,) -> starts (B, out)."""
    u = samples.astype(dtype)[:, None]
    starts = xp.zeros((samples.shape[0], out), dtype=np.int64)
    if out > 1:
        alpha = dtype.type(n - pool) / dtype.type(out - 1)
        i = xp.arange(out - 1, dtype=dtype)[None, :]
        starts[:, :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out > 0:
        starts[:, -1] = n - pool
    return starts


def _fractional_max(x, samples, pool, outsp):
    """x (B, *sp), samples (B, dims): the max over each pseudo-random window (and its flat index).  As
    ATen's loop: offsets in C order, a later value wins if it is larger or NaN, a tie keeps the first."""
    xp = namespace(x)
    dims, insp = len(pool), x.shape[1:]
    opmath = np.dtype(np.float64 if x.dtype == np.float64 else np.float32)
    # sample 0 steers the last dim, sample 1 the one before it (and sample 2 the first of three)
    order = [dims - 1 - d for d in range(dims)] if dims == 2 else list(range(dims))
    starts = [_fractional_starts(samples[:, order[d]], insp[d], outsp[d], pool[d], opmath, xp) for d in range(dims)]
    rows = xp.arange(x.shape[0]).reshape((-1,) + (1,) * dims)
    out = xp.full((x.shape[0],) + tuple(outsp), -np.inf, dtype=opmath).astype(x.dtype)
    idx = None
    for off in np.ndindex(*pool):
        pos = [(starts[d] + off[d]).reshape((-1,) + tuple(outsp[d] if e == d else 1 for e in range(dims)))
               for d in range(dims)]
        flat = pos[0]
        for d in range(1, dims):
            flat = flat * insp[d] + pos[d]
        v = x[(rows,) + tuple(pos)]
        if idx is None:
            idx = xp.broadcast_to(flat, v.shape).astype(np.int64)
        with np.errstate(invalid="ignore"):
            take = (v > out) | xp.isnan(v)
        xp.copyto(out, v, where=take)
        xp.copyto(idx, xp.broadcast_to(flat, idx.shape), where=take)
    return out, idx


class _FractionalMaxPool(ArrayFunction):
    """out = max over each pseudo-random window (Graham's fractional max pooling);  dx = grad added at the
    index of each max"""

    @staticmethod
    def forward(ctx, x, samples, pool, outsp):
        dims = len(pool)
        lead = x.shape[:x.ndim - dims]
        out, idx = _fractional_max(_flat(x, dims), samples.reshape(-1, dims), pool, outsp)
        out, idx = out.reshape(lead + tuple(outsp)), idx.reshape(lead + tuple(outsp))
        if ctx.needs_input_grad:
            ctx.save_for_backward(x)
            ctx.idx, ctx.dims = idx, dims
        return out, idx

    @staticmethod
    def backward(ctx, grad, _):
        x, = ctx.saved_tensors
        nplane = _prod(x.shape[-ctx.dims:])
        return ctx._function._grad_op.apply(grad, x, ctx.idx, x.shape, nplane, False,
                                            _grad_format(ctx, x)), None, None, None


class FractionalMaxPool2d(_FractionalMaxPool):
    node_name = "FractionalMaxPool2DBackward0"


class FractionalMaxPool3d(_FractionalMaxPool):
    node_name = "FractionalMaxPool3DBackward0"


FractionalMaxPool2d._grad_op = _grad_op(_IndexAdd, "FractionalMaxPool2DBackwardBackward0")
FractionalMaxPool3d._grad_op = _grad_op(_IndexAdd, "FractionalMaxPool3DBackwardBackward0")


def _fractional_max_pool_nd(dims, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    fname = f"fractional_max_pool{dims}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{fname}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    spatial = list(input.shape[-dims:])
    if output_size is None:
        # PyTorch's 2-d form takes len() of the ratio first, so a plain number fails there with a TypeError
        # (the module form turns it into a pair beforehand); the 3-d form broadcasts a number
        if dims == 2 and len(output_ratio) > 2:
            raise ValueError(f"{fname} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * dims
        output_size = [int(spatial[d] * ratio[d]) for d in range(dims)]
    outsp = tuple(int(o) for o in (output_size if isinstance(output_size, (tuple, list)) else (output_size,) * dims))
    pool = tuple(int(k) for k in (kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * dims))
    names = ("time", "height", "width")[3 - dims:]
    for name, o, k, n in zip(names, outsp, pool, spatial):
        if o + k - 1 > n:
            raise RuntimeError(f"{fname}(): pool {name} {k} too large relative to input {name} {n}")
    if _random_samples is None:   # (drawn as PyTorch draws them: its rand stream decides the windows)
        from ...ops.random import rand
        n_batch = 1 if input.dim() == dims + 1 else input.shape[0]
        _random_samples = rand(n_batch, input.shape[-dims - 1], dims, dtype=input.dtype, device=input.device)
    cls = FractionalMaxPool2d if dims == 2 else FractionalMaxPool3d
    if not is_inexact_np(input._data.dtype):
        raise NotImplementedError(f"\"{fname}_out_frame\" not implemented for '{_type_word(input._data.dtype)}'")
    out, idx = cls.apply(input, _random_samples, pool, outsp)
    return (out, idx) if return_indices else out


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max pooling over pseudo-random windows of size ``kernel_size`` that tile the input into ``output_size``
    (or ``output_ratio`` of it) outputs; the windows come from one uniform sample per plane and dim."""
    return _fractional_max_pool_nd(2, input, kernel_size, output_size, output_ratio, return_indices,
                                   _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool_nd(3, input, kernel_size, output_size, output_ratio, return_indices,
                                   _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)
