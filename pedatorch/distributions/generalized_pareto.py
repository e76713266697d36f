"""The generalized Pareto distribution: the law of exceedances over a high threshold."""
import math
import numbers

from .._tensor import Size
from ..ops.creation import ones_like, tensor, zeros_like
from ..ops.elementwise import exp, expm1, isclose, log, log1p, where
from ..ops.random import rand
from ..ops.shape import broadcast_to
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    r"""A generalized Pareto distribution with ``loc`` (mu), ``scale`` (sigma) and ``concentration`` (xi):

        z = (x - mu) / sigma
        log p(x) = -log(sigma) - (1/xi + 1) log(1 + xi z)     (xi != 0),   -log(sigma) - z   (xi = 0)
        log S(x) = -log(1 + xi z) / xi  (xi != 0),   -z  (xi = 0)       (S = 1 - cdf, the survival function)
        icdf(u) = mu + sigma expm1(-xi log(1 - u)) / xi  (xi != 0),   mu - sigma log(1 - u)  (xi = 0)
        mean = mu + sigma / (1 - xi) (NaN for xi >= 1),  variance = sigma^2 / ((1 - xi)^2 (1 - 2 xi)) (NaN for
        xi >= 1/2),  mode = mu,  H = log(sigma) + xi + 1

    The support is [mu, inf) for xi >= 0 and [mu, mu - sigma / xi] for xi < 0.  ``rsample`` is the icdf of
    u ~ U(0, 1) (``torch.rand``).

    Args:
        loc (float or Tensor): Location parameter of the distribution
        scale (float or Tensor): Scale parameter of the distribution
        concentration (float or Tensor): Concentration parameter of the distribution
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if (isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
                and isinstance(concentration, numbers.Number)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = isclose(self.concentration, tensor(0.0))
        safe_conc = where(eq_zero, ones_like(self.concentration), self.concentration)
        y = 1 / safe_conc + ones_like(z)
        where_nonzero = where(y == 0, y, y * log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        return -log_scale - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = isclose(self.concentration, tensor(0.0))
        safe_conc = where(eq_zero, ones_like(self.concentration), self.concentration)
        where_nonzero = -log1p(safe_conc * z) / safe_conc
        return where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return log1p(-exp(self.log_survival_function(value)))

    def cdf(self, value):
        return exp(self.log_cdf(value))

    def icdf(self, value):
        loc = self.loc
        scale = self.scale
        concentration = self.concentration
        eq_zero = isclose(concentration, zeros_like(concentration))
        safe_conc = where(eq_zero, ones_like(concentration), concentration)
        logu = log1p(-value)
        where_nonzero = loc + scale / safe_conc * expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return where(valid, result, math.nan)

    @property
    def variance(self):
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = where(valid, concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return where(valid, result, math.nan)

    def entropy(self):
        ans = log(self.scale) + self.concentration + 1
        return broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
