"""``pedatorch.special``: PyTorch's ``torch.special`` (special functions of probability and physics).

``import pedatorch.special`` and ``from pedatorch.special import ndtr`` work as with torch.
Many names compute ops that live elsewhere (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``,
``psi`` is ``digamma``, ...): thin entries that check their input as torch.special's own argument
parser does (``special_erf(): argument 'input' ... must be Tensor``); the functions only torch.special has
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
    bessel_j0/j1/y0/y1, modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1, spherical_bessel_j0,
    airy_ai, and the orthogonal polynomials (chebyshev_polynomial_t/u/v/w and their shifted forms,
    hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p): no gradient, as in PyTorch

numpy has none of these kernels (and scipy is not a dependency), so they are built here from
numpy's exp/log and from the kernels in ``ops/special.py`` (lgamma, digamma, I0, I1, the incomplete
gamma series): erfcx by Weideman's rational series, ndtri by Newton steps on log_ndtr, the Bessel
functions by power series near 0, by quadrature of their integral representations (the trapezoid rule
where the integrand is periodic or decays doubly exponentially, Gauss-Legendre elsewhere) and by
Hankel's expansion for large x; Ai by its Maclaurin series, by K_(1/3), and by its asymptotic expansion
for x < -7.5.  Float64 results agree with PyTorch to about 1e-12 relative (1e-14 for most);
float16/bfloat16 are computed in float64 and rounded once.  The orthogonal polynomials run their
recurrences in the input's own dtype, as PyTorch does.
"""
import functools
import math

import numpy as np

from ._tensor import Tensor
from .backend import namespace
from ._dtype import to_opmath, is_float_np
from .autograd.function import ArrayFunction
from .ops._util import promote_to_float, to_float, write_out, require_tensor, is_number, _type_word, check_broadcast
from .ops import elementwise as _elementwise, reduction as _reduction, special as _ops_special
from .ops.elementwise import where, RoundDecimals, _erfc, _erfcx
from .ops.special import Gammainc, Gammaincc, mvlgamma, _float_out, _i0, _i1, _BERN
from .ops.scalar import AddScalar, MulScalar

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_PI = math.sqrt(math.pi)
_EULER = 0.57721566490153286061   # the Euler-Mascheroni constant gamma


# ====================================================================== helpers

def _check_tensor(fn, input, arg="input", position=1):
    """PyTorch's TypeError for a Python number where the op wants a Tensor."""
    require_tensor("special_" + fn, input, arg, position)


def _check_kernel(x, kernel, reduced=False):
    """PyTorch's NotImplementedError for a dtype its CPU kernel has no loop for: complex always (these are
    real functions), float16/bfloat16 unless ``reduced``."""
    dt = np.dtype(getattr(x, "dtype", x))   # (an array, or a dtype)
    if dt.kind == "c" or (not reduced and dt.itemsize == 2 and is_float_np(dt)):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(dt)}'")


def _check_overloads(fn, first, second, names=("input", "other", "self")):
    """PyTorch's TypeError where no overload (Tensor, Tensor), (Number, Tensor), (Tensor, Number) fits:
    two numbers (``xlog1py(2.0, 3.0)``), or an argument that is neither (a list)."""
    tensors = isinstance(first, Tensor), isinstance(second, Tensor)
    if any(tensors) and all(t or is_number(v) for t, v in zip(tensors, (first, second))):
        return
    a, b, number_a = names
    raise TypeError(f"special_{fn}() received an invalid combination of arguments - got "
                    f"({type(first).__name__}, {type(second).__name__}), but expected one of:\n"
                    f" * (Tensor {a}, Tensor {b}, *, Tensor out = None)\n"
                    f" * (Number {number_a}, Tensor {b}, *, Tensor out = None)\n"
                    f" * (Tensor {a}, Number {b}, *, Tensor out = None)\n")


def _special_entry(name, op):
    """torch.special's own entry point for an op that lives elsewhere (``special.erf`` computes ``erf``):
    PyTorch parses its arguments as ``special_<name>``, so a non-Tensor input is a TypeError naming that."""
    position = 2 if name == "polygamma" else 1

    @functools.wraps(op)
    def entry(*args, **kwargs):
        if len(args) >= position:
            _check_tensor(name, args[position - 1], "input", position)
        return op(*args, **kwargs)
    entry.__name__ = entry.__qualname__ = name
    entry.__module__ = __name__
    return entry


