"""Vision: ``pad``, ``interpolate`` (and the ``upsample*`` aliases), ``pixel_shuffle``, ``pixel_unshuffle``,
``grid_sample``, ``affine_grid``.

Every ``interpolate`` mode is separable: each output coordinate along one spatial dim reads a few input
coordinates ("taps") with weights, and the dims are done one after the other (the last dim first, as
PyTorch's kernels nest them).  Per dim and mode, with s = the source/destination scale:

    nearest        src = min(floor(dst * s), in - 1)              (s in float32, as PyTorch computes it)
    nearest-exact  src = min(floor((dst + 0.5) * s), in - 1)
    linear         src = s * (dst + 0.5) - 0.5, clamped at 0 (align_corners: s * dst); taps floor(src) and the
                   next one, weights 1 - l and l
    cubic          4 taps around floor(src) (clamped to the edge), Keys' cubic with A = -0.75
    antialias      PIL's filters (triangle, Keys' cubic with A = -0.5, Lanczos-3), their support scaled by s when
                   downsampling, weights normalised to sum 1

s is ``1 / scale_factor`` when a scale factor is given (and not recomputed), else ``in / out``
(align_corners: (in - 1) / (out - 1)).  The backward of every mode applies the transposed tap matrix.
Mode "area" is no resampling of its own: PyTorch hands it to ``adaptive_avg_pool1d/2d/3d``.
"""
import math
import numbers
import warnings

import numpy as np

