"""``pedatorch.special``: PyTorch's ``torch.special`` (special functions of probability and physics).

``import pedatorch.special`` and ``from pedatorch.special import ndtr`` work as with torch.
Many names are aliases of ops that live elsewhere (``expit`` is ``sigmoid``, ``gammaln`` is
``lgamma``, ``psi`` is ``digamma``, ``i0`` is ``i0``, ...); the functions only torch.special has
are one ``ArrayFunction`` each, with its formula in the docstring::

    entr(x)       = -x log x                     d/dx = -(1 + log x)
    ndtr(x)       = (1 + erf(x / sqrt 2)) / 2    d/dx = exp(-x²/2) / sqrt(2 pi)
    log_ndtr(x)   = log ndtr(x)                  d/dx = exp(-x²/2 - log_ndtr(x)) / sqrt(2 pi)
    ndtri(p)      = ndtr^-1(p)                   d/dp = sqrt(2 pi) exp(ndtri(p)² / 2)
    erfcx(x)      = exp(x²) erfc(x)              d/dx = 2 x erfcx(x) - 2 / sqrt(pi)
    i0e(x)        = exp(-|x|) I0(x)              d/dx = i1e(x) - sgn(x) i0e(x)
    i1e(x)        = exp(-|x|) I1(x)              d/dx = i0e(x) - i1e(x) (sgn(x) + 1/x)
    xlog1py(x, y) = x log(1 + y)                 d/dx = log(1 + y),   d/dy = x / (1 + y)
    gammainc(a, x)  = P(a, x) = gamma(a, x) / Gamma(a)     d/dx = x^(a-1) e^-x / Gamma(a)
    gammaincc(a, x) = Q(a, x) = 1 - P(a, x)                d/dx = -x^(a-1) e^-x / Gamma(a)
    zeta(x, q)    = sum_k (k + q)^-x  (Hurwitz)  d/dq = -x zeta(x + 1, q)
    multigammaln(x, p) = p(p-1)/4 log(pi) + sum_i lgamma(x - i/2)
    bessel_j0, bessel_j1, spherical_bessel_j0: Bessel functions of the first kind (no gradient, as in
    PyTorch)

numpy has none of these kernels (and scipy is not a dependency), so they are built here from
numpy's exp/log and from the kernels in ``ops/special.py`` (lgamma, digamma, I0, I1, the incomplete
gamma series): erfcx by Weideman's rational series, ndtri by Newton steps on log_ndtr, the Bessel
functions by the trapezoid rule on Bessel's integral and by Hankel's expansion for large x.
Float64 results agree with PyTorch to about 1e-14 relative; float16/bfloat16 are computed in
float64 and rounded once.

Not here yet (``AttributeError``): airy_ai, bessel_y0, bessel_y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, and the orthogonal polynomials (chebyshev_polynomial_t/u/v/w,
shifted_chebyshev_polynomial_t/u/v/w, hermite_polynomial_h/he, laguerre_polynomial_l,
legendre_polynomial_p).
"""
import math

import numpy as np

from ._tensor import Tensor
from .backend import namespace
from ._dtype import to_opmath, is_float_np
from .autograd.function import ArrayFunction
from .ops._util import promote_to_float, to_float, write_out, require_tensor, is_number, _type_word
from .ops.elementwise import (where, RoundDecimals, _erf, _erfc, _erfcx, sigmoid as expit, logit, erf, erfc, erfinv, exp2, expm1,
                              log1p, sinc, xlogy)
from .ops.special import (Gammainc, Gammaincc, mvlgamma, _float_out, _i1, _BERN, lgamma as gammaln, digamma,
                          polygamma, i0, i1)
from .ops.scalar import AddScalar, MulScalar
from .ops.reduction import logsumexp, softmax as _softmax, log_softmax as _log_softmax

psi = digamma

__all__ = ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit",
           "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax",
           "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_PI = math.sqrt(math.pi)


# ====================================================================== helpers