erf = _special_entry("erf", _elementwise.erf)
erfc = _special_entry("erfc", _elementwise.erfc)
erfinv = _special_entry("erfinv", _elementwise.erfinv)
expit = _special_entry("expit", _elementwise.sigmoid)
logit = _special_entry("logit", _elementwise.logit)
exp2 = _special_entry("exp2", _elementwise.exp2)
expm1 = _special_entry("expm1", _elementwise.expm1)
log1p = _special_entry("log1p", _elementwise.log1p)
sinc = _special_entry("sinc", _elementwise.sinc)
gammaln = _special_entry("gammaln", _ops_special.lgamma)
digamma = _special_entry("digamma", _ops_special.digamma)
psi = _special_entry("psi", _ops_special.digamma)
polygamma = _special_entry("polygamma", _ops_special.polygamma)
i0 = _special_entry("i0", _ops_special.i0)
i1 = _special_entry("i1", _ops_special.i1)
logsumexp = _special_entry("logsumexp", _reduction.logsumexp)


def xlogy(input, other, *, out=None):
    """x log y, 0 where x == 0 (``xlogy`` with torch.special's argument checks)."""
    _check_overloads("xlogy", input, other)
    return _elementwise.xlogy(input, other, out=out)


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


def _hankel(n, x):
    """Hankel's expansion for large x > 0, shared by J_n and Y_n (n = 0, 1):
    J_n(x) = sqrt(2 / (pi x)) (P cos(chi) - Q sin(chi)),   Y_n(x) = sqrt(2 / (pi x)) (P sin(chi) + Q cos(chi)),
    chi = x - (n/2 + 1/4) pi, P and Q the even and odd terms of
    sum_k i^k prod_{j<=k} (4 n² - (2j-1)²) / (k! (8x)^k)   (30 terms: good to 1e-16 from x = 25).
    Returns (sqrt(2 / (pi x)), P, Q, chi)."""
    xp = namespace(x)
    mu = 4.0 * n * n
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p, q = xp.ones_like(x), xp.zeros_like(x)
        term = xp.ones_like(x)
        for k in range(1, 31):
            term = term * (mu - (2 * k - 1) ** 2) / (8 * k * x)
            sign = -1 if k % 4 in (2, 3) else 1            # i^k: +Q, -P, -Q, +P, ...
            if k % 2:
                q = q + sign * term
            else:
                p = p + sign * term
        return xp.sqrt(2 / (math.pi * x)), p, q, x - (n / 2 + 0.25) * math.pi


