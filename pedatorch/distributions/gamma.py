"""The gamma distribution, its sampler, and the implicit reparameterisation gradient of its samples."""
import numpy as np

from .._dtype import finfo
from .._tensor import Size, Tensor
from ..autograd import Function
from ..backend import namespace
from ..ops.creation import as_tensor
from ..ops.elementwise import exp, log
from ..ops.random import _standard_gamma as _sample_standard_gamma
from ..ops.special import digamma, _digamma, igamma, lgamma
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _is_number, _xlogy, broadcast_all

__all__ = ["Gamma"]


# ====================================================================== d sample / d alpha

_SERIES_MAX_ALPHA = 1e4   # above this, the series needs too many terms; Wilson-Hilferty is accurate there


def _standard_gamma_grad(alpha, x):
    """The implicit reparameterisation gradient dx/dalpha of a sample x ~ Gamma(alpha, 1) (float64 arrays).

    x is a fixed quantile: F(x; alpha) = u stays constant as alpha moves, so
        dx/dalpha = -(dF/dalpha) / (dF/dx) = -(dP(alpha, x)/dalpha) / p(x; alpha),
    where P is the regularised lower incomplete gamma function (the CDF) and p the density.
    From the series P(a, x) = x^a e^-x sum_n x^n / Gamma(a + n + 1):
        dx/da = -x sum_n r_n (log x - digamma(a + n + 1)),   r_0 = 1/a,  r_{n+1} = r_n x / (a + n + 1)
    (the density's factors cancel against the series' terms, leaving the ratios r_n).

    For alpha > 1e4 it uses the Wilson-Hilferty approximation x = alpha (1 - 1/(9 alpha) + z / sqrt(9 alpha))^3
    with z held fixed (relative error below 1e-5 there).
    """
    xp = namespace(alpha, x)
    alpha, x = xp.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    grad = xp.empty(alpha.shape)
    big = alpha > _SERIES_MAX_ALPHA
    grad[big] = _wilson_hilferty_grad(alpha[big], x[big])
    grad[~big] = _series_grad(alpha[~big], x[~big])
    return grad


def _series_grad(a, x):
    if a.size == 0:
        return a.copy()
    xp = namespace(a, x)
    r = 1 / a
    psi = _digamma(a + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = xp.log(x)
        total = r * (log_x - psi)
        # the terms grow until n ~ x, then shrink fast: run past the largest x, until every term is negligible
        n_min = max(0.0, float(xp.where(xp.isfinite(x), x, 0.0).max()))
        n = 0
        while True:
            # next term: r_{n+1} = r_n x / (a + n + 1),  digamma(a + n + 2) = digamma(a + n + 1) + 1 / (a + n + 1)
            r = r * x / (a + n + 1)
            psi = psi + 1 / (a + n + 1)
            term = r * (log_x - psi)
            total = total + term
            n += 1
            # (a NaN term compares False: a NaN entry cannot keep the loop running)
            if n > n_min and not bool((abs(term) > 1e-16 * abs(total)).any()):
                break
    return -x * total


def _wilson_hilferty_grad(a, x):
    """dx/da with x = a (1 - 1/(9a) + z / sqrt(9a))^3 and z (the normal quantile) held fixed."""
    xp = namespace(a, x)
    s = xp.cbrt(x / a)                      # s = 1 - 1/(9a) + z / sqrt(9a)
    z = (s - 1 + 1 / (9 * a)) * xp.sqrt(9 * a)
    ds_da = 1 / (9 * a * a) - z / (6 * a ** 1.5)
    return s ** 3 + 3 * a * s ** 2 * ds_da


class _StandardGamma(Function):
    """x ~ Gamma(alpha, 1) with the implicit reparameterisation gradient (Figurnov et al., 2018):
    forward samples, backward returns grad * dx/dalpha (see ``_standard_gamma_grad``).

    The sampler is ``ops.random._standard_gamma``: on the CPU ATen's per-element Marsaglia-Tsang loop (for
    alpha >= 1, d = alpha - 1/3, c = 1 / sqrt(9 d): draw z ~ N(0, 1) until v = (1 + c z)^3 > 0, u ~ U(0, 1),
    accept d v when u < 1 - 0.0331 z^4 or log u < z^2 / 2 + d (1 - v + log v); below 1 the boost
    Gamma(alpha + 1) * u^(1/alpha)), drawing PyTorch's numbers in PyTorch's order; on CUDA the device
    generator's gamma draws.
    """
    node_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx, concentration, generator=None):
        sample = _sample_standard_gamma(concentration.detach(), generator)
        ctx.save_for_backward(concentration, sample)
        return sample

    @staticmethod
    def backward(ctx, grad):
        concentration, sample = ctx.saved_tensors
        dx_dalpha = _standard_gamma_grad(concentration.detach()._data, sample.detach()._data)
        return grad * Tensor._make(dx_dalpha.astype(grad._data.dtype)), None