from ..._warnings import user_stacklevel
from ..._layout import in_format, suggested_format
from ..._tensor import Tensor, contiguous_format
from ...autograd.function import ArrayFunction, before_checks
from ...autograd.grad_mode import no_grad
from ...backend import namespace, scatter_add
from ...ops._util import shape_str, _type_word
from ...ops.creation import linspace, tensor, zeros
from ...ops.elementwise import mul
from ...ops.join import stack
from ...ops.manip import pad as _pad
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "grid_sample", "affine_grid"]


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad`` lists (left, right) pairs, last dim first (see ``pedatorch.ops.manip.pad``)."""
    return _pad(input, pad, mode, value)


# ====================================================================== taps per dim

def _opmath(x):
    return np.float64 if x.dtype == np.float64 else np.float32


def _scale_value(scale, in_size, out_size, dt):
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(in_size) / dt(out_size)


def _area_scale(in_size, out_size, align_corners, scale, dt):
    if align_corners:
        return dt(in_size - 1) / dt(out_size - 1) if out_size > 1 else dt(0)
    return _scale_value(scale, in_size, out_size, dt)


def _source_index(scale, dst, align_corners, cubic, dt):
    xp = namespace(dst)
    if align_corners:
        return scale * dst
    src = scale * (dst + dt(0.5)) - dt(0.5)
    return src if cubic else xp.where(src < 0, dt(0), src)


def _taps_nearest(in_size, out_size, scale, exact, xp):
    dst = xp.arange(out_size)
    if not exact and out_size == in_size:
        return dst[:, None], None
    if not exact and out_size == 2 * in_size:
        return (dst >> 1)[:, None], None
    s = _scale_value(scale, in_size, out_size, np.float32)
    d = dst.astype(np.float32)
    src = xp.floor((d + np.float32(0.5)) * s) if exact else xp.floor(d * s)
    return xp.minimum(src.astype(np.int64), in_size - 1)[:, None], None


def _taps_linear(in_size, out_size, align_corners, scale, dt, xp):
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    real = _source_index(s, xp.arange(out_size).astype(dt), align_corners, False, dt)
    i0 = xp.minimum(xp.floor(real).astype(np.int64), in_size - 1)
    lam = xp.clip(real - i0.astype(dt), dt(0), dt(1)).astype(dt)
    i1 = i0 + (i0 < in_size - 1)
    return xp.stack([i0, i1], 1), xp.stack([dt(1) - lam, lam], 1)


def _cc1(x, A):
    return ((A + 2) * x - (A + 3)) * x * x + 1


def _cc2(x, A):
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A


def _taps_cubic(in_size, out_size, align_corners, scale, dt, xp):
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    real = _source_index(s, xp.arange(out_size).astype(dt), align_corners, True, dt)
    i0 = xp.minimum(xp.floor(real).astype(np.int64), in_size - 1)
    t = xp.clip(real - i0.astype(dt), dt(0), dt(1)).astype(dt)
    A, one = dt(-0.75), dt(1)
    w = xp.stack([_cc2(t + one, A), _cc1(t, A), _cc1(one - t, A), _cc2((one - t) + one, A)], 1).astype(dt)
    idx = xp.clip(i0[:, None] + xp.arange(-1, 3), 0, in_size - 1)
    return idx, w


def _aa_bilinear(x):
    xp = namespace(x)
    x = xp.abs(x)
    return xp.where(x < 1, 1 - x, 0)


def _aa_bicubic(x):
    a = -0.5
    xp = namespace(x)
    x = xp.abs(x)
    return xp.where(x < 1, _cc1(x, a), xp.where(x < 2, _cc2(x, a), 0))


def _aa_lanczos(x):
    xp = namespace(x)
    x = xp.abs(x)
    return xp.where(x < 3, xp.sinc(x) * xp.sinc(x / 3), 0)


def _taps_aa(in_size, out_size, align_corners, scale, dt, interp_size, filt, xp):
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    support = (interp_size * 0.5) * s if s >= 1.0 else interp_size * 0.5
    support = dt(support)
    invscale = dt(1.0) / s if s >= 1.0 else dt(1.0)
    center = s * (xp.arange(out_size).astype(dt) + dt(0.5))
    xmin = xp.maximum(xp.trunc(center - support + dt(0.5)).astype(np.int64), 0)
    xsize = xp.minimum(xp.trunc(center + support + dt(0.5)).astype(np.int64), in_size) - xmin
    k = max(int(xsize.max()), 1)
    j = xp.arange(k)
    w = filt(((j + xmin[:, None]).astype(dt) - center[:, None] + dt(0.5)) * invscale).astype(dt)
    w = xp.where(j < xsize[:, None], w, dt(0))
    total = w.sum(1, keepdims=True)
    w = xp.where(total != 0, w / xp.where(total != 0, total, 1), w).astype(dt)
    idx = xp.clip(j + xmin[:, None], 0, in_size - 1)
    return idx, w


# ====================================================================== the separable op

def _along(x, axis, idx, w):
    """out[..., o, ...] = sum_t w[o, t] * x[..., idx[o, t], ...] along ``axis``."""
    xp = namespace(x)
    if w is None:
        return xp.take(x, idx[:, 0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    out = None
    for t in range(idx.shape[1]):
        term = xp.take(x, idx[:, t], axis=axis) * w[:, t].reshape(shape)
        out = term if out is None else out + term
    return out


def _matrix(idx, w, in_size, dtype):
    """The dense (out, in) matrix of one dim's taps."""
    xp = namespace(idx)
    m = xp.zeros((idx.shape[0], in_size), dtype=dtype)
    rows = xp.repeat(xp.arange(idx.shape[0]), idx.shape[1])
    scatter_add(m, (rows, idx.reshape(-1)), 1 if w is None else w.reshape(-1))
    return m


def _apply_matrix(x, axis, m):
    """x with ``axis`` replaced by m @ (that axis)."""
    xp = namespace(x)
    return xp.moveaxis(xp.tensordot(x, m, axes=([axis], [1])), -1, axis)


class _UpsampleGrad(ArrayFunction):
    """dx = the transposed tap matrices applied to grad, dim by dim; its own backward applies the taps again"""

    @staticmethod
    def forward(ctx, g, mats, memory_format):
        ctx.mats = mats
        for axis, m in mats:
            g = _apply_matrix(g, axis, m.T)
        return in_format(namespace(g).ascontiguousarray(g), memory_format)

    @staticmethod
    def backward(ctx, gg):
        return _MatrixApply.apply(gg, ctx.mats), None, None