def _bessel_j(n, x):
    """J_n(x), n = 0 or 1.

    |x| < 1: the power series J_n(x) = sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!)  (exact near 0).
    1 <= |x| <= 25: Bessel's integral J_n(x) = 1/pi int_0^pi cos(n t - x sin t) dt by the trapezoid rule.
    The integrand is smooth and periodic, so the rule converges exponentially: its error is about
    J_(2m)(x), negligible with m = 64 intervals.
    |x| > 25: Hankel's expansion (``_hankel``).
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

    with np.errstate(invalid="ignore"):
        scale, p, q, chi = _hankel(n, xp.where(small, 100.0, ax))
        large = scale * (p * xp.cos(chi) - q * xp.sin(chi))
    half = xp.minimum(ax, 1.0) / 2
    term = half ** n / math.factorial(n)
    series = term
    for k in range(1, 12):
        term = -term * half * half / (k * (k + n))
        series = series + term

    out = xp.where(ax < 1, series, xp.where(small, integral, large))
    out = xp.where(xp.isnan(x), x, out)
    return xp.where(xp.signbit(x), -out, out) if n == 1 else out     # J0 is even, J1 odd (J1(-0.) = -0.)


# Gauss-Legendre nodes and weights on [-1, 1] for the integrals of Y_n (64 points: exact to float64 for
# the smooth integrands there)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(64)


def _bessel_y(n, x):
    """Y_n(x), n = 0 or 1, the Bessel function of the second kind (NaN for x < 0 and at inf, -inf at 0).

    x < 1: the power series (DLMF 10.8.2, 10.8.1), with H_k = 1 + 1/2 + ... + 1/k:
        Y0(x) = 2/pi (log(x/2) + gamma) J0(x) + 2/pi sum_{k>=1} (-1)^(k+1) H_k (x²/4)^k / (k!)²
        Y1(x) = -2/(pi x) + 2/pi log(x/2) J1(x)
                - 1/pi sum_{k>=0} (2 H_k + 1/(k+1) - 2 gamma) (-1)^k (x/2)^(2k+1) / (k! (k+1)!)
    1 <= x <= 25: the integral (DLMF 10.9.7)
        Y_n(x) = 1/pi int_0^pi sin(x sin t - n t) dt - 1/pi int_0^inf (e^(nt) + (-1)^n e^(-nt)) e^(-x sinh t) dt,
    both by Gauss-Legendre (the second cut where x sinh t = 40).
    x > 25: Hankel's expansion (``_hankel``).
    """
    xp = namespace(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xs = xp.where((x > 0) & (x < 1), x, 0.5)
        q = xs * xs / 4
        term = xs / 2 if n else xp.ones_like(xs)      # (-1)^k (x/2)^(2k+n) / (k! (k+n)!)
        j = term
        total = (1.0 - 2 * _EULER) * term if n else xp.zeros_like(xs)
        harmonic = 0.0
        for k in range(1, 20):
            term = -term * q / (k * (k + n))
            harmonic += 1.0 / k
            j = j + term
            total = total + ((2 * harmonic + 1.0 / (k + 1) - 2 * _EULER) * term if n else -harmonic * term)
        if n:
            series = -2 / (math.pi * xs) + 2 / math.pi * xp.log(xs / 2) * j - total / math.pi
        else:
            series = 2 / math.pi * ((xp.log(xs / 2) + _EULER) * j + total)

        xm = xp.where((x >= 1) & (x <= 25), x, 1.0)
        oscillating = xp.zeros_like(xm)
        for u, w in zip(_GL_NODES, _GL_WEIGHTS):
            t = (u + 1) * math.pi / 2
            oscillating = oscillating + w * xp.sin(xm * math.sin(t) - n * t)
        oscillating = oscillating * (math.pi / 2)
        top = xp.arcsinh(40 / xm)
        decaying = xp.zeros_like(xm)
        for u, w in zip(_GL_NODES, _GL_WEIGHTS):
            t = (u + 1) / 2 * top
            decaying = decaying + w * (xp.exp(n * t) + (-1) ** n * xp.exp(-n * t)) * xp.exp(-xm * xp.sinh(t))
        middle = (oscillating - decaying * top / 2) / math.pi

        scale, p, qq, chi = _hankel(n, xp.where(x > 25, x, 100.0))
        large = scale * (p * xp.sin(chi) + qq * xp.cos(chi))
    out = xp.where(x < 1, series, xp.where(x <= 25, middle, large))
    out = xp.where(x == 0, -np.inf, out)
    return xp.where((x < 0) | xp.isinf(x) | xp.isnan(x), np.nan, out)


def _bessel_k_scaled_integral(nu, x):
    """exp(x) K_nu(x) for x >= 1 (any real order nu with |nu| <= 1), by the trapezoid rule on
    exp(x) K_nu(x) = int_0^inf exp(-2 x sinh²(t/2)) cosh(nu t) dt      (DLMF 10.32.9; cosh t - 1 = 2 sinh²(t/2))
    The integrand is even, analytic and decays doubly exponentially, so the rule with step h converges
    like exp(-2 pi d / h) times the integrand's size in the strip |Im t| < d: h = pi² / (38 + x) (d = pi/2,
    where it grows to e^x) and, past x = 12, h = 0.7 / sqrt(x) (the integrand is then a Gaussian of width
    1 / sqrt(x)).  The sum stops where the integrand falls below e^-45."""
    xp = namespace(x)
    h = xp.where(x < 12, math.pi ** 2 / (38 + x), 0.7 / xp.sqrt(x))
    top = 2 * xp.arcsinh(xp.sqrt(22.5 / x))
    steps = int(math.ceil(float((top / h).max()))) + 1 if x.size else 0
    total = xp.full_like(x, 0.5)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(1, steps + 1):
            t = k * h
            total = total + xp.exp(-2 * x * xp.sinh(t / 2) ** 2) * xp.cosh(nu * t)
    return total * h


def _bessel_k(n, x, scaled):
    """K_n(x) (n = 0, 1), the modified Bessel function of the second kind, or exp(x) K_n(x) when ``scaled``;
    NaN for x < 0, inf at 0, 0 at inf.

    x <= 1: the power series (DLMF 10.31.2, 10.31.1):
        K0(x) = -(log(x/2) + gamma) I0(x) + sum_{k>=1} H_k (x²/4)^k / (k!)²
        K1(x) = 1/x + log(x/2) I1(x) - x/4 sum_{k>=0} (2 H_k + 1/(k+1) - 2 gamma) (x²/4)^k / (k! (k+1)!)
    x > 1: the integral of ``_bessel_k_scaled_integral``.
    """
    xp = namespace(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xs = xp.where((x > 0) & (x <= 1), x, 0.5)
        q = xs * xs / 4
        term = xs / 2 if n else xp.ones_like(xs)     # (x/2)^(2k+n) / (k! (k+n)!)
        i = term
        total = (1.0 - 2 * _EULER) * term if n else xp.zeros_like(xs)
        harmonic = 0.0
        for k in range(1, 20):
            term = term * q / (k * (k + n))
            harmonic += 1.0 / k
            i = i + term
            total = total + ((2 * harmonic + 1.0 / (k + 1) - 2 * _EULER) * term if n else harmonic * term)
        if n:
            series = 1 / xs + xp.log(xs / 2) * i - total / 2
        else:
            series = -(xp.log(xs / 2) + _EULER) * i + total
        if scaled:
            series = series * xp.exp(xs)
        xl = xp.where((x > 1) & (x < np.inf), x, 2.0)
        large = _bessel_k_scaled_integral(n, xl)
        if not scaled:
            large = large * xp.exp(-xl)
    out = xp.where(x <= 1, series, large)
    out = xp.where(x == 0, np.inf, xp.where(x == np.inf, 0.0, out))
    return xp.where((x < 0) | xp.isnan(x), np.nan, out)


_AIRY_AI0 = 3 ** (-2 / 3) / math.gamma(2 / 3)          # Ai(0)
_AIRY_AIP0 = -(3 ** (-1 / 3)) / math.gamma(1 / 3)      # Ai'(0)
_AIRY_ZERO_BEYOND = 103.892                              # PyTorch's Ai is 0 from here (it underflows near 105)


def _airy_ai(x):
    """Ai(x), the Airy function of the first kind (NaN at +-inf, 0 beyond x = 103.892 as in PyTorch).

    -7.5 <= x <= 2: the Maclaurin series Ai(x) = Ai(0) f(x) + Ai'(0) g(x) (DLMF 9.4.1),
        f = sum_k 3^k (1/3)_k x^(3k) / (3k)!,   g = sum_k 3^k (2/3)_k x^(3k+1) / (3k+1)!
    (at -7.5 the terms grow to about e^zeta = e^14, which costs 6 of float64's digits; the rest are exact).
    x > 2: Ai(x) = 1/pi sqrt(x/3) K_(1/3)(zeta) with zeta = 2/3 x^(3/2) (DLMF 9.6.1), by ``_bessel_k_scaled_integral``.
    x < -7.5: the asymptotic expansion (DLMF 9.7.9)
        Ai(-x) ~ (cos(zeta - pi/4) sum_k (-1)^k u_2k / zeta^2k + sin(zeta - pi/4) sum_k (-1)^k u_(2k+1) / zeta^(2k+1))
                 / (sqrt(pi) x^(1/4)),   u_(k+1) = u_k (3k + 1/2)(3k + 3/2)(3k + 5/2) / (54 (k + 1)(k + 1/2))
    (its smallest term is about e^(-2 zeta), below 1e-12 from x = -7.5).
    """
    xp = namespace(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        xs = xp.clip(x, -7.5, 2.0)
        x3 = xs ** 3
        tf, tg = xp.ones_like(xs), xs.copy()
        f, g = tf, tg
        for k in range(60):
            tf = tf * x3 / ((3 * k + 2) * (3 * k + 3))
            tg = tg * x3 / ((3 * k + 3) * (3 * k + 4))
            f, g = f + tf, g + tg
        series = _AIRY_AI0 * f + _AIRY_AIP0 * g

        xr = xp.where((x > 2) & (x <= _AIRY_ZERO_BEYOND), x, 3.0)
        zeta = 2 / 3 * xr ** 1.5
        right = xp.sqrt(xr / 3) / math.pi * xp.exp(-zeta) * _bessel_k_scaled_integral(1 / 3, zeta)

        ax = xp.where(x < -7.5, -x, 8.0)
        ax = xp.where(xp.isinf(ax), 8.0, ax)
        zeta = 2 / 3 * ax ** 1.5
        even, odd = xp.ones_like(ax), xp.zeros_like(ax)
        u, power = 1.0, xp.ones_like(ax)
        for k in range(40):
            u = u * (3 * k + 0.5) * (3 * k + 1.5) * (3 * k + 2.5) / (54 * (k + 1) * (k + 0.5))
            power = power / zeta
            sign = -1 if (k + 1) % 4 in (2, 3) else 1          # (-1)^j for u_2j and for u_(2j+1)
            if (k + 1) % 2:
                odd = odd + sign * u * power
            else:
                even = even + sign * u * power
        phase = zeta - math.pi / 4
        left = (xp.cos(phase) * even + xp.sin(phase) * odd) / (math.sqrt(math.pi) * ax ** 0.25)
    out = xp.where(x > 2, right, xp.where(x < -7.5, left, series))
    out = xp.where(x > _AIRY_ZERO_BEYOND, 0.0, out)
    return xp.where(xp.isinf(x) | xp.isnan(x), np.nan, out)


# ====================================================================== orthogonal polynomials
#
# p_n(x) for an integer degree n per element (PyTorch truncates a float n towards zero; a negative, NaN or
# infinite n gives 0), computed in the result dtype (float32 arithmetic for float32, as PyTorch's kernels:
# a float32 recurrence that overflows gives inf, then NaN, where a float64 one would not).  Each polynomial
# is its three-term recurrence from p_0 = 1 and p_1, with PyTorch's exact values at the ends of the interval
# and, for the Chebyshev ones, the closed trigonometric form inside it from a small degree on.  (PyTorch's
# result at a NaN x is not defined: its loop never runs and returns an unset value.)

def _fused(a, b, c):
    """a b - c as PyTorch's compiled kernels compute it: one fused multiply-add, rounded once.  For float32 the
    float64 product of two float32 numbers is exact, so this is the fused result; float64 has no wider type
    in numpy, so there it is rounded twice (a difference in the last bit at most)."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) - c.astype(np.float64)).astype(np.float32)
    return a * b - c


def _recurrence(n, p1, step):
    """p_n for each element's n >= 0: p_0 = 1, p_1 given, p_(k+1) = step(k, p_k, p_(k-1))."""
    xp = namespace(p1)
    prev, cur = xp.ones_like(p1), p1
    out = xp.where(n == 0, prev, cur)
    top = int(n.max()) if n.size else 0
    for k in range(1, top):
        prev, cur = cur, step(k, cur, prev)
        out = xp.where(n == k + 1, cur, out)
        going = n > k + 1
        if k >= 30 and bool(xp.isnan(cur[going]).all()):
            # every element still going has become NaN (inf - inf after an overflow), and NaN stays NaN
            return xp.where(going, cur, out)
    return out


def _chebyshev_step(y):
    """The Chebyshev recurrence p_(k+1) = 2y p_k - p_(k-1), shared by the four kinds (they differ in p_1)."""
    return lambda k, q, p: _fused(y + y, q, p)


def _chebyshev(kind, x, n, y=None):
    """T, U, V or W of degree n at x (``kind`` "t", "u", "v", "w"), or the shifted one when ``y`` = 2x - 1 is
    given (then the ends are x = 1 and x = 0, and the closed form starts at a smaller degree).

        T_n(cos t) = cos(n t)                   T_1 = y        T_n(1) = 1          T_n(-1) = (-1)^n
        U_n(cos t) = sin((n+1) t) / sin t       U_1 = 2y       U_n(1) = n + 1      U_n(-1) = (-1)^n (n + 1)
        V_n(cos t) = cos((n+1/2) t) / cos(t/2)  V_1 = 2y - 1   V_n(1) = 1          V_n(-1) = (-1)^n (2n + 1)
        W_n(cos t) = sin((n+1/2) t) / sin(t/2)  W_1 = 2y + 1   W_n(1) = 2n + 1     W_n(-1) = (-1)^n
    """
    xp = namespace(x)
    shifted = y is not None
    y = x if y is None else y
    one = xp.ones_like(x)
    nf = n.astype(x.dtype)                                      # (float arithmetic in x's dtype, as in C)
    sign = xp.where(n % 2 == 0, one, -one)                      # (-1)^n
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        t = xp.arccos(y)
        if kind == "t":
            first, closed = y, xp.cos(nf * t)
            at_one, at_minus_one, start = one, sign, 6
        elif kind == "u":
            first = y + y
            closed = xp.where(xp.sin(t) != 0, xp.sin((nf + 1) * t) / xp.sin(t), (nf + 1) * xp.cos((nf + 1) * t) / y)
            at_one, at_minus_one, start = nf + 1, sign * (nf + 1), 6 if shifted else 8
        elif kind == "v":
            first = y + y - 1
            at_one, at_minus_one, start = one, sign * (nf + nf + 1), 6 if shifted else 8
            closed = xp.where(xp.sin(t / 2) != 1, xp.cos((nf + 0.5) * t) / xp.cos(t / 2), at_minus_one)
        else:
            first = y + y + 1
            at_one, at_minus_one, start = nf + nf + 1, sign, 4 if shifted else 8
            closed = xp.where(xp.cos(t / 2) != 1, xp.sin((nf + 0.5) * t) / xp.sin(t / 2),
                              at_minus_one if shifted else xp.where(y > 0, at_one, at_minus_one))
        use_closed = (n > start) & (xp.abs(y) < 1)
        ends = (x == 1) | (x == 0) if shifted else xp.abs(y) == 1
        # (only the other elements run the recurrence, so a huge degree inside the interval costs nothing)
        out = _recurrence(xp.where(use_closed | ends, 0, n), first, _chebyshev_step(y))
    out = xp.where(use_closed, closed, out)
    if shifted:
        return xp.where(x == 1, at_one, xp.where(x == 0, at_minus_one, out))
    return xp.where(y == 1, at_one, xp.where(y == -1, at_minus_one, out))


def _hermite_h(x, n):
    """The physicists' Hermite polynomials: H_1 = 2x, H_(k+1) = 2x H_k - 2k H_(k-1)."""
    return _recurrence(n, x + x, lambda k, q, p: _fused(x + x, q, (k + k) * p))


def _hermite_he(x, n):
    """The probabilists' Hermite polynomials: He_1 = x, He_(k+1) = x He_k - k He_(k-1)."""
    return _recurrence(n, x, lambda k, q, p: _fused(x, q, k * p))


def _laguerre_l(x, n):
    """Laguerre: L_1 = 1 - x, L_(k+1) = ((2k + 1 - x) L_k - k L_(k-1)) / (k + 1); L_n(0) = 1."""
    xp = namespace(x)
    out = _recurrence(n, 1 - x, lambda k, q, p: _fused((k + k) + (1 - x), q, k * p) / (k + 1))
    return xp.where(x == 0, xp.ones_like(x), out)


def _legendre_p(x, n):
    """Legendre: P_1 = x, P_(k+1) = ((2k + 1) x P_k - k P_(k-1)) / (k + 1); P_n(+-1) = (+-1)^n."""
    xp = namespace(x)
    out = _recurrence(n, x, lambda k, q, p: _fused((k + k + 1) * x, q, k * p) / (k + 1))
    one = xp.ones_like(x)
    end = xp.where((x > 0) | (n % 2 == 0), one, -one)
    return xp.where(xp.abs(x) == 1, end, out)


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
    # x = inf: the terms (k + q)^-inf are 0, 1 or inf.  PyTorch's (Cephes') summation then gives 1 at q = 1,
    # inf for q < 1 (a term (k + q) inside (-1, 1) is inf), and NaN for q > 1 (its stopping test divides
    # 0 by a sum of 0)
    out = xp.where(x == np.inf, xp.where(q == 1, 1.0, xp.where(q < 1, np.inf, np.nan)), out)
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
        _check_kernel(dt, "xlog1py_cpu", reduced=True)
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
        _check_kernel(dt, "zeta_cpu")
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
    _check_kernel(input._data, "entr_cpu", reduced=True)
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
    _check_kernel(input._data, "log_ndtr_cpu")
    return write_out(out, LogNdtr.apply(input))


def ndtri(input, *, out=None):
    """The inverse of ndtr: the x with ndtr(x) = input (the standard normal quantile)."""
    _check_tensor("ndtri", input)
    _check_kernel(input._data, "ndtri_cpu")
    return write_out(out, Ndtri.apply(input))


def erfcx(input, *, out=None):
    """The scaled complementary error function exp(x²) erfc(x)."""
    _check_tensor("erfcx", input)
    _check_kernel(input._data, "erfcx_cpu")
    return write_out(out, Erfcx.apply(input))


def i0e(input, *, out=None):
    """The exponentially scaled modified Bessel function exp(-|x|) I0(x)."""
    _check_tensor("i0e", input)
    _check_kernel(input._data, "i0e_cpu", reduced=True)
    return write_out(out, I0e.apply(input))


def i1e(input, *, out=None):
    """The exponentially scaled modified Bessel function exp(-|x|) I1(x)."""
    _check_tensor("i1e", input)
    _check_kernel(input._data, "i1e_cpu", reduced=True)
    return write_out(out, I1e.apply(input))


def xlog1py(input, other, *, out=None):
    """x log(1 + y), 0 where x == 0 (so 0 log(0) = 0 in entropy-like sums)."""
    _check_overloads("xlog1py", input, other)
    if not isinstance(input, Tensor):
        r = XLog1pyScalarSelf.apply(input, other)
    else:
        r = (XLog1py if isinstance(other, Tensor) else XLog1pyScalarOther).apply(input, other)
    return write_out(out, r)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function sum_{k>=0} (k + other)^-input (Riemann's zeta at other = 1)."""
    _check_overloads("zeta", input, other)
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
    _check_tensor("softmax", input)
    return _reduction.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax along dim (computed in ``dtype`` when given)."""
    _check_tensor("log_softmax", input)
    return _reduction.log_softmax(input, dim, dtype=dtype)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind of order 0 (no gradient, as in PyTorch)."""
    _check_tensor("bessel_j0", input)
    _check_kernel(input._data, "bessel_j0_cpu")
    return write_out(out, _nondifferentiable(lambda v: _bessel_j(0, v), input))


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind of order 1 (no gradient, as in PyTorch)."""
    _check_tensor("bessel_j1", input)
    _check_kernel(input._data, "bessel_j1_cpu")
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
    _check_kernel(input._data, "spherical_bessel_j0_cpu")
    return write_out(out, _nondifferentiable(_spherical_j0, input))


def _nondifferentiable_unary(name, kernel, input, out, arg="input"):
    """One of the functions PyTorch computes without a gradient (the Bessel and Airy functions): checked,
    computed by ``kernel`` in float64, returned as a plain Tensor in input's float dtype."""
    _check_tensor(name, input, arg)
    _check_kernel(input._data, name + "_cpu")
    return write_out(out, _nondifferentiable(kernel, input))


def bessel_y0(input, *, out=None):
    """The Bessel function of the second kind of order 0 (-inf at 0, NaN for x < 0; no gradient)."""
    return _nondifferentiable_unary("bessel_y0", lambda v: _bessel_y(0, v), input, out)


def bessel_y1(input, *, out=None):
    """The Bessel function of the second kind of order 1 (-inf at 0, NaN for x < 0; no gradient)."""
    return _nondifferentiable_unary("bessel_y1", lambda v: _bessel_y(1, v), input, out)


def modified_bessel_i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0, I0 (as ``i0``, but with no gradient)."""
    return _nondifferentiable_unary("modified_bessel_i0", _i0, input, out)


def modified_bessel_i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1, I1 (as ``i1``, but with no gradient)."""
    return _nondifferentiable_unary("modified_bessel_i1", _i1, input, out)


def modified_bessel_k0(input, *, out=None):
    """The modified Bessel function of the second kind of order 0, K0 (inf at 0, NaN for x < 0; no gradient)."""
    return _nondifferentiable_unary("modified_bessel_k0", lambda v: _bessel_k(0, v, scaled=False), input, out)


def modified_bessel_k1(input, *, out=None):
    """The modified Bessel function of the second kind of order 1, K1 (inf at 0, NaN for x < 0; no gradient)."""
    return _nondifferentiable_unary("modified_bessel_k1", lambda v: _bessel_k(1, v, scaled=False), input, out)


def scaled_modified_bessel_k0(input, *, out=None):
    """exp(x) K0(x): K0 without its underflow for large x (no gradient)."""
    return _nondifferentiable_unary("scaled_modified_bessel_k0", lambda v: _bessel_k(0, v, scaled=True), input, out)


def scaled_modified_bessel_k1(input, *, out=None):
    """exp(x) K1(x): K1 without its underflow for large x (no gradient)."""
    return _nondifferentiable_unary("scaled_modified_bessel_k1", lambda v: _bessel_k(1, v, scaled=True), input, out)


def airy_ai(x, *, out=None):
    """The Airy function Ai, the solution of y'' = x y that decays for x -> inf (no gradient).  (Its argument
    is ``x``, not ``input``, in PyTorch.)"""
    return _nondifferentiable_unary("airy_ai", _airy_ai, x, out, arg="x")


def _polynomial(name, kernel, x, n, out):
    """p_n(x) elementwise, x and n Tensors or one of them a number: the result in their promoted float dtype
    (integers: the default float), n truncated to an integer; no gradient, as in PyTorch."""
    _check_overloads(name, x, n, names=("x", "n", "x"))
    check_broadcast(x, n)
    xs, ns = promote_to_float(x._data if isinstance(x, Tensor) else x, n._data if isinstance(n, Tensor) else n)
    dt = next(v.dtype for v in (xs, ns) if hasattr(v, "dtype"))    # (both cast to the result dtype)
    _check_kernel(dt, name + "_cpu")
    xp = namespace(*(v._data for v in (x, n) if isinstance(v, Tensor)))
    xa, na = xp.broadcast_arrays(xp.asarray(xs, dtype=dt), xp.asarray(ns, dtype=dt))
    with np.errstate(invalid="ignore"):
        degree = na.astype(np.int64)     # (NaN and +-inf become the most negative int64, as in C)
    with np.errstate(over="ignore", invalid="ignore"):
        values = kernel(xa, degree)
    values = xp.where(degree < 0, 0, values).astype(dt)
    return write_out(out, Tensor._make(values))


def chebyshev_polynomial_t(x, n, *, out=None):
    """The Chebyshev polynomial of the first kind T_n(x) (T_n(cos t) = cos(n t))."""
    return _polynomial("chebyshev_polynomial_t", lambda v, k: _chebyshev("t", v, k), x, n, out)


def chebyshev_polynomial_u(x, n, *, out=None):
    """The Chebyshev polynomial of the second kind U_n(x) (U_n(cos t) = sin((n + 1) t) / sin t)."""
    return _polynomial("chebyshev_polynomial_u", lambda v, k: _chebyshev("u", v, k), x, n, out)


def chebyshev_polynomial_v(x, n, *, out=None):
    """The Chebyshev polynomial of the third kind V_n(x) (V_n(cos t) = cos((n + 1/2) t) / cos(t/2))."""
    return _polynomial("chebyshev_polynomial_v", lambda v, k: _chebyshev("v", v, k), x, n, out)


def chebyshev_polynomial_w(x, n, *, out=None):
    """The Chebyshev polynomial of the fourth kind W_n(x) (W_n(cos t) = sin((n + 1/2) t) / sin(t/2))."""
    return _polynomial("chebyshev_polynomial_w", lambda v, k: _chebyshev("w", v, k), x, n, out)


def shifted_chebyshev_polynomial_t(x, n, *, out=None):
    """T*_n(x) = T_n(2x - 1), the Chebyshev polynomial of the first kind moved onto [0, 1]."""
    return _polynomial("shifted_chebyshev_polynomial_t", lambda v, k: _chebyshev("t", v, k, y=v + v - 1), x, n, out)


def shifted_chebyshev_polynomial_u(x, n, *, out=None):
    """U*_n(x) = U_n(2x - 1), the Chebyshev polynomial of the second kind moved onto [0, 1]."""
    return _polynomial("shifted_chebyshev_polynomial_u", lambda v, k: _chebyshev("u", v, k, y=v + v - 1), x, n, out)


def shifted_chebyshev_polynomial_v(x, n, *, out=None):
    """V*_n(x) = V_n(2x - 1), the Chebyshev polynomial of the third kind moved onto [0, 1]."""
    return _polynomial("shifted_chebyshev_polynomial_v", lambda v, k: _chebyshev("v", v, k, y=v + v - 1), x, n, out)


def shifted_chebyshev_polynomial_w(x, n, *, out=None):
    """W*_n(x) = W_n(2x - 1), the Chebyshev polynomial of the fourth kind moved onto [0, 1]."""
    return _polynomial("shifted_chebyshev_polynomial_w", lambda v, k: _chebyshev("w", v, k, y=v + v - 1), x, n, out)


def hermite_polynomial_h(x, n, *, out=None):
    """The physicists' Hermite polynomial H_n(x) (orthogonal for the weight exp(-x²))."""
    return _polynomial("hermite_polynomial_h", _hermite_h, x, n, out)


def hermite_polynomial_he(x, n, *, out=None):
    """The probabilists' Hermite polynomial He_n(x) (orthogonal for the weight exp(-x²/2))."""
    return _polynomial("hermite_polynomial_he", _hermite_he, x, n, out)


def laguerre_polynomial_l(x, n, *, out=None):
    """The Laguerre polynomial L_n(x) (orthogonal on [0, inf) for the weight exp(-x))."""
    return _polynomial("laguerre_polynomial_l", _laguerre_l, x, n, out)


def legendre_polynomial_p(x, n, *, out=None):
    """The Legendre polynomial P_n(x) (orthogonal on [-1, 1])."""
    return _polynomial("legendre_polynomial_p", _legendre_p, x, n, out)
