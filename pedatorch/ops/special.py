"""Special functions and the smaller elementwise ops: lgamma, digamma, polygamma, i0, copysign, ...

numpy has no gamma-family functions (scipy is not a dependency), so they are
computed here with vectorised series: Lanczos for lgamma, recurrence + the
asymptotic expansion for digamma and polygamma.  All are accurate to about
1e-14 relative in float64 (tests compare with PyTorch).
"""
import math
import numbers

import numpy as np

from .. import _dtype as D
from .._device import as_device, factory_device
from ..backend import no_meta_kernel, namespace, device_namespace, is_array
from .._tensor import Tensor
from .._layout import iterator_result, like_empty_like
from ..autograd.function import ArrayFunction
from ._util import (broadcast_shapes_or_raise, promote, to_float, write_out, register, promote_to_float, require_tensor, _type_word,
                    check_kernel_dtype, check_binary_kernel, needed, wrap_dim)
from .._dtype import is_float_np, to_opmath, result_type_of
from .elementwise import _not_implemented_name, where, _no_bool_sub, masked_grad, _ip as _inplace_twin
from .creation import zero_grad
from .join import cat
from .scalar import MulScalar as Mul1, DivScalar as Div1

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "copysign", "heaviside", "gcd", "lcm", "ldexp",
           "frexp", "logaddexp2", "nextafter", "angle", "dist", "is_same_size", "is_nonzero", "bincount",
           "logcumsumexp", "cov", "corrcoef", "renorm"]

# ---------------------------------------------------------------- kernels

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)


def _lgamma(x):
    """log|Gamma(x)| (Lanczos, g=7), with the reflection formula for x < 0.5."""
    xp = namespace(x)
    x = xp.asarray(x, dtype=np.float64)
    out = xp.empty_like(x)
    small = x < 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = xp.where(small, 1.0 - x, x) - 1.0
        a = xp.full_like(y, _LANCZOS[0])
        t = y + _LANCZOS_G + 0.5
        for i in range(1, 9):
            a = a + _LANCZOS[i] / (y + i)
        big = 0.5 * math.log(2 * math.pi) + (y + 0.5) * xp.log(t) - t + xp.log(a)
        # |sin(pi x)| from x's distance to the nearest integer (exact), not sin of the rounded pi * x: near a
        # pole (x = -1 + 4e-15) that rounding is a few percent of the distance
        refl = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * (x - xp.round(x))))) - big
        out = xp.where(small, refl, big)
        # poles at non-positive integers; exact zeros at 1 and 2
        out = xp.where((x <= 0) & (x == xp.floor(x)), np.inf, out)
        out = xp.where((x == 1) | (x == 2), 0.0, out)
        out = xp.where(xp.isinf(x), np.inf, out)
    return out


_BERN = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)


def _digamma(x):
    """psi(x): shift x above 10 with psi(x) = psi(x+1) - 1/x, then the asymptotic series."""
    xp = namespace(x)
    x = xp.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        neg = x < 0
        # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
        xr = xp.where(neg, 1.0 - x, x)
        acc = xp.zeros_like(xr)
        for _ in range(10):
            lo = xr < 10
            acc = xp.where(lo, acc - 1.0 / xr, acc)
            xr = xp.where(lo, xr + 1.0, xr)
        inv2 = 1.0 / (xr * xr)
        series = xp.log(xr) - 0.5 / xr
        term = xp.zeros_like(xr)
        p = inv2.copy()
        for k, b in enumerate(_BERN[:7], start=1):
            term = term + b / (2 * k) * p
            p = p * inv2
        out = series - term + acc
        out = xp.where(neg, out - math.pi / xp.tan(math.pi * x), out)
        out = xp.where((x < 0) & (x == xp.floor(x)), np.nan, out)
        out = xp.where(x == 0, xp.copysign(np.inf, -x), out)  # (-inf at +0, inf at -0, as PyTorch)
    return out


_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def _digamma_single(x):
    """psi(x) of a float32 array, PyTorch's ``calc_digamma(float)`` step for step in float32 (its own
    rounding: far from 0 the float32 steps differ from the exact value in the 4th digit): the reflection
    psi(1 - x) - pi / tan(pi r) below 0 (r: x's fractional part, in double), steps psi(x) = psi(x + 1) - 1/x
    up to 10, then the asymptotic series."""
    xp = namespace(x)
    one, f32 = np.float32(1), np.float32
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = x < 0
        xd = x.astype(np.float64)
        pi_over_tan = (math.pi / xp.tan(math.pi * (xd - xp.trunc(xd)))).astype(f32)
        z = xp.where(neg, one - x, x)
        acc = xp.zeros_like(z)
        while True:
            lo = z < 10
            if not lo.any():
                break
            acc = xp.where(lo, acc - one / z, acc)
            z = xp.where(lo, z + one, z)
        zz = one / (z * z)
        poly = xp.full_like(z, f32(_DIGAMMA_A[0]))
        for a in _DIGAMMA_A[1:]:
            poly = poly * zz + f32(a)
        y = xp.where(z < f32(1e17), zz * poly, f32(0))
        out = xp.where(z == 10, acc + f32(_PSI_10), acc + xp.log(z) - f32(0.5) / z - y)
        out = xp.where(neg, out - pi_over_tan, out)
        out = xp.where(neg & (x == xp.trunc(x)), f32(np.nan), out)
        out = xp.where(x == 0, xp.copysign(f32(np.inf), -x), out)
    return out.astype(f32, copy=False)


def _polygamma(n, x):
    """psi^(n)(x) for n >= 2, PyTorch's formula: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta (valid for
    negative x too; inf at the poles, signed by (-1)^(n+1))."""
    xp = namespace(n, x)
    from ..special import _zeta  # (pedatorch.special imports this module)
    x = xp.asarray(x, dtype=np.float64)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(over="ignore", invalid="ignore"):
        return sign * math.factorial(n) * _zeta(np.float64(n + 1), x)