def _check_tensor(fn, input, arg="input", position=1):
    """PyTorch's TypeError for a Python number where the op wants a Tensor."""
    require_tensor("special_" + fn, input, arg, position)


def _no_reduced(x, kernel):
    """The ops PyTorch has no float16/bfloat16 CPU kernel for raise its NotImplementedError."""
    dt = getattr(x, "dtype", x)   # (an array, or a dtype)
    if dt.itemsize == 2 and is_float_np(dt):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(dt)}'")


def _two_numbers(fn, input, other):
    """``xlog1py(2.0, 3.0)``: PyTorch has Tensor/Number overloads, but none for two numbers."""
    if is_number(input) and is_number(other):
        raise TypeError(f"special_{fn}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                        f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        f" * (Number self, Tensor other, *, Tensor out = None)\n"
                        f" * (Tensor input, Number other, *, Tensor out = None)\n")


def _compute(kernel, x):
    """``kernel`` in float64, the result in x's float dtype (integers: the default float); a value
    beyond float32's range rounds to inf, as PyTorch's float32 kernels give it."""
    with np.errstate(over="ignore"):
        return _float_out(kernel, x)


def _nondifferentiable(kernel, input):
    """PyTorch marks the Bessel functions' outputs non-differentiable: a plain Tensor, no grad_fn."""
    xp = namespace(input._data)
    return Tensor._make(xp.asarray(_compute(kernel, input._data)))


# ====================================================================== kernels (float64 arrays)

def _log_ndtr(x):
    """log ndtr(x) = log(erfc(-x / sqrt 2) / 2), as PyTorch computes it:
    x < -1: log(erfcx(-t) / 2) - t²  (no underflow: log_ndtr(-50) = -1254.8),  t = x / sqrt 2
    else:   log1p(-erfc(t) / 2)     (no rounding to 0: log_ndtr(10) = -7.6e-24)"""
    xp = namespace(x)
    t = x * math.sqrt(0.5)        # (PyTorch's rounding of t: far out, erfc(t) magnifies it 2 t² times)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        left = xp.log(_erfcx(-t) / 2) - t * t
        right = xp.log1p(-_erfc(t) / 2)
    return xp.where(x < -1, left, right)