def _standard_gamma(concentration, generator=None):
    """``torch._standard_gamma``: a Gamma(concentration, 1) sample of the same shape, differentiable w.r.t.
    ``concentration``."""
    return _StandardGamma.apply(concentration, generator)


# ====================================================================== the CDF

class _RegularizedGammaP(Function):
    """P(a, x) = gamma(a, x) / Gamma(a), the CDF of Gamma(a, 1) at x (``torch.special.gammainc``).

    dP/dx = x^(a-1) e^-x / Gamma(a) (the density); as in PyTorch there is no derivative w.r.t. a.
    (Needed here because ``pedatorch.igamma`` records no gradient at all.)
    """
    node_name = "IgammaBackward0"

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return igamma(a, x)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        density = exp((a - 1) * log(x) - x - lgamma(a))
        return None, grad * density


# ====================================================================== the distribution

class Gamma(ExponentialFamily):
    r"""A gamma distribution with shape ``concentration`` (alpha) and ``rate`` (beta, = 1 / scale).

        log p(x) = alpha log beta + (alpha - 1) log x - beta x - log Gamma(alpha)
        mean = alpha / beta,  variance = alpha / beta^2,  mode = max((alpha - 1) / beta, 0)
        H = alpha - log beta + log Gamma(alpha) + (1 - alpha) digamma(alpha)
        cdf(x) = P(alpha, beta x)    (regularised lower incomplete gamma)

    ``rsample`` draws x ~ Gamma(alpha, 1) and returns x / beta.  The gradient w.r.t. alpha is the implicit
    reparameterisation gradient dx/dalpha = -(dF/dalpha) / p(x), computed here from the series of the
    incomplete gamma function: exact to ~1e-13 where PyTorch's ``_standard_gamma_grad`` uses approximations
    good to ~1e-4, so gradients agree with PyTorch's to about that relative accuracy.  The samples
    themselves are PyTorch's for the same seed (its Marsaglia-Tsang sampler, draw for draw).

    Example::

        >>> m = Gamma(torch.tensor([1.0]), torch.tensor([1.0]))
        >>> m.sample()  # Gamma distributed with concentration=1 and rate=1
        tensor([ 0.1046])

    Args:
        concentration (float or Tensor): shape parameter of the distribution (often referred to as alpha)
        rate (float or Tensor): rate parameter of the distribution (often referred to as beta), rate = 1 / scale
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = Size() if _is_number(concentration) and _is_number(rate) else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # keep samples > 0 after the division too; on the detached data, so nothing is recorded
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (_xlogy(self.concentration, self.rate) + _xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _RegularizedGammaP.apply(self.concentration, self.rate * value)

    def entropy(self):
        return (self.concentration - log(self.rate) + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    # exponential-family form: theta = (alpha - 1, -beta), F = log Gamma(theta1 + 1) + (theta1 + 1) log(-1 / theta2)
    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * log(-y.reciprocal())