def _trigamma(x):
    """psi'(x), PyTorch's calc_trigamma step for step, in x's own float dtype: the reflection
    -pi² / sin²(pi x) below 0.5, six steps of psi'(x) = psi'(x + 1) + 1 / x², then the asymptotic
    series. At a pole sin(pi x) is not exactly 0 in floating point, so PyTorch's answer there is a huge
    finite number (1.3e15 at x = -1 in float32), not inf: this gives the same."""
    xp = namespace(x)
    x = xp.asarray(x)
    pi = x.dtype.type(math.pi)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        small = x < 0.5
        sin_pi_x = xp.sin(pi * x)
        result = xp.where(small, -(pi * pi) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
        x = xp.where(small, 1 - x, x)
        for _ in range(6):
            result = result + 1 / (x * x)
            x = x + 1
        ixx = 1 / (x * x)
        # the series' constants are doubles in PyTorch's C++, so this term is computed in double
        xd, ixx = x.astype(np.float64), ixx.astype(np.float64)
        tail = (1 + 1 / (2 * xd) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / xd
        result = (result + tail).astype(x.dtype)
        return xp.where(small, -result, result)


def _float_out(f, x):
    """Compute ``f`` in float64 and return in x's float dtype (ints -> default float)."""
    xf = to_float(x)
    with np.errstate(over="ignore"):  # (out of the dtype's range: ±inf, silently)
        return f(xf.astype(np.float64)).astype(xf.dtype)


# ---------------------------------------------------------------- differentiable ops

def _no_complex(kernel, x):
    """PyTorch's error for a complex input (these kernels have real loops only)."""
    if x.dtype.kind == "c":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(x.dtype)}\'')