class _MatrixApply(ArrayFunction):
    """out = the tap matrices applied dim by dim (a linear map; its backward is the transposed one)"""

    @staticmethod
    def forward(ctx, x, mats):
        ctx.mats = mats
        for axis, m in reversed(mats):
            x = _apply_matrix(x, axis, m)
        return namespace(x).ascontiguousarray(x)

    @staticmethod
    def backward(ctx, grad):
        return _UpsampleGrad.apply(grad, ctx.mats, "contiguous_format"), None


class _Upsample(ArrayFunction):
    """out = the taps of each spatial dim applied in turn (last dim first);  dx = the transposed taps"""

    @staticmethod
    def forward(ctx, x, taps):
        in_shape = x.shape
        memory_format = suggested_format(x)   # a channels-last input gives a channels-last result (as in ATen)
        out = x
        xp = namespace(x)
        for axis, idx, w in reversed(taps):
            out = _along(out, axis, idx, w)
            if x.dtype.kind == "u":   # uint8 images: PyTorch's kernel rounds each pass to 0..255, halves up
                out = xp.clip(xp.floor(out + 0.5), 0, 255)
        ctx.taps, ctx.in_shape = taps, in_shape
        if out is x:
            out = x.copy()
        # (float16/bfloat16 weighed in float32, rounded once)
        return in_format(out.astype(x.dtype, copy=False), memory_format)

    @staticmethod
    def backward(ctx, grad):
        dt = grad._data.dtype
        mats = tuple((axis, _matrix(idx, w, ctx.in_shape[axis], dt)) for axis, idx, w in ctx.taps)
        function = type(ctx)._function
        # ATen's backward kernels of these modes give a channels-last gradient a channels-last result; the
        # others (bicubic, 3-d nearest, ...) a contiguous one
        keeps = function.__name__ in ("UpsampleNearest2D", "UpsampleNearestExact2D", "UpsampleBilinear2D",
                                      "UpsampleBilinear2DAa", "UpsampleTrilinear3D")
        memory_format = suggested_format(grad._data) if keeps else "contiguous_format"
        return _UPSAMPLE_GRADS[function].apply(grad, mats, memory_format), None


_UPSAMPLE_CLASSES = {}
_UPSAMPLE_GRADS = {}


def _upsample_class(name):
    cls = _UPSAMPLE_CLASSES.get(name)
    if cls is None:
        cls = _UPSAMPLE_CLASSES[name] = type(name, (_Upsample,), {"node_name": name + "Backward0",
                                                                  "__module__": __name__})
        grad_cls = type(name + "Backward", (_UpsampleGrad,), {"node_name": name + "BackwardBackward0",
                                                             "__module__": __name__})
        _UPSAMPLE_GRADS[cls] = grad_cls
    return cls


# ====================================================================== interpolate

def _is_integer(x):
    if isinstance(x, (numbers.Integral, np.integer)):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


_DIM_NAMES = {1: "W", 2: "HW", 3: "DHW"}


def _check_sizes(in_sizes, out_sizes):
    if all(s > 0 for s in in_sizes) and all(s > 0 for s in out_sizes):
        return
    names = _DIM_NAMES[len(in_sizes)]
    ins = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sizes))
    outs = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sizes))
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) output ({outs})")


def _check_resample_dtype(dt, mode, nsp, antialias):
    """PyTorch's CPU kernels take floats, and uint8 for the nearest modes and 2-d bilinear/bicubic (image
    resizing); float16 has no antialiased kernel.  The refusal names the kernel that lacks the dtype."""
    floating = dt.kind == "f" or dt.kind == "V"
    if floating and not (antialias and dt.itemsize == 2) or dt == np.uint8 and (
            mode in ("nearest", "nearest-exact") or mode in ("bilinear", "bicubic") and nsp == 2):
        return
    if antialias:
        kernel = "compute_index_ranges_weights"
    elif mode in ("nearest", "nearest-exact"):
        kernel = "upsample_nearest2d_channels_last" if nsp == 2 else "compute_indices_weights_nearest"
    else:
        kernel = {"bilinear": "upsample_bilinear2d_channels_last", "bicubic": "compute_indices_weights_cubic"}.get(
            mode, "compute_indices_weights_linear")
    raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(dt)}\'')


