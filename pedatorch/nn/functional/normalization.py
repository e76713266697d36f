"""Normalization: ``batch_norm``, ``instance_norm``, ``layer_norm``, ``group_norm``, ``rms_norm``,
``local_response_norm``, ``normalize``.

batch/layer/group norm share one recipe: over a set of reduction axes R,

    mean = E_R[x],   var = E_R[(x - mean)^2] (biased),   rstd = 1 / sqrt(var + eps)
    xhat = (x - mean) * rstd,   out = xhat * w + b

and one closed-form backward (gw = grad * w, N = |R|):

    dx = rstd * (gw - E_R[gw] - xhat * E_R[gw * xhat])
    dw = sum(grad * xhat) over the axes w is broadcast along,   db = sum(grad) likewise

Each is one ``ArrayFunction`` with PyTorch's node name (``NativeBatchNormBackward0`` ...).  The backward
is written in Tensor ops; when it is itself recorded (``create_graph=True``), mean and rstd are recomputed
from the input tensor so that the second derivative sees them as the functions of x they are.  When no graph
is recorded (the usual ``loss.backward()``), the same formulas run directly on the arrays (``_backward_np``),
with fewer temporaries: these layers sit in every training step.
"""
import math
import numbers

import numpy as np

from ..._tensor import Tensor, contiguous_format, channels_last, channels_last_3d
from ..._layout import suggested_format, in_format, is_in_format
from ...autograd.function import ArrayFunction, active_modes
from ...backend import namespace, on_host
from ...autograd.grad_mode import _state, no_grad
from ...ops._util import shape_str, check_kernel_dtype, _type_word
from ..._dtype import to_opmath, opmath_np, is_inexact_np
from ...ops.scalar import AddScalar as _AddScalar
from ...ops.creation import _fused

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "local_response_norm",
           "normalize"]


def _acc(dt):
    """The accumulation dtype of the statistics (PyTorch's CPU acc_type: double for float)."""
    return np.float64 if dt in (np.float32, np.float64) else np.float32


def _fused_multiply_add(x, alpha, beta):
    """x * alpha + beta rounded once, as the vectorized fmadd of PyTorch's CPU batch norm: for a constant
    channel (x == mean) its result is the rounding error of mean * alpha, not 0.  A float32 product is
    exact in float64.  In float64 the product's rounding error is recovered exactly (Dekker's split of
    each factor into halves of 26 bits) and added last: exact for a constant channel, within an ulp
    of the fused result elsewhere."""
    if x.dtype == np.float32:
        return (x.astype(np.float64) * alpha + beta).astype(np.float32)
    if x.dtype != np.float64:
        return x * alpha + beta
    xp = namespace(x)
    with np.errstate(over="ignore", invalid="ignore"):
        product = x * alpha
        xh, xl = _split_double(x)
        ah, al = _split_double(alpha)
        error = ((xh * ah - product) + xh * al + xl * ah) + xl * al   # x * alpha - product, exactly
        plain = product + beta
        fused = plain + error
    return xp.where(xp.isfinite(fused), fused, plain)   # (huge or non-finite values: the split overflows)


def _half_batch_stats(mean, var_sum, n, eps, momentum, rm, rv, stat_dtype):
    """Update the running statistics of a contiguous bfloat16 batch as ATen's kernel does: it stores the
    mean and the sum of squares in the statistics' dtype (``stat_dtype``, float32 for float32 parameters),
    and its arithmetic on values of that dtype rounds after each step (c10::BFloat16's operators), with
    momentum rounded to it too."""
    s = stat_dtype.type
    m, mean_r, var_sum_r = s(momentum), mean.astype(stat_dtype), var_sum.astype(stat_dtype)
    if rm is not None:
        rm[...] = m * mean_r + (s(1) - m) * rm
    if rv is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = (var_sum_r / s(n - 1)).astype(np.float32)   # read as a float32 (accscalar_t) ...
        rv[...] = (np.float32(m) * unbiased + ((s(1) - m) * rv).astype(np.float32)).astype(rv.dtype)  # ... mixed in float32


def _float_batch_stats(mean, var_sum, n, momentum, rm, rv):
    """The variance of a contiguous float32 batch (with more than one value per sample and channel), and
    the running statistics' update, as ATen's kernel computes them: it keeps the mean and the sum of
    squares as floats and divides in float; the running mean is updated in float arithmetic, the
    running variance in double from the float unbiased variance. Returns the biased variance."""
    f32 = np.float32
    mean, var_sum, m = mean.astype(f32), var_sum.astype(f32), f32(momentum)
    if rm is not None:
        rm[...] = m * mean + (f32(1) - m) * rm.astype(f32)
    if rv is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = (var_sum / f32(n - 1)).astype(np.float64)
        rv[...] = np.float64(m) * unbiased + ((f32(1) - m) * rv.astype(f32)).astype(np.float64)
    return (var_sum / f32(n)).astype(np.float64)