class Lgamma(ArrayFunction):
    """lgamma(x)' = digamma(x)"""
    node_name = "LgammaBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        _no_complex("lgamma_vml_cpu", x)
        ctx.save_for_backward(x)
        return _float_out(_lgamma, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * digamma(x)


class Digamma(ArrayFunction):
    """digamma(x)' = polygamma(1, x)"""
    node_name = "DigammaBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        _no_complex("digamma", x)
        ctx.save_for_backward(x)
        xf = to_float(x)
        if xf.dtype != np.float64:   # float32, and the halfs, which PyTorch computes in float32
            return _digamma_single(xf.astype(np.float32)).astype(xf.dtype)
        return _float_out(_digamma, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * polygamma(1, x)


class Polygamma(ArrayFunction):
    """polygamma(n, x)' = polygamma(n + 1, x)"""
    node_name = "PolygammaBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, n):
        _no_complex("trigamma" if n == 1 else "polygamma", x)
        ctx.save_for_backward(x)
        ctx.n = n
        if n == 1:  # computed in x's dtype (float32 for float16/bfloat16), as PyTorch's trigamma kernel
            xf = to_float(x)
            with np.errstate(over="ignore"):
                return _trigamma(to_opmath(xf)).astype(xf.dtype)
        return _float_out(lambda v: _polygamma(n, v), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * polygamma(ctx.n + 1, x), None


# Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] and for exp(-x) sqrt(x) I0(x) on [8, inf)
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)


def _chbevl_f32(y, coeffs):
    """Cephes' Chebyshev series in float32, each step ``y * b1 - b2`` rounded once (a fused multiply-add,
    as PyTorch's compiled kernel does it; the float64 product of two float32 numbers is exact)."""
    xp = namespace(y)
    b0, b1, b2 = xp.full_like(y, coeffs[0]), xp.zeros_like(y), xp.zeros_like(y)
    y64 = y.astype(np.float64)
    for c in map(np.float32, coeffs[1:]):   # (host float32 scalars: no array to move)
        b2, b1 = b1, b0
        b0 = (y64 * b1 - b2).astype(np.float32) + c
    return np.float32(0.5) * (b0 - b2)


def _i0_f32(x):
    """PyTorch's float i0 (calc_i0, also for the half types): Cephes' expansion computed in float32, so
    i0(0) is 0.99999994, not 1 (then ``logit(i0(0))`` is 16.6, not inf)."""
    xp = namespace(x)
    a = xp.abs(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = xp.exp(a.astype(np.float64)).astype(np.float32)  # (expf is correctly rounded)
        small = e * _chbevl_f32(a / np.float32(2) - np.float32(2), _I0_A)
        big = e * _chbevl_f32(np.float32(32) / a - np.float32(2), _I0_B) / xp.sqrt(a)
    return xp.where(a <= 8, small, big)


def _i0(x):
    xp = namespace(x)
    xf = to_float(x)
    with np.errstate(invalid="ignore", over="ignore"):  # (i0(inf) is inf, i0(nan) nan)
        if xf.dtype == np.float64:
            return xp.i0(xf)  # (numpy's is Cephes' too, in double)
        return _i0_f32(xf.astype(np.float32)).astype(xf.dtype)


class I0(ArrayFunction):
    """i0(x)' = i1(x)  (modified Bessel functions of the first kind)"""
    node_name = "I0Backward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        _no_complex("i0_vml_cpu", x)
        ctx.save_for_backward(x)
        return _i0(x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * I1.apply(x)  # an op of its own, so double backward goes on through i1


class I1(ArrayFunction):
    """i1(x)' = i0(x) - i1(x) / x  (1/2 at |x| <= eps, and at NaN, as PyTorch's i1_backward)"""
    node_name = "SpecialI1Backward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        _no_complex("i1_cpu", x)
        out = _float_out(_i1, x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        # as PyTorch: at |x| <= eps the formula is 0/0, its limit is 1/2 (NaN fails the test too, so gets 1/2);
        # a safe x inside the unused branch keeps double backward free of NaN there
        eps = float(np.finfo(np.float32 if x._data.dtype.itemsize <= 4 else np.float64).eps)
        not_tiny = x.abs() > eps
        safe_x = where(not_tiny, x, eps)
        return grad * where(not_tiny, I0.apply(safe_x) - out * safe_x.reciprocal(), 0.5)


def _i1(x):
    """I1 via its power series (enough terms for |x| < 40) or the asymptotic expansion beyond."""
    xp = namespace(x)
    x = xp.asarray(x, dtype=np.float64)
    ax = xp.abs(x)
    term = ax / 2
    s = term.copy()
    for k in range(1, 60):
        term = term * (ax / 2) ** 2 / (k * (k + 1))
        s = s + term
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # Hankel's expansion, e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (j 8x):
        # 12 terms are exact to double precision for x >= 40
        term, series = xp.ones_like(ax), xp.ones_like(ax)
        for k in range(1, 13):
            term = term * -(4 - (2 * k - 1) ** 2) / (k * 8 * ax)
            series = series + term
        asym = xp.exp(ax) / xp.sqrt(2 * math.pi * ax) * series
    return xp.sign(x) * xp.where(ax < 40, s, asym)


class Copysign(ArrayFunction):
    """copysign(a, b) = |a| with b's sign;  da = grad * sign(a) * sign(out),  db = 0"""
    node_name = "CopysignBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        a2, b2 = promote_to_float(xp.asarray(a), b)
        out = xp.copysign(a2, b2)
        ctx.save_for_backward(needed(ctx, 0, a), out)  # (b's gradient is zeros; a result is always saved)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        gb = zero_grad(grad) if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1] else None  # PyTorch: zeros
        if a is None:
            return None, gb
        # PyTorch's copysign_tensor_self_backward: grad * (out / a), the ratio 0 where a is 0. Built from
        # Tensor ops on the saved result, so double backward goes through out and a, and gives PyTorch's NaN
        # where a is 0 (out / a there is 0 / 0) or ±inf (inf / inf)
        ratio = (out / a).masked_fill(a == 0, 0.0)
        return grad * ratio, gb


class CopysignScalar(Copysign):
    """``copysign(tensor, number)``"""
    node_name = "CopysignBackward1"


class LogAddExp2(ArrayFunction):
    """out = log2(2^a + 2^b);  da = grad * 2^a / (2^a + 2^b)"""
    node_name = "Logaddexp2Backward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote_to_float(a, b)
        return xp.logaddexp2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # PyTorch's formula, grad / (1 + 2^(b - a)) (not a sigmoid: the same number, another double backward);
        # b's gradient first, as PyTorch (see elementwise.Mul.backward)
        gb = grad / ((a - b).exp2() + 1)
        return grad / ((b - a).exp2() + 1), gb


class Angle(ArrayFunction):
    """angle(x): 0 for x >= 0, pi for x < 0 (real);  gradient 0 (real inputs), i grad x / |x|² (complex)"""
    node_name = "AngleBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        ctx.save_for_backward(x)   # PyTorch saves self (angle_backward reads it): in-place writes are checked
        if x.dtype.kind == "c":
            return xp.angle(x)
        xf = to_float(x)
        return xp.where(xf < 0, np.pi, xp.where(xp.isnan(xf), xf, 0)).astype(xf.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        if x.is_complex():   # PyTorch's angle_backward: i grad x / |x|², 0 at x = 0
            return where(x == 0, 0.0, grad * x / x.abs().pow(2) * 1j)
        return zero_grad(grad)


def _logcumsumexp_real(x, dim):
    """PyTorch's CPU loop: one step along dim at a time, acc = max + log1p(exp(min - max)) in double
    (float for float16/bfloat16). Exact where one term dominates: logcumsumexp([-1e308, ...]) starts
    with -1e308 itself, where log(cumsum(exp(x - max))) + max would give -inf."""
    xp = namespace(x, dim)
    acc_dt = np.float64 if x.dtype.itemsize >= 4 else np.float32
    xs = xp.moveaxis(x.reshape(x.shape or (1,)), dim, 0).astype(acc_dt)
    out = xp.empty_like(xs)
    acc = xp.full(xs.shape[1:], -np.inf, acc_dt)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(xs.shape[0]):
            lo, hi = xp.minimum(xs[i], acc), xp.maximum(xs[i], acc)  # (a NaN acc stays NaN in both)
            lo, hi = xp.where(xp.isnan(acc), acc, lo), xp.where(xp.isnan(acc), acc, hi)
            both_inf = (lo == hi) & ~xp.isfinite(lo)  # -inf and -inf, inf and inf: the sum is x itself
            acc = xp.where(both_inf, xs[i], hi + xp.log1p(xp.exp(lo - hi)))
            out[i] = acc
    return xp.moveaxis(out, 0, dim).reshape(x.shape).astype(x.dtype)


class LogCumSumExp(ArrayFunction):
    """out_i = log sum_{j<=i} exp(x_j);  dx_j = sum_{i>=j} grad_i exp(x_j - out_i)"""
    node_name = "LogcumsumexpBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, dim):
        xp = namespace(x, dim)
        x = to_float(x)
        if x.dtype.kind == "c":
            m = xp.max(x, axis=dim, keepdims=True) if x.size else x
            m = xp.where(xp.isfinite(m), m, 0)
            with np.errstate(divide="ignore"):
                out = (xp.log(xp.cumsum(xp.exp(x - m), axis=dim)) + m).reshape(x.shape)  # (0-dim stays 0-dim)
        else:
            out = _logcumsumexp_real(x, dim)
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        d = ctx.dim
        if grad.dim() == 0 or grad.numel() == 0:
            return grad, None  # (PyTorch's shortcut: one element, the derivative is 1)
        if grad.is_complex():
            # reverse cumulative sum of grad * exp(-out), times exp(x)
            w = grad * (-out).exp()
            return w.flip(d).cumsum(d).flip(d) * x.exp(), None
        # PyTorch's formula (from TensorFlow): the positive and the negative part of grad summed in log
        # space, a reverse logcumsumexp each. A NaN grad is neither > 0 nor < 0: it gives 0, as there
        lowest = D.finfo(grad.dtype).min
        log_abs = grad.abs().log()
        log_pos = where(grad > 0, log_abs, lowest)
        log_neg = where(grad < 0, log_abs, lowest)

        def reverse_logcumsumexp(t):
            return logcumsumexp(t.flip(d), d).flip(d)

        return (reverse_logcumsumexp(log_pos - out) + x).exp() - (reverse_logcumsumexp(log_neg - out) + x).exp(), None


# ---------------------------------------------------------------- public functions

def lgamma(input, *, out=None):
    r = Lgamma.apply(input)
    return r if out is None else write_out(out, r)


def digamma(input, *, out=None):
    r = Digamma.apply(input)
    return r if out is None else write_out(out, r)


def polygamma(n, input, *, out=None):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    r = Digamma.apply(input) if n == 0 else Polygamma.apply(input, int(n))
    return r if out is None else write_out(out, r)


class Mvlgamma(ArrayFunction):
    """mvlgamma(x, p) = p(p-1)/4 log(pi) + sum_{i<p} lgamma(x - i/2);   dx = grad * sum_{i<p} digamma(x - i/2)"""
    node_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, x, p):
        ctx.save_for_backward(x)
        ctx.p = p

        def kernel(v):
            return p * (p - 1) / 4 * math.log(math.pi) + sum(_lgamma(v - i / 2) for i in range(p))
        with np.errstate(over="ignore"):
            return _float_out(kernel, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * sum(digamma(x - i / 2) for i in range(ctx.p)), None


def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma: sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    r = Mvlgamma.apply(input, p)
    return r if out is None else write_out(out, r)


def i0(input, *, out=None):
    r = I0.apply(input)
    return r if out is None else write_out(out, r)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1 (``torch.special.i1``)."""
    r = I1.apply(input)
    return r if out is None else write_out(out, r)


def copysign(input, other, *, out=None):
    r = (Copysign if isinstance(other, Tensor) else CopysignScalar).apply(input, other)
    return r if out is None else write_out(out, r)


def logaddexp2(input, other, *, out=None):
    require_tensor("logaddexp2", other)
    check_binary_kernel("logaddexp2_cpu", input, other, "fc")
    r = LogAddExp2.apply(input, other)
    return r if out is None else write_out(out, r)


def angle(input, *, out=None):
    r = Angle.apply(input)
    return r if out is None else write_out(out, r)


def _nodiff(fn, input, *others):
    """An elementwise op that records nothing, its result laid out as PyTorch's iterator lays it out."""
    xp = namespace(input._data)
    arrays = [input._data] + [o._data if isinstance(o, Tensor) else o for o in others]
    return Tensor._make(iterator_result(xp.asarray(fn(*arrays)), arrays, len(arrays)))


class Heaviside(ArrayFunction):
    """out = 0 (x < 0), values (x == 0), 1 (x > 0); PyTorch records it without a derivative"""
    node_name = "NotImplemented"
    _elementwise = 2

    @staticmethod
    def forward(ctx, x, values):
        # PyTorch's x == 0 ? values : x > 0 (numpy's heaviside gives NaN for NaN, and floats for ints)
        xp = namespace(x, values)
        return xp.where(x == 0, values, x > 0).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


Heaviside._backward_cls.name = _not_implemented_name


def heaviside(input, values, *, out=None):
    require_tensor("heaviside", values, "values")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    r = Heaviside.apply(input, values)
    return r if out is None else write_out(out, r)


class Nextafter(ArrayFunction):
    """out = the next float after x towards other;  dx = grad where x != other, else 0;  dother = 0
    (PyTorch's formula: a step of one ulp moves with x, but nextafter(x, x) is x standing still)"""
    node_name = "NextafterBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(needed(ctx, 0, a), needed(ctx, 0, b))  # (other's gradient is zeros: reads neither)
        return xp.nextafter(*promote(a, b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (None if a is None else masked_grad(grad, a != b)), zero_grad(grad)


def gcd(input, other, *, out=None):
    require_tensor("gcd", other)
    check_binary_kernel("gcd_cpu", input, other, "i")
    r = _nodiff(lambda a, b: namespace(a).gcd(*promote(a, b)), input, other)
    return r if out is None else write_out(out, r)


def lcm(input, other, *, out=None):
    require_tensor("lcm", other)
    check_binary_kernel("lcm_cpu", input, other, "i")
    r = _nodiff(lambda a, b: namespace(a).lcm(*promote(a, b)), input, other)
    return r if out is None else write_out(out, r)


class Ldexp(ArrayFunction):
    """out = x * 2**e (in x's float dtype);  dx = grad * 2**e,  de = grad * out * ln 2"""
    node_name = "LdexpBackward0"
    # (elementwise, but forward lays its result out itself: see the mul below)

    @staticmethod
    def forward(ctx, x, e):
        xp = namespace(x, e)
        with np.errstate(over="ignore"):  # (a huge integer exponent overflows float16: that's the answer)
            xs, es = promote_to_float(x, e)
        dt = xs.dtype
        if is_float_np(x.dtype) and is_array(e) and e.dtype.kind in "iu":
            # a float x with an integer exponent is C's ldexp in PyTorch, which takes an int: the exponent
            # is truncated to 32 bits (2**32 - 1 acts as -1), and half types compute in float32
            with np.errstate(over="ignore"):
                out = xp.ldexp(to_opmath(xs), e.astype(np.int32)).astype(dt)
            # its result is empty_like(x); where x broadcasts, TensorIterator resizes it, laid out from x and e
            out = like_empty_like(out, x) if x.shape == out.shape else iterator_result(out, (x, e), 2)
        else:
            # otherwise it is mul(x, pow(2, e)), and pow rounds to its own dtype first. For a float32 or
            # integer x that is pow(2.0, e): e's dtype (a bfloat16 e gives a bfloat16 power even when x is
            # float32; an integer e's power is the default float). For other dtypes it is
            # full((), 2.0, x.dtype).pow(e): promoted with that 0-dim tensor, so a 0-dim e joins x's dtype
            if x.dtype == np.float32 or x.dtype.kind in "biu":
                pdt = e.dtype if is_float_np(e.dtype) else es.dtype
            else:
                pdt = result_type_of(xp.zeros((), x.dtype), e).np
            scale = xp.power(2.0, to_opmath(e.astype(pdt))).astype(pdt)
            out = (to_opmath(xs) * to_opmath(scale.astype(dt))).astype(dt)
            # the product is laid out from x and the power. For a float32 or integer x ATen's power is
            # pow(2.0, e), whose result is allocated contiguous (not in e's layout); for other dtypes it is
            # full((), 2.0, x.dtype).pow(e), an elementwise op laid out from e
            power = xp.ascontiguousarray(e) if x.dtype == np.float32 or x.dtype.kind in "biu" else (
                iterator_result(scale, (e,), 1))
            out = iterator_result(out, (x, power), 2)
        # x's gradient reads e, e's reads the result (PyTorch saves a result always, an input only for the
        # gradient that reads it: an in-place write to what is saved is an error)
        ctx.save_for_backward(needed(ctx, 0, e), out)
        return out

    @staticmethod
    def backward(ctx, grad):
        e, out = ctx.saved_tensors
        need = ctx.needs_input_grad
        ge = grad * out * math.log(2) if need[1] else None   # (e's first, as PyTorch: see elementwise.Mul)
        gx = None
        if need[0]:
            scale = 2 ** e  # PyTorch's formula, pow(2, e): in e's dtype, so an integer e < 0 gives 0
            gx = grad * (scale if scale.is_floating_point() else scale.to(grad.dtype))
        return gx, ge


def ldexp(input, other, *, out=None):
    require_tensor("ldexp", other)
    broadcast_shapes_or_raise(tuple(input.shape), tuple(other.shape))   # (PyTorch's first complaint)
    if is_float_np(input._data.dtype) and other._data.dtype == np.bool_:
        # (that integer-exponent kernel has no bool version; an integer input goes another way and takes it)
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    r = Ldexp.apply(input, other)
    return r if out is None else write_out(out, r)


def frexp(input, *, out=None):
    m, e = namespace(input._data).frexp(input._data)
    from .sorting import return_types, _return_type
    cls = getattr(return_types, "frexp", None) or _return_type("frexp", ("mantissa", "exponent"))
    r = cls((Tensor._make(m), Tensor._make(e.astype(np.int32))))
    return r if out is None else write_out(out, r)


def nextafter(input, other, *, out=None):
    require_tensor("nextafter", other)
    check_binary_kernel("nextafter_cpu", input, other, "f")
    r = Nextafter.apply(input, other)
    return r if out is None else write_out(out, r)


def dist(input, other, p=2):
    require_tensor("dist", other)
    _no_bool_sub(input._data, other._data)  # (PyTorch subtracts first)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_type_word(input._data.dtype)} instead.")
    from .reduction import Dist
    return Dist.apply(input, other, float(p))


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input):
    n = input.numel()
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with " + ("no values" if n == 0 else "more than one value")
                           + " is ambiguous")
    return bool(input.item())


def bincount(input, weights=None, minlength=0):
    xp = namespace(input._data)
    check_kernel_dtype("bincount_cpu", input._data.dtype, "iu")
    no_meta_kernel("bincount", input._data)   # (the dispatch refuses floats and bool first)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input._data.ndim != 1 or input._data.size and input._data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.shape[0] != input._data.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if input._data.size == 0:   # (PyTorch returns int64 zeros for an empty input, weights or not)
        return Tensor._make(xp.zeros(minlength, np.int64))
    w = weights._data if weights is not None else None
    out = xp.bincount(input._data, weights=w, minlength=minlength)
    if weights is None:
        out = out.astype(np.int64)
    elif weights._data.dtype == np.float32:
        out = out.astype(np.float32)
    return Tensor._make(out)


def logcumsumexp(input, dim, *, out=None):
    from ._util import wrap_dim
    dim = wrap_dim(dim, input._data.ndim)  # (PyTorch checks the dim before the dtype)
    check_kernel_dtype("logcumsumexp_out_cpu", input._data.dtype, "fc")
    r = LogCumSumExp.apply(input, dim)
    return r if out is None else write_out(out, r)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows of ``input`` (variables) over its columns (observations)."""
    x = input if input.dim() == 2 else input.reshape(1, -1)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights.to(x.dtype)
    if aweights is not None:
        w = aweights.to(x.dtype) if w is None else w * aweights
    if w is None:
        mean = x.mean(1, keepdim=True)
        xc = x - mean
        c = (xc @ xc.t()) / (n - correction)
    else:
        wsum = w.sum()
        mean = (x * w).sum(1, keepdim=True) / wsum
        xc = x - mean
        if aweights is None:
            norm = wsum - correction
        else:
            norm = wsum - correction * (w * aweights).sum() / wsum
        c = ((xc * w) @ xc.t()) / norm
    return c.squeeze() if input.dim() < 2 else c


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` rescaled so its p-norm is at most ``maxnorm``."""
    from ._util import wrap_dim
    d = wrap_dim(dim, input.dim())
    others = tuple(i for i in range(input.dim()) if i != d)
    norms = input.abs().pow(p).sum(others, keepdim=True).pow(1.0 / p) if others else input.abs()
    scale = (maxnorm / (norms + 1e-7)).clamp(max=1.0)
    return input * scale


def _ip(fn):
    """An in-place method made from an out-of-place op: compute, then copy_ into self."""
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    return method


def _in_place(pick):
    """The in-place method of an op that is one Function (``lgamma_``): its Function run in place on self.
    PyTorch records the op's own node (LgammaBackward0, saving the original self), not a copy_ of a new
    result, whose node would find its saved self overwritten. ``pick(self, *args)`` does the op's checks
    and returns its Function."""
    def method(self, *args):
        return _inplace_twin(pick(self, *args)).apply(self, *args)
    return method


def _ldexp_class(self, other):
    require_tensor("ldexp", other)
    if self._data.dtype.kind in "iub":   # the float result can't go back into an integer self (PyTorch's words)
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_type_word(self._data.dtype)}")
    return Ldexp


def _nextafter_class(self, other):
    require_tensor("nextafter", other)
    check_binary_kernel("nextafter_cpu", self, other, "f")
    return Nextafter


def _mvlgamma_class(self, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return Mvlgamma


class PolygammaInPlace(Polygamma):
    """``x.polygamma_(n)``: PyTorch's node of the method form is PolygammaBackward1 (n = 0 included)"""
    node_name = "PolygammaBackward1"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, x, n):
        if n == 0:
            ctx.n = 0
            return Digamma.forward(ctx, x)
        return Polygamma.forward(ctx, x, n)


def _polygamma_(self, n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return PolygammaInPlace.apply(self, int(n))


register({
    "lgamma": lgamma, "digamma": digamma, "polygamma": lambda self, n: polygamma(n, self),
    "mvlgamma": mvlgamma, "i0": i0, "copysign": copysign, "heaviside": heaviside, "gcd": gcd, "lcm": lcm,
    "ldexp": ldexp, "frexp": frexp, "logaddexp2": logaddexp2, "nextafter": nextafter, "angle": angle,
    "dist": dist, "is_same_size": is_same_size, "is_nonzero": is_nonzero, "bincount": bincount,
    "logcumsumexp": logcumsumexp, "cov": cov, "corrcoef": corrcoef, "renorm": renorm,
    "lgamma_": _in_place(lambda self: Lgamma), "digamma_": _in_place(lambda self: Digamma),
    "polygamma_": _polygamma_, "mvlgamma_": _in_place(_mvlgamma_class), "i0_": _in_place(lambda self: I0),
    "copysign_": _in_place(lambda self, other: Copysign if isinstance(other, Tensor) else CopysignScalar),
    "heaviside_": _ip(heaviside), "gcd_": _ip(gcd), "lcm_": _ip(lcm), "ldexp_": _in_place(_ldexp_class),
    "nextafter_": _in_place(_nextafter_class),
    "renorm_": _ip(renorm),
})


# ---------------------------------------------------------------- more of torch's namespace

def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not (isinstance(elements, Tensor) and isinstance(test_elements, (Tensor, numbers.Number)) or
            isinstance(test_elements, Tensor) and isinstance(elements, numbers.Number)):
        word = lambda v: "Tensor" if isinstance(v, Tensor) else type(v).__name__
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({word(elements)}, {word(test_elements)}), "
            "but expected one of:\n"
            " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
            " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
            " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n")
    like = next((v._data for v in (elements, test_elements) if isinstance(v, Tensor)), None)
    xp = namespace(like)   # (a number or list joins the tensor's device)
    e = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    return Tensor._make(xp.asarray(xp.isin(e, t, invert=invert)))


def unravel_index(indices, shape):
    xp = namespace(indices._data if isinstance(indices, Tensor) else None)
    if isinstance(shape, int):
        shape = (shape,)
    idx = indices._data if isinstance(indices, Tensor) else xp.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {Tensor._make(idx).dtype}")
    size = math.prod(shape)
    if (idx < 0).any() or (idx >= size).any():
        raise RuntimeError("'indices' must be in range [-%d, %d)" % (size, size))
    return tuple(Tensor._make(xp.asarray(a, dtype=np.int64)) for a in xp.unravel_index(idx, tuple(shape)))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of y along dim by the trapezoid rule (spacing dx, or sample points x)."""
    n = y.shape[dim]
    a = y.narrow(dim, 1, n - 1)
    b = y.narrow(dim, 0, n - 1)
    if x is None or isinstance(x, (int, float)):
        step = (dx if dx is not None else (x if x is not None else 1))
        return (a + b).sum(dim) * (step / 2)
    if x.dim() == 1:
        d = x[1:] - x[:-1]
        shape = [1] * y.dim()
        shape[dim] = n - 1
        d = d.reshape(shape)
    else:
        d = x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    return ((a + b) * d).sum(dim) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    n = y.shape[dim]
    a = y.narrow(dim, 1, n - 1)
    b = y.narrow(dim, 0, n - 1)
    if x is None or isinstance(x, (int, float)):
        step = (dx if dx is not None else (x if x is not None else 1))
        return ((a + b) * (step / 2)).cumsum(dim)
    d = x[1:] - x[:-1] if x.dim() == 1 else x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[dim] = n - 1
        d = d.reshape(shape)
    return ((a + b) * d / 2).cumsum(dim)


def _slice(t, dim, start, end=None):
    return t[(slice(None),) * dim + (slice(start, end),)]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the derivative of sampled values along each dim by finite differences (numpy.gradient):
    a tuple with one tensor per dim, each of input's shape.

    Inside, central differences: (f[k+1] - f[k-1]) / 2h, or for unevenly spaced coordinates x the
    second-order three-point formula.  At the two edges, one-sided differences: first order
    (f[1] - f[0]) / h with ``edge_order=1``, second order (-3/2 f[0] + 2 f[1] - 1/2 f[2]) / h with 2.
    ``spacing``: one step h for every dim, a list of steps (one per dim), or a list of 1-D coordinate tensors.
    Written with tensor ops (slices, arithmetic, cat), as ATen writes it: differentiable."""
    nd = input.dim()
    given_dim = dim
    if dim is None:
        dims = list(range(nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    if isinstance(spacing, (list, tuple)):
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
        if spacing == 1 and given_dim is None:
            spacings = None    # (no spacing given: the length check below is skipped, as in ATen)
    # ATen's pre_check_gradient
    if input.dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacings is not None and given_dim is None and len(spacings) != nd:
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {nd}', since dim argument was not given, but got a list of length "
                           f"{len(spacings)}")
    if spacings is not None and given_dim is not None and len(spacings) != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacings)} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = [wrap_dim(d, nd) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    spacings = spacings or [1.0] * len(dims)
    result = []
    for d, h in zip(dims, spacings):
        f = input
        if isinstance(h, Tensor):   # coordinates: the three-point formulas for uneven steps
            if h.dim() != 1:
                raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but "
                                   f"got an element with {h.dim()} dimensions!")
            shape = [1] * nd
            shape[d] = -1
            dx = h.diff(1, 0)
            dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1)
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            center = a * _slice(f, d, 0, -2) + b * _slice(f, d, 1, -1) + c * _slice(f, d, 2)
            if edge_order == 1:
                first = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / dx[0]
                last = (_slice(f, d, -1) - _slice(f, d, -2, -1)) / dx[-1]
            else:
                a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
                b = (dx[0] + dx[1]) / (dx[0] * dx[1])
                c = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
                first = a * _slice(f, d, 0, 1) + b * _slice(f, d, 1, 2) + c * _slice(f, d, 2, 3)
                a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
                b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
                c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
                last = a * _slice(f, d, -3, -2) + b * _slice(f, d, -2, -1) + c * _slice(f, d, -1)
        else:                       # one step h along this dim (ATen's Scalar ops: MulBackward1, DivBackward1)
            center = Div1.apply(Div1.apply(_slice(f, d, 2) - _slice(f, d, 0, -2), h), 2)
            if edge_order == 1:
                first = Div1.apply(_slice(f, d, 1, 2) - _slice(f, d, 0, 1), h)
                last = Div1.apply(_slice(f, d, -1) - _slice(f, d, -2, -1), h)
            else:
                first = Div1.apply(Mul1.apply(_slice(f, d, 0, 1), -1.5) + Mul1.apply(_slice(f, d, 1, 2), 2) -
                                   Mul1.apply(_slice(f, d, 2, 3), 0.5), h)
                last = Div1.apply(Mul1.apply(_slice(f, d, -3, -2), 0.5) - Mul1.apply(_slice(f, d, -2, -1), 2) +
                                  Mul1.apply(_slice(f, d, -1), 1.5), h)
        result.append(cat([first, center, last], d))
    return tuple(result)


def _histogram_edges(sample, bins, rng, dtype, name):
    """The bin edges of each of sample's columns: given tensors, or ``bins[d]`` equal parts of ``rng`` (or the
    column's min to max; a zero-width range widened by 0.5 each side; no data: 0 to 1), as linspace makes them."""
    from .creation import linspace
    from .linalg import _cname
    D = sample.shape[1]
    counts = bins if isinstance(bins, (list, tuple)) else [bins] * D
    if len(counts) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    edges = []
    for d, b in enumerate(counts):
        if isinstance(b, Tensor):
            if b._data.dtype != sample.dtype:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input with dtype {_cname(sample.dtype)} and bins for dimension {d} "
                                   f"with dtype {_cname(b._data.dtype)}")
            edges.append(b._data)
            continue
        if b <= 0:
            raise RuntimeError(f"{name}(): bins must be > 0, but got {b} for dimension {d}")
        if rng is not None:
            lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
        elif sample.shape[0]:
            lo, hi = float(sample[:, d].min()), float(sample[:, d].max())
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               f"dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(linspace(lo, hi, int(b) + 1, dtype=dtype)._data)
    return edges


def histogramdd(input, bins=10, *, range=None, weight=None, density=False, out=None):
    """Counts of the rows of ``input`` (..., D) in a D-dimensional grid of bins: ``bins`` is an int, D ints or
    D tensors of edges; ``range`` = (min0, max0, min1, max1, ...) for counted bins.  A value on an inner edge
    goes to the bin on its right; the last bin includes its right edge (as each numpy/PyTorch histogram)."""
    from .linalg import _cname
    from .sorting import return_types, _return_type
    x = input._data
    if x.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_type_word(x.dtype)}'")
    D = x.shape[-1] if x.ndim else 1
    sample = x.reshape(-1, D)
    lead = list(x.shape[:-1]) if x.ndim else []
    if weight is not None:
        if list(weight.shape) != lead:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(sample.shape)} and weight with shape {list(weight.shape)}")
        if weight._data.dtype != x.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_cname(x.dtype)}), and "
                               f"weight({_cname(weight._data.dtype)})")
    edges = _histogram_edges(sample, bins, range, input.dtype, "torch.histogram" if D == 1 else "torch.histogramdd")
    xp = namespace(x)
    w = None if weight is None else weight._data.reshape(-1)
    hist, _ = xp.histogramdd(sample, bins=edges, weights=w, density=density)
    cls = getattr(return_types, "histogramdd", None) or _return_type("histogramdd", ("hist", "bin_edges"))
    return cls((Tensor._make(hist.astype(x.dtype)), tuple(Tensor._make(e.copy()) for e in edges)))


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """The one-dimensional ``histogramdd`` of the flattened ``input``: (hist, bin_edges)."""
    from .sorting import return_types, _return_type
    hist, (edges,) = histogramdd(input.reshape(-1, 1), [bins], range=range,
                                 weight=None if weight is None else weight.reshape(-1), density=density)
    cls = getattr(return_types, "histogram", None) or _return_type("histogram", ("hist", "bin_edges"))
    r = cls((hist, edges))
    return r if out is None else write_out(out, r)