def _resample(input, mode, output_size, scale_factors, align_corners, antialias):
    """The C++ half of interpolate: output sizes, taps per dim, one op."""
    x = input
    nsp = x.dim() - 2
    in_sizes = list(x.shape[2:])
    if output_size is None:
        out_sizes = [int(math.floor(float(s) * sc)) for s, sc in zip(in_sizes, scale_factors)]
        scales = list(scale_factors)
    else:
        out_sizes = [int(s) for s in output_size]
        scales = [None] * nsp
    _check_sizes(in_sizes, out_sizes)
    _check_resample_dtype(x._data.dtype, mode, nsp, antialias)
    dt = _opmath(x._data)
    xp = namespace(x._data)   # the tap tables are made on the input's device
    taps = []
    for k in range(nsp):
        i, o, sc = in_sizes[k], out_sizes[k], scales[k]
        if mode in ("nearest", "nearest-exact"):
            idx, w = _taps_nearest(i, o, sc, mode == "nearest-exact", xp)
        elif antialias:
            if mode == "bilinear":
                idx, w = _taps_aa(i, o, align_corners, sc, dt, 2, _aa_bilinear, xp)
            elif mode == "lanczos":
                idx, w = _taps_aa(i, o, align_corners, sc, dt, 6, _aa_lanczos, xp)
            else:
                idx, w = _taps_aa(i, o, align_corners, sc, dt, 4, _aa_bicubic, xp)
        elif mode == "bicubic":
            idx, w = _taps_cubic(i, o, align_corners, sc, dt, xp)
        else:
            idx, w = _taps_linear(i, o, align_corners, sc, dt, xp)
        taps.append((2 + k, idx, w))
    if mode == "nearest":
        name = f"UpsampleNearest{nsp}D"
    elif mode == "nearest-exact":
        name = f"UpsampleNearestExact{nsp}D"
    else:
        name = {"linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D", "bicubic": "UpsampleBicubic2D",
                "trilinear": "UpsampleTrilinear3D", "lanczos": "UpsampleLanczos2D"}[mode] + ("Aa" if antialias else "")
    return _upsample_class(name).apply(x, tuple(taps))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *) by ``size`` or ``scale_factor`` (modes: nearest, nearest-exact,
    linear, bilinear, bicubic, trilinear, area; ``antialias`` for bilinear/bicubic, and lanczos which needs it)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size) for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                                 "format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor) for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    nd = input.dim()
    if mode == "area" and nd in (3, 4, 5):
        # PyTorch's interpolate calls the adaptive average pooling: its checks, its mean shortcut, its layout
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 3](input, output_size)
    if mode in ("nearest", "nearest-exact") and nd in (3, 4, 5):
        return _resample(input, mode, output_size, scale_factors, None, False)
    if (nd, mode) in ((3, "linear"), (4, "bilinear"), (5, "trilinear"), (4, "bicubic")):
        return _resample(input, mode, output_size, scale_factors, align_corners, antialias)
    if nd == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _resample(input, mode, output_size, scale_factors, align_corners, antialias)
    for d, m, need in ((3, "bilinear", 4), (3, "trilinear", 5), (4, "linear", 3), (4, "trilinear", 5),
                       (5, "linear", 3), (5, "bilinear", 4)):
        if nd == d and mode == m:
            raise NotImplementedError(f"Got {d}D input, but {m} mode needs {need}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
                              f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
                              f"(got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=user_stacklevel())
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=user_stacklevel())
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=user_stacklevel())
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ====================================================================== pixel shuffle

class PixelShuffle(ArrayFunction):
    """(*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = x[c r^2 + i r + j, h, w];
    dx = pixel_unshuffle(grad)"""
    node_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        *b, C, H, W = x.shape
        c = C // (r * r)
        n = len(b)
        y = x.reshape(*b, c, r, r, H, W)
        y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
        return namespace(y).ascontiguousarray(y).reshape(*b, c, H * r, W * r)

    @staticmethod
    def backward(ctx, grad):
        return PixelUnshuffle.apply(grad, ctx.r), None