def _ndtri(p):
    """ndtri(p): the x with ndtr(x) = p.

    By symmetry only the left half is solved, q = min(p, 1 - p) <= 1/2 (1 - p is exact there).
    A start from Abramowitz & Stegun 26.2.23 (error < 5e-4), then Newton steps on
    f(x) = log_ndtr(x) - log q, whose derivative exp(-x²/2 - log_ndtr(x)) / sqrt(2 pi) never
    underflows; Newton doubles the correct digits, so 4 steps reach float64's precision.
    """
    xp = namespace(p)
    q = xp.minimum(p, 1 - p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = xp.sqrt(-2 * xp.log(q))
        x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
              (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
        log_q = xp.log(q)
        for _ in range(4):
            lnd = _log_ndtr(x)
            x = x - (lnd - log_q) * _SQRT_2PI * xp.exp(x * x / 2 + lnd)
        x = xp.where(q == 0, -np.inf, x)
        x = xp.where(p > 0.5, -x, x)
        x = xp.where(p == 0.5, 0.0, x)
        return xp.where((p < 0) | (p > 1), np.nan, x)      # (NaN stays NaN through the steps)


def _scaled_bessel_i_large(nu, ax):
    """exp(-x) I_nu(x) for large x > 0 (Hankel's expansion, 30 terms: good to 1e-16 from x = 40):
    exp(-x) I_nu(x) ~ 1 / sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 nu² - (2j-1)²) / (k! (8x)^k)"""
    xp = namespace(nu, ax)
    mu = 4.0 * nu * nu
    term = xp.ones_like(ax)
    total = term.copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(1, 31):
            term = -term * (mu - (2 * k - 1) ** 2) / (8 * k * ax)
            total = total + term
        return total / xp.sqrt(2 * math.pi * ax)


def _i0e(x):
    """exp(-|x|) I0(x): numpy's i0 below |x| = 40, Hankel's expansion above (no overflow)."""
    xp = namespace(x)
    ax = xp.abs(x)
    small = ax < 40
    with np.errstate(over="ignore", invalid="ignore"):
        out = xp.where(small, xp.i0(xp.where(small, ax, 0)) * xp.exp(-ax), _scaled_bessel_i_large(0, ax))
    return xp.where(ax == np.inf, 0.0, out)


def _i1e(x):
    """exp(-|x|) I1(x), odd in x: the I1 series of ops/special.py below |x| = 40, Hankel above."""
    xp = namespace(x)
    ax = xp.abs(x)
    small = ax < 40
    with np.errstate(over="ignore", invalid="ignore"):
        out = xp.where(small, _i1(xp.where(small, ax, 0)) * xp.exp(-ax), _scaled_bessel_i_large(1, ax))
    out = xp.where(ax == np.inf, 0.0, out)
    return xp.where(x < 0, -out, out)          # (i1e(-0.) is +0. in PyTorch, i1e(-inf) is -0.)


def _bessel_j(n, x):
    """J_n(x), n = 0 or 1.

    |x| < 1: the power series J_n(x) = sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!)  (exact near 0).
    1 <= |x| <= 25: Bessel's integral J_n(x) = 1/pi int_0^pi cos(n t - x sin t) dt by the trapezoid rule.
    The integrand is smooth and periodic, so the rule converges exponentially: its error is about
    J_(2m)(x), negligible with m = 64 intervals.
    |x| > 25: Hankel's expansion J_n(x) = sqrt(2 / (pi x)) (P cos(chi) - Q sin(chi)),
    chi = x - (n/2 + 1/4) pi, P and Q the even and odd terms of the series of _scaled_bessel_i_large
    with alternating signs.
    """
    xp = namespace(n, x)
    ax = xp.abs(x)
    small = ax <= 25
    xs = xp.where(small, ax, 0.0)
    m = 64
    integral = xp.zeros_like(xs)
    for k in range(m + 1):
        t = math.pi * k / m
        weight = 0.5 if k in (0, m) else 1.0
        integral = integral + weight * xp.cos(n * t - xs * math.sin(t))
    integral = integral / m

    mu = 4.0 * n * n
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xl = xp.where(small, 100.0, ax)
        p, q = xp.ones_like(xl), xp.zeros_like(xl)
        term = xp.ones_like(xl)
        for k in range(1, 31):
            term = term * (mu - (2 * k - 1) ** 2) / (8 * k * xl)
            sign = -1 if k % 4 in (2, 3) else 1            # i^k: +Q, -P, -Q, +P, ...
            if k % 2:
                q = q + sign * term
            else:
                p = p + sign * term
        chi = xl - (n / 2 + 0.25) * math.pi
        large = xp.sqrt(2 / (math.pi * xl)) * (p * xp.cos(chi) - q * xp.sin(chi))
    half = xp.minimum(ax, 1.0) / 2
    term = half ** n / math.factorial(n)
    series = term
    for k in range(1, 12):
        term = -term * half * half / (k * (k + n))
        series = series + term

    out = xp.where(ax < 1, series, xp.where(small, integral, large))
    out = xp.where(xp.isnan(x), x, out)
    return xp.where(xp.signbit(x), -out, out) if n == 1 else out     # J0 is even, J1 odd (J1(-0.) = -0.)


def _zeta(x, q):
    """Hurwitz zeta(x, q) = sum_{k>=0} (k + q)^-x, by Euler-Maclaurin summation (as Cephes does):
    the first terms summed directly until k >= 9 and w = q + k > 9, the rest from
    w^(1-x) / (x - 1) - w^-x / 2 + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) w^(-x-2j+1)."""
    xp = namespace(x, q)
    x, q = xp.broadcast_arrays(x, q)
    # the domain: pole at x = 1, nothing for x < 1; poles at q = 0, -1, -2, ...;
    # q < 0 only for integer x (else (k + q)^-x is complex)
    pole = (x == 1) | ((q <= 0) & (q == xp.floor(q)))
    bad = (x < 1) | ((q <= 0) & (x != xp.floor(x)) & ~pole)
    q_safe = xp.where(pole | bad, 1.0, q)
    x_safe = xp.where(pole | bad, 2.0, x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = q_safe ** -x_safe
        w = q_safe.copy()
        k = 0
        while True:
            more = (k < 9) | (w <= 9)
            if not more.any():
                break
            w = xp.where(more, w + 1, w)
            s = xp.where(more, s + w ** -x_safe, s)
            k += 1
        b = w ** -x_safe
        s = s + b * w / (x_safe - 1) - b / 2
        rising = xp.ones_like(s)                 # x (x+1) ... (x+2j-2)
        for j, bern in enumerate(_BERN, start=1):
            rising = rising * (x_safe + 2 * j - 2)
            b = b / w
            s = s + bern / math.factorial(2 * j) * rising * b
            rising = rising * (x_safe + 2 * j - 1)
            b = b / w
    out = xp.where(pole, np.inf, s)
    return xp.where(bad, np.nan, out)


# ====================================================================== ops with a gradient

class Entr(ArrayFunction):
    """entr(x) = -x log x  (0 at x = 0, -inf for x < 0);   d/dx = -(1 + log x)"""
    node_name = "SpecialEntrBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        ctx.save_for_backward(x)
        xf = to_float(x)
        xo = to_opmath(xf)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = xp.where(xo > 0, -xo * xp.log(xo), xp.where(xo == 0, 0.0, -np.inf))
        return xp.where(xp.isnan(xo), xo, out).astype(xf.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * -(1 + x.log())


class LogNdtr(ArrayFunction):
    """log_ndtr(x) = log ndtr(x), accurate in both tails;   d/dx = exp(-x²/2 - log_ndtr(x)) / sqrt(2 pi)"""
    node_name = "SpecialLogNdtrBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        out = _compute(_log_ndtr, x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return grad / _SQRT_2PI * (-(out + x * x / 2)).exp()


class Ndtri(ArrayFunction):
    """ndtri(p) = ndtr^-1(p)  (-inf at 0, inf at 1);   d/dp = sqrt(2 pi) exp(ndtri(p)² / 2)"""
    node_name = "SpecialNdtriBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, p):
        out = _compute(_ndtri, p)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return grad * _SQRT_2PI * (out * out / 2).exp()


class Erfcx(ArrayFunction):
    """erfcx(x) = exp(x²) erfc(x);   d/dx = 2 x erfcx(x) - 2 / sqrt(pi)"""
    node_name = "SpecialErfcxBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        out = _compute(_erfcx, x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return (2 * x * out - 2 / _SQRT_PI) * grad


class I0e(ArrayFunction):
    """i0e(x) = exp(-|x|) I0(x);   d/dx = i1e(x) - sgn(x) i0e(x)"""
    node_name = "SpecialI0EBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        out = _compute(_i0e, x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return grad * (I1e.apply(x) - x.sgn() * out)


class I1e(ArrayFunction):
    """i1e(x) = exp(-|x|) I1(x);   d/dx = i0e(x) - i1e(x) (sgn(x) + 1/x)  (1/2 at x = 0)"""
    node_name = "SpecialI1EBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        out = _compute(_i1e, x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        # as PyTorch: at |x| <= eps the formula is 0/0, its limit is 1/2; a safe x inside the
        # unused branch keeps double backward free of NaN there
        eps = float(np.finfo(np.float32 if x._data.dtype.itemsize <= 4 else np.float64).eps)
        not_tiny = x.abs() > eps
        safe_x = where(not_tiny, x, eps)
        return grad * where(not_tiny, I0e.apply(safe_x) - out * (safe_x.sgn() + safe_x.reciprocal()), 0.5)


class XLog1py(ArrayFunction):
    """xlog1py(x, y) = x log(1 + y)  (0 where x == 0, unless y is NaN);
    d/dx = xlog1py(x != 0, y),   d/dy = x / (1 + y)"""
    node_name = "SpecialXlog1PyBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, x, y):
        xp = namespace(x, y)
        xs, ys = promote_to_float(x, y)
        dt = np.result_type(*(v for v in (xs, ys) if hasattr(v, "dtype")))   # (bool with float: the float)
        # a Python number is saved as an array, so that backward reads both sides alike
        ctx.save_for_backward(x if hasattr(x, "dtype") else xp.asarray(xs, dt),
                              y if hasattr(y, "dtype") else xp.asarray(ys, dt))
        xo, yo = to_opmath(xp.asarray(xs, dt)), to_opmath(xp.asarray(ys, dt))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = xp.where(xo == 0, 0.0, xo * xp.log1p(yo))
        return xp.where(xp.isnan(yo), yo, out).astype(dt)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        # y's gradient first, as PyTorch's generated backward computes them (and in its order: y + 1, then
        # grad * x): with create_graph the order numbers the new nodes, which orders the double backward's sums
        if len(need) > 1 and need[1]:
            y1 = y + 1
            gy = grad * x / y1
        else:
            gy = None
        # PyTorch's xlog1py(grad, y), masked where x == 0 and y <= -1: a zero grad gives 0 even where
        # log1p(y) is NaN or -inf
        gx = XLog1py.apply(grad, y).masked_fill((x == 0) & (y <= -1.0), 0) if need[0] else None   # (-1.0: an int wraps for uint8)
        return gx, gy


class XLog1pyScalarSelf(XLog1py):
    """``xlog1py(number, tensor)``"""
    node_name = "SpecialXlog1PyBackward1"


class XLog1pyScalarOther(XLog1py):
    """``xlog1py(tensor, number)``"""
    node_name = "SpecialXlog1PyBackward2"


class Zeta(ArrayFunction):
    """zeta(x, q) = sum_{k>=0} (k + q)^-x;   d/dq = -x zeta(x + 1, q)  (none w.r.t. x in PyTorch)"""
    node_name = "SpecialZetaBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, x, q):
        xp = namespace(x, q)
        xs, qs = promote_to_float(x, q)
        dt = (xs if hasattr(xs, "dtype") else qs).dtype
        _no_reduced(np.dtype(dt), "zeta_cpu")
        ctx.save_for_backward(x if hasattr(x, "dtype") else None, q if hasattr(q, "dtype") else None)
        ctx.x_number = None if hasattr(x, "dtype") else x
        return _zeta(xp.asarray(xs, np.float64), xp.asarray(qs, np.float64)).astype(dt)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        need = ctx.needs_input_grad
        if need[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        if x is None:
            x = ctx.x_number
        return None, (grad * -x * zeta(x + 1, q) if len(need) > 1 and need[1] else None)


class ZetaScalarSelf(Zeta):
    """``zeta(number, tensor)``"""
    node_name = "SpecialZetaBackward1"


class ZetaScalarOther(Zeta):
    """``zeta(tensor, number)``"""
    node_name = "SpecialZetaBackward2"


# ====================================================================== public functions

def entr(input, *, out=None):
    """Elementwise entropy: -x log x for x > 0, 0 at 0, -inf for x < 0."""
    _check_tensor("entr", input)
    return write_out(out, Entr.apply(input))


def ndtr(input, *, out=None):
    """The standard normal CDF: (1 + erf(x / sqrt 2)) / 2, composed of those ops as PyTorch composes it: each
    step rounded to x's dtype (so ndtr(-10) = 0: use log_ndtr for the far left tail), its graph
    ``MulBackward1 -> AddBackward1 -> ErfBackward0 -> MulBackward1``, nothing of x saved (x may then be
    changed in place)."""
    _check_tensor("ndtr", input)
    return write_out(out, MulScalar.apply(AddScalar.apply(erf(MulScalar.apply(input, math.sqrt(0.5))), 1), 0.5))


def log_ndtr(input, *, out=None):
    """log of the standard normal CDF, accurate far into both tails."""
    _check_tensor("log_ndtr", input)
    _no_reduced(input._data, "log_ndtr_cpu")
    return write_out(out, LogNdtr.apply(input))


def ndtri(input, *, out=None):
    """The inverse of ndtr: the x with ndtr(x) = input (the standard normal quantile)."""
    _check_tensor("ndtri", input)
    _no_reduced(input._data, "ndtri_cpu")
    return write_out(out, Ndtri.apply(input))


def erfcx(input, *, out=None):
    """The scaled complementary error function exp(x²) erfc(x)."""
    _check_tensor("erfcx", input)
    _no_reduced(input._data, "erfcx_cpu")
    return write_out(out, Erfcx.apply(input))


def i0e(input, *, out=None):
    """The exponentially scaled modified Bessel function exp(-|x|) I0(x)."""
    _check_tensor("i0e", input)
    return write_out(out, I0e.apply(input))


def i1e(input, *, out=None):
    """The exponentially scaled modified Bessel function exp(-|x|) I1(x)."""
    _check_tensor("i1e", input)
    return write_out(out, I1e.apply(input))


def xlog1py(input, other, *, out=None):
    """x log(1 + y), 0 where x == 0 (so 0 log(0) = 0 in entropy-like sums)."""
    _two_numbers("xlog1py", input, other)
    if not isinstance(input, Tensor):
        r = XLog1pyScalarSelf.apply(input, other)
    else:
        r = (XLog1py if isinstance(other, Tensor) else XLog1pyScalarOther).apply(input, other)
    return write_out(out, r)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function sum_{k>=0} (k + other)^-input (Riemann's zeta at other = 1)."""
    _two_numbers("zeta", input, other)
    if not isinstance(input, Tensor):
        r = ZetaScalarSelf.apply(input, other)
    else:
        r = (Zeta if isinstance(other, Tensor) else ZetaScalarOther).apply(input, other)
    return write_out(out, r)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt."""
    _check_tensor("gammainc", input)
    _check_tensor("gammainc", other, "other", 2)
    return write_out(out, Gammainc.apply(input, other))


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    _check_tensor("gammaincc", input)
    _check_tensor("gammaincc", other, "other", 2)
    return write_out(out, Gammaincc.apply(input, other))


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p."""
    _check_tensor("multigammaln", input)
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"special_multigammaln(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return mvlgamma(input, p, out=out)


def round(input, *, decimals=0, out=None):
    """Round half to even; PyTorch's special.round is round(decimals=...), hence RoundBackward1."""
    _check_tensor("round", input)
    if not is_float_np(input._data.dtype):
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{_type_word(input._data.dtype)}'")
    return write_out(out, RoundDecimals.apply(input, decimals))


def softmax(input, dim, *, dtype=None):
    """softmax along dim (computed in ``dtype`` when given)."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax along dim (computed in ``dtype`` when given)."""
    return _log_softmax(input, dim, dtype=dtype)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind of order 0 (no gradient, as in PyTorch)."""
    _check_tensor("bessel_j0", input)
    _no_reduced(input._data, "bessel_j0_cpu")
    return write_out(out, _nondifferentiable(lambda v: _bessel_j(0, v), input))


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind of order 1 (no gradient, as in PyTorch)."""
    _check_tensor("bessel_j1", input)
    _no_reduced(input._data, "bessel_j1_cpu")
    return write_out(out, _nondifferentiable(lambda v: _bessel_j(1, v), input))


def _spherical_j0(x):
    """sin(x) / x: 1 at 0, 0 at +-inf."""
    xp = namespace(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = xp.where(x == 0, 1.0, xp.sin(x) / x)
    return xp.where(xp.isinf(x), 0.0, out)


def spherical_bessel_j0(input, *, out=None):
    """The spherical Bessel function of the first kind of order 0, sin(x) / x (no gradient)."""
    _check_tensor("spherical_bessel_j0", input)
    _no_reduced(input._data, "spherical_bessel_j0_cpu")
    return write_out(out, _nondifferentiable(_spherical_j0, input))