def vander(x, N=None, increasing=False):
    n = x.shape[0] if N is None else N
    from .creation import arange
    dt = x.dtype if x.is_floating_point() else D.int64
    p = arange(n, dtype=dt, device=x.device) if increasing else arange(n - 1, -1, -1, dtype=dt, device=x.device)
    return x.unsqueeze(-1) ** p


def threshold(input, threshold, value, inplace=False):
    """y = x where x > threshold, else value (ThresholdBackward0: the gradient passes where x > threshold)."""
    from .elementwise import where
    r = where(input > threshold, input, value)
    return input.copy_(r) if inplace else r


def matrix_exp(A):
    """exp(A) by scaling and squaring with a degree-18 Taylor polynomial (differentiable: built from matmul)."""
    from .creation import eye
    norm = float(abs(A._data).sum(-2).max()) if A.numel() else 0.0   # (one device sync: s is a loop count)
    s = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0.5 else 0   # (host numbers)
    X = A / (2 ** s)
    n = A.shape[-1]
    I = eye(n, dtype=A.dtype, device=A.device).expand(A.shape)
    term, out = I, I
    for k in range(1, 19):
        term = term @ X / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _igamma_series(a, x):
    """Regularised lower incomplete gamma P(a, x) by its power series (x < a + 1)."""
    xp = namespace(a, x)
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(300):
        ap = ap + 1
        term = term * x / ap
        total = total + term
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return total * xp.exp(-x + a * xp.log(x) - _lgamma(a))