class PixelUnshuffle(ArrayFunction):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle;  dx = pixel_shuffle(grad)"""
    node_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        *b, C, H, W = x.shape
        h, w = H // r, W // r
        n = len(b)
        y = x.reshape(*b, C, h, r, w, r)
        y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
        return namespace(y).ascontiguousarray(y).reshape(*b, C * r * r, h, w)

    @staticmethod
    def backward(ctx, grad):
        return PixelShuffle.apply(grad, ctx.r), None


def pixel_shuffle(input, upscale_factor):
    """Rearrange (*, C r^2, H, W) into (*, C, H r, W r)."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return PixelShuffle.apply(input, r)


def pixel_unshuffle(input, downscale_factor):
    """Rearrange (*, C, H r, W r) into (*, C r^2, H, W)."""
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input.shape[-2], input.shape[-1]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    return PixelUnshuffle.apply(input, r)


class ChannelShuffle(ArrayFunction):
    """(N, g * k, *) -> (N, k * g, *): channel i * k + j moves to j * g + i;  dx = the inverse shuffle, which is
    channel_shuffle(grad, k)"""
    node_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, groups):
        ctx.groups = groups
        n, c = x.shape[:2]
        y = namespace(x).swapaxes(x.reshape((n, groups, c // groups) + x.shape[2:]), 1, 2).reshape(x.shape)
        return in_format(y, suggested_format(x))   # a channels-last input gives a channels-last result

    @staticmethod
    def backward(ctx, grad):
        return ChannelShuffle.apply(grad, grad.shape[1] // ctx.groups), None


def channel_shuffle(input, groups):
    """Split the C channels of (N, C, *) into ``groups`` groups and interleave them (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{shape_str(input.shape)}")
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return ChannelShuffle.apply(input, groups)


def native_channel_shuffle(input, groups):
    """channel_shuffle as ATen's native op (PyTorch gives it no gradient formula; here it has the same one)."""
    return channel_shuffle(input, groups)


# ====================================================================== grid_sample, affine_grid
#
# grid_sample reads input at the points of a grid in [-1, 1] coordinates.  Per spatial axis, with
# u = the unnormalised coordinate ((g + 1) / 2 * (size - 1) with align_corners, else ((g + 1) * size - 1) / 2):
#   bilinear/nearest: i = padding(u) (border: clip; reflection: reflect then clip), written i = s * u + o with
#                     s in {0, 1, -1} and o constant; taps floor(i), floor(i) + 1 (or rint(i)), weights 1 - t, t
#   bicubic:          taps floor(u) - 1 ... floor(u) + 2, each tap index padded; Keys' cubic weights of t
# A corner (one tap per axis) contributes prod(weights) * input[corner] when it lies inside the input.
# The backward is that sum's vector-Jacobian product written in Tensor ops (so it is differentiable again).

def _reflect(c, twice_low, twice_high):
    xp = namespace(c)
    if twice_low == twice_high:
        return xp.zeros_like(c)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = xp.abs(c - lo)
    extra = xp.fmod(c, span)
    flips = xp.floor(c / span)
    return xp.where(flips % 2 == 0, extra + lo, span - extra + lo).astype(c.dtype)


def _pad_coord(c, size, padding, align_corners):
    xp = namespace(c)
    if padding == "border":
        return xp.clip(c, 0, size - 1)
    if padding == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        return xp.clip(c, 0, size - 1)
    return c


def _cubic_weights(t):
    A = -0.75
    c0, c1 = _cc2(t + 1, A), _cc1(t, A)
    c2, c3 = _cc1(1 - t, A), _cc2((1 - t) + 1, A)
    return [c0, c1, c2, c3]


def _cubic_dweights(t):
    A = -0.75

    def d1(x):
        return (3 * (A + 2)) * x * x - (2 * (A + 3)) * x

    def d2(x):
        return (3 * A) * x * x - (10 * A) * x + 8 * A

    return [d2(t + 1), d1(t), -d1(1 - t), -d2((1 - t) + 1)]


def _gs_taps(g, size, mode, padding, align_corners):
    """Taps of one axis: (index array, in-bounds mask, weight Tensor, d weight / d g Tensor or None)."""
    dt = g._data.dtype.type
    if align_corners:
        u = (g + 1) / 2 * (size - 1)
        du = (size - 1) / 2
    else:
        u = ((g + 1) * size - 1) / 2
        du = size / 2
    ud = u._data
    xp = namespace(ud)
    if mode == "bicubic":
        fl = xp.floor(ud)
        t = u - Tensor._make(fl)
        taps = []
        for j, (w, dw) in enumerate(zip(_cubic_weights(t), _cubic_dweights(t))):
            c = _pad_coord(fl - 1 + j, size, padding, align_corners)
            idx = c.astype(np.int64)
            valid = (c >= 0) & (c <= size - 1) if padding == "zeros" else xp.ones(c.shape, bool)
            taps.append((xp.clip(idx, 0, size - 1), valid, w, dw * du))
        return taps
    c = _pad_coord(ud, size, padding, align_corners)
    if padding == "zeros":
        i = u
        s = None
    else:
        if padding == "border":
            s = ((ud >= 0) & (ud <= size - 1)).astype(ud.dtype)
        else:   # the slope of the reflected coordinate: +-1 by the parity of the reflections, 0 where clipped
            lo, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
            if span > 0:
                flips = xp.floor(xp.abs(ud - lo) / span)
                sign_in = xp.where(ud - lo >= 0, 1, -1)
                s = xp.where(flips % 2 == 0, sign_in, -sign_in)
                raw = _reflect(ud, 0, 2 * (size - 1)) if align_corners else _reflect(ud, -1, 2 * size - 1)
                s = xp.where((raw < 0) | (raw > size - 1), 0, s).astype(ud.dtype)
            else:
                s = xp.zeros_like(ud)
        i = mul(u, Tensor._make(s)) + Tensor._make((c - s * ud).astype(ud.dtype))
    if mode == "nearest":
        idx = xp.rint(c).astype(np.int64)
        valid = (idx >= 0) & (idx <= size - 1)
        return [(xp.clip(idx, 0, size - 1), valid, None, None)]
    fl = xp.floor(c)
    t = i - Tensor._make(fl.astype(ud.dtype))
    slope = du if s is None else Tensor._make(s * dt(du))
    taps = []
    for j, (w, sign) in enumerate(((1 - t, -1.0), (t, 1.0))):
        idx = fl.astype(np.int64) + j
        valid = (idx >= 0) & (idx <= size - 1)
        taps.append((xp.clip(idx, 0, size - 1), valid, w, slope * sign))
    return taps


def _gs_corners(x, grid, mode, padding, align_corners):
    """Flat row indices into x seen as (N * prod(spatial), C), in-bounds masks and per-axis taps."""
    import itertools
    N, C = x.shape[0], x.shape[1]
    sizes = list(x.shape[2:])            # (H, W) or (D, H, W)
    nd = len(sizes)
    xp = namespace(x._data)
    axis_taps = []                        # x (W) first, then y (H), then z (D)
    for a in range(nd):
        size = sizes[nd - 1 - a]
        axis_taps.append(_gs_taps(grid.select(-1, a), size, mode, padding, align_corners))
    strides = [1] * nd                    # of W, H, D in the flattened spatial index
    for a in range(1, nd):
        strides[a] = strides[a - 1] * sizes[nd - a]
    base = (xp.arange(N) * math.prod(sizes)).reshape((N,) + (1,) * nd)
    corners = []
    # torch's order: outermost axis (z, then y) slowest, x fastest
    for combo in itertools.product(*[range(len(t)) for t in reversed(axis_taps)]):
        ks = list(reversed(combo))        # tap number per axis, x first
        flat = base
        valid = True
        for a, k in enumerate(ks):
            idx, v, _, _ = axis_taps[a][k]
            flat = flat + idx * strides[a]
            valid = valid & v
        corners.append((ks, flat.reshape(-1), xp.broadcast_to(valid, flat.shape).reshape(-1)))
    return axis_taps, corners


def _gs_weight(axis_taps, ks, skip=None):
    w = None
    for a, k in enumerate(ks):
        if a == skip:
            continue
        t = axis_taps[a][k][2]
        if t is None:
            continue
        w = t if w is None else w * t
    return w


def _gs_rows(x):
    """x (N, C, *spatial) as rows (N * prod(spatial), C)."""
    nd = x.dim()
    return x.permute(0, *range(2, nd), 1).reshape(-1, x.shape[1])


def _gs_compute(x, grid, mode, padding, align_corners):
    rows = _gs_rows(x)
    axis_taps, corners = _gs_corners(x, grid, mode, padding, align_corners)
    out = None
    M = corners[0][1].shape[0]
    for ks, flat, valid in corners:
        w = _gs_weight(axis_taps, ks)
        wv = Tensor._make(valid.astype(x._data.dtype))
        w = wv if w is None else w.reshape(-1) * wv
        term = rows.index_select(0, Tensor._make(flat)) * w.reshape(M, 1)
        out = term if out is None else out + term
    out_sp = list(grid.shape[1:-1])
    nd = x.dim()
    return out.reshape(x.shape[0], *out_sp, x.shape[1]).permute(0, nd - 1, *range(1, nd - 1))


class _GridSampler(ArrayFunction):
    """out[n, c, p] = sum over corners of prod(axis weights) * input[n, c, corner] (see above);
    dinput: the weighted grad added back into the corners; dgrid: d weights / d grid times <grad, input>"""
    # ATen allocates the result contiguous: c10's strides even on a size-1 dim (with C = 1 the permuted rows
    # keep stride 1 there, which reads as channels_last and makes a later conv's result channels_last)
    _result_format = "contiguous_format"

    @staticmethod
    def forward(ctx, x, grid, mode, padding, align_corners):
        ctx.mode, ctx.padding, ctx.align_corners = mode, padding, align_corners
        ctx.save_for_backward(x, grid)
        with no_grad():
            out = _gs_compute(Tensor._make(x), Tensor._make(grid), mode, padding, align_corners)
        return out._data

    @staticmethod
    def backward(ctx, grad):
        x, grid = ctx.saved_tensors
        need = ctx.needs_input_grad
        nd = x.dim()
        axis_taps, corners = _gs_corners(x, grid, ctx.mode, ctx.padding, ctx.align_corners)
        G = grad.permute(0, *range(2, nd), 1).reshape(-1, x.shape[1])      # (M, C)
        M = G.shape[0]
        rows = _gs_rows(x) if need[1] else None
        gx = zeros(rows.shape if rows is not None else (x.numel() // x.shape[1], x.shape[1]), dtype=x.dtype,
                   device=x.device) \
            if need[0] else None
        du = [None] * (nd - 2)
        for ks, flat, valid in corners:
            ft = Tensor._make(flat)
            vt = Tensor._make(valid.astype(x._data.dtype))
            w = _gs_weight(axis_taps, ks)
            wv = vt if w is None else w.reshape(-1) * vt
            if need[0]:
                gx = gx.index_add(0, ft, G * wv.reshape(M, 1))
            if need[1] and ctx.mode != "nearest":
                dW = (G * rows.index_select(0, ft)).sum(-1) * vt
                for a, k in enumerate(ks):
                    other = _gs_weight(axis_taps, ks, skip=a)
                    dw = axis_taps[a][k][3]
                    dw = dw.reshape(-1) if isinstance(dw, Tensor) else dw
                    term = dW * dw if other is None else dW * (other.reshape(-1) * dw)
                    du[a] = term if du[a] is None else du[a] + term
        if gx is not None:
            sp = list(x.shape[2:])
            gx = gx.reshape(x.shape[0], *sp, x.shape[1]).permute(0, nd - 1, *range(1, nd - 1))
            gx = gx.clone(memory_format=contiguous_format)   # PyTorch's grad_input is contiguous too
        ggrid = None
        if need[1]:
            if ctx.mode == "nearest":
                ggrid = grid * 0
            else:
                ggrid = stack([d.reshape(grid.shape[:-1]) for d in du], -1)
        return gx, ggrid, None, None, None


class GridSampler2D(_GridSampler):
    node_name = "GridSampler2DBackward0"


class GridSampler3D(_GridSampler):
    node_name = "GridSampler3DBackward0"


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, H, W) / (N, C, D, H, W) at grid (N, Ho, Wo, 2) / (N, Do, Ho, Wo, 3) in [-1, 1]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=user_stacklevel())
        align_corners = False
    input, grid = before_checks(GridSampler3D if input.dim() == 5 else GridSampler2D, input, grid)   # (autocast)
    if input._data.dtype != grid._data.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(input._data.dtype)} but found "
                           f"{_type_word(grid._data.dtype)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {shape_str(input.shape)} and grid with sizes {shape_str(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {shape_str(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {shape_str(input.shape)} with dimension {i} being empty")
    if input.dim() == 4 and grid.dim() == 4:
        return GridSampler2D.apply(input, grid, mode, padding_mode, bool(align_corners))
    if input.dim() == 5 and grid.dim() == 5:
        if mode == "bicubic":
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        return GridSampler3D.apply(input, grid, mode, padding_mode, bool(align_corners))
    k = 4 if input.dim() == 4 else 5
    raise RuntimeError(f"grid_sampler(): expected {k}D input and grid with same number of dimensions, but got input "
                       f"with sizes {shape_str(input.shape)} and grid with sizes {shape_str(grid.shape)}")


def _linspace_from_neg_one(n, align_corners, dtype, device=None):
    if n <= 1:
        return tensor(0, dtype=dtype, device=device)
    r = linspace(-1, 1, n, dtype=dtype, device=device)
    if not align_corners:
        r = r * (n - 1) / n
    return r


class AffineGridGenerator(ArrayFunction):
    """grid = base @ theta^T with base rows (x, y[, z], 1) on [-1, 1];  dtheta = grad^T @ base"""
    node_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, base):
        N = theta.shape[0]
        sp = base.shape[:-1]
        ctx.save_for_backward(base)
        xp = namespace(theta)
        dt = _opmath(theta)   # (float16/bfloat16: a bmm accumulating in float32, rounded once)
        out = xp.matmul(base.reshape(1, -1, base.shape[-1]).astype(dt), xp.swapaxes(theta, 1, 2).astype(dt))
        return out.astype(theta.dtype, copy=False).reshape((N,) + sp + (theta.shape[1],))

    @staticmethod
    def backward(ctx, grad):
        base, = ctx.saved_tensors
        N, k = grad.shape[0], grad.shape[-1]
        g = grad.reshape(N, -1, k)
        return g.mT.matmul(base.reshape(-1, base.shape[-1])), None


def affine_grid(theta, size, align_corners=None):
    """Sampling grid (N, H, W, 2) / (N, D, H, W, 3) of the affine maps theta (N, 2, 3) / (N, 3, 4)."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=user_stacklevel())
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=user_stacklevel())
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        k = theta.shape[-1]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {k}] but got: "
                           f"[{theta.shape[0]}, {k}].")
    dt = theta._data.dtype
    sp = spatial_size
    nd = len(sp)
    xp = namespace(theta._data)
    base = xp.empty(tuple(sp) + (nd + 1,), dtype=dt)
    for a in range(nd):       # x varies along the last spatial dim, y along the one before, ...
        lin = _linspace_from_neg_one(sp[nd - 1 - a], align_corners, theta.dtype, theta.device)._data
        shape = [1] * nd
        if lin.ndim:
            shape[nd - 1 - a] = lin.shape[0]
        base[..., a] = lin.reshape(shape)
    base[..., nd] = 1
    return AffineGridGenerator.apply(theta, base)