def _half_loop_backward(g, x, w, mean, rstd, axes, training):
    """(dx, dw, db) as ATen's batch norm backward loop computes them for float16/bfloat16 data when the input
    or the gradient is in another layout.  Its C++ arithmetic: two half operands give a half (c10::Half's and
    BFloat16's operators round each step), a half and a float parameter give a float (numpy's float16 and
    ml_dtypes' bfloat16 arrays promote alike).  ``mean``/``rstd`` come in the parameters' dtype (the data's,
    or float32).  The dot product accumulates in float, one element after another.
      training: k = dotp * rstd * rstd / n,  dx = (g - sum(g) / n - (x - mean) * k) * rstd * w
      eval:     dx = g * rstd * w
    dw = dotp * rstd, db = sum(g) (at::sum, in the data's dtype)."""
    xp = namespace(g)
    dt, pdt = x.dtype, mean.dtype
    C = x.shape[1]
    n = x.size // C if C else 0
    prod = (x - mean) * g
    rows = xp.moveaxis(prod, 1, 0).reshape(C, -1).astype(np.float32)
    dotp = (xp.cumsum(rows, axis=1)[:, -1] if n else xp.zeros(C, np.float32)).reshape(mean.shape)
    g_sum = xp.sum(g, axis=axes, keepdims=True, dtype=np.float32).astype(dt)
    if training:
        k = (dotp.astype(dt) * rstd * rstd / pdt.type(n)).astype(dt)
        dx = (g - g_sum / dt.type(n) - ((x - mean) * k).astype(dt)) * rstd
    else:
        dx = g * rstd
    if w is not None:
        dx = dx * w.astype(pdt).reshape(mean.shape)
    if dt == np.float16 and pdt == np.float32:   # (measured: then db is the float sum, not rounded to half)
        g_sum = xp.sum(g, axis=axes, dtype=np.float32)
    return dx.astype(dt), (dotp * rstd.astype(np.float32)).reshape(-1).astype(pdt), g_sum.reshape(-1).astype(pdt)