def _igammac_cf(a, x):
    """Regularised upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1), Lentz's method."""
    xp = namespace(a, x)
    tiny = 1e-300
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = x + 1 - a
        c = xp.full_like(x, 1 / tiny)
        d = 1 / b
        h = d.copy()
        for i in range(1, 300):
            an = -i * (i - a)
            b = b + 2
            d = an * d + b
            d = xp.where(xp.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = xp.where(xp.abs(c) < tiny, tiny, c)
            d = 1 / d
            h = h * d * c
        return xp.exp(-x + a * xp.log(x) - _lgamma(a)) * h


def _gammainc(a, x):
    """P(a, x) with PyTorch's edge values; the series / continued fraction of ops/special.py."""
    xp = namespace(a, x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        series = x < a + 1
        p = xp.where(series, _igamma_series(a, xp.where(series, x, 0)), 1 - _igammac_cf(a, xp.where(series, a + 2, x)))
    return _incomplete_gamma_edges(a, x, p, upper=False)


def _gammaincc(a, x):
    """Q(a, x) computed directly where it is small (x >= a + 1), not as 1 - P (which would round to 0)."""
    xp = namespace(a, x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        series = x < a + 1
        q = xp.where(series, 1 - _igamma_series(a, xp.where(series, x, 0)), _igammac_cf(a, xp.where(series, a + 2, x)))
    return _incomplete_gamma_edges(a, x, q, upper=True)


def _incomplete_gamma_edges(a, x, value, upper):
    """PyTorch's values where the series do not apply: a = 0, x = 0, a or x infinite, a or x < 0."""
    xp = namespace(a, x, value)

    def lower_or_upper(v):
        return 1 - v if upper else v
    out = xp.where(xp.isinf(x), lower_or_upper(1.0), value)
    out = xp.where(xp.isinf(a), xp.where(xp.isinf(x), np.nan, lower_or_upper(0.0)), out)
    out = xp.where(x == 0, lower_or_upper(0.0), out)
    out = xp.where(a == 0, xp.where(x > 0, lower_or_upper(1.0), np.nan), out)
    return xp.where((x < 0) | (a < 0), np.nan, out)


def _incomplete_gamma_forward(ctx, a, x, kernel, kernel_name):
    """P or Q in the promoted dtype of (a, x), which must be floating (PyTorch has no integer kernel)."""
    a2, x2 = promote(a, x)
    dt = np.result_type(a2, x2)                       # (promote leaves bool with float as it is)
    if not is_float_np(dt):
        raise NotImplementedError(f"\"{kernel_name}_cpu\" not implemented for '{_type_word(dt)}'")
    ctx.save_for_backward(a, x)
    return kernel(a2.astype(np.float64), x2.astype(np.float64)).astype(dt)


def _incomplete_gamma_density(ctx, kernel_name):
    """x^(a-1) e^-x / Gamma(a), the derivative of P(a, x) in x (PyTorch has none in a)."""
    a, x = ctx.saved_tensors
    if ctx.needs_input_grad[0]:
        raise NotImplementedError(f"the derivative for '{kernel_name}: input' is not implemented.")
    return ((a - 1) * x.log() - x - a.lgamma()).exp()


class Gammainc(ArrayFunction):
    """gammainc(a, x) = P(a, x);   d/dx = exp((a - 1) log x - x - lgamma(a))  (none w.r.t. a in PyTorch)"""
    node_name = "IgammaBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, x):
        return _incomplete_gamma_forward(ctx, a, x, _gammainc, "igamma")

    @staticmethod
    def backward(ctx, grad):
        return None, grad * _incomplete_gamma_density(ctx, "igamma")


class Gammaincc(ArrayFunction):
    """gammaincc(a, x) = Q(a, x) = 1 - P(a, x);   d/dx = -exp((a - 1) log x - x - lgamma(a))"""
    node_name = "IgammacBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, x):
        return _incomplete_gamma_forward(ctx, a, x, _gammaincc, "igammac")

    @staticmethod
    def backward(ctx, grad):
        return None, -grad * _incomplete_gamma_density(ctx, "igammac")


def igamma(input, other, *, out=None):
    """Regularised lower incomplete gamma P(a, x) (no gradient w.r.t. a, as in PyTorch)."""
    require_tensor("igamma", other)
    r = Gammainc.apply(input, other)
    return r if out is None else write_out(out, r)


def igammac(input, other, *, out=None):
    """Regularised upper incomplete gamma Q(a, x) = 1 - P(a, x), computed directly where it is small."""
    require_tensor("igammac", other)
    r = Gammaincc.apply(input, other)
    return r if out is None else write_out(out, r)


def to_dlpack(tensor):
    return tensor.__dlpack__()


__all__ += ["gradient", "isin", "unravel_index", "trapezoid", "trapz", "cumulative_trapezoid", "histogram", "histogramdd", "vander",
            "threshold", "matrix_exp", "igamma", "igammac", "to_dlpack"]

register({"histogram": histogram, "histogramdd": histogramdd, "matrix_exp": matrix_exp, "igamma": igamma,
          "igammac": igammac, "igamma_": _ip(igamma), "igammac_": _ip(igammac)})


def _window(kind, window_length, periodic=True, *, dtype=None, device=None, requires_grad=False, **kw):
    device = factory_device(device)
    xp = device_namespace(None if device is None else as_device(device))   # (allocated there directly)
    from .creation import _finish
    n = window_length
    np_dt = (dtype or D.get_default_dtype()).np
    if n == 0:
        return _finish(xp.zeros(0, np_dt), device, requires_grad)
    if n == 1:
        return _finish(xp.ones(1, np_dt), device, requires_grad)
    m = n + 1 if periodic else n
    k = xp.arange(m, dtype=np.float64)
    if kind == "hann":
        w = 0.5 - 0.5 * xp.cos(2 * np.pi * k / (m - 1))
    elif kind == "hamming":
        alpha, beta = kw.get("alpha", 0.54), kw.get("beta", 0.46)
        w = alpha - beta * xp.cos(2 * np.pi * k / (m - 1))
    elif kind == "blackman":
        w = 0.42 - 0.5 * xp.cos(2 * np.pi * k / (m - 1)) + 0.08 * xp.cos(4 * np.pi * k / (m - 1))
    elif kind == "bartlett":
        w = 1 - xp.abs(2 * k / (m - 1) - 1)
    else:  # kaiser
        beta = kw.get("beta", 12.0)
        w = xp.i0(beta * xp.sqrt(xp.clip(1 - (2 * k / (m - 1) - 1) ** 2, 0, None))) / xp.i0(beta)
    return _finish(w[:n].astype(np_dt), device, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("hann", window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _window("hamming", window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad,
                   alpha=alpha, beta=beta)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("blackman", window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("bartlett", window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    return _window("kaiser", window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad,
                   beta=beta)


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, inplace=True)


__all__ += ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "threshold_"]