def _all_contiguous(x, *params):
    """ATen's test for its vectorized batch norm kernel: the input contiguous (or channels-last), each
    parameter given contiguous."""
    strides = [st // x.itemsize for st in x.strides]
    formats = ("contiguous_format",) + {4: ("channels_last",), 5: ("channels_last_3d",)}.get(x.ndim, ())
    if not any(is_in_format(x.shape, strides, f) for f in formats):
        return False
    return all(p is None or p.size <= 1 or p.strides[0] == p.itemsize for p in params)


def _split_double(v):
    """v = hi + lo with hi, lo of 26 significant bits each (Veltkamp): their products are exact."""
    t = v * 134217729.0   # 2**27 + 1
    hi = t - (t - v)
    return hi, v - hi


def _recomputed_stats(x, axes, eps):
    """mean and rstd as Tensor functions of x (for a differentiable backward)."""
    mean = x.mean(axes, keepdim=True)
    d = x - mean
    return mean, ((d * d).mean(axes, keepdim=True) + eps).rsqrt()


def _backward_stats(x, axes, eps):
    """(x, mean, rstd) for the recorded backward.  float16/bfloat16 work in float32, with mean and rstd
    rounded to the input's dtype as PyTorch's saved statistics are (see ``_saved_stats``); the rounding is
    added as a constant, so the derivative is still that of the exact statistics."""
    if opmath_np(x._data.dtype) == x._data.dtype:
        return (x,) + _recomputed_stats(x, axes, eps)
    x32 = x.float()
    mean, rstd = _recomputed_stats(x32, axes, eps)
    return (x32,) + tuple(s + (s.detach().to(x.dtype).float() - s.detach()) for s in (mean, rstd))


def _normalized_grad(gw, xhat, rstd, axes):
    """dx = rstd * (gw - E[gw] - xhat * E[gw * xhat]) over ``axes``."""
    return rstd * (gw - gw.mean(axes, keepdim=True) - xhat * (gw * xhat).mean(axes, keepdim=True))


def _rows_dot(a, b):
    """sum(a * b) over the last axis of two (R, n) arrays."""
    xp = namespace(a)
    return xp.einsum("ij,ij->i", a, b)


def _saved_stats(x_in, x, mean, rstd, xhat):
    """The (xhat, rstd) a backward kernel uses.  For float16/bfloat16 PyTorch saves mean and rstd in the
    input's dtype, and its backward works from those rounded values: its xhat no longer has exactly zero
    mean and unit variance, so its gradient is off by a rounding error that can be large where the exact
    terms cancel.  Recomputing xhat from the rounded statistics gives the same numbers."""
    if x_in.dtype == x.dtype:
        return xhat, rstd
    mean, rstd = (a.astype(x_in.dtype).astype(x.dtype) for a in (mean, rstd))
    return (x - mean) * rstd, rstd


def _wrap(arr):
    xp = namespace(arr)
    return Tensor._make(xp.ascontiguousarray(arr))


# ====================================================================== batch norm

class NativeBatchNorm(ArrayFunction):
    """Training: per channel c over (N, *): xhat = (x - mean) * rstd with the biased batch variance;
    running stats <- (1 - momentum) * running + momentum * (mean, unbiased var).
    Evaluation: xhat = (x - running_mean) / sqrt(running_var + eps).  out = xhat * w + b.
    dx (training) = rstd * (gw - E[gw] - xhat * E[gw * xhat]);  dx (eval) = grad * w * rstd;
    dw = sum(grad * xhat), db = sum(grad) over (N, *)."""
    node_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, rm, rv, training, momentum, eps):
        xp = namespace(x)
        out_dtype = x.dtype
        x_in, w_in, b_in = x, w, b
        x, w, b = to_opmath(x), to_opmath(w), to_opmath(b)  # half precision in float32
        C = x.shape[1]
        axes = (0,) + tuple(range(2, x.ndim))
        bshape = (1, C) + (1,) * (x.ndim - 2)
        n = x.size // C if C else 0
        acc = _acc(x.dtype)
        fused = _all_contiguous(x_in, w, b, rm, rv)
        if training and not fused and x_in.dtype == np.float32 and x.size:
            # other layouts: ATen's statistics start from at::mean(input), summed in float32
            mean = xp.sum(x, axis=axes, dtype=np.float32) / np.float32(n)
        elif training and x.size and x_in.dtype == x.dtype and x.flags.c_contiguous:
            # ATen's contiguous kernel sums each channel in memory order, one element after another (numpy's
            # pairwise sum can differ by an ulp, which a constant channel's tiny variance magnifies)
            rows = xp.moveaxis(x.reshape(x.shape[0], C, -1), 1, 0).reshape(C, -1)
            mean = xp.cumsum(rows, axis=1, dtype=acc)[:, -1] / n
        elif training and x.size:
            # the mean of a constant channel exactly that value, as PyTorch's (numpy's pairwise sum / n can
            # be an ulp off, which the normalization magnifies): shifted by a first element
            first = x[(slice(0, 1), slice(None)) + (slice(0, 1),) * (x.ndim - 2)].astype(acc)
            first = xp.where(xp.isfinite(first), first, 0)
            mean = (xp.mean(x - first, axis=axes, dtype=acc, keepdims=True) + first).reshape(C)
        elif training:
            mean = xp.mean(x, axis=axes, dtype=acc)   # (nan: no element)
        stat_dtype = None
        if training and x_in.dtype != x.dtype:
            # float16/bfloat16: PyTorch keeps the batch statistics in the parameters' dtype (the input's
            # when none is given) and normalizes with those rounded values
            params = [p for p in (w_in, rm, rv) if p is not None]
            stat_dtype = params[0].dtype if params else x_in.dtype
            if not _all_contiguous(x_in):   # other layouts: the variance is taken around at::mean's rounded mean
                mean = mean.astype(stat_dtype).astype(acc)
        if training:
            d = x - mean.astype(x.dtype).reshape(bshape)
            var_sum = xp.sum(xp.square(d), axis=axes, dtype=acc)
            # a contiguous bfloat16 batch: ATen's kernel rounds the sum of squares and var_sum / n to the
            # statistics' dtype (measured: its float16 kernel keeps them in float32, as the else branch)
            if stat_dtype is not None and x_in.dtype.name == "bfloat16" and _all_contiguous(x_in):
                _half_batch_stats(mean, var_sum, n, eps, momentum, rm, rv, stat_dtype)
                var = (var_sum.astype(stat_dtype) / stat_dtype.type(n)).astype(acc)
            elif x_in.dtype == np.float32 and fused and x_in.flags.c_contiguous and n != x.shape[0] and on_host(x):
                var = _float_batch_stats(mean, var_sum, n, momentum, rm, rv)
            else:
                var = var_sum / n
                if rm is not None:
                    rm[...] = (momentum * mean + (1 - momentum) * rm.astype(acc)).astype(rm.dtype)
                if rv is not None:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        unbiased = var_sum / (n - 1)
                    rv[...] = (momentum * unbiased + (1 - momentum) * rv.astype(acc)).astype(rv.dtype)
            rstd = 1.0 / xp.sqrt(var + eps)
        elif x_in.dtype == np.float32 and rv.dtype == np.float32 and on_host(x):   # ATen's CPU kernel: in float
            mean = rm.astype(acc)
            rstd = (np.float32(1) / xp.sqrt(rv + np.float32(eps))).astype(acc)
        else:
            mean = rm.astype(acc)
            rstd = 1.0 / xp.sqrt(rv.astype(acc) + eps)
        # evaluation in another layout with float16/bfloat16 data and parameters: ATen's loop takes
        # 1 / sqrt(running_var + eps) as three tensor ops in that dtype, then rounds after each step below
        eval_steps = not training and not fused and x_in.dtype != x.dtype and all(
            p.dtype == x_in.dtype for p in (w_in, b_in, rm, rv) if p is not None)
        if eval_steps:
            half = lambda a: a.astype(x_in.dtype).astype(x.dtype)
            rstd = half(x.dtype.type(1) / half(xp.sqrt(half(rv.astype(x.dtype) + x.dtype.type(eps)))))
        if stat_dtype is not None:
            mean, rstd = mean.astype(stat_dtype), rstd.astype(stat_dtype)
        mean_b = mean.astype(x.dtype).reshape(bshape)
        rstd_b = rstd.astype(x.dtype).reshape(bshape)
        if fused:
            # ATen's vectorized kernel: alpha = rstd * w, beta = b - mean * alpha, out = fmadd(x, alpha, beta)
            alpha = rstd_b if w is None else rstd_b * w.reshape(bshape)
            if b is None:
                beta = -mean_b * alpha
            elif x_in.dtype == x.dtype and on_host(x):   # (the C++ compiler fuses b - mean * alpha into one fma)
                beta = _fused(-mean_b, alpha, b.reshape(bshape), x.dtype)
            else:
                beta = b.reshape(bshape) - mean_b * alpha
            # (for float16/bfloat16 data it converts to float32 and multiplies, then adds: not fused)
            out = _fused_multiply_add(x, alpha, beta) if x_in.dtype == x.dtype else x * alpha + beta
        else:   # ATen's elementwise loop for other layouts: ((x - mean) * rstd) * w + b, w = 1 and b = 0 if absent
            # (float16/bfloat16 statistics: c10::Half's and BFloat16's operators round after each step)
            step = (lambda a: a.astype(x_in.dtype).astype(x.dtype)) if eval_steps or (
                stat_dtype is not None and stat_dtype == x_in.dtype) else (lambda a: a)
            with np.errstate(invalid="ignore", over="ignore"):
                out = step(step(step(x - mean_b) * rstd_b) * (w.reshape(bshape) if w is not None else 1)) + (
                    b.reshape(bshape) if b is not None else 0)
        ctx.training, ctx.eps, ctx.axes, ctx.bshape = training, eps, axes, bshape
        # float16/bfloat16 parameters (see _half_loop_backward); "is not None" first: numpy reads None as float64
        ctx.half_steps = stat_dtype is not None and stat_dtype == x_in.dtype
        # the parameters' dtype in ATen's backward loop for float16/bfloat16 data (float32 if any is float32)
        ctx.loop_dtype = None if x_in.dtype == x.dtype else (
            np.dtype(np.float32) if any(p.dtype == np.float32 for p in (w_in, rm, rv) if p is not None) else x_in.dtype)
        ctx.has_w = w is not None
        # what PyTorch saves (input, weight, running stats, batch stats): an in-place write to any of them
        # afterwards is an error, even where this backward reads only the statistics derived from them
        ctx.save_for_backward(x_in, w_in, mean_b, rstd_b, rm, rv)
        # ATen's result: for the fused kernel contiguous when the input is (even one channels-last too, as
        # size-1 dims allow), else channels-last; otherwise in the format the input suggests
        if fused:
            fmt = ("contiguous_format" if x_in.flags.c_contiguous else
                   "channels_last" if x_in.ndim == 4 else "channels_last_3d")
        else:
            fmt = suggested_format(x_in)
        return in_format(out.astype(out_dtype, copy=False), fmt)

    @staticmethod
    def backward(ctx, grad):
        x, w, mean, rstd, rm, rv = ctx.saved_tensors
        axes, bshape = ctx.axes, ctx.bshape
        need = ctx.needs_input_grad
        looped = None
        pdt = ctx.loop_dtype
        if pdt is not None and not (_all_contiguous(x._data) and _all_contiguous(grad._data)
                                    and suggested_format(x._data) == suggested_format(grad._data)):
            if ctx.training:
                m, r = mean._data.astype(pdt), rstd._data.astype(pdt)
            else:   # (its eval loop takes 1 / sqrt(running_var + eps) in double, rounded once)
                m = rm._data.astype(pdt).reshape(bshape)
                r = (1 / namespace(rv._data).sqrt(rv._data.astype(np.float64) + ctx.eps)).astype(pdt).reshape(bshape)
            looped = _half_loop_backward(grad._data, x._data, None if w is None else w._data, m, r, axes,
                                         ctx.training)
        if not _state.enabled:
            if looped is not None:
                gx, gw, gb = (_wrap(v) if n else None for v, n in zip(looped, need))
                return gx, gw, gb, None, None, None, None, None
            return NativeBatchNorm._backward_np(ctx, grad._data, x._data, None if w is None else to_opmath(w._data),
                                                mean._data, rstd._data, need)
        wb = w.to(mean.dtype).reshape(bshape) if w is not None else None  # (half precision in float32)
        # float16/bfloat16 work in float32 (the engine rounds each gradient to its input's dtype once)
        x, grad = x.to(mean.dtype), grad.to(mean.dtype)
        if ctx.training:
            saved_mean, saved_rstd = mean, rstd
            mean, rstd = _recomputed_stats(x, axes, ctx.eps)
            # the values PyTorch's kernel reads are its saved statistics (rounded, for half types; for a
            # constant channel a mean exactly the value, where recomputing it in float32 can leave a residue
            # that the normalization magnifies); the derivative stays that of the exact ones
            mean = mean + (saved_mean - mean.detach())
            rstd = rstd + (saved_rstd - rstd.detach())
        xhat = (x - mean) * rstd
        gx = gw = gb = None
        if need[0]:   # (the weight multiplies last, as in ATen's kernel: an inf weight gives ±inf, not NaN)
            gx = _normalized_grad(grad, xhat, rstd, axes) if ctx.training else grad * rstd
            gx = gx * wb if wb is not None else gx
        if len(need) > 1 and need[1]:
            gw = (grad * xhat).sum(axes)
        if len(need) > 2 and need[2]:
            gb = grad.sum(axes)
        if looped is not None:   # ATen's values, the derivative of the exact formula
            gx, gw, gb = (None if r is None else r + (_wrap(v).to(r.dtype) - r.detach())
                          for r, v in zip((gx, gw, gb), looped))
        return gx, gw, gb, None, None, None, None, None

    @staticmethod
    def _backward_np(ctx, g, x, w, mean, rstd, need):
        xp = namespace(g)
        g, x = to_opmath(g), to_opmath(x)   # float16/bfloat16 in float32 (the engine rounds the results once)
        N, C = x.shape[0], x.shape[1]
        g3, x3 = g.reshape(N, C, -1), x.reshape(N, C, -1)
        m3, r3 = mean.reshape(1, C, 1), rstd.reshape(1, C, 1)
        centered = x3 - m3
        gx = gw = gb = None
        if need[0]:
            if ctx.training:   # ATen's kernel: ((dy - mean(dy)) - (x - mean) k) * invstd * w,
                n = N * x3.shape[2]   # k = sum(dy (x - mean)) invstd^2 / n (the weight last: inf gives ±inf)
                k = xp.einsum("ncl,ncl->c", g3, centered).reshape(1, C, 1) * r3 * r3 / n
                gx = g3 - g3.sum((0, 2), keepdims=True) / n
                gx -= centered * k
                gx *= r3
            else:
                gx = g3 * r3
            if w is not None:
                gx *= w.reshape(1, C, 1)
            gx = gx.reshape(x.shape)
            gx = _wrap(gx)
        if len(need) > 1 and need[1]:
            gw = _wrap(xp.einsum("ncl,ncl->c", g3, centered * r3))   # (sum of grad * xhat)
        if len(need) > 2 and need[2]:
            gb = _wrap(g3.sum((0, 2)))
        return gx, gw, gb, None, None, None, None, None


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        # the size as the caller passed it: batch_norm's torch.Size, group_norm's list
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _check_features(name, num_features, t):
    if t is not None and t.numel() != num_features:
        raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")


def _check_batch_norm_dtype(input, training, params):
    """PyTorch's CPU kernel computes training statistics of a non-contiguous input (in its suggested
    memory format) with ``at::mean``, before any kernel is chosen by dtype: an integer or bool input then
    fails in mean() (unless a parameter of another dtype sends it down the mixed-dtype path)."""
    x = input._data
    given = [p._data.dtype for p in params if p is not None]
    mixed = bool(given) and given[0] != x.dtype  # (PyTorch looks at the first parameter given)
    if is_inexact_np(x.dtype) and mixed:
        # PyTorch's mixed-dtype path: only a float16/bfloat16 input with float32 parameters
        if any(dt != np.float32 for dt in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if x.dtype.itemsize != 2:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    elif is_inexact_np(x.dtype):
        for dt in given:
            if dt != x.dtype:
                raise RuntimeError(f"expected scalar type {_type_word(x.dtype)} but found {_type_word(dt)}")
    if not training or is_inexact_np(x.dtype) or mixed:
        return
    from ..._layout import suggested_format
    if x.flags.c_contiguous or suggested_format(x) != "contiguous_format":
        return
    from ...ops.reduction import _dtype_word
    raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                       f"complex dtype. Got: {_dtype_word(x.dtype)}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalization over (N, C, *): statistics per channel C (see ``NativeBatchNorm``)."""
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None:  # nn.BatchNorm turns momentum=None into a cumulative-average factor itself
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not NoneType")
    num_features = input.shape[1] if input.dim() > 1 else 0
    if running_mean is not None:
        _check_features("running_mean", num_features, running_mean)
    elif not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is not None:
        _check_features("running_var", num_features, running_var)
    elif not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    _check_features("weight", num_features, weight)
    _check_features("bias", num_features, bias)
    if input._data.size:  # (the kernel's checks, after those of the sizes; an empty input never gets there)
        _check_batch_norm_dtype(input, training, (weight, bias, running_mean, running_var))
        check_kernel_dtype("batch_norm", input._data.dtype, "f")
    if input.numel() == 0:
        # PyTorch returns a copy (not a view: the graph stays connected) before dispatching on the dtype
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    # In training the kernel updates the running stats in place, yet their versions stay: ATen's
    # native_batch_norm schema does not mark them as written (Tensor?, not Tensor(a!)). So a module can run
    # twice before one backward, and a graph that saved them earlier stays valid.
    return NativeBatchNorm.apply(input, weight, bias, running_mean, running_var, bool(training),
                                 float(momentum), float(eps))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Batch norm of each (sample, channel) plane: input viewed as (1, N*C, *), as PyTorch composes it."""
    if use_input_stats:
        size = input.shape
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"torch.Size({list(size)})")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = list(input.shape)
    b, c = shape[0], shape[1]
    shape[1] = b * c
    shape[0] = 1

    def rep(t):
        return t.repeat(b) if t is not None else None

    weight_, bias_ = rep(weight), rep(bias)
    running_mean_, running_var_ = rep(running_mean), rep(running_var)
    input_reshaped = input.contiguous().view(shape)
    out = batch_norm(input_reshaped, running_mean_, running_var_, weight_, bias_, use_input_stats, momentum,
                     eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(running_mean_.view(b, c).mean(0, False))
        if running_var is not None:
            running_var.copy_(running_var_.view(b, c).mean(0, False))
    return out.view(input.shape)


# ====================================================================== layer norm

class NativeLayerNorm(ArrayFunction):
    """Over the last k dims: xhat = (x - mean) * rstd;  out = xhat * w + b.
    dx = rstd * (gw - E[gw] - xhat * E[gw * xhat]);  dw = sum(grad * xhat), db = sum(grad) over the leading dims"""
    node_name = "NativeLayerNormBackward0"
    _result_format = "contiguous_format"   # ATen normalizes input.contiguous() into a contiguous result

    @staticmethod
    def forward(ctx, x, k, w, b, eps):
        xp = namespace(x)
        out_dtype = x.dtype
        x_in, w_in, b_in = x, w, b
        x, w, b = to_opmath(x), to_opmath(w), to_opmath(b)  # half precision in float32
        axes = tuple(range(x.ndim - k, x.ndim))
        n = math.prod(x.shape[x.ndim - k:])
        x2 = x.reshape(math.prod(x.shape[:x.ndim - k]), n)  # one row per normalized slice (-1 fails when n = 0)
        mean = xp.mean(x2, axis=1, keepdims=True)
        xhat = x2 - mean
        var = _rows_dot(xhat, xhat)[:, None] / n if n else mean
        rstd = (1.0 / xp.sqrt(var + eps)).astype(x.dtype, copy=False)
        xhat *= rstd
        saved_xhat, saved_rstd = _saved_stats(x_in, x2, mean, rstd, xhat)
        stat_shape = x.shape[:x.ndim - k] + (1,) * k
        if x_in.dtype != x.dtype:
            # float16/bfloat16: ATen's kernel computes x * rstd + (-rstd * mean), then that * w + b, each as
            # one fused multiply-add in float32 (emulated in float64, where the products are exact).  Where
            # x equals the mean this leaves the product's rounding error, not 0, as PyTorch does.
            f64 = xp.float64
            shift = (-rstd * mean).astype(f64)
            xhat = (x2.astype(f64) * rstd.astype(f64) + shift).astype(x.dtype).reshape(x.shape)
            out = xhat.astype(f64) * (w.astype(f64) if w is not None else 1.0)
            out = (out + b.astype(f64) if b is not None else out).astype(x.dtype)
        else:
            xhat = xhat.reshape(x.shape)
            out = xhat * w if w is not None else xhat.copy()
            if b is not None:
                out += b
        ctx.axes, ctx.eps, ctx.lead = axes, eps, tuple(range(x.ndim - k))
        # PyTorch saves input, weight and bias (and the statistics): an in-place write to any of them
        # afterwards is an error, though no formula reads the bias
        ctx.save_for_backward(x_in, w_in, b_in, saved_xhat.reshape(x.shape), saved_rstd.reshape(stat_shape))
        return out.astype(out_dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, w, _, xhat, rstd = ctx.saved_tensors
        need = ctx.needs_input_grad
        if not _state.enabled:
            return NativeLayerNorm._backward_np(grad._data, xhat._data, rstd._data,
                                                None if w is None else to_opmath(w._data), need, len(ctx.axes))
        x32, mean, rstd = _backward_stats(x, ctx.axes, ctx.eps)
        xhat = (x32 - mean) * rstd
        grad, w = grad.to(x32.dtype), None if w is None else w.to(x32.dtype)  # float16/bfloat16 in float32
        gx = gw = gb = None
        if need[0]:
            g = grad * w if w is not None else grad
            gx = _normalized_grad(g, xhat, rstd, ctx.axes).to(x.dtype)
        if need[2]:
            gw = ((grad * xhat).sum(ctx.lead) if ctx.lead else grad * xhat).to(x.dtype)
        if need[3]:
            gb = (grad.sum(ctx.lead) if ctx.lead else grad).to(x.dtype)
        return gx, None, gw, gb, None

    @staticmethod
    def _backward_np(g, xhat, rstd, w, need, k):
        xp = namespace(g)
        shape = xhat.shape
        n = math.prod(shape[xhat.ndim - k:])
        rows = math.prod(shape[:xhat.ndim - k])
        g_in = g.reshape(rows, n)
        # dx in float32 for float16/bfloat16, as ATen's kernel (the engine rounds it once)
        g2, x2 = to_opmath(g_in), xhat.reshape(rows, n)
        r2 = rstd.reshape(rows, 1)
        gx = gw = gb = None
        if need[0]:
            gwv = g2 * w.reshape(-1) if w is not None else g2.copy()
            m1 = gwv.sum(1, keepdims=True)
            m1 /= n
            m2 = _rows_dot(gwv, x2)[:, None]
            m2 /= n
            gwv -= m1
            gwv -= x2 * m2
            gwv *= r2
            gx = _wrap(gwv.reshape(shape))
        if need[2]:
            gw = _wrap(xp.einsum("ij,ij->j", g2, x2).reshape(shape[xhat.ndim - k:]))
        if need[3]:   # (ATen adds the rows into a buffer of the input's dtype: a half sum rounds each step)
            gb = _wrap(g_in.sum(0).reshape(shape[xhat.ndim - k:]))
        return gx, None, gw, gb, None


def _shape_list(name, normalized_shape):
    if isinstance(normalized_shape, numbers.Integral) or not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"{name}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(normalized_shape).__name__}")
    return [int(s) for s in normalized_shape]


def _check_mixed_params(input, *params):
    """PyTorch's first check of layer norm's dtypes (ATen's check_mixed_data_type): parameters whose dtype
    differs from the input's (the first one given decides) are "mixed", allowed only as float32 parameters
    of a float16/bfloat16 input; the parameters are checked before the input. Returns whether mixed."""
    given = [p._data.dtype for p in params if p is not None]
    if not given or given[0] == input._data.dtype:
        return False
    if any(dt != np.float32 for dt in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._data.dtype.name not in ("float16", "bfloat16"):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the last ``len(normalized_shape)`` dims (see ``NativeLayerNorm``)."""
    ns = _shape_list("layer_norm", normalized_shape)
    k = len(ns)
    if k < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {shape_str(ns)}")
    mixed = _check_mixed_params(input, weight, bias)
    if weight is not None and list(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{shape_str(weight.shape)} and normalized_shape = {shape_str(ns)}")
    if bias is not None and list(bias.shape) != ns:
        raise RuntimeError(f"Expected bias to be of same shape as normalized_shape, but got bias of shape "
                           f"{shape_str(bias.shape)} and normalized_shape = {shape_str(ns)}")
    shape = list(input.shape)
    if len(shape) < k or shape[len(shape) - k:] != ns:
        raise RuntimeError(f"Given normalized_shape={shape_str(ns)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in ns)}], but got input of size{shape_str(shape)}")
    # the kernel is chosen by dtype only after the shapes are checked; it reads the parameters as its dtype
    check_kernel_dtype("LayerNormKernelImpl", input._data.dtype, "f")
    for p in (weight, bias):
        if not mixed and p is not None and p._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected scalar type {_type_word(input._data.dtype)} but found "
                               f"{_type_word(p._data.dtype)}")
    return NativeLayerNorm.apply(input, k, weight, bias, float(eps))


_FORMATS = {"contiguous_format": contiguous_format, "channels_last": channels_last,
            "channels_last_3d": channels_last_3d}


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x * rsqrt(mean(x^2 over the last dims) + eps) * w, composed as PyTorch does (eps defaults to the
    machine epsilon of the computing dtype; float16/bfloat16 inputs compute in float32)."""
    ns = _shape_list("rms_norm", normalized_shape)
    shape = list(input.shape)
    k = len(ns)
    if k < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {shape_str(ns)}")
    if not shape:
        raise ValueError("Input tensor must have at least 1 dimensions, but got 0")
    if len(shape) < k or shape[len(shape) - k:] != ns:
        raise RuntimeError(f"Given normalized_shape={shape_str(ns)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in ns)}], but got input of size{shape_str(shape)}")
    if weight is not None and list(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{shape_str(weight.shape)} and normalized_shape = {shape_str(ns)}")
    check_kernel_dtype("rms_norm", input._data.dtype, "fc")  # (even for an empty input)
    low = input._data.dtype.name in ("float16", "bfloat16")   # computed in float32, cast back at the end
    x = input.float() if low else input
    if eps is None:
        eps = float(np.finfo(np.float64 if x._data.dtype == np.float64 else np.float32).eps)
    dims = tuple(range(len(shape) - k, len(shape)))
    # (ATen adds eps as a Scalar: AddBackward1)
    result = x.mul(_AddScalar.apply(x.pow(2).mean(dims, keepdim=True), eps).rsqrt())
    if weight is not None:
        result = result.mul(weight)
    # ATen ends with result.contiguous(input.suggest_memory_format()): a copy (CloneBackward0) when the
    # products followed the strides of a transposed input, none for a channels-last one
    result = result.contiguous(memory_format=_FORMATS[suggested_format(input._data)])
    if low:
        result = result.to(input.dtype)
    return result


# ====================================================================== group norm

class NativeGroupNorm(ArrayFunction):
    """(N, C, *) seen as (N, G, C/G * prod(*)): statistics per (sample, group); w, b per channel.
    dx = rstd * (gw - E[gw] - xhat * E[gw * xhat]) per group;  dw = sum(grad * xhat), db = sum(grad)"""
    node_name = "NativeGroupNormBackward0"

    @staticmethod
    def forward(ctx, x, G, w, b, eps):
        xp = namespace(x)
        out_dtype = x.dtype
        x_in, w_in, b_in = x, w, b
        x, w, b = to_opmath(x), to_opmath(w), to_opmath(b)  # half precision in float32
        N, C = x.shape[0], x.shape[1]
        xg = x.reshape(N, G, x.size // (N * G) if N else 0)  # (not -1: numpy cannot infer it when N is 0)
        # the mean accumulated in double: PyTorch's Welford moments give exactly x for a constant group,
        # where numpy's float32 sum / n can be an ulp off (and x - mean then is not 0)
        if xg.size == 0:  # (no element to normalize: statistics of nothing, without numpy's warnings)
            mean = var = xp.zeros((N, G, 1), x.dtype)
            d = xg
        else:
            mean = xp.mean(xg, axis=2, keepdims=True, dtype=np.float64).astype(x.dtype)
            d = xg - mean
            var = xp.mean(xp.square(d), axis=2, keepdims=True)
        # ATen's group-norm kernel adds the double eps to the float variance, so 1/sqrt(var + eps) is taken
        # in double and rounded once (its layer norm, by contrast, works in float)
        rstd = (1.0 / xp.sqrt(var.astype(np.float64) + eps)).astype(x.dtype, copy=False)
        xhat = d * rstd
        saved_xhat, saved_rstd = _saved_stats(x_in, xg, mean, rstd, xhat)
        xhat = xhat.reshape(x.shape)
        bshape = (1, C) + (1,) * (x.ndim - 2)
        out = xhat * w.reshape(bshape) if w is not None else xhat.copy()
        if b is not None:
            out += b.reshape(bshape)
        ctx.G, ctx.eps, ctx.bshape = G, eps, bshape
        ctx.axes = (0,) + tuple(range(2, x.ndim))
        # the mean as PyTorch saves it (rounded for float16/bfloat16), for the array backward's formula
        ctx.mean = mean if x_in.dtype == x.dtype else mean.astype(x_in.dtype).astype(x.dtype)
        # the weight as given (its version is checked in backward, as PyTorch's saved weight is)
        ctx.save_for_backward(x_in, w_in, saved_xhat.reshape(x.shape), saved_rstd)
        # ATen's result is in the format the input suggests
        return in_format(out.astype(out_dtype, copy=False), suggested_format(x_in))

    @staticmethod
    def backward(ctx, grad):
        x, w, xhat, rstd = ctx.saved_tensors
        if w is not None and opmath_np(w._data.dtype) != w._data.dtype:
            w = w.float()   # half precision in float32, as in forward
        need = ctx.needs_input_grad
        if not _state.enabled:
            return NativeGroupNorm._backward_np(grad._data, x._data, xhat._data, ctx.mean, rstd._data,
                                                None if w is None else w._data, need, ctx.G)
        return NativeGroupNorm._recorded_backward(ctx, grad, x, w, need)

    @staticmethod
    def _recorded_backward(ctx, grad, x, w, need):
        """PyTorch's infinitely_differentiable_native_group_norm_backward, op for op (it rounds after each op
        in float16/bfloat16), with mean and rstd recomputed as functions of x (values as PyTorch saved them):
        dx = a dY + b X + c per (sample, group), the expanded form of rstd * (gw - E[gw] - xhat E[gw xhat])."""
        shape = x.shape
        N, C, G = shape[0], shape[1], ctx.G
        D, HxW = C // G, math.prod(shape[2:])
        X = x.reshape(N, G, D, HxW)
        s = 1.0 / (D * HxW) if D * HxW else float("inf")
        _, mean, rstd = _backward_stats(X, (2, 3), ctx.eps)
        mean, rstd = mean.to(x.dtype), rstd.to(x.dtype)
        dY = grad.reshape(X.shape)
        ds, db = (dY * X).sum(3, keepdim=True), dY.sum(3, keepdim=True)
        gamma = None if w is None else w.reshape(1, G, D, 1)
        gx = gw = gb = None
        if need[0]:
            a = rstd * gamma if gamma is not None else rstd
            b = (ds * gamma if gamma is not None else ds).sum(2, keepdim=True)
            c = (db * gamma if gamma is not None else db).sum(2, keepdim=True)
            b = (c * mean - b) * (rstd * rstd * rstd) * s
            c = -b * mean - c * rstd * s
            gx = (a * dY + b * X + c).reshape(shape)
        if need[2]:
            gw = ((ds - db * mean) * rstd).sum(0).reshape(C)
        if need[3]:
            gb = db.sum(0).reshape(C)
        return gx, None, gw, gb, None

    @staticmethod
    def _backward_np(g, x, xhat, mean, rstd, w, need, G):
        xp = namespace(g)
        shape = xhat.shape
        N, C, HxW = shape[0], shape[1], math.prod(shape[2:])
        # (explicit sizes, not -1: numpy cannot infer a dimension of an empty array)
        g3, x3 = g.reshape(N, C, HxW), xhat.reshape(N, C, HxW)
        gx = gw = gb = None
        n = C // G * HxW
        if need[0] and g.size == 0:
            gx = _wrap(xp.zeros(shape, g.dtype))
        elif need[0]:
            # ATen's kernel, in float32 for float16/bfloat16, rounded once: dx = a dY + b X + c per (sample,
            # group), from ds = sum(dY X) and db = sum(dY) per channel and the saved mean and rstd (as
            # _recorded_backward).  Its db * mean - ds cancels when a group's values are close together:
            # the same rounding error as PyTorch's, which the form rstd * (dY - E[dY] - ...) would not have.
            D = C // G
            dY, X = to_opmath(g).reshape(N, G, D, HxW), to_opmath(x).reshape(N, G, D, HxW)
            gamma = xp.ones((1, G, D, 1), dY.dtype) if w is None else w.reshape(1, G, D, 1)
            ds = (xp.sum(dY * X, axis=3, keepdims=True) * gamma).sum(2, keepdims=True)
            db = (xp.sum(dY, axis=3, keepdims=True) * gamma).sum(2, keepdims=True)
            m, r = mean.reshape(N, G, 1, 1), rstd.reshape(N, G, 1, 1)
            s = 1.0 / n
            b = (db * m - ds) * (r * r * r) * s
            c = -b * m - db * r * s
            gx = _wrap((r * gamma * dY + b * X + c).astype(g.dtype, copy=False).reshape(shape))
        if need[2] and n == 0 and N:
            # empty groups: PyTorch's sum over n of (ds - db * mean) * rstd, its statistics 0 / 0 = NaN
            gw = _wrap(xp.full((C,), np.nan, dtype=g.dtype))
        elif need[2]:
            gw = _wrap(xp.einsum("ncl,ncl->c", g3, x3))
        if need[3]:
            gb = _wrap(g3.sum((0, 2)))
        return gx, None, gw, gb, None


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization: channels split into ``num_groups`` groups, statistics per (sample, group)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    shape = list(input.shape)
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + shape[2:])
    C = shape[1]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape_str(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            # PyTorch's bias message names the *weight's* shape ([0] when there is no weight)
            bad = [0] if weight is None else weight.shape
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shape_str(bad)} and input of shape {shape_str(shape)}")
    # the dtypes as layer norm checks them: the mixed path first, then the kernel, then each parameter
    mixed = _check_mixed_params(input, weight, bias)
    check_kernel_dtype("GroupNormKernelImpl", input._data.dtype, "f")
    for p in (weight, bias):
        if not mixed and p is not None and p._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected scalar type {_type_word(input._data.dtype)} but found "
                               f"{_type_word(p._data.dtype)}")
    return NativeGroupNorm.apply(input, int(num_groups), weight, bias, float(eps))


# ====================================================================== local response norm, normalize

def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over a window of ``size`` channels)^beta, composed as PyTorch does
    (the window average is the sum of ``size`` shifted slices of the zero-padded squares, over size)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    x = input._data
    if dim > 3 and x.dtype.itemsize == 2 and x.dtype.kind in "fV" and on_host(x) and \
            not active_modes():   # (under autocast PyTorch's avg_pool3d gets float32)
        # PyTorch averages 4-D and wider inputs with avg_pool3d, whose CPU kernel has no float16/bfloat16
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{_type_word(x.dtype)}'")
    from ...ops.manip import constant_pad_nd
    div = input.mul(input)
    sizes = input.shape
    C = sizes[1]
    if dim == 3:
        padded = constant_pad_nd(div, (0, 0, size // 2, (size - 1) // 2))
    else:
        div = div.view(sizes[0], sizes[1], sizes[2], -1)
        padded = constant_pad_nd(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
    acc = padded.narrow(1, 0, C)
    for i in range(1, size):
        acc = acc + padded.narrow(1, i, C)
    div = (acc / size).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """v / max(||v||_p, eps) along ``dim``."""
    from ...ops.elementwise import div as _div
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _div(input, denom, out=out)
